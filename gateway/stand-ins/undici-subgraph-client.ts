import { STATUS_CODES } from 'node:http';
import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import {
  SubgraphFetchError,
  timeoutError,
  uploadAgent,
  type SubgraphHttpClient,
  type SubgraphHttpClientOptions,
} from '../subgraph-http-client.ts';

/**
 * Stand-in `undici-subgraph-client` (lib/stand-ins/stand-in-registry.ts): keep-alive POSTs to a subgraph over undici's
 * connection pool, in place of the fetcher @apollo/gateway's RemoteGraphQLDataSource makes (make-fetch-happen over
 * node-fetch and agent-base), which costs several times the request itself on a small query — a Request object and a
 * Headers object per call, a cache layer the gateway never uses, and stack traces for its option checks (bench/README.md,
 * "Stand-ins"). Network failures keep make-fetch-happen's words (test/e2e/gateway/gateway-subgraph-client.test.ts runs both
 * clients against the same failures). Uploads (multipart, streamed) use the node:http `agent`.
 *
 * undici is loaded by the first client made, synchronously (it ships CommonJS): the embedded system (`npm start`) never
 * makes one, and loading it costs start-up time.
 */
const require = createRequire(import.meta.url);
let undici: typeof Undici | undefined;
function loadUndici(): typeof Undici {
  undici ??= require('undici') as typeof Undici;
  return undici;
}

/** The longest a subgraph connection stays idle in the pool (see the pool below). */
export const IDLE_CONNECTION_MS = 4_000;

export function createUndiciSubgraphClient(url: string, options: SubgraphHttpClientOptions): SubgraphHttpClient {
  const target = new URL(url);
  const agent = uploadAgent(target);
  // An idle connection is kept at most 4 s whatever the subgraph's Keep-Alive hint (65 s): a subgraph instance shutting
  // down pauses longer than that (SHUTDOWN_DELAY_MS, README "A fleet behind a load balancer"), so by the time its listener
  // closes, every connection to it has been closed by a reply of the pause (Connection: close) or has idled out here —
  // none is left for a mutation to be sent on as it closes, where a reset could not be retried.
  const pool = new (loadUndici().Pool)(target.origin, { pipelining: 1, keepAliveMaxTimeout: IDLE_CONNECTION_MS });
  const path = `${target.pathname}${target.search}`;
  const timedOut = Symbol('timed out');

  return {
    agent,
    async post(body, headers) {
      const controller = new AbortController();
      let replying = false;
      const timer = setTimeout(() => controller.abort(timedOut), options.timeoutMs);
      try {
        const response = await pool.request({
          path,
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body,
          signal: controller.signal,
          // The timer above bounds the whole exchange; undici's own timeouts (300 s) would only come later.
          headersTimeout: 0,
          bodyTimeout: 0,
        });
        replying = true;
        const text = await response.body.text();
        return {
          status: response.statusCode,
          statusText: response.statusText || (STATUS_CODES[response.statusCode] ?? ''),
          contentType: single(response.headers['content-type']),
          cacheControl: single(response.headers['cache-control']),
          text,
        };
      } catch (error) {
        if (controller.signal.aborted) throw timeoutError(url, options.timeoutMs, replying);
        throw fetchError(url, replying, error as Error);
      } finally {
        clearTimeout(timer);
      }
    },
    close() {
      agent.destroy();
      pool.destroy().catch(() => undefined);
    },
  };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * A network failure in make-fetch-happen's words (node:http's reasons): a connection closed before the reply is node's
 * "socket hang up", one closed in the middle of the body its "aborted"; refused connections and the like keep the
 * system's own message.
 */
function fetchError(url: string, replying: boolean, error: Error & { code?: string }): SubgraphFetchError {
  const closed = error.code === 'UND_ERR_SOCKET' || error.code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' || error.code === 'ECONNRESET';
  const reason = closed && error.code !== 'ECONNRESET' ? (replying ? 'aborted' : 'socket hang up') : error.message;
  const code = closed ? 'ECONNRESET' : error.code;
  const message = replying
    ? `Invalid response body while trying to fetch ${url}: ${reason}`
    : `request to ${url} failed, reason: ${reason}`;
  return new SubgraphFetchError(message, code);
}
