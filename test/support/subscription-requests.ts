/**
 * Subscription requests (the JSON a client POSTs, or a subscribe message's payload) for weighing what an open
 * subscription holds: the memory test of the live doors (test/e2e/live/live-stream-memory.test.ts) and the bench's RSS per
 * idle subscription (bench/live-memory.ts).
 *
 * - realistic: a comment feed's document, the same for every subscriber, each watching one of the media objects;
 * - hostile: each as large as `limitBytes` allows and unlike every other (so that no cache shares its cost), filled in
 *   the three ways that held memory before issue 41 — an unused variable of arrays nested to just inside the JSON depth
 *   bound, a comment, and a long alias (the one of the three the operation really keeps: its text is the operation's).
 */

/** A comment feed with the comment's author: what an app shows live under a post. */
export const REALISTIC_SUBSCRIPTION = `subscription MediaEvents($m: ID!) {
  mediaCommentEvents(mediaId: $m) { cursor action commentId comment { id text timestamp from { id username } } }
}`;

export function realisticSubscriptionRequests(count: number, mediaIds: readonly string[]): string[] {
  return Array.from({ length: count }, (_unused, index) =>
    JSON.stringify({ query: REALISTIC_SUBSCRIPTION, variables: { m: mediaIds[index % mediaIds.length] } }),
  );
}

export interface HostileRequestOptions {
  count: number;
  /** Makes this set's requests unlike any other set's. */
  tag: string;
  mediaIds: readonly string[];
  /** The largest request (SUBSCRIPTION_MAX_MESSAGE_BYTES; for a WebSocket, room left for the message around it). */
  limitBytes: (index: number) => number;
  /** GRAPHQL_MAX_JSON_DEPTH. */
  maxJsonDepth: number;
}

export function hostileSubscriptionRequests(options: HostileRequestOptions): string[] {
  return Array.from({ length: options.count }, (_unused, index) => {
    const limit = options.limitBytes(index);
    const mediaId = options.mediaIds[index % options.mediaIds.length]!;
    const query = `subscription($m: ID!) { mediaCommentEvents(mediaId: $m) { cursor action commentId } }`;
    const tag = `${options.tag}${index}`;
    switch (index % 3) {
      case 0: {
        // {"variables": {"junk": […]}}: the body's object and the variables' are two levels above the arrays.
        const depth = options.maxJsonDepth - 4;
        return largest(
          limit,
          (padding) =>
            `{"query":${JSON.stringify(`${query} # ${tag}`)},"variables":{"m":"${mediaId}","junk":${'['.repeat(depth)}${'[],'.repeat(Math.floor(padding / 3))}[]${']'.repeat(depth)}}}`,
        );
      }
      case 1:
        return largest(limit, (padding) =>
          JSON.stringify({ query: `${query} # ${tag} ${'x'.repeat(padding)}`, variables: { m: mediaId } }),
        );
      default:
        return largest(limit, (padding) =>
          JSON.stringify({
            query: `subscription($m: ID!) { a${tag}${'x'.repeat(padding)}: mediaCommentEvents(mediaId: $m) { cursor } }`,
            variables: { m: mediaId },
          }),
        );
    }
  });
}

/** The room a subscribe message takes around its payload, for `limitBytes` of WebSocket requests. */
export function subscribeMessageOverhead(index: number): number {
  return `{"type":"subscribe","id":"${index}","payload":}`.length;
}

/**
 * The largest text at most `limit` bytes long that `make(padding)` gives (a binary search over the padding), as a flat
 * string made now: a concatenated one would be flattened — a new string — when it is sent, and counted as the server's.
 */
function largest(limit: number, make: (padding: number) => string): string {
  let low = 0;
  let high = limit;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (Buffer.byteLength(make(middle)) <= limit) low = middle;
    else high = middle - 1;
  }
  return Buffer.from(make(low)).toString();
}
