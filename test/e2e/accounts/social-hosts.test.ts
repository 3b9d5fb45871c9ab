import { request as httpRequest } from 'node:http';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SocialTables } from '../../../subgraphs/shared/social-graph/social-tables.ts';
import {
  expectGraphError,
  expiredToken,
  missingPermission,
  noToken,
  notAllowed,
  revokedToken,
  unknownField,
  unparsableToken,
  unsupported,
} from '../../support/graph-error-expectations.ts';
import { createRestClient, type RestClient, type RestReply } from '../../support/rest-client.ts';
import { createSocialFixture, OWN_PERMISSIONS, PARENT_PERMISSIONS, type SocialFixture } from '../../support/social-fixture.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * Front-door tests of the social graph's two hosts (reference §4): which token each host takes, how the token travels
 * (access_token or Authorization), parameters in POST bodies, choosing the host by the Host header, the token states of
 * §3.3, and the permission matrix of the account operations (§2.2 and §4), written out here from the reference rather
 * than taken from the product's own table.
 */

const NOW = new Date('2026-11-02T00:00:00.000Z');

function expectOk(reply: RestReply): void {
  expect(reply.status, reply.text).toBe(200);
}

/** `path?access_token=…&…` (URLSearchParams encoding). */
function withQuery(path: string, token: string | undefined, params: Record<string, string> = {}): string {
  const query = new URLSearchParams({ ...(token !== undefined && { access_token: token }), ...params }).toString();
  return query === '' ? path : `${path}?${query}`;
}

