import type { IncomingMessage } from 'node:http';
import { encodeSignedRequest, SIGNED_REQUEST_HEADER, type SignedRequest } from '../lib/auth/signed-request.ts';

import { LOG_POSITION_HEADER } from '../lib/http/log-position.ts';

export { LOG_POSITION_HEADER };

/** What the subgraphs see of a REST caller: the headers an operation built for its request carries (GatewayOperation). */
export type CallerHeaders = Record<string, string | undefined>;

/**
 * The caller's headers for the operation a REST request becomes: its credentials (the request's Authorization header,
 * or `authorization` when the route read the token elsewhere, as the Graph paths' `access_token`), its request id, and
 * what the route adds — the social host it was served on, the description of the request an OAuth 1.0a client signed.
 * Every route builds them here, so that an operation carries the same caller whichever route made it.
 */
export function callerHeaders(
  req: IncomingMessage,
  extra: { authorization?: string | undefined; socialHost?: string; signedRequest?: SignedRequest } = {},
): CallerHeaders {
  const requestId = req.headers['x-request-id'];
  const position = req.headers[LOG_POSITION_HEADER];
  return {
    authorization: 'authorization' in extra ? extra.authorization : req.headers.authorization,
    'x-request-id': typeof requestId === 'string' ? requestId : undefined,
    // A read after the caller's write (gateway/gateway-context.ts): never answered from a cache older than it.
    ...(typeof position === 'string' ? { [LOG_POSITION_HEADER]: position } : {}),
    ...(extra.socialHost !== undefined ? { 'x-social-host': extra.socialHost } : {}),
    ...(extra.signedRequest !== undefined ? { [SIGNED_REQUEST_HEADER]: encodeSignedRequest(extra.signedRequest) } : {}),
  };
}
