import { sql, type Kysely } from 'kysely';

/**
 * The social graph's event log (issue 26): every change the Graph API reports — a comment or reply created, hidden,
 * shown or deleted, an account @mentioned — written in the transaction that makes the change (an outbox), so a change
 * that rolls back leaves no event and one that commits always has one. `position` orders the log: writers take one
 * lock for the end of their transaction (event-log.repository.ts), so positions become visible in the order they
 * were drawn and a reader that has seen position n will never later find an n − 1 it skipped. Webhook deliveries and
 * GraphQL subscriptions both read it. Rows older than the retention (SOCIAL_EVENTS_RETENTION_HOURS) are swept.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table social.event (
    position bigint generated always as identity primary key,
    created_at timestamptz not null default now(),
    account_id bigint not null,
    kind text not null,
    field text not null,
    value jsonb not null
  )`.execute(db);
  await sql`create index event_created_at on social.event (created_at)`.execute(db);
  await sql`create index event_account on social.event (account_id, position)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table social.event`.execute(db);
}
