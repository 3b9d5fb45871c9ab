import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRestClient, type RestClient, type RestReply } from '../../support/rest-client.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * Conditional reads on both Graph hosts and on Area A's REST reads (issue 39, item 4; social-graph.md §7): a GET's
 * reply carries `ETag: "<sha1>"` and the Graph's no-store headers; the same GET with `If-None-Match` holding it is
 * answered 304 with no body, the same headers, and counted against the rate limits as a call; a change of the object
 * gives a new tag and a 200; a malformed `If-None-Match` is treated as absent; writes carry no tag.
 */

const GRAPH_CACHE_HEADERS = {
  'cache-control': 'private, no-cache, no-store, must-revalidate',
  pragma: 'no-cache',
  expires: 'Sat, 01 Jan 2000 00:00:00 GMT',
};
const TAG = /^"[0-9a-f]{40}"$/;

describe('ETags and 304 Not Modified', () => {
  let system: TestSystem;
  let world: SocialFixture;
  let own: RestClient;
  let parent: RestClient;
  let rest: RestClient;

  beforeAll(async () => {
    // 100 calls an hour per app: each call, a 304 too, moves the app's call_count by one percent.
    system = await startTestSystem({ SOCIAL_RATE_APP_CALLS_PER_HOUR: '100' });
    world = await createSocialFixture(system.database);
    own = createRestClient(system.restUrl);
    parent = createRestClient(system.socialParentUrl);
    rest = createRestClient(system.restUrl);
  });
  afterAll(async () => {
    await system?.close();
  });

  const headersOf = (reply: RestReply, names: readonly string[]) =>
    Object.fromEntries(names.map((name) => [name, reply.headers.get(name)]));
  const appCalls = (reply: RestReply) => (JSON.parse(reply.headers.get('x-app-usage')!) as { call_count: number }).call_count;

  function expectNotModified(reply: RestReply, tag: string): void {
    expect(reply.status, reply.text).toBe(304);
    expect(reply.text).toBe('');
    expect(reply.headers.get('etag')).toBe(tag);
  }

  it.each([
    ['own-login host', () => own, () => world.tokens.own, () => `/v25.0/${world.comments.fanComment}?fields=id,text,hidden`],
    ['parent-platform host', () => parent, () => world.tokens.parent, () => `/v25.0/${world.accounts.bluebottle}?fields=id,username`],
  ] as const)('%s: a read carries its tag; the tag again is a 304 that counts as a call', async (_host, client, token, path) => {
    const first = await client().request('GET', path(), { token: token() });
    expect(first.status, first.text).toBe(200);
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(TAG);
    expect(headersOf(first, Object.keys(GRAPH_CACHE_HEADERS))).toEqual(GRAPH_CACHE_HEADERS);
    const again = await client().request('GET', path(), { token: token(), headers: { 'if-none-match': tag } });
    expectNotModified(again, tag);
    expect(headersOf(again, Object.keys(GRAPH_CACHE_HEADERS))).toEqual(GRAPH_CACHE_HEADERS);
    expect(appCalls(again)).toBe(appCalls(first) + 1);
    // A list holding it, a weak form of it, and `*` match too (RFC 9110's weak comparison for If-None-Match).
    for (const header of [`"0000000000000000000000000000000000000000", ${tag}`, `W/${tag}`, '*']) {
      expectNotModified(await client().request('GET', path(), { token: token(), headers: { 'if-none-match': header } }), tag);
    }
    // Another tag, or a header that is no list of tags, is a full reply.
    for (const header of ['"0000000000000000000000000000000000000000"', 'garbage', `"${tag}`, 'W/']) {
      const full = await client().request('GET', path(), { token: token(), headers: { 'if-none-match': header } });
      expect(full.status, header).toBe(200);
      expect(full.text).toBe(first.text);
      expect(full.headers.get('etag')).toBe(tag);
    }
  });

  it('gives a changed object a new tag, and a write no tag', async () => {
    const path = `/v25.0/${world.comments.fanReply}?fields=id,hidden`;
    const before = await own.request('GET', path, { token: world.tokens.own });
    const tag = before.headers.get('etag')!;
    const hidden = await own.request('POST', `/v25.0/${world.comments.fanReply}`, { token: world.tokens.own, json: { hide: true } });
    expect(hidden.status, hidden.text).toBe(200);
    expect(hidden.headers.get('etag')).toBeNull();
    const after = await own.request('GET', path, { token: world.tokens.own, headers: { 'if-none-match': tag } });
    expect(after.status).toBe(200);
    expect(after.body).toEqual({ id: world.comments.fanReply, hidden: true });
    expect(after.headers.get('etag')).toMatch(TAG);
    expect(after.headers.get('etag')).not.toBe(tag);
  });

  it('Area A: GET by id carries its tag, a 304 for it, a new one after an update', async () => {
    const created = await rest.request('POST', '/api/v1/userExample', {
      json: {
        name: 'Etag',
        email: 'etag@example.com',
        password: 'correct-horse-battery',
        phone: '13800138000',
        avatar: 'https://example.com/a.png',
        age: 30,
      },
    });
    const id = String(created.body.id);
    const admin = system.adminToken();
    const first = await rest.request('GET', `/api/v1/userExample/${id}`, { token: admin });
    expect(first.status).toBe(200);
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(TAG);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    expectNotModified(await rest.request('GET', `/api/v1/userExample/${id}`, { token: admin, headers: { 'if-none-match': tag } }), tag);
    expect((await rest.request('PUT', `/api/v1/userExample/${id}`, { token: admin, json: { age: 31 } })).status).toBe(200);
    const changed = await rest.request('GET', `/api/v1/userExample/${id}`, { token: admin, headers: { 'if-none-match': tag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(tag);
    // The list (a POST) carries none.
    const list = await rest.request('POST', '/api/v1/userExample/list', { token: admin, json: { params: { page: 0, limit: 1 } } });
    expect(list.status, list.text).toBe(200);
    expect(list.headers.get('etag')).toBeNull();
  });
});
