import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { ApolloServer, type ApolloServerOptionsWithGateway, type ApolloServerPlugin, type HTTPGraphQLResponse } from '@apollo/server';
import { ApolloServerPluginCacheControl } from '@apollo/server/plugin/cacheControl';
import {
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
  ApolloServerPluginSchemaReportingDisabled,
  ApolloServerPluginUsageReportingDisabled,
} from '@apollo/server/plugin/disabled';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginInlineTrace } from '@apollo/server/plugin/inlineTrace';
import { expressMiddleware } from '@as-integrations/express5';
import express from 'express';
import type { GraphQLFormattedError } from 'graphql';
import { graphqlClientErrorFormat } from '../lib/http/http-client-errors.ts';
import { createHttpServer } from '../lib/http/http-server.ts';
import { jsonBodyParser } from '../lib/http/json-body.ts';
import type { Config } from '../lib/config.ts';
import { createGraphqlHardening } from '../lib/graphql/graphql-hardening.ts';
import { graphqlHttpFallbacks } from '../lib/graphql/graphql-http-fallbacks.ts';
import type { Logger } from '../lib/logger.ts';
import { addressedUrl, encodeSignedRequest, SIGNED_REQUEST_HEADER } from '../lib/auth/signed-request.ts';
import { uploadMiddleware } from '../lib/graphql/upload-middleware.ts';
import { graphqlTelemetryPlugin } from '../lib/telemetry/graphql-telemetry-plugin.ts';
import type { Telemetry } from '../lib/telemetry/telemetry.ts';
import { apolloHeaders, IncomingHeaders, type GraphqlHttpRequest } from '../lib/graphql/graphql-http-request.ts';
import type { ResolvedOperation } from '../lib/graphql/graphql-hardening.ts';
import type { QueryCompiler } from '../lib/graphql/query-compiler.ts';
import type { Subgraph } from './subgraph.ts';
import { compiledSubgraphGateway } from './subgraph-executor.ts';
import { attachSubgraphWs } from './subgraph-ws-door.ts';

/** Apollo Server's answer to a request to /graphql (lib/graphql/graphql-http-request.ts). */
export interface SubgraphHttpReply {
  status: number;
  headers: Iterable<[string, string]>;
  body: HTTPGraphQLResponse['body'];
}

/**
 * A subgraph server's operation fast lane (stand-in `operation-fast-lane`, the gateway's own): a POST /graphql whose
 * document Apollo Server has run once is run on the executor without Apollo Server's request pipeline; anything else,
 * and any outcome with errors, is the pipeline's (the executor replays the lane's outcome: nothing runs twice).
 */
export interface SubgraphLane {
  /** Records the documents the pipeline ran; among the server's plugins. */
  plugin: ApolloServerPlugin<object>;
  /** The executor Apollo Server takes, wrapped to replay the lane's outcomes. */
  gateway(real: ApolloServerOptionsWithGateway<object>['gateway']): ApolloServerOptionsWithGateway<object>['gateway'];
  /** The reply, or undefined when the pipeline must answer (with the same context object). */
  serve(request: {
    body: unknown;
    headers: IncomingHeaders;
    context: object;
  }): Promise<{ status: number; headers: [string, string][]; body: string } | undefined>;
  close(): void;
}

/**
 * The fast engine of a subgraph server: the stand-ins the gateway's process runs its in-process subgraphs with, handed
 * in by the wiring once their gates have passed (bin/system/subgraph-engine.ts). Without them, Apollo Server on Express
 * with graphql-js serves every request, as the library's own route.
 */
export interface SubgraphEngine {
  /** Compiles the subgraph's queries (stand-in `jit-subgraph-execution`): Apollo Server executes them with it. */
  compile?: QueryCompiler;
  /**
   * Serves POST /graphql with a JSON body without Express (stand-in `http-fast-path`): reads the body, runs the
   * hardening middleware in the route's order, hands the request to `serveHttp` and writes the reply as the Express
   * integration does; answers false for a request it leaves to Express.
   */
  httpFastPath?: (parts: {
    serveHttp(request: GraphqlHttpRequest): Promise<SubgraphHttpReply>;
    middleware: readonly express.RequestHandler[];
    listener: string;
  }) => (req: IncomingMessage, res: ServerResponse) => boolean;
  /**
   * Makes the server's fast lane over what its plugins do (only with `compile` and `httpFastPath`: the lane runs on the
   * compiled executor, and takes the fast path's requests).
   */
  lane?: (parts: {
    server: string;
    checkResolvedOperation(operation: ResolvedOperation): void;
    responseExtensions(context: object): Record<string, unknown> | undefined;
    finishRequest(context: object): void;
  }) => SubgraphLane;
}

