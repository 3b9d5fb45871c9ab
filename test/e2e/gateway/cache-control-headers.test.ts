import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { CREATE } from '../../support/graphql-client.ts';
import { uniqueEmail } from '../../support/user-example-fixtures.ts';

/**
 * GraphQL replies' Cache-Control from the subgraphs' `@cacheControl` hints (issue 39), as Apollo Server computes it: the
 * shortest maxAge and PRIVATE over PUBLIC of every field in the reply, `no-store` when any field is not cacheable or
 * the reply has errors. The same in both topologies: embedded, the gateway reads the hints of the subgraphs it runs;
 * distributed, each subgraph server answers its own Cache-Control and the gateway folds them together. A GET of an APQ
 * operation — what a CDN or a browser may reuse — carries the same header as its POST.
 */

const NOW = () => new Date('2026-11-02T00:00:00.000Z');
const USER = 'query User($id: UInt64!) { userExample(id: $id) { id name } }';
const ACCOUNT_DEEP = `query Deep($id: ID!) { account(id: $id) { id username media(first: 2) { nodes { id caption
  comments(first: 2) { nodes { id text from { username } replies { nodes { id text } } } } } } } }`;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

interface HeaderReply {
  status: number;
  cacheControl: string | null;
  body: any;
}

const MODES = [
  { mode: 'embedded gateway', start: () => startTestSystem({}, { now: NOW }) },
  { mode: 'distributed gateway (subgraphs over HTTP)', start: () => startDistributedTestSystem({}, { now: NOW }) },
];

describe.each(MODES)('Cache-Control on GraphQL replies through the $mode', ({ start }) => {
  let system: TestSystem;
  let f: SocialFixture;
  let userId: string;
  let userToken: string;

  async function post(query: string, variables: Record<string, unknown>, token: string, extensions?: object): Promise<HeaderReply> {
    const response = await fetch(system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables, ...(extensions && { extensions }) }),
    });
    return { status: response.status, cacheControl: response.headers.get('cache-control'), body: await response.json() };
  }

  /** An APQ GET: the hash (and variables) in the query string, as Apollo Client's persisted-queries link sends it. */
  async function getPersisted(query: string, variables: Record<string, unknown>, token: string): Promise<HeaderReply> {
    const params = new URLSearchParams({
      variables: JSON.stringify(variables),
      extensions: JSON.stringify({ persistedQuery: { version: 1, sha256Hash: sha256(query) } }),
    });
    const response = await fetch(`${system.gatewayUrl}?${params.toString()}`, {
      headers: { authorization: `Bearer ${token}`, 'apollo-require-preflight': 'true' },
    });
    return { status: response.status, cacheControl: response.headers.get('cache-control'), body: await response.json() };
  }

  beforeAll(async () => {
    system = await start();
    f = await createSocialFixture(system.database, { now: NOW });
    const input = {
      name: 'Ann Lee',
      email: uniqueEmail('cache'),
      password: '0123456789',
      phone: '13800138000',
      avatar: 'https://x.example/a.png',
      age: 30,
      gender: 'FEMALE',
    };
    const created = await post(CREATE, { input }, system.adminToken());
    userId = created.body.data.createUserExample.id;
    userToken = system.userToken(userId);
  });
  afterAll(async () => {
    await system?.close();
  });

  it("a user record: the UserExample type's hint (max-age=30, private)", async () => {
    const reply = await post(USER, { id: userId }, userToken);
    expect(reply).toEqual({
      status: 200,
      cacheControl: 'max-age=30, private',
      body: { data: { userExample: { id: userId, name: 'Ann Lee' } } },
    });
  });

  it('the same operation as an APQ GET: the same header, once its hash is registered', async () => {
    const unknown = await getPersisted(USER, { id: userId }, userToken);
    expect([unknown.status, unknown.body.errors?.[0]?.extensions?.code]).toEqual([200, 'PERSISTED_QUERY_NOT_FOUND']);
    expect(unknown.cacheControl).toBe('private, no-cache, must-revalidate');
    const registered = await post(USER, { id: userId }, userToken, { persistedQuery: { version: 1, sha256Hash: sha256(USER) } });
    expect(registered.cacheControl).toBe('max-age=30, private');
    const reply = await getPersisted(USER, { id: userId }, userToken);
    expect(reply).toEqual({
      status: 200,
      cacheControl: 'max-age=30, private',
      body: { data: { userExample: { id: userId, name: 'Ann Lee' } } },
    });
  });

  it('an account, its media, their comments and replies across three subgraphs: the shortest hint, private', async () => {
    const reply = await post(ACCOUNT_DEEP, { id: f.accounts.bluebottle }, f.tokens.own);
    expect(reply.body.errors).toBeUndefined();
    expect([reply.status, reply.cacheControl]).toEqual([200, 'max-age=30, private']);
  });

  it('a reply holding one uncached field (stories: maxAge 0) is no-store', async () => {
    const reply = await post(
      'query($id: ID!) { account(id: $id) { id stories { nodes { id } } } }',
      { id: f.accounts.bluebottle },
      f.tokens.own,
    );
    expect(reply.body.errors).toBeUndefined();
    expect([reply.status, reply.cacheControl]).toEqual([200, 'no-store']);
  });

  it('a reply holding a field whose type has no hint (the publishing limit) is no-store', async () => {
    const reply = await post(
      'query($id: ID!) { account(id: $id) { id contentPublishingLimit { quotaUsage } } }',
      { id: f.accounts.bluebottle },
      f.tokens.own,
    );
    expect(reply.body.errors).toBeUndefined();
    expect([reply.status, reply.cacheControl]).toEqual([200, 'no-store']);
  });

  it('a reply with errors is no-store (a record read without a token)', async () => {
    const response = await fetch(system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: USER, variables: { id: userId } }),
    });
    const body = (await response.json()) as { errors?: { extensions?: { code?: string } }[] };
    expect(body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('a mutation whose payload type has no hint, and a reply of __typename alone, are no-store', async () => {
    const input = {
      name: 'Bo',
      email: uniqueEmail('cache'),
      password: '0123456789',
      phone: '13800138000',
      avatar: 'https://x.example/a.png',
      age: 30,
      gender: 'MALE',
    };
    expect((await post(CREATE, { input }, system.adminToken())).cacheControl).toBe('no-store');
    expect((await post('{ __typename }', {}, userToken)).cacheControl).toBe('no-store');
  });
});
