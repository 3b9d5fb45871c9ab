import type { ColumnType, Generated, Kysely, Transaction } from 'kysely';

/** Kysely's view of the social data store (schema `social`). 64-bit ids are decimal strings. */

export interface PlatformUserTable {
  id: Generated<string>;
  name: string;
  created_at: Generated<Date>;
}

export interface BusinessTable {
  id: Generated<string>;
  name: string;
}

export type AccountType = 'BUSINESS' | 'MEDIA_CREATOR' | 'PERSONAL';

export interface AccountTable {
  id: Generated<string>;
  account_type: AccountType;
  username: string;
  name: Generated<string>;
  biography: Generated<string>;
  website: Generated<string>;
  profile_picture_url: string | null;
  alt_text: string | null;
  followers_count: Generated<number>;
  follows_count: Generated<number>;
  is_published: Generated<boolean>;
  legacy_social_user_id: string | null;
  age_gated: Generated<boolean>;
  shop_business_id: string | null;
  shop_approved: Generated<boolean>;
  shop_catalog_product_count: Generated<number>;
  created_at: Generated<Date>;
}

export interface PageTable {
  id: Generated<string>;
  name: string;
  account_id: string | null;
  business_id: string | null;
}

export interface PageRoleTable {
  page_id: string;
  platform_user_id: string;
  tasks: Generated<string[]>;
  via_business_manager: Generated<boolean>;
}

export interface BusinessAdminTable {
  business_id: string;
  platform_user_id: string;
}

export type MediaType = 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM';
export type MediaProductType = 'FEED' | 'STORY' | 'REELS' | 'AD';

export interface MediaTable {
  id: Generated<string>;
  owner_id: string;
  caption: Generated<string>;
  media_type: MediaType;
  media_product_type: MediaProductType;
  media_url: string;
  permalink: string;
  thumbnail_url: string | null;
  timestamp: Generated<Date>;
  like_count: Generated<number>;
  comment_enabled: Generated<boolean>;
  is_live: Generated<boolean>;
  live_ended_at: Date | null;
  deleted_at: Date | null;
  /** The album a carousel child belongs to (2026-11-21-002); null for every other media. */
  carousel_parent_id: string | null;
}

export interface CommentTable {
  id: Generated<string>;
  media_id: string;
  author_id: string;
  parent_id: string | null;
  text: string;
  hidden: Generated<boolean>;
  like_count: Generated<number>;
  timestamp: Generated<Date>;
  legacy_social_comment_id: string | null;
  deleted_at: Date | null;
}

export interface MentionTable {
  account_id: string;
  media_id: string;
  comment_id: string | null;
  created_at: Generated<Date>;
}

export interface MediaTagTable {
  media_id: string;
  account_id: string;
  created_at: Generated<Date>;
}

// Account edges (migration 2026-11-21-002-account-edges).

export interface UpcomingEventTable {
  id: Generated<string>;
  account_id: string;
  title: string;
  start_time: Date;
  end_time: Date | null;
  notification_subtypes: Generated<string[]>;
  notification_target_time: 'EVENT_START' | 'EVENT_END' | null;
  created_at: Generated<Date>;
}

export interface HashtagTable {
  id: Generated<string>;
  name: string;
}

export interface HashtagSearchTable {
  account_id: string;
  hashtag_id: string;
  searched_at: Generated<Date>;
}

export interface AccountAgencyTable {
  account_id: string;
  business_id: string;
  created_at: Generated<Date>;
}

export interface AdAccountTable {
  id: Generated<string>;
  business_id: string;
  name: string;
  currency: Generated<string>;
  timezone_name: Generated<string>;
  account_status: Generated<number>;
  created_at: Generated<Date>;
}

export interface AccountAuthorizedAdAccountTable {
  account_id: string;
  ad_account_id: string;
  business_id: string;
  authorized_at: Generated<Date>;
}

export type ContainerMediaType = 'IMAGE' | 'VIDEO' | 'CAROUSEL' | 'REELS' | 'STORIES';
/** What is stored; EXPIRED is derived from expires_at when read. */
export type StoredContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'PUBLISHED' | 'ERROR';

/** A `user_tags` entry as stored: coordinates are absent for video tags. */
export interface StoredUserTag {
  username: string;
  x?: number;
  y?: number;
}

export interface MediaContainerTable {
  id: Generated<string>;
  account_id: string;
  media_type: ContainerMediaType;
  image_url: string | null;
  video_url: string | null;
  upload_media_id: string | null;
  caption: Generated<string>;
  is_carousel_item: Generated<boolean>;
  /** bigint[]; read it as text[] (repository) so that no id passes through a number. */
  children: Generated<string[]>;
  /** jsonb; written as JSON text. */
  user_tags: ColumnType<StoredUserTag[], string | undefined, string>;
  collaborators: Generated<string[]>;
  location_id: string | null;
  alt_text: string | null;
  share_to_feed: boolean | null;
  cover_url: string | null;
  thumb_offset: number | null;
  audio_name: string | null;
  status_code: StoredContainerStatus;
  created_at: Generated<Date>;
  ready_at: Date;
  expires_at: Date;
  published_media_id: string | null;
  published_at: Date | null;
}

