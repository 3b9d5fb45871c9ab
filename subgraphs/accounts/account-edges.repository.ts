import { sql, type Insertable, type Selectable, type Transaction } from 'kysely';
import type { PageRequest } from '../shared/social-graph/social-paging.ts';
import type {
  AdAccountTable,
  ContainerMediaType,
  InsightValueTable,
  MediaContainerTable,
  MediaProductType,
  MediaType,
  SocialDb,
  SocialTables,
  StoredBreakdown,
  StoredUserTag,
  UpcomingEventTable,
} from '../shared/social-graph/social-tables.ts';

/**
 * Every line of SQL behind the account edges other than media/stories/tags/live_media/mentions (see
 * account-edges.service.ts for the rules). Functions take the database (or a transaction) first and return rows; keyset
 * lists take the decoded page request and return `request.take` rows in reading order (list order forward, reversed
 * backward), as social-paging.ts expects. Positions are validated by the service before they reach SQL.
 */

// ---------------------------------------------------------------------------------------------------------------------
// Accounts

/** The account, locked for the rest of the transaction (serialises quota checks of one account); undefined if none. */
export async function lockAccount(trx: SocialDb, accountId: string): Promise<{ id: string; username: string } | undefined> {
  return trx.selectFrom('social.account').select(['id', 'username']).where('id', '=', accountId).forUpdate().executeTakeFirst();
}

export async function findAccount(db: SocialDb, accountId: string): Promise<{ id: string; username: string } | undefined> {
  return db.selectFrom('social.account').select(['id', 'username']).where('id', '=', accountId).executeTakeFirst();
}

/** Accounts whose usernames match (case-insensitively) any of `usernames`. */
export async function findAccountsByUsernames(db: SocialDb, usernames: readonly string[]): Promise<{ id: string; username: string }[]> {
  if (usernames.length === 0) return [];
  const lowered = [...new Set(usernames.map((name) => name.toLowerCase()))];
  return db
    .selectFrom('social.account')
    .select(['id', 'username'])
    .where(sql<string>`lower(username)`, 'in', lowered)
    .orderBy('id')
    .execute();
}

// ---------------------------------------------------------------------------------------------------------------------
// Upcoming events

export type UpcomingEventRow = Selectable<UpcomingEventTable>;

export async function insertUpcomingEvent(db: SocialDb, values: Insertable<UpcomingEventTable>): Promise<UpcomingEventRow> {
  return db.insertInto('social.upcoming_event').values(values).returningAll().executeTakeFirstOrThrow();
}

/** The account's event with this title, if any (demo data stays idempotent by title). */
export async function findUpcomingEventByTitle(db: SocialDb, accountId: string, title: string): Promise<UpcomingEventRow | undefined> {
  return db
    .selectFrom('social.upcoming_event')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('title', '=', title)
    .orderBy('id')
    .executeTakeFirst();
}

/** Events of an account by start time, then id; position `[unix seconds of start_time, id]`. */
export async function listUpcomingEvents(db: SocialDb, accountId: string, request: PageRequest): Promise<UpcomingEventRow[]> {
  const forward = request.direction === 'forward';
  let query = db.selectFrom('social.upcoming_event').selectAll().where('account_id', '=', accountId);
  if (request.position) {
    const at = new Date(Number(request.position[0]) * 1000);
    const id = String(request.position[1]);
    const beyond = forward ? '>' : '<';
    query = query.where((eb) => eb.or([eb('start_time', beyond, at), eb.and([eb('start_time', '=', at), eb('id', beyond, id)])]));
  }
  const order = forward ? 'asc' : 'desc';
  return query.orderBy('start_time', order).orderBy('id', order).limit(request.take).execute();
}

// ---------------------------------------------------------------------------------------------------------------------
// Hashtags

/** The hashtag with this (normalised) name, created when new. */
export async function upsertHashtag(db: SocialDb, name: string): Promise<{ id: string; name: string }> {
  await db
    .insertInto('social.hashtag')
    .values({ name })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  return db.selectFrom('social.hashtag').select(['id', 'name']).where('name', '=', name).executeTakeFirstOrThrow();
}

export async function insertHashtagSearch(db: SocialDb, accountId: string, hashtagId: string, at: Date): Promise<void> {
  await db.insertInto('social.hashtag_search').values({ account_id: accountId, hashtag_id: hashtagId, searched_at: at }).execute();
}

