import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The header by which the system's own processes recognise each other over HTTP: the REST adapter calling a gateway of
 * another process (GATEWAY_URL), and the gateway calling subgraph servers. Its value is GRAPHQL_TRUSTED_CALLER_SECRET.
 * An operation that carries it skips the per-operation limits and the persisted-operations safelist, which exist for
 * documents written by outside clients, not for the ones this system generates (see lib/graphql/graphql-operation-limits.ts).
 */
export const TRUSTED_CALLER_HEADER = 'x-tributary-trusted-caller';

/** Tells whether a request's trusted-caller header holds the configured secret. */
export type TrustedCallerCheck = (headerValue: string | string[] | null | undefined) => boolean;

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * A check of the trusted-caller header against `secret`; with no secret configured no HTTP request is trusted.
 * Digests are compared in constant time, so the comparison tells nothing about how much of a guess was right.
 */
export function createTrustedCallerCheck(secret: string | undefined): TrustedCallerCheck {
  if (secret === undefined) return () => false;
  const expected = digest(secret);
  return (headerValue) => {
    const value = Array.isArray(headerValue) ? headerValue[0] : headerValue;
    return typeof value === 'string' && value.length > 0 && timingSafeEqual(digest(value), expected);
  };
}

/**
 * The trust rule for operations inside Apollo Server: one run in-process with executeOperation (it has no HTTP request:
 * the REST adapter's in-process executor, which is this process's own code) or one whose HTTP request carries the secret.
 */
export function trustedOperation(check: TrustedCallerCheck) {
  return (requestContext: { request: { http?: { headers: { get(name: string): string | undefined } } | undefined } }): boolean => {
    const http = requestContext.request.http;
    return http === undefined || check(http.headers.get(TRUSTED_CALLER_HEADER));
  };
}

/** The trust rule for HTTP middleware in front of Apollo Server: the request carries the secret. */
export function trustedRequest(check: TrustedCallerCheck) {
  return (req: { headers: Record<string, string | string[] | undefined> }): boolean => check(req.headers[TRUSTED_CALLER_HEADER]);
}
