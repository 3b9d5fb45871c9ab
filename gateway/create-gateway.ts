import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { ApolloGateway, type GraphQLDataSource } from '@apollo/gateway';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import {
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
  ApolloServerPluginSchemaReportingDisabled,
  ApolloServerPluginUsageReportingDisabled,
} from '@apollo/server/plugin/disabled';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { graphqlClientErrorFormat } from '../lib/http/http-client-errors.ts';
import { createHttpServer } from '../lib/http/http-server.ts';
import { jsonBodyParser } from '../lib/http/json-body.ts';
import { writeStreamReply } from '../lib/http/stream-reply.ts';
import type { Config, SubgraphName } from '../lib/config.ts';
import { createCors } from '../lib/http/cors.ts';
import type { Logger } from '../lib/logger.ts';
import { createSubgraphIncidents, type SubgraphIncidents } from './subgraph-incidents.ts';
import type { SupergraphReloadOutcome, SupergraphReloadTrigger, SupergraphSource } from './supergraph-source.ts';
import type { Subgraph, SubgraphCacheViewing } from '../subgraphs/subgraph.ts';
import { uploadMiddleware } from '../lib/graphql/upload-middleware.ts';
import { graphqlTelemetryPlugin } from '../lib/telemetry/graphql-telemetry-plugin.ts';
import type { Telemetry } from '../lib/telemetry/telemetry.ts';
import { createGraphqlHardening, type GraphqlHardening } from '../lib/graphql/graphql-hardening.ts';
import { graphqlHttpFallbacks } from '../lib/graphql/graphql-http-fallbacks.ts';
import { exactInt64LiteralsRule } from './exact-int64-literals.ts';
import { createGraphiqlRoutes, GRAPHIQL_PATH } from './graphiql.routes.ts';
import { createLandingPagePlugin } from './landing-page.plugin.ts';
import type { GatewayContext } from './gateway-context.ts';
import { createGatewayDoor, type GatewayDoor, type GatewayHttpReply } from './gateway-door.ts';
import { InProcessDataSource } from './in-process-data-source.ts';
import { PropagatingRemoteDataSource } from './remote-data-source.ts';
import type { FetchCache } from './fetch-cache/fetch-cache.ts';
import { RemoteFetchCaching } from './fetch-cache/remote-fetch-caching.ts';
import { createResponseCaching, type ResponseCacheSubgraph } from './fetch-cache/response-cache.ts';
import { createFetcherSubgraphClient, type SubgraphHttpClient, type SubgraphHttpClientOptions } from './subgraph-http-client.ts';
import { createHttpFastPath } from './stand-ins/http-fast-path.ts';
import { createJitCompiler } from './stand-ins/jit-subgraph-execution.ts';
import type { QueryCompiler } from '../lib/graphql/query-compiler.ts';
import { setOperationCache } from './stand-ins/operation-cache.ts';
import { createOperationFastLane, type OperationFastLane } from './stand-ins/operation-fast-lane.ts';
import { setResultShaping } from './stand-ins/result-shaping-install.ts';
import { createUndiciSubgraphClient } from './stand-ins/undici-subgraph-client.ts';
import { createStandIns, type StandIns } from '../lib/stand-ins/stand-in-gate.ts';
import type { StandInId } from '../lib/stand-ins/stand-in-registry.ts';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { attachGraphqlWs } from './live/graphql-ws-door.ts';
import { createLiveExecutor, type LiveExecutorDeps } from './live/live-execution.ts';
import { deferLabelsRule } from './live/defer-labels-rule.ts';
import { createSubscriptionPlanner } from './live/subscription-planner.ts';

/**
 * A subscription that reaches Apollo Server's pipeline (a GET, an upload form, a JSON POST when the live path is not
 * serving) is refused before @apollo/gateway's executor, which would fail it as an internal error: subscriptions are
 * streamed by the door (gateway-door.ts) and over WebSocket (live/).
 */
const subscriptionsNeedAStream: ApolloServerPlugin<GatewayContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ operation }) {
        if (operation?.operation !== 'subscription') return;
        throw new GraphQLError(
          'A subscription is sent as a JSON POST with Accept: multipart/mixed;subscriptionSpec=1.0 or text/event-stream, or over a WebSocket (graphql-transport-ws) on /graphql.',
          { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } },
        );
      },
    };
  },
};

/** How often a multipart subscription reply sends a heartbeat part while no event comes (Apollo Router's 5 s). */
const MULTIPART_HEARTBEAT_MS = 5000;

