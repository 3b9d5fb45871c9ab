import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SocialAuthTables } from '../../lib/auth/social-auth/social-token.repository.ts';
import { createSocialTokenService, type SocialTokenService } from '../../lib/auth/social-auth/social-token.service.ts';
import { createDatabase, migrateToLatest, type DatabaseHandle } from '../../lib/database/database.ts';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../lib/database/throwaway-database.ts';
import { createCallbackClient } from '../../lib/http/callback-client.ts';
import { createLogger } from '../../lib/logger.ts';
import { createMetrics } from '../../lib/telemetry/metrics.ts';
import { writeComment, writeCommentHidden, writeCommentThreadDeleted } from '../../subgraphs/comments/comment-changes.ts';
import { ALL_MIGRATIONS } from '../../subgraphs/index.ts';
import { EVENT_CHANNEL, lastEventPosition } from '../../subgraphs/shared/event-log/event-log.repository.ts';
import {
  createWebhookDeliveryWorker,
  type WebhookDeliveryOptions,
  type WebhookDeliveryWorker,
} from '../../subgraphs/shared/webhooks/webhook-delivery-worker.ts';
import { claimCursor, recordFailed } from '../../subgraphs/shared/webhooks/webhook-delivery.repository.ts';
import { verifySignature } from '../../subgraphs/shared/webhooks/webhook-payload.ts';
import type { SocialTables } from '../../subgraphs/shared/social-graph/social-tables.ts';
import { HANG_MS, LONG_TEST_MS } from '../support/hang-bounds.ts';
import { createSocialFixture, type SocialFixture } from '../support/social-fixture.ts';
import { useTestDatabase } from '../support/test-system.ts';

/**
 * Webhook delivery (issue 26, item 3; reference §6.4–§6.5): the worker reads the event log per app subscription and POSTs
 * signed batches to a real receiver on 127.0.0.1. Subscriptions, cursors and account subscriptions are written here
 * directly, as the subscription manager writes them (a cursor at the log's last position, in the same transaction).
 */

// ---- a receiver ----

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw bytes received. */
  body: Buffer;
  json: any;
  identity: string;
  /** performance.now() at receipt. */
  at: number;
}

type Answer = number | { status: number; headers: Record<string, string> } | 'hang';

interface Receiver {
  url: string;
  base: string;
  requests: Received[];
  close(): Promise<void>;
}

