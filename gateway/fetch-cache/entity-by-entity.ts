import { Kind, type OperationDefinitionNode } from 'graphql';
import { variablesKey, type CacheableFetch, type FetchCache, type FetchOutcome } from './fetch-cache.ts';
import { resultTags } from './result-tags.ts';

/**
 * An entity lookup read entity by entity, as Apollo Router's entity cache keeps them: each representation's object under
 * a key of its own (the fetch's key with that representation instead of the list), so that a change to one entity
 * re-fetches that one alone — a new comment on one of a deep read's 25 media re-reads that media's comments, not all 25.
 * Only the representations no entry holds are sent; the reply is put back together in the lookup's order.
 *
 * Concurrent identical lookups share one fetch of what they miss (single flight, as the whole-fetch path's): the later
 * ones wait for it and read what it kept. A reply to the partial lookup that could not be kept (errors, extensions, a list of another length) is set aside and the whole
 * lookup runs as it was asked, so a caller never sees errors whose paths name the partial list.
 */

/** The `_entities` field of a lookup whose one selection it is, with the variable holding its representations. */
export interface EntityLookup {
  /** The reply's key for the field (its alias, or `_entities`). */
  responseKey: string;
  variable: string;
}

/** The lookup `operation` is, when its only selection is `_entities(representations: $variable)`. */
export function entityLookupOf(operation: OperationDefinitionNode): EntityLookup | undefined {
  const selections = operation.selectionSet.selections;
  const field = selections[0];
  if (selections.length !== 1 || field?.kind !== Kind.FIELD || field.name.value !== '_entities') return undefined;
  const argument = field.arguments?.find((arg) => arg.name.value === 'representations');
  if (argument?.value.kind !== Kind.VARIABLE || field.directives?.length) return undefined;
  return { responseKey: field.alias?.value ?? field.name.value, variable: argument.value.name.value };
}

/** Keys of one entity's entry: longer ones hashed, as variables are. */
function entityKeys(fetch: CacheableFetch, lookup: EntityLookup, representations: readonly unknown[]): string[] {
  const others = { ...fetch.variables };
  delete others[lookup.variable];
  const base = `entity\n${fetch.subgraph}\n${fetch.documentKey}\n${fetch.viewer}\n${variablesKey(others)}\n`;
  return representations.map((representation) => base + variablesKey({ r: representation }));
}

/**
 * Reads `fetch` entity by entity. `run(variables)` runs the lookup with those variables (the caller's own when none are
 * given). The outcome: the reply as run (every entity missed) or put together from kept entries and the partial
 * lookup, with whether it may be kept (the response level asks: fetch-cache/response-record.ts).
 */
export async function readEntityByEntity<T>(
  cache: FetchCache,
  fetch: CacheableFetch,
  lookup: EntityLookup,
  representations: readonly unknown[],
  run: (variables?: Record<string, unknown>) => Promise<FetchOutcome<T>>,
): Promise<{ read: { ran: T } | { fromCache: Record<string, unknown> }; outcome: FetchOutcome<T> | undefined }> {
  const keys = entityKeys(fetch, lookup, representations);
  let kept = await Promise.all(keys.map((key) => cache.takeEntry(key)));
  let missing = kept.flatMap((reply, index) => (reply === undefined ? [index] : []));
  if (missing.length > 0) {
    let done: () => void = () => undefined;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const flightKey = `lookup\n${missing.map((index) => keys[index]).join('\n')}`;
    const running = cache.joinFlight(flightKey, mine);
    if (running) {
      await running;
      const before = kept;
      kept = await Promise.all(
        keys.map((key, index) => (before[index] === undefined ? cache.takeEntry(key) : Promise.resolve(before[index]))),
      );
      missing = kept.flatMap((reply, index) => (reply === undefined ? [index] : []));
    } else {
      try {
        return await fetchMissing(cache, fetch, lookup, representations, run, keys, kept, missing);
      } finally {
        done();
      }
    }
  }
  if (missing.length === 0) {
    const entities = kept.map((reply) => (reply![lookup.responseKey] as unknown[] | undefined)?.[0]);
    return { read: { fromCache: { [lookup.responseKey]: entities } }, outcome: undefined };
  }
  return fetchMissing(cache, fetch, lookup, representations, run, keys, kept, missing);
}

/** Runs the lookup for the `missing` representations, keeps each entity it returns, and puts the reply together. */
async function fetchMissing<T>(
  cache: FetchCache,
  fetch: CacheableFetch,
  lookup: EntityLookup,
  representations: readonly unknown[],
  run: (variables?: Record<string, unknown>) => Promise<FetchOutcome<T>>,
  keys: readonly string[],
  kept: readonly (Record<string, unknown> | undefined)[],
  missing: readonly number[],
): Promise<{ read: { ran: T } | { fromCache: Record<string, unknown> }; outcome: FetchOutcome<T> | undefined }> {
  const entities: unknown[] = kept.map((reply) => (reply?.[lookup.responseKey] as unknown[] | undefined)?.[0]);

  const since = cache.position();
  const partial = missing.length < representations.length;
  const variables = { ...fetch.variables, [lookup.variable]: missing.map((index) => representations[index]) };
  const outcome = await run(partial ? variables : undefined);
  const list = outcome.data?.[lookup.responseKey];
  if (!outcome.reusable || !Array.isArray(list) || list.length !== missing.length) {
    if (!partial) return { read: { ran: outcome.value }, outcome };
    const whole = await run();
    return { read: { ran: whole.value }, outcome: whole };
  }
  missing.forEach((index, position) => {
    const entity = list[position] as unknown;
    entities[index] = entity;
    const one = { [lookup.responseKey]: [entity] };
    const tags = resultTags(
      fetch.schema,
      fetch.operation,
      fetch.fragments,
      { ...fetch.variables, [lookup.variable]: [representations[index]] },
      one,
    );
    if (tags && tags.length > 0 && outcome.maxAgeSeconds > 0) cache.keepEntry(keys[index]!, one, tags, outcome.maxAgeSeconds * 1000, since);
  });
  if (!partial) return { read: { ran: outcome.value }, outcome };
  return { read: { fromCache: { [lookup.responseKey]: entities } }, outcome };
}
