/**
 * The two topologies side by side (issue 38, item 5): `npm start`'s process (every subgraph in the gateway's process)
 * and the distributed fleet (the four subgraph processes and the gateway process: `start:subgraph`, `start:gateway`),
 * compiled, production mode, on one throwaway PostgreSQL database seeded once, so both serve the same data. The simple
 * read (`userExample(id)`, ids and admin tokens rotating) and the deep read of the social graph (the peers' loads,
 * bench/peers.ts; the deep read over 50 accounts, each with its owner's token), each loaded on both in turn, alternating which goes first per round.
 *
 * What is compared is the whole system's CPU per request: every process of the topology plus the PostgreSQL backends
 * (from /proc). `embedded ÷ distributed` is the distributed fleet's efficiency against the single process (1.00: the
 * fleet costs what one process does; the targets: ≥ 0.6 on the simple read, ≥ 0.85 on the deep one).
 * PostgreSQL only: the subgraph processes share one database, which an in-process PGlite cannot be.
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
  startFleet,
  type Child,
  type MeasuredWindow,
  type PeerQuery,
} from './peers.ts';

export const TOPOLOGIES = ['embedded', 'distributed'] as const;
export type Topology = (typeof TOPOLOGIES)[number];

/** Issue 38: the distributed fleet's whole-system CPU efficiency against the single process, per query. */
export const TOPOLOGY_TARGETS: Record<PeerQuery, number> = { simple: 0.6, deep: 0.85 };

/** The deep read's accounts, each read with its owner's token (issue 38's measurement: 50). */
export const DEEP_ACCOUNTS = 50;

export interface TopologiesOptions {
  durationS: number;
  warmupS: number;
  connections: number;
  records: number;
  rounds: number;
}

export interface TopologyRow {
  query: PeerQuery;
  topology: Topology;
  requestsPerSecond: number;
  /** The topology's processes' CPU per request: npm start's process; the gateway process and the subgraph processes. */
  gatewayMicros: number;
  subgraphsMicros: number;
  databaseMicros: number;
  /** All of it. */
  systemMicros: number;
  failed: number;
  otherCores: number;
}

export interface TopologiesReport {
  skipped?: string;
  rows: TopologyRow[];
  /** Per query: embedded whole-system CPU ÷ distributed, and whether it meets TOPOLOGY_TARGETS. */
  ratios: { query: PeerQuery; ratio: number; target: number; pass: boolean }[];
}

export async function runTopologies(options: TopologiesOptions, log: (line: string) => void = console.log): Promise<TopologiesReport> {
  const serverUrl = process.env.DATABASE_URL || undefined;
  if (!serverUrl) return { skipped: 'needs DATABASE_URL: the subgraph processes share one PostgreSQL database', rows: [], ratios: [] };
  await buildScripts();
  const throwaway = await createThrowawayDatabase(serverUrl, 'tributary_topologies');
  const blobDir = await mkdtemp(join(tmpdir(), 'tributary-topologies-'));
  const children: Child[] = [];
  try {
    const callers = 4 * options.connections;
    // The deep read as the issue measured it: DEEP_ACCOUNTS accounts, each read with its own owner's token, so neither
    // topology serves one account's pages from warm caches alone.
    const env = fleetEnv(throwaway.url, blobDir, {
      BENCH_RECORDS: String(options.records),
      BENCH_SOCIAL_TOKENS: String(callers - 1),
      BENCH_DEEP_ACCOUNTS: String(DEEP_ACCOUNTS),
    });
    log(`  topologies: seeding ${options.records} records and the deep read of ${DEEP_ACCOUNTS} accounts`);
    const fixture = await seed(env);
    const tokens = createTokenService(loadConfig(env).jwt);
    const adminTokens = Array.from({ length: callers }, (_, i) =>
      tokens.mint({ sub: `bench-admin-${i}`, roles: [ADMIN_ROLE] }, { expiresIn: '2h' }),
    );
    const embedded = await startEmbedded(env, children);
    const fleet = await startFleet(env, ['tributary'], children);
    const loads = queryLoads(fixture, adminTokens);
    const subgraphPids = fleet.subgraphs.map((child) => child.pid);
    const sides: Record<Topology, { url: string; pids: number[]; subgraphPids: number[] }> = {
      embedded: { url: embedded.ready, pids: [embedded.pid], subgraphPids: [] },
      distributed: { url: fleet.urls.tributary, pids: [fleet.gateways.tributary.pid], subgraphPids },
    };
    const windows = new Map<string, MeasuredWindow[]>();
    for (let round = 0; round < options.rounds; round++) {
      for (const query of PEER_QUERIES) {
        for (const topology of round % 2 === 0 ? TOPOLOGIES : [...TOPOLOGIES].reverse()) {
          const side = sides[topology];
          const measured = await measureWindow({ ...side, load: loads[query], options, databaseUrl: throwaway.url });
          const key = `${query}/${topology}`;
          windows.set(key, [...(windows.get(key) ?? []), measured]);
          const perRequest = (ms: number) => ((ms * 1000) / Math.max(1, measured.result.ok)).toFixed(0);
          log(
            `  topologies: ${query.padEnd(6)} ${topology.padEnd(11)} ${measured.result.requestsPerSecond.toFixed(0).padStart(6)} req/s  ` +
              `system ${perRequest(measured.processesMs + measured.subgraphsMs + measured.databaseMs)} µs/req`,
          );
        }
      }
    }
    const rows = [...windows].map(([key, measured]) => rowOf(key, measured));
    const ratios = PEER_QUERIES.map((query) => {
      const system = (topology: Topology) => rows.find((row) => row.query === query && row.topology === topology)!.systemMicros;
      const ratio = system('embedded') / system('distributed');
      return { query, ratio, target: TOPOLOGY_TARGETS[query], pass: ratio >= TOPOLOGY_TARGETS[query] };
    });
    return { rows, ratios };
  } finally {
    await Promise.allSettled(children.reverse().map((child) => child.stop()));
    await throwaway.drop().catch((error: unknown) => log(`  topologies: could not drop ${throwaway.url}: ${String(error)}`));
    await rm(blobDir, { recursive: true, force: true });
  }
}

