/**
 * The webhooks section of `npm run bench` (issue 26; PostgreSQL only): events committed by this process, delivered by a
 * compiled accounts-subgraph process (its webhook worker, woken by NOTIFY) to `callbacks` receivers that this process
 * runs and that verify every signature — what an integrator's servers would see.
 *
 * - Throughput: `events` comments committed as fast as 8 writers can, each delivered to every callback; deliveries per
 *   second from the first commit to the last verified receipt (an event delivered to 10 callbacks is 10 deliveries).
 * - Latency: comments committed at `rate` per second for `seconds`; for each event and callback, the time from its commit
 *   (the write's promise resolving) to its verified receipt; p50 and p99 over all of them.
 * Targets (issue 26): ≥ 500 deliveries/s and p99 ≤ 250 ms at 100 events/s, on this machine.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSocialTokenService } from '../lib/auth/social-auth/social-token.service.ts';
import type { SocialAuthTables, StoredApp } from '../lib/auth/social-auth/social-token.repository.ts';
import { createDatabase, migrateToLatest } from '../lib/database/database.ts';
import { createThrowawayDatabase } from '../lib/database/throwaway-database.ts';
import { saveAppSubscription, saveSubscribedApp } from '../subgraphs/shared/webhooks/webhook-subscriptions.repository.ts';
import { writeComment } from '../subgraphs/comments/comment-changes.ts';
import { ALL_MIGRATIONS } from '../subgraphs/index.ts';
import { verifySignature } from '../subgraphs/shared/webhooks/webhook-payload.ts';
import type { SocialTables } from '../subgraphs/shared/social-graph/social-tables.ts';
import { ensureCompiledBuild } from '../test/support/compiled-build.ts';
import { startServiceProcess } from '../test/support/os-process.ts';
import { createSocialFixture } from '../test/support/social-fixture.ts';

export const WEBHOOK_TARGETS = { deliveriesPerSecond: 500, p99Ms: 250 } as const;

export interface WebhookBenchOptions {
  databaseUrl: string | undefined;
  callbacks: number;
  events: number;
  rate: number;
  seconds: number;
}

export interface WebhookBenchReport {
  callbacks: number;
  throughput: { events: number; deliveries: number; seconds: number; deliveriesPerSecond: number; pass: boolean };
  latency: { ratePerSecond: number; events: number; samples: number; p50Ms: number; p99Ms: number; maxMs: number; pass: boolean };
  /** POSTs the receivers got (batches), and any whose signature did not verify (must be 0). */
  posts: number;
  badSignatures: number;
}

