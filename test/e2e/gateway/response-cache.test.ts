import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSocialTokens } from '../../../subgraphs/index.ts';
import { GRAPH_MESSAGES, graphErrorBody, RATE_LIMITS } from '../../support/graph-error-expectations.ts';
import { OWN_PERMISSIONS, createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * The response level of the fetch cache (gateway/fetch-cache/response-cache.ts), in both topologies: a repeated query
 * whose fetches could all be kept is answered whole — one lookup, no fetch — with the same reply; every such answer is
 * still a call of the social graph (admitted against its rate limits, its usage reported fresh, the limit's refusal in
 * the Graph's words on both doors); the viewer is checked again at every answer (a token revoked once the read is warm
 * is refused); a write evicts it.
 */

const NOW = () => new Date('2026-11-02T00:00:00.000Z');
const DEEP = `query Deep($id: ID!) {
  account(id: $id) { id username media(first: 3) { nodes { id caption comments(first: 20) { nodes { id text replies(first: 5) { nodes { text } } } } } } }
}`;
const USERS = 'query Users($params: ListParamsInput) { userExamples(params: $params) { total userExamples { id name } } }';
const COMMENT = 'mutation Comment($media: ID!, $text: String) { createMediaComment(mediaId: $media, message: $text) { id } }';
const BUSINESS_CALLS_PER_DAY = 10;

interface Lookups {
  hit: number;
  miss: number;
}

describe.each([
  ['embedded', startTestSystem],
  ['distributed', startDistributedTestSystem],
] as const)('the response level of the fetch cache, %s gateway', (_topology, start) => {
  let system: TestSystem;
  let f: SocialFixture;
  const tokens = () => createSocialTokens(system.database, NOW);
  const freshToken = () =>
    tokens().issue({ loginType: 'own', subjectId: f.accounts.bluebottle, permissions: OWN_PERMISSIONS, expiresInSeconds: 3600 });

  async function gql(query: string, variables: Record<string, unknown>, token: string): Promise<any> {
    const response = await fetch(system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    expect(response.status).toBe(200);
    return response.json();
  }

  async function lookups(): Promise<Lookups> {
    const text = await (await fetch(system.gatewayUrl.replace(/\/graphql$/, '/metrics'))).text();
    const count = (result: string) =>
      Number(new RegExp(`^tributary_gateway_cache_lookups_total\\{result="${result}"[^}]*\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 'NaN');
    return { hit: count('hit'), miss: count('miss') };
  }

  beforeAll(async () => {
    system = await start({ GATEWAY_CACHE: 'memory', SOCIAL_RATE_BUSINESS_CALLS_PER_DAY: String(BUSINESS_CALLS_PER_DAY) }, { now: NOW });
    f = await createSocialFixture(system.database, { now: NOW });
  });
  afterAll(async () => {
    await system?.close();
  });

  it('answers a repeated deep read whole: one lookup that hits, nothing fetched, the same reply', async () => {
    const token = await freshToken();
    const first = await gql(DEEP, { id: f.accounts.bluebottle }, token);
    expect(first.errors).toBeUndefined();
    expect(first.data.account.media.nodes.length).toBeGreaterThan(0);
    const before = await lookups();
    const second = await gql(DEEP, { id: f.accounts.bluebottle }, token);
    const after = await lookups();
    // The fetch level alone would look up each fetch: the root call (never kept there: a miss) and the entity lookups.
    expect(after).toEqual({ hit: before.hit + 1, miss: before.miss });
    expect(second.data).toEqual(first.data);
    // Its usage is a call's own, reported fresh, not the first reply's.
    expect(second.extensions.socialUsage.business).toEqual({
      objectId: f.accounts.bluebottle,
      usage: expect.objectContaining({ call_count: (2 * 100) / BUSINESS_CALLS_PER_DAY }),
    });
  });

  it('answers kept data byte for byte as the first reply wrote it, with the same Cache-Control', async () => {
    const admin = system.adminToken();
    const post = () =>
      fetch(system.gatewayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
        body: JSON.stringify({ query: USERS, variables: { params: { page: 0, limit: 3 } } }),
      });
    const first = await post();
    const firstText = await first.text();
    const before = await lookups();
    const second = await post();
    expect(await second.text()).toBe(firstText);
    expect(await lookups()).toEqual({ hit: before.hit + 1, miss: before.miss });
    expect(second.headers.get('cache-control')).toBe(first.headers.get('cache-control'));
    expect(JSON.parse(firstText)).toMatchObject({ data: { userExamples: { total: expect.any(String) } } });
  });

  it('counts every answer against the rate limits: the call past the limit is refused on GraphQL and on REST', async () => {
    const token = await freshToken();
    for (let call = 1; call <= BUSINESS_CALLS_PER_DAY - 1; call++) {
      const reply = await gql(DEEP, { id: f.accounts.bluebottle }, token);
      expect(reply.errors).toBeUndefined();
      expect(reply.extensions.socialUsage.business.usage.call_count).toBe((call * 100) / BUSINESS_CALLS_PER_DAY);
    }
    const rest = await fetch(`${system.restUrl}/v25.0/${f.accounts.bluebottle}?fields=id,username&access_token=${token}`);
    expect(rest.status).toBe(200);
    expect(JSON.parse(rest.headers.get('x-business-use-case-usage')!)[f.accounts.bluebottle][0]).toMatchObject({ call_count: 100 });
    const refused = await gql(DEEP, { id: f.accounts.bluebottle }, token);
    expect(refused.data).toEqual({ account: null });
    expect(refused.errors).toEqual([
      expect.objectContaining({
        message: RATE_LIMITS.business.message,
        extensions: expect.objectContaining({ code: 'RATE_LIMITED', scope: 'business' }),
      }),
    ]);
    const refusedOnRest = await fetch(`${system.restUrl}/v25.0/${f.accounts.bluebottle}?fields=id,username&access_token=${token}`);
    expect(refusedOnRest.status).toBe(400);
    expect(await refusedOnRest.json()).toEqual(graphErrorBody(RATE_LIMITS.business));
  });

  it('checks the viewer at every answer: a token revoked once its read is warm is refused, never served', async () => {
    const token = await freshToken();
    const warm = await gql(DEEP, { id: f.accounts.bluebottle }, token);
    expect(warm.errors).toBeUndefined();
    expect((await gql(DEEP, { id: f.accounts.bluebottle }, token)).data).toEqual(warm.data);
    await tokens().revoke(token);
    const refused = await gql(DEEP, { id: f.accounts.bluebottle }, token);
    expect(refused.data).toEqual({ account: null });
    expect(refused.errors).toEqual([
      expect.objectContaining({
        message: GRAPH_MESSAGES.revokedToken,
        extensions: expect.objectContaining({ code: 'UNAUTHENTICATED', reason: 'TOKEN_REVOKED' }),
      }),
    ]);
  });

  it("a new comment on one of the media is in the next read, which fetches that media's comments alone", async () => {
    const token = await freshToken();
    const read = async () => (await gql(DEEP, { id: f.accounts.bluebottle }, token)).data.account.media.nodes;
    const first = await read();
    expect(first.length).toBe(3);
    expect(await read()).toEqual(first);
    const media = first[0].id;
    const created = await gql(COMMENT, { media, text: 'Past the response level' }, token);
    expect(created.errors).toBeUndefined();
    const before = await lookups();
    const after = await read();
    expect(after[0].comments.nodes.map((node: { text: string }) => node.text)).toContain('Past the response level');
    expect(after.slice(1)).toEqual(first.slice(1));
    // The response (evicted) and the root call (never kept alone) miss; of the comments lookup, the two other media's
    // entities are kept ones and the commented one's is fetched (gateway/fetch-cache/entity-by-entity.ts).
    expect(await lookups()).toEqual({ hit: before.hit + 2, miss: before.miss + 3 });
  });
});
