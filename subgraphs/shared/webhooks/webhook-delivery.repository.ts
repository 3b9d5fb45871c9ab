import { sql, type RawBuilder } from 'kysely';
import type { SocialDb } from '../social-graph/social-tables.ts';
import type { SocialEventRecord } from '../event-log/social-events.ts';
import { eventRecordOf, lastEventPosition, selectEvents } from '../event-log/event-log.repository.ts';
import { WEBHOOK_FIELDS_BY_KIND } from './webhook-payload.ts';

/**
 * The SQL of webhook delivery (social.webhook_cursor, migration 2026-11-27-002-webhook-subscriptions; the worker is
 * webhook-delivery-worker.ts).
 *
 * A cursor says how far in the event log an app subscription's callback has been served (`delivered_to`) and which batch
 * is in flight (`pending_to`: a retry sends the same range again). A worker takes a cursor with a lease (`leased_until`,
 * taken with FOR UPDATE SKIP LOCKED so two workers never take the same one) and records the outcome only while its
 * lease is still the one it took: `leased_until` is the fencing token. A worker that dies, or outlives its lease, leaves
 * the cursor as it was, and the next worker to take it after the lease sends the same batch again (at least once).
 *
 * An event is delivered to a subscription when its kind is one webhooks report (WEBHOOK_FIELDS_BY_KIND), its field is
 * one the subscription names, and its account has subscribed to the app (social.subscribed_app, whatever fields it
 * named: an account subscribed to an app gets every field the app subscribed to, reference §6.3). All times are the
 * database's (`now()`), so that several processes agree on them whatever their clocks.
 */

/** A cursor taken by a worker, with what delivering it needs. */
export interface ClaimedCursor {
  appId: string;
  object: string;
  /** The last log position delivered (or dropped, or skipped). */
  deliveredTo: string;
  /** The end of the batch in flight (sent and failed at least once), or null. */
  pendingTo: string | null;
  /** Failed attempts of the batch in flight. */
  attempts: number;
  /** When the batch in flight first failed. */
  firstFailedAt: Date | null;
  /** The lease taken: the fencing token of every record* call. */
  lease: Date;
  /** The database's time when the cursor was taken. */
  now: Date;
  callbackUrl: string;
  includeValues: boolean;
  fields: string[];
}

/** The part of a claimed cursor that identifies a lease. */
export type CursorLease = Pick<ClaimedCursor, 'appId' | 'object' | 'lease'>;

/** The events of one delivery: after `from` (exclusive) up to `to` (inclusive), those the subscription gets. */
export interface WebhookBatch {
  from: string;
  to: string;
  events: SocialEventRecord[];
}

/** The (kind, field) pairs webhooks report, as a condition on `social.event as e`. */
function deliverableKinds(): RawBuilder<boolean> {
  const pairs = Object.entries(WEBHOOK_FIELDS_BY_KIND).flatMap(([kind, fields]) =>
    fields.map((field) => sql`(${sql.lit(kind)}, ${sql.lit(field)})`),
  );
  return sql<boolean>`(e.kind, e.field) in (${sql.join(pairs)})`;
}

const millis = (ms: number) => sql<Date>`now() + ${Math.max(0, Math.round(ms))}::integer * interval '1 millisecond'`;

/**
 * Writes the missing cursor of every active subscription, starting at the log's last position (events before a
 * subscription are not delivered). The subscription manager writes the cursor with the subscription; this covers a
 * subscription written without one. Returns how many were written.
 */
