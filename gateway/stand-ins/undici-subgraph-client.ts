import { STATUS_CODES } from 'node:http';
import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import {
  SubgraphFetchError,
  timeoutError,
  uploadAgent,
  type SubgraphHttpClient,
  type SubgraphHttpClientOptions,
  type SubgraphReply,
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

  return {
    agent,
    post: (body, headers) => dispatchPost(pool, url, { path, body, headers, timeoutMs: options.timeoutMs }),
    close() {
      agent.destroy();
      pool.destroy().catch(() => undefined);
    },
  };
}

/**
 * One POST over the pool's dispatch API, with a handler of its own: the body gathered from its chunks, the two headers
 * read off the raw ones. Not `pool.request`: its AbortSignal, its RequestHandler and the Readable it hands the body
 * through cost about a third of the exchange on a small reply (bench/README.md, "Topologies"). The timeout settles the
 * call at once and aborts the request as soon as undici has one to abort (a request still queued for a connection is
 * aborted when it gets one, as undici does with a signal).
 */
function dispatchPost(
  pool: Undici.Pool,
  url: string,
  request: { path: string; body: string; headers: Readonly<Record<string, string>>; timeoutMs: number },
): Promise<SubgraphReply> {
  return new Promise<SubgraphReply>((resolve, reject) => {
    let abort: ((reason: Error) => void) | undefined;
    let settled = false;
    let replying = false;
    let timedOut: Error | undefined;
    let status = 0;
    let statusText = '';
    let contentType: string | undefined;
    let cacheControl: string | undefined;
    const chunks: Buffer[] = [];
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const timer = setTimeout(() => {
      timedOut = timeoutError(url, request.timeoutMs, replying);
      settle(() => reject(timedOut));
      abort?.(timedOut);
    }, request.timeoutMs);
    pool.dispatch(
      {
        path: request.path,
        method: 'POST',
        headers: { ...request.headers, 'content-type': 'application/json' },
        body: request.body,
        // The timer above bounds the whole exchange; undici's own timeouts (300 s) would only come later.
        headersTimeout: 0,
        bodyTimeout: 0,
      },
      {
        onConnect(abortRequest: (reason: Error) => void) {
          abort = abortRequest;
          if (timedOut) abortRequest(timedOut);
        },
        onHeaders(statusCode: number, rawHeaders: Buffer[], _resume: () => void, message: string) {
          replying = true;
          status = statusCode;
          statusText = message || (STATUS_CODES[statusCode] ?? '');
          for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
            const name = rawHeaders[i]!;
            // Only two names matter; their lengths (12 and 13) rule out most others before any decoding.
            if (name.length !== 12 && name.length !== 13) continue;
            const key = name.toString('latin1').toLowerCase();
            const value = rawHeaders[i + 1]!.toString('latin1');
            if (key === 'content-type') contentType = contentType === undefined ? value : `${contentType}, ${value}`;
            else if (key === 'cache-control') cacheControl = cacheControl === undefined ? value : `${cacheControl}, ${value}`;
          }
          return true;
        },
        onData(chunk: Buffer) {
          chunks.push(chunk);
          return true;
        },
        onComplete() {
          const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
          settle(() => resolve({ status, statusText, contentType, cacheControl, text }));
        },
        onError(error: Error) {
          settle(() => reject(fetchError(url, replying, error)));
        },
      } as unknown as Undici.Dispatcher.DispatchHandler,
    );
  });
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
