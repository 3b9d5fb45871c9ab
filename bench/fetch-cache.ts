/**
 * The gateway's fetch cache (issue 39), in both topologies on one throwaway PostgreSQL database seeded once, compiled,
 * production mode: `npm start`'s process, and Tributary's gateway process in front of the four subgraph processes
 * (one fleet at a time), each with GATEWAY_CACHE off, memory and redis. Each query is loaded as a mix of 95 % reads and
 * 5 % writes spread over the seeded data: the simple read (`userExample(id)`, ids and admin tokens rotating) with
 * updates of the records it reads; the deep read of the social graph (50 accounts, each with its owner's token) with a
 * new comment on one of the account's posts. Every write evicts what it touched, so the cache earns only what the mix
 * leaves it.
 *
 * Compared: throughput, and the whole system's CPU per request (the process or gateway, the subgraph processes and
 * PostgreSQL's backends, from /proc), cache on ÷ cache off. The issue's target: throughput ≥ 3 on the deep read. Then,
 * on every instance with the cache on, the figures of bench/fetch-cache-figures.ts on records nothing else reads:
 * single flight and staleness (a write through another `npm start` process, the writer), and the memory at the bound
 * on a fresh instance of each.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_ROLE, createTokenService } from '../lib/auth/auth.ts';
import { loadConfig } from '../lib/config.ts';
import { createThrowawayDatabase } from '../lib/database/throwaway-database.ts';
import {
  insertFigureRecords,
  measureBound,
  measureSingleFlight,
  measureStaleness,
  metricsUrlOf,
  printFetchCacheFigures,
  type FetchCacheFigures,
} from './fetch-cache-figures.ts';
import { formatTable } from './format-table.ts';
import { seed } from './memory.ts';
import type { MemoryFixture } from './memory-seed.ts';
import {
  buildScripts,
  fleetEnv,
  measureWindow,
  PEER_QUERIES,
  queryLoads,
  startEmbedded,
  spawnReady,
  startFleet,
  type Child,
  type MeasuredWindow,
  type PeerQuery,
  type QueryLoad,
} from './peers.ts';
import { DEEP_ACCOUNTS, type Topology } from './topologies.ts';

export const CACHE_MODES = ['off', 'memory', 'redis'] as const;
export type CacheMode = (typeof CACHE_MODES)[number];
const CACHED_MODES = ['memory', 'redis'] as const;

/** What the section measures: the 95/5 throughput table, and the figures of bench/fetch-cache-figures.ts. */
export const FETCH_CACHE_PARTS = ['throughput', 'staleness', 'single-flight', 'bound'] as const;
export type FetchCachePart = (typeof FETCH_CACHE_PARTS)[number];

/** Issue 39: the deep read's throughput with the cache on ÷ off, under the 95/5 mix. */
export const FETCH_CACHE_DEEP_TARGET = 3;
/** Issue 39: the deep read with the cache on, under the 95/5 mix, ÷ the hand-written SQL baseline's reads, by CPU. */
export const FETCH_CACHE_BASELINE_TARGET = 2;

/** The deep read's hand-written SQL baseline as a process of its own (compiled; bench/deep-baseline-server.ts). */
const DEEP_BASELINE = fileURLToPath(new URL('../dist/bench/deep-baseline-server.js', import.meta.url));

/** One request in this many is a write. */
const WRITE_EVERY = 20;
/** Single flight: rounds of identical cold reads per instance. */
const FLIGHTS = 10;
/** The memory figure's bound (GATEWAY_CACHE_MAX_BYTES's default), its warm-up records and the records it fills with. */
const BOUND_BYTES = 64 * 1_048_576;
const BOUND_WARM_RECORDS = 100;
const BOUND_FILL_RECORDS = Math.ceil(BOUND_BYTES / 800);

