import {
  getNamedType,
  isLeafType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';

/**
 * Queries over the supergraph's API schema for the @defer differential test (test/e2e/live/live-defer.differential.test.ts):
 * read-only selections that find data in the social world and the user records, generated from a seed (the same seed,
 * the same query), and each query's deferred variants — one per selection set it has (the root's and every object
 * field's), some of that set's selections moved into `... @defer(label: …) { … }`.
 *
 * A generated field is one a query can ask for without arguments it would have to invent: its arguments are optional,
 * or `first` (set to 2, so a page stays small), or an `id`/`mediaId` root argument filled from the fixture. Fields whose
 * answer changes between two reads (rate-limit counters, the current time) are left out, so the undeferred reply and the
 * deferred parts can be held to each other.
 */

/** A query as text: its selection tree, printed with or without one deferred fragment. */
export interface Selection {
  /** The field as written (name and arguments), or an inline fragment's head (`... on T`). */
  head: string;
  children: Selection[];
}

export interface GeneratedQuery {
  /** Which token reads it: the social graph's own-login token, or an Area A administrator's JWT. */
  credential: 'social' | 'users';
  root: Selection[];
}

export interface DeferredVariant {
  /** The selection path (heads) of the set that defers part of itself. */
  at: string[];
  text: string;
}

/** A seeded pseudo-random source (mulberry32): the same seed, the same sequence. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Fields whose value is not the same from one read to the next (counters of requests, clocks): never generated. */
const UNSTABLE_FIELDS = new Set(['rateLimit', 'uploadRateLimit', 'usage', 'callCount', 'expiresAfterSecs', 'checkAfterSecs']);

/** The deepest object nesting generated (a page is two levels: comments { nodes { … } }). */
const MAX_OBJECT_DEPTH = 4;

export interface QueryRoots {
  /** Root fields of the social graph with the fixture's ids filled in (`media(id: "…")`). */
  social: string[];
  /** Root fields of Area A. */
  users: string[];
}

export function generateQuery(schema: GraphQLSchema, roots: QueryRoots, seed: number): GeneratedQuery {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const credential = random() < 0.75 ? 'social' : 'users';
  const queryType = schema.getQueryType()!;
  const rootHeads = roots[credential];
  const chosenRoots = [...new Set(Array.from({ length: 1 + Math.floor(random() * 2) }, () => pick(rootHeads)))];
  const root = chosenRoots.map((head) => {
    const name = head.split('(')[0]!;
    const field = queryType.getFields()[name]!;
    return { head, children: selectionsOf(getNamedType(field.type) as GraphQLObjectType, 1) };
  });
  return { credential, root };

  function selectionsOf(type: GraphQLObjectType, depth: number): Selection[] {
    const fields = Object.values(type.getFields()).filter(usable);
    const leaves = fields.filter((field) => isLeafType(getNamedType(field.type)));
    const objects = fields.filter((field) => isObjectType(getNamedType(field.type)));
    const chosen: Selection[] = [];
    // At least one leaf where the type has one, so that every object has something to show; a type of objects only (a
    // page: nodes, pageInfo) gets one of them whatever the depth.
    const leafCount = leaves.length === 0 ? 0 : 1 + Math.floor(random() * Math.min(3, leaves.length));
    for (const field of shuffled(leaves).slice(0, leafCount)) chosen.push({ head: headOf(field), children: [] });
    const objectCount = leaves.length === 0 ? 1 : depth < MAX_OBJECT_DEPTH ? Math.floor(random() * Math.min(3, objects.length + 1)) : 0;
    for (const field of shuffled(objects).slice(0, objectCount)) {
      chosen.push({ head: headOf(field), children: selectionsOf(getNamedType(field.type) as GraphQLObjectType, depth + 1) });
    }
    return shuffled(chosen);
  }

  function shuffled<T>(items: readonly T[]): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i -= 1) {
      const j = Math.floor(random() * (i + 1));
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy;
  }
}

function usable(field: GraphQLField<unknown, unknown>): boolean {
  if (UNSTABLE_FIELDS.has(field.name) || field.name.startsWith('__')) return false;
  if (field.deprecationReason) return false;
  const named = getNamedType(field.type);
  if (!isLeafType(named) && !isObjectType(named)) return false;
  return field.args.every((argument) => argument.name === 'first' || !isNonNullType(argument.type));
}

function headOf(field: GraphQLField<unknown, unknown>): string {
  return field.args.some((argument) => argument.name === 'first') ? `${field.name}(first: 2)` : field.name;
}

/** The query as text, the selection set at `deferAt` (a path of heads; [] the root) moving `deferred` of its selections into a deferred fragment. */
export function printQuery(query: GeneratedQuery, defer?: { at: string[]; indexes: number[]; label: string }): string {
  const print = (selections: Selection[], path: string[]): string => {
    const deferHere = defer !== undefined && path.length === defer.at.length && path.every((head, index) => head === defer.at[index]);
    const plain = selections.filter((_selection, index) => !(deferHere && defer.indexes.includes(index)));
    const parts = plain.map((selection) => printSelection(selection, path));
    if (deferHere) {
      const moved = defer.indexes.map((index) => printSelection(selections[index]!, path));
      parts.push(`... @defer(label: ${JSON.stringify(defer.label)}) { ${moved.join(' ')} }`);
    }
    return `{ ${parts.join(' ')} }`;
  };
  const printSelection = (selection: Selection, path: string[]): string =>
    selection.children.length === 0 ? selection.head : `${selection.head} ${print(selection.children, [...path, selection.head])}`;
  return `query Generated ${print(query.root, [])}`;
}

