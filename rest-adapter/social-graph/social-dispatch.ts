import { kindOfSocialId } from '../../lib/social-graph/social-ids.ts';
import type { SocialHost } from '../../contracts/social-graph.ts';
import { GraphReplyError, RouteRefusal } from './graph-reply-error.ts';
import {
  ACCOUNT_NODE,
  APP_NODE,
  COMMENT_NODE,
  CONTAINER_NODE,
  MEDIA_NODE,
  PAGE_NODE,
  PLATFORM_USER_NODE,
  type NodeType,
} from './social-node-types.ts';
import type { VariableBag } from './social-operation-builder.ts';
import { FIXED, type SocialOperations } from './social-operations.ts';
import { readEdge, readInsights, readList, readNode, readPublishingLimit, readRecentHashtags } from './social-reads.ts';
import {
  SOCIAL_ROUTES,
  type EdgeHandler,
  type EdgeHandlers,
  type EdgeRoute,
  type RootNode,
  type RouteMethod,
  type SocialRequest,
  type SocialRouteKind,
} from './social-route-table.ts';
import {
  listAppSubscriptions,
  listSubscribedApps,
  subscribeAccountToApp,
  subscribeApp,
  unsubscribeAccountFromApp,
  unsubscribeApp,
} from './social-webhook-edges.ts';
import {
  authorizeAdAccount,
  commentOnMedia,
  createContainer,
  createUpcomingEvent,
  deleteComment,
  hideComment,
  publishContainer,
  replyToComment,
  replyToMention,
} from './social-writes.ts';

/**
 * From a Graph path to its handler, as the route table (social-route-table.ts) serves it: the node kind its first segment
 * names (NODE_KINDS: the root field, the edges, the routes), the node's own methods, then its edge's. What the table
 * refuses is sent only after the token was checked (dispatch).
 */

/** Each node kind's edges: the handlers of the route families (reads, writes, webhook subscriptions), wired to `ops`. */
export interface SocialEdges {
  comment: EdgeHandlers<typeof SOCIAL_ROUTES.comment.edges>;
  media: EdgeHandlers<typeof SOCIAL_ROUTES.media.edges>;
  account: EdgeHandlers<typeof SOCIAL_ROUTES.account.edges>;
  container: EdgeHandlers<typeof SOCIAL_ROUTES.container.edges>;
  'me-own': EdgeHandlers<(typeof SOCIAL_ROUTES)['me-own']['edges']>;
  'me-parent': EdgeHandlers<(typeof SOCIAL_ROUTES)['me-parent']['edges']>;
  app: EdgeHandlers<typeof SOCIAL_ROUTES.app.edges>;
  page: EdgeHandlers<typeof SOCIAL_ROUTES.page.edges>;
}

export function socialEdges(ops: SocialOperations): SocialEdges {
  const handler =
    (work: (ops: SocialOperations, request: SocialRequest, root: RootNode) => Promise<unknown>): EdgeHandler =>
    (request, root) =>
      work(ops, request, root);
  const account: SocialEdges['account'] = {
    media: { get: readEdge(ops, 'media'), post: handler(createContainer) },
    media_publish: { post: handler(publishContainer) },
    insights: { get: handler(readInsights) },
    content_publishing_limit: { get: handler(readPublishingLimit) },
    recently_searched_hashtags: { get: handler(readRecentHashtags) },
    upcoming_events: { get: readEdge(ops, 'upcoming_events'), post: handler(createUpcomingEvent) },
    agencies: { get: readEdge(ops, 'agencies') },
    authorized_adaccounts: {
      get: (request, root) => {
        const business = request.params.business;
        return readEdge(
          ops,
          'authorized_adaccounts',
          business === undefined ? [] : [{ name: 'business', argument: business, position: 0 }],
        )(request, root);
      },
      post: handler(authorizeAdAccount),
    },
    stories: { get: readEdge(ops, 'stories') },
    live_media: { get: readEdge(ops, 'live_media') },
    tags: { get: readEdge(ops, 'tags') },
    mentions: { post: handler(replyToMention) },
  };
  const subscribedApps = {
    get: handler(listSubscribedApps),
    post: handler(subscribeAccountToApp),
    delete: handler(unsubscribeAccountFromApp),
  };
  return {
    comment: { replies: { get: readEdge(ops, 'replies'), post: handler(replyToComment) } },
    media: { comments: { get: readEdge(ops, 'comments'), post: handler(commentOnMedia) }, children: { get: readEdge(ops, 'children') } },
    account,
    container: {},
    'me-own': { ...account, subscribed_apps: subscribedApps },
    'me-parent': { accounts: { get: readList(ops, 'accounts') } },
    app: { subscriptions: { get: handler(listAppSubscriptions), post: handler(subscribeApp), delete: handler(unsubscribeApp) } },
    page: { subscribed_apps: subscribedApps },
  };
}

/** A node kind: the route table's entry it is served by, and the root field that reads it. */
interface NodeKind {
  routes: SocialRouteKind;
  root(segment: string, id: (variables: VariableBag) => string): RootNode;
}

const byId = (type: NodeType, field: string) => (segment: string, id: (variables: VariableBag) => string) => ({
  segment,
  field: (v: VariableBag) => `${field}(id: ${id(v)})`,
  type,
});

