import { SOCIAL_OPERATIONS, type SocialOperation } from '../../contracts/social-graph.ts';
import {
  ACCOUNT_NODE,
  AD_ACCOUNT_NODE,
  BUSINESS_NODE,
  COMMENT_NODE,
  CONTAINER_NODE,
  HASHTAG_NODE,
  MEDIA_NODE,
  PAGE_NODE,
  PLATFORM_USER_NODE,
  UPCOMING_EVENT_NODE,
} from '../social-graph/social-node-types.ts';
import { pageName } from './graph-schemas.ts';

/**
 * The Graph-style paths of Areas B and C in OpenAPI 3: written once per node and edge, then spelled out in every form the
 * router answers — with the version segment (`/v25.0/<id>/replies`) and without it (`/<id>/replies`), and for the
 * account's edges also through `/me` (the own-login host's token's account). Each operation carries `x-graph-nodes` (the
 * kinds of node its first segment may name), which the document-vs-routes test compares with the router's table.
 *
 * OpenAPI cannot tell `/{comment-id}` from `/{account-id}` (templates of the same shape are one path), so the reads,
 * hides and deletes of a node share `/{api-version}/{node-id}`; the node's kind comes from its id.
 */

type Schema = Record<string, unknown>;
type Operation = Record<string, unknown>;

/** The social graph's two hosts (README "Two hosts"). */
export type GraphHost = 'own' | 'parent';
/** What the first path segment after the version names. */
export type GraphNodeKind = 'comment' | 'media' | 'account' | 'container' | 'me';

interface GraphOperationDoc {
  method: 'get' | 'post' | 'delete';
  /** Unique within the area; the document adds `_versionless` / `me_` forms. */
  operationId: string;
  summary: string;
  description?: string;
  tag: 'comments' | 'accounts';
  /** The service operation whose permissions apply (the matrix of subgraphs/shared/social-graph/social-access.ts). */
  permissions?: SocialOperation;
  /** Query parameters of a read. */
  query?: readonly Schema[];
  /** Parameters of a write: in the query string, a form-urlencoded body or a JSON body. */
  form?: { properties: Record<string, Schema>; required?: readonly string[] };
  /** The 200 reply. */
  reply: Schema;
  /** Hosts where the operation is available; absent: both. */
  hosts?: readonly GraphHost[];
  /** The node kinds the operation takes, when fewer than its path's (only comments are hidden or deleted). */
  nodeKinds?: readonly GraphNodeKind[];
}

interface GraphPathDoc {
  /** The node segment: a path parameter and the node kinds it takes, or the literal `me`. */
  node: { parameter: string; description: string; kinds: readonly Exclude<GraphNodeKind, 'me'>[] } | 'me';
  edge?: string;
  operations: readonly GraphOperationDoc[];
}

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const text = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
const query = (name: string, schema: Schema, description: string, required = false): Schema => ({
  name,
  in: 'query',
  required,
  description,
  schema,
});

const FIELDS = query(
  'fields',
  { type: 'string' },
  'Comma-separated fields and edges, with field expansion (`id,text,replies.limit(2){text}`; modifiers `.limit() .after() ' +
    '.before() .since() .until() .as()`, nesting to 16 levels). Absent: the default fields.',
);
const PAGING = [
  query('limit', { type: 'integer', minimum: 1 }, 'Items per page (default 25).'),
  query('after', { type: 'string' }, 'Cursor: the page after this one (`paging.cursors.after`).'),
  query('before', { type: 'string' }, 'Cursor: the page before this one (`paging.cursors.before`).'),
];
const TIME_WINDOW = [
  query('since', { type: 'string' }, 'Only items from this time on (unix seconds or a date).'),
  query('until', { type: 'string' }, 'Only items up to this time (unix seconds or a date).'),
];

const SUCCESS: Schema = ref('GraphSuccess');
const ID: Schema = ref('GraphId');

/** "Permissions: …" from the matrix, per host. */
function permissionsNote(operation: SocialOperation): string {
  const rule = SOCIAL_OPERATIONS[operation];
  const list = (groups: readonly (readonly string[])[] | null) =>
    groups === null ? 'not available' : groups.map((group) => group.join(' or ')).join(', ');
  return `Permissions — own-login host: ${list(rule.own)}; parent-platform host: ${list(rule.parent)}.`;
}

