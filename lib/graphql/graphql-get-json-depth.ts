import type { RequestHandler } from 'express';
import { jsonTextNestsDeeperThan } from '../http/json-nesting.ts';
import { sendGraphqlError } from './graphql-operation-limits.ts';

/**
 * A GET request's JSON parameters (`variables`, `extensions`) held to the nesting bound that JSON bodies meet before they
 * are parsed (lib/http/json-body.ts), so that a query string is no way around it: deeper is 400 in GraphQL's shape.
 */
export function getJsonDepthMiddleware(maxDepth: number): RequestHandler {
  return (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !req.url.includes('?')) return next();
    const search = new URLSearchParams(req.url.slice(req.url.indexOf('?') + 1));
    for (const name of ['variables', 'extensions']) {
      const value = search.get(name);
      if (value !== null && jsonTextNestsDeeperThan(value, maxDepth)) {
        sendGraphqlError(
          res,
          400,
          'BAD_REQUEST',
          `the ${name} parameter nests arrays and objects deeper than ${maxDepth} levels (GRAPHQL_MAX_JSON_DEPTH)`,
        );
        return;
      }
    }
    next();
  };
}
