import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPersistedQueryManifest } from '../../../lib/graphql/graphql-persisted-operations.ts';
import { createRestClient } from '../../support/rest-client.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { postJson, type JsonReply } from '../../support/graphql-client.ts';

/**
 * The persisted-operations safelist (GRAPHQL_PERSISTED_OPERATIONS, lib/graphql/graphql-persisted-operations.ts) through the front
 * door: listed operations run by id (`extensions.persistedQuery.sha256Hash` or `documentId`, POST or GET) or by their
 * exact text; in `require` mode anything else is refused before it is parsed, while the REST adapter's own generated
 * operations keep working; in `allow` mode anything else still runs.
 */

const NOW = () => new Date('2026-11-02T00:00:00.000Z');
const TYPENAME = 'query Typename { __typename }';
const USER = 'query User($id: UInt64!) { userExample(id: $id) { id name } }';
const UNLISTED = '{ __typename }';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const dir = mkdtempSync(join(tmpdir(), 'tributary-persisted-'));
const MANIFEST = join(dir, 'persisted-query-manifest.json');
writeFileSync(MANIFEST, JSON.stringify(createPersistedQueryManifest([TYPENAME, USER])));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Reply = JsonReply;
const post = postJson;

async function get(url: string, params: Record<string, string>): Promise<Reply> {
  const response = await fetch(`${url}?${new URLSearchParams(params).toString()}`, { headers: { 'apollo-require-preflight': 'true' } });
  return { status: response.status, body: await response.json() };
}

const byHash = (id: string) => ({ extensions: { persistedQuery: { version: 1, sha256Hash: id } } });
const TYPENAME_DATA: Reply = { status: 200, body: { data: { __typename: 'Query' } } };

function notInList(message: string): Reply {
  return { status: 400, body: { errors: [{ message, extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST' } }] } };
}

const REQUIRE = { GRAPHQL_PERSISTED_OPERATIONS: 'require', GRAPHQL_PERSISTED_OPERATIONS_MANIFEST: MANIFEST };
const MODES = [
  { mode: 'embedded gateway', start: () => startTestSystem(REQUIRE, { now: NOW }) },
  { mode: 'distributed gateway (subgraphs over HTTP)', start: () => startDistributedTestSystem(REQUIRE, { now: NOW }) },
];

describe.each(MODES)('GRAPHQL_PERSISTED_OPERATIONS=require through the $mode', ({ start }) => {
  let system: TestSystem;
  let f: SocialFixture;
  let userId: string;

  beforeAll(async () => {
    system = await start();
    f = await createSocialFixture(system.database, { now: NOW });
    const created = await createRestClient(system.restUrl).request('POST', '/api/v1/userExample', {
      json: {
        name: 'Ann Lee',
        email: 'ann@example.com',
        password: '0123456789',
        phone: '13800138000',
        avatar: 'https://x.example/a.png',
        age: 30,
        gender: 'FEMALE',
      },
    });
    userId = created.body.id;
  });
  afterAll(async () => {
    await system?.close();
  });

  it('runs a listed operation by its SHA-256 hash alone', async () => {
    expect(await post(system.gatewayUrl, byHash(sha256(TYPENAME)))).toEqual(TYPENAME_DATA);
  });

  it('runs a listed operation by hash with its variables', async () => {
    const reply = await post(
      system.gatewayUrl,
      { ...byHash(sha256(USER)), variables: { id: userId } },
      { authorization: `Bearer ${system.adminToken()}` },
    );
    expect(reply).toEqual({ status: 200, body: { data: { userExample: { id: userId, name: 'Ann Lee' } } } });
  });

  it('runs a listed operation by documentId, with or without the sha256: prefix', async () => {
    expect(await post(system.gatewayUrl, { documentId: sha256(TYPENAME) })).toEqual(TYPENAME_DATA);
    expect(await post(system.gatewayUrl, { documentId: `sha256:${sha256(TYPENAME)}` })).toEqual(TYPENAME_DATA);
  });

  it('runs a listed operation by hash over GET', async () => {
    expect(await get(system.gatewayUrl, { extensions: JSON.stringify(byHash(sha256(TYPENAME)).extensions) })).toEqual(TYPENAME_DATA);
    expect(await get(system.gatewayUrl, { documentId: sha256(TYPENAME) })).toEqual(TYPENAME_DATA);
  });

  it('runs the exact text of a listed operation', async () => {
    expect(await post(system.gatewayUrl, { query: TYPENAME })).toEqual(TYPENAME_DATA);
  });

  it('refuses an unlisted operation with PERSISTED_QUERY_NOT_IN_LIST', async () => {
    expect(await post(system.gatewayUrl, { query: UNLISTED })).toEqual(
      notInList('operation is not in the persisted-operations safelist: send the id of a listed operation'),
    );
  });

  it('refuses an unlisted operation sent by GET', async () => {
    expect(await get(system.gatewayUrl, { query: UNLISTED })).toEqual(
      notInList('operation is not in the persisted-operations safelist: send the id of a listed operation'),
    );
  });

  it('refuses an unknown id, and an unlisted text sent with its own hash (automatic persisted queries)', async () => {
    const unknown = sha256(UNLISTED);
    const expected = notInList(`persisted operation ${unknown} is not in the safelist`);
    expect(await post(system.gatewayUrl, byHash(unknown))).toEqual(expected);
    expect(await post(system.gatewayUrl, { query: UNLISTED, ...byHash(unknown) })).toEqual(expected);
  });

  it("still serves the REST adapter's operations, which no safelist lists", async () => {
    const rest = createRestClient(system.restUrl);
    const user = await rest.request('GET', `/api/v1/userExample/${userId}`, { token: system.adminToken() });
    expect(user.status).toBe(200);
    expect(user.body.userExample.name).toBe('Ann Lee');
    const social = await rest.request(
      'GET',
      `/v25.0/me?fields=username,media.limit(1){comments.limit(1){text}}&access_token=${f.tokens.own}`,
    );
    expect(social.status).toBe(200);
    expect(social.body.username).toBe('bluebottle');
  });
});

describe('GRAPHQL_PERSISTED_OPERATIONS=allow', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await startTestSystem({ GRAPHQL_PERSISTED_OPERATIONS: 'allow', GRAPHQL_PERSISTED_OPERATIONS_MANIFEST: MANIFEST });
  });
  afterAll(async () => {
    await system?.close();
  });

  it('runs a listed operation by hash', async () => {
    expect(await post(system.gatewayUrl, byHash(sha256(TYPENAME)))).toEqual(TYPENAME_DATA);
  });

  it('runs an unlisted operation too', async () => {
    expect(await post(system.gatewayUrl, { query: UNLISTED })).toEqual(TYPENAME_DATA);
  });

  it('answers an unknown hash as automatic persisted queries do, so the client sends the text', async () => {
    const reply = await post(system.gatewayUrl, byHash(sha256(UNLISTED)));
    expect(reply.body).toEqual({ errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] });
    expect(await post(system.gatewayUrl, { query: UNLISTED, ...byHash(sha256(UNLISTED)) })).toEqual(TYPENAME_DATA);
  });
});
