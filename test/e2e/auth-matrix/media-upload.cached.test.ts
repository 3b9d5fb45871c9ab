import { afterAll, beforeAll, describe, it } from 'vitest';
import { cacheState, expectNothingCached, type CacheState } from '../../support/auth-matrix/fetch-cache-warm.ts';
import { MATRIX_NOW } from '../../support/auth-matrix/matrix.ts';
import { createMediaMatrix, defineMediaCells, type MediaMatrix } from '../../support/auth-matrix/media-upload.ts';
import { createSocialWorld, type SocialWorld } from '../../support/auth-matrix/social-world.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * Area D's auth matrix (the image upload) with the gateway's fetch cache on (GATEWAY_CACHE=memory, issue 39), embedded
 * gateway: the same cells as media-upload.test.ts, and no warm-up. Nothing of Area D can be kept: an upload and a
 * container made from one are writes, which are never looked up in the cache, and the media subgraph's only read (the
 * upload's status) has maxAge 0 (subgraphs/media/schema.graphql has no other @cacheControl hint). So every cell's
 * answer with the cache on is the cache-off one by construction, and a warm-up could change none of them; what the cache
 * does change here is that a write's reply waits for its changes to reach it, which every allowed cell goes through.
 * The file asserts that premise on /metrics instead: no fetch of the run was looked up in the cache, nor kept in it.
 */
describe('auth matrix: image upload (Area D), embedded gateway, fetch cache on', () => {
  let system: TestSystem | undefined;
  let world: SocialWorld;
  let matrix: MediaMatrix;
  let before: CacheState;
  beforeAll(async () => {
    system = await startTestSystem({ GATEWAY_CACHE: 'memory' }, { now: () => MATRIX_NOW });
    world = await createSocialWorld(system);
    matrix = await createMediaMatrix(system, world);
    before = await cacheState(system);
  });
  afterAll(async () => {
    await world?.close();
    await system?.close();
  });

  defineMediaCells(
    () => world,
    () => matrix,
  );

  describe('the fetch cache', () => {
    it('had nothing to keep: no fetch of the cells was looked up in it or kept in it (/metrics)', async () => {
      await expectNothingCached(system!, before, 'image upload');
    });
  });
});
