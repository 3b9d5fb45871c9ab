import { setTimeout as delay } from 'node:timers/promises';
import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { GraphQLError } from 'graphql';
import { ERROR_CODES } from '../lib/errors.ts';
import { findUploads, postMultipartOperation, type FoundUpload } from '../lib/graphql/graphql-multipart.ts';
import { SIGNED_REQUEST_HEADER } from '../lib/auth/signed-request.ts';
import type { Tracing } from '../lib/telemetry/tracing.ts';
import { TRUSTED_CALLER_HEADER } from '../lib/http/trusted-caller.ts';
import { collectExtensions, type GatewayContext } from './gateway-context.ts';
import type { SubgraphHttpClient, SubgraphReply } from './subgraph-http-client.ts';
import type { SubgraphIncidents } from './subgraph-incidents.ts';
import { createSubgraphInstances, type CircuitOptions, type SubgraphInstances } from './subgraph-instances.ts';
import type { LiveSubgraphResult, SubscribingDataSource } from './live/live-execution.ts';
import { createSubgraphWsClients, type SubgraphWsClients } from './live/subgraph-ws-client.ts';
import type { RemoteFetchCaching, RemoteReply } from './fetch-cache/remote-fetch-caching.ts';
import { recordFetch, type RecordingContext } from './fetch-cache/response-record.ts';

type GatewayGraphQLResponse = Awaited<ReturnType<GraphQLDataSource<GatewayContext>['process']>>;

/** One instance of a subgraph: where it listens and the HTTP client that reaches it. */
export interface SubgraphEndpoint {
  url: string;
  /**
   * Bounded by SUBGRAPH_TIMEOUT_MS: undici's pool (stand-ins/undici-subgraph-client.ts) or @apollo/gateway's own fetcher
   * (subgraph-http-client.ts); closed with the data source.
   */
  client: SubgraphHttpClient;
}

export interface RemoteDataSourceOptions {
  /** The subgraph's name in the supergraph (what errors and logs name instead of its address). */
  name: string;
  /** Every instance of the subgraph (SUBGRAPH_<NAME>_URL lists them), at least one. */
  endpoints: readonly SubgraphEndpoint[];
  /** When an instance's circuit opens and for how long (gateway/subgraph-instances.ts). */
  circuit?: CircuitOptions;
  /** Outside production: the transport's own words for a failure, under the error's `extensions.reason`. */
  exposeReasons: boolean;
  /** Where failures and recoveries are told to the operator (gateway/subgraph-incidents.ts). */
  incidents: SubgraphIncidents;
  /** Counts a query's fetch sent again (tributary_subgraph_retries_total). */
  onRetry?: (subgraph: string) => void;
  /** Adds the trace context (traceparent) of the fetch to each subgraph request when tracing is on. */
  tracing?: Tracing | undefined;
  /** GRAPHQL_TRUSTED_CALLER_SECRET: lets the fetches past the subgraph servers' operation limits (lib/http/trusted-caller.ts). */
  trustedCallerSecret?: string | undefined;
  /**
   * The subgraph servers' SUBSCRIPTIONS_PER_CONNECTION and SUBSCRIPTION_MAX_MESSAGE_BYTES: how many subscription fetches
   * may share one WebSocket to them, and the message size their bound is made from (live/subgraph-ws-client.ts).
   */
  subscriptionLimits?: { perConnection: number; maxMessageBytes: number };
  /** The fetch cache, when it is on, and the subgraph's schema and viewer rule it keys replies by (fetch-cache/). */
  caching?: RemoteFetchCaching | undefined;
}

/** Attempts of one query's fetch: the first and at most two more, after a refused or reset connection. */
const QUERY_ATTEMPTS = 3;

