import { sql, type Kysely } from 'kysely';
import { socialIdDefault, type SocialKind } from '../../../../lib/social-graph/social-ids.ts';

/**
 * The social graph's core tables (Areas B and C), in one PostgreSQL schema `social`: the "one social data store" both
 * social subgraphs stand on. Ownership of writes: the comments subgraph writes `comment` and the mentions it finds in
 * comments; the accounts subgraph writes everything else. Each reads what its rules need (a comment's media owner, say).
 *
 * Ids are 64-bit numbers that encode their kind (lib/social-graph/social-ids.ts), drawn from one sequence per kind.
 */
const SEQUENCES: [SocialKind, string][] = [
  ['platformUser', 'platform_user'],
  ['business', 'business'],
  ['page', 'page'],
  ['account', 'account'],
  ['media', 'media'],
  ['comment', 'comment'],
];

function idColumn(kind: SocialKind, table: string) {
  return sql.raw(`bigint primary key default ${socialIdDefault(kind, `social.${table}_seq`)}`);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createSchema('social').ifNotExists().execute();
  for (const [, table] of SEQUENCES) await sql.raw(`create sequence social.${table}_seq`).execute(db);

  // Parent-platform users (the people behind "Login for Business" tokens).
  await sql`create table social.platform_user (
    id ${idColumn('platformUser', 'platform_user')},
    name text not null,
    created_at timestamptz(3) not null default now()
  )`.execute(db);

  // Business managers (own pages and shops, advertise for accounts).
  await sql`create table social.business (
    id ${idColumn('business', 'business')},
    name text not null
  )`.execute(db);

  // Social users: professional accounts (BUSINESS, MEDIA_CREATOR) and the personal accounts that comment and mention.
  await sql`create table social.account (
    id ${idColumn('account', 'account')},
    account_type text not null check (account_type in ('BUSINESS', 'MEDIA_CREATOR', 'PERSONAL')),
    username text not null unique,
    name text not null default '',
    biography text not null default '',
    website text not null default '',
    profile_picture_url text,
    alt_text text,
    followers_count integer not null default 0,
    follows_count integer not null default 0,
    is_published boolean not null default true,
    legacy_social_user_id text,
    age_gated boolean not null default false,
    shop_business_id bigint references social.business (id),
    shop_approved boolean not null default false,
    shop_catalog_product_count integer not null default 0,
    created_at timestamptz(3) not null default now()
  )`.execute(db);

  // Parent-platform pages; a professional account is reachable on the parent-platform host through its linked page.
  await sql`create table social.page (
    id ${idColumn('page', 'page')},
    name text not null,
    account_id bigint unique references social.account (id),
    business_id bigint references social.business (id)
  )`.execute(db);

  // Roles of parent-platform users on pages; a role granted through a business manager needs ads_management or ads_read.
  await sql`create table social.page_role (
    page_id bigint not null references social.page (id),
    platform_user_id bigint not null references social.platform_user (id),
    tasks text[] not null default '{}'::text[],
    via_business_manager boolean not null default false,
    primary key (page_id, platform_user_id)
  )`.execute(db);

  // Admins of business managers (shop conditions of shopping_product_tag_eligibility).
  await sql`create table social.business_admin (
    business_id bigint not null references social.business (id),
    platform_user_id bigint not null references social.platform_user (id),
    primary key (business_id, platform_user_id)
  )`.execute(db);

  await sql`create table social.media (
    id ${idColumn('media', 'media')},
    owner_id bigint not null references social.account (id),
    caption text not null default '',
    media_type text not null check (media_type in ('IMAGE', 'VIDEO', 'CAROUSEL_ALBUM')),
    media_product_type text not null check (media_product_type in ('FEED', 'STORY', 'REELS', 'AD')),
    media_url text not null,
    permalink text not null,
    thumbnail_url text,
    timestamp timestamptz(0) not null default now(),
    like_count integer not null default 0,
    comment_enabled boolean not null default true,
    is_live boolean not null default false,
    live_ended_at timestamptz(0),
    deleted_at timestamptz(3)
  )`.execute(db);
  await sql`create index media_owner_timestamp on social.media (owner_id, timestamp desc, id desc)`.execute(db);

  await sql`create table social.comment (
    id ${idColumn('comment', 'comment')},
    media_id bigint not null references social.media (id),
    author_id bigint not null references social.account (id),
    parent_id bigint references social.comment (id),
    text text not null,
    hidden boolean not null default false,
    like_count integer not null default 0,
    timestamp timestamptz(0) not null default now(),
    legacy_social_comment_id text,
    deleted_at timestamptz(3)
  )`.execute(db);
  await sql`create index comment_media_timestamp on social.comment (media_id, timestamp desc, id desc) where parent_id is null`.execute(db);
  await sql`create index comment_parent_timestamp on social.comment (parent_id, timestamp, id) where parent_id is not null`.execute(db);

  // @mentions of accounts: in a media caption (comment_id null) or in a comment.
  await sql`create table social.mention (
    account_id bigint not null references social.account (id),
    media_id bigint not null references social.media (id),
    comment_id bigint references social.comment (id),
    created_at timestamptz(3) not null default now()
  )`.execute(db);
  await sql`create unique index mention_unique on social.mention (account_id, media_id, coalesce(comment_id, 0))`.execute(db);

  // Accounts tagged in media by another user.
  await sql`create table social.media_tag (
    media_id bigint not null references social.media (id),
    account_id bigint not null references social.account (id),
    created_at timestamptz(3) not null default now(),
    primary key (media_id, account_id)
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop schema social cascade`.execute(db);
}
