import { sql, type Generated, type Insertable, type Kysely, type Selectable } from 'kysely';

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

export type MediaTables = {
  'media.upload': UploadTable;
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

/** Inserts an upload's metadata; the database makes the id (a snowflake, see the migration). */
export async function insertUpload(db: MediaDb, row: NewUpload): Promise<UploadRow> {
  return db
    .insertInto('media.upload')
    .values({ ...row, swept_at: null })
    .returningAll()
    .executeTakeFirstOrThrow();
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
