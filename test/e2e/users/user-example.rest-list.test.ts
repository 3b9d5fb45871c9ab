import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RestReply } from '../../support/rest-client.ts';
import { startTestSystem } from '../../support/test-system.ts';
import { badRequestBody, bodyTooLarge, LIST_REQUEST, LIST_RULE, statusBody, violationMessage } from '../../support/user-example-errors.ts';
import { BASE, type Gender, type CreateBody, newUser, freshRecord, useRestUserExampleSystem } from '../../support/user-example-rest.ts';

/** Area A's List over REST: params, conditions and their grammar, sorting, paging, ids past 2^53. */

describe('REST Area A (embedded)', () => {
  const { rest, records, adminToken } = useRestUserExampleSystem();

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
        ids[key] = await records.create(inputs[key]);
      }
    });

    async function list(params: unknown, token = adminToken()): Promise<RestReply> {
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
      expect(
        await namesWhere([
          { name: 'age', exp: 'eq', value: '30', logic: 'and' },
          { name: 'gender', value: 'FEMALE' },
        ]),
      ).toEqual([names.c]);
      expect(
        await namesWhere([
          { name: 'age', exp: 'eq', value: '30', logic: '&&' },
          { name: 'gender', value: 'MALE' },
        ]),
      ).toEqual([names.a]);
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
      const reply = await list({
        columns: [
          { ...tagged, logic: 'or:(' },
          { name: 'age', value: '20' },
        ],
      });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(
        badRequestBody(expect.stringContaining('parentheses'), [{ field: 'params.columns', description: LIST_RULE.parentheses }]),
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
      expect(reply.body).toEqual(badRequestBody(expect.stringContaining(named), [{ field, description: expect.stringContaining(named) }]));
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
      expectListViolation(
        await list({
          columns: [
            { ...tagged, logic: 'xor' },
            { name: 'age', value: '1' },
          ],
        }),
        'params.columns[0].logic',
        "'xor'",
      );
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
      const reply = await rest.request('POST', `${BASE}/list`, { token: adminToken(), ...body });
      const violation = { field: 'params', description: LIST_RULE.params };
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
});

describe('REST Area A with ids past 2^53 and a 2 KiB body limit', () => {
  const { system, rest, records, adminToken } = useRestUserExampleSystem(() => startTestSystem({ REST_BODY_LIMIT_BYTES: '2048' }));

  beforeAll(async () => {
    await sql`alter table users.user_example alter column id restart with 9007199254740993`.execute(system().database.db);
  });

  it('round-trips an id above 2^53 exactly through create, get, update and list', async () => {
    const input = newUser({ name: 'Big Id' });
    const created = await rest.request('POST', BASE, { json: input });
    expect(created.status, created.text).toBe(200);
    expect(created.text).toBe('{"id":"9007199254740993"}');
    const id = '9007199254740993';

    const read = await rest.request('GET', `${BASE}/${id}`, { token: adminToken() });
    expect(read.status).toBe(200);
    expect(read.text).toContain('"id":"9007199254740993"');
    expect(read.body).toEqual({ userExample: freshRecord(id, input) });

    // 2^53 + 1 rounds to 2^53 as a double: the neighbour must not be confused with it.
    const neighbour = await rest.request('GET', `${BASE}/9007199254740992`, { token: adminToken() });
    expect(neighbour.status).toBe(404);

    const updated = await rest.request('PUT', `${BASE}/${id}`, { token: system().userToken(id), json: { name: 'Big Id Renamed' } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toEqual({});
    expect(await records.get(id)).toEqual({ ...freshRecord(id, input), name: 'Big Id Renamed' });

    const listed = await rest.request('POST', `${BASE}/list`, {
      token: adminToken(),
      json: { params: { columns: [{ name: 'id', exp: 'eq', value: id }] } },
    });
    expect(listed.status).toBe(200);
    expect(listed.text).toContain('"id":"9007199254740993"');
    expect(listed.body).toEqual({ total: '1', userExamples: [{ ...freshRecord(id, input), name: 'Big Id Renamed' }] });

    // The filter value sent as a JSON number keeps its digits too.
    const listedByNumber = await rest.request('POST', `${BASE}/list`, {
      token: adminToken(),
      raw: `{"params":{"columns":[{"name":"id","exp":"eq","value":${id}}]}}`,
    });
    expect(listedByNumber.status, listedByNumber.text).toBe(200);
    expect(listedByNumber.body.total).toBe('1');
    expect(listedByNumber.body.userExamples[0].id).toBe(id);
  });

  it('keeps loginAt 9223372036854775807 sent as a JSON number exactly', async () => {
    const id = await records.create(newUser());
    expect(BigInt(id)).toBeGreaterThan(2n ** 53n);
    const reply = await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), raw: '{"loginAt":9223372036854775807}' });
    expect(reply.status, reply.text).toBe(200);
    const read = await rest.request('GET', `${BASE}/${id}`, { token: adminToken() });
    expect(read.text).toContain('"loginAt":"9223372036854775807"');
    expect(read.text).toContain(`"id":"${id}"`);
    const listed = await rest.request('POST', `${BASE}/list`, {
      token: adminToken(),
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
    const id = await records.create(input);
    expect((await records.get(id)).avatar).toBe(input.avatar);
  });

  it('rejects a body over the limit with 400 naming the size, on every body-carrying path', async () => {
    const id = await records.create(newUser());
    const big = { ...newUser(), name: 'n'.repeat(3000) };
    for (const [method, path, token] of [
      ['POST', BASE, undefined],
      ['PUT', `${BASE}/${id}`, adminToken()],
      ['POST', `${BASE}/list`, adminToken()],
    ] as const) {
      const reply = await rest.request(method, path, { json: big, ...(token ? { token } : {}) });
      expect(reply.status, `${method} ${path}`).toBe(400);
      expect(reply.body).toEqual(statusBody(3, bodyTooLarge(2048)));
    }
    expect((await records.get(id)).name).not.toBe(big.name);
  });
});
