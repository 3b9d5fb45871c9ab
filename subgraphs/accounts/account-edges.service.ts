import type { Kysely, Transaction } from 'kysely';
import type { CursorCodec, CursorValue } from '../../lib/social-graph/cursor.ts';
import type { AppError } from '../../lib/errors.ts';
import { parseGraphTime, toUnixSeconds } from '../../lib/social-graph/graph-time.ts';
import { isSocialId } from '../../lib/social-graph/social-ids.ts';
import { socialErrors } from '../shared/social-graph/social-errors.ts';
import type { MediaClaims } from '../shared/media-store/media-claims.ts';
import {
  assemblePage,
  DEFAULT_PAGE_LIMITS,
  readPageArgs,
  type Page,
  type PageArgs,
  type PageLimits,
  type PageRequest,
} from '../shared/social-graph/social-paging.ts';
import type {
  ContainerMediaType,
  MediaProductType,
  MediaType,
  SocialDb,
  SocialTables,
  StoredBreakdown,
  StoredUserTag,
} from '../shared/social-graph/social-tables.ts';
import {
  countPublished,
  findAccount,
  findAccountsByUsernames,
  findAdAccount,
  findAdAccountByName,
  findBusiness,
  findBusinessByName,
  findContainer,
  findContainers,
  findUpcomingEventByTitle,
  insertAdAccount,
  insertAgency,
  insertAuthorizedAdAccount,
  insertBusiness,
  insertCaptionMentions,
  insertContainer,
  insertHashtagSearch,
  insertMedia,
  insertMediaTags,
  insertUpcomingEvent,
  listAgencies,
  listAuthorizedAdAccounts,
  listInsightValues,
  listRecentHashtags,
  listUpcomingEvents,
  lockAccount,
  markContainerPublished,
  searchedHashtagIds,
  upsertHashtag,
  upsertInsightValues,
  type AuthorizedAdAccountRow,
  type ContainerRow,
  type InsightRow,
  type UpcomingEventRow,
} from './account-edges.repository.ts';
import {
  ACCOUNT_METRICS,
  BREAKDOWN_DIMENSIONS,
  BREAKDOWN_VALUES,
  DEMOGRAPHIC_TIMEFRAMES,
  findAccountMetric,
  INSIGHT_PERIODS,
  METRIC_TYPES,
  PERIOD_DAYS,
  RETIRED_ACCOUNT_METRICS,
  TIMEFRAME_DAYS,
  type BreakdownDimension,
  type DemographicTimeframe,
  type InsightMetricDefinition,
  type InsightPeriod,
  type MetricType,
} from './insights-catalogue.ts';

/**
 * The domain rules of the account edges other than media/stories/tags/live_media/mentions (reference §2.2): upcoming
 * events, recently searched hashtags, agencies, authorized ad accounts, media containers and their publication, the
 * publishing limit and insights.
 *
 * Callers (GraphQL resolvers, REST routes) have already checked that the caller may act for `accountId`; this layer holds
 * parameter validation, quotas, expiry and time windows only, and raises errors through `socialErrors` alone. Parameter
 * names in errors are the Graph's own (`start_time`, `creation_id`, …), since that is what a client sent.
 *
 * Error choices for content publishing follow the platform's error-code table for the Content Publishing API (codes −2,
 * −1, 1, 9, 24, 9004, 9007, 36004 and 100 with 2207xxx subcodes, each with a user title and message); where the platform
 * documents no error for a rule (e.g. publishing a container twice, a carousel child of another account) a plain 100
 * `invalidParameter` with our own wording is used. Each choice is noted where it is made.
 */

// ---------------------------------------------------------------------------------------------------------------------
// Domain types

export const NOTIFICATION_SUBTYPES = [
  'AFTER_EVENT_1DAY',
  'AFTER_EVENT_2DAY',
  'AFTER_EVENT_3DAY',
  'AFTER_EVENT_4DAY',
  'AFTER_EVENT_5DAY',
  'AFTER_EVENT_6DAY',
  'AFTER_EVENT_7DAY',
  'BEFORE_EVENT_15MIN',
  'BEFORE_EVENT_1HOUR',
  'BEFORE_EVENT_1DAY',
  'BEFORE_EVENT_2DAY',
  'EVENT_START',
  'RESCHEDULED',
] as const;
export type NotificationSubtype = (typeof NOTIFICATION_SUBTYPES)[number];

export const NOTIFICATION_TARGET_TIMES = ['EVENT_START', 'EVENT_END'] as const;
export type NotificationTargetTime = (typeof NOTIFICATION_TARGET_TIMES)[number];

export interface UpcomingEvent {
  id: string;
  accountId: string;
  title: string;
  startTime: Date;
  endTime: Date | null;
  notificationSubtypes: NotificationSubtype[];
  notificationTargetTime: NotificationTargetTime | null;
  createdAt: Date;
}

/** POST /<account>/upcoming_events. Times are ISO 8601 text or unix seconds (number or digits). */
export interface CreateUpcomingEventInput {
  title?: string | null;
  startTime?: string | number | null;
  endTime?: string | number | null;
  notificationSubtypes?: readonly string[] | null;
  notificationTargetTime?: string | null;
}

export interface Hashtag {
  id: string;
  name: string;
}

export interface Business {
  id: string;
  name: string;
}

export interface AdAccount {
  /** The ads API's form: `act_<accountId>`. */
  id: string;
  /** The numeric part of the id. */
  accountId: string;
  name: string;
  /** The business that owns the ad account. */
  businessId: string;
  currency: string;
  timezoneName: string;
  /** The ads API's numbering: 1 ACTIVE, 2 DISABLED, … */
  accountStatus: number;
  authorizedAt: Date;
}

/** POST /<account>/authorized_adaccounts: `account_id` (with or without `act_`) and `business`. */
export interface AuthorizeAdAccountInput {
  adAccountId?: string | null;
  businessId?: string | null;
}

export type UserTag = StoredUserTag;

/** POST /<account>/media, decoded by the transport (lists and JSON already parsed). */
export interface CreateContainerInput {
  imageUrl?: string | null;
  videoUrl?: string | null;
  /** An uploaded image's id; stored only, for now (a later change lets it stand in for image_url). */
  uploadMediaId?: string | null;
  mediaType?: string | null;
  caption?: string | null;
  isCarouselItem?: boolean | null;
  children?: readonly string[] | null;
  /** JSON as sent (GraphQL takes it as JSON): the service checks that it is an array of {username, x, y}. */
  userTags?: unknown;
  collaborators?: readonly string[] | null;
  locationId?: string | null;
  coverUrl?: string | null;
  /** Milliseconds into the video. */
  thumbOffset?: number | null;
  shareToFeed?: boolean | null;
  audioName?: string | null;
  altText?: string | null;
}

export type ContainerStatusCode = 'IN_PROGRESS' | 'FINISHED' | 'PUBLISHED' | 'ERROR' | 'EXPIRED';

export interface MediaContainer {
  id: string;
  accountId: string;
  mediaType: ContainerMediaType;
  imageUrl: string | null;
  videoUrl: string | null;
  uploadMediaId: string | null;
  caption: string;
  isCarouselItem: boolean;
  children: string[];
  userTags: UserTag[];
  collaborators: string[];
  locationId: string | null;
  altText: string | null;
  shareToFeed: boolean | null;
  coverUrl: string | null;
  thumbOffset: number | null;
  audioName: string | null;
  statusCode: ContainerStatusCode;
  createdAt: Date;
  expiresAt: Date;
  publishedMediaId: string | null;
  publishedAt: Date | null;
}

export interface PublishedMedia {
  id: string;
}

export interface ContentPublishingLimit {
  quotaUsage: number;
  config: { quotaTotal: number; quotaDuration: number };
}

/** GET /<account>/insights, as the transport received it (lists as comma text or arrays; times as text or numbers). */
export interface InsightsParams {
  metric?: string | readonly string[] | null;
  period?: string | null;
  metricType?: string | null;
  breakdown?: string | readonly string[] | null;
  timeframe?: string | null;
  since?: string | number | null;
  until?: string | number | null;
}

export interface InsightValue {
  /** A count, or for online_followers a map of hour of day ("0"–"23", UTC) to count. */
  value: number | Record<string, number>;
  endTime: Date;
}

export interface InsightBreakdown {
  dimensionKeys: string[];
  results: { dimensionValues: string[]; value: number }[];
}

export interface InsightTotalValue {
  value: number;
  breakdowns?: InsightBreakdown[];
}

export interface AccountInsight {
  name: string;
  period: InsightPeriod;
  title: string;
  description: string;
  /** `<account>/insights/<metric>/<period>`. */
  id: string;
  /** time_series: one value per day ending in the window that has data (no data → no value, never 0). */
  values?: InsightValue[];
  /** total_value: the window's total, with the requested breakdown. */
  totalValue?: InsightTotalValue;
}

