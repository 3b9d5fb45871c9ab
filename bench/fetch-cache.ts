/**
 * The gateway's fetch cache (issue 39): `npm start`'s process with GATEWAY_CACHE off, memory and redis, side by side on
 * one throwaway PostgreSQL database seeded once, compiled, production mode. Each query is loaded as a mix of 95 % reads
 * and 5 % writes spread over the seeded data: the simple read (`userExample(id)`, ids and admin tokens rotating) with
 * updates of the records it reads; the deep read of the social graph (50 accounts, each with its owner's token) with a
 * new comment on one of the account's posts. Every write evicts what it touched, so the cache earns only what the mix
 * leaves it.
 *
 * Compared: throughput, and the whole system's CPU per request (the process plus PostgreSQL's backends, from /proc),
 * cache on ÷ cache off. The issue's target: throughput ≥ 3 on the deep read. Staleness across instances, single-flight
 * collapsing and memory per entry are not measured here yet (bench/README.md says which figures are still to come).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_ROLE, createTokenService } from '../lib/auth/auth.ts';
import { loadConfig } from '../lib/config.ts';
import { createThrowawayDatabase } from '../lib/database/throwaway-database.ts';
import { formatTable } from './format-table.ts';
import { seed } from './memory.ts';
import {
  buildScripts,
  fleetEnv,
  measureWindow,
  PEER_QUERIES,
  queryLoads,
  startEmbedded,
  type Child,
  type PeerQuery,
  type QueryLoad,
} from './peers.ts';
import { DEEP_ACCOUNTS } from './topologies.ts';

export const CACHE_MODES = ['off', 'memory', 'redis'] as const;
export type CacheMode = (typeof CACHE_MODES)[number];

/** Issue 39: the deep read's throughput with the cache on ÷ off, under the 95/5 mix. */
export const FETCH_CACHE_DEEP_TARGET = 3;

/** One request in this many is a write. */
const WRITE_EVERY = 20;

export interface FetchCacheOptions {
  durationS: number;
  warmupS: number;
  connections: number;
  records: number;
  rounds: number;
}

export interface FetchCacheRow {
  query: PeerQuery;
  mode: CacheMode;
  requestsPerSecond: number;
  processMicros: number;
  databaseMicros: number;
  systemMicros: number;
  failed: number;
  otherCores: number;
}

export interface FetchCacheReport {
  skipped?: string;
  rows: FetchCacheRow[];
}

const UPDATE = 'mutation Update($id: UInt64!, $input: UpdateUserExampleInput!) { updateUserExample(id: $id, input: $input) { id } }';
const COMMENT = 'mutation Comment($media: ID!, $text: String) { createMediaComment(mediaId: $media, message: $text) { id } }';
const POSTS = 'query Posts($id: ID!) { account(id: $id) { media(first: 25) { nodes { id } } } }';

