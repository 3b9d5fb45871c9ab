/**
 * The `paging` object of Graph list responses (../shared/reference/social-graph.md §3.2 and the insights edge of §2.2):
 * cursors of the page's first and last item, and `previous` / `next` as complete absolute URLs that repeat the request.
 *
 * URL rules, the same for both kinds of paging:
 * - The link is the request's own absolute URL (origin, path, every query parameter — `access_token`, `limit`, `fields`,
 *   … — in their original order); any fragment is dropped.
 * - The parameters that move the page (`after`/`before`, or `since`/`until`) are removed wherever they were and the new
 *   ones appended last, so a link never carries both directions and always reads "the request, then where to go".
 * - The query is re-serialised as application/x-www-form-urlencoded (URLSearchParams): a value keeps its meaning but not
 *   necessarily its original bytes (`fields=id,media{id}` becomes `fields=id%2Cmedia%7Bid%7D`, a space `+`). The real
 *   platform's links are re-encoded the same way (`fields=id%2Ccaption`), and clients follow them verbatim.
 * - A token sent in the Authorization header is not in the URL, so it is not in the links either: the client sends its
 *   header again. A token sent as `access_token` is repeated, as the reference says.
 */

export interface GraphCursors {
  before?: string;
  after?: string;
}

/** The `paging` object of a cursor-paged list. */
export interface GraphPaging {
  cursors: GraphCursors;
  previous?: string;
  next?: string;
}

/** The `paging` object of the insights edge: time windows, no cursors. */
export interface GraphTimePaging {
  previous?: string;
  next?: string;
}

/** A list response: `data`, and `paging` only when buildPaging gave one. */
export interface GraphPage<T> {
  data: T[];
  paging?: GraphPaging | GraphTimePaging;
}

export interface CursorPagingInput {
  /** The request's own absolute URL, query included (`new URL(req.originalUrl, `${req.protocol}://${req.get('host')}`)`). */
  requestUrl: URL;
  /** Cursor of the page's first item. */
  before?: string | undefined;
  /** Cursor of the page's last item. */
  after?: string | undefined;
  /** True when items exist before this page: `previous` is given (it needs `before`). */
  hasPrevious: boolean;
  /** True when items exist after this page: `next` is given (it needs `after`). */
  hasNext: boolean;
  /** Edges that give cursors but never links (`tags`, the `media` of `business_discovery`, nested `mentioned_*` edges). */
  cursorsOnly?: boolean;
}

/**
 * The `paging` of one page of a cursor-paged list, or `undefined` when there is nothing to say (no cursor, no page
 * before, no page after): the response is then `{"data": […]}` alone, as the reference's own samples of an edge without
 * further pages show (§1.6: the documented replies sample has no `paging`). An empty page in the middle of a walk keeps
 * its paging — §3.2: "a page may be empty and still have `next`" — so the caller passes the cursors of the position it
 * reached even when no item is shown.
 *
 * `next` is the request with `after=<after>` (any `before` removed); `previous` the request with `before=<before>` (any
 * `after` removed). Asking for a link without the cursor it needs is a bug in the caller and throws.
 */
export function buildPaging(input: CursorPagingInput): GraphPaging | undefined {
  const { before, after } = input;
  const wantsPrevious = input.hasPrevious && !input.cursorsOnly;
  const wantsNext = input.hasNext && !input.cursorsOnly;
  if (wantsPrevious && before === undefined) throw new RangeError('buildPaging: hasPrevious needs the before cursor');
  if (wantsNext && after === undefined) throw new RangeError('buildPaging: hasNext needs the after cursor');
  if (before === undefined && after === undefined && !wantsPrevious && !wantsNext) return undefined;

  // Built key by key (before, then after), not by spreading conditional objects: a deep read has hundreds of pages.
  const cursors: GraphCursors = {};
  if (before !== undefined) cursors.before = before;
  if (after !== undefined) cursors.after = after;
  const paging: GraphPaging = { cursors };
  if (wantsPrevious) paging.previous = withParams(input.requestUrl, ['before', 'after'], [['before', before!]]);
  if (wantsNext) paging.next = withParams(input.requestUrl, ['before', 'after'], [['after', after!]]);
  return paging;
}

export interface TimePagingInput {
  /** The request's own absolute URL, query included. */
  requestUrl: URL;
  /** Start of the window this page covers, in unix seconds (the request's `since`, or the default the edge applied). */
  since: number;
  /** End of the window, unix seconds, after `since`. */
  until: number;
  hasPrevious: boolean;
  hasNext: boolean;
}

/**
 * The `paging` of the insights edge: `previous` and `next` repeat the request with `since`/`until` moved one window
 * (`until - since` seconds) back or forward; there are no cursors. `undefined` when there is neither link.
 */
export function buildTimePaging(input: TimePagingInput): GraphTimePaging | undefined {
  const { since, until } = input;
  if (!Number.isSafeInteger(since) || !Number.isSafeInteger(until) || until <= since) {
    throw new RangeError(`buildTimePaging: since (${since}) and until (${until}) must be integers with since < until`);
  }
  if (!input.hasPrevious && !input.hasNext) return undefined;
  const window = until - since;
  const shifted = (by: number) =>
    withParams(
      input.requestUrl,
      ['since', 'until'],
      [
        ['since', String(since + by)],
        ['until', String(until + by)],
      ],
    );
  return {
    ...(input.hasPrevious && { previous: shifted(-window) }),
    ...(input.hasNext && { next: shifted(window) }),
  };
}

/** Wraps a page: `{data}` plus `paging` when there is one. */
export function graphPage<T>(data: T[], paging: GraphPaging | GraphTimePaging | undefined): GraphPage<T> {
  return paging === undefined ? { data } : { data, paging };
}

/** The URL with the `removed` parameters dropped (every occurrence) and `added` appended, without fragment. */
function withParams(requestUrl: URL, removed: readonly string[], added: readonly [string, string][]): string {
  const url = new URL(requestUrl);
  url.hash = '';
  for (const name of removed) url.searchParams.delete(name);
  for (const [name, value] of added) url.searchParams.append(name, value);
  return url.href;
}