/**
 * The time window a response covers, in unix seconds, for the REST layer's time paging (`previous` / `next` move the
 * window by its own length). `hasNext` is false once the window reaches now; `hasPrevious` once the window before would
 * start more than two years back (the platform keeps two years of metrics). Demographics (timeframe) have neither.
 */
export interface InsightsWindow {
  since: number;
  until: number;
  hasPrevious: boolean;
  hasNext: boolean;
}

export interface InsightsResult {
  data: AccountInsight[];
  window: InsightsWindow;
}

export interface SeedDemoEdgesOptions {
  /** Days of insight values to write, ending with the last complete day. Default 35. */
  insightDays?: number;
}

export interface SeedDemoEdgesResult {
  eventIds: string[];
  hashtags: Hashtag[];
  agencyIds: string[];
  /** `act_…` ids of the ad accounts made for the agencies; the first of each agency is authorised. */
  adAccountIds: string[];
  authorizedAdAccountIds: string[];
  insightDays: number;
}

export interface AccountEdgesService {
  listUpcomingEvents(accountId: string, pageArgs: PageArgs): Promise<Page<UpcomingEvent>>;
  createUpcomingEvent(accountId: string, input: CreateUpcomingEventInput): Promise<UpcomingEvent>;
  recentlySearchedHashtags(accountId: string, limit?: number | null): Promise<Hashtag[]>;
  recordHashtagSearch(accountId: string, name: string): Promise<Hashtag>;
  agencies(accountId: string, pageArgs: PageArgs): Promise<Page<Business>>;
  authorizedAdAccounts(accountId: string, businessId: string | undefined, pageArgs: PageArgs): Promise<Page<AdAccount>>;
  authorizeAdAccount(accountId: string, input: AuthorizeAdAccountInput): Promise<true>;
  /** @param actingUserId the token's user (account or parent-platform user): an uploaded image must be theirs or the account's. */
  createContainer(accountId: string, input: CreateContainerInput, actingUserId?: string): Promise<MediaContainer>;
  getContainer(accountId: string, containerId: string): Promise<MediaContainer>;
  /** A container by id alone, whatever its account (the caller checks who may see it); undefined when unknown. */
  findContainerById(containerId: string): Promise<MediaContainer | undefined>;
  publishContainer(accountId: string, creationId: string | null | undefined): Promise<PublishedMedia>;
  contentPublishingLimit(accountId: string, since?: string | number | null): Promise<ContentPublishingLimit>;
  insights(accountId: string, params: InsightsParams): Promise<InsightsResult>;
  /** Fills the account's edges with deterministic demo data (for the seed script); running it again changes nothing. */
  seedDemoEdges(accountId: string, options?: SeedDemoEdgesOptions): Promise<SeedDemoEdgesResult>;
}

export interface AccountEdgesServiceDeps {
  db: SocialDb;
  codec: CursorCodec;
  /** The clock: container expiry, quotas, the hashtag window and insight windows all read it. */
  now: () => Date;
  /**
   * Publications per rolling 24 h. Default 100, the content-publishing guide's figure; the endpoint reference says 50
   * (reference §5, conflict 7), so a deployment that wants that passes 50.
   */
  publishingQuota?: number;
  /** Seconds a video container stays IN_PROGRESS (simulated processing; nothing is downloaded). Default 30. */
  videoProcessingSeconds?: number;
  /** Origin of published media permalinks. Default https://social.example. */
  permalinkOrigin?: string;
  pageLimits?: PageLimits;
  /** Uploaded images (Area D) a container may take instead of image_url; without it upload_media_id is refused. */
  mediaClaims?: MediaClaims;
}

// ---------------------------------------------------------------------------------------------------------------------
// Constants

const SECOND = 1000;
const DAY_SECONDS = 86_400;
const DAY_MS = DAY_SECONDS * SECOND;
export const CONTAINER_LIFETIME_MS = DAY_MS;
export const PUBLISHING_QUOTA_DURATION = DAY_SECONDS;
export const DEFAULT_PUBLISHING_QUOTA = 100;
export const DEFAULT_VIDEO_PROCESSING_SECONDS = 30;

export const EVENT_TITLE_MAX = 255;
export const HASHTAG_WINDOW_MS = 7 * DAY_MS;
export const HASHTAG_DISTINCT_MAX = 30;
export const RECENT_HASHTAGS_DEFAULT = 25;
export const RECENT_HASHTAGS_MAX = 30;

export const CAPTION_MAX_CHARS = 2200;
export const CAPTION_MAX_HASHTAGS = 30;
export const MEDIA_MAX_TAGS = 20;
export const CAROUSEL_MIN_CHILDREN = 2;
export const CAROUSEL_MAX_CHILDREN = 10;
export const COLLABORATORS_MAX = 3;
export const ALT_TEXT_MAX_CHARS = 1000;

/** Longest since–until range of the insights edge, and how far back its data goes. */
export const INSIGHTS_MAX_RANGE_SECONDS = 30 * DAY_SECONDS;
export const INSIGHTS_RETENTION_SECONDS = 730 * DAY_SECONDS;
/** The platform returns at most this many breakdown results (the top ones). */
export const INSIGHTS_MAX_BREAKDOWN_RESULTS = 45;

const CONTAINER_MEDIA_TYPES: readonly ContainerMediaType[] = ['IMAGE', 'VIDEO', 'CAROUSEL', 'REELS', 'STORIES'];
const USERNAME = /^[A-Za-z0-9._]{1,30}$/;
const HASHTAG_IN_TEXT = /#[\p{L}\p{N}_]+/gu;
// An @ that starts a word (not inside an e-mail address); usernames are letters, digits, '.' and '_', at most 30.
const MENTION_IN_TEXT = /(?<![\p{L}\p{N}_.@])@([A-Za-z0-9._]{1,30})/gu;
const HASHTAG_NAME = /^[\p{L}\p{N}_]{1,100}$/u;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s*(?:Z|[+-]\d{2}(?::?\d{2})?))?)?$/i;
const UNIX_DIGITS = /^\d{1,12}$/;
const SHORTCODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

// ---------------------------------------------------------------------------------------------------------------------
// Publishing errors (the platform's table: code, subcode, user title, user message)

const publishing = {
  unknownMediaType: (mediaType: string) =>
    socialErrors.publishingError(100, 2207023, 'Invalid parameter', 'Unknown media type', `The media type ${mediaType} is unknown.`),
  carouselSize: () =>
    socialErrors.publishingError(
      100,
      2207028,
      'Invalid parameter',
      'Carousel validation failed',
      "Your post won't be shared as a carousel. Carousels need at least 2 photos/videos and no more than 10 photos/videos.",
    ),
  // 2207040 is the platform's "too many tags" (at most 20 @-tags per media): used for caption @mentions and user_tags.
  tooManyTags: () =>
    socialErrors.publishingError(100, 2207040, 'Invalid parameter', 'Too many tags', `Cannot use more than ${MEDIA_MAX_TAGS} tags per created media.`),
  // 36004 / 2207010 is the platform's caption error; its limits are 2,200 characters and 30 hashtags.
  captionTooLong: () =>
    socialErrors.publishingError(36004, 2207010, 'The caption is too long.', 'Caption too long', `The caption can have at most ${CAPTION_MAX_CHARS.toLocaleString('en-US')} characters.`),
  tooManyHashtags: () =>
    socialErrors.publishingError(36004, 2207010, 'The caption has too many hashtags.', 'Too many hashtags', `The caption can have at most ${CAPTION_MAX_HASHTAGS} hashtags.`),
  // Nothing is fetched here, so a URL the platform could never fetch (not http(s)) gets its download-failure error.
  mediaDownload: (url: string) =>
    socialErrors.publishingError(
      9004,
      2207052,
      'Media download has failed.',
      'Media download has failed',
      `The media could not be fetched from this URI: ${url}. Please check the URI and try again.`,
    ),
  thumbOffset: () =>
    socialErrors.publishingError(
      1,
      2207057,
      'An unknown error has occurred.',
      'Invalid thumbnail offset',
      'Thumbnail offset must be greater than or equal to 0 and less than video duration.',
    ),
  notFound: (id: string) =>
    socialErrors.publishingError(24, 2207006, 'The requested resource does not exist', 'Media not found', `The media with id ${id} cannot be found.`),
  expired: () =>
    socialErrors.publishingError(
      -2,
      2207020,
      'The media has expired.',
      'Media expired',
      'The media you are trying to access has expired. Please try to upload again.',
    ),
  notReady: () =>
    socialErrors.publishingError(9007, 2207027, 'Media ID is not available', 'Media not ready for publishing', 'The media is not ready for publishing, please wait for a moment'),
  failed: () =>
    socialErrors.publishingError(-1, 2207032, 'Create media fail, please try to re-create media', 'Create media fail', 'Failed to create a media container. Try again.'),
  limitReached: () =>
    socialErrors.publishingError(
      9,
      2207042,
      'Application request limit reached',
      'Max posts limit reached',
      'You reached maximum number of posts that is allowed to be published by Content Publishing API.',
      'limit',
    ),
};

