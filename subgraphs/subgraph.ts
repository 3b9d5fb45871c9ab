import type { buildSubgraphSchema } from '@apollo/subgraph';
import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';
import type { SubgraphName } from '../lib/config.ts';

/**
 * One module of buildSubgraphSchema's input (typeDefs and resolvers). @apollo/subgraph exports that type only from its
 * dist/ folder, which nothing outside the stand-ins' wing may import: it is read off the function's own signature.
 */
export type SubgraphSchemaModule = Exclude<Extract<Parameters<typeof buildSubgraphSchema>[0], readonly unknown[]>[number], DocumentNode>;

/** What a transport knows of the request that reaches a subgraph. */
export interface SubgraphRequestInfo {
  authorization: string | undefined;
  requestId: string | undefined;
  /**
   * The social graph's host the request came in on (`own` or `parent`, header X-Social-Host, set by the REST adapter per
   * listener); undefined for GraphQL front-ends, whose token's login type then decides.
   */
  socialHost: string | undefined;
  /** The client's request as it signed it (OAuth 1.0a, Area D), encoded as lib/auth/signed-request.ts carries it. */
  signedRequest: string | undefined;
  /**
   * Work the subgraphs of one gateway request may share when they run in the gateway's process (the social viewer: one
   * token read per request, not one per subgraph), keyed by what it depends on; absent when a subgraph is served over HTTP.
   */
  shared?: Map<string, unknown> | undefined;
}

/**
 * A built subgraph: its SDL, its executable schema and the way it makes a per-request context. Built by a pure factory;
 * the HTTP server, the gateway's in-process data source and the tests all use the same object.
 */
export interface Subgraph<TContext extends object = object> {
  name: SubgraphName;
  typeDefs: DocumentNode;
  schema: GraphQLSchema;
  createContext(request: SubgraphRequestInfo): TContext;
  /**
   * What a request's context reports back with its response, merged into the response's `extensions` by whichever
   * server ran it (the subgraph's HTTP server, the gateway's in-process data source): the social graph's rate-limit
   * usage (`socialUsage`), which the gateway hands on to its caller.
   */
  responseExtensions?(context: TContext): Record<string, unknown> | undefined;
  /**
   * Whose reply this is, for the gateway's fetch cache (issue 39): the viewer's facts this subgraph's rules read (the
   * caller's identity, roles, login type, permissions), checked as a request's are — so a token revoked or expired since
   * is refused here, never served from the cache. Undefined when there is no valid viewer (the subgraph answers its own
   * error) or the subgraph's replies are not to be reused; the fetch then bypasses the cache.
   */
  cacheViewer?(context: TContext): Promise<string | undefined>;
  /**
   * Counts a call the gateway answers from its response cache as a run of this subgraph's root field about `objectId`
   * would count it (the social graph's rate limits; then responseExtensions and finishRequest report it as for a run);
   * throws the subgraph's error when the call is refused. Absent on subgraphs whose calls are not counted.
   */
  admitCall?(context: TContext, objectId: string | undefined): Promise<void>;
  /** Called once a request's response is on its way (notes what the request cost). Must not throw. */
  finishRequest?(context: TContext): void;
  /**
   * Runs a subscription operation (a validated document of this subgraph's schema) for the caller `request` describes:
   * a stream of results, one per event, each read under a context of its own (lib/graphql/subscribe-per-event.ts), or
   * one result of errors when it cannot start. Present on subgraphs with Subscription fields; the gateway's in-process
   * data source and the subgraph's own server both serve it.
   */
  subscribe?(request: SubgraphRequestInfo, operation: SubgraphOperation): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult>;
  /** Ends what the subgraph holds open for its subscriptions (their streams end); the process calls it on shutdown. */
  close?(): Promise<void>;
}

/** An operation of a subgraph's schema, parsed and validated. */
export interface SubgraphOperation {
  document: DocumentNode;
  variables?: Readonly<Record<string, unknown>> | undefined;
  operationName?: string | undefined;
}

/**
 * What a gateway that reaches a subgraph over HTTP needs to keep its replies in its fetch cache (issue 39): the
 * subgraph's schema (its types, for the tags of what a reply holds, and its hints) and the viewer's facts its rules read,
 * worked out from the request as the subgraph itself would (Subgraph.cacheViewer's rule, from the same code).
 */
export interface SubgraphCacheViewing {
  schema: GraphQLSchema;
  viewer(request: SubgraphRequestInfo): Promise<string | undefined>;
  /**
   * Counts a call answered from the gateway's response cache as the subgraph counts its root calls (Subgraph.admitCall,
   * on the same database): the extensions its reply would carry and `finish` once answered; undefined when refused.
   */
  admitCall?(
    request: SubgraphRequestInfo,
    objectId: string | undefined,
  ): Promise<{ extensions: Record<string, unknown> | undefined; finish(): void } | undefined>;
}
