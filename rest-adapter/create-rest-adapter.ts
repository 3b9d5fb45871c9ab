import type { RequestListener } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { createCors } from '../lib/http/cors.ts';
import type { Logger } from '../lib/logger.ts';
import type { Telemetry } from '../lib/telemetry/telemetry.ts';
import type { GraphQLExecutor } from './graphql-executor.ts';
import { TypedErrorBody, type ClientErrorFormat } from '../lib/http/http-client-errors.ts';
import { rpcStatus, sendRpcStatus, sendThrownError } from './user-records/google-rpc-status.ts';
import { GRAPH_ERRORS } from './social-graph/graph-errors.ts';
import { standardError } from './media-upload/media-error-mapper.ts';
import { clientErrorProblem, PROBLEM_JSON } from './media-upload/media-v2-problems.ts';
import type { SocialHost } from '../contracts/social-graph.ts';
import { createApiDocsRoutes } from './docs/api-docs.routes.ts';
import { createMediaRoutes } from './media-upload/media.routes.ts';
import { createMediaV2Routes } from './media-upload/media-v2.routes.ts';
import { createSocialRoutes } from './social-graph/social.routes.ts';
import { createUserExampleRoutes } from './user-records/user-example.routes.ts';
import { createRestFastPath } from './stand-ins/rest-fast-path.ts';
import type { StandIns } from '../lib/stand-ins/stand-in-gate.ts';

export interface RestAdapterDeps {
  executor: GraphQLExecutor;
  corsOrigins: readonly string[];
  logger: Logger;
  bodyLimitBytes: number;
  /**
   * The social graph's host this listener serves (Areas B and C). The own-login host's listener also serves Areas A (and
   * D); the parent-platform host's listener serves the social paths only.
   */
  socialHost: SocialHost;
  /** Host names that select a social host whatever the listener (one proxy in front of both). */
  ownHostname?: string | undefined;
  parentHostname?: string | undefined;
  /** Area D's limits (the own-login host's listener serves the upload). */
  media: { maxBytes: number; base64BodyBytes: number };
  /** The process's metrics, traces and probes (/health, /ready, /metrics are served on every listener). */
  telemetry: Telemetry;
  /** Serve the API documents and Swagger UI (REST_API_DOCS); see rest-adapter/docs/api-docs.routes.ts. */
  apiDocs?: boolean;
  /** Base URL of the other listener (own-login ↔ parent-platform) once it listens, for the documents' servers. */
  siblingUrl?: () => string | undefined;
  /** Bounds of one `fields=` expansion on the Graph paths (REST_FIELDS_*). */
  fields?: { maxObjects: number; maxEdges: number; timeoutMs: number };
  /** Which stand-ins serve (lib/stand-ins/): the REST fast path is one. None when absent: Express serves every route. */
  standIns?: StandIns;
  /** The page `/` shows a browser (lib/http/home-page.ts); API clients get the area's answer as before. None when absent. */
  homePage?: RequestHandler;
}

/** Paths of Area A and the methods each answers, for 405 replies with an Allow header. */
const AREA_A_PATHS: { pattern: RegExp; methods: string[] }[] = [
  { pattern: /^\/api\/v1\/userExample\/list\/?$/, methods: ['POST'] },
  { pattern: /^\/api\/v1\/userExample\/?$/, methods: ['POST'] },
  { pattern: /^\/api\/v1\/userExample\/[^/]+\/?$/, methods: ['GET', 'PUT', 'DELETE'] },
];

/** The API documents and Swagger UI (rest-adapter/docs/): GET only. */
const API_DOCS_PATH = /^\/(apis\/|openapi\.json$)/;

/** A request no route served: 405 with Allow on a known path, 404 otherwise (google.rpc.Status). */
function unmatched(req: Request, res: Response): void {
  const known =
    AREA_A_PATHS.find((path) => path.pattern.test(req.path)) ??
    (req.method === 'OPTIONS' && API_DOCS_PATH.test(req.path) ? { methods: ['GET', 'HEAD'] } : undefined);
  if (known) {
    res.setHeader('Allow', known.methods.join(', '));
    res.status(405).json({ code: 12, message: `method ${req.method} not allowed on ${req.path}`, details: [] });
    return;
  }
  sendRpcStatus(res, 'NOT_FOUND', `no route for ${req.method} ${req.path}`);
}

/**
 * The body of what Node answers before any route (oversized headers, bad framing, too slow, CONNECT, a missing Host:
 * lib/http/http-client-errors.ts) on a REST listener, in the format of the area the path names — as the listener's own routes
 * would answer that path: the upload's under /1.1/ (on the own-login host, the one that serves it), google.rpc.Status
 * under /api/, for paths no area serves, and when the path did not arrive; the Graph envelope for everything else.
 */
