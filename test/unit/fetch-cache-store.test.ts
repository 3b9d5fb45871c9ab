/**
 * The fetch cache's store (gateway/fetch-cache/fetch-cache-store.ts): entries with their tags, least recently used out
 * first within the count and byte bounds, a reply too large refused, the max age on an injected clock, eviction by tag
 * (`T:id` and the collection `T`), the store-race guard (a fetch that overlapped a change to one of its tags does not
 * store, nor one begun before everything was dropped), and its counts.
 */
import { describe, expect, it } from 'vitest';
import { FetchCacheStore, type FetchCacheBounds } from '../../gateway/fetch-cache/fetch-cache-store.ts';

const ROOMY: FetchCacheBounds = { maxEntries: 1000, maxBytes: 1 << 30, maxEntryBytes: 1 << 30 };
const MINUTE_MS = 60_000;

/** The bytes the store counts for one entry, measured on a store of its own. */
function bytesOf(key: string, text: string, tags: readonly string[]): number {
  const probe = new FetchCacheStore(ROOMY);
  expect(probe.set(key, text, tags, MINUTE_MS, probe.epoch())).toBe(true);
  return probe.stats().bytes;
}

/** A store on a clock the test moves (`clock.now`). */
function storeOn(bounds: FetchCacheBounds = ROOMY) {
  const clock = { now: 1_000_000 };
  return { store: new FetchCacheStore(bounds, () => clock.now), clock };
}

describe('FetchCacheStore: get and set', () => {
  it('gives back the text kept under a key, and nothing under another', () => {
    const { store } = storeOn();
    expect(store.set('a', '{"user":{"id":"1"}}', ['User:1'], MINUTE_MS, store.epoch())).toBe(true);
    expect(store.get('a')).toBe('{"user":{"id":"1"}}');
    expect(store.get('b')).toBeUndefined();
    expect(store.stats()).toMatchObject({ entries: 1, hits: 1, misses: 1 });
  });

  it('replaces the text kept under a key, and its tags with it', () => {
    const { store } = storeOn();
    store.set('a', 'first', ['User:1'], MINUTE_MS, store.epoch());
    store.set('a', 'second', ['User:2'], MINUTE_MS, store.epoch());
    expect(store.get('a')).toBe('second');
    expect(store.stats()).toMatchObject({ entries: 1, bytes: bytesOf('a', 'second', ['User:2']) });
    // The old tag no longer names the entry; the new one does.
    store.evictKeys(['User:1']);
    expect(store.get('a')).toBe('second');
    store.evictKeys(['User:2']);
    expect(store.get('a')).toBeUndefined();
    // A replacement is no eviction.
    expect(store.stats().evictions).toEqual({ change: 1, capacity: 0, expired: 0, lost: 0 });
  });

  it('counts two bytes per UTF-16 code unit of the text', () => {
    expect(bytesOf('k', 'x'.repeat(100), ['T:1']) - bytesOf('k', '', ['T:1'])).toBe(200);
    expect(bytesOf('k', 'é'.repeat(10), ['T:1']) - bytesOf('k', '', ['T:1'])).toBe(20);
  });
});

