import { GRAPH_READ_CACHE_HEADERS, sendConditionalJson } from '../../lib/http/conditional-json.ts';
import type { IncomingMessage } from 'node:http';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Logger } from '../../lib/logger.ts';
import type { Metrics } from '../../lib/telemetry/metrics.ts';
import type { SocialHost } from '../../contracts/social-graph.ts';
import { callerHeaders, LOG_POSITION_HEADER } from '../caller-headers.ts';
import type { GraphQLExecutor } from '../graphql-executor.ts';
import { FieldsSyntaxError } from './graph-fields.ts';
import { GRAPH_ERRORS, type GraphErrorReply, type GraphErrors } from './graph-errors.ts';
import { usageHeaders } from './social-usage.ts';
import { DEFAULT_EXPANSION_LIMITS, ExpansionBudget, type ExpansionLimits } from './field-expansion-budget.ts';
import { GraphReplyError } from './graph-reply-error.ts';
import { OTHER_AREAS, VERSION, type SocialRequest } from './social-route-table.ts';
import { metricsRoute, readParams } from './social-params.ts';
import { createSocialOperations } from './social-operations.ts';
import { dispatch, socialEdges } from './social-dispatch.ts';

/**
 * The Graph-style REST paths of Areas B and C: `/{version}/{node-id}[/{edge}]` on two hosts (own login, parent platform).
 * Each request becomes one GraphQL operation through the gateway: a fixed one (social.operations.graphql, typed in
 * generated/) or, for reads that follow `fields=`, one built for the request (social-operation-builder.ts). The services
 * decide everything (tokens, permissions, rules) and their errors come back as Graph error envelopes. What lives here is
 * only the Graph surface: path and version parsing, parameters from the query string or the body, `fields` expansion,
 * and the Graph JSON shapes — this router reads the request; social-dispatch.ts takes it to its handler, one of the
 * route families (social-reads.ts, social-writes.ts, social-webhook-edges.ts), which run their operations through
 * social-operations.ts.
 */

export interface SocialRoutesDeps {
  executor: GraphQLExecutor;
  logger: Logger;
  /** The host this listener serves when the Host header names neither configured host name. */
  defaultHost: SocialHost;
  ownHostname?: string | undefined;
  parentHostname?: string | undefined;
  bodyLimitBytes: number;
  graphErrors?: GraphErrors;
  /** Counts the requests a rate limit refuses. */
  metrics?: Pick<Metrics, 'observeRateLimited'>;
  /** What one `fields=` expansion may ask for (field-expansion-budget.ts). */
  expansionLimits?: ExpansionLimits;
  /**
   * How long one request's operation may run before the reply is the platform's error for too much data
   * (REST_FIELDS_TIMEOUT_MS). The budget bounds what a request can ask for; this bounds what it can cost when the data
   * behind it is dense.
   */
  timeoutMs?: number;
}

export function createSocialRoutes(deps: SocialRoutesDeps): Router {
  const errors = deps.graphErrors ?? GRAPH_ERRORS;
  const operations = createSocialOperations({
    executor: deps.executor,
    logger: deps.logger,
    errors,
    metrics: deps.metrics,
    timeoutMs: deps.timeoutMs,
  });
  const edges = socialEdges(operations);
  const router = express.Router({ caseSensitive: true, strict: false });
  // JSON bodies are read as text and parsed by lossless-json (readParams), so that a 64-bit id sent as a JSON number keeps
  // its digits. A POST or DELETE body without any Content-Type is a form, as the platform reads it: Graph clients send
  // their parameters so (fbgraph's hide/show and replies), with the same limit and parser as a declared form.
  const bodyParsers = [
    express.urlencoded({ extended: false, limit: deps.bodyLimitBytes, type: isFormBody }),
    express.text({ type: ['application/json', 'application/*+json'], limit: deps.bodyLimitBytes }),
  ];

  router.all(/.*/, bodyParsers, async (req: Request, res: Response, next: NextFunction) => {
    if (OTHER_AREAS.test(req.path)) {
      next();
      return;
    }
    const method = req.method.toLowerCase();
    if (method !== 'get' && method !== 'post' && method !== 'delete') {
      sendReply(res, errors.unsupportedOperation('get', req.path.split('/').filter(Boolean).pop() ?? ''));
      return;
    }
    let request: SocialRequest | undefined;
    try {
      const segments = req.path
        .split('/')
        .filter((segment) => segment !== '')
        .map(decodeURIComponent);
      const version = segments[0] !== undefined && VERSION.test(segments[0]) ? segments.shift() : undefined;
      request = socialRequestOf(req, method, version, deps);
      if (segments[0] !== undefined) res.locals.route = metricsRoute(version, segments[0], segments[1]);
      const body = await dispatch(operations, edges, request, segments);
      res.set(usageHeaders(request.usage));
      if (request.logPosition !== undefined) res.set(LOG_POSITION_HEADER, request.logPosition);
      // A read carries its ETag (a later call holding it is answered 304, counted as a call: §7); a write does not.
      if (method === 'get') sendConditionalJson(res, body, GRAPH_READ_CACHE_HEADERS);
      else res.status(200).json(body);
    } catch (error) {
      // The rate limits' usage of this call, as the social services reported it (refused calls included).
      if (request) res.set(usageHeaders(request.usage));
      sendFailure(res, error, errors, deps.logger);
    }
  });

  // Body-parser failures on these paths are answered in the Graph envelope too.
  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (OTHER_AREAS.test(req.path)) {
      next(error);
      return;
    }
    const type = (error as { type?: string }).type;
    const message =
      type === 'entity.too.large'
        ? `The request body exceeds the limit of ${deps.bodyLimitBytes} bytes.`
        : `The request body could not be read: ${(error as Error).message}`;
    sendReply(res, errors.invalidParameter('Invalid parameter', message));
  });

  return router;
}

