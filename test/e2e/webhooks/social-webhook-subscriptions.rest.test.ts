import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appAccessToken } from '../../../lib/auth/social-auth/social-token.service.ts';
import type { StoredApp } from '../../../lib/auth/social-auth/social-token.repository.ts';
import { createSocialTokens } from '../../../subgraphs/index.ts';
import {
  appTokenRequired,
  callbackVerificationFailed,
  expectGraphError,
  invalidParameter,
  missingParameter,
  missingPermission,
  noToken,
  unknownPath,
  unparsableToken,
  unsupported,
  type ExpectedGraphError,
} from '../../support/graph-error-expectations.ts';
import type { RestReply } from '../../support/rest-client.ts';
import { OWN_PERMISSIONS, PARENT_PERMISSIONS, useSocialWorld } from '../../support/social-fixture.ts';

/**
 * Webhook subscriptions through the Graph-style REST doors (issue 26, item 2; reference §6.1–§6.3, §6.6): an app's own
 * subscriptions at `/{app-id}/subscriptions` on the parent-platform host with its app access token — saved only once the
 * callback answered the verification request with the challenge — and accounts subscribed to the app their token was
 * issued to: `/me/subscribed_apps` on the own-login host, `/{page-id}/subscribed_apps` on the parent-platform host. The
 * receiver is a real HTTP server on 127.0.0.1 (allowed in tests only: WEBHOOK_ALLOWED_HOSTS). Statuses and bodies are
 * compared whole; errors as the Graph envelope with its WWW-Authenticate challenge (expectGraphError).
 */
const world = useSocialWorld();

const VERIFY_TOKEN = 'meatyhamhock';
const FIELD_VERSION = 'v25.0';
const meWithoutUser: ExpectedGraphError = {
  message: 'An active access token must be used to query information about the current user.',
  code: 2500,
};
const notAFieldOfSocial = (field: string) =>
  invalidParameter(`(#100) "${field}" is not a field of the social object: use comments, live_comments, mentions.`);

