/**
 * gateway/stand-ins/result-shaping.ts against @apollo/gateway's own computeResponse: the same operations over the same generated
 * subgraph data must give the same reply — data byte for byte, the same errors (message, path, code), or the same
 * failure. The data is mostly well formed, with the faults a subgraph can send: nulls where the schema says non-null,
 * wrong leaf values, unknown or non-string __typename, lists where objects belong and the reverse, missing fields.
 */
import { buildSchema, operationFromDocument, type FieldSelection } from '@apollo/federation-internals';
import fc from 'fast-check';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { computeResponse } from '../../gateway/stand-ins/result-shaping.ts';
import { apolloComputeResponse, setResultShaping } from '../../gateway/stand-ins/result-shaping-install.ts';

const SDL = `
  type Query {
    node(id: ID!): Node
    nodes: [Node]
    search: [SearchResult!]!
    me: User!
    count: Int
    ratio: Float
    flag: Boolean
    status: Status
    json: JSON
  }
  scalar JSON
  enum Status { ACTIVE HIDDEN }
  interface Node { id: ID! }
  type User implements Node { id: ID! name: String! age: Int friends: [User!] posts: [Post] status: Status! }
  type Post implements Node { id: ID! title: String score: Float tags: [String!]! author: User comments: [Comment!]! }
  type Comment implements Node { id: ID! text: String! replies: [Comment] hidden: Boolean }
  union SearchResult = User | Post
`;

const OPERATIONS: { query: string; variables?: Record<string, unknown> }[] = [
  { query: '{ me { id name age status } count ratio flag status json }' },
  { query: '{ me { name } me { age friends { id name } } me { friends { age } } }' },
  { query: '{ nodes { id __typename ... on User { name } ... on Post { title tags score } } }' },
  {
    query:
      '{ search { __typename ... on User { id name posts { id title } } ... on Post { id author { name } comments { text replies { text hidden } } } } }',
  },
  {
    query:
      '{ node(id: "1") { ...N } } fragment N on Node { id ... on Comment { text replies { id ...C } } } fragment C on Comment { text hidden }',
  },
  { query: '{ a: me { n: name t: __typename, constructor: name, toString: age } b: me { __typename } }' },
  { query: '{ me { __proto__: name valueOf: id hasOwnProperty: status } }' },
  {
    query:
      'query Q($skip: Boolean!, $inc: Boolean = true) { me { name @skip(if: $skip) age @include(if: $inc) friends @include(if: false) { id } } count @skip(if: true) ratio @include(if: $inc) }',
    variables: { skip: true },
  },
  {
    query:
      'query Q($skip: Boolean!, $inc: Boolean = true) { me { name @skip(if: $skip) age @include(if: $inc) } nodes { ... on User @skip(if: $skip) { name } ... @include(if: $inc) { id } } }',
    variables: { skip: false, inc: false },
  },
  { query: '{ me { id } __typename t: __typename __schema { queryType { name } } __type(name: "User") { name } }' },
  {
    query:
      '{ nodes { ... on Node { id } ... on Post { author { ... on User { name } } } ... on Comment { replies { replies { text } } } } }',
  },
  { query: '{ search { ... on Node { id } ... on SearchResult { __typename } } }' },
];

const TYPES = ['User', 'Post', 'Comment'] as const;

/** A small seeded generator (mulberry32): each fast-check seed gives one reproducible data tree. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { chance: (p: number) => next() < p, pick: <T>(values: readonly T[]) => values[Math.floor(next() * values.length)]! };
}

type Random = ReturnType<typeof random>;

const ALIASES = [
  ['n', 'name'],
  ['t', '__typename'],
  ['constructor', 'name'],
  ['toString', 'age'],
  ['__proto__', 'name'],
  ['valueOf', 'id'],
  ['hasOwnProperty', 'status'],
] as const;

function own(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

const FAULTS: unknown[] = [null, 'text', 7, 1.5, true, {}, [], '7', 'ACTIVE', 'SHOUT', -0, 2 ** 53];

/** Data a subgraph might send for the whole schema, to a bounded depth: every field, mostly of the right kind. */
function object(r: Random, typename: string, depth: number): Record<string, unknown> {
  const fault = (value: () => unknown) => (r.chance(0.06) ? r.pick(FAULTS) : value());
  const list = (item: () => unknown) => fault(() => (depth > 3 ? [] : Array.from({ length: r.pick([0, 1, 2, 3]) }, item)));
  const child = (names: readonly string[]) => () => fault(() => (depth > 3 ? null : object(r, r.pick(names), depth + 1)));
  const value: Record<string, unknown> = {};
  if (!r.chance(0.05)) value.__typename = r.chance(0.04) ? r.pick(['Nope', 'Status', 5, '']) : typename;
  value.id = fault(() => String(r.pick([1, 2, 3])));
  switch (typename) {
    case 'User':
      value.name = fault(() => r.pick(['Ana', 'Bo']));
      value.age = fault(() => r.pick([30, null]));
      value.friends = list(child(['User']));
      value.posts = list(child(['Post']));
      value.status = fault(() => r.pick(['ACTIVE', 'HIDDEN']));
      break;
    case 'Post':
      value.title = fault(() => 'a title');
      value.score = fault(() => r.pick([1.25, 3]));
      value.tags = list(() => fault(() => 'tag'));
      value.author = child(['User'])();
      value.comments = list(child(['Comment']));
      break;
    default:
      value.text = fault(() => 'a comment');
      value.hidden = fault(() => r.pick([true, false]));
      value.replies = list(child(['Comment']));
  }
  for (const key of Object.keys(value)) if (key !== '__typename' && r.chance(0.03)) delete value[key];
  // The aliases of OPERATIONS, as a subgraph answers them (own properties, as JSON.parse makes them).
  for (const [alias, field] of ALIASES) if (r.chance(0.8)) own(value, alias, value[field] ?? null);
  return value;
}