const PARENT_ONLY: readonly GraphHost[] = ['parent'];

/** The account's edges, documented once and used for `/{account-id}/…` and `/me/…`. */
const ACCOUNT_EDGES: readonly { edge: string; operations: readonly GraphOperationDoc[] }[] = [
  {
    edge: 'media',
    operations: [
      {
        method: 'get',
        operationId: 'getAccountMedia',
        summary: "Lists the account's media, newest first.",
        description: 'Stories and carousel children excluded; at most the 10,000 most recent are reachable.',
        tag: 'accounts',
        permissions: 'readMedia',
        query: [FIELDS, ...PAGING, ...TIME_WINDOW],
        reply: ref(pageName(MEDIA_NODE)),
      },
      {
        method: 'post',
        operationId: 'createMediaContainer',
        summary: 'Creates a publishing container (publish it with media_publish).',
        description: 'One of `image_url`, `video_url` or `upload_media_id` (an Area D media_id or media_key), or `children` for a carousel.',
        tag: 'accounts',
        permissions: 'publish',
        form: {
          properties: {
            image_url: text('Address of a JPEG image.'),
            video_url: text('Address of a video (REELS, STORIES).'),
            upload_media_id: text('A media_id or media_key from POST /1.1/media/upload.json, instead of image_url.'),
            media_type: text('CAROUSEL, REELS or STORIES; omitted for a single image or video.'),
            caption: text('The caption.'),
            is_carousel_item: { type: 'boolean', description: 'True for an item of a carousel.' },
            children: text('Container ids of a carousel: a JSON array or a comma-separated list.'),
            user_tags: text('Accounts to tag, JSON: `[{"username":"…","x":0.5,"y":0.5}]`.'),
            collaborators: text('Usernames: a JSON array or a comma-separated list.'),
            location_id: text('A location (page) id.'),
            cover_url: text('Cover image of a reel.'),
            thumb_offset: { type: 'number', description: 'Milliseconds into the video.' },
            share_to_feed: { type: 'boolean', description: 'Reels: also show in the feed.' },
            audio_name: text('Reels: the name of the audio.'),
            alt_text: text('Descriptive text of the image, for accessibility.'),
          },
        },
        reply: ID,
      },
    ],
  },
  {
    edge: 'media_publish',
    operations: [
      {
        method: 'post',
        operationId: 'publishMediaContainer',
        summary: 'Publishes a container; answers the new media id.',
        description: 'At most SOCIAL_PUBLISHING_QUOTA posts per rolling 24 hours (default 100).',
        tag: 'accounts',
        permissions: 'publish',
        form: { properties: { creation_id: text('The container id.') }, required: ['creation_id'] },
        reply: ID,
      },
    ],
  },
  {
    edge: 'insights',
    operations: [
      {
        method: 'get',
        operationId: 'getAccountInsights',
        summary: 'Interaction metrics of the account over a time window.',
        description: 'Paging moves the time window (`paging.previous` / `paging.next`).',
        tag: 'accounts',
        permissions: 'readInsights',
        query: [
          query('metric', { type: 'string' }, 'Comma-separated metric names (reach, follower_count, …).', true),
          query('period', { type: 'string' }, 'day, week, days_28 or lifetime.'),
          query('metric_type', { type: 'string' }, 'time_series or total_value.'),
          query('breakdown', { type: 'string' }, 'Comma-separated breakdowns (with metric_type=total_value).'),
          query('timeframe', { type: 'string' }, 'Demographic metrics: the time frame.'),
          ...TIME_WINDOW,
        ],
        reply: ref('GraphInsightsPage'),
      },
    ],
  },
  {
    edge: 'content_publishing_limit',
    operations: [
      {
        method: 'get',
        operationId: 'getContentPublishingLimit',
        summary: "The account's use of its publishing quota over the last 24 hours.",
        tag: 'accounts',
        permissions: 'readPublishingLimit',
        query: [
          query('fields', { type: 'string' }, 'quota_usage (default) and/or config.'),
          query('since', { type: 'string' }, 'Count from this time (unix seconds).'),
        ],
        reply: ref('GraphPublishingLimit'),
      },
    ],
  },
  {
    edge: 'recently_searched_hashtags',
    operations: [
      {
        method: 'get',
        operationId: 'getRecentlySearchedHashtags',
        summary: 'Hashtags the account searched for within the last 7 days, most recent first.',
        tag: 'accounts',
        permissions: 'readRecentHashtags',
        hosts: PARENT_ONLY,
        query: [FIELDS, query('limit', { type: 'integer', minimum: 1, maximum: 30 }, 'At most 30 (default 25); no paging.')],
        reply: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: ref(HASHTAG_NODE.name) } } },
      },
    ],
  },
  {
    edge: 'upcoming_events',
    operations: [
      {
        method: 'get',
        operationId: 'getUpcomingEvents',
        summary: 'Events the account hosts.',
        tag: 'accounts',
        permissions: 'upcomingEvents',
        hosts: PARENT_ONLY,
        query: [FIELDS, ...PAGING],
        reply: ref(pageName(UPCOMING_EVENT_NODE)),
      },
      {
        method: 'post',
        operationId: 'createUpcomingEvent',
        summary: 'Creates an event the account hosts.',
        tag: 'accounts',
        permissions: 'upcomingEvents',
        hosts: PARENT_ONLY,
        form: {
          properties: {
            title: text('The title.'),
            start_time: text('ISO 8601 or unix seconds.'),
            end_time: text('ISO 8601 or unix seconds.'),
            notification_subtypes: text('A JSON array or a comma-separated list.'),
            notification_target_time: text('When to notify.'),
          },
          required: ['title', 'start_time'],
        },
        reply: ID,
      },
    ],
  },
  {
    edge: 'agencies',
    operations: [
      {
        method: 'get',
        operationId: 'getAgencies',
        summary: 'Businesses that can advertise for the account.',
        tag: 'accounts',
        permissions: 'readAgencies',
        hosts: PARENT_ONLY,
        query: [FIELDS, ...PAGING],
        reply: ref(pageName(BUSINESS_NODE)),
      },
    ],
  },
  {
    edge: 'authorized_adaccounts',
    operations: [
      {
        method: 'get',
        operationId: 'getAuthorizedAdAccounts',
        summary: 'Ad accounts that can advertise for the account, optionally of one business.',
        tag: 'accounts',
        permissions: 'adAccounts',
        hosts: PARENT_ONLY,
        query: [FIELDS, query('business', { type: 'string' }, 'Only ad accounts of this business.'), ...PAGING],
        reply: ref(pageName(AD_ACCOUNT_NODE)),
      },
      {
        method: 'post',
        operationId: 'authorizeAdAccount',
        summary: 'Authorises an ad account of a business to advertise for the account.',
        tag: 'accounts',
        permissions: 'adAccounts',
        hosts: PARENT_ONLY,
        form: { properties: { account_id: text('The ad account id.'), business: text('The business id.') }, required: ['account_id', 'business'] },
        reply: SUCCESS,
      },
    ],
  },
  {
    edge: 'stories',
    operations: [
      {
        method: 'get',
        operationId: 'getStories',
        summary: 'Stories of the last 24 hours.',
        tag: 'accounts',
        permissions: 'readStories',
        query: [FIELDS, ...PAGING],
        reply: ref(pageName(MEDIA_NODE)),
      },
    ],
  },
  {
    edge: 'live_media',
    operations: [
      {
        method: 'get',
        operationId: 'getLiveMedia',
        summary: 'Media currently broadcasting live.',
        tag: 'accounts',
        permissions: 'readLiveMedia',
        query: [FIELDS, ...PAGING, ...TIME_WINDOW],
        reply: ref(pageName(MEDIA_NODE)),
      },
    ],
  },
  {
    edge: 'tags',
    operations: [
      {
        method: 'get',
        operationId: 'getTags',
        summary: 'Media in which other users tagged the account (paged by cursors only, no links).',
        tag: 'accounts',
        permissions: 'readTags',
        query: [FIELDS, ...PAGING],
        reply: ref(pageName(MEDIA_NODE)),
      },
    ],
  },
  {
    edge: 'mentions',
    operations: [
      {
        method: 'post',
        operationId: 'replyToMention',
        summary: 'Comments on a media or comment in which the account was @mentioned.',
        description: '`media_id` alone answers on the media (caption mention); with `comment_id`, on that comment.',
        tag: 'accounts',
        permissions: 'createMentionReply',
        form: {
          properties: { media_id: text('The media.'), comment_id: text('The comment that mentions the account.'), message: text('The text.') },
          required: ['media_id', 'message'],
        },
        reply: ID,
      },
    ],
  },
];

