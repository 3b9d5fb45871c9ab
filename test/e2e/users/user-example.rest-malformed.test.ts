import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  badRequestBody,
  bodyTooLarge,
  invalidPathId,
  malformedJsonBody,
  methodNotAllowed,
  noRoute,
  notFound,
  NUL_CHARACTER,
  pathIdDescription,
  RULE,
  statusBody,
  unreadableBody,
  violationMessage,
} from '../../support/user-example-errors.ts';
import { BASE, newUser, freshRecord, expectJson, useRestUserExampleSystem } from '../../support/user-example-rest.ts';

/** Area A over REST: malformed requests (JSON, protojson types, paths, methods, bodies, encodings) answered as google.rpc.Status. */

describe('REST Area A (embedded)', () => {
  const { system, rest, records, adminToken } = useRestUserExampleSystem();

  describe('malformed requests', () => {
    it('rejects invalid JSON with 400 naming the problem', async () => {
      const reply = await rest.request('POST', BASE, { raw: '{"name": "Ada",' });
      expect(reply.status).toBe(400);
      expectJson(reply);
      expect(reply.body).toEqual(statusBody(3, malformedJsonBody(/.+ at position \d+$/)));
    });

    it('rejects a duplicate JSON key with 400', async () => {
      const reply = await rest.request('POST', BASE, { raw: '{"name":"Ada","name":"Bob"}' });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(statusBody(3, malformedJsonBody(/.*'name'/)));
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
      const id = op === 'PUT' ? await records.create(newUser()) : '';
      const reply =
        op === 'PUT'
          ? await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), raw })
          : await rest.request('POST', `${BASE}/list`, { token: adminToken(), raw });
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
    ] as [string, Record<string, unknown>, string][])(
      'rejects a wrong type on update, %s, with 400 naming the field',
      async (_label, json, field) => {
        const id = await records.create(newUser());
        const reply = await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), json });
        expect(reply.status).toBe(400);
        expect(reply.body).toEqual(
          badRequestBody(expect.stringContaining(field), [{ field, description: expect.stringContaining('expected') }]),
        );
      },
    );

    // PostgreSQL text cannot hold U+0000, so the service refuses it before any SQL runs.
    const NUL = NUL_CHARACTER;

    it('rejects a NUL character in a stored string on create with 400 naming the field', async () => {
      const reply = await rest.request('POST', BASE, { json: newUser({ name: 'Ada\u0000Lovelace' }) });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(badRequestBody(expect.stringContaining('name'), [{ field: 'name', description: NUL }]));
    });

    it('rejects a NUL character in a stored string on update with 400 naming the field', async () => {
      const id = await records.create(newUser());
      const reply = await rest.request('PUT', `${BASE}/${id}`, { token: adminToken(), json: { phone: '1\u0000' } });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(badRequestBody(expect.stringContaining('phone'), [{ field: 'phone', description: NUL }]));
    });

    it('rejects a NUL character in a list filter value with 400 naming the field', async () => {
      const reply = await rest.request('POST', `${BASE}/list`, {
        token: adminToken(),
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
      const id = await records.create(newUser());
      const reply = await rest.request('PUT', `${BASE}/${id}`, {
        token: adminToken(),
        json: { name: 'Ok', createdAt: '2020-01-01T00:00:00Z' },
      });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(
        badRequestBody(expect.stringContaining('createdAt'), [
          { field: 'createdAt', description: 'unknown field "createdAt" in api.serverNameExample.v1.UpdateUserExampleByIDRequest' },
        ]),
      );
      expect((await records.get(id)).name).not.toBe('Ok');
    });

    it('rejects an unknown field inside a list column with 400 naming it', async () => {
      const reply = await rest.request('POST', `${BASE}/list`, {
        token: adminToken(),
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
        const reply = await rest.request(method, `${BASE}/${raw}`, { token: adminToken(), ...(json ? { json } : {}) });
        expect(reply.status, `${method} ${raw}`).toBe(400);
        expect(reply.body).toEqual(badRequestBody(invalidPathId(raw), [{ field: 'id', description: pathIdDescription(raw) }]));
      }
    });

    it.each([
      ['GET', 'GetUserExampleByIDRequest', undefined],
      ['PUT', 'UpdateUserExampleByIDRequest', { name: 'X' }],
      ['DELETE', 'DeleteUserExampleByIDRequest', undefined],
    ] as const)('rejects id 0 on %s with 400 from the ≥ 1 rule (field id)', async (method, subject, json) => {
      const reply = await rest.request(method, `${BASE}/0`, { token: adminToken(), ...(json ? { json } : {}) });
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
        const reply = await rest.request(method, `${BASE}/${max}`, { token: adminToken(), ...(json ? { json } : {}) });
        expect(reply.status, method).toBe(404);
        expect(reply.body).toEqual(statusBody(5, notFound(max)));
      }
    });

    it('answers 404 code 5 for an unknown path', async () => {
      for (const [method, path] of [
        ['GET', '/api/v1/nothing'],
        ['POST', '/api/v2/userExample'],
        ['GET', `${BASE}/1/extra`],
      ] as const) {
        const reply = await rest.request(method, path, { token: adminToken() });
        expect(reply.status, path).toBe(404);
        expectJson(reply);
        expect(reply.body).toEqual(statusBody(5, noRoute(method, path)));
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
      const reply = await rest.request(method, path, { token: adminToken(), ...(method === 'GET' ? {} : { json: { name: 'X' } }) });
      expect(reply.status).toBe(405);
      expectJson(reply);
      expect(reply.headers.get('allow')).toBe(allow);
      expect(reply.body).toEqual(statusBody(12, methodNotAllowed(method, path)));
    });

    it.each(['GET', 'PUT', 'DELETE'])('reads %s /userExample/list as the {id} path and rejects the id "list" with 400', async (method) => {
      // As in grpc-gateway: the path matches the {id} template of GetByID/UpdateByID/DeleteByID, and "list" is no uint64.
      const reply = await rest.request(method, `${BASE}/list`, { token: adminToken(), ...(method === 'PUT' ? { json: {} } : {}) });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(badRequestBody(invalidPathId('list'), [{ field: 'id', description: pathIdDescription('list') }]));
    });

    it.each(['GET', 'PATCH', 'DELETE'])('matches paths case-sensitively: %s /api/v1/userexample/1 is an unknown path', async (method) => {
      const reply = await rest.request(method, '/api/v1/userexample/1', { token: adminToken() });
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual(statusBody(5, noRoute(method, '/api/v1/userexample/1')));
    });

    it('accepts a gzip-compressed body', async () => {
      const input = newUser();
      const response = await fetch(new URL(BASE, system().restUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: gzipSync(JSON.stringify(input)),
      });
      expect(response.status).toBe(200);
      const { id } = (await response.json()) as { id: string };
      expect(await records.get(id)).toEqual(freshRecord(id, input));
    });

    it('rejects a corrupt gzip body with 400, not 500', async () => {
      const reply = await rest.request('POST', BASE, { raw: '{"name":"not gzip"}', headers: { 'content-encoding': 'gzip' } });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(statusBody(3, unreadableBody(/.+/)));
    });

    it('rejects an unsupported content encoding or charset with 400', async () => {
      const encoding = await rest.request('POST', BASE, { raw: '{}', headers: { 'content-encoding': 'compress' } });
      expect(encoding.status).toBe(400);
      expect(encoding.body).toEqual(statusBody(3, unreadableBody(/.*encoding/)));
      const charset = await rest.request('POST', BASE, { raw: '{}', headers: { 'content-type': 'application/json; charset=klingon' } });
      expect(charset.status).toBe(400);
      expect(charset.body).toEqual(statusBody(3, unreadableBody(/.*charset/)));
    });

    it('rejects a body over 1 MiB with 400 naming the size', async () => {
      const reply = await rest.request('POST', BASE, { json: { ...newUser(), name: 'x'.repeat(1_100_000) } });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(statusBody(3, bodyTooLarge(system().config.rest.bodyLimitBytes)));
    });

    it('keeps a stored record intact through a battery of bad requests', async () => {
      const input = newUser({ name: 'Steadfast', age: 50, gender: 'MALE' });
      const id = await records.create(input);
      const before = await rest.request('GET', `${BASE}/${id}`, { token: adminToken() });
      expect(before.status).toBe(200);
      const other = system().userToken('someone-else');
      const attempts: { raw?: string; json?: unknown; token?: string; authorization?: string }[] = [
        { raw: '{"name":', token: adminToken() },
        { raw: '[]', token: adminToken() },
        { raw: '"name"', token: adminToken() },
        { json: { name: 'Bad', age: 'abc' }, token: adminToken() },
        { json: { name: 'Bad', gender: 'WRONG' }, token: adminToken() },
        { json: { name: 'Bad', gender: 9 }, token: adminToken() },
        { json: { name: 'Bad', nickname: 'x' }, token: adminToken() },
        { json: { name: 'Bad', status: 2147483648 }, token: adminToken() },
        { raw: '{"name":"Bad","loginAt":9223372036854775808}', token: adminToken() },
        { json: { name: 'Bad' }, token: other },
        { json: { name: 'Bad' } },
        { json: { name: 'Bad' }, authorization: 'Token x' },
        { json: { name: 'Bad' }, authorization: `Bearer ${system().tokens.mint({ sub: 'admin', roles: ['admin'] }, { expiresIn: -10 })}` },
        { json: { name: 'Bad', email: 'x'.repeat(1_100_000) }, token: adminToken() },
      ];
      for (const attempt of attempts) {
        const reply = await rest.request('PUT', `${BASE}/${id}`, attempt);
        expect([400, 401, 403], reply.text.slice(0, 200)).toContain(reply.status);
      }
      const deleteByOther = await rest.request('DELETE', `${BASE}/${id}`, { token: other });
      expect(deleteByOther.status).toBe(403);
      const dupe = await rest.request('POST', BASE, { json: { ...newUser(), email: input.email } });
      expect(dupe.status).toBe(409);
      const after = await rest.request('GET', `${BASE}/${id}`, { token: adminToken() });
      expect(after.text).toBe(before.text);
      expect(after.body).toEqual({ userExample: freshRecord(id, input, 'MALE') });
    });
  });
});
