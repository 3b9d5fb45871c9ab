import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appAccessToken } from '../../../lib/auth/social-auth/social-token.service.ts';
import type { StoredApp } from '../../../lib/auth/social-auth/social-token.repository.ts';
import { createSocialTokens } from '../../../subgraphs/index.ts';
import { verifySignature } from '../../../subgraphs/shared/webhooks/webhook-payload.ts';
import { eventually } from '../../support/eventually.ts';
import { OWN_PERMISSIONS, useSocialWorld } from '../../support/social-fixture.ts';

/**
 * Webhooks end to end (issue 26): an app subscribes its callback (verified), an account subscribes to the app, and
 * changes made through the front doors — a comment and a reply created over REST and GraphQL, a comment that @mentions
 * an account, comments hidden, shown and deleted — reach the receiver as the reference's signed POSTs (§6.4, §6.5):
 * comments as `comments` changes of the media owner's account, mentions as `mentions` of the mentioned account once that
 * account is subscribed and the app subscribed to the field; nothing for hide/show/delete, an unsubscribed account or an
 * unsubscribed field. The system
 * delivers by itself (the worker the accounts subgraph's process runs, woken by NOTIFY).
 */
const world = useSocialWorld({ env: { WEBHOOK_POLL_INTERVAL_MS: '200' } });

interface Delivery {
  raw: Buffer;
  headers: Record<string, string | string[] | undefined>;
  body: { object: string; entry: { id: string; time: number; changes?: { field: string; value: Record<string, unknown> }[] }[] };
}

