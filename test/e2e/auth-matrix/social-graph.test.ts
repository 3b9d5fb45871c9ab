import { afterAll, beforeAll, describe } from 'vitest';
import { MATRIX_NOW } from '../../support/auth-matrix/matrix.ts';
import { defineSocialCells, SOCIAL_DOORS } from '../../support/auth-matrix/social-cells.ts';
import { createSocialWorld, type SocialWorld } from '../../support/auth-matrix/social-world.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * Auth matrix of the social graph (Areas B and C), embedded gateway: every operation on the own-login host, on the
 * parent-platform host, and through GraphQL with a token of each login type × every credential condition → the Graph
 * error envelope (REST) or the GraphQL error with the area's `extensions.code` and `reason`, and nothing of the object
 * in a refusal. The table is in test/support/auth-matrix/ (social-*.ts).
 */
describe('auth matrix: social graph (Areas B and C), embedded gateway', () => {
  let system: TestSystem | undefined;
  let world: SocialWorld;
  beforeAll(async () => {
    // The cache-off run the cached matrices (*.cached.test.ts) are held to.
    system = await startTestSystem({ GATEWAY_CACHE: 'off' }, { now: () => MATRIX_NOW });
    world = await createSocialWorld(system);
  });
  afterAll(async () => {
    await world?.close();
    await system?.close();
  });

  defineSocialCells(() => world, Object.values(SOCIAL_DOORS));
});
