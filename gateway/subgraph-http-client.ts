import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { RemoteGraphQLDataSource } from '@apollo/gateway';

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
  /** The node:http keep-alive pool, which the data source's multipart uploads to this subgraph share (closed with the client). */
  readonly agent: HttpAgent;
  /** Closes the keep-alive connections. */
  close(): void;
}

export interface SubgraphHttpClientOptions {
  /** The longest one request may take, from the first byte sent to the last byte received. */
  timeoutMs: number;
}

/**
 * A network failure, worded as @apollo/gateway's default client (make-fetch-happen) words it — the reason of the
 * SERVICE_UNAVAILABLE error outside production, and the incident log — with its system code.
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

/** The node:http keep-alive agent for a subgraph's multipart uploads (LIFO: the most recently used connections stay busy). */
export function uploadAgent(url: URL): HttpAgent {
  return url.protocol === 'https:'
    ? new HttpsAgent({ keepAlive: true, scheduling: 'lifo' })
    : new HttpAgent({ keepAlive: true, scheduling: 'lifo' });
}

/** The timeout's failure, in the words of the other network failures (before the reply's head, or in its body). */
export function timeoutError(url: string, timeoutMs: number, replying: boolean): SubgraphFetchError {
  const reason = `no reply within ${timeoutMs} ms`;
  const message = replying
    ? `Invalid response body while trying to fetch ${url}: ${reason}`
    : `request to ${url} failed, reason: ${reason}`;
  return new SubgraphFetchError(message, 'ETIMEDOUT');
}

type Fetcher = NonNullable<ConstructorParameters<typeof RemoteGraphQLDataSource>[0]>['fetcher'] & {};

/**
 * The library's route: POSTs through the fetcher @apollo/gateway's RemoteGraphQLDataSource makes for itself
 * (make-fetch-happen, no retries, unbounded sockets), bounded by the timeout. The undici stand-in
 * (stand-ins/undici-subgraph-client.ts) serves in its place while its gate lets it; this one is the route it must match.
 */
export function createFetcherSubgraphClient(url: string, options: SubgraphHttpClientOptions): SubgraphHttpClient {
  const fetcher = new RemoteGraphQLDataSource({ url }).fetcher as Fetcher;
  const agent = uploadAgent(new URL(url));
  return {
    agent,
    async post(body, headers) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), options.timeoutMs);
      let replying = false;
      try {
        const response = await fetcher(url, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body,
          signal: controller.signal as never,
        });
        replying = true;
        const text = await response.text();
        return {
          status: response.status,
          statusText: response.statusText,
          contentType: response.headers.get('content-type') ?? undefined,
          cacheControl: response.headers.get('cache-control') ?? undefined,
          text,
        };
      } catch (error) {
        if (controller.signal.aborted) throw timeoutError(url, options.timeoutMs, replying);
        throw error;
      } finally {
        clearTimeout(timer);
      }
    },
    close() {
      agent.destroy();
    },
  };
}
