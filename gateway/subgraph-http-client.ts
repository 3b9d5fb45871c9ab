import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

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
 * The gateway's client for one subgraph: plain node:http(s) POSTs over a pool of keep-alive connections. It replaces
 * @apollo/gateway's default fetch (make-fetch-happen over node-fetch and agent-base), which costs several times the
 * request itself on a small query — a Request object and a Headers object per call, a cache layer the gateway never uses,
 * and stack traces for its option checks (bench/README.md, "Gateway comparison"). Every request is bounded by `timeoutMs`
 * from the first byte sent to the last byte received, so a stalled subgraph cannot hold a gateway request for ever.
 */
export function createSubgraphHttpClient(url: string, options: { timeoutMs: number }): SubgraphHttpClient {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const send = secure ? httpsRequest : httpRequest;
  // LIFO keeps the most recently used connections busy and lets the others time out when load falls.
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, scheduling: 'lifo' })
    : new HttpAgent({ keepAlive: true, scheduling: 'lifo' });
  const requestOptions = {
    protocol: target.protocol,
    hostname: target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname,
    port: target.port,
    path: `${target.pathname}${target.search}`,
    method: 'POST',
    agent,
  };

  return {
    agent,
    post(body, headers) {
      return new Promise<SubgraphReply>((resolve, reject) => {
        let settled = false;
        let replying = false;
        const fail = (error: Error & { code?: string }) => {
          if (settled) return;
          settled = true;
          const message = replying
            ? `Invalid response body while trying to fetch ${url}: ${error.message}`
            : `request to ${url} failed, reason: ${error.message}`;
          reject(new SubgraphFetchError(message, error.code));
        };
        const request = send({
          ...requestOptions,
          headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        });
        const timer = setTimeout(() => {
          const error = Object.assign(new Error(`no reply within ${options.timeoutMs} ms`), { code: 'ETIMEDOUT' });
          fail(error);
          request.destroy(error);
        }, options.timeoutMs);
        request.once('error', (error) => {
          clearTimeout(timer);
          fail(error);
        });
        request.once('response', (response: IncomingMessage) => {
          replying = true;
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.once('error', (error) => {
            clearTimeout(timer);
            fail(error);
          });
          response.once('end', () => {
            clearTimeout(timer);
            if (settled) return;
            settled = true;
            resolve({
              status: response.statusCode ?? 0,
              statusText: response.statusMessage ?? '',
              contentType: response.headers['content-type'],
              cacheControl: response.headers['cache-control'],
              text: chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'),
            });
          });
        });
        request.end(body);
      });
    },
    close() {
      agent.destroy();
    },
  };
}
