import type { IncomingHttpHeaders } from 'node:http';
import { HeaderMap } from '@apollo/server';

/**
 * An HTTP request to /graphql, its body already read (JSON, or a GraphQL multipart request) or undefined: what a route
 * or a fast path hands to the gateway's door or to a subgraph server's Apollo Server.
 */
export interface GraphqlHttpRequest {
  method: string;
  /** The request target as the client sent it, path and query string: what a signed request's description names. */
  url: string;
  /**
   * The query string Apollo Server reads ('' or '?…'): the client's, or what the hardening middleware made of it (a
   * persisted operation's id replaced by its text).
   */
  search: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** A request's headers as Apollo Server takes them, joined as @as-integrations/express5 1.1.2 joins a repeated one. */
export function apolloHeaders(headers: IncomingHttpHeaders): HeaderMap {
  const map = new HeaderMap();
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) map.set(key, Array.isArray(value) ? value.join(', ') : value);
  }
  return map;
}

/**
 * node's request headers read as Apollo Server's HeaderMap of them reads (names in lower case, repeated values joined
 * with ", ", as @as-integrations/express5 builds it), without copying them
 * for a request the fast lane serves (gateway/stand-ins/operation-fast-lane.ts reads them as its LaneHeaders).
 */
export class IncomingHeaders {
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
