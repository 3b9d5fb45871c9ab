import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { startDistributedTestSystem, startTestSystem } from '../../support/test-system.ts';
import {
  BAD_REQUEST_TYPE,
  badRequestBody,
  CREATE_REQUEST,
  DUPLICATE_EMAIL,
  MISSING_TOKEN,
  notFound,
  permissionDenied,
  RULE,
  statusBody,
  violationMessage,
} from '../../support/user-example-errors.ts';
import {
  BASE,
  RFC3339,
  type CreateBody,
  newUser,
  freshRecord,
  expectJson,
  expectNoPassword,
  useRestUserExampleSystem,
} from '../../support/user-example-rest.ts';

/**
 * Front-door tests of Area A over REST: real HTTP requests (global fetch) to the REST adapter, which runs each path as a
 * GraphQL operation through the gateway into the users subgraph. Replies are checked as whole bodies, and as raw text
 * where digits or the absence of a key matter.
 */
describe.each([
  { topology: 'embedded', start: () => startTestSystem() },
  { topology: 'distributed (users subgraph over HTTP behind the gateway)', start: () => startDistributedTestSystem() },
])('REST Area A, core paths, $topology', ({ start }) => {
  const { system, rest, records, adminToken } = useRestUserExampleSystem(start);

  it('creates, reads, updates, lists and deletes a record', async () => {
    const input = newUser({ name: 'Core Path', gender: 'MALE' });
    const created = await rest.request('POST', BASE, { json: input });
    expect(created.status).toBe(200);
    expectJson(created);
    expect(created.body).toEqual({ id: expect.stringMatching(/^[1-9]\d*$/) });
    const id = created.body.id as string;

    const read = await rest.request('GET', `${BASE}/${id}`, { token: system().userToken('somebody-else') });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ userExample: freshRecord(id, input, 'MALE') });
    expectNoPassword(read);

    const updated = await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), json: { age: 0, status: 2, loginAt: '42' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({});
    expect(await records.get(id)).toEqual({ ...freshRecord(id, input, 'MALE'), age: 0, status: 2, loginAt: '42' });

    const listed = await rest.request('POST', `${BASE}/list`, {
      token: adminToken(),
      json: { params: { page: 0, limit: 10, columns: [{ name: 'id', exp: 'eq', value: id }] } },
    });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ total: '1', userExamples: [{ ...freshRecord(id, input, 'MALE'), age: 0, status: 2, loginAt: '42' }] });
    expectNoPassword(listed);

    const deleted = await rest.request('DELETE', `${BASE}/${id}`, { token: adminToken() });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    const gone = await rest.request('GET', `${BASE}/${id}`, { token: adminToken() });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual(statusBody(5, notFound(id)));
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
      { field: 'avatar', description: RULE.avatar },
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
    const missing = await rest.request('GET', `${BASE}/987654321`, { token: adminToken() });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(statusBody(5, notFound('987654321')));

    const input = newUser();
    await records.create(input);
    const duplicate = await rest.request('POST', BASE, { json: { ...newUser(), email: input.email } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual(statusBody(6, DUPLICATE_EMAIL));
  });

  it('lets a user update itself but refuses another user with 403 (the token reaches the subgraph)', async () => {
    const input = newUser();
    const id = await records.create(input);
    const self = await rest.request('PUT', `${BASE}/${id}`, { token: system().userToken(id), json: { name: 'Self' } });
    expect(self.status).toBe(200);
    expect(self.body).toEqual({});
    const other = await rest.request('PUT', `${BASE}/${id}`, { token: system().userToken(`${id}0`), json: { name: 'Other' } });
    expect(other.status).toBe(403);
    expect(other.body).toEqual(statusBody(7, permissionDenied('update')));
    expect(await records.get(id)).toEqual({ ...freshRecord(id, input), name: 'Self' });
  });

  it('reports a wrong type in the body with 400 naming the field', async () => {
    const reply = await rest.request('POST', BASE, { json: { ...newUser(), age: 'abc' } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(
      badRequestBody(expect.stringContaining('age'), [{ field: 'age', description: 'expected a 32-bit integer, got "abc"' }]),
    );
  });

  it('keeps every digit of an int64 sent as a JSON number', async () => {
    const id = await records.create(newUser());
    const reply = await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), raw: '{"loginAt":9223372036854775807}' });
    expect(reply.status, reply.text).toBe(200);
    const read = await rest.request('GET', `${BASE}/${id}`, { token: adminToken() });
    expect(read.text).toContain('"loginAt":"9223372036854775807"');
  });

  // Last in this block: every later id of this system is past 2^53.
  it('round-trips an id above 2^53 exactly', async () => {
    await sql`alter table users.user_example alter column id restart with 9007199254740993`.execute(system().database.db);
    const input = newUser();
    const created = await rest.request('POST', BASE, { json: input });
    expect(created.text).toBe('{"id":"9007199254740993"}');
    const read = await rest.request('GET', `${BASE}/9007199254740993`, { token: adminToken() });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ userExample: freshRecord('9007199254740993', input) });
    expect((await rest.request('GET', `${BASE}/9007199254740992`, { token: adminToken() })).status).toBe(404);
    const updated = await rest.request('PUT', `${BASE}/9007199254740993`, { token: adminToken(), json: { age: 1 } });
    expect(updated.status).toBe(200);
    const listed = await rest.request('POST', `${BASE}/list`, {
      token: adminToken(),
      json: { params: { columns: [{ name: 'id', value: '9007199254740993' }] } },
    });
    expect(listed.body).toEqual({ total: '1', userExamples: [{ ...freshRecord('9007199254740993', input), age: 1 }] });
  });
});

