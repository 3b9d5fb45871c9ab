import { performance } from 'node:perf_hooks';
import { HeaderMap, type ApolloServerOptionsWithGateway, type ApolloServerPlugin } from '@apollo/server';
import { trace } from '@opentelemetry/api';
import { Kind, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import Negotiator from 'negotiator';
import type { ResolvedOperation } from '../../lib/graphql/graphql-hardening.ts';
import type { Logger } from '../../lib/logger.ts';
import type { FastLaneOutcome } from '../../lib/telemetry/metrics.ts';
import type { Telemetry } from '../../lib/telemetry/telemetry.ts';
import type { GatewayContext } from '../gateway-context.ts';
import { isRecord } from '../../lib/is-record.ts';
import { keptDataText } from '../fetch-cache/response-cache.ts';

/**
 * Stand-in `operation-fast-lane` (lib/stand-ins/stand-in-registry.ts): a request whose document Apollo Server has
 * already parsed, validated and let through every plugin once is run straight on its gateway's executor, without a
 * second pass through Apollo Server's request pipeline — its plugin hooks, hashing and response assembly
 * (bench/README.md, "Stand-ins"). The gateway's door (gateway-door.ts) offers it every request first, on
 * @apollo/gateway's executor; a subgraph server's fast path (subgraphs/subgraph-server.ts) offers it its POST /graphql
 * requests, on the subgraph's compiled executor (subgraphs/subgraph-executor.ts), which Apollo Server also takes as a
 * gateway's.
 *
 * Only what cannot differ from the full pipeline takes the lane:
 * - the document: the same query text and operationName as a request that reached execution through the pipeline (the
 *   plugin below records it there), parsed and validated against the same schema — the lane keeps Apollo Server's own
 *   document and hash;
 * - the request: a JSON object with a string `query` and nothing the pipeline would refuse or treat specially (no
 *   `extensions`, so no persisted queries; `variables` an object or absent; `operationName` a string or absent), with an
 *   Accept header the pipeline answers in JSON (negotiated as Apollo Server does);
 * - the checks the pipeline's plugins make before execution (operation limits, skipped for trusted callers), made again
 *   here for every request: the cost estimate depends on its variables;
 * - the outcome: data and no errors. Anything else — errors, a failed execution — is handed to the full pipeline with
 *   the executor's outcome kept for it (`replay`), so Apollo Server formats, labels, masks and reports it exactly as
 *   always, and nothing is executed twice.
 * What the pipeline's plugins do to a successful response is done here the same way: the extensions they add (the
 * gateway's forwarded subgraph extensions, gateway-context.ts; a subgraph's reported usage) and what they do once it is
 * made (a subgraph's request bookkeeping), both handed in; the cache-control header from the hints (Apollo's
 * cache-control plugin; a subgraph gives none: `no-store`), the metrics and the operation's name and type on the
 * request's span (graphql-telemetry-plugin.ts). A plugin added to the gateway or a subgraph server that changes
 * successful responses must be mirrored here; test/e2e/gateway/gateway-fast-lane.test.ts and
 * test/e2e/gateway/subgraph-fast-lane.test.ts compare the two paths.
 */

/** What Apollo Server takes as a gateway: @apollo/gateway's ApolloGateway, or a subgraph's compiled executor. */
type GatewayInterface = ApolloServerOptionsWithGateway<object>['gateway'];
type GatewayExecutor = NonNullable<Awaited<ReturnType<GatewayInterface['load']>>['executor']>;
type GatewayRequestContext = Parameters<GatewayExecutor>[0];
type GatewayResult = Awaited<ReturnType<GatewayExecutor>>;

/** What the pipeline resolved for a query text and requested operationName. */
interface LaneEntry {
  schema: GraphQLSchema;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  /** The resolved operation's name (null when anonymous), as Apollo Server sets it. */
  operationName: string | null;
  queryHash: string;
  /**
   * The document defines this one operation: the executor then gets no operationName (it picks the same operation), which
   * spares it hashing the query hash with the name at every request to find its plan (@apollo/gateway's executor).
   */
  onlyOperation: boolean;
}

/** The executor's outcome for a request the lane handed to the full pipeline, with what it set on the response. */
type Replay = ({ result: GatewayResult } | { error: unknown }) & { http: ResponseHttp };

/**
 * Where a replay travels: a property of the request's context, because Apollo Server hands its pipeline a shallow copy of
 * the context (ApolloServer.ts, internalExecuteOperation), which keeps own properties but not the object's identity.
 */
const REPLAY = Symbol('tributary.gateway.fastLaneReplay');
type ReplayCarrier = { [REPLAY]?: Replay | undefined };

/** The headers of a request as the lane and the gateway read them (a HeaderMap, or a view of node's headers). */
export interface LaneHeaders {
  get(name: string): string | undefined;
  has(name: string): boolean;
  entries(): IterableIterator<[string, string]>;
}

/** The response head the executor may write to (Apollo Server's `response.http`): status and headers. */
class ResponseHttp {
  status: number | undefined = undefined;
  readonly map = new HeaderMap();
  readonly headers = new FetcherHeaders(this.map);
}

export interface FastLaneReply {
  /** Always 200: a reply of another status is the pipeline's to make. */
  status: 200;
  /** In the order Apollo Server sets them. */
  headers: [string, string][];
  body: string;
}

export interface FastLaneRequest<TContext extends object = GatewayContext> {
  /** The parsed JSON body. */
  body: unknown;
  /** The request's headers, as Apollo Server receives them. */
  headers: LaneHeaders;
  /** The context this request runs with — the same one the full pipeline gets if the lane hands it over. */
  context: TContext;
}

/** An operation run in-process (the REST adapter's: executeOperation's counterpart). */
export interface FastLaneOperation<TContext extends object = GatewayContext> {
  query: string;
  operationName: string | undefined;
  variables: Record<string, unknown> | undefined;
  context: TContext;
}

/** What executeOperation's single result would hold for a successful operation. */
export interface FastLaneResult {
  data: Record<string, unknown>;
  extensions?: Record<string, unknown>;
}

/** A successful run, before it is put in an HTTP reply. */
interface LaneResult extends FastLaneResult {
  cacheable: { maxAge: number; scope: 'PUBLIC' | 'PRIVATE' } | null;
  /** `data` as JSON text, when the fetch cache's response level answered it (spliced into the reply, never re-serialised). */
  dataText: string | undefined;
}

export interface OperationFastLane<TContext extends object = GatewayContext> {
  /** Records documents that reached execution through the pipeline; goes among the server's Apollo Server plugins. */
  plugin: ApolloServerPlugin<TContext>;
  /** The gateway as Apollo Server should see it: its executor first replays what the lane handed over. */
  gateway(gateway: GatewayInterface): GatewayInterface;
  /**
   * Serves the request, or answers undefined when the full pipeline must (then, if the lane ran the operation, the
   * context carries its outcome to the pipeline's executor).
   */
  serve(request: FastLaneRequest<TContext>): Promise<FastLaneReply | undefined>;
  /** As `serve`, for an operation run in-process: executeOperation's result, or undefined when executeOperation must run. */
  execute(operation: FastLaneOperation<TContext>): Promise<FastLaneResult | undefined>;
  /** Stops taking requests (the server is stopping: the pipeline answers as Apollo Server does then). */
  close(): void;
}

export interface OperationFastLaneDeps<TContext extends object = GatewayContext> {
  /** The checks the server's plugins make of a resolved operation before execution; throws their refusal. */
  checkResolvedOperation(request: ResolvedOperation): void;
  /** What the server's plugins add to a successful response's extensions (merged over the executor's). */
  responseExtensions(context: TContext): Record<string, unknown> | undefined;
  /** What the server's plugins do once a response is made (a subgraph's request bookkeeping); must not throw. */
  finishRequest?(context: TContext): void;
  /** The server the operations are counted under (tributary_graphql_* metrics): `gateway` or a subgraph's name. */
  server: string;
  telemetry: Telemetry;
  logger: Logger;
  /** Distinct documents kept (oldest dropped first). */
  maxEntries?: number;
  /** Characters of query text kept over all entries (oldest dropped first). */
  maxQueryChars?: number;
}

const JSON_TYPE = 'application/json; charset=utf-8';
/** Apollo Server's choices for a single result, in its order of preference (5.5.1's ApolloServer.ts, MEDIA_TYPES). */
const SINGLE_RESULT_TYPES = [
  JSON_TYPE,
  'application/graphql-response+json; charset=utf-8',
  'application/json; callbackSpec=1.0; charset=utf-8',
];
/** Distinct Accept headers whose negotiated type is remembered (clients send a handful; more are negotiated each time). */
const ACCEPT_MEMO_ENTRIES = 64;

export function createOperationFastLane<TContext extends object = GatewayContext>(
  deps: OperationFastLaneDeps<TContext>,
): OperationFastLane<TContext> {
  const lane: LaneContext<TContext> = {
    deps,
    metrics: deps.telemetry.metrics,
    maxEntries: deps.maxEntries ?? 1000,
    maxQueryChars: deps.maxQueryChars ?? 4_000_000,
    entries: new Map(),
    queryChars: 0,
    acceptMemo: new Map(),
    executor: undefined,
    currentSchema: undefined,
    open: true,
  };
  return {
    plugin: lanePlugin(lane),
    gateway: (real) => laneGateway(lane, real),
    serve: (request) => serve(lane, request),
    execute: (operation) => execute(lane, operation),
    close: () => {
      lane.open = false;
      forget(lane);
    },
  };
}

/** What the lane's functions share: its settings, the documents it knows, and the executor and schema serving. */
interface LaneContext<TContext extends object> {
  readonly deps: OperationFastLaneDeps<TContext>;
  readonly metrics: Telemetry['metrics'];
  readonly maxEntries: number;
  readonly maxQueryChars: number;
  /** query text → requested operationName ('' when none) → entry. Insertion order is the eviction order. */
  readonly entries: Map<string, Map<string, LaneEntry>>;
  queryChars: number;
  readonly acceptMemo: Map<string, string | null>;
  executor: GatewayExecutor | undefined;
  /**
   * The schema the gateway serves: a request the pipeline validated against the one before a reload (still in flight
   * when the new one came) is not recorded for the new one.
   */
  currentSchema: GraphQLSchema | undefined;
  open: boolean;
}

function forget(lane: LaneContext<never>): void {
  lane.entries.clear();
  lane.queryChars = 0;
}

function record(lane: LaneContext<never>, query: string, requestedName: string | undefined, entry: LaneEntry): void {
  const { entries } = lane;
  let byName = entries.get(query);
  if (!byName) {
    if (query.length > lane.maxQueryChars) return;
    while (entries.size >= lane.maxEntries || lane.queryChars + query.length > lane.maxQueryChars) {
      const oldest = entries.keys().next().value as string;
      entries.delete(oldest);
      lane.queryChars -= oldest.length;
    }
    byName = new Map();
    entries.set(query, byName);
    lane.queryChars += query.length;
  }
  byName.set(requestedName ?? '', entry);
}

/** The content type Apollo Server answers a single result with for this Accept header, null for its 406. */
function contentTypeFor(lane: LaneContext<never>, accept: string | undefined): string | null {
  if (!accept) return JSON_TYPE;
  const { acceptMemo } = lane;
  let type = acceptMemo.get(accept);
  if (type === undefined) {
    type = new Negotiator({ headers: { accept } }).mediaType(SINGLE_RESULT_TYPES) ?? null;
    if (acceptMemo.size >= ACCEPT_MEMO_ENTRIES) acceptMemo.clear();
    acceptMemo.set(accept, type);
  }
  return type;
}

function lanePlugin<TContext extends object>(lane: LaneContext<TContext>): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        // Reached only when every didResolveOperation hook let the operation through and no plugin answered for it.
        async executionDidStart({ request, source, document, operation, operationName, queryHash, schema }) {
          // A document that came from somewhere else than the request's own text (an automatic persisted query) is not
          // one the lane can recognise by its text.
          if (typeof request.query !== 'string' || source !== request.query || !operation || schema !== lane.currentSchema) return;
          const onlyOperation = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION).length === 1;
          record(lane, request.query, request.operationName, { schema, document, operation, operationName, queryHash, onlyOperation });
        },
      };
    },
  };
}

