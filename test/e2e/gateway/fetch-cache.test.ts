import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.ts';
import { freePort } from '../../support/free-port.ts';
import { CREATE } from '../../support/graphql-client.ts';
import { createUserExampleGrpcClient, type UserExampleGrpcClient } from '../../support/grpc-user-client.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { uniqueEmail } from '../../support/user-example-fixtures.ts';

/**
 * The gateway's fetch cache (GATEWAY_CACHE=memory, issue 39) through the front doors, embedded topology: a repeated read
 * is answered from the cache (the lookups metric says so); a write through the gateway — GraphQL or REST — is seen by
 * the next read at once (its reply waits until the change log's change reached the cache); a write that does not pass
 * the gateway (gRPC) is seen once the change log's follower applied it; a viewer never gets a reply cached for another.
 */

const NOW = () => new Date('2026-11-02T00:00:00.000Z');
const USER = 'query User($id: UInt64!) { userExample(id: $id) { id name } }';
const UPDATE = 'mutation Update($id: UInt64!, $input: UpdateUserExampleInput!) { updateUserExample(id: $id, input: $input) { id } }';
const POST_COMMENTS = `query Post($id: ID!) { account(id: $id) { media(first: 1) { nodes { id comments(first: 50) { nodes { id text } } } } } }`;
const COMMENT = 'mutation Comment($media: ID!, $text: String) { createMediaComment(mediaId: $media, message: $text) { id } }';

interface Lookups {
  hit: number;
  miss: number;
  shared: number;
}

