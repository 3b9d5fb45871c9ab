/**
 * The fetch cache's store (gateway/fetch-cache/fetch-cache-store.ts): entries with their tags, least recently used out
 * first within the count and byte bounds, a reply too large refused, the max age on an injected clock, eviction by tag
 * (`T:id` and the collection `T`) at a log position, the store-race guard on the log's clock (a reply whose fetch began
 * before a change to one of its tags is not kept, nor one begun below the floor the log is followed from, nor any while
 * the log is lost), and its counts.
 */
import { describe, expect, it } from 'vitest';
import { FetchCacheStore, type FetchCacheBounds } from '../../gateway/fetch-cache/fetch-cache-store.ts';

const ROOMY: FetchCacheBounds = { maxEntries: 1000, maxBytes: 1 << 30, maxEntryBytes: 1 << 30 };
const MINUTE_MS = 60_000;
/** The position the tests' stores follow the log from, and the `since` of a reply fetched there. */
const FLOOR = 10n;

/** The bytes the store counts for one entry, measured on a store of its own. */
function bytesOf(key: string, text: string, tags: readonly string[]): number {
  const probe = new FetchCacheStore(ROOMY);
  probe.followFrom(0n);
  expect(probe.set(key, text, tags, MINUTE_MS, 0n)).toBe(true);
  return probe.stats().bytes;
}

/** A store on a clock the test moves (`clock.now`), following the log from FLOOR. */
function storeOn(bounds: FetchCacheBounds = ROOMY) {
  const clock = { now: 1_000_000 };
  const store = new FetchCacheStore(bounds, () => clock.now);
  store.followFrom(FLOOR);
  return { store, clock };
}

