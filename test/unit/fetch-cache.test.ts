/**
 * The gateway's fetch cache (gateway/fetch-cache/fetch-cache.ts) on a fake change-log follower: nothing read or kept
 * while the follower does not vouch, nor before the log is followed from a position (followFrom); a reusable reply kept
 * and served parsed anew; what may not be reused run every time; concurrent misses of one key sharing one fetch; changes
 * evicting at their positions; a write's reply waiting for the follower; the key made of the subgraph, the document, the
 * viewer and the variables; and the shared level (a fake SharedLevel): a local miss served from it only when this
 * process vouches for the entry, and every reply kept written to it.
 */
import { buildSubgraphSchema } from '@apollo/subgraph';
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createFetchCache,
  type CacheableFetch,
  type FetchCacheInvalidation,
  type FetchOutcome,
} from '../../gateway/fetch-cache/fetch-cache.ts';
import type { FetchCacheBounds } from '../../gateway/fetch-cache/fetch-cache-store.ts';
import type { SharedEntry, SharedLevel } from '../../gateway/fetch-cache/shared-level.ts';

/** The max age of the replies the tests' runs give (their hints'). */
const MAX_AGE_SECONDS = 30;

const BOUNDS: FetchCacheBounds = { maxEntries: 100, maxBytes: 1 << 20, maxEntryBytes: 1 << 16 };

const schema = buildSubgraphSchema({
  typeDefs: parse(`
    extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
    type Query {
      user(id: ID!): User
      node(id: ID!): Node
    }
    interface Node {
      id: ID!
    }
    type User implements Node @key(fields: "id") {
      id: ID!
      name: String!
    }
  `),
});

const operationOf = (document: string) =>
  parse(document).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;

const USER_QUERY = operationOf('query ($id: ID!) { user(id: $id) { id name } }');

/** A fetch of user 1 by the users subgraph; `overrides` change what the key is made of. */
function fetchOf(overrides: Partial<CacheableFetch> = {}): CacheableFetch {
  return {
    subgraph: 'users',
    documentKey: 'document-1',
    schema,
    operation: USER_QUERY,
    fragments: new Map(),
    variables: { id: '1' },
    viewer: 'viewer-a',
    ...overrides,
  };
}

/** A follower the test drives: whether it vouches, what catchUp does, its position and head. */
function fakeFollower() {
  const state = { vouching: true, position: '12', head: '15' };
  const catchUp = vi.fn(async () => true);
  const follower: FetchCacheInvalidation = {
    vouching: () => state.vouching,
    catchUp,
    position: () => state.position,
    head: () => state.head,
  };
  return { state, catchUp, follower };
}

/**
 * A cache on a fake follower, with the shared level if one is given, following the log from the follower's position (as
 * the follower tells it when it starts: onFollowed). `change(...keys)` applies a change at the follower's next position.
 */
function cacheOnFollower({ bounds = BOUNDS, shared }: { bounds?: FetchCacheBounds; shared?: SharedLevel } = {}) {
  const fake = fakeFollower();
  const cache = createFetchCache(bounds, () => fake.follower, shared);
  cache.followFrom(fake.state.position);
  const change = (...keys: string[]) => {
    const position = String(BigInt(fake.state.position) + 1n);
    fake.state.position = position;
    cache.applyChanges([{ position, keys }]);
    return position;
  };
  return { ...fake, cache, change };
}

/** A run that answers user `id` (reusable, for MAX_AGE_SECONDS, unless told), counting its calls. */
function runAnswering(id = '1', { reusable = true, value = `ran:${id}`, maxAgeSeconds = MAX_AGE_SECONDS } = {}) {
  return vi.fn(async (): Promise<FetchOutcome<string>> => ({ value, data: { user: { id, name: `name-${id}` } }, reusable, maxAgeSeconds }));
}

/** A run that waits until the test settles it. */
function heldRun<T = string>() {
  let settle!: (outcome: FetchOutcome<T>) => void;
  let fail!: (error: Error) => void;
  const outcome = new Promise<FetchOutcome<T>>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  return { run: vi.fn(() => outcome), settle, fail };
}

/** Lets every callback already queued run (the reads under way reach their next wait). */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.useRealTimers();
});

