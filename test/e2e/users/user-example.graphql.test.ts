import jwt from 'jsonwebtoken';
import { sql } from 'kysely';
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
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';
import {
  AVATAR_NOT_A_URI,
  BAD_SIGNATURE,
  COLUMN_TAKES,
  columnNotAllowed,
  CREATE_REQUEST,
  DELETE_REQUEST,
  DUPLICATE_EMAIL,
  EXP_MISSING,
  GET_REQUEST,
  invalidColumnValue,
  LIST_REQUEST,
  LIST_RULE,
  MALFORMED_HEADER,
  MISSING_TOKEN,
  NOT_A_JWT,
  notFound,
  permissionDenied,
  RULE,
  SIGNATURE_REQUIRED,
  tokenExpired,
  unknownSortColumn,
  unsupportedExp,
  unsupportedLogic,
  UPDATE_REQUEST,
} from '../../support/user-example-errors.ts';
import { uniqueEmail } from '../../support/user-example-fixtures.ts';

/**
 * Front-door tests of Area A through the gateway's GraphQL endpoint, in the embedded topology (the users subgraph in the
 * gateway's process). Every request is a real HTTP POST to /graphql.
 */

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let system: TestSystem;
let gql: GraphqlClient;
let admin: string;

/** Creates a record (anonymously, as sign-up does) and returns its id. */
async function create(overrides: Record<string, unknown> = {}): Promise<string> {
  const reply = await gql.request(CREATE, { variables: { input: validInput({ email: uniqueEmail(), ...overrides }) } });
  expect(reply.errors).toBeUndefined();
  return reply.data.createUserExample.id as string;
}

async function read(id: string): Promise<Record<string, unknown>> {
  const reply = await gql.request(GET, { variables: { id }, token: admin });
  expect(reply.errors).toBeUndefined();
  return reply.data.userExample as Record<string, unknown>;
}

beforeAll(async () => {
  system = await startTestSystem();
  gql = createGraphqlClient(system.gatewayUrl);
  admin = system.adminToken();
});

afterAll(async () => {
  await system?.close();
});

describe('operations that succeed', () => {
  it('creates a record without a token and returns its id as a string', async () => {
    const reply = await gql.request(CREATE, { variables: { input: validInput({ email: 'first@example.com' }) } });
    expect(reply.status).toBe(200);
    expect(reply.errors).toBeUndefined();
    expect(reply.data).toEqual({ createUserExample: { id: expect.stringMatching(/^[1-9]\d*$/) } });
  });

  it('creates a record with a valid token too', async () => {
    const reply = await gql.request(CREATE, { variables: { input: validInput({ email: uniqueEmail() }) }, token: admin });
    expect(reply.errors).toBeUndefined();
    expect(reply.data.createUserExample.id).toMatch(/^[1-9]\d*$/);
  });

  it('reads every field back: gender by name, 64-bit integers as strings, times in RFC 3339', async () => {
    const before = Date.now();
    const email = uniqueEmail();
    const id = await create({ email, gender: 'MALE', age: 41 });
    const after = Date.now();
    const reply = await gql.request(GET, { variables: { id }, token: system.userToken('someone-else') });
    expect(reply.status).toBe(200);
    expect(reply.errors).toBeUndefined();
    const record = reply.data.userExample;
    expect(record).toEqual({
      id,
      name: 'Ann Lee',
      email,
      phone: '13800138000',
      avatar: 'https://cdn.example.com/ann.png',
      age: 41,
      gender: 'MALE',
      status: 0,
      loginAt: '0',
      createdAt: expect.stringMatching(RFC3339_UTC),
      updatedAt: record.createdAt,
    });
    // The database clock and the test's clock are the same machine's; allow for the millisecond rounding of timestamptz(3).
    expect(Date.parse(record.createdAt)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(record.createdAt)).toBeLessThanOrEqual(after + 1);
    // JSON numbers only where the schema says Int; ids and loginAt are strings in the raw reply.
    expect(reply.text).toContain(`"id":"${id}"`);
    expect(reply.text).toContain('"loginAt":"0"');
    expect(reply.text).toContain('"age":41');
  });

  it('updates the fields sent and returns the id', async () => {
    const id = await create();
    const email = uniqueEmail();
    const reply = await gql.request(UPDATE, {
      variables: { id, input: { name: 'Bo', email, age: 77, gender: 'UNKNOWN', status: 2, loginAt: '1700000000' } },
      token: admin,
    });
    expect(reply.status).toBe(200);
    expect(reply).toMatchObject({ errors: undefined, data: { updateUserExample: { id } } });
    const record = await read(id);
    expect(record).toMatchObject({ id, name: 'Bo', email, age: 77, gender: 'UNKNOWN', status: 2, loginAt: '1700000000' });
    expect(Date.parse(record.updatedAt as string)).toBeGreaterThanOrEqual(Date.parse(record.createdAt as string));
  });

  it('deletes a record and returns the id; the record is gone afterwards', async () => {
    const id = await create();
    const reply = await gql.request(DELETE, { variables: { id }, token: admin });
    expect(reply.status).toBe(200);
    expect(reply).toMatchObject({ errors: undefined, data: { deleteUserExample: { id } } });
    const again = await gql.request(GET, { variables: { id }, token: admin });
    expect(again.errors).toEqual([serviceError('userExample', 'NOT_FOUND', notFound(id))]);
    expect(again.data).toEqual({ userExample: null });
  });

  it('frees the e-mail of a deleted record for a new one', async () => {
    const email = uniqueEmail();
    const id = await create({ email });
    await gql.request(DELETE, { variables: { id }, token: admin });
    const second = await create({ email });
    expect(second).not.toBe(id);
  });

  it('lists records with {total userExamples}', async () => {
    const name = 'Listing Probe';
    const id = await create({ name });
    const reply = await gql.request(LIST, {
      variables: { params: { columns: [{ name: 'name', exp: 'eq', value: name }] } },
      token: admin,
    });
    expect(reply.status).toBe(200);
    expect(reply.errors).toBeUndefined();
    expect(reply.data.userExamples).toEqual({ total: '1', userExamples: [await read(id)] });
  });
});