function rootData(r: Random): Record<string, unknown> {
  const root = object(r, 'User', 0);
  const anyNode = () => object(r, r.pick(TYPES), 1);
  return {
    me: r.chance(0.05) ? null : object(r, 'User', 1),
    node: r.chance(0.1) ? null : anyNode(),
    nodes: r.chance(0.05) ? r.pick(FAULTS) : Array.from({ length: r.pick([0, 1, 2, 4]) }, () => (r.chance(0.1) ? null : anyNode())),
    search: Array.from({ length: r.pick([0, 1, 3]) }, () => (r.chance(0.05) ? null : object(r, r.pick(['User', 'Post']), 1))),
    count: r.pick([3, null, 1.5, '3']),
    ratio: r.pick([0.5, 2, null, 'x']),
    flag: r.pick([true, null, 0]),
    status: r.pick(['ACTIVE', 'NOPE', null, 1]),
    json: r.pick([{ any: ['thing'] }, 5, null]),
    ...(r.chance(0.5) ? { __typename: 'Query' } : {}),
    ...(r.chance(0.02) ? { extra: root } : {}),
    ...(r.chance(0.9) ? { a: object(r, 'User', 1), b: object(r, 'User', 1) } : {}),
    ...(r.chance(0.5) ? { t: 'Query' } : {}),
  };
}

type Outcome = { threw: string } | { data: string; errors: { message: string; path: unknown; code: unknown }[] };

function outcome(
  run: () => { data: unknown; errors: readonly { message: string; path?: unknown; extensions?: { code?: unknown } }[] },
): Outcome {
  try {
    const { data, errors } = run();
    return { data: JSON.stringify(data), errors: errors.map((e) => ({ message: e.message, path: e.path, code: e.extensions?.code })) };
  } catch (error) {
    return { threw: error instanceof Error ? error.message : String(error) };
  }
}

describe('gateway result shaping', () => {
  const schema = buildSchema(SDL);
  const apollo = apolloComputeResponse();
  const introspectionHandling = (selection: FieldSelection) => ({ introspected: selection.element.responseName() });

  it('is installed in place of @apollo/gateway’s export, Apollo’s own stays reachable, and comes back when switched off', () => {
    const exports = createRequire(import.meta.url)('@apollo/gateway/dist/resultShaping.js') as { computeResponse: unknown };
    setResultShaping(true);
    setResultShaping(true);
    expect(exports.computeResponse).not.toBe(apollo);
    expect(apolloComputeResponse()).toBe(apollo);
    expect(apollo.toString()).toContain('applySelectionSet');
    setResultShaping(false);
    expect(exports.computeResponse).toBe(apollo);
  });

  it('answers as @apollo/gateway does on generated subgraph data, faults included', () => {
    const operations = OPERATIONS.map(({ query, variables }) => ({ operation: operationFromDocument(schema, parse(query)), variables }));
    let faulty = 0;
    let threw = 0;
    fc.assert(
      fc.property(fc.integer(), fc.nat(operations.length - 1), (seed, index) => {
        const { operation, variables } = operations[index]!;
        const input = rootData(random(seed));
        const args = { operation, variables, input, introspectionHandling };
        const expected = outcome(() => apollo(args));
        const actual = outcome(() => computeResponse(args));
        expect(actual).toEqual(expected);
        if ('threw' in expected) threw++;
        else if (expected.errors.length > 0) faulty++;
      }),
      { numRuns: 3000 },
    );
    // The generator reaches the error paths, not only the happy one.
    expect(faulty).toBeGreaterThan(300);
    expect(threw).toBeGreaterThan(30);
    // The work is bounded by the number of runs; the time it takes depends on what else the machine does.
  }, 120_000);

  it('answers as @apollo/gateway does on well-formed data, null data and a root that bubbles up', () => {
    const operation = operationFromDocument(schema, parse('{ me { name friends { name } } count }'));
    const well = { me: { __typename: 'User', name: 'Ana', friends: [{ name: 'Bo' }] }, count: 2 };
    const cases: (Record<string, unknown> | null | undefined)[] = [well, null, undefined, { me: null, count: 1 }, { me: { name: null } }];
    for (const input of cases) {
      const args = { operation, input, introspectionHandling };
      expect(outcome(() => computeResponse(args))).toEqual(outcome(() => apollo(args)));
    }
    expect(computeResponse({ operation, input: well, introspectionHandling })).toEqual({
      data: { me: { name: 'Ana', friends: [{ name: 'Bo' }] }, count: 2 },
      errors: [],
    });
    const bubbled = computeResponse({ operation, input: { me: null, count: 1 }, introspectionHandling });
    expect(bubbled.data).toBeNull();
    expect(bubbled.errors.map((e) => [e.message, e.path])).toEqual([['Cannot return null for non-nullable field Query.me.', ['me']]]);
  });

  it('writes response names that Object.prototype also has as own data, never as the prototype', () => {
    const operation = operationFromDocument(schema, parse('{ me { __proto__: name constructor: age } }'));
    const { data } = computeResponse({
      operation,
      input: JSON.parse('{"me":{"__proto__":"Ana","constructor":3}}') as Record<string, unknown>,
      introspectionHandling,
    });
    const me = (data as { me: object }).me;
    expect(Object.getPrototypeOf(me)).toBe(Object.prototype);
    expect(JSON.stringify(data)).toBe('{"me":{"__proto__":"Ana","constructor":3}}');
  });
});