describe('FetchCacheStore: bounds', () => {
  it('keeps at most maxEntries, the least recently used out first: an entry read survives', () => {
    const { store } = storeOn({ ...ROOMY, maxEntries: 2 });
    store.set('a', 'A', ['T:1'], MINUTE_MS, store.epoch());
    store.set('b', 'B', ['T:2'], MINUTE_MS, store.epoch());
    expect(store.get('a')).toBe('A');
    store.set('c', 'C', ['T:3'], MINUTE_MS, store.epoch());
    expect(store.get('b')).toBeUndefined();
    expect(store.get('a')).toBe('A');
    expect(store.get('c')).toBe('C');
    expect(store.stats()).toMatchObject({ entries: 2, evictions: { change: 0, capacity: 1, expired: 0, lost: 0 } });
  });

  it('puts out the oldest entry when none was read', () => {
    const { store } = storeOn({ ...ROOMY, maxEntries: 2 });
    store.set('a', 'A', ['T:1'], MINUTE_MS, store.epoch());
    store.set('b', 'B', ['T:2'], MINUTE_MS, store.epoch());
    store.set('c', 'C', ['T:3'], MINUTE_MS, store.epoch());
    expect(store.get('a')).toBeUndefined();
    expect(store.get('b')).toBe('B');
    expect(store.get('c')).toBe('C');
  });

  it('counts an entry set again as recently used', () => {
    const { store } = storeOn({ ...ROOMY, maxEntries: 2 });
    store.set('a', 'A', ['T:1'], MINUTE_MS, store.epoch());
    store.set('b', 'B', ['T:2'], MINUTE_MS, store.epoch());
    store.set('a', 'A2', ['T:1'], MINUTE_MS, store.epoch());
    expect(store.stats()).toMatchObject({ entries: 2, evictions: { capacity: 0 } });
    store.set('c', 'C', ['T:3'], MINUTE_MS, store.epoch());
    expect(store.get('b')).toBeUndefined();
    expect(store.get('a')).toBe('A2');
  });

  it('keeps at most maxBytes over every entry, the least recently used out first', () => {
    const one = bytesOf('a', 'text', ['T:1']);
    const { store } = storeOn({ ...ROOMY, maxBytes: 3 * one });
    for (const key of ['a', 'b', 'c']) store.set(key, 'text', ['T:1'], MINUTE_MS, store.epoch());
    expect(store.stats()).toMatchObject({ entries: 3, bytes: 3 * one });
    expect(store.get('a')).toBe('text');
    store.set('d', 'text', ['T:1'], MINUTE_MS, store.epoch());
    expect(store.stats()).toMatchObject({ entries: 3, bytes: 3 * one, evictions: { capacity: 1 } });
    expect(store.get('b')).toBeUndefined();
    expect([store.get('a'), store.get('c'), store.get('d')]).toEqual(['text', 'text', 'text']);
    // One twice as large (its text 8 bytes longer than `one`) puts out the two least recently used (a was read first).
    store.set('e', 'x'.repeat((one + 8) / 2), ['T:1'], MINUTE_MS, store.epoch());
    expect(store.stats()).toMatchObject({ entries: 2, bytes: 3 * one });
    expect(store.get('a')).toBeUndefined();
    expect(store.get('c')).toBeUndefined();
    expect(store.get('d')).toBe('text');
    expect(store.stats().evictions.capacity).toBe(3);
  });

  it('refuses a reply larger than maxEntryBytes, and keeps one of exactly that size', () => {
    const one = bytesOf('a', 'text', ['T:1']);
    const { store } = storeOn({ ...ROOMY, maxEntryBytes: one - 1 });
    expect(store.set('a', 'text', ['T:1'], MINUTE_MS, store.epoch())).toBe(false);
    expect(store.get('a')).toBeUndefined();
    expect(store.stats()).toMatchObject({ entries: 0, bytes: 0, refused: 1 });
    const exact = storeOn({ ...ROOMY, maxEntryBytes: one }).store;
    expect(exact.set('a', 'text', ['T:1'], MINUTE_MS, exact.epoch())).toBe(true);
    expect(exact.get('a')).toBe('text');
  });

  it('counts the key and the tags in the bytes an entry takes', () => {
    expect(bytesOf('a'.repeat(11), 'text', ['T:1'])).toBeGreaterThan(bytesOf('a', 'text', ['T:1']));
    expect(bytesOf('a', 'text', ['T:1', 'T:2'])).toBeGreaterThan(bytesOf('a', 'text', ['T:1']));
  });
});

