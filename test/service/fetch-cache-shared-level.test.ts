import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createRedisSharedLevel,
  type SharedEntry,
  type SharedLevel,
  type SharedLevelOptions,
} from '../../gateway/fetch-cache/shared-level.ts';
import { eventually } from '../support/eventually.ts';
import { freePort } from '../support/free-port.ts';
import { redisAnswers, TEST_REDIS_URL } from '../support/redis.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

/**
 * The fetch cache's shared second level in Redis (gateway/fetch-cache/shared-level.ts, GATEWAY_CACHE=redis), against
 * the Redis at REDIS_URL: an entry comes back as it was set (text, tags, since, expiresAt), under its namespace only;
 * a value in its place that is not in its format reads as a miss; entries expire with their max age; a Redis that does
 * not answer (nothing listening, a server that never replies, one that goes away and comes back) is a miss within a
 * bound and counted, never an error; close() ends the connection.
 */

/** The prefix shared-level.ts keeps entries under (the format's version), before the namespace. */
const PREFIX = 'tributary:fetch-cache:v1:';
/** The command timeout of the levels under test (GATEWAY_CACHE_REDIS_TIMEOUT_MS). */
const TIMEOUT_MS = 500;
/** How long a get may take to answer a miss when Redis does not answer: its timeouts (command, connect), with room. */
const UNANSWERED_GET_MS = 3_000;
/** The max age of an entry a test waits to see expire. */
const SHORT_AGE_MS = 300;

/** The Redis key shared-level.ts keeps `key` under in `namespace`. */
function redisKeyOf(namespace: string, key: string): string {
  return `${PREFIX}${namespace}:${createHash('sha256').update(key).digest('base64url')}`;
}

/** What the level writes: the header (since, tags, expiresAt) as JSON, a newline, the text. */
function rawEntry(entry: SharedEntry): string {
  return `${JSON.stringify([entry.since, entry.tags, entry.expiresAt])}\n${entry.text}`;
}

function entryOf(overrides: Partial<SharedEntry> = {}): SharedEntry {
  return {
    text: JSON.stringify({ user: { id: '1', name: 'Ann' } }),
    tags: ['User:1'],
    since: '12',
    expiresAt: Date.now() + 60_000,
    ...overrides,
  };
}

const REDIS_RUNS = await redisAnswers();