/**
 * Library copy `remote-data-source` (lib/stand-ins/stand-in-registry.ts: RemoteGraphQLDataSource's request and reply
 * handling, held to it by test/unit/remote-data-source.comparison.test.ts).
 *
 * Reaches a subgraph over HTTP, carrying the caller's credentials, request id and signed-request description to it, and
 * forwarding uploads, which @apollo/gateway cannot do by itself (apollographql/federation#1385).
 *
 * It does what @apollo/gateway's RemoteGraphQLDataSource does for a fetch — the body `{query, variables,
 * operationName}`, the gateway's own headers (the inline-trace request) under the caller's, the subgraph's Cache-Control
 * folded into the response's cache policy, a non-2xx reply turned into an error — over its client: undici's pool (a
 * stand-in), or make-fetch-happen as the base class uses it when the stand-in is off.
 *
 * And what @apollo/gateway does not: several instances of a subgraph, taken in turn, one that keeps failing skipped for
 * a while (subgraph-instances.ts); a query's fetch (idempotent: a query or an entity lookup) sent again, to another
 * instance when there is one, when a connection is refused or reset or a proxy answers 502/503 — a subgraph restarting
 * or an instance killed costs its callers nothing. A mutation's fetch is sent at most once: to another instance only
 * when a connection was refused (nothing was sent), never after a reset or a proxy's reply (it may have run).
 * A timed-out fetch is not retried either (the subgraph may still be working on it; a retry would double its load).
 */
export class PropagatingRemoteDataSource implements GraphQLDataSource<GatewayContext>, SubscribingDataSource {
  readonly name: string;
  /** The first instance's URL. */
  readonly url: string;
  private readonly endpoints: readonly SubgraphEndpoint[];
  readonly instances: SubgraphInstances;
  private readonly tracing: Tracing | undefined;
  private readonly trustedCallerSecret: string | undefined;
  private readonly exposeReasons: boolean;
  private readonly incidents: SubgraphIncidents;
  private readonly onRetry: (subgraph: string) => void;
  private readonly subscriptionLimits: RemoteDataSourceOptions['subscriptionLimits'];
  /** Subscription fetches over graphql-ws (live/subgraph-ws-client.ts), made on first use. */
  private wsClients: SubgraphWsClients | undefined;
  private readonly caching: RemoteFetchCaching | undefined;

  constructor(options: RemoteDataSourceOptions) {
    if (options.endpoints.length === 0) throw new Error(`subgraph ${options.name} has no instance`);
    this.name = options.name;
    this.endpoints = options.endpoints;
    this.url = options.endpoints[0]!.url;
    this.instances = createSubgraphInstances(options.endpoints.length, options.circuit);
    this.exposeReasons = options.exposeReasons;
    this.incidents = options.incidents;
    this.onRetry = options.onRetry ?? (() => undefined);
    this.subscriptionLimits = options.subscriptionLimits;
    this.tracing = options.tracing;
    this.trustedCallerSecret = options.trustedCallerSecret;
    this.caching = options.caching;
  }

  /** The caller's headers the subgraph must see, and the trace context of this fetch (@apollo/gateway's fetch span). */
  private outgoingHeaders(context: Partial<GatewayContext>): Record<string, string> {
    const headers = propagatedHeaders(context);
    if (this.trustedCallerSecret) headers[TRUSTED_CALLER_HEADER] = this.trustedCallerSecret;
    this.tracing?.inject(headers);
    return headers;
  }

  async process(options: GraphQLDataSourceProcessOptions<GatewayContext>): Promise<GatewayGraphQLResponse> {
    const { request, context } = options;
    const uploads = findUploads(request.variables);
    if (uploads.length > 0) {
      const reply = await this.processUpload(options, uploads);
      await this.caching?.afterWrite(context);
      return reply;
    }
    if (!request.query) throw new Error('Missing query');
    const restrict = (hint: { maxAge: number; scope?: 'PRIVATE' | 'PUBLIC' }) => {
      // Only a fetch for an incoming operation has a response whose cache policy the subgraph's reply restricts.
      if (!('incomingRequestContext' in options)) return;
      const policy = options.incomingRequestContext.overallCachePolicy;
      if (policy && 'restrict' in policy) policy.restrict(hint);
    };
    const fetch = async (query: string, variables?: Record<string, unknown>): Promise<RemoteReply<GatewayGraphQLResponse>> => {
      const fetched = await this.fetch(options, query, variables);
      if (fetched.hint) restrict(fetched.hint);
      return { response: fetched.response, maxAgeSeconds: fetched.hint?.maxAge ?? 0 };
    };
    if (!this.caching) {
      // Nothing of this subgraph is kept: neither is a response that fetches from it (fetch-cache/response-cache.ts).
      recordFetch(context as RecordingContext, 'spoiled');
      return (await fetch(request.query)).response;
    }
    const outcome = await this.caching.through(
      { query: request.query, operationName: request.operationName, variables: request.variables },
      context,
      fetch,
    );
    if (outcome.fromCache) {
      const { maxAge, scope } = outcome.fromCache.policy;
      restrict({ maxAge: maxAge ?? 0, ...(scope !== undefined && { scope }) });
    }
    return outcome.response;
  }

