import type { LoginType } from '../lib/auth/social-auth/social-token.service.ts';

/**
 * The social graph's contract (Areas B and C), shared by its services (subgraphs/accounts, subgraphs/comments and their
 * kernel) and its transports (the Graph-style REST routes and their documents): the hosts, the methods, the error reasons
 * the services throw and the REST routes render, and the permission table of every operation, which the services
 * enforce and the API documents print.
 */

/** Two hosts, one per login type. */
export type SocialHost = LoginType;

/** The node type names the platform reports in `(#100) Tried accessing nonexisting field (x) on node type (T)`. */
export const NODE_TYPES = {
  account: 'SocialUser',
  media: 'SocialMedia',
  comment: 'SocialComment',
  platformUser: 'User',
  page: 'Page',
} as const;

/** A permission requirement: every group must be met; a group is met by any one of its permissions. */
export type Requirement = readonly (readonly string[])[];

export interface OperationRule {
  /** The Graph field or edge name, for "not on this host" errors. */
  field: string;
  /** Requirement on the own-login host; null: the operation does not exist there. */
  own: Requirement | null;
  /** Requirement on the parent-platform host. */
  parent: Requirement;
  /** Parent host: a business-manager page role also needs ads_management or ads_read. */
  businessManager: boolean;
  /** Parent host: page tasks of which the user's role must hold one. */
  tasks?: readonly string[];
}

const OWN_BASIC = ['social_business_basic'];
const OWN_COMMENTS = ['social_business_manage_comments'];
const BASIC = ['social_basic'];
const READ_ENGAGEMENT = ['pages_read_engagement'];
const READ_OR_SHOW = ['pages_read_engagement', 'pages_show_list'];
const SHOW_LIST = ['pages_show_list'];
const MANAGE_COMMENTS = ['social_manage_comments'];
const ADS = ['ads_management', 'business_management'];

/** The operations of Areas B and C and their requirements, as §1.6, §1.8, §2.2 and §4 of the reference give them. */
export const SOCIAL_OPERATIONS = {
  readAccount: { field: 'id', own: [OWN_BASIC], parent: [BASIC, READ_ENGAGEMENT], businessManager: true },
  readMedia: { field: 'media', own: [OWN_BASIC], parent: [BASIC, READ_OR_SHOW], businessManager: true },
  readStories: {
    field: 'stories',
    own: [OWN_BASIC],
    parent: [BASIC, ['social_manage_insights'], READ_ENGAGEMENT, SHOW_LIST],
    businessManager: false,
  },
  readTags: { field: 'tags', own: [OWN_BASIC], parent: [BASIC, MANAGE_COMMENTS, READ_OR_SHOW], businessManager: true },
  readLiveMedia: { field: 'live_media', own: [OWN_BASIC], parent: [BASIC, READ_ENGAGEMENT], businessManager: true },
  /** The media `comments` edge (and counts): basic reads; the commenter's username is gated separately. */
  readMediaComments: { field: 'comments', own: [OWN_BASIC], parent: [BASIC, READ_ENGAGEMENT], businessManager: true },
  /** The comment node and its replies edge (§1.8). */
  readComment: {
    field: 'id',
    own: [OWN_BASIC, OWN_COMMENTS],
    parent: [BASIC, MANAGE_COMMENTS, READ_ENGAGEMENT],
    businessManager: true,
  },
  /** Hide, show and delete (§1.8). */
  moderateComment: {
    field: 'hide',
    own: [OWN_BASIC, OWN_COMMENTS],
    parent: [BASIC, MANAGE_COMMENTS, READ_ENGAGEMENT],
    businessManager: true,
  },
  /** POST replies (§1.6 adds pages_show_list). */
  replyToComment: {
    field: 'replies',
    own: [OWN_BASIC, OWN_COMMENTS],
    parent: [BASIC, MANAGE_COMMENTS, SHOW_LIST, READ_ENGAGEMENT],
    businessManager: true,
  },
  /** A commenter's username, since 27 August 2024 (§1.7). */
  readCommenterUsername: { field: 'username', own: [OWN_COMMENTS], parent: [MANAGE_COMMENTS], businessManager: false },
  publish: {
    field: 'media_publish',
    own: [OWN_BASIC, ['social_business_content_publish']],
    parent: [BASIC, ['social_content_publish'], READ_OR_SHOW],
    businessManager: true,
    tasks: ['MANAGE', 'CREATE_CONTENT'],
  },
  readPublishingLimit: {
    field: 'content_publishing_limit',
    own: [OWN_BASIC, ['social_business_content_publish']],
    parent: [BASIC, ['social_content_publish'], READ_ENGAGEMENT],
    businessManager: true,
  },
  readInsights: {
    field: 'insights',
    own: [OWN_BASIC, ['social_business_manage_insights']],
    parent: [BASIC, ['social_manage_insights'], READ_OR_SHOW],
    businessManager: true,
  },
  createMentionReply: {
    field: 'mentions',
    own: [OWN_BASIC, OWN_COMMENTS],
    parent: [BASIC, MANAGE_COMMENTS, READ_ENGAGEMENT, SHOW_LIST],
    businessManager: true,
  },
  readMentionedComment: {
    field: 'mentioned_comment',
    own: null,
    parent: [BASIC, MANAGE_COMMENTS, READ_ENGAGEMENT, SHOW_LIST],
    businessManager: true,
    tasks: ['MANAGE', 'CREATE_CONTENT', 'MODERATE'],
  },
  readMentionedMedia: {
    field: 'mentioned_media',
    own: null,
    parent: [BASIC, MANAGE_COMMENTS, READ_ENGAGEMENT, SHOW_LIST],
    businessManager: true,
    tasks: ['MANAGE', 'CREATE_CONTENT', 'MODERATE'],
  },
  /** GET replies (§1.6: the edge lists pages_show_list besides the node's permissions). */
  readReplies: {
    field: 'replies',
    own: [OWN_BASIC, OWN_COMMENTS],
    parent: [BASIC, MANAGE_COMMENTS, SHOW_LIST, READ_ENGAGEMENT],
    businessManager: true,
  },
  businessDiscovery: {
    field: 'business_discovery',
    own: null,
    parent: [BASIC, ['social_manage_insights'], READ_OR_SHOW],
    businessManager: true,
  },
  readRecentHashtags: { field: 'recently_searched_hashtags', own: null, parent: [BASIC], businessManager: true },
  upcomingEvents: {
    field: 'upcoming_events',
    own: null,
    parent: [BASIC, ['social_manage_upcoming_events']],
    businessManager: false,
  },
  readAgencies: { field: 'agencies', own: null, parent: [ADS], businessManager: false },
  adAccounts: { field: 'authorized_adaccounts', own: null, parent: [ADS], businessManager: false },
  shoppingEligibility: {
    field: 'shopping_product_tag_eligibility',
    own: null,
    parent: [['catalog_management'], ['social_shopping_tag_products']],
    businessManager: false,
  },
  /**
   * `/me/subscribed_apps` (own-login host) and `/{page-id}/subscribed_apps` (parent host): an account subscribed to, or
   * read or removed from, the token's app's webhooks (§6.3, §6.6: the comments permissions; on the page, a role with
   * one of its tasks and pages_manage_metadata, pages_read_engagement and pages_show_list).
   */
  subscribeApps: {
    field: 'subscribed_apps',
    own: [OWN_BASIC, OWN_COMMENTS],
    parent: [BASIC, MANAGE_COMMENTS, ['pages_manage_metadata'], READ_ENGAGEMENT, SHOW_LIST],
    businessManager: false,
    tasks: ['MANAGE', 'CREATE_CONTENT', 'MODERATE'],
  },
} as const satisfies Record<string, OperationRule>;

