/**
 * The subscriptions section of `npm run bench` (issue 27; PostgreSQL only): live GraphQL through the distributed gateway,
 * beside Hive Gateway on the SAME four subgraph processes (bench/peers.ts starts them), and @defer's first part against
 * the whole reply.
 *
 * Fan-out: `subscriptions` graphql-ws subscriptions (graphql-ws's own client, one WebSocket per `connections`, each with
 * a social token of its own among `callers`) to `mediaCommentEvents` on `media` media objects of one account, selecting
 * fields of two subgraphs (the comment from the comments subgraph, the media's caption from the accounts subgraph); this
 * process commits comments at `rate` per second, round robin over the media, so each event reaches subscriptions ÷
 * media subscribers. Measured per gateway, in turn:
 * - RSS per idle subscription: the gateway's RSS with every subscription open and idle, minus its RSS before, ÷ count;
 * - commit → client: for every event and subscriber, from the commit (insertComment's promise resolving) to the
 *   client's `next`, p50/p99/max over the window; every expected delivery must arrive (a missing one is reported);
 * - CPU per delivered event: the gateway process's CPU over the window ÷ deliveries (subgraphs and database beside it).
 * Targets: p99 ≤ 100 ms at 50 events/s over 1 000 subscriptions (Tributary), Tributary's gateway CPU per delivery
 * ≤ 0.67 × Hive Gateway's.
 *
 * @defer: the deep read (account → 25 media → 25 comments → 2 replies) with its media deferred, POSTed for
 * multipart/mixed;deferSpec=20220824: the time until its first part has arrived, against the time of the same query
 * without @defer answered whole; medians over `deferRuns` alternating runs. Target: first part ≤ 0.3 × the whole reply.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient, type Client } from 'graphql-ws';
import { sql } from 'kysely';
import WebSocket from 'ws';
import { createDatabase, type DatabaseHandle } from '../lib/database/database.ts';
import { createThrowawayDatabase } from '../lib/database/throwaway-database.ts';
import { writeComment } from '../subgraphs/comments/comment-changes.ts';
import { createSocialGraphBuilder } from '../subgraphs/shared/social-graph/social-graph-builder.ts';
import type { SocialTables } from '../subgraphs/shared/social-graph/social-tables.ts';
import { machineTimes } from './load.ts';
import { seed } from './memory.ts';
import { buildScripts, cpuOf, fleetEnv, startEmbedded, startFleet, type Child } from './peers.ts';
import { backendsCpuBetween, backendsCpuByPid, processRss } from './proc-stat.ts';
import { DEEP_QUERY } from './social-deep-read.ts';

export const SUBSCRIPTION_TARGETS = { p99Ms: 100, cpuVersusHive: 0.67, deferFirstPart: 0.3 } as const;

/** The gateways in front of the same four subgraph processes. */
const LIVE_GATEWAYS = ['tributary', 'hive'] as const;
/** Those, and npm start's single process (the embedded gateway, its subgraphs in it), measured after them. */
type LiveGateway = (typeof LIVE_GATEWAYS)[number] | 'embedded';

const GATEWAY_TITLES: Record<LiveGateway, string> = {
  tributary: 'Tributary (distributed gateway)',
  hive: 'Hive Gateway 2.15 (JS)',
  embedded: 'Tributary (npm start, embedded)',
};

/**
 * What the subscribers select: the comments subgraph's fields only (a comment feed: the comment, its author, the media
 * object's id), or fields of two subgraphs (the media object's caption too, which the gateway fetches from the accounts
 * subgraph for every event and subscriber).
 */
export const LIVE_SELECTIONS = {
  comments: `subscription MediaEvents($mediaId: ID!) {
  mediaCommentEvents(mediaId: $mediaId) { cursor action commentId comment { id text timestamp from { id username } } media { id } }
}`,
  'two-subgraphs': `subscription MediaEvents($mediaId: ID!) {
  mediaCommentEvents(mediaId: $mediaId) { cursor action commentId comment { id text timestamp from { id username } } media { id caption } }
}`,
} as const;
export type LiveSelection = keyof typeof LIVE_SELECTIONS;
export const MEDIA_EVENTS = LIVE_SELECTIONS['two-subgraphs'];

