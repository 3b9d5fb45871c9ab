import { sql, type Expression, type SqlBool } from 'kysely';
import type { PageRequest } from '../shared/social-graph/social-paging.ts';
import type { AccountType, MediaProductType, MediaType, SocialDb } from '../shared/social-graph/social-tables.ts';
import { anyBigint } from '../../lib/database/any-bigint.ts';

/** Every line of SQL of the accounts subgraph's core: accounts, media lists, tags, mentions in captions. */

export interface AccountRecord {
  id: string;
  accountType: AccountType;
  username: string;
  name: string;
  biography: string;
  website: string;
  profilePictureUrl: string | null;
  altText: string | null;
  followersCount: number;
  followsCount: number;
  mediaCount: number;
  isPublished: boolean;
  legacySocialUserId: string | null;
  ageGated: boolean;
  shopBusinessId: string | null;
  shopApproved: boolean;
  shopCatalogProductCount: number;
}

export interface MediaRecord {
  id: string;
  ownerId: string;
  ownerUsername: string;
  caption: string;
  mediaType: MediaType;
  mediaProductType: MediaProductType;
  mediaUrl: string;
  permalink: string;
  thumbnailUrl: string | null;
  timestamp: Date;
  likeCount: number;
  commentEnabled: boolean;
  isLive: boolean;
  liveEnded: boolean;
  ownerAgeGated: boolean;
}

/**
 * What the `media` edge and `media_count` count, over `social.media m`: published media — not deleted, not stories, not
 * carousel children, and not a broadcast in progress (it is on live_media and joins the media edge once it has ended).
 * One fragment, so the edge and the count cannot disagree.
 */
const ON_MEDIA_EDGE = sql<SqlBool>`m.deleted_at is null and m.media_product_type <> 'STORY' and m.carousel_parent_id is null
  and (m.is_live = false or m.live_ended_at is not null)`;

function accountQuery(db: SocialDb) {
  return db.selectFrom('social.account as a').select([
    'a.id',
    'a.account_type',
    'a.username',
    'a.name',
    'a.biography',
    'a.website',
    'a.profile_picture_url',
    'a.alt_text',
    'a.followers_count',
    'a.follows_count',
    'a.is_published',
    'a.legacy_social_user_id',
    'a.age_gated',
    'a.shop_business_id',
    'a.shop_approved',
    'a.shop_catalog_product_count',
    // Media published on the account: feed and reels, not stories, not carousel children, not deleted.
    sql<number>`(select count(*)::int from social.media m where m.owner_id = a.id and ${ON_MEDIA_EDGE})`.as('media_count'),
  ]);
}

type AccountRow = Awaited<ReturnType<ReturnType<typeof accountQuery>['executeTakeFirstOrThrow']>>;

function toAccount(row: AccountRow): AccountRecord {
  return {
    id: String(row.id),
    accountType: row.account_type,
    username: row.username,
    name: row.name,
    biography: row.biography,
    website: row.website,
    profilePictureUrl: row.profile_picture_url,
    altText: row.alt_text,
    followersCount: row.followers_count,
    followsCount: row.follows_count,
    mediaCount: row.media_count,
    isPublished: row.is_published,
    legacySocialUserId: row.legacy_social_user_id,
    ageGated: row.age_gated,
    shopBusinessId: row.shop_business_id === null ? null : String(row.shop_business_id),
    shopApproved: row.shop_approved,
    shopCatalogProductCount: row.shop_catalog_product_count,
  };
}

export async function findAccountsByIds(db: SocialDb, ids: readonly string[]): Promise<AccountRecord[]> {
  if (ids.length === 0) return [];
  const rows = await accountQuery(db).where('a.id', '=', anyBigint(ids)).execute();
  return rows.map(toAccount);
}

export async function findAccountByUsername(db: SocialDb, username: string): Promise<AccountRecord | undefined> {
  const row = await accountQuery(db).where('a.username', '=', username).executeTakeFirst();
  return row ? toAccount(row) : undefined;
}

function mediaQuery(db: SocialDb) {
  return db
    .selectFrom('social.media as m')
    .innerJoin('social.account as o', 'o.id', 'm.owner_id')
    .select([
      'm.id',
      'm.owner_id',
      'o.username as owner_username',
      'o.age_gated as owner_age_gated',
      'm.caption',
      'm.media_type',
      'm.media_product_type',
      'm.media_url',
      'm.permalink',
      'm.thumbnail_url',
      'm.timestamp',
      'm.like_count',
      'm.comment_enabled',
      'm.is_live',
      'm.live_ended_at',
    ])
    .where('m.deleted_at', 'is', null);
}

type MediaRow = Awaited<ReturnType<ReturnType<typeof mediaQuery>['executeTakeFirstOrThrow']>>;

function toMedia(row: MediaRow): MediaRecord {
  return {
    id: String(row.id),
    ownerId: String(row.owner_id),
    ownerUsername: row.owner_username,
    caption: row.caption,
    mediaType: row.media_type,
    mediaProductType: row.media_product_type,
    mediaUrl: row.media_url,
    permalink: row.permalink,
    thumbnailUrl: row.thumbnail_url,
    timestamp: row.timestamp,
    likeCount: row.like_count,
    commentEnabled: row.comment_enabled,
    isLive: row.is_live,
    liveEnded: row.live_ended_at !== null,
    ownerAgeGated: row.owner_age_gated,
  };
}

