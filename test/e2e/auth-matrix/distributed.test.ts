import { afterAll, beforeAll, describe } from 'vitest';
import { MATRIX_NOW } from '../../support/auth-matrix/matrix.ts';
import { createMediaMatrix, defineMediaCells, type MediaMatrix } from '../../support/auth-matrix/media-upload.ts';
import { defineSocialCells, SOCIAL_DOORS } from '../../support/auth-matrix/social-cells.ts';
import { createSocialWorld, type SocialWorld } from '../../support/auth-matrix/social-world.ts';
import { createUserMatrix, defineUserCells, type UserMatrix } from '../../support/auth-matrix/user-records.ts';
import { startDistributedTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * The auth matrix on the distributed topology — each subgraph behind its own HTTP server — where the credentials reach
 * the services only as forwarded headers (Authorization, X-Social-Host, X-Signed-Request): Areas A and D whole, and every
 * operation and door of Areas B and C with the valid token, every credential condition and every wrong owner. The social
 * cells that vary only the token's permissions or page role are left to social-graph.test.ts: what they test is service
 * code that reads the forwarded token the same way in both topologies, and they are a quarter of the social cells.
 * One system for the three areas, as starting one is most of a file's cost.
 */
describe('auth matrix, distributed gateway (subgraphs over HTTP)', () => {
  let system: TestSystem | undefined;
  let world: SocialWorld;
  let users: UserMatrix | undefined;
  let media: MediaMatrix;
  beforeAll(async () => {
    system = await startDistributedTestSystem({}, { now: () => MATRIX_NOW });
    world = await createSocialWorld(system);
    users = await createUserMatrix(system);
    media = await createMediaMatrix(system, world);
  });
  afterAll(async () => {
    users?.close();
    await world?.close();
    await system?.close();
  });

  describe('user records (Area A)', () => defineUserCells(() => users!));
  describe('social graph (Areas B and C)', () =>
    defineSocialCells(() => world, Object.values(SOCIAL_DOORS), ['authorised', 'credential', 'wrong-owner']));
  describe('image upload (Area D)', () =>
    defineMediaCells(
      () => world,
      () => media,
    ));
});
