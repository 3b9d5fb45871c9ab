import {
  ACCOUNT_NODE,
  COMMENT_NODE,
  CONTAINER_NODE,
  MEDIA_NODE,
  PAGE_NODE,
  PLATFORM_USER_NODE,
} from '../social-graph/social-node-types.ts';
import { pageName } from './graph-schemas.ts';
import {
  FIELDS,
  type GraphHost,
  type GraphOperationDoc,
  type GraphPathDoc,
  ID,
  type Operation,
  PAGING,
  PARENT_ONLY,
  SUCCESS,
  type Schema,
  permissionsNote,
  query,
  ref,
  text,
} from './social-openapi-parts.ts';
import { ACCOUNT_EDGES } from './social-account-edges.openapi.ts';
import { WEBHOOK_PATHS, webhookComponentSchemas } from './social-webhooks.openapi.ts';

/**
 * The Graph-style paths of Areas B and C in OpenAPI 3: written once per node and edge, then spelled out in every form the
 * router answers — with the version segment (`/v25.0/<id>/replies`) and without it (`/<id>/replies`), and for the
 * account's edges also through `/me` (the own-login host's token's account). Each operation carries `x-graph-nodes` (the
 * kinds of node its first segment may name), which the document-vs-routes test compares with the router's table.
 *
 * OpenAPI cannot tell `/{comment-id}` from `/{account-id}` (templates of the same shape are one path), so the reads,
 * hides and deletes of a node share `/{api-version}/{node-id}`; the node's kind comes from its id.
 */

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
  ...WEBHOOK_PATHS,
];

/** Components the paths refer to, besides the node schemas (graph-schemas.ts). */
export function graphComponentSchemas(): Record<string, Schema> {
  return {
    ...webhookComponentSchemas(),
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
              total_value: {
                type: 'object',
                properties: { value: { type: 'number' }, breakdowns: { type: 'array', items: { type: 'object' } } },
              },
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
              config: {
                type: 'object',
                properties: { quota_total: { type: 'integer' }, quota_duration: { type: 'integer', description: 'Seconds.' } },
              },
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
                'revoked); 15 an app access token required (an app’s webhook subscriptions); 2200 callback verification ' +
                'failed; 2500 unknown path or fields syntax.',
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
    'WWW-Authenticate': {
      description: 'OAuth "<platform> Platform" "invalid_token|invalid_request" "<message>"',
      schema: { type: 'string' },
    },
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
/** The same two ways for the paths that take the app access token (`<app-id>|<app-secret>`, §6.1) instead. */
export const GRAPH_APP_SECURITY = [{ GraphAppAccessToken: [] }, { GraphAppBearer: [] }];

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
        pathParameters.push({
          name: doc.node.parameter,
          in: 'path',
          required: true,
          description: doc.node.description,
          schema: { type: 'string' },
        });
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
    operation.token === 'app' ? 'No user permission applies: the app access token is the credential.' : undefined,
  ]
    .filter(Boolean)
    .join(' ');
  const body = operation.form
    ? (() => {
        const schema = {
          type: 'object',
          properties: operation.form.properties,
          ...(operation.form.required && { required: [...operation.form.required] }),
        };
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
    security: operation.token === 'app' ? GRAPH_APP_SECURITY : GRAPH_SECURITY,
    'x-graph-nodes': [...(operation.nodeKinds ?? (doc.node === 'me' ? ['me'] : doc.node.kinds))],
    responses: {
      200: { description: 'Success.', content: { 'application/json': { schema: operation.reply } } },
      400: { $ref: '#/components/responses/GraphClientError' },
      500: { $ref: '#/components/responses/GraphServerError' },
      503: { $ref: '#/components/responses/GraphUnavailable' },
    },
  };
}
