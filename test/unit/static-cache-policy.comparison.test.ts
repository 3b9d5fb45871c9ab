/**
 * The library copy `static-cache-policy` (lib/stand-ins/stand-in-registry.ts, LIBRARY_COPIES): lib/graphql/static-cache-policy.ts
 * computes, once per document, the Cache-Control that Apollo Server's cache-control plugin computes per resolved field.
 * Both answer the same documents over one subgraph schema of this file's, whose resolvers give every field a value (no
 * null, no empty list), and must agree; where the data leaves a selected field unresolved, the copy must be stricter,
 * never looser.
 */
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControl } from '@apollo/server/plugin/cacheControl';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse, type GraphQLSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticCachePolicy } from '../../lib/graphql/static-cache-policy.ts';

const SDL = parse(`
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key", "@inaccessible"])
  directive @cacheControl(maxAge: Int, scope: CacheControlScope, inheritMaxAge: Boolean) on FIELD_DEFINITION | OBJECT | INTERFACE | UNION
  enum CacheControlScope @inaccessible { PUBLIC PRIVATE }

  type Query {
    post(id: ID!): Post
    posts: [Post!]!
    page: Page!
    plain: String
    hinted: String @cacheControl(maxAge: 7)
    node(id: ID!): Node
    result: SearchResult
    viewer: Viewer @cacheControl(maxAge: 100, scope: PRIVATE)
    hintedResult: SearchResult @cacheControl(maxAge: 50)
  }
  type Post @key(fields: "id") @cacheControl(maxAge: 60) {
    id: ID!
    title: String
    secret: String @cacheControl(scope: PRIVATE)
    rating: Int @cacheControl(maxAge: 5)
    author: Author
    stats: Stats
    tags: [Tag!]!
  }
  type Author @key(fields: "id") @cacheControl(maxAge: 40, scope: PUBLIC) {
    id: ID!
    name: String
    avatar: Photo
  }
  type Stats @cacheControl(inheritMaxAge: true) {
    views: Int
    detail: Detail
  }
  type Detail {
    note: String
  }
  type Tag {
    name: String
  }
  type Page @cacheControl(maxAge: 20) {
    posts: [Post!]! @cacheControl(inheritMaxAge: true)
    info: Info
  }
  type Info @cacheControl(inheritMaxAge: true) {
    count: Int
  }
  interface Node @cacheControl(maxAge: 30) {
    id: ID!
  }
  type Photo implements Node @key(fields: "id") @cacheControl(maxAge: 10) {
    id: ID!
    url: String
  }
  union SearchResult = Photo | Author
  type Viewer {
    name: String
  }
`);

const POST = { id: '1', title: 't', secret: 's', rating: 3, author: { id: 'a', name: 'n' }, stats: { views: 2, detail: { note: 'x' } } };
const resolvers = {
  Query: {
    post: () => ({ ...POST, tags: [{ name: 'g' }] }),
    posts: () => [{ ...POST, tags: [{ name: 'g' }] }],
    page: () => ({ posts: [{ ...POST, tags: [{ name: 'g' }] }], info: { count: 1 } }),
    plain: () => 'p',
    hinted: () => 'h',
    node: () => ({ __typename: 'Photo', id: 'p', url: 'u' }),
    result: () => ({ __typename: 'Photo', id: 'p', url: 'u' }),
    viewer: () => ({ name: 'v' }),
    hintedResult: () => ({ __typename: 'Photo', id: 'p', url: 'u' }),
  },
  Node: { __resolveType: () => 'Photo' },
  SearchResult: { __resolveType: (value: { __typename: string }) => value.__typename },
  Post: { __resolveReference: (reference: { id: string }) => ({ ...POST, id: reference.id, tags: [{ name: 'g' }] }) },
  Author: { __resolveReference: (reference: { id: string }) => ({ id: reference.id, name: 'n' }) },
  Photo: { __resolveReference: (reference: { id: string }) => ({ id: reference.id, url: 'u' }) },
};