/** Hands on what the subgraphs reported for the caller (gateway-context.ts, FORWARDED_EXTENSIONS) in the response's extensions. */
const forwardedExtensionsPlugin: ApolloServerPlugin<GatewayContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ contextValue, response }) {
        const forwarded = contextValue.responseExtensions;
        if (response.body.kind !== 'single' || !forwarded || Object.keys(forwarded).length === 0) return;
        response.body.singleResult.extensions = { ...response.body.singleResult.extensions, ...forwarded };
      },
    };
  },
};

export interface GatewayDeps {
  config: Config;
  logger: Logger;
  /** The composed supergraph (schema/supergraph.graphql, or SUPERGRAPH_FILE), fixed or reloadable (supergraph-source.ts). */
  supergraph: SupergraphSource;
  /** Subgraphs that run in this process (embedded mode). */
  localSubgraphs: Partial<Record<SubgraphName, Subgraph>>;
  /** Error formatter of the in-process subgraphs. */
  formatSubgraphError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
  /** The process's metrics, traces and probes (/health, /ready, /metrics are served beside /graphql). */
  telemetry: Telemetry;
  /** Which stand-ins serve (lib/stand-ins/); by default the configuration's switches, gated once here. */
  standIns?: StandIns;
  /** The page `/` shows a browser (lib/http/home-page.ts); API clients get the 404 below. None when absent. */
  homePage?: RequestHandler;
  /** The fetch cache (fetch-cache/; GATEWAY_CACHE), followed from the change log by whoever built it; none when off. */
  fetchCache?: FetchCache;
  /** Distributed mode with the cache on: each subgraph's schema and viewer rule (subgraphs/cache-viewing.ts). */
  cacheViewing?: Partial<Record<SubgraphName, SubgraphCacheViewing>>;
}

export interface GatewayServer {
  /** The one way into execution (gateway-door.ts): /graphql's routes use it, and it is the REST adapter's executor. */
  door: GatewayDoor;
  /** The HTTP server serving /graphql (not yet listening). */
  httpServer: Server;
  /** True once the supergraph is loaded and until the gateway stops (readiness). */
  supergraphLoaded(): boolean;
  /** Reads the supergraph again and swaps it in if it changed and builds; the one serving keeps serving otherwise. */
  reloadSupergraph(trigger?: SupergraphReloadTrigger): Promise<SupergraphReloadOutcome>;
  stop(): Promise<void>;
}

/**
 * The federation gateway: @apollo/gateway inside Apollo Server 5 on Express. Embedded mode plans over in-process
 * subgraphs; distributed mode reaches each subgraph at its configured URL (never the URL written in the supergraph file).
 */