export interface FetchCacheOptions {
  durationS: number;
  warmupS: number;
  connections: number;
  records: number;
  rounds: number;
  parts: readonly FetchCachePart[];
  topologies: readonly Topology[];
  /** Staleness: writes per instance. */
  writes: number;
  /** Single flight: identical reads sent at once. */
  concurrency: number;
}

export interface FetchCacheRow {
  topology: Topology;
  query: PeerQuery;
  mode: CacheMode;
  requestsPerSecond: number;
  /** npm start's process, or the distributed gateway. */
  processMicros: number;
  subgraphsMicros: number;
  databaseMicros: number;
  systemMicros: number;
  failed: number;
  otherCores: number;
}

export interface FetchCacheReport {
  skipped?: string;
  rows: FetchCacheRow[];
  /** The deep read's hand-written SQL baseline (reads only), measured in the same run. */
  baseline?: { requestsPerSecond: number; systemMicros: number; otherCores: number; failed: number };
  figures?: FetchCacheFigures;
}

const UPDATE = 'mutation Update($id: UInt64!, $input: UpdateUserExampleInput!) { updateUserExample(id: $id, input: $input) { id } }';
const COMMENT = 'mutation Comment($media: ID!, $text: String) { createMediaComment(mediaId: $media, message: $text) { id } }';
const POSTS = 'query Posts($id: ID!) { account(id: $id) { media(first: 25) { nodes { id } } } }';

/** What one topology's instance is to the section: where it serves, and whose CPU it is. */
interface Side {
  url: string;
  pids: number[];
  subgraphPids: number[];
  /** The process whose memory the bound figure reads (npm start's, or the gateway's). */
  pid: number;
  /** The users subgraph server's /metrics (distributed): it counts the fetches it is sent. */
  subgraphMetrics?: string;
}

/** The run's shared state: options, the database, the loads, the figure records, what was measured so far. */
interface Run {
  options: FetchCacheOptions;
  env: NodeJS.ProcessEnv;
  databaseUrl: string;
  log: (line: string) => void;
  children: Child[];
  loads: Record<PeerQuery, QueryLoad>;
  token: string;
  /** Takes the next `count` figure records (nothing has read them). */
  take(count: number): string[];
  windows: Map<string, MeasuredWindow[]>;
  figures: FetchCacheFigures;
  /** An embedded instance with the cache on that only writes (staleness: instance A). */
  writer?: string;
}