export function restClientErrorFormat(socialHost: SocialHost): ClientErrorFormat {
  return ({ status, message, path }) => {
    if (socialHost === 'own' && path?.startsWith('/1.1/')) return standardError(status === 431 || status === 413 ? 324 : 44, message);
    // X API v2's media paths: a problem, as every other refusal there (media-v2-problems.ts).
    if (socialHost === 'own' && path?.startsWith('/2/')) return new TypedErrorBody(PROBLEM_JSON, clientErrorProblem(status, message));
    if (path === undefined || /^\/(api|1\.1)(\/|$)/.test(path)) {
      // A method no route serves (CONNECT) is grpc-gateway's routing answer: 405 with UNIMPLEMENTED, as unmatched() sends it.
      return status === 405 ? { code: 12, message, details: [] } : rpcStatus('INVALID_ARGUMENT', message);
    }
    return GRAPH_ERRORS.invalidParameter('Invalid parameter', message).body;
  };
}

/** A REST listener: what to serve, and the Express application behind it. */
export interface RestAdapter {
  /** The request listener: the fast path (stand-ins/rest-fast-path.ts) for the requests it takes, Express for the rest. */
  listener: RequestListener;
  /** Every route, including those the fast path also serves (with CORS configured, or an id Express must decode). */
  app: express.Express;
}

/**
 * The REST adapter: the spec's HTTP paths, each turned into a GraphQL operation run through the gateway. One router per
 * area; errors in each area's own format.
 */
export function createRestAdapter(deps: RestAdapterDeps): RestAdapter {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  const listener = `rest-${deps.socialHost}`;
  app.use(deps.telemetry.http(listener));
  if (deps.corsOrigins.length > 0) app.use(createCors(deps.corsOrigins));
  app.use(deps.telemetry.routes());
  if (deps.homePage) app.use(deps.homePage);
  // Express answers OPTIONS by itself on any path one of its routers serves (HTTP 200, the text "POST"). Area A and the
  // API documents answer it as any other method they do not serve: 405 with Allow, in google.rpc.Status. (The social and
  // upload paths handle every method in their own routers and formats; a CORS preflight was answered just above.)
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'OPTIONS' && /^\/(api|apis|openapi\.json)(\/|$)/.test(req.path)) {
      unmatched(req, res);
      return;
    }
    next();
  });
  if (deps.apiDocs) {
    app.use(
      createApiDocsRoutes({
        socialHost: deps.socialHost,
        ownHostname: deps.ownHostname,
        parentHostname: deps.parentHostname,
        siblingUrl: deps.siblingUrl,
      }),
    );
  }

  const userExample = deps.socialHost === 'own' ? createUserExampleRoutes(deps) : undefined;
  if (userExample) {
    app.use(userExample.router);
    app.use(createMediaRoutes({ executor: deps.executor, logger: deps.logger, ...deps.media }));
    app.use(createMediaV2Routes({ executor: deps.executor, logger: deps.logger, ...deps.media }));
  }
  app.use(
    createSocialRoutes({
      executor: deps.executor,
      logger: deps.logger,
      defaultHost: deps.socialHost,
      ownHostname: deps.ownHostname,
      parentHostname: deps.parentHostname,
      bodyLimitBytes: deps.bodyLimitBytes,
      metrics: deps.telemetry.metrics,
      ...(deps.fields && {
        expansionLimits: { maxObjects: deps.fields.maxObjects, maxEdges: deps.fields.maxEdges },
        timeoutMs: deps.fields.timeoutMs,
      }),
    }),
  );

  // Nothing matched: a known path with another method, or an unknown path.
  app.use(unmatched);

  // Body-parser failures (size, encoding) and anything unexpected.
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') {
      sendRpcStatus(res, 'INVALID_ARGUMENT', `request body exceeds the limit of ${deps.bodyLimitBytes} bytes`);
      return;
    }
    // Every other 4xx body-parser error is the request's fault too (a corrupt gzip/deflate body, a Content-Length that
    // does not match the body), never an internal error.
    const status = (error as { status?: unknown }).status;
    const clientFault = typeof status === 'number' && status >= 400 && status < 500;
    if (type === 'encoding.unsupported' || type === 'charset.unsupported' || type === 'request.aborted' || clientFault) {
      sendRpcStatus(res, 'INVALID_ARGUMENT', `unreadable request body: ${(error as Error).message}`);
      return;
    }
    sendThrownError(res, error, deps.logger);
  });

  // The fast path (a stand-in) only stands in for routes that nothing before them in the app touches: with CORS
  // configured, its middleware answers preflights and sets headers first, so everything goes through Express.
  const fastPath =
    userExample && deps.corsOrigins.length === 0 && deps.standIns?.enabled('rest-fast-path') === true
      ? createRestFastPath({ telemetry: deps.telemetry, logger: deps.logger, listener, byId: userExample.byId })
      : undefined;
  return { app, listener: fastPath ? (req, res) => void (fastPath(req, res) || app(req, res)) : app };
}