async function startReceiver(answer: (request: Received, index: number) => Answer | Promise<Answer> = () => 200): Promise<Receiver> {
  const requests: Received[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let json: unknown;
      try {
        json = JSON.parse(body.toString('utf8'));
      } catch {
        json = undefined;
      }
      const received: Received = {
        path: req.url ?? '',
        headers: req.headers,
        body,
        json,
        identity: String(req.headers['x-tributary-delivery']),
        at: performance.now(),
      };
      requests.push(received);
      Promise.resolve(answer(received, requests.length - 1))
        .then((reply) => {
          if (reply === 'hang') {
            hanging.push(res);
            return;
          }
          const { status, headers } = typeof reply === 'number' ? { status: reply, headers: {} } : reply;
          res.writeHead(status, headers);
          res.end('{}');
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/hook`,
    base,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ---- subscriptions, workers, logs ----

const SENT_AT = new Date('2026-11-27T10:00:00.000Z');
const SENT_AT_SECONDS = Math.floor(SENT_AT.getTime() / 1000);
const waitLong = { timeout: HANG_MS, interval: 20 };

interface Context {
  db: Kysely<SocialTables>;
  tokens: SocialTokenService;
}

interface Subscribed {
  appId: string;
  secret: string;
  /** The cursor's start: the log's last position when the subscription was written. */
  from: string;
}

async function subscribe(
  { db, tokens }: Context,
  options: {
    callbackUrl: string;
    fields: string[];
    accounts: string[];
    includeValues?: boolean;
    subscribedFields?: string[];
    withCursor?: boolean;
  },
): Promise<Subscribed> {
  const app = await tokens.createApp('Webhook test app');
  let from = '';
  await db.transaction().execute(async (trx) => {
    from = await lastEventPosition(trx);
    await trx
      .insertInto('social.app_subscription')
      .values({
        app_id: app.id,
        object: 'social',
        callback_url: options.callbackUrl,
        verify_token: 'meatyhamhock',
        include_values: options.includeValues ?? true,
        fields: options.fields,
      })
      .execute();
    if (options.withCursor !== false)
      await trx.insertInto('social.webhook_cursor').values({ app_id: app.id, object: 'social', delivered_to: from }).execute();
    for (const account of options.accounts) {
      await trx
        .insertInto('social.subscribed_app')
        .values({ account_id: account, app_id: app.id, subscribed_fields: options.subscribedFields ?? ['comments'] })
        .execute();
    }
  });
  return { appId: app.id, secret: app.secret, from };
}

function cursorOf(db: Kysely<SocialTables>, appId: string) {
  return db
    .selectFrom('social.webhook_cursor')
    .selectAll()
    .where('app_id', '=', appId)
    .where('object', '=', 'social')
    .executeTakeFirstOrThrow();
}

/** Log lines written by the workers, parsed. */
const logLines: Record<string, unknown>[] = [];
const logger = createLogger({
  level: 'debug',
  destination: { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) },
});
const logsOf = (appId: string) => logLines.filter((line) => line.appId === appId);

interface WorkerOptions extends Partial<WebhookDeliveryOptions> {
  responseTimeoutMs?: number;
  listen?: DatabaseHandle['listen'];
  metrics?: { observeWebhookDelivery(outcome: 'delivered' | 'failed' | 'dropped', events: number): void };
}

const workers: WebhookDeliveryWorker[] = [];

function makeWorker(
  { db, tokens }: Context,
  { responseTimeoutMs = 5000, listen, metrics, ...options }: WorkerOptions = {},
): WebhookDeliveryWorker {
  const client = createCallbackClient({
    allowPrivate: false,
    allowedHosts: ['127.0.0.1'],
    requireHttps: false,
    connectTimeoutMs: 2000,
    responseTimeoutMs,
    maxResponseBytes: 4096,
  });
  const worker = createWebhookDeliveryWorker({
    db,
    appSecret: async (appId) => (await tokens.findApp(appId))?.secret,
    client,
    now: () => SENT_AT,
    logger,
    options,
    ...(listen ? { listen } : {}),
    ...(metrics ? { metrics } : {}),
  });
  workers.push(worker);
  return worker;
}

/** The comment ids of the `changes` of a delivery, in order. */
const changeIds = (request: Received): string[] =>
  (request.json.entry as { changes: { value: { id?: string; comment_id?: string } }[] }[]).flatMap((entry) =>
    entry.changes.map((change) => change.value.id ?? change.value.comment_id!),
  );

const comment = (
  db: Kysely<SocialTables>,
  mediaId: string,
  authorId: string,
  text: string,
  mentioned: string[] = [],
  parentId: string | null = null,
) => writeComment(db, { mediaId, authorId, parentId, text, timestamp: new Date() }, mentioned);

describe('webhook delivery', () => {
  const database = useTestDatabase();
  let ctx: Context;
  let db: Kysely<SocialTables>;
  let world: SocialFixture;
  const receivers: Receiver[] = [];
  const receiver = async (answer?: (request: Received, index: number) => Answer | Promise<Answer>) => {
    const started = await startReceiver(answer);
    receivers.push(started);
    return started;
  };

  beforeAll(async () => {
    db = database().db.withTables<SocialTables>();
    ctx = { db, tokens: createSocialTokenService({ db: database().db.withTables<SocialAuthTables>() }) };
    world = await createSocialFixture(database());
  });

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
    await Promise.all(receivers.splice(0).map((started) => started.close()));
    // Each test's subscriptions end with it: the next test's workers serve only their own.
    await db.updateTable('social.app_subscription').set({ active: false }).execute();
  });

  it("delivers a subscribed account's comments and mentions as the reference's batch, signed over the raw bytes", async () => {
    const { accounts, posts } = world;
    const hook = await receiver();
    const app = await subscribe(ctx, {
      callbackUrl: hook.url,
      fields: ['comments', 'mentions'],
      accounts: [accounts.bluebottle, accounts.roaster],
    });
    const first = await comment(db, posts[1]!, accounts.fanOne, 'Hello @roaster', ['roaster']);
    const reply = await comment(db, posts[1]!, accounts.bluebottle, 'Thanks!', [], first);
    const to = await lastEventPosition(db);

    expect(await makeWorker(ctx).runOnce()).toBe(1);

    expect(hook.requests).toHaveLength(1);
    const [request] = hook.requests as [Received];
    expect(request.json).toStrictEqual({
      object: 'social',
      entry: [
        {
          id: accounts.bluebottle,
          time: SENT_AT_SECONDS,
          changes: [
            {
              field: 'comments',
              value: {
                id: first,
                text: 'Hello @roaster',
                from: { id: accounts.fanOne, username: 'fan_one' },
                media: { id: posts[1], media_product_type: 'FEED' },
              },
            },
            {
              field: 'comments',
              value: {
                id: reply,
                text: 'Thanks!',
                from: { id: accounts.bluebottle, username: 'bluebottle', self_ig_scoped_id: accounts.bluebottle },
                media: { id: posts[1], media_product_type: 'FEED' },
                parent_id: first,
              },
            },
          ],
        },
        { id: accounts.roaster, time: SENT_AT_SECONDS, changes: [{ field: 'mentions', value: { comment_id: first, media_id: posts[1] } }] },
      ],
    });
    expect(request.path).toBe('/hook');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-hub-signature-256']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(request.headers['x-hub-signature']).toMatch(/^sha1=[0-9a-f]{40}$/);
    expect(verifySignature(request.body, request.headers['x-hub-signature-256'], app.secret)).toBe(true);
    expect(verifySignature(request.body, request.headers['x-hub-signature'], app.secret)).toBe(true);
    expect(verifySignature(request.body, request.headers['x-hub-signature-256'], '0'.repeat(32))).toBe(false);
    expect(verifySignature(Buffer.concat([request.body, Buffer.from(' ')]), request.headers['x-hub-signature-256'], app.secret)).toBe(
      false,
    );
    expect(request.identity).toBe(`${app.appId}:social:${app.from}-${to}`);
    expect(await cursorOf(db, app.appId)).toMatchObject({
      delivered_to: to,
      pending_to: null,
      attempts: 0,
      first_failed_at: null,
      leased_until: null,
      delivered_total: '3',
    });
    // Nothing more to send.
    expect(await makeWorker(ctx).runOnce()).toBe(0);
    expect(JSON.stringify(logLines)).not.toContain(app.secret);
  });

  it('sends nothing for an unsubscribed account or field, nor for a comment hidden, shown or deleted', async () => {
    const { accounts, posts, media } = world;
    const thread = await world.newCommentThread();
    const hook = await receiver();
    // bluebottle subscribed the app naming another field: it still gets every field the app subscribed to (§6.3).
    const app = await subscribe(ctx, {
      callbackUrl: hook.url,
      fields: ['comments'],
      accounts: [accounts.bluebottle],
      subscribedFields: ['feed'],
    });
    await comment(db, media.roasterPost, accounts.fanOne, 'Ask @bluebottle', ['bluebottle']); // roaster's comment (unsubscribed account), bluebottle's mention (unsubscribed field)
    await comment(db, media.live, accounts.fanTwo, 'Live!'); // live_comments: an unsubscribed field
    await writeCommentHidden(db, thread.fanComment, true);
    await writeCommentHidden(db, thread.fanComment, false);
    await writeCommentThreadDeleted(db, thread.fanTwoComment, new Date());
    const skipped = await lastEventPosition(db);

    const worker = makeWorker(ctx);
    await worker.runOnce();
    expect(hook.requests).toEqual([]);
    // The cursor moved past what the subscription does not get, without sending anything.
    expect(await cursorOf(db, app.appId)).toMatchObject({ delivered_to: skipped, pending_to: null, delivered_total: '0' });

    const wanted = await comment(db, posts[2]!, accounts.fanTwo, 'Nice');
    await worker.runOnce();
    expect(hook.requests).toHaveLength(1);
    expect(hook.requests[0]!.json.entry).toEqual([
      { id: accounts.bluebottle, time: SENT_AT_SECONDS, changes: [{ field: 'comments', value: expect.objectContaining({ id: wanted }) }] },
    ]);
    expect(hook.requests[0]!.identity).toBe(`${app.appId}:social:${skipped}-${await lastEventPosition(db)}`);
  });

  it('sends changed_fields instead of changes when the subscription has include_values=false', async () => {
    const { accounts, posts, media } = world;
    const hook = await receiver();
    const app = await subscribe(ctx, {
      callbackUrl: hook.url,
      fields: ['comments', 'mentions'],
      accounts: [accounts.bluebottle],
      includeValues: false,
    });
    await comment(db, posts[3]!, accounts.fanOne, 'One');
    await comment(db, media.roasterPost, accounts.fanTwo, 'Hey @bluebottle', ['bluebottle']);
    await comment(db, posts[3]!, accounts.fanTwo, 'Two');

    await makeWorker(ctx).runOnce();
    expect(hook.requests).toHaveLength(1);
    expect(hook.requests[0]!.json).toStrictEqual({
      object: 'social',
      entry: [{ id: accounts.bluebottle, time: SENT_AT_SECONDS, changed_fields: ['comments', 'mentions'] }],
    });
    expect(verifySignature(hook.requests[0]!.body, hook.requests[0]!.headers['x-hub-signature-256'], app.secret)).toBe(true);
  });

  it('writes the missing cursor of a subscription at the end of the log, and delivers what follows', async () => {
    const { accounts, posts } = world;
    const hook = await receiver();
    const app = await subscribe(ctx, { callbackUrl: hook.url, fields: ['comments'], accounts: [accounts.bluebottle], withCursor: false });
    await comment(db, posts[4]!, accounts.fanOne, 'Before the cursor');
    const start = await lastEventPosition(db);
    const worker = makeWorker(ctx);
    await worker.runOnce();
    expect(await cursorOf(db, app.appId)).toMatchObject({ delivered_to: start, delivered_total: '0' });
    const after = await comment(db, posts[4]!, accounts.fanOne, 'After the cursor');
    await worker.runOnce();
    expect(hook.requests.map(changeIds)).toEqual([[after]]);
  });

  it('is woken by the event log’s NOTIFY, without waiting for its poll', async () => {
    const { accounts, posts } = world;
    const hook = await receiver();
    await subscribe(ctx, { callbackUrl: hook.url, fields: ['comments'], accounts: [accounts.bluebottle] });
    const worker = makeWorker(ctx, { pollIntervalMs: 3_600_000, listen: database().listen });
    await worker.start();
    const id = await comment(db, posts[5]!, accounts.fanOne, 'Wake up');
    await vi.waitFor(() => expect(hook.requests.map(changeIds)).toEqual([[id]]), waitLong);
  });

  it(
    'retries a receiver that is down with backoff, under the same identity, and delivers every event in log order once it is up',
    async () => {
      const { accounts, posts } = world;
      let failedOnce!: () => void;
      const firstFailure = new Promise<void>((resolve) => (failedOnce = resolve));
      const hook = await receiver((_request, index) => {
        if (index === 0) failedOnce();
        return index < 3 ? 503 : 200;
      });
      const app = await subscribe(ctx, { callbackUrl: hook.url, fields: ['comments'], accounts: [accounts.bluebottle] });
      const ids = [await comment(db, posts[6]!, accounts.fanOne, 'one'), await comment(db, posts[6]!, accounts.fanTwo, 'two')];
      const worker = makeWorker(ctx, { backoffMs: [0, 150, 300], pollIntervalMs: 1000, listen: database().listen });
      await worker.start();
      await firstFailure;
      // Written while the first batch is failing: it waits behind it.
      ids.push(await comment(db, posts[6]!, accounts.fanOne, 'three'));
      await vi.waitFor(() => expect(hook.requests.slice(3).flatMap(changeIds)).toEqual(ids), waitLong);
      await worker.stop();

      const [one, two, three, four, ...rest] = hook.requests as [Received, Received, Received, Received, ...Received[]];
      // Four tries of the same batch: immediately again after the first failure, then 150 ms and 300 ms apart (at least).
      for (const retry of [two, three, four]) {
        expect(retry.identity).toBe(one.identity);
        expect(changeIds(retry)).toEqual(ids.slice(0, 2));
      }
      expect(three.at - two.at).toBeGreaterThanOrEqual(150 - 5);
      expect(four.at - three.at).toBeGreaterThanOrEqual(300 - 5);
      const firstTo = one.identity.split('-')[1]!;
      expect(one.identity).toBe(`${app.appId}:social:${app.from}-${firstTo}`);
      expect(rest.map((request) => request.identity)).toEqual([`${app.appId}:social:${firstTo}-${await lastEventPosition(db)}`]);
      expect(await cursorOf(db, app.appId)).toMatchObject({
        pending_to: null,
        attempts: 0,
        first_failed_at: null,
        delivered_total: '3',
        dropped_total: '0',
      });

      // Logged when the state changed — failing, recovered — not at every try; the secret never.
      const logs = logsOf(app.appId);
      expect(logs.filter((line) => line.level === 40).map((line) => [line.msg, line.status, line.attempt])).toEqual([
        ['webhook delivery failed; retrying with backoff', 503, 1],
      ]);
      expect(logs.filter((line) => line.level === 30).map((line) => [line.msg, line.attempt])).toEqual([
        ['webhook callback recovered: batch delivered', 4],
      ]);
      expect(JSON.stringify(logLines)).not.toContain(app.secret);
    },
    LONG_TEST_MS,
  );

  it(
    'handles an answer of 500, a hang and a redirect (never followed) as failures to retry',
    async () => {
      const { accounts, posts } = world;
      const hook = await receiver((_request, index) => {
        if (index === 0) return 500;
        if (index === 1) return 'hang';
        if (index === 2) return { status: 302, headers: { Location: `${hook.base}/elsewhere` } };
        return 200;
      });
      const app = await subscribe(ctx, { callbackUrl: hook.url, fields: ['comments'], accounts: [accounts.bluebottle] });
      const id = await comment(db, posts[7]!, accounts.fanOne, 'Are you there?');
      const worker = makeWorker(ctx, { responseTimeoutMs: 500, backoffMs: [0, 50], pollIntervalMs: 1000 });
      await worker.start();
      await vi.waitFor(
        async () => expect(await cursorOf(db, app.appId)).toMatchObject({ delivered_total: '1', pending_to: null }),
        waitLong,
      );
      await worker.stop();

      expect(hook.requests.map((request) => request.path)).toEqual(['/hook', '/hook', '/hook', '/hook']);
      expect(new Set(hook.requests.map((request) => request.identity)).size).toBe(1);
      expect(changeIds(hook.requests[3]!)).toEqual([id]);
      const failures = logsOf(app.appId)
        .filter((line) => line.level === 40 || (line.level === 20 && line.msg === 'webhook delivery failed again'))
        .map((line) => [line.attempt, line.status, line.reason]);
      expect(failures).toEqual([
        [1, 500, 'status'],
        [2, undefined, 'timeout'],
        [3, 302, 'redirect_not_followed'],
      ]);
    },
    LONG_TEST_MS,
  );

  it('serves the other callbacks while one hangs', async () => {
    const { accounts, posts } = world;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const slowHook = await receiver(async () => {
      await released;
      return 200;
    });
    const fastHook = await receiver();
    const slow = await subscribe(ctx, { callbackUrl: slowHook.url, fields: ['comments'], accounts: [accounts.bluebottle] });
    const fast = await subscribe(ctx, { callbackUrl: fastHook.url, fields: ['comments'], accounts: [accounts.bluebottle] });
    const id = await comment(db, posts[12]!, accounts.fanOne, 'For two callbacks');
    const worker = makeWorker(ctx, { responseTimeoutMs: HANG_MS, pollIntervalMs: 1000, listen: database().listen });
    await worker.start();

    await vi.waitFor(async () => expect(await cursorOf(db, fast.appId)).toMatchObject({ delivered_total: '1' }), waitLong);
    await vi.waitFor(() => expect(slowHook.requests).toHaveLength(1), waitLong);
    // The slow callback has not answered yet: its cursor is still leased, nothing recorded.
    expect(await cursorOf(db, slow.appId)).toMatchObject({ delivered_total: '0', pending_to: null });
    expect((await cursorOf(db, slow.appId)).leased_until).toBeInstanceOf(Date);
    release();
    await vi.waitFor(async () => expect(await cursorOf(db, slow.appId)).toMatchObject({ delivered_total: '1' }), waitLong);
    expect([...slowHook.requests, ...fastHook.requests].map(changeIds)).toEqual([[id], [id]]);
  });

  it('drops a batch that has failed for the whole retry window, counts it, and goes on with the next', async () => {
    const { accounts, posts } = world;
    let up = false;
    const hook = await receiver(() => (up ? 200 : 500));
    const app = await subscribe(ctx, { callbackUrl: hook.url, fields: ['comments'], accounts: [accounts.bluebottle] });
    const lost = await comment(db, posts[8]!, accounts.fanOne, 'Lost');
    const metrics = createMetrics({ enabled: true, process: 'webhook-delivery-test' });
    const worker = makeWorker(ctx, { metrics });
    metrics.trackWebhookQueue(() => worker.queueStats());
    const sample = async (name: string) => {
      const { body } = await metrics.render();
      return body
        .split('\n')
        .find((line) => line.startsWith(name))
        ?.replace(/\{[^}]*\}/, '');
    };

    // Tried at once and again immediately; the next try is 10 s away.
    await worker.runOnce();
    expect(hook.requests).toHaveLength(2);
    const pending = await cursorOf(db, app.appId);
    expect(pending).toMatchObject({ attempts: 2, pending_to: await lastEventPosition(db) });
    expect(pending.first_failed_at).toBeInstanceOf(Date);
    expect(await sample('tributary_webhook_queue_events')).toBe('tributary_webhook_queue_events 1');
    expect(await sample('tributary_webhook_deliveries_total{outcome="failed"')).toBe('tributary_webhook_deliveries_total 2');
    const stats = await worker.queueStats();
    expect(stats.cursors.find((cursor) => cursor.appId === app.appId)).toMatchObject({ undelivered: 1 });

    // 36 hours later (the default window), when the next try falls due: dropped unsent.
    await sql`update social.webhook_cursor set first_failed_at = now() - interval '36 hours 1 second', next_attempt_at = now() where app_id = ${app.appId}`.execute(
      db,
    );
    await worker.runOnce();
    expect(hook.requests).toHaveLength(2);
    expect(await cursorOf(db, app.appId)).toMatchObject({
      delivered_to: pending.pending_to,
      pending_to: null,
      attempts: 0,
      first_failed_at: null,
      dropped_total: '1',
    });
    expect(await sample('tributary_webhook_deliveries_total{outcome="dropped"')).toBe('tributary_webhook_deliveries_total 1');
    expect(await sample('tributary_webhook_events_total{outcome="dropped"')).toBe('tributary_webhook_events_total 1');
    expect(await sample('tributary_webhook_queue_events')).toBe('tributary_webhook_queue_events 0');
    expect(
      logsOf(app.appId)
        .filter((line) => line.level === 40)
        .map((line) => line.msg),
    ).toEqual(['webhook delivery failed; retrying with backoff', 'webhook batch dropped: its callback failed for the whole retry window']);

    // The callback is back: what follows is delivered, the dropped event never.
    up = true;
    const next = await comment(db, posts[8]!, accounts.fanOne, 'Next');
    await worker.runOnce();
    expect(hook.requests.slice(2).map(changeIds)).toEqual([[next]]);
    expect(changeIds(hook.requests[0]!)).toEqual([lost]);
    expect(await sample('tributary_webhook_events_total{outcome="delivered"')).toBe('tributary_webhook_events_total 1');
    expect(await sample('tributary_webhook_queue_oldest_age_seconds')).toBe('tributary_webhook_queue_oldest_age_seconds 0');
  });

  it('takes up a lease left behind by a worker that died, once it expires, and sends the same batch', async () => {
    const { accounts, posts } = world;
    const hook = await receiver();
    const app = await subscribe(ctx, { callbackUrl: hook.url, fields: ['comments'], accounts: [accounts.bluebottle] });
    const id = await comment(db, posts[9]!, accounts.fanOne, 'Orphaned');
    const to = await lastEventPosition(db);
    // The dead worker: took the cursor, never finished.
    const dead = await claimCursor(db, 300);
    expect(dead).toMatchObject({ appId: app.appId, deliveredTo: app.from });

    const worker = makeWorker(ctx);
    expect(await worker.runOnce()).toBe(0);
    await vi.waitFor(async () => {
      await worker.runOnce();
      expect(hook.requests).toHaveLength(1);
    }, waitLong);
    expect(hook.requests[0]!.identity).toBe(`${app.appId}:social:${app.from}-${to}`);
    expect(changeIds(hook.requests[0]!)).toEqual([id]);
    // The dead worker's answer, were it to come now, changes nothing: its lease is no longer the cursor's.
    expect(await recordFailed(db, dead!, { to }, 0)).toBe(false);
    expect(await cursorOf(db, app.appId)).toMatchObject({ delivered_to: to, pending_to: null, attempts: 0, delivered_total: '1' });
  });
});

// ---- several processes on one PostgreSQL ----

describe.runIf(process.env.TEST_DATABASE === 'postgres')('webhook delivery by several processes on one PostgreSQL', () => {
  let throwaway: ThrowawayDatabase;
  let handles: [DatabaseHandle, DatabaseHandle];
  let world: SocialFixture;
  let contexts: [Context, Context];
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    const template = process.env.TEST_POSTGRES_TEMPLATE;
    throwaway = await createThrowawayDatabase(process.env.DATABASE_URL!, 'tributary_test', template ? { template } : {});
    const open = () =>
      createDatabase({ url: throwaway.url, pgliteDir: undefined, poolMax: 4, connectTimeoutMs: 5000, statementTimeoutMs: 10_000 });
    handles = [await open(), await open()];
    await migrateToLatest(handles[0].db, ALL_MIGRATIONS);
    world = await createSocialFixture(handles[0]);
    contexts = handles.map((handle) => ({
      db: handle.db.withTables<SocialTables>(),
      tokens: createSocialTokenService({ db: handle.db.withTables<SocialAuthTables>() }),
    })) as [Context, Context];
  });

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
    await Promise.all(receivers.splice(0).map((started) => started.close()));
    await contexts[0].db.updateTable('social.app_subscription').set({ active: false }).execute();
  });

  afterAll(async () => {
    await Promise.all(handles.map((handle) => handle.close()));
    await throwaway?.drop();
  });

  it('shares the cursors between two processes: each delivers a different one at the same time, no batch twice', async () => {
    const { accounts, posts } = world;
    const [first, second] = contexts;
    // Each request is held until both are in: only two deliveries at the same time get through.
    let arrived = 0;
    let bothIn!: () => void;
    const together = new Promise<void>((resolve) => (bothIn = resolve));
    const hook = await startReceiver(async () => {
      if (++arrived === 2) bothIn();
      await Promise.race([together, new Promise((resolve) => setTimeout(resolve, HANG_MS))]);
      return 200;
    });
    receivers.push(hook);
    const apps = [
      await subscribe(first, { callbackUrl: `${hook.url}?app=1`, fields: ['comments'], accounts: [accounts.bluebottle] }),
      await subscribe(first, { callbackUrl: `${hook.url}?app=2`, fields: ['comments'], accounts: [accounts.bluebottle] }),
    ];
    const id = await comment(first.db, posts[10]!, accounts.fanOne, 'For both apps');
    const to = await lastEventPosition(first.db);

    const handled = await Promise.all([makeWorker(first, { concurrency: 1 }).runOnce(), makeWorker(second, { concurrency: 1 }).runOnce()]);
    expect(handled).toEqual([1, 1]);
    expect(arrived).toBe(2);
    expect(hook.requests.map((request) => request.identity).sort()).toEqual(
      apps.map((app) => `${app.appId}:social:${app.from}-${to}`).sort(),
    );
    expect(hook.requests.map(changeIds)).toEqual([[id], [id]]);
    for (const app of apps) expect(await cursorOf(first.db, app.appId)).toMatchObject({ delivered_to: to, delivered_total: '1' });
  });

  it(
    'delivers again, under the same identity, a batch whose worker was lost mid-delivery; the lost worker’s answer changes nothing',
    async () => {
      const { accounts, posts } = world;
      const [first, second] = contexts;
      // The first try never gets an answer (its process is as good as killed); the next one does.
      const hook = await startReceiver((_request, index) => (index === 0 ? 'hang' : 200));
      receivers.push(hook);
      const app = await subscribe(first, { callbackUrl: hook.url, fields: ['comments'], accounts: [accounts.bluebottle] });
      const id = await comment(first.db, posts[11]!, accounts.fanOne, 'Mid-delivery');
      const to = await lastEventPosition(first.db);

      const lost = makeWorker(first, { leaseMs: 300, responseTimeoutMs: 3000 });
      const lostRun = lost.runOnce();
      await vi.waitFor(() => expect(hook.requests).toHaveLength(1), waitLong);
      const survivor = makeWorker(second, { leaseMs: 300 });
      await vi.waitFor(async () => {
        await survivor.runOnce();
        expect(hook.requests).toHaveLength(2);
      }, waitLong);
      expect(hook.requests[1]!.identity).toBe(hook.requests[0]!.identity);
      expect(hook.requests[1]!.identity).toBe(`${app.appId}:social:${app.from}-${to}`);
      expect(changeIds(hook.requests[1]!)).toEqual([id]);

      // The lost worker's request times out at last: its lease is gone, so it records nothing.
      await lostRun;
      expect(await cursorOf(first.db, app.appId)).toMatchObject({
        delivered_to: to,
        pending_to: null,
        attempts: 0,
        first_failed_at: null,
        delivered_total: '1',
      });
      expect(logsOf(app.appId).filter((line) => line.level === 40)).toEqual([]);
    },
    LONG_TEST_MS,
  );

  it('keeps listening after its connection is killed: the listener reconnects and is woken again', async () => {
    const [handle] = handles;
    const payloads: string[] = [];
    const stop = await handle.listen(EVENT_CHANNEL, (payload) => payloads.push(payload));
    const admin = new pg.Client({ connectionString: throwaway.url });
    await admin.connect();
    try {
      await admin.query(`select pg_notify($1, '1')`, [EVENT_CHANNEL]);
      await vi.waitFor(() => expect(payloads).toEqual(['1']), waitLong);
      const killed = await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike 'listen %' and pid <> pg_backend_pid()`,
      );
      expect(killed.rowCount).toBe(1);
      // After the reconnect it is called once with '' (look for what the gap hid), then hears NOTIFY again.
      await vi.waitFor(() => expect(payloads).toEqual(['1', '']), waitLong);
      await admin.query(`select pg_notify($1, '2')`, [EVENT_CHANNEL]);
      await vi.waitFor(() => expect(payloads).toEqual(['1', '', '2']), waitLong);
    } finally {
      await admin.end();
      await stop();
    }
  });
});