export async function createGateway(deps: GatewayDeps): Promise<GatewayServer> {
  const { config, logger } = deps;
  // @apollo/gateway reports usage to Apollo (and probes cloud metadata endpoints for it) unless this variable says no
  // when it is constructed. The entrypoints set it; setting it here too means no embedder of the gateway (a test, the
  // bench, a script) can forget it: nothing leaves the machine.
  process.env.APOLLO_TELEMETRY_DISABLED = '1';
  const standIns = deps.standIns ?? createStandIns(config.standIns, logger);
  // The two patched exports hold for every gateway of the process: the last one created decides.
  patchExport(standIns, 'result-shaping', setResultShaping, logger);
  patchExport(standIns, 'operation-cache', setOperationCache, logger);
  const sources = createSubgraphSources(deps, standIns);
  const gateway = new ApolloGateway({
    supergraphSdl: deps.supergraph.manager,
    // Validated in production too: a reloaded file is checked before it replaces the one serving.
    validateSupergraph: true,
    logger,
    buildService: ({ name }): GraphQLDataSource => dataSourceFor(sources, name),
  });

  // Subscriptions are planned over the supergraph the gateway serves, the one it just loaded or reloaded (gateway/live/).
  const planner = createSubscriptionPlanner();
  gateway.onSchemaLoadOrUpdate(({ coreSupergraphSdl }) => planner.loaded(coreSupergraphSdl));

  const app = express();
  app.disable('x-powered-by');
  // No ETag: a GraphQL reply is not revalidated by anyone (POSTs are not cached), and Express would hash every body —
  // a SHA-1 over the whole reply, a deep read's included, per request. The REST adapter makes the same choice.
  app.set('etag', false);
  // POST /graphql with a JSON body takes the HTTP fast path (a stand-in) once Apollo Server has started; the rest, and
  // every request when CORS is configured or the stand-in is off, goes through Express. Both end at the door.
  let fastPath: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
  const httpServer = createHttpServer((req, res) => {
    if (!fastPath?.(req, res)) app(req, res);
  }, graphqlClientErrorFormat);
  // Operation limits, the persisted-operations safelist, suggestions hidden in production (lib/graphql/graphql-hardening.ts).
  const hardening = createGraphqlHardening(config.graphql, 'gateway');
  if (hardening.persistedOperations) {
    logger.info(
      { mode: hardening.persistedOperations.mode, operations: hardening.persistedOperations.size },
      'persisted-operations safelist loaded',
    );
  }

  // Repeated documents skip Apollo Server's pipeline (stand-in operation-fast-lane.ts). It must do what the plugins below
  // do to a successful response: a plugin added here that changes one is mirrored there.
  const lane = standIns.enabled('operation-fast-lane')
    ? createOperationFastLane<GatewayContext>({
        checkResolvedOperation: hardening.checkResolvedOperation,
        // The subgraphs' extensions the gateway hands on (gateway-context.ts), as its plugin adds them.
        responseExtensions: (context) => context.responseExtensions,
        server: 'gateway',
        telemetry: deps.telemetry,
        logger,
      })
    : undefined;
  const plugins = gatewayPlugins(deps, httpServer, hardening, lane);
  // A whole query's data kept when every fetch of it could be (fetch-cache/response-cache.ts), inside the lane.
  const executing = deps.fetchCache ? createResponseCaching(deps.fetchCache, sources.responding).gateway(gateway) : gateway;
  const apollo = new ApolloServer<GatewayContext>({
    gateway: lane ? lane.gateway(executing) : executing,
    introspection: config.gateway.introspection,
    csrfPrevention: true,
    // The entrypoints own the process's signals and shut everything down in order (listeners, pools, gRPC).
    stopOnTerminationSignals: false,
    includeStacktraceInErrorResponses: false,
    hideSchemaDetailsFromClientErrors: hardening.hideSchemaDetailsFromClientErrors,
    validationRules: [exactInt64LiteralsRule, ...hardening.validationRules],
    formatError: hardening.formatError,
    plugins,
  });
  await apollo.start();
  let loaded = true;
  const live = createLiveExecutor(liveExecutorDeps(deps, planner, sources, hardening));
  const door = createGatewayDoor({
    apollo,
    lane,
    ...(deps.fetchCache && { fetchCache: deps.fetchCache }),
    live: {
      executor: live,
      heartbeatMs: MULTIPART_HEARTBEAT_MS,
      onSlowConsumer: (transport) => deps.telemetry.metrics.observeSlowConsumerClose(transport),
      maxBufferedBytes: config.subscriptions.maxBufferedBytes,
    },
  });
  const websockets = attachGraphqlWs({
    httpServer,
    live,
    door,
    limits: config.subscriptions,
    maxJsonDepth: config.graphql.maxJsonDepth,
    logger,
    onSlowConsumer: () => deps.telemetry.metrics.observeSlowConsumerClose('websocket'),
  });

  // One CORS handler for both routes: the fast path runs it first, as the Express route does, so a browser's request
  // keeps the fast path (issue 38); its preflight (OPTIONS) is Express's, and rare (Access-Control-Max-Age).
  const cors = config.corsOrigins.length > 0 ? createCors(config.corsOrigins) : undefined;
  if (standIns.enabled('http-fast-path')) {
    fastPath = createHttpFastPath({
      ...(cors && { cors }),
      door,
      telemetry: deps.telemetry,
      logger,
      bodyLimitBytes: config.gateway.bodyLimitBytes,
      maxJsonDepth: config.graphql.maxJsonDepth,
      middleware: hardening.middleware,
      leanJsonBody: standIns.enabled('lean-json-body'),
    });
  }
  mountRoutes(deps, app, door, hardening, cors);

  return {
    door,
    httpServer,
    supergraphLoaded: () => loaded,
    reloadSupergraph: (trigger) => (loaded ? deps.supergraph.reload(trigger) : Promise.resolve('unchanged')),
    stop: async () => {
      loaded = false;
      deps.supergraph.close();
      lane?.close();
      await websockets.close();
      await apollo.stop();
      for (const remote of sources.remotes) remote.close();
      sources.incidents.close();
    },
  };
}

/** The subgraphs as the gateway reaches them: their data sources, built once each, and what the remote ones share. */
interface SubgraphSources {
  readonly deps: GatewayDeps;
  /** graphql-jit for embedded subgraphs, while that stand-in serves. */
  readonly compile: QueryCompiler | undefined;
  readonly createClient: (url: string, options: SubgraphHttpClientOptions) => SubgraphHttpClient;
  readonly incidents: SubgraphIncidents;
  readonly remotes: PropagatingRemoteDataSource[];
  /**
   * One data source per subgraph for the gateway's life: @apollo/gateway asks again when a reloaded supergraph names a
   * subgraph at another URL, but the gateway reaches subgraphs at their configured URLs, never the file's, so the
   * instances, their circuits and connections carry over a reload.
   */
  readonly services: Map<string, GraphQLDataSource>;
  /** What the response level of the fetch cache asks of each subgraph whose fetches it may keep, as they are built. */
  readonly responding: Map<string, ResponseCacheSubgraph>;
}