/** Distinct hashtags the account searched in (from, to], most recently searched first (ties: higher id first). */
export async function listRecentHashtags(
  db: SocialDb,
  accountId: string,
  from: Date,
  to: Date,
  limit: number,
): Promise<{ id: string; name: string; last_searched_at: Date }[]> {
  return db
    .selectFrom('social.hashtag_search as s')
    .innerJoin('social.hashtag as h', 'h.id', 's.hashtag_id')
    .select(['h.id', 'h.name', (eb) => eb.fn.max('s.searched_at').as('last_searched_at')])
    .where('s.account_id', '=', accountId)
    .where('s.searched_at', '>', from)
    .where('s.searched_at', '<=', to)
    .groupBy(['h.id', 'h.name'])
    .orderBy('last_searched_at', 'desc')
    .orderBy('h.id', 'desc')
    .limit(limit)
    .execute();
}

/** Ids of the distinct hashtags the account searched in (from, to]. */
export async function searchedHashtagIds(db: SocialDb, accountId: string, from: Date, to: Date): Promise<string[]> {
  const rows = await db
    .selectFrom('social.hashtag_search')
    .select('hashtag_id')
    .distinct()
    .where('account_id', '=', accountId)
    .where('searched_at', '>', from)
    .where('searched_at', '<=', to)
    .execute();
  return rows.map((row) => row.hashtag_id);
}

// ---------------------------------------------------------------------------------------------------------------------
// Businesses, agencies, ad accounts

export async function findBusiness(db: SocialDb, businessId: string): Promise<{ id: string; name: string } | undefined> {
  return db.selectFrom('social.business').select(['id', 'name']).where('id', '=', businessId).executeTakeFirst();
}

/** The first business with this exact name (demo data looks its businesses up by name, to stay idempotent). */
export async function findBusinessByName(db: SocialDb, name: string): Promise<{ id: string; name: string } | undefined> {
  return db.selectFrom('social.business').select(['id', 'name']).where('name', '=', name).orderBy('id').executeTakeFirst();
}

export async function insertBusiness(db: SocialDb, name: string): Promise<{ id: string; name: string }> {
  return db.insertInto('social.business').values({ name }).returning(['id', 'name']).executeTakeFirstOrThrow();
}

export async function insertAgency(db: SocialDb, accountId: string, businessId: string, at: Date): Promise<void> {
  await db
    .insertInto('social.account_agency')
    .values({ account_id: accountId, business_id: businessId, created_at: at })
    .onConflict((oc) => oc.columns(['account_id', 'business_id']).doNothing())
    .execute();
}

/** Agencies of an account by business id; position `[business id]`. */
export async function listAgencies(db: SocialDb, accountId: string, request: PageRequest): Promise<{ id: string; name: string }[]> {
  const forward = request.direction === 'forward';
  let query = db
    .selectFrom('social.account_agency as a')
    .innerJoin('social.business as b', 'b.id', 'a.business_id')
    .select(['b.id', 'b.name'])
    .where('a.account_id', '=', accountId);
  if (request.position) query = query.where('b.id', forward ? '>' : '<', String(request.position[0]));
  return query
    .orderBy('b.id', forward ? 'asc' : 'desc')
    .limit(request.take)
    .execute();
}

export type AdAccountRow = Selectable<AdAccountTable>;

export async function findAdAccount(db: SocialDb, adAccountId: string): Promise<AdAccountRow | undefined> {
  return db.selectFrom('social.ad_account').selectAll().where('id', '=', adAccountId).executeTakeFirst();
}

export async function findAdAccountByName(db: SocialDb, businessId: string, name: string): Promise<AdAccountRow | undefined> {
  return db
    .selectFrom('social.ad_account')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('name', '=', name)
    .orderBy('id')
    .executeTakeFirst();
}

export async function insertAdAccount(db: SocialDb, values: Insertable<AdAccountTable>): Promise<AdAccountRow> {
  return db.insertInto('social.ad_account').values(values).returningAll().executeTakeFirstOrThrow();
}

/** Records the authorisation; an existing one is kept as it is (authorising twice is not an error). */
export async function insertAuthorizedAdAccount(
  db: SocialDb,
  values: { account_id: string; ad_account_id: string; business_id: string; authorized_at: Date },
): Promise<void> {
  await db
    .insertInto('social.account_authorized_ad_account')
    .values(values)
    .onConflict((oc) => oc.columns(['account_id', 'ad_account_id']).doNothing())
    .execute();
}