describe('webhook deliveries', () => {
  let receiver: Server;
  let callbackUrl: string;
  const deliveries: Delivery[] = [];
  let app: StoredApp;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const query = new URL(req.url ?? '/', 'http://receiver').searchParams;
      if (req.method === 'GET') {
        res.writeHead(query.get('hub.verify_token') === 'tributary' ? 200 : 403).end(query.get('hub.challenge') ?? '');
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        deliveries.push({ raw, headers: req.headers, body: JSON.parse(raw.toString('utf8')) as Delivery['body'] });
        res.writeHead(200).end('EVENT_RECEIVED');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhook`;
    app = await createSocialTokens(world().system.database).createApp('Delivery test app');
  });
  afterAll(() => new Promise<void>((resolve) => receiver?.close(() => resolve())));

  const graphql = async (token: string, query: string, variables: Record<string, unknown> = {}) => {
    const response = await fetch(world().system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as { data?: Record<string, any>; errors?: unknown[] };
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return body.data!;
  };

  /**
   * The deliveries once `count` have come and the worker has passed every event written so far: the app's cursors stand
   * at the log's last position, so whatever else it could have sent (a hide, an unsubscribed field) it has decided not
   * to — the absence is read from the cursor, not from a pause.
   */
  const deliveriesUntil = async (count: number) => {
    await eventually(() => deliveries.length >= count, `${count} deliveries`);
    const db = world().system.database.db;
    await eventually(async () => {
      const { rows } = await sql<{ behind: string }>`
        select count(*) as behind from social.webhook_cursor
        where app_id = ${app.id} and delivered_to < (select coalesce(max(position), 0) from social.event)`.execute(db);
      return Number(rows[0]!.behind) === 0;
    }, 'the delivery worker past every event written');
    return deliveries.splice(0);
  };

  const changesOf = (received: Delivery[]) =>
    received.flatMap((delivery) =>
      delivery.body.entry.flatMap((entry) => (entry.changes ?? []).map((change) => ({ account: entry.id, ...change }))),
    );

  it('delivers comments and mentions made through REST and GraphQL, signed; nothing else', async () => {
    const { fixture, system, ownHost } = world();
    const tokens = createSocialTokens(system.database);
    const subscribeApp = (fields: string[]) =>
      graphql(
        appAccessToken(app),
        `
          mutation S($appId: ID!, $input: AppSubscriptionInput!) {
            subscribeApp(appId: $appId, input: $input) {
              success
            }
          }
        `,
        {
          appId: app.id,
          input: { object: 'social', callbackUrl, fields, verifyToken: 'tributary', includeValues: true },
        },
      );
    await subscribeApp(['comments']);
    const bluebottle = await tokens.issue({
      loginType: 'own',
      subjectId: fixture.accounts.bluebottle,
      permissions: [...OWN_PERMISSIONS],
      expiresInSeconds: 3600,
      appId: app.id,
    });
    const roaster = await tokens.issue({
      loginType: 'own',
      subjectId: fixture.accounts.roaster,
      permissions: [...OWN_PERMISSIONS],
      expiresInSeconds: 3600,
      appId: app.id,
    });
    const SUBSCRIBE_ACCOUNT = `mutation { subscribeAccountToApp(subscribedFields: ["comments"]) { success } }`;
    await graphql(bluebottle, SUBSCRIBE_ACCOUNT);

    const post = await world().newPost();
    // REST: a comment, then (GraphQL) a reply to it and a comment that mentions roaster, who is not subscribed yet.
    const created = await ownHost.request(
      'POST',
      `/v25.0/${post}/comments?message=${encodeURIComponent('First!')}&access_token=${bluebottle}`,
    );
    expect(created.status, created.text).toBe(200);
    const commentId = created.body.id as string;
    const reply = await graphql(
      bluebottle,
      `
        mutation R($id: ID!) {
          replyToComment(id: $id, message: "Thanks") {
            id
          }
        }
      `,
      { id: commentId },
    );
    const mention = await graphql(
      bluebottle,
      `
        mutation C($mediaId: ID!) {
          createMediaComment(mediaId: $mediaId, message: "Hi @roaster") {
            id
          }
        }
      `,
      { mediaId: post },
    );
    // Hidden, shown and deleted: changes the log keeps, but not webhooks.
    const thread = await fixture.newCommentThread();
    await graphql(
      bluebottle,
      `
        mutation H($id: ID!) {
          hideComment(id: $id, hide: true) {
            success
          }
        }
      `,
      { id: thread.fanComment },
    );
    await graphql(
      bluebottle,
      `
        mutation H($id: ID!) {
          hideComment(id: $id, hide: false) {
            success
          }
        }
      `,
      { id: thread.fanComment },
    );
    await graphql(
      bluebottle,
      `
        mutation D($id: ID!) {
          deleteComment(id: $id) {
            success
          }
        }
      `,
      { id: thread.fanTwoComment },
    );

    const first = await deliveriesUntil(3);
    for (const delivery of first) {
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(verifySignature(delivery.raw, delivery.headers['x-hub-signature-256'], app.secret)).toBe(true);
      expect(verifySignature(delivery.raw, delivery.headers['x-hub-signature'], app.secret)).toBe(true);
      expect(delivery.body.object).toBe('social');
    }
    const media = { id: post, media_product_type: 'FEED' };
    const from = { id: fixture.accounts.bluebottle, username: 'bluebottle', self_ig_scoped_id: fixture.accounts.bluebottle };
    expect(changesOf(first)).toEqual([
      { account: fixture.accounts.bluebottle, field: 'comments', value: { id: commentId, text: 'First!', from, media } },
      {
        account: fixture.accounts.bluebottle,
        field: 'comments',
        value: { id: reply.replyToComment.id, text: 'Thanks', from, media, parent_id: commentId },
      },
      {
        account: fixture.accounts.bluebottle,
        field: 'comments',
        value: { id: mention.createMediaComment.id, text: 'Hi @roaster', from, media },
      },
    ]);

    // roaster subscribes; the app has not subscribed to mentions: still only the comment.
    await graphql(roaster, SUBSCRIBE_ACCOUNT);
    const again = await graphql(
      bluebottle,
      `
        mutation C($mediaId: ID!) {
          createMediaComment(mediaId: $mediaId, message: "Again @roaster") {
            id
          }
        }
      `,
      { mediaId: post },
    );
    expect(changesOf(await deliveriesUntil(1))).toEqual([
      {
        account: fixture.accounts.bluebottle,
        field: 'comments',
        value: { id: again.createMediaComment.id, text: 'Again @roaster', from, media },
      },
    ]);

    // The app adds mentions: a mention of roaster now reaches it, as `mentions` of roaster's account.
    await subscribeApp(['mentions']);
    const third = await graphql(
      bluebottle,
      `
        mutation C($mediaId: ID!) {
          createMediaComment(mediaId: $mediaId, message: "Third @roaster") {
            id
          }
        }
      `,
      { mediaId: post },
    );
    const next = await deliveriesUntil(1);
    expect(changesOf(next)).toEqual([
      {
        account: fixture.accounts.bluebottle,
        field: 'comments',
        value: { id: third.createMediaComment.id, text: 'Third @roaster', from, media },
      },
      { account: fixture.accounts.roaster, field: 'mentions', value: { comment_id: third.createMediaComment.id, media_id: post } },
    ]);
    for (const delivery of next) expect(verifySignature(delivery.raw, delivery.headers['x-hub-signature-256'], app.secret)).toBe(true);
  });
});