  /** One fetch over HTTP: the subgraph's reply, and the cache hint of its Cache-Control when it answered 2xx. */
  private async fetch(
    options: GraphQLDataSourceProcessOptions<GatewayContext>,
    query: string,
    /** Sent instead of the request's own (an entity lookup asking for some of its representations only). */
    variables: Record<string, unknown> | undefined = options.request.variables,
  ): Promise<{ response: GatewayGraphQLResponse; hint?: { maxAge: number; scope?: 'PRIVATE' | 'PUBLIC' } }> {
    const { request, context } = options;
    const headers: Record<string, string> = {};
    // What the gateway itself asks of the subgraph (apollo-federation-include-trace when it collects traces), then the
    // caller's headers over it, as the base class applies them (willSendRequest after the request's own).
    if (request.http?.headers) for (const [name, value] of request.http.headers) headers[name.toLowerCase()] = value;
    Object.assign(headers, this.outgoingHeaders(context));
    const body = JSON.stringify({
      query,
      variables,
      operationName: request.operationName,
      extensions: request.extensions,
    });
    const sent = await this.send(body, headers, isQuery(query));
    if ('unavailable' in sent) return { response: this.unavailable(sent.unavailable) };
    const { reply } = sent;
    this.incidents.answered(this.name);
    const parsed = parseReplyBody(reply);
    if (reply.status < 200 || reply.status > 299) {
      // A subgraph answers request errors (variable coercion, validation) with HTTP 400 and a GraphQL body. The base class
      // would replace them by "400: Bad Request" (code INTERNAL_SERVER_ERROR); passing the subgraph's own errors on instead
      // gives the caller the same message and code as the embedded mode.
      if (isGraphqlErrorBody(parsed)) return { response: { errors: parsed.errors } };
      throw replyError(this.url, reply, parsed);
    }
    if (typeof parsed !== 'object' || parsed === null) throw new Error(`Expected JSON response body, but received: ${String(parsed)}`);
    const response = parsed as GatewayGraphQLResponse;
    collectExtensions(context, response.extensions);
    return { response, hint: cacheHint(reply.cacheControl) };
  }

  /**
   * Sends a fetch to an instance; a query's, again (another instance first) after a refused or reset connection or a
   * proxy's 502/503, up to QUERY_ATTEMPTS in all; a mutation's only after a refused connection, which sent nothing (an
   * instance restarting between its listener closing and its replacement opening), so it still runs at most once. Each
   * instance's circuit learns from each attempt.
   */
  private async send(
    body: string,
    headers: Record<string, string>,
    idempotent: boolean,
  ): Promise<{ reply: SubgraphReply } | { unavailable: string }> {
    const tried = new Set<number>();
    let reason = '';
    const attempts = QUERY_ATTEMPTS;
    const retryableCodes = idempotent ? RETRYABLE_CODES : UNSENT_CODES;
    for (let attempt = 0; attempt < attempts; attempt += 1) {
      const instance = this.instances.pick(tried);
      if (attempt > 0) {
        this.onRetry(this.name);
        // Another instance at once (a breath of jitter); the same one after a short, growing, jittered pause.
        await delay(tried.has(instance) ? (25 << attempt) * (0.5 + Math.random()) : Math.random() * 10);
      }
      tried.add(instance);
      let reply: SubgraphReply;
      try {
        reply = await this.endpoints[instance]!.client.post(body, headers);
      } catch (error) {
        this.instances.failed(instance);
        reason = error instanceof Error ? error.message : String(error);
        if (!retryableCodes.has((error as { code?: unknown }).code as string)) break;
        continue;
      }
      if (UNAVAILABLE_STATUSES.has(reply.status) && !isGraphqlErrorBody(parseReplyBody(reply))) {
        this.instances.failed(instance);
        reason = `${reply.status}: ${reply.statusText}`;
        if (!idempotent || !RETRYABLE_STATUSES.has(reply.status)) break;
        continue;
      }
      this.instances.answered(instance);
      return { reply };
    }
    return { unavailable: reason };
  }

