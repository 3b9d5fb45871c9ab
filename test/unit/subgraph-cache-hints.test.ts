/**
 * The `@cacheControl` hints each subgraph declares (its schema.graphql), read as Apollo Server's cache-control plugin
 * reads them (lib/graphql/static-cache-policy.ts, held to the plugin by its comparison test): what a reply of each
 * subgraph's reads may be reused for. A field or type without a hint, or with maxAge 0, is not cached: what changes with
 * time rather than with a write the change log records (stories, live media, insights, publishing limits, an upload's
 * countdown), and what counts against a rate limit per call.
 */
import { readFileSync } from 'node:fs';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse, type GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { staticCachePolicy } from '../../lib/graphql/static-cache-policy.ts';

const schemaOf = (area: string): GraphQLSchema =>
  buildSubgraphSchema({ typeDefs: parse(readFileSync(new URL(`../../subgraphs/${area}/schema.graphql`, import.meta.url), 'utf8')) });

const PRIVATE_30 = { maxAge: 30, scope: 'PRIVATE' };
const UNCACHED = { maxAge: 0, scope: undefined };
/** Not cached, under a PRIVATE type (what a shared cache would need to know, were it ever cached). */
const UNCACHED_PRIVATE = { maxAge: 0, scope: 'PRIVATE' };

const CASES: Record<string, Record<string, { query: string; policy: { maxAge: number; scope: string | undefined } }>> = {
  users: {
    'a record': { query: '{ userExample(id: "1") { id name email createdAt } }', policy: PRIVATE_30 },
    'a page of records': { query: '{ userExamples(params: { page: 0, limit: 10 }) { total userExamples { id } } }', policy: PRIVATE_30 },
    'a record as an entity': {
      query: 'query($r: [_Any!]!) { _entities(representations: $r) { ... on UserExample { name } } }',
      policy: PRIVATE_30,
    },
  },
  accounts: {
    'an account and its media': {
      query:
        '{ account(id: "1") { id username followersCount media(first: 5) { nodes { id caption owner { id } } pageInfo { endCursor } } } }',
      policy: PRIVATE_30,
    },
    'a media object and its children': { query: '{ media(id: "1") { id children { nodes { id mediaUrl } } } }', policy: PRIVATE_30 },
    stories: { query: '{ account(id: "1") { stories { nodes { id } } } }', policy: UNCACHED_PRIVATE },
    'live media': { query: '{ account(id: "1") { liveMedia { nodes { id } } } }', policy: UNCACHED_PRIVATE },
    insights: { query: '{ account(id: "1") { insights(metric: ["reach"], period: "day") { data { name } } } }', policy: UNCACHED_PRIVATE },
    'the publishing limit': { query: '{ account(id: "1") { contentPublishingLimit { quotaUsage } } }', policy: UNCACHED_PRIVATE },
    'recently searched hashtags': { query: '{ account(id: "1") { recentlySearchedHashtags { id } } }', policy: UNCACHED_PRIVATE },
    'the caller': { query: '{ socialCaller { host } }', policy: UNCACHED },
  },
  comments: {
    'a comment and its replies': {
      query: '{ comment(id: "1") { id text from { id username } user { id } replies { nodes { id text } pageInfo { hasNextPage } } } }',
      policy: PRIVATE_30,
    },
    "a media object's comments (an entity fetch)": {
      query:
        'query($r: [_Any!]!) { _entities(representations: $r) { ... on Media { commentsCount comments(first: 25) { nodes { id text } } } } }',
      policy: PRIVATE_30,
    },
  },
  media: {
    "an upload's status": { query: '{ mediaUploadStatus(mediaId: "1") { mediaIdString expiresAfterSecs } }', policy: UNCACHED },
  },
};

describe.each(Object.keys(CASES))("the %s subgraph's cache hints", (area) => {
  const schema = schemaOf(area);
  for (const [name, { query, policy }] of Object.entries(CASES[area]!)) {
    it(`${name}: ${policy.maxAge ? `max-age=${policy.maxAge}, ${policy.scope!.toLowerCase()}` : 'not cached'}`, () => {
      expect(staticCachePolicy(schema, parse(query))).toEqual(policy);
    });
  }
});
