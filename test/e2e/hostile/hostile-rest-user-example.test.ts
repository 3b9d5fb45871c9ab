import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRestClient, type RestClient } from '../../support/rest-client.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';
import {
  atMostRunes,
  badRequestBody,
  CREATE_REQUEST,
  LIST_REQUEST,
  LIST_RULE,
  methodNotAllowed,
  statusBody,
  STORED_RUNES,
  tooManyValues,
  UPDATE_REQUEST,
  violationMessage,
} from '../../support/user-example-errors.ts';

/**
 * Regression tests of Area A's REST door under hostile input (issue "Hostile traffic"): unbounded fields, a List whose
 * one condition bound 65 535 values and left the embedded database answering every later statement wrongly, thousands of
 * conditions, and Express's own reply to OPTIONS. Each request is refused in google.rpc.Status, and what was stored
 * before — records, social tokens — reads and writes exactly as before.
 */

const BASE = '/api/v1/userExample';

function user(n: number, overrides: Record<string, unknown> = {}) {
  return {
    name: `Hostile ${n}`,
    email: `hostile.${n}@example.com`,
    password: 'correct-horse-battery',
    phone: '13800138000',
    avatar: 'https://example.com/a.png',
    age: 30,
    gender: 'MALE',
    ...overrides,
  };
}