function laneGateway(lane: LaneContext<never>, real: GatewayInterface): GatewayInterface {
  return {
    onSchemaLoadOrUpdate: (callback) =>
      real.onSchemaLoadOrUpdate((schemaContext) => {
        // Documents were validated against the schema they were recorded with: a new one starts the lane afresh.
        forget(lane);
        lane.currentSchema = schemaContext.apiSchema;
        callback(schemaContext);
      }),
    load: async (options) => {
      const loaded = await real.load(options);
      const executor = loaded.executor;
      lane.executor = executor ?? undefined;
      // @apollo/gateway has told its listeners of this schema during load; a gateway that does not is taken at its word.
      if ('schema' in loaded) lane.currentSchema ??= loaded.schema as GraphQLSchema;
      if (!executor) return loaded;
      return {
        ...loaded,
        executor: async (requestContext) => {
          const carrier = requestContext.context as ReplayCarrier;
          const replay = carrier[REPLAY];
          if (!replay) return executor(requestContext);
          carrier[REPLAY] = undefined;
          const http = requestContext.response?.http;
          if (http) {
            if (replay.http.status !== undefined) http.status = replay.http.status;
            for (const [name, value] of replay.http.map) http.headers.set(name, value);
          }
          if ('error' in replay) throw replay.error;
          return replay.result;
        },
      };
    },
    stop: () => real.stop(),
  };
}

