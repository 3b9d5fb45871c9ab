/**
 * The Graph node types of Areas B and C as the REST paths show them, and how each Graph field maps onto the supergraph:
 * the table the operation builder walks to turn a `fields=` expansion into one GraphQL document, and the renderer walks to
 * turn the result back into Graph JSON. Adding a field to the Graph surface is one line here (and its GraphQL field in a
 * subgraph).
 */

/** A plain value; `timestamp` values are rewritten in the Graph format (`2017-05-19T23:27:28+0000`). */
export interface ScalarField {
  kind: 'scalar';
  graphql: string;
  format?: 'timestamp';
}

/** A small fixed object (`from {id, username}`, `user {id}`): not expandable, always its whole selection. */
export interface ObjectField {
  kind: 'object';
  graphql: string;
  selection: string;
}

/** A reference to another node (`media`, `owner`): `{id}` alone, or expanded with `{…}`. */
export interface NodeField {
  kind: 'node';
  graphql: string;
  type: () => NodeType;
}

/** A list edge (`replies`, `media`, `comments`): `{data, paging}`, with `.limit()`, `.after()`, `.before()`. */
export interface EdgeField {
  kind: 'edge';
  graphql: string;
  type: () => NodeType;
  /** Accepts `.since()` / `.until()` (and the `since` / `until` parameters). */
  timeWindow?: boolean;
  /** Paging carries cursors but no next/previous links (§3.2: tags). */
  cursorsOnly?: boolean;
  /** The largest page the edge serves, when below DEFAULT_PAGE_MAX (field-expansion-budget.ts counts with it). */
  maxLimit?: number;
  /** Further modifiers the edge takes, by name: the GraphQL argument and its type (`authorized_adaccounts.business(x)`). */
  arguments?: Readonly<Record<string, { argument: string; type: 'String' | 'ID' }>>;
}

/**
 * A field-expansion-only edge with a parameter (`business_discovery.username(x)`, `mentioned_comment.comment_id(x)`): the
 * parameter is a modifier whose name is `parameter`, passed to the GraphQL field as `argument`.
 */
export interface ParameterisedField {
  kind: 'parameterised';
  graphql: string;
  type: () => NodeType;
  parameter: string;
  argument: string;
  /** The GraphQL type of the argument (`String` or `ID`). */
  argumentType: 'String' | 'ID';
}

/** A short list that does not page (`/me/accounts`): `{data: […]}`. */
export interface ListField {
  kind: 'list';
  graphql: string;
  type: () => NodeType;
}

export type FieldSpec = ScalarField | ObjectField | NodeField | EdgeField | ParameterisedField | ListField;

export interface NodeType {
  /** The name errors report: `(#100) Tried accessing nonexisting field (x) on node type (SocialUser)`. */
  name: string;
  fields: Readonly<Record<string, FieldSpec>>;
  /** Fields a bare read returns (§1.2: comments `id,text,timestamp`; accounts and media `id`). */
  defaultFields: readonly string[];
}

const scalar = (graphql: string, format?: 'timestamp'): ScalarField => ({ kind: 'scalar', graphql, ...(format && { format }) });

export const COMMENT_NODE: NodeType = {
  name: 'SocialComment',
  defaultFields: ['id', 'text', 'timestamp'],
  fields: {
    id: scalar('id'),
    text: scalar('text'),
    timestamp: scalar('timestamp', 'timestamp'),
    from: { kind: 'object', graphql: 'from', selection: '{ id username }' },
    hidden: scalar('hidden'),
    like_count: scalar('likeCount'),
    media: { kind: 'node', graphql: 'media', type: () => MEDIA_NODE },
    parent_id: scalar('parentId'),
    replies: { kind: 'edge', graphql: 'replies', type: () => COMMENT_NODE, maxLimit: 50 },
    user: { kind: 'object', graphql: 'user', selection: '{ id }' },
    username: scalar('username'),
    legacy_social_comment_id: scalar('legacySocialCommentId'),
  },
};

export const MEDIA_NODE: NodeType = {
  name: 'SocialMedia',
  defaultFields: ['id'],
  fields: {
    id: scalar('id'),
    caption: scalar('caption'),
    media_type: scalar('mediaType'),
    media_product_type: scalar('mediaProductType'),
    media_url: scalar('mediaUrl'),
    permalink: scalar('permalink'),
    thumbnail_url: scalar('thumbnailUrl'),
    timestamp: scalar('timestamp', 'timestamp'),
    like_count: scalar('likeCount'),
    is_comment_enabled: scalar('isCommentEnabled'),
    owner: { kind: 'node', graphql: 'owner', type: () => ACCOUNT_NODE },
    username: scalar('username'),
    children: { kind: 'edge', graphql: 'children', type: () => MEDIA_NODE },
    comments: { kind: 'edge', graphql: 'comments', type: () => COMMENT_NODE, maxLimit: 50 },
    comments_count: scalar('commentsCount'),
  },
};