/** A form-urlencoded body (how Graph clients send their parameters). */
const form = (params: Record<string, string>) => ({
  raw: new URLSearchParams(params).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

function expectSuccess(reply: RestReply): void {
  expect(reply.status, reply.text).toBe(200);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json\b/);
  expect(reply.text).toBe('{"success":true}');
}

function expectData(reply: RestReply, data: unknown[]): void {
  expect(reply.status, reply.text).toBe(200);
  expect(reply.body).toEqual({ data });
}

describe('webhook subscriptions over the Graph-style REST paths', () => {
  let receiver: Server;
  let callbackUrl: string;
  /** The verification requests the receiver got (GETs), as URLs. */
  const verifications: URL[] = [];
  let app: StoredApp;
  let otherApp: StoredApp;
  let appToken: string;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://receiver');
      if (req.method !== 'GET') {
        // Deliveries, should any come: acknowledged, as §6.4 asks.
        res.writeHead(200).end();
        return;
      }
      verifications.push(url);
      // As Meta's samples answer: the challenge when the verify token matches, 403 otherwise.
      if (url.searchParams.get('hub.mode') === 'subscribe' && url.searchParams.get('hub.verify_token') === VERIFY_TOKEN) {
        res.writeHead(200, { 'content-type': 'text/plain' }).end(url.searchParams.get('hub.challenge'));
      } else {
        res.writeHead(403).end();
      }
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks?source=tributary`;
    const tokens = createSocialTokens(world().system.database);
    app = await tokens.createApp('Subscriber');
    otherApp = await tokens.createApp('Another app');
    appToken = appAccessToken(app);
  });
  afterAll(() => new Promise<void>((resolve) => receiver?.close(() => resolve())));

  const subscriptionsPath = (appId: string) => `/v25.0/${appId}/subscriptions`;
  const subscription = (fields: string[]) => ({
    object: 'social',
    callback_url: callbackUrl,
    active: true,
    fields: fields.map((name) => ({ name, version: FIELD_VERSION })),
  });
  const readSubscriptions = (appId = app.id, token = appToken) => world().parentHost.request('GET', subscriptionsPath(appId), { token });

  describe('/{app-id}/subscriptions on the parent-platform host, with the app access token', () => {
    it('subscribes a callback that answers the challenge (form parameters, token in the form), keeping its own query', async () => {
      const before = verifications.length;
      const reply = await world().parentHost.request(
        'POST',
        subscriptionsPath(app.id),
        form({
          access_token: appToken,
          object: 'social',
          callback_url: callbackUrl,
          fields: 'comments,mentions',
          verify_token: VERIFY_TOKEN,
          include_values: 'true',
        }),
      );
      expectSuccess(reply);
      expect(verifications.length).toBe(before + 1);
      const verification = verifications.at(-1)!;
      expect(verification.pathname).toBe('/webhooks');
      expect(verification.searchParams.get('hub.mode')).toBe('subscribe');
      expect(verification.searchParams.get('hub.verify_token')).toBe(VERIFY_TOKEN);
      expect(verification.searchParams.get('hub.challenge')).toMatch(/^\d+$/);
      expect(verification.searchParams.get('source')).toBe('tributary');
    });

    it("reads the subscription back in the reference's shape (Bearer token; also without the version segment)", async () => {
      expectData(await readSubscriptions(), [subscription(['comments', 'mentions'])]);
      // include_values is not part of the read shape (§6.1).
      expect((await readSubscriptions()).text).not.toContain('include_values');
      const versionless = await world().parentHost.request('GET', `/${app.id}/subscriptions?access_token=${encodeURIComponent(appToken)}`);
      expectData(versionless, [subscription(['comments', 'mentions'])]);
    });

    it('adds fields with a later POST, without removing the others (a JSON body with a JSON array, token in the query)', async () => {
      const reply = await world().parentHost.request('POST', `${subscriptionsPath(app.id)}?access_token=${encodeURIComponent(appToken)}`, {
        json: { object: 'social', callback_url: callbackUrl, fields: ['live_comments'], verify_token: VERIFY_TOKEN },
      });
      expectSuccess(reply);
      expectData(await readSubscriptions(), [subscription(['comments', 'live_comments', 'mentions'])]);
    });

    it('refuses a callback that does not answer the challenge with 2200, and stores nothing', async () => {
      const before = verifications.length;
      const reply = await world().parentHost.request(
        'POST',
        subscriptionsPath(otherApp.id),
        form({
          access_token: appAccessToken(otherApp),
          object: 'social',
          callback_url: callbackUrl,
          fields: 'comments',
          verify_token: 'wrong token',
        }),
      );
      expectGraphError(reply, callbackVerificationFailed('HTTP Status Code = 403; HTTP Message = Forbidden'));
      // The verification request was made, with the token as given.
      expect(verifications.length).toBe(before + 1);
      expect(verifications.at(-1)!.searchParams.get('hub.verify_token')).toBe('wrong token');
      expectData(await readSubscriptions(otherApp.id, appAccessToken(otherApp)), []);
    });

    it("refuses a user token and another app's token with 15, and no token with 104, on every method", async () => {
      const { fixture, parentHost } = world();
      const post = form({ object: 'social', callback_url: callbackUrl, fields: 'comments', verify_token: VERIFY_TOKEN });
      const before = verifications.length;
      for (const token of [fixture.tokens.parent, fixture.tokens.own, appAccessToken(otherApp)]) {
        expectGraphError(await parentHost.request('GET', subscriptionsPath(app.id), { token }), appTokenRequired);
        expectGraphError(await parentHost.request('POST', subscriptionsPath(app.id), { token, ...post }), appTokenRequired);
        expectGraphError(await parentHost.request('DELETE', subscriptionsPath(app.id), { token }), appTokenRequired);
      }
      expectGraphError(await parentHost.request('GET', subscriptionsPath(app.id)), noToken);
      expectGraphError(await parentHost.request('POST', subscriptionsPath(app.id), post), noToken);
      expectGraphError(await parentHost.request('DELETE', subscriptionsPath(app.id)), noToken);
      expectGraphError(
        await parentHost.request('GET', subscriptionsPath(app.id), { token: `${app.id}|${'0'.repeat(32)}` }),
        unparsableToken,
      );
      // Nothing was verified, changed or removed.
      expect(verifications.length).toBe(before);
      expectData(await readSubscriptions(), [subscription(['comments', 'live_comments', 'mentions'])]);
    });

    it('refuses a callback at a private address (http://10.1.2.3/) with 100, without calling it', async () => {
      const before = verifications.length;
      const reply = await world().parentHost.request(
        'POST',
        subscriptionsPath(app.id),
        form({
          access_token: appToken,
          object: 'social',
          callback_url: 'http://10.1.2.3/hook',
          fields: 'comments',
          verify_token: VERIFY_TOKEN,
        }),
      );
      expectGraphError(reply, invalidParameter('the host is a private-network address, which callbacks may not reach'));
      expect(verifications.length).toBe(before);
      expectData(await readSubscriptions(), [subscription(['comments', 'live_comments', 'mentions'])]);
    });

    it('refuses another object, fields of no object, missing and malformed parameters with 100', async () => {
      const post = (params: Record<string, string>) =>
        world().parentHost.request(
          'POST',
          subscriptionsPath(app.id),
          form({
            access_token: appToken,
            object: 'social',
            callback_url: callbackUrl,
            fields: 'comments',
            verify_token: VERIFY_TOKEN,
            ...params,
          }),
        );
      const before = verifications.length;
      expectGraphError(await post({ object: 'page' }), invalidParameter('(#100) Param object must be one of {social}.'));
      expectGraphError(await post({ fields: 'comments,feed' }), notAFieldOfSocial('feed'));
      expectGraphError(await post({ fields: '' }), missingParameter('fields'));
      expectGraphError(await post({ verify_token: '' }), missingParameter('verify_token'));
      expectGraphError(await post({ include_values: 'maybe' }), invalidParameter('include_values must be true or false, got "maybe".'));
      expectGraphError(
        await world().parentHost.request('DELETE', `${subscriptionsPath(app.id)}?object=user`, { token: appToken }),
        invalidParameter('(#100) Param object must be one of {social}.'),
      );
      expectGraphError(
        await world().parentHost.request('DELETE', `${subscriptionsPath(app.id)}?fields=feed`, { token: appToken }),
        notAFieldOfSocial('feed'),
      );
      expect(verifications.length).toBe(before);
      expectData(await readSubscriptions(), [subscription(['comments', 'live_comments', 'mentions'])]);
    });

    it("answers the app's other paths as the router answers paths it does not serve, after the app's token is checked", async () => {
      const { parentHost, fixture } = world();
      expectGraphError(await parentHost.request('GET', `/v25.0/${app.id}`, { token: appToken }), unsupported('get', app.id));
      expectGraphError(await parentHost.request('GET', `/v25.0/${app.id}/subscribers`, { token: appToken }), unknownPath('/subscribers'));
      expectGraphError(await parentHost.request('GET', `/v25.0/${app.id}/subscribers`, { token: fixture.tokens.parent }), appTokenRequired);
      expectGraphError(await parentHost.request('GET', `/v25.0/${app.id}/subscribers`), noToken);
    });

    it('removes fields (DELETE with object and fields), then every subscription (DELETE alone)', async () => {
      const { parentHost } = world();
      expectSuccess(
        await parentHost.request('DELETE', `${subscriptionsPath(app.id)}?object=social&fields=live_comments`, { token: appToken }),
      );
      expectData(await readSubscriptions(), [subscription(['comments', 'mentions'])]);
      // Parameters in a form body, as for a POST.
      expectSuccess(await parentHost.request('DELETE', subscriptionsPath(app.id), form({ access_token: appToken })));
      expectData(await readSubscriptions(), []);
    });
  });

  describe('/{app-id}/subscriptions on the own-login host', () => {
    it('does not exist: an unknown path for a user token, /me without a user for the app token, 104 without a token', async () => {
      const { ownHost, fixture } = world();
      for (const method of ['GET', 'POST', 'DELETE']) {
        expectGraphError(
          await ownHost.request(method, subscriptionsPath(app.id), { token: fixture.tokens.own }),
          unknownPath('/subscriptions'),
        );
        expectGraphError(await ownHost.request(method, subscriptionsPath(app.id), { token: appToken }), meWithoutUser);
        expectGraphError(await ownHost.request(method, subscriptionsPath(app.id)), noToken);
      }
      expectData(await readSubscriptions(), []);
    });
  });

  describe('accounts subscribed to the token’s app', () => {
    const issue = (loginType: 'own' | 'parent', subjectId: string, permissions: readonly string[], appId: string | undefined = app.id) =>
      createSocialTokens(world().system.database).issue({
        loginType,
        subjectId,
        permissions: [...permissions],
        expiresInSeconds: 3600,
        ...(appId !== undefined && { appId }),
      });

    it('own-login host: /me/subscribed_apps subscribes the token’s account, reads and removes it', async () => {
      const { ownHost, fixture } = world();
      const token = await issue('own', fixture.accounts.bluebottle, OWN_PERMISSIONS);
      expectData(await ownHost.request('GET', '/v25.0/me/subscribed_apps', { token }), []);
      expectSuccess(
        await ownHost.request('POST', '/v25.0/me/subscribed_apps', { token, ...form({ subscribed_fields: 'comments,live_comments' }) }),
      );
      expectData(await ownHost.request('GET', '/v25.0/me/subscribed_apps', { token }), [
        { id: app.id, name: 'Subscriber', subscribed_fields: ['comments', 'live_comments'] },
      ]);
      // Also with the token in the query string and a JSON array (the subscription is replaced by the new fields).
      expectSuccess(
        await ownHost.request('POST', `/me/subscribed_apps?access_token=${token}`, { json: { subscribed_fields: ['comments'] } }),
      );
      expectData(await ownHost.request('GET', `/me/subscribed_apps?access_token=${token}`), [
        { id: app.id, name: 'Subscriber', subscribed_fields: ['comments'] },
      ]);
      expectSuccess(await ownHost.request('DELETE', '/v25.0/me/subscribed_apps', { token }));
      expectData(await ownHost.request('GET', '/v25.0/me/subscribed_apps', { token }), []);
    });

    it('own-login host: refuses a token without social_business_manage_comments, one issued to no app, page fields and no fields', async () => {
      const { ownHost, fixture } = world();
      const basicOnly = await issue('own', fixture.accounts.bluebottle, ['social_business_basic']);
      expectGraphError(
        await ownHost.request('GET', '/v25.0/me/subscribed_apps', { token: basicOnly }),
        missingPermission('social_business_manage_comments'),
      );
      for (const method of ['POST', 'DELETE']) {
        expectGraphError(
          await ownHost.request(method, '/v25.0/me/subscribed_apps', { token: basicOnly, ...form({ subscribed_fields: 'comments' }) }),
          missingPermission('social_business_manage_comments'),
        );
      }
      // The fixture's token was issued to no app: there is no app to subscribe the account to.
      expectGraphError(
        await ownHost.request('POST', '/v25.0/me/subscribed_apps', {
          token: fixture.tokens.own,
          ...form({ subscribed_fields: 'comments' }),
        }),
        invalidParameter('The access token was issued to no app: issue one to an app to subscribe it.'),
      );
      const token = await issue('own', fixture.accounts.bluebottle, OWN_PERMISSIONS);
      expectGraphError(
        await ownHost.request('POST', '/v25.0/me/subscribed_apps', { token, ...form({ subscribed_fields: 'feed' }) }),
        notAFieldOfSocial('feed'),
      );
      expectGraphError(await ownHost.request('POST', '/v25.0/me/subscribed_apps', { token }), missingParameter('subscribed_fields'));
      // A parent-platform token on the own-login host, and an app token (no user behind it).
      expectGraphError(await ownHost.request('GET', '/v25.0/me/subscribed_apps', { token: fixture.tokens.parent }), unparsableToken);
      expectGraphError(await ownHost.request('GET', '/v25.0/me/subscribed_apps', { token: appToken }), meWithoutUser);
      expectGraphError(await ownHost.request('GET', '/v25.0/me/subscribed_apps'), noToken);
      expectData(await ownHost.request('GET', '/v25.0/me/subscribed_apps', { token }), []);
    });

    it('parent-platform host: /{page-id}/subscribed_apps with a page role subscribes the page’s account with page fields', async () => {
      const { parentHost, fixture } = world();
      const page = fixture.pages.roaster;
      const token = await issue('parent', fixture.platformUsers.ana, PARENT_PERMISSIONS);
      const path = `/v25.0/${page}/subscribed_apps`;
      expectData(await parentHost.request('GET', path, { token }), []);
      // The social fields are chosen at app level; the page edge refuses them (§6.3).
      expectGraphError(
        await parentHost.request('POST', path, { token, ...form({ subscribed_fields: 'comments' }) }),
        invalidParameter(
          '(#100) "comments" is not a page field: subscribe the app to comments, live_comments, mentions at /{app-id}/subscriptions.',
        ),
      );
      expectData(await parentHost.request('GET', path, { token }), []);
      expectSuccess(await parentHost.request('POST', path, { token, ...form({ subscribed_fields: 'feed' }) }));
      expectData(await parentHost.request('GET', path, { token }), [{ id: app.id, name: 'Subscriber', subscribed_fields: ['feed'] }]);
      // Without the version segment too.
      expectData(await parentHost.request('GET', `/${page}/subscribed_apps`, { token }), [
        { id: app.id, name: 'Subscriber', subscribed_fields: ['feed'] },
      ]);
      expectSuccess(await parentHost.request('DELETE', path, { token }));
      expectData(await parentHost.request('GET', path, { token }), []);
    });

    it('parent-platform host: a page the user has no role on does not exist for it; permissions and tokens are checked', async () => {
      const { parentHost, ownHost, fixture } = world();
      const page = fixture.pages.roaster;
      const path = `/v25.0/${page}/subscribed_apps`;
      const stranger = await issue('parent', fixture.platformUsers.stranger, PARENT_PERMISSIONS);
      expectGraphError(await parentHost.request('GET', path, { token: stranger }), unsupported('get', page));
      expectGraphError(
        await parentHost.request('POST', path, { token: stranger, ...form({ subscribed_fields: 'feed' }) }),
        unsupported('post', page),
      );
      expectGraphError(await parentHost.request('DELETE', path, { token: stranger }), unsupported('delete', page));
      const withoutMetadata = await issue(
        'parent',
        fixture.platformUsers.ana,
        PARENT_PERMISSIONS.filter((permission) => permission !== 'pages_manage_metadata'),
      );
      expectGraphError(
        await parentHost.request('POST', path, { token: withoutMetadata, ...form({ subscribed_fields: 'feed' }) }),
        missingPermission('pages_manage_metadata'),
      );
      expectGraphError(await parentHost.request('GET', path, { token: fixture.tokens.own }), unparsableToken);
      expectGraphError(await parentHost.request('GET', path, { token: appToken }), meWithoutUser);
      expectGraphError(await parentHost.request('GET', path), noToken);
      // /me/subscribed_apps is the own-login host's (no page tokens here), and a page is no node of the own-login host.
      const ana = await issue('parent', fixture.platformUsers.ana, PARENT_PERMISSIONS);
      expectGraphError(await parentHost.request('GET', '/v25.0/me/subscribed_apps', { token: ana }), unknownPath('/subscribed_apps'));
      expectGraphError(await ownHost.request('GET', path, { token: fixture.tokens.own }), unknownPath('/subscribed_apps'));
      expectGraphError(await parentHost.request('GET', `/v25.0/${page}`, { token: ana }), unsupported('get', page));
      expectData(await parentHost.request('GET', path, { token: ana }), []);
    });
  });
});
