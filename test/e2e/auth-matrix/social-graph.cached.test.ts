import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  cacheLookups,
  expectWarmCache,
  socialWarmUp,
  type CacheLookups,
  type WarmStats,
} from '../../support/auth-matrix/fetch-cache-warm.ts';
import { MATRIX_NOW } from '../../support/auth-matrix/matrix.ts';
import { defineSocialCells, SOCIAL_CELL_KINDS, SOCIAL_DOORS } from '../../support/auth-matrix/social-cells.ts';
import { createSocialWorld, type SocialWorld } from '../../support/auth-matrix/social-world.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * The social graph's auth matrix (Areas B and C) with the gateway's fetch cache on (GATEWAY_CACHE=memory, issue 39),
 * embedded gateway: the same cells as social-graph.test.ts. The cells whose request can be answered from the cache
 * (`media(id) { comments }` on both hosts, `account { mentionedComment }` on the parent-platform host) each run after
 * their own read was sent through the gateway by the door's actor with every permission, then by the actor with only
 * the permissions it needs, by the actor without one of them and by another account; every other cell runs with the
 * cache on but cold, its reply never kept (test/support/auth-matrix/fetch-cache-warm.ts, SOCIAL_CACHEABLE_READS). Every
 * cell must answer as with the cache off; and the warm-up must really have filled the cache (its hits on /metrics).
 */
describe('auth matrix: social graph (Areas B and C), embedded gateway, fetch cache on, warm where it can serve', () => {
  let system: TestSystem | undefined;
  let world: SocialWorld;
  let before: CacheLookups;
  const stats: WarmStats = { cells: 0, requests: 0 };
  beforeAll(async () => {
    system = await startTestSystem({ GATEWAY_CACHE: 'memory' }, { now: () => MATRIX_NOW });
    world = await createSocialWorld(system);
    before = await cacheLookups(system);
  });
  afterAll(async () => {
    await world?.close();
    await system?.close();
  });

  defineSocialCells(() => world, Object.values(SOCIAL_DOORS), SOCIAL_CELL_KINDS, socialWarmUp(stats));

  describe('the fetch cache', () => {
    it('was warm: the warm-up reads were looked up in it and served from it (hits on /metrics)', async () => {
      await expectWarmCache(system!, before, stats, 'social graph');
    });
  });
});