/** The deep read with everything under the account deferred: the first part is the account's own fields. */
export const DEEP_DEFERRED_QUERY = `query DeepDeferred($id: ID!) { account(id: $id) { id username ... @defer(label: "media") { media(first: 25) { nodes { id caption
  comments(first: 25) { nodes { id text username replies { nodes { text username } } } } } } } } }`;

export interface SubscriptionBenchOptions {
  databaseUrl: string | undefined;
  subscriptions: number;
  connections: number;
  callers: number;
  media: number;
  /** Events per second for the `comments` selection, and for `two-subgraphs` (each delivery a subgraph fetch more). */
  rate: number;
  restRate: number;
  durationS: number;
  warmupS: number;
  deferRuns: number;
  selections: readonly LiveSelection[];
  /** Only npm start's single process (no fleet, no Hive Gateway, no @defer): to work on its figures alone. */
  embeddedOnly?: boolean;
}

export interface LiveWindow {
  gateway: LiveGateway;
  selection: LiveSelection;
  /** Events per second committed during the window. */
  rate: number;
  subscriptions: number;
  connections: number;
  /** Gateway RSS before the subscriptions opened and with all of them open and idle, MiB. */
  rssBeforeMiB: number;
  rssIdleMiB: number;
  rssPerSubscriptionKiB: number;
  events: number;
  deliveries: number;
  missing: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  gatewayCpuMicrosPerDelivery: number;
  subgraphsCpuMicrosPerDelivery: number;
  databaseCpuMicrosPerDelivery: number;
  clientCores: number;
  otherCores: number;
}

export interface DeferFigures {
  runs: number;
  firstPartMedianMs: number;
  firstPartP90Ms: number;
  deferredTotalMedianMs: number;
  wholeMedianMs: number;
  wholeP90Ms: number;
  ratio: number;
  pass: boolean;
}

export interface SubscriptionBenchReport {
  options: Omit<SubscriptionBenchOptions, 'databaseUrl'>;
  windows: LiveWindow[];
  /**
   * Per selection: Tributary's p99 (and nothing missing) against the target, distributed (beside Hive Gateway) and
   * embedded (npm start); its distributed gateway's CPU per delivery ÷ Hive's.
   */
  verdicts: {
    selection: LiveSelection;
    /** The distributed gateway's and Hive Gateway's figures: absent with `embeddedOnly`. */
    p99Ms?: number;
    p99Pass?: boolean;
    embeddedP99Ms: number;
    embeddedP99Pass: boolean;
    cpuRatio?: number;
    cpuPass?: boolean;
  }[];
  /** Absent with `embeddedOnly`. */
  defer?: DeferFigures;
}

/** Resolves once `done()` holds (checked every 50 ms), or after `timeoutMs`. */
async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const by = performance.now() + timeoutMs;
  while (!done() && performance.now() < by) await sleep(50);
}

const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/** A subscriber's `next`: which comment it was about, and when it came. */
type Receipt = (subscription: number, commentId: string, at: number) => void;

interface OpenSubscriptions {
  clients: Client[];
  /** Results with errors, and subscriptions ended by an error (must stay 0). */
  errors(): number;
  close(): Promise<void>;
}