/** The webhook object of the social graph (§6: Instagram's, renamed). */
export const WEBHOOK_OBJECT = 'social';

/** The webhook fields an app may subscribe to (§6.5). */
export const WEBHOOK_FIELDS = ['comments', 'live_comments', 'mentions'] as const;

export type WebhookField = (typeof WEBHOOK_FIELDS)[number];

export type SocialOperation = keyof typeof SOCIAL_OPERATIONS;

export const SOCIAL_ERROR_REASONS = [
  'NO_TOKEN',
  'TOKEN_UNPARSABLE',
  'TOKEN_EXPIRED',
  'TOKEN_REVOKED',
  'WRONG_HOST',
  'ME_WITHOUT_USER',
  'MISSING_PERMISSION',
  'NOT_ALLOWED',
  'UNKNOWN_OBJECT',
  'UNKNOWN_FIELD',
  'MISSING_PARAMETER',
  'INVALID_PARAMETER',
  'CURSOR_TOO_FAR',
  'RATE_LIMITED',
  'PUBLISHING_ERROR',
  'APP_TOKEN_REQUIRED',
  'CALLBACK_VERIFICATION_FAILED',
] as const;

export type SocialErrorReason = (typeof SOCIAL_ERROR_REASONS)[number];

export type SocialMethod = 'get' | 'post' | 'delete';

/** Which limit a RATE_LIMITED error hit (Graph codes 4, 17, 32, 613, 80002). */
export type RateLimitScope = 'app' | 'user' | 'page' | 'custom' | 'business';

/** The reason of a social error's details or GraphQL extensions, when it is one. */
export function socialReasonOf(details: Readonly<Record<string, unknown>> | undefined): SocialErrorReason | undefined {
  const reason = details?.reason;
  return typeof reason === 'string' && (SOCIAL_ERROR_REASONS as readonly string[]).includes(reason)
    ? (reason as SocialErrorReason)
    : undefined;
}