const NODE_ID = {
  parameter: 'node-id',
  description: 'A comment, media, account or container id.',
  kinds: ['comment', 'media', 'account', 'container'],
} as const;
const COMMENT_ID = { parameter: 'comment-id', description: 'A comment id.', kinds: ['comment'] } as const;
const MEDIA_ID = { parameter: 'media-id', description: 'A media id.', kinds: ['media'] } as const;
const ACCOUNT_ID = { parameter: 'account-id', description: 'A professional account id.', kinds: ['account'] } as const;

const GRAPH_PATHS: readonly GraphPathDoc[] = [
  {
    node: NODE_ID,
    operations: [
      {
        method: 'get',
        operationId: 'getNode',
        summary: 'Reads a comment, media, account or container.',
        description:
          'Default fields: a comment `id,text,timestamp`; media, accounts and containers `id`. `fields` asks for others, ' +
          'with field expansion — on the parent-platform host also `business_discovery.username(x){…}`, ' +
          '`mentioned_comment.comment_id(x){…}` and `mentioned_media.media_id(x){…}` on an account.',
        tag: 'accounts',
        query: [FIELDS],
        reply: { anyOf: [ref(COMMENT_NODE.name), ref(MEDIA_NODE.name), ref(ACCOUNT_NODE.name), ref(CONTAINER_NODE.name)] },
      },
      {
        method: 'post',
        operationId: 'hideComment',
        summary: 'Hides (hide=true) or shows (hide=false) a comment.',
        description:
          "Comments only, by the media owner (the owner's own comments stay shown; live-video comments cannot be hidden). " +
          'Creating or updating a comment at its own address, and any write to another kind of node, answer 100/33.',
        tag: 'comments',
        permissions: 'moderateComment',
        nodeKinds: ['comment'],
        query: [query('hide', { type: 'boolean' }, 'true hides the comment, false shows it (also accepted in the body).', true)],
        reply: SUCCESS,
      },
      {
        method: 'delete',
        operationId: 'deleteComment',
        summary: "Deletes a comment (and its replies), by its author or the media's owner.",
        description: 'Comments only; deleting another kind of node answers 100/33.',
        tag: 'comments',
        permissions: 'moderateComment',
        nodeKinds: ['comment'],
        reply: SUCCESS,
      },
    ],
  },
  {
    node: COMMENT_ID,
    edge: 'replies',
    operations: [
      {
        method: 'get',
        operationId: 'getCommentReplies',
        summary: 'Lists the replies to a comment, oldest first (at most 50 per page).',
        tag: 'comments',
        permissions: 'readReplies',
        query: [FIELDS, ...PAGING],
        reply: ref(pageName(COMMENT_NODE)),
      },
      {
        method: 'post',
        operationId: 'replyToComment',
        summary: 'Replies to a comment.',
        description: 'A reply to a reply attaches to the top-level comment; hidden and live-video comments take no replies.',
        tag: 'comments',
        permissions: 'replyToComment',
        form: { properties: { message: text('The text of the reply.') }, required: ['message'] },
        reply: ID,
      },
    ],
  },
  {
    node: MEDIA_ID,
    edge: 'comments',
    operations: [
      {
        method: 'get',
        operationId: 'getMediaComments',
        summary: 'Lists the top-level comments on a media, newest first (at most 50 per page).',
        tag: 'comments',
        permissions: 'readMediaComments',
        query: [FIELDS, ...PAGING],
        reply: ref(pageName(COMMENT_NODE)),
      },
      {
        method: 'post',
        operationId: 'createMediaComment',
        summary: 'Comments on a media.',
        tag: 'comments',
        permissions: 'replyToComment',
        form: { properties: { message: text('The text of the comment.') }, required: ['message'] },
        reply: ID,
      },
    ],
  },
  {
    node: MEDIA_ID,
    edge: 'children',
    operations: [
      {
        method: 'get',
        operationId: 'getMediaChildren',
        summary: 'Lists the items of a carousel album.',
        tag: 'accounts',
        permissions: 'readMedia',
        query: [FIELDS, ...PAGING],
        reply: ref(pageName(MEDIA_NODE)),
      },
    ],
  },
  ...ACCOUNT_EDGES.map((edge) => ({ node: ACCOUNT_ID, ...edge })),
  {
    node: 'me',
    operations: [
      {
        method: 'get',
        operationId: 'getMe',
        summary: "The token's own node: the professional account (own-login host) or the parent-platform user (parent host).",
        description:
          `On the own-login host a ${ACCOUNT_NODE.name} (default \`id\`); ` +
          `on the parent-platform host a ${PLATFORM_USER_NODE.name} (default \`id,name\`).`,
        tag: 'accounts',
        permissions: 'readAccount',
        query: [FIELDS],
        reply: { anyOf: [ref(ACCOUNT_NODE.name), ref(PLATFORM_USER_NODE.name)] },
      },
    ],
  },
  {
    node: 'me',
    edge: 'accounts',
    operations: [
      {
        method: 'get',
        operationId: 'getMyPages',
        summary: "The parent-platform user's pages, with their linked professional accounts (`social_business_account`).",
        tag: 'accounts',
        query: [FIELDS],
        reply: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: ref(PAGE_NODE.name) } } },
        hosts: PARENT_ONLY,
      },
    ],
  },
  // On the own-login host `me` is the token's account, so every account edge answers there too (writes act for it).
  ...ACCOUNT_EDGES.map((edge) => ({
    node: 'me' as const,
    edge: edge.edge,
    operations: edge.operations.map((operation) => ({
      ...operation,
      operationId: `me_${operation.operationId}`,
      hosts: ['own'] as const,
      description: [
        "`me` is the token's own account.",
        operation.hosts && !operation.hosts.includes('own')
          ? `This edge exists on the parent-platform host only, so here it answers (#100) "Tried accessing nonexisting field (${edge.edge})".`
          : '',
        operation.description ?? '',
      ]
        .filter(Boolean)
        .join(' '),
    })),
  })),
];

