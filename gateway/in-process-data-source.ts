import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { execute, GraphQLError, parse, validate, type DocumentNode, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import type { Subgraph } from '../subgraphs/subgraph.ts';
import { collectExtensions, type GatewayContext } from './gateway-context.ts';
import type { QueryCompiler, QueryRun } from '../lib/graphql/query-compiler.ts';
import { isAsyncIterable, mapAsyncIterator } from '../lib/graphql/map-async-iterator.ts';
import type { LiveSubgraphResult, SubscribingDataSource } from './live/live-execution.ts';
import { cacheableDocument, type CacheableDocument } from './fetch-cache/cacheable-document.ts';
import { reusableReply, usageOnlyReply, type FetchCache, type FetchOutcome } from './fetch-cache/fetch-cache.ts';
import { fetchThroughCache } from './fetch-cache/fetch-through-cache.ts';
import type { ResponseCacheSubgraph } from './fetch-cache/response-cache.ts';

type GatewayGraphQLResponse = Awaited<ReturnType<GraphQLDataSource['process']>>;
type ErrorFormatter = (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;

/**
 * Distinct subgraph queries kept parsed, validated and compiled: at most this many, each of at most this many characters.
 * A longer one (a client's long aliases or arguments come through in it) is parsed and validated for each fetch and run
 * on graphql-js: its compiled code — several times its text — would otherwise stay in the cache, 500 of them at a time.
 */
const DOCUMENT_CACHE_SIZE = 500;
const DOCUMENT_CACHE_MAX_LENGTH = 16_384;

/** A subgraph query parsed, validated and — where the other engine takes it — compiled, once per distinct text and operation name. */
interface PreparedQuery {
  readonly document: DocumentNode;
  readonly run: QueryRun | undefined;
  /** Its cache policy from the hints, and what the fetch cache needs of it (kept documents only are cacheable). */
  readonly caching: CacheableDocument;
}

/**
 * Runs a subgraph inside the gateway's process (no HTTP hop). Unlike @apollo/gateway's LocalGraphQLDataSource it
 * - gives the subgraph its own per-request context, made by the subgraph's factory from the caller's credentials, exactly as
 *   its HTTP server would (so the same auth rules and DataLoaders apply in both modes);
 * - parses and validates each distinct subgraph query once (the query planner repeats the same few), instead of per fetch;
 * - runs it on graphql-js, or on graphql-jit where that stand-in serves (`compile`: stand-ins/jit-subgraph-execution.ts);
 * - formats errors with the subgraph's own error formatter;
 * - restricts the incoming operation's cache policy by the subgraph's `@cacheControl` hints, as the subgraph server's
 *   Cache-Control does a remote fetch's (LocalGraphQLDataSource reports none).
 */
export class InProcessDataSource implements GraphQLDataSource<GatewayContext>, SubscribingDataSource {
  private readonly prepared = new Map<string, PreparedQuery>();

  constructor(
    private readonly subgraph: Subgraph,
    private readonly formatError: ErrorFormatter,
    private readonly compile?: QueryCompiler,
    /** The gateway's fetch cache (fetch-cache/), when it is on. */
    private readonly cache?: FetchCache,
  ) {}

  async process(options: GraphQLDataSourceProcessOptions<GatewayContext>): Promise<GatewayGraphQLResponse> {
    const { request } = options;
    const source = request.query ?? '';
    let prepared: PreparedQuery;
    try {
      prepared = this.prepare(source, request.operationName);
    } catch (error) {
      const graphqlError = error instanceof GraphQLError ? error : new GraphQLError(String(error));
      return { errors: [graphqlError.toJSON()] };
    }
    const gatewayContext = options.context as Partial<GatewayContext>;
    const contextValue = this.contextFor(gatewayContext);
    const outcome = await this.executeThroughCache(prepared, request.variables, request.operationName, contextValue, gatewayContext);
    if ('incomingRequestContext' in options) {
      const policy = options.incomingRequestContext.overallCachePolicy;
      // A reply with errors is `no-store` from a subgraph server (Apollo's cache-control plugin), and so it is here.
      if (policy && 'restrict' in policy) policy.restrict(outcome.errors ? { maxAge: 0 } : prepared.caching.policy);
    }
    return this.reply(outcome);
  }

  /**
   * Runs the query (on the compiled engine or graphql-js), through the fetch cache when its hints let it be kept and
   * the subgraph can say whose reply it is; a write's reply waits for its changes to reach the cache.
   */
  private async executeThroughCache(
    prepared: PreparedQuery,
    variables: Record<string, unknown> | undefined,
    operationName: string | undefined,
    contextValue: object,
    gatewayContext: Partial<GatewayContext>,
  ): Promise<ExecutionResult> {
    const run = async (only?: Record<string, unknown>): Promise<FetchOutcome<ExecutionResult>> => {
      const values = only ?? variables;
      const runGraphqlJs = () =>
        execute({ schema: this.subgraph.schema, document: prepared.document, variableValues: values, operationName, contextValue });
      const result: ExecutionResult = prepared.run ? await prepared.run(contextValue, values, runGraphqlJs) : await runGraphqlJs();
      const extensions = this.subgraph.responseExtensions?.(contextValue);
      collectExtensions(gatewayContext, extensions);
      this.subgraph.finishRequest?.(contextValue);
      const reusable = reusableReply(result.errors, extensions);
      const call = usageOnlyReply(result.errors, extensions);
      return { value: result, data: result.data, reusable, maxAgeSeconds: prepared.caching.policy.maxAge ?? 0, call };
    };
    if (!this.cache) return (await run()).value;
    const read = await fetchThroughCache(
      this.cache,
      prepared.caching,
      { subgraph: this.subgraph.name, schema: this.subgraph.schema, variables },
      gatewayContext,
      async () => this.subgraph.cacheViewer?.(contextValue),
      run,
    );
    return 'ran' in read ? read.ran : { data: read.fromCache };
  }

  private reply(result: ExecutionResult): GatewayGraphQLResponse {
    // Without data, execution never started: the errors are the request's own (variable coercion), which Apollo Server on the
    // subgraph's HTTP server reports as BAD_USER_INPUT; the same code here keeps both modes alike.
    const requestErrors = result.data === undefined;
    return {
      ...(result.data !== undefined ? { data: result.data } : {}),
      ...(result.errors
        ? {
            errors: result.errors.map((error) => {
              const formatted = this.formatError(error.toJSON(), error);
              return requestErrors && formatted.extensions?.code === undefined
                ? { ...formatted, extensions: { ...formatted.extensions, code: 'BAD_USER_INPUT' } }
                : formatted;
            }),
          }
        : {}),
    };
  }

  /**
   * A subscription fetch (gateway/live/): the subgraph's own subscribe, each event under a context of its own made from
   * the caller's credentials, its errors formatted as process() formats them.
   */
  async subscribe(
    request: { query: string; operationName: string | undefined; variables: Record<string, unknown> },
    context: GatewayContext,
  ): Promise<AsyncIterableIterator<LiveSubgraphResult> | LiveSubgraphResult> {
    let prepared: PreparedQuery;
    try {
      prepared = this.prepare(request.query, request.operationName);
    } catch (error) {
      const graphqlError = error instanceof GraphQLError ? error : new GraphQLError(String(error));
      return { errors: [graphqlError.toJSON()] };
    }
    if (!this.subgraph.subscribe) return { errors: [{ message: `Subgraph ${this.subgraph.name} has no subscriptions.` }] };
    const started = await this.subgraph.subscribe(
      {
        authorization: context.authorization,
        requestId: context.requestId,
        socialHost: context.socialHost,
        signedRequest: context.signedRequest,
      },
      { document: prepared.document, variables: request.variables, operationName: request.operationName },
    );
    const formatted = (result: ExecutionResult): LiveSubgraphResult => ({
      ...(result.data !== undefined ? { data: result.data } : {}),
      ...(result.errors ? { errors: result.errors.map((error) => this.formatError(error.toJSON(), error)) } : {}),
    });
    return isAsyncIterable(started) ? mapAsyncIterator(started, formatted) : formatted(started);
  }

  /** What the response level (response-cache.ts) asks of this subgraph: its viewer rule and its count of calls. */
  responseCaching(): ResponseCacheSubgraph {
    const { subgraph } = this;
    const admitCall = subgraph.admitCall;
    return {
      viewer: async (gatewayContext) => subgraph.cacheViewer?.(this.contextFor(gatewayContext)),
      ...(admitCall && {
        admitCall: async (gatewayContext, objectId) => {
          const context = this.contextFor(gatewayContext);
          try {
            await admitCall(context, objectId);
          } catch {
            // Refused: the operation runs, and this context's refusal answers it (the call keeps its admission).
            return undefined;
          }
          return { extensions: subgraph.responseExtensions?.(context), finish: () => subgraph.finishRequest?.(context) };
        },
      }),
    };
  }

  private contextFor(gatewayContext: Partial<GatewayContext>): object {
    const cache = gatewayContext.subgraphContexts;
    const existing = cache?.get(this.subgraph.name);
    if (existing) return existing;
    const context = this.subgraph.createContext({
      authorization: gatewayContext.authorization,
      requestId: gatewayContext.requestId,
      socialHost: gatewayContext.socialHost,
      signedRequest: gatewayContext.signedRequest,
      shared: gatewayContext.shared,
    });
    cache?.set(this.subgraph.name, context);
    return context;
  }

  private prepare(source: string, operationName: string | undefined): PreparedQuery {
    const key = operationName === undefined ? source : `${operationName}\n${source}`;
    const cached = this.prepared.get(key);
    if (cached) return cached;
    let document: DocumentNode;
    try {
      document = parse(source);
    } catch (error) {
      throw error instanceof GraphQLError ? withCode(error, 'GRAPHQL_PARSE_FAILED') : error;
    }
    const errors = validate(this.subgraph.schema, document);
    if (errors.length > 0) throw withCode(errors[0]!, 'GRAPHQL_VALIDATION_FAILED');
    const caching = cacheableDocument(this.subgraph.schema, document, operationName, source);
    if (source.length > DOCUMENT_CACHE_MAX_LENGTH) return { document, run: undefined, caching: { ...caching, cacheable: undefined } };
    // With the cache on, a query it may keep runs with its entities' ids selected, so that its reply's tags are exact.
    if (this.cache && caching.cacheable) document = caching.cacheable.document;
    if (this.prepared.size >= DOCUMENT_CACHE_SIZE) {
      // Drop the oldest entry (Map keeps insertion order).
      this.prepared.delete(this.prepared.keys().next().value!);
    }
    const prepared = { document, run: this.compile?.(this.subgraph.schema, document, operationName), caching };
    this.prepared.set(key, prepared);
    return prepared;
  }
}

/** The error with the `extensions.code` Apollo Server gives parse and validation errors on a subgraph's HTTP server. */
function withCode(error: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(error.message, {
    ...(error.nodes ? { nodes: error.nodes } : {}),
    ...(error.source ? { source: error.source } : {}),
    ...(error.positions ? { positions: error.positions } : {}),
    extensions: { ...error.extensions, code },
  });
}