export async function runFetchCache(options: FetchCacheOptions, log: (line: string) => void = console.log): Promise<FetchCacheReport> {
  const serverUrl = process.env.DATABASE_URL || undefined;
  if (!serverUrl) return { skipped: 'needs DATABASE_URL: the cache follows the change log of a PostgreSQL database here', rows: [] };
  await buildScripts();
  const throwaway = await createThrowawayDatabase(serverUrl, 'tributary_fetch_cache');
  const blobDir = await mkdtemp(join(tmpdir(), 'tributary-fetch-cache-'));
  const children: Child[] = [];
  const wants = (part: FetchCachePart) => options.parts.includes(part);
  try {
    const callers = 4 * options.connections;
    const env = fleetEnv(throwaway.url, blobDir, {
      BENCH_RECORDS: String(options.records),
      BENCH_SOCIAL_TOKENS: String(callers - 1),
      BENCH_DEEP_ACCOUNTS: String(DEEP_ACCOUNTS),
      // The memory figure's bound is GATEWAY_CACHE_MAX_BYTES alone: the entries' count (10,000 by default) never binds.
      GATEWAY_CACHE_MAX_ENTRIES: '10000000',
      GATEWAY_CACHE_MAX_BYTES: String(BOUND_BYTES),
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    });
    log(`  fetch-cache: seeding ${options.records} records and the deep read of ${DEEP_ACCOUNTS} accounts`);
    const fixture = await seed(env);
    const tokens = createTokenService(loadConfig(env).jwt);
    const adminTokens = Array.from({ length: callers }, (_, i) =>
      tokens.mint({ sub: `bench-admin-${i}`, roles: [ADMIN_ROLE] }, { expiresIn: '2h' }),
    );
    const cachedInstances = CACHED_MODES.length * options.topologies.length;
    const figureRecords =
      cachedInstances * ((wants('staleness') ? options.writes : 0) + (wants('single-flight') ? FLIGHTS + 1 : 0)) +
      (wants('bound') ? BOUND_WARM_RECORDS + BOUND_FILL_RECORDS : 0);
    const figureIds = figureRecords > 0 ? await insertFigureRecords(throwaway.url, figureRecords) : [];
    const servers = {} as Record<CacheMode, Child>;
    for (const mode of CACHE_MODES) servers[mode] = await startEmbedded({ ...env, GATEWAY_CACHE: mode }, children);
    const run: Run = {
      options,
      env,
      databaseUrl: throwaway.url,
      log,
      children,
      loads: await mixedLoads(fixture, adminTokens, servers.off.ready),
      token: adminTokens[0]!,
      take: (count) => figureIds.splice(0, count),
      windows: new Map(),
      figures: { staleness: [], singleFlight: [], bound: [], notTaken: [] },
      ...(wants('staleness') && { writer: (await startEmbedded({ ...env, GATEWAY_CACHE: 'memory' }, children)).ready }),
    };
    if (options.topologies.includes('embedded')) {
      for (let round = 0; wants('throughput') && round < options.rounds; round++) {
        for (const query of PEER_QUERIES) {
          for (const mode of round % 2 === 0 ? CACHE_MODES : [...CACHE_MODES].reverse())
            await measure(run, 'embedded', mode, query, embeddedSide(servers[mode]));
        }
      }
      for (const mode of CACHED_MODES) await cachedFigures(run, `embedded ${mode}`, embeddedSide(servers[mode]));
    }
    if (options.topologies.includes('distributed')) {
      for (const mode of CACHE_MODES) {
        if (mode === 'off' && !wants('throughput')) continue;
        await onFleet({ ...env, GATEWAY_CACHE: mode }, async (side) => {
          for (let round = 0; wants('throughput') && round < options.rounds; round++) {
            for (const query of PEER_QUERIES) await measure(run, 'distributed', mode, query, side);
          }
          if (mode !== 'off') await cachedFigures(run, `distributed ${mode}`, side);
        });
      }
    }
    const baseline = wants('throughput') ? await measureBaseline(run, queryLoads(fixture, adminTokens).deep) : undefined;
    if (wants('bound')) await boundFigures(run);
    const rows = [...run.windows].map(([key, measured]) => rowOf(key, measured));
    return { rows, ...(baseline && { baseline }), figures: run.figures };
  } finally {
    await Promise.allSettled(children.reverse().map((child) => child.stop()));
    await throwaway.drop().catch((error: unknown) => log(`  fetch-cache: could not drop ${throwaway.url}: ${String(error)}`));
    await rm(blobDir, { recursive: true, force: true });
  }
}

/** The reads of the 95/5 mix with their writes: records updated, comments added to the account's posts. */
async function mixedLoads(fixture: MemoryFixture, adminTokens: readonly string[], url: string): Promise<Record<PeerQuery, QueryLoad>> {
  const reads = queryLoads(fixture, adminTokens);
  const posts = await postsOf(url, fixture.social.owners);
  return {
    simple: mixed(reads.simple, (i) => ({
      body: JSON.stringify({ query: UPDATE, variables: { id: fixture.ids[(i * 7) % fixture.ids.length], input: { status: i % 3 } } }),
      headers: reads.simple.headers(i),
    })),
    deep: mixed(reads.deep, (i) => {
      const owner = i % fixture.social.owners.length;
      const media = posts[owner]![Math.floor(i / WRITE_EVERY) % posts[owner]!.length]!;
      return {
        body: JSON.stringify({ query: COMMENT, variables: { media, text: `bench ${i}` } }),
        headers: { authorization: `Bearer ${fixture.social.owners[owner]!.token}` },
      };
    }),
  };
}

