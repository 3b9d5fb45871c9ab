import jwt from 'jsonwebtoken';
import { beforeAll, describe, expect, it } from 'vitest';
import { MALFORMED_HEADER, MISSING_TOKEN, permissionDenied, statusBody } from '../../support/user-example-errors.ts';
import { BASE, type CreateBody, newUser, freshRecord, expectJson, useRestUserExampleSystem } from '../../support/user-example-rest.ts';

/** Area A over REST: bearer tokens, roles and owners on every path. */

describe('REST Area A (embedded)', () => {
  const { system, rest, records, adminToken } = useRestUserExampleSystem();

  describe('authentication and permissions', () => {
    let target: string;
    let targetInput: CreateBody;

    beforeAll(async () => {
      targetInput = newUser({ name: 'Auth Target' });
      target = await records.create(targetInput);
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

    function signed(overrides: jwt.SignOptions = {}, secret = system().config.jwt.secret!) {
      return jwt.sign({ roles: ['admin'] }, secret, {
        algorithm: 'HS256',
        subject: 'admin',
        issuer: system().config.jwt.issuer,
        audience: system().config.jwt.audience,
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
      ['an expired token', () => `Bearer ${system().tokens.mint({ sub: 'admin', roles: ['admin'] }, { expiresIn: -10 })}`, /expired/],
      ['a token from another issuer', () => `Bearer ${signed({ issuer: 'somebody-else' })}`, /issuer/],
      ['a token for another audience', () => `Bearer ${signed({ audience: 'somebody-else' })}`, /audience/],
      ['a token signed with another HMAC algorithm', () => `Bearer ${signed({ algorithm: 'HS512' })}`, /algorithm/],
      ['an unsigned token (alg none)', () => `Bearer ${signed({ algorithm: 'none' }, '')}`, /./],
      [
        'a token without exp',
        () =>
          `Bearer ${jwt.sign({ roles: ['admin'] }, system().config.jwt.secret!, {
            subject: 'admin',
            issuer: system().config.jwt.issuer,
            audience: system().config.jwt.audience,
          })}`,
        /exp/,
      ],
      [
        'a token not yet valid',
        () => `Bearer ${system().tokens.mint({ sub: 'admin', roles: ['admin'] }, { notBefore: 3600 })}`,
        /not valid before/,
      ],
      [
        'a token without sub',
        () =>
          `Bearer ${jwt.sign({ roles: ['admin'] }, system().config.jwt.secret!, {
            issuer: system().config.jwt.issuer,
            audience: system().config.jwt.audience,
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
        token: adminToken(),
        json: { params: { columns: [{ name: 'email', value: input.email }] } },
      });
      expect(listed.body).toEqual({ total: '0', userExamples: [] });
    });

    // The auth-scheme is case-insensitive (RFC 7235 §2.1).
    it('accepts the auth scheme in any case ("bearer <JWT>")', async () => {
      for (const scheme of ['bearer', 'BEARER']) {
        const reply = await rest.request('GET', `${BASE}/${target}`, { authorization: `${scheme} ${adminToken()}` });
        expect(reply.status, scheme).toBe(200);
      }
    });

    it('lets any signed-in user read any record and list', async () => {
      const token = system().userToken('just-a-reader');
      const read = await rest.request('GET', `${BASE}/${target}`, { token });
      expect(read.status).toBe(200);
      expect(read.body.userExample.id).toBe(target);
      const listed = await rest.request('POST', `${BASE}/list`, { token, json: { params: { columns: [{ name: 'id', value: target }] } } });
      expect(listed.status).toBe(200);
      expect(listed.body.total).toBe('1');
    });

    it('refuses a non-admin updating another record with 403 code 7, leaving it unchanged', async () => {
      const before = await records.get(target);
      const reply = await rest.request('PUT', `${BASE}/${target}`, { token: system().userToken('999999'), json: { name: 'Hijacked' } });
      expect(reply.status).toBe(403);
      expectJson(reply);
      expect(reply.body).toEqual(statusBody(7, permissionDenied('update')));
      expect(await records.get(target)).toEqual(before);
    });

    it('refuses a non-admin deleting another record with 403 code 7, leaving it in place', async () => {
      const reply = await rest.request('DELETE', `${BASE}/${target}`, { token: system().userToken('999999') });
      expect(reply.status).toBe(403);
      expect(reply.body).toEqual(statusBody(7, permissionDenied('delete')));
      expect((await records.get(target)).id).toBe(target);
    });

    it('lets a user update itself (token sub = id)', async () => {
      const input = newUser();
      const id = await records.create(input);
      const reply = await rest.request('PUT', `${BASE}/${id}`, { token: system().userToken(id), json: { name: 'Self Edited' } });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({});
      expect(await records.get(id)).toEqual({ ...freshRecord(id, input), name: 'Self Edited' });
    });

    it('lets a user delete itself', async () => {
      const id = await records.create(newUser());
      const reply = await rest.request('DELETE', `${BASE}/${id}`, { token: system().userToken(id) });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({});
    });
  });
});
