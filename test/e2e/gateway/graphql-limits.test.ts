import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEEP_QUERY } from '../../../bench/social-deep-read.ts';
import { countTokens } from '../../../lib/graphql/graphql-operation-limits.ts';
import { TRUSTED_CALLER_HEADER } from '../../../lib/http/trusted-caller.ts';
import { createHttpExecutor } from '../../../rest-adapter/graphql-executor.ts';
import { createRestClient } from '../../support/rest-client.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { postJson, type JsonReply } from '../../support/graphql-client.ts';

/**
 * The per-operation limits of GraphQL (lib/graphql/graphql-operation-limits.ts) through the front door: real HTTP requests to the
 * gateway, in both topologies, at the default limits — each one refusing an operation just over it with HTTP 400, its
 * code and a message naming the limit and the value, and letting one exactly at it through — and the REST adapter's own
 * operations, which are exempt, working however tight the limits.
 */

const NOW = () => new Date('2026-11-02T00:00:00.000Z');
const SECRET = 'trusted-caller-secret-of-the-limits-test';

type Reply = JsonReply;
const post = postJson;

function refusal(code: string, message: string): Reply {
  return { status: 400, body: { errors: [{ message, extensions: { code } }] } };
}

/** Codes of the errors of a reply; a reply that passed the limits has none of the limits' codes. */
const codes = (reply: Reply) => ((reply.body.errors ?? []) as { extensions?: { code?: string } }[]).map((e) => e.extensions?.code);

// ---- operations at and just over each default limit ----

/** me → media → nodes → comments → nodes → media → comments → nodes → …: `levels` fields deep, one item per page. */
function nested(levels: number): string {
  const path = ['me', 'media(first: 1)', 'nodes', 'comments(first: 1)', 'nodes', 'media'];
  const fields: string[] = [];
  for (let i = 0; fields.length < levels - 1; i++)
    fields.push(i < path.length ? path[i]! : ['comments(first: 1)', 'nodes', 'media'][(i - path.length) % 3]!);
  return `{ ${fields.join(' { ')} { id }${' }'.repeat(fields.length - 1)} }`;
}
const aliases = (n: number) => `{ userExamples(params: {limit: 1}) { ${Array.from({ length: n }, (_, i) => `a${i}: total`).join(' ')} } }`;
const rootFields = (n: number) => `{ ${'__typename '.repeat(n)}}`;
/** `{ userExamples(params: {limit: 1}) { total total … } }` with exactly `n` tokens (14 around the totals). */
const tokens = (n: number) => `{ userExamples(params: {limit: 1}) { ${'total '.repeat(n - 14)}} }`;
/**
 * A document of exactly 1000 tokens that is fit to run (graphql-js refuses a thousand copies of one field while
 * validating, and a List takes at most 100 conditions): 25 tokens around the columns, 11 in each of the first 61
 * columns, 8 in each of the 38 others.
 */
const THOUSAND_TOKENS = `{ userExamples(params: {limit: 1, page: 0, sort: "id", columns: [${'{name: "id", exp: "isnotnull", logic: "and"} '.repeat(61)}${'{name: "id", exp: "isnotnull"} '.repeat(38)}]}) { total } }`;
/** Costs 2 + 2n: me (1) × (1 + media n × (1 + nodes 1)), plus userExamples (1). */
const COST = 'query Cost($n: Int) { me { media(first: $n) { nodes { id } } } userExamples(params: {limit: 1}) { total } }';

const MODES = [
  { mode: 'embedded gateway', start: () => startTestSystem({ GRAPHQL_TRUSTED_CALLER_SECRET: SECRET }, { now: NOW }) },
  {
    mode: 'distributed gateway (subgraphs over HTTP)',
    start: () => startDistributedTestSystem({ GRAPHQL_TRUSTED_CALLER_SECRET: SECRET }, { now: NOW }),
  },
];