/** Components the paths refer to, besides the node schemas (graph-schemas.ts). */
export function graphComponentSchemas(): Record<string, Schema> {
  return {
    GraphSuccess: { type: 'object', required: ['success'], properties: { success: { type: 'boolean' } } },
    GraphId: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
    GraphInsightsPage: {
      type: 'object',
      required: ['data'],
      properties: {
        data: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              period: { type: 'string' },
              values: { type: 'array', items: { type: 'object', properties: { value: {}, end_time: { type: 'string' } } } },
              total_value: { type: 'object', properties: { value: { type: 'number' }, breakdowns: { type: 'array', items: { type: 'object' } } } },
              title: { type: 'string' },
              description: { type: 'string' },
              id: { type: 'string' },
            },
          },
        },
        paging: { type: 'object', properties: { previous: { type: 'string', format: 'uri' }, next: { type: 'string', format: 'uri' } } },
      },
    },
    GraphPublishingLimit: {
      type: 'object',
      required: ['data'],
      properties: {
        data: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              quota_usage: { type: 'integer' },
              config: { type: 'object', properties: { quota_total: { type: 'integer' }, quota_duration: { type: 'integer', description: 'Seconds.' } } },
            },
          },
        },
      },
    },
    GraphError: {
      type: 'object',
      description: "The Graph error envelope, with the reference's codes (README, Areas B and C, Errors).",
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['message', 'type', 'code', 'fbtrace_id'],
          properties: {
            message: { type: 'string' },
            type: { type: 'string', enum: ['OAuthException', 'GraphMethodException'] },
            code: {
              type: 'integer',
              description:
                '1/2 server errors; 4, 17, 32, 80002 rate limits; 10, 200 permissions; 100 invalid parameter (subcode 33: ' +
                'unknown object or unsupported operation); 104 no token; 190 invalid token (subcodes 463 expired, 467 ' +
                'revoked); 2500 unknown path or fields syntax.',
            },
            error_subcode: { type: 'integer' },
            is_transient: { type: 'boolean' },
            error_user_title: { type: 'string' },
            error_user_msg: { type: 'string' },
            fbtrace_id: { type: 'string', minLength: 11, maxLength: 11 },
          },
        },
      },
    },
  };
}

