import { Agent as HttpAgent, STATUS_CODES } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

/**
 * undici is loaded by the first client made, synchronously (it ships CommonJS): the embedded system (`npm start`) never
 * makes one, and loading it is ~50 ms of start-up.
 */
const require = createRequire(import.meta.url);
let undici: typeof Undici | undefined;
function loadUndici(): typeof Undici {
  undici ??= require('undici') as typeof Undici;
  return undici;
}

/** A subgraph's reply as the data source needs it: the status, two headers, and the body as text. */
export interface SubgraphReply {
  status: number;
  statusText: string;
  contentType: string | undefined;
  cacheControl: string | undefined;
  text: string;
}

export interface SubgraphHttpClient {
  /** POSTs a JSON body; rejects on a network failure or when no whole reply came within the timeout. */
  post(body: string, headers: Readonly<Record<string, string>>): Promise<SubgraphReply>;
  /** The keep-alive pool, which the data source's multipart uploads to this subgraph share (closed with the client). */
  readonly agent: HttpAgent;
  /** Closes the keep-alive connections. */
  close(): void;
}

/**
 * A network failure, worded as @apollo/gateway's default client (make-fetch-happen) words it — callers see these
 * messages — with its system code.
 */
export class SubgraphFetchError extends Error {
  override readonly name = 'FetchError';
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/**
 * The gateway's client for one subgraph: keep-alive POSTs over undici's connection pool. It replaces @apollo/gateway's
 * default fetch (make-fetch-happen over node-fetch and agent-base), which costs several times the request itself on a
 * small query — a Request object and a Headers object per call, a cache layer the gateway never uses, and stack traces
 * for its option checks (bench/README.md, "Gateway comparison"); undici's pool costs a few µs less per POST than
 * node:http's ClientRequest and Agent. Every request is bounded by `timeoutMs` from the first byte sent to the last byte
 * received, so a stalled subgraph cannot hold a gateway request for ever. Network failures keep node:http's words (the
 * ones @apollo/gateway's default client passes on), so callers see the same messages as before. Uploads (multipart,
 * streamed) use the node:http `agent`.
 */
export function createSubgraphHttpClient(url: string, options: { timeoutMs: number }): SubgraphHttpClient {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  // LIFO keeps the most recently used connections busy and lets the others time out when load falls.
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, scheduling: 'lifo' })
    : new HttpAgent({ keepAlive: true, scheduling: 'lifo' });
  const pool = new (loadUndici().Pool)(target.origin, { pipelining: 1 });
  const path = `${target.pathname}${target.search}`;

  return {
    agent,
    async post(body, headers) {
      const controller = new AbortController();
      let replying = false;
      const timer = setTimeout(() => {
        controller.abort(Object.assign(new Error(`no reply within ${options.timeoutMs} ms`), { code: 'ETIMEDOUT' }));
      }, options.timeoutMs);
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
        throw fetchError(url, replying, controller.signal.aborted ? (controller.signal.reason as Error) : (error as Error));
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
 * A network failure in node:http's words: a connection closed before the reply is node's "socket hang up", one closed
 * in the middle of the body its "aborted"; refused connections and the like keep the system's own message.
 */
function fetchError(url: string, replying: boolean, error: Error & { code?: string }): SubgraphFetchError {
  const closed = error.code === 'UND_ERR_SOCKET' || error.code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' || error.code === 'ECONNRESET';
  const reason = closed && error.code !== 'ECONNRESET' ? (replying ? 'aborted' : 'socket hang up') : error.message;
  const code = closed ? 'ECONNRESET' : error.code;
  const message = replying ? `Invalid response body while trying to fetch ${url}: ${reason}` : `request to ${url} failed, reason: ${reason}`;
  return new SubgraphFetchError(message, code);
}
