/**
 * The gateway's cached subgraph replies in memory (issue 39): entries keyed by what a reply depends on, each with the
 * tags of the entities it holds, bounded by count, bytes and age, least recently used out first.
 *
 * Invalidation is by tag, on the change log's clock: a change at position p to `T:id` evicts every entry tagged `T:id`
 * or `T` (the collection tag of a type, held by the entries whose content a new or removed `T` can change) and
 * remembers p for both tags. A reply is offered with `since`, the log position this process had applied when its fetch
 * began: the data it read holds every change up to `since`, maybe some after. It is refused when a change after `since`
 * touched one of its tags (the store-race guard), or when `since` lies below the floor — the position this process
 * has followed the log from (its start, or its return after the log was lost: changes before it were never seen here).
 * The same rule (`vouches`) decides whether a reply another process kept (the shared level) may be served here.
 */

export interface FetchCacheBounds {
  /** Entries kept at most. */
  maxEntries: number;
  /** Bytes of reply text (UTF-16 code units ×2, as V8 keeps them) kept at most, over every entry. */
  maxBytes: number;
  /** A reply larger than this is not kept. */
  maxEntryBytes: number;
}

export type EvictionCause = 'change' | 'capacity' | 'expired' | 'lost';

export interface FetchCacheStats {
  entries: number;
  bytes: number;
  hits: number;
  misses: number;
  /** Misses that waited on the same key's fetch already running (single flight) instead of fetching. */
  shared: number;
  /** Replies fetched but not kept: too large, a tag changed meanwhile, no tags could be given. */
  refused: number;
  evictions: Record<EvictionCause, number>;
}

interface Entry {
  readonly text: string;
  readonly bytes: number;
  readonly tags: readonly string[];
  readonly expiresAt: number;
}

/** Tags remembered with the position of their last change; past this many the oldest go and the floor rises. */
const EVICTED_TAGS_REMEMBERED = 100_000;

/** Per-entry bookkeeping beyond the text (the key, the entry, the tag index's references), estimated. */
const ENTRY_OVERHEAD_BYTES = 200;
const TAG_OVERHEAD_BYTES = 64;

export class FetchCacheStore {
  private readonly entries = new Map<string, Entry>();
  private readonly byTag = new Map<string, Set<string>>();
  /**
   * The log position of the last change to each tag. Updated in place (a delete and set per change would keep eviction
   * order, but V8's Map degrades under that churn — a type's collection tag is re-set by every change to the type);
   * trimming in insertion order then raises the floor to the largest position trimmed, which only refuses more, never
   * fewer.
   */
  private readonly evictedAt = new Map<string, bigint>();
  /** Replies whose fetch began before this position are not vouched for; none at all while the log is lost. */
  private floor: bigint | 'lost' = 'lost';
  private totalBytes = 0;
  private readonly counts = { hits: 0, misses: 0, shared: 0, refused: 0 };
  private readonly evictions: Record<EvictionCause, number> = { change: 0, capacity: 0, expired: 0, lost: 0 };

  constructor(
    private readonly bounds: FetchCacheBounds,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Following the log from `position` (at start, or again after it was lost): replies fetched since it may be kept.
   */
  followFrom(position: bigint): void {
    this.floor = position;
  }

  /** Whether a reply with `tags`, fetched when `since` was applied, holds no change this process has applied after it. */
  vouches(tags: readonly string[], since: bigint): boolean {
    return this.floor !== 'lost' && since >= this.floor && !tags.some((tag) => (this.evictedAt.get(tag) ?? 0n) > since);
  }

  /** The reply kept under `key` (and marks it recently used), or undefined. */
  get(key: string): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) {
      this.counts.misses++;
      return undefined;
    }
    if (entry.expiresAt <= this.now()) {
      this.remove(key, entry, 'expired');
      this.counts.misses++;
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.counts.hits++;
    return entry.text;
  }

  /** Counts a miss that joined a fetch already running for its key. */
  noteShared(): void {
    this.counts.shared++;
  }

  /** Counts a reply fetched but not offered (no tags could vouch for it). */
  noteRefused(): void {
    this.counts.refused++;
  }

  /**
   * Keeps `text` under `key` for `maxAgeMs` with `tags`, unless it is too large or not vouched for (`since`: the log
   * position applied when its fetch began). Returns whether it was kept.
   */
  set(key: string, text: string, tags: readonly string[], maxAgeMs: number, since: bigint): boolean {
    const bytes = text.length * 2 + ENTRY_OVERHEAD_BYTES + key.length * 2 + tags.length * TAG_OVERHEAD_BYTES;
    // An entry larger than the whole bound would only empty the cache to no end; a max age that is none keeps nothing.
    const tooLarge = bytes > this.bounds.maxEntryBytes || bytes > this.bounds.maxBytes;
    if (tooLarge || !(maxAgeMs > 0) || !this.vouches(tags, since)) {
      this.counts.refused++;
      return false;
    }
    const existing = this.entries.get(key);
    if (existing) this.remove(key, existing, undefined);
    const entry: Entry = { text, bytes, tags, expiresAt: this.now() + maxAgeMs };
    this.entries.set(key, entry);
    this.totalBytes += bytes;
    for (const tag of tags) {
      let keys = this.byTag.get(tag);
      if (!keys) this.byTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
    while (this.entries.size > this.bounds.maxEntries || this.totalBytes > this.bounds.maxBytes) {
      const [oldestKey, oldest] = this.entries.entries().next().value!;
      this.remove(oldestKey, oldest, 'capacity');
    }
    return true;
  }

  /**
   * Applies a change at `position`: every entry holding one of `keys` (`T:id`), or the collection `T` of one of them, is
   * evicted, and a reply fetched before it under those tags is no longer vouched for.
   */
  evictKeys(keys: readonly string[], position: bigint): void {
    for (const key of keys) {
      const colon = key.indexOf(':');
      this.evictTag(key, position);
      if (colon > 0) this.evictTag(key.slice(0, colon), position);
    }
    while (this.evictedAt.size > EVICTED_TAGS_REMEMBERED) {
      const [oldest, at] = this.evictedAt.entries().next().value!;
      this.evictedAt.delete(oldest);
      if (this.floor !== 'lost' && at > this.floor) this.floor = at;
    }
  }

  /** Drops every entry (the log was lost: nothing can be vouched for until it is followed again: followFrom). */
  dropAll(): void {
    this.floor = 'lost';
    this.evictedAt.clear();
    this.evictions.lost += this.entries.size;
    this.entries.clear();
    this.byTag.clear();
    this.totalBytes = 0;
  }

  stats(): FetchCacheStats {
    return { entries: this.entries.size, bytes: this.totalBytes, ...this.counts, evictions: { ...this.evictions } };
  }

  private evictTag(tag: string, position: bigint): void {
    if ((this.evictedAt.get(tag) ?? 0n) < position) this.evictedAt.set(tag, position);
    const keys = this.byTag.get(tag);
    if (!keys) return;
    for (const key of [...keys]) {
      const entry = this.entries.get(key);
      if (entry) this.remove(key, entry, 'change');
    }
  }

  private remove(key: string, entry: Entry, cause: EvictionCause | undefined): void {
    this.entries.delete(key);
    this.totalBytes -= entry.bytes;
    for (const tag of entry.tags) {
      const keys = this.byTag.get(tag);
      if (!keys) continue;
      keys.delete(key);
      if (keys.size === 0) this.byTag.delete(tag);
    }
    if (cause) this.evictions[cause]++;
  }
}
