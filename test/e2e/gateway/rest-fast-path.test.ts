/**
 * The REST fast path (rest-adapter/stand-ins/rest-fast-path.ts) answers exactly as the Express routes it stands in front of. An id
 * with a percent-encoded character is left to Express (which decodes it to the same id), so each case is asked both ways
 * and the replies compared: status, body and the headers that matter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takesRestFastPath } from '../../../rest-adapter/stand-ins/rest-fast-path.ts';
import { startTestSystem, type TestSystem, STAND_INS_ON } from '../../support/test-system.ts';
import { newUser } from '../../support/user-example-rest.ts';

const BASE = '/api/v1/userExample';

let system: TestSystem;

beforeAll(async () => {
  system = await startTestSystem(STAND_INS_ON);
});

afterAll(async () => {
  await system?.close();
});

/** The same id as Express alone serves it: its first character percent-encoded. */
const viaExpress = (id: string) => `%${id.charCodeAt(0).toString(16).toUpperCase()}${id.slice(1)}`;

async function call(method: string, path: string, headers: Record<string, string>) {
  const response = await fetch(`${system.restUrl}${path}`, { method, headers });
  const body = await response.text();
  return {
    status: response.status,
    body,
    contentType: response.headers.get('content-type'),
    contentLength: response.headers.get('content-length'),
    wwwAuthenticate: response.headers.get('www-authenticate'),
    requestId: response.headers.get('x-request-id'),
  };
}

async function createRecord(name: string): Promise<string> {
  const reply = await fetch(`${system.restUrl}${BASE}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${system.adminToken()}` },
    body: JSON.stringify(newUser({ name, gender: 'MALE' })),
  });
  expect(reply.status).toBe(200);
  return ((await reply.json()) as { id: string }).id;
}

/** Asks `id` by the fast path and through Express; expects the same reply, with `status`. */
async function expectSame(
  method: 'GET' | 'DELETE',
  fastPath: string,
  expressPath: string,
  headers: Record<string, string>,
  status: number,
) {
  expect(takesRestFastPath({ method, url: fastPath })).toBeDefined();
  expect(takesRestFastPath({ method, url: expressPath })).toBeUndefined();
  const [a, b] = [await call(method, fastPath, headers), await call(method, expressPath, headers)];
  expect(a.status).toBe(status);
  expect(a.status).toBe(b.status);
  expect(a.body).toBe(b.body);
  expect(a.contentType).toBe('application/json; charset=utf-8');
  expect(a.contentType).toBe(b.contentType);
  expect(a.contentLength).toBe(String(Buffer.byteLength(a.body)));
  expect(a.wwwAuthenticate).toBe(b.wwwAuthenticate);
  if (headers['x-request-id']) expect([a.requestId, b.requestId]).toEqual([headers['x-request-id'], headers['x-request-id']]);
  else expect(a.requestId).toMatch(/^[0-9a-f-]{36}$/);
  return a;
}

describe('GET and DELETE of a record answer the same with and without Express', () => {
  const admin = () => ({ authorization: `Bearer ${system.adminToken()}` });

  it('reads a record', async () => {
    const id = await createRecord('fastpathread');
    const reply = await expectSame('GET', `${BASE}/${id}`, `${BASE}/${viaExpress(id)}`, admin(), 200);
    expect(JSON.parse(reply.body)).toMatchObject({ userExample: { id, name: 'fastpathread', gender: 'MALE' } });
  });

  it.each([
    ['a record that does not exist', '999999999', 404],
    ['id 0 (the service refuses it)', '0', 400],
    ['an id that is not a number', 'abc', 400],
    ['an id past 64 bits', '18446744073709551616', 400],
  ])('%s', async (_name, id, status) => {
    await expectSame('GET', `${BASE}/${id}`, `${BASE}/${viaExpress(id)}`, admin(), status);
    await expectSame('DELETE', `${BASE}/${id}`, `${BASE}/${viaExpress(id)}`, admin(), status);
  });

  it('a trailing slash and a query string', async () => {
    const id = await createRecord('fastpathslash');
    await expectSame('GET', `${BASE}/${id}/`, `${BASE}/${viaExpress(id)}/`, admin(), 200);
    await expectSame('GET', `${BASE}/${id}?x=1`, `${BASE}/${viaExpress(id)}?x=1`, admin(), 200);
  });

  it('no token, a malformed header, a bad token, a token of another user on a delete', async () => {
    const id = await createRecord('fastpathauth');
    const refused = await expectSame('GET', `${BASE}/${id}`, `${BASE}/${viaExpress(id)}`, {}, 401);
    expect(refused.wwwAuthenticate).toBe('Bearer realm="tributary"');
    await expectSame('GET', `${BASE}/${id}`, `${BASE}/${viaExpress(id)}`, { authorization: 'Basic eDp5' }, 401);
    const bad = await expectSame('GET', `${BASE}/${id}`, `${BASE}/${viaExpress(id)}`, { authorization: 'Bearer not.a.jwt' }, 401);
    expect(bad.wwwAuthenticate).toMatch(/^Bearer realm="tributary", error="invalid_token"/);
    await expectSame(
      'DELETE',
      `${BASE}/${id}`,
      `${BASE}/${viaExpress(id)}`,
      { authorization: `Bearer ${system.userToken('424242')}` },
      403,
    );
  });

  it('deletes a record', async () => {
    const [first, second] = [await createRecord('fastpathdel1'), await createRecord('fastpathdel2')];
    const [a, b] = [await call('DELETE', `${BASE}/${first}`, admin()), await call('DELETE', `${BASE}/${viaExpress(second)}`, admin())];
    expect([a.status, a.body, a.contentType]).toEqual([200, '{}', 'application/json; charset=utf-8']);
    expect([b.status, b.body, b.contentType]).toEqual([200, '{}', 'application/json; charset=utf-8']);
    expect((await call('GET', `${BASE}/${first}`, admin())).status).toBe(404);
  });

  it("keeps the caller's request id", async () => {
    await expectSame(
      'GET',
      `${BASE}/999999999`,
      `${BASE}/${viaExpress('999999999')}`,
      { ...admin(), 'x-request-id': 'rest-fast-path-1' },
      404,
    );
  });

  it('leaves other methods and paths to Express', () => {
    for (const [method, url] of [
      ['HEAD', `${BASE}/1`],
      ['PUT', `${BASE}/1`],
      ['POST', `${BASE}/list`],
      ['GET', `/api/v1/userexample/1`],
      ['GET', `${BASE}/1/2`],
      ['GET', `${BASE}/`],
      ['GET', `http://127.0.0.1${BASE}/1`],
    ] as const) {
      expect(takesRestFastPath({ method, url }), `${method} ${url}`).toBeUndefined();
    }
  });

  it('counts the request under the Express route in the metrics', async () => {
    const count = async () =>
      (await (await fetch(new URL('/metrics', system.restUrl))).text())
        .split('\n')
        .filter(
          (line) =>
            line.startsWith('tributary_http_requests_total{') &&
            line.includes('route="/api/v1/userExample/:id"') &&
            line.includes('status="404"') &&
            line.includes('method="GET"'),
        )
        .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
    const before = await count();
    await call('GET', `${BASE}/999999998`, admin());
    expect(await count()).toBe(before + 1);
  });
});
