import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATE } from '../../support/graphql-client.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startDistributedTestSystem, type TestSystem } from '../../support/test-system.ts';
import { uniqueEmail } from '../../support/user-example-fixtures.ts';

/**
 * The fetch cache in the distributed topology (GATEWAY_CACHE=memory in the gateway process): the gateway follows the
 * subgraphs' database's change log and keys replies with the subgraphs' own viewer rules (subgraphs/cache-viewing.ts).
 * The same behaviour as embedded (fetch-cache.test.ts): a repeated read is a hit with the same reply and the same
 * Cache-Control; a write through the gateway is in the next read and its reply carries its position; an entity fetch of
 * a social subgraph is kept and a new comment evicts it; a bad token is never served from the cache.
 */

const NOW = () => new Date('2026-11-02T00:00:00.000Z');
const USER = 'query User($id: UInt64!) { userExample(id: $id) { id name } }';
const UPDATE = 'mutation Update($id: UInt64!, $input: UpdateUserExampleInput!) { updateUserExample(id: $id, input: $input) { id } }';
const COMMENTS = 'query Comments($id: ID!) { media(id: $id) { id comments(first: 100) { nodes { id text } } } }';
const COMMENT = 'mutation Comment($media: ID!, $text: String) { createMediaComment(mediaId: $media, message: $text) { id } }';

describe('the fetch cache, distributed gateway', () => {
  let system: TestSystem;
  let f: SocialFixture;

  async function gql(query: string, variables: Record<string, unknown>, token: string) {
    const response = await fetch(system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    return {
      status: response.status,
      cacheControl: response.headers.get('cache-control'),
      position: response.headers.get('tributary-log-position'),
      body: (await response.json()) as any,
    };
  }

  async function hits(): Promise<number> {
    const text = await (await fetch(system.gatewayUrl.replace(/\/graphql$/, '/metrics'))).text();
    return Number(/^tributary_gateway_cache_lookups_total\{result="hit"[^}]*\} (\d+)$/m.exec(text)?.[1] ?? 'NaN');
  }

  beforeAll(async () => {
    system = await startDistributedTestSystem({ GATEWAY_CACHE: 'memory' }, { now: NOW });
    f = await createSocialFixture(system.database, { now: NOW });
  });
  afterAll(async () => {
    await system?.close();
  });

  it('a repeated record read is a hit with the same reply and Cache-Control; a write is in the next read', async () => {
    const admin = system.adminToken();
    const input = {
      name: 'Distributed',
      email: uniqueEmail('dist-cache'),
      password: '0123456789',
      phone: '13800138000',
      avatar: 'https://x.example/a.png',
      age: 30,
      gender: 'FEMALE',
    };
    const id: string = (await gql(CREATE, { input }, admin)).body.data.createUserExample.id;
    const first = await gql(USER, { id }, admin);
    const before = await hits();
    const second = await gql(USER, { id }, admin);
    expect(await hits()).toBe(before + 1);
    expect(second).toEqual(first);
    expect(second).toEqual({
      status: 200,
      cacheControl: 'max-age=30, private',
      position: null,
      body: { data: { userExample: { id, name: 'Distributed' } } },
    });
    const updated = await gql(UPDATE, { id, input: { name: 'Distributed, Updated' } }, admin);
    expect(updated.body.errors).toBeUndefined();
    expect(updated.position).toMatch(/^[1-9][0-9]*$/);
    expect((await gql(USER, { id }, admin)).body.data.userExample.name).toBe('Distributed, Updated');
    const forged = await gql(USER, { id }, `${admin.slice(0, -4)}AAAA`);
    expect(forged.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it("a media object's comments (an entity fetch of the comments subgraph) are kept; a new comment is in the next read", async () => {
    const post = f.posts[0]!;
    const read = async () =>
      (await gql(COMMENTS, { id: post }, f.tokens.own)).body.data.media.comments.nodes.map((node: { text: string }) => node.text);
    const first = await read();
    const before = await hits();
    expect(await read()).toEqual(first);
    expect(await hits()).toBeGreaterThan(before);
    const created = await gql(COMMENT, { media: post, text: 'Through the fleet' }, f.tokens.own);
    expect(created.body.errors).toBeUndefined();
    expect(await read()).toContain('Through the fleet');
  });
});
