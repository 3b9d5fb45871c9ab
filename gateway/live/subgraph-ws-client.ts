import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { LiveSubgraphResult } from './live-execution.ts';
import { SUBGRAPH_MESSAGE_BYTES_FACTOR } from '../../lib/http/graphql-ws-listener.ts';

/**
 * Subscription fetches to subgraph servers over graphql-ws (distributed mode): graphql-ws's own client, one WebSocket
 * per instance and caller (the caller's credentials travel in connection_init, as a query's travel in its headers; the
 * operation's request id in its subscribe message), many subscriptions of that caller multiplexed on it — at most
 * `perConnection` (the subgraph server's SUBSCRIPTIONS_PER_CONNECTION, which would refuse the next), a caller with more
 * gets another connection —, each closed by the client as soon as the last of its subscriptions ends (lazy). At most
 * `maxClients` such clients are kept; the least recently used idle one goes first.
 *
 * A subscription whose connection fails (the subgraph instance stopped or restarted, a network cut) ends with one
 * result carrying SERVICE_UNAVAILABLE, which tells the client to resubscribe with `after` — its events wait in the log.
 */

export interface SubgraphWsClients {
  subscribe(
    url: string,
    headers: Readonly<Record<string, string>>,
    request: { query: string; operationName: string | undefined; variables: Record<string, unknown> },
    unavailable: (reason: string) => LiveSubgraphResult,
  ): AsyncIterableIterator<LiveSubgraphResult>;
  close(): Promise<void>;
}

interface Entry {
  client: Client;
  active: number;
}

/**
 * Headers of one operation rather than of its caller (the request id, the trace context): sent with each subscribe, in
 * its `extensions.headers`, and kept out of the connection's key — with them in it, every subscription had a WebSocket
 * of its own to the subgraph.
 */
const PER_OPERATION_HEADERS = new Set(['x-request-id', 'traceparent', 'tracestate']);

export function createSubgraphWsClients(
  options: { maxClients?: number; keepAliveMs?: number; perConnection?: number; maxMessageBytes?: number } = {},
): SubgraphWsClients {
  const maxClients = options.maxClients ?? 10_000;
  const perConnection = options.perConnection ?? 100;
  // The subgraph servers' bound on one message: a larger subscribe would close the connection the caller's other
  // subscriptions share, so it is refused here, alone.
  const maxMessageBytes = (options.maxMessageBytes ?? 65_536) * SUBGRAPH_MESSAGE_BYTES_FACTOR;
  const clients = new Map<string, Entry>();

  /** The caller's connection with room for one more subscription: the first of its connections that has some, or a new one. */
  function clientFor(url: string, headers: Readonly<Record<string, string>>): Entry {
    const caller = `${url}\n${JSON.stringify(headers)}`;
    let shard = 0;
    while ((clients.get(`${caller}\n${shard}`)?.active ?? 0) >= perConnection) shard += 1;
    const key = `${caller}\n${shard}`;
    const existing = clients.get(key);
    if (existing) {
      // Most recently used last.
      clients.delete(key);
      clients.set(key, existing);
      return existing;
    }
    if (clients.size >= maxClients) {
      for (const [oldKey, entry] of clients) {
        if (entry.active > 0) continue;
        clients.delete(oldKey);
        void entry.client.dispose();
        break;
      }
    }
    const entry: Entry = {
      client: createClient({
        url: url.replace(/^http/, 'ws'),
        webSocketImpl: WebSocket,
        connectionParams: { ...headers },
        lazy: true,
        lazyCloseTimeout: 0,
        retryAttempts: 0,
        keepAlive: options.keepAliveMs ?? 10_000,
      }),
      active: 0,
    };
    clients.set(key, entry);
    return entry;
  }

  return {
    subscribe(url, headers, request, unavailable) {
      const caller: Record<string, string> = {};
      const operation: Record<string, string> = {};
      for (const [name, value] of Object.entries(headers))
        (PER_OPERATION_HEADERS.has(name.toLowerCase()) ? operation : caller)[name] = value;
      const payload = {
        query: request.query,
        variables: request.variables,
        ...(request.operationName ? { operationName: request.operationName } : {}),
        ...(Object.keys(operation).length > 0 ? { extensions: { headers: operation } } : {}),
      };
      if (Buffer.byteLength(JSON.stringify({ id: '00000000-0000-0000-0000-000000000000', type: 'subscribe', payload })) > maxMessageBytes) {
        return once({
          errors: [
            {
              message: `This subscription's fetch is larger than the subgraph's servers take in one message (${maxMessageBytes} bytes).`,
              extensions: { code: 'BAD_REQUEST' },
            },
          ],
        });
      }
      const entry = clientFor(url, caller);
      entry.active += 1;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        entry.active -= 1;
      };
      const upstream = entry.client.iterate(payload);
      let failed = false;
      const iterator: AsyncIterableIterator<LiveSubgraphResult> = {
        [Symbol.asyncIterator]() {
          return this;
        },
        async next() {
          if (failed) return { value: undefined, done: true };
          try {
            const step = await upstream.next();
            if (step.done) release();
            return step as IteratorResult<LiveSubgraphResult>;
          } catch (error) {
            release();
            failed = true;
            // The subgraph's `error` message (its request's errors) is an array of GraphQL errors: passed on as they are.
            if (Array.isArray(error)) return { value: { errors: error as LiveSubgraphResult['errors'] }, done: false };
            return { value: unavailable(reasonOf(error)), done: false };
          }
        },
        async return() {
          release();
          await upstream.return?.();
          return { value: undefined, done: true };
        },
      };
      return iterator;
    },
    async close() {
      for (const entry of clients.values()) void entry.client.dispose();
      clients.clear();
    },
  };
}

/** What a failed connection says: a close event's code and reason, or an error's message. */
function reasonOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  const close = error as { code?: unknown; reason?: unknown } | null;
  if (close && typeof close.code === 'number') return `connection closed ${close.code}${close.reason ? `: ${String(close.reason)}` : ''}`;
  return String(error);
}

/** A stream of one result. */
function once(result: LiveSubgraphResult): AsyncIterableIterator<LiveSubgraphResult> {
  let given = false;
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      if (given) return { value: undefined, done: true };
      given = true;
      return { value: result, done: false };
    },
    async return() {
      given = true;
      return { value: undefined, done: true };
    },
  };
}