describe('the fetch cache while its follower does not vouch', () => {
  it('runs every fetch and keeps nothing, and serves nothing it might have kept before', async () => {
    const { cache, state } = cacheOnFollower();
    state.vouching = false;
    const run = runAnswering();
    expect(cache.serving()).toBe(false);
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    expect(run).toHaveBeenCalledTimes(2);
    expect(cache.stats()).toMatchObject({ entries: 0, hits: 0, misses: 0 });
    // Vouching again: what ran meanwhile was not kept.
    state.vouching = true;
    expect(cache.serving()).toBe(true);
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    expect(run).toHaveBeenCalledTimes(3);
  });

  it('does not serve what it kept while the follower stops vouching', async () => {
    const { cache, state } = cacheOnFollower();
    const run = runAnswering();
    await cache.read(fetchOf(), run);
    state.vouching = false;
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('runs every fetch when there is no follower', async () => {
    const cache = createFetchCache(BOUNDS, () => undefined);
    const run = runAnswering();
    expect(cache.serving()).toBe(false);
    await cache.read(fetchOf(), run);
    await cache.read(fetchOf(), run);
    expect(run).toHaveBeenCalledTimes(2);
    expect(cache.stats()).toMatchObject({ entries: 0, position: '0', head: '0' });
  });

  it('does not keep a reply whose follower stopped vouching while it ran', async () => {
    const { cache, state } = cacheOnFollower();
    const held = heldRun();
    const reading = cache.read(fetchOf(), held.run);
    state.vouching = false;
    held.settle({ value: 'ran', data: { user: { id: '1', name: 'Ann' } }, reusable: true, maxAgeSeconds: MAX_AGE_SECONDS });
    expect(await reading).toEqual({ ran: 'ran' });
    state.vouching = true;
    const run = runAnswering();
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    expect(run).toHaveBeenCalledTimes(1);
  });
});

describe('the fetch cache while its follower vouches', () => {
  it('keeps a reusable reply and serves it parsed anew: equal to the data, never the same object', async () => {
    const { cache } = cacheOnFollower();
    const data = { user: { id: '1', name: 'Ann' } };
    const run = vi.fn(async (): Promise<FetchOutcome<string>> => ({ value: 'ran', data, reusable: true, maxAgeSeconds: MAX_AGE_SECONDS }));
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran' });
    const first = await cache.read(fetchOf(), run);
    const second = await cache.read(fetchOf(), run);
    expect(run).toHaveBeenCalledTimes(1);
    expect(first).toEqual({ fromCache: data });
    expect(second).toEqual({ fromCache: data });
    const firstData = (first as { fromCache: Record<string, unknown> }).fromCache;
    const secondData = (second as { fromCache: Record<string, unknown> }).fromCache;
    expect(firstData).not.toBe(data);
    expect(firstData).not.toBe(secondData);
    // What a reader does with its copy (the executor merges into it) reaches neither the entry nor another reader.
    (firstData.user as Record<string, unknown>).name = 'changed';
    data.user.name = 'changed too';
    expect(await cache.read(fetchOf(), run)).toEqual({ fromCache: { user: { id: '1', name: 'Ann' } } });
    expect(cache.stats()).toMatchObject({ entries: 1, hits: 3, misses: 1 });
  });

  it('runs again a reply that may not be reused (errors, extensions)', async () => {
    const { cache } = cacheOnFollower();
    const run = runAnswering('1', { reusable: false });
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    expect(run).toHaveBeenCalledTimes(2);
    expect(cache.stats()).toMatchObject({ entries: 0, hits: 0, misses: 2 });
  });

  it('runs again a reply without data', async () => {
    const { cache } = cacheOnFollower();
    for (const data of [null, undefined]) {
      const run = vi.fn(async (): Promise<FetchOutcome<string>> => ({
        value: 'ran',
        data,
        reusable: true,
        maxAgeSeconds: MAX_AGE_SECONDS,
      }));
      await cache.read(fetchOf(), run);
      await cache.read(fetchOf(), run);
      expect(run).toHaveBeenCalledTimes(2);
    }
    expect(cache.stats().entries).toBe(0);
  });

  it('runs again a reply it cannot tag (an abstract type without __typename)', async () => {
    const { cache } = cacheOnFollower();
    const fetch = fetchOf({ operation: operationOf('query ($id: ID!) { node(id: $id) { id } }') });
    const run = vi.fn(async (): Promise<FetchOutcome<string>> => ({
      value: 'ran',
      data: { node: { id: '1' } },
      reusable: true,
      maxAgeSeconds: MAX_AGE_SECONDS,
    }));
    await cache.read(fetch, run);
    await cache.read(fetch, run);
    expect(run).toHaveBeenCalledTimes(2);
    expect(cache.stats().entries).toBe(0);
    // With __typename it is kept.
    const typed = fetchOf({ documentKey: 'document-2', operation: operationOf('query ($id: ID!) { node(id: $id) { __typename id } }') });
    const typedRun = vi.fn(async (): Promise<FetchOutcome<string>> => ({
      value: 'ran',
      data: { node: { __typename: 'User', id: '1' } },
      reusable: true,
      maxAgeSeconds: MAX_AGE_SECONDS,
    }));
    await cache.read(typed, typedRun);
    expect(await cache.read(typed, typedRun)).toEqual({ fromCache: { node: { __typename: 'User', id: '1' } } });
    expect(typedRun).toHaveBeenCalledTimes(1);
  });

  it('runs again a reply too large to keep', async () => {
    const { cache } = cacheOnFollower({ bounds: { ...BOUNDS, maxEntryBytes: 1024 } });
    const run = vi.fn(async (): Promise<FetchOutcome<string>> => ({
      value: 'ran',
      data: { user: { id: '1', name: 'x'.repeat(1024) } },
      reusable: true,
      maxAgeSeconds: MAX_AGE_SECONDS,
    }));
    await cache.read(fetchOf(), run);
    await cache.read(fetchOf(), run);
    expect(run).toHaveBeenCalledTimes(2);
    expect(cache.stats()).toMatchObject({ entries: 0, refused: 2 });
  });

  it('runs again a reply of no max age', async () => {
    const { cache } = cacheOnFollower();
    for (const maxAgeSeconds of [0, -1]) {
      const run = runAnswering('1', { maxAgeSeconds });
      await cache.read(fetchOf(), run);
      await cache.read(fetchOf(), run);
      expect(run).toHaveBeenCalledTimes(2);
    }
    expect(cache.stats().entries).toBe(0);
  });

  it('keeps a reply for its max age', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
    const { cache } = cacheOnFollower();
    const run = runAnswering('1', { maxAgeSeconds: 30 });
    await cache.read(fetchOf(), run);
    vi.setSystemTime(new Date('2026-01-01T00:00:29.999Z'));
    expect(await cache.read(fetchOf(), run)).toEqual({ fromCache: { user: { id: '1', name: 'name-1' } } });
    vi.setSystemTime(new Date('2026-01-01T00:00:30Z'));
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    expect(run).toHaveBeenCalledTimes(2);
    expect(cache.stats().evictions.expired).toBe(1);
  });
});

describe('the fetch cache: concurrent misses of one key', () => {
  it('run one fetch when its reply is kept: the others take its data, each a copy of its own', async () => {
    const { cache } = cacheOnFollower();
    const leader = heldRun();
    const others = [runAnswering('other'), runAnswering('other')];
    const reads = [cache.read(fetchOf(), leader.run), ...others.map((run) => cache.read(fetchOf(), run))];
    await settled();
    expect(leader.run).toHaveBeenCalledTimes(1);
    const data = { user: { id: '1', name: 'Ann' } };
    leader.settle({ value: 'leader', data, reusable: true, maxAgeSeconds: MAX_AGE_SECONDS });
    const [first, second, third] = await Promise.all(reads);
    expect(first).toEqual({ ran: 'leader' });
    expect(second).toEqual({ fromCache: data });
    expect(third).toEqual({ fromCache: data });
    expect((second as { fromCache: unknown }).fromCache).not.toBe((third as { fromCache: unknown }).fromCache);
    for (const run of others) expect(run).not.toHaveBeenCalled();
    expect(cache.stats()).toMatchObject({ entries: 1, misses: 3, shared: 2, hits: 0 });
  });

  it('each run its own fetch, once the first is done, when its reply was not kept', async () => {
    const { cache } = cacheOnFollower();
    const leader = heldRun();
    const others = [runAnswering('1', { value: 'second' }), runAnswering('1', { value: 'third' })];
    const reads = [cache.read(fetchOf(), leader.run), ...others.map((run) => cache.read(fetchOf(), run))];
    await settled();
    for (const run of others) expect(run).not.toHaveBeenCalled();
    leader.settle({ value: 'leader', data: { user: { id: '1', name: 'Ann' } }, reusable: false, maxAgeSeconds: MAX_AGE_SECONDS });
    expect(await Promise.all(reads)).toEqual([{ ran: 'leader' }, { ran: 'second' }, { ran: 'third' }]);
    for (const run of others) expect(run).toHaveBeenCalledTimes(1);
    // What the others ran is not kept either (they were no first fetch).
    expect(cache.stats()).toMatchObject({ entries: 0, shared: 2 });
  });

  it('each run their own fetch when the first failed, and the first fails with its error', async () => {
    const { cache } = cacheOnFollower();
    const leader = heldRun();
    const other = runAnswering('1', { value: 'other' });
    const first = cache.read(fetchOf(), leader.run);
    const second = cache.read(fetchOf(), other);
    await settled();
    leader.fail(new Error('subgraph down'));
    await expect(first).rejects.toThrow('subgraph down');
    expect(await second).toEqual({ ran: 'other' });
    expect(other).toHaveBeenCalledTimes(1);
    // Nothing is left in flight: the next read runs.
    const next = runAnswering();
    expect(await cache.read(fetchOf(), next)).toEqual({ ran: 'ran:1' });
    expect(next).toHaveBeenCalledTimes(1);
  });

  it('share nothing across keys', async () => {
    const { cache } = cacheOnFollower();
    const one = heldRun();
    const two = runAnswering('2');
    const first = cache.read(fetchOf(), one.run);
    const second = cache.read(fetchOf({ variables: { id: '2' } }), two);
    expect(await second).toEqual({ ran: 'ran:2' });
    one.settle({ value: 'one', data: { user: { id: '1', name: 'Ann' } }, reusable: true, maxAgeSeconds: MAX_AGE_SECONDS });
    expect(await first).toEqual({ ran: 'one' });
    expect(cache.stats()).toMatchObject({ entries: 2, shared: 0 });
  });
});

describe('the fetch cache: changes', () => {
  it('evicts a reply holding a changed entity, and no other', async () => {
    const { cache, change } = cacheOnFollower();
    const one = runAnswering('1');
    const two = runAnswering('2');
    await cache.read(fetchOf(), one);
    await cache.read(fetchOf({ variables: { id: '2' } }), two);
    change('User:2', 'Post:1', 'UserExample:1');
    expect(await cache.read(fetchOf(), one)).toEqual({ fromCache: { user: { id: '1', name: 'name-1' } } });
    expect(await cache.read(fetchOf({ variables: { id: '2' } }), two)).toEqual({ ran: 'ran:2' });
    change('User:1');
    expect(await cache.read(fetchOf(), one)).toEqual({ ran: 'ran:1' });
    expect(one).toHaveBeenCalledTimes(2);
    expect(two).toHaveBeenCalledTimes(2);
    expect(cache.stats().evictions.change).toBe(2);
  });

  it("evicts an entity fetch by its representations' keys", async () => {
    const { cache, change } = cacheOnFollower();
    const operation = operationOf(
      'query ($representations: [_Any!]!) { _entities(representations: $representations) { ... on User { name } } }',
    );
    const fetchFor = (id: string) =>
      fetchOf({ documentKey: 'document-3', operation, variables: { representations: [{ __typename: 'User', id }] } });
    const run = vi.fn(async (): Promise<FetchOutcome<string>> => ({
      value: 'ran',
      data: { _entities: [{ name: 'Ann' }] },
      reusable: true,
      maxAgeSeconds: MAX_AGE_SECONDS,
    }));
    await cache.read(fetchFor('7'), run);
    await cache.read(fetchFor('8'), run);
    expect(run).toHaveBeenCalledTimes(2);
    change('User:8');
    expect(await cache.read(fetchFor('7'), run)).toEqual({ fromCache: { _entities: [{ name: 'Ann' }] } });
    expect(await cache.read(fetchFor('8'), run)).toEqual({ ran: 'ran' });
    expect(run).toHaveBeenCalledTimes(3);
  });

  it('does not keep a reply whose fetch overlapped a change to what it holds', async () => {
    const { cache, change } = cacheOnFollower();
    const held = heldRun();
    const reading = cache.read(fetchOf(), held.run);
    change('User:1');
    held.settle({ value: 'stale', data: { user: { id: '1', name: 'Ann' } }, reusable: true, maxAgeSeconds: MAX_AGE_SECONDS });
    expect(await reading).toEqual({ ran: 'stale' });
    const run = runAnswering();
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    expect(run).toHaveBeenCalledTimes(1);
    expect(cache.stats()).toMatchObject({ refused: 1 });
  });

  it('drops everything when the log is lost', async () => {
    const { cache } = cacheOnFollower();
    const run = runAnswering();
    await cache.read(fetchOf(), run);
    await cache.read(fetchOf({ viewer: 'viewer-b' }), run);
    cache.dropAll();
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0, evictions: { lost: 2 } });
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    expect(run).toHaveBeenCalledTimes(3);
  });

  it('waits after a write until the follower has caught up with the log, and gives the position it then applied', async () => {
    const { cache, catchUp, state } = cacheOnFollower();
    let caughtUp!: (value: boolean) => void;
    catchUp.mockImplementationOnce(
      () =>
        new Promise<boolean>((resolve) => {
          caughtUp = resolve;
        }),
    );
    let done = false;
    const writing = cache.afterWrite().then((position) => {
      done = true;
      return position;
    });
    await settled();
    expect(catchUp).toHaveBeenCalledTimes(1);
    expect(done).toBe(false);
    state.position = '13'; // the write's change, applied by the catch-up
    caughtUp(true);
    expect(await writing).toBe('13');
  });

  it('gives no position after a write when the log could not be read, or when no follower runs', async () => {
    const { cache, catchUp } = cacheOnFollower();
    catchUp.mockResolvedValueOnce(false);
    expect(await cache.afterWrite()).toBeUndefined();
    expect(await createFetchCache(BOUNDS, () => undefined).afterWrite()).toBeUndefined();
  });
});