  /**
   * A fetch the subgraph did not answer (refused, reset, cut short, timed out, or a proxy's 502–504): answered as the
   * subgraph's own error, so that @apollo/gateway nulls only the fields of this fetch and names the subgraph
   * (extensions.serviceName) and the path, with a code a client can act on — not the transport's message, which holds
   * the subgraph's internal address (kept under extensions.reason outside production, and in the incident log).
   */
  private unavailable(reason: string): GatewayGraphQLResponse {
    this.incidents.failed(this.name, reason);
    return {
      errors: [
        new GraphQLError(`The ${this.name} subgraph is unavailable. Retry the request later.`, {
          extensions: { code: SERVICE_UNAVAILABLE, ...(this.exposeReasons ? { reason } : {}) },
        }),
      ],
    };
  }

  /**
   * A subscription fetch: over graphql-ws to an instance taken in turn (its circuit open: the next), the caller's headers
   * in connection_init. A connection that fails ends the stream with this subgraph's SERVICE_UNAVAILABLE error.
   */
  async subscribe(
    request: { query: string; operationName: string | undefined; variables: Record<string, unknown> },
    context: GatewayContext,
  ): Promise<AsyncIterableIterator<LiveSubgraphResult>> {
    this.wsClients ??= createSubgraphWsClients(this.subscriptionLimits ?? {});
    const endpoint = this.endpoints[this.instances.pick()]!;
    return this.wsClients.subscribe(endpoint.url, this.outgoingHeaders(context), request, (reason) => {
      const { errors } = this.unavailable(reason);
      return { errors: (errors ?? []).map((error) => (error instanceof GraphQLError ? error.toJSON() : error)) };
    });
  }

  /** Closes the clients' idle connections and subscription connections (the gateway is stopping). */
  close(): void {
    for (const endpoint of this.endpoints) endpoint.client.close();
    void this.wsClients?.close();
  }

  /**
   * A fetch whose variables hold files (the base class would serialise them to `{}`): sent as a GraphQL multipart
   * request, each file streamed from the gateway's spooled copy straight into the request body.
   */
  private async processUpload(
    options: GraphQLDataSourceProcessOptions<GatewayContext>,
    uploads: FoundUpload[],
  ): Promise<GatewayGraphQLResponse> {
    const headers = this.outgoingHeaders(options.context);
    const request = {
      query: options.request.query ?? '',
      operationName: options.request.operationName,
      variables: options.request.variables ?? {},
    };
    // A mutation: one instance, one attempt.
    const instance = this.instances.pick();
    const endpoint = this.endpoints[instance]!;
    let reply;
    try {
      reply = await postMultipartOperation(endpoint.url, request, uploads, headers, endpoint.client.agent);
    } catch (error) {
      // A file the client never sent whole (a part missing from the body, a body cut short) fails the relay too: that is
      // the request's fault, not the subgraph's, and says nothing of the instance.
      const broken = await brokenUpload(uploads);
      if (broken) {
        throw new GraphQLError(`the file of variable "${broken.path.join('.')}" was not received whole: ${broken.reason}`, {
          extensions: { code: 'BAD_USER_INPUT' },
        });
      }
      this.instances.failed(instance);
      return this.unavailable((error as Error).message);
    }
    this.instances.answered(instance);
    this.incidents.answered(this.name);
    const body = reply.body as { data?: Record<string, unknown> | null; errors?: GatewayGraphQLResponse['errors'] } | undefined;
    if (body && typeof body === 'object' && (body.data !== undefined || isGraphqlErrorBody(reply.body))) {
      return { ...(body.data !== undefined ? { data: body.data } : {}), ...(body.errors ? { errors: body.errors } : {}) };
    }
    throw new GraphQLError(`${reply.status}: ${reply.statusText}`, {
      extensions: {
        code: 'INTERNAL_SERVER_ERROR',
        response: { url: endpoint.url, status: reply.status, statusText: reply.statusText, body: reply.text },
      },
    });
  }
}