export async function findMediaByIds(db: SocialDb, ids: readonly string[]): Promise<MediaRecord[]> {
  if (ids.length === 0) return [];
  const rows = await mediaQuery(db).where('m.id', '=', anyBigint(ids)).execute();
  return rows.map(toMedia);
}

/** Which list of an account's media to read. */
export type MediaListKind = 'media' | 'stories' | 'live' | 'tags' | 'children';

export interface MediaListQuery {
  kind: MediaListKind;
  /** The account (or, for `children`, the carousel album). */
  ownerId: string;
  page: PageRequest;
  /** Time window on the media's timestamp (unix seconds), for `media` and `live_media`. */
  since?: number | undefined;
  until?: number | undefined;
  /** Stories: only those newer than this instant. */
  storiesAfter?: Date | undefined;
}

/**
 * One page of a media list, newest first by (timestamp, id) — a key every list shares, so one cursor format serves them
 * all. Returns `take` rows in reading order (see social-paging.ts).
 */
export async function listMedia(db: SocialDb, query: MediaListQuery): Promise<MediaRecord[]> {
  const { page } = query;
  let select = mediaQuery(db);
  switch (query.kind) {
    case 'media':
      select = select.where('m.owner_id', '=', query.ownerId).where(ON_MEDIA_EDGE);
      break;
    case 'stories':
      select = select
        .where('m.owner_id', '=', query.ownerId)
        .where('m.media_product_type', '=', 'STORY')
        .where('m.is_live', '=', false)
        .where('m.timestamp', '>', query.storiesAfter ?? new Date(0));
      break;
    case 'live':
      select = select.where('m.owner_id', '=', query.ownerId).where('m.is_live', '=', true).where('m.live_ended_at', 'is', null);
      break;
    case 'tags':
      // Media in which the account was tagged by another user; private (age-gated owners') media excluded.
      select = select
        .where('m.id', 'in', (sub) => sub.selectFrom('social.media_tag').select('media_id').where('account_id', '=', query.ownerId))
        .where('m.owner_id', '<>', query.ownerId)
        .where('o.age_gated', '=', false);
      break;
    case 'children':
      select = select.where('m.carousel_parent_id', '=', query.ownerId);
      break;
  }
  if (query.since !== undefined) select = select.where(sql<SqlBool>`m.timestamp >= to_timestamp(${query.since})`);
  if (query.until !== undefined) select = select.where(sql<SqlBool>`m.timestamp <= to_timestamp(${query.until})`);
  if (page.position) {
    const [seconds, id] = page.position;
    const beyond: Expression<SqlBool> =
      page.direction === 'forward'
        ? sql<SqlBool>`(m.timestamp, m.id) < (to_timestamp(${seconds}), ${id}::bigint)`
        : sql<SqlBool>`(m.timestamp, m.id) > (to_timestamp(${seconds}), ${id}::bigint)`;
    select = select.where(beyond);
  }
  const order = page.direction === 'forward' ? 'desc' : 'asc';
  const rows = await select.orderBy('m.timestamp', order).orderBy('m.id', order).limit(page.take).execute();
  return rows.map(toMedia);
}

/** How many items of the account's media list come before a position (the 10,000-item reach of the media edge). */
export async function countMediaNewerThan(db: SocialDb, ownerId: string, seconds: number, id: string): Promise<number> {
  const row = await db
    .selectFrom('social.media as m')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('m.owner_id', '=', ownerId)
    .where(ON_MEDIA_EDGE)
    .where(sql<SqlBool>`(m.timestamp, m.id) > (to_timestamp(${seconds}), ${id}::bigint)`)
    .executeTakeFirstOrThrow();
  return row.n;
}

/** Whether the account was @mentioned in the media's caption. */
export async function isMentionedInCaption(db: SocialDb, accountId: string, mediaId: string): Promise<boolean> {
  const row = await db
    .selectFrom('social.mention')
    .select('media_id')
    .where('account_id', '=', accountId)
    .where('media_id', '=', mediaId)
    .where('comment_id', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

export interface PlatformUserRecord {
  id: string;
  name: string;
}

export async function findPlatformUser(db: SocialDb, id: string): Promise<PlatformUserRecord | undefined> {
  const row = await db.selectFrom('social.platform_user').select(['id', 'name']).where('id', '=', id).executeTakeFirst();
  return row ? { id: String(row.id), name: row.name } : undefined;
}

/** The first parent-platform user of this name (names are not unique; the id orders them), for the token tool. */
export async function findPlatformUserByName(db: SocialDb, name: string): Promise<PlatformUserRecord | undefined> {
  const row = await db.selectFrom('social.platform_user').select(['id', 'name']).where('name', '=', name).orderBy('id').executeTakeFirst();
  return row ? { id: String(row.id), name: row.name } : undefined;
}

export interface UserPageRecord {
  id: string;
  name: string;
  tasks: string[];
  accountId: string | null;
}

/** The pages a parent-platform user has a role on (GET /me/accounts), oldest first. */
export async function listUserPages(db: SocialDb, platformUserId: string): Promise<UserPageRecord[]> {
  const rows = await db
    .selectFrom('social.page_role as r')
    .innerJoin('social.page as p', 'p.id', 'r.page_id')
    .select(['p.id', 'p.name', 'r.tasks', 'p.account_id'])
    .where('r.platform_user_id', '=', platformUserId)
    .orderBy('p.id')
    .execute();
  return rows.map((row) => ({
    id: String(row.id),
    name: row.name,
    tasks: row.tasks,
    accountId: row.account_id === null ? null : String(row.account_id),
  }));
}
