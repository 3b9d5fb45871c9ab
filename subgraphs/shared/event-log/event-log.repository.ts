import { sql, type Kysely, type Transaction } from 'kysely';
import type { SocialDb, SocialTables } from '../social-graph/social-tables.ts';
import type { RecordChange } from './change-events.ts';
import type { SocialEvent, SocialEventRecord } from './social-events.ts';

/** What the log records: a social graph event (webhooks and subscriptions read it) or another area's change. */
export type LoggedEvent = SocialEvent | RecordChange;

/** The log's table alone: what a writer or reader outside the social graph needs of its connection's tables. */
export type EventLogTables = Pick<SocialTables, 'social.event'>;

/** A connection (or transaction) narrowed to the log's table. */
export type EventLogDb = Kysely<EventLogTables> | Transaction<EventLogTables>;

/**
 * The event log's SQL (table social.event, migration 2026-11-27-001-event-log).
 *
 * Order: an identity column hands out positions when rows are inserted, but transactions commit in their own order, so
 * a reader could see position 8 committed while 7 is still in flight, move its cursor past 7 and never read it. Writers
 * therefore take one transaction-scoped advisory lock before drawing positions: the transactions that append events
 * commit one after another, in position order. The lock is taken by the append, which callers make the last statement
 * of their transaction, so it is held only for the insert and the commit — the same cost a sequence of commits to one
 * table has anyway. PostgreSQL and PGlite alike.
 */

/** The advisory lock of the event log's writers (an arbitrary constant of this table's own). */
const EVENT_LOG_LOCK = 2_026_112_701;

/** The channel NOTIFY wakes readers on, with the last position appended (delivered at commit, and only then). */
export const EVENT_CHANNEL = 'social_event';

/**
 * Appends `events` in the caller's transaction (`trx` must be one: outside a transaction the lock would be released at
 * once). Call it last in the transaction. Nothing happens for an empty list.
 */
export async function appendEvents<DB extends EventLogTables>(
  transaction: Transaction<DB> | Kysely<DB>,
  events: readonly LoggedEvent[],
): Promise<void> {
  if (events.length === 0) return;
  // Kysely's builders are invariant in the table map: any writer's map that holds the log's table is narrowed to it.
  const trx = transaction as unknown as Kysely<EventLogTables>;
  await sql`select pg_advisory_xact_lock(${EVENT_LOG_LOCK})`.execute(trx);
  const rows = await trx
    .insertInto('social.event')
    .values(
      events.map((event) => ({
        account_id: event.accountId,
        kind: event.kind,
        field: event.field,
        value: JSON.stringify(event.value),
        keys: [...event.keys],
      })),
    )
    .returning('position')
    .execute();
  await sql`select pg_notify(${EVENT_CHANNEL}, ${String(rows.at(-1)!.position)})`.execute(trx);
}

/**
 * Runs a write and appends the changes it reports after it, in one transaction: a transaction of its own, or the
 * caller's when `db` is one (kysely has no nested transactions; the log's lock is then held to the caller's commit).
 * `write` returns its result and the changes it made — none when it changed nothing.
 */
export async function writeWithChanges<DB, T>(
  db: Kysely<DB> | Transaction<DB>,
  write: (trx: Transaction<DB>) => Promise<{ result: T; changes: readonly LoggedEvent[] }>,
): Promise<T> {
  const run = async (trx: Transaction<DB>) => {
    const { result, changes } = await write(trx);
    await appendEvents(trx.withTables<EventLogTables>(), changes);
    return result;
  };
  return db.isTransaction ? run(db as Transaction<DB>) : db.transaction().execute(run);
}

/**
 * The log's rows as events are read from them (`social.event as e`): the query every reader of the log starts from and
 * narrows (readEventsAfter here; a webhook subscription's events, webhooks/webhook-delivery.repository.ts), each row
 * turned into an event by eventRecordOf.
 */
export function selectEvents(db: SocialDb) {
  return db
    .selectFrom('social.event as e')
    .select(['e.position', 'e.created_at', 'e.account_id', 'e.kind', 'e.field', 'e.value', 'e.keys'])
    .$narrowType<{ account_id: string; field: string }>();
}

/** A row of selectEvents as the event it records: the log's one row mapper. */
export function eventRecordOf(row: {
  position: string | number | bigint;
  created_at: Date;
  account_id: string | number | bigint;
  kind: string;
  field: string;
  value: Record<string, unknown>;
  keys: string[];
}): SocialEventRecord {
  return {
    position: String(row.position),
    createdAt: row.created_at,
    accountId: String(row.account_id),
    kind: row.kind as SocialEventRecord['kind'],
    field: row.field as SocialEventRecord['field'],
    value: row.value,
    keys: row.keys,
  };
}

/** Events after `position` (exclusive), in order, at most `limit`. */
export async function readEventsAfter(db: SocialDb, position: string, limit: number): Promise<SocialEventRecord[]> {
  // The social graph's events only (a field), along the partial index event_social.
  const rows = await selectEvents(db)
    .where('e.position', '>', position)
    .where('e.field', 'is not', null)
    .orderBy('e.position')
    .limit(limit)
    .execute();
  return rows.map(eventRecordOf);
}

/** A change as a consumer of every area's changes reads it: where it is in the log, what it was, what it touched. */
export interface LoggedChange {
  position: string;
  kind: string;
  keys: string[];
}

/** Every change after `position` (exclusive), social graph events and other areas' alike, in order, at most `limit`. */
export async function readChangesAfter<DB extends EventLogTables>(
  db: Kysely<DB> | Transaction<DB>,
  position: string,
  limit: number,
): Promise<LoggedChange[]> {
  const rows = await (db as unknown as Kysely<EventLogTables>)
    .selectFrom('social.event')
    .select(['position', 'kind', 'keys'])
    .where('position', '>', position)
    .orderBy('position')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ position: String(row.position), kind: row.kind, keys: row.keys }));
}

/** The last position written ('0' for an empty log). */
export async function lastEventPosition(db: SocialDb): Promise<string> {
  const row = await db
    .selectFrom('social.event')
    .select((eb) => eb.fn.max('position').as('last'))
    .executeTakeFirst();
  return row?.last === null || row?.last === undefined ? '0' : String(row.last);
}

/**
 * Removes events written before `before` and moves the horizon (the highest position swept) past them, in one
 * statement; returns how many.
 */
export async function sweepEventsBefore(db: SocialDb, before: Date): Promise<number> {
  const result = await sql<{ removed: string | number }>`
    with swept as (delete from social.event where created_at < ${before} returning position),
    moved as (
      update social.event_horizon set swept_through = greatest(swept_through, (select max(position) from swept))
      where exists (select 1 from swept)
    )
    select count(*) as removed from swept`.execute(db);
  return Number(result.rows[0]?.removed ?? 0);
}

/**
 * The log's identity: its random name, given now by the first caller that finds none (`candidate`), and kept.
 */
export async function logIdentity(db: SocialDb, candidate: string): Promise<string> {
  const row = await db
    .updateTable('social.event_horizon')
    .set((eb) => ({ log_id: eb.fn.coalesce('log_id', eb.val(candidate)) }))
    .returning('log_id')
    .executeTakeFirst();
  return row?.log_id ?? candidate;
}

/** The highest position swept ('0' before the first sweep): a cursor below it may have lost events. */
export async function eventHorizon(db: SocialDb): Promise<string> {
  const row = await db.selectFrom('social.event_horizon').select('swept_through').executeTakeFirst();
  return row === undefined ? '0' : String(row.swept_through);
}