/** One measured window of `query`'s mix on an instance, kept under topology/query/mode. */
async function measure(run: Run, topology: Topology, mode: CacheMode, query: PeerQuery, side: Side): Promise<void> {
  const measured = await measureWindow({ ...side, load: run.loads[query], options: run.options, databaseUrl: run.databaseUrl });
  const key = `${topology}/${query}/${mode}`;
  run.windows.set(key, [...(run.windows.get(key) ?? []), measured]);
  const perRequest = (ms: number) => ((ms * 1000) / Math.max(1, measured.result.ok)).toFixed(0);
  run.log(
    `  fetch-cache: ${topology.padEnd(11)} ${query.padEnd(6)} cache ${mode.padEnd(6)} ${measured.result.requestsPerSecond.toFixed(0).padStart(6)} req/s  ` +
      `system ${perRequest(measured.processesMs + measured.subgraphsMs + measured.databaseMs)} µs/req`,
  );
}

/** The same deep reads (the same accounts, no writes) served by the hand-written SQL: the floor the issue compares with. */
async function measureBaseline(run: Run, reads: QueryLoad): Promise<NonNullable<FetchCacheReport['baseline']>> {
  const children: Child[] = [];
  try {
    const server = await spawnReady(DEEP_BASELINE, [], run.env, (line) => /^baseline (\S+)/.exec(line)?.[1]);
    children.push(server);
    const measured = await measureWindow({
      url: server.ready,
      pids: [server.pid],
      subgraphPids: [],
      load: reads,
      options: run.options,
      databaseUrl: run.databaseUrl,
    });
    const systemMicros = ((measured.processesMs + measured.databaseMs) * 1000) / Math.max(1, measured.result.ok);
    run.log(
      `  fetch-cache: SQL baseline deep read ${measured.result.requestsPerSecond.toFixed(0).padStart(6)} req/s  system ${systemMicros.toFixed(0)} µs/req, ${measured.result.failed} failed`,
    );
    return {
      requestsPerSecond: measured.result.requestsPerSecond,
      systemMicros,
      otherCores: measured.otherCores,
      failed: measured.result.failed,
    };
  } finally {
    await Promise.allSettled(children.map((child) => child.stop()));
  }
}

const embeddedSide = (server: Child): Side => ({ url: server.ready, pids: [server.pid], subgraphPids: [], pid: server.pid });

/** The four subgraph processes and Tributary's gateway on `env`, for `work`; stopped after it. */
async function onFleet(env: NodeJS.ProcessEnv, work: (side: Side) => Promise<void>): Promise<void> {
  const children: Child[] = [];
  try {
    const fleet = await startFleet(env, ['tributary'], children);
    const gateway = fleet.gateways.tributary;
    await work({
      url: fleet.urls.tributary,
      pids: [gateway.pid],
      subgraphPids: fleet.subgraphs.map((child) => child.pid),
      pid: gateway.pid,
      subgraphMetrics: metricsUrlOf(fleet.subgraphUrls.users),
    });
  } finally {
    await Promise.allSettled(children.reverse().map((child) => child.stop()));
  }
}