/** {dimension: {dimension value: count}}, e.g. {"media_product_type": {"FEED": 12, "REELS": 30}}. */
export type StoredBreakdown = Record<string, Record<string, number>>;

export interface InsightValueTable {
  account_id: string;
  metric: string;
  end_time: Date;
  /** bigint: read back as a decimal string. */
  value: ColumnType<string, number | string, number | string>;
  /** jsonb; written as JSON text. */
  breakdown: ColumnType<StoredBreakdown | null, string | null, string | null>;
}

/** A rate-limit counter: calls admitted in one fixed window of one limit key, and the time they took. */
export interface RateCounterTable {
  key: string;
  window_start: Date;
  calls: ColumnType<number, number | undefined, number>;
  /** bigint: read back as a decimal string. */
  time_ms: ColumnType<string, number | undefined, number | string>;
}

/** One change in the event log (subgraphs/shared/event-log/): its position, the account it concerns, what happened, and the value. */
export interface EventTable {
  /** bigint identity: read back as a decimal string. */
  position: Generated<string>;
  created_at: Generated<Date>;
  /** The professional account of a social graph event; null for a change outside the social graph (2026-12-03-001). */
  account_id: string | null;
  kind: string;
  /** The webhook field of a social graph event; null (with account_id) for a change outside the social graph. */
  field: string | null;
  /** jsonb; written as JSON text. */
  value: ColumnType<Record<string, unknown>, string, string>;
  /** The entities the change touched, `<GraphQL type>:<id>` (2026-12-03-001). */
  keys: ColumnType<string[], string[] | undefined, string[]>;
}

/** How far the event log has been swept: one row (2026-11-28-001). */
export interface EventHorizonTable {
  id: Generated<boolean>;
  /** bigint: the highest position swept, as a decimal string. */
  swept_through: ColumnType<string, string | undefined, string>;
  /** The log's random name, given by its first follower (2026-12-03-002): what a shared cache keys entries under. */
  log_id: string | null;
}

/** An app's webhook subscription to an object (2026-11-27-002). */
export interface AppSubscriptionTable {
  app_id: string;
  object: string;
  callback_url: string;
  verify_token: string;
  include_values: Generated<boolean>;
  fields: ColumnType<string[], string[] | undefined, string[]>;
  active: Generated<boolean>;
  created_at: Generated<Date>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** An account subscribed to an app, with the fields it named (2026-11-27-002). */
export interface SubscribedAppTable {
  account_id: string;
  app_id: string;
  subscribed_fields: ColumnType<string[], string[] | undefined, string[]>;
  created_at: Generated<Date>;
}

/** How far an app subscription's callback has been served in the event log (2026-11-27-002). bigints as strings. */
export interface WebhookCursorTable {
  app_id: string;
  object: string;
  delivered_to: ColumnType<string, string, string>;
  pending_to: ColumnType<string | null, string | null | undefined, string | null>;
  attempts: Generated<number>;
  next_attempt_at: ColumnType<Date, Date | undefined, Date>;
  first_failed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  leased_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  delivered_total: ColumnType<string, string | undefined, string>;
  dropped_total: ColumnType<string, string | undefined, string>;
}

export type SocialTables = {
  'social.platform_user': PlatformUserTable;
  'social.business': BusinessTable;
  'social.account': AccountTable;
  'social.page': PageTable;
  'social.page_role': PageRoleTable;
  'social.business_admin': BusinessAdminTable;
  'social.media': MediaTable;
  'social.comment': CommentTable;
  'social.mention': MentionTable;
  'social.media_tag': MediaTagTable;
  'social.upcoming_event': UpcomingEventTable;
  'social.hashtag': HashtagTable;
  'social.hashtag_search': HashtagSearchTable;
  'social.account_agency': AccountAgencyTable;
  'social.ad_account': AdAccountTable;
  'social.account_authorized_ad_account': AccountAuthorizedAdAccountTable;
  'social.media_container': MediaContainerTable;
  'social.insight_value': InsightValueTable;
  'social.rate_counter': RateCounterTable;
  'social.event': EventTable;
  'social.event_horizon': EventHorizonTable;
  'social.app_subscription': AppSubscriptionTable;
  'social.subscribed_app': SubscribedAppTable;
  'social.webhook_cursor': WebhookCursorTable;
};

export type SocialDb = Kysely<SocialTables> | Transaction<SocialTables>;
