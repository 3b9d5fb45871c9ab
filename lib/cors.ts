import cors from 'cors';
import type { RequestHandler } from 'express';

/** CORS for browser front-ends on other origins; with no configured origin, no CORS header is sent (same origin only). */
export function createCors(origins: readonly string[]): RequestHandler {
  if (origins.length === 0) return (_req, _res, next) => next();
  return cors({
    origin: origins.includes('*') ? '*' : [...origins],
    // Apollo clients send these; preflights must allow them.
    allowedHeaders: ['authorization', 'content-type', 'apollo-require-preflight', 'x-apollo-operation-name', 'x-request-id'],
    exposedHeaders: ['www-authenticate', 'x-request-id'],
    maxAge: 600,
  });
}