function createSubgraphSources(deps: GatewayDeps, standIns: StandIns): SubgraphSources {
  const compile = standIns.enabled('jit-subgraph-execution') ? createJitCompiler() : undefined;
  const createClient = standIns.enabled('undici-subgraph-client') ? createUndiciSubgraphClient : createFetcherSubgraphClient;
  const remotes: PropagatingRemoteDataSource[] = [];
  const incidents = createSubgraphIncidents(deps.logger);
  deps.telemetry.metrics.trackSubgraphCircuits(() =>
    remotes.map((remote) => ({ subgraph: remote.name, instances: remote.instances.size, open: remote.instances.openCircuits() })),
  );
  return { deps, compile, createClient, incidents, remotes, services: new Map(), responding: new Map() };
}

/** The subgraph's data source, built the first time @apollo/gateway asks for it. */
function dataSourceFor(sources: SubgraphSources, name: string): GraphQLDataSource {
  let service = sources.services.get(name);
  if (!service) {
    service = buildDataSource(sources, name);
    sources.services.set(name, service);
  }
  return service;
}

function buildDataSource(sources: SubgraphSources, name: string): GraphQLDataSource {
  const { config } = sources.deps;
  const subgraphName = name as SubgraphName;
  if (config.gateway.mode === 'embedded') {
    const local = sources.deps.localSubgraphs[subgraphName];
    if (!local) throw new Error(`subgraph ${name} is not available in this process`);
    const source = new InProcessDataSource(local, sources.deps.formatSubgraphError, sources.compile, sources.deps.fetchCache);
    if (sources.deps.fetchCache) sources.responding.set(name, source.responseCaching());
    return source;
  }
  const urls = config.gateway.subgraphInstances[subgraphName];
  if (!urls || urls.length === 0) throw new Error(`no URL configured for subgraph ${name} (SUBGRAPH_${name.toUpperCase()}_URL)`);
  const caching = remoteCaching(sources.deps, subgraphName);
  if (caching) sources.responding.set(name, caching.responseCaching());
  const remote = new PropagatingRemoteDataSource({
    name,
    endpoints: urls.map((url) => ({ url, client: sources.createClient(url, { timeoutMs: config.gateway.subgraphTimeoutMs }) })),
    exposeReasons: !config.production,
    incidents: sources.incidents,
    onRetry: (subgraph) => sources.deps.telemetry.metrics.observeSubgraphRetry(subgraph),
    tracing: sources.deps.telemetry.tracing,
    trustedCallerSecret: config.graphql.trustedCallerSecret,
    // The subgraph servers of a deployment share its configuration: their bounds on one connection are these.
    subscriptionLimits: { perConnection: config.subscriptions.perConnection, maxMessageBytes: config.subscriptions.maxMessageBytes },
    caching,
  });
  sources.remotes.push(remote);
  return remote;
}

/** The fetch cache in front of a remote subgraph, when it is on and knows the subgraph's schema and viewer rule. */
function remoteCaching(deps: GatewayDeps, name: SubgraphName): RemoteFetchCaching | undefined {
  const viewing = deps.cacheViewing?.[name];
  return deps.fetchCache && viewing ? new RemoteFetchCaching(name, deps.fetchCache, viewing) : undefined;
}

/** The gateway's Apollo Server plugins, in their order. */
function gatewayPlugins(
  deps: GatewayDeps,
  httpServer: Server,
  hardening: GraphqlHardening,
  lane: OperationFastLane | undefined,
): ApolloServerPlugin<GatewayContext>[] {
  const { config } = deps;
  return [
    ApolloServerPluginDrainHttpServer({ httpServer, stopGracePeriodMillis: config.telemetry.shutdownGraceMs }),
    // Nothing leaves the machine: no usage or schema reporting even if APOLLO_KEY happens to be set.
    ApolloServerPluginUsageReportingDisabled(),
    ApolloServerPluginSchemaReportingDisabled(),
    ApolloServerPluginInlineTraceDisabled(),
    ...hardening.plugins,
    forwardedExtensionsPlugin,
    subscriptionsNeedAStream,
    ...(lane ? [lane.plugin] : []),
    ...(deps.telemetry.metrics.enabled ? [graphqlTelemetryPlugin(deps.telemetry, 'gateway')] : []),
    config.gateway.landingPage
      ? // Apollo Sandbox, falling back to the offline IDE below when its CDN cannot be reached.
        createLandingPagePlugin({ localIdePath: GRAPHIQL_PATH })
      : ApolloServerPluginLandingPageDisabled(),
  ];
}