/**
 * Runs a known operation on the executor: its data and extensions as the pipeline would answer them, or why not (the
 * pipeline then answers; `replayed`: with the executor's outcome, carried by the context).
 */
async function runOperation<TContext extends object>(
  lane: LaneContext<TContext>,
  query: string,
  operationName: string | undefined,
  variables: Record<string, unknown> | undefined,
  /** The HTTP request's headers; undefined for an operation run in-process (as executeOperation runs them). */
  headers: LaneHeaders | undefined,
  context: TContext,
): Promise<LaneResult | FastLaneOutcome> {
  const { executor, deps, metrics } = lane;
  if (!executor) return 'declined';
  const entry = lane.entries.get(query)?.get(operationName ?? '');
  if (!entry) return 'declined';
  const { schema, document, operation } = entry;
  try {
    deps.checkResolvedOperation({ schema, document, operation, variables, http: headers ? { headers } : undefined });
  } catch {
    // Refused: the pipeline refuses it the same way, in its own words.
    return 'declined';
  }

  const started = performance.now();
  const policy = new CachePolicy();
  const responseHttp = new ResponseHttp();
  // What Apollo Server hands the executor (its makeGatewayGraphQLRequestContext), for this request.
  const requestContext = {
    request: {
      query,
      operationName: entry.onlyOperation ? undefined : operationName,
      variables,
      extensions: undefined,
      http: headers ? { method: 'POST', url: 'https://unknown-url.invalid/', headers: new FetcherHeaders(headers) } : undefined,
    },
    response: { http: responseHttp },
    logger: deps.logger,
    schema,
    context,
    queryHash: entry.queryHash,
    document,
    source: query,
    operationName: entry.operationName,
    operation,
    metrics: {},
    debug: false,
    overallCachePolicy: policy,
    requestIsBatched: false,
  } as unknown as GatewayRequestContext;

  let result: GatewayResult;
  try {
    result = await executor(requestContext);
  } catch (error) {
    (context as ReplayCarrier)[REPLAY] = { error, http: responseHttp };
    return 'replayed';
  }
  const dataText = keptDataText(result);
  // Errors, or a response the executor gave a status or headers of its own: the pipeline makes that reply.
  if (
    result.errors !== undefined ||
    (dataText === undefined && result.data == null) ||
    responseHttp.status !== undefined ||
    responseHttp.map.size > 0
  ) {
    (context as ReplayCarrier)[REPLAY] = { result, http: responseHttp };
    return 'replayed';
  }

  const added = deps.responseExtensions(context);
  const extensions = added && hasKeys(added) ? { ...result.extensions, ...added } : result.extensions;
  deps.finishRequest?.(context);
  // As the telemetry plugin does, which the server runs when metrics are on (graphql-telemetry-plugin.ts).
  if (metrics.enabled) {
    const name = entry.operationName ?? 'anonymous';
    const type = operation.operation;
    const span = trace.getActiveSpan();
    if (span) {
      span.setAttribute('graphql.operation.name', name);
      span.setAttribute('graphql.operation.type', type);
    }
    metrics.observeGraphql(deps.server, name, type, (performance.now() - started) / 1000, []);
  }
  // A kept response's data stays text until something reads it (the in-process executor's callers do).
  return {
    get data() {
      return result.data as Record<string, unknown>;
    },
    extensions,
    cacheable: policy.policyIfCacheable(),
    dataText,
  };
}