export async function ensureCursors(db: SocialDb): Promise<number> {
  const result = await sql`
    insert into social.webhook_cursor (app_id, object, delivered_to)
    select s.app_id, s.object, (select coalesce(max(position), 0) from social.event)
    from social.app_subscription s
    where s.active and not exists (select 1 from social.webhook_cursor c where c.app_id = s.app_id and c.object = s.object)
    on conflict do nothing`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

interface ClaimRow {
  app_id: string;
  object: string;
  delivered_to: string;
  pending_to: string | null;
  attempts: number;
  first_failed_at: Date | null;
  leased_until: Date;
  now: Date;
  callback_url: string;
  include_values: boolean;
  fields: string[];
}

/**
 * Takes the cursor due first — active subscription, next attempt due, no live lease, and something to do (a batch in
 * flight, or events after it) — with a lease of `leaseMs`; undefined when none is due. Cursors other workers are taking
 * at that moment are skipped, not waited for.
 */
export async function claimCursor(db: SocialDb, leaseMs: number): Promise<ClaimedCursor | undefined> {
  const { rows } = await sql<ClaimRow>`
    update social.webhook_cursor c
    set leased_until = ${millis(leaseMs)}
    from social.app_subscription s
    where s.app_id = c.app_id and s.object = c.object
      and (c.app_id, c.object) = (
        select w.app_id, w.object
        from social.webhook_cursor w
        join social.app_subscription ws on ws.app_id = w.app_id and ws.object = w.object
        where ws.active
          and w.next_attempt_at <= now()
          and (w.leased_until is null or w.leased_until < now())
          and (w.pending_to is not null or exists (select 1 from social.event e where e.position > w.delivered_to))
        order by w.next_attempt_at
        limit 1
        for update of w skip locked)
    returning c.app_id, c.object, c.delivered_to, c.pending_to, c.attempts, c.first_failed_at, c.leased_until, now() as now,
      s.callback_url, s.include_values, s.fields`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  return {
    appId: String(row.app_id),
    object: row.object,
    deliveredTo: String(row.delivered_to),
    pendingTo: row.pending_to === null ? null : String(row.pending_to),
    attempts: row.attempts,
    firstFailedAt: row.first_failed_at,
    lease: row.leased_until,
    now: row.now,
    callbackUrl: row.callback_url,
    includeValues: row.include_values,
    fields: row.fields,
  };
}

/**
 * The batch of a claimed cursor: the batch in flight again when there is one (the same range: a retry sends the same
 * events), else the next events, at most `limit` of them. A batch may hold no event (nothing after the cursor concerns
 * the subscription): its `to` is still where the cursor may move.
 */
export async function readBatch(db: SocialDb, cursor: ClaimedCursor, limit: number): Promise<WebhookBatch> {
  const from = cursor.deliveredTo;
  if (cursor.pendingTo !== null) {
    return { from, to: cursor.pendingTo, events: await deliverableEvents(db, cursor, from, cursor.pendingTo) };
  }
  // The log's end first: positions become visible in order (event-log.repository.ts), so nothing at or below it can
  // appear later, and a batch with fewer than `limit` events covers everything up to it.
  const end = await lastEventPosition(db);
  const last = end === '0' ? from : end;
  if (BigInt(last) <= BigInt(from)) return { from, to: from, events: [] };
  const events = await deliverableEvents(db, cursor, from, last, limit);
  return { from, to: events.length === limit ? events.at(-1)!.position : last, events };
}

/** The events after `from` up to `to` that the cursor's subscription gets, in log order. */
async function deliverableEvents(
  db: SocialDb,
  cursor: ClaimedCursor,
  from: string,
  to: string,
  limit?: number,
): Promise<SocialEventRecord[]> {
  if (cursor.fields.length === 0) return [];
  let query = selectEvents(db)
    .where('e.position', '>', from)
    .where('e.position', '<=', to)
    .where(deliverableKinds())
    .where('e.field', 'in', cursor.fields)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('social.subscribed_app as a')
          .select(sql.lit(1).as('one'))
          .whereRef('a.account_id', '=', 'e.account_id')
          .where('a.app_id', '=', cursor.appId),
      ),
    )
    .orderBy('e.position');
  if (limit !== undefined) query = query.limit(limit);
  const rows = await query.execute();
  return rows.map(eventRecordOf);
}

/** The cursor row of a lease, while the lease is still the one taken. */
function leased(db: SocialDb, lease: CursorLease) {
  return db
    .updateTable('social.webhook_cursor')
    .where('app_id', '=', lease.appId)
    .where('object', '=', lease.object)
    .where('leased_until', '=', lease.lease);
}

