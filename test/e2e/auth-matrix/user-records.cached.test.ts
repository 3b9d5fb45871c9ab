import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  cacheLookups,
  expectWarmCache,
  userWarmUp,
  withUserAfterChecks,
  type CacheLookups,
  type WarmStats,
} from '../../support/auth-matrix/fetch-cache-warm.ts';
import { MATRIX_NOW } from '../../support/auth-matrix/matrix.ts';
import { createUserMatrix, defineUserCells, type UserMatrix } from '../../support/auth-matrix/user-records.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * Area A's auth matrix with the gateway's fetch cache on and warm (GATEWAY_CACHE=memory, issue 39), embedded gateway:
 * the same cells as user-records.test.ts, each after the record it names was read through the gateway by an
 * administrator and by users who may read but not write it (test/support/auth-matrix/fetch-cache-warm.ts). Every cell
 * must answer as with the cache off, and an allowed write must be in the next reads of what the warm-up cached (the
 * updated record, the deleted one gone, the created one counted); and the warm-up must really have filled the cache
 * (its hits on /metrics).
 */
describe('auth matrix: user records (Area A), embedded gateway, fetch cache on and warm', () => {
  let system: TestSystem | undefined;
  let matrix: UserMatrix | undefined;
  let before: CacheLookups;
  const stats: WarmStats = { cells: 0, requests: 0 };
  beforeAll(async () => {
    system = await startTestSystem({ GATEWAY_CACHE: 'memory' }, { now: () => MATRIX_NOW });
    const warmUp = userWarmUp(system, stats);
    matrix = withUserAfterChecks(await createUserMatrix(system, warmUp), warmUp);
    before = await cacheLookups(system);
  });
  afterAll(async () => {
    matrix?.close();
    await system?.close();
  });

  defineUserCells(() => matrix!);

  describe('the fetch cache', () => {
    it('was warm: the warm-up reads were looked up in it and served from it (hits on /metrics)', async () => {
      await expectWarmCache(system!, before, stats, 'user records');
    });
  });
});