function openSubscriptions(
  url: string,
  query: string,
  options: SubscriptionBenchOptions,
  tokens: readonly string[],
  mediaIds: readonly string[],
  receipt: Receipt,
  onError: (message: string) => void,
): OpenSubscriptions {
  // Subscription i goes over connection i mod connections, whose caller is token (that) mod callers, and watches media
  // object ⌊i ÷ subscribers per media⌋: the subscribers of one media object are consecutive, so they are different
  // callers (as many as there are tokens) — no gateway can merge their fetches as the same caller's.
  const perMedia = options.subscriptions / mediaIds.length;
  const clients: Client[] = [];
  for (let c = 0; c < options.connections; c++) {
    clients.push(
      createClient({
        url: url.replace(/^http/, 'ws'),
        webSocketImpl: WebSocket,
        connectionParams: { authorization: `Bearer ${tokens[c % tokens.length]}` },
        retryAttempts: 0,
        lazy: true,
        // Idle subscriptions stay open: no client pings beyond the servers' own.
        keepAlive: 0,
      }),
    );
  }
  let errors = 0;
  const disposers: (() => void)[] = [];
  for (let i = 0; i < options.subscriptions; i++) {
    const client = clients[i % clients.length]!;
    disposers.push(
      client.subscribe(
        { query, variables: { mediaId: mediaIds[Math.floor(i / perMedia)] } },
        {
          next: (result) => {
            const at = performance.now();
            const event = (result.data as { mediaCommentEvents?: { commentId?: string } } | null | undefined)?.mediaCommentEvents;
            if (result.errors || !event?.commentId) {
              errors += 1;
              onError(JSON.stringify(result.errors ?? result).slice(0, 300));
              return;
            }
            receipt(i, event.commentId, at);
          },
          error: (error) => {
            errors += 1;
            onError(`subscription ended: ${error instanceof Error ? error.message : JSON.stringify(error)}`.slice(0, 300));
          },
          complete: () => undefined,
        },
      ),
    );
  }
  return {
    clients,
    errors: () => errors,
    async close() {
      for (const dispose of disposers) dispose();
      await Promise.allSettled(clients.map(async (client) => client.dispose()));
    },
  };
}