/** Reusable responses of the Graph paths. */
export function graphComponentResponses(): Record<string, Schema> {
  const headers = {
    'WWW-Authenticate': { description: 'OAuth "<platform> Platform" "invalid_token|invalid_request" "<message>"', schema: { type: 'string' } },
    'X-App-Usage': { description: 'Percentages of the application rate limit used (JSON).', schema: { type: 'string' } },
  };
  const envelope = { 'application/json': { schema: ref('GraphError') } };
  return {
    GraphClientError: {
      description: 'Every client error (tokens, permissions, parameters, rules, rate limits), as the platform most often answers.',
      headers,
      content: envelope,
    },
    GraphServerError: { description: 'Code 1 (unknown error) or 2 (unexpected error).', content: envelope },
    GraphUnavailable: { description: 'Code 2: a dependency (the database) is unavailable; retry later.', content: envelope },
  };
}

/** The security requirement of the Graph paths: the token as `access_token` or in the Authorization header. */
export const GRAPH_SECURITY = [{ GraphAccessToken: [] }, { GraphBearer: [] }];

/** One spelled-out Graph path: its OpenAPI template, the host it is served on (when only one) and its operations. */
export interface GraphPathEntry {
  path: string;
  /** The host(s) where every operation of the path works, when not both. */
  hosts: readonly GraphHost[] | undefined;
  operations: Record<string, Operation>;
}

