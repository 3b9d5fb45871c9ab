/**
 * The gateway's fetch cache (gateway/fetch-cache/fetch-cache.ts) on a fake change-log follower: nothing read or kept
 * while the follower does not vouch; a reusable reply kept and served parsed anew; what may not be reused run every time;
 * concurrent misses of one key sharing one fetch; changes evicting; a write's reply waiting for the follower; the key
 * made of the subgraph, the document, the viewer and the variables.
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
    documentId: 1,
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

/** A cache on a fake follower. */
function cacheOnFollower() {
  const fake = fakeFollower();
  return { ...fake, cache: createFetchCache(BOUNDS, () => fake.follower) };
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
    const typed = fetchOf({ documentId: 2, operation: operationOf('query ($id: ID!) { node(id: $id) { __typename id } }') });
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
    const cache = createFetchCache({ ...BOUNDS, maxEntryBytes: 1024 }, () => fakeFollower().follower);
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
    const { cache } = cacheOnFollower();
    const one = runAnswering('1');
    const two = runAnswering('2');
    await cache.read(fetchOf(), one);
    await cache.read(fetchOf({ variables: { id: '2' } }), two);
    cache.applyChanges(['User:2', 'Post:1', 'UserExample:1']);
    expect(await cache.read(fetchOf(), one)).toEqual({ fromCache: { user: { id: '1', name: 'name-1' } } });
    expect(await cache.read(fetchOf({ variables: { id: '2' } }), two)).toEqual({ ran: 'ran:2' });
    cache.applyChanges(['User:1']);
    expect(await cache.read(fetchOf(), one)).toEqual({ ran: 'ran:1' });
    expect(one).toHaveBeenCalledTimes(2);
    expect(two).toHaveBeenCalledTimes(2);
    expect(cache.stats().evictions.change).toBe(2);
  });

  it("evicts an entity fetch by its representations' keys", async () => {
    const { cache } = cacheOnFollower();
    const operation = operationOf(
      'query ($representations: [_Any!]!) { _entities(representations: $representations) { ... on User { name } } }',
    );
    const fetchFor = (id: string) => fetchOf({ documentId: 3, operation, variables: { representations: [{ __typename: 'User', id }] } });
    const run = vi.fn(async (): Promise<FetchOutcome<string>> => ({
      value: 'ran',
      data: { _entities: [{ name: 'Ann' }] },
      reusable: true,
      maxAgeSeconds: MAX_AGE_SECONDS,
    }));
    await cache.read(fetchFor('7'), run);
    await cache.read(fetchFor('8'), run);
    expect(run).toHaveBeenCalledTimes(2);
    cache.applyChanges(['User:8']);
    expect(await cache.read(fetchFor('7'), run)).toEqual({ fromCache: { _entities: [{ name: 'Ann' }] } });
    expect(await cache.read(fetchFor('8'), run)).toEqual({ ran: 'ran' });
    expect(run).toHaveBeenCalledTimes(3);
  });

  it('does not keep a reply whose fetch overlapped a change to what it holds', async () => {
    const { cache } = cacheOnFollower();
    const held = heldRun();
    const reading = cache.read(fetchOf(), held.run);
    cache.applyChanges(['User:1']);
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
      fetchOf({ documentId: 2 }),
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
