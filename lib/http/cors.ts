import cors from 'cors';
import type { RequestHandler } from 'express';
import { LOG_POSITION_HEADER } from './log-position.ts';

/** CORS for browser front-ends on the configured origins (mount it only when some are configured). */
export function createCors(origins: readonly string[]): RequestHandler {
  return cors({
    origin: origins.includes('*') ? '*' : [...origins],
    // Apollo clients send these; preflights must allow them. The change log's position (issue 39) travels both ways: a
    // write's reply gives it, a read presents it to read its writes on any instance.
    allowedHeaders: [
      'authorization',
      'content-type',
      'apollo-require-preflight',
      'x-apollo-operation-name',
      'x-request-id',
      LOG_POSITION_HEADER,
      'if-none-match',
    ],
    exposedHeaders: ['www-authenticate', 'x-request-id', LOG_POSITION_HEADER, 'etag'],
    maxAge: 600,
  });
}
