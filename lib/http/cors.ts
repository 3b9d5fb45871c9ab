import cors from 'cors';
import type { RequestHandler } from 'express';

/** CORS for browser front-ends on the configured origins (mount it only when some are configured). */
export function createCors(origins: readonly string[]): RequestHandler {
  return cors({
    origin: origins.includes('*') ? '*' : [...origins],
    // Apollo clients send these; preflights must allow them.
    allowedHeaders: ['authorization', 'content-type', 'apollo-require-preflight', 'x-apollo-operation-name', 'x-request-id'],
    exposedHeaders: ['www-authenticate', 'x-request-id'],
    maxAge: 600,
  });
}
