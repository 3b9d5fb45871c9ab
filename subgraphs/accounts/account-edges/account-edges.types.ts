import type { CursorCodec } from '../../../lib/social-graph/cursor.ts';
import type { MediaClaims } from '../../shared/media-store/media-claims.ts';
import type { Page, PageArgs, PageLimits } from '../../shared/social-graph/social-paging.ts';
import type { ContainerMediaType, SocialDb, StoredUserTag } from '../../shared/social-graph/social-tables.ts';
import type { InsightPeriod } from '../insights-catalogue.ts';

/** The account edges' domain types (reference §2.2): what the services return and take, and the service's own interface. */

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
