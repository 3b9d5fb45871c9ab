import { gzipSync } from 'node:zlib';
import jwt from 'jsonwebtoken';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { badRequestBody, createRestClient, statusBody, type RestClient, type RestReply } from '../support/rest-client.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../support/test-system.ts';

/**
 * Front-door tests of Area A over REST: real HTTP requests (global fetch) to the REST adapter, which runs each path as a
 * GraphQL operation through the gateway into the users subgraph. Replies are checked as whole bodies, and as raw text
 * where digits or the absence of a key matter.
 */

const BASE = '/api/v1/userExample';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

const CREATE_REQUEST = 'CreateUserExampleRequest';
const LIST_REQUEST = 'ListUserExampleRequest';
const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';

/** The create rules' descriptions (protoc-gen-validate wording, the same on every transport). */
const RULE = {
  name: 'value length must be at least 2 runes',
  email: 'value must be a valid email address',
  password: 'value length must be at least 10 runes',
  phone: 'value does not match regex pattern "^1[3456789]\\d{9}$"',
  avatarAbsolute: 'value must be absolute',
  age: 'value must be inside range [0, 120]',
  gender: 'value must be one of the defined enum values',
  id: 'value must be greater than or equal to 1',
} as const;

const MISSING_TOKEN = 'missing bearer token: send "Authorization: Bearer <JWT>"';
const MALFORMED_HEADER = 'malformed Authorization header: expected "Bearer <JWT>"';

type Gender = 'UNKNOWN' | 'MALE' | 'FEMALE';

interface CreateBody {
  name: string;
  email: string;
  password: string;
  phone: string;
  avatar: string;
  age: number;
  gender: Gender | number;
}

let sequence = 0;

/** A valid create request with a unique e-mail address. */
function newUser(overrides: Partial<CreateBody> = {}): CreateBody {
  sequence += 1;
  return {
    name: `Ada ${sequence}`,
    email: `ada.${sequence}@example.com`,
    password: 'analytical-engine',
    phone: '13800138000',
    avatar: 'https://example.com/ada.png',
    age: 36,
    gender: 'FEMALE',
    ...overrides,
  };
}

/** The record a GET must return for a freshly created body (status and loginAt start at zero). */
function freshRecord(id: string, input: CreateBody, gender: Gender = input.gender as Gender) {
  return {
    id,
    name: input.name,
    email: input.email,
    phone: input.phone,
    avatar: input.avatar,
    age: input.age,
    gender,
    status: 0,
    loginAt: '0',
    createdAt: expect.stringMatching(RFC3339),
    updatedAt: expect.stringMatching(RFC3339),
  };
}

/** The message the service writes for a set of violations: `invalid <subject>: field: description; …`. */
function violationMessage(subject: string, violations: { field: string; description: string }[]) {
  return `invalid ${subject}: ${violations.map((v) => `${v.field}: ${v.description}`).join('; ')}`;
}

function expectJson(reply: RestReply) {
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
}

function expectNoPassword(reply: RestReply) {
  expect(reply.text).not.toMatch(/password/i);
}

/** Helpers bound to one running system. */
function helpers(getSystem: () => TestSystem, getClient: () => RestClient) {
  const admin = () => getSystem().adminToken();
  return {
    admin,
    async create(input: CreateBody | Record<string, unknown>): Promise<string> {
      const reply = await getClient().request('POST', BASE, { json: input });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toEqual({ id: expect.stringMatching(/^[1-9]\d*$/) });
      return reply.body.id as string;
    },
    async get(id: string) {
      const reply = await getClient().request('GET', `${BASE}/${id}`, { token: admin() });
      expect(reply.status, reply.text).toBe(200);
      expectNoPassword(reply);
      return reply.body.userExample as Record<string, unknown>;
    },
  };
}