/** The kinds a path's first segment may name (`me` by host), and how each is read. */
const NODE_KINDS: Record<'comment' | 'media' | 'account' | 'container' | 'me-own' | 'me-parent' | 'app' | 'page', NodeKind> = {
  comment: { routes: 'comment', root: byId(COMMENT_NODE, 'comment') },
  media: { routes: 'media', root: byId(MEDIA_NODE, 'media') },
  account: { routes: 'account', root: byId(ACCOUNT_NODE, 'account') },
  container: { routes: 'container', root: byId(CONTAINER_NODE, 'mediaContainer') },
  'me-own': { routes: 'me-own', root: (segment) => ({ segment, field: () => 'me', type: ACCOUNT_NODE }) },
  'me-parent': { routes: 'me-parent', root: (segment) => ({ segment, field: () => 'platformUser', type: PLATFORM_USER_NODE }) },
  app: { routes: 'app', root: (segment) => edgesOnly(segment, APP_NODE) },
  page: { routes: 'page', root: (segment) => edgesOnly(segment, PAGE_NODE) },
};

/**
 * The path's node and edge, as the route table serves them. What the table refuses by itself (RouteRefusal) is sent
 * only after the social services checked the token: the platform answers a missing or bad token (104, 190) before it
 * says that an object does not exist or does not support the operation, whatever the path names.
 */
export async function dispatch(
  ops: SocialOperations,
  edges: SocialEdges,
  request: SocialRequest,
  segments: readonly string[],
): Promise<unknown> {
  try {
    if (segments.length === 0) throw new RouteRefusal(ops.errors.unsupportedOperation(request.method, ''));
    return await handleNode(ops, edges, request, segments[0]!, segments.slice(1));
  } catch (error) {
    if (error instanceof RouteRefusal) await checkToken(ops, request, segments[0]);
    throw error;
  }
}

async function handleNode(
  ops: SocialOperations,
  edges: SocialEdges,
  request: SocialRequest,
  segment: string,
  rest: string[],
): Promise<unknown> {
  const { method } = request;
  const kindName = segment === 'me' ? (request.host === 'parent' ? 'me-parent' : 'me-own') : kindOfSocialId(segment);
  const kind = kindName === undefined || !Object.hasOwn(NODE_KINDS, kindName) ? undefined : NODE_KINDS[kindName as keyof typeof NODE_KINDS];
  // Not an id of this graph: the platform takes any segment for a node id (errors.badVersion explains why).
  if (!kind) throw new RouteRefusal(ops.errors.badVersion(segment, rest, method));
  const routes = SOCIAL_ROUTES[kind.routes];
  // A kind another host serves (an app's or a page's paths on the own-login host) is no id here either.
  if (!(routes.hosts as readonly SocialHost[]).includes(request.host)) throw new RouteRefusal(ops.errors.badVersion(segment, rest, method));
  const root = kind.root(segment, (variables) => variables.add('ID!', segment));

  if (rest.length === 0) {
    // Creating or updating a comment at its own address, and any write to an account or media node: not in the table.
    if (!(routes.node as readonly RouteMethod[]).includes(method)) throw new RouteRefusal(ops.errors.unsupportedOperation(method, segment));
    if (method === 'get') return readNode(ops, request, root);
    if (method === 'delete') return deleteComment(ops, request, segment);
    return hideComment(ops, request, segment);
  }
  const kindEdges: Readonly<Record<string, EdgeRoute>> = edges[kind.routes];
  // Own properties only: `/<id>/constructor` names no edge.
  const route = rest.length === 1 && Object.hasOwn(kindEdges, rest[0]!) ? kindEdges[rest[0]!] : undefined;
  if (!route) throw new RouteRefusal(ops.errors.unknownEdge(rest));
  const handler = route[method];
  if (!handler) throw new RouteRefusal(ops.errors.unsupportedOperation(method, segment));
  if (kind.routes === 'me-own' && method === 'post' && Object.hasOwn(edges.account, rest[0]!)) {
    // POST /me/<account edge>: the edge's account argument is the token's own account (subscribed_apps takes none).
    const me = (await ops.runFixed(request, FIXED.me, {})).node;
    if (!me) throw new GraphReplyError(ops.errors.unsupportedOperation(method, segment));
    return handler(request, { ...root, segment: me.id });
  }
  return handler(request, root);
}

/**
 * The token check before a refusal of the table's: the caller's, except on an app's paths where the app serves them —
 * those take the app's own access token (§6.1), so any other token is 15 there, before the path is refused.
 */
async function checkToken(ops: SocialOperations, request: SocialRequest, segment: string | undefined): Promise<void> {
  const ofApp =
    segment !== undefined && kindOfSocialId(segment) === 'app' && (SOCIAL_ROUTES.app.hosts as readonly SocialHost[]).includes(request.host);
  if (ofApp) await ops.runFixed(request, FIXED.appSubscriptions, { appId: segment });
  else await ops.runFixed(request, FIXED.caller, {});
}

/** The root of a node only its edges address (an app, a page): no route reads it as a node. */
function edgesOnly(segment: string, type: NodeType): RootNode {
  return {
    segment,
    type,
    field: () => {
      throw new Error(`a ${type.name} is addressed only through its edges, never read as a node`);
    },
  };
}
