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

export function createSubscriptionClient(gatewayUrl: string, options: { token?: string; connectionParams?: Record<string, unknown> } = {}): Client {
  return createClient({
    url: wsUrlOf(gatewayUrl),
    webSocketImpl: WebSocket,
    connectionParams: options.connectionParams ?? (options.token !== undefined ? { Authorization: `Bearer ${options.token}` } : {}),
    retryAttempts: 0,
    lazy: true,
  });
}

export function subscribe(client: Client, query: string, variables: Record<string, unknown> = {}): TestSubscription {
  const queue: ReceivedResult[] = [];
  const waiters: ((result: ReceivedResult) => void)[] = [];
  let settle!: { resolve(): void; reject(error: unknown): void };
  const ended = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  // A test that never awaits `ended` must not see an unhandled rejection.
  ended.catch(() => undefined);
  const dispose = client.subscribe(
    { query, variables },
    {
      next: (result) => {
        const waiter = waiters.shift();
        if (waiter) waiter(result as ReceivedResult);
        else queue.push(result as ReceivedResult);
      },
      error: (error) => settle.reject(error),
      complete: () => settle.resolve(),
    },
  );
  return {
    next(timeoutMs = 10_000) {
      const queued = queue.shift();
      if (queued) return Promise.resolve(queued);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(wake), 1);
          reject(new Error(`no subscription result within ${timeoutMs} ms`));
        }, timeoutMs);
        const wake = (result: ReceivedResult) => {
          clearTimeout(timer);
          resolve(result);
        };
        waiters.push(wake);
      });
    },
    ended,
    pending: () => queue.length,
    dispose,
  };
}