/** Single flight, then staleness (instance B: `side`; A: the run's writer), on one instance with the cache on. */
async function cachedFigures(run: Run, instance: string, side: Side): Promise<void> {
  const { options, token } = run;
  const { url, subgraphMetrics } = side;
  if (options.parts.includes('single-flight')) {
    const [warmId, ...ids] = run.take(FLIGHTS + 1);
    const figure = await measureSingleFlight({
      instance,
      url,
      token,
      warmId: warmId!,
      ids,
      concurrency: options.concurrency,
      subgraphMetrics,
    });
    run.figures.singleFlight.push(figure);
    run.log(
      `  fetch-cache: ${instance}: single flight ${(figure.collapsing * 100).toFixed(1)} % (${figure.fetched} fetches in ${figure.rounds} rounds)`,
    );
  }
  if (options.parts.includes('staleness') && run.writer) {
    const figure = await measureStaleness({
      instance,
      writer: run.writer,
      reader: url,
      token,
      ids: run.take(options.writes),
      databaseUrl: run.databaseUrl,
    });
    run.figures.staleness.push(figure);
    run.log(
      `  fetch-cache: ${instance}: staleness p99 ${figure.fromTransaction.p99.toFixed(1)} ms (transaction start → B's read shows it)`,
    );
  }
}

/** The memory figure on a fresh instance of each topology and cached mode, one at a time (each opens its inspector). */
async function boundFigures(run: Run): Promise<void> {
  const warmIds = run.take(BOUND_WARM_RECORDS);
  const fillIds = run.take(BOUND_FILL_RECORDS);
  for (const topology of run.options.topologies) {
    for (const mode of CACHED_MODES) {
      const instance = `${topology} ${mode}`;
      const env = { ...run.env, GATEWAY_CACHE: mode };
      const bound = async (side: Side) => {
        try {
          const figure = await measureBound({
            instance,
            url: side.url,
            pid: side.pid,
            token: run.token,
            warmIds,
            fillIds,
            maxBytes: BOUND_BYTES,
          });
          run.figures.bound.push(figure);
          run.log(
            `  fetch-cache: ${instance}: ${figure.atBound.entries} entries at the bound, RSS ${figure.rssRatio.toFixed(3)} × (baseline + bound)`,
          );
        } catch (error) {
          run.figures.notTaken.push(`${instance} memory at the bound: ${String(error)}`);
        }
      };
      if (topology === 'distributed') await onFleet(env, bound);
      else {
        const children: Child[] = [];
        try {
          const server = await startEmbedded(env, children);
          await bound(embeddedSide(server));
        } finally {
          await Promise.allSettled(children.map((child) => child.stop()));
        }
      }
    }
  }
}

/** A row of the throughput table: one instance's windows together. */
function rowOf(key: string, measured: readonly MeasuredWindow[]): FetchCacheRow {
  const [topology, query, mode] = key.split('/') as [Topology, PeerQuery, CacheMode];
  const ok = measured.reduce((sum, window) => sum + window.result.ok, 0);
  const durationS = measured.reduce((sum, window) => sum + window.result.durationS, 0);
  const micros = (pick: (window: MeasuredWindow) => number) =>
    (measured.reduce((sum, window) => sum + pick(window), 0) * 1000) / Math.max(1, ok);
  const processMicros = micros((window) => window.processesMs);
  const subgraphsMicros = micros((window) => window.subgraphsMs);
  const databaseMicros = micros((window) => window.databaseMs);
  return {
    topology,
    query,
    mode,
    requestsPerSecond: ok / durationS,
    processMicros,
    subgraphsMicros,
    databaseMicros,
    systemMicros: processMicros + subgraphsMicros + databaseMicros,
    failed: measured.reduce((sum, window) => sum + window.result.failed, 0),
    otherCores: Math.max(...measured.map((window) => window.otherCores)),
  };
}

/** `reads`, with one request in WRITE_EVERY replaced by `write(i)`: a write's reply is checked for errors only. */
function mixed(reads: QueryLoad, write: (i: number) => { body: string; headers: Record<string, string> }): QueryLoad {
  return {
    body: (i) => (i % WRITE_EVERY === WRITE_EVERY - 1 ? write(i).body : reads.body(i)),
    headers: (i) => (i % WRITE_EVERY === WRITE_EVERY - 1 ? write(i).headers : reads.headers(i)),
    check: (reply) => {
      const body = reply as { data?: Record<string, unknown> | null; errors?: unknown };
      if (body.data && ('updateUserExample' in body.data || 'createMediaComment' in body.data)) {
        return body.errors === undefined ? undefined : `errors: ${JSON.stringify(body.errors).slice(0, 300)}`;
      }
      return reads.check(reply);
    },
  };
}

