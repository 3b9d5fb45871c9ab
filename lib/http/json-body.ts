import express, { type RequestHandler } from 'express';
import { jsonNestsDeeperThan } from './json-nesting.ts';

/**
 * body-parser's JSON parser (express.json) with the limits every GraphQL door keeps: the body's size, and how deep its
 * arrays and objects nest — checked on the bytes before JSON.parse builds anything (body-parser's `verify` hook), so a
 * body of a million nested objects costs one scan, not a million objects.
 */
export function jsonBodyParser(options: { limitBytes: number; maxDepth: number }): RequestHandler {
  return express.json({
    limit: options.limitBytes,
    verify: (_req, _res, bytes) => {
      if (jsonNestsDeeperThan(bytes, options.maxDepth)) throw jsonTooDeep(options.maxDepth);
    },
  });
}

/** The body-parser error of a body nested past the bound: the client's 400, its message said as it is. */
export function jsonTooDeep(maxDepth: number): Error {
  return Object.assign(new Error(`the JSON nests arrays and objects deeper than ${maxDepth} levels (GRAPHQL_MAX_JSON_DEPTH)`), {
    status: 400,
    statusCode: 400,
    expose: true,
    type: JSON_TOO_DEEP,
  });
}

/** The `type` of that error (body-parser's errors carry one: entity.too.large, entity.parse.failed, …). */
export const JSON_TOO_DEEP = 'entity.too.deep';