/** What the live executor (gateway/live/) runs with: the planner, the data sources and the gateway's own rules. */
function liveExecutorDeps(
  deps: GatewayDeps,
  planner: LiveExecutorDeps['planner'],
  sources: SubgraphSources,
  hardening: GraphqlHardening,
): LiveExecutorDeps {
  const { config } = deps;
  return {
    planner,
    dataSource: (name) => sources.services.get(name),
    validationRules: [exactInt64LiteralsRule, deferLabelsRule, ...hardening.validationRules],
    checkResolvedOperation: hardening.checkResolvedOperation,
    formatError: hardening.formatError,
    maxTokens: config.graphql.limits.maxTokens,
    perToken: config.subscriptions.perToken,
    maxSubscriptionBytes: config.subscriptions.maxMessageBytes,
    hideSuggestions: !config.graphql.fieldSuggestions,
    metrics: deps.telemetry.metrics,
    logger: deps.logger,
  };
}

/** Express's routes: telemetry and probes, the home page, the offline IDE, /graphql through the door, the fallbacks. */
function mountRoutes(
  deps: GatewayDeps,
  app: Express,
  door: GatewayDoor,
  hardening: GraphqlHardening,
  cors: RequestHandler | undefined,
): void {
  const { config } = deps;
  app.use(deps.telemetry.http('gateway'));
  app.use(deps.telemetry.routes());
  if (deps.homePage) app.use(deps.homePage);
  // The offline GraphQL IDE follows the landing page's setting (GRAPHQL_LANDING_PAGE; off in production by default).
  if (config.gateway.landingPage) app.use(createGraphiqlRoutes({ graphqlPath: '/graphql' }));
  app.use('/graphql', (_req, res, next) => {
    res.locals.route = '/graphql';
    next();
  });
  if (cors) app.use('/graphql', cors);
  app.use(
    '/graphql',
    // GraphQL multipart requests (uploads); Apollo Server's CSRF prevention makes them send Apollo-Require-Preflight.
    uploadMiddleware(config),
    jsonBodyParser({ limitBytes: config.gateway.bodyLimitBytes, maxDepth: config.graphql.maxJsonDepth }),
    ...hardening.middleware,
    (req: Request, res: Response, next: NextFunction) => {
      // The door owns the body from here: a streamed reply keeps the request for as long as a subscription is open, and
      // the request must not keep the body with it (the operation keeps what it needs: live/live-execution.ts).
      const body: unknown = req.body;
      req.body = undefined;
      door
        .serveHttp({ method: req.method, url: req.originalUrl, search: searchOf(req.url), headers: req.headers, body })
        .then((reply) => sendExpressReply(res, reply))
        .catch(next);
    },
  );

  // Unknown paths and body-parser failures answer in GraphQL's own shape instead of Express's HTML page.
  app.use(...graphqlHttpFallbacks({ bodyLimitBytes: config.gateway.bodyLimitBytes, logger: deps.logger }));
}

/**
 * Replaces one of @apollo/gateway's exports while its stand-in's gate lets it, Apollo's own otherwise; a file that does
 * not hold the export turns the stand-in off with a warning.
 */
function patchExport(standIns: StandIns, id: StandInId, set: (on: boolean) => void, logger: Logger): void {
  try {
    set(standIns.enabled(id));
  } catch (error) {
    logger.warn({ standIn: id, err: error }, "stand-in off, the library's own route serves");
  }
}

/** The query string of a request target ('' or '?…'), as @as-integrations/express5 1.1.2 reads it from req.url. */
function searchOf(target: string): string {
  const at = target.indexOf('?');
  return at === -1 ? '' : target.slice(at).split('#', 1)[0]!;
}

/** Writes the door's reply through Express, as @as-integrations/express5 1.1.2 does (res.send sets the length and charset). */
async function sendExpressReply(res: Response, reply: GatewayHttpReply): Promise<void> {
  for (const [key, value] of reply.headers) res.setHeader(key, value);
  res.statusCode = reply.status;
  if (reply.body.kind === 'complete') {
    res.send(reply.body.string);
    return;
  }
  await writeStreamReply(res, reply.body.asyncIterator, reply.body.live);
}
