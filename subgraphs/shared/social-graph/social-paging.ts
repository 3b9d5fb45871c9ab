import type { CursorCodec, CursorValue } from '../../../lib/social-graph/cursor.ts';
import { socialErrors } from './social-errors.ts';

/**
 * Keyset pagination of the social graph's lists (GraphQL connections; the REST adapter turns them into Graph `paging`).
 *
 * A list is ordered by a position (e.g. `[unix seconds, id]`, newest first); a cursor is the codec's tamper-evident
 * encoding of one item's position. `after` continues past a position, `before` goes back before one. Repositories fetch
 * `take` rows (one more than asked, to know whether more exist) strictly beyond the position in the direction given;
 * `assemblePage` cuts and orders them and works out the cursors and flags. The same two functions serve single lists and
 * DataLoader batches (one query for many parents, `take` rows per parent).
 */

export interface PageArgs {
  first?: number | null | undefined;
  after?: string | null | undefined;
  before?: string | null | undefined;
}

export interface PageLimits {
  /** Page size when `first` is absent (Graph convention: 25). */
  defaultLimit: number;
  /** Largest page served; a larger `first` is cut to it ("limit is a maximum, not a promise"). */
  maxLimit: number;
}

export const DEFAULT_PAGE_LIMITS: PageLimits = { defaultLimit: 25, maxLimit: 100 };

/** The decoded request of one page: which way to read, from where, and how many rows to fetch. */
export interface PageRequest {
  direction: 'forward' | 'backward';
  /** The position to read beyond (exclusive); undefined reads from the start of the list. */
  position: CursorValue[] | undefined;
  /** Items wanted on the page. */
  limit: number;
  /** Rows to fetch: limit + 1. */
  take: number;
  /** The cursor the request gave (after or before), if any. */
  hadCursor: boolean;
}

export interface Page<T> {
  items: T[];
  startCursor: string | undefined;
  endCursor: string | undefined;
  hasPreviousPage: boolean;
  hasNextPage: boolean;
}

/** Reads `first`/`after`/`before`; a malformed or foreign cursor, both cursors, or a negative size is a 100 error. */
export function readPageArgs(
  codec: CursorCodec,
  args: PageArgs,
  limits: PageLimits = DEFAULT_PAGE_LIMITS,
  positionLength = 2,
): PageRequest {
  const first = args.first ?? undefined;
  if (first !== undefined && (!Number.isInteger(first) || first < 0)) {
    throw socialErrors.invalidParameter('limit', 'The parameter limit must be a non-negative integer.');
  }
  const after = args.after ?? undefined;
  const before = args.before ?? undefined;
  if (after !== undefined && before !== undefined) {
    throw socialErrors.invalidParameter('after', 'The parameters after and before cannot be used together.');
  }
  const limit = Math.min(first ?? limits.defaultLimit, limits.maxLimit);
  const cursor = after ?? before;
  let position: CursorValue[] | undefined;
  if (cursor !== undefined) {
    position = codec.decode(cursor);
    if (!position || position.length !== positionLength) {
      throw socialErrors.invalidParameter(after !== undefined ? 'after' : 'before', 'Invalid cursor.');
    }
  }
  return { direction: before !== undefined ? 'backward' : 'forward', position, limit, take: limit + 1, hadCursor: cursor !== undefined };
}

/**
 * Builds the page from the rows a repository fetched for `request` (in reading order: list order when forward, reverse
 * list order when backward), given each row's position.
 */
export function assemblePage<T>(
  codec: CursorCodec,
  request: PageRequest,
  rows: readonly T[],
  positionOf: (row: T) => CursorValue[],
): Page<T> {
  const more = rows.length > request.limit;
  const kept = rows.slice(0, request.limit);
  const items = request.direction === 'forward' ? kept : kept.reverse();
  return new AssembledPage(codec, positionOf, items, {
    hasPreviousPage: request.direction === 'forward' ? request.hadCursor && items[0] !== undefined : more,
    hasNextPage: request.direction === 'forward' ? more : items[items.length - 1] !== undefined,
  });
}

/**
 * An assembled page. An empty page (past either end of the list) has no cursors and no links: `{"data": []}` says the
 * walk is over. Each cursor is a keyed hash (cursor.ts), made only when read: a deep read has hundreds of pages (the
 * replies of every comment) and asks for the cursors of none of them. The getters live on the class, not on each page
 * (a page per list of a deep read: object-literal getters cost two closures apiece).
 */
class AssembledPage<T> implements Page<T> {
  readonly hasPreviousPage: boolean;
  readonly hasNextPage: boolean;
  #startCursor: string | undefined | null = null;
  #endCursor: string | undefined | null = null;

  constructor(
    private readonly codec: CursorCodec,
    private readonly positionOf: (row: T) => CursorValue[],
    readonly items: T[],
    flags: { hasPreviousPage: boolean; hasNextPage: boolean },
  ) {
    this.hasPreviousPage = flags.hasPreviousPage;
    this.hasNextPage = flags.hasNextPage;
  }

  get startCursor(): string | undefined {
    if (this.#startCursor === null) {
      const first = this.items[0];
      this.#startCursor = first !== undefined ? this.codec.encode(this.positionOf(first)) : undefined;
    }
    return this.#startCursor;
  }

  get endCursor(): string | undefined {
    if (this.#endCursor === null) {
      const last = this.items[this.items.length - 1];
      this.#endCursor = last !== undefined ? this.codec.encode(this.positionOf(last)) : undefined;
    }
    return this.#endCursor;
  }
}

/**
 * The same page with its items mapped (rows to domain objects), its cursors still those of the rows and still made only
 * when read. (Spreading a page would lose them: they are getters on its class.)
 */
export function mapPage<T, U>(page: Page<T>, map: (item: T) => U): Page<U> {
  return {
    items: page.items.map(map),
    get startCursor() {
      return page.startCursor;
    },
    get endCursor() {
      return page.endCursor;
    },
    hasPreviousPage: page.hasPreviousPage,
    hasNextPage: page.hasNextPage,
  };
}
