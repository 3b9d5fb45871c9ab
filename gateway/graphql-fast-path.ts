import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { HeaderMap, type ApolloServer } from '@apollo/server';
import express, { type Request, type RequestHandler, type Response } from 'express';
import { addressedUrl } from '../lib/auth/signed-request.ts';
import { answerBodyFailure } from '../lib/graphql/graphql-http-fallbacks.ts';
import type { Logger } from '../lib/logger.ts';
import type { Telemetry } from '../lib/telemetry/telemetry.ts';
import { createGatewayContext, type GatewayContext } from './gateway-context.ts';
import { leanJsonBody } from './lean-json-body.ts';
import type { LaneHeaders, OperationFastLane } from './operation-fast-lane.ts';

export interface GraphqlFastPathDeps {
  apollo: ApolloServer<GatewayContext>;
  /** Serves documents the pipeline has seen before (operation-fast-lane.ts); the rest go to Apollo Server. */
  lane: OperationFastLane;
  telemetry: Telemetry;
  logger: Logger;
  bodyLimitBytes: number;
  /** The hardening middleware the Express route runs between the JSON parser and Apollo Server, in the same order. */
  middleware: readonly RequestHandler[];
}

/** `application/json`, optionally with the UTF-8 charset: the only bodies the fast path takes. */
const JSON_BODY = /^application\/json\s*(?:;\s*charset="?utf-8"?\s*)?$/i;

/**
 * The gateway's most common request — POST /graphql with a JSON body — served straight from node:http: the same steps
 * as the Express route (telemetry, body-parser's JSON parser with the same limit and errors — in the common case read
 * without it: lean-json-body.ts —, the hardening middleware, the operation fast lane or Apollo Server, with the same
 * context) without Express's router, request and response decoration, which cost about a tenth of a small query's
 * gateway CPU (bench/README.md, "Gateway comparison"). Anything else — another method or path, a query string, a
 * multipart or encoded body, or CORS configured — is left to Express (the function answers false).
 */
export function createGraphqlFastPath(deps: GraphqlFastPathDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const parseJson = express.json({ limit: deps.bodyLimitBytes });
  const steps: readonly RequestHandler[] = [leanJsonBody(parseJson, deps.bodyLimitBytes), ...deps.middleware];

  const fail = (res: ServerResponse, error: unknown) => answerBodyFailure(res, error, deps);

  const execute = async (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => {
    const context = createGatewayContext(req.headers, { method: 'POST', url: addressedUrl({ headers: req.headers, path: req.url ?? '/graphql' }) });
    const incoming = new IncomingHeaders(req.headers);
    const reply = await deps.lane.serve({ body: req.body, headers: incoming, context });
    if (reply) {
      sendComplete(res, reply.status, reply.headers, reply.body);
      return;
    }
    // The same context: if the lane ran the operation, its outcome travels with it to the pipeline's executor.
    const response = await deps.apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: 'POST', headers: new HeaderMap(incoming.entries()), search: '', body: req.body },
      context: async () => context,
    });
    if (response.body.kind === 'complete') {
      sendComplete(res, response.status ?? 200, response.headers, response.body.string);
      return;
    }
    for (const [key, value] of response.headers) res.setHeader(key, value);
    res.statusCode = response.status ?? 200;
    for await (const chunk of response.body.asyncIterator) res.write(chunk);
    res.end();
  };

  /** Runs the steps in order, as Express would, then Apollo Server; an error from any goes to `fail`. */
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
    deps.telemetry.serve('gateway', req, res, '/graphql', () => handle(req, res));
    return true;
  };
}

/** Writes a whole reply: status, headers, the body's length, the body. */
function sendComplete(res: ServerResponse, status: number, headers: Iterable<[string, string]>, body: string): void {
  res.statusCode = status;
  for (const [key, value] of headers) res.setHeader(key, value);
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}

/**
 * node's request headers read as Apollo Server's HeaderMap of them reads (names in lower case, repeated values joined
 * with ", "), without copying them for a request the lane serves.
 */
class IncomingHeaders implements LaneHeaders {
  constructor(private readonly raw: IncomingHttpHeaders) {}

  get(name: string): string | undefined {
    const key = name.toLowerCase();
    if (!Object.hasOwn(this.raw, key)) return undefined;
    const value = this.raw[key];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  *entries(): IterableIterator<[string, string]> {
    for (const key of Object.keys(this.raw)) {
      const value = this.get(key);
      if (value !== undefined) yield [key, value];
    }
  }
}

/** POST /graphql (no query string) with a JSON body and no content coding: what the fast path serves. */
export function takesFastPath(req: Pick<IncomingMessage, 'method' | 'url' | 'headers'>): boolean {
  if (req.method !== 'POST' || req.url !== '/graphql') return false;
  const type = req.headers['content-type'];
  if (type === undefined || !JSON_BODY.test(type)) return false;
  const encoding = req.headers['content-encoding'];
  return encoding === undefined || encoding.toLowerCase() === 'identity';
}