/**
 * Every deferred variant of a query: for each selection set (the root's and each object field's), a non-empty subset of
 * its selections (chosen from the seed: one, several or all) deferred.
 */
export function deferredVariants(query: GeneratedQuery, seed: number): DeferredVariant[] {
  const random = seededRandom(seed ^ 0x5bd1e995);
  const variants: DeferredVariant[] = [];
  const visit = (selections: Selection[], path: string[]) => {
    const indexes = selections.map((_selection, index) => index).filter(() => random() < 0.5);
    const chosen = indexes.length > 0 ? indexes : [Math.floor(random() * selections.length)];
    variants.push({ at: path, text: printQuery(query, { at: path, indexes: chosen, label: `d${variants.length}` }) });
    for (const selection of selections) if (selection.children.length > 0) visit(selection.children, [...path, selection.head]);
  };
  visit(query.root, []);
  return variants;
}

/** One incremental delivery reply (`multipart/mixed;deferSpec=20220824`) read as its parts. */
export function multipartParts(text: string, boundary: string): Record<string, unknown>[] {
  return text
    .split(`\r\n--${boundary}`)
    .map((part) => part.split('\r\n\r\n')[1])
    .filter((json): json is string => json !== undefined && json.trim().startsWith('{'))
    .map((json) => JSON.parse(json) as Record<string, unknown>);
}

export interface MergedReply {
  data: unknown;
  errors: unknown[];
  parts: number;
}

/**
 * The parts merged as a client merges them (Apollo Client's Defer20220824Handler): each incremental item's data
 * deep-merged into the result at its path, its errors added to the result's.
 */
export function mergeParts(parts: Record<string, unknown>[]): MergedReply {
  const [first, ...rest] = parts;
  if (!first) throw new Error('no part');
  const data = structuredClone(first.data ?? null) as Record<string, unknown> | null;
  const errors = [...((first.errors as unknown[] | undefined) ?? [])];
  for (const part of rest) {
    for (const item of (part.incremental as { data?: unknown; path: (string | number)[]; errors?: unknown[] }[] | undefined) ?? []) {
      errors.push(...(item.errors ?? []));
      if (item.data === null || item.data === undefined) continue;
      let target: unknown = data;
      for (const segment of item.path) target = (target as Record<string | number, unknown> | null)?.[segment];
      if (target === null || target === undefined) continue;
      deepMerge(target as Record<string, unknown>, item.data as Record<string, unknown>);
    }
  }
  return { data, errors, parts: parts.length };
}

function deepMerge(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    if (existing && typeof existing === 'object' && value && typeof value === 'object') {
      if (Array.isArray(existing) && Array.isArray(value))
        value.forEach((item, index) =>
          existing[index] && typeof existing[index] === 'object' && item && typeof item === 'object'
            ? deepMerge(existing[index] as Record<string, unknown>, item as Record<string, unknown>)
            : (existing[index] = item),
        );
      else deepMerge(existing as Record<string, unknown>, value as Record<string, unknown>);
    } else {
      target[key] = value;
    }
  }
}

/** Errors compared by what a client reads of them: message, path and code (their order and locations set aside). */
export function errorKeys(errors: readonly unknown[]): string[] {
  return errors
    .map((error) => {
      const { message, path, extensions } = error as { message?: string; path?: unknown[]; extensions?: { code?: string } };
      return JSON.stringify([path ?? null, extensions?.code ?? null, message]);
    })
    .sort();
}

/**
 * Where a reply's errors nulled more than their own field (a non-null field's error bubbling up to a nullable parent):
 * the error paths whose parent is null or missing in the data. There a deferred reply rightly differs from the undeferred
 * one — an error inside a deferred fragment nulls that fragment's item, not the object around it (the incremental
 * delivery RFC) — so the differential test leaves such fields out of its queries.
 */
export function bubbledErrorPaths(reply: { data?: unknown; errors?: readonly unknown[] }): (string | number)[][] {
  const paths: (string | number)[][] = [];
  for (const error of reply.errors ?? []) {
    const path = (error as { path?: (string | number)[] }).path;
    if (!path || path.length === 0) continue;
    let parent: unknown = reply.data;
    for (const segment of path.slice(0, -1))
      parent = parent === null || parent === undefined ? undefined : (parent as Record<string | number, unknown>)[segment];
    if (parent === null || parent === undefined) paths.push(path);
  }
  return paths;
}

/** The query without the field at a response path (list indices skipped; a selection left empty goes with it). */
export function withoutField(query: GeneratedQuery, path: readonly (string | number)[]): GeneratedQuery {
  const keys = path.filter((segment): segment is string => typeof segment === 'string');
  const prune = (selections: Selection[], depth: number): Selection[] =>
    selections.flatMap((selection) => {
      if (selection.head.split('(')[0] !== keys[depth]) return [selection];
      if (depth === keys.length - 1) return [];
      const children = prune(selection.children, depth + 1);
      return children.length === 0 ? [] : [{ ...selection, children }];
    });
  return { ...query, root: prune(query.root, 0) };
}