let schema: GraphQLSchema;
let server: ApolloServer;

beforeAll(async () => {
  schema = buildSubgraphSchema({ typeDefs: SDL, resolvers: resolvers as never });
  server = new ApolloServer({ schema, plugins: [ApolloServerPluginCacheControl(), ApolloServerPluginInlineTraceDisabled()] });
  await server.start();
});

afterAll(async () => {
  await server.stop();
});

/** The Cache-Control Apollo Server answers, and the copy's. */
async function both(query: string, variables?: Record<string, unknown>): Promise<{ library: string; copy: string }> {
  const response = await server.executeOperation({ query, variables });
  if (response.body.kind !== 'single' || response.body.singleResult.errors) throw new Error(JSON.stringify(response.body));
  const policy = staticCachePolicy(schema, parse(query));
  const copy = policy.maxAge ? `max-age=${policy.maxAge}, ${(policy.scope ?? 'PUBLIC').toLowerCase()}` : 'no-store';
  return { library: response.http.headers.get('cache-control') ?? '', copy };
}

const AGREED: Record<string, string> = {
  'a root scalar without a hint': '{ plain }',
  'a root scalar with one': '{ hinted }',
  'an object type, its scalars inheriting': '{ post(id: "1") { id title } }',
  'a field hint shorter than its type': '{ post(id: "1") { rating } }',
  'a PRIVATE field in a PUBLIC answer': '{ post(id: "1") { secret } }',
  'a nested type with its own hint': '{ post(id: "1") { author { name } } }',
  'an inheriting type, and an unhinted one under it': '{ post(id: "1") { stats { views detail { note } } } }',
  'an unhinted list': '{ post(id: "1") { tags { name } } }',
  'a root list': '{ posts { id } }',
  'an inheriting field and type': '{ page { posts { id } info { count } } }',
  'an interface': '{ node(id: "p") { id } }',
  'an interface, a fragment on its type': '{ node(id: "p") { ... on Photo { url } } }',
  'a union': '{ result { ... on Photo { url } } }',
  'a named fragment': '{ post(id: "1") { ...P } } fragment P on Post { author { id } }',
  'a PRIVATE root field': '{ viewer { name } }',
  'several root fields': '{ hinted post(id: "1") { id } viewer { name } }',
  'an entity fetch': 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Post { title } ... on Author { name } } }',
  'an entity fetch of an interface-implementing type': 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Photo { url } } }',
  'typename only': '{ __typename }',
};

const REPRESENTATIONS = [
  { __typename: 'Post', id: '1' },
  { __typename: 'Author', id: 'a' },
  { __typename: 'Photo', id: 'p' },
];

describe("the static cache policy against Apollo Server 5.5.1's cache-control plugin", () => {
  for (const [name, query] of Object.entries(AGREED)) {
    it(`agrees: ${name}`, async () => {
      // The planner sends representations of the types an entity fetch's fragments name.
      const representations = REPRESENTATIONS.filter(({ __typename }) => query.includes(`on ${__typename} `));
      const { library, copy } = await both(query, query.includes('$r') ? { r: representations } : undefined);
      expect(copy).toBe(library);
    });
  }

  it('is stricter, never looser, where a selected field never resolves (a fragment on the type the data is not)', async () => {
    // The data is a Photo: the plugin never resolves Author.avatar (a Photo, 10 s); the copy counts it.
    const { library, copy } = await both('{ hintedResult { ... on Photo { url } ... on Author { avatar { url } } } }');
    expect(library).toBe('max-age=50, public');
    expect(copy).toBe('max-age=10, public');
  });

  it('makes an unknown operation name uncacheable', () => {
    expect(staticCachePolicy(schema, parse('query A { hinted }'), 'B')).toEqual({ maxAge: 0, scope: undefined });
  });
});