export async function runSubscriptions(
  options: SubscriptionBenchOptions,
  log: (line: string) => void = console.log,
): Promise<SubscriptionBenchReport | { skipped: string }> {
  if (!options.databaseUrl) return { skipped: 'PostgreSQL only: set DATABASE_URL (the subgraph processes share one database)' };
  if (options.subscriptions % options.media !== 0) throw new Error('--live-subscriptions must be a multiple of --live-media');
  await buildScripts();
  const throwaway = await createThrowawayDatabase(options.databaseUrl, 'tributary_bench_live');
  const blobDir = await mkdtemp(join(tmpdir(), 'tributary-live-'));
  const children: Child[] = [];
  let database: DatabaseHandle | undefined;
  try {
    const env = fleetEnv(throwaway.url, blobDir, { BENCH_RECORDS: '10', BENCH_SOCIAL_TOKENS: String(options.callers - 1) });
    log(`  live: seeding the deep read and ${options.callers} tokens on ${throwaway.url.replace(/\/\/[^@]*@/, '//')}`);
    const fixture = await seed(env);
    const tokens = [fixture.social.token, ...fixture.social.tokens];
    database = await createDatabase({
      url: throwaway.url,
      pgliteDir: undefined,
      poolMax: 10,
      connectTimeoutMs: 5000,
      statementTimeoutMs: 30_000,
    });
    const tables = database.db.withTables<SocialTables>();
    const { rows: fanRows } = await sql<{ id: string }>`select id::text as id from social.account where username = 'bench_fan'`.execute(
      database.db,
    );
    const fanId = fanRows[0]!.id;
    // Media of their own for the subscriptions (the deep read's 25 stay as they are for @defer).
    const g = createSocialGraphBuilder(tables);
    const mediaIds: string[] = [];
    for (let i = 0; i < options.media; i++)
      mediaIds.push(await g.media(fixture.social.accountId, { caption: `Live post ${i}`, timestamp: new Date(Date.now() - i * 60_000) }));

    const fleet = options.embeddedOnly ? undefined : await startFleet(env, LIVE_GATEWAYS, children);
    if (fleet) log(`  live: ${LIVE_GATEWAYS.map((name) => `${name} ${fleet.urls[name]} (pid ${fleet.gateways[name].pid})`).join(', ')}`);
    const subgraphPids = fleet?.subgraphs.map((child) => child.pid) ?? [];

    let written = 0;
    const commit = async () => {
      const index = written++;
      const mediaId = mediaIds[index % mediaIds.length]!;
      const id = await writeComment(tables, { mediaId, authorId: fanId, parentId: null, text: `live ${index}`, timestamp: new Date() }, []);
      return { id, at: performance.now(), mediaId };
    };

    const windows: LiveWindow[] = [];
    const perMedia = options.subscriptions / options.media;
    /** One window: the subscriptions opened on `url` (served by process `pid`), probed, warmed, driven and measured. */
    const measure = async (gateway: LiveGateway, selection: LiveSelection, url: string, pid: number, subgraphPids: readonly number[]) => {
      const before = await processRss(pid);
      // comment id → receive times (one per subscriber).
      const receipts = new Map<string, number[]>();
      let waiting: { ids: Set<string>; resolve(): void } | undefined;
      // Subscriptions that have had an event (open all the way to the subgraph), and when the last event came.
      const opened = new Set<number>();
      let lastReceipt = performance.now();
      const receipt: Receipt = (subscription, commentId, at) => {
        opened.add(subscription);
        lastReceipt = at;
        let times = receipts.get(commentId);
        if (!times) receipts.set(commentId, (times = []));
        times.push(at);
        if (waiting && times.length === perMedia && waiting.ids.delete(commentId) && waiting.ids.size === 0) waiting.resolve();
      };
      let firstError: string | undefined;
      // A query first: Hive Gateway loads its supergraph on its first HTTP request, and a graphql-ws subscribe before that
      // fails with "Expected null to be a GraphQL schema" (2.15.1).
      const warm = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"query":"{ __typename }"}',
      });
      if (!warm.ok) throw new Error(`${gateway}: HTTP ${warm.status} to { __typename }`);
      await warm.text();
      const open = openSubscriptions(
        url,
        LIVE_SELECTIONS[selection],
        options,
        tokens,
        mediaIds,
        receipt,
        (message) => (firstError ??= message),
      );
      /** Resolves once each of `ids` has reached all its subscribers, or after `timeoutMs`. */
      const delivered = (ids: readonly string[], timeoutMs: number) =>
        new Promise<void>((resolve) => {
          const pending = new Set(ids.filter((id) => (receipts.get(id)?.length ?? 0) < perMedia));
          if (pending.size === 0) return resolve();
          const timer = setTimeout(() => {
            waiting = undefined;
            resolve();
          }, timeoutMs);
          waiting = {
            ids: pending,
            resolve: () => {
              clearTimeout(timer);
              waiting = undefined;
              resolve();
            },
          };
        });
      try {
        // Until every subscription is open at the gateway and the subgraph: a probe comment on each media object, again
        // until every subscription has had an event (one the subgraph has not started yet misses a probe); then until
        // the probes have all been delivered (no event for a second).
        const openedBy = performance.now() + 120_000;
        for (;;) {
          await Promise.all(mediaIds.map(() => commit()));
          await until(() => opened.size === options.subscriptions, 5_000);
          if (opened.size === options.subscriptions) break;
          if (performance.now() > openedBy) {
            throw new Error(
              `${gateway}: ${options.subscriptions - opened.size} subscriptions had no event after 120 s${firstError ? ` (${firstError})` : ''}`,
            );
          }
        }
        await until(() => performance.now() - lastReceipt > 1_000, 60_000);
        await sleep(1_000);
        const idle = await processRss(pid);

        const rate = selection === 'comments' ? options.rate : options.restRate;
        const drive = async (seconds: number) => {
          const total = Math.round(rate * seconds);
          const intervalMs = 1000 / rate;
          const t0 = performance.now();
          const writes: Promise<{ id: string; at: number }>[] = [];
          for (let i = 0; i < total; i++) {
            const wait = t0 + i * intervalMs - performance.now();
            if (wait > 0) await sleep(wait);
            writes.push(commit());
          }
          const committed = await Promise.all(writes);
          await delivered(
            committed.map((each) => each.id),
            30_000,
          );
          return committed;
        };
        if (options.warmupS > 0) await drive(options.warmupS);
        await sleep(500);
        const errorsBefore = open.errors();
        const cpuBefore = {
          gateway: await cpuOf([pid]),
          subgraphs: await cpuOf(subgraphPids),
          database: await backendsCpuByPid(throwaway.url),
          machine: machineTimes(),
          self: process.cpuUsage(),
        };
        const windowStart = performance.now();
        const committed = await drive(options.durationS);
        const elapsedMs = performance.now() - windowStart;
        const gatewayMs = (await cpuOf([pid])) - cpuBefore.gateway;
        const subgraphsMs = (await cpuOf(subgraphPids)) - cpuBefore.subgraphs;
        const databaseMs = backendsCpuBetween(cpuBefore.database, await backendsCpuByPid(throwaway.url));
        const machine = machineTimes();
        const self = process.cpuUsage(cpuBefore.self);
        const selfMs = (self.user + self.system) / 1000;
        const busyMs = machine.total - cpuBefore.machine.total - (machine.idle - cpuBefore.machine.idle);

        const latencies: number[] = [];
        let deliveries = 0;
        for (const { id, at } of committed) {
          for (const time of receipts.get(id) ?? []) {
            deliveries += 1;
            latencies.push(Math.max(0, time - at));
          }
        }
        latencies.sort((a, b) => a - b);
        const expected = committed.length * perMedia;
        const window: LiveWindow = {
          gateway,
          selection,
          rate,
          subscriptions: options.subscriptions,
          connections: options.connections,
          rssBeforeMiB: before.rss,
          rssIdleMiB: idle.rss,
          rssPerSubscriptionKiB: ((idle.rss - before.rss) * 1024) / options.subscriptions,
          events: committed.length,
          deliveries,
          missing: expected - deliveries,
          errors: open.errors() - errorsBefore,
          p50Ms: quantile(latencies, 0.5),
          p99Ms: quantile(latencies, 0.99),
          maxMs: latencies.at(-1) ?? Number.NaN,
          gatewayCpuMicrosPerDelivery: (gatewayMs * 1000) / Math.max(1, deliveries),
          subgraphsCpuMicrosPerDelivery: (subgraphsMs * 1000) / Math.max(1, deliveries),
          databaseCpuMicrosPerDelivery: (databaseMs * 1000) / Math.max(1, deliveries),
          clientCores: selfMs / elapsedMs,
          otherCores: Math.max(0, busyMs - gatewayMs - subgraphsMs - databaseMs - selfMs) / elapsedMs,
        };
        windows.push(window);
        log(
          `  live: ${selection.padEnd(13)} ${gateway.padEnd(9)} ${window.deliveries} deliveries (${window.missing} missing, ${window.errors} errors)  p50 ${window.p50Ms.toFixed(1)} ms  ` +
            `p99 ${window.p99Ms.toFixed(1)} ms  gateway ${window.gatewayCpuMicrosPerDelivery.toFixed(0)} µs/delivery  ` +
            `RSS ${window.rssBeforeMiB.toFixed(0)} → ${window.rssIdleMiB.toFixed(0)} MiB idle (${window.rssPerSubscriptionKiB.toFixed(1)} KiB/subscription)` +
            (firstError ? `  first error: ${firstError}` : ''),
        );
      } finally {
        await open.close();
        // The gateway and the subgraph let go of the closed streams before the next gateway's turn.
        await sleep(2_000);
      }
    };
    let defer: DeferFigures | undefined;
    if (fleet) {
      for (const selection of options.selections) {
        for (const gateway of LIVE_GATEWAYS)
          await measure(gateway, selection, fleet.urls[gateway], fleet.gateways[gateway].pid, subgraphPids);
      }
      defer = await measureDefer(fleet.urls.tributary, fixture.social.accountId, fixture.social.token, options.deferRuns);
      log(
        `  live: @defer first part ${defer.firstPartMedianMs.toFixed(1)} ms (median), whole reply ${defer.wholeMedianMs.toFixed(1)} ms: ${defer.ratio.toFixed(2)} ×`,
      );
    }

    // npm start's topology on the same database: one process, the comments subgraph's streams in the gateway's process
    // (no hop between processes per delivery). The fleet is stopped first, so that its processes take no share.
    await Promise.allSettled(
      children
        .splice(0)
        .reverse()
        .map((child) => child.stop()),
    );
    const embedded = await startEmbedded(env, children);
    log(`  live: embedded ${embedded.ready} (pid ${embedded.pid})`);
    for (const selection of options.selections) await measure('embedded', selection, embedded.ready, embedded.pid, []);

    const verdicts = options.selections.map((selection) => {
      const tributary = windows.find((w) => w.selection === selection && w.gateway === 'tributary');
      const hive = windows.find((w) => w.selection === selection && w.gateway === 'hive');
      const embedded = windows.find((w) => w.selection === selection && w.gateway === 'embedded')!;
      const p99Pass = (w: LiveWindow) => w.p99Ms <= SUBSCRIPTION_TARGETS.p99Ms && w.missing === 0 && w.errors === 0;
      const cpuRatio = tributary && hive ? tributary.gatewayCpuMicrosPerDelivery / hive.gatewayCpuMicrosPerDelivery : undefined;
      return {
        selection,
        ...(tributary && { p99Ms: tributary.p99Ms, p99Pass: p99Pass(tributary) }),
        embeddedP99Ms: embedded.p99Ms,
        embeddedP99Pass: p99Pass(embedded),
        ...(cpuRatio !== undefined && { cpuRatio, cpuPass: cpuRatio <= SUBSCRIPTION_TARGETS.cpuVersusHive }),
      };
    });
    const { databaseUrl: _unused, ...shown } = options;
    return { options: shown, windows, verdicts, ...(defer && { defer }) };
  } finally {
    await Promise.allSettled(children.reverse().map((child) => child.stop()));
    await database?.close();
    await throwaway.drop().catch((error: unknown) => log(`  live: could not drop ${throwaway.url}: ${String(error)}`));
    await rm(blobDir, { recursive: true, force: true });
  }
}

