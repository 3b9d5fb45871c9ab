import { sql } from 'kysely';
import type { SocialDb } from './social-tables.ts';

/** One counter: a limit key in one fixed window. */
export interface CounterKey {
  key: string;
  windowStart: Date;
}

export interface CounterState extends CounterKey {
  calls: number;
  timeMs: number;
}

const rowsOf = (keys: readonly CounterKey[]) =>
  sql.join(keys.map(({ key, windowStart }) => sql`(${key}, ${windowStart.toISOString()}::timestamptz)`));

/** A counter to count a call against, with time of earlier calls on it not yet written (milliseconds). */
export interface CounterCall extends CounterKey {
  pendingMs: number;
}

/**
 * Counts one call against every key, in one statement (a missing window starts at 1), adds the pending time of earlier
 * calls, and returns each counter after it. With `sweepBefore`, the same statement drops the windows that started
 * before it. Concurrent calls on the same keys serialise on the rows, so no call is lost whatever the number of processes.
 *
 * The statement commits without waiting for its WAL to reach disk (`synchronous_commit = off`, for this transaction
 * only: set_config's third argument): every call of an app updates the same few rows, and waiting for the flush held
 * their locks through it, so that concurrent callers queued behind each flush and the database spent far more CPU per
 * call (bench/README.md, "Issue 13's targets before coalescing"). A database crash can lose the counts of its last
 * fraction of a second (never more than three wal_writer_delay periods, and never another table's data): a rate limit
 * that forgets a few calls after a crash is the usual trade.
 */
export async function countCall(db: SocialDb, calls: readonly CounterCall[], sweepBefore: Date | undefined): Promise<CounterState[]> {
  const values = sql.join(
    calls.map(
      ({ key, windowStart, pendingMs }) =>
        sql`(${key}, ${windowStart.toISOString()}::timestamptz, ${Math.max(0, Math.round(pendingMs))}::bigint)`,
    ),
  );
  const { rows } = await sql<{ key: string; window_start: Date; calls: number; time_ms: string }>`
    with relaxed as materialized (select set_config('synchronous_commit', 'off', true)),
    swept as (
      delete from social.rate_counter
      where ${sweepBefore !== undefined}::boolean and window_start < ${(sweepBefore ?? new Date(0)).toISOString()}::timestamptz
    )
    insert into social.rate_counter as c (key, window_start, calls, time_ms)
    select key, window_start, 1, pending from (values ${values}) as v (key, window_start, pending) cross join relaxed
    on conflict (key, window_start) do update set calls = c.calls + 1, time_ms = c.time_ms + excluded.time_ms
    returning c.key, c.window_start, c.calls, c.time_ms`.execute(db);
  return rows.map((row) => ({ key: row.key, windowStart: row.window_start, calls: Number(row.calls), timeMs: Number(row.time_ms) }));
}

/** Takes back a call counted by countCall (a refused call is not counted). */
export async function uncountCall(db: SocialDb, keys: readonly CounterKey[]): Promise<void> {
  await sql`
    update social.rate_counter as c set calls = greatest(c.calls - 1, 0)
    from (values ${rowsOf(keys)}) as v (key, window_start)
    where c.key = v.key and c.window_start = v.window_start`.execute(db);
}
