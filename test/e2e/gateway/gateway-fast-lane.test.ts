/**
 * The gateway's fast lane (gateway/stand-ins/operation-fast-lane.ts) answers a repeated document exactly as Apollo Server's pipeline
 * does. Each case is sent to the fast path until its document is known, then once more — the lane's turn, whose outcome
 * the gateway counts in tributary_graphql_fast_lane_requests_total — and through the Express route (a query string, which
 * the lane never sees), and the two replies compared: status, body, content type and length, cache-control.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRUSTED_CALLER_HEADER } from '../../../lib/http/trusted-caller.ts';
import { askLaneAndPipeline, fastLaneCounts, type LaneOutcome as Outcome } from '../../support/fast-path-cases.ts';
import { CREATE, GET, postForReply } from '../../support/graphql-client.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { uniqueEmail } from '../../support/user-example-fixtures.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem, STAND_INS_ON } from '../../support/test-system.ts';

const TRUSTED_SECRET = 'a-trusted-caller-secret-of-at-least-32-characters';

/** Through the gateway's lane and through its Express route (test/support/fast-path-cases.ts). */
const askBothWays = (system: TestSystem, body: string, headers: Record<string, string> = {}) =>
  askLaneAndPipeline(system.gatewayUrl, 'gateway', body, headers);
const laneCounts = (gatewayUrl: string) => fastLaneCounts(gatewayUrl, 'gateway');

const query = (text: string, extra: Record<string, unknown> = {}) => JSON.stringify({ query: text, ...extra });