/** Each owner's posts (media ids), read once through the cache-off server: where the deep mix's comments go. */
async function postsOf(url: string, owners: readonly { accountId: string; token: string }[]): Promise<string[][]> {
  return Promise.all(
    owners.map(async (owner) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}` },
        body: JSON.stringify({ query: POSTS, variables: { id: owner.accountId } }),
      });
      const body = (await response.json()) as { data?: { account?: { media?: { nodes?: { id: string }[] } } } };
      const ids = body.data?.account?.media?.nodes?.map((node) => node.id) ?? [];
      if (ids.length === 0) throw new Error(`no posts for account ${owner.accountId}: ${JSON.stringify(body).slice(0, 300)}`);
      return ids;
    }),
  );
}

export function printFetchCache(report: FetchCacheReport | undefined): void {
  if (!report) return;
  console.log('\nFetch cache: GATEWAY_CACHE off, memory and redis, 95 % reads + 5 % writes, both topologies, PostgreSQL');
  if (report.skipped) {
    console.log(`  skipped: ${report.skipped}`);
    return;
  }
  const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
  const header = [
    'topology',
    'query',
    'cache',
    'req/s',
    'process µs',
    'subgraphs µs',
    'db µs',
    'system µs/req',
    '× off (req/s)',
    '× off (CPU)',
    'failed',
    'other cores',
  ];
  const offOf = (row: FetchCacheRow) =>
    report.rows.find((other) => other.topology === row.topology && other.query === row.query && other.mode === 'off');
  const cells = report.rows.map((row) => {
    const off = offOf(row);
    return [
      row.topology,
      row.query,
      row.mode,
      fixed(row.requestsPerSecond),
      fixed(row.processMicros),
      row.topology === 'embedded' ? '—' : fixed(row.subgraphsMicros),
      fixed(row.databaseMicros),
      fixed(row.systemMicros),
      off ? fixed(row.requestsPerSecond / off.requestsPerSecond, 2) : '—',
      off ? fixed(off.systemMicros / row.systemMicros, 2) : '—',
      String(row.failed),
      fixed(row.otherCores, 2),
    ];
  });
  if (cells.length > 0) console.log(formatTable(header, cells, 3));
  for (const on of report.rows.filter((row) => row.query === 'deep' && row.mode !== 'off')) {
    const off = offOf(on);
    if (!off) continue;
    const ratio = on.requestsPerSecond / off.requestsPerSecond;
    console.log(
      `  ${on.topology} deep, cache ${on.mode} ÷ off by throughput: ${fixed(ratio, 2)} (target ≥ ${FETCH_CACHE_DEEP_TARGET}) ${ratio >= FETCH_CACHE_DEEP_TARGET ? 'PASS' : 'MISS'}`,
    );
  }
  const { baseline } = report;
  if (baseline) {
    console.log(
      `  SQL baseline, deep reads only: ${fixed(baseline.requestsPerSecond)} req/s, system ${fixed(baseline.systemMicros)} µs/req`,
    );
    for (const on of report.rows.filter((row) => row.query === 'deep' && row.mode !== 'off')) {
      const ratio = baseline.systemMicros / on.systemMicros;
      console.log(
        `  ${on.topology} deep, cache ${on.mode} ÷ the SQL baseline by CPU: ${fixed(ratio, 2)} (target ≥ ${FETCH_CACHE_BASELINE_TARGET}) ${ratio >= FETCH_CACHE_BASELINE_TARGET ? 'PASS' : 'MISS'}`,
      );
    }
  }
  printFetchCacheFigures(report.figures);
  console.log('');
}
