import type { Insertable, Selectable } from 'kysely';
import { appendEvents, type EventLogTables, type LoggedEvent } from '../event-log/event-log.repository.ts';
import {
  claimOrThrow,
  discardBlobs,
  type MediaDb,
  type NewUpload,
  type UploadRow,
  type UploadSegmentTable,
  type UploadSessionTable,
} from './media-upload.repository.ts';

/** SQL of the chunked upload: sessions (INIT), their segments (APPEND), FINALIZE, and the processing state machine. */

export type SessionRow = Selectable<UploadSessionTable>;
export type SegmentRow = Selectable<UploadSegmentTable>;
export type NewSession = Omit<Insertable<UploadSessionTable>, 'id' | 'finalized_at'>;

export async function insertSession(db: MediaDb, row: NewSession): Promise<SessionRow> {
  return db
    .insertInto('media.upload_session')
    .values({ ...row, finalized_at: null })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findSession(db: MediaDb, id: string): Promise<SessionRow | undefined> {
  return db.selectFrom('media.upload_session').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Records a segment, its blob claimed off the ledger in the same transaction (blob-ledger.ts), and the service's
 * `changes` in the change log; false when the session already has one at that index (the row is left as it was, the blob
 * stays on the ledger for the caller to remove, and nothing is logged).
 */
export async function insertSegment(db: MediaDb, row: SegmentRow, changes: readonly LoggedEvent[]): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('media.upload_segment')
      .values(row)
      .onConflict((conflict) => conflict.columns(['session_id', 'segment_index']).doNothing())
      .returning('segment_index')
      .executeTakeFirst();
    if (inserted === undefined) return false;
    await claimOrThrow(trx, row.blob_key);
    await appendEvents(trx.withTables<EventLogTables>(), changes);
    return true;
  });
}

/** How many segments a session holds and their total size. */
export async function segmentTotals(db: MediaDb, sessionId: string): Promise<{ count: number; bytes: number }> {
  const row = await db
    .selectFrom('media.upload_segment')
    .select((eb) => [eb.fn.countAll<string>().as('count'), eb.fn.coalesce(eb.fn.sum<string>('size'), eb.val('0')).as('bytes')])
    .where('session_id', '=', sessionId)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), bytes: Number(row.bytes) };
}

/** A session's segments in segment_index order. */
export async function listSegments(db: MediaDb, sessionId: string): Promise<SegmentRow[]> {
  return db.selectFrom('media.upload_segment').selectAll().where('session_id', '=', sessionId).orderBy('segment_index').execute();
}

/**
 * Closes a session and records its upload under the session's id, with the service's `changes` in the change log, at
 * most once: undefined when another FINALIZE got there first (nothing is written then).
 */
export async function finalizeSession(
  db: MediaDb,
  sessionId: string,
  at: Date,
  upload: NewUpload & { processing_state: string | null; processing_progress: number | null },
  changes: readonly LoggedEvent[],
): Promise<UploadRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const closed = await trx
      .updateTable('media.upload_session')
      .set({ finalized_at: at })
      .where('id', '=', sessionId)
      .where('finalized_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (!closed) return undefined;
    // The segments' blobs go on the ledger as their rows go: whoever deletes them after this commit (the caller, or the
    // sweeper if the process stops first) finds them there.
    const segments = await trx.deleteFrom('media.upload_segment').where('session_id', '=', sessionId).returning('blob_key').execute();
    await discardBlobs(
      trx,
      segments.map((segment) => segment.blob_key),
      at,
    );
    await claimOrThrow(trx, upload.blob_key);
    const row = await trx
      .insertInto('media.upload')
      .values({ ...upload, id: sessionId, swept_at: null })
      .returningAll()
      .executeTakeFirstOrThrow();
    await appendEvents(trx.withTables<EventLogTables>(), changes);
    return row;
  });
}

/** Expired sessions never finalized, oldest first. */
export async function findAbandonedSessions(db: MediaDb, now: Date, limit: number): Promise<{ id: string }[]> {
  return db
    .selectFrom('media.upload_session')
    .select('id')
    .where('expires_at', '<=', now)
    .where('finalized_at', 'is', null)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}

export async function deleteSession(db: MediaDb, sessionId: string): Promise<void> {
  await db.deleteFrom('media.upload_session').where('id', '=', sessionId).execute();
}

/**
 * Takes the processing of an upload: a pending one, or one whose processor's lease ran out (a process that stopped mid-
 * way). Returns the row when this caller now holds it.
 */
export async function claimProcessing(db: MediaDb, id: string, now: Date, leaseUntil: Date): Promise<UploadRow | undefined> {
  return db
    .updateTable('media.upload')
    .set({ processing_state: 'in_progress', processing_progress: 0, processing_lease_until: leaseUntil })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('processing_state', '=', 'pending'),
        eb.and([eb('processing_state', '=', 'in_progress'), eb('processing_lease_until', '<', now)]),
      ]),
    )
    .returningAll()
    .executeTakeFirst();
}

/** Uploads whose processing nobody holds: pending, or in progress past the lease (their process stopped), not expired. */
export async function findStalledProcessing(db: MediaDb, now: Date, limit: number): Promise<{ id: string }[]> {
  return db
    .selectFrom('media.upload')
    .select('id')
    .where('expires_at', '>', now)
    .where((eb) =>
      eb.or([
        eb('processing_state', '=', 'pending'),
        eb.and([eb('processing_state', '=', 'in_progress'), eb('processing_lease_until', '<', now)]),
      ]),
    )
    .limit(limit)
    .execute();
}

export async function recordProgress(db: MediaDb, id: string, percent: number): Promise<void> {
  await db
    .updateTable('media.upload')
    .set({ processing_progress: percent })
    .where('id', '=', id)
    .where('processing_state', '=', 'in_progress')
    .execute();
}

/** The end of processing: succeeded (with what inspection found) or failed (with why). */
export async function completeProcessing(
  db: MediaDb,
  id: string,
  outcome: { state: 'succeeded'; width: number; height: number; frames: number; mimeType: string } | { state: 'failed'; error: string },
): Promise<void> {
  const values =
    outcome.state === 'succeeded'
      ? { width: outcome.width, height: outcome.height, frames: outcome.frames, mime_type: outcome.mimeType, processing_progress: 100 }
      : { processing_error: outcome.error };
  await db
    .updateTable('media.upload')
    .set({ ...values, processing_state: outcome.state, processing_lease_until: null })
    .where('id', '=', id)
    .where('processing_state', '=', 'in_progress')
    .execute();
}

export async function setAltText(db: MediaDb, id: string, text: string): Promise<void> {
  await db.updateTable('media.upload').set({ alt_text: text }).where('id', '=', id).execute();
}
