import type { CacheableDocument } from './cacheable-document.ts';
import { entityLookupOf, readEntityByEntity } from './entity-by-entity.ts';
import type { CacheableFetch, FetchCache, FetchOutcome } from './fetch-cache.ts';
import { recordFetch, type ResponseRecord } from './response-record.ts';

/**
 * One subgraph fetch through the cache, the same for an embedded subgraph and a subgraph server
 * (../in-process-data-source.ts, remote-fetch-caching.ts): a write runs, then waits for its changes to reach the cache
 * and notes the position it reached for the reply's header; a query the hints let the cache keep is read through it
 * under the viewer's key; anything else — or no viewer (the subgraph answers its own error) — just runs.
 */
/** After a write: its changes applied to the cache before its reply goes, and the position reached noted for the reply. */
export async function awaitWrite(cache: FetchCache, context: { written?: { through: string | undefined } | undefined }): Promise<void> {
  const position = await cache.afterWrite();
  if (position !== undefined && context.written) context.written.through = position;
}

export async function fetchThroughCache<T>(
  cache: FetchCache,
  document: CacheableDocument | undefined,
  fetch: Pick<CacheableFetch, 'subgraph' | 'schema' | 'variables'>,
  context: { written?: { through: string | undefined } | undefined; responseRecord?: ResponseRecord | undefined },
  viewer: () => Promise<string | undefined>,
  /** Runs the fetch: with the caller's variables, or (an entity lookup read entity by entity) with these. */
  run: (variables?: Record<string, unknown>) => Promise<FetchOutcome<T>>,
): Promise<{ ran: T } | { fromCache: Record<string, unknown> }> {
  if (document?.writes) {
    recordFetch(context, 'spoiled');
    const { value } = await run();
    await awaitWrite(cache, context);
    return { ran: value };
  }
  const cacheable = document?.cacheable;
  const key = cacheable && cache.serving() ? await viewer() : undefined;
  if (!cacheable || key === undefined) {
    recordFetch(context, 'spoiled');
    return { ran: (await run()).value };
  }
  const keyed = { ...fetch, documentKey: cacheable.key, operation: cacheable.operation, fragments: cacheable.fragments, viewer: key };
  // A lookup of several entities is read entity by entity (entity-by-entity.ts); anything else as one entry.
  const lookup = entityLookupOf(cacheable.operation);
  const representations = lookup && fetch.variables?.[lookup.variable];
  let read: { ran: T } | { fromCache: Record<string, unknown> };
  let ran: FetchOutcome<T> | undefined;
  if (lookup && Array.isArray(representations) && representations.length > 1) {
    ({ read, outcome: ran } = await readEntityByEntity(cache, keyed, lookup, representations, run));
  } else {
    read = await cache.read(keyed, async () => (ran = await run()));
  }
  const data = 'fromCache' in read ? read.fromCache : ran?.reusable || ran?.call ? ran.data : undefined;
  // What the response level needs of the fetch (response-cache.ts): a reply kept or keepable, or why the response is not.
  if (!data || (ran && !(ran.maxAgeSeconds > 0))) recordFetch(context, 'spoiled');
  else recordFetch(context, { ...keyed, data, ...(ran?.call && { call: ran.call }) });
  return read;
}