describe.each([
  { topology: 'embedded', start: () => startTestSystem() },
  { topology: 'distributed (users subgraph over HTTP behind the gateway)', start: () => startDistributedTestSystem() },
])('REST Area A, core paths, $topology', ({ start }) => {
  let system: TestSystem;
  let rest: RestClient;
  const h = helpers(
    () => system,
    () => rest,
  );

  beforeAll(async () => {
    system = await start();
    rest = createRestClient(system.restUrl);
  });
  afterAll(async () => {
    await system?.close();
  });

  it('creates, reads, updates, lists and deletes a record', async () => {
    const input = newUser({ name: 'Core Path', gender: 'MALE' });
    const created = await rest.request('POST', BASE, { json: input });
    expect(created.status).toBe(200);
    expectJson(created);
    expect(created.body).toEqual({ id: expect.stringMatching(/^[1-9]\d*$/) });
    const id = created.body.id as string;

    const read = await rest.request('GET', `${BASE}/${id}`, { token: system.userToken('somebody-else') });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ userExample: freshRecord(id, input, 'MALE') });
    expectNoPassword(read);

    const updated = await rest.request('PUT', `${BASE}/${id}`, { token: h.admin(), json: { age: 0, status: 2, loginAt: '42' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({});
    expect(await h.get(id)).toEqual({ ...freshRecord(id, input, 'MALE'), age: 0, status: 2, loginAt: '42' });

    const listed = await rest.request('POST', `${BASE}/list`, {
      token: h.admin(),
      json: { params: { page: 0, limit: 10, columns: [{ name: 'id', exp: 'eq', value: id }] } },
    });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ total: '1', userExamples: [{ ...freshRecord(id, input, 'MALE'), age: 0, status: 2, loginAt: '42' }] });
    expectNoPassword(listed);

    const deleted = await rest.request('DELETE', `${BASE}/${id}`, { token: h.admin() });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    const gone = await rest.request('GET', `${BASE}/${id}`, { token: h.admin() });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual(statusBody(5, `userExample ${id} not found`));
  });

  it('rejects a create breaking every rule with 400 and all field violations', async () => {
    const reply = await rest.request('POST', BASE, {
      json: { name: 'A', email: 'nope', password: 'short', phone: '123', avatar: 'a.png', age: 121, gender: 3 },
    });
    const violations = [
      { field: 'name', description: RULE.name },
      { field: 'email', description: RULE.email },
      { field: 'password', description: RULE.password },
      { field: 'phone', description: RULE.phone },
      { field: 'avatar', description: RULE.avatarAbsolute },
      { field: 'age', description: RULE.age },
      { field: 'gender', description: RULE.gender },
    ];
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(badRequestBody(violationMessage(CREATE_REQUEST, violations), violations));
  });

  it('rejects a read without a token with 401 and a WWW-Authenticate header', async () => {
    const reply = await rest.request('GET', `${BASE}/1`);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(statusBody(16, MISSING_TOKEN));
    // No credential was sent: the bare challenge, without an error code (RFC 6750 §3.1).
    expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="tributary"');
  });

  it('answers 404 for a missing id and 409 for a duplicate e-mail', async () => {
    const missing = await rest.request('GET', `${BASE}/987654321`, { token: h.admin() });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(statusBody(5, 'userExample 987654321 not found'));

    const input = newUser();
    await h.create(input);
    const duplicate = await rest.request('POST', BASE, { json: { ...newUser(), email: input.email } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual(statusBody(6, 'a user with this email already exists'));
  });

  it('lets a user update itself but refuses another user with 403 (the token reaches the subgraph)', async () => {
    const input = newUser();
    const id = await h.create(input);
    const self = await rest.request('PUT', `${BASE}/${id}`, { token: system.userToken(id), json: { name: 'Self' } });
    expect(self.status).toBe(200);
    expect(self.body).toEqual({});
    const other = await rest.request('PUT', `${BASE}/${id}`, { token: system.userToken(`${id}0`), json: { name: 'Other' } });
    expect(other.status).toBe(403);
    expect(other.body).toEqual(statusBody(7, 'permission denied: only the user itself or an administrator may update this userExample'));
    expect(await h.get(id)).toEqual({ ...freshRecord(id, input), name: 'Self' });
  });

  it('reports a wrong type in the body with 400 naming the field', async () => {
    const reply = await rest.request('POST', BASE, { json: { ...newUser(), age: 'abc' } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(
      badRequestBody(expect.stringContaining('age'), [{ field: 'age', description: 'expected a 32-bit integer, got "abc"' }]),
    );
  });

  it('keeps every digit of an int64 sent as a JSON number', async () => {
    const id = await h.create(newUser());
    const reply = await rest.request('PUT', `${BASE}/${id}`, { token: h.admin(), raw: '{"loginAt":9223372036854775807}' });
    expect(reply.status, reply.text).toBe(200);
    const read = await rest.request('GET', `${BASE}/${id}`, { token: h.admin() });
    expect(read.text).toContain('"loginAt":"9223372036854775807"');
  });

  // Last in this block: every later id of this system is past 2^53.
  it('round-trips an id above 2^53 exactly', async () => {
    await sql`alter table users.user_example alter column id restart with 9007199254740993`.execute(system.database.db);
    const input = newUser();
    const created = await rest.request('POST', BASE, { json: input });
    expect(created.text).toBe('{"id":"9007199254740993"}');
    const read = await rest.request('GET', `${BASE}/9007199254740993`, { token: h.admin() });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ userExample: freshRecord('9007199254740993', input) });
    expect((await rest.request('GET', `${BASE}/9007199254740992`, { token: h.admin() })).status).toBe(404);
    const updated = await rest.request('PUT', `${BASE}/9007199254740993`, { token: h.admin(), json: { age: 1 } });
    expect(updated.status).toBe(200);
    const listed = await rest.request('POST', `${BASE}/list`, {
      token: h.admin(),
      json: { params: { columns: [{ name: 'id', value: '9007199254740993' }] } },
    });
    expect(listed.body).toEqual({ total: '1', userExamples: [{ ...freshRecord('9007199254740993', input), age: 1 }] });
  });
});

describe('REST Area A (embedded)', () => {
  let system: TestSystem;
  let rest: RestClient;
  const h = helpers(
    () => system,
    () => rest,
  );
  const admin = () => system.adminToken();

  beforeAll(async () => {
    system = await startTestSystem();
    rest = createRestClient(system.restUrl);
  });
  afterAll(async () => {
    await system?.close();
  });

  describe('success of each operation', () => {
    it('Create answers 200 {id} with the id as a decimal string', async () => {
      const reply = await rest.request('POST', BASE, { json: newUser() });
      expect(reply.status).toBe(200);
      expectJson(reply);
      expect(reply.body).toEqual({ id: expect.stringMatching(/^[1-9]\d*$/) });
      expect(reply.text).toMatch(/^\{"id":"[1-9]\d*"\}$/);
    });

    it('Get answers {userExample} with every field, zero values present, enums by name and no password', async () => {
      const input = newUser({ name: 'Grace Hopper', gender: 'FEMALE' });
      const id = await h.create(input);
      const reply = await rest.request('GET', `${BASE}/${id}`, { token: system.userToken('a-reader') });
      expect(reply.status).toBe(200);
      expectJson(reply);
      expect(reply.body).toEqual({
        userExample: {
          id,
          name: 'Grace Hopper',
          email: input.email,
          phone: '13800138000',
          avatar: 'https://example.com/ada.png',
          age: 36,
          gender: 'FEMALE',
          status: 0,
          loginAt: '0',
          createdAt: expect.stringMatching(RFC3339),
          updatedAt: expect.stringMatching(RFC3339),
        },
      });
      expect(Object.keys(reply.body.userExample).sort()).toEqual(
        ['age', 'avatar', 'createdAt', 'email', 'gender', 'id', 'loginAt', 'name', 'phone', 'status', 'updatedAt'].sort(),
      );
      const record = reply.body.userExample;
      expect(Number.isNaN(Date.parse(record.createdAt))).toBe(false);
      expect(record.updatedAt).toBe(record.createdAt);
      // int64 as strings, int32 as numbers, in the raw text too.
      expect(reply.text).toContain(`"id":"${id}"`);
      expect(reply.text).toContain('"loginAt":"0"');
      expect(reply.text).toContain('"status":0');
      expectNoPassword(reply);
      expect(reply.text).not.toContain(input.password);
    });

    it('Update answers {} and the change is read back', async () => {
      const input = newUser();
      const id = await h.create(input);
      const reply = await rest.request('PUT', `${BASE}/${id}`, {
        token: admin(),
        json: { name: 'Renamed', phone: '13900139000', gender: 'MALE', status: 3, loginAt: '1700000000' },
      });
      expect(reply.status).toBe(200);
      expectJson(reply);
      expect(reply.body).toEqual({});
      expect(reply.text).toBe('{}');
      const record = await h.get(id);
      expect(record).toEqual({
        ...freshRecord(id, input),
        name: 'Renamed',
        phone: '13900139000',
        gender: 'MALE',
        status: 3,
        loginAt: '1700000000',
      });
      expect(Date.parse(record.updatedAt as string)).toBeGreaterThanOrEqual(Date.parse(record.createdAt as string));
    });

    it('Update of the password is accepted and never echoed', async () => {
      const id = await h.create(newUser());
      const reply = await rest.request('PUT', `${BASE}/${id}`, { token: admin(), json: { password: 'a-brand-new-secret' } });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({});
      const read = await rest.request('GET', `${BASE}/${id}`, { token: admin() });
      expectNoPassword(read);
      expect(read.text).not.toContain('a-brand-new-secret');
    });

    it('Delete answers {} and the record then reads as 404', async () => {
      const id = await h.create(newUser());
      const reply = await rest.request('DELETE', `${BASE}/${id}`, { token: admin() });
      expect(reply.status).toBe(200);
      expectJson(reply);
      expect(reply.body).toEqual({});
      const gone = await rest.request('GET', `${BASE}/${id}`, { token: admin() });
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual(statusBody(5, `userExample ${id} not found`));
      const listed = await rest.request('POST', `${BASE}/list`, {
        token: admin(),
        json: { params: { columns: [{ name: 'id', value: id }] } },
      });
      expect(listed.body).toEqual({ total: '0', userExamples: [] });
    });

    it('List answers {total, userExamples} with whole records and no password', async () => {
      const first = newUser({ name: 'Listed One' });
      const second = newUser({ name: 'Listed Two', gender: 'MALE', age: 50 });
      const firstId = await h.create(first);
      const secondId = await h.create(second);
      const reply = await rest.request('POST', `${BASE}/list`, {
        token: system.userToken('any-signed-in-user'),
        json: { params: { page: 0, limit: 10, sort: 'id', columns: [{ name: 'name', exp: 'like', value: 'Listed ' }] } },
      });
      expect(reply.status).toBe(200);
      expectJson(reply);
      expect(reply.body).toEqual({
        total: '2',
        userExamples: [freshRecord(firstId, first), freshRecord(secondId, second)],
      });
      expect(reply.text).toMatch(/^\{"total":"2","userExamples":\[/);
      expectNoPassword(reply);
    });
  });

  describe('protojson input', () => {
    it.each([
      ['MALE', 'MALE'],
      [1, 'MALE'],
      ['FEMALE', 'FEMALE'],
      [2, 'FEMALE'],
      ['UNKNOWN', 'UNKNOWN'],
      [0, 'UNKNOWN'],
    ] as const)('accepts gender %j on create and renders it as %s', async (gender, name) => {
      const input = newUser({ gender });
      const id = await h.create(input);
      expect(await h.get(id)).toEqual(freshRecord(id, input, name));
    });

    it('accepts gender by name and by number on update', async () => {
      const id = await h.create(newUser({ gender: 'UNKNOWN' }));
      let reply = await rest.request('PUT', `${BASE}/${id}`, { token: admin(), json: { gender: 'MALE' } });
      expect(reply.status).toBe(200);
      expect((await h.get(id)).gender).toBe('MALE');
      reply = await rest.request('PUT', `${BASE}/${id}`, { token: admin(), json: { gender: 2 } });
      expect(reply.status).toBe(200);
      expect((await h.get(id)).gender).toBe('FEMALE');
    });

    it('accepts the proto field name login_at as well as loginAt on update', async () => {
      const id = await h.create(newUser());
      let reply = await rest.request('PUT', `${BASE}/${id}`, { token: admin(), json: { login_at: '1234567890' } });
      expect(reply.status, reply.text).toBe(200);
      expect((await h.get(id)).loginAt).toBe('1234567890');
      reply = await rest.request('PUT', `${BASE}/${id}`, { token: admin(), json: { loginAt: 987 } });
      expect(reply.status, reply.text).toBe(200);
      expect((await h.get(id)).loginAt).toBe('987');
    });

    it('rejects loginAt and login_at given together', async () => {
      const id = await h.create(newUser());
      const reply = await rest.request('PUT', `${BASE}/${id}`, { token: admin(), json: { loginAt: '1', login_at: '2' } });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(
        badRequestBody(expect.stringContaining('login_at'), [{ field: 'login_at', description: 'field "loginAt" given twice' }]),
      );
    });

    it('accepts int32 fields as numeric strings and integral numbers', async () => {
      const input = newUser();
      const reply = await rest.request('POST', BASE, { raw: JSON.stringify({ ...input, age: '41' }) });
      expect(reply.status, reply.text).toBe(200);
      expect((await h.get(reply.body.id)).age).toBe(41);
      const other = newUser();
      const raw = JSON.stringify({ ...other, age: 0 }).replace('"age":0', '"age":42.0');
      const second = await rest.request('POST', BASE, { raw });
      expect(second.status, second.text).toBe(200);
      expect((await h.get(second.body.id)).age).toBe(42);
    });

    it('keeps int64 values at both ends of the range exactly, sent as JSON numbers', async () => {
      const id = await h.create(newUser());
      let reply = await rest.request('PUT', `${BASE}/${id}`, { token: admin(), raw: '{"loginAt":9223372036854775807}' });
      expect(reply.status, reply.text).toBe(200);
      let read = await rest.request('GET', `${BASE}/${id}`, { token: admin() });
      expect(read.text).toContain('"loginAt":"9223372036854775807"');
      reply = await rest.request('PUT', `${BASE}/${id}`, { token: admin(), raw: '{"login_at":-9223372036854775808}' });
      expect(reply.status, reply.text).toBe(200);
      read = await rest.request('GET', `${BASE}/${id}`, { token: admin() });
      expect(read.text).toContain('"loginAt":"-9223372036854775808"');
    });

    it('rejects an int64 one past the maximum instead of rounding it', async () => {
      const id = await h.create(newUser());
      const reply = await rest.request('PUT', `${BASE}/${id}`, { token: admin(), raw: '{"loginAt":9223372036854775808}' });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(
        badRequestBody(expect.stringContaining('loginAt'), [
          { field: 'loginAt', description: 'expected a 64-bit integer, got 9223372036854775808' },
        ]),
      );
      expect((await h.get(id)).loginAt).toBe('0');
    });
  });

  describe('create validation', () => {
    const cases: [string, Partial<CreateBody>, { field: string; description: string }][] = [
      ['a 1-character name', { name: 'A' }, { field: 'name', description: RULE.name }],
      ['a 1-rune name of two UTF-16 units', { name: '😀' }, { field: 'name', description: RULE.name }],
      ['a malformed e-mail', { email: 'not-an-email' }, { field: 'email', description: RULE.email }],
      ['an e-mail without a local part', { email: '@example.com' }, { field: 'email', description: RULE.email }],
      ['a 9-character password', { password: '123456789' }, { field: 'password', description: RULE.password }],
      ['a phone off the pattern', { phone: '12345678901' }, { field: 'phone', description: RULE.phone }],
      ['a short phone', { phone: '1380013800' }, { field: 'phone', description: RULE.phone }],
      ['a relative avatar', { avatar: 'images/ada.png' }, { field: 'avatar', description: RULE.avatarAbsolute }],
      ['age -1', { age: -1 }, { field: 'age', description: RULE.age }],
      ['age 121', { age: 121 }, { field: 'age', description: RULE.age }],
      ['gender 3', { gender: 3 }, { field: 'gender', description: RULE.gender }],
      ['gender -1', { gender: -1 }, { field: 'gender', description: RULE.gender }],
    ];

    it.each(cases)('rejects %s alone with 400 and one field violation', async (_label, override, violation) => {
      const input = newUser(override);
      const reply = await rest.request('POST', BASE, { json: input });
      expect(reply.status).toBe(400);
      expectJson(reply);
      expect(reply.body).toEqual(badRequestBody(violationMessage(CREATE_REQUEST, [violation]), [violation]));
      // Nothing was stored under that address.
      const listed = await rest.request('POST', `${BASE}/list`, {
        token: admin(),
        json: { params: { columns: [{ name: 'email', value: input.email }] } },
      });
      expect(listed.body).toEqual({ total: '0', userExamples: [] });
    });

    it('reports every violation at once when every rule is broken', async () => {
      const reply = await rest.request('POST', BASE, {
        json: { name: 'A', email: 'bad@', password: '123456789', phone: '999', avatar: '/relative', age: -1, gender: 3 },
      });
      const violations = [
        { field: 'name', description: RULE.name },
        { field: 'email', description: RULE.email },
        { field: 'password', description: RULE.password },
        { field: 'phone', description: RULE.phone },
        { field: 'avatar', description: RULE.avatarAbsolute },
        { field: 'age', description: RULE.age },
        { field: 'gender', description: RULE.gender },
      ];
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({
        code: 3,
        message: violationMessage(CREATE_REQUEST, violations),
        details: [{ '@type': BAD_REQUEST_TYPE, fieldViolations: violations }],
      });
    });

    it('reports every violation at once with a defined gender too (the service path)', async () => {
      const reply = await rest.request('POST', BASE, {
        json: { name: 'A', email: 'bad@', password: '123456789', phone: '999', avatar: '/relative', age: 121, gender: 'MALE' },
      });
      const violations = [
        { field: 'name', description: RULE.name },
        { field: 'email', description: RULE.email },
        { field: 'password', description: RULE.password },
        { field: 'phone', description: RULE.phone },
        { field: 'avatar', description: RULE.avatarAbsolute },
        { field: 'age', description: RULE.age },
      ];
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(badRequestBody(violationMessage(CREATE_REQUEST, violations), violations));
    });

    it.each([
      ['an empty object', '{}'],
      ['an empty body', ''],
    ])('treats missing fields as zero values: %s fails every string rule', async (_label, raw) => {
      const reply = await rest.request('POST', BASE, { raw });
      const violations = [
        { field: 'name', description: RULE.name },
        { field: 'email', description: RULE.email },
        { field: 'password', description: RULE.password },
        { field: 'phone', description: RULE.phone },
        { field: 'avatar', description: RULE.avatarAbsolute },
      ];
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(badRequestBody(violationMessage(CREATE_REQUEST, violations), violations));
    });

    it('treats null as an absent field', async () => {
      const reply = await rest.request('POST', BASE, { json: { ...newUser(), name: null } });
      const violation = { field: 'name', description: RULE.name };
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(badRequestBody(violationMessage(CREATE_REQUEST, [violation]), [violation]));
    });

    it.each([
      ['a 2-character name', { name: 'Al' }],
      ['a 2-rune name of four UTF-16 units', { name: '😀😀' }],
      ['a 10-character password', { password: '1234567890' }],
      ['age 0', { age: 0 }],
      ['age 120', { age: 120 }],
      ['gender 0', { gender: 0 }],
    ] as [string, Partial<CreateBody>][])('accepts the boundary value: %s', async (_label, override) => {
      const input = newUser(override);
      const id = await h.create(input);
      const gender = typeof input.gender === 'number' ? (['UNKNOWN', 'MALE', 'FEMALE'] as const)[input.gender]! : input.gender;
      expect(await h.get(id)).toEqual(freshRecord(id, input, gender));
    });
  });

  describe('list', () => {
    const tag = 'zqlisttag';
    const names = { a: `${tag}-a`, b: `${tag}-b`, c: `${tag}-c`, d: `${tag}-d`, e: `${tag}-e` };
    const ids: Record<keyof typeof names, string> = { a: '', b: '', c: '', d: '', e: '' };
    const ages = { a: 30, b: 20, c: 30, d: 20, e: 40 };
    const genders: Record<keyof typeof names, Gender> = { a: 'MALE', b: 'FEMALE', c: 'FEMALE', d: 'UNKNOWN', e: 'MALE' };
    const inputs = {} as Record<keyof typeof names, CreateBody>;
    const tagged = { name: 'name', exp: 'like', value: tag };

    beforeAll(async () => {
      for (const key of Object.keys(names) as (keyof typeof names)[]) {
        inputs[key] = newUser({ name: names[key], age: ages[key], gender: genders[key] });
        ids[key] = await h.create(inputs[key]);
      }
    });

    async function list(params: unknown, token = admin()): Promise<RestReply> {
      return rest.request('POST', `${BASE}/list`, { token, json: { params } });
    }

    /** Names of the tagged records matching `columns` (ANDed after the tag filter), sorted by name. */
    async function namesWhere(columns: Record<string, unknown>[], sort = 'name'): Promise<string[]> {
      const reply = await list({ limit: 100, sort, columns: [{ ...tagged, logic: 'and' }, ...columns] });
      expect(reply.status, reply.text).toBe(200);
      const found = (reply.body.userExamples as { name: string }[]).map((r) => r.name);
      expect(reply.body.total).toBe(String(found.length));
      return found;
    }

    it('walks pages 0, 1, 2 with limit 2: no duplicates, no gaps, total right', async () => {
      const seen: string[] = [];
      const pageSizes: number[] = [];
      for (const page of [0, 1, 2]) {
        const reply = await list({ page, limit: 2, sort: 'name', columns: [tagged] });
        expect(reply.status).toBe(200);
        expect(reply.body.total).toBe('5');
        pageSizes.push(reply.body.userExamples.length);
        seen.push(...(reply.body.userExamples as { id: string }[]).map((r) => r.id));
      }
      expect(pageSizes).toEqual([2, 2, 1]);
      expect(seen).toEqual([ids.a, ids.b, ids.c, ids.d, ids.e]);
      expect(new Set(seen).size).toBe(5);
      const beyond = await list({ page: 3, limit: 2, sort: 'name', columns: [tagged] });
      expect(beyond.status).toBe(200);
      expect(beyond.body).toEqual({ total: '5', userExamples: [] });
    });

    it('returns whole records in the page', async () => {
      const reply = await list({ page: 0, limit: 2, sort: 'name', columns: [tagged] });
      expect(reply.body).toEqual({
        total: '5',
        userExamples: [freshRecord(ids.a, inputs.a), freshRecord(ids.b, inputs.b)],
      });
    });

    it('pages stably on ties (a unique tiebreak keeps rows in one order)', async () => {
      const seen: string[] = [];
      for (const page of [0, 1, 2, 3, 4]) {
        const reply = await list({ page, limit: 1, sort: 'age', columns: [tagged] });
        seen.push(...(reply.body.userExamples as { name: string }[]).map((r) => r.name));
      }
      expect(new Set(seen).size).toBe(5);
      expect(seen.map((name) => ages[name.slice(-1) as keyof typeof ages])).toEqual([20, 20, 30, 30, 40]);
    });

    it('sorts by several keys: "-age,name"', async () => {
      expect(await namesWhere([], '-age,name')).toEqual([names.e, names.a, names.c, names.b, names.d]);
    });

    it('sorts by several keys: "age,-name"', async () => {
      expect(await namesWhere([], 'age,-name')).toEqual([names.d, names.b, names.c, names.a, names.e]);
    });

    it('sorts by JSON names and tolerates spaces: " -loginAt , -name "', async () => {
      expect(await namesWhere([], ' -loginAt , -name ')).toEqual([names.e, names.d, names.c, names.b, names.a]);
    });

    it('defaults to newest id first when sort is empty', async () => {
      expect(await namesWhere([], '')).toEqual([names.e, names.d, names.c, names.b, names.a]);
    });

    const operators: [string, string, string[]][] = [
      ['eq', '30', ['a', 'c']],
      ['=', '30', ['a', 'c']],
      ['', '30', ['a', 'c']],
      ['EQ', '30', ['a', 'c']],
      ['neq', '30', ['b', 'd', 'e']],
      ['!=', '30', ['b', 'd', 'e']],
      ['gt', '30', ['e']],
      ['>', '30', ['e']],
      ['gte', '30', ['a', 'c', 'e']],
      ['>=', '30', ['a', 'c', 'e']],
      ['lt', '30', ['b', 'd']],
      ['<', '30', ['b', 'd']],
      ['lte', '30', ['a', 'b', 'c', 'd']],
      ['<=', '30', ['a', 'b', 'c', 'd']],
      ['in', '20,40', ['b', 'd', 'e']],
      ['in', ' 20 , 40 ', ['b', 'd', 'e']],
      ['notin', '20,40', ['a', 'c']],
      ['not in', '20,40', ['a', 'c']],
    ];
    it.each(operators)('filters age with operator %j and value %j', async (exp, value, expected) => {
      expect(await namesWhere([{ name: 'age', exp, value }])).toEqual(expected.map((k) => names[k as keyof typeof names]));
    });

    it('filters a text column with in/notin over quoted items', async () => {
      expect(await namesWhere([{ name: 'name', exp: 'in', value: `"${names.a}","${names.d}"` }])).toEqual([names.a, names.d]);
      expect(await namesWhere([{ name: 'name', exp: 'notin', value: `${names.a},${names.d}` }])).toEqual([names.b, names.c, names.e]);
    });

    it('filters with like (wrapped as %value%)', async () => {
      expect(await namesWhere([{ name: 'name', exp: 'like', value: '-c' }])).toEqual([names.c]);
    });

    it('filters with like keeping a leading wildcard as given', async () => {
      expect(await namesWhere([{ name: 'name', exp: 'like', value: '%-d' }])).toEqual([names.d]);
    });

    it('treats % and _ inside a like value literally', async () => {
      expect(await namesWhere([{ name: 'name', exp: 'like', value: 'a%b' }])).toEqual([]);
    });

    it.each(['isnull', 'is null'])('filters with %j (no column is ever null)', async (exp) => {
      expect(await namesWhere([{ name: 'phone', exp }])).toEqual([]);
    });

    it.each(['isnotnull', 'is not null'])('filters with %j', async (exp) => {
      expect(await namesWhere([{ name: 'phone', exp }])).toEqual([names.a, names.b, names.c, names.d, names.e]);
    });

    it('filters an enum column by name and by number', async () => {
      expect(await namesWhere([{ name: 'gender', value: 'MALE' }])).toEqual([names.a, names.e]);
      expect(await namesWhere([{ name: 'gender', value: '2' }])).toEqual([names.b, names.c]);
    });

    it('filters by id, and accepts a JSON number as a value', async () => {
      expect(await namesWhere([{ name: 'id', exp: 'eq', value: ids.c }])).toEqual([names.c]);
      expect(await namesWhere([{ name: 'age', exp: 'eq', value: 40 }])).toEqual([names.e]);
    });

    it('filters timestamps', async () => {
      expect(await namesWhere([{ name: 'created_at', exp: 'gt', value: '2000-01-01T00:00:00Z' }])).toHaveLength(5);
      expect(await namesWhere([{ name: 'createdAt', exp: 'lt', value: '2000-01-01' }])).toEqual([]);
    });

    it('joins conditions with and', async () => {
      expect(await namesWhere([{ name: 'age', exp: 'eq', value: '30', logic: 'and' }, { name: 'gender', value: 'FEMALE' }])).toEqual([
        names.c,
      ]);
      expect(await namesWhere([{ name: 'age', exp: 'eq', value: '30', logic: '&&' }, { name: 'gender', value: 'MALE' }])).toEqual([
        names.a,
      ]);
    });

    it('joins conditions with or', async () => {
      const reply = await list({
        sort: 'name',
        columns: [
          { name: 'name', value: names.a, logic: 'or' },
          { name: 'name', value: names.e, logic: '||' },
        ],
      });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ total: '2', userExamples: [freshRecord(ids.a, inputs.a), freshRecord(ids.e, inputs.e)] });
    });

    it('binds and tighter than or without grouping', async () => {
      // a OR (b AND age = 30): b is 20, so only a.
      const reply = await list({
        sort: 'name',
        columns: [
          { name: 'name', value: names.a, logic: 'or' },
          { name: 'name', value: names.b, logic: 'and' },
          { name: 'age', value: '30' },
        ],
      });
      expect((reply.body.userExamples as { name: string }[]).map((r) => r.name)).toEqual([names.a]);
    });

    it('groups with "or:(" … "and:)"', async () => {
      // tag AND (age = 20 OR age = 40)
      expect(
        await namesWhere([
          { name: 'age', value: '20', logic: 'or:(' },
          { name: 'age', value: '40', logic: 'and:)' },
        ]),
      ).toEqual([names.b, names.d, names.e]);
    });

    it('groups so that or binds first: (a OR b) AND age = 20', async () => {
      const reply = await list({
        sort: 'name',
        columns: [
          { name: 'name', value: names.a, logic: 'or:(' },
          { name: 'name', value: names.b, logic: 'and:)' },
          { name: 'age', value: '20' },
        ],
      });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ total: '1', userExamples: [freshRecord(ids.b, inputs.b)] });
    });

    it('rejects unbalanced groups with 400', async () => {
      const reply = await list({ columns: [{ ...tagged, logic: 'or:(' }, { name: 'age', value: '20' }] });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(
        badRequestBody(expect.stringContaining('parentheses'), [
          { field: 'params.columns', description: 'mismatched parentheses in logic' },
        ]),
      );
    });

    it('skips the count with sort "ignore count" (total 0, newest first)', async () => {
      const reply = await list({ limit: 2, sort: 'ignore count', columns: [tagged] });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ total: '0', userExamples: [freshRecord(ids.e, inputs.e), freshRecord(ids.d, inputs.d)] });
    });

    it('answers an empty page far past the end', async () => {
      const reply = await list({ page: 2147483647, limit: 1000, columns: [tagged] });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toEqual({ total: '5', userExamples: [] });
    });

    it('accepts limit 1000 and limit 0 (the default)', async () => {
      for (const limit of [1000, 0]) {
        const reply = await list({ limit, columns: [tagged] });
        expect(reply.status, reply.text).toBe(200);
        expect(reply.body.total).toBe('5');
      }
    });

    /** Asserts a 400 whose single violation is on `field` and whose message and description name `named`. */
    function expectListViolation(reply: RestReply, field: string, named: string) {
      expect(reply.status, reply.text).toBe(400);
      expect(reply.body).toEqual(
        badRequestBody(expect.stringContaining(named), [{ field, description: expect.stringContaining(named) }]),
      );
      expect(reply.body.message).toMatch(new RegExp(`^invalid ${LIST_REQUEST}: `));
    }

    it('rejects an unknown column with 400 naming it', async () => {
      expectListViolation(await list({ columns: [{ name: 'shoe_size', exp: 'eq', value: '1' }] }), 'params.columns[0].name', "'shoe_size'");
    });

    it('rejects the password column as a filter', async () => {
      expectListViolation(await list({ columns: [{ name: 'password', value: 'x' }] }), 'params.columns[0].name', "'password'");
    });

    it('rejects an unknown operator with 400 naming it', async () => {
      expectListViolation(
        await list({ columns: [tagged, { name: 'age', exp: 'approx', value: '1' }] }),
        'params.columns[1].exp',
        "'approx'",
      );
    });

    it('rejects an unknown sort key with 400 naming it', async () => {
      expectListViolation(await list({ sort: 'age,-shoe_size', columns: [tagged] }), 'params.sort', "'shoe_size'");
    });

    it('rejects an unknown logic with 400 naming it', async () => {
      expectListViolation(await list({ columns: [{ ...tagged, logic: 'xor' }, { name: 'age', value: '1' }] }), 'params.columns[0].logic', "'xor'");
    });

    it.each([1001, -1])('rejects limit %i with 400 instead of clamping it', async (limit) => {
      expectListViolation(await list({ limit, columns: [tagged] }), 'params.limit', '1000');
    });

    it('rejects page -1 with 400', async () => {
      expectListViolation(await list({ page: -1, limit: 2 }), 'params.page', '0');
    });

    it.each([
      ['an empty body', { raw: '{}' }],
      ['params null', { raw: '{"params":null}' }],
    ])('rejects missing params with 400: %s', async (_label, body) => {
      const reply = await rest.request('POST', `${BASE}/list`, { token: admin(), ...body });
      const violation = { field: 'params', description: 'value is required' };
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(badRequestBody(violationMessage(LIST_REQUEST, [violation]), [violation]));
    });

    it('rejects a value of the wrong type for an integer column with 400', async () => {
      expectListViolation(await list({ columns: [{ name: 'age', exp: 'gt', value: 'abc' }] }), 'params.columns[0].value', "'abc'");
      expectListViolation(await list({ columns: [{ name: 'id', exp: 'in', value: '1,two' }] }), 'params.columns[0].value', "'two'");
      expectListViolation(await list({ columns: [{ name: 'age', value: '1.5' }] }), 'params.columns[0].value', "'1.5'");
    });

    it('rejects a missing value for an operator that needs one', async () => {
      expectListViolation(await list({ columns: [{ name: 'age', exp: 'gt' }] }), 'params.columns[0].value', "'value'");
    });

    it('rejects like on a non-text column', async () => {
      expectListViolation(await list({ columns: [{ name: 'age', exp: 'like', value: '3' }] }), 'params.columns[0].exp', 'like');
    });

    it('rejects an unknown field inside params with 400 naming it', async () => {
      const reply = await list({ size: 10 });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(
        badRequestBody(expect.stringContaining('size'), [
          { field: 'params.size', description: 'unknown field "size" in api.types.Params' },
        ]),
      );
    });

    it('reports several list problems at once', async () => {
      const reply = await list({ page: -1, limit: 1001, sort: 'nope', columns: [{ name: 'x', exp: 'y', value: '1' }] });
      expect(reply.status).toBe(400);
      expect(reply.body.details[0].fieldViolations.map((v: { field: string }) => v.field)).toEqual([
        'params.page',
        'params.limit',
        'params.sort',
        'params.columns[0].name',
        'params.columns[0].exp',
      ]);
    });
  });

  describe('update semantics', () => {
    it('sets fields to 0 and "" and reads them back exactly', async () => {
      const input = newUser();
      const id = await h.create(input);
      let reply = await rest.request('PUT', `${BASE}/${id}`, { token: admin(), json: { status: 2, loginAt: '1700000000' } });
      expect(reply.status).toBe(200);
      expect(await h.get(id)).toMatchObject({ status: 2, loginAt: '1700000000', age: 36 });

      reply = await rest.request('PUT', `${BASE}/${id}`, {
        token: admin(),
        json: { name: '', age: 0, status: 0, loginAt: '0', phone: '', avatar: '', gender: 0 },
      });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toEqual({});
      expect(await h.get(id)).toEqual({
        ...freshRecord(id, input),
        name: '',
        phone: '',
        avatar: '',
        age: 0,
        gender: 'UNKNOWN',
        status: 0,
        loginAt: '0',
      });
    });

    it('leaves a field absent from the update unchanged', async () => {
      const input = newUser({ name: 'Unchanged Name', age: 33, gender: 'MALE' });
      const id = await h.create(input);
      await rest.request('PUT', `${BASE}/${id}`, { token: admin(), json: { status: 5, loginAt: '77' } });
      const reply = await rest.request('PUT', `${BASE}/${id}`, { token: admin(), json: { age: 34 } });
      expect(reply.status).toBe(200);
      expect(await h.get(id)).toEqual({ ...freshRecord(id, input, 'MALE'), age: 34, status: 5, loginAt: '77' });
    });

    it('accepts an empty update and changes nothing but updatedAt', async () => {
      const input = newUser();
      const id = await h.create(input);
      const reply = await rest.request('PUT', `${BASE}/${id}`, { token: admin(), json: {} });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({});
      expect(await h.get(id)).toEqual(freshRecord(id, input));
    });

    it('ignores an id in the body: PUT /A with {"id": B} changes A only', async () => {
      const aInput = newUser({ name: 'Record A' });
      const bInput = newUser({ name: 'Record B' });
      const a = await h.create(aInput);
      const b = await h.create(bInput);
      const bBefore = await h.get(b);
      const reply = await rest.request('PUT', `${BASE}/${a}`, { token: admin(), json: { id: b, name: 'Changed', age: 99 } });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({});
      expect(await h.get(a)).toEqual({ ...freshRecord(a, aInput), name: 'Changed', age: 99 });
      expect(await h.get(b)).toEqual(bBefore);
    });

    it('ignores a numeric body id as well', async () => {
      const aInput = newUser();
      const a = await h.create(aInput);
      const b = await h.create(newUser());
      const bBefore = await h.get(b);
      const reply = await rest.request('PUT', `${BASE}/${a}`, { token: admin(), raw: `{"id":${b},"age":7}` });
      expect(reply.status).toBe(200);
      expect(await h.get(a)).toEqual({ ...freshRecord(a, aInput), age: 7 });
      expect(await h.get(b)).toEqual(bBefore);
    });

    it('accepts on update values that create would reject (the update body has no declared rules)', async () => {
      const input = newUser();
      const id = await h.create(input);
      const email = `not-an-address-${id}`;
      const reply = await rest.request('PUT', `${BASE}/${id}`, {
        token: admin(),
        json: { name: 'X', email, password: 'short', phone: '42', avatar: 'relative.png', age: 500, status: -3, loginAt: '-1' },
      });
      expect(reply.status, reply.text).toBe(200);
      expect(await h.get(id)).toEqual({
        ...freshRecord(id, input),
        name: 'X',
        email,
        phone: '42',
        avatar: 'relative.png',
        age: 500,
        status: -3,
        loginAt: '-1',
      });
    });

    it('rejects an undefined gender on update', async () => {
      const id = await h.create(newUser());
      const reply = await rest.request('PUT', `${BASE}/${id}`, { token: admin(), json: { gender: 7 } });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(
        badRequestBody(expect.stringContaining('gender'), [{ field: 'gender', description: RULE.gender }]),
      );
    });
  });

  describe('404s', () => {
    const missing = '424242424242';

    it('GET of a missing id answers 404 code 5', async () => {
      const reply = await rest.request('GET', `${BASE}/${missing}`, { token: admin() });
      expect(reply.status).toBe(404);
      expectJson(reply);
      expect(reply.body).toEqual(statusBody(5, `userExample ${missing} not found`));
    });

    it('PUT of a missing id answers 404 code 5', async () => {
      const reply = await rest.request('PUT', `${BASE}/${missing}`, { token: admin(), json: { name: 'Ghost' } });
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual(statusBody(5, `userExample ${missing} not found`));
    });

    it('DELETE of a missing id answers 404 code 5', async () => {
      const reply = await rest.request('DELETE', `${BASE}/${missing}`, { token: admin() });
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual(statusBody(5, `userExample ${missing} not found`));
    });

    it('deleting twice answers 404 the second time, and a deleted record cannot be updated', async () => {
      const id = await h.create(newUser());
      const first = await rest.request('DELETE', `${BASE}/${id}`, { token: admin() });
      expect(first.status).toBe(200);
      const second = await rest.request('DELETE', `${BASE}/${id}`, { token: admin() });
      expect(second.status).toBe(404);
      expect(second.body).toEqual(statusBody(5, `userExample ${id} not found`));
      const update = await rest.request('PUT', `${BASE}/${id}`, { token: admin(), json: { name: 'Zombie' } });
      expect(update.status).toBe(404);
      expect(update.body).toEqual(statusBody(5, `userExample ${id} not found`));
    });
  });

  describe('duplicate e-mail', () => {
    const conflict = statusBody(6, 'a user with this email already exists');

    it('answers 409 code 6 on create with a taken e-mail', async () => {
      const input = newUser();
      await h.create(input);
      const reply = await rest.request('POST', BASE, { json: newUser({ email: input.email }) });
      expect(reply.status).toBe(409);
      expectJson(reply);
      expect(reply.body).toEqual(conflict);
    });

    it('answers 409 code 6 on update to another record\'s e-mail, leaving both records as they were', async () => {
      const aInput = newUser();
      const a = await h.create(aInput);
      const b = await h.create(newUser());
      const bBefore = await h.get(b);
      const reply = await rest.request('PUT', `${BASE}/${b}`, { token: admin(), json: { email: aInput.email, name: 'Thief' } });
      expect(reply.status).toBe(409);
      expect(reply.body).toEqual(conflict);
      expect(await h.get(b)).toEqual(bBefore);
      expect(await h.get(a)).toEqual(freshRecord(a, aInput));
    });

    it('answers one 200 and one 409 to two concurrent creates with the same e-mail', async () => {
      const email = newUser().email;
      const replies = await Promise.all([
        rest.request('POST', BASE, { json: newUser({ email }) }),
        rest.request('POST', BASE, { json: newUser({ email }) }),
      ]);
      expect(replies.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(replies.find((r) => r.status === 409)!.body).toEqual(conflict);
    });

    it('allows an update that keeps the record\'s own e-mail', async () => {
      const input = newUser();
      const id = await h.create(input);
      const reply = await rest.request('PUT', `${BASE}/${id}`, { token: admin(), json: { email: input.email } });
      expect(reply.status).toBe(200);
    });

    it('allows re-creating a record with the e-mail of a deleted one', async () => {
      const input = newUser();
      const first = await h.create(input);
      expect((await rest.request('DELETE', `${BASE}/${first}`, { token: admin() })).status).toBe(200);
      const second = await h.create(newUser({ email: input.email }));
      expect(second).not.toBe(first);
      expect((await h.get(second)).email).toBe(input.email);
    });
  });

  describe('authentication and permissions', () => {
    let target: string;
    let targetInput: CreateBody;

    beforeAll(async () => {
      targetInput = newUser({ name: 'Auth Target' });
      target = await h.create(targetInput);
    });

    const protectedCalls: [string, string, (id: string) => string, unknown][] = [
      ['GetByID', 'GET', (id) => `${BASE}/${id}`, undefined],
      ['UpdateByID', 'PUT', (id) => `${BASE}/${id}`, { name: 'Nope' }],
      ['DeleteByID', 'DELETE', (id) => `${BASE}/${id}`, undefined],
      ['List', 'POST', () => `${BASE}/list`, { params: { limit: 1 } }],
    ];

    it.each(protectedCalls)('%s without a token answers 401 code 16 with WWW-Authenticate', async (_rpc, method, path, json) => {
      const reply = await rest.request(method, path(target), json === undefined ? {} : { json });
      expect(reply.status).toBe(401);
      expectJson(reply);
      expect(reply.body).toEqual(statusBody(16, MISSING_TOKEN));
      expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="tributary"');
    });

    it('Create needs no token', async () => {
      const reply = await rest.request('POST', BASE, { json: newUser() });
      expect(reply.status).toBe(200);
    });

    function signed(overrides: jwt.SignOptions = {}, secret = system.config.jwt.secret!) {
      return jwt.sign({ roles: ['admin'] }, secret, {
        algorithm: 'HS256',
        subject: 'admin',
        issuer: system.config.jwt.issuer,
        audience: system.config.jwt.audience,
        expiresIn: '1h',
        ...overrides,
      });
    }

    const badCredentials: [string, () => string, RegExp][] = [
      ['a non-Bearer scheme ("Token x")', () => 'Token x', /^malformed Authorization header/],
      ['"Bearer" with no token', () => 'Bearer', /^malformed Authorization header/],
      ['"Bearer " with only spaces', () => 'Bearer    ', /^malformed Authorization header/],
      ['a token that is not a JWT', () => 'Bearer not-a-jwt', /not a well-formed JWT/],
      ['a token signed with another secret', () => `Bearer ${signed({}, 'another-secret-that-is-also-32-characters-long')}`, /signature/],
      ['an expired token', () => `Bearer ${system.tokens.mint({ sub: 'admin', roles: ['admin'] }, { expiresIn: -10 })}`, /expired/],
      ['a token from another issuer', () => `Bearer ${signed({ issuer: 'somebody-else' })}`, /issuer/],
      ['a token for another audience', () => `Bearer ${signed({ audience: 'somebody-else' })}`, /audience/],
      ['a token signed with another HMAC algorithm', () => `Bearer ${signed({ algorithm: 'HS512' })}`, /algorithm/],
      ['an unsigned token (alg none)', () => `Bearer ${signed({ algorithm: 'none' }, '')}`, /./],
      [
        'a token without exp',
        () =>
          `Bearer ${jwt.sign({ roles: ['admin'] }, system.config.jwt.secret!, {
            subject: 'admin',
            issuer: system.config.jwt.issuer,
            audience: system.config.jwt.audience,
          })}`,
        /exp/,
      ],
      ['a token not yet valid', () => `Bearer ${system.tokens.mint({ sub: 'admin', roles: ['admin'] }, { notBefore: 3600 })}`, /not valid before/],
      [
        'a token without sub',
        () =>
          `Bearer ${jwt.sign({ roles: ['admin'] }, system.config.jwt.secret!, {
            issuer: system.config.jwt.issuer,
            audience: system.config.jwt.audience,
            expiresIn: '1h',
          })}`,
        /sub/,
      ],
    ];

    it.each(badCredentials)('GetByID with %s answers 401 code 16 saying why', async (_label, authorization, why) => {
      const reply = await rest.request('GET', `${BASE}/${target}`, { authorization: authorization() });
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual(statusBody(16, expect.stringMatching(why)));
      expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer realm="tributary", error="invalid_token", error_description=".+"$/);
    });

    it('names a malformed header exactly', async () => {
      const reply = await rest.request('GET', `${BASE}/${target}`, { authorization: 'Token x' });
      expect(reply.body).toEqual(statusBody(16, MALFORMED_HEADER));
    });

    it.each(badCredentials)('Create with %s is refused with 401, and nothing is stored', async (_label, authorization, why) => {
      const input = newUser();
      const reply = await rest.request('POST', BASE, { authorization: authorization(), json: input });
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual(statusBody(16, expect.stringMatching(why)));
      const listed = await rest.request('POST', `${BASE}/list`, {
        token: admin(),
        json: { params: { columns: [{ name: 'email', value: input.email }] } },
      });
      expect(listed.body).toEqual({ total: '0', userExamples: [] });
    });

    // The auth-scheme is case-insensitive (RFC 7235 §2.1).
    it('accepts the auth scheme in any case ("bearer <JWT>")', async () => {
      for (const scheme of ['bearer', 'BEARER']) {
        const reply = await rest.request('GET', `${BASE}/${target}`, { authorization: `${scheme} ${admin()}` });
        expect(reply.status, scheme).toBe(200);
      }
    });

    it('lets any signed-in user read any record and list', async () => {
      const token = system.userToken('just-a-reader');
      const read = await rest.request('GET', `${BASE}/${target}`, { token });
      expect(read.status).toBe(200);
      expect(read.body.userExample.id).toBe(target);
      const listed = await rest.request('POST', `${BASE}/list`, { token, json: { params: { columns: [{ name: 'id', value: target }] } } });
      expect(listed.status).toBe(200);
      expect(listed.body.total).toBe('1');
    });

    it('refuses a non-admin updating another record with 403 code 7, leaving it unchanged', async () => {
      const before = await h.get(target);
      const reply = await rest.request('PUT', `${BASE}/${target}`, { token: system.userToken('999999'), json: { name: 'Hijacked' } });
      expect(reply.status).toBe(403);
      expectJson(reply);
      expect(reply.body).toEqual(statusBody(7, 'permission denied: only the user itself or an administrator may update this userExample'));
      expect(await h.get(target)).toEqual(before);
    });

    it('refuses a non-admin deleting another record with 403 code 7, leaving it in place', async () => {
      const reply = await rest.request('DELETE', `${BASE}/${target}`, { token: system.userToken('999999') });
      expect(reply.status).toBe(403);
      expect(reply.body).toEqual(statusBody(7, 'permission denied: only the user itself or an administrator may delete this userExample'));
      expect((await h.get(target)).id).toBe(target);
    });

    it('lets a user update itself (token sub = id)', async () => {
      const input = newUser();
      const id = await h.create(input);
      const reply = await rest.request('PUT', `${BASE}/${id}`, { token: system.userToken(id), json: { name: 'Self Edited' } });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({});
      expect(await h.get(id)).toEqual({ ...freshRecord(id, input), name: 'Self Edited' });
    });

    it('lets a user delete itself', async () => {
      const id = await h.create(newUser());
      const reply = await rest.request('DELETE', `${BASE}/${id}`, { token: system.userToken(id) });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({});
    });
  });

  describe('malformed requests', () => {
    it('rejects invalid JSON with 400 naming the problem', async () => {
      const reply = await rest.request('POST', BASE, { raw: '{"name": "Ada",' });
      expect(reply.status).toBe(400);
      expectJson(reply);
      expect(reply.body).toEqual(statusBody(3, expect.stringMatching(/^malformed JSON body: .+ at position \d+$/)));
    });

    it('rejects a duplicate JSON key with 400', async () => {
      const reply = await rest.request('POST', BASE, { raw: '{"name":"Ada","name":"Bob"}' });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(statusBody(3, expect.stringMatching(/^malformed JSON body: .*'name'/)));
    });

    it.each([
      ['an array', '[]'],
      ['an array of objects', '[{"name":"Ada"}]'],
      ['a string', '"hello"'],
      ['a number', '42'],
      ['null', 'null'],
      ['true', 'true'],
    ])('rejects a body that is %s with 400', async (_label, raw) => {
      const reply = await rest.request('POST', BASE, { raw });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(
        badRequestBody(expect.stringContaining('expected a JSON object'), [
          { field: 'api.serverNameExample.v1.CreateUserExampleRequest', description: expect.stringContaining('expected a JSON object') },
        ]),
      );
    });

    it.each([
      ['PUT', 'an array', '[]'],
      ['LIST', 'a string', '"params"'],
    ])('rejects on %s a body that is %s with 400', async (op, _label, raw) => {
      const id = op === 'PUT' ? await h.create(newUser()) : '';
      const reply =
        op === 'PUT'
          ? await rest.request('PUT', `${BASE}/${id}`, { token: admin(), raw })
          : await rest.request('POST', `${BASE}/list`, { token: admin(), raw });
      expect(reply.status).toBe(400);
      expect(reply.body.code).toBe(3);
      expect(reply.body.message).toContain('expected a JSON object');
    });

    it.each([
      ['age "abc"', { age: 'abc' }, { field: 'age', description: 'expected a 32-bit integer, got "abc"' }],
      ['age 36.5', { age: 36.5 }, { field: 'age', description: 'expected a 32-bit integer, got 36.5' }],
      ['age 2147483648', { age: 2147483648 }, { field: 'age', description: 'expected a 32-bit integer, got 2147483648' }],
      ['age true', { age: true }, { field: 'age', description: 'expected a 32-bit integer, got true' }],
      ['name 5', { name: 5 }, { field: 'name', description: 'expected a string, got 5' }],
      ['name an object', { name: { first: 'Ada' } }, { field: 'name', description: 'expected a string, got an object' }],
      ['gender "WRONG"', { gender: 'WRONG' }, { field: 'gender', description: expect.stringContaining('"WRONG"') }],
      ['gender "male" (names are case-sensitive)', { gender: 'male' }, { field: 'gender', description: expect.stringContaining('"male"') }],
    ] as [string, Record<string, unknown>, { field: string; description: unknown }][])(
      'rejects a wrong type on create, %s, with 400 naming the field',
      async (_label, override, violation) => {
        const reply = await rest.request('POST', BASE, { json: { ...newUser(), ...override } });
        expect(reply.status).toBe(400);
        expect(reply.body).toEqual(badRequestBody(expect.stringContaining(`${violation.field}: `), [violation]));
      },
    );

    it('reports every wrong type of a body at once', async () => {
      const reply = await rest.request('POST', BASE, { json: { ...newUser(), age: 'abc', name: 5, gender: 'WRONG' } });
      expect(reply.status).toBe(400);
      expect(reply.body.details[0].fieldViolations.map((v: { field: string }) => v.field).sort()).toEqual(['age', 'gender', 'name']);
    });

    it.each([
      ['status "x"', { status: 'x' }, 'status'],
      ['loginAt "soon"', { loginAt: 'soon' }, 'loginAt'],
      ['loginAt 1.5', { loginAt: 1.5 }, 'loginAt'],
      ['name false', { name: false }, 'name'],
      ['gender "WRONG"', { gender: 'WRONG' }, 'gender'],
      ['id "abc" in the body', { id: 'abc' }, 'id'],
    ] as [string, Record<string, unknown>, string][])('rejects a wrong type on update, %s, with 400 naming the field', async (_label, json, field) => {
      const id = await h.create(newUser());
      const reply = await rest.request('PUT', `${BASE}/${id}`, { token: admin(), json });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(
        badRequestBody(expect.stringContaining(field), [{ field, description: expect.stringContaining('expected') }]),
      );
    });

    // PostgreSQL text cannot hold U+0000, so the service refuses it before any SQL runs.
    const NUL = 'value must not contain the NUL character (U+0000)';

    it('rejects a NUL character in a stored string on create with 400 naming the field', async () => {
      const reply = await rest.request('POST', BASE, { json: newUser({ name: 'Ada\u0000Lovelace' }) });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(badRequestBody(expect.stringContaining('name'), [{ field: 'name', description: NUL }]));
    });

    it('rejects a NUL character in a stored string on update with 400 naming the field', async () => {
      const id = await h.create(newUser());
      const reply = await rest.request('PUT', `${BASE}/${id}`, { token: admin(), json: { phone: '1\u0000' } });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(badRequestBody(expect.stringContaining('phone'), [{ field: 'phone', description: NUL }]));
    });

    it('rejects a NUL character in a list filter value with 400 naming the field', async () => {
      const reply = await rest.request('POST', `${BASE}/list`, {
        token: admin(),
        json: { params: { columns: [{ name: 'name', value: 'a\u0000b' }] } },
      });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(
        badRequestBody(expect.stringContaining('params.columns[0].value'), [
          { field: 'params.columns[0].value', description: expect.any(String) },
        ]),
      );
    });

    it('rejects an unknown field on create with 400 naming it', async () => {
      const reply = await rest.request('POST', BASE, { json: { ...newUser(), nickname: 'Ada' } });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(
        badRequestBody(expect.stringContaining('nickname'), [
          { field: 'nickname', description: 'unknown field "nickname" in api.serverNameExample.v1.CreateUserExampleRequest' },
        ]),
      );
    });

    it('rejects status on create (not a create field) with 400 naming it', async () => {
      const reply = await rest.request('POST', BASE, { json: { ...newUser(), status: 1 } });
      expect(reply.status).toBe(400);
      expect(reply.body.details[0].fieldViolations).toEqual([
        { field: 'status', description: 'unknown field "status" in api.serverNameExample.v1.CreateUserExampleRequest' },
      ]);
    });

    it('rejects an unknown field on update with 400 naming it', async () => {
      const id = await h.create(newUser());
      const reply = await rest.request('PUT', `${BASE}/${id}`, { token: admin(), json: { name: 'Ok', createdAt: '2020-01-01T00:00:00Z' } });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(
        badRequestBody(expect.stringContaining('createdAt'), [
          { field: 'createdAt', description: 'unknown field "createdAt" in api.serverNameExample.v1.UpdateUserExampleByIDRequest' },
        ]),
      );
      expect((await h.get(id)).name).not.toBe('Ok');
    });

    it('rejects an unknown field inside a list column with 400 naming it', async () => {
      const reply = await rest.request('POST', `${BASE}/list`, {
        token: admin(),
        json: { params: { columns: [{ name: 'age', value: '1', op: 'eq' }] } },
      });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(
        badRequestBody(expect.stringContaining('op'), [
          { field: 'params.columns[0].op', description: 'unknown field "op" in api.types.Column' },
        ]),
      );
    });

    const badPathIds = ['abc', '-1', '1.5', '1e3', '0x10', '18446744073709551616', '99999999999999999999999'];

    it.each(badPathIds)('rejects the path id %j with 400 on GET, PUT and DELETE', async (raw) => {
      for (const [method, json] of [
        ['GET', undefined],
        ['PUT', { name: 'X' }],
        ['DELETE', undefined],
      ] as const) {
        const reply = await rest.request(method, `${BASE}/${raw}`, { token: admin(), ...(json ? { json } : {}) });
        expect(reply.status, `${method} ${raw}`).toBe(400);
        expect(reply.body).toEqual(
          badRequestBody(`invalid path id: expected an unsigned 64-bit integer, got "${raw}"`, [
            { field: 'id', description: `expected an unsigned 64-bit integer, got "${raw}"` },
          ]),
        );
      }
    });

    it.each([
      ['GET', 'GetUserExampleByIDRequest', undefined],
      ['PUT', 'UpdateUserExampleByIDRequest', { name: 'X' }],
      ['DELETE', 'DeleteUserExampleByIDRequest', undefined],
    ] as const)('rejects id 0 on %s with 400 from the ≥ 1 rule (field id)', async (method, subject, json) => {
      const reply = await rest.request(method, `${BASE}/0`, { token: admin(), ...(json ? { json } : {}) });
      const violation = { field: 'id', description: RULE.id };
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(badRequestBody(violationMessage(subject, [violation]), [violation]));
    });

    it('answers 404 for the largest uint64 (valid, but beyond any stored id) on GET, PUT and DELETE', async () => {
      const max = '18446744073709551615';
      for (const [method, json] of [
        ['GET', undefined],
        ['PUT', { name: 'X' }],
        ['DELETE', undefined],
      ] as const) {
        const reply = await rest.request(method, `${BASE}/${max}`, { token: admin(), ...(json ? { json } : {}) });
        expect(reply.status, method).toBe(404);
        expect(reply.body).toEqual(statusBody(5, `userExample ${max} not found`));
      }
    });

    it('answers 404 code 5 for an unknown path', async () => {
      for (const [method, path] of [
        ['GET', '/api/v1/nothing'],
        ['POST', '/api/v2/userExample'],
        ['GET', `${BASE}/1/extra`],
      ] as const) {
        const reply = await rest.request(method, path, { token: admin() });
        expect(reply.status, path).toBe(404);
        expectJson(reply);
        expect(reply.body).toEqual(statusBody(5, `no route for ${method} ${path}`));
      }
    });

    it.each([
      ['PATCH', `${BASE}/1`, 'GET, PUT, DELETE'],
      ['POST', `${BASE}/1`, 'GET, PUT, DELETE'],
      ['GET', BASE, 'POST'],
      ['DELETE', BASE, 'POST'],
      ['PUT', BASE, 'POST'],
      ['PATCH', `${BASE}/list`, 'POST'],
    ])('answers %s %s with 405 and an Allow header', async (method, path, allow) => {
      const reply = await rest.request(method, path, { token: admin(), ...(method === 'GET' ? {} : { json: { name: 'X' } }) });
      expect(reply.status).toBe(405);
      expectJson(reply);
      expect(reply.headers.get('allow')).toBe(allow);
      expect(reply.body).toEqual(statusBody(12, `method ${method} not allowed on ${path}`));
    });

    it.each(['GET', 'PUT', 'DELETE'])('reads %s /userExample/list as the {id} path and rejects the id "list" with 400', async (method) => {
      // As in grpc-gateway: the path matches the {id} template of GetByID/UpdateByID/DeleteByID, and "list" is no uint64.
      const reply = await rest.request(method, `${BASE}/list`, { token: admin(), ...(method === 'PUT' ? { json: {} } : {}) });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(
        badRequestBody('invalid path id: expected an unsigned 64-bit integer, got "list"', [
          { field: 'id', description: 'expected an unsigned 64-bit integer, got "list"' },
        ]),
      );
    });

    it.each(['GET', 'PATCH', 'DELETE'])('matches paths case-sensitively: %s /api/v1/userexample/1 is an unknown path', async (method) => {
      const reply = await rest.request(method, '/api/v1/userexample/1', { token: admin() });
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual(statusBody(5, `no route for ${method} /api/v1/userexample/1`));
    });

    it('accepts a gzip-compressed body', async () => {
      const input = newUser();
      const response = await fetch(new URL(BASE, system.restUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: gzipSync(JSON.stringify(input)),
      });
      expect(response.status).toBe(200);
      const { id } = (await response.json()) as { id: string };
      expect(await h.get(id)).toEqual(freshRecord(id, input));
    });

    it('rejects a corrupt gzip body with 400, not 500', async () => {
      const reply = await rest.request('POST', BASE, { raw: '{"name":"not gzip"}', headers: { 'content-encoding': 'gzip' } });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(statusBody(3, expect.stringMatching(/^unreadable request body: .+/)));
    });

    it('rejects an unsupported content encoding or charset with 400', async () => {
      const encoding = await rest.request('POST', BASE, { raw: '{}', headers: { 'content-encoding': 'compress' } });
      expect(encoding.status).toBe(400);
      expect(encoding.body).toEqual(statusBody(3, expect.stringMatching(/^unreadable request body: .*encoding/)));
      const charset = await rest.request('POST', BASE, { raw: '{}', headers: { 'content-type': 'application/json; charset=klingon' } });
      expect(charset.status).toBe(400);
      expect(charset.body).toEqual(statusBody(3, expect.stringMatching(/^unreadable request body: .*charset/)));
    });

    it('rejects a body over 1 MiB with 400 naming the size', async () => {
      const reply = await rest.request('POST', BASE, { json: { ...newUser(), name: 'x'.repeat(1_100_000) } });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(statusBody(3, `request body exceeds the limit of ${system.config.rest.bodyLimitBytes} bytes`));
    });

    it('keeps a stored record intact through a battery of bad requests', async () => {
      const input = newUser({ name: 'Steadfast', age: 50, gender: 'MALE' });
      const id = await h.create(input);
      const before = await rest.request('GET', `${BASE}/${id}`, { token: admin() });
      expect(before.status).toBe(200);
      const other = system.userToken('someone-else');
      const attempts: { raw?: string; json?: unknown; token?: string; authorization?: string }[] = [
        { raw: '{"name":', token: admin() },
        { raw: '[]', token: admin() },
        { raw: '"name"', token: admin() },
        { json: { name: 'Bad', age: 'abc' }, token: admin() },
        { json: { name: 'Bad', gender: 'WRONG' }, token: admin() },
        { json: { name: 'Bad', gender: 9 }, token: admin() },
        { json: { name: 'Bad', nickname: 'x' }, token: admin() },
        { json: { name: 'Bad', status: 2147483648 }, token: admin() },
        { raw: '{"name":"Bad","loginAt":9223372036854775808}', token: admin() },
        { json: { name: 'Bad' }, token: other },
        { json: { name: 'Bad' } },
        { json: { name: 'Bad' }, authorization: 'Token x' },
        { json: { name: 'Bad' }, authorization: `Bearer ${system.tokens.mint({ sub: 'admin', roles: ['admin'] }, { expiresIn: -10 })}` },
        { json: { name: 'Bad', email: 'x'.repeat(1_100_000) }, token: admin() },
      ];
      for (const attempt of attempts) {
        const reply = await rest.request('PUT', `${BASE}/${id}`, attempt);
        expect([400, 401, 403], reply.text.slice(0, 200)).toContain(reply.status);
      }
      const deleteByOther = await rest.request('DELETE', `${BASE}/${id}`, { token: other });
      expect(deleteByOther.status).toBe(403);
      const dupe = await rest.request('POST', BASE, { json: { ...newUser(), email: input.email } });
      expect(dupe.status).toBe(409);
      const after = await rest.request('GET', `${BASE}/${id}`, { token: admin() });
      expect(after.text).toBe(before.text);
      expect(after.body).toEqual({ userExample: freshRecord(id, input, 'MALE') });
    });
  });
});

