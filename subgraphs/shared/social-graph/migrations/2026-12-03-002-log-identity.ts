import { sql, type Kysely } from 'kysely';

/**
 * The change log's identity (issue 39): a random name for this database's log, given by the first process that follows
 * it (not by the migration: databases copied from one migrated template would share it). A cache shared by a fleet
 * (Redis) keys its entries under it, so that entries of another database — a staging copy, a restored backup, a test's
 * throwaway one on the same Redis — whose positions mean other changes are never taken for this one's.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table social.event_horizon add column log_id text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table social.event_horizon drop column log_id`.execute(db);
}
