import { sql, type Generated, type Insertable, type Kysely, type Selectable } from 'kysely';
import { appendEvents, type EventLogTables, type LoggedEvent } from '../event-log/event-log.repository.ts';

export interface UploadTable {
  id: Generated<string>;
  uploader_id: string;
  additional_owners: string[];
  media_category: string | null;
  mime_type: string;
  width: number;
  height: number;
  frames: number;
  size: number;
  blob_key: string;
  created_at: Date;
  expires_at: Date;
  retained: Generated<boolean>;
  swept_at: Date | null;
  /** Animated GIFs and videos of the chunked upload: pending | in_progress | succeeded | failed; null for images. */
  processing_state: Generated<string | null>;
  processing_progress: Generated<number | null>;
  /** Why processing failed (the reference's processing_info.error message). */
  processing_error: Generated<string | null>;
  processing_lease_until: Generated<Date | null>;
  alt_text: Generated<string | null>;
}

export interface RateCounterTable {
  subject: string;
  window_start: Date;
  count: number;
}

export interface UploadSessionTable {
  id: Generated<string>;
  uploader_id: string;
  additional_owners: string[];
  media_category: string | null;
  kind: string;
  media_type: string;
  total_bytes: string;
  created_at: Date;
  expires_at: Date;
  finalized_at: Date | null;
}

export interface UploadSegmentTable {
  session_id: string;
  segment_index: number;
  size: number;
  blob_key: string;
}

/** A blob no row holds (migrations/2026-11-27-001-pending-blobs.ts). */
export interface PendingBlobTable {
  blob_key: string;
  collect_after: Date;
}

export type MediaTables = {
  'media.upload': UploadTable;
  'media.pending_blob': PendingBlobTable;
  'media.rate_counter': RateCounterTable;
  'media.upload_session': UploadSessionTable;
  'media.upload_segment': UploadSegmentTable;
};

export type MediaDb = Kysely<MediaTables>;

export type UploadRow = Selectable<UploadTable>;

export type NewUpload = Omit<
  Insertable<UploadTable>,
  'id' | 'retained' | 'swept_at' | 'processing_state' | 'processing_progress' | 'processing_error' | 'processing_lease_until' | 'alt_text'
>;

/**
 * Inserts an upload's metadata, its blob claimed off the ledger in the same transaction (blob-ledger.ts), and the
 * changes the service makes of the row in the change log; the database makes the id (a snowflake, see the migration).
 */
export async function insertUpload(
  db: MediaDb,
  row: NewUpload,
  changes: (upload: UploadRow) => readonly LoggedEvent[],
): Promise<UploadRow> {
  return db.transaction().execute(async (trx) => {
    await claimOrThrow(trx, row.blob_key);
    const upload = await trx
      .insertInto('media.upload')
      .values({ ...row, swept_at: null })
      .returningAll()
      .executeTakeFirstOrThrow();
    await appendEvents(trx.withTables<EventLogTables>(), changes(upload));
    return upload;
  });
}

export async function findUpload(db: MediaDb, id: string): Promise<UploadRow | undefined> {
  return db.selectFrom('media.upload').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Marks an upload used by a container: its bytes are kept after the id expires. */
export async function retainUpload(db: MediaDb, id: string): Promise<void> {
  await db.updateTable('media.upload').set({ retained: true }).where('id', '=', id).execute();
}

/** Expired uploads whose bytes are still stored and not retained, oldest first. */
export async function findSweepable(db: MediaDb, now: Date, limit: number): Promise<{ id: string; blob_key: string }[]> {
  return db
    .selectFrom('media.upload')
    .select(['id', 'blob_key'])
    .where('expires_at', '<=', now)
    .where('swept_at', 'is', null)
    .where('retained', '=', false)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}

export async function markSwept(db: MediaDb, ids: readonly string[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('media.upload').set({ swept_at: at }).where('id', 'in', ids).where('swept_at', 'is', null).execute();
}

/** Counts one more request of `subject` in the window starting at `windowStart`; returns the count including it. */
export async function countInWindow(db: MediaDb, subject: string, windowStart: Date): Promise<number> {
  const row = await db
    .insertInto('media.rate_counter')
    .values({ subject, window_start: windowStart, count: 1 })
    .onConflict((conflict) => conflict.columns(['subject', 'window_start']).doUpdateSet({ count: sql`media.rate_counter.count + 1` }))
    .returning('count')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function deleteWindowsBefore(db: MediaDb, before: Date): Promise<void> {
  await db.deleteFrom('media.rate_counter').where('window_start', '<', before).execute();
}

/**
 * How long a blob may be written before something records it: a key still pending this long after its write began was
 * left by a process that stopped mid-write or before recording it (the largest write, a 512 MiB video's assembly, takes
 * minutes). The sweeper removes it then.
 */
export const PENDING_BLOB_GRACE_MS = 60 * 60 * 1000;

/** The sweeper removed a blob before the row meant to hold it was recorded (its write outlasted the grace). */
export class BlobCollectedError extends Error {
  constructor(readonly key: string) {
    super(`blob ${key} was collected before it was recorded`);
  }
}

/** claimPendingBlob, refusing (and so rolling the caller's transaction back) when the blob was collected. */
export async function claimOrThrow(db: MediaDb, key: string): Promise<void> {
  if (!(await claimPendingBlob(db, key))) throw new BlobCollectedError(key);
}

/** Notes `key` before its blob is written: collected after `collectAfter` unless claimed by then. */
export async function notePendingBlob(db: MediaDb, key: string, collectAfter: Date): Promise<void> {
  await db.insertInto('media.pending_blob').values({ blob_key: key, collect_after: collectAfter }).execute();
}

/**
 * Takes `key` off the ledger as the row that holds the blob is recorded (in that row's transaction). False when it was
 * not there: the sweeper judged the write abandoned and removed the blob, so the caller must not record it.
 */
export async function claimPendingBlob(db: MediaDb, key: string): Promise<boolean> {
  const claimed = await db.deleteFrom('media.pending_blob').where('blob_key', '=', key).returning('blob_key').executeTakeFirst();
  return claimed !== undefined;
}

/** Puts blobs rows no longer hold on the ledger, to be deleted from `collectAfter` on (by the caller first, the sweeper else). */
export async function discardBlobs(db: MediaDb, keys: readonly string[], collectAfter: Date): Promise<void> {
  if (keys.length === 0) return;
  await db
    .insertInto('media.pending_blob')
    .values(keys.map((key) => ({ blob_key: key, collect_after: collectAfter })))
    .onConflict((conflict) => conflict.column('blob_key').doUpdateSet({ collect_after: collectAfter }))
    .execute();
}

/** Keys due for collection, oldest first. */
export async function findCollectableBlobs(db: MediaDb, now: Date, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('media.pending_blob')
    .select('blob_key')
    .where('collect_after', '<=', now)
    .orderBy('collect_after')
    .limit(limit)
    .execute();
  return rows.map((row) => row.blob_key);
}

/** Takes keys off the ledger once their blobs are gone. */
export async function forgetBlobs(db: MediaDb, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await db.deleteFrom('media.pending_blob').where('blob_key', 'in', keys).execute();
}
