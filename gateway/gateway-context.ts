import { encodeSignedRequest, SIGNED_REQUEST_HEADER, type SignedRequest } from '../lib/auth/signed-request.ts';
import { requestIdFrom } from '../lib/request-context.ts';
import type { SubgraphRequestInfo } from '../subgraphs/subgraph.ts';

/**
 * The gateway's per-request context. It carries what subgraphs must see of the caller's request: the remote data source
 * copies these as headers, the in-process data source hands them to the subgraph's own context factory.
 */
export interface GatewayContext extends SubgraphRequestInfo {
  requestId: string;
  /** Per-request subgraph contexts of in-process subgraphs (DataLoaders live there), made on first use. */
  subgraphContexts: Map<string, object>;
  /** Work the in-process subgraphs of this request share (SubgraphRequestInfo.shared). */
  shared: Map<string, unknown>;
  /** What the subgraphs reported in their responses' extensions (FORWARDED_EXTENSIONS), handed on to the caller. */
  responseExtensions: Record<string, unknown>;
  /**
   * Set by a write when the fetch cache is on: the change log's position this process had applied once the write's
   * changes were in its cache (at or past the write's own). The door answers it in LOG_POSITION_HEADER. An object of
   * its own, as `responseExtensions` is: Apollo Server runs its pipeline on a shallow copy of the context.
   */
  written: { through: string | undefined };
}

export { LOG_POSITION_HEADER } from '../lib/http/log-position.ts';

/**
 * Extensions of subgraph responses that the gateway hands on in its own response: the social graph's rate-limit usage,
 * which the REST adapter turns into the Graph's usage headers (and any GraphQL client may read).
 */
export const FORWARDED_EXTENSIONS: readonly string[] = ['socialUsage'];

/** Keeps the forwarded keys of a subgraph response's extensions in the gateway's context. */
export function collectExtensions(context: Partial<GatewayContext>, extensions: Record<string, unknown> | undefined): void {
  if (!extensions || !context.responseExtensions) return;
  for (const name of FORWARDED_EXTENSIONS) if (extensions[name] !== undefined) context.responseExtensions[name] = extensions[name];
}

type HeaderSource = { get(name: string): string | null | undefined } | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null | undefined }).get(name) ?? undefined;
  }
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Builds the context from incoming headers; a well-formed X-Request-Id is kept, otherwise a new one is made.
 * @param signedRequest the caller's request as an OAuth 1.0a client signed it, when this is the first hop; a REST adapter
 *   in front describes its own caller's request in X-Signed-Request instead, which then wins.
 */
export function createGatewayContext(headers: HeaderSource, signedRequest?: SignedRequest): GatewayContext {
  const incomingId = header(headers, 'x-request-id');
  const forwarded = header(headers, SIGNED_REQUEST_HEADER);
  return {
    authorization: header(headers, 'authorization'),
    requestId: requestIdFrom(incomingId),
    socialHost: header(headers, 'x-social-host'),
    signedRequest: forwarded ?? (signedRequest ? encodeSignedRequest(signedRequest) : undefined),
    subgraphContexts: new Map(),
    shared: new Map(),
    responseExtensions: {},
    written: { through: undefined },
  };
}