describe('the fast lane answers as the pipeline does (embedded gateway)', () => {
  let system: TestSystem;
  let admin: Record<string, string>;
  let recordId: string;
  let fixture: SocialFixture;

  beforeAll(async () => {
    system = await startTestSystem({
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

  const COST = 'query Media($id: ID!, $n: Int) { account(id: $id) { media(first: $n) { nodes { id } } } }';

  const CASES: [string, () => [string, Record<string, string>?], Outcome][] = [
    ['a query', () => [query('{ __typename }')], 'served'],
    [
      'a read with variables and an operation name',
      () => [query(GET, { variables: { id: recordId }, operationName: 'GetByID' }), admin],
      'served',
    ],
    ['variables: null', () => [query('query T { __typename }', { variables: null, operationName: 'T' })], 'served'],
    [
      'Accept: application/graphql-response+json',
      () => [query('{ __typename }'), { accept: 'application/graphql-response+json' }],
      'served',
    ],
    [
      "Apollo Client's Accept",
      () => [query('{ __typename }'), { accept: 'application/graphql-response+json,application/json;q=0.9' }],
      'served',
    ],
    ['Accept: */*', () => [query('{ __typename }'), { accept: '*/*' }], 'served'],
    ['a record that does not exist', () => [query(GET, { variables: { id: '999999999' } }), admin], 'replayed'],
    ['a read without a token', () => [query(GET, { variables: { id: recordId } })], 'replayed'],
    ['a variable of the wrong type', () => [query(GET, { variables: { id: 'not-a-number' } }), admin], 'replayed'],
    ['a missing required variable', () => [query(GET, { variables: {} }), admin], 'replayed'],
    ['an Accept the pipeline refuses (406)', () => [query('{ __typename }'), { accept: 'text/html' }], 'declined'],
    ['extensions in the body', () => [query('{ __typename }', { extensions: { tracing: true } })], 'declined'],
    ['an operationName the document does not define', () => [query('query A { __typename }', { operationName: 'B' })], 'declined'],
    ['a validation error', () => [query('{ nope }')], 'declined'],
    ['variables that are not an object', () => [query('{ __typename }', { variables: '{}' })], 'declined'],
    ['an operationName that is not a string', () => [query('{ __typename }', { operationName: 7 })], 'declined'],
    [
      'a page size past the cost limit',
      () => [
        query(COST, { variables: { id: fixture.accounts.bluebottle, n: 1_000_000 } }),
        { authorization: `Bearer ${fixture.tokens.own}` },
      ],
      'declined',
    ],
    [
      'a trusted caller past the cost limit',
      () => [
        query(COST, { variables: { id: fixture.accounts.bluebottle, n: 1_000_000 } }),
        { authorization: `Bearer ${fixture.tokens.own}`, [TRUSTED_CALLER_HEADER]: TRUSTED_SECRET },
      ],
      'served',
    ],
  ];

  it.each(CASES)('%s', async (_name, request, expected) => {
    const [body, headers] = request();
    const { lane, pipeline, outcome } = await askBothWays(system, body, headers);
    expect(outcome).toEqual([expected]);
    expect(lane).toEqual({ ...pipeline, contentLength: String(Buffer.byteLength(pipeline.body)) });
  });

  it('serves a document it knows with other variables, and a page size within the limit', async () => {
    const other = (
      JSON.parse((await postForReply(system.gatewayUrl, query(CREATE, { variables: { input: newRecord() } }), admin)).body) as {
        data: { createUserExample: { id: string } };
      }
    ).data.createUserExample.id;
    await postForReply(system.gatewayUrl, query(GET, { variables: { id: recordId } }), admin);
    const { lane, pipeline, outcome } = await askBothWays(system, query(GET, { variables: { id: other } }), admin);
    expect(outcome).toEqual(['served']);
    expect(lane.body).toBe(pipeline.body);
    expect(JSON.parse(lane.body).data.userExample.id).toBe(other);

    const token = { authorization: `Bearer ${fixture.tokens.own}` };
    await postForReply(system.gatewayUrl, query(COST, { variables: { id: fixture.accounts.bluebottle, n: 1_000_000 } }), token);
    const small = await askBothWays(system, query(COST, { variables: { id: fixture.accounts.bluebottle, n: 2 } }), token);
    expect(small.outcome).toEqual(['served']);
    expect(small.lane).toEqual({ ...small.pipeline, contentLength: String(Buffer.byteLength(small.pipeline.body)) });
    expect(JSON.parse(small.lane.body).data.account.media.nodes).toHaveLength(2);
  });

  it("hands on the social graph's usage in extensions, as the pipeline does", async () => {
    const body = query('query C($id: ID!) { comment(id: $id) { id text } }', { variables: { id: fixture.comments.fanComment } });
    const { lane, pipeline, outcome } = await askBothWays(system, body, { authorization: `Bearer ${fixture.tokens.own}` });
    expect(outcome).toEqual(['served']);
    // The usage's figures are measured per call; their shape and everything else must match.
    const masked = (text: string) =>
      JSON.stringify(JSON.parse(text), (key, value: unknown) => (typeof value === 'number' && key !== 'call_count' ? 0 : value));
    expect(JSON.parse(lane.body).extensions.socialUsage.app).toBeDefined();
    expect(masked(lane.body)).toBe(masked(pipeline.body));
    expect([lane.status, lane.contentType, lane.cacheControl]).toEqual([pipeline.status, pipeline.contentType, pipeline.cacheControl]);
  });

  it('runs a mutation once, whether the lane answers or hands its errors to the pipeline', async () => {
    const first = newRecord();
    await postForReply(system.gatewayUrl, query(CREATE, { variables: { input: first } }), admin);
    const before = await laneCounts(system.gatewayUrl);
    const second = newRecord();
    const created = await postForReply(system.gatewayUrl, query(CREATE, { variables: { input: second } }), admin);
    const duplicate = await postForReply(
      system.gatewayUrl,
      query(CREATE, { variables: { input: { ...newRecord(), email: second.email } } }),
      admin,
    );
    const after = await laneCounts(system.gatewayUrl);
    expect([after.served - before.served, after.replayed - before.replayed]).toEqual([1, 1]);
    expect(created.status).toBe(200);
    expect(JSON.parse(created.body).data.createUserExample.id).toMatch(/^\d+$/);
    expect(JSON.parse(duplicate.body).errors[0].extensions.code).toBe('ALREADY_EXISTS');
    const rows = await system.database.db
      .selectFrom('users.user_example' as never)
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('email' as never, '=', second.email as never)
      .executeTakeFirstOrThrow();
    expect(String((rows as { count: string | number }).count)).toBe('1');
  });
});

describe('the fast lane answers as the pipeline does (distributed gateway)', () => {
  let system: TestSystem;
  let admin: Record<string, string>;
  let recordId: string;

  beforeAll(async () => {
    system = await startDistributedTestSystem(STAND_INS_ON);
    admin = { authorization: `Bearer ${system.adminToken()}` };
    const created = await postForReply(system.gatewayUrl, query(CREATE, { variables: { input: newRecord() } }), admin);
    recordId = (JSON.parse(created.body) as { data: { createUserExample: { id: string } } }).data.createUserExample.id;
  });

  afterAll(async () => {
    await system?.close();
  });

  it.each<[string, () => [string, Record<string, string>?], Outcome]>([
    ['a read', () => [query(GET, { variables: { id: recordId } }), admin], 'served'],
    ['a record that does not exist', () => [query(GET, { variables: { id: '999999999' } }), admin], 'replayed'],
    ['a variable of the wrong type', () => [query(GET, { variables: { id: 'x' } }), admin], 'replayed'],
  ])('%s', async (_name, request, expected) => {
    const [body, headers] = request();
    const { lane, pipeline, outcome } = await askBothWays(system, body, headers);
    expect(outcome).toEqual([expected]);
    expect(lane).toEqual({ ...pipeline, contentLength: String(Buffer.byteLength(pipeline.body)) });
  });
});

function newRecord() {
  return {
    name: 'Lane Tester',
    email: uniqueEmail('lane'),
    password: 'correct-horse-battery',
    phone: '13800138000',
    avatar: 'https://example.com/a.png',
    age: 30,
  };
}