describe.each(MODES)('the default limits through the $mode', ({ start }) => {
  let system: TestSystem;
  let f: SocialFixture;
  let admin: string;

  beforeAll(async () => {
    system = await start();
    f = await createSocialFixture(system.database, { now: NOW });
    admin = system.adminToken();
  });
  afterAll(async () => {
    await system?.close();
  });

  it('refuses an operation 13 fields deep with MAX_DEPTH_LIMIT', async () => {
    expect(await post(system.gatewayUrl, { query: nested(13) }, { authorization: `Bearer ${f.tokens.own}` })).toEqual(
      refusal('MAX_DEPTH_LIMIT', 'operation depth 13 exceeds the limit of 12'),
    );
  });

  it('runs an operation 12 fields deep', async () => {
    const reply = await post(system.gatewayUrl, { query: nested(12) }, { authorization: `Bearer ${f.tokens.own}` });
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.me.media.nodes).toHaveLength(1);
  });

  it('refuses 31 aliases with MAX_ALIASES_LIMIT', async () => {
    expect(await post(system.gatewayUrl, { query: aliases(31) }, { authorization: `Bearer ${admin}` })).toEqual(
      refusal('MAX_ALIASES_LIMIT', 'operation uses 31 aliases, more than the limit of 30'),
    );
  });

  it('runs 30 aliases', async () => {
    const reply = await post(system.gatewayUrl, { query: aliases(30) }, { authorization: `Bearer ${admin}` });
    expect(reply).toEqual({
      status: 200,
      body: { data: { userExamples: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`a${i}`, '0'])) } },
    });
  });

  it('refuses 21 root fields with MAX_ROOT_FIELDS_LIMIT', async () => {
    expect(await post(system.gatewayUrl, { query: rootFields(21) })).toEqual(
      refusal('MAX_ROOT_FIELDS_LIMIT', 'operation selects 21 root fields, more than the limit of 20'),
    );
  });

  it('runs 20 root fields', async () => {
    expect(await post(system.gatewayUrl, { query: rootFields(20) })).toEqual({ status: 200, body: { data: { __typename: 'Query' } } });
  });

  it('refuses a document of 1001 tokens with MAX_TOKENS_LIMIT, before parsing it, every time it comes (its count is kept)', async () => {
    expect(countTokens(tokens(1001), Infinity)).toBe(1001);
    for (let i = 0; i < 3; i++) {
      expect(await post(system.gatewayUrl, { query: tokens(1001) }, { authorization: `Bearer ${admin}` })).toEqual(
        refusal('MAX_TOKENS_LIMIT', 'document exceeds the limit of 1000 tokens'),
      );
    }
  });

  it('refuses a document of 1001 tokens sent by GET too', async () => {
    const response = await fetch(`${system.gatewayUrl}?query=${encodeURIComponent(tokens(1001))}`, {
      headers: { 'apollo-require-preflight': 'true', authorization: `Bearer ${admin}` },
    });
    expect({ status: response.status, body: await response.json() }).toEqual(
      refusal('MAX_TOKENS_LIMIT', 'document exceeds the limit of 1000 tokens'),
    );
  });

  it('runs a document of 1000 tokens', async () => {
    expect(countTokens(THOUSAND_TOKENS, Infinity)).toBe(1000);
    expect(await post(system.gatewayUrl, { query: THOUSAND_TOKENS }, { authorization: `Bearer ${admin}` })).toEqual({
      status: 200,
      body: { data: { userExamples: { total: '0' } } },
    });
  });

  it('refuses an estimated cost of 50002 with COST_ESTIMATED_TOO_EXPENSIVE, reading `first` from the variables', async () => {
    expect(await post(system.gatewayUrl, { query: COST, variables: { n: 25_000 } })).toEqual(
      refusal('COST_ESTIMATED_TOO_EXPENSIVE', "operation's estimated cost 50002 exceeds the limit of 50000"),
    );
  });

  it('runs an operation whose estimated cost is exactly 50000', async () => {
    const reply = await post(system.gatewayUrl, { query: COST, variables: { n: 24_999 } });
    expect(reply.status).toBe(200);
    // Refused by the services for want of tokens, which shows it got past the limits to execution.
    expect(codes(reply)).toEqual(['UNAUTHENTICATED', 'UNAUTHENTICATED']);
  });

  it("runs the bench's deep read (25 posts × 25 comments × their replies) at the default limits", async () => {
    const reply = await post(
      system.gatewayUrl,
      { query: DEEP_QUERY, operationName: 'Deep', variables: { id: f.accounts.bluebottle } },
      { authorization: `Bearer ${f.tokens.own}` },
    );
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.account.media.nodes.length).toBeGreaterThan(0);
  });

  it("runs Sandbox's introspection query (introspection is on outside production)", async () => {
    const reply = await post(system.gatewayUrl, { query: getIntrospectionQuery() });
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.__schema.queryType.name).toBe('Query');
  });

  it('lets a request bearing the trusted-caller secret past every limit, and one with a wrong secret not', async () => {
    const deep = { query: nested(13) };
    const trusted = await post(system.gatewayUrl, deep, { authorization: `Bearer ${f.tokens.own}`, [TRUSTED_CALLER_HEADER]: SECRET });
    expect(trusted.status).toBe(200);
    expect(trusted.body.errors).toBeUndefined();
    expect(await post(system.gatewayUrl, deep, { [TRUSTED_CALLER_HEADER]: `${SECRET}!` })).toEqual(
      refusal('MAX_DEPTH_LIMIT', 'operation depth 13 exceeds the limit of 12'),
    );
  });

  it("serves the REST adapter's expansions deeper than the limits (its operations are its own)", async () => {
    // Nine levels of `fields` nesting: a GraphQL document 15 fields deep.
    const fields = 'media.limit(1){comments.limit(1){media{comments.limit(1){media{comments.limit(1){media{comments.limit(1){text}}}}}}}}';
    const reply = await createRestClient(system.restUrl).request(
      'GET',
      `/v25.0/me?fields=${encodeURIComponent(fields)}&access_token=${f.tokens.own}`,
    );
    expect(reply.status).toBe(200);
    expect(reply.body.media.data).toHaveLength(1);
  });
});

