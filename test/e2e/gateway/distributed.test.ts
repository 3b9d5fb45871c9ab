import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenService } from '../../../lib/auth/auth.ts';
import {
  badUserInput,
  CREATE,
  createGraphqlClient,
  DELETE,
  GET,
  LIST,
  serviceError,
  UPDATE,
  validInput,
  type GraphqlClient,
} from '../../support/graphql-client.ts';
import { startDistributedTestSystem, type TestSystem } from '../../support/test-system.ts';
import {
  BAD_SIGNATURE,
  CREATE_REQUEST,
  DUPLICATE_EMAIL,
  LIST_REQUEST,
  LIST_RULE,
  MISSING_TOKEN,
  notFound,
  permissionDenied,
  RULE,
  TOKEN_EXPIRED,
  unknownSortColumn,
} from '../../support/user-example-errors.ts';

/**
 * The distributed topology: the users subgraph is its own HTTP server and the gateway reaches it over HTTP (with the REST
 * adapter in the gateway's process). Requests, errors and the Authorization header must behave exactly as in the embedded
 * topology (test/e2e/users/user-example.graphql.test.ts).
 */

let system: TestSystem;
let gql: GraphqlClient;
let admin: string;

beforeAll(async () => {
  system = await startDistributedTestSystem();
  gql = createGraphqlClient(system.gatewayUrl);
  admin = system.adminToken();
});

afterAll(async () => {
  await system?.close();
});