// ---------------------------------------------------------------------------------------------------------------------
// The service

export function createAccountEdgesService(deps: AccountEdgesServiceDeps): AccountEdgesService {
  const { db, codec } = deps;
  const clock = deps.now;
  const quotaTotal = deps.publishingQuota ?? DEFAULT_PUBLISHING_QUOTA;
  const videoProcessingMs = (deps.videoProcessingSeconds ?? DEFAULT_VIDEO_PROCESSING_SECONDS) * SECOND;
  const permalinkOrigin = (deps.permalinkOrigin ?? 'https://social.example').replace(/\/+$/, '');
  const pageLimits = deps.pageLimits ?? DEFAULT_PAGE_LIMITS;
  if (!Number.isInteger(quotaTotal) || quotaTotal < 0) throw new RangeError('publishingQuota must be a non-negative integer');

  const permalinkOf = (mediaId: string) => `${permalinkOrigin}/p/${shortcodeOf(mediaId)}`;

  /** An id the caller vouched for, but that must still be an account id before it reaches SQL (a bigint cast). */
  function checkAccountId(accountId: string, method: 'get' | 'post'): void {
    if (!isSocialId(accountId, 'account')) throw socialErrors.unknownObject(accountId, method);
  }

  /** Page args → page request, with the cursor's position checked against the list's shape. */
  function pageRequest(args: PageArgs, shape: readonly ('seconds' | 'id')[]): PageRequest {
    const request = readPageArgs(codec, args, pageLimits, shape.length);
    const position = request.position;
    if (position && !shape.every((kind, index) => isPositionPart(position[index], kind))) {
      throw socialErrors.invalidParameter(args.after != null ? 'after' : 'before', 'Invalid cursor.');
    }
    return request;
  }

  // -- Upcoming events ------------------------------------------------------------------------------------------------

  async function listEvents(accountId: string, pageArgs: PageArgs): Promise<Page<UpcomingEvent>> {
    checkAccountId(accountId, 'get');
    const request = pageRequest(pageArgs, ['seconds', 'id']);
    const rows = await listUpcomingEvents(db, accountId, request);
    const page = assemblePage(codec, request, rows, (row) => [toUnixSeconds(row.start_time), row.id]);
    return { ...page, items: page.items.map(toUpcomingEvent) };
  }

  async function createEvent(accountId: string, input: CreateUpcomingEventInput): Promise<UpcomingEvent> {
    checkAccountId(accountId, 'post');
    const now = clock();
    const title = typeof input.title === 'string' ? input.title.trim() : '';
    if (title === '') throw socialErrors.missingParameter('title');
    if ([...title].length > EVENT_TITLE_MAX) {
      throw socialErrors.invalidParameter('title', `The title can have at most ${EVENT_TITLE_MAX} characters.`);
    }
    const startTime = parseEventTime('start_time', input.startTime, now);
    if (!startTime) throw socialErrors.missingParameter('start_time');
    // An upcoming event: one that has started already has nothing to remind anyone of.
    if (startTime.getTime() <= now.getTime()) throw socialErrors.invalidParameter('start_time', 'start_time must be in the future.');
    const endTime = parseEventTime('end_time', input.endTime, now) ?? null;
    if (endTime && endTime.getTime() <= startTime.getTime()) {
      throw socialErrors.invalidParameter('end_time', 'end_time must be after start_time.');
    }
    const subtypes: NotificationSubtype[] = [];
    (input.notificationSubtypes ?? []).forEach((subtype, index) => {
      if (!(NOTIFICATION_SUBTYPES as readonly string[]).includes(subtype)) {
        throw socialErrors.invalidParameter('notification_subtypes', enumMessage(`notification_subtypes[${index}]`, NOTIFICATION_SUBTYPES));
      }
      // A repeated subtype asks for the same reminder twice: kept once.
      if (!subtypes.includes(subtype as NotificationSubtype)) subtypes.push(subtype as NotificationSubtype);
    });
    const target = input.notificationTargetTime ?? null;
    if (target !== null && !(NOTIFICATION_TARGET_TIMES as readonly string[]).includes(target)) {
      throw socialErrors.invalidParameter('notification_target_time', enumMessage('notification_target_time', NOTIFICATION_TARGET_TIMES));
    }
    if (target === 'EVENT_END' && !endTime) {
      throw socialErrors.invalidParameter('notification_target_time', 'notification_target_time EVENT_END needs an end_time.');
    }
    if (!(await findAccount(db, accountId))) throw socialErrors.unknownObject(accountId, 'post');
    const row = await insertUpcomingEvent(db, {
      account_id: accountId,
      title,
      start_time: startTime,
      end_time: endTime,
      notification_subtypes: subtypes,
      notification_target_time: target as NotificationTargetTime | null,
      created_at: now,
    });
    return toUpcomingEvent(row);
  }

  // -- Hashtags -------------------------------------------------------------------------------------------------------

  async function recentHashtags(accountId: string, limit?: number | null): Promise<Hashtag[]> {
    checkAccountId(accountId, 'get');
    if (limit != null && (!Number.isInteger(limit) || limit < 0)) {
      throw socialErrors.invalidParameter('limit', 'The parameter limit must be a non-negative integer.');
    }
    // The reference: default 25, max 30; a larger limit is a maximum, not an error.
    const wanted = Math.min(limit ?? RECENT_HASHTAGS_DEFAULT, RECENT_HASHTAGS_MAX);
    if (wanted === 0) return [];
    const now = clock();
    const rows = await listRecentHashtags(db, accountId, new Date(now.getTime() - HASHTAG_WINDOW_MS), now, wanted);
    return rows.map((row) => ({ id: row.id, name: row.name }));
  }

  async function recordSearch(accountId: string, text: string, at: Date): Promise<Hashtag> {
    checkAccountId(accountId, 'post');
    const name = normaliseHashtag(text);
    if (name === '') throw socialErrors.missingParameter('q');
    if (!HASHTAG_NAME.test(name)) {
      throw socialErrors.invalidParameter('q', 'A hashtag can contain only letters, digits and underscores (at most 100).');
    }
    return inTransaction(db, async (trx) => {
      // The account row lock makes the check-then-insert below safe against a concurrent search by the same account.
      if (!(await lockAccount(trx, accountId))) throw socialErrors.unknownObject(accountId, 'post');
      const hashtag = await upsertHashtag(trx, name);
      const searched = await searchedHashtagIds(trx, accountId, new Date(at.getTime() - HASHTAG_WINDOW_MS), at);
      // The platform's rule: at most 30 unique hashtags per 7 days; searching one again does not count again.
      if (!searched.includes(hashtag.id) && searched.length >= HASHTAG_DISTINCT_MAX) {
        throw socialErrors.rateLimited(
          'custom',
          `(#613) Calls to this api have exceeded the rate limit. An account can search at most ${HASHTAG_DISTINCT_MAX} unique hashtags within 7 days.`,
        );
      }
      await insertHashtagSearch(trx, accountId, hashtag.id, at);
      return hashtag;
    });
  }

  // -- Agencies and ad accounts ---------------------------------------------------------------------------------------

  async function agencies(accountId: string, pageArgs: PageArgs): Promise<Page<Business>> {
    checkAccountId(accountId, 'get');
    const request = pageRequest(pageArgs, ['id']);
    const rows = await listAgencies(db, accountId, request);
    return assemblePage(codec, request, rows, (row) => [row.id]);
  }

  async function authorizedAdAccounts(accountId: string, businessId: string | undefined, pageArgs: PageArgs): Promise<Page<AdAccount>> {
    checkAccountId(accountId, 'get');
    if (businessId !== undefined && (!isSocialId(businessId, 'business') || !(await findBusiness(db, businessId)))) {
      throw socialErrors.unknownObject(businessId, 'get');
    }
    const request = pageRequest(pageArgs, ['id']);
    const rows = await listAuthorizedAdAccounts(db, accountId, businessId, request);
    const page = assemblePage(codec, request, rows, (row) => [row.id]);
    return { ...page, items: page.items.map(toAdAccount) };
  }

  async function authorizeAdAccount(accountId: string, input: AuthorizeAdAccountInput, at = clock()): Promise<true> {
    checkAccountId(accountId, 'post');
    const given = input.adAccountId?.trim() ?? '';
    if (given === '') throw socialErrors.missingParameter('account_id');
    const businessId = input.businessId?.trim() ?? '';
    if (businessId === '') throw socialErrors.missingParameter('business');
    const adAccountId = given.startsWith('act_') ? given.slice(4) : given;
    if (!isSocialId(businessId, 'business') || !(await findBusiness(db, businessId))) {
      throw socialErrors.unknownObject(businessId, 'post');
    }
    // No documented error for an ad account of another business: a 100 naming the parameter, as the brief asks.
    const adAccount = isSocialId(adAccountId, 'adAccount') ? await findAdAccount(db, adAccountId) : undefined;
    if (!adAccount || adAccount.business_id !== businessId) {
      throw socialErrors.invalidParameter('account_id', `The ad account act_${adAccountId} does not belong to the business ${businessId}.`);
    }
    if (!(await findAccount(db, accountId))) throw socialErrors.unknownObject(accountId, 'post');
    await insertAuthorizedAdAccount(db, { account_id: accountId, ad_account_id: adAccount.id, business_id: businessId, authorized_at: at });
    return true;
  }

  // -- Containers -----------------------------------------------------------------------------------------------------

  /** The image URL of an uploaded image, after checking that it may be used here (not expired, owned by a claimant). */
  async function claimUpload(trx: Transaction<SocialTables>, reference: string, claimants: string[]): Promise<{ imageUrl: string; mediaId: string }> {
    if (!deps.mediaClaims) throw socialErrors.invalidParameter('upload_media_id', 'Uploaded media are not available here.');
    const outcome = await deps.mediaClaims.claim(reference, claimants, trx);
    if (outcome.ok) {
      const extension = outcome.mimeType.replace('image/', '').replace('jpeg', 'jpg');
      return { imageUrl: `${permalinkOrigin}/media/${outcome.mediaId}.${extension}`, mediaId: outcome.mediaId };
    }
    switch (outcome.reason) {
      case 'malformed':
      case 'unknown':
        throw socialErrors.invalidParameter('upload_media_id', `The media id ${reference} was not found.`);
      case 'expired':
        throw socialErrors.invalidParameter(
          'upload_media_id',
          `The media id ${outcome.mediaId} expired at ${outcome.expiredAt.toISOString()}; upload the image again.`,
        );
      case 'not-owner':
        throw socialErrors.invalidParameter('upload_media_id', `User id ${claimants[0]} doesn't own media id ${outcome.mediaId}.`);
    }
  }

  async function createContainer(accountId: string, input: CreateContainerInput, actingUserId?: string): Promise<MediaContainer> {
    checkAccountId(accountId, 'post');
    const now = clock();
    const draft = validateContainerInput(input);

    return inTransaction(db, async (trx) => {
      if (!(await lockAccount(trx, accountId))) throw socialErrors.unknownObject(accountId, 'post');
      if (draft.uploadMediaId !== null) {
        const claimed = await claimUpload(trx, draft.uploadMediaId, [...new Set([actingUserId ?? accountId, accountId])]);
        draft.imageUrl = claimed.imageUrl;
        draft.uploadMediaId = claimed.mediaId;
      }
      if (draft.mediaType === 'CAROUSEL') {
        const children = await findContainers(trx, draft.children.filter((id) => isSocialId(id, 'container')));
        const byId = new Map(children.map((child) => [child.id, child]));
        for (const id of draft.children) {
          const child = byId.get(id);
          // Another account's container is reported like a missing one: it must not reveal that it exists.
          if (!child || child.account_id !== accountId || !child.is_carousel_item) {
            throw socialErrors.invalidParameter('children', `The carousel item ${id} does not exist or is not a carousel item of this account.`);
          }
          const problem = unusable(child, now, 'children');
          if (problem) throw problem;
        }
      }
      const isVideo = draft.videoUrl !== null;
      const row = await insertContainer(trx, {
        account_id: accountId,
        media_type: draft.mediaType,
        image_url: draft.imageUrl,
        video_url: draft.videoUrl,
        upload_media_id: draft.uploadMediaId,
        caption: draft.caption,
        is_carousel_item: draft.isCarouselItem,
        children: draft.children,
        user_tags: draft.userTags,
        collaborators: draft.collaborators,
        location_id: draft.locationId,
        alt_text: draft.altText,
        share_to_feed: draft.shareToFeed,
        cover_url: draft.coverUrl,
        thumb_offset: draft.thumbOffset,
        audio_name: draft.audioName,
        // Images (and carousels of finished items) are ready at once; a video "processes" for a while, as on the
        // platform, so that clients that publish without polling status_code meet the platform's not-ready error.
        status_code: isVideo && videoProcessingMs > 0 ? 'IN_PROGRESS' : 'FINISHED',
        created_at: now,
        ready_at: new Date(now.getTime() + (isVideo ? videoProcessingMs : 0)),
        expires_at: new Date(now.getTime() + CONTAINER_LIFETIME_MS),
      });
      return toContainer(row, now);
    });
  }

  async function getContainer(accountId: string, containerId: string): Promise<MediaContainer> {
    checkAccountId(accountId, 'get');
    const row = isSocialId(containerId, 'container') ? await findContainer(db, containerId) : undefined;
    if (!row || row.account_id !== accountId) throw socialErrors.unknownObject(containerId, 'get');
    return toContainer(row, clock());
  }

  async function findContainerById(containerId: string): Promise<MediaContainer | undefined> {
    const row = isSocialId(containerId, 'container') ? await findContainer(db, containerId) : undefined;
    return row ? toContainer(row, clock()) : undefined;
  }

  async function publishContainer(accountId: string, creationId: string | null | undefined): Promise<PublishedMedia> {
    checkAccountId(accountId, 'post');
    const id = creationId?.trim() ?? '';
    if (id === '') throw socialErrors.missingParameter('creation_id');
    const now = clock();

    return inTransaction(db, async (trx) => {
      // Locking the account serialises its publications, so the quota cannot be overrun by concurrent requests.
      const account = await lockAccount(trx, accountId);
      if (!account) throw socialErrors.unknownObject(accountId, 'post');
      const container = isSocialId(id, 'container') ? await findContainer(trx, id, true) : undefined;
      // The platform's 24 / 2207006 ("cannot be found", possibly for want of permission) covers another account's too.
      if (!container || container.account_id !== accountId) throw publishing.notFound(id);
      if (container.is_carousel_item) {
        // No documented error: a carousel item is only ever published through its carousel.
        throw socialErrors.invalidParameter('creation_id', `The container ${id} is a carousel item: publish the carousel container that holds it.`);
      }
      const problem = unusable(container, now, 'creation_id');
      if (problem) throw problem;

      const used = await countPublished(trx, accountId, new Date(now.getTime() - PUBLISHING_QUOTA_DURATION * SECOND), now);
      if (used >= quotaTotal) throw publishing.limitReached();

      let children: ContainerRow[] = [];
      if (container.media_type === 'CAROUSEL') {
        const found = new Map((await findContainers(trx, container.children, true)).map((child) => [child.id, child]));
        children = container.children.map((childId) => {
          const child = found.get(childId);
          if (!child) throw socialErrors.invalidParameter('children', `The carousel item ${childId} does not exist or is not a carousel item of this account.`);
          // Children may have expired, or been published in another carousel, since the carousel was made.
          const childProblem = unusable(child, now, 'children');
          if (childProblem) throw childProblem;
          return child;
        });
      }

      const { mediaType, productType } = publishedTypes(container);
      const first = children[0];
      const mediaUrl = first ? (first.image_url ?? first.video_url)! : (container.image_url ?? container.video_url)!;
      const mediaId = await insertMedia(
        trx,
        {
          owner_id: accountId,
          caption: container.caption,
          media_type: mediaType,
          media_product_type: productType,
          media_url: mediaUrl,
          thumbnail_url: mediaType === 'VIDEO' ? container.cover_url : null,
          timestamp: now,
          carousel_parent_id: null,
        },
        permalinkOf,
      );
      for (const child of children) {
        const childMediaId = await insertMedia(
          trx,
          {
            owner_id: accountId,
            caption: '',
            media_type: child.video_url !== null ? 'VIDEO' : 'IMAGE',
            media_product_type: 'FEED',
            media_url: (child.image_url ?? child.video_url)!,
            thumbnail_url: null,
            timestamp: now,
            carousel_parent_id: mediaId,
          },
          // Album children have no page of their own: their permalink is the album's.
          () => permalinkOf(mediaId),
        );
        await markContainerPublished(trx, child.id, childMediaId, now);
      }

      // Mentions and tags name other accounts; the owner naming itself is neither a mention nor a tag of note.
      const others = (rows: { id: string }[]) => rows.map((row) => row.id).filter((other) => other !== accountId);
      const mentioned = await findAccountsByUsernames(trx, captionMentions(container.caption));
      await insertCaptionMentions(trx, mediaId, others(mentioned), now);
      // Tags of carousel children are shown on the album: media lists (and the tags edge) leave children out.
      const tagged = [container, ...children].flatMap((row) => row.user_tags.map((tag) => tag.username));
      await insertMediaTags(trx, mediaId, others(await findAccountsByUsernames(trx, tagged)), now);

      await markContainerPublished(trx, container.id, mediaId, now);
      return { id: mediaId };
    });
  }

  async function contentPublishingLimit(accountId: string, since?: string | number | null): Promise<ContentPublishingLimit> {
    checkAccountId(accountId, 'get');
    const now = clock();
    let from = new Date(now.getTime() - PUBLISHING_QUOTA_DURATION * SECOND);
    if (since != null && since !== '') {
      const at = parseTimeParameter(since, now);
      const message = 'The parameter since must be a unix timestamp within the last 24 hours.';
      if (at === undefined) throw socialErrors.invalidParameter('since', message);
      const seconds = toUnixSeconds(at);
      if (seconds < toUnixSeconds(now) - PUBLISHING_QUOTA_DURATION || seconds > toUnixSeconds(now)) {
        throw socialErrors.invalidParameter('since', message);
      }
      // Publications at or after `since` (published_at keeps milliseconds; the bound is exclusive).
      from = new Date(seconds * SECOND - 1);
    }
    const quotaUsage = await countPublished(db, accountId, from, now);
    return { quotaUsage, config: { quotaTotal, quotaDuration: PUBLISHING_QUOTA_DURATION } };
  }

  // -- Insights -------------------------------------------------------------------------------------------------------

  async function insights(accountId: string, params: InsightsParams): Promise<InsightsResult> {
    checkAccountId(accountId, 'get');
    const now = clock();
    const request = readInsightsRequest(params, now);
    const { window, definitions, period, metricType, breakdown } = request;

    // Rolling periods need the days before the window's first day too.
    const reachBack = (PERIOD_DAYS[period] - 1) * DAY_SECONDS;
    const rows = await listInsightValues(
      db,
      accountId,
      definitions.map((definition) => definition.name),
      new Date((window.since - reachBack) * SECOND),
      new Date(window.until * SECOND),
    );
    const data = definitions.map((definition): AccountInsight => {
      const own = rows.filter((row) => row.metric === definition.name);
      const base = {
        name: definition.name,
        period,
        title: definition.title,
        description: definition.description,
        id: `${accountId}/insights/${definition.name}/${period}`,
      };
      return metricType === 'time_series'
        ? { ...base, values: timeSeries(definition, own, period, window) }
        : { ...base, totalValue: totalValue(definition, own, window, breakdown) };
    });
    return { data, window };
  }

  // -- Demo data ------------------------------------------------------------------------------------------------------

  async function seedDemoEdges(accountId: string, options: SeedDemoEdgesOptions = {}): Promise<SeedDemoEdgesResult> {
    checkAccountId(accountId, 'post');
    if (!(await findAccount(db, accountId))) throw socialErrors.unknownObject(accountId, 'post');
    const now = clock();
    const insightDays = options.insightDays ?? 35;

    // Events a few days ahead, on the hour.
    const hour = Math.ceil(now.getTime() / 3_600_000) * 3_600_000;
    const eventIds: string[] = [];
    for (const event of DEMO_EVENTS) {
      const existing = await findUpcomingEventByTitle(db, accountId, event.title);
      if (existing) {
        eventIds.push(existing.id);
        continue;
      }
      const start = hour + event.inDays * DAY_MS;
      const created = await createEvent(accountId, {
        title: event.title,
        startTime: start / SECOND,
        endTime: event.hours === undefined ? null : (start + event.hours * 3_600_000) / SECOND,
        notificationSubtypes: event.subtypes,
        notificationTargetTime: event.target,
      });
      eventIds.push(created.id);
    }

    // Searches over the last few hours, newest first in the list; a hashtag already searched this week is left alone.
    const hashtags: Hashtag[] = [];
    const searched = new Set(await searchedHashtagIds(db, accountId, new Date(now.getTime() - HASHTAG_WINDOW_MS), now));
    for (const [index, name] of DEMO_HASHTAGS.entries()) {
      const hashtag = await upsertHashtag(db, name);
      hashtags.push(searched.has(hashtag.id) ? hashtag : await recordSearch(accountId, name, new Date(now.getTime() - (index + 1) * 3_600_000)));
    }

    const agencyIds: string[] = [];
    const adAccountIds: string[] = [];
    const authorizedAdAccountIds: string[] = [];
    for (const agency of DEMO_AGENCIES) {
      const business = (await findBusinessByName(db, agency.name)) ?? (await insertBusiness(db, agency.name));
      await insertAgency(db, accountId, business.id, now);
      agencyIds.push(business.id);
      for (const [index, suffix] of ['Main', 'Experiments'].entries()) {
        const name = `${agency.name} — ${suffix}`;
        const adAccount =
          (await findAdAccountByName(db, business.id, name)) ??
          (await insertAdAccount(db, { business_id: business.id, name, currency: agency.currency, timezone_name: agency.timezone, created_at: now }));
        adAccountIds.push(`act_${adAccount.id}`);
        if (index === 0) {
          await authorizeAdAccount(accountId, { adAccountId: adAccount.id, businessId: business.id }, now);
          authorizedAdAccountIds.push(`act_${adAccount.id}`);
        }
      }
    }

    await upsertInsightValues(db, demoInsightRows(accountId, now, insightDays));
    return { eventIds, hashtags, agencyIds, adAccountIds, authorizedAdAccountIds, insightDays };
  }

  return {
    listUpcomingEvents: listEvents,
    createUpcomingEvent: createEvent,
    recentlySearchedHashtags: recentHashtags,
    recordHashtagSearch: (accountId, name) => recordSearch(accountId, name, clock()),
    agencies,
    authorizedAdAccounts,
    authorizeAdAccount: (accountId, input) => authorizeAdAccount(accountId, input),
    createContainer,
    getContainer,
    findContainerById,
    publishContainer,
    contentPublishingLimit,
    insights,
    seedDemoEdges,
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Container validation

/** Placeholder image URL of a draft whose image is an upload, replaced by the upload's URL once claimed. */
const UPLOAD_PENDING = 'upload:pending';

interface ContainerDraft {
  mediaType: ContainerMediaType;
  imageUrl: string | null;
  videoUrl: string | null;
  uploadMediaId: string | null;
  caption: string;
  isCarouselItem: boolean;
  children: string[];
  userTags: StoredUserTag[];
  collaborators: string[];
  locationId: string | null;
  altText: string | null;
  shareToFeed: boolean | null;
  coverUrl: string | null;
  thumbOffset: number | null;
  audioName: string | null;
}

/** The parameter rules of POST /<account>/media that need no database; the carousel's children are checked after. */
function validateContainerInput(input: CreateContainerInput): ContainerDraft {
  const given = (value: string | null | undefined): string | null => (value == null || value.trim() === '' ? null : value.trim());
  const requested = given(input.mediaType);
  if (requested !== null && !(CONTAINER_MEDIA_TYPES as readonly string[]).includes(requested)) throw publishing.unknownMediaType(requested);
  const uploadMediaId = given(input.uploadMediaId);
  if (uploadMediaId !== null && given(input.imageUrl) !== null) {
    throw socialErrors.invalidParameter('upload_media_id', 'Only one of image_url and upload_media_id can be given.');
  }
  // An uploaded image stands in for image_url in every rule; its URL is known once the upload is claimed.
  const imageUrl = given(input.imageUrl) ?? (uploadMediaId !== null ? UPLOAD_PENDING : null);
  const videoUrl = given(input.videoUrl);
  const isCarouselItem = input.isCarouselItem === true;

  if (imageUrl !== null && videoUrl !== null) {
    throw socialErrors.invalidParameter('video_url', 'Only one of image_url and video_url can be given.');
  }
  // Which media the container holds, by media_type: CAROUSEL takes its media from children; REELS and VIDEO need a
  // video; STORIES either; no media_type means an image (a video without one is refused: the platform retired plain
  // VIDEO posts, and only a carousel item may still say VIDEO).
  const mediaType = (requested ?? 'IMAGE') as ContainerMediaType;
  switch (mediaType) {
    case 'CAROUSEL':
      if (imageUrl !== null || videoUrl !== null) {
        throw socialErrors.invalidParameter(imageUrl !== null ? 'image_url' : 'video_url', 'A CAROUSEL container takes its media from children, not from image_url or video_url.');
      }
      if (isCarouselItem) throw socialErrors.invalidParameter('is_carousel_item', 'A CAROUSEL container cannot be a carousel item.');
      break;
    case 'REELS':
    case 'VIDEO':
      if (imageUrl !== null) throw socialErrors.invalidParameter('image_url', `A ${mediaType} container takes video_url, not image_url.`);
      if (videoUrl === null) throw socialErrors.missingParameter('video_url');
      break;
    case 'STORIES':
      if (imageUrl === null && videoUrl === null) throw socialErrors.missingParameter('image_url');
      break;
    case 'IMAGE':
      if (videoUrl !== null) {
        throw socialErrors.invalidParameter('media_type', 'A video needs media_type REELS or STORIES (or VIDEO for a carousel item).');
      }
      if (imageUrl === null) throw socialErrors.missingParameter('image_url');
      break;
  }
  if (isCarouselItem && (mediaType === 'REELS' || mediaType === 'STORIES')) {
    // The platform: reels cannot appear in carousels; stories are never part of one.
    throw socialErrors.invalidParameter('is_carousel_item', `A ${mediaType} container cannot be a carousel item.`);
  }
  for (const url of [imageUrl, videoUrl]) if (url !== null && url !== UPLOAD_PENDING && !isHttpUrl(url)) throw publishing.mediaDownload(url);

  const isVideo = videoUrl !== null;
  const isImage = imageUrl !== null;
  // A reel: REELS, or a stand-alone legacy VIDEO (published as a reel, as the platform now does with every video).
  const isReel = mediaType === 'REELS' || (mediaType === 'VIDEO' && !isCarouselItem);

  // Children
  const children = [...(input.children ?? [])].map((id) => String(id).trim());
  if (mediaType === 'CAROUSEL') {
    if (children.length === 0) throw socialErrors.missingParameter('children');
    if (children.length < CAROUSEL_MIN_CHILDREN || children.length > CAROUSEL_MAX_CHILDREN) throw publishing.carouselSize();
    const duplicate = children.find((id, index) => children.indexOf(id) !== index);
    if (duplicate !== undefined) throw socialErrors.invalidParameter('children', `The carousel item ${duplicate} is given more than once.`);
  } else if (children.length > 0) {
    throw socialErrors.invalidParameter('children', 'children can only be given with media_type CAROUSEL.');
  }

  // Caption
  const caption = input.caption ?? '';
  if ([...caption].length > CAPTION_MAX_CHARS) throw publishing.captionTooLong();
  if ((caption.match(HASHTAG_IN_TEXT) ?? []).length > CAPTION_MAX_HASHTAGS) throw publishing.tooManyHashtags();
  if (captionMentions(caption, false).length > MEDIA_MAX_TAGS) throw publishing.tooManyTags();

  // User tags: on the media that shows people (not on a carousel container: its items carry them).
  const userTags: StoredUserTag[] = [];
  // GraphQL takes user_tags as JSON, so its shape is checked here, with the other rules of the parameter.
  if (input.userTags !== undefined && input.userTags !== null && !Array.isArray(input.userTags)) {
    throw socialErrors.invalidParameter('user_tags', 'user_tags must be a JSON array of {username, x, y}.');
  }
  const tags: readonly Record<string, unknown>[] = ((input.userTags as readonly unknown[] | null | undefined) ?? []).map((tag) =>
    typeof tag === 'object' && tag !== null ? (tag as Record<string, unknown>) : {},
  );
  if (tags.length > 0 && mediaType === 'CAROUSEL') {
    throw socialErrors.invalidParameter('user_tags', 'Tag people on the carousel items, not on the CAROUSEL container.');
  }
  if (tags.length > MEDIA_MAX_TAGS) throw publishing.tooManyTags();
  tags.forEach((tag, index) => {
    const username = typeof tag?.username === 'string' ? tag.username.replace(/^@/, '') : '';
    if (!USERNAME.test(username)) throw socialErrors.invalidParameter('user_tags', `user_tags[${index}].username must be a username.`);
    const stored: StoredUserTag = { username };
    for (const axis of ['x', 'y'] as const) {
      const value = tag[axis];
      // Photo tags sit at a point of the image; video and story tags may go without one.
      if (value == null) {
        if (isImage && mediaType !== 'STORIES') throw socialErrors.invalidParameter('user_tags', `user_tags[${index}].${axis} is required for an image.`);
        continue;
      }
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
        throw socialErrors.invalidParameter('user_tags', `user_tags[${index}].${axis} must be a number from 0 to 1.`);
      }
      stored[axis] = value;
    }
    userTags.push(stored);
  });

  // Collaborators: invited on posts and reels (not on stories, nor on an item inside a carousel).
  const collaborators = [...(input.collaborators ?? [])].map((name) => String(name).trim().replace(/^@/, ''));
  if (collaborators.length > 0 && (mediaType === 'STORIES' || isCarouselItem)) {
    throw socialErrors.invalidParameter('collaborators', 'Collaborators can be invited on feed posts, carousels and reels only.');
  }
  if (collaborators.length > COLLABORATORS_MAX) {
    throw socialErrors.invalidParameter('collaborators', `A post can have at most ${COLLABORATORS_MAX} collaborators.`);
  }
  collaborators.forEach((name, index) => {
    if (!USERNAME.test(name)) throw socialErrors.invalidParameter('collaborators', `collaborators[${index}] must be a username.`);
  });

  const locationId = given(input.locationId);
  if (locationId !== null && !/^\d{1,20}$/.test(locationId)) {
    throw socialErrors.invalidParameter('location_id', 'location_id must be the numeric id of a location page.');
  }

  // Reel-only parameters.
  const coverUrl = given(input.coverUrl);
  if (coverUrl !== null) {
    if (!isReel) throw socialErrors.invalidParameter('cover_url', 'cover_url can only be given for REELS.');
    if (!isHttpUrl(coverUrl)) throw publishing.mediaDownload(coverUrl);
  }
  const shareToFeed = input.shareToFeed ?? null;
  if (shareToFeed !== null && !isReel) throw socialErrors.invalidParameter('share_to_feed', 'share_to_feed can only be given for REELS.');
  const audioName = given(input.audioName);
  if (audioName !== null && !isReel) throw socialErrors.invalidParameter('audio_name', 'audio_name can only be given for REELS.');

  const thumbOffset = input.thumbOffset ?? null;
  if (thumbOffset !== null) {
    if (!isVideo) throw socialErrors.invalidParameter('thumb_offset', 'thumb_offset can only be given for a video.');
    if (!Number.isInteger(thumbOffset)) throw socialErrors.invalidParameter('thumb_offset', 'thumb_offset must be a whole number of milliseconds.');
    // The video's length is unknown offline; only the lower bound of the platform's rule can be checked.
    if (thumbOffset < 0 || thumbOffset > 2_147_483_647) throw publishing.thumbOffset();
  }

  // Alt text describes an image in the feed (single images and carousel images; not stories or videos).
  const altText = input.altText == null || input.altText === '' ? null : input.altText;
  if (altText !== null) {
    if (!isImage || mediaType === 'STORIES') throw socialErrors.invalidParameter('alt_text', 'alt_text can only be given for an image post or carousel image.');
    if ([...altText].length > ALT_TEXT_MAX_CHARS) {
      throw socialErrors.invalidParameter('alt_text', `alt_text can have at most ${ALT_TEXT_MAX_CHARS} characters.`);
    }
  }

  return {
    mediaType,
    imageUrl,
    videoUrl,
    uploadMediaId,
    caption,
    isCarouselItem,
    children,
    userTags,
    collaborators,
    locationId,
    altText,
    shareToFeed,
    coverUrl,
    thumbOffset,
    audioName,
  };
}

/** The status a container shows now: EXPIRED after 24 h (unless published), IN_PROGRESS until processed. */
export function containerStatus(row: Pick<ContainerRow, 'status_code' | 'expires_at' | 'ready_at'>, now: Date): ContainerStatusCode {
  if (row.status_code === 'PUBLISHED' || row.status_code === 'ERROR') return row.status_code;
  if (now.getTime() >= row.expires_at.getTime()) return 'EXPIRED';
  if (now.getTime() < row.ready_at.getTime()) return 'IN_PROGRESS';
  return 'FINISHED';
}

/** Why a container cannot be published (or put in a carousel) now, if it cannot. */
function unusable(row: ContainerRow, now: Date, parameter: 'creation_id' | 'children'): AppError | undefined {
  switch (containerStatus(row, now)) {
    case 'FINISHED':
      return undefined;
    case 'EXPIRED':
      return publishing.expired();
    case 'IN_PROGRESS':
      return publishing.notReady();
    case 'ERROR':
      return publishing.failed();
    case 'PUBLISHED':
      // The platform documents no error for this; a 100 naming the parameter says what happened.
      return socialErrors.invalidParameter(parameter, `The container ${row.id} has already been published.`);
  }
}

function publishedTypes(container: ContainerRow): { mediaType: MediaType; productType: MediaProductType } {
  switch (container.media_type) {
    case 'CAROUSEL':
      return { mediaType: 'CAROUSEL_ALBUM', productType: 'FEED' };
    case 'REELS':
    case 'VIDEO':
      return { mediaType: 'VIDEO', productType: 'REELS' };
    case 'STORIES':
      return { mediaType: container.video_url !== null ? 'VIDEO' : 'IMAGE', productType: 'STORY' };
    case 'IMAGE':
      return { mediaType: 'IMAGE', productType: 'FEED' };
  }
}

/** Usernames @mentioned in a caption (distinct unless `distinct` is false), without the '@' and trailing dots. */
export function captionMentions(caption: string, distinct = true): string[] {
  const names = [...caption.matchAll(MENTION_IN_TEXT)].map((match) => match[1]!.replace(/\.+$/, '')).filter((name) => name !== '');
  return distinct ? [...new Set(names.map((name) => name.toLowerCase()))] : names;
}

function isHttpUrl(text: string): boolean {
  // The platform asks for URLs in the US-ASCII character set; anything else, or another scheme, cannot be fetched.
  if (!/^[\x21-\x7e]+$/.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** The platform's shortcode: the media id written in a 64-letter alphabet (as the real platform derives its own). */
export function shortcodeOf(mediaId: string): string {
  let value = BigInt(mediaId);
  let code = '';
  do {
    code = SHORTCODE_ALPHABET[Number(value % 64n)]! + code;
    value /= 64n;
  } while (value > 0n);
  return code;
}

// ---------------------------------------------------------------------------------------------------------------------
// Insights

interface InsightsRequest {
  definitions: InsightMetricDefinition[];
  period: InsightPeriod;
  metricType: MetricType;
  breakdown: BreakdownDimension | undefined;
  window: InsightsWindow;
}

const RETIRED_METRIC_MESSAGE = (metric: string, version: number) =>
  `Starting from version ${version} and above, the ${metric} metric is no longer supported for the queried user. Please refer to the documentation for a list of supported metrics.`;

/** Validates the parameters of the insights edge, in the order the platform reports them, and works out the window. */
function readInsightsRequest(params: InsightsParams, now: Date): InsightsRequest {
  const metrics = [...new Set(listParameter(params.metric))];
  if (metrics.length === 0) throw socialErrors.missingParameter('metric');
  const period = params.period?.trim() ?? '';
  if (period === '') throw socialErrors.missingParameter('period');

  const definitions = metrics.map((name, index) => {
    const retiredIn = RETIRED_ACCOUNT_METRICS.get(name);
    if (retiredIn !== undefined) throw socialErrors.invalidParameter('metric', RETIRED_METRIC_MESSAGE(name, retiredIn));
    const definition = findAccountMetric(name);
    // The platform's own wording, which lists every metric it knows.
    if (!definition) throw socialErrors.invalidParameter('metric', enumMessage(`metric[${index}]`, ACCOUNT_METRICS.map((metric) => metric.name)));
    return definition;
  });
  if (!(INSIGHT_PERIODS as readonly string[]).includes(period)) throw socialErrors.invalidParameter('period', enumMessage('period', INSIGHT_PERIODS));
  const metricType = (params.metricType?.trim() || 'time_series') as MetricType;
  if (!METRIC_TYPES.includes(metricType)) throw socialErrors.invalidParameter('metric_type', enumMessage('metric_type', METRIC_TYPES));

  const wrongPeriod = definitions.filter((definition) => !definition.periods.includes(period as InsightPeriod));
  if (wrongPeriod.length > 0) {
    throw socialErrors.invalidParameter('period', `(#100) The following metrics (${names(wrongPeriod)}) do not support period=${period}`);
  }
  const wrongType = definitions.filter((definition) => !definition.metricTypes.includes(metricType));
  if (wrongType.length > 0) {
    // The platform's wording for a metric asked for without the metric_type it needs.
    const other = metricType === 'time_series' ? 'total_value' : 'time_series';
    throw socialErrors.invalidParameter('metric_type', `(#100) The following metrics (${names(wrongType)}) should be specified with parameter metric_type=${other}`);
  }

  const breakdowns = [...new Set(listParameter(params.breakdown))];
  breakdowns.forEach((dimension, index) => {
    if (!(BREAKDOWN_DIMENSIONS as readonly string[]).includes(dimension)) {
      throw socialErrors.invalidParameter('breakdown', enumMessage(`breakdown[${index}]`, BREAKDOWN_DIMENSIONS));
    }
  });
  if (breakdowns.length > 1) throw socialErrors.invalidParameter('breakdown', 'Only one breakdown can be requested at a time.');
  const breakdown = breakdowns[0] as BreakdownDimension | undefined;
  if (breakdown !== undefined) {
    // Breakdowns split a total; a time series has none to split.
    if (metricType !== 'total_value') throw socialErrors.invalidParameter('breakdown', '(#100) breakdown is only supported with metric_type=total_value');
    const unsupported = definitions.filter((definition) => !definition.breakdowns.includes(breakdown));
    if (unsupported.length > 0) {
      throw socialErrors.invalidParameter('breakdown', `(#100) The following metrics (${names(unsupported)}) do not support breakdown=${breakdown}`);
    }
  }

  const nowSeconds = toUnixSeconds(now);
  if (definitions.some((definition) => definition.demographic)) {
    // Demographics are described over a timeframe ending now; since/until do not apply to them.
    if (breakdown === undefined) throw socialErrors.missingParameter('breakdown');
    const timeframe = params.timeframe?.trim() ?? '';
    if (timeframe === '') throw socialErrors.missingParameter('timeframe');
    if (!(DEMOGRAPHIC_TIMEFRAMES as readonly string[]).includes(timeframe)) {
      throw socialErrors.invalidParameter('timeframe', enumMessage('timeframe', DEMOGRAPHIC_TIMEFRAMES));
    }
    const days = TIMEFRAME_DAYS[timeframe as DemographicTimeframe];
    return {
      definitions,
      period: period as InsightPeriod,
      metricType,
      breakdown,
      window: { since: nowSeconds - days * DAY_SECONDS, until: nowSeconds, hasPrevious: false, hasNext: false },
    };
  }

  const time = (name: 'since' | 'until', value: string | number | null | undefined): number | undefined => {
    if (value == null || value === '') return undefined;
    const at = parseTimeParameter(value, now);
    if (at === undefined) throw socialErrors.invalidParameter(name, `(#100) The parameter ${name} must be a unix timestamp or a strtotime-style time`);
    return toUnixSeconds(at);
  };
  // Without since, the platform shows the last two days as a series (two values) and the last day as a total.
  const defaultSpan = (metricType === 'time_series' ? 2 : 1) * DAY_SECONDS;
  const givenSince = time('since', params.since);
  const until = time('until', params.until) ?? nowSeconds;
  const since = givenSince ?? until - defaultSpan;
  if (since >= until) throw socialErrors.invalidParameter('since', '(#100) The parameter since must be earlier than until');
  if (until - since > INSIGHTS_MAX_RANGE_SECONDS) {
    throw socialErrors.invalidParameter('since', `(#100) There cannot be more than 30 days (${INSIGHTS_MAX_RANGE_SECONDS} s) between since and until`);
  }
  const oldest = nowSeconds - INSIGHTS_RETENTION_SECONDS;
  if (since < oldest) throw socialErrors.invalidParameter('since', '(#100) since param is not valid. Metrics data is available for the last 2 years.');
  return {
    definitions,
    period: period as InsightPeriod,
    metricType,
    breakdown,
    window: { since, until, hasPrevious: since - (until - since) >= oldest, hasNext: until < nowSeconds },
  };
}

/** The day ends (UTC midnights, unix seconds) in (since, until]. */
function dayEnds(since: number, until: number): number[] {
  const ends: number[] = [];
  for (let end = Math.floor(since / DAY_SECONDS) * DAY_SECONDS + DAY_SECONDS; end <= until; end += DAY_SECONDS) ends.push(end);
  return ends;
}

function timeSeries(definition: InsightMetricDefinition, rows: InsightRow[], period: InsightPeriod, window: InsightsWindow): InsightValue[] {
  const byEnd = new Map(rows.map((row) => [toUnixSeconds(row.end_time), row]));
  const span = definition.aggregation === 'sum' ? PERIOD_DAYS[period] : 1;
  const values: InsightValue[] = [];
  for (const end of dayEnds(window.since, window.until)) {
    const row = byEnd.get(end);
    // A day without data has no value (the platform returns no entry rather than 0).
    if (!row) continue;
    let value: number | Record<string, number>;
    if (definition.hourly) value = hourly(row.breakdown);
    else {
      value = 0;
      for (let day = 0; day < span; day += 1) value += byEnd.get(end - day * DAY_SECONDS)?.value ?? 0;
    }
    values.push({ value, endTime: new Date(end * SECOND) });
  }
  return values;
}

function totalValue(
  definition: InsightMetricDefinition,
  rows: InsightRow[],
  window: InsightsWindow,
  breakdown: BreakdownDimension | undefined,
): InsightTotalValue {
  const inWindow = rows.filter((row) => {
    const end = toUnixSeconds(row.end_time);
    return end > window.since && end <= window.until;
  });
  const used = definition.aggregation === 'latest' ? inWindow.slice(-1) : inWindow;
  const value = used.reduce((sum, row) => sum + row.value, 0);
  if (breakdown === undefined) return { value };
  const counts = new Map<string, number>();
  for (const row of used) {
    for (const [key, count] of Object.entries(row.breakdown?.[breakdown] ?? {})) counts.set(key, (counts.get(key) ?? 0) + count);
  }
  const results = [...counts]
    .sort(([keyA, a], [keyB, b]) => b - a || (keyA < keyB ? -1 : keyA > keyB ? 1 : 0))
    .slice(0, INSIGHTS_MAX_BREAKDOWN_RESULTS)
    .map(([key, count]) => ({ dimensionValues: [key], value: count }));
  return { value, breakdowns: [{ dimensionKeys: [breakdown], results }] };
}

function hourly(breakdown: StoredBreakdown | null): Record<string, number> {
  const hours: Record<string, number> = {};
  for (let hour = 0; hour < 24; hour += 1) hours[String(hour)] = breakdown?.hour?.[String(hour)] ?? 0;
  return hours;
}

// ---------------------------------------------------------------------------------------------------------------------
// Demo data (deterministic: the same account and clock give the same rows)

const DEMO_EVENTS: { title: string; inDays: number; hours?: number; subtypes: NotificationSubtype[]; target: NotificationTargetTime | null }[] = [
  { title: 'Spring collection live launch', inDays: 2, hours: 1, subtypes: ['BEFORE_EVENT_1DAY', 'EVENT_START'], target: 'EVENT_START' },
  { title: 'Behind the scenes Q&A', inDays: 5, hours: 1.5, subtypes: ['BEFORE_EVENT_15MIN', 'AFTER_EVENT_1DAY'], target: 'EVENT_END' },
  { title: 'Studio open day', inDays: 12, subtypes: ['BEFORE_EVENT_2DAY'], target: null },
];
const DEMO_HASHTAGS = ['coffee', 'latteart', 'specialtycoffee', 'baristalife', 'pourover'];
const DEMO_AGENCIES = [
  { name: 'Northwind Creative Agency', currency: 'USD', timezone: 'America/Los_Angeles' },
  { name: 'Blue Harbor Media', currency: 'EUR', timezone: 'Europe/Amsterdam' },
];
/** A typical daily count per metric, around which demo values vary. */
const DEMO_BASE: Readonly<Record<string, number>> = {
  reach: 1200,
  follower_count: 25,
  website_clicks: 18,
  profile_views: 140,
  online_followers: 420,
  accounts_engaged: 210,
  total_interactions: 420,
  likes: 300,
  comments: 40,
  shares: 30,
  saves: 45,
  replies: 12,
  engaged_audience_demographics: 200,
  follower_demographics: 5000,
  follows_and_unfollows: 30,
  profile_links_taps: 9,
  views: 3500,
  reposts: 6,
};

function demoInsightRows(accountId: string, now: Date, days: number) {
  const lastEnd = Math.floor(toUnixSeconds(now) / DAY_SECONDS) * DAY_SECONDS;
  const rows: { account_id: string; metric: string; end_time: Date; value: number; breakdown: StoredBreakdown | null }[] = [];
  for (const definition of ACCOUNT_METRICS) {
    for (let day = 0; day < days; day += 1) {
      const end = lastEnd - day * DAY_SECONDS;
      const random = seededRandom(`${accountId}/${definition.name}/${end}`);
      const base = DEMO_BASE[definition.name] ?? 100;
      let value = Math.round(base * (0.6 + 0.8 * random()));
      let breakdown: StoredBreakdown | null = null;
      if (definition.hourly) {
        // Followers are online mostly in the (UTC) afternoon and evening.
        const hours: Record<string, number> = {};
        for (let hour = 0; hour < 24; hour += 1) {
          const curve = 0.25 + 0.75 * ((1 + Math.sin(((hour - 11) / 24) * 2 * Math.PI)) / 2);
          hours[String(hour)] = Math.round(base * curve * (0.9 + 0.2 * random()));
        }
        value = Math.max(...Object.values(hours));
        breakdown = { hour: hours };
      } else if (definition.breakdowns.length > 0) {
        breakdown = {};
        for (const dimension of definition.breakdowns) breakdown[dimension] = split(value, BREAKDOWN_VALUES[dimension], random);
      }
      rows.push({ account_id: accountId, metric: definition.name, end_time: new Date(end * SECOND), value, breakdown });
    }
  }
  return rows;
}

/** Splits `total` over `keys` with random weights; the parts add up to `total` exactly. */
function split(total: number, keys: readonly string[], random: () => number): Record<string, number> {
  const weights = keys.map(() => 0.2 + random());
  const sum = weights.reduce((a, b) => a + b, 0);
  const parts = weights.map((weight) => Math.floor((total * weight) / sum));
  parts[0]! += total - parts.reduce((a, b) => a + b, 0);
  return Object.fromEntries(keys.map((key, index) => [key, parts[index]!]));
}

/** mulberry32 seeded with FNV-1a of the text: small, fast, and the same on every machine. */
function seededRandom(text: string): () => number {
  let seed = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) seed = Math.imul(seed ^ text.charCodeAt(index), 0x01000193) >>> 0;
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Small helpers

async function inTransaction<T>(db: SocialDb, work: (trx: Transaction<SocialTables>) => Promise<T>): Promise<T> {
  // A caller that already holds a transaction gets its work done inside it (kysely has no nested transactions).
  if (db.isTransaction) return work(db as Transaction<SocialTables>);
  return (db as Kysely<SocialTables>).transaction().execute(work);
}

function isPositionPart(value: CursorValue | undefined, kind: 'seconds' | 'id'): boolean {
  return kind === 'seconds'
    ? typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
    : typeof value === 'string' && /^[1-9]\d{0,18}$/.test(value);
}

/** The Graph's wording for a value outside an enum: `(#100) <param> must be one of the following values: a, b, c`. */
function enumMessage(parameter: string, values: readonly string[]): string {
  return `(#100) ${parameter} must be one of the following values: ${values.join(', ')}`;
}

function names(definitions: readonly InsightMetricDefinition[]): string {
  return definitions.map((definition) => definition.name).join(', ');
}

/** A comma list (text) or a list, trimmed, without empty entries. */
function listParameter(value: string | readonly string[] | null | undefined): string[] {
  if (value == null) return [];
  const items = typeof value === 'string' ? value.split(',') : value;
  return items.map((item) => item.trim()).filter((item) => item !== '');
}

/** A unix timestamp (number or digits) or a strtotime-style text, as Graph `since` / `until` take them. */
function parseTimeParameter(value: string | number, now: Date): Date | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? new Date(Math.floor(value) * SECOND) : undefined;
  return parseGraphTime(value, now);
}

/** An event time: ISO 8601 or unix seconds (the reference asks for ISO; unix is the Graph's usual alternative). */
function parseEventTime(name: string, value: string | number | null | undefined, now: Date): Date | undefined {
  if (value == null || value === '') return undefined;
  const text = typeof value === 'number' ? String(value) : value.trim();
  const at = UNIX_DIGITS.test(text) || ISO_8601.test(text) ? parseGraphTime(text, now) : undefined;
  if (!at) throw socialErrors.invalidParameter(name, `${name} must be an ISO 8601 time or a unix timestamp.`);
  // Whole seconds: the column keeps seconds, and cursors name them exactly.
  return new Date(Math.floor(at.getTime() / SECOND) * SECOND);
}

function normaliseHashtag(text: string): string {
  return text.trim().replace(/^#/, '').toLowerCase();
}

function toUpcomingEvent(row: UpcomingEventRow): UpcomingEvent {
  return {
    id: row.id,
    accountId: row.account_id,
    title: row.title,
    startTime: row.start_time,
    endTime: row.end_time,
    notificationSubtypes: row.notification_subtypes as NotificationSubtype[],
    notificationTargetTime: row.notification_target_time,
    createdAt: row.created_at,
  };
}

function toAdAccount(row: AuthorizedAdAccountRow): AdAccount {
  return {
    id: `act_${row.id}`,
    accountId: row.id,
    name: row.name,
    businessId: row.business_id,
    currency: row.currency,
    timezoneName: row.timezone_name,
    accountStatus: row.account_status,
    authorizedAt: row.authorized_at,
  };
}

function toContainer(row: ContainerRow, now: Date): MediaContainer {
  return {
    id: row.id,
    accountId: row.account_id,
    mediaType: row.media_type,
    imageUrl: row.image_url,
    videoUrl: row.video_url,
    uploadMediaId: row.upload_media_id,
    caption: row.caption,
    isCarouselItem: row.is_carousel_item,
    children: row.children,
    userTags: row.user_tags,
    collaborators: row.collaborators,
    locationId: row.location_id,
    altText: row.alt_text,
    shareToFeed: row.share_to_feed,
    coverUrl: row.cover_url,
    thumbOffset: row.thumb_offset,
    audioName: row.audio_name,
    statusCode: containerStatus(row, now),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    publishedMediaId: row.published_media_id,
    publishedAt: row.published_at,
  };
}