describe('the password', () => {
  it('is not a field of UserExample (introspection)', async () => {
    const reply = await gql.request(`{ __type(name: "UserExample") { fields { name } } }`);
    expect(reply.errors).toBeUndefined();
    expect(reply.data.__type.fields.map((field: { name: string }) => field.name)).toEqual([
      'id',
      'name',
      'email',
      'phone',
      'avatar',
      'age',
      'gender',
      'status',
      'loginAt',
      'createdAt',
      'updatedAt',
    ]);
  });

  it('cannot be queried: the query fails validation at the gateway', async () => {
    const reply = await gql.request(`query { userExample(id: "1") { id password } }`, { token: admin });
    expect(reply.status).toBe(400);
    expect(reply.errors).toEqual([
      {
        message: 'Cannot query field "password" on type "UserExample".',
        locations: [{ line: 1, column: 35 }],
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      },
    ]);
  });

  it('is absent from every reply (create, get, list)', async () => {
    const password = 'a-very-secret-password';
    const create = await gql.request(CREATE, { variables: { input: validInput({ email: uniqueEmail(), password }) } });
    const id = create.data.createUserExample.id;
    const get = await gql.request(GET, { variables: { id }, token: admin });
    const list = await gql.request(LIST, { variables: { params: { columns: [{ name: 'id', value: id }] } }, token: admin });
    for (const reply of [create, get, list]) {
      expect(reply.text).not.toContain(password);
      expect(reply.text).not.toMatch(/password|scrypt/i);
    }
  });
});

