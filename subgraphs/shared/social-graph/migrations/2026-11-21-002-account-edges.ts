import { sql, type Kysely } from 'kysely';
import { socialIdDefault, type SocialKind } from '../../../../lib/social-graph/social-ids.ts';

/**
 * The account edges other than media, stories, tags, live media and mentions (reference §2.2): upcoming events, hashtag
 * searches, agencies and authorized ad accounts, media containers (POST /media, media_publish, content_publishing_limit)
 * and the stored values behind the insights edge. All written by the accounts subgraph.
 *
 * Times that are keyset positions or day boundaries are whole seconds (timestamptz(0)), so that the unix seconds in a
 * cursor name a row's time exactly; the service truncates before it writes, because timestamptz(0) would round.
 */
const SEQUENCES: [SocialKind, string][] = [
  ['event', 'upcoming_event'],
  ['hashtag', 'hashtag'],
  ['adAccount', 'ad_account'],
  ['container', 'media_container'],
];

function idColumn(kind: SocialKind, table: string) {
  return sql.raw(`bigint primary key default ${socialIdDefault(kind, `social.${table}_seq`)}`);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [, table] of SEQUENCES) await sql.raw(`create sequence social.${table}_seq`).execute(db);

  await sql`create table social.upcoming_event (
    id ${idColumn('event', 'upcoming_event')},
    account_id bigint not null references social.account (id),
    title text not null,
    start_time timestamptz(0) not null,
    end_time timestamptz(0),
    notification_subtypes text[] not null default '{}'::text[],
    notification_target_time text check (notification_target_time in ('EVENT_START', 'EVENT_END')),
    created_at timestamptz(3) not null default now(),
    check (end_time is null or end_time > start_time)
  )`.execute(db);
  await sql`create index upcoming_event_account_start on social.upcoming_event (account_id, start_time, id)`.execute(db);

  // Hashtags are global (one id per name, as on the platform); names are stored lower-case, without the '#'.
  await sql`create table social.hashtag (
    id ${idColumn('hashtag', 'hashtag')},
    name text not null unique check (name = lower(name) and name <> '')
  )`.execute(db);

  // One row per search (the same hashtag may be searched many times; it counts once against the 30-per-7-days rule).
  await sql`create table social.hashtag_search (
    account_id bigint not null references social.account (id),
    hashtag_id bigint not null references social.hashtag (id),
    searched_at timestamptz(3) not null default now()
  )`.execute(db);
  await sql`create index hashtag_search_account_time on social.hashtag_search (account_id, searched_at desc)`.execute(db);

  // Businesses allowed to advertise for an account (the `agencies` edge).
  await sql`create table social.account_agency (
    account_id bigint not null references social.account (id),
    business_id bigint not null references social.business (id),
    created_at timestamptz(3) not null default now(),
    primary key (account_id, business_id)
  )`.execute(db);

  // Ad accounts of the parent platform's ads side, each owned by one business. account_status follows the ads API's
  // numbering (1 ACTIVE, 2 DISABLED, …).
  await sql`create table social.ad_account (
    id ${idColumn('adAccount', 'ad_account')},
    business_id bigint not null references social.business (id),
    name text not null,
    currency text not null default 'USD' check (currency ~ '^[A-Z]{3}$'),
    timezone_name text not null default 'Etc/UTC',
    account_status integer not null default 1,
    created_at timestamptz(3) not null default now()
  )`.execute(db);
  await sql`create index ad_account_business on social.ad_account (business_id, id)`.execute(db);

  // Ad accounts that may advertise for an account (`authorized_adaccounts`), recorded with the business that authorised.
  await sql`create table social.account_authorized_ad_account (
    account_id bigint not null references social.account (id),
    ad_account_id bigint not null references social.ad_account (id),
    business_id bigint not null references social.business (id),
    authorized_at timestamptz(3) not null default now(),
    primary key (account_id, ad_account_id)
  )`.execute(db);

  // Carousel children are media rows of their own, linked to their album; media lists leave them out.
  await sql`alter table social.media add column carousel_parent_id bigint references social.media (id)`.execute(db);
  await sql`create index media_carousel_parent on social.media (carousel_parent_id) where carousel_parent_id is not null`.execute(db);

  // Media containers (POST /<account>/media): valid 24 h, published at most once. EXPIRED is never stored: it is read off
  // expires_at by the service's clock. ready_at is when processing ends (at once for images; videos take a while).
  await sql`create table social.media_container (
    id ${idColumn('container', 'media_container')},
    account_id bigint not null references social.account (id),
    media_type text not null check (media_type in ('IMAGE', 'VIDEO', 'CAROUSEL', 'REELS', 'STORIES')),
    image_url text,
    video_url text,
    upload_media_id text,
    caption text not null default '',
    is_carousel_item boolean not null default false,
    children bigint[] not null default '{}'::bigint[],
    user_tags jsonb not null default '[]'::jsonb,
    collaborators text[] not null default '{}'::text[],
    location_id text,
    alt_text text,
    share_to_feed boolean,
    cover_url text,
    thumb_offset integer,
    audio_name text,
    status_code text not null check (status_code in ('IN_PROGRESS', 'FINISHED', 'PUBLISHED', 'ERROR')),
    created_at timestamptz(3) not null default now(),
    ready_at timestamptz(3) not null,
    expires_at timestamptz(3) not null,
    published_media_id bigint references social.media (id),
    published_at timestamptz(3)
  )`.execute(db);
  // The publishing quota counts an account's publications in a rolling 24 h.
  await sql`create index media_container_published on social.media_container (account_id, published_at) where published_at is not null`.execute(
    db,
  );

  // Daily values behind the insights edge: one row per account, metric and day, end_time being the UTC midnight that ends
  // the day. `breakdown` holds {dimension: {dimension value: count}} (for online_followers, {hour: {"0".."23": count}}).
  await sql`create table social.insight_value (
    account_id bigint not null references social.account (id),
    metric text not null,
    end_time timestamptz(0) not null,
    value bigint not null default 0,
    breakdown jsonb,
    primary key (account_id, metric, end_time)
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'insight_value',
    'media_container',
    'account_authorized_ad_account',
    'ad_account',
    'account_agency',
    'hashtag_search',
    'hashtag',
    'upcoming_event',
  ]) {
    await sql.raw(`drop table social.${table}`).execute(db);
  }
  await sql`alter table social.media drop column carousel_parent_id`.execute(db);
  for (const [, table] of SEQUENCES) await sql.raw(`drop sequence social.${table}_seq`).execute(db);
}