export type AuthorizedAdAccountRow = AdAccountRow & { authorized_at: Date; authorizing_business_id: string };

/** Ad accounts authorised for an account (optionally only those of one business), by ad account id; position `[id]`. */
export async function listAuthorizedAdAccounts(
  db: SocialDb,
  accountId: string,
  businessId: string | undefined,
  request: PageRequest,
): Promise<AuthorizedAdAccountRow[]> {
  const forward = request.direction === 'forward';
  let query = db
    .selectFrom('social.account_authorized_ad_account as x')
    .innerJoin('social.ad_account as a', 'a.id', 'x.ad_account_id')
    .selectAll('a')
    .select(['x.authorized_at', 'x.business_id as authorizing_business_id'])
    .where('x.account_id', '=', accountId);
  if (businessId !== undefined) query = query.where('a.business_id', '=', businessId);
  if (request.position) query = query.where('a.id', forward ? '>' : '<', String(request.position[0]));
  return query
    .orderBy('a.id', forward ? 'asc' : 'desc')
    .limit(request.take)
    .execute();
}

// ---------------------------------------------------------------------------------------------------------------------
// Media containers and publishing

export interface NewContainer {
  account_id: string;
  media_type: ContainerMediaType;
  image_url: string | null;
  video_url: string | null;
  upload_media_id: string | null;
  caption: string;
  is_carousel_item: boolean;
  children: string[];
  user_tags: StoredUserTag[];
  collaborators: string[];
  location_id: string | null;
  alt_text: string | null;
  share_to_feed: boolean | null;
  cover_url: string | null;
  thumb_offset: number | null;
  audio_name: string | null;
  status_code: 'IN_PROGRESS' | 'FINISHED';
  created_at: Date;
  ready_at: Date;
  expires_at: Date;
}

/** A stored container: what was inserted, plus its id and publication. */
export interface ContainerRow extends Omit<NewContainer, 'status_code'> {
  id: string;
  status_code: Selectable<MediaContainerTable>['status_code'];
  published_media_id: string | null;
  published_at: Date | null;
}

function containerColumns() {
  // children is bigint[]: read as text[] so that ids stay decimal strings on every driver.
  return [
    'id',
    'account_id',
    'media_type',
    'image_url',
    'video_url',
    'upload_media_id',
    'caption',
    'is_carousel_item',
    sql<string[]>`children::text[]`.as('children'),
    'user_tags',
    'collaborators',
    'location_id',
    'alt_text',
    'share_to_feed',
    'cover_url',
    'thumb_offset',
    'audio_name',
    'status_code',
    'created_at',
    'ready_at',
    'expires_at',
    'published_media_id',
    'published_at',
  ] as const;
}

export async function insertContainer(db: SocialDb, values: NewContainer): Promise<ContainerRow> {
  const row = await db
    .insertInto('social.media_container')
    .values({ ...values, user_tags: JSON.stringify(values.user_tags) })
    .returning(containerColumns())
    .executeTakeFirstOrThrow();
  return row as ContainerRow;
}

/** A container by id (locked for the transaction when `forUpdate`). */
export async function findContainer(db: SocialDb, containerId: string, forUpdate = false): Promise<ContainerRow | undefined> {
  let query = db.selectFrom('social.media_container').select(containerColumns()).where('id', '=', containerId);
  if (forUpdate) query = query.forUpdate();
  return (await query.executeTakeFirst()) as ContainerRow | undefined;
}

/** The containers among `ids` that exist (any account), in id order. */
export async function findContainers(db: SocialDb, ids: readonly string[], forUpdate = false): Promise<ContainerRow[]> {
  if (ids.length === 0) return [];
  let query = db
    .selectFrom('social.media_container')
    .select(containerColumns())
    .where('id', 'in', [...ids])
    .orderBy('id');
  if (forUpdate) query = query.forUpdate();
  return (await query.execute()) as ContainerRow[];
}

export async function markContainerPublished(db: SocialDb, containerId: string, mediaId: string, at: Date): Promise<void> {
  await db
    .updateTable('social.media_container')
    .set({ status_code: 'PUBLISHED', published_media_id: mediaId, published_at: at })
    .where('id', '=', containerId)
    .execute();
}

