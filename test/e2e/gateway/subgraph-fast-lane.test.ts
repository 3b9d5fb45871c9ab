/**
 * A subgraph server's fast lane (stand-in `operation-fast-lane` in front of its compiled executor,
 * subgraphs/subgraph-server.ts) answers a repeated document exactly as the subgraph's Apollo Server pipeline does: each
 * case asked of a subgraph server of a distributed system through the fast path until the document is known, then once
 * more (the lane's turn, counted in the subgraph's tributary_graphql_fast_lane_requests_total), and through the Express
 * route, and the replies compared — the gateway's fetches (entity lookups), the social graph's usage in extensions,
 * errors the pipeline formats, refusals, and a mutation that must run once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRUSTED_CALLER_HEADER } from '../../../lib/http/trusted-caller.ts';
import { askLaneAndPipeline, fastLaneCounts, type LaneOutcome } from '../../support/fast-path-cases.ts';
import { CREATE, GET, postForReply } from '../../support/graphql-client.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { uniqueEmail } from '../../support/user-example-fixtures.ts';
import { startDistributedTestSystem, type TestSystem, STAND_INS_ON } from '../../support/test-system.ts';

const TRUSTED_SECRET = 'a-trusted-caller-secret-of-at-least-32-characters';

type Name = 'users' | 'comments' | 'accounts';

let system: TestSystem;
let admin: Record<string, string>;
let recordId: string;
let fixture: SocialFixture;

const subgraphUrl = (name: Name) => system.subgraphs![name]!.subgraphUrls[name]!;
const query = (text: string, extra: Record<string, unknown> = {}) => JSON.stringify({ query: text, ...extra });
const trusted = { [TRUSTED_CALLER_HEADER]: TRUSTED_SECRET };

beforeAll(async () => {
  system = await startDistributedTestSystem({
    ...STAND_INS_ON,
    GRAPHQL_TRUSTED_CALLER_SECRET: TRUSTED_SECRET,
    SOCIAL_RATE_BUSINESS_CALLS_PER_DAY: '100000',
  });
  admin = { authorization: `Bearer ${system.adminToken()}` };
  fixture = await createSocialFixture(system.database);
  const created = await postForReply(system.gatewayUrl, query(CREATE, { variables: { input: newRecord() } }), admin);
  recordId = (JSON.parse(created.body) as { data: { createUserExample: { id: string } } }).data.createUserExample.id;
});

afterAll(async () => {
  await system?.close();
});

const ENTITIES = 'query($representations:[_Any!]!){_entities(representations:$representations){...on UserExample{id name}}}';
const COST = 'query Media($id: ID!, $n: Int) { account(id: $id) { media(first: $n) { nodes { id } } } }';

describe('a subgraph server answers through its fast lane as through its pipeline', () => {
  const owner = () => ({ authorization: `Bearer ${fixture.tokens.own}` });
  const CASES: [string, Name, () => [string, Record<string, string>?], LaneOutcome][] = [
    ['a query', 'users', () => [query('{ __typename }'), trusted], 'served'],
    [
      'a read with variables and an operation name',
      'users',
      () => [query(GET, { variables: { id: recordId } }), { ...admin, ...trusted }],
      'served',
    ],
    [
      "the gateway's entity fetch",
      'users',
      () => [query(ENTITIES, { variables: { representations: [{ __typename: 'UserExample', id: recordId }] } }), { ...admin, ...trusted }],
      'served',
    ],
    [
      'Accept: application/graphql-response+json',
      'users',
      () => [query('{ __typename }'), { ...trusted, accept: 'application/graphql-response+json' }],
      'served',
    ],
    ['a record that does not exist', 'users', () => [query(GET, { variables: { id: '999999999' } }), { ...admin, ...trusted }], 'replayed'],
    ['a read without a token', 'users', () => [query(GET, { variables: { id: recordId } }), trusted], 'replayed'],
    ['a variable of the wrong type', 'users', () => [query(GET, { variables: { id: 'x' } }), { ...admin, ...trusted }], 'replayed'],
    ['an Accept the pipeline refuses (406)', 'users', () => [query('{ __typename }'), { ...trusted, accept: 'text/html' }], 'declined'],
    ['extensions in the body', 'users', () => [query('{ __typename }', { extensions: { tracing: true } }), trusted], 'declined'],
    ['a validation error', 'users', () => [query('{ nope }'), trusted], 'declined'],
    [
      'a direct caller past the cost limit',
      'accounts',
      () => [query(COST, { variables: { id: fixture.accounts.bluebottle, n: 1_000_000 } }), owner()],
      'declined',
    ],
    [
      'the gateway past the cost limit (trusted)',
      'accounts',
      () => [query(COST, { variables: { id: fixture.accounts.bluebottle, n: 1_000_000 } }), { ...owner(), ...trusted }],
      'served',
    ],
    [
      'an unknown comment',
      'comments',
      () => [query('query C($id: ID!) { comment(id: $id) { id } }', { variables: { id: '1' } }), owner()],
      'replayed',
    ],
  ];

  it.each(CASES)('%s (%s)', async (_name, name, request, expected) => {
    const [body, headers] = request();
    const { lane, pipeline, outcome } = await askLaneAndPipeline(subgraphUrl(name), name, body, headers);
    expect(outcome).toEqual([expected]);
    expect(lane).toEqual({ ...pipeline, contentLength: String(Buffer.byteLength(pipeline.body)) });
  });

  it.each<Name>(['comments', 'accounts'])("hands on the social graph's usage in extensions (%s)", async (name) => {
    const body =
      name === 'comments'
        ? query('query C($id: ID!) { comment(id: $id) { id text } }', { variables: { id: fixture.comments.fanComment } })
        : query('query A($id: ID!) { account(id: $id) { id username } }', { variables: { id: fixture.accounts.bluebottle } });
    const { lane, pipeline, outcome } = await askLaneAndPipeline(subgraphUrl(name), name, body, owner());
    expect(outcome).toEqual(['served']);
    // The usage's figures are measured per call; their shape and everything else must match.
    const masked = (text: string) =>
      JSON.stringify(JSON.parse(text), (key, value: unknown) => (typeof value === 'number' && key !== 'call_count' ? 0 : value));
    expect(JSON.parse(lane.body).extensions.socialUsage.app).toBeDefined();
    expect(masked(lane.body)).toBe(masked(pipeline.body));
    expect([lane.status, lane.contentType, lane.cacheControl]).toEqual([pipeline.status, pipeline.contentType, pipeline.cacheControl]);
  });

  it('runs a mutation once, whether the lane answers or hands its errors to the pipeline', async () => {
    const url = subgraphUrl('users');
    const headers = { ...admin, ...trusted };
    await postForReply(url, query(CREATE, { variables: { input: newRecord() } }), headers);
    const before = await fastLaneCounts(url, 'users');
    const second = newRecord();
    const created = await postForReply(url, query(CREATE, { variables: { input: second } }), headers);
    const duplicate = await postForReply(url, query(CREATE, { variables: { input: { ...newRecord(), email: second.email } } }), headers);
    const after = await fastLaneCounts(url, 'users');
    expect([after.served - before.served, after.replayed - before.replayed]).toEqual([1, 1]);
    expect(JSON.parse(created.body).data.createUserExample.id).toMatch(/^\d+$/);
    expect(JSON.parse(duplicate.body).errors[0].extensions.code).toBe('ALREADY_EXISTS');
    const rows = await system.database.db
      .selectFrom('users.user_example' as never)
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('email' as never, '=', second.email as never)
      .executeTakeFirstOrThrow();
    expect(String((rows as { count: string | number }).count)).toBe('1');
  });

  it("serves the gateway's own fetches: a read through the gateway, asked twice, is the lane's the second time", async () => {
    const url = subgraphUrl('users');
    const read = query(GET, { variables: { id: recordId } });
    const first = await postForReply(system.gatewayUrl, read, admin);
    const before = await fastLaneCounts(url, 'users');
    const second = await postForReply(system.gatewayUrl, read, admin);
    const after = await fastLaneCounts(url, 'users');
    expect(after.served - before.served).toBe(1);
    expect(second.body).toBe(first.body);
  });
});

function newRecord() {
  return {
    name: 'Subgraph Lane Tester',
    email: uniqueEmail('subgraph-lane'),
    password: 'correct-horse-battery',
    phone: '13800138000',
    avatar: 'https://example.com/a.png',
    age: 30,
  };
}
