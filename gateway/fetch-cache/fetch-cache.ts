import { createHash } from 'node:crypto';
import type { FragmentDefinitionNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { FetchCacheStore, type FetchCacheBounds, type FetchCacheStats } from './fetch-cache-store.ts';
import { resultTags } from './result-tags.ts';
import type { SharedLevel } from './shared-level.ts';

/**
 * The gateway's cache of subgraph fetches (issue 39): queries and entity lookups whose replies may be reused, keyed by
 * the fetch, its variables (representations included) and the viewer's facts the subgraph's rules read, kept until a
 * change to an entity they hold reaches this process through the change log, or their `@cacheControl` max age runs out.
 *
 * The log is followed by `invalidation` (subgraphs/shared/event-log/change-follower.ts, wired by bin/system/): its
 * changes evict (`applyChanges`), its loss drops everything (`dropAll`), and while it is not vouching the cache is
 * neither read nor written. Concurrent misses for one key share one fetch (single flight).
 */
export interface FetchCacheInvalidation {
  /** True while every committed change up to the follower's position has been applied. */
  vouching(): boolean;
  /** Resolves once every change committed before the call is applied (false when the log could not be read). */
  catchUp(): Promise<boolean>;
  position(): string;
  head(): string;
}

/** A fetch as the cache sees it: which subgraph, which prepared document, for whom, with what. */
export interface CacheableFetch {
  subgraph: string;
  /** Names the document (a hash of its text and operation name), the same in every process. */
  documentKey: string;
  schema: GraphQLSchema;
  operation: OperationDefinitionNode;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  variables: Readonly<Record<string, unknown>> | undefined;
  /** The viewer's facts the subgraph's rules read (Subgraph.cacheViewer). */
  viewer: string;
}

/** A fetch's outcome: its data, and whether it may be kept (no errors, no extensions the caller must see). */
export interface FetchOutcome<T> {
  value: T;
  data: Record<string, unknown> | null | undefined;
  reusable: boolean;
  /** The reply's max age from its hints (seconds; 0 or less: not kept). */
  maxAgeSeconds: number;
  /**
   * A social root call's reply, reusable but for the rate-limit usage it reports: not kept at the fetch level (each call
   * is counted), kept at the response level (response-cache.ts), which admits the call again at each hit.
   */
  call?: { objectId: string | undefined } | undefined;
}

export interface FetchCache {
  /**
   * The data kept for `fetch` (parsed anew: the gateway's executor merges into what it is given), or `run()`'s outcome,
   * kept when reusable; `fromCache` tells which. A concurrent miss of the same key waits for the first and takes its
   * data when it was kept, or runs its own fetch when it was not.
   */
  read<T>(fetch: CacheableFetch, run: () => Promise<FetchOutcome<T>>): Promise<{ fromCache: Record<string, unknown> } | { ran: T }>;
  /** True when the cache may serve now (the log followed). */
  serving(): boolean;
  /**
   * After a write through this process: every change it committed applied before its reply goes. Resolves to the
   * position then applied (at or past the write's), undefined when the log could not be read.
   */
  afterWrite(): Promise<string | undefined>;
  /**
   * Before a read that presents a log position: reached (the cache holds nothing older), ahead (the log holds no such
   * position yet, after a catch-up), or unfollowed (the cache is not serving: reads go to the subgraphs).
   */
  reach(position: bigint): Promise<'reached' | 'ahead' | 'unfollowed'>;
  /** Applies changes from the log, in order: each key (`T:id`) evicts what holds it or its collection. */
  applyChanges(changes: readonly { position: string; keys: readonly string[] }[]): void;
  /** The log is followed from `position` (at start, or again after it was lost): what is fetched from now on may be kept. */
  followFrom(position: string): void;
  /** The log was lost: nothing kept can be vouched for. */
  dropAll(): void;
  stats(): FetchCacheStats & { position: string; head: string; secondLevel?: { hits: number; misses: number; errors: number } };
  /** Closes the shared level's connection, if there is one. */
  close(): Promise<void>;
  /** The log position applied now (a fetch begun now reads every change up to it). */
  position(): string;
  /**
   * Single flight for work other than `read`'s (an entity lookup's missing entities): the work already running under
   * `key`, which the caller waits for (counted as shared), or undefined once `work` is registered as the one running.
   */
  joinFlight(key: string, work: Promise<unknown>): Promise<unknown> | undefined;
  /** One entry by its key, from this process or (then kept here too) the shared level; undefined on a miss. */
  takeEntry(key: string): Promise<Record<string, unknown> | undefined>;
  /** Keeps a reply whose fetch began at `since` here and in the shared level; false when refused. */
  keepEntry(key: string, data: Record<string, unknown>, tags: readonly string[], maxAgeMs: number, since: string): boolean;
  /** A response the response level kept (response-cache.ts), from the same store and under the same rules. */
  keptResponse(key: string): string | undefined;
  /** Keeps a response whose fetches began at `since`, tagged with what they hold; false when refused. */
  keepResponse(key: string, text: string, tags: readonly string[], maxAgeMs: number, since: string): boolean;
}

/** Whether a reply may be kept: no errors, and nothing reported for the caller (a social root call's rate-limit usage). */
export function reusableReply(errors: readonly unknown[] | undefined, extensions: Record<string, unknown> | undefined): boolean {
  return !errors && (!extensions || Object.keys(extensions).length === 0);
}

/**
 * A reply without errors whose only extension is the social graph's rate-limit usage (a root call's, gateway-context.ts
 * FORWARDED_EXTENSIONS): the object its call was about, which the usage names when the call named one
 * (subgraphs/shared/social-graph/social-rate-limits.ts); undefined for any other reply.
 */
export function usageOnlyReply(
  errors: readonly unknown[] | undefined,
  extensions: Record<string, unknown> | undefined,
): { objectId: string | undefined } | undefined {
  if (errors || !extensions) return undefined;
  const names = Object.keys(extensions);
  if (names.length !== 1 || names[0] !== 'socialUsage') return undefined;
  const business = (extensions.socialUsage as { business?: { objectId?: unknown } } | null | undefined)?.business;
  return { objectId: typeof business?.objectId === 'string' ? business.objectId : undefined };
}

/** Variables longer than this are hashed in the key: a deep read's representations are kilobytes, kept per entry. */
const VARIABLES_KEY_HASH_FROM = 256;

/** Variables as a key: their JSON, or its hash when long. */
export function variablesKey(variables: Readonly<Record<string, unknown>> | undefined): string {
  const text = variables === undefined ? '' : JSON.stringify(variables);
  return text.length < VARIABLES_KEY_HASH_FROM ? text : createHash('sha256').update(text).digest('base64url');
}

export function createFetchCache(
  bounds: FetchCacheBounds,
  invalidation: () => FetchCacheInvalidation | undefined,
  /** The shared second level (GATEWAY_CACHE=redis), read on a local miss and written with every reply kept. */
  shared?: SharedLevel,
): FetchCache {
  const store = new FetchCacheStore(bounds);
  const inFlight = new Map<string, Promise<string | undefined>>();
  const flights = new Map<string, Promise<unknown>>();

  const serving = () => invalidation()?.vouching() === true;

  return {
    async read(fetch, run) {
      if (!serving()) return { ran: (await run()).value };
      const key = keyOf(fetch);
      const kept = store.get(key);
      if (kept !== undefined) return { fromCache: JSON.parse(kept) as Record<string, unknown> };
      const running = inFlight.get(key);
      if (running) {
        store.noteShared();
        const joined = await running;
        if (joined !== undefined) return { fromCache: JSON.parse(joined) as Record<string, unknown> };
        return { ran: (await run()).value };
      }
      let settle: (text: string | undefined) => void = () => undefined;
      inFlight.set(key, new Promise((resolve) => (settle = resolve)));
      let text: string | undefined;
      try {
        const fromShared = shared && (await takeShared(shared, store, key));
        if (fromShared) {
          text = fromShared.text;
          return { fromCache: fromShared.data };
        }
        // The log position applied now: what the fetch reads holds every change up to it (the store-race guard's start).
        const since = BigInt(invalidation()!.position());
        const outcome = await run();
        if (outcome.reusable && outcome.data && serving()) {
          const tags = resultTags(fetch.schema, fetch.operation, fetch.fragments, fetch.variables, outcome.data);
          if (tags && tags.length > 0) {
            const candidate = JSON.stringify(outcome.data);
            const maxAgeMs = outcome.maxAgeSeconds * 1000;
            if (store.set(key, candidate, tags, maxAgeMs, since)) {
              text = candidate;
              shared?.set(key, { text, tags, since: String(since), expiresAt: Date.now() + maxAgeMs });
            }
          } else store.noteRefused();
        }
        return { ran: outcome.value };
      } finally {
        inFlight.delete(key);
        settle(text);
      }
    },
    serving,
    async afterWrite() {
      const followed = invalidation();
      return followed && (await followed.catchUp()) ? followed.position() : undefined;
    },
    async reach(position) {
      const followed = invalidation();
      if (!followed?.vouching()) return 'unfollowed';
      if (BigInt(followed.position()) >= position) return 'reached';
      if (!(await followed.catchUp())) return 'unfollowed';
      return BigInt(followed.position()) >= position ? 'reached' : 'ahead';
    },
    applyChanges(changes) {
      for (const change of changes) store.evictKeys(change.keys, BigInt(change.position));
    },
    followFrom: (position) => store.followFrom(BigInt(position)),
    dropAll: () => store.dropAll(),
    stats() {
      const followed = invalidation();
      return {
        ...store.stats(),
        position: followed?.position() ?? '0',
        head: followed?.head() ?? '0',
        ...(shared && { secondLevel: shared.stats() }),
      };
    },
    close: async () => shared?.close(),
    position: () => invalidation()?.position() ?? '0',
    joinFlight(key, work) {
      const running = flights.get(key);
      if (running) {
        store.noteShared();
        return running;
      }
      const settled = work.then(
        () => undefined,
        () => undefined,
      );
      flights.set(key, settled);
      void settled.then(() => flights.delete(key));
      return undefined;
    },
    async takeEntry(key) {
      if (!serving()) return undefined;
      const kept = store.get(key);
      if (kept !== undefined) return JSON.parse(kept) as Record<string, unknown>;
      return shared ? (await takeShared(shared, store, key))?.data : undefined;
    },
    keepEntry(key, data, tags, maxAgeMs, since) {
      if (!serving()) return false;
      const text = JSON.stringify(data);
      if (!store.set(key, text, tags, maxAgeMs, BigInt(since))) return false;
      shared?.set(key, { text, tags, since, expiresAt: Date.now() + maxAgeMs });
      return true;
    },
    keptResponse: (key) => (serving() ? store.get(key) : undefined),
    keepResponse: (key, text, tags, maxAgeMs, since) => serving() && store.set(key, text, tags, maxAgeMs, BigInt(since)),
  };
}

/**
 * What another process kept under `key`, when this process vouches for it (no change it applied since the entry's
 * fetch touched its tags), it has not expired, and its text is a reply — then kept here too. A shared level that fails
 * (rejects) is a miss: the local level serves on.
 */
async function takeShared(
  shared: SharedLevel,
  store: FetchCacheStore,
  key: string,
): Promise<{ text: string; data: Record<string, unknown> } | undefined> {
  const other = await shared.get(key).catch(() => undefined);
  if (!other || other.expiresAt <= Date.now() || !store.vouches(other.tags, BigInt(other.since))) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(other.text);
  } catch {
    return undefined;
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  if (!store.set(key, other.text, other.tags, other.expiresAt - Date.now(), BigInt(other.since))) return undefined;
  return { text: other.text, data: data as Record<string, unknown> };
}

function keyOf(fetch: CacheableFetch): string {
  return `${fetch.subgraph}\n${fetch.documentKey}\n${fetch.viewer}\n${variablesKey(fetch.variables)}`;
}