describe('FetchCacheStore: max age', () => {
  it('serves an entry until its max age has run out, then misses and counts it expired', () => {
    const { store, clock } = storeOn();
    store.set('a', 'A', ['T:1'], 500, store.epoch());
    clock.now += 499;
    expect(store.get('a')).toBe('A');
    clock.now += 1;
    expect(store.get('a')).toBeUndefined();
    expect(store.stats()).toMatchObject({ entries: 0, bytes: 0, hits: 1, misses: 1, evictions: { expired: 1 } });
    // Gone, not expired again.
    expect(store.get('a')).toBeUndefined();
    expect(store.stats()).toMatchObject({ misses: 2, evictions: { expired: 1 } });
  });

  it('starts the max age when the entry is set, and again when it is set again', () => {
    const { store, clock } = storeOn();
    store.set('a', 'A', ['T:1'], 500, store.epoch());
    clock.now += 400;
    store.set('a', 'A2', ['T:1'], 500, store.epoch());
    clock.now += 400;
    expect(store.get('a')).toBe('A2');
  });

  it('refuses a reply of no max age', () => {
    const { store } = storeOn();
    expect(store.set('a', 'A', ['T:1'], 0, store.epoch())).toBe(false);
    expect(store.set('b', 'B', ['T:1'], -1, store.epoch())).toBe(false);
    expect(store.stats()).toMatchObject({ entries: 0, refused: 2 });
  });
});

describe('FetchCacheStore: eviction by tag', () => {
  /** A store with an entry per tag list: u1 [User:1], u2 [User:2], users [User], p1 [Post:1], both [Post:2, User:1]. */
  function filled() {
    const { store } = storeOn();
    const entries: Record<string, string[]> = {
      u1: ['User:1'],
      u2: ['User:2'],
      users: ['User'],
      p1: ['Post:1'],
      both: ['Post:2', 'User:1'],
    };
    for (const [key, tags] of Object.entries(entries)) store.set(key, key, tags, MINUTE_MS, store.epoch());
    const kept = () => Object.keys(entries).filter((key) => store.get(key) !== undefined);
    return { store, kept };
  }

  it("evicts the entries tagged with a changed key and with its type's collection, and no other id's", () => {
    const { store, kept } = filled();
    store.evictKeys(['User:1']);
    expect(kept()).toEqual(['u2', 'p1']);
    expect(store.stats()).toMatchObject({ entries: 2, evictions: { change: 3 } });
  });

  it('evicts what each of several keys names, an entry named twice once', () => {
    const { store, kept } = filled();
    store.evictKeys(['Post:2', 'User:1']);
    expect(kept()).toEqual(['u2', 'p1']);
    expect(store.stats().evictions.change).toBe(3);
  });

  it("leaves another type's entries, even one whose name begins with the same letters", () => {
    const { store, kept } = filled();
    // UserExample:1 is not of the collection User; Post:3 names the collection Post, which no entry holds (only ids).
    store.evictKeys(['UserExample:1', 'Post:3']);
    expect(kept()).toEqual(['u1', 'u2', 'users', 'p1', 'both']);
    expect(store.stats().evictions.change).toBe(0);
  });

  it('evicts nothing, and moves no epoch, for no keys', () => {
    const { store, kept } = filled();
    const since = store.epoch();
    store.evictKeys([]);
    expect(store.epoch()).toBe(since);
    expect(kept()).toEqual(['u1', 'u2', 'users', 'p1', 'both']);
  });

  it('drops every entry and counts them lost', () => {
    const { store, kept } = filled();
    store.dropAll();
    expect(kept()).toEqual([]);
    expect(store.stats()).toMatchObject({ entries: 0, bytes: 0, evictions: { change: 0, lost: 5 } });
    // Nothing it dropped is evicted again by a change.
    store.evictKeys(['User:1']);
    expect(store.stats().evictions).toEqual({ change: 0, capacity: 0, expired: 0, lost: 5 });
  });
});