export async function runFetchCache(options: FetchCacheOptions, log: (line: string) => void = console.log): Promise<FetchCacheReport> {
  const serverUrl = process.env.DATABASE_URL || undefined;
  if (!serverUrl) return { skipped: 'needs DATABASE_URL: the cache follows the change log of a PostgreSQL database here', rows: [] };
  await buildScripts();
  const throwaway = await createThrowawayDatabase(serverUrl, 'tributary_fetch_cache');
  const blobDir = await mkdtemp(join(tmpdir(), 'tributary-fetch-cache-'));
  const children: Child[] = [];
  try {
    const callers = 4 * options.connections;
    const env = fleetEnv(throwaway.url, blobDir, {
      BENCH_RECORDS: String(options.records),
      BENCH_SOCIAL_TOKENS: String(callers - 1),
      BENCH_DEEP_ACCOUNTS: String(DEEP_ACCOUNTS),
    });
    log(`  fetch-cache: seeding ${options.records} records and the deep read of ${DEEP_ACCOUNTS} accounts`);
    const fixture = await seed(env);
    const tokens = createTokenService(loadConfig(env).jwt);
    const adminTokens = Array.from({ length: callers }, (_, i) =>
      tokens.mint({ sub: `bench-admin-${i}`, roles: [ADMIN_ROLE] }, { expiresIn: '2h' }),
    );
    const servers: Record<CacheMode, Child> = {
      off: await startEmbedded({ ...env, GATEWAY_CACHE: 'off' }, children),
      memory: await startEmbedded({ ...env, GATEWAY_CACHE: 'memory' }, children),
      redis: await startEmbedded(
        { ...env, GATEWAY_CACHE: 'redis', REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
        children,
      ),
    };
    const reads = queryLoads(fixture, adminTokens);
    const posts = await postsOf(servers.off.ready, fixture.social.owners);
    const loads: Record<PeerQuery, QueryLoad> = {
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
    const windows = new Map<
      string,
      { result: { ok: number; failed: number; durationS: number }; processesMs: number; databaseMs: number; otherCores: number }[]
    >();
    for (let round = 0; round < options.rounds; round++) {
      for (const query of PEER_QUERIES) {
        const order = round % 2 === 0 ? CACHE_MODES : [...CACHE_MODES].reverse();
        for (const mode of order) {
          const server = servers[mode];
          const measured = await measureWindow({
            url: server.ready,
            pids: [server.pid],
            subgraphPids: [],
            load: loads[query],
            options,
            databaseUrl: throwaway.url,
          });
          const key = `${query}/${mode}`;
          windows.set(key, [...(windows.get(key) ?? []), measured]);
          log(
            `  fetch-cache: ${query.padEnd(6)} cache ${mode.padEnd(6)} ${measured.result.requestsPerSecond.toFixed(0).padStart(6)} req/s  ` +
              `system ${(((measured.processesMs + measured.databaseMs) * 1000) / Math.max(1, measured.result.ok)).toFixed(0)} µs/req`,
          );
        }
      }
    }
    const rows = [...windows].map(([key, measured]): FetchCacheRow => {
      const [query, mode] = key.split('/') as [PeerQuery, CacheMode];
      const ok = measured.reduce((sum, window) => sum + window.result.ok, 0);
      const durationS = measured.reduce((sum, window) => sum + window.result.durationS, 0);
      const micros = (pick: (window: (typeof measured)[number]) => number) =>
        (measured.reduce((sum, window) => sum + pick(window), 0) * 1000) / Math.max(1, ok);
      const processMicros = micros((window) => window.processesMs);
      const databaseMicros = micros((window) => window.databaseMs);
      return {
        query,
        mode,
        requestsPerSecond: ok / durationS,
        processMicros,
        databaseMicros,
        systemMicros: processMicros + databaseMicros,
        failed: measured.reduce((sum, window) => sum + window.result.failed, 0),
        otherCores: Math.max(...measured.map((window) => window.otherCores)),
      };
    });
    return { rows };
  } finally {
    await Promise.allSettled(children.reverse().map((child) => child.stop()));
    await throwaway.drop().catch((error: unknown) => log(`  fetch-cache: could not drop ${throwaway.url}: ${String(error)}`));
    await rm(blobDir, { recursive: true, force: true });
  }
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
  console.log('\nFetch cache: npm start with GATEWAY_CACHE off, memory and redis, 95 % reads + 5 % writes, PostgreSQL');
  if (report.skipped) {
    console.log(`  skipped: ${report.skipped}`);
    return;
  }
  const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
  const header = [
    'query',
    'cache',
    'req/s',
    'process µs',
    'db µs',
    'system µs/req',
    '× off (req/s)',
    '× off (CPU)',
    'failed',
    'other cores',
  ];
  const cells = report.rows.map((row) => {
    const off = report.rows.find((other) => other.query === row.query && other.mode === 'off')!;
    return [
      row.query,
      row.mode,
      fixed(row.requestsPerSecond),
      fixed(row.processMicros),
      fixed(row.databaseMicros),
      fixed(row.systemMicros),
      fixed(row.requestsPerSecond / off.requestsPerSecond, 2),
      fixed(off.systemMicros / row.systemMicros, 2),
      String(row.failed),
      fixed(row.otherCores, 2),
    ];
  });
  console.log(formatTable(header, cells, 2));
  for (const mode of ['memory', 'redis'] as const) {
    const on = report.rows.find((row) => row.query === 'deep' && row.mode === mode);
    const off = report.rows.find((row) => row.query === 'deep' && row.mode === 'off');
    if (!on || !off) continue;
    const ratio = on.requestsPerSecond / off.requestsPerSecond;
    console.log(
      `  deep, cache ${mode} ÷ off by throughput: ${fixed(ratio, 2)} (target ≥ ${FETCH_CACHE_DEEP_TARGET}) ${ratio >= FETCH_CACHE_DEEP_TARGET ? 'PASS' : 'MISS'}`,
    );
  }
  console.log('');
}