/**
 * Publications of the account in (from, to]: published containers that are not carousel items (a carousel counts once,
 * as the publishing guide says).
 */
export async function countPublished(db: SocialDb, accountId: string, from: Date, to: Date): Promise<number> {
  const row = await db
    .selectFrom('social.media_container')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('account_id', '=', accountId)
    .where('is_carousel_item', '=', false)
    .where('published_at', '>', from)
    .where('published_at', '<=', to)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export interface NewMedia {
  owner_id: string;
  caption: string;
  media_type: MediaType;
  media_product_type: MediaProductType;
  media_url: string;
  thumbnail_url: string | null;
  timestamp: Date;
  carousel_parent_id: string | null;
}

/**
 * Inserts a media row and gives it its permalink, which is made from the id the row draws (so it takes a second
 * statement; both run in the caller's transaction).
 */
export async function insertMedia(db: SocialDb, values: NewMedia, permalinkOf: (id: string) => string): Promise<string> {
  const { id } = await db
    .insertInto('social.media')
    .values({ ...values, permalink: '', live_ended_at: null, deleted_at: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .updateTable('social.media')
    .set({ permalink: permalinkOf(id) })
    .where('id', '=', id)
    .execute();
  return id;
}

/** Caption @mentions (comment_id null); a repeated mention is kept once. The accounts newly mentioned. */
export async function insertCaptionMentions(
  db: Transaction<SocialTables>,
  mediaId: string,
  accountIds: readonly string[],
  at: Date,
): Promise<string[]> {
  if (accountIds.length === 0) return [];
  const inserted = await db
    .insertInto('social.mention')
    .values(accountIds.map((accountId) => ({ account_id: accountId, media_id: mediaId, comment_id: null, created_at: at })))
    .onConflict((oc) => oc.doNothing())
    .returning('account_id')
    .execute();
  return inserted.map((row) => String(row.account_id));
}

export async function insertMediaTags(db: SocialDb, mediaId: string, accountIds: readonly string[], at: Date): Promise<void> {
  if (accountIds.length === 0) return;
  await db
    .insertInto('social.media_tag')
    .values(accountIds.map((accountId) => ({ media_id: mediaId, account_id: accountId, created_at: at })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

// ---------------------------------------------------------------------------------------------------------------------
// Insights

export interface InsightRow {
  metric: string;
  end_time: Date;
  value: number;
  breakdown: StoredBreakdown | null;
}

/** Stored daily values of `metrics` whose day ends in (from, to], oldest first. */
export async function listInsightValues(
  db: SocialDb,
  accountId: string,
  metrics: readonly string[],
  from: Date,
  to: Date,
): Promise<InsightRow[]> {
  if (metrics.length === 0) return [];
  const rows = await db
    .selectFrom('social.insight_value')
    .select(['metric', 'end_time', 'value', 'breakdown'])
    .where('account_id', '=', accountId)
    .where('metric', 'in', [...metrics])
    .where('end_time', '>', from)
    .where('end_time', '<=', to)
    .orderBy('end_time')
    .orderBy('metric')
    .execute();
  // Daily counts stay far below 2^53: a number is exact here (ids never take this path).
  return rows.map((row) => ({ metric: row.metric, end_time: row.end_time, value: Number(row.value), breakdown: row.breakdown }));
}

/** Writes daily values, replacing what is stored for the same account, metric and day. */
export async function upsertInsightValues(
  db: SocialDb,
  rows: readonly { account_id: string; metric: string; end_time: Date; value: number; breakdown: StoredBreakdown | null }[],
): Promise<void> {
  // One statement per chunk keeps the parameter count well below PostgreSQL's 65 535.
  for (let start = 0; start < rows.length; start += 500) {
    const chunk = rows.slice(start, start + 500);
    await db
      .insertInto('social.insight_value')
      .values(
        chunk.map((row): Insertable<InsightValueTable> => ({
          ...row,
          breakdown: row.breakdown === null ? null : JSON.stringify(row.breakdown),
        })),
      )
      .onConflict((oc) =>
        oc.columns(['account_id', 'metric', 'end_time']).doUpdateSet((eb) => ({
          value: eb.ref('excluded.value'),
          breakdown: eb.ref('excluded.breakdown'),
        })),
      )
      .execute();
  }
}