describe('Area A REST under hostile input', () => {
  let system: TestSystem;
  let rest: RestClient;
  let social: SocialFixture;
  let admin: string;
  let existing: string;
  beforeAll(async () => {
    system = await startTestSystem();
    rest = createRestClient(system.restUrl);
    social = await createSocialFixture(system.database);
    admin = system.adminToken();
    existing = (await rest.request('POST', BASE, { json: user(0) })).body.id;
  });
  afterAll(() => system?.close());

  /** Everything stored before still reads, lists, and writes with the right answers. */
  async function storeIsIntact(): Promise<void> {
    const read = await rest.request('GET', `${BASE}/${existing}`, { token: admin });
    expect(read.status).toBe(200);
    expect(read.body.userExample.email).toBe('hostile.0@example.com');
    const listed = await rest.request('POST', `${BASE}/list`, {
      token: admin,
      json: { params: { columns: [{ name: 'id', value: existing }] } },
    });
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe('1');
    expect((await rest.request('PUT', `${BASE}/${existing}`, { token: admin, json: { age: 31 } })).status).toBe(200);
    expect((await rest.request('GET', `${BASE}/${existing}`, { token: admin })).body.userExample.age).toBe(31);
    const me = await fetch(`${system.restUrl}/v25.0/me?access_token=${social.tokens.own}`);
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ id: social.accounts.bluebottle });
  }

  describe('no record field is unbounded', () => {
    it.each([
      ['name', 'n'.repeat(1_000_000), STORED_RUNES.name],
      ['name', 'é'.repeat(257), STORED_RUNES.name],
      ['email', `${'a'.repeat(250)}@example.com`, STORED_RUNES.email],
      ['password', 'p'.repeat(1025), STORED_RUNES.password],
      ['phone', '1'.repeat(65), STORED_RUNES.phone],
      ['avatar', `https://example.com/${'a'.repeat(2048)}`, STORED_RUNES.avatar],
    ])('refuses a create whose %s is longer than its bound, and stores nothing', async (field, value, max) => {
      const reply = await rest.request('POST', BASE, { json: user(1, { [field]: value }) });
      expect(reply.status).toBe(400);
      const violation = { field, description: atMostRunes(max) };
      expect(reply.body).toEqual(badRequestBody(violationMessage(CREATE_REQUEST, [violation]), [violation]));
      const listed = await rest.request('POST', `${BASE}/list`, {
        token: admin,
        json: { params: { columns: [{ name: 'email', value: 'hostile.1@example.com' }] } },
      });
      expect(listed.body.total).toBe('0');
    });

    it('accepts each field at its bound', async () => {
      const reply = await rest.request('POST', BASE, {
        json: user(2, { name: 'é'.repeat(256), password: 'p'.repeat(1024), avatar: `https://example.com/${'a'.repeat(2048 - 20)}` }),
      });
      expect(reply.status).toBe(200);
    });

    it('refuses an update past a bound too (the update has no rules, but storage has bounds), and changes nothing', async () => {
      const reply = await rest.request('PUT', `${BASE}/${existing}`, { token: admin, json: { name: 'n'.repeat(300), age: 99 } });
      expect(reply.status).toBe(400);
      const violation = { field: 'name', description: atMostRunes(STORED_RUNES.name) };
      expect(reply.body).toEqual(badRequestBody(violationMessage(UPDATE_REQUEST, [violation]), [violation]));
      const read = await rest.request('GET', `${BASE}/${existing}`, { token: admin });
      expect(read.body.userExample.name).toBe('Hostile 0');
      expect(read.body.userExample.age).not.toBe(99);
    });
  });

  describe('a List binds a bounded number of values', () => {
    it('refuses an `in` condition of 65 535 values, and the database answers every later request rightly', async () => {
      const values = Array.from({ length: 65_535 }, (_, i) => i + 1).join(',');
      const reply = await rest.request('POST', `${BASE}/list`, {
        token: admin,
        json: { params: { columns: [{ name: 'id', exp: 'in', value: values }] } },
      });
      expect(reply.status).toBe(400);
      const violation = { field: 'params.columns[0].value', description: tooManyValues('in') };
      expect(reply.body).toEqual(badRequestBody(violationMessage(LIST_REQUEST, [violation]), [violation]));
      await storeIsIntact();
    });

    it('accepts an `in` condition of 1 000 values', async () => {
      const values = [existing, ...Array.from({ length: 999 }, (_, i) => String(10_000_000 + i))].join(',');
      const reply = await rest.request('POST', `${BASE}/list`, {
        token: admin,
        json: { params: { columns: [{ name: 'id', exp: 'in', value: values }] } },
      });
      expect(reply.status).toBe(200);
      expect(reply.body.total).toBe('1');
    });

    it('refuses thousands of conditions with one violation, not thousands', async () => {
      const columns = Array.from({ length: 5000 }, () => ({ name: 'nope', exp: 'bad', value: 'x', logic: 'xor' }));
      const reply = await rest.request('POST', `${BASE}/list`, { token: admin, json: { params: { columns } } });
      expect(reply.status).toBe(400);
      const violation = { field: 'params.columns', description: LIST_RULE.columns };
      expect(reply.body).toEqual(badRequestBody(violationMessage(LIST_REQUEST, [violation]), [violation]));
      await storeIsIntact();
    });

    it('lists at most 100 violations however many rules a request breaks, and names the first ten in the message', async () => {
      const columns = Array.from({ length: 100 }, (_, i) => ({ name: `bad${i}`, exp: 'nope', value: 'x', logic: 'xor' }));
      const reply = await rest.request('POST', `${BASE}/list`, { token: admin, json: { params: { columns } } });
      expect(reply.status).toBe(400);
      const violations = reply.body.details[0].fieldViolations as { field: string; description: string }[];
      expect(violations).toHaveLength(101);
      expect(violations[100]).toEqual({ field: '', description: '200 more violation(s) not listed' });
      expect(reply.body.message).toMatch(/; and 290 more$/);
    });

    it('refuses a value longer than any stored text', async () => {
      const reply = await rest.request('POST', `${BASE}/list`, {
        token: admin,
        json: { params: { columns: [{ name: 'name', exp: 'like', value: 'x'.repeat(2049) }] } },
      });
      expect(reply.status).toBe(400);
      expect(reply.body.details[0].fieldViolations).toEqual([{ field: 'params.columns[0].value', description: LIST_RULE.valueLength }]);
    });

    it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
      'treats %s as the unknown name, operator and logic it is',
      async (word) => {
        const reply = await rest.request('POST', `${BASE}/list`, {
          token: admin,
          json: { params: { sort: word, columns: [{ name: word, exp: word, value: '1', logic: word }] } },
        });
        expect(reply.status).toBe(400);
        expect((reply.body.details[0].fieldViolations as { field: string }[]).map((v) => v.field)).toEqual([
          'params.sort',
          'params.columns[0].name',
          'params.columns[0].exp',
          'params.columns[0].logic',
        ]);
      },
    );
  });

  describe('OPTIONS is answered in the area’s format', () => {
    it.each([
      [BASE, 'POST'],
      [`${BASE}/list`, 'POST'],
      [`${BASE}/1`, 'GET, PUT, DELETE'],
      ['/openapi.json', 'GET, HEAD'],
    ])('OPTIONS %s → 405 with Allow: %s and a google.rpc.Status body', async (path, allow) => {
      const reply = await rest.request('OPTIONS', path);
      expect(reply.status).toBe(405);
      expect(reply.headers.get('allow')).toBe(allow);
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      expect(reply.body).toEqual(statusBody(12, methodNotAllowed('OPTIONS', path)));
    });
  });
});
