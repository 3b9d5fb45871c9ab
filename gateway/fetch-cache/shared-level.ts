import { createHash } from 'node:crypto';
import { Redis, ReplyError } from 'ioredis';

/**
 * The fetch cache's shared second level (GATEWAY_CACHE=redis): replies one gateway process fetched, offered to every
 * process of the fleet. Each entry carries what the local level needs to vouch for it (fetch-cache-store.ts,
 * `vouches`): its tags and `since`, the log position its fetcher had applied when the fetch began. Redis never decides
 * freshness: a process serves an entry only when no change it has applied after `since` touched its tags, so an entry
 * is never staler for a process than that process's own log position allows — the local level's guarantee.
 *
 * Entries expire with their max age (PX), and Redis's own maxmemory policy bounds the rest. Redis down or slow is never
 * an error and never a stale read: every command is bounded by `timeoutMs` and fails fast while disconnected (no
 * offline queue); a failed or late read is a miss, a failed write is dropped, and the local level serves on.
 */
export interface SharedLevel {
  get(key: string): Promise<SharedEntry | undefined>;
  set(key: string, entry: SharedEntry): void;
  stats(): { hits: number; misses: number; errors: number };
  close(): Promise<void>;
}

export interface SharedEntry {
  text: string;
  tags: readonly string[];
  /** The log position the fetcher had applied when its fetch began (decimal). */
  since: string;
  /** When its max age runs out (ms since the epoch): a process that takes it keeps it no longer. */
  expiresAt: number;
}

export interface SharedLevelOptions {
  /** REDIS_URL (redis://host:port/db). */
  url: string;
  /** The longest one command may take before it counts as a miss (GATEWAY_CACHE_REDIS_TIMEOUT_MS). */
  timeoutMs: number;
  /**
   * The change log's identity (event-log.repository.ts, logIdentity): entries are kept under it, since their positions
   * mean something only in that database's log.
   */
  namespace: string;
  /** Told once when Redis stops answering and once when it answers again. */
  onAvailability?(available: boolean, error?: unknown): void;
}

/** Keys are namespaced (the format, the log) and hashed: a key holds the viewer's facts, which Redis need not see. */
const PREFIX = 'tributary:fetch-cache:v1:';

/** How long opening waits for the first connection before the process serves with the local level alone. */
const FIRST_CONNECT_MS = 1000;

/**
 * Opens the shared level: resolves once the connection is ready, or after FIRST_CONNECT_MS without it (the local level
 * serves alone meanwhile, and the client keeps connecting) — commands are never queued while disconnected.
 */
export async function openRedisSharedLevel(options: SharedLevelOptions): Promise<SharedLevel> {
  const level = createRedisSharedLevel(options);
  await level.ready(FIRST_CONNECT_MS);
  return level;
}

export function createRedisSharedLevel(options: SharedLevelOptions): SharedLevel & { ready(withinMs: number): Promise<void> } {
  const redis = new Redis(options.url, {
    commandTimeout: options.timeoutMs,
    connectTimeout: Math.max(options.timeoutMs, 1000),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    lazyConnect: false,
    // Reconnect for ever, backing off to 2 s: the local level serves meanwhile.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
  });
  const counts = { hits: 0, misses: 0, errors: 0 };
  let available = true;
  const failed = (error: unknown) => {
    counts.errors++;
    // A reply error (a key of another type, a command refused) is Redis answering: no outage.
    if (error instanceof ReplyError) return;
    if (available) options.onAvailability?.(false, error);
    available = false;
  };
  redis.on('ready', () => {
    if (!available) options.onAvailability?.(true);
    available = true;
  });
  // Without a listener ioredis reports connection errors on stderr; they are counted and told once instead.
  redis.on('error', failed);
  const prefix = `${PREFIX}${options.namespace}:`;
  const keyOf = (key: string) => prefix + createHash('sha256').update(key).digest('base64url');

  return {
    async get(key) {
      let raw: string | null;
      try {
        raw = await redis.get(keyOf(key));
      } catch (error) {
        failed(error);
        return undefined;
      }
      const entry = raw === null ? undefined : parseEntry(raw);
      if (entry) counts.hits++;
      else counts.misses++;
      return entry;
    },
    set(key, entry) {
      const maxAgeMs = entry.expiresAt - Date.now();
      if (!(maxAgeMs > 0)) return;
      const header = JSON.stringify([entry.since, entry.tags, entry.expiresAt]);
      redis.set(keyOf(key), `${header}\n${entry.text}`, 'PX', Math.ceil(maxAgeMs)).catch(failed);
    },
    stats: () => ({ ...counts }),
    async close() {
      redis.disconnect();
    },
    ready: (withinMs) =>
      redis.status === 'ready'
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(done, withinMs);
            timer.unref();
            function done() {
              clearTimeout(timer);
              redis.off('ready', done);
              resolve();
            }
            redis.once('ready', done);
          }),
  };
}

/** An entry as set() wrote it, or undefined for anything else (another writer's value, a truncated one). */
function parseEntry(raw: string): SharedEntry | undefined {
  const newline = raw.indexOf('\n');
  if (newline < 0) return undefined;
  let header: unknown;
  try {
    header = JSON.parse(raw.slice(0, newline));
  } catch {
    return undefined;
  }
  if (!Array.isArray(header) || header.length !== 3) return undefined;
  const [since, tags, expiresAt] = header as [unknown, unknown, unknown];
  if (typeof since !== 'string' || !/^[0-9]{1,19}$/.test(since) || typeof expiresAt !== 'number') return undefined;
  if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string')) return undefined;
  return { text: raw.slice(newline + 1), tags: tags as string[], since, expiresAt };
}
