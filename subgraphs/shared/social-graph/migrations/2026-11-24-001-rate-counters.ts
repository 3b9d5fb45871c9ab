import { sql, type Kysely } from 'kysely';

/**
 * The social graph's rate-limit counters (reference §3.4), in the database so that every process serving the graph —
 * embedded or distributed, behind any number of gateways and REST adapters — counts the same calls. One row per limit
 * key and fixed window: calls admitted, and the milliseconds they took (for the usage headers' total_time).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table social.rate_counter (
    key text not null,
    window_start timestamptz not null,
    calls integer not null default 0,
    time_ms bigint not null default 0,
    primary key (key, window_start)
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table social.rate_counter`.execute(db);
}
