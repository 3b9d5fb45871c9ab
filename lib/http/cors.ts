import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from 'cors';
import type { RequestHandler } from 'express';
import { LOG_POSITION_HEADER } from './log-position.ts';

/** Which browser origins may call the GraphQL and REST endpoints, and which request headers they may send. */
export interface CorsPolicy {
  /** CORS_ORIGINS: exact origins; `*` allows any. */
  origins: readonly string[];
  /** CORS_LOCAL_ORIGINS: a dev server's origins (localhost, 127.0.0.1, [::1], any port) too. */
  localOrigins: boolean;
  /** CORS_ALLOW_HEADERS; undefined mirrors the preflight's Access-Control-Request-Headers, as Apollo Router does. */
  allowHeaders: readonly string[] | undefined;
}

/** The policy the configuration gives (CORS_ORIGINS, CORS_LOCAL_ORIGINS, CORS_ALLOW_HEADERS). */
export function corsPolicyOf(config: {
  corsOrigins: readonly string[];
  corsLocalOrigins: boolean;
  corsAllowHeaders: readonly string[] | undefined;
}): CorsPolicy {
  return { origins: config.corsOrigins, localOrigins: config.corsLocalOrigins, allowHeaders: config.corsAllowHeaders };
}

/** The origins a dev server on this machine serves a page from (Vite, webpack, Next.js: any port). */
const LOCAL_ORIGIN = /^https?:\/\/(?:localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?$/i;

/** Whether a browser page from `origin` may call this server. */
export function originAllowed(policy: CorsPolicy, origin: string): boolean {
  return policy.origins.includes('*') || policy.origins.includes(origin) || (policy.localOrigins && LOCAL_ORIGIN.test(origin));
}

/** What the start-up banner says of the policy, and how to change it. */
export function describeCors(policy: CorsPolicy): string {
  const allowed = [
    ...(policy.origins.includes('*') ? ['any origin'] : policy.origins),
    ...(policy.localOrigins ? ['http://localhost:*, http://127.0.0.1:* (CORS_LOCAL_ORIGINS)'] : []),
  ];
  return allowed.length === 0
    ? 'no browser origin (set CORS_ORIGINS=https://app.example.com to allow a front-end on another origin)'
    : `${allowed.join(', ')}; CORS_ORIGINS adds origins`;
}

/**
 * CORS for browser front-ends, mounted on every HTTP route of the gateway and the REST adapter (the cors package): a
 * request from an allowed origin gets Access-Control-Allow-Origin (its own origin) and the exposed headers; a preflight
 * allows the headers the browser asks for (or CORS_ALLOW_HEADERS), for ten minutes. A preflight from an origin the policy
 * does not allow is refused here, 403 with a message that names the setting — before Apollo Server, whose CSRF
 * prevention would answer it 400 with advice that points the wrong way. A request without an Origin (a server-side
 * client, curl) is not a browser's: nothing is checked or added. Every reply says `Vary: Origin`.
 */
export function createCors(policy: CorsPolicy): RequestHandler {
  const handler = cors({
    // `*` as the cors package answers it (every reply says `*`); otherwise the request's own origin when allowed.
    origin: policy.origins.includes('*')
      ? '*'
      : (origin, callback) => callback(null, origin !== undefined && originAllowed(policy, origin) ? origin : false),
    ...(policy.allowHeaders && { allowedHeaders: [...policy.allowHeaders] }),
    // The change log's position (issue 39) travels both ways: a write's reply gives it, a read presents it.
    exposedHeaders: ['www-authenticate', 'x-request-id', LOG_POSITION_HEADER, 'etag'],
    maxAge: 600,
  });
  return (req, res, next) => {
    // Every reply depends on the Origin it was asked with: a shared cache must not give one origin's reply to another.
    if (!res.hasHeader('vary')) res.setHeader('vary', 'Origin');
    const origin = req.headers.origin;
    if (origin !== undefined && isPreflight(req) && !originAllowed(policy, origin)) {
      refusePreflight(res, origin);
      return;
    }
    handler(req, res, next);
  };
}

function isPreflight(req: IncomingMessage): boolean {
  return req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
}

function refusePreflight(res: ServerResponse, origin: string): void {
  const body = JSON.stringify({
    errors: [
      {
        message: `CORS: the origin ${origin.slice(0, 200)} is not allowed to call this server; list it in CORS_ORIGINS (comma-separated)`,
        extensions: { code: 'CORS_ORIGIN_NOT_ALLOWED' },
      },
    ],
  });
  res.writeHead(403, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), vary: 'Origin' });
  res.end(body);
}