/**
 * @defer's first part against the whole reply, on the deep read: the deferred query POSTed for multipart/mixed;
 * deferSpec=20220824 (the time its first part is whole, and its last), the same query without @defer as JSON; in
 * alternation, after a warm-up of each.
 */
async function measureDefer(url: string, accountId: string, token: string, runs: number): Promise<DeferFigures> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const deferred = async () => {
    const started = performance.now();
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...headers, accept: 'multipart/mixed;deferSpec=20220824, application/json' },
      body: JSON.stringify({ query: DEEP_DEFERRED_QUERY, variables: { id: accountId } }),
      signal: AbortSignal.timeout(30_000),
    });
    if (!response.ok || !response.headers.get('content-type')?.startsWith('multipart/mixed'))
      throw new Error(`@defer: HTTP ${response.status} ${response.headers.get('content-type')}`);
    const decoder = new TextDecoder();
    let text = '';
    let firstPartMs: number | undefined;
    for await (const chunk of response.body!) {
      text += decoder.decode(chunk as Uint8Array, { stream: true });
      if (firstPartMs === undefined) {
        // A part is whole once the delimiter after it has come.
        const first = /\r\n\r\n(\{.*?\})\r\n--/s.exec(text);
        if (first) {
          firstPartMs = performance.now() - started;
          const part = JSON.parse(first[1]!) as { data?: { account?: { id?: string } }; hasNext?: boolean };
          if (part.hasNext !== true || part.data?.account?.id !== accountId)
            throw new Error(`@defer: unexpected first part ${first[1]!.slice(0, 200)}`);
        }
      }
    }
    if (firstPartMs === undefined || !text.includes('"hasNext":false')) throw new Error(`@defer: no complete reply: ${text.slice(0, 300)}`);
    return { firstPartMs, totalMs: performance.now() - started };
  };
  const whole = async () => {
    const started = performance.now();
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...headers, accept: 'application/json' },
      body: JSON.stringify({ query: DEEP_QUERY, variables: { id: accountId } }),
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await response.json()) as { data?: { account?: { media?: { nodes?: unknown[] } } }; errors?: unknown };
    if (body.errors || body.data?.account?.media?.nodes?.length !== 25) throw new Error(`deep read: ${JSON.stringify(body).slice(0, 300)}`);
    return performance.now() - started;
  };
  for (let i = 0; i < 5; i++) {
    await deferred();
    await whole();
  }
  const first: number[] = [];
  const totals: number[] = [];
  const wholes: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      const d = await deferred();
      first.push(d.firstPartMs);
      totals.push(d.totalMs);
      wholes.push(await whole());
    } else {
      wholes.push(await whole());
      const d = await deferred();
      first.push(d.firstPartMs);
      totals.push(d.totalMs);
    }
  }
  for (const list of [first, totals, wholes]) list.sort((a, b) => a - b);
  const ratio = quantile(first, 0.5) / quantile(wholes, 0.5);
  return {
    runs,
    firstPartMedianMs: quantile(first, 0.5),
    firstPartP90Ms: quantile(first, 0.9),
    deferredTotalMedianMs: quantile(totals, 0.5),
    wholeMedianMs: quantile(wholes, 0.5),
    wholeP90Ms: quantile(wholes, 0.9),
    ratio,
    pass: ratio <= SUBSCRIPTION_TARGETS.deferFirstPart,
  };
}