describe('the fetch cache: a read presenting a log position', () => {
  it('is reached at once when the follower has applied that position or past it', async () => {
    const { cache, catchUp } = cacheOnFollower();
    expect(await cache.reach(12n)).toBe('reached');
    expect(await cache.reach(3n)).toBe('reached');
    expect(catchUp).not.toHaveBeenCalled();
  });

  it('is reached after one catch-up that applies it', async () => {
    const { cache, catchUp, state } = cacheOnFollower();
    catchUp.mockImplementationOnce(async () => {
      state.position = '20';
      return true;
    });
    expect(await cache.reach(20n)).toBe('reached');
    expect(catchUp).toHaveBeenCalledTimes(1);
  });

  it('is ahead when the log holds no such position after a catch-up', async () => {
    const { cache, catchUp } = cacheOnFollower();
    expect(await cache.reach(13n)).toBe('ahead');
    expect(catchUp).toHaveBeenCalledTimes(1);
  });

  it('is unfollowed while the follower does not vouch, without one, or when its catch-up cannot read the log', async () => {
    const { cache, catchUp, state } = cacheOnFollower();
    state.vouching = false;
    expect(await cache.reach(1n)).toBe('unfollowed');
    expect(catchUp).not.toHaveBeenCalled();
    state.vouching = true;
    catchUp.mockResolvedValueOnce(false);
    expect(await cache.reach(13n)).toBe('unfollowed');
    expect(await createFetchCache(BOUNDS, () => undefined).reach(1n)).toBe('unfollowed');
  });
});

