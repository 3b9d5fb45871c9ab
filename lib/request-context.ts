import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/**
 * The request id of the request being served, wherever the code runs (resolvers, services, repositories, error
 * formatters): kept in an AsyncLocalStorage entered by each front door (HTTP middleware, gRPC handler), read by the
 * logger's mixin, so every log line written while serving a request carries its id without a logger being passed down.
 * The id travels to the next hop as X-Request-Id (REST adapter → gateway → subgraph), so one id links the hops' logs.
 */
const storage = new AsyncLocalStorage<{ requestId: string }>();

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A caller's X-Request-Id when it is well formed (letters, digits, `._:-`, at most 128), else a new UUID. */
export function requestIdFrom(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value[0] : value;
  return text !== undefined && REQUEST_ID.test(text) ? text : randomUUID();
}

/** Runs `work` as part of the request `requestId`. */
export function withRequestId<T>(requestId: string, work: () => T): T {
  return storage.run({ requestId }, work);
}

/** The id of the request being served, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
