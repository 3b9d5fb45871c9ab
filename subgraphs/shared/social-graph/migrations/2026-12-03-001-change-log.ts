import { sql, type Kysely } from 'kysely';

/**
 * The event log becomes every area's change log (issue 39): each row names the entities its change touched (`keys`,
 * `<GraphQL type>:<id>` as the supergraph's entity keys read, e.g. `Comment:17841…`, `UserExample:42`), so that a
 * consumer — the gateway's cache — can tell exactly what changed. Changes outside the social graph (Area A's records,
 * Area D's uploads) concern no professional account and belong to no webhook field: `account_id` and `field` become
 * optional, and the social graph's readers (webhook delivery, GraphQL subscriptions) read only rows with a field, through
 * a partial index, so many other changes between two of theirs cost them no scan.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table social.event add column keys text[] not null default '{}'`.execute(db);
  await sql`alter table social.event alter column account_id drop not null`.execute(db);
  await sql`alter table social.event alter column field drop not null`.execute(db);
  await sql`alter table social.event add constraint event_social_or_not check ((account_id is null) = (field is null))`.execute(db);
  await sql`create index event_social on social.event (position) where field is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from social.event where field is null`.execute(db);
  await sql`drop index social.event_social`.execute(db);
  await sql`alter table social.event drop constraint event_social_or_not`.execute(db);
  await sql`alter table social.event alter column field set not null`.execute(db);
  await sql`alter table social.event alter column account_id set not null`.execute(db);
  await sql`alter table social.event drop column keys`.execute(db);
}
