/**
 * The token of an Authorization header, however the client spelled it: `Bearer <token>` or the Graph API's older
 * `OAuth <token>`, the scheme in any case (RFC 7235), spaces or tabs around the token. Undefined when there is no
 * credential (no header, or only whitespace); a header that is none of these is one value, UNPARSABLE, whatever its text.
 *
 * The social subgraphs read the credential with it, and the gateway counts subscriptions per credential with it: one
 * token is one count, whatever its header's spelling.
 */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^[ \t]*(?:bearer|oauth)[ \t]+(\S+)[ \t]*$/i.exec(authorization);
  return match ? match[1] : authorization.trim() === '' ? undefined : UNPARSABLE;
}

/** What bearerToken gives a header it cannot read (no token has a NUL in it). */
export const UNPARSABLE = '\u0000unparsable';