describe('REST Area A with ids past 2^53 and a 2 KiB body limit', () => {
  let system: TestSystem;
  let rest: RestClient;
  const h = helpers(
    () => system,
    () => rest,
  );
  const admin = () => system.adminToken();

  beforeAll(async () => {
    system = await startTestSystem({ REST_BODY_LIMIT_BYTES: '2048' });
    rest = createRestClient(system.restUrl);
    await sql`alter table users.user_example alter column id restart with 9007199254740993`.execute(system.database.db);
  });
  afterAll(async () => {
    await system?.close();
  });

  it('round-trips an id above 2^53 exactly through create, get, update and list', async () => {
    const input = newUser({ name: 'Big Id' });
    const created = await rest.request('POST', BASE, { json: input });
    expect(created.status, created.text).toBe(200);
    expect(created.text).toBe('{"id":"9007199254740993"}');
    const id = '9007199254740993';

    const read = await rest.request('GET', `${BASE}/${id}`, { token: admin() });
    expect(read.status).toBe(200);
    expect(read.text).toContain('"id":"9007199254740993"');
    expect(read.body).toEqual({ userExample: freshRecord(id, input) });

    // 2^53 + 1 rounds to 2^53 as a double: the neighbour must not be confused with it.
    const neighbour = await rest.request('GET', `${BASE}/9007199254740992`, { token: admin() });
    expect(neighbour.status).toBe(404);

    const updated = await rest.request('PUT', `${BASE}/${id}`, { token: system.userToken(id), json: { name: 'Big Id Renamed' } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toEqual({});
    expect(await h.get(id)).toEqual({ ...freshRecord(id, input), name: 'Big Id Renamed' });

    const listed = await rest.request('POST', `${BASE}/list`, {
      token: admin(),
      json: { params: { columns: [{ name: 'id', exp: 'eq', value: id }] } },
    });
    expect(listed.status).toBe(200);
    expect(listed.text).toContain('"id":"9007199254740993"');
    expect(listed.body).toEqual({ total: '1', userExamples: [{ ...freshRecord(id, input), name: 'Big Id Renamed' }] });

    // The filter value sent as a JSON number keeps its digits too.
    const listedByNumber = await rest.request('POST', `${BASE}/list`, {
      token: admin(),
      raw: `{"params":{"columns":[{"name":"id","exp":"eq","value":${id}}]}}`,
    });
    expect(listedByNumber.status, listedByNumber.text).toBe(200);
    expect(listedByNumber.body.total).toBe('1');
    expect(listedByNumber.body.userExamples[0].id).toBe(id);
  });

  it('keeps loginAt 9223372036854775807 sent as a JSON number exactly', async () => {
    const id = await h.create(newUser());
    expect(BigInt(id)).toBeGreaterThan(2n ** 53n);
    const reply = await rest.request('PUT', `${BASE}/${id}`, { token: admin(), raw: '{"loginAt":9223372036854775807}' });
    expect(reply.status, reply.text).toBe(200);
    const read = await rest.request('GET', `${BASE}/${id}`, { token: admin() });
    expect(read.text).toContain('"loginAt":"9223372036854775807"');
    expect(read.text).toContain(`"id":"${id}"`);
    const listed = await rest.request('POST', `${BASE}/list`, {
      token: admin(),
      json: { params: { columns: [{ name: 'login_at', exp: 'eq', value: '9223372036854775807' }] } },
    });
    expect(listed.body.total).toBe('1');
    expect(listed.text).toContain('"loginAt":"9223372036854775807"');
  });

  it('accepts a body of exactly the limit', async () => {
    const input = newUser();
    // The avatar takes up the room: it is the one field whose bound (2 048 runes) is above this body limit.
    input.avatar = `${input.avatar}?pad=${'n'.repeat(2048 - JSON.stringify(input).length - 5)}`;
    expect(Buffer.byteLength(JSON.stringify(input))).toBe(2048);
    const id = await h.create(input);
    expect((await h.get(id)).avatar).toBe(input.avatar);
  });

  it('rejects a body over the limit with 400 naming the size, on every body-carrying path', async () => {
    const id = await h.create(newUser());
    const big = { ...newUser(), name: 'n'.repeat(3000) };
    for (const [method, path, token] of [
      ['POST', BASE, undefined],
      ['PUT', `${BASE}/${id}`, admin()],
      ['POST', `${BASE}/list`, admin()],
    ] as const) {
      const reply = await rest.request(method, path, { json: big, ...(token ? { token } : {}) });
      expect(reply.status, `${method} ${path}`).toBe(400);
      expect(reply.body).toEqual(statusBody(3, 'request body exceeds the limit of 2048 bytes'));
    }
    expect((await h.get(id)).name).not.toBe(big.name);
  });
});