/** Every Graph path, with and without the version segment. */
export function buildGraphPaths(): GraphPathEntry[] {
  const entries: GraphPathEntry[] = [];
  for (const versioned of [true, false]) {
    for (const doc of GRAPH_PATHS) {
      const nodeSegment = doc.node === 'me' ? 'me' : `{${doc.node.parameter}}`;
      const path = `${versioned ? '/{api-version}' : ''}/${nodeSegment}${doc.edge ? `/${doc.edge}` : ''}`;
      const pathParameters: Schema[] = [];
      if (versioned) {
        pathParameters.push({
          name: 'api-version',
          in: 'path',
          required: true,
          description: 'The API version, v<major>.<minor>. Every version behaves the same; the segment may be left out.',
          schema: { type: 'string', pattern: '^v\\d+\\.\\d+$', example: 'v25.0' },
        });
      }
      if (doc.node !== 'me') {
        pathParameters.push({ name: doc.node.parameter, in: 'path', required: true, description: doc.node.description, schema: { type: 'string' } });
      }
      const operations: Record<string, Operation> = {};
      const hostSets = new Set<string>();
      for (const operation of doc.operations) {
        hostSets.add((operation.hosts ?? ['own', 'parent']).join(','));
        operations[operation.method] = graphOperation(operation, doc, pathParameters, versioned);
      }
      // Operations of one path may differ in host (GET on both, POST on one): the path names its host only when all agree.
      const [only] = hostSets;
      const hosts = hostSets.size === 1 && only !== 'own,parent' ? (only!.split(',') as GraphHost[]) : undefined;
      entries.push({ path, hosts, operations });
    }
  }
  return entries;
}

function graphOperation(operation: GraphOperationDoc, doc: GraphPathDoc, pathParameters: Schema[], versioned: boolean): Operation {
  const description = [
    operation.description,
    operation.hosts?.length === 1 ? `Served on the ${operation.hosts[0] === 'own' ? 'own-login' : 'parent-platform'} host.` : undefined,
    operation.form ? 'Parameters in the query string, a form-urlencoded body or a JSON body.' : undefined,
    operation.permissions ? permissionsNote(operation.permissions) : undefined,
  ]
    .filter(Boolean)
    .join(' ');
  const body = operation.form
    ? (() => {
        const schema = { type: 'object', properties: operation.form.properties, ...(operation.form.required && { required: [...operation.form.required] }) };
        return {
          requestBody: {
            required: Boolean(operation.form.required?.length),
            content: { 'application/x-www-form-urlencoded': { schema }, 'application/json': { schema } },
          },
        };
      })()
    : {};
  return {
    tags: [operation.tag],
    summary: operation.summary,
    ...(description && { description }),
    operationId: `${operation.operationId}${versioned ? '' : '_versionless'}`,
    parameters: [...pathParameters, ...(operation.query ?? [])],
    ...body,
    security: GRAPH_SECURITY,
    'x-graph-nodes': [...(operation.nodeKinds ?? (doc.node === 'me' ? ['me'] : doc.node.kinds))],
    responses: {
      200: { description: 'Success.', content: { 'application/json': { schema: operation.reply } } },
      400: { $ref: '#/components/responses/GraphClientError' },
      500: { $ref: '#/components/responses/GraphServerError' },
      503: { $ref: '#/components/responses/GraphUnavailable' },
    },
  };
}