describe('the fetch cache: keys', () => {
  it('keeps a reply apart per subgraph, document, viewer and variables', async () => {
    const { cache } = cacheOnFollower();
    const run = runAnswering();
    const variants: CacheableFetch[] = [
      fetchOf(),
      fetchOf({ subgraph: 'accounts' }),
      fetchOf({ documentKey: 'document-2' }),
      fetchOf({ viewer: 'viewer-b' }),
      fetchOf({ variables: { id: '1', extra: true } }),
      fetchOf({ variables: undefined }),
    ];
    for (const fetch of variants) expect(await cache.read(fetch, run)).toEqual({ ran: 'ran:1' });
    expect(run).toHaveBeenCalledTimes(variants.length);
    for (const fetch of variants) expect(await cache.read(fetch, run)).toEqual({ fromCache: { user: { id: '1', name: 'name-1' } } });
    expect(cache.stats()).toMatchObject({ entries: variants.length, hits: variants.length, misses: variants.length });
  });

  it('tells long variables apart (hashed in the key) by every character', async () => {
    const { cache } = cacheOnFollower();
    const run = runAnswering();
    const long = (last: string) => fetchOf({ variables: { id: '1', filler: `${'x'.repeat(400)}${last}` } });
    await cache.read(long('a'), run);
    await cache.read(long('b'), run);
    expect(run).toHaveBeenCalledTimes(2);
    expect(await cache.read(long('a'), run)).toEqual({ fromCache: { user: { id: '1', name: 'name-1' } } });
    expect(await cache.read(long('b'), run)).toEqual({ fromCache: { user: { id: '1', name: 'name-1' } } });
    expect(run).toHaveBeenCalledTimes(2);
  });
});