describe('limits of the subgraph servers (distributed topology, GRAPHQL_TRUSTED_CALLER_SECRET set)', () => {
  let system: TestSystem;
  let f: SocialFixture;

  beforeAll(async () => {
    system = await startDistributedTestSystem({ GRAPHQL_TRUSTED_CALLER_SECRET: SECRET, GRAPHQL_MAX_DEPTH: '4' }, { now: NOW });
    f = await createSocialFixture(system.database, { now: NOW });
  });
  afterAll(async () => {
    await system?.close();
  });

  const accountsUrl = () => system.config.gateway.subgraphUrls.accounts!;
  const deep = '{ me { media(first: 1) { nodes { owner { username } } } } }';

  it('refuses a direct caller over a limit, as the gateway does', async () => {
    const expected = refusal('MAX_DEPTH_LIMIT', 'operation depth 5 exceeds the limit of 4');
    expect(await post(accountsUrl(), { query: deep }, { authorization: `Bearer ${f.tokens.own}` })).toEqual(expected);
    expect(await post(system.gatewayUrl, { query: deep }, { authorization: `Bearer ${f.tokens.own}` })).toEqual(expected);
  });

  it('refuses a direct caller over the token limit', async () => {
    expect(await post(accountsUrl(), { query: tokens(1001) })).toEqual(
      refusal('MAX_TOKENS_LIMIT', 'document exceeds the limit of 1000 tokens'),
    );
  });

  it("serves the gateway's fetches for operations deeper than the limit (the REST adapter's)", async () => {
    const fields = 'media.limit(1){comments.limit(1){replies{text,username}},owner{username}}';
    const reply = await createRestClient(system.restUrl).request(
      'GET',
      `/v25.0/me?fields=${encodeURIComponent(fields)}&access_token=${f.tokens.own}`,
    );
    expect(reply.status).toBe(200);
    expect(reply.body.media.data).toHaveLength(1);
  });

  it('serves a direct caller bearing the secret', async () => {
    const reply = await post(accountsUrl(), { query: deep }, { authorization: `Bearer ${f.tokens.own}`, [TRUSTED_CALLER_HEADER]: SECRET });
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toBeUndefined();
  });
});