/** A GET through node:http, which (unlike fetch) may set the Host header. */
function getWithHost(baseUrl: string, path: string, host: string): Promise<RestReply> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, method: 'GET', headers: { host, accept: 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        resolve({ status: res.statusCode ?? 0, headers, text, body: text === '' ? undefined : JSON.parse(text) });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the two hosts of the social graph', () => {
  let system: TestSystem;
  let fixture: SocialFixture;
  let db: Kysely<SocialTables>;
  let own: RestClient;
  let parent: RestClient;
  let bluebottle: string;

  beforeAll(async () => {
    system = await startTestSystem({}, { now: () => NOW });
    fixture = await createSocialFixture(system.database, { now: () => NOW });
    db = system.database.db.withTables<SocialTables>();
    own = createRestClient(system.restUrl);
    parent = createRestClient(system.socialParentUrl);
    bluebottle = fixture.accounts.bluebottle;
  });
  afterAll(async () => {
    await system?.close();
  });

  describe('tokens and hosts', () => {
    it('refuses an own-login token on the parent-platform host with 190, as a token it cannot parse', async () => {
      expectGraphError(await parent.request('GET', withQuery(`/v25.0/${bluebottle}`, fixture.tokens.own)), unparsableToken);
      expectGraphError(await parent.request('GET', withQuery('/v25.0/me', fixture.tokens.own)), unparsableToken);
      expectGraphError(await parent.request('GET', `/v25.0/${bluebottle}/media`, { token: fixture.tokens.own }), unparsableToken);
    });

    it('refuses a parent-platform token on the own-login host with 190', async () => {
      expectGraphError(await own.request('GET', withQuery(`/v25.0/${bluebottle}`, fixture.tokens.parent)), unparsableToken);
      expectGraphError(await own.request('GET', withQuery('/v25.0/me', fixture.tokens.parent)), unparsableToken);
      expectGraphError(await own.request('GET', `/v25.0/${bluebottle}/media`, { token: fixture.tokens.parent }), unparsableToken);
    });

    it('takes the token as access_token or as an Authorization Bearer (or OAuth) header', async () => {
      const expected = { username: 'bluebottle', id: bluebottle };
      const query = await own.request('GET', withQuery(`/v25.0/${bluebottle}`, fixture.tokens.own, { fields: 'username' }));
      expectOk(query);
      expect(query.body).toEqual(expected);
      const bearer = await own.request('GET', `/v25.0/${bluebottle}?fields=username`, { token: fixture.tokens.own });
      expectOk(bearer);
      expect(bearer.body).toEqual(expected);
      const oauth = await parent.request('GET', `/v25.0/${bluebottle}?fields=username`, {
        authorization: `OAuth ${fixture.tokens.parent}`,
      });
      expectOk(oauth);
      expect(oauth.body).toEqual(expected);
    });

    it('prefers access_token over the Authorization header when both are sent', async () => {
      const tokenWins = await own.request('GET', withQuery(`/v25.0/${bluebottle}`, fixture.tokens.own, { fields: 'username' }), {
        token: 'garbage',
      });
      expectOk(tokenWins);
      expect(tokenWins.body).toEqual({ username: 'bluebottle', id: bluebottle });
      const otherHostHeader = await own.request('GET', withQuery(`/v25.0/${bluebottle}`, fixture.tokens.own), {
        token: fixture.tokens.parent,
      });
      expectOk(otherHostHeader);
      expectGraphError(
        await own.request('GET', withQuery(`/v25.0/${bluebottle}`, 'garbage'), { token: fixture.tokens.own }),
        unparsableToken,
      );
    });

    it('repeats a query-string token in paging links but never a header token', async () => {
      const header = await own.request('GET', `/v25.0/${bluebottle}/media?limit=2`, { token: fixture.tokens.own });
      expectOk(header);
      const next = new URL(header.body.paging.next);
      expect(next.searchParams.has('access_token')).toBe(false);
      expect(`${next.origin}${next.pathname}`).toBe(new URL(`/v25.0/${bluebottle}/media`, system.restUrl).href);
      const second = await own.request('GET', header.body.paging.next, { token: fixture.tokens.own });
      expectOk(second);
      expect(second.body.data).toEqual([{ id: fixture.posts[2] }, { id: fixture.posts[3] }]);
      // Without the header again, the link alone carries no token.
      expectGraphError(await own.request('GET', header.body.paging.next), {
        message: 'An access token is required to request this resource.',
        code: 104,
      });
      const query = await own.request('GET', withQuery(`/v25.0/${bluebottle}/media`, fixture.tokens.own, { limit: '2' }));
      expect(new URL(query.body.paging.next).searchParams.get('access_token')).toBe(fixture.tokens.own);
    });
  });

  describe('parameters in POST bodies', () => {
    const readHidden = async (id: string) =>
      (await own.request('GET', withQuery(`/v25.0/${id}`, fixture.tokens.own, { fields: 'hidden' }))).body;

    it('reads parameters (the token included) from a form-urlencoded body', async () => {
      const id = fixture.comments.fanTwoComment;
      const hide = await own.request('POST', `/v25.0/${id}`, {
        raw: new URLSearchParams({ hide: 'true', access_token: fixture.tokens.own }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectOk(hide);
      expect(hide.body).toEqual({ success: true });
      expect(await readHidden(id)).toEqual({ hidden: true, id });
      const show = await own.request('POST', `/v25.0/${id}`, {
        raw: 'hide=false',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        token: fixture.tokens.own,
      });
      expect(show.body).toEqual({ success: true });
      expect(await readHidden(id)).toEqual({ hidden: false, id });
    });

    it('reads parameters (the token included) from a JSON body, booleans as JSON or as text', async () => {
      const id = fixture.comments.fanTwoComment;
      const hide = await own.request('POST', `/v25.0/${id}`, { json: { hide: true, access_token: fixture.tokens.own } });
      expectOk(hide);
      expect(hide.body).toEqual({ success: true });
      expect(await readHidden(id)).toEqual({ hidden: true, id });
      const show = await parent.request('POST', `/v25.0/${id}`, { json: { hide: 'false', access_token: fixture.tokens.parent } });
      expectOk(show);
      expect(show.body).toEqual({ success: true });
      expect(await readHidden(id)).toEqual({ hidden: false, id });
    });

    it('still refuses a write to an account whatever the body carries', async () => {
      const reply = await own.request('POST', `/v25.0/${bluebottle}`, { json: { biography: 'changed', access_token: fixture.tokens.own } });
      expectGraphError(reply, unsupported('post', bluebottle));
      const form = await parent.request('POST', `/v25.0/${bluebottle}`, {
        raw: `name=changed&access_token=${fixture.tokens.parent}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectGraphError(form, unsupported('post', bluebottle));
    });
  });

  describe('token states (§3.3)', () => {
    it('answers 104 without a token, on both hosts', async () => {
      expectGraphError(await own.request('GET', `/v25.0/${bluebottle}`), noToken);
      expectGraphError(await parent.request('GET', `/v25.0/${bluebottle}?fields=username`), noToken);
      expectGraphError(await own.request('GET', '/v25.0/me'), noToken);
      expectGraphError(await parent.request('GET', `/v25.0/${bluebottle}/media`), noToken);
    });

    it('answers 190 for a token it cannot parse or does not know', async () => {
      expectGraphError(await own.request('GET', withQuery(`/v25.0/${bluebottle}`, 'garbage')), unparsableToken);
      expectGraphError(await parent.request('GET', `/v25.0/${bluebottle}`, { token: 'garbage' }), unparsableToken);
      expectGraphError(await own.request('GET', withQuery(`/v25.0/${bluebottle}`, `SBA${'A'.repeat(43)}`)), unparsableToken);
      expectGraphError(await own.request('GET', `/v25.0/${bluebottle}`, { authorization: 'Basic dXNlcjpwYXNz' }), unparsableToken);
    });

    it('answers 190/463 for an expired token, with both dates', async () => {
      // The fixture's expired token was issued two hours before NOW and lived one hour: "Session has expired on Sunday,
      // 01-Nov-26 23:00:00 UTC. The current time is Monday, 02-Nov-26 00:00:00 UTC."
      expectGraphError(
        await own.request('GET', withQuery(`/v25.0/${bluebottle}`, fixture.tokens.expired)),
        expiredToken(new Date(NOW.getTime() - 3_600_000), NOW),
      );
    });

    it('answers 190/467 for a revoked token', async () => {
      expectGraphError(await own.request('GET', withQuery(`/v25.0/${bluebottle}`, fixture.tokens.revoked)), revokedToken);
    });

    it('answers 100/33 for a parent-platform user without a role on the account’s page', async () => {
      expectGraphError(
        await parent.request('GET', withQuery(`/v25.0/${bluebottle}`, fixture.tokens.stranger)),
        unsupported('get', bluebottle),
      );
      expectGraphError(
        await parent.request('GET', withQuery(`/v25.0/${bluebottle}/media`, fixture.tokens.stranger)),
        unsupported('get', bluebottle),
      );
      // The stranger is still a user of the platform, with no pages.
      const me = await parent.request('GET', withQuery('/v25.0/me', fixture.tokens.stranger));
      expect(me.body).toEqual({ id: fixture.platformUsers.stranger, name: 'Stranger' });
      const pages = await parent.request('GET', withQuery('/v25.0/me/accounts', fixture.tokens.stranger));
      expect(pages.body).toEqual({ data: [] });
    });

    it('needs ads_management or ads_read for a page role granted through the business manager', async () => {
      expectGraphError(
        await parent.request('GET', withQuery(`/v25.0/${bluebottle}`, fixture.tokens.bmWithoutAds)),
        missingPermission('ads_read'),
      );
      for (const ads of ['ads_read', 'ads_management']) {
        const token = await fixture.token('parent', fixture.platformUsers.bm, [
          ...PARENT_PERMISSIONS.filter((p) => !p.startsWith('ads_')),
          ads,
        ]);
        const reply = await parent.request('GET', withQuery(`/v25.0/${bluebottle}`, token, { fields: 'username' }));
        expectOk(reply);
        expect(reply.body).toEqual({ username: 'bluebottle', id: bluebottle });
      }
    });
  });

  describe('permission matrix of the account operations', () => {
    interface Operation {
      name: string;
      /** Path and query parameters of a request that exercises the operation. */
      request: () => [string, Record<string, string>];
      /** Every permission the operation needs on the parent-platform host (§2.2 with §4's basic reads). */
      parent: readonly string[];
      /** Whether the operation exists on the own-login host (where it needs social_business_basic alone). */
      own: boolean;
      /** §2.2 accepts pages_show_list in place of pages_read_engagement for this edge. */
      showListWillDo?: boolean;
      /** §2.2 lists no business-manager rule for this edge (stories). */
      noBusinessManagerRule?: boolean;
      /** The field an own-login request is refused with when the operation does not exist there. */
      ownField?: string;
    }

    const OPERATIONS: Operation[] = [
      {
        name: 'account read',
        request: () => [`/v25.0/${fixture.accounts.bluebottle}`, { fields: 'username' }],
        parent: ['social_basic', 'pages_read_engagement'],
        own: true,
      },
      {
        name: 'media',
        request: () => [`/v25.0/${fixture.accounts.bluebottle}/media`, { limit: '1' }],
        parent: ['social_basic', 'pages_read_engagement'],
        own: true,
        showListWillDo: true,
      },
      {
        name: 'stories',
        request: () => [`/v25.0/${fixture.accounts.bluebottle}/stories`, {}],
        parent: ['social_basic', 'social_manage_insights', 'pages_read_engagement', 'pages_show_list'],
        own: true,
        noBusinessManagerRule: true,
      },
      {
        name: 'tags',
        request: () => [`/v25.0/${fixture.accounts.bluebottle}/tags`, {}],
        parent: ['social_basic', 'social_manage_comments', 'pages_read_engagement'],
        own: true,
        showListWillDo: true,
      },
      {
        name: 'live_media',
        request: () => [`/v25.0/${fixture.accounts.bluebottle}/live_media`, {}],
        parent: ['social_basic', 'pages_read_engagement'],
        own: true,
      },
      {
        name: 'business_discovery',
        request: () => [`/v25.0/${fixture.accounts.bluebottle}`, { fields: 'business_discovery.username(roaster){username}' }],
        parent: ['social_basic', 'social_manage_insights', 'pages_read_engagement'],
        showListWillDo: true,
        own: false,
        ownField: 'business_discovery',
      },
      {
        name: 'mentioned_media',
        request: () => [
          `/v25.0/${fixture.accounts.bluebottle}`,
          { fields: `mentioned_media.media_id(${fixture.media.roasterPost}){username}` },
        ],
        parent: ['social_basic', 'social_manage_comments', 'pages_read_engagement', 'pages_show_list'],
        own: false,
        ownField: 'mentioned_media',
      },
    ];

    const get = (client: RestClient, operation: Operation, token: string) => {
      const [path, params] = operation.request();
      return client.request('GET', withQuery(path, token, params));
    };

    describe.each(OPERATIONS)('$name', (operation) => {
      it('on the parent-platform host, works with exactly its permissions and names each one missing', async () => {
        const exact = await fixture.token('parent', fixture.platformUsers.ana, operation.parent);
        expectOk(await get(parent, operation, exact));
        for (const permission of operation.parent) {
          const token = await fixture.token(
            'parent',
            fixture.platformUsers.ana,
            PARENT_PERMISSIONS.filter((p) => p !== permission),
          );
          if (operation.showListWillDo && permission === 'pages_read_engagement') {
            // Either page permission will do for this edge (§2.2); without both, the first is named.
            expectOk(await get(parent, operation, token));
            const neither = await fixture.token(
              'parent',
              fixture.platformUsers.ana,
              PARENT_PERMISSIONS.filter((p) => p !== permission && p !== 'pages_show_list'),
            );
            expectGraphError(await get(parent, operation, neither), missingPermission(permission));
            continue;
          }
          expectGraphError(await get(parent, operation, token), missingPermission(permission));
        }
      });

      it('on the parent-platform host, needs ads_management or ads_read for a business-manager page role', async () => {
        const withoutAds = await fixture.token('parent', fixture.platformUsers.bm, operation.parent);
        if (operation.noBusinessManagerRule) {
          expectOk(await get(parent, operation, withoutAds));
          return;
        }
        expectGraphError(await get(parent, operation, withoutAds), missingPermission('ads_read'));
        for (const ads of ['ads_read', 'ads_management']) {
          const token = await fixture.token('parent', fixture.platformUsers.bm, [...operation.parent, ads]);
          expectOk(await get(parent, operation, token));
        }
      });

      it(operation.own ? 'on the own-login host, needs social_business_basic alone' : 'does not exist on the own-login host', async () => {
        const basic = await fixture.token('own', fixture.accounts.bluebottle, ['social_business_basic']);
        const withoutBasic = await fixture.token(
          'own',
          fixture.accounts.bluebottle,
          OWN_PERMISSIONS.filter((p) => p !== 'social_business_basic'),
        );
        if (operation.own) {
          expectOk(await get(own, operation, basic));
        } else {
          expectGraphError(await get(own, operation, fixture.tokens.own), unknownField(operation.ownField!));
          expectGraphError(await get(own, operation, basic), unknownField(operation.ownField!));
        }
        // A field the node does not have on this host is unknown whatever the token may do (fields are checked first,
        // as for any other unknown field).
        expectGraphError(
          await get(own, operation, withoutBasic),
          operation.own ? missingPermission('social_business_basic') : unknownField(operation.ownField!),
        );
      });
    });

    it('needs a page task MANAGE, CREATE_CONTENT or MODERATE for mentioned_media (#10 otherwise)', async () => {
      const analyst = String(
        (await db.insertInto('social.platform_user').values({ name: 'Analyst' }).returning('id').executeTakeFirstOrThrow()).id,
      );
      await db
        .insertInto('social.page_role')
        .values({
          page_id: fixture.pages.bluebottle,
          platform_user_id: analyst,
          tasks: ['ANALYZE', 'ADVERTISE'],
          via_business_manager: false,
        })
        .execute();
      const token = await fixture.token('parent', analyst, PARENT_PERMISSIONS);
      const path = `/v25.0/${fixture.accounts.bluebottle}`;
      expectOk(await parent.request('GET', withQuery(path, token, { fields: 'username' })));
      expectGraphError(
        await parent.request('GET', withQuery(path, token, { fields: `mentioned_media.media_id(${fixture.media.roasterPost}){username}` })),
        notAllowed,
      );
      await db
        .updateTable('social.page_role')
        .set({ tasks: ['MODERATE'] })
        .where('platform_user_id', '=', analyst)
        .execute();
      expectOk(
        await parent.request('GET', withQuery(path, token, { fields: `mentioned_media.media_id(${fixture.media.roasterPost}){username}` })),
      );
    });
  });
});

describe('choosing the host by the Host header', () => {
  let system: TestSystem;
  let fixture: SocialFixture;

  beforeAll(async () => {
    system = await startTestSystem(
      { SOCIAL_PARENT_HOSTNAME: 'graph.parent.test', SOCIAL_OWN_HOSTNAME: 'graph.own.test' },
      { now: () => NOW },
    );
    fixture = await createSocialFixture(system.database, { now: () => NOW });
  });
  afterAll(async () => {
    await system?.close();
  });

  it('serves the parent-platform host on the own-login listener when the Host header names it', async () => {
    const bluebottle = fixture.accounts.bluebottle;
    const read = await getWithHost(
      system.restUrl,
      withQuery(`/v25.0/${bluebottle}`, fixture.tokens.parent, { fields: 'username' }),
      'graph.parent.test',
    );
    expectOk(read);
    expect(read.body).toEqual({ username: 'bluebottle', id: bluebottle });
    expectGraphError(
      await getWithHost(system.restUrl, withQuery(`/v25.0/${bluebottle}`, fixture.tokens.own), 'graph.parent.test'),
      unparsableToken,
    );
    const me = await getWithHost(system.restUrl, withQuery('/v25.0/me', fixture.tokens.parent), 'graph.parent.test');
    expect(me.body).toEqual({ id: fixture.platformUsers.ana, name: 'Ana' });
    // Host names are case-insensitive, and a port does not change the name.
    const upper = await getWithHost(system.restUrl, withQuery('/v25.0/me', fixture.tokens.parent), 'GRAPH.Parent.TEST:8443');
    expect(upper.body).toEqual({ id: fixture.platformUsers.ana, name: 'Ana' });
  });

  it('builds paging links on the origin the request named', async () => {
    const bluebottle = fixture.accounts.bluebottle;
    const reply = await getWithHost(
      system.restUrl,
      withQuery(`/v25.0/${bluebottle}/media`, fixture.tokens.parent, { limit: '1' }),
      'graph.parent.test',
    );
    expectOk(reply);
    expect(reply.body.paging.next).toBe(
      `http://graph.parent.test/v25.0/${bluebottle}/media?access_token=${fixture.tokens.parent}&limit=1&after=${reply.body.paging.cursors.after}`,
    );
  });

  it('serves the own-login host on the parent-platform listener when the Host header names it', async () => {
    const bluebottle = fixture.accounts.bluebottle;
    const read = await getWithHost(
      system.socialParentUrl,
      withQuery('/v25.0/me', fixture.tokens.own, { fields: 'username' }),
      'graph.own.test',
    );
    expectOk(read);
    expect(read.body).toEqual({ username: 'bluebottle', id: bluebottle });
    expectGraphError(
      await getWithHost(system.socialParentUrl, withQuery(`/v25.0/${bluebottle}`, fixture.tokens.parent), 'graph.own.test'),
      unparsableToken,
    );
  });

  it('keeps each listener’s own host for any other host name', async () => {
    const own = await getWithHost(system.restUrl, withQuery('/v25.0/me', fixture.tokens.own, { fields: 'username' }), 'api.example.test');
    expect(own.body).toEqual({ username: 'bluebottle', id: fixture.accounts.bluebottle });
    const parent = await getWithHost(system.socialParentUrl, withQuery('/v25.0/me', fixture.tokens.parent), 'api.example.test');
    expect(parent.body).toEqual({ id: fixture.platformUsers.ana, name: 'Ana' });
  });
});