export async function runWebhooks(options: WebhookBenchOptions): Promise<WebhookBenchReport | { skipped: string }> {
  if (!options.databaseUrl) return { skipped: 'PostgreSQL only: set DATABASE_URL' };
  await ensureCompiledBuild();
  const throwaway = await createThrowawayDatabase(options.databaseUrl, 'tributary_bench_webhooks');
  const database = await createDatabase({
    url: throwaway.url,
    pgliteDir: undefined,
    poolMax: 10,
    connectTimeoutMs: 5000,
    statementTimeoutMs: 30_000,
  });
  let receiver: Server | undefined;
  let deliverer: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
  try {
    await migrateToLatest(database.db, ALL_MIGRATIONS);
    const world = await createSocialFixture(database);
    const tables = database.db.withTables<SocialTables>();
    const tokens = createSocialTokenService({ db: database.db.withTables<SocialAuthTables>() });
    const apps: StoredApp[] = [];
    for (let i = 0; i < options.callbacks; i++) apps.push(await tokens.createApp(`bench callback ${i}`));

    // comment id → per callback index, the time its verified receipt came.
    const receipts = new Map<string, number[]>();
    let expected = 0;
    let received = 0;
    let posts = 0;
    let badSignatures = 0;
    let done: (() => void) | undefined;
    receiver = createServer((req, res) => {
      const index = Number(/^\/cb\/(\d+)$/.exec(req.url ?? '')?.[1] ?? -1);
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const at = performance.now();
        const raw = Buffer.concat(chunks);
        posts += 1;
        const app = apps[index];
        if (!app || !verifySignature(raw, req.headers['x-hub-signature-256'], app.secret)) {
          badSignatures += 1;
          res.writeHead(403).end();
          return;
        }
        const body = JSON.parse(raw.toString('utf8')) as { entry: { changes: { value: { id: string } }[] }[] };
        for (const entry of body.entry) {
          for (const change of entry.changes) {
            let times = receipts.get(change.value.id);
            if (!times) receipts.set(change.value.id, (times = []));
            if (times[index] === undefined) {
              times[index] = at;
              received += 1;
            }
          }
        }
        res.writeHead(200).end();
        if (received >= expected) done?.();
      });
    });
    await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as AddressInfo).port;
    for (const [index, app] of apps.entries()) {
      await saveAppSubscription(
        tables,
        {
          appId: app.id,
          object: 'social',
          callbackUrl: `http://127.0.0.1:${port}/cb/${index}`,
          verifyToken: 'bench',
          includeValues: true,
          fields: ['comments'],
        },
        new Date(),
      );
      await saveSubscribedApp(tables, world.accounts.bluebottle, app.id, ['comments']);
    }
    deliverer = await startServiceProcess('bench-webhooks', 'dist/bin/start-subgraph.js', ['accounts'], {
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PUBLIC_HOST: '127.0.0.1',
      SUBGRAPH_PORT: '0',
      DATABASE_URL: throwaway.url,
      DATABASE_POOL_MAX: '12',
      JWT_SECRET: 'bench-webhooks-secret-0123456789-abcdefgh',
      SOCIAL_CURSOR_SECRET: 'bench-webhooks-cursor-0123456789-abcdefg',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_REQUIRE_HTTPS: 'false',
      WEBHOOK_DELIVERY_CONCURRENCY: String(options.callbacks),
    });

    const comment = (text: string) =>
      writeComment(tables, { mediaId: world.posts[4]!, authorId: world.accounts.fanOne, parentId: null, text, timestamp: new Date() }, []);
    const allReceived = (count: number) =>
      new Promise<void>((resolve, reject) => {
        expected = count;
        if (received >= expected) return resolve();
        const timer = setTimeout(() => reject(new Error(`webhook bench: ${received} of ${count} deliveries after 120 s`)), 120_000);
        done = () => {
          clearTimeout(timer);
          resolve();
        };
      });

    // Throughput: 8 writers as fast as they go.
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < options.events) {
          next += 1;
          await comment(`throughput ${next}`);
        }
      }),
    );
    await allReceived(options.events * options.callbacks);
    const seconds = (performance.now() - started) / 1000;
    const deliveries = options.events * options.callbacks;
    const deliveriesPerSecond = deliveries / seconds;

    // Latency: a steady rate.
    await sleep(500);
    const committed = new Map<string, number>();
    const total = Math.round(options.rate * options.seconds);
    const base = received;
    const intervalMs = 1000 / options.rate;
    const t0 = performance.now();
    const writes: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = t0 + i * intervalMs;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      writes.push(comment(`latency ${i}`).then((id) => void committed.set(id, performance.now())));
    }
    await Promise.all(writes);
    await allReceived(base + total * options.callbacks);
    const latencies: number[] = [];
    for (const [id, at] of committed)
      for (const time of receipts.get(id) ?? []) if (time !== undefined) latencies.push(Math.max(0, time - at));
    latencies.sort((a, b) => a - b);
    const quantile = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
    const p99Ms = quantile(0.99);
    return {
      callbacks: options.callbacks,
      throughput: {
        events: options.events,
        deliveries,
        seconds,
        deliveriesPerSecond,
        pass: deliveriesPerSecond >= WEBHOOK_TARGETS.deliveriesPerSecond,
      },
      latency: {
        ratePerSecond: options.rate,
        events: total,
        samples: latencies.length,
        p50Ms: quantile(0.5),
        p99Ms,
        maxMs: latencies.at(-1) ?? Number.NaN,
        pass: p99Ms <= WEBHOOK_TARGETS.p99Ms,
      },
      posts,
      badSignatures,
    };
  } finally {
    await deliverer?.stop('SIGTERM');
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
    await database.close();
    await throwaway.drop();
  }
}

export function printWebhooks(report: WebhookBenchReport | { skipped: string } | undefined): void {
  if (!report) return;
  console.log('\nwebhooks (commit → verified receipt, a compiled accounts-subgraph process delivering):');
  if ('skipped' in report) {
    console.log(`  skipped: ${report.skipped}`);
    return;
  }
  const t = report.throughput;
  const l = report.latency;
  console.log(
    `  throughput: ${t.events} events × ${report.callbacks} callbacks = ${t.deliveries} deliveries in ${t.seconds.toFixed(2)} s: ` +
      `${Math.round(t.deliveriesPerSecond)} deliveries/s (target ≥ ${WEBHOOK_TARGETS.deliveriesPerSecond}) ${t.pass ? 'PASS' : 'MISS'}`,
  );
  console.log(
    `  latency at ${l.ratePerSecond} events/s for ${l.events} events (${l.samples} deliveries): p50 ${l.p50Ms.toFixed(1)} ms, ` +
      `p99 ${l.p99Ms.toFixed(1)} ms (target ≤ ${WEBHOOK_TARGETS.p99Ms}), max ${l.maxMs.toFixed(1)} ms ${l.pass ? 'PASS' : 'MISS'}`,
  );
  console.log(`  ${report.posts} POSTs received, ${report.badSignatures} with a signature that did not verify`);
}