const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '—');

export function printSubscriptions(report: SubscriptionBenchReport | { skipped: string } | undefined): void {
  if (!report) return;
  console.log(
    "\nsubscriptions and @defer (the gateways in front of the same four subgraph processes, then npm start's one process; PostgreSQL):",
  );
  if ('skipped' in report) {
    console.log(`  skipped: ${report.skipped}`);
    return;
  }
  const o = report.options;
  console.log(
    `  ${o.subscriptions} subscriptions on ${o.connections} graphql-ws connections (${o.callers} tokens), ${o.media} media objects ` +
      `(${o.subscriptions / o.media} subscribers each), for ${o.durationS} s: ${o.rate} events/s selecting the comments subgraph's fields, ` +
      `${o.restRate} events/s selecting two subgraphs'`,
  );
  console.log(
    `${'selection'.padEnd(14)} ${'events/s'.padStart(8)} ${'gateway'.padEnd(34)} ${'deliveries'.padStart(10)} ${'missing'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'max ms'.padStart(7)} ` +
      `${'gateway µs/del'.padStart(15)} ${'subgraphs µs/del'.padStart(17)} ${'db µs/del'.padStart(10)} ${'RSS idle KiB/sub'.padStart(17)} ${'other cores'.padStart(12)}`,
  );
  for (const w of report.windows) {
    console.log(
      `${w.selection.padEnd(14)} ${String(w.rate).padStart(8)} ${GATEWAY_TITLES[w.gateway].padEnd(34)} ${String(w.deliveries).padStart(10)} ${String(w.missing).padStart(8)} ${fixed(w.p50Ms, 1).padStart(7)} ` +
        `${fixed(w.p99Ms, 1).padStart(7)} ${fixed(w.maxMs, 1).padStart(7)} ${fixed(w.gatewayCpuMicrosPerDelivery).padStart(15)} ` +
        `${fixed(w.subgraphsCpuMicrosPerDelivery).padStart(17)} ${fixed(w.databaseCpuMicrosPerDelivery).padStart(10)} ` +
        `${fixed(w.rssPerSubscriptionKiB, 1).padStart(17)} ${fixed(w.otherCores, 2).padStart(12)}`,
    );
  }
  for (const v of report.verdicts) {
    if (v.p99Ms !== undefined)
      console.log(
        `${v.selection}: Tributary p99 commit → client, distributed ${fixed(v.p99Ms, 1)} ms (target ≤ ${SUBSCRIPTION_TARGETS.p99Ms}, none missing) ${v.p99Pass ? 'PASS' : 'MISS'}`,
      );
    console.log(
      `${v.selection}: Tributary p99 commit → client, embedded (npm start) ${fixed(v.embeddedP99Ms, 1)} ms (target ≤ ${SUBSCRIPTION_TARGETS.p99Ms}, none missing) ${v.embeddedP99Pass ? 'PASS' : 'MISS'}`,
    );
    if (v.cpuRatio !== undefined)
      console.log(
        `${v.selection}: Tributary gateway CPU per delivery ÷ Hive Gateway's ${fixed(v.cpuRatio, 2)} (target ≤ ${SUBSCRIPTION_TARGETS.cpuVersusHive}) ${v.cpuPass ? 'PASS' : 'MISS'}`,
      );
  }
  const d = report.defer;
  if (!d) return;
  console.log(
    `@defer deep read, ${d.runs} runs: first part ${fixed(d.firstPartMedianMs, 1)} ms median (p90 ${fixed(d.firstPartP90Ms, 1)}), all parts ${fixed(d.deferredTotalMedianMs, 1)} ms; ` +
      `the whole reply without @defer ${fixed(d.wholeMedianMs, 1)} ms (p90 ${fixed(d.wholeP90Ms, 1)}): ${fixed(d.ratio, 2)} × (target ≤ ${SUBSCRIPTION_TARGETS.deferFirstPart}) ${d.pass ? 'PASS' : 'MISS'}`,
  );
}
