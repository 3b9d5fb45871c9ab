import { sql, type Kysely } from 'kysely';

/**
 * `media.pending_blob`: blobs no row holds yet, or no longer — the ledger that lets the sweeper remove what a crash
 * leaves in the blob store (issue 28). A key is written here before its blob (collect_after = a grace past the
 * write's start) and removed in the same transaction that records the blob in an upload or a segment; FINALIZE moves
 * its segments' keys here (collect_after = now) in the transaction that drops their rows. So a process killed between
 * any two steps — blob written but not recorded, upload recorded but segments not yet deleted — leaves a row, and the
 * sweeper deletes the blob and then the row once collect_after has passed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table media.pending_blob (
      blob_key text primary key,
      collect_after timestamptz(3) not null
    )`.execute(db);
  await sql`create index pending_blob_collect on media.pending_blob (collect_after)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table media.pending_blob`.execute(db);
}