async function applied(update: ReturnType<typeof leased>): Promise<boolean> {
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * The batch was answered 2xx: the cursor moves past it, its failures are forgotten, the lease is released and the cursor
 * is due again at once. False when the lease was lost (another worker has the cursor now; nothing is written).
 */
export function recordDelivered(db: SocialDb, lease: CursorLease, batch: { to: string; count: number }): Promise<boolean> {
  return moveOn(db, lease, batch, 'delivered_total');
}

/** Moves a leased cursor past a batch (sent, or given up), forgets its failures, releases it, and counts the batch. */
function moveOn(
  db: SocialDb,
  lease: CursorLease,
  batch: { to: string; count: number },
  counter: 'delivered_total' | 'dropped_total',
): Promise<boolean> {
  return applied(
    leased(db, lease).set((eb) => ({
      delivered_to: batch.to,
      pending_to: null,
      attempts: 0,
      first_failed_at: null,
      next_attempt_at: sql<Date>`now()`,
      leased_until: null,
      [counter]: eb(counter, '+', String(batch.count)),
    })),
  );
}

/**
 * The batch failed: it stays in flight (`pending_to`), its attempts grow, its first failure is kept (or set now), the
 * next attempt is `retryInMs` away, and the lease is released.
 */
export function recordFailed(db: SocialDb, lease: CursorLease, batch: { to: string }, retryInMs: number): Promise<boolean> {
  return applied(
    leased(db, lease).set((eb) => ({
      pending_to: batch.to,
      attempts: eb('attempts', '+', 1),
      first_failed_at: sql<Date>`coalesce(first_failed_at, now())`,
      next_attempt_at: millis(retryInMs),
      leased_until: null,
    })),
  );
}

/** The batch failed for longer than the retry window: the cursor moves past it without sending it, and counts it. */
export function recordDropped(db: SocialDb, lease: CursorLease, batch: { to: string; count: number }): Promise<boolean> {
  return moveOn(db, lease, batch, 'dropped_total');
}

/** The batch holds nothing the subscription gets: the cursor moves past it without sending anything. */
export function recordSkipped(db: SocialDb, lease: CursorLease, to: string): Promise<boolean> {
  return recordDelivered(db, lease, { to, count: 0 });
}

/** Gives the lease back without changing anything else (nothing to do after all). */
export function releaseCursor(db: SocialDb, lease: CursorLease): Promise<boolean> {
  return applied(leased(db, lease).set({ leased_until: null }));
}

/** What one active subscription has still to receive. */
export interface WebhookQueueEntry {
  appId: string;
  object: string;
  /** Events after the cursor that the subscription gets. */
  undelivered: number;
  /** When the oldest of them was written, or null. */
  oldestUndeliveredAt: Date | null;
  deliveredTotal: string;
  droppedTotal: string;
}

/** Every active subscription's queue (for metrics: read when they are scraped). */
export async function webhookQueue(db: SocialDb): Promise<WebhookQueueEntry[]> {
  const { rows } = await sql<{
    app_id: string;
    object: string;
    undelivered: string | number;
    oldest: Date | null;
    delivered_total: string;
    dropped_total: string;
  }>`
    select c.app_id, c.object, q.undelivered, q.oldest, c.delivered_total, c.dropped_total
    from social.webhook_cursor c
    join social.app_subscription s on s.app_id = c.app_id and s.object = c.object
    cross join lateral (
      select count(*) as undelivered, min(e.created_at) as oldest
      from social.event e
      where e.position > c.delivered_to
        and ${deliverableKinds()}
        and e.field = any(s.fields)
        and exists (select 1 from social.subscribed_app a where a.account_id = e.account_id and a.app_id = c.app_id)
    ) q
    where s.active
    order by c.app_id, c.object`.execute(db);
  return rows.map((row) => ({
    appId: String(row.app_id),
    object: row.object,
    undelivered: Number(row.undelivered),
    oldestUndeliveredAt: row.oldest,
    deliveredTotal: String(row.delivered_total),
    droppedTotal: String(row.dropped_total),
  }));
}