describe('FetchCacheStore: get and set', () => {
  it('gives back the text kept under a key, and nothing under another', () => {
    const { store } = storeOn();
    expect(store.set('a', '{"user":{"id":"1"}}', ['User:1'], MINUTE_MS, FLOOR)).toBe(true);
    expect(store.get('a')).toBe('{"user":{"id":"1"}}');
    expect(store.get('b')).toBeUndefined();
    expect(store.stats()).toMatchObject({ entries: 1, hits: 1, misses: 1 });
  });

  it('replaces the text kept under a key, and its tags with it', () => {
    const { store } = storeOn();
    store.set('a', 'first', ['User:1'], MINUTE_MS, FLOOR);
    store.set('a', 'second', ['User:2'], MINUTE_MS, FLOOR);
    expect(store.get('a')).toBe('second');
    expect(store.stats()).toMatchObject({ entries: 1, bytes: bytesOf('a', 'second', ['User:2']) });
    // The old tag no longer names the entry; the new one does.
    store.evictKeys(['User:1'], 11n);
    expect(store.get('a')).toBe('second');
    store.evictKeys(['User:2'], 12n);
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
    store.set('a', 'A', ['T:1'], MINUTE_MS, FLOOR);
    store.set('b', 'B', ['T:2'], MINUTE_MS, FLOOR);
    expect(store.get('a')).toBe('A');
    store.set('c', 'C', ['T:3'], MINUTE_MS, FLOOR);
    expect(store.get('b')).toBeUndefined();
    expect(store.get('a')).toBe('A');
    expect(store.get('c')).toBe('C');
    expect(store.stats()).toMatchObject({ entries: 2, evictions: { change: 0, capacity: 1, expired: 0, lost: 0 } });
  });

  it('puts out the oldest entry when none was read', () => {
    const { store } = storeOn({ ...ROOMY, maxEntries: 2 });
    store.set('a', 'A', ['T:1'], MINUTE_MS, FLOOR);
    store.set('b', 'B', ['T:2'], MINUTE_MS, FLOOR);
    store.set('c', 'C', ['T:3'], MINUTE_MS, FLOOR);
    expect(store.get('a')).toBeUndefined();
    expect(store.get('b')).toBe('B');
    expect(store.get('c')).toBe('C');
  });

  it('counts an entry set again as recently used', () => {
    const { store } = storeOn({ ...ROOMY, maxEntries: 2 });
    store.set('a', 'A', ['T:1'], MINUTE_MS, FLOOR);
    store.set('b', 'B', ['T:2'], MINUTE_MS, FLOOR);
    store.set('a', 'A2', ['T:1'], MINUTE_MS, FLOOR);
    expect(store.stats()).toMatchObject({ entries: 2, evictions: { capacity: 0 } });
    store.set('c', 'C', ['T:3'], MINUTE_MS, FLOOR);
    expect(store.get('b')).toBeUndefined();
    expect(store.get('a')).toBe('A2');
  });

  it('keeps at most maxBytes over every entry, the least recently used out first', () => {
    const one = bytesOf('a', 'text', ['T:1']);
    const { store } = storeOn({ ...ROOMY, maxBytes: 3 * one });
    for (const key of ['a', 'b', 'c']) store.set(key, 'text', ['T:1'], MINUTE_MS, FLOOR);
    expect(store.stats()).toMatchObject({ entries: 3, bytes: 3 * one });
    expect(store.get('a')).toBe('text');
    store.set('d', 'text', ['T:1'], MINUTE_MS, FLOOR);
    expect(store.stats()).toMatchObject({ entries: 3, bytes: 3 * one, evictions: { capacity: 1 } });
    expect(store.get('b')).toBeUndefined();
    expect([store.get('a'), store.get('c'), store.get('d')]).toEqual(['text', 'text', 'text']);
    // One twice as large (its text 8 bytes longer than `one`) puts out the two least recently used (a was read first).
    store.set('e', 'x'.repeat((one + 8) / 2), ['T:1'], MINUTE_MS, FLOOR);
    expect(store.stats()).toMatchObject({ entries: 2, bytes: 3 * one });
    expect(store.get('a')).toBeUndefined();
    expect(store.get('c')).toBeUndefined();
    expect(store.get('d')).toBe('text');
    expect(store.stats().evictions.capacity).toBe(3);
  });

  it('refuses a reply larger than maxEntryBytes, and keeps one of exactly that size', () => {
    const one = bytesOf('a', 'text', ['T:1']);
    const { store } = storeOn({ ...ROOMY, maxEntryBytes: one - 1 });
    expect(store.set('a', 'text', ['T:1'], MINUTE_MS, FLOOR)).toBe(false);
    expect(store.get('a')).toBeUndefined();
    expect(store.stats()).toMatchObject({ entries: 0, bytes: 0, refused: 1 });
    const exact = storeOn({ ...ROOMY, maxEntryBytes: one }).store;
    expect(exact.set('a', 'text', ['T:1'], MINUTE_MS, FLOOR)).toBe(true);
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
    store.set('a', 'A', ['T:1'], 500, FLOOR);
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
    store.set('a', 'A', ['T:1'], 500, FLOOR);
    clock.now += 400;
    store.set('a', 'A2', ['T:1'], 500, FLOOR);
    clock.now += 400;
    expect(store.get('a')).toBe('A2');
  });

  it('refuses a reply of no max age', () => {
    const { store } = storeOn();
    expect(store.set('a', 'A', ['T:1'], 0, FLOOR)).toBe(false);
    expect(store.set('b', 'B', ['T:1'], -1, FLOOR)).toBe(false);
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
    for (const [key, tags] of Object.entries(entries)) store.set(key, key, tags, MINUTE_MS, FLOOR);
    const kept = () => Object.keys(entries).filter((key) => store.get(key) !== undefined);
    return { store, kept };
  }

  it("evicts the entries tagged with a changed key and with its type's collection, and no other id's", () => {
    const { store, kept } = filled();
    store.evictKeys(['User:1'], 11n);
    expect(kept()).toEqual(['u2', 'p1']);
    expect(store.stats()).toMatchObject({ entries: 2, evictions: { change: 3 } });
  });

  it('evicts what each of several keys names, an entry named twice once', () => {
    const { store, kept } = filled();
    store.evictKeys(['Post:2', 'User:1'], 11n);
    expect(kept()).toEqual(['u2', 'p1']);
    expect(store.stats().evictions.change).toBe(3);
  });

  it("leaves another type's entries, even one whose name begins with the same letters", () => {
    const { store, kept } = filled();
    // UserExample:1 is not of the collection User; Post:3 names the collection Post, which no entry holds (only ids).
    store.evictKeys(['UserExample:1', 'Post:3'], 11n);
    expect(kept()).toEqual(['u1', 'u2', 'users', 'p1', 'both']);
    expect(store.stats().evictions.change).toBe(0);
  });

  it('evicts nothing, and remembers no change, for no keys', () => {
    const { store, kept } = filled();
    store.evictKeys([], 50n);
    expect(kept()).toEqual(['u1', 'u2', 'users', 'p1', 'both']);
    // A reply fetched at the floor is vouched for under any tag: no change was remembered at 50.
    expect(store.vouches(['User:1', 'User', 'Post:1'], FLOOR)).toBe(true);
    expect(store.set('later', 'L', ['User:1'], MINUTE_MS, FLOOR)).toBe(true);
  });

  it('drops every entry and counts them lost', () => {
    const { store, kept } = filled();
    store.dropAll();
    expect(kept()).toEqual([]);
    expect(store.stats()).toMatchObject({ entries: 0, bytes: 0, evictions: { change: 0, lost: 5 } });
    // Nothing it dropped is evicted again by a change.
    store.evictKeys(['User:1'], 11n);
    expect(store.stats().evictions).toEqual({ change: 0, capacity: 0, expired: 0, lost: 5 });
  });
});

describe('FetchCacheStore: the store-race guard, on the log clock', () => {
  /** A store following the log from 1: replies fetched at 5 are above the floor. */
  function followedFromOne() {
    const { store } = storeOn();
    store.followFrom(1n);
    return store;
  }

  it('refuses a reply fetched at 5 after a change at 6 to one of its tags, and keeps one under tags the change did not touch', () => {
    const store = followedFromOne();
    store.evictKeys(['User:1'], 6n);
    expect(store.set('a', 'A', ['Post:1', 'User:1'], MINUTE_MS, 5n)).toBe(false);
    expect(store.get('a')).toBeUndefined();
    expect(store.stats()).toMatchObject({ entries: 0, refused: 1 });
    expect(store.set('b', 'B', ['User:2', 'Post:1', 'UserExample'], MINUTE_MS, 5n)).toBe(true);
    expect(store.get('b')).toBe('B');
  });

  it("refuses a reply holding the collection of a changed key's type", () => {
    const store = followedFromOne();
    store.evictKeys(['User:1'], 6n);
    expect(store.set('a', 'A', ['User'], MINUTE_MS, 5n)).toBe(false);
  });

  it('keeps a reply whose fetch began at or after the change', () => {
    const store = followedFromOne();
    store.evictKeys(['User:1'], 6n);
    expect(store.set('a', 'A', ['User:1'], MINUTE_MS, 6n)).toBe(true);
    expect(store.set('b', 'B', ['User'], MINUTE_MS, 7n)).toBe(true);
  });

  it('tells the changes before a fetch from those during it, each tag by its last change', () => {
    const store = followedFromOne();
    store.evictKeys(['User:1'], 6n);
    const since = 7n;
    store.evictKeys(['User:2'], 8n);
    expect(store.set('a', 'A', ['User:1'], MINUTE_MS, since)).toBe(true); // changed before the fetch began
    expect(store.set('b', 'B', ['User'], MINUTE_MS, since)).toBe(false); // the collection changed during it, with User:2
    expect(store.set('b', 'B', ['Post:1'], MINUTE_MS, since)).toBe(true);
    store.evictKeys(['Post:1'], 9n);
    const later = 9n;
    expect(store.set('c', 'C', ['Post:1'], MINUTE_MS, later)).toBe(true);
    store.evictKeys(['Post:1'], 10n);
    expect(store.set('d', 'D', ['Post:1'], MINUTE_MS, later)).toBe(false);
  });

  it('remembers the larger position of a tag when a change at a position at or below it comes', () => {
    const store = followedFromOne();
    store.evictKeys(['User:1'], 9n);
    store.evictKeys(['User:1'], 7n);
    store.evictKeys(['User:1'], 9n);
    // 9 stays: a reply fetched at 8 holds the change at 9 to User:1 (and to the collection User) no more than before.
    expect(store.set('a', 'A', ['User:1'], MINUTE_MS, 8n)).toBe(false);
    expect(store.set('b', 'B', ['User'], MINUTE_MS, 8n)).toBe(false);
    expect(store.set('c', 'C', ['User:1'], MINUTE_MS, 9n)).toBe(true);
  });

  it('refuses a reply fetched below the floor the log is followed from, whatever its tags', () => {
    const { store } = storeOn(); // followed from 10
    expect(store.vouches(['Never:1'], 9n)).toBe(false);
    expect(store.set('a', 'A', ['Never:1'], MINUTE_MS, 9n)).toBe(false);
    expect(store.set('b', 'B', ['Never:1'], MINUTE_MS, 10n)).toBe(true);
    expect(store.stats()).toMatchObject({ entries: 1, refused: 1 });
    // Followed again from further on: the floor rises with it.
    store.followFrom(20n);
    expect(store.set('c', 'C', ['Never:2'], MINUTE_MS, 19n)).toBe(false);
    expect(store.set('c', 'C', ['Never:2'], MINUTE_MS, 20n)).toBe(true);
  });

  it('vouches for nothing and keeps nothing before the log is followed', () => {
    const store = new FetchCacheStore(ROOMY);
    expect(store.vouches(['Never:1'], 0n)).toBe(false);
    expect(store.vouches([], 1_000_000n)).toBe(false);
    expect(store.set('a', 'A', ['Never:1'], MINUTE_MS, 0n)).toBe(false);
    expect(store.set('b', 'B', ['Never:1'], MINUTE_MS, 1_000_000n)).toBe(false);
    expect(store.stats()).toMatchObject({ entries: 0, refused: 2 });
    store.followFrom(0n);
    expect(store.set('a', 'A', ['Never:1'], MINUTE_MS, 0n)).toBe(true);
    expect(store.get('a')).toBe('A');
  });

  it('vouches for nothing and keeps nothing after everything was dropped, until the log is followed again', () => {
    const { store } = storeOn();
    store.evictKeys(['User:1'], 20n);
    store.dropAll();
    expect(store.vouches(['Never:1'], 1_000n)).toBe(false);
    expect(store.set('a', 'A', ['Never:1'], MINUTE_MS, FLOOR)).toBe(false);
    expect(store.set('a', 'A', ['Never:1'], MINUTE_MS, 1_000n)).toBe(false);
    // A change applied while lost moves no floor.
    store.evictKeys(['Post:1'], 25n);
    expect(store.set('a', 'A', ['Never:1'], MINUTE_MS, 1_000n)).toBe(false);
    store.followFrom(30n);
    expect(store.set('a', 'A', ['Never:1'], MINUTE_MS, 29n)).toBe(false);
    expect(store.set('b', 'B', ['Never:1'], MINUTE_MS, 30n)).toBe(true);
    // Changes before the floor are in what any fetch from it read: a tag changed before the loss refuses nothing.
    expect(store.set('c', 'C', ['User:1'], MINUTE_MS, 30n)).toBe(true);
    expect(store.get('b')).toBe('B');
    expect(store.stats().refused).toBe(4);
  });

  it('vouches as set decides, without counting a refusal', () => {
    const store = followedFromOne();
    store.evictKeys(['User:1'], 6n);
    expect(store.vouches(['User:1'], 5n)).toBe(false);
    expect(store.vouches(['User'], 5n)).toBe(false);
    expect(store.vouches(['User:2', 'Post:1'], 5n)).toBe(true);
    expect(store.vouches(['User:1'], 6n)).toBe(true);
    expect(store.vouches([], 1n)).toBe(true);
    expect(store.vouches([], 0n)).toBe(false);
    expect(store.stats().refused).toBe(0);
  });

  it('after more than 100 000 remembered tags forgets the oldest and raises the floor to the largest position forgotten', () => {
    const store = new FetchCacheStore(ROOMY);
    store.followFrom(0n);
    store.evictKeys(['A0:0'], 3n); // A0:0 and A0 remembered at 3
    store.evictKeys(['A1:1'], 4n); // A1:1 and A1 at 4
    // 49 998 keys, each of a type of its own, at 5: 100 000 tags remembered (each key and its collection), none forgotten.
    store.evictKeys(
      Array.from({ length: 49_998 }, (_, i) => `T${i}:${i}`),
      5n,
    );
    expect(store.set('a', 'A', ['Other:1'], MINUTE_MS, 1n)).toBe(true);
    store.evictKeys(['Last:1'], 8n);
    // A0:0 and A0 forgotten: the floor rose to 3, where they were changed.
    expect(store.set('b', 'B', ['Other:2'], MINUTE_MS, 2n)).toBe(false);
    expect(store.set('c', 'C', ['A0:0'], MINUTE_MS, 2n)).toBe(false);
    expect(store.stats().refused).toBe(2);
    // A fetch begun at the floor still stores, under a tag forgotten or one never changed...
    expect(store.set('d', 'D', ['Other:3'], MINUTE_MS, 3n)).toBe(true);
    expect(store.set('e', 'E', ['A0:0', 'A0'], MINUTE_MS, 3n)).toBe(true);
    // ... but not under one still remembered as changed after it.
    expect(store.set('f', 'F', ['A1'], MINUTE_MS, 3n)).toBe(false);
    expect(store.set('f', 'F', ['Last'], MINUTE_MS, 7n)).toBe(false);
    // Four more forget four: A1:1, A1 (at 4), T0:0, T0 (at 5): the floor is the largest of them, 5.
    store.evictKeys(['Later:1', 'Latest:1'], 9n);
    expect(store.set('g', 'G', ['Other:4'], MINUTE_MS, 4n)).toBe(false);
    expect(store.set('g', 'G', ['Other:4'], MINUTE_MS, 5n)).toBe(true);
    expect(store.set('h', 'H', ['T1:1'], MINUTE_MS, 5n)).toBe(true);
    expect(store.set('i', 'I', ['Later'], MINUTE_MS, 8n)).toBe(false);
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
    const since = FLOOR;
    store.set('a', 'A', ['T:1'], 100, since);
    store.set('b', 'B', ['T:2'], MINUTE_MS, since);
    store.get('a'); // hit
    store.get('a'); // hit
    store.get('zz'); // miss
    store.noteShared();
    store.set('c', 'C', ['T:3'], MINUTE_MS, since); // b out (a was read since)
    clock.now += 100;
    store.get('a'); // expired: a miss
    store.evictKeys(['T:3'], 11n); // c out
    store.set('d', 'D', ['T:3'], MINUTE_MS, since); // refused: T:3 changed since
    store.set('e', 'E', ['U:1'], MINUTE_MS, 11n);
    store.set('f', 'F', ['U:2'], MINUTE_MS, 11n);
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
    store.set('a', 'A'.repeat(50), ['T:1'], MINUTE_MS, FLOOR);
    store.set('b', 'B', ['T:2'], MINUTE_MS, FLOOR);
    expect(store.stats().bytes).toBe(bytesOf('a', 'A'.repeat(50), ['T:1']) + bytesOf('b', 'B', ['T:2']));
    store.evictKeys(['T:1'], 11n);
    expect(store.stats().bytes).toBe(bytesOf('b', 'B', ['T:2']));
    store.evictKeys(['T:2'], 12n);
    expect(store.stats().bytes).toBe(0);
  });
});

describe('FetchCacheStore: an entry larger than the whole bound', () => {
  it('is refused, and what is kept stays (it would only empty the cache)', () => {
    const { store } = storeOn({ maxEntries: 10, maxBytes: 1000, maxEntryBytes: 5000 });
    expect(store.set('a', 'small', ['T:1'], MINUTE_MS, FLOOR)).toBe(true);
    expect(store.set('big', 'x'.repeat(2000), ['T:2'], MINUTE_MS, FLOOR)).toBe(false);
    expect(store.get('a')).toBe('small');
    expect(store.stats()).toMatchObject({ entries: 1, refused: 1, evictions: { change: 0, capacity: 0, expired: 0, lost: 0 } });
  });

  it('refuses a max age that is none (NaN, 0, negative)', () => {
    const { store } = storeOn();
    for (const age of [Number.NaN, 0, -1]) expect(store.set('a', 'A', ['T:1'], age, FLOOR)).toBe(false);
    expect(store.stats()).toMatchObject({ entries: 0, refused: 3 });
  });
});