describe('FetchCacheStore: the store-race guard', () => {
  it('refuses a reply whose fetch began before a change to one of its tags', () => {
    const { store } = storeOn();
    const since = store.epoch();
    store.evictKeys(['User:1']);
    expect(store.set('a', 'A', ['Post:1', 'User:1'], MINUTE_MS, since)).toBe(false);
    expect(store.get('a')).toBeUndefined();
    expect(store.stats()).toMatchObject({ entries: 0, refused: 1 });
  });

  it("refuses a reply holding the collection of a changed key's type", () => {
    const { store } = storeOn();
    const since = store.epoch();
    store.evictKeys(['User:1']);
    expect(store.set('a', 'A', ['User'], MINUTE_MS, since)).toBe(false);
  });

  it('keeps a reply whose tags the change did not touch', () => {
    const { store } = storeOn();
    const since = store.epoch();
    store.evictKeys(['User:1']);
    expect(store.set('a', 'A', ['User:2', 'Post:1', 'UserExample'], MINUTE_MS, since)).toBe(true);
    expect(store.get('a')).toBe('A');
  });

  it('keeps a reply whose fetch began after the change', () => {
    const { store } = storeOn();
    store.evictKeys(['User:1']);
    const since = store.epoch();
    expect(store.set('a', 'A', ['User:1'], MINUTE_MS, since)).toBe(true);
  });

  it('tells the changes before a fetch from those during it, each tag by its last change', () => {
    const { store } = storeOn();
    store.evictKeys(['User:1']);
    const since = store.epoch();
    store.evictKeys(['User:2']);
    expect(store.set('a', 'A', ['User:1'], MINUTE_MS, since)).toBe(true); // changed before the fetch began
    expect(store.set('b', 'B', ['User'], MINUTE_MS, since)).toBe(false); // the collection changed during it, with User:2
    expect(store.set('b', 'B', ['Post:1'], MINUTE_MS, since)).toBe(true);
    store.evictKeys(['Post:1']);
    const later = store.epoch();
    expect(store.set('c', 'C', ['Post:1'], MINUTE_MS, later)).toBe(true);
    store.evictKeys(['Post:1']);
    expect(store.set('d', 'D', ['Post:1'], MINUTE_MS, later)).toBe(false);
  });

  it('refuses every reply whose fetch began before everything was dropped, and keeps one begun after', () => {
    const { store } = storeOn();
    const before = store.epoch();
    store.dropAll();
    expect(store.set('a', 'A', ['Never:1'], MINUTE_MS, before)).toBe(false);
    const after = store.epoch();
    expect(store.set('b', 'B', ['Never:1'], MINUTE_MS, after)).toBe(true);
    expect(store.get('b')).toBe('B');
  });

  it('after more than 100 000 evicted tags forgets the oldest: a fetch begun before them is refused whatever its tags', () => {
    const { store } = storeOn();
    const first = store.epoch();
    // 50 000 keys, each of a type of its own: 100 000 tags remembered (each key and its collection), none forgotten yet.
    store.evictKeys(Array.from({ length: 50_000 }, (_, i) => `T${i}:${i}`));
    expect(store.set('a', 'A', ['Other:1'], MINUTE_MS, first)).toBe(true);
    const second = store.epoch();
    store.evictKeys(['Last:1']);
    // T0:0 and T0 forgotten: the floor rose to when they were evicted.
    expect(store.set('b', 'B', ['Other:2'], MINUTE_MS, first)).toBe(false);
    expect(store.set('c', 'C', ['T0:0'], MINUTE_MS, first)).toBe(false);
    expect(store.stats().refused).toBe(2);
    // A fetch begun after that still stores, under a tag changed before it or one never changed...
    expect(store.set('d', 'D', ['Other:3'], MINUTE_MS, second)).toBe(true);
    expect(store.set('e', 'E', ['T0:0', 'T1'], MINUTE_MS, second)).toBe(true);
    // ... but not under one changed after it.
    expect(store.set('f', 'F', ['Last'], MINUTE_MS, second)).toBe(false);
  });
});