describe('the REST adapter over HTTP (GATEWAY_URL) and body sizes, with tight limits', () => {
  let system: TestSystem;
  let f: SocialFixture;
  const gatewayBase = () => system.gatewayUrl.replace(/\/graphql$/, '');
  const query = 'query Deep($id: ID!) { account(id: $id) { media(first: 1) { nodes { comments(first: 1) { nodes { text } } } } } }';

  beforeAll(async () => {
    system = await startTestSystem(
      { GRAPHQL_TRUSTED_CALLER_SECRET: SECRET, GRAPHQL_MAX_DEPTH: '2', GRAPHQL_MAX_TOKENS: '10', GRAPHQL_BODY_LIMIT_BYTES: '4096' },
      { now: NOW },
    );
    f = await createSocialFixture(system.database, { now: NOW });
  });
  afterAll(async () => {
    await system?.close();
  });

  it('serves Area A and the social graph through the adapter in-process whatever the limits', async () => {
    const rest = createRestClient(system.restUrl);
    const created = await rest.request('POST', '/api/v1/userExample', {
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
    expect(created.status).toBe(200);
    const read = await rest.request('GET', `/api/v1/userExample/${created.body.id}`, { token: system.adminToken() });
    expect(read.status).toBe(200);
    expect(read.body.userExample.name).toBe('Ann Lee');
    const social = await rest.request(
      'GET',
      `/v25.0/me?fields=username,media.limit(1){comments.limit(1){text}}&access_token=${f.tokens.own}`,
    );
    expect(social.status).toBe(200);
  });

  it("passes the adapter's operations sent over HTTP with the secret", async () => {
    const reply = await createHttpExecutor(gatewayBase(), undefined, SECRET).execute({
      query,
      operationName: 'Deep',
      variables: { id: f.accounts.bluebottle },
      headers: { authorization: `Bearer ${f.tokens.own}` },
    });
    expect(reply.errors).toBeUndefined();
    expect(reply.data).toEqual({ account: { media: { nodes: [expect.objectContaining({ comments: expect.any(Object) })] } } });
  });

  it('holds the adapter to the limits over HTTP without the secret', async () => {
    const reply = await createHttpExecutor(gatewayBase()).execute({ query, operationName: 'Deep', variables: { id: '1' }, headers: {} });
    expect(reply).toEqual({ errors: [{ message: 'document exceeds the limit of 10 tokens', extensions: { code: 'MAX_TOKENS_LIMIT' } }] });
  });

  it('refuses a JSON body over GRAPHQL_BODY_LIMIT_BYTES with 413', async () => {
    const response = await fetch(system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ __typename }${' '.repeat(5000)}` }),
    });
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 413,
      body: { errors: [{ message: 'request body exceeds the limit of 4096 bytes', extensions: { code: 'BAD_REQUEST' } }] },
    });
  });

  it('refuses a multipart operations field over GRAPHQL_BODY_LIMIT_BYTES with 413', async () => {
    const form = new FormData();
    form.append('operations', JSON.stringify({ query: `{ __typename }${' '.repeat(5000)}` }));
    form.append('map', '{}');
    const response = await fetch(system.gatewayUrl, { method: 'POST', headers: { 'apollo-require-preflight': 'true' }, body: form });
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 413,
      body: {
        errors: [
          { message: 'The ‘operations’ multipart field value exceeds the 4096 byte size limit.', extensions: { code: 'BAD_REQUEST' } },
        ],
      },
    });
  });

  it("bounds a GET query string by Node's header limit (431)", async () => {
    const response = await fetch(`${system.gatewayUrl}?query=${encodeURIComponent(`{ __typename }${' '.repeat(17_000)}`)}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(response.status).toBe(431);
  });
});