export interface SubgraphServer {
  apollo: ApolloServer<object>;
  httpServer: Server;
  stop(): Promise<void>;
}

/** Serves one subgraph over HTTP at /graphql, for the distributed topology (the gateway reaches it by URL). */
export async function createSubgraphServer(
  subgraph: Subgraph,
  deps: {
    config: Config;
    formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
    /** The process's metrics, traces and probes (/health, /ready, /metrics are served beside /graphql). */
    telemetry: Telemetry;
    logger: Logger;
    /** The page `/` shows a browser (lib/http/home-page.ts); API clients get the 404 below. None when absent. */
    homePage?: express.RequestHandler;
    /** The fast engine's parts that serve; none: the library's route alone. */
    engine?: SubgraphEngine;
  },
): Promise<SubgraphServer> {
  const app = express();
  app.disable('x-powered-by');
  // No ETag: a GraphQL reply is not revalidated by anyone (POSTs are not cached), and Express would hash every body —
  // a SHA-1 over the whole reply, a deep read's included, per request. The REST adapter makes the same choice.
  app.set('etag', false);
  // The fast path is made once Apollo Server is (whose drain plugin needs the HTTP server first).
  const front: { fastPath?: (req: IncomingMessage, res: ServerResponse) => boolean } = {};
  const httpServer = createHttpServer((req, res) => {
    if (!front.fastPath?.(req, res)) void app(req, res);
  }, graphqlClientErrorFormat);
  // Suggestions hidden in production; operation limits on direct callers when the gateway has a secret to show.
  const hardening = createGraphqlHardening(deps.config.graphql, 'subgraph');
  // The compiled engine, unless per-field traces are asked for (their plugin hooks every resolver through graphql-js).
  const compile = deps.config.gateway.inlineTracing ? undefined : deps.engine?.compile;
  // The lane does what the plugins below do to a successful reply (a plugin added here that changes one is mirrored
  // there); it serves only where the compiled executor and the fast path do.
  const lane =
    compile && deps.engine?.httpFastPath
      ? deps.engine.lane?.({
          server: subgraph.name,
          checkResolvedOperation: hardening.checkResolvedOperation,
          responseExtensions: (context) => subgraph.responseExtensions?.(context),
          finishRequest: (context) => subgraph.finishRequest?.(context),
        })
      : undefined;
  const executor = compile && compiledSubgraphGateway(subgraph.schema, compile);
  const apollo = new ApolloServer<object>({
    ...(executor ? { gateway: lane ? lane.gateway(executor) : executor } : { schema: subgraph.schema }),
    // The gateway introspects nothing at run time (it loads the composed supergraph); _service { sdl } stays available.
    introspection: deps.config.gateway.introspection,
    csrfPrevention: true,
    // The entrypoints own the process's signals and shut everything down in order (listeners, pools, gRPC).
    stopOnTerminationSignals: false,
    includeStacktraceInErrorResponses: false,
    hideSchemaDetailsFromClientErrors: hardening.hideSchemaDetailsFromClientErrors,
    validationRules: hardening.validationRules,
    formatError: (formatted, error) => hardening.formatError(deps.formatError(formatted, error), error),
    plugins: subgraphPlugins(subgraph, deps, httpServer, hardening.plugins, lane),
  });
  await apollo.start();
  app.use(deps.telemetry.http(`subgraph-${subgraph.name}`));
  app.use(deps.telemetry.routes());
  if (deps.homePage) app.use(deps.homePage);
  const header = (headers: IncomingHttpHeaders, name: string) => (typeof headers[name] === 'string' ? headers[name] : undefined);
  const contextOf = (headers: IncomingHttpHeaders, method: string, url: string) =>
    subgraph.createContext({
      authorization: headers.authorization,
      requestId: header(headers, 'x-request-id'),
      socialHost: header(headers, 'x-social-host'),
      // Behind the gateway the first hop's description of the client's request; called directly, this request's own.
      signedRequest: header(headers, SIGNED_REQUEST_HEADER) ?? encodeSignedRequest({ method, url: addressedUrl({ headers, path: url }) }),
    });
  const contextFor = (request: GraphqlHttpRequest): object | Error => {
    try {
      return contextOf(request.headers, request.method, request.url);
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  };
  app.use(
    '/graphql',
    (_req: express.Request, res: express.Response, next: express.NextFunction) => {
      res.locals.route = '/graphql';
      next();
    },
    // GraphQL multipart requests (the gateway forwards uploads that way); CSRF prevention still asks for a preflight header.
    uploadMiddleware(deps.config),
    jsonBodyParser({ limitBytes: deps.config.gateway.bodyLimitBytes, maxDepth: deps.config.graphql.maxJsonDepth }),
    ...hardening.middleware,
    expressMiddleware(apollo, {
      context: async ({ req }) => contextOf(req.headers, req.method, req.originalUrl),
    }),
  );
  front.fastPath = deps.engine?.httpFastPath?.({
    // As the Express integration hands a request to Apollo Server.
    serveHttp: async (request) => {
      // One context for the lane and, if it hands the request over, for the pipeline (which then replays its outcome); a
      // context that cannot be made is the pipeline's to report, as it reports a failing context function.
      const context = lane ? contextFor(request) : undefined;
      if (lane && context && !(context instanceof Error)) {
        const reply = await lane.serve({ body: request.body, headers: new IncomingHeaders(request.headers), context });
        if (reply) return { status: reply.status, headers: reply.headers, body: { kind: 'complete', string: reply.body } };
      }
      const response = await apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: { method: request.method, headers: apolloHeaders(request.headers), search: request.search, body: request.body },
        context: async () => {
          if (context instanceof Error) throw context;
          return context ?? contextOf(request.headers, request.method, request.url);
        },
      });
      return { status: response.status ?? 200, headers: response.headers, body: response.body };
    },
    middleware: hardening.middleware,
    listener: `subgraph-${subgraph.name}`,
  });
  // Unknown paths and body-parser failures answer in GraphQL's own shape instead of Express's HTML page.
  app.use(...graphqlHttpFallbacks({ bodyLimitBytes: deps.config.gateway.bodyLimitBytes, logger: deps.logger }));
  // Subscriptions over graphql-ws on the same /graphql (a subgraph with Subscription fields).
  const websockets = attachSubgraphWs({
    httpServer,
    subgraph,
    limits: deps.config.subscriptions,
    maxJsonDepth: deps.config.graphql.maxJsonDepth,
    maxTokens: deps.config.graphql.limits.maxTokens,
    validationRules: hardening.validationRules,
    formatError: (formatted, error) => hardening.formatError(deps.formatError(formatted, error), error),
    logger: deps.logger,
  });
  return {
    apollo,
    httpServer,
    stop: async () => {
      lane?.close();
      await websockets?.close();
      await apollo.stop();
    },
  };
}