/** The code of a subgraph that could not answer: UNAVAILABLE, as GraphQL says it (SERVICE_UNAVAILABLE). */
const SERVICE_UNAVAILABLE = ERROR_CODES.UNAVAILABLE.graphql;

/** Statuses with which a proxy or load balancer in front of a subgraph says the subgraph is not there. */
const UNAVAILABLE_STATUSES = new Set([502, 503, 504]);

/** Of those, the ones that say the request never reached it (504: it may have, and run out of time there). */
const RETRYABLE_STATUSES = new Set([502, 503]);

/** Connection failures after which a query is sent again: refused (nothing sent), reset or broken (it may have run: a query may run twice). */
const RETRYABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']);

/** Connection failures that prove nothing was sent: a mutation may go to another instance after them. */
const UNSENT_CODES = new Set(['ECONNREFUSED']);

/** Whether a subgraph operation only reads: a query or an entity lookup (the gateway writes `query …` or `{…}`). */
function isQuery(document: string): boolean {
  return /^\s*(?:query\b|\{)/.test(document);
}

/** The reply's body as the base class reads it: JSON when the subgraph says it is, text otherwise (or when it is not). */
function parseReplyBody(reply: SubgraphReply): unknown {
  const type = reply.contentType;
  if (type && (type.startsWith('application/json') || type.startsWith('application/graphql-response+json'))) {
    try {
      return JSON.parse(reply.text) as unknown;
    } catch {
      return reply.text;
    }
  }
  return reply.text;
}

/** A non-2xx reply without GraphQL errors, as the base class reports it. */
function replyError(url: string, reply: SubgraphReply, body: unknown): GraphQLError {
  const code = reply.status === 401 ? 'UNAUTHENTICATED' : reply.status === 403 ? 'FORBIDDEN' : undefined;
  return new GraphQLError(`${reply.status}: ${reply.statusText}`, {
    extensions: { response: { url, status: reply.status, statusText: reply.statusText, body }, ...(code ? { code } : {}) },
  });
}

/** The subgraph's Cache-Control as a cache hint (no max-age: not cacheable), as @apollo/gateway reads it. */
function cacheHint(header: string | undefined): { maxAge: number; scope?: 'PRIVATE' | 'PUBLIC' } {
  const hint: { maxAge: number; scope?: 'PRIVATE' | 'PUBLIC' } = { maxAge: 0 };
  if (!header) return hint;
  for (const directive of header.split(',')) {
    const [name = '', value] = directive.trim().toLowerCase().split('=');
    if (name === 'max-age' && value !== undefined && /^[0-9]+$/.test(value)) hint.maxAge = Number(value);
    else if (name === 'private') hint.scope = 'PRIVATE';
    else if (name === 'public') hint.scope = 'PUBLIC';
  }
  return hint;
}

/** The first upload whose file failed on the client's side (never arrived, or arrived cut short), and why. */
async function brokenUpload(uploads: readonly FoundUpload[]): Promise<{ path: (string | number)[]; reason: string } | undefined> {
  for (const { path, upload } of uploads) {
    try {
      const file = await upload.promise;
      const failure = file.capacitor.errored;
      if (failure) return { path, reason: failure.message };
    } catch (error) {
      return { path, reason: (error as Error).message };
    }
  }
  return undefined;
}

/** What a subgraph must see of the caller's request. */
function propagatedHeaders(context: Partial<GatewayContext>): Record<string, string> {
  const headers: Record<string, string> = {};
  if (context.authorization) headers.authorization = context.authorization;
  if (context.requestId) headers['x-request-id'] = context.requestId;
  if (context.socialHost) headers['x-social-host'] = context.socialHost;
  if (context.signedRequest) headers[SIGNED_REQUEST_HEADER] = context.signedRequest;
  return headers;
}

function isGraphqlErrorBody(body: unknown): body is { errors: GatewayGraphQLResponse['errors'] & object } {
  if (typeof body !== 'object' || body === null) return false;
  const errors = (body as { errors?: unknown }).errors;
  return (
    Array.isArray(errors) &&
    errors.length > 0 &&
    errors.every((error) => typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string')
  );
}