describe('the fetch cache, embedded gateway', () => {
  let system: TestSystem;
  let f: SocialFixture;
  let grpc: UserExampleGrpcClient;

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
    return { hit: count('hit'), miss: count('miss'), shared: count('shared') };
  }

  async function createRecord(name: string): Promise<{ id: string; token: string }> {
    const input = {
      name,
      email: uniqueEmail('fetch-cache'),
      password: '0123456789',
      phone: '13800138000',
      avatar: 'https://x.example/a.png',
      age: 30,
      gender: 'FEMALE',
    };
    const created = await gql(CREATE, { input }, system.adminToken());
    const id: string = created.data.createUserExample.id;
    return { id, token: system.userToken(id) };
  }

  beforeAll(async () => {
    system = await startTestSystem({ GATEWAY_CACHE: 'memory' }, { now: NOW });
    f = await createSocialFixture(system.database, { now: NOW });
    grpc = createUserExampleGrpcClient(system.grpcAddress);
  });
  afterAll(async () => {
    grpc?.close();
    await system?.close();
  });

  it('answers a repeated read from the cache: one miss, then hits, the same reply', async () => {
    const { id, token } = await createRecord('Cached Once');
    const before = await lookups();
    const first = await gql(USER, { id }, token);
    const afterFirst = await lookups();
    const second = await gql(USER, { id }, token);
    const third = await gql(USER, { id }, token);
    const afterThird = await lookups();
    expect(first).toEqual({ data: { userExample: { id, name: 'Cached Once' } } });
    expect([second, third]).toEqual([first, first]);
    expect(afterFirst.miss - before.miss).toBe(1);
    expect(afterFirst.hit - before.hit).toBe(0);
    expect(afterThird.hit - afterFirst.hit).toBe(2);
  });

  it('a write through the gateway (GraphQL, then REST) is in the very next read', async () => {
    const { id, token } = await createRecord('Before Write');
    await gql(USER, { id }, token);
    expect((await gql(USER, { id }, token)).data.userExample.name).toBe('Before Write');
    const updated = await gql(UPDATE, { id, input: { name: 'After GraphQL' } }, token);
    expect(updated.errors).toBeUndefined();
    expect((await gql(USER, { id }, token)).data.userExample.name).toBe('After GraphQL');

    const put = await fetch(`${system.restUrl}/api/v1/userExample/${id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'After REST' }),
    });
    expect(put.status).toBe(200);
    expect((await gql(USER, { id }, token)).data.userExample.name).toBe('After REST');
  });

  it('a write that does not pass the gateway (gRPC) is seen once the change log reaches the cache', async () => {
    const { id, token } = await createRecord('Before gRPC');
    await gql(USER, { id }, token);
    const hitsBefore = (await lookups()).hit;
    expect((await gql(USER, { id }, token)).data.userExample.name).toBe('Before gRPC');
    expect((await lookups()).hit).toBe(hitsBefore + 1);
    await grpc.call('UpdateByID', { id, name: 'After gRPC' }, { authorization: `Bearer ${token}` });
    await eventually(
      async () => (await gql(USER, { id }, token)).data.userExample.name === 'After gRPC',
      'the gRPC write read through the gateway',
    );
  });

  it('shares a record read between signed-in users (sponge lets every one read every record), never with a bad token', async () => {
    const { id } = await createRecord('Shared Record');
    const other = await createRecord('Someone Else');
    expect((await gql(USER, { id }, system.adminToken())).data.userExample.name).toBe('Shared Record');
    const before = await lookups();
    expect((await gql(USER, { id }, other.token)).data.userExample.name).toBe('Shared Record');
    expect((await lookups()).hit - before.hit).toBe(1);
    const forged = await gql(USER, { id }, `${other.token.slice(0, -4)}AAAA`);
    expect(forged.data).toEqual({ userExample: null });
    expect(forged.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it("caches the comments of an account's media (an entity fetch) and shows a new comment in the next read", async () => {
    const read = async () => (await gql(POST_COMMENTS, { id: f.accounts.bluebottle }, f.tokens.own)).data.account.media.nodes[0];
    const first = await read();
    const before = await lookups();
    const again = await read();
    expect(again).toEqual(first);
    expect((await lookups()).hit - before.hit).toBeGreaterThanOrEqual(1);
    const created = await gql(COMMENT, { media: first.id, text: 'Fresh from the cache test' }, f.tokens.own);
    expect(created.errors).toBeUndefined();
    const after = await read();
    expect(after.comments.nodes.map((node: { text: string }) => node.text)).toContain('Fresh from the cache test');
  });
});

describe('the change log position, two gateway instances sharing one database', () => {
  let first: TestSystem;
  let second: TestSystem;

  async function gqlOn(system: TestSystem, query: string, variables: Record<string, unknown>, headers: Record<string, string>) {
    const response = await fetch(system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, position: response.headers.get('tributary-log-position'), body: (await response.json()) as any };
  }

  beforeAll(async () => {
    first = await startTestSystem({ GATEWAY_CACHE: 'memory' }, { now: NOW });
    // The second instance hears no NOTIFY and polls the log once a minute: only a presented position makes it catch up.
    const deaf = { ...first.database, listen: async () => async () => undefined };
    second = await startTestSystem({ GATEWAY_CACHE: 'memory', GATEWAY_CACHE_POLL_MS: '60000' }, { now: NOW, database: deaf });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it("a write's reply carries its position; the other instance, presented it, reads the write", async () => {
    const admin = { authorization: `Bearer ${first.adminToken()}` };
    const input = {
      name: 'Two Instances',
      email: uniqueEmail('position'),
      password: '0123456789',
      phone: '13800138000',
      avatar: 'https://x.example/a.png',
      age: 30,
      gender: 'FEMALE',
    };
    const created = await gqlOn(first, CREATE, { input }, admin);
    const id: string = created.body.data.createUserExample.id;
    expect(created.position).toMatch(/^[1-9][0-9]*$/);
    // The second instance caches the record as it is now.
    expect((await gqlOn(second, USER, { id }, admin)).body.data.userExample.name).toBe('Two Instances');
    expect((await gqlOn(second, USER, { id }, admin)).body.data.userExample.name).toBe('Two Instances');
    const updated = await gqlOn(first, UPDATE, { id, input: { name: 'Written On First' } }, admin);
    expect(updated.body.errors).toBeUndefined();
    expect(BigInt(updated.position!)).toBeGreaterThan(BigInt(created.position!));
    // Without the position, the deaf instance still answers from its cache (what the position is for).
    expect((await gqlOn(second, USER, { id }, admin)).body.data.userExample.name).toBe('Two Instances');
    const read = await gqlOn(second, USER, { id }, { ...admin, 'tributary-log-position': updated.position! });
    expect(read).toEqual({ status: 200, position: null, body: { data: { userExample: { id, name: 'Written On First' } } } });
  });

  it('REST: a PUT answers its position; a GET on the other instance presenting it reads the write; a bad one is INVALID_ARGUMENT', async () => {
    const admin = { authorization: `Bearer ${first.adminToken()}` };
    const input = {
      name: 'Over REST',
      email: uniqueEmail('rest-position'),
      password: '0123456789',
      phone: '13800138000',
      avatar: 'https://x.example/a.png',
      age: 30,
      gender: 'FEMALE',
    };
    const id: string = (await gqlOn(first, CREATE, { input }, admin)).body.data.createUserExample.id;
    const get = (headers: Record<string, string>) =>
      fetch(`${second.restUrl}/api/v1/userExample/${id}`, { headers: { ...admin, ...headers } });
    expect(((await (await get({})).json()) as any).userExample.name).toBe('Over REST');
    const put = await fetch(`${first.restUrl}/api/v1/userExample/${id}`, {
      method: 'PUT',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Put On First' }),
    });
    expect(put.status).toBe(200);
    const position = put.headers.get('tributary-log-position');
    expect(position).toMatch(/^[1-9][0-9]*$/);
    expect(((await (await get({})).json()) as any).userExample.name).toBe('Over REST');
    expect(((await (await get({ 'tributary-log-position': position! })).json()) as any).userExample.name).toBe('Put On First');
    const bad = await get({ 'tributary-log-position': 'yesterday' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      code: 3,
      message:
        "tributary-log-position must be a change-log position as a write's reply gave it: a decimal integer from 0 to 9223372036854775807.",
      details: [],
    });
  });

  it("gRPC: a write through the deaf instance's own gRPC door is in its next read (the reply waited for its changes)", async () => {
    const admin = { authorization: `Bearer ${second.adminToken()}` };
    const input = {
      name: 'Before gRPC',
      email: uniqueEmail('grpc-position'),
      password: '0123456789',
      phone: '13800138000',
      avatar: 'https://x.example/a.png',
      age: 30,
      gender: 'FEMALE',
    };
    const id: string = (await gqlOn(second, CREATE, { input }, admin)).body.data.createUserExample.id;
    expect((await gqlOn(second, USER, { id }, admin)).body.data.userExample.name).toBe('Before gRPC');
    const client = createUserExampleGrpcClient(second.grpcAddress);
    try {
      await client.call('UpdateByID', { id, name: 'After gRPC' }, { authorization: admin.authorization });
    } finally {
      client.close();
    }
    expect((await gqlOn(second, USER, { id }, admin)).body.data.userExample.name).toBe('After gRPC');
  });

  it("Graph REST: a comment's POST answers its position; the other instance, presented it, lists the comment", async () => {
    const social = await createSocialFixture(first.database, { now: NOW });
    const thread = await social.newCommentThread();
    const token = social.tokens.own;
    const comments = (system: TestSystem, headers: Record<string, string> = {}) =>
      fetch(`${system.restUrl}/v25.0/${thread.post}?fields=comments{text}&access_token=${token}`, { headers }).then(async (reply) => ({
        status: reply.status,
        texts: ((await reply.json()) as any).comments.data.map((c: { text: string }) => c.text),
      }));
    const before = await comments(second);
    expect(before.status).toBe(200);
    const posted = await fetch(`${first.restUrl}/v25.0/${thread.post}/comments?message=Posted%20on%20first&access_token=${token}`, {
      method: 'POST',
    });
    expect(posted.status).toBe(200);
    const position = posted.headers.get('tributary-log-position');
    expect(position).toMatch(/^[1-9][0-9]*$/);
    // The deaf instance still lists the comments it cached; presented the position, it lists the new one.
    expect((await comments(second)).texts).toEqual(before.texts);
    expect((await comments(second, { 'tributary-log-position': position! })).texts).toContain('Posted on first');
    const bad = await fetch(`${second.restUrl}/v25.0/${thread.post}?fields=id&access_token=${token}`, {
      headers: { 'tributary-log-position': '-5' },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error).toMatchObject({ code: 100, type: 'OAuthException' });
  });

  it.each([
    ['not a number', 'abc'],
    ['negative', '-1'],
    ['a leading zero', '007'],
    ['past 2^63 − 1', '9223372036854775808'],
    ['huge', '9'.repeat(400)],
  ])('a malformed position (%s) is a request error, never a wait', async (_, position) => {
    const reply = await gqlOn(
      first,
      USER,
      { id: '1' },
      { authorization: `Bearer ${first.adminToken()}`, 'tributary-log-position': position },
    );
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      errors: [
        {
          message:
            "tributary-log-position must be a change-log position as a write's reply gave it: a decimal integer from 0 to 9223372036854775807.",
          extensions: { code: 'BAD_USER_INPUT' },
        },
      ],
    });
  });

  it('a position past the end of the log is a request error after one catch-up', async () => {
    const reply = await gqlOn(
      first,
      USER,
      { id: '1' },
      { authorization: `Bearer ${first.adminToken()}`, 'tributary-log-position': '9223372036854775807' },
    );
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0]).toEqual({
      message: "tributary-log-position 9223372036854775807 is past the end of the change log: send the position a write's reply gave.",
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });
});

describe('the fetch cache off (GATEWAY_CACHE=off)', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await startTestSystem({ GATEWAY_CACHE: 'off' });
  });
  afterAll(async () => {
    await system?.close();
  });

  it('keeps nothing and reports no lookups', async () => {
    const text = await (await fetch(system.gatewayUrl.replace(/\/graphql$/, '/metrics'))).text();
    expect(text).not.toMatch(/^tributary_gateway_cache_lookups_total\{/m);
  });

  it('ignores a log position, well formed or not, and gives none with a write', async () => {
    const reply = await fetch(system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${system.adminToken()}`, 'tributary-log-position': 'abc' },
      body: JSON.stringify({ query: UPDATE, variables: { id: '1', input: { name: 'x' } } }),
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('tributary-log-position')).toBeNull();
    expect(((await reply.json()) as any).errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('the shared level unreachable (GATEWAY_CACHE=redis, nothing listening at REDIS_URL)', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await startTestSystem({ GATEWAY_CACHE: 'redis', REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
  });
  afterAll(async () => {
    await system?.close();
  });

  it('serves from the local level, never an error: the shared lookups are counted as errors', async () => {
    const admin = `Bearer ${system.adminToken()}`;
    const post = async (query: string, variables: Record<string, unknown>) => {
      const response = await fetch(system.gatewayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: admin },
        body: JSON.stringify({ query, variables }),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as any;
    };
    const input = {
      name: 'No Redis',
      email: uniqueEmail('no-redis'),
      password: '0123456789',
      phone: '13800138000',
      avatar: 'https://x.example/a.png',
      age: 30,
      gender: 'FEMALE',
    };
    const id: string = (await post(CREATE, { input })).data.createUserExample.id;
    expect(await post(USER, { id })).toEqual({ data: { userExample: { id, name: 'No Redis' } } });
    expect(await post(USER, { id })).toEqual({ data: { userExample: { id, name: 'No Redis' } } });
    const text = await (await fetch(system.gatewayUrl.replace(/\/graphql$/, '/metrics'))).text();
    const count = (name: string, result: string) =>
      Number(new RegExp(`^${name}\\{result="${result}"[^}]*\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 'NaN');
    expect(count('tributary_gateway_cache_lookups_total', 'hit')).toBe(1);
    expect(count('tributary_gateway_cache_shared_lookups_total', 'error')).toBeGreaterThanOrEqual(1);
    expect(count('tributary_gateway_cache_shared_lookups_total', 'hit')).toBe(0);
  });
});