describe('the fetch cache: stats', () => {
  it("adds the follower's position and head to the store's counts", async () => {
    const { cache, state } = cacheOnFollower();
    await cache.read(fetchOf(), runAnswering());
    expect(cache.stats()).toEqual({
      entries: 1,
      bytes: expect.any(Number),
      hits: 0,
      misses: 1,
      shared: 0,
      refused: 0,
      evictions: { change: 0, capacity: 0, expired: 0, lost: 0 },
      position: '12',
      head: '15',
    });
    expect(cache.stats().bytes).toBeGreaterThan(0);
    state.position = '20';
    state.head = '21';
    expect(cache.stats()).toMatchObject({ position: '20', head: '21' });
  });
});

describe('createFetchCache: a reply no tag can vouch for', () => {
  it('is not kept, and counts as refused', async () => {
    const { cache } = cacheOnFollower();
    const fetch = fetchOf({ operation: operationOf('query ($id: ID!) { node(id: $id) { id } }') });
    // An abstract type without __typename: resultTags cannot tell which type the object is.
    const run = vi.fn(async (): Promise<FetchOutcome<string>> => ({
      value: 'v',
      data: { node: { id: '1' } },
      reusable: true,
      maxAgeSeconds: 30,
    }));
    expect(await cache.read(fetch, run)).toEqual({ ran: 'v' });
    expect(await cache.read(fetch, run)).toEqual({ ran: 'v' });
    expect(run).toHaveBeenCalledTimes(2);
    expect(cache.stats()).toMatchObject({ entries: 0, refused: 2 });
  });
});