describe('REST Area A (embedded)', () => {
  const { system, rest, records, adminToken } = useRestUserExampleSystem();

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
      const id = await records.create(input);
      const reply = await rest.request('GET', `${BASE}/${id}`, { token: system().userToken('a-reader') });
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
      const id = await records.create(input);
      const reply = await rest.request('PUT', `${BASE}/${id}`, {
        token: adminToken(),
        json: { name: 'Renamed', phone: '13900139000', gender: 'MALE', status: 3, loginAt: '1700000000' },
      });
      expect(reply.status).toBe(200);
      expectJson(reply);
      expect(reply.body).toEqual({});
      expect(reply.text).toBe('{}');
      const record = await records.get(id);
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
      const id = await records.create(newUser());
      const reply = await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), json: { password: 'a-brand-new-secret' } });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({});
      const read = await rest.request('GET', `${BASE}/${id}`, { token: adminToken() });
      expectNoPassword(read);
      expect(read.text).not.toContain('a-brand-new-secret');
    });

    it('Delete answers {} and the record then reads as 404', async () => {
      const id = await records.create(newUser());
      const reply = await rest.request('DELETE', `${BASE}/${id}`, { token: adminToken() });
      expect(reply.status).toBe(200);
      expectJson(reply);
      expect(reply.body).toEqual({});
      const gone = await rest.request('GET', `${BASE}/${id}`, { token: adminToken() });
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual(statusBody(5, notFound(id)));
      const listed = await rest.request('POST', `${BASE}/list`, {
        token: adminToken(),
        json: { params: { columns: [{ name: 'id', value: id }] } },
      });
      expect(listed.body).toEqual({ total: '0', userExamples: [] });
    });

    it('List answers {total, userExamples} with whole records and no password', async () => {
      const first = newUser({ name: 'Listed One' });
      const second = newUser({ name: 'Listed Two', gender: 'MALE', age: 50 });
      const firstId = await records.create(first);
      const secondId = await records.create(second);
      const reply = await rest.request('POST', `${BASE}/list`, {
        token: system().userToken('any-signed-in-user'),
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
      const id = await records.create(input);
      expect(await records.get(id)).toEqual(freshRecord(id, input, name));
    });

    it('accepts gender by name and by number on update', async () => {
      const id = await records.create(newUser({ gender: 'UNKNOWN' }));
      let reply = await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), json: { gender: 'MALE' } });
      expect(reply.status).toBe(200);
      expect((await records.get(id)).gender).toBe('MALE');
      reply = await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), json: { gender: 2 } });
      expect(reply.status).toBe(200);
      expect((await records.get(id)).gender).toBe('FEMALE');
    });

    it('accepts the proto field name login_at as well as loginAt on update', async () => {
      const id = await records.create(newUser());
      let reply = await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), json: { login_at: '1234567890' } });
      expect(reply.status, reply.text).toBe(200);
      expect((await records.get(id)).loginAt).toBe('1234567890');
      reply = await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), json: { loginAt: 987 } });
      expect(reply.status, reply.text).toBe(200);
      expect((await records.get(id)).loginAt).toBe('987');
    });

    it('rejects loginAt and login_at given together', async () => {
      const id = await records.create(newUser());
      const reply = await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), json: { loginAt: '1', login_at: '2' } });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(
        badRequestBody(expect.stringContaining('login_at'), [{ field: 'login_at', description: 'field "loginAt" given twice' }]),
      );
    });

    it('accepts int32 fields as numeric strings and integral numbers', async () => {
      const input = newUser();
      const reply = await rest.request('POST', BASE, { raw: JSON.stringify({ ...input, age: '41' }) });
      expect(reply.status, reply.text).toBe(200);
      expect((await records.get(reply.body.id)).age).toBe(41);
      const other = newUser();
      const raw = JSON.stringify({ ...other, age: 0 }).replace('"age":0', '"age":42.0');
      const second = await rest.request('POST', BASE, { raw });
      expect(second.status, second.text).toBe(200);
      expect((await records.get(second.body.id)).age).toBe(42);
    });

    it('keeps int64 values at both ends of the range exactly, sent as JSON numbers', async () => {
      const id = await records.create(newUser());
      let reply = await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), raw: '{"loginAt":9223372036854775807}' });
      expect(reply.status, reply.text).toBe(200);
      let read = await rest.request('GET', `${BASE}/${id}`, { token: adminToken() });
      expect(read.text).toContain('"loginAt":"9223372036854775807"');
      reply = await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), raw: '{"login_at":-9223372036854775808}' });
      expect(reply.status, reply.text).toBe(200);
      read = await rest.request('GET', `${BASE}/${id}`, { token: adminToken() });
      expect(read.text).toContain('"loginAt":"-9223372036854775808"');
    });

    it('rejects an int64 one past the maximum instead of rounding it', async () => {
      const id = await records.create(newUser());
      const reply = await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), raw: '{"loginAt":9223372036854775808}' });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(
        badRequestBody(expect.stringContaining('loginAt'), [
          { field: 'loginAt', description: 'expected a 64-bit integer, got 9223372036854775808' },
        ]),
      );
      expect((await records.get(id)).loginAt).toBe('0');
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
      ['a relative avatar', { avatar: 'images/ada.png' }, { field: 'avatar', description: RULE.avatar }],
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
        token: adminToken(),
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
        { field: 'avatar', description: RULE.avatar },
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
        { field: 'avatar', description: RULE.avatar },
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
        { field: 'avatar', description: RULE.avatar },
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
      const id = await records.create(input);
      const gender = typeof input.gender === 'number' ? (['UNKNOWN', 'MALE', 'FEMALE'] as const)[input.gender]! : input.gender;
      expect(await records.get(id)).toEqual(freshRecord(id, input, gender));
    });
  });
  describe('update semantics', () => {
    it('sets fields to 0 and "" and reads them back exactly', async () => {
      const input = newUser();
      const id = await records.create(input);
      let reply = await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), json: { status: 2, loginAt: '1700000000' } });
      expect(reply.status).toBe(200);
      expect(await records.get(id)).toMatchObject({ status: 2, loginAt: '1700000000', age: 36 });

      reply = await rest.request('PUT', `${BASE}/${id}`, {
        token: adminToken(),
        json: { name: '', age: 0, status: 0, loginAt: '0', phone: '', avatar: '', gender: 0 },
      });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toEqual({});
      expect(await records.get(id)).toEqual({
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
      const id = await records.create(input);
      await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), json: { status: 5, loginAt: '77' } });
      const reply = await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), json: { age: 34 } });
      expect(reply.status).toBe(200);
      expect(await records.get(id)).toEqual({ ...freshRecord(id, input, 'MALE'), age: 34, status: 5, loginAt: '77' });
    });

    it('accepts an empty update and changes nothing but updatedAt', async () => {
      const input = newUser();
      const id = await records.create(input);
      const reply = await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), json: {} });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({});
      expect(await records.get(id)).toEqual(freshRecord(id, input));
    });

    it('ignores an id in the body: PUT /A with {"id": B} changes A only', async () => {
      const aInput = newUser({ name: 'Record A' });
      const bInput = newUser({ name: 'Record B' });
      const idA = await records.create(aInput);
      const idB = await records.create(bInput);
      const bBefore = await records.get(idB);
      const reply = await rest.request('PUT', `${BASE}/${idA}`, { token: adminToken(), json: { id: idB, name: 'Changed', age: 99 } });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({});
      expect(await records.get(idA)).toEqual({ ...freshRecord(idA, aInput), name: 'Changed', age: 99 });
      expect(await records.get(idB)).toEqual(bBefore);
    });

    it('ignores a numeric body id as well', async () => {
      const aInput = newUser();
      const idA = await records.create(aInput);
      const idB = await records.create(newUser());
      const bBefore = await records.get(idB);
      const reply = await rest.request('PUT', `${BASE}/${idA}`, { token: adminToken(), raw: `{"id":${idB},"age":7}` });
      expect(reply.status).toBe(200);
      expect(await records.get(idA)).toEqual({ ...freshRecord(idA, aInput), age: 7 });
      expect(await records.get(idB)).toEqual(bBefore);
    });

    it('accepts on update values that create would reject (the update body has no declared rules)', async () => {
      const input = newUser();
      const id = await records.create(input);
      const email = `not-an-address-${id}`;
      const reply = await rest.request('PUT', `${BASE}/${id}`, {
        token: adminToken(),
        json: { name: 'X', email, password: 'short', phone: '42', avatar: 'relative.png', age: 500, status: -3, loginAt: '-1' },
      });
      expect(reply.status, reply.text).toBe(200);
      expect(await records.get(id)).toEqual({
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
      const id = await records.create(newUser());
      const reply = await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), json: { gender: 7 } });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(badRequestBody(expect.stringContaining('gender'), [{ field: 'gender', description: RULE.gender }]));
    });
  });
  describe('404s', () => {
    const missing = '424242424242';

    it('GET of a missing id answers 404 code 5', async () => {
      const reply = await rest.request('GET', `${BASE}/${missing}`, { token: adminToken() });
      expect(reply.status).toBe(404);
      expectJson(reply);
      expect(reply.body).toEqual(statusBody(5, notFound(missing)));
    });

    it('PUT of a missing id answers 404 code 5', async () => {
      const reply = await rest.request('PUT', `${BASE}/${missing}`, { token: adminToken(), json: { name: 'Ghost' } });
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual(statusBody(5, notFound(missing)));
    });

    it('DELETE of a missing id answers 404 code 5', async () => {
      const reply = await rest.request('DELETE', `${BASE}/${missing}`, { token: adminToken() });
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual(statusBody(5, notFound(missing)));
    });

    it('deleting twice answers 404 the second time, and a deleted record cannot be updated', async () => {
      const id = await records.create(newUser());
      const first = await rest.request('DELETE', `${BASE}/${id}`, { token: adminToken() });
      expect(first.status).toBe(200);
      const second = await rest.request('DELETE', `${BASE}/${id}`, { token: adminToken() });
      expect(second.status).toBe(404);
      expect(second.body).toEqual(statusBody(5, notFound(id)));
      const update = await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), json: { name: 'Zombie' } });
      expect(update.status).toBe(404);
      expect(update.body).toEqual(statusBody(5, notFound(id)));
    });
  });
  describe('duplicate e-mail', () => {
    const conflict = statusBody(6, DUPLICATE_EMAIL);

    it('answers 409 code 6 on create with a taken e-mail', async () => {
      const input = newUser();
      await records.create(input);
      const reply = await rest.request('POST', BASE, { json: newUser({ email: input.email }) });
      expect(reply.status).toBe(409);
      expectJson(reply);
      expect(reply.body).toEqual(conflict);
    });

    it("answers 409 code 6 on update to another record's e-mail, leaving both records as they were", async () => {
      const aInput = newUser();
      const idA = await records.create(aInput);
      const idB = await records.create(newUser());
      const bBefore = await records.get(idB);
      const reply = await rest.request('PUT', `${BASE}/${idB}`, { token: adminToken(), json: { email: aInput.email, name: 'Thief' } });
      expect(reply.status).toBe(409);
      expect(reply.body).toEqual(conflict);
      expect(await records.get(idB)).toEqual(bBefore);
      expect(await records.get(idA)).toEqual(freshRecord(idA, aInput));
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

    it("allows an update that keeps the record's own e-mail", async () => {
      const input = newUser();
      const id = await records.create(input);
      const reply = await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), json: { email: input.email } });
      expect(reply.status).toBe(200);
    });

    it('allows re-creating a record with the e-mail of a deleted one', async () => {
      const input = newUser();
      const first = await records.create(input);
      expect((await rest.request('DELETE', `${BASE}/${first}`, { token: adminToken() })).status).toBe(200);
      const second = await records.create(newUser({ email: input.email }));
      expect(second).not.toBe(first);
      expect((await records.get(second)).email).toBe(input.email);
    });
  });
});
