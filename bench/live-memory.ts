/**
 * The live-memory section of `npm run bench` (issue 41; PostgreSQL only): the gateway process's RSS per idle
 * subscription, for each transport (graphql-transport-ws, SSE, Apollo's multipart) with realistic and with hostile
 * requests, on npm start's single process (the comments subgraph's side of each stream in the same process) and on the
 * distributed gateway in front of the four subgraph processes.
 *
 * Realistic: `realistic` subscriptions of one comment feed's document (test/support/subscription-requests.ts), watching
 * the deep read's media objects. Hostile: `hostile` requests each at SUBSCRIPTION_MAX_MESSAGE_BYTES, each unlike the
 * others, padded by an unused nested variable, a comment or a long alias. The clients run in a process of their own
 * (test/support/stream-holder.ts); a window opens them all, waits until the gateway's open-subscriptions gauge counts
 * them and one more second, reads the gateway's memory after a full collection (RSS and heap, through its inspector:
 * bench/inspector-memory.ts — without one, RSS moves by tens of MiB with the garbage of the moment), closes them and
 * waits until the gauge is back at 0. Each gateway takes one unmeasured round of every window first (code compiled on
 * first use, pools, caches of the realistic document).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { createDatabase } from '../lib/database/database.ts';
import { createThrowawayDatabase } from '../lib/database/throwaway-database.ts';
import { startStreamHolder, type HolderCommand } from '../test/support/stream-holder.ts';
import {
  hostileSubscriptionRequests,
  realisticSubscriptionRequests,
  subscribeMessageOverhead,
} from '../test/support/subscription-requests.ts';
import { seed } from './memory.ts';
import { buildScripts, fleetEnv, startEmbedded, startFleet, type Child } from './peers.ts';
import { inspectProcess } from './inspector-memory.ts';

export interface LiveMemoryOptions {
  databaseUrl: string | undefined;
  realistic: number;
  hostile: number;
}

type Transport = 'websocket' | 'sse' | 'multipart';
type RequestKind = 'realistic' | 'hostile';
const TRANSPORTS: readonly Transport[] = ['websocket', 'sse', 'multipart'];

export interface LiveMemoryWindow {
  gateway: 'embedded' | 'distributed';
  transport: Transport;
  requests: RequestKind;
  subscriptions: number;
  /** After a full collection, before the subscriptions opened and with all of them open and idle. */
  rssBeforeMiB: number;
  rssIdleMiB: number;
  rssPerSubscriptionKiB: number;
  heapBeforeMiB: number;
  heapIdleMiB: number;
  heapPerSubscriptionKiB: number;
}

export interface LiveMemoryReport {
  options: Omit<LiveMemoryOptions, 'databaseUrl'>;
  /** SUBSCRIPTION_MAX_MESSAGE_BYTES of the gateways measured: the size of each hostile request. */
  maxMessageBytes: number;
  windows: LiveMemoryWindow[];
}

/** The gateway's SUBSCRIPTION_MAX_MESSAGE_BYTES and GRAPHQL_MAX_JSON_DEPTH (their defaults; fleetEnv sets neither). */
const MAX_MESSAGE_BYTES = 65_536;
const MAX_JSON_DEPTH = 32;
/** Subscriptions per WebSocket connection (SUBSCRIPTIONS_PER_CONNECTION's default). */
const PER_CONNECTION = 100;