/** The request a handler gets: its host, parameters, the caller's headers, its expansion budget and paging links. */
function socialRequestOf(
  req: Request,
  method: SocialRequest['method'],
  version: string | undefined,
  deps: SocialRoutesDeps,
): SocialRequest {
  const params = readParams(req);
  const requestUrl = new URL(req.originalUrl, `${req.protocol}://${req.get('host') ?? 'localhost'}`);
  const tokenInQuery = requestUrl.searchParams.get('access_token');
  const host = hostOf(req, deps);
  return {
    req,
    method,
    host,
    version,
    params,
    headers: callerHeaders(req, {
      authorization: params.access_token !== undefined ? `Bearer ${params.access_token}` : req.headers.authorization,
      socialHost: host,
    }),
    budget: new ExpansionBudget(deps.expansionLimits ?? DEFAULT_EXPANSION_LIMITS),
    usage: undefined,
    links: {
      requestUrl,
      edgeUrl: (parentId, edge) => {
        const url = new URL(`${version ? `/${version}` : ''}/${parentId}/${edge}`, requestUrl.origin);
        if (tokenInQuery !== null) url.searchParams.set('access_token', tokenInQuery);
        return url;
      },
    },
  };
}

/** The host a request is served as: the one its Host header names, else the listener's own. */
function hostOf(req: Request, deps: SocialRoutesDeps): SocialHost {
  const name = req.hostname?.toLowerCase();
  if (deps.parentHostname && name === deps.parentHostname) return 'parent';
  if (deps.ownHostname && name === deps.ownHostname) return 'own';
  return deps.defaultHost;
}

/** A request that failed, in the Graph envelope: its own reply, a `fields=` syntax error, a bad path, or the platform's unknown error. */
function sendFailure(res: Response, error: unknown, errors: GraphErrors, logger: Logger): void {
  if (error instanceof GraphReplyError) {
    sendReply(res, error.reply);
    return;
  }
  if (error instanceof FieldsSyntaxError) {
    sendReply(res, errors.syntaxError(error));
    return;
  }
  if (error instanceof URIError) {
    sendReply(res, errors.invalidParameter('Invalid parameter', 'The path is not valid percent-encoded UTF-8.'));
    return;
  }
  logger.error({ err: error }, 'social request failed');
  sendReply(res, isUnavailable(error) ? errors.unexpectedError(503) : errors.unknownError());
}

/**
 * A form body: declared as one, or a POST or DELETE body that declares no type at all. (body-parser calls this with the
 * request it was given, which this router's middleware always gets as an Express request.)
 */
function isFormBody(message: IncomingMessage): boolean {
  if (message.headers['content-type'] === undefined) return message.method === 'POST' || message.method === 'DELETE';
  return Boolean((message as Request).is('application/x-www-form-urlencoded'));
}

function sendReply(res: Response, reply: GraphErrorReply): void {
  res.status(reply.status).set(reply.headers).json(reply.body);
}

function isUnavailable(error: unknown): boolean {
  return (error as { code?: unknown }).code === 'UNAVAILABLE';
}
