import { readFileSync } from 'node:fs';
import { buildSchema } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { CREATE, createGraphqlClient, validInput } from '../../support/graphql-client.ts';
import { LONG_TEST_MS } from '../../support/hang-bounds.ts';
import { useSocialWorld, type SocialTestWorld } from '../../support/social-fixture.ts';
import {
  bubbledErrorPaths,
  deferredVariants,
  errorKeys,
  generateQuery,
  mergeParts,
  multipartParts,
  printQuery,
  withoutField,
  type GeneratedQuery,
  type QueryRoots,
} from '../../support/deferred-queries.ts';

/**
 * @defer held to the query without it (issue 41, case 3): 200 queries generated over the supergraph's API schema, and for
 * each every selection set of it deferring part of itself (test/support/deferred-queries.ts) — in one subgraph or
 * across two, at the root or deep in a page. Each deferred query, read as Apollo Client 4 reads
 * `multipart/mixed;deferSpec=20220824` (the parts merged at their paths), must give exactly the data and errors of the
 * same query without @defer: no deferred field dropped, none added, none moved. In both gateway modes.
 */

const QUERIES = 200;
const DEFER_ACCEPT = 'multipart/mixed;deferSpec=20220824';
const API_SCHEMA = buildSchema(readFileSync(new URL('../../../schema/api-schema.graphql', import.meta.url), 'utf8'));

function differential(distributed: boolean) {
  const socialWorld = useSocialWorld({ distributed });
  let world: SocialTestWorld;
  let roots: QueryRoots;
  beforeAll(async () => {
    world = socialWorld();
    const graphql = createGraphqlClient(world.system.gatewayUrl);
    for (const name of ['Ada Lovelace', 'Grace Hopper', 'Edsger Dijkstra']) {
      const created = await graphql.request(CREATE, {
        token: world.system.adminToken(),
        variables: { input: validInput({ name, email: `${name.split(' ')[0]!.toLowerCase()}@example.com` }) },
      });
      expect(created.errors).toBeUndefined();
    }
    const { fixture } = world;
    roots = {
      social: [
        'me',
        `media(id: "${fixture.posts[0]}")`,
        `comment(id: "${fixture.comments.fanComment}")`,
        `account(id: "${fixture.accounts.bluebottle}")`,
        'socialCaller',
      ],
      users: ['userExamples(params: {limit: 3})', 'userExample(id: "1")'],
    };
  });

  const post = async (query: string, credential: 'social' | 'users', accept: string) => {
    const token = credential === 'social' ? world.fixture.tokens.own : world.system.adminToken();
    const response = await fetch(world.system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${token}` },
      body: JSON.stringify({ query }),
    });
    return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
  };

  it(`merges every deferred variant of ${QUERIES} generated queries to the undeferred reply`, { timeout: LONG_TEST_MS * 4 }, async () => {
    let variants = 0;
    let streamed = 0;
    for (let seed = 1; seed <= QUERIES; seed += 1) {
      // The query and its undeferred reply; a field whose error nulls its parent is left out (bubbledErrorPaths).
      let query: GeneratedQuery = generateQuery(API_SCHEMA, roots, seed);
      let expected: { data?: unknown; errors?: unknown[] };
      for (;;) {
        const plain = printQuery(query);
        const whole = await post(plain, query.credential, 'application/json');
        expect(whole.status, `${plain}\n${whole.text}`).toBe(200);
        expected = JSON.parse(whole.text) as typeof expected;
        const bubbled = bubbledErrorPaths(expected);
        if (bubbled.length === 0) break;
        for (const path of bubbled) query = withoutField(query, path);
      }
      if (query.root.length === 0) continue;
      await Promise.all(
        deferredVariants(query, seed).map(async (variant) => {
          const reply = await post(variant.text, query.credential, DEFER_ACCEPT);
          const context = `seed ${seed}: ${variant.text}\n${reply.text}`;
          expect(reply.status, context).toBe(200);
          expect(reply.type, context).toBe('multipart/mixed; boundary="-"; deferSpec=20220824');
          const parts = multipartParts(reply.text, '-');
          expect(parts.at(-1)?.hasNext, context).toBe(false);
          const merged = mergeParts(parts);
          expect(merged.data, context).toEqual(expected.data);
          expect(errorKeys(merged.errors), context).toEqual(errorKeys(expected.errors ?? []));
          variants += 1;
          if (merged.parts > 1) streamed += 1;
        }),
      );
    }
    // The variants are many, and most of them really are split into parts (not answered whole).
    expect(variants).toBeGreaterThan(QUERIES * 2);
    expect(streamed).toBeGreaterThan(variants / 2);
  });
}

describe('@defer differential: embedded gateway', () => differential(false));
describe('@defer differential: distributed gateway', () => differential(true));