describe('create validation', () => {
  const cases: [string, Record<string, unknown>, { field: string; description: string }][] = [
    ['a one-character name', { name: 'A' }, { field: 'name', description: RULE.name }],
    ['a one-rune name written with two UTF-16 units', { name: '😀' }, { field: 'name', description: RULE.name }],
    ['an address without @', { email: 'not-an-address' }, { field: 'email', description: RULE.email }],
    ['an address without a host', { email: 'ann@' }, { field: 'email', description: RULE.email }],
    ['a nine-character password', { password: '123456789' }, { field: 'password', description: RULE.password }],
    ['a phone not starting 13–19', { phone: '12800138000' }, { field: 'phone', description: RULE.phone }],
    ['a phone one digit short', { phone: '1380013800' }, { field: 'phone', description: RULE.phone }],
    ['a relative avatar', { avatar: 'images/ann.png' }, { field: 'avatar', description: RULE.avatar }],
    ['an avatar with a space', { avatar: 'https://cdn.example.com/a b.png' }, { field: 'avatar', description: AVATAR_NOT_A_URI }],
    ['an age of -1', { age: -1 }, { field: 'age', description: RULE.age }],
    ['an age of 121', { age: 121 }, { field: 'age', description: RULE.age }],
  ];

  it.each(cases)('rejects %s with BAD_USER_INPUT naming the field', async (_, overrides, violation) => {
    const reply = await gql.request(CREATE, { variables: { input: validInput({ email: uniqueEmail(), ...overrides }) } });
    expect(reply.status).toBe(200);
    expect(reply.errors).toEqual([badUserInput('createUserExample', CREATE_REQUEST, [violation])]);
    expect(reply.data).toBeNull();
  });

  it('reports every broken rule at once, in field order', async () => {
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
  });

  it('accepts the boundary values (2-rune name, 10-character password, ages 0 and 120)', async () => {
    for (const overrides of [
      { name: '李雷', password: '0123456789', age: 0 },
      { name: '😀😀', age: 120, gender: 'UNKNOWN' },
    ]) {
      const id = await create(overrides);
      const { password: _password, ...visible } = overrides as Record<string, unknown>;
      expect(await read(id)).toMatchObject({ ...visible, id });
    }
  });

  it('refuses an undefined gender in variables with HTTP 400 (GraphQL enum coercion)', async () => {
    const reply = await gql.request(CREATE, { variables: { input: validInput({ email: uniqueEmail(), gender: 'OTHER' }) } });
    expect(reply.status).toBe(400);
    expect(reply.errors).toEqual([
      {
        message: 'Variable "$input" got invalid value "OTHER" at "input.gender"; Value "OTHER" does not exist in "GenderType" enum.',
        locations: [{ line: 1, column: 17 }],
        extensions: { code: 'BAD_USER_INPUT' },
      },
    ]);
  });

  it('refuses a gender given by number in variables (GraphQL enums are names)', async () => {
    const reply = await gql.request(CREATE, { variables: { input: validInput({ email: uniqueEmail(), gender: 1 }) } });
    expect(reply.status).toBe(400);
    expect(reply.errors?.[0]).toMatchObject({
      message: 'Variable "$input" got invalid value 1 at "input.gender"; Enum "GenderType" cannot represent non-string value: 1.',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  it('refuses an undefined gender literal in validation', async () => {
    const reply = await gql.request(
      `mutation { createUserExample(input: { name: "Ann", email: "x@example.com", password: "0123456789", phone: "13800138000", avatar: "https://a.example", age: 1, gender: OTHER }) { id } }`,
    );
    expect(reply.status).toBe(400);
    expect(reply.errors?.[0]).toMatchObject({
      message: 'Value "OTHER" does not exist in "GenderType" enum.',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
  });

  it('refuses a missing required field in GraphQL coercion', async () => {
    const { phone: _phone, ...input } = validInput({ email: uniqueEmail() });
    const reply = await gql.request(CREATE, { variables: { input } });
    expect(reply.status).toBe(400);
    expect(reply.errors?.[0]).toMatchObject({
      message:
        'Variable "$input" got invalid value { name: "Ann Lee", email: "' +
        input.email +
        '", password: "correct-horse-battery", avatar: "https://cdn.example.com/ann.png", age: 30, gender: "FEMALE" }; Field "phone" of required type "String!" was not provided.',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  it('answers ALREADY_EXISTS for a duplicate e-mail, on create and on update', async () => {
    const email = uniqueEmail();
    await create({ email });
    const duplicate = await gql.request(CREATE, { variables: { input: validInput({ email }) } });
    expect(duplicate.errors).toEqual([serviceError('createUserExample', 'ALREADY_EXISTS', DUPLICATE_EMAIL, { field: 'email' })]);
    expect(duplicate.data).toBeNull();

    const other = await create();
    const update = await gql.request(UPDATE, { variables: { id: other, input: { email } }, token: admin });
    expect(update.errors).toEqual([serviceError('updateUserExample', 'ALREADY_EXISTS', DUPLICATE_EMAIL, { field: 'email' })]);
  });
});

describe('update', () => {
  it('writes 0 and "" and reads them back exactly', async () => {
    const id = await create({ gender: 'MALE' });
    await gql.request(UPDATE, { variables: { id, input: { status: 2, loginAt: '1700000000' } }, token: admin });
    const reply = await gql.request(UPDATE, {
      variables: {
        id,
        input: { name: '', email: '', phone: '', avatar: '', age: 0, gender: 'UNKNOWN', status: 0, loginAt: '0' },
      },
      token: admin,
    });
    expect(reply.errors).toBeUndefined();
    expect(await read(id)).toMatchObject({
      id,
      name: '',
      email: '',
      phone: '',
      avatar: '',
      age: 0,
      gender: 'UNKNOWN',
      status: 0,
      loginAt: '0',
    });
    // Free the empty e-mail for other tests' records.
    await gql.request(DELETE, { variables: { id }, token: admin });
  });

  it('leaves absent and null fields unchanged', async () => {
    const email = uniqueEmail();
    const id = await create({ email, age: 30, gender: 'FEMALE' });
    const before = await read(id);
    const reply = await gql.request(UPDATE, { variables: { id, input: { age: 31, name: null } }, token: admin });
    expect(reply.errors).toBeUndefined();
    const after = await read(id);
    expect(after).toEqual({ ...before, age: 31, updatedAt: after.updatedAt });
  });

  it('accepts an empty input (nothing to change)', async () => {
    const id = await create();
    const before = await read(id);
    const reply = await gql.request(UPDATE, { variables: { id, input: {} }, token: admin });
    expect(reply).toMatchObject({ errors: undefined, data: { updateUserExample: { id } } });
    expect(await read(id)).toEqual({ ...before, updatedAt: expect.stringMatching(RFC3339_UTC) });
  });

  it('takes any int32 for age and status (no declared rule on update)', async () => {
    const id = await create();
    const reply = await gql.request(UPDATE, { variables: { id, input: { age: -5, status: 2147483647 } }, token: admin });
    expect(reply.errors).toBeUndefined();
    expect(await read(id)).toMatchObject({ age: -5, status: 2147483647 });
  });

  it('has no id in its input: the id argument alone names the record', async () => {
    const id = await create();
    const reply = await gql.request(UPDATE, { variables: { id, input: { id: '1', age: 1 } }, token: admin });
    expect(reply.status).toBe(400);
    expect(reply.errors?.[0]).toMatchObject({
      message: 'Variable "$input" got invalid value { id: "1", age: 1 }; Field "id" is not defined by type "UpdateUserExampleInput".',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  it('refuses an id of 0 with BAD_USER_INPUT', async () => {
    const update = await gql.request(UPDATE, { variables: { id: '0', input: { age: 1 } }, token: admin });
    expect(update.errors).toEqual([badUserInput('updateUserExample', UPDATE_REQUEST, [{ field: 'id', description: RULE.id }])]);
    const get = await gql.request(GET, { variables: { id: '0' }, token: admin });
    expect(get.errors).toEqual([badUserInput('userExample', GET_REQUEST, [{ field: 'id', description: RULE.id }])]);
    const remove = await gql.request(DELETE, { variables: { id: '0' }, token: admin });
    expect(remove.errors).toEqual([badUserInput('deleteUserExample', DELETE_REQUEST, [{ field: 'id', description: RULE.id }])]);
  });
});

describe('missing records', () => {
  const missing = '987654321';

  it('answers NOT_FOUND for get, update and delete of an id no record has', async () => {
    const get = await gql.request(GET, { variables: { id: missing }, token: admin });
    expect(get.status).toBe(200);
    expect(get.errors).toEqual([serviceError('userExample', 'NOT_FOUND', notFound(missing))]);
    expect(get.data).toEqual({ userExample: null });

    const update = await gql.request(UPDATE, { variables: { id: missing, input: { age: 1 } }, token: admin });
    expect(update.errors).toEqual([serviceError('updateUserExample', 'NOT_FOUND', notFound(missing))]);
    expect(update.data).toBeNull();

    const remove = await gql.request(DELETE, { variables: { id: missing }, token: admin });
    expect(remove.errors).toEqual([serviceError('deleteUserExample', 'NOT_FOUND', notFound(missing))]);
    expect(remove.data).toBeNull();
  });

  it('answers NOT_FOUND for the largest uint64 (beyond any stored id)', async () => {
    const max = '18446744073709551615';
    const get = await gql.request(GET, { variables: { id: max }, token: admin });
    expect(get.errors).toEqual([serviceError('userExample', 'NOT_FOUND', notFound(max))]);
    const remove = await gql.request(DELETE, { variables: { id: max }, token: system.userToken(max) });
    expect(remove.errors).toEqual([serviceError('deleteUserExample', 'NOT_FOUND', notFound(max))]);
  });

  it('answers NOT_FOUND to the owner of an id with no record (self-update)', async () => {
    const update = await gql.request(UPDATE, { variables: { id: missing, input: { age: 1 } }, token: system.userToken(missing) });
    expect(update.errors).toEqual([serviceError('updateUserExample', 'NOT_FOUND', notFound(missing))]);
  });
});

describe('authentication and permissions', () => {
  let id: string;
  beforeAll(async () => {
    id = await create();
  });

  const otherKey = () => createTokenService({ ...system.config.jwt, secret: 'another-secret-that-is-at-least-32-characters-long' });

  /** Each operation that needs a token, as [name, query, variables]. */
  const protectedOperations = (): [string, string, Record<string, unknown>, unknown][] => [
    ['userExample', GET, { id }, { userExample: null }],
    ['userExamples', LIST, { params: {} }, null],
    ['updateUserExample', UPDATE, { id, input: { age: 1 } }, null],
    ['deleteUserExample', DELETE, { id }, null],
  ];

  it('refuses every protected operation without a token', async () => {
    for (const [field, query, variables, data] of protectedOperations()) {
      const reply = await gql.request(query, { variables });
      expect(reply.errors, field).toEqual([serviceError(field, 'UNAUTHENTICATED', MISSING_TOKEN)]);
      expect(reply.data, field).toEqual(data);
    }
  });

  it('refuses a token signed with another key, saying so', async () => {
    const forged = otherKey().mint({ sub: 'admin', roles: ['admin'] });
    for (const [field, query, variables] of protectedOperations()) {
      const reply = await gql.request(query, { variables, token: forged });
      expect(reply.errors, field).toEqual([serviceError(field, 'UNAUTHENTICATED', BAD_SIGNATURE)]);
    }
  });

  it('refuses an expired token, saying when it expired', async () => {
    const expired = system.tokens.mint({ sub: 'admin', roles: ['admin'] }, { expiresIn: -60 });
    const exp = (jwt.decode(expired) as { exp: number }).exp;
    const reply = await gql.request(GET, { variables: { id }, token: expired });
    expect(reply.errors).toEqual([serviceError('userExample', 'UNAUTHENTICATED', tokenExpired(new Date(exp * 1000)))]);
  });

  it('refuses a malformed Authorization header and a token that is not a JWT', async () => {
    const basic = await gql.request(GET, { variables: { id }, authorization: 'Basic YWRtaW46YWRtaW4=' });
    expect(basic.errors).toEqual([serviceError('userExample', 'UNAUTHENTICATED', MALFORMED_HEADER)]);
    const garbage = await gql.request(GET, { variables: { id }, token: 'garbage' });
    expect(garbage.errors).toEqual([serviceError('userExample', 'UNAUTHENTICATED', NOT_A_JWT)]);
  });

  it('refuses an unsigned token (alg none) and one without exp', async () => {
    const { issuer, audience } = system.config.jwt;
    const unsigned = jwt.sign({ roles: ['admin'] }, null, { algorithm: 'none', subject: 'admin', issuer, audience, expiresIn: '1h' });
    const none = await gql.request(GET, { variables: { id }, token: unsigned });
    expect(none.errors).toEqual([serviceError('userExample', 'UNAUTHENTICATED', SIGNATURE_REQUIRED)]);

    const forever = jwt.sign({ roles: ['admin'] }, system.config.jwt.secret!, { algorithm: 'HS256', subject: 'admin', issuer, audience });
    const noExp = await gql.request(GET, { variables: { id }, token: forever });
    expect(noExp.errors).toEqual([serviceError('userExample', 'UNAUTHENTICATED', EXP_MISSING)]);
  });

  it('refuses a bad token on the public create instead of ignoring it', async () => {
    const forged = otherKey().mint({ sub: 'admin', roles: ['admin'] });
    const reply = await gql.request(CREATE, { variables: { input: validInput({ email: uniqueEmail() }) }, token: forged });
    expect(reply.errors).toEqual([serviceError('createUserExample', 'UNAUTHENTICATED', BAD_SIGNATURE)]);
    expect(reply.data).toBeNull();
  });

  it('lets any signed-in user read and list', async () => {
    const token = system.userToken('a-stranger');
    const get = await gql.request(GET, { variables: { id }, token });
    expect(get.errors).toBeUndefined();
    const list = await gql.request(LIST, { variables: { params: { limit: 1 } }, token });
    expect(list.errors).toBeUndefined();
  });

  it('forbids a non-admin to update or delete another record, and changes nothing', async () => {
    const before = await read(id);
    const token = system.userToken(String(BigInt(id) + 1000n));
    const update = await gql.request(UPDATE, { variables: { id, input: { age: 99 } }, token });
    expect(update.errors).toEqual([serviceError('updateUserExample', 'FORBIDDEN', permissionDenied('update'))]);
    const remove = await gql.request(DELETE, { variables: { id }, token });
    expect(remove.errors).toEqual([serviceError('deleteUserExample', 'FORBIDDEN', permissionDenied('delete'))]);
    expect(await read(id)).toEqual(before);
  });

  it("lets the record's own user update and delete it", async () => {
    const own = await create();
    const token = system.userToken(own);
    const update = await gql.request(UPDATE, { variables: { id: own, input: { name: 'Myself' } }, token });
    expect(update).toMatchObject({ errors: undefined, data: { updateUserExample: { id: own } } });
    expect(await read(own)).toMatchObject({ name: 'Myself' });
    const remove = await gql.request(DELETE, { variables: { id: own }, token });
    expect(remove).toMatchObject({ errors: undefined, data: { deleteUserExample: { id: own } } });
  });
});

describe('list', () => {
  /** Six records whose names all contain "Lst ", so each query scopes itself to them. */
  const ids: Record<'r1' | 'r2' | 'r3' | 'r4' | 'r5' | 'r6', string> = { r1: '', r2: '', r3: '', r4: '', r5: '', r6: '' };
  const scope = { name: 'name', exp: 'like', value: 'Lst ', logic: 'and' };

  beforeAll(async () => {
    const fixtures = {
      r1: { name: 'Lst Ada', age: 20, gender: 'FEMALE' },
      r2: { name: 'Lst Bob', age: 35, gender: 'MALE' },
      r3: { name: 'Lst Cy', age: 35, gender: 'UNKNOWN' },
      r4: { name: 'Lst Dee', age: 50, gender: 'FEMALE' },
      r5: { name: 'Lst Eve', age: 20, gender: 'MALE' },
      r6: { name: 'Lst 100%_x', age: 64, gender: 'UNKNOWN' },
    };
    // One at a time, so that ids grow in fixture order.
    for (const [key, overrides] of Object.entries(fixtures)) ids[key as keyof typeof ids] = await create(overrides);
  });

  async function list(params: Record<string, unknown>) {
    return gql.request(LIST, { variables: { params }, token: admin });
  }

  /** The keys of the fixtures a reply lists, in reply order. */
  function keysOf(reply: { data: { userExamples: { userExamples: { id: string }[] } } }): string[] {
    const byId = new Map(Object.entries(ids).map(([key, id]) => [id, key]));
    return reply.data.userExamples.userExamples.map((record) => byId.get(record.id) ?? `other:${record.id}`);
  }

  it('sorts by -id when no sort is given', async () => {
    const reply = await list({ columns: [scope] });
    expect(reply.errors).toBeUndefined();
    expect(reply.data.userExamples.total).toBe('6');
    expect(keysOf(reply)).toEqual(['r6', 'r5', 'r4', 'r3', 'r2', 'r1']);
  });

  it('pages from 0 with a limit, keeping the total, ties broken by id', async () => {
    const pages = [];
    for (const page of [0, 1, 2, 3]) {
      const reply = await list({ page, limit: 2, sort: 'age', columns: [scope] });
      expect(reply.errors).toBeUndefined();
      expect(reply.data.userExamples.total).toBe('6');
      pages.push(keysOf(reply));
    }
    expect(pages).toEqual([['r5', 'r1'], ['r3', 'r2'], ['r4', 'r6'], []]);
  });

  it('sorts by several keys, ascending and descending', async () => {
    const reply = await list({ sort: 'gender,-age', columns: [scope] });
    expect(keysOf(reply)).toEqual(['r6', 'r3', 'r2', 'r5', 'r4', 'r1']);
    const plus = await list({ sort: '+gender, -age', columns: [scope] });
    expect(keysOf(plus)).toEqual(['r6', 'r3', 'r2', 'r5', 'r4', 'r1']);
    // JSON names are accepted as sort keys; every fixture ties on status and loginAt, so -id decides.
    const jsonNames = await list({ sort: 'status,loginAt,-id', columns: [scope] });
    expect(keysOf(jsonNames)).toEqual(['r6', 'r5', 'r4', 'r3', 'r2', 'r1']);
  });

  const operatorCases: [string, Record<string, unknown>, string[]][] = [
    ['eq', { name: 'age', exp: 'eq', value: '35' }, ['r2', 'r3']],
    ['= (empty exp means eq too)', { name: 'age', exp: '', value: '35' }, ['r2', 'r3']],
    ['neq', { name: 'age', exp: 'neq', value: '35' }, ['r1', 'r4', 'r5', 'r6']],
    ['!=', { name: 'age', exp: '!=', value: '35' }, ['r1', 'r4', 'r5', 'r6']],
    ['gt', { name: 'age', exp: 'gt', value: '35' }, ['r4', 'r6']],
    ['>', { name: 'age', exp: '>', value: '35' }, ['r4', 'r6']],
    ['gte', { name: 'age', exp: 'gte', value: '35' }, ['r2', 'r3', 'r4', 'r6']],
    ['>=', { name: 'age', exp: '>=', value: '35' }, ['r2', 'r3', 'r4', 'r6']],
    ['lt', { name: 'age', exp: 'lt', value: '35' }, ['r1', 'r5']],
    ['<', { name: 'age', exp: '<', value: '35' }, ['r1', 'r5']],
    ['lte', { name: 'age', exp: 'lte', value: '35' }, ['r1', 'r2', 'r3', 'r5']],
    ['<=', { name: 'age', exp: '<=', value: '35' }, ['r1', 'r2', 'r3', 'r5']],
    ['like (wrapped in %)', { name: 'name', exp: 'like', value: 'Ad' }, ['r1']],
    ['like with % and _ taken literally', { name: 'name', exp: 'like', value: '0%_x' }, ['r6']],
    ['like with escaped wildcards matching nothing', { name: 'name', exp: 'like', value: '0__x' }, []],
    ['in', { name: 'age', exp: 'in', value: '20, 50' }, ['r1', 'r4', 'r5']],
    ['notin', { name: 'age', exp: 'notin', value: '20,50' }, ['r2', 'r3', 'r6']],
    ['not in', { name: 'age', exp: 'not in', value: '20,50' }, ['r2', 'r3', 'r6']],
    ['isnull (no column is null)', { name: 'avatar', exp: 'isnull' }, []],
    ['is not null', { name: 'avatar', exp: 'is not null' }, ['r1', 'r2', 'r3', 'r4', 'r5', 'r6']],
    ['isnotnull', { name: 'avatar', exp: 'isnotnull' }, ['r1', 'r2', 'r3', 'r4', 'r5', 'r6']],
    ['gender by name', { name: 'gender', exp: 'eq', value: 'MALE' }, ['r2', 'r5']],
    ['gender by number', { name: 'gender', exp: 'eq', value: '2' }, ['r1', 'r4']],
    ['gender in names', { name: 'gender', exp: 'in', value: 'MALE,UNKNOWN' }, ['r2', 'r3', 'r5', 'r6']],
    ['loginAt (JSON name) eq', { name: 'loginAt', exp: 'eq', value: '0' }, ['r1', 'r2', 'r3', 'r4', 'r5', 'r6']],
    ['created_at after the epoch', { name: 'created_at', exp: 'gt', value: '2000-01-01T00:00:00Z' }, ['r1', 'r2', 'r3', 'r4', 'r5', 'r6']],
    ['created_at before the epoch', { name: 'created_at', exp: 'lt', value: '2000-01-01' }, []],
  ];

  it.each(operatorCases)('filters with %s', async (_, condition, expected) => {
    const reply = await list({ sort: 'id', columns: [scope, condition] });
    expect(reply.errors).toBeUndefined();
    expect(keysOf(reply)).toEqual(expected);
    expect(reply.data.userExamples.total).toBe(String(expected.length));
  });

  it('filters by id with gt and in (uint64 values as text)', async () => {
    const gt = await list({ sort: 'id', columns: [scope, { name: 'id', exp: 'gt', value: ids.r3 }] });
    expect(keysOf(gt)).toEqual(['r4', 'r5', 'r6']);
    const inList = await list({ sort: 'id', columns: [{ name: 'id', exp: 'in', value: `${ids.r2},"${ids.r5}"` }] });
    expect(keysOf(inList)).toEqual(['r2', 'r5']);
  });

  it('gives AND precedence over OR, and groups with and:( / or:)', async () => {
    // scope AND (age = 50 OR gender = MALE AND age = 20) → r4, r5; left-to-right evaluation would give r5 only.
    const reply = await list({
      sort: 'id',
      columns: [
        scope,
        { name: 'age', exp: 'eq', value: '50', logic: 'or:(' },
        { name: 'gender', exp: 'eq', value: 'MALE', logic: 'and' },
        { name: 'age', exp: 'eq', value: '20', logic: 'and:)' },
      ],
    });
    expect(reply.errors).toBeUndefined();
    expect(keysOf(reply)).toEqual(['r4', 'r5']);
  });

  it('accepts the symbol forms of the logic (&&, ||)', async () => {
    const reply = await list({
      sort: 'id',
      columns: [
        { ...scope, logic: '&&' },
        { name: 'age', exp: '=', value: '64', logic: 'or:(' },
        { name: 'age', exp: '=', value: '20', logic: '||' },
        { name: 'name', exp: 'like', value: 'Lst Ada', logic: 'and:)' },
      ],
    });
    // scope AND (age = 64 OR age = 20 OR name like Ada) → r1, r5, r6
    expect(keysOf(reply)).toEqual(['r1', 'r5', 'r6']);
  });

  it('skips the count with sort "ignore count"', async () => {
    const reply = await list({ sort: 'ignore count', columns: [scope] });
    expect(reply.errors).toBeUndefined();
    expect(reply.data.userExamples.total).toBe('0');
    expect(keysOf(reply)).toEqual(['r6', 'r5', 'r4', 'r3', 'r2', 'r1']);
  });

  it('names an unknown column, operator, sort key and logic, all at once', async () => {
    const reply = await list({
      sort: 'age,password',
      columns: [
        { name: 'password', exp: 'eq', value: 'x' },
        { name: 'age', exp: 'regexp', value: '1', logic: 'xor' },
      ],
    });
    expect(reply.errors).toEqual([
      badUserInput('userExamples', LIST_REQUEST, [
        { field: 'params.sort', description: unknownSortColumn('password') },
        { field: 'params.columns[0].name', description: columnNotAllowed('password') },
        { field: 'params.columns[1].exp', description: unsupportedExp('regexp') },
        { field: 'params.columns[1].logic', description: unsupportedLogic('xor') },
      ]),
    ]);
    expect(reply.data).toBeNull();
  });

  it('names a value of the wrong type and unbalanced parentheses', async () => {
    const badValue = await list({ columns: [{ name: 'age', value: 'old' }] });
    expect(badValue.errors).toEqual([
      badUserInput('userExamples', LIST_REQUEST, [
        { field: 'params.columns[0].value', description: invalidColumnValue('old', 'age', COLUMN_TAKES.int32) },
      ]),
    ]);
    const unbalanced = await list({
      columns: [
        { name: 'age', value: '1', logic: 'or:(' },
        { name: 'age', value: '2' },
      ],
    });
    expect(unbalanced.errors).toEqual([
      badUserInput('userExamples', LIST_REQUEST, [{ field: 'params.columns', description: LIST_RULE.parentheses }]),
    ]);
  });

  it('refuses U+0000 in a filter value as BAD_USER_INPUT instead of failing in SQL', async () => {
    const reply = await list({ columns: [{ name: 'name', exp: 'like', value: 'Lst\u0000' }] });
    expect(reply.errors).toEqual([
      badUserInput('userExamples', LIST_REQUEST, [{ field: 'params.columns[0].value', description: LIST_RULE.nul }]),
    ]);
  });

  it('refuses a like pattern ending in the escape character and an id beyond bigint, instead of failing in SQL', async () => {
    const reply = await list({
      columns: [
        { name: 'name', exp: 'like', value: '%Lst\\' },
        { name: 'id', exp: 'lt', value: '18446744073709551615' },
      ],
    });
    expect(reply.errors).toEqual([
      badUserInput('userExamples', LIST_REQUEST, [
        { field: 'params.columns[0].value', description: LIST_RULE.likeEndsInEscape },
        { field: 'params.columns[1].value', description: invalidColumnValue('18446744073709551615', 'id', COLUMN_TAKES.id) },
      ]),
    ]);
  });

  it('refuses a limit above the maximum and a negative page instead of clamping', async () => {
    const reply = await list({ page: -1, limit: 1001 });
    expect(reply.errors).toEqual([
      badUserInput('userExamples', LIST_REQUEST, [
        { field: 'params.page', description: LIST_RULE.page },
        { field: 'params.limit', description: LIST_RULE.limit },
      ]),
    ]);
  });

  it('refuses a missing params', async () => {
    const reply = await gql.request(`query { userExamples { total } }`, { token: admin });
    expect(reply.errors).toEqual([badUserInput('userExamples', LIST_REQUEST, [{ field: 'params', description: LIST_RULE.params }])]);
  });
});

describe('a page of 50 records', () => {
  const tag = 'Batch Member';
  beforeAll(async () => {
    for (let i = 0; i < 50; i++) await create({ name: `${tag} ${i}` });
  });

  it('comes back whole with limit 50, and the default limit (absent or 0) is 20', async () => {
    const columns = [{ name: 'name', exp: 'like', value: tag }];
    const full = await gql.request(LIST, { variables: { params: { limit: 50, columns } }, token: admin });
    expect(full.data.userExamples.total).toBe('50');
    expect(full.data.userExamples.userExamples).toHaveLength(50);
    for (const params of [{ columns }, { limit: 0, columns }]) {
      const reply = await gql.request(LIST, { variables: { params }, token: admin });
      expect(reply.data.userExamples.total).toBe('50');
      expect(reply.data.userExamples.userExamples).toHaveLength(20);
    }
  });

  it('costs a bounded number of SQL statements (one page query and one count, no per-record query)', async () => {
    const executor = system.database.db.getExecutor();
    const original = executor.executeQuery.bind(executor);
    const statements: string[] = [];
    executor.executeQuery = (async (query: Parameters<typeof original>[0]) => {
      statements.push(query.sql);
      return original(query);
    }) as typeof executor.executeQuery;
    try {
      const reply = await gql.request(LIST, {
        variables: { params: { limit: 50, columns: [{ name: 'name', exp: 'like', value: tag }] } },
        token: admin,
      });
      expect(reply.data.userExamples.userExamples).toHaveLength(50);
    } finally {
      executor.executeQuery = original;
    }
    expect(statements).toHaveLength(2);
    expect(statements.every((statement) => /^select /.test(statement))).toBe(true);
  });
});

describe('GraphQL over HTTP', () => {
  it('blocks a text/plain POST without a preflight header (CSRF prevention)', async () => {
    const reply = await gql.raw(JSON.stringify({ query: '{ __typename }' }), { 'content-type': 'text/plain' });
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text)).toEqual({
      errors: [
        {
          message:
            "This operation has been blocked as a potential Cross-Site Request Forgery (CSRF). Please either specify a 'content-type' header (with a type that is not one of application/x-www-form-urlencoded, multipart/form-data, text/plain) or provide a non-empty value for one of the following headers: x-apollo-operation-name, apollo-require-preflight\n",
          extensions: { code: 'BAD_REQUEST' },
        },
      ],
    });
  });

  it('answers a JSON POST', async () => {
    const reply = await gql.request('{ __typename }');
    expect(reply.status).toBe(200);
    expect(reply.data).toEqual({ __typename: 'Query' });
  });
});

describe('64-bit ids', () => {
  const big = '9007199254740993';
  let smallId: string;

  beforeAll(async () => {
    smallId = await create();
    // The next record gets 2^53 + 1, the first integer a JavaScript number cannot hold.
    await sql`alter table users.user_example alter column id restart with 9007199254740993`.execute(system.database.db);
  });

  it('round-trips an id above 2^53 exactly through create, get, list, update and delete', async () => {
    const create = await gql.request(CREATE, { variables: { input: validInput({ email: uniqueEmail(), name: 'Big Id' }) } });
    expect(create.text).toContain(`"id":"${big}"`);
    expect(create.data.createUserExample.id).toBe(big);

    const get = await gql.request(GET, { variables: { id: big }, token: admin });
    expect(get.text).toContain(`"id":"${big}"`);
    expect(get.data.userExample).toMatchObject({ id: big, name: 'Big Id' });

    const literal = await gql.request(`query { userExample(id: "${big}") { id } }`, { token: admin });
    expect(literal.data).toEqual({ userExample: { id: big } });

    const list = await gql.request(LIST, { variables: { params: { columns: [{ name: 'id', value: big }] } }, token: admin });
    expect(list.text).toContain(`"id":"${big}"`);
    expect(list.data.userExamples).toMatchObject({ total: '1', userExamples: [{ id: big }] });

    const update = await gql.request(UPDATE, { variables: { id: big, input: { name: 'Bigger' } }, token: system.userToken(big) });
    expect(update.text).toContain(`"id":"${big}"`);
    expect((await read(big)).name).toBe('Bigger');

    // The neighbour 2^53 (what a JavaScript number would have turned the id into) names no record.
    const neighbour = await gql.request(GET, { variables: { id: '9007199254740992' }, token: admin });
    expect(neighbour.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');

    const remove = await gql.request(DELETE, { variables: { id: big }, token: admin });
    expect(remove.data).toEqual({ deleteUserExample: { id: big } });
  });

  it('refuses an integer literal above 2^53 instead of letting the gateway round it', async () => {
    const reply = await gql.request(`query { userExample(id: 9007199254740995) { id } }`, { token: admin });
    expect(reply.status).toBe(400);
    expect(reply.errors).toEqual([
      {
        message:
          'UInt64 literal 9007199254740995 is beyond 2^53 and would lose digits on its way through the gateway: write it as a string ("9007199254740995")',
        locations: [{ line: 1, column: 25 }],
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      },
    ]);
  });

  it('checks 64-bit literals nested in input objects too', async () => {
    const id = await create();
    const tooBig = await gql.request(`mutation { updateUserExample(id: "${id}", input: { loginAt: 9007199254740993 }) { id } }`, {
      token: admin,
    });
    expect(tooBig.status).toBe(400);
    expect(tooBig.errors?.[0]?.message).toBe(
      'Int64 literal 9007199254740993 is beyond 2^53 and would lose digits on its way through the gateway: write it as a string ("9007199254740993")',
    );
    const exact = await gql.request(`mutation { updateUserExample(id: "${id}", input: { loginAt: "-9007199254740993" }) { id } }`, {
      token: admin,
    });
    expect(exact.errors).toBeUndefined();
    expect((await read(id)).loginAt).toBe('-9007199254740993');
    const small = await gql.request(`mutation { updateUserExample(id: "${id}", input: { loginAt: -5 }) { id } }`, {
      token: admin,
    });
    expect(small.errors).toBeUndefined();
    expect((await read(id)).loginAt).toBe('-5');
  });

  it('refuses a UInt64 literal above 2^64 - 1, as an integer or as a string', async () => {
    for (const literal of ['18446744073709551616', '"18446744073709551616"']) {
      const reply = await gql.request(`query { userExample(id: ${literal}) { id } }`, { token: admin });
      expect(reply.status, literal).toBe(400);
      expect(reply.errors, literal).toEqual([
        {
          message: 'UInt64 cannot represent "18446744073709551616": expected an unsigned 64-bit integer as a decimal string',
          locations: [{ line: 1, column: 25 }],
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        },
      ]);
    }
  });

  it('refuses a negative or fractional UInt64 literal', async () => {
    const negative = await gql.request(`query { userExample(id: -1) { id } }`, { token: admin });
    expect(negative.status).toBe(400);
    expect(negative.errors?.[0]?.message).toBe('UInt64 cannot represent "-1": expected an unsigned 64-bit integer as a decimal string');
    const fraction = await gql.request(`query { userExample(id: 1.5) { id } }`, { token: admin });
    expect(fraction.status).toBe(400);
    expect(fraction.errors?.[0]?.message).toBe(
      'UInt64 cannot represent a FloatValue literal: expected an unsigned 64-bit integer as a decimal string',
    );
  });

  it('refuses a JSON number variable above 2^53 (its digits are already lost) with BAD_USER_INPUT', async () => {
    const reply = await gql.request(GET, { rawVariables: `{"id": ${big}}`, token: admin });
    expect(reply.errors).toEqual([
      {
        message:
          'Variable "$id" got invalid value 9007199254740992; UInt64 cannot take the JSON number 9007199254740992: a number beyond 2^53 has already lost digits; send 64-bit integers as strings',
        extensions: { code: 'BAD_USER_INPUT', serviceName: 'users' },
      },
    ]);
    expect(reply.data).toEqual({ userExample: null });
  });

  it('accepts a JSON number variable while it is a safe integer', async () => {
    const reply = await gql.request(GET, { rawVariables: `{"id": ${smallId}}`, token: admin });
    expect(reply.errors).toBeUndefined();
    expect(reply.data.userExample.id).toBe(smallId);
  });

  it('refuses an out-of-range Int64 loginAt variable with BAD_USER_INPUT', async () => {
    const id = await create();
    const reply = await gql.request(UPDATE, {
      variables: { id, input: { loginAt: '9223372036854775808' } },
      token: admin,
    });
    expect(reply.errors).toEqual([
      {
        message:
          'Variable "$input" got invalid value "9223372036854775808" at "input.loginAt"; Int64 cannot represent "9223372036854775808": expected a signed 64-bit integer as a decimal string',
        extensions: { code: 'BAD_USER_INPUT', serviceName: 'users' },
      },
    ]);
    const max = await gql.request(UPDATE, { variables: { id, input: { loginAt: '9223372036854775807' } }, token: admin });
    expect(max.errors).toBeUndefined();
    expect((await read(id)).loginAt).toBe('9223372036854775807');
  });
});