describe('the gateway over an HTTP subgraph', () => {
  // The hinted reads (max-age=30, private) are test/e2e/gateway/cache-control-headers.test.ts's, in both topologies.
  it('answers Cache-Control: no-store, straight from a subgraph (no hint) and through the gateway (an error is never cached)', async () => {
    const body = JSON.stringify({ query: '{ __typename }' });
    const headers = { 'content-type': 'application/json' };
    const direct = await fetch(system.config.gateway.subgraphUrls.users!, { method: 'POST', headers, body });
    expect(direct.status).toBe(200);
    expect(direct.headers.get('cache-control')).toBe('no-store');
    const viaGateway = await fetch(system.gatewayUrl, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${admin}` },
      body: JSON.stringify({ query: GET, variables: { id: '1' } }),
    });
    expect(viaGateway.status).toBe(200);
    expect(((await viaGateway.json()) as { errors?: { extensions: { code: string } }[] }).errors?.[0]?.extensions.code).toBe('NOT_FOUND');
    expect(viaGateway.headers.get('cache-control')).toBe('no-store');
  });

  it('creates, reads, lists, updates and deletes a record', async () => {
    const create = await gql.request(CREATE, { variables: { input: validInput({ email: 'dist@example.com' }) } });
    expect(create.status).toBe(200);
    expect(create.errors).toBeUndefined();
    const id: string = create.data.createUserExample.id;
    expect(id).toMatch(/^[1-9]\d*$/);

    const get = await gql.request(GET, { variables: { id }, token: admin });
    expect(get.errors).toBeUndefined();
    expect(get.data.userExample).toEqual({
      id,
      name: 'Ann Lee',
      email: 'dist@example.com',
      phone: '13800138000',
      avatar: 'https://cdn.example.com/ann.png',
      age: 30,
      gender: 'FEMALE',
      status: 0,
      loginAt: '0',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      updatedAt: get.data.userExample.createdAt,
    });

    const list = await gql.request(LIST, {
      variables: { params: { columns: [{ name: 'email', value: 'dist@example.com' }] } },
      token: admin,
    });
    expect(list.errors).toBeUndefined();
    expect(list.data.userExamples).toEqual({ total: '1', userExamples: [get.data.userExample] });

    const update = await gql.request(UPDATE, {
      variables: { id, input: { name: '', age: 0, status: 2, loginAt: '1700000000' } },
      token: system.userToken(id),
    });
    expect(update.errors).toBeUndefined();
    expect(update.data).toEqual({ updateUserExample: { id } });
    const updated = await gql.request(GET, { variables: { id }, token: admin });
    expect(updated.data.userExample).toMatchObject({ id, name: '', age: 0, status: 2, loginAt: '1700000000', gender: 'FEMALE' });

    const remove = await gql.request(DELETE, { variables: { id }, token: admin });
    expect(remove.data).toEqual({ deleteUserExample: { id } });
    const gone = await gql.request(GET, { variables: { id }, token: admin });
    expect(gone.errors).toEqual([serviceError('userExample', 'NOT_FOUND', notFound(id))]);
  });

  it('passes auth errors through with the same code and message as embedded (the header reaches the subgraph)', async () => {
    const missing = await gql.request(GET, { variables: { id: '1' } });
    expect(missing.errors).toEqual([serviceError('userExample', 'UNAUTHENTICATED', MISSING_TOKEN)]);
    expect(missing.data).toEqual({ userExample: null });

    const forged = createTokenService({ ...system.config.jwt, secret: 'another-secret-that-is-at-least-32-characters-long' }).mint({
      sub: 'admin',
      roles: ['admin'],
    });
    const bad = await gql.request(GET, { variables: { id: '1' }, token: forged });
    expect(bad.errors).toEqual([serviceError('userExample', 'UNAUTHENTICATED', BAD_SIGNATURE)]);

    const expired = system.tokens.mint({ sub: 'admin', roles: ['admin'] }, { expiresIn: -60 });
    const old = await gql.request(GET, { variables: { id: '1' }, token: expired });
    expect(old.errors?.[0]).toMatchObject({ message: expect.stringMatching(TOKEN_EXPIRED), extensions: { code: 'UNAUTHENTICATED' } });
  });

  it('passes FORBIDDEN and ALREADY_EXISTS through', async () => {
    const first = await gql.request(CREATE, { variables: { input: validInput({ email: 'taken@example.com' }) } });
    const id: string = first.data.createUserExample.id;
    const forbidden = await gql.request(DELETE, { variables: { id }, token: system.userToken('someone-else') });
    expect(forbidden.errors).toEqual([serviceError('deleteUserExample', 'FORBIDDEN', permissionDenied('delete'))]);
    const duplicate = await gql.request(CREATE, { variables: { input: validInput({ email: 'taken@example.com' }) } });
    expect(duplicate.errors).toEqual([serviceError('createUserExample', 'ALREADY_EXISTS', DUPLICATE_EMAIL, { field: 'email' })]);
  });

  it('passes validation errors through with every field violation', async () => {
    const reply = await gql.request(CREATE, {
      variables: {
        input: { name: 'A', email: 'nope', password: 'short', phone: '123', avatar: 'ann.png', age: 200, gender: 'MALE' },
      },
    });
    expect(reply.errors).toEqual([
      badUserInput('createUserExample', CREATE_REQUEST, [
        { field: 'name', description: RULE.name },
        { field: 'email', description: RULE.email },
        { field: 'password', description: RULE.password },
        { field: 'phone', description: RULE.phone },
        { field: 'avatar', description: RULE.avatar },
        { field: 'age', description: RULE.age },
      ]),
    ]);
    const list = await gql.request(LIST, { variables: { params: { limit: 1001, sort: 'nope' } }, token: admin });
    expect(list.errors).toEqual([
      badUserInput('userExamples', LIST_REQUEST, [
        { field: 'params.limit', description: LIST_RULE.limit },
        { field: 'params.sort', description: unknownSortColumn('nope') },
      ]),
    ]);
  });

  it('reports a variable the subgraph refuses as BAD_USER_INPUT, as embedded does (not "400: Bad Request")', async () => {
    const reply = await gql.request(GET, { rawVariables: '{"id": 9007199254740993}', token: admin });
    expect(reply.errors).toEqual([
      {
        message:
          'Variable "$id" got invalid value 9007199254740992; UInt64 cannot take the JSON number 9007199254740992: a number beyond 2^53 has already lost digits; send 64-bit integers as strings',
        extensions: { code: 'BAD_USER_INPUT', serviceName: 'users' },
      },
    ]);
    expect(reply.data).toEqual({ userExample: null });
  });

  it('refuses an integer literal above 2^53 at the gateway', async () => {
    const reply = await gql.request(`query { userExample(id: 9007199254740993) { id } }`, { token: admin });
    expect(reply.status).toBe(400);
    expect(reply.errors?.[0]).toMatchObject({
      message:
        'UInt64 literal 9007199254740993 is beyond 2^53 and would lose digits on its way through the gateway: write it as a string ("9007199254740993")',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
  });
});

describe('the REST adapter in the gateway process', () => {
  it("creates and reads a record through the spec's paths", async () => {
    const create = await fetch(new URL('/api/v1/userExample', system.restUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(validInput({ email: 'rest@example.com', gender: 2 })),
    });
    expect(create.status).toBe(200);
    const { id } = (await create.json()) as { id: string };
    expect(id).toMatch(/^[1-9]\d*$/);

    const get = await fetch(new URL(`/api/v1/userExample/${id}`, system.restUrl), {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(get.status).toBe(200);
    const body = (await get.json()) as { userExample: Record<string, unknown> };
    expect(body.userExample).toMatchObject({ id, email: 'rest@example.com', gender: 'FEMALE', loginAt: '0' });
    expect(body.userExample).not.toHaveProperty('password');

    const unauthenticated = await fetch(new URL(`/api/v1/userExample/${id}`, system.restUrl));
    expect(unauthenticated.status).toBe(401);
    expect(await unauthenticated.json()).toMatchObject({
      code: 16,
      message: MISSING_TOKEN,
    });
  });
});
