import { afterAll, beforeAll, describe } from 'vitest';
import { MATRIX_NOW } from '../../support/auth-matrix/matrix.ts';
import { createMediaMatrix, defineMediaCells, type MediaMatrix } from '../../support/auth-matrix/media-upload.ts';
import { createSocialWorld, type SocialWorld } from '../../support/auth-matrix/social-world.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * Auth matrix of Area D (the image upload), embedded gateway: each door × every credential condition of OAuth 1.0a and
 * bearer tokens → the reference's error body and code, nothing stored; and the use of an upload's id by someone who
 * does not own it, on every social door. The table is in test/support/auth-matrix/media-upload.ts.
 */
describe('auth matrix: image upload (Area D), embedded gateway', () => {
  let system: TestSystem | undefined;
  let world: SocialWorld;
  let matrix: MediaMatrix;
  beforeAll(async () => {
    // The cache-off run the cached matrices (*.cached.test.ts) are held to.
    system = await startTestSystem({ GATEWAY_CACHE: 'off' }, { now: () => MATRIX_NOW });
    world = await createSocialWorld(system);
    matrix = await createMediaMatrix(system, world);
  });
  afterAll(async () => {
    await world?.close();
    await system?.close();
  });

  defineMediaCells(
    () => world,
    () => matrix,
  );
});
