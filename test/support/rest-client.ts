/**
 * A small fetch-based client for front-door REST tests: it keeps the raw reply text (so tests can check exact digits and
 * the absence of keys) next to the parsed body, and sends bodies either as JSON values or as raw text.
 */

export interface RestReply {
  status: number;
  headers: Headers;
  /** The reply exactly as sent. */
  text: string;
  /** The reply parsed as JSON, or undefined when it is not JSON. */
  body: any;
}

export interface RestRequestOptions {
  /** A bearer token; sent as "Authorization: Bearer <token>". */
  token?: string;
  /** The whole Authorization header value (wins over token). */
  authorization?: string;
  /** A value serialised with JSON.stringify. */
  json?: unknown;
  /** A body sent byte for byte (malformed JSON, numbers beyond 2^53). */
  raw?: string;
  headers?: Record<string, string>;
}

export interface RestClient {
  request(method: string, path: string, options?: RestRequestOptions): Promise<RestReply>;
}

export function createRestClient(baseUrl: string): RestClient {
  return {
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
      if (options.authorization !== undefined) headers.authorization = options.authorization;
      else if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
      let body: string | undefined;
      if (options.raw !== undefined) body = options.raw;
      else if (options.json !== undefined) body = JSON.stringify(options.json);
      if (body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
        headers['content-type'] = 'application/json';
      }
      const response = await fetch(new URL(path, baseUrl), { method, headers, body });
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: response.status, headers: response.headers, text, body: parsed };
    },
  };
}

/** Area A's google.rpc.Status bodies live with the rest of its wording; re-exported for the tests that import them from here. */
export { badRequestBody, statusBody } from './user-example-errors.ts';
