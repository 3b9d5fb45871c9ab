import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSocialTokenService } from '../../../lib/auth/social-auth/social-token.service.ts';
import type { SocialAuthTables, StoredApp } from '../../../lib/auth/social-auth/social-token.repository.ts';
import { createDatabase, migrateToLatest, type DatabaseHandle } from '../../../lib/database/database.ts';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../../lib/database/throwaway-database.ts';
import { saveAppSubscription, saveSubscribedApp } from '../../../subgraphs/shared/webhooks/webhook-subscriptions.repository.ts';
import { writeComment } from '../../../subgraphs/comments/comment-changes.ts';
import { ALL_MIGRATIONS } from '../../../subgraphs/index.ts';
import { DELIVERY_HEADER, verifySignature } from '../../../subgraphs/shared/webhooks/webhook-payload.ts';
import type { SocialTables } from '../../../subgraphs/shared/social-graph/social-tables.ts';
import { ensureCompiledBuild } from '../../support/compiled-build.ts';
import { eventually } from '../../support/eventually.ts';
import { startServiceProcess, type ServiceProcess } from '../../support/os-process.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';

/**
 * Webhook delivery shared by server processes (issue 26, item 3): two processes serving the accounts subgraph on one
 * PostgreSQL deliver every event once per callback in a normal run; a process killed (SIGKILL) while its delivery is in
 * flight leaves its batch, whose lease expires, to a process started after it, which delivers the same batch under the
 * same identity — every event at least once, a duplicate recognisable. Compiled entrypoints, as a deployment runs them.
 *
 * PostgreSQL only (the embedded database is single-process).
 */
const onPostgres = process.env.TEST_DATABASE === 'postgres';

/** The gap between the bursts of writes. */
const WRITE_BURST_GAP_MS = 100;

interface Received {
  identity: string;
  commentIds: string[];
  verified: boolean;
}