describe('the fetch cache shared level in Redis', () => {
  if (!REDIS_RUNS) {
    it.skip('needs Redis at REDIS_URL (.ci/run starts it)', () => undefined);
    return;
  }

  /** A plain client of the same Redis: what another writer does, and what the test looks at. */
  let probe: Redis;
  const levels: SharedLevel[] = [];
  const namespaces: string[] = [];
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(() => {
    probe = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  });

  afterEach(async () => {
    for (const level of levels.splice(0)) await level.close();
    for (const cleanup of cleanups.splice(0)) await cleanup();
    // Every key the tests made lies under a namespace of their own.
    for (const namespace of namespaces.splice(0)) {
      const keys = await probe.keys(`${PREFIX}${namespace}:*`);
      if (keys.length > 0) await probe.del(...keys);
    }
  });

  afterAll(async () => {
    await probe?.quit();
  });

  /** A level on a namespace of its own (or `namespace`), closed after the test; its availability changes recorded. */
  function open(options: Partial<SharedLevelOptions> = {}) {
    const namespace = options.namespace ?? randomUUID();
    if (!namespaces.includes(namespace)) namespaces.push(namespace);
    const told: boolean[] = [];
    const level = createRedisSharedLevel({
      url: TEST_REDIS_URL,
      timeoutMs: TIMEOUT_MS,
      namespace,
      onAvailability: (available) => told.push(available),
      ...options,
    });
    levels.push(level);
    return { level, namespace, told };
  }

  /**
   * A level that has connected: commands sent before the connection is ready fail (no offline queue), so a test that
   * needs Redis to answer waits for a get that reaches it (a miss, not an error). Gives the counts from there.
   */
  async function openConnected(options: Partial<SharedLevelOptions> = {}) {
    const opened = open(options);
    await eventually(async () => {
      const before = opened.level.stats().misses;
      await opened.level.get(`readiness:${randomUUID()}`);
      return opened.level.stats().misses > before;
    }, 'the shared level connected to Redis');
    // What was told while connecting (a get before the connection was ready fails, and is told) is left out.
    opened.told.splice(0);
    return { ...opened, baseline: opened.level.stats() };
  }

  describe('set and get', () => {
    it('gives back an entry exactly as it was set: text, tags, since and expiresAt', async () => {
      const { level, namespace, baseline } = await openConnected();
      const entries: Record<string, SharedEntry> = {
        plain: entryOf(),
        // Newlines, non-ASCII, a header-like first line in the text; the largest position the log may hold.
        awkward: entryOf({
          text: '["0",[],0]\nline two — é ✓ 🦀\n{"a":1}\n',
          tags: ['User:1', 'User', 'Post:7', 'Tag:with:colons'],
          since: '9223372036854775807',
          expiresAt: Date.now() + 123_457,
        }),
        bare: entryOf({ text: '', tags: [], since: '0' }),
      };
      for (const [key, entry] of Object.entries(entries)) level.set(key, entry);
      // One connection, in order: each get comes after its set.
      for (const [key, entry] of Object.entries(entries)) expect(await level.get(key)).toEqual(entry);
      expect(level.stats()).toEqual({ hits: baseline.hits + 3, misses: baseline.misses, errors: baseline.errors });
      // Under the key hashed in its namespace, for its max age at most.
      const ttl = await probe.pttl(redisKeyOf(namespace, 'plain'));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      expect(await probe.get(redisKeyOf(namespace, 'plain'))).toBe(rawEntry(entries.plain!));
    });

    it('misses a key never set, and counts it', async () => {
      const { level, baseline } = await openConnected();
      expect(await level.get('never set')).toBeUndefined();
      expect(level.stats()).toEqual({ hits: baseline.hits, misses: baseline.misses + 1, errors: baseline.errors });
    });

    it('replaces the entry kept under a key when it is set again', async () => {
      const { level } = await openConnected();
      level.set('k', entryOf({ text: 'first' }));
      level.set('k', entryOf({ text: 'second', since: '13' }));
      expect(await level.get('k')).toMatchObject({ text: 'second', since: '13' });
    });

    it('is shared by every level on the same namespace, and by none on another', async () => {
      const first = await openConnected();
      const sameNamespace = await openConnected({ namespace: first.namespace });
      const other = await openConnected();
      const mine = entryOf({ text: 'mine' });
      const theirs = entryOf({ text: 'theirs', since: '99' });
      first.level.set('k', mine);
      expect(await first.level.get('k')).toEqual(mine);
      expect(await sameNamespace.level.get('k')).toEqual(mine);
      expect(await other.level.get('k')).toBeUndefined();
      other.level.set('k', theirs);
      expect(await other.level.get('k')).toEqual(theirs);
      expect(await first.level.get('k')).toEqual(mine);
      expect(await sameNamespace.level.get('k')).toEqual(mine);
    });
  });

  describe('a value not in its format', () => {
    it('reads as a miss, counted as one, whatever another writer put under the key', async () => {
      const { level, namespace } = await openConnected();
      const redisKey = redisKeyOf(namespace, 'k');
      // The key is where the level looks: a value in its format, written by another client, is read.
      const wellFormed = entryOf({ tags: ['User:1', 'User'] });
      await probe.set(redisKey, rawEntry(wellFormed), 'PX', 60_000);
      expect(await level.get('k')).toEqual(wellFormed);
      const expiresAt = Date.now() + 60_000;
      const foreign = [
        'plain text',
        '',
        '\n',
        'not json\n{"user":null}',
        '{"since":"1","tags":[],"expiresAt":1}\ntext',
        '["1",["T:1"]]\ntext',
        `["1",["T:1"],${expiresAt},"extra"]\ntext`,
        `[1,["T:1"],${expiresAt}]\ntext`,
        `["-1",["T:1"],${expiresAt}]\ntext`,
        `["1.5",["T:1"],${expiresAt}]\ntext`,
        `["",["T:1"],${expiresAt}]\ntext`,
        `["12345678901234567890",["T:1"],${expiresAt}]\ntext`,
        `["1","T:1",${expiresAt}]\ntext`,
        `["1",["T:1",7],${expiresAt}]\ntext`,
        `["1",["T:1"],"${expiresAt}"]\ntext`,
        `["1",["T:1"],null]\ntext`,
        rawEntry(wellFormed).slice(0, 20), // cut inside the header
      ];
      for (const value of foreign) {
        await probe.set(redisKey, value, 'PX', 60_000);
        const before = level.stats();
        expect(await level.get('k'), JSON.stringify(value)).toBeUndefined();
        expect(level.stats()).toEqual({ ...before, misses: before.misses + 1 });
      }
    });

    it('reads as a miss when the key holds another kind of value, and does not throw', async () => {
      const { level, namespace } = await openConnected();
      const redisKey = redisKeyOf(namespace, 'k');
      await probe.hset(redisKey, { since: '1', text: 'a hash' });
      await probe.pexpire(redisKey, 60_000);
      expect(await level.get('k')).toBeUndefined();
    });
  });

  describe('expiry', () => {
    it('keeps an entry for its max age (PX), then misses it', async () => {
      const { level, namespace } = await openConnected();
      level.set('k', entryOf({ expiresAt: Date.now() + SHORT_AGE_MS }));
      // Set for the time left, no longer.
      const ttl = await probe.pttl(redisKeyOf(namespace, 'k'));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(SHORT_AGE_MS);
      await eventually(async () => (await level.get('k')) === undefined, 'the entry expired in Redis');
      expect(await probe.exists(redisKeyOf(namespace, 'k'))).toBe(0);
    });

    it('writes nothing for an entry whose max age has already run out', async () => {
      const { level, namespace } = await openConnected();
      level.set('past', entryOf({ expiresAt: Date.now() - 1 }));
      level.set('now', entryOf({ expiresAt: Date.now() - 0 }));
      // A set would have gone before this get on the same connection.
      expect(await level.get('past')).toBeUndefined();
      expect(await level.get('now')).toBeUndefined();
      expect(await probe.exists(redisKeyOf(namespace, 'past'), redisKeyOf(namespace, 'now'))).toBe(0);
    });
  });

  describe('a Redis that does not answer', () => {
    it('nothing listening: get is a miss within a bound, counted as an error, told once; set is dropped; nothing throws', async () => {
      const port = await freePort();
      const { level, told } = open({ url: `redis://127.0.0.1:${port}` });
      for (let i = 0; i < 3; i += 1) {
        const started = performance.now();
        expect(await level.get('k')).toBeUndefined();
        expect(performance.now() - started).toBeLessThan(UNANSWERED_GET_MS);
      }
      expect(() => level.set('k', entryOf())).not.toThrow();
      expect(level.stats().errors).toBeGreaterThanOrEqual(3);
      expect(level.stats()).toMatchObject({ hits: 0, misses: 0 });
      expect(told).toEqual([false]);
      await expect(level.close()).resolves.toBeUndefined();
    });

    it('a server that accepts connections and never replies: get is a miss within a bound', async () => {
      const sockets = new Set<Socket>();
      const silent: Server = createServer((socket) => {
        sockets.add(socket);
        socket.on('error', () => undefined);
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
      cleanups.push(async () => {
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => silent.close(() => resolve()));
      });
      const address = silent.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const { level } = open({ url: `redis://127.0.0.1:${port}` });
      await eventually(() => sockets.size > 0, 'the level connected to the silent server');
      const started = performance.now();
      expect(await level.get('k')).toBeUndefined();
      expect(performance.now() - started).toBeLessThan(UNANSWERED_GET_MS);
      expect(level.stats().errors).toBeGreaterThanOrEqual(1);
    });

    it('one that goes away and comes back: misses while away, told once each way, served again after', async () => {
      const redis = new URL(TEST_REDIS_URL);
      const proxy: TcpProxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
      cleanups.push(() => proxy.close());
      const { level, told } = await openConnected({ url: proxy.through(TEST_REDIS_URL) });
      const entry = entryOf();
      level.set('k', entry);
      expect(await level.get('k')).toEqual(entry);
      expect(told).toEqual([]);
      proxy.cut();
      await eventually(async () => {
        const started = performance.now();
        const got = await level.get('k');
        expect(performance.now() - started).toBeLessThan(UNANSWERED_GET_MS);
        return got === undefined;
      }, 'a miss while Redis is away');
      expect(told).toEqual([false]);
      const errors = level.stats().errors;
      expect(errors).toBeGreaterThanOrEqual(1);
      proxy.restore();
      // The entry is still in Redis: once reconnected, it is served again.
      expect(await eventually(() => level.get('k'), 'the entry served again after Redis came back')).toEqual(entry);
      expect(told).toEqual([false, true]);
    });
  });

  describe('close', () => {
    it('ends the connection, after which a get is a miss and nothing throws', async () => {
      const connectionName = `fetch-cache-test-${randomUUID()}`;
      // Named (ioredis takes options from the URL's query), so that Redis's list of clients tells whether it is there.
      const url = new URL(TEST_REDIS_URL);
      url.searchParams.set('connectionName', connectionName);
      const { level } = await openConnected({ url: url.toString() });
      const connected = async () => String(await probe.client('LIST')).includes(`name=${connectionName}`);
      expect(await connected()).toBe(true);
      await level.close();
      await eventually(async () => !(await connected()), 'the connection ended');
      expect(await level.get('k')).toBeUndefined();
      expect(() => level.set('k', entryOf())).not.toThrow();
    });
  });
});
