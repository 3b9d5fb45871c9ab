/**
 * subgraphs/shared/social-graph/social-rate-counter.repository.ts against a real database (PGlite, or PostgreSQL in the
 * e2e-postgres project): calls are counted, and the statement's relaxed commit (synchronous_commit off) stays within
 * its own transaction — the connection it ran on commits synchronously again afterwards.
 */
import { sql, type Kysely } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { countCall } from '../../subgraphs/shared/social-graph/social-rate-counter.repository.ts';
import type { SocialTables } from '../../subgraphs/shared/social-graph/social-tables.ts';
import { useTestDatabase } from '../support/test-system.ts';

let db: Kysely<SocialTables>;
const database = useTestDatabase();

beforeAll(() => {
  db = database().db.withTables<SocialTables>();
});

describe('countCall', () => {
  const windowStart = new Date('2026-11-24T19:00:00.000Z');

  it('counts each call on every key, and leaves the connection committing synchronously', async () => {
    await db.connection().execute(async (connection) => {
      const setting = async () =>
        (await sql<{ value: string }>`select current_setting('synchronous_commit') as value`.execute(connection)).rows[0]!.value;
      expect(await setting()).toBe('on');
      const first = await countCall(
        connection,
        [
          { key: 'counter-test:a', windowStart, pendingMs: 0 },
          { key: 'counter-test:b', windowStart, pendingMs: 7 },
        ],
        undefined,
      );
      const second = await countCall(connection, [{ key: 'counter-test:a', windowStart, pendingMs: 5 }], undefined);
      expect(first.map(({ key, calls, timeMs }) => [key, calls, timeMs]).sort()).toEqual([
        ['counter-test:a', 1, 0],
        ['counter-test:b', 1, 7],
      ]);
      expect(second.map(({ key, calls, timeMs }) => [key, calls, timeMs])).toEqual([['counter-test:a', 2, 5]]);
      expect(await setting()).toBe('on');
    });
  });
});