/** A query's figures on one topology over all its windows. */
function rowOf(key: string, measured: readonly MeasuredWindow[]): TopologyRow {
  const [query, topology] = key.split('/') as [PeerQuery, Topology];
  const ok = measured.reduce((sum, window) => sum + window.result.ok, 0);
  const durationS = measured.reduce((sum, window) => sum + window.result.durationS, 0);
  const micros = (pick: (window: MeasuredWindow) => number) =>
    (measured.reduce((sum, window) => sum + pick(window), 0) * 1000) / Math.max(1, ok);
  const gatewayMicros = micros((window) => window.processesMs);
  const subgraphsMicros = micros((window) => window.subgraphsMs);
  const databaseMicros = micros((window) => window.databaseMs);
  return {
    query,
    topology,
    requestsPerSecond: ok / durationS,
    gatewayMicros,
    subgraphsMicros,
    databaseMicros,
    systemMicros: gatewayMicros + subgraphsMicros + databaseMicros,
    failed: measured.reduce((sum, window) => sum + window.result.failed, 0),
    otherCores: Math.max(...measured.map((window) => window.otherCores)),
  };
}

export function printTopologies(report: TopologiesReport | undefined): void {
  if (!report) return;
  console.log('\nTopologies: npm start (one process) against the distributed fleet (four subgraph processes + the gateway), PostgreSQL');
  if (report.skipped) {
    console.log(`  skipped: ${report.skipped}`);
    return;
  }
  console.log("whole-system CPU per request: the topology's processes + the PostgreSQL backends; embedded ÷ distributed: the fleet's");
  console.log('efficiency against the single process (targets: simple ≥ 0.6, deep ≥ 0.85).\n');
  const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
  const header = ['query', 'topology', 'req/s', 'gateway µs', 'subgraphs µs', 'db µs', 'system µs/req', 'failed', 'other cores'];
  const cells = report.rows.map((row) => [
    row.query,
    row.topology,
    fixed(row.requestsPerSecond),
    fixed(row.gatewayMicros),
    row.topology === 'embedded' ? '(in it)' : fixed(row.subgraphsMicros),
    fixed(row.databaseMicros),
    fixed(row.systemMicros),
    String(row.failed),
    fixed(row.otherCores, 2),
  ]);
  console.log(formatTable(header, cells, 2));
  console.log('');
  for (const { query, ratio, target, pass } of report.ratios) {
    console.log(`  ${query}: embedded ÷ distributed ${fixed(ratio, 2)} (target ≥ ${target}) ${pass ? 'PASS' : 'MISS'}`);
  }
  console.log('');
}
