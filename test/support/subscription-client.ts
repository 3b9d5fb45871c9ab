import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

/**
 * A graphql-ws client (the library's own, unmodified) on the gateway's /graphql, and a subscription's results as a
 * queue a test takes from in order, with a deadline per wait so a missing event fails the test instead of hanging it.
 */

export interface ReceivedResult {
  data?: any;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[];
}

export interface TestSubscription {
  /** The next result (waits up to `timeoutMs`). */
  next(timeoutMs?: number): Promise<ReceivedResult>;
  /** Resolves when the server completes the subscription; rejects with what its `error` message or the socket said. */
  readonly ended: Promise<void>;
  /** Results received and not yet taken. */
  pending(): number;
  dispose(): void;
}

export function wsUrlOf(gatewayUrl: string): string {
  return gatewayUrl.replace(/^http/, 'ws');
}

export function createSubscriptionClient(
  gatewayUrl: string,
  options: { token?: string; connectionParams?: Record<string, unknown> } = {},
): Client {
  return createClient({
    url: wsUrlOf(gatewayUrl),
    webSocketImpl: WebSocket,
    connectionParams: options.connectionParams ?? (options.token !== undefined ? { Authorization: `Bearer ${options.token}` } : {}),
    retryAttempts: 0,
    lazy: true,
  });
}

/** Values a client pushes, taken in order, each wait within a deadline (a missing value fails the test, never hangs it). */
export function resultQueue<T>() {
  const items: T[] = [];
  const waiters: ((item: T) => void)[] = [];
  return {
    push(item: T): void {
      const waiter = waiters.shift();
      if (waiter) waiter(item);
      else items.push(item);
    },
    next(timeoutMs = 10_000): Promise<T> {
      if (items.length > 0) return Promise.resolve(items.shift()!);
      return new Promise((resolve, reject) => {
        const wake = (item: T) => {
          clearTimeout(timer);
          resolve(item);
        };
        // bound: the wait for the next result ends here and fails
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(wake), 1);
          reject(new Error(`nothing within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.push(wake);
      });
    },
    pending: (): number => items.length,
  };
}

export function subscribe(client: Client, query: string, variables: Record<string, unknown> = {}): TestSubscription {
  const results = resultQueue<ReceivedResult>();
  let settle!: { resolve(): void; reject(error: unknown): void };
  const ended = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  // A test that never awaits `ended` must not see an unhandled rejection.
  ended.catch(() => undefined);
  const dispose = client.subscribe(
    { query, variables },
    {
      next: (result) => results.push(result as ReceivedResult),
      error: (error) => settle.reject(error),
      complete: () => settle.resolve(),
    },
  );
  return { next: (timeoutMs) => results.next(timeoutMs), ended, pending: results.pending, dispose };
}
