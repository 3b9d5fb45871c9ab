/**
 * The comparison test of stand-in `jit-subgraph-execution` (gateway/stand-ins/jit-subgraph-execution.ts): in each
 * topology — embedded (the subgraphs in the gateway's process) and distributed (each subgraph behind its own server,
 * subgraphs/subgraph-executor.ts) — two systems on one database, one running its subgraphs on graphql-jit and one on
 * graphql-js, must answer every operation alike — status, data, errors (messages, paths, codes), cache headers. The operations are the usual reads of every area,
 * request errors of each kind (variables refused, non-null violations, not found, forbidden), and generated documents
 * from the gateway's own schema (test/support/fuzz/graphql-document-arbitrary.ts). Only reads are generated: a mutation
 * run twice on one database is two changes. Both systems run on one frozen clock. The counters every call moves — the
 * social graph's usage figures (extensions.socialUsage), an upload rate limit's remaining calls — are compared by
 * presence only.
 */
import fc from 'fast-check';
import { buildClientSchema, getIntrospectionQuery, type IntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationArbitrary } from '../../support/fuzz/graphql-document-arbitrary.ts';
import { CREATE, GET, LIST, validInput } from '../../support/graphql-client.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { openTestDatabase, startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let jit: TestSystem;
let graphqlJs: TestSystem;
let world: SocialFixture;
let recordId: string;

const frozen = new Date();
const now = () => frozen;

beforeAll(async () => {
  database = await openTestDatabase();
  world = await createSocialFixture(database.database, { now });
});

afterAll(async () => {
  await database?.close();
});

/** Both topologies; the generated operations fewer times distributed, where each runs through five servers. */
const TOPOLOGIES = [
  { topology: 'embedded', start: startTestSystem, generatedRuns: 150 },
  { topology: 'distributed', start: startDistributedTestSystem, generatedRuns: 60 },
];

interface Reply {
  status: number;
  text: string;
  cacheControl: string | null;
  contentType: string | null;
}

async function post(system: TestSystem, body: string, token?: string): Promise<Reply> {
  const response = await fetch(system.gatewayUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token !== undefined && { authorization: `Bearer ${token}` }) },
    body,
  });
  return {
    status: response.status,
    text: await response.text(),
    cacheControl: response.headers.get('cache-control'),
    contentType: response.headers.get('content-type'),
  };
}

type Body = { extensions?: Record<string, unknown>; errors?: { extensions?: { rateLimit?: { remaining?: unknown } } }[] };

/** A reply as compared: the counters every call moves reduced to their presence. */
function comparable(reply: Reply): unknown {
  let body: Body;
  try {
    body = JSON.parse(reply.text) as Body;
  } catch {
    return reply;
  }
  if (body.extensions?.socialUsage !== undefined) body.extensions.socialUsage = 'present';
  for (const error of body.errors ?? []) {
    if (error.extensions?.rateLimit?.remaining !== undefined) error.extensions.rateLimit.remaining = 'counted';
  }
  // The gateway lists errors in the order its parallel fetches finish (two subgraphs refusing the same token race), and
  // GraphQL gives the order no meaning: compared as a set.
  body.errors?.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return { ...reply, text: undefined, body };
}

/** Asks both systems the same thing; the replies must be the same. */
async function expectSameReplies(body: string, token?: string): Promise<Reply> {
  const onJit = await post(jit, body, token);
  const onGraphqlJs = await post(graphqlJs, body, token);
  expect(comparable(onJit), body).toEqual(comparable(onGraphqlJs));
  return onJit;
}

const DEEP = `query Deep($id: ID!) { account(id: $id) { id username media(first: 25) { nodes { id caption
  comments(first: 25) { nodes { id text username hidden timestamp replies { nodes { text username } } } } } } } }`;

