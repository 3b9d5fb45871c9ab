import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { context, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { DatabaseHandle } from '../database/database.ts';
import type { Logger } from '../logger.ts';
import { createIncidentLog, type IncidentLog } from './incident-log.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { createReadiness, readinessHttpStatus, type Readiness } from './readiness.ts';
import { requestIdFrom, withRequestId } from '../request-context.ts';
import { createTracing, sharedWorkLinks, type Tracing, type TracingConfig } from './tracing.ts';

/**
 * What a process tells its operators: Prometheus metrics, OpenTelemetry traces, structured logs tied to a request id, and
 * liveness/readiness. One per process, made by the entrypoint's wiring (bin/system/) and handed to every front door.
 */
export interface Telemetry {
  /** The process's role: tributary (everything), gateway, subgraph-<name>, grpc. */
  readonly process: string;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly tracing: Tracing;
  readonly readiness: Readiness;
  /**
   * Express middleware for one HTTP listener, mounted first: the request id (the caller's X-Request-Id or a new one,
   * echoed in the reply and kept for every log line of the request), a SERVER span when tracing is on, the route's
   * metrics and one access-log line when the reply is done. Routes name themselves in `res.locals.route` when Express
   * cannot (catch-all routers).
   */
  http(listener: string): RequestHandler;
  /**
   * The same for a request served without Express (the gateway's POST /graphql, gateway/stand-ins/http-fast-path.ts; REST's
   * record reads, rest-adapter/stand-ins/rest-fast-path.ts), on a route known in advance: `handle` runs in the request id's
   * context. `path` is the request's path when it is not the route itself.
   */
  serve(listener: string, req: IncomingMessage, res: ServerResponse, route: string, handle: () => void, path?: string): void;
  /** GET /health (liveness), /ready (readiness, 503 when a check fails) and /metrics (Prometheus text). */
  routes(): RequestHandler;
  /**
   * Counts (and, with tracing, spans) every SQL statement of this handle, and reports its pool; logs the times it cannot
   * be reached once per incident (lib/telemetry/incident-log.ts).
   */
  observeDatabase(database: DatabaseHandle): void;
  /** Flushes traces (and stops the database incident log's reminders). */
  shutdown(): Promise<void>;
}

export interface TelemetryConfig {
  metricsEnabled: boolean;
  tracing: TracingConfig;
  /** Deadline of each readiness check. */
  readyTimeoutMs: number;
}

/** Paths of the probes themselves: logged at debug level only, so that a load balancer's probing does not flood the log. */
const PROBES = new Set(['/health', '/ready', '/metrics']);

/** How long a readiness report answers later probes (a load balancer probes every few seconds; a flood, more often). */
const READINESS_REUSE_MS = 1000;

export function createTelemetry(config: TelemetryConfig, processName: string, logger: Logger): Telemetry {
  const metrics = createMetrics({ enabled: config.metricsEnabled, process: processName });
  const tracing = createTracing(config.tracing, processName);
  // Probes within a second share one report (readiness.ts).
  const readiness = createReadiness({ timeoutMs: config.readyTimeoutMs, reuseMs: READINESS_REUSE_MS });

  /**
   * The request id, span, metrics and access-log line of one request on `listener`, around `next` (which runs in the
   * request id's context). `route` names the route once the reply is done.
   */
  function observe(listener: string, req: IncomingMessage, res: ServerResponse, path: string, route: () => string, next: () => void): void {
    const started = performance.now();
    const requestId = requestIdFrom(req.headers['x-request-id']);
    // Whatever the caller sent, the hops after this one see the id this hop logs with.
    req.headers['x-request-id'] = requestId;
    res.setHeader('x-request-id', requestId);
    const served = tracing.enabled
      ? tracing.startServerSpan(`${req.method} ${listener}`, req.headers, {
          'http.request.method': req.method ?? '',
          'url.path': path,
          'tributary.listener': listener,
        })
      : undefined;
    res.once('close', () => {
      const name = route();
      const status = res.writableFinished ? res.statusCode : 499;
      const seconds = (performance.now() - started) / 1000;
      const method = req.method ?? '';
      metrics.observeHttp(listener, method, name, status, seconds);
      if (served) {
        served.span.updateName(`${method} ${name}`);
        served.span.setAttribute('http.route', name);
        served.span.setAttribute('http.response.status_code', status);
        if (status >= 500) served.span.setStatus({ code: SpanStatusCode.ERROR });
        served.span.end();
      }
      // Method, route and status only: the URL's query (access_token) and the headers (credentials) are never logged.
      const line = { listener, method, route: name, status, durationMs: Math.round(seconds * 10_000) / 10 };
      withRequestId(requestId, () => {
        if (PROBES.has(path)) logger.debug(line, 'request');
        else logger.info(line, 'request');
      });
    });
    withRequestId(requestId, () => (served ? context.with(served.context, next) : next()));
  }

  function http(listener: string): RequestHandler {
    return (req: Request, res: Response, next: NextFunction) =>
      observe(
        listener,
        req,
        res,
        req.path,
        () => routeOf(req, res),
        () => next(),
      );
  }

  function routes(): RequestHandler {
    // A plain check of the path rather than a router: it runs in front of every request of the listener.
    return (req: Request, res: Response, next: NextFunction) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return next();
      switch (req.path) {
        case '/health':
          res.locals.route = '/health';
          res.json({ status: 'UP' });
          return;
        case '/ready':
          res.locals.route = '/ready';
          readiness.report().then((report) => res.status(readinessHttpStatus(report)).json(report), next);
          return;
        case '/metrics':
          res.locals.route = '/metrics';
          if (!metrics.enabled) {
            res.status(404).type('text/plain').send('metrics are off (METRICS_ENABLED=false)\n');
            return;
          }
          metrics.render().then(({ contentType, body }) => res.type(contentType).send(body), next);
          return;
        default:
          next();
      }
    };
  }

  const incidentLogs: IncidentLog[] = [];

  function observeDatabase(database: DatabaseHandle): void {
    metrics.trackPool(() => database.poolState());
    // The database unreachable is one incident for the operator, not a stack per failed request: the transports leave
    // these errors to this log (lib/graphql/graphql-errors.ts, subgraphs/users/grpc/grpc-status.ts). It ends when the
    // handle sees a statement answered — any statement of the process, a readiness probe's `select 1` included: proof
    // that the database answers again, which no error formatter could see (it only sees failures) and which a request
    // that succeeds without the database (a token check, a cached read) would not prove.
    const incidents = createIncidentLog({
      logger,
      what: 'database',
      impact: 'requests that need it fail with UNAVAILABLE until it answers again',
    });
    incidentLogs.push(incidents);
    database.observeReachability((event) => (event.reachable ? incidents.succeeded() : incidents.failed(event.error)));
    database.observeQueries((query) => {
      metrics.observeQuery(query.durationMs / 1000, query.failed);
      if (tracing.enabled) {
        // The statement already ran: its span is made afterwards, with its real start, under the request's span.
        const span = tracing.startSpan(query.sql.trimStart().split(/\s/, 1)[0]!.toUpperCase() || 'SQL', {
          kind: SpanKind.CLIENT,
          startTime: Date.now() - query.durationMs,
          attributes: { 'db.system.name': 'postgresql', 'db.query.text': query.sql },
          // A statement that answers several requests at once (coalesced reads) links to the traces of the others.
          links: sharedWorkLinks(),
        });
        if (query.failed) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      }
    });
  }

  return {
    process: processName,
    logger,
    metrics,
    tracing,
    readiness,
    http,
    serve: (listener, req, res, route, handle, path = route) => observe(listener, req, res, path, () => route, handle),
    routes,
    observeDatabase,
    shutdown: () => {
      for (const incidents of incidentLogs) incidents.close();
      return tracing.shutdown();
    },
  };
}

function routeOf(req: Request, res: Response): string {
  const named = res.locals.route;
  if (typeof named === 'string') return named;
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === 'string') return path;
  return 'unmatched';
}
