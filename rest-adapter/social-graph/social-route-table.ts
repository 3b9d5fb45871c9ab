import type { Request } from 'express';
import type { SocialHost, SocialMethod } from '../../contracts/social-graph.ts';
import type { NodeType } from './social-node-types.ts';
import { type ExpansionBudget } from './field-expansion-budget.ts';
import { type VariableBag } from './social-operation-builder.ts';
import type { RenderLinks } from './social-renderer.ts';

/** The Graph surface the routes serve: versions, request-wide parameters, the node and edge routes per method, and the request shape a handler gets. */

export const VERSION = /^v\d+\.\d+$/;
/** Parameters that are about the request rather than the object (never taken as an attempted update). */
export const REQUEST_PARAMETERS = new Set([
  'access_token',
  'appsecret_proof',
  'fields',
  'pretty',
  'format',
  'method',
  'suppress_http_code',
  'ad_id',
]);
/** Paths of other areas that the social router leaves alone (the API documents too: /apis/swagger/…, /openapi.json). */
export const OTHER_AREAS = /^\/(api|apis|openapi\.json|1\.1|health|ready|metrics)(\/|$)/;

export type Params = Record<string, string>;

export interface SocialRequest {
  req: Request;
  method: SocialMethod;
  host: SocialHost;
  version: string | undefined;
  params: Params;
  headers: Record<string, string | undefined>;
  links: RenderLinks;
  budget: ExpansionBudget;
  /** The rate limits' usage the social services reported for this call (`extensions.socialUsage`), for the headers. */
  usage: unknown;
  /** A write's change-log position, when the gateway's fetch cache is on (the reply's `tributary-log-position`). */
  logPosition?: string | undefined;
}

/** Methods of the Graph surface's routes. */
export type RouteMethod = 'get' | 'post' | 'delete';

/** The edges of an account, on `/<account-id>/…` and, on the own-login host, `/me/…`. */
export const ACCOUNT_EDGE_ROUTES = {
  media: ['get', 'post'],
  media_publish: ['post'],
  insights: ['get'],
  content_publishing_limit: ['get'],
  recently_searched_hashtags: ['get'],
  upcoming_events: ['get', 'post'],
  agencies: ['get'],
  authorized_adaccounts: ['get', 'post'],
  stories: ['get'],
  live_media: ['get'],
  tags: ['get'],
  mentions: ['post'],
} as const;

/** `/me`'s edges on the own-login host: the token's account's, and its subscription to the token's app (§6.3). */
export const ME_OWN_EDGE_ROUTES = { ...ACCOUNT_EDGE_ROUTES, subscribed_apps: ['get', 'post', 'delete'] } as const;

const BOTH_HOSTS = ['own', 'parent'] as const;
const OWN_HOST = ['own'] as const;
const PARENT_HOST = ['parent'] as const;

/**
 * Every Graph path this router answers, by the kind of node its first segment names (after the optional version): the
 * hosts that serve the kind, the methods of the node itself and of each of its edges. Dispatch follows it (anything else,
 * a kind on a host that does not serve it included, is 100/33 or 2500), the edge handlers must match it exactly (their
 * types are derived from it), and the API documents are checked against it (test/e2e/system/api-documents.test.ts), so a route
 * cannot be added here without being documented.
 */
export const SOCIAL_ROUTES = {
  comment: { hosts: BOTH_HOSTS, node: ['get', 'post', 'delete'], edges: { replies: ['get', 'post'] } },
  media: { hosts: BOTH_HOSTS, node: ['get'], edges: { comments: ['get', 'post'], children: ['get'] } },
  account: { hosts: BOTH_HOSTS, node: ['get'], edges: ACCOUNT_EDGE_ROUTES },
  container: { hosts: BOTH_HOSTS, node: ['get'], edges: {} },
  /** `/me` on the own-login host: the token's account. */
  'me-own': { hosts: OWN_HOST, node: ['get'], edges: ME_OWN_EDGE_ROUTES },
  /** `/me` on the parent-platform host: the parent-platform user. */
  'me-parent': { hosts: PARENT_HOST, node: ['get'], edges: { accounts: ['get'] } },
  /** An app: its webhook subscriptions (§6.1), with the app's own access token. Not read as a node. */
  app: { hosts: PARENT_HOST, node: [], edges: { subscriptions: ['get', 'post', 'delete'] } },
  /** A parent-platform page: the apps its account is subscribed to (§6.3). Not read as a node. */
  page: { hosts: PARENT_HOST, node: [], edges: { subscribed_apps: ['get', 'post', 'delete'] } },
} as const satisfies Record<
  string,
  { hosts: readonly SocialHost[]; node: readonly RouteMethod[]; edges: Readonly<Record<string, readonly RouteMethod[]>> }
>;

export type SocialRouteKind = keyof typeof SOCIAL_ROUTES;

export type EdgeHandler = (request: SocialRequest, root: RootNode) => Promise<unknown>;
/** An edge on a node kind: how each method is served. */
export type EdgeRoute = Partial<Record<RouteMethod, EdgeHandler>>;
/** The handlers of a node kind's edges: exactly the edges and methods its SOCIAL_ROUTES entry lists. */
export type EdgeHandlers<Edges extends Readonly<Record<string, readonly RouteMethod[]>>> = {
  [Edge in keyof Edges]: { [Method in Edges[Edge][number]]: EdgeHandler };
};

export interface RootNode {
  /** The id as written in the path (`me` included). */
  segment: string;
  /** GraphQL root field and its arguments, e.g. `account(id: $v0)`. */
  field: (variables: VariableBag) => string;
  type: NodeType;
}