async function openGauge(url: string, transport: Transport): Promise<number> {
  const text = await (await fetch(new URL('/metrics', url))).text();
  const line = text.split('\n').find((entry) => entry.startsWith(`tributary_subscriptions_open{transport="${transport}"`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

async function untilGauge(url: string, transport: Transport, count: number): Promise<void> {
  const by = performance.now() + 60_000;
  while ((await openGauge(url, transport)) !== count) {
    if (performance.now() > by) throw new Error(`live-memory: the ${transport} gauge never reached ${count}`);
    await sleep(100);
  }
}

export async function runLiveMemory(
  options: LiveMemoryOptions,
  log: (line: string) => void = console.log,
): Promise<LiveMemoryReport | { skipped: string }> {
  if (!options.databaseUrl) return { skipped: 'PostgreSQL only: set DATABASE_URL (the subgraph processes share one database)' };
  await buildScripts();
  const throwaway = await createThrowawayDatabase(options.databaseUrl, 'tributary_bench_live_memory');
  const blobDir = await mkdtemp(join(tmpdir(), 'tributary-live-memory-'));
  const children: Child[] = [];
  const holder = startStreamHolder();
  try {
    const env = fleetEnv(throwaway.url, blobDir, { BENCH_RECORDS: '10' });
    const fixture = await seed(env);
    const database = await createDatabase({
      url: throwaway.url,
      pgliteDir: undefined,
      poolMax: 2,
      connectTimeoutMs: 5000,
      statementTimeoutMs: 30_000,
    });
    const { rows } = await sql<{
      id: string;
    }>`select id::text as id from social.media where owner_id = ${fixture.social.accountId}::bigint order by id limit 25`.execute(
      database.db,
    );
    await database.close();
    const mediaIds = rows.map((row) => row.id);

    const windows: LiveMemoryWindow[] = [];
    let round = 0;
    const measure = async (gateway: LiveMemoryWindow['gateway'], url: string, pid: number, record: boolean) => {
      const inspector = await inspectProcess(pid);
      try {
        for (const requests of ['realistic', 'hostile'] as const) {
          for (const transport of TRANSPORTS) {
            round += 1;
            const count = requests === 'realistic' ? options.realistic : options.hostile;
            const bodies =
              requests === 'realistic'
                ? realisticSubscriptionRequests(count, mediaIds)
                : hostileSubscriptionRequests({
                    count,
                    tag: `r${round}_`,
                    mediaIds,
                    limitBytes: (index) =>
                      transport === 'websocket' ? MAX_MESSAGE_BYTES - subscribeMessageOverhead(index) : MAX_MESSAGE_BYTES,
                    maxJsonDepth: MAX_JSON_DEPTH,
                  });
            const command: Extract<HolderCommand, { kind: 'open' }> =
              transport === 'websocket'
                ? { kind: 'open', transport, url, token: fixture.social.token, bodies, connections: Math.ceil(count / PER_CONNECTION) }
                : { kind: 'open', transport, url, token: fixture.social.token, bodies };
            await sleep(1_000);
            const before = await inspector.collectAndRead();
            const reply = await holder.open(command);
            const refused = reply.statuses.filter((status) => status !== 200).length;
            if (refused > 0) throw new Error(`live-memory: ${refused} ${transport} subscriptions refused on ${gateway}: ${reply.refusal}`);
            await untilGauge(url, transport, count);
            await sleep(1_000);
            const idle = await inspector.collectAndRead();
            await holder.close();
            await untilGauge(url, transport, 0);
            if (!record) continue;
            const window: LiveMemoryWindow = {
              gateway,
              transport,
              requests,
              subscriptions: count,
              rssBeforeMiB: before.rssMiB,
              rssIdleMiB: idle.rssMiB,
              rssPerSubscriptionKiB: ((idle.rssMiB - before.rssMiB) * 1024) / count,
              heapBeforeMiB: before.heapUsedMiB,
              heapIdleMiB: idle.heapUsedMiB,
              heapPerSubscriptionKiB: ((idle.heapUsedMiB - before.heapUsedMiB) * 1024) / count,
            };
            windows.push(window);
            log(
              `  live-memory: ${gateway.padEnd(11)} ${transport.padEnd(9)} ${requests.padEnd(9)} ${count} open: RSS ${window.rssBeforeMiB.toFixed(0)} → ${window.rssIdleMiB.toFixed(0)} MiB ` +
                `(${window.rssPerSubscriptionKiB.toFixed(1)} KiB/subscription), heap ${window.heapBeforeMiB.toFixed(0)} → ${window.heapIdleMiB.toFixed(0)} MiB ` +
                `(${window.heapPerSubscriptionKiB.toFixed(1)} KiB/subscription)`,
            );
          }
        }
      } finally {
        inspector.close();
      }
    };

    const embedded = await startEmbedded(env, children);
    log(`  live-memory: npm start's process ${embedded.ready} (pid ${embedded.pid})`);
    await measure('embedded', embedded.ready, embedded.pid, false);
    await measure('embedded', embedded.ready, embedded.pid, true);
    await Promise.allSettled(
      children
        .splice(0)
        .reverse()
        .map((child) => child.stop()),
    );

    const fleet = await startFleet(env, ['tributary'], children);
    log(`  live-memory: distributed gateway ${fleet.urls.tributary} (pid ${fleet.gateways.tributary.pid})`);
    await measure('distributed', fleet.urls.tributary, fleet.gateways.tributary.pid, false);
    await measure('distributed', fleet.urls.tributary, fleet.gateways.tributary.pid, true);

    const { databaseUrl: _unused, ...shown } = options;
    return { options: shown, maxMessageBytes: MAX_MESSAGE_BYTES, windows };
  } finally {
    holder.stop();
    await Promise.allSettled(children.reverse().map((child) => child.stop()));
    await throwaway.drop().catch((error: unknown) => log(`  live-memory: could not drop ${throwaway.url}: ${String(error)}`));
    await rm(blobDir, { recursive: true, force: true });
  }
}

const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '—');

export function printLiveMemory(report: LiveMemoryReport | { skipped: string } | undefined): void {
  if (!report) return;
  console.log("\nlive memory: the gateway process's RSS per idle subscription, by transport and request (PostgreSQL):");
  if ('skipped' in report) {
    console.log(`  skipped: ${report.skipped}`);
    return;
  }
  console.log(
    `  realistic: ${report.options.realistic} subscriptions of one comment feed; hostile: ${report.options.hostile}, each ${report.maxMessageBytes} bytes ` +
      '(an unused nested variable, a comment, a long alias in turn)',
  );
  console.log('  (memory read after a full collection in the gateway process)');
  console.log(
    `${'gateway'.padEnd(12)} ${'transport'.padEnd(10)} ${'requests'.padEnd(10)} ${'open'.padStart(6)} ${'RSS MiB'.padStart(11)} ${'RSS KiB/sub'.padStart(12)} ${'heap MiB'.padStart(11)} ${'heap KiB/sub'.padStart(13)}`,
  );
  for (const w of report.windows) {
    console.log(
      `${w.gateway.padEnd(12)} ${w.transport.padEnd(10)} ${w.requests.padEnd(10)} ${String(w.subscriptions).padStart(6)} ${`${fixed(w.rssBeforeMiB)} → ${fixed(w.rssIdleMiB)}`.padStart(11)} ` +
        `${fixed(w.rssPerSubscriptionKiB, 1).padStart(12)} ${`${fixed(w.heapBeforeMiB)} → ${fixed(w.heapIdleMiB)}`.padStart(11)} ${fixed(w.heapPerSubscriptionKiB, 1).padStart(13)}`,
    );
  }
}
