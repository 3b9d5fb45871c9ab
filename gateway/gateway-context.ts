import { randomUUID } from 'node:crypto';
import type { SubgraphRequestInfo } from '../subgraphs/subgraph.ts';

/**
 * The gateway's per-request context. It carries what subgraphs must see of the caller's request: the remote data source
 * copies these as headers, the in-process data source hands them to the subgraph's own context factory.
 */
export interface GatewayContext extends SubgraphRequestInfo {
  requestId: string;
  /** Per-request subgraph contexts of in-process subgraphs (DataLoaders live there), made on first use. */
  subgraphContexts: Map<string, object>;
}

type HeaderSource = { get(name: string): string | null | undefined } | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null | undefined }).get(name) ?? undefined;
  }
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Builds the context from incoming headers; a well-formed X-Request-Id is kept, otherwise a new one is made. */
export function createGatewayContext(headers: HeaderSource): GatewayContext {
  const incomingId = header(headers, 'x-request-id');
  return {
    authorization: header(headers, 'authorization'),
    requestId: incomingId && REQUEST_ID.test(incomingId) ? incomingId : randomUUID(),
    socialHost: header(headers, 'x-social-host'),
    subgraphContexts: new Map(),
  };
}