describe.runIf(onPostgres)('webhook delivery across processes', () => {
  let throwaway: ThrowawayDatabase;
  let database: DatabaseHandle;
  let world: SocialFixture;
  let app: StoredApp;
  let receiver: Server;
  let callbackUrl: string;
  const received: Received[] = [];
  /** How the receiver answers a delivery: at once, or never (the request held until the sender goes away). */
  let answer: 'ok' | 'hang' = 'ok';
  let hangingSeen: (() => void) | undefined;
  const processes: ServiceProcess[] = [];

  const start = (name: string, extra: Record<string, string> = {}) =>
    startServiceProcess(name, 'dist/bin/start-subgraph.js', ['accounts'], {
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PUBLIC_HOST: '127.0.0.1',
      SUBGRAPH_PORT: '0',
      DATABASE_URL: throwaway.url,
      DATABASE_POOL_MAX: '3',
      JWT_SECRET: 'webhook-processes-secret-0123456789-abcdef',
      SOCIAL_CURSOR_SECRET: 'webhook-processes-cursor-0123456789-abcd',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_REQUIRE_HTTPS: 'false',
      WEBHOOK_POLL_INTERVAL_MS: '200',
      ...extra,
    }).then((started) => {
      processes.push(started);
      return started;
    });

  beforeAll(async () => {
    await ensureCompiledBuild();
    throwaway = await createThrowawayDatabase(process.env.DATABASE_URL!, 'tributary_webhooks');
    database = await createDatabase({
      url: throwaway.url,
      pgliteDir: undefined,
      poolMax: 4,
      connectTimeoutMs: 5000,
      statementTimeoutMs: 10_000,
    });
    await migrateToLatest(database.db, ALL_MIGRATIONS);
    world = await createSocialFixture(database);
    app = await createSocialTokenService({ db: database.db.withTables<SocialAuthTables>() }).createApp('Processes test app');
    receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const body = JSON.parse(raw.toString('utf8')) as { entry: { changes: { value: { id: string } }[] }[] };
        received.push({
          identity: String(req.headers[DELIVERY_HEADER.toLowerCase()]),
          commentIds: body.entry.flatMap((entry) => entry.changes.map((change) => change.value.id)),
          verified: verifySignature(raw, req.headers['x-hub-signature-256'], app.secret),
        });
        if (answer === 'hang') {
          hangingSeen?.();
          return;
        }
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const tables = database.db.withTables<SocialTables>();
    await saveAppSubscription(
      tables,
      { appId: app.id, object: 'social', callbackUrl, verifyToken: 't', includeValues: true, fields: ['comments'] },
      new Date(),
    );
    await saveSubscribedApp(tables, world.accounts.bluebottle, app.id, ['comments']);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(processes.map((running) => running.stop('SIGKILL')));
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => receiver?.close(() => resolve()));
    await database?.close();
    await throwaway?.drop();
  });

  const comment = (text: string) =>
    writeComment(
      database.db.withTables<SocialTables>(),
      { mediaId: world.posts[3]!, authorId: world.accounts.fanOne, parentId: null, text, timestamp: new Date() },
      [],
    );

  /** Whether the app's cursor stands past every event written and no worker holds it: nothing more can be sent. */
  const deliveryDone = async () => {
    const { rows } = await sql<{ idle: boolean }>`
      select delivered_to >= (select max(position) from social.event) and leased_until is null as idle
      from social.webhook_cursor where app_id = ${app.id}`.execute(database.db);
    return rows.length > 0 && rows.every((row) => row.idle);
  };

  it('delivers every event once per callback with two processes delivering', async () => {
    const [first, second] = await Promise.all([start('accounts-1'), start('accounts-2')]);
    const written: string[] = [];
    for (let i = 0; i < 30; i++) {
      written.push(await comment(`normal ${i}`));
      // pacing: the writes come in three bursts, so that both processes are woken and deliver
      if (i % 10 === 9) await delay(WRITE_BURST_GAP_MS);
    }
    await eventually(() => received.flatMap((delivery) => delivery.commentIds).length >= written.length, 'all 30 delivered');
    // No duplicate can follow: the cursor is past the last event and released (a batch sent twice needs a lease).
    await eventually(deliveryDone, 'the cursor past every event, released');
    const delivered = received.flatMap((delivery) => delivery.commentIds);
    expect(delivered).toEqual(written);
    expect(received.every((delivery) => delivery.verified)).toBe(true);
    expect(new Set(received.map((delivery) => delivery.identity)).size).toBe(received.length);
    expect(await first.stop('SIGTERM')).toBe(0);
    expect(await second.stop('SIGTERM')).toBe(0);
  }, 120_000);

  it('lets another process deliver, under the same identity, the batch a killed one had in flight', async () => {
    received.length = 0;
    answer = 'hang';
    // The response timeout outlasts the test's wait; the lease, short, is what frees the batch.
    const timing = { WEBHOOK_RESPONSE_TIMEOUT_MS: '30000', WEBHOOK_LEASE_MS: '31000' };
    // Both events are in the log before any process delivers, so the first batch holds both: written while a process
    // ran, the first could be sent alone (its NOTIFY wakes the deliverer before the second commits).
    const written = [await comment('in flight 1'), await comment('in flight 2')];
    const seen = new Promise<void>((resolve) => (hangingSeen = resolve));
    const doomed = await start('accounts-doomed', timing);
    await seen;
    expect(await doomed.stop('SIGKILL')).toBe(null);
    answer = 'ok';
    const inFlight = received[0]!;
    expect(inFlight.commentIds).toEqual(written);
    // The killed process's lease runs out; the survivor takes the batch up then (the lease is the cost of a crash).
    await database.db
      .withTables<SocialTables>()
      .updateTable('social.webhook_cursor')
      .set({ leased_until: new Date(Date.now() - 1000) })
      .where('app_id', '=', app.id)
      .execute();
    const survivor = await start('accounts-survivor', timing);
    await eventually(() => received.length >= 2, 'the batch delivered again');
    expect(received[1]!.identity).toBe(inFlight.identity);
    expect(received[1]!.commentIds).toEqual(written);
    expect(received.every((delivery) => delivery.verified)).toBe(true);
    expect(await survivor.stop('SIGTERM')).toBe(0);
  }, 120_000);
});