/** Counts the outcome; the result when the lane answers. */
function counted(lane: LaneContext<never>, outcome: LaneResult | FastLaneOutcome): LaneResult | undefined {
  if (typeof outcome === 'string') {
    lane.metrics.observeFastLane(lane.deps.server, outcome);
    return undefined;
  }
  lane.metrics.observeFastLane(lane.deps.server, 'served');
  return outcome;
}

async function serve<TContext extends object>(
  lane: LaneContext<TContext>,
  { body, headers, context }: FastLaneRequest<TContext>,
): Promise<FastLaneReply | undefined> {
  const request = laneRequest(body);
  // The reply's type is settled before anything runs: a request the pipeline would answer 406 is the pipeline's.
  const contentType = request ? contentTypeFor(lane, headers.get('accept')) : null;
  const result = counted(
    lane,
    request && contentType !== null && lane.open
      ? await runOperation(lane, request.query, request.operationName, request.variables, headers, context)
      : 'declined',
  );
  if (!result) return undefined;
  const { cacheable } = result;
  return {
    status: 200,
    headers: [
      ['cache-control', cacheable ? `max-age=${cacheable.maxAge}, ${cacheable.scope.toLowerCase()}` : 'no-store'],
      ['content-type', contentType!],
    ],
    // Apollo Server's order (errors, data, extensions) and its trailing newline; kept data as it was kept.
    body:
      result.dataText === undefined
        ? `${JSON.stringify({ data: result.data, extensions: result.extensions })}\n`
        : `{"data":${result.dataText}${result.extensions === undefined ? '' : `,"extensions":${JSON.stringify(result.extensions)}`}}\n`,
  };
}

