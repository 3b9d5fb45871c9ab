import { sql, type Kysely } from 'kysely';

/** Epoch of the reference platform's snowflake ids (2010-11-04T01:42:54.657Z), so ids look and sort like its own. */
export const SNOWFLAKE_EPOCH_MS = 1_288_834_974_657n;

/**
 * Uploaded images: metadata here, bytes in the blob store under `blob_key`.
 *
 * Ids are snowflakes made by the database: milliseconds since the epoch above in the high bits, a sequence in the low
 * 22, so they are unique across every process that inserts, grow with time, and are 19 digits long — far above 2^53,
 * as the reference's are (clients must read media_id_string).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createSchema('media').ifNotExists().execute();
  await sql`create sequence media.upload_sequence`.execute(db);
  await sql`
    create table media.upload (
      id bigint primary key default (
        ((floor(extract(epoch from clock_timestamp()) * 1000)::bigint - ${sql.lit(Number(SNOWFLAKE_EPOCH_MS))}) << 22)
        | (nextval('media.upload_sequence') % 4194304)
      ),
      uploader_id bigint not null,
      additional_owners bigint[] not null default '{}',
      media_category text,
      mime_type text not null,
      width integer not null,
      height integer not null,
      frames integer not null,
      size integer not null,
      blob_key text not null,
      created_at timestamptz(3) not null,
      expires_at timestamptz(3) not null,
      -- Used by a container: its bytes outlive the id's expiry (a post keeps its image).
      retained boolean not null default false,
      -- When the sweeper removed the bytes.
      swept_at timestamptz(3)
    )`.execute(db);
  await sql`create index upload_sweep on media.upload (expires_at) where swept_at is null and not retained`.execute(db);
  // Fixed-window counters of the upload rate limit, shared by every process through the database.
  await sql`
    create table media.rate_counter (
      subject text not null,
      window_start timestamptz(3) not null,
      count integer not null,
      primary key (subject, window_start)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table media.rate_counter`.execute(db);
  await sql`drop table media.upload`.execute(db);
  await sql`drop sequence media.upload_sequence`.execute(db);
}
