import { sql, type Kysely } from 'kysely';

/**
 * Webhook subscriptions (issue 26; reference §6.1–§6.3) and their delivery state.
 *
 * - `app_subscription`: an app's subscription to an object (`social`): the callback URL (verified by the §6.2 handshake
 *   before the row is written), the verify token, whether entries carry values, the fields, and whether it is active.
 *   One row per app and object; a later POST adds fields.
 * - `subscribed_app`: an account subscribed to an app (`/me/subscribed_apps`, `/{page-id}/subscribed_apps`), with the
 *   fields it named. Events of the account reach the app for fields subscribed at both levels (§6.3).
 * - `webhook_cursor`: per app subscription, how far in the event log (social.event's position) its callback has been
 *   served, the batch in flight (`pending_to`: the same events are sent again on a retry), its attempts and next
 *   attempt, and the lease of the worker delivering it (`leased_until`: a worker killed mid-delivery loses its lease, and
 *   another takes the same batch up again).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table social.app_subscription (
    app_id bigint not null,
    object text not null,
    callback_url text not null,
    verify_token text not null,
    include_values boolean not null default true,
    fields text[] not null default '{}',
    active boolean not null default true,
    created_at timestamptz(3) not null default now(),
    updated_at timestamptz(3) not null default now(),
    primary key (app_id, object)
  )`.execute(db);
  await sql`create table social.subscribed_app (
    account_id bigint not null references social.account (id) on delete cascade,
    app_id bigint not null,
    subscribed_fields text[] not null default '{}',
    created_at timestamptz(3) not null default now(),
    primary key (account_id, app_id)
  )`.execute(db);
  await sql`create index subscribed_app_app on social.subscribed_app (app_id)`.execute(db);
  await sql`create table social.webhook_cursor (
    app_id bigint not null,
    object text not null,
    delivered_to bigint not null,
    pending_to bigint,
    attempts integer not null default 0,
    next_attempt_at timestamptz(3) not null default now(),
    first_failed_at timestamptz(3),
    leased_until timestamptz(3),
    delivered_total bigint not null default 0,
    dropped_total bigint not null default 0,
    primary key (app_id, object),
    foreign key (app_id, object) references social.app_subscription (app_id, object) on delete cascade
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table social.webhook_cursor`.execute(db);
  await sql`drop table social.subscribed_app`.execute(db);
  await sql`drop table social.app_subscription`.execute(db);
}
