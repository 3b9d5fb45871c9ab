import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { jsonBodyParser } from '../../lib/http/json-body.ts';
import { answerBodyFailure } from '../../lib/graphql/graphql-http-fallbacks.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Telemetry } from '../../lib/telemetry/telemetry.ts';
import type { GatewayDoor, GatewayHttpReply } from '../gateway-door-types.ts';
import { leanJsonBody } from './lean-json-body.ts';
import { writeStreamReply } from '../../lib/http/stream-reply.ts';

export interface HttpFastPathDeps {
  /**
   * Where the request goes once its body is read and the hardening middleware let it through: the gateway's door, or a
   * subgraph server's Apollo Server (subgraphs/subgraph-server.ts), which answers in the same form.
   */
  door: Pick<GatewayDoor, 'serveHttp'>;
  /** The listener the request is counted under (the Express route's name for it): `gateway`, `subgraph-<name>`. */
  listener?: string;
  telemetry: Telemetry;
  logger: Logger;
  bodyLimitBytes: number;
  /** How deep a body's JSON may nest (checked on its bytes before parsing). */
  maxJsonDepth: number;
  /** The hardening middleware the Express route runs between the JSON parser and the door, in the same order. */
  middleware: readonly RequestHandler[];
  /** Whether the lean JSON body reader (stand-in `lean-json-body`) reads the bodies; otherwise body-parser does. */
  leanJsonBody: boolean;
  /** The CORS handler the Express route runs first (CORS_ORIGINS configured), run first here too. */
  cors?: RequestHandler;
}

/** `application/json`, optionally with the UTF-8 charset: the only bodies the fast path takes. */
const JSON_BODY = /^application\/json\s*(?:;\s*charset="?utf-8"?\s*)?$/i;

/**
 * Stand-in `http-fast-path` (lib/stand-ins/stand-in-registry.ts): the most common request of the gateway and of a
 * subgraph server — POST /graphql with a JSON body — served straight from node:http, with the same steps as the Express
 * route (telemetry, body-parser's JSON parser with the same limit and errors — or the lean reader standing in for it —,
 * the hardening middleware, the gateway's door or the subgraph's Apollo Server) without Express's router and its
 * request and response decoration (bench/README.md, "Stand-ins").
 * With CORS_ORIGINS configured the same `cors` handler runs first, as on the Express route, so a browser's request is
 * served here too. Anything else — another method or path (a preflight), a query string, a multipart or encoded body —
 * is left to Express (the function answers false). Checked against express 5.3.0 and @as-integrations/express5 1.1.2 by
 * test/e2e/gateway/gateway-fast-path.test.ts and test/e2e/gateway/subgraph-fast-path.test.ts, which compare every reply
 * with the Express route's.
 */
export function createHttpFastPath(deps: HttpFastPathDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const parseJson = jsonBodyParser({ limitBytes: deps.bodyLimitBytes, maxDepth: deps.maxJsonDepth });
  const steps: readonly RequestHandler[] = [
    ...(deps.cors ? [deps.cors] : []),
    deps.leanJsonBody ? leanJsonBody(parseJson, { limitBytes: deps.bodyLimitBytes, maxDepth: deps.maxJsonDepth }) : parseJson,
    ...deps.middleware,
  ];

  const listener = deps.listener ?? 'gateway';
  const fail = (res: ServerResponse, error: unknown) => answerBodyFailure(res, error, deps);

  // The door owns the body from here (as on the Express route): a streamed reply must not keep it with the request. The
  // request to the door is made in a function of its own, so that nothing of it stays in the frame that awaits the
  // reply's end (a suspended async function keeps its locals and temporaries, used or not).
  const serve = (req: IncomingMessage & { body?: unknown }) =>
    deps.door.serveHttp({ method: 'POST', url: req.url ?? '/graphql', search: '', headers: req.headers, body: takeBody(req) });
  const execute = async (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => {
    await sendReply(res, await serve(req));
  };

  /** Runs the steps in order, as Express would, then the door; an error from any goes to `fail`. */
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const run = (index: number) => (error?: unknown) => {
      if (error !== undefined && error !== null && error !== 'route' && error !== 'router') {
        fail(res, error);
        return;
      }
      const step = steps[index];
      if (!step) {
        execute(req, res).catch((failure: unknown) => fail(res, failure));
        return;
      }
      try {
        // The steps read only the request's method, URL, headers and body, and answer through plain node:http calls
        // (sendGraphqlError), so Express's decorations of req and res are not needed.
        const result: unknown = step(req as Request, res as Response, run(index + 1));
        if (result instanceof Promise) result.catch((failure: unknown) => fail(res, failure));
      } catch (thrown) {
        fail(res, thrown);
      }
    };
    run(0)();
  };

  return (req, res) => {
    if (!takesFastPath(req)) return false;
    deps.telemetry.serve(listener, req, res, '/graphql', () => handle(req, res));
    return true;
  };
}

/** Writes the door's reply as Express's res.send would for a JSON body: status, headers, the body's length, the body. */
async function sendReply(res: ServerResponse, reply: GatewayHttpReply): Promise<void> {
  res.statusCode = reply.status;
  for (const [key, value] of reply.headers) res.setHeader(key, value);
  if (reply.body.kind === 'complete') {
    res.setHeader('content-length', Buffer.byteLength(reply.body.string));
    res.end(reply.body.string);
    return;
  }
  await writeStreamReply(res, reply.body.asyncIterator, reply.body.live);
}

/** POST /graphql (no query string) with a JSON body and no content coding: what the fast path serves. */
export function takesFastPath(req: Pick<IncomingMessage, 'method' | 'url' | 'headers'>): boolean {
  if (req.method !== 'POST' || req.url !== '/graphql') return false;
  const type = req.headers['content-type'];
  if (type === undefined || !JSON_BODY.test(type)) return false;
  const encoding = req.headers['content-encoding'];
  return encoding === undefined || encoding.toLowerCase() === 'identity';
}

/** The parsed body, taken from the request (which a streamed reply keeps open for as long as it lasts). */
export function takeBody(req: { body?: unknown }): unknown {
  const body = req.body;
  req.body = undefined;
  return body;
}
