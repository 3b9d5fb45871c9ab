import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appAccessToken } from '../../../lib/auth/social-auth/social-token.service.ts';
import type { StoredApp } from '../../../lib/auth/social-auth/social-token.repository.ts';
import { createSocialTokens } from '../../../subgraphs/index.ts';
import { OWN_PERMISSIONS, PARENT_PERMISSIONS, useSocialWorld } from '../../support/social-fixture.ts';

/**
 * Webhook subscriptions through GraphQL (issue 26, item 2; reference §6.1–§6.3, §6.6): an app subscribes its callback
 * with its app access token once the callback has answered the verification request with the challenge; accounts
 * subscribe to the app their token was issued to, with the comments permissions (own-login host) or a page role and
 * the page permissions (parent-platform host). The receiver is a real HTTP server on 127.0.0.1 (allowed in tests only).
 */
const world = useSocialWorld();

interface Reply {
  data?: Record<string, any> | null;
  errors?: { message: string; extensions: Record<string, unknown> }[];
}

describe('webhook subscriptions over GraphQL', () => {
  let receiver: Server;
  let callbackUrl: string;
  /** The verification requests the receiver got (their query strings). */
  const verifications: URLSearchParams[] = [];
  let app: StoredApp;
  let otherApp: StoredApp;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const query = new URL(req.url ?? '/', 'http://receiver').searchParams;
      verifications.push(query);
      if (req.url?.startsWith('/big')) {
        // The challenge, then past the response bound (WEBHOOK_MAX_RESPONSE_BYTES, 64 KiB) something else.
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`${query.get('hub.challenge')}${' '.repeat(70_000)}x`);
        return;
      }
      // As Meta's samples answer: the challenge when the verify token matches, 403 otherwise.
      if (query.get('hub.mode') === 'subscribe' && query.get('hub.verify_token') === 'meatyhamhock') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end(query.get('hub.challenge'));
      } else {
        res.writeHead(403).end();
      }
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks?source=tributary`;
    const tokens = createSocialTokens(world().system.database);
    app = await tokens.createApp('Subscriber');
    otherApp = await tokens.createApp('Another app');
  });
  afterAll(() => new Promise<void>((resolve) => receiver?.close(() => resolve())));

  const graphql = async (token: string, query: string, variables: Record<string, unknown> = {}): Promise<Reply> => {
    const response = await fetch(world().system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    expect(response.status).toBe(200);
    // The social graph's usage report (extensions.socialUsage, the app-usage header's counterpart) is left aside.
    const { data, errors } = (await response.json()) as Reply;
    return errors === undefined ? { data } : { data, errors };
  };

  const SUBSCRIBE = `mutation Subscribe($appId: ID!, $input: AppSubscriptionInput!) { subscribeApp(appId: $appId, input: $input) { success } }`;
  const LIST = `query List($appId: ID!) { appSubscriptions(appId: $appId) { object callbackUrl active includeValues fields { name version } } }`;
  const reasonOf = (reply: Reply) => reply.errors?.[0]?.extensions.reason;

  it('subscribes a callback that answers the challenge, and lists it', async () => {
    const input = { object: 'social', callbackUrl, fields: ['comments', 'mentions'], verifyToken: 'meatyhamhock', includeValues: true };
    expect(await graphql(appAccessToken(app), SUBSCRIBE, { appId: app.id, input })).toEqual({ data: { subscribeApp: { success: true } } });
    const verification = verifications.at(-1)!;
    expect(verification.get('hub.mode')).toBe('subscribe');
    expect(verification.get('hub.verify_token')).toBe('meatyhamhock');
    expect(verification.get('hub.challenge')).toMatch(/^\d+$/);
    // The callback's own query string is kept.
    expect(verification.get('source')).toBe('tributary');
    // A later call adds fields without removing the others.
    expect(await graphql(appAccessToken(app), SUBSCRIBE, { appId: app.id, input: { ...input, fields: ['live_comments'] } })).toEqual({
      data: { subscribeApp: { success: true } },
    });
    expect(await graphql(appAccessToken(app), LIST, { appId: app.id })).toEqual({
      data: {
        appSubscriptions: [
          {
            object: 'social',
            callbackUrl,
            active: true,
            includeValues: true,
            fields: ['comments', 'live_comments', 'mentions'].map((name) => ({ name, version: 'v25.0' })),
          },
        ],
      },
    });
  });

  it('refuses a callback that does not answer the challenge, and stores nothing', async () => {
    const reply = await graphql(appAccessToken(otherApp), SUBSCRIBE, {
      appId: otherApp.id,
      input: { object: 'social', callbackUrl, fields: ['comments'], verifyToken: 'wrong token' },
    });
    expect(reasonOf(reply)).toBe('CALLBACK_VERIFICATION_FAILED');
    expect(reply.errors![0]!.message).toBe(
      '(#2200) Callback verification failed with the following errors: HTTP Status Code = 403; HTTP Message = Forbidden',
    );
    expect(await graphql(appAccessToken(otherApp), LIST, { appId: otherApp.id })).toEqual({ data: { appSubscriptions: [] } });
  });

  it('refuses other tokens, other objects and fields, and a private callback address', async () => {
    const { fixture } = world();
    const input = { object: 'social', callbackUrl, fields: ['comments'], verifyToken: 'meatyhamhock' };
    expect(reasonOf(await graphql(fixture.tokens.own, LIST, { appId: app.id }))).toBe('APP_TOKEN_REQUIRED');
    expect(reasonOf(await graphql(appAccessToken(otherApp), LIST, { appId: app.id }))).toBe('APP_TOKEN_REQUIRED');
    expect(reasonOf(await graphql(appAccessToken(app), SUBSCRIBE, { appId: app.id, input: { ...input, object: 'page' } }))).toBe(
      'INVALID_PARAMETER',
    );
    expect(reasonOf(await graphql(appAccessToken(app), SUBSCRIBE, { appId: app.id, input: { ...input, fields: ['feed'] } }))).toBe(
      'INVALID_PARAMETER',
    );
    expect(reasonOf(await graphql(appAccessToken(app), SUBSCRIBE, { appId: app.id, input: { ...input, verifyToken: null } }))).toBe(
      'MISSING_PARAMETER',
    );
    const before = verifications.length;
    const privateAddress = await graphql(appAccessToken(app), SUBSCRIBE, {
      appId: app.id,
      input: { ...input, callbackUrl: 'http://10.1.2.3/hook' },
    });
    expect(reasonOf(privateAddress)).toBe('INVALID_PARAMETER');
    expect(verifications.length).toBe(before);
  });

  it('refuses an answer past the size bound that begins with the challenge, and a verify token holding U+0000 before calling', async () => {
    // Both found by the webhooks fuzz door: the cut answer was compared as if whole; the U+0000 token was verified, then
    // failed to store.
    const base = { object: 'social', fields: ['comments'], verifyToken: 'meatyhamhock' };
    const big = await graphql(appAccessToken(otherApp), SUBSCRIBE, {
      appId: otherApp.id,
      input: { ...base, callbackUrl: callbackUrl.replace('/webhooks', '/big') },
    });
    expect(reasonOf(big)).toBe('CALLBACK_VERIFICATION_FAILED');
    const before = verifications.length;
    const nul = await graphql(appAccessToken(otherApp), SUBSCRIBE, {
      appId: otherApp.id,
      input: { ...base, callbackUrl, verifyToken: 'meaty\u0000hamhock' },
    });
    expect(reasonOf(nul)).toBe('INVALID_PARAMETER');
    expect(verifications.length).toBe(before);
    expect(await graphql(appAccessToken(otherApp), LIST, { appId: otherApp.id })).toEqual({ data: { appSubscriptions: [] } });
  });

  it('takes a callback URL as long as the bound (2048 characters) with its verification parameters added', async () => {
    const origin = callbackUrl.slice(0, callbackUrl.indexOf('/webhooks'));
    const long = `${origin}/long/${'a'.repeat(2048 - origin.length - '/long/'.length)}`;
    expect(long).toHaveLength(2048);
    const input = { object: 'social', callbackUrl: long, fields: ['comments'], verifyToken: 'meatyhamhock'.padEnd(200, 'k') };
    // The receiver answers the challenge only to the right verify token: this one is refused with 2200 after being asked.
    const reply = await graphql(appAccessToken(otherApp), SUBSCRIBE, { appId: otherApp.id, input });
    expect(reasonOf(reply)).toBe('CALLBACK_VERIFICATION_FAILED');
    expect(verifications.at(-1)!.get('hub.verify_token')).toBe(input.verifyToken);
  });

  it('removes fields, then the subscription', async () => {
    const UNSUBSCRIBE = `mutation Unsubscribe($appId: ID!, $object: String, $fields: [String!]) { unsubscribeApp(appId: $appId, object: $object, fields: $fields) { success } }`;
    await graphql(appAccessToken(app), UNSUBSCRIBE, { appId: app.id, object: 'social', fields: ['live_comments'] });
    const listed = await graphql(appAccessToken(app), LIST, { appId: app.id });
    expect(listed.data!.appSubscriptions[0].fields.map((field: { name: string }) => field.name)).toEqual(['comments', 'mentions']);
    expect(await graphql(appAccessToken(app), UNSUBSCRIBE, { appId: app.id })).toEqual({ data: { unsubscribeApp: { success: true } } });
    expect(await graphql(appAccessToken(app), LIST, { appId: app.id })).toEqual({ data: { appSubscriptions: [] } });
  });

  it('subscribes accounts to the token’s app on each host, with the permissions §6.6 asks', async () => {
    const { system, fixture } = world();
    const tokens = createSocialTokens(system.database);
    const SUBSCRIBE_ACCOUNT = `mutation S($pageId: ID, $fields: [String!]) { subscribeAccountToApp(pageId: $pageId, subscribedFields: $fields) { success } }`;
    const APPS = `query A($pageId: ID) { subscribedApps(pageId: $pageId) { id name subscribedFields } }`;
    const own = await tokens.issue({
      loginType: 'own',
      subjectId: fixture.accounts.bluebottle,
      permissions: [...OWN_PERMISSIONS],
      expiresInSeconds: 3600,
      appId: app.id,
    });
    expect(await graphql(own, SUBSCRIBE_ACCOUNT, { fields: ['comments'] })).toEqual({ data: { subscribeAccountToApp: { success: true } } });
    expect(await graphql(own, APPS)).toEqual({
      data: { subscribedApps: [{ id: app.id, name: 'Subscriber', subscribedFields: ['comments'] }] },
    });

    const basicOnly = await tokens.issue({
      loginType: 'own',
      subjectId: fixture.accounts.bluebottle,
      permissions: ['social_business_basic'],
      expiresInSeconds: 3600,
      appId: app.id,
    });
    const refused = await graphql(basicOnly, SUBSCRIBE_ACCOUNT, { fields: ['comments'] });
    expect(reasonOf(refused)).toBe('MISSING_PERMISSION');
    expect(refused.errors![0]!.extensions.permission).toBe('social_business_manage_comments');
    // A token issued to no app has no app to subscribe the account to.
    expect(reasonOf(await graphql(fixture.tokens.own, SUBSCRIBE_ACCOUNT, { fields: ['comments'] }))).toBe('INVALID_PARAMETER');

    const parent = await tokens.issue({
      loginType: 'parent',
      subjectId: fixture.platformUsers.ana,
      permissions: [...PARENT_PERMISSIONS],
      expiresInSeconds: 3600,
      appId: app.id,
    });
    // The page edge takes page fields; the social fields are the app's (refused here, as the platform does).
    expect(reasonOf(await graphql(parent, SUBSCRIBE_ACCOUNT, { pageId: fixture.pages.roaster, fields: ['comments'] }))).toBe(
      'INVALID_PARAMETER',
    );
    expect(await graphql(parent, SUBSCRIBE_ACCOUNT, { pageId: fixture.pages.roaster, fields: ['feed'] })).toEqual({
      data: { subscribeAccountToApp: { success: true } },
    });
    expect(await graphql(parent, APPS, { pageId: fixture.pages.roaster })).toEqual({
      data: { subscribedApps: [{ id: app.id, name: 'Subscriber', subscribedFields: ['feed'] }] },
    });
    // A page the user has no role on does not exist for it.
    const stranger = await tokens.issue({
      loginType: 'parent',
      subjectId: fixture.platformUsers.stranger,
      permissions: [...PARENT_PERMISSIONS],
      expiresInSeconds: 3600,
      appId: app.id,
    });
    expect(reasonOf(await graphql(stranger, SUBSCRIBE_ACCOUNT, { pageId: fixture.pages.roaster, fields: ['feed'] }))).toBe(
      'UNKNOWN_OBJECT',
    );

    const UNSUBSCRIBE_ACCOUNT = `mutation U($pageId: ID) { unsubscribeAccountFromApp(pageId: $pageId) { success } }`;
    expect(await graphql(own, UNSUBSCRIBE_ACCOUNT)).toEqual({ data: { unsubscribeAccountFromApp: { success: true } } });
    expect(await graphql(own, APPS)).toEqual({ data: { subscribedApps: [] } });
  });
});