describe('FetchCacheStore: stats', () => {
  it('counts hits, misses, shared misses, refusals and evictions by cause, with the entries and bytes held', () => {
    const { store, clock } = storeOn({ ...ROOMY, maxEntries: 2 });
    expect(store.stats()).toEqual({
      entries: 0,
      bytes: 0,
      hits: 0,
      misses: 0,
      shared: 0,
      refused: 0,
      evictions: { change: 0, capacity: 0, expired: 0, lost: 0 },
    });
    const since = store.epoch();
    store.set('a', 'A', ['T:1'], 100, since);
    store.set('b', 'B', ['T:2'], MINUTE_MS, since);
    store.get('a'); // hit
    store.get('a'); // hit
    store.get('zz'); // miss
    store.noteShared();
    store.set('c', 'C', ['T:3'], MINUTE_MS, since); // b out (a was read since)
    clock.now += 100;
    store.get('a'); // expired: a miss
    store.evictKeys(['T:3']); // c out
    store.set('d', 'D', ['T:3'], MINUTE_MS, since); // refused: T:3 changed since
    store.set('e', 'E', ['U:1'], MINUTE_MS, store.epoch());
    store.set('f', 'F', ['U:2'], MINUTE_MS, store.epoch());
    expect(store.stats()).toEqual({
      entries: 2,
      bytes: bytesOf('e', 'E', ['U:1']) + bytesOf('f', 'F', ['U:2']),
      hits: 2,
      misses: 2,
      shared: 1,
      refused: 1,
      evictions: { change: 1, capacity: 1, expired: 1, lost: 0 },
    });
    store.dropAll();
    expect(store.stats()).toEqual({
      entries: 0,
      bytes: 0,
      hits: 2,
      misses: 2,
      shared: 1,
      refused: 1,
      evictions: { change: 1, capacity: 1, expired: 1, lost: 2 },
    });
  });

  it('gives a copy of its counts', () => {
    const { store } = storeOn();
    const stats = store.stats();
    stats.evictions.change = 99;
    stats.hits = 99;
    expect(store.stats()).toMatchObject({ hits: 0, evictions: { change: 0 } });
  });

  it('brings the bytes back to what is held as entries go', () => {
    const { store } = storeOn();
    store.set('a', 'A'.repeat(50), ['T:1'], MINUTE_MS, store.epoch());
    store.set('b', 'B', ['T:2'], MINUTE_MS, store.epoch());
    expect(store.stats().bytes).toBe(bytesOf('a', 'A'.repeat(50), ['T:1']) + bytesOf('b', 'B', ['T:2']));
    store.evictKeys(['T:1']);
    expect(store.stats().bytes).toBe(bytesOf('b', 'B', ['T:2']));
    store.evictKeys(['T:2']);
    expect(store.stats().bytes).toBe(0);
  });
});

describe('FetchCacheStore: an entry larger than the whole bound', () => {
  it('is refused, and what is kept stays (it would only empty the cache)', () => {
    const { store } = storeOn({ maxEntries: 10, maxBytes: 1000, maxEntryBytes: 5000 });
    expect(store.set('a', 'small', ['T:1'], MINUTE_MS, store.epoch())).toBe(true);
    expect(store.set('big', 'x'.repeat(2000), ['T:2'], MINUTE_MS, store.epoch())).toBe(false);
    expect(store.get('a')).toBe('small');
    expect(store.stats()).toMatchObject({ entries: 1, refused: 1, evictions: { change: 0, capacity: 0, expired: 0, lost: 0 } });
  });

  it('refuses a max age that is none (NaN, 0, negative)', () => {
    const { store } = storeOn();
    for (const age of [Number.NaN, 0, -1]) expect(store.set('a', 'A', ['T:1'], age, store.epoch())).toBe(false);
    expect(store.stats()).toMatchObject({ entries: 0, refused: 3 });
  });
});
