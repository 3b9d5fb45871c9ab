import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import fresh from 'fresh';
import { sendJsonText } from './send-json.ts';

/**
 * Conditional reads (issue 39, item 4): a JSON reply to a GET carries a strong entity tag of its exact bytes, and a
 * request whose `If-None-Match` holds it is answered `304 Not Modified` with no body — the Graph API's ETags
 * (../shared/reference/social-graph.md §7), and Area A's REST reads likewise. The reply is made in full either way (the
 * tag is the hash of it, "including its formatting"), so a 304 costs the server what a 200 does and counts against the
 * rate limits as one; what it saves is the transfer and the client's parsing.
 *
 * `If-None-Match` is read by `fresh` (the parser Express itself uses): a list of tags, `*`, weak tags compared weakly
 * (RFC 9110 §13.1.2); a value it cannot read matches nothing, so a malformed header is as good as absent.
 */

/** The Graph API's headers on a read, 200 and 304 alike: nothing stored by intermediaries (§7). */
export const GRAPH_READ_CACHE_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'private, no-cache, no-store, must-revalidate',
  Pragma: 'no-cache',
  Expires: 'Sat, 01 Jan 2000 00:00:00 GMT',
};

/** Area A's: the caller's own copy may be kept, and revalidated with its tag before each use. */
export const RECORD_READ_CACHE_HEADERS: Readonly<Record<string, string>> = { 'Cache-Control': 'private, no-cache' };

/** A strong entity tag of a reply's bytes: a quoted SHA-1, as the Graph API's look (`"7776cdb0…"`, 40 hex digits). */
export function entityTag(text: string): string {
  return `"${createHash('sha1').update(text).digest('hex')}"`;
}

/** Sends `body` as JSON with its tag and `cacheHeaders`, or 304 with them when the request already holds that tag. */
export function sendConditionalJson(
  res: ServerResponse<IncomingMessage>,
  body: unknown,
  cacheHeaders: Readonly<Record<string, string>>,
): void {
  const text = JSON.stringify(body);
  const tag = entityTag(text);
  res.setHeader('ETag', tag);
  for (const [name, value] of Object.entries(cacheHeaders)) res.setHeader(name, value);
  // If-None-Match alone: fresh also answers "stale" to a request with Cache-Control: no-cache (an end-to-end reload),
  // which fetch() adds to every request that sets If-None-Match itself (the Fetch standard's no-store mode) — a browser's
  // or Node's client would never get its 304. That directive is for caches on the way; the origin still evaluates the
  // precondition (RFC 9110 §13.2.1).
  // A list's optional whitespace may be a tab (RFC 9110 §5.6.1), which fresh 2.0.0 does not split on: made a space first.
  const ifNoneMatch = res.req.headers['if-none-match']?.replace(/\t/g, ' ');
  if (fresh({ 'if-none-match': ifNoneMatch }, { etag: tag })) {
    res.statusCode = 304;
    res.end();
    return;
  }
  sendJsonText(res, 200, text);
}
