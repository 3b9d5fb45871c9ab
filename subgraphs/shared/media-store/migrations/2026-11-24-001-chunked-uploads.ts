import { sql, type Kysely } from 'kysely';
import { SNOWFLAKE_EPOCH_MS } from './2026-11-21-001-uploads.ts';

/**
 * The chunked upload (INIT / APPEND / FINALIZE / STATUS) and media metadata.
 *
 * - `media.upload_session`: one INIT. Its id is the media_id the client uses from INIT on, made like an upload's id (same
 *   sequence, same snowflake layout), so FINALIZE records the finished upload under that very id.
 * - `media.upload_segment`: one APPEND, its bytes in the blob store; the primary key makes a segment index unique per
 *   session even when a client sends segments in parallel.
 * - `media.upload` gains the processing state machine of animated GIFs and videos (pending → in_progress → succeeded |
 *   failed) and alt text. Images and simple uploads have no processing state (null): they are usable at once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table media.upload_session (
      id bigint primary key default (
        ((floor(extract(epoch from clock_timestamp()) * 1000)::bigint - ${sql.lit(Number(SNOWFLAKE_EPOCH_MS))}) << 22)
        | (nextval('media.upload_sequence') % 4194304)
      ),
      uploader_id bigint not null,
      additional_owners bigint[] not null default '{}',
      media_category text,
      -- image | gif | video: how FINALIZE inspects the bytes.
      kind text not null,
      media_type text not null,
      total_bytes bigint not null,
      created_at timestamptz(3) not null,
      expires_at timestamptz(3) not null,
      -- When FINALIZE recorded the upload (media.upload.id = this id); null while segments are accepted.
      finalized_at timestamptz(3)
    )`.execute(db);
  await sql`create index upload_session_expiry on media.upload_session (expires_at) where finalized_at is null`.execute(db);
  await sql`
    create table media.upload_segment (
      session_id bigint not null references media.upload_session (id) on delete cascade,
      segment_index integer not null,
      size integer not null,
      blob_key text not null,
      primary key (session_id, segment_index)
    )`.execute(db);
  await sql`alter table media.upload add column processing_state text`.execute(db);
  await sql`alter table media.upload add column processing_progress integer`.execute(db);
  await sql`alter table media.upload add column processing_error text`.execute(db);
  // A processor holds the work until then; past it (a process that stopped mid-way) another may take it over.
  await sql`alter table media.upload add column processing_lease_until timestamptz(3)`.execute(db);
  await sql`alter table media.upload add column alt_text text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['alt_text', 'processing_lease_until', 'processing_error', 'processing_progress', 'processing_state']) {
    await sql`alter table media.upload drop column ${sql.ref(column)}`.execute(db);
  }
  await sql`drop table media.upload_segment`.execute(db);
  await sql`drop table media.upload_session`.execute(db);
}