describe.each(TOPOLOGIES)('graphql-jit and graphql-js answer alike ($topology)', ({ topology, start, generatedRuns }) => {
  beforeAll(async () => {
    jit = await start({ STAND_IN_JIT_SUBGRAPH_EXECUTION: 'on' }, { database: database.database, now });
    graphqlJs = await start({ STAND_IN_JIT_SUBGRAPH_EXECUTION: 'off' }, { database: database.database, now });
    const created = await post(
      jit,
      JSON.stringify({ query: CREATE, variables: { input: validInput({ email: `jit-${topology}@example.com` }) } }),
      jit.adminToken(),
    );
    recordId = (JSON.parse(created.text) as { data: { createUserExample: { id: string } } }).data.createUserExample.id;
  });

  afterAll(async () => {
    await jit?.close();
    await graphqlJs?.close();
  });

  it('Area A: reads, lists, refused variables and refused input', async () => {
    const admin = jit.adminToken();
    const cases: [string, Record<string, unknown> | string, string | undefined][] = [
      [GET, { id: recordId }, admin],
      [GET, { id: '999999' }, admin],
      [GET, { id: recordId }, undefined],
      [GET, { id: recordId }, jit.userToken('424242')],
      [GET, '{"id":"abc"}', admin],
      [GET, '{"id":18446744073709551616}', admin],
      [GET, '{"id":null}', admin],
      [LIST, { params: { page: 0, limit: 10, sort: '-id' } }, admin],
      [LIST, { params: { page: 0, limit: 10, columns: [{ name: 'nope', exp: '=', value: '1' }] } }, admin],
      [CREATE, { input: validInput({ name: 'x', email: 'not-an-email', age: 500 }) }, admin],
      [CREATE, '{"input":{"name":"ab"}}', admin],
    ];
    for (const [query, variables, token] of cases) {
      const rawVariables = typeof variables === 'string' ? variables : JSON.stringify(variables);
      await expectSameReplies(`{"query":${JSON.stringify(query)},"variables":${rawVariables}}`, token);
    }
  });

  it('Areas B and C: the deep read on both hosts, comments hidden and not, and token errors', async () => {
    const deep = (id: string) => JSON.stringify({ query: DEEP, variables: { id } });
    const comment = (id: string) =>
      JSON.stringify({
        query: 'query C($id: ID!) { comment(id: $id) { id text hidden username timestamp media { id } replies { nodes { id text } } } }',
        variables: { id },
      });
    const cases: [string, string][] = [
      [deep(world.accounts.bluebottle), world.tokens.own],
      [deep(world.accounts.bluebottle), world.tokens.parent],
      [deep(world.accounts.roaster), world.tokens.roasterOwn],
      [deep(world.accounts.shady), world.tokens.own],
      [deep(world.accounts.bluebottle), world.tokens.expired],
      [deep(world.accounts.bluebottle), world.tokens.revoked],
      [comment(world.comments.fanComment), world.tokens.own],
      [comment(world.comments.hiddenComment), world.tokens.own],
      [comment(world.comments.shadyComment), world.tokens.own],
      [comment('17999999999999999'), world.tokens.own],
      [JSON.stringify({ query: '{ me { id username media(first: 3) { nodes { id comments { nodes { id } } } } } }' }), world.tokens.own],
      [JSON.stringify({ query: '{ me { id } platformUser { id } }' }), world.tokens.parent],
      // An alias graphql-jit cannot build (the stand-in leaves it to graphql-js): found by the generated operations below.
      [JSON.stringify({ query: '{ socialCaller { __proto__: subjectId constructor: host } me { toString: id } }' }), world.tokens.own],
    ];
    for (const [body, token] of cases) await expectSameReplies(body, token);
    const aliased = (JSON.parse((await post(jit, cases.at(-1)![0], world.tokens.own)).text) as { data: { socialCaller: object } }).data;
    expect(Object.entries(aliased.socialCaller).map(([key, value]) => [key, typeof value])).toEqual([
      ['__proto__', 'string'],
      ['constructor', 'string'],
    ]);
    // The deep read reaches the data, not only its errors.
    const reply = await post(jit, deep(world.accounts.bluebottle), world.tokens.own);
    expect(
      (JSON.parse(reply.text) as { data: { account: { media: { nodes: unknown[] } } } }).data.account.media.nodes.length,
    ).toBeGreaterThan(20);
  });

  it('generated read operations over the gateway’s own schema, with each kind of caller', async () => {
    const introspection = await post(jit, JSON.stringify({ query: getIntrospectionQuery() }));
    const schema = buildClientSchema((JSON.parse(introspection.text) as { data: IntrospectionQuery }).data);
    const callers = [undefined, jit.adminToken(), world.tokens.own, world.tokens.parent];
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(operationArbitrary(schema), fc.nat(callers.length - 1), async (operation, caller) => {
        if (/\bmutation\b/.test(operation.document)) return;
        compared += 1;
        const body =
          `{"query":${JSON.stringify(operation.document)}` +
          (operation.operationName === undefined ? '' : `,"operationName":${JSON.stringify(operation.operationName)}`) +
          (operation.variables === undefined ? '' : `,"variables":${operation.variables}`) +
          '}';
        await expectSameReplies(body, callers[caller]);
      }),
      { numRuns: generatedRuns },
    );
    expect(compared).toBeGreaterThan(generatedRuns * 0.4);
    // The work is bounded by the number of runs; the time it takes depends on what else the machine does.
  }, 300_000);
});