export const ACCOUNT_NODE: NodeType = {
  name: 'SocialUser',
  defaultFields: ['id'],
  fields: {
    id: scalar('id'),
    account_type: scalar('accountType'),
    user_id: scalar('userId'),
    username: scalar('username'),
    name: scalar('name'),
    biography: scalar('biography'),
    website: scalar('website'),
    profile_picture_url: scalar('profilePictureUrl'),
    has_profile_pic: scalar('hasProfilePic'),
    alt_text: scalar('altText'),
    followers_count: scalar('followersCount'),
    follows_count: scalar('followsCount'),
    media_count: scalar('mediaCount'),
    is_published: scalar('isPublished'),
    legacy_social_user_id: scalar('legacySocialUserId'),
    shopping_product_tag_eligibility: scalar('shoppingProductTagEligibility'),
    media: { kind: 'edge', graphql: 'media', type: () => MEDIA_NODE, timeWindow: true },
    stories: { kind: 'edge', graphql: 'stories', type: () => MEDIA_NODE },
    live_media: { kind: 'edge', graphql: 'liveMedia', type: () => MEDIA_NODE, timeWindow: true },
    tags: { kind: 'edge', graphql: 'tags', type: () => MEDIA_NODE, cursorsOnly: true },
    business_discovery: {
      kind: 'parameterised',
      graphql: 'businessDiscovery',
      type: () => ACCOUNT_NODE,
      parameter: 'username',
      argument: 'username',
      argumentType: 'String',
    },
    mentioned_comment: {
      kind: 'parameterised',
      graphql: 'mentionedComment',
      type: () => COMMENT_NODE,
      parameter: 'comment_id',
      argument: 'commentId',
      argumentType: 'ID',
    },
    mentioned_media: {
      kind: 'parameterised',
      graphql: 'mentionedMedia',
      type: () => MEDIA_NODE,
      parameter: 'media_id',
      argument: 'mediaId',
      argumentType: 'ID',
    },
    upcoming_events: { kind: 'edge', graphql: 'upcomingEvents', type: () => UPCOMING_EVENT_NODE },
    agencies: { kind: 'edge', graphql: 'agencies', type: () => BUSINESS_NODE },
    authorized_adaccounts: {
      kind: 'edge',
      graphql: 'authorizedAdAccounts',
      type: () => AD_ACCOUNT_NODE,
      arguments: { business: { argument: 'business', type: 'ID' } },
    },
  },
};

/** An event an account hosts; GET lists every field (reference §2.2). */
export const UPCOMING_EVENT_NODE: NodeType = {
  name: 'UpcomingEvent',
  defaultFields: ['id', 'title', 'start_time', 'end_time', 'notification_subtypes', 'notification_target_time'],
  fields: {
    id: scalar('id'),
    title: scalar('title'),
    start_time: scalar('startTime', 'timestamp'),
    end_time: scalar('endTime', 'timestamp'),
    notification_subtypes: scalar('notificationSubtypes'),
    notification_target_time: scalar('notificationTargetTime'),
  },
};

export const BUSINESS_NODE: NodeType = {
  name: 'Business',
  defaultFields: ['id', 'name'],
  fields: { id: scalar('id'), name: scalar('name') },
};

export const AD_ACCOUNT_NODE: NodeType = {
  name: 'AdAccount',
  defaultFields: ['id', 'account_id'],
  fields: {
    id: scalar('id'),
    account_id: scalar('accountId'),
    name: scalar('name'),
    currency: scalar('currency'),
    timezone_name: scalar('timezoneName'),
    account_status: scalar('accountStatus'),
  },
};

/** A publishing container (GET /<container_id>?fields=status_code). */
export const CONTAINER_NODE: NodeType = {
  name: 'SocialContainer',
  defaultFields: ['id'],
  fields: {
    id: scalar('id'),
    status_code: scalar('statusCode'),
    media_type: scalar('mediaType'),
    caption: scalar('caption'),
    published_media_id: scalar('publishedMediaId'),
    alt_text: scalar('altText'),
  },
};

export const HASHTAG_NODE: NodeType = {
  name: 'SocialHashtag',
  defaultFields: ['id'],
  fields: { id: scalar('id'), name: scalar('name') },
};

export const PAGE_NODE: NodeType = {
  name: 'Page',
  defaultFields: ['id', 'name'],
  fields: {
    id: scalar('id'),
    name: scalar('name'),
    tasks: scalar('tasks'),
    social_business_account: { kind: 'node', graphql: 'socialBusinessAccount', type: () => ACCOUNT_NODE },
  },
};

/** The parent-platform user (`/me` on the parent-platform host): `User` in the platform's errors. */
export const PLATFORM_USER_NODE: NodeType = {
  name: 'User',
  defaultFields: ['id', 'name'],
  fields: {
    id: scalar('id'),
    name: scalar('name'),
    accounts: { kind: 'list', graphql: 'accounts', type: () => PAGE_NODE },
  },
};

/**
 * An app (`/{app-id}/subscriptions` on the parent-platform host, §6.1): addressed only for its webhook subscriptions,
 * never read as a node here, so it has only its id.
 */
export const APP_NODE: NodeType = {
  name: 'Application',
  defaultFields: ['id'],
  fields: { id: scalar('id') },
};