describe('the fetch cache: following the log from a position', () => {
  it('keeps nothing until the log is followed (followFrom), then keeps what it fetches', async () => {
    const fake = fakeFollower();
    const cache = createFetchCache(BOUNDS, () => fake.follower);
    const run = runAnswering();
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    expect(cache.stats()).toMatchObject({ entries: 0, refused: 2 });
    cache.followFrom(fake.state.position);
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    expect(await cache.read(fetchOf(), run)).toEqual({ fromCache: { user: { id: '1', name: 'name-1' } } });
    expect(run).toHaveBeenCalledTimes(3);
  });

  it('keeps nothing after the log was lost until it is followed again, nor a fetch begun before it was followed again', async () => {
    const { cache, state } = cacheOnFollower();
    const held = heldRun();
    const reading = cache.read(fetchOf(), held.run); // begun at 12
    cache.dropAll();
    const run = runAnswering('2');
    expect(await cache.read(fetchOf({ variables: { id: '2' } }), run)).toEqual({ ran: 'ran:2' });
    // Followed again from the log's end, past what the fetch under way began at.
    state.position = '20';
    cache.followFrom('20');
    held.settle({ value: 'before', data: { user: { id: '1', name: 'Ann' } }, reusable: true, maxAgeSeconds: MAX_AGE_SECONDS });
    expect(await reading).toEqual({ ran: 'before' });
    expect(cache.stats()).toMatchObject({ entries: 0, refused: 2 });
    // What is fetched from there on is kept.
    await cache.read(fetchOf({ variables: { id: '2' } }), run);
    expect(await cache.read(fetchOf({ variables: { id: '2' } }), run)).toEqual({ fromCache: { user: { id: '2', name: 'name-2' } } });
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('applies a batch of changes each at its own position', async () => {
    const { cache, state } = cacheOnFollower();
    state.position = '13';
    const held = heldRun(); // begun at 13: it read the change at 13 to User:1
    const reading = cache.read(fetchOf(), held.run);
    const other = heldRun(); // begun at 13 too, for user 2
    const otherReading = cache.read(fetchOf({ variables: { id: '2' } }), other.run);
    cache.applyChanges([
      { position: '13', keys: ['User:1'] },
      { position: '14', keys: ['User:2'] },
    ]);
    state.position = '14';
    held.settle({ value: 'one', data: { user: { id: '1', name: 'Ann' } }, reusable: true, maxAgeSeconds: MAX_AGE_SECONDS });
    other.settle({ value: 'two', data: { user: { id: '2', name: 'Bob' } }, reusable: true, maxAgeSeconds: MAX_AGE_SECONDS });
    expect(await Promise.all([reading, otherReading])).toEqual([{ ran: 'one' }, { ran: 'two' }]);
    // User:1 changed at 13 (held), User:2 at 14 (after the fetch began): only user 1's reply is kept.
    expect(await cache.read(fetchOf(), runAnswering())).toEqual({ fromCache: { user: { id: '1', name: 'Ann' } } });
    expect(cache.stats()).toMatchObject({ entries: 1, refused: 1 });
  });
});

describe('the fetch cache: closing', () => {
  it('closes its shared level, and resolves without one', async () => {
    const { level } = fakeShared();
    const { cache } = cacheOnFollower({ shared: level });
    await cache.close();
    expect(level.close).toHaveBeenCalledTimes(1);
    await expect(cacheOnFollower().cache.close()).resolves.toBeUndefined();
  });
});

/** A reply another process kept for user 1 (`User:1`) at the log position `since`, good until `expiresAt`. */
function sharedEntry(overrides: Partial<SharedEntry> = {}): SharedEntry {
  return {
    text: JSON.stringify({ user: { id: '1', name: 'Shared' } }),
    tags: ['User:1'],
    since: '12',
    expiresAt: Date.now() + MAX_AGE_SECONDS * 1000,
    ...overrides,
  };
}

/**
 * A shared level the test drives: what it holds by key (what the processes on it kept), else what the test offers for
 * any key (`offer`), its calls counted.
 */
function fakeShared(entries = new Map<string, SharedEntry>()) {
  let offered: SharedEntry | undefined;
  const level = {
    get: vi.fn(async (key: string): Promise<SharedEntry | undefined> => entries.get(key) ?? offered),
    set: vi.fn((key: string, entry: SharedEntry): void => void entries.set(key, entry)),
    stats: vi.fn(() => ({ hits: 4, misses: 5, errors: 6 })),
    close: vi.fn(async () => undefined),
  } satisfies SharedLevel;
  return { entries, level, offer: (entry: SharedEntry | undefined) => (offered = entry) };
}

/** A shared get that waits until the test settles it. */
function heldSharedGet(level: ReturnType<typeof fakeShared>['level']) {
  let settle!: (entry: SharedEntry | undefined) => void;
  level.get.mockImplementationOnce(() => new Promise((resolve) => (settle = resolve)));
  return { settle: (entry: SharedEntry | undefined) => settle(entry) };
}

const NOW = new Date('2026-01-01T00:00:00Z');

describe('the fetch cache with a shared level: a local miss', () => {
  it('is served from the shared level when it vouches for the entry, then from its own level without asking again', async () => {
    const { level, offer } = fakeShared();
    const { cache } = cacheOnFollower({ shared: level });
    offer(sharedEntry());
    const run = runAnswering();
    expect(await cache.read(fetchOf(), run)).toEqual({ fromCache: { user: { id: '1', name: 'Shared' } } });
    expect(await cache.read(fetchOf(), run)).toEqual({ fromCache: { user: { id: '1', name: 'Shared' } } });
    expect(run).not.toHaveBeenCalled();
    expect(level.get).toHaveBeenCalledTimes(1);
    expect(level.get).toHaveBeenCalledWith(expect.any(String));
    // Taken, not written back.
    expect(level.set).not.toHaveBeenCalled();
    expect(cache.stats()).toMatchObject({ entries: 1, hits: 1, misses: 1, refused: 0, secondLevel: { hits: 4, misses: 5, errors: 6 } });
    // Kept here, it is evicted by a change as what this process fetched is.
    offer(undefined);
    cache.applyChanges([{ position: '13', keys: ['User:1'] }]);
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
  });

  it("is served what another process on the same shared level kept for the same fetch, and no other fetch's", async () => {
    const { level } = fakeShared();
    const first = cacheOnFollower({ shared: level });
    const second = cacheOnFollower({ shared: level });
    expect(await first.cache.read(fetchOf(), runAnswering('1', { value: 'first' }))).toEqual({ ran: 'first' });
    expect(level.set).toHaveBeenCalledTimes(1);
    const run = runAnswering('1', { value: 'second' });
    expect(await second.cache.read(fetchOf(), run)).toEqual({ fromCache: { user: { id: '1', name: 'name-1' } } });
    expect(run).not.toHaveBeenCalled();
    // Another viewer's, another document's: not that entry.
    expect(await second.cache.read(fetchOf({ viewer: 'viewer-b' }), run)).toEqual({ ran: 'second' });
    expect(await second.cache.read(fetchOf({ documentKey: 'document-2' }), run)).toEqual({ ran: 'second' });
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('keeps a shared entry here no longer than its max age, counted from when it was fetched', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
    const { level, offer } = fakeShared();
    const { cache } = cacheOnFollower({ shared: level });
    offer(sharedEntry({ expiresAt: NOW.getTime() + 10_000 }));
    const run = runAnswering();
    expect(await cache.read(fetchOf(), run)).toEqual({ fromCache: { user: { id: '1', name: 'Shared' } } });
    vi.setSystemTime(NOW.getTime() + 9_999);
    expect(await cache.read(fetchOf(), run)).toEqual({ fromCache: { user: { id: '1', name: 'Shared' } } });
    expect(level.get).toHaveBeenCalledTimes(1);
    // Expired here, and the shared entry with it: the shared level is asked again, its entry refused, the fetch runs.
    vi.setSystemTime(NOW.getTime() + 10_000);
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    expect(level.get).toHaveBeenCalledTimes(2);
    expect(cache.stats().evictions.expired).toBe(1);
  });

  it('runs the fetch when a change after the entry’s since touched one of its tags or their collection', async () => {
    const { level, offer } = fakeShared();
    const { cache, change } = cacheOnFollower({ shared: level });
    change('User:1'); // at 13, after the entry's 12
    offer(sharedEntry());
    const run = runAnswering();
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    expect(run).toHaveBeenCalledTimes(1);
    offer(sharedEntry({ tags: ['User'] }));
    expect(await cache.read(fetchOf({ viewer: 'viewer-b' }), run)).toEqual({ ran: 'ran:1' });
    expect(run).toHaveBeenCalledTimes(2);
    // A change to a tag it does not hold refuses nothing; nor one at or before its since.
    offer(sharedEntry({ tags: ['User:2', 'Post:1'] }));
    expect(await cache.read(fetchOf({ viewer: 'viewer-c' }), run)).toEqual({ fromCache: { user: { id: '1', name: 'Shared' } } });
    offer(sharedEntry({ since: '13' }));
    expect(await cache.read(fetchOf({ viewer: 'viewer-d' }), run)).toEqual({ fromCache: { user: { id: '1', name: 'Shared' } } });
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('runs the fetch when a change to one of its tags is applied while the shared level is read', async () => {
    const { level } = fakeShared();
    const { cache, change } = cacheOnFollower({ shared: level });
    const held = heldSharedGet(level);
    const run = runAnswering();
    const reading = cache.read(fetchOf(), run);
    await settled();
    change('User:1');
    held.settle(sharedEntry());
    expect(await reading).toEqual({ ran: 'ran:1' });
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('runs the fetch when the log is lost while the shared level is read', async () => {
    const { level } = fakeShared();
    const { cache } = cacheOnFollower({ shared: level });
    const held = heldSharedGet(level);
    const run = runAnswering();
    const reading = cache.read(fetchOf(), run);
    await settled();
    cache.dropAll();
    held.settle(sharedEntry());
    expect(await reading).toEqual({ ran: 'ran:1' });
    expect(run).toHaveBeenCalledTimes(1);
    expect(cache.stats().entries).toBe(0);
  });

  it('runs the fetch when the entry was fetched below the position this process follows the log from', async () => {
    const { level, offer } = fakeShared();
    const { cache } = cacheOnFollower({ shared: level }); // followed from 12
    offer(sharedEntry({ since: '11', tags: ['Never:1'] }));
    const run = runAnswering();
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('runs the fetch when the entry has expired', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
    const { level, offer } = fakeShared();
    const { cache } = cacheOnFollower({ shared: level });
    const run = runAnswering();
    offer(sharedEntry({ expiresAt: NOW.getTime() }));
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    offer(sharedEntry({ expiresAt: NOW.getTime() - 1 }));
    expect(await cache.read(fetchOf({ viewer: 'viewer-b' }), run)).toEqual({ ran: 'ran:1' });
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('runs the fetch, and keeps and shares its reply, when the shared level has nothing', async () => {
    const { level } = fakeShared();
    const { cache } = cacheOnFollower({ shared: level });
    const run = runAnswering();
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    expect(await cache.read(fetchOf(), run)).toEqual({ fromCache: { user: { id: '1', name: 'name-1' } } });
    expect(run).toHaveBeenCalledTimes(1);
    expect(level.set).toHaveBeenCalledTimes(1);
  });

  // A shared level that rejects (one that does not catch its own failures, as the Redis level does) is a miss.
  it('runs the fetch when the shared level fails to answer', async () => {
    const { level } = fakeShared();
    const { cache } = cacheOnFollower({ shared: level });
    level.get.mockRejectedValueOnce(new Error('Redis down'));
    const run = runAnswering();
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('does not ask the shared level while its follower does not vouch', async () => {
    const { level, offer } = fakeShared();
    const { cache, state } = cacheOnFollower({ shared: level });
    offer(sharedEntry());
    state.vouching = false;
    const run = runAnswering();
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    expect(level.get).not.toHaveBeenCalled();
    expect(level.set).not.toHaveBeenCalled();
  });

  it('shares one read of the shared level among concurrent misses of one key', async () => {
    const { level } = fakeShared();
    const { cache } = cacheOnFollower({ shared: level });
    const held = heldSharedGet(level);
    const runs = [runAnswering(), runAnswering(), runAnswering()];
    const reads = runs.map((run) => cache.read(fetchOf(), run));
    await settled();
    held.settle(sharedEntry());
    const shared = { fromCache: { user: { id: '1', name: 'Shared' } } };
    expect(await Promise.all(reads)).toEqual([shared, shared, shared]);
    expect(level.get).toHaveBeenCalledTimes(1);
    for (const run of runs) expect(run).not.toHaveBeenCalled();
    expect(cache.stats()).toMatchObject({ entries: 1, misses: 3, shared: 2 });
  });
});

describe('the fetch cache with a shared level: a reply kept', () => {
  it('is written to the shared level with its text, its tags, the position its fetch began at and when its max age runs out', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
    const { level } = fakeShared();
    const { cache, change } = cacheOnFollower({ shared: level });
    const held = heldRun();
    const reading = cache.read(fetchOf(), held.run); // begun at 12
    await settled();
    change('Post:1'); // at 13, while it runs: not one of its tags
    vi.setSystemTime(NOW.getTime() + 1_000);
    const data = { user: { id: '1', name: 'Ann' } };
    held.settle({ value: 'ran', data, reusable: true, maxAgeSeconds: 30 });
    expect(await reading).toEqual({ ran: 'ran' });
    expect(level.set).toHaveBeenCalledTimes(1);
    const [key, entry] = level.set.mock.calls[0]!;
    expect(entry).toEqual({ text: JSON.stringify(data), tags: ['User:1'], since: '12', expiresAt: NOW.getTime() + 1_000 + 30_000 });
    // Under the key the shared level is read with.
    expect(level.get).toHaveBeenCalledWith(key);
  });

  it('is not written when it is not kept: not reusable, too large, of no max age, or overlapped by a change to its tags', async () => {
    const { level } = fakeShared();
    const { cache, change } = cacheOnFollower({ shared: level, bounds: { ...BOUNDS, maxEntryBytes: 1024 } });
    await cache.read(fetchOf(), runAnswering('1', { reusable: false }));
    await cache.read(fetchOf(), runAnswering('1', { maxAgeSeconds: 0 }));
    await cache.read(
      fetchOf(),
      vi.fn(async (): Promise<FetchOutcome<string>> => ({
        value: 'ran',
        data: { user: { id: '1', name: 'x'.repeat(1024) } },
        reusable: true,
        maxAgeSeconds: MAX_AGE_SECONDS,
      })),
    );
    const held = heldRun();
    const reading = cache.read(fetchOf(), held.run);
    await settled();
    change('User:1');
    held.settle({ value: 'stale', data: { user: { id: '1', name: 'Ann' } }, reusable: true, maxAgeSeconds: MAX_AGE_SECONDS });
    expect(await reading).toEqual({ ran: 'stale' });
    expect(level.set).not.toHaveBeenCalled();
    expect(cache.stats()).toMatchObject({ entries: 0 });
  });

  it('is written after a shared entry was refused, with the position its own fetch began at', async () => {
    const { level, offer } = fakeShared();
    const { cache, change } = cacheOnFollower({ shared: level });
    change('User:1'); // at 13
    offer(sharedEntry()); // at 12: refused
    await cache.read(fetchOf(), runAnswering());
    expect(level.set).toHaveBeenCalledTimes(1);
    expect(level.set.mock.calls[0]![1]).toMatchObject({ tags: ['User:1'], since: '13' });
  });
});

describe('createFetchCache: a shared entry that is not a reply', () => {
  it('is a miss (the fetch runs), not counted as refused, and never kept', async () => {
    const { level, offer } = fakeShared();
    const { cache } = cacheOnFollower({ shared: level });
    offer({ ...sharedEntry(), text: '{not json' });
    const run = runAnswering();
    expect(await cache.read(fetchOf(), run)).toEqual({ ran: 'ran:1' });
    expect(run).toHaveBeenCalledTimes(1);
    expect(cache.stats()).toMatchObject({ refused: 0, entries: 1 });
  });
});
