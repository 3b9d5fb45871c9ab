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
import { expressMiddleware } from '@as-integrations/express5';
import express from 'express';
import { graphqlClientErrorFormat } from '../lib/http/http-client-errors.ts';
import { createHttpServer } from '../lib/http/http-server.ts';
import type { Config, SubgraphName } from '../lib/config.ts';
import { createCors } from '../lib/http/cors.ts';
import type { Logger } from '../lib/logger.ts';
import type { Subgraph } from '../subgraphs/subgraph.ts';
import { addressedUrl } from '../lib/auth/signed-request.ts';
import { uploadMiddleware } from '../lib/http/upload-middleware.ts';
import { graphqlTelemetryPlugin } from '../lib/telemetry/graphql-telemetry-plugin.ts';
import type { Telemetry } from '../lib/telemetry/telemetry.ts';
import { createGraphqlHardening } from '../lib/graphql/graphql-hardening.ts';
import { graphqlHttpFallbacks } from '../lib/graphql/graphql-http-fallbacks.ts';
import { exactInt64LiteralsRule } from './exact-int64-literals.ts';
import { createGraphiqlRoutes, GRAPHIQL_PATH } from './graphiql.routes.ts';
import { createLandingPagePlugin } from './landing-page.plugin.ts';
import { createGatewayContext, type GatewayContext } from './gateway-context.ts';
import { createGraphqlFastPath } from './graphql-fast-path.ts';
import { createOperationFastLane, type OperationFastLane } from './operation-fast-lane.ts';
import { installOperationCache } from './operation-cache-install.ts';
import { InProcessDataSource } from './in-process-data-source.ts';
import { PropagatingRemoteDataSource } from './remote-data-source.ts';
import { installResultShaping } from './result-shaping-install.ts';
import type { GraphQLFormattedError } from 'graphql';

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
  /** The composed supergraph SDL (schema/supergraph.graphql). */
  supergraphSdl: string;
  /** Subgraphs that run in this process (embedded mode). */
  localSubgraphs: Partial<Record<SubgraphName, Subgraph>>;
  /** Error formatter of the in-process subgraphs. */
  formatSubgraphError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
  /** The process's metrics, traces and probes (/health, /ready, /metrics are served beside /graphql). */
  telemetry: Telemetry;
}

export interface GatewayServer {
  apollo: ApolloServer<GatewayContext>;
  /** Runs operations Apollo Server has run before without its pipeline (operation-fast-lane.ts); the REST adapter's door. */
  lane: Pick<OperationFastLane, 'execute'>;
  /** The HTTP server serving /graphql (not yet listening). */
  httpServer: Server;
  /** True once the supergraph is loaded and until the gateway stops (readiness). */
  supergraphLoaded(): boolean;
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
  const shaping = installResultShaping();
  if (!shaping.installed) logger.warn({ reason: shaping.reason }, "result shaping: @apollo/gateway's own is used");
  const operationCache = installOperationCache();
  if (!operationCache.installed) logger.warn({ reason: operationCache.reason }, 'operation cache: each execution rebuilds its operation');
  const remotes: PropagatingRemoteDataSource[] = [];
  const gateway = new ApolloGateway({
    supergraphSdl: deps.supergraphSdl,
    logger,
    buildService: ({ name }): GraphQLDataSource => {
      const subgraphName = name as SubgraphName;
      if (config.gateway.mode === 'embedded') {
        const local = deps.localSubgraphs[subgraphName];
        if (!local) throw new Error(`subgraph ${name} is not available in this process`);
        return new InProcessDataSource(local, deps.formatSubgraphError);
      }
      const url = config.gateway.subgraphUrls[subgraphName];
      if (!url) throw new Error(`no URL configured for subgraph ${name} (SUBGRAPH_${name.toUpperCase()}_URL)`);
      const remote = new PropagatingRemoteDataSource({
        url,
        timeoutMs: config.gateway.subgraphTimeoutMs,
        tracing: deps.telemetry.tracing,
        trustedCallerSecret: config.graphql.trustedCallerSecret,
      });
      remotes.push(remote);
      return remote;
    },
  });