/** The subgraph's Apollo Server plugins, in order (what a successful reply gets from them, the lane does too). */
function subgraphPlugins(
  subgraph: Subgraph,
  deps: { config: Config; telemetry: Telemetry },
  httpServer: Server,
  hardeningPlugins: readonly ApolloServerPlugin<object>[],
  lane: SubgraphLane | undefined,
): ApolloServerPlugin<object>[] {
  return [
    ApolloServerPluginDrainHttpServer({ httpServer, stopGracePeriodMillis: deps.config.telemetry.shutdownGraceMs }),
    ApolloServerPluginUsageReportingDisabled(),
    ApolloServerPluginSchemaReportingDisabled(),
    ApolloServerPluginLandingPageDisabled(),
    // Apollo Server's cache-control plugin writes Cache-Control from the request's cache policy and the schema's
    // `@cacheControl` hints. Behind the compiled executor (subgraph-executor.ts) it watches no resolver — the executor
    // restricts the policy by the document's hints once — so the resolvers run unwrapped: the plugin's wrapping and its
    // promises, on every field of every object, were a large part of a deep read's CPU (bench/README.md, "Gateway
    // comparison"). With Apollo Server's own execution (the stand-in off, or tracing on) the plugin watches as it always does.
    ApolloServerPluginCacheControl(),
    ...hardeningPlugins,
    ...(lane ? [lane.plugin] : []),
    {
      // What the request's context reports for the caller (the social graph's rate-limit usage), and its bookkeeping.
      async requestDidStart() {
        return {
          async willSendResponse({ contextValue, response }) {
            const reported = subgraph.responseExtensions?.(contextValue);
            if (reported && response.body.kind === 'single') {
              response.body.singleResult.extensions = { ...response.body.singleResult.extensions, ...reported };
            }
            subgraph.finishRequest?.(contextValue);
          },
        };
      },
    },
    ...(deps.telemetry.metrics.enabled ? [graphqlTelemetryPlugin(deps.telemetry, subgraph.name)] : []),
    // Per-field traces cost CPU on every request; only when asked for.
    deps.config.gateway.inlineTracing ? ApolloServerPluginInlineTrace() : ApolloServerPluginInlineTraceDisabled(),
  ];
}