async function execute<TContext extends object>(
  lane: LaneContext<TContext>,
  { query, operationName, variables, context }: FastLaneOperation<TContext>,
): Promise<FastLaneResult | undefined> {
  const result = counted(lane, lane.open ? await runOperation(lane, query, operationName, variables, undefined, context) : 'declined');
  if (!result) return undefined;
  return result.extensions === undefined ? { data: result.data } : { data: result.data, extensions: result.extensions };
}

/** The operation fields of a POST body the lane takes; undefined for anything the pipeline should look at itself. */
function laneRequest(
  body: unknown,
): { query: string; operationName: string | undefined; variables: Record<string, unknown> | undefined } | undefined {
  if (!isRecord(body)) return undefined;
  const { query, operationName, variables } = body;
  if (typeof query !== 'string' || query === '' || body.extensions !== undefined) return undefined;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return undefined;
  if (variables !== undefined && variables !== null && !isRecord(variables)) return undefined;
  return { query, operationName: operationName ?? undefined, variables: (variables as Record<string, unknown> | null) ?? undefined };
}

function hasKeys(object: object): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return true;
  return false;
}

type CacheHint = { maxAge?: number; scope?: 'PUBLIC' | 'PRIVATE' };

/** Apollo's cache policy (@apollo/server 5.5.1's cachePolicy.ts, not exported): the shortest maxAge, PRIVATE over PUBLIC. */
class CachePolicy {
  maxAge: number | undefined = undefined;
  scope: 'PUBLIC' | 'PRIVATE' | undefined = undefined;

  restrict(hint: CacheHint): void {
    if (hint.maxAge !== undefined && (this.maxAge === undefined || hint.maxAge < this.maxAge)) this.maxAge = hint.maxAge;
    if (hint.scope !== undefined && this.scope !== 'PRIVATE') this.scope = hint.scope;
  }

  replace(hint: CacheHint): void {
    if (hint.maxAge !== undefined) this.maxAge = hint.maxAge;
    if (hint.scope !== undefined) this.scope = hint.scope;
  }

  policyIfCacheable(): { maxAge: number; scope: 'PUBLIC' | 'PRIVATE' } | null {
    if (this.maxAge === undefined || this.maxAge === 0) return null;
    return { maxAge: this.maxAge, scope: this.scope ?? 'PUBLIC' };
  }
}

/**
 * The Fetch-style view of headers the gateway's request context carries (Apollo Server's FetcherHeadersForHeaderMap).
 * Writes need a HeaderMap; a read-only view (the request's) is copied into one on the first write.
 */
class FetcherHeaders {
  constructor(private headers: LaneHeaders | HeaderMap) {}

  private writable(): HeaderMap {
    if (this.headers instanceof HeaderMap) return this.headers;
    const copy = new HeaderMap(this.headers.entries());
    this.headers = copy;
    return copy;
  }

  append(name: string, value: string): void {
    const map = this.writable();
    map.set(name, map.has(name) ? `${map.get(name)}, ${value}` : value);
  }

  delete(name: string): void {
    this.writable().delete(name);
  }

  get(name: string): string | null {
    return this.headers.get(name) ?? null;
  }

  has(name: string): boolean {
    return this.headers.has(name);
  }

  set(name: string, value: string): void {
    this.writable().set(name, value);
  }

  entries(): IterableIterator<[string, string]> {
    return this.headers.entries();
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.headers.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.headers.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.headers.entries();
  }
}