  const app = express();
  app.disable('x-powered-by');
  // No ETag: a GraphQL reply is not revalidated by anyone (POSTs are not cached), and Express would hash every body —
  // a SHA-1 over a deep read's ~200 KB per request. The REST adapter makes the same choice.
  app.set('etag', false);
  // POST /graphql with a JSON body takes the fast path once Apollo Server has started (graphql-fast-path.ts); the rest,
  // and every request when CORS is configured, goes through Express.
  let fastPath: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
  const httpServer = createHttpServer((req, res) => {
    if (!fastPath?.(req, res)) app(req, res);
  }, graphqlClientErrorFormat);
  // Operation limits, the persisted-operations safelist, suggestions hidden in production (lib/graphql/graphql-hardening.ts).
  const hardening = createGraphqlHardening(config.graphql, 'gateway');
  if (hardening.persistedOperations) {
    logger.info({ mode: hardening.persistedOperations.mode, operations: hardening.persistedOperations.size }, 'persisted-operations safelist loaded');
  }

  // Repeated documents skip Apollo Server's pipeline on the HTTP fast path (operation-fast-lane.ts). It must do what the
  // plugins below do to a successful response: a plugin added here that changes one is mirrored there.
  const lane = createOperationFastLane({ checkResolvedOperation: hardening.checkResolvedOperation, telemetry: deps.telemetry, logger });
  const plugins: ApolloServerPlugin<GatewayContext>[] = [
    ApolloServerPluginDrainHttpServer({ httpServer, stopGracePeriodMillis: config.telemetry.shutdownGraceMs }),
    // Nothing leaves the machine: no usage or schema reporting even if APOLLO_KEY happens to be set.
    ApolloServerPluginUsageReportingDisabled(),
    ApolloServerPluginSchemaReportingDisabled(),
    ApolloServerPluginInlineTraceDisabled(),
    ...hardening.plugins,
    forwardedExtensionsPlugin,
    lane.plugin,
    ...(deps.telemetry.metrics.enabled ? [graphqlTelemetryPlugin(deps.telemetry, 'gateway')] : []),
    config.gateway.landingPage
      ? // Apollo Sandbox, falling back to the offline IDE below when its CDN cannot be reached.
        createLandingPagePlugin({ localIdePath: GRAPHIQL_PATH })
      : ApolloServerPluginLandingPageDisabled(),
  ];

  const apollo = new ApolloServer<GatewayContext>({
    gateway: lane.gateway(gateway),
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

  if (config.corsOrigins.length === 0) {
    fastPath = createGraphqlFastPath({ apollo, lane, telemetry: deps.telemetry, logger, bodyLimitBytes: config.gateway.bodyLimitBytes, middleware: hardening.middleware });
  }
  app.use(deps.telemetry.http('gateway'));
  app.use(deps.telemetry.routes());
  // The offline GraphQL IDE follows the landing page's setting (GRAPHQL_LANDING_PAGE; off in production by default).
  if (config.gateway.landingPage) app.use(createGraphiqlRoutes({ graphqlPath: '/graphql' }));
  app.use('/graphql', (_req, res, next) => {
    res.locals.route = '/graphql';
    next();
  });
  if (config.corsOrigins.length > 0) app.use('/graphql', createCors(config.corsOrigins));
  app.use(
    '/graphql',
    // GraphQL multipart requests (uploads); Apollo Server's CSRF prevention makes them send Apollo-Require-Preflight.
    uploadMiddleware(config),
    express.json({ limit: config.gateway.bodyLimitBytes }),
    ...hardening.middleware,
    expressMiddleware(apollo, {
      context: async ({ req }) =>
        createGatewayContext(req.headers, { method: req.method, url: addressedUrl({ headers: req.headers, path: req.originalUrl }) }),
    }),
  );

  // Unknown paths and body-parser failures answer in GraphQL's own shape instead of Express's HTML page.
  app.use(...graphqlHttpFallbacks({ bodyLimitBytes: config.gateway.bodyLimitBytes, logger }));

  return {
    apollo,
    lane,
    httpServer,
    supergraphLoaded: () => loaded,
    stop: async () => {
      loaded = false;
      lane.close();
      await apollo.stop();
      for (const remote of remotes) remote.close();
    },
  };
}
