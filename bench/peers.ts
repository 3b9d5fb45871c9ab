/**
 * The gateway comparison of `npm run bench` (issue 13): Tributary's distributed gateway beside the gateways people pick
 * instead — Hive Gateway (JS) and Hive Gateway with the router runtime (Hive Router's Rust query planner) — each serving
 * the committed supergraph in front of the SAME four subgraph processes (`bin/start-subgraph.ts`, the production
 * entrypoint) on one throwaway PostgreSQL database. Every gateway is its own OS process: Tributary's is
 * `bin/start-gateway.ts` (what `npm run start:gateway` runs), the peers bench/peer-gateway/peer-gateway.ts.
 *
 * Two queries, each loaded on every gateway in turn (warm-up, then a measured window): the simple read
 * (`userExample(id)`, ids and admin tokens rotating) and the deep read of the social graph (account → 25 media → 25
 * comments → 2 replies each; tokens rotating), so that no gateway can deduplicate or cache a reply. Before any timing, the
 * replies of all three gateways are checked equal. Reported per gateway: req/s, p99, the gateway process's CPU per request
 * (from /proc), the subgraph processes' and the database backends' CPU per request; and Tributary's gateway CPU per
 * request as a ratio of each peer's, against the targets (≤ 0.67 × Hive Gateway, ≤ 1.0 × the router runtime).
 *
 * PostgreSQL only: the four subgraph processes share one database, which an in-process PGlite cannot be.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { ADMIN_ROLE, createTokenService } from '../lib/auth/auth.ts';
import { loadConfig, SUBGRAPH_NAMES, type SubgraphName } from '../lib/config.ts';
import { createThrowawayDatabase } from '../lib/database/throwaway-database.ts';
import { TRUSTED_CALLER_HEADER } from '../lib/http/trusted-caller.ts';
import { SUPERGRAPH_FILE } from '../schema/supergraph-file.ts';
import { GET_QUERY } from './layers.ts';
import { machineTimes, runHttpLoad, type LoadResult } from './load.ts';
import { seed } from './memory.ts';
import type { MemoryFixture } from './memory-seed.ts';
import { backendsCpuBetween, backendsCpuByPid, processCpuMs } from './proc-stat.ts';
import { scriptNodeFlags } from './script-node-flags.ts';
import { DEEP_QUERY } from './social-deep-read.ts';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const BUILD = fileURLToPath(new URL('../bin/build.mjs', import.meta.url));
/** The production entrypoints, compiled (npm run build): what `npm run start:subgraph` and `start:gateway` run. */
const START_SUBGRAPH = fileURLToPath(new URL('../dist/bin/start-subgraph.js', import.meta.url));
const START_GATEWAY = fileURLToPath(new URL('../dist/bin/start-gateway.js', import.meta.url));
const START_EMBEDDED = fileURLToPath(new URL('../dist/bin/start.js', import.meta.url));
const PEER_GATEWAY_SOURCE = fileURLToPath(new URL('./peer-gateway/peer-gateway.ts', import.meta.url));
/** The peer gateways' script, transpiled beside its source (git-ignored), so that they too run plain JavaScript. */
const PEER_GATEWAY = fileURLToPath(new URL('./peer-gateway/.build/peer-gateway.mjs', import.meta.url));

export const GATEWAYS = ['tributary', 'hive', 'hive-router'] as const;
export type GatewayName = (typeof GATEWAYS)[number];
export const PEER_QUERIES = ['simple', 'deep'] as const;
export type PeerQuery = (typeof PEER_QUERIES)[number];

/** Issue 13: Tributary's gateway CPU per request as a share of each peer's. */
export const PEER_TARGETS = { hive: 0.67, 'hive-router': 1.0 } as const;

const GATEWAY_TITLES: Record<GatewayName, string> = {
  tributary: 'Tributary (distributed gateway)',
  hive: 'Hive Gateway 2.15 (JS)',
  'hive-router': 'Hive Gateway + router runtime 1.4',
};

/**
 * How many callers (tokens) each query rotates over, per connection: with fewer, requests of the same caller for the same
 * data are in flight together, and a gateway that merges identical in-flight subgraph fetches does one fetch for several
 * (which Hive Gateway does: with 16 callers over 50 connections its subgraphs did a quarter of the work).
 */
const CALLERS_PER_CONNECTION = 4;

export interface PeersOptions {
  durationS: number;
  warmupS: number;
  connections: number;
  records: number;
  /** How many times the gateways take their turns (rounds alternate the order); the figures are of all rounds together. */
  rounds: number;
  /**
   * Node flags for the peer gateways' processes (none by default: Hive Gateway as its users run it). Tributary's gateway
   * always runs with its npm script's flags; giving the peers the same ones shows what that tuning is worth to them.
   */
  peerNodeFlags?: readonly string[];
}

export interface PeerWindow {
  query: PeerQuery;
  gateway: GatewayName;
  result: LoadResult;
  /** CPU of the gateway process per successful request, µs. */
  gatewayCpuMicrosPerRequest: number;
  /** CPU of the four subgraph processes together per successful request, µs. */
  subgraphsCpuMicrosPerRequest: number;
  /** CPU of the PostgreSQL backends per successful request, µs. */
  databaseCpuMicrosPerRequest: number;
  /** Cores busy outside these processes and the load generator during the window: noise. */
  otherCores: number;
}

export interface PeersReport {
  skipped?: string;
  windows: PeerWindow[];
  /** Tributary's gateway CPU per request ÷ the peer's, per query. */
  ratios: { query: PeerQuery; peer: Exclude<GatewayName, 'tributary'>; ratio: number; target: number; pass: boolean }[];
}

/** A process of the comparison: its pid, what it printed when ready, and how to stop it. */
export interface Child {
  pid: number;
  ready: string;
  stop(): Promise<void>;
}

/**
 * Spawns `node <script> …args` (JavaScript: no loader) and resolves once `readyLine` recognises a line of its stdout (what
 * it returns is the child's `ready`). Every line is read, so the child never blocks on a full pipe.
 */
export async function spawnReady(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  readyLine: (line: string) => string | undefined,
  nodeFlags: readonly string[] = [],
): Promise<Child> {
  const child: ChildProcess = spawn(process.execPath, [...nodeFlags, script, ...args], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
    env,
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const recent: string[] = [];
  // BENCH_FLEET_STDOUT_DIR: each child's stdout kept there as <pid>.log (with BENCH_FLEET_NODE_FLAGS=--trace-gc, say).
  const kept = process.env.BENCH_FLEET_STDOUT_DIR
    ? createWriteStream(join(process.env.BENCH_FLEET_STDOUT_DIR, `${child.pid}.log`))
    : undefined;
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${script} ${args.join(' ')} was not ready within 120 s:\n${recent.join('\n')}`)),
      120_000,
    );
    createInterface({ input: child.stdout! }).on('line', (line) => {
      kept?.write(`${line}\n`);
      recent.push(line);
      if (recent.length > 20) recent.shift();
      const value = readyLine(line);
      if (value !== undefined) {
        clearTimeout(timer);
        resolve(value);
      }
    });
    void exited.then((code) => {
      kept?.end();
      clearTimeout(timer);
      reject(new Error(`${script} ${args.join(' ')} exited with code ${code} before it was ready:\n${recent.join('\n')}`));
    });
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    return { pid: child.pid!, ready: await ready, stop };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

/** The compiled servers (a no-op when dist/ is current) and the peer gateways' script, as plain JavaScript. */
export async function buildScripts(): Promise<void> {
  execFileSync(process.execPath, [BUILD, '--if-stale'], { cwd: REPO_ROOT, stdio: 'inherit' });
  const { default: ts } = await import('typescript');
  const { outputText } = ts.transpileModule(await readFile(PEER_GATEWAY_SOURCE, 'utf8'), {
    fileName: PEER_GATEWAY_SOURCE,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2023, verbatimModuleSyntax: true },
  });
  await mkdir(dirname(PEER_GATEWAY), { recursive: true });
  await writeFile(PEER_GATEWAY, outputText);
}

/** The requests of one query: a body and headers per request, rotating, and what a right reply looks like. */
export interface QueryLoad {
  body(i: number): string;
  headers(i: number): Record<string, string>;
  /** The reply's `data`, compared across gateways before timing. */
  check(reply: unknown): string | undefined;
}

export function queryLoads(fixture: MemoryFixture, adminTokens: readonly string[]): Record<PeerQuery, QueryLoad> {
  const socialTokens = [fixture.social.token, ...fixture.social.tokens];
  const owners = fixture.social.owners;
  const hasNoErrors = (reply: unknown) => {
    const body = reply as { data?: unknown; errors?: unknown };
    if (body.errors !== undefined) return `errors: ${JSON.stringify(body.errors).slice(0, 300)}`;
    if (body.data === null || typeof body.data !== 'object') return `no data: ${JSON.stringify(reply).slice(0, 300)}`;
    return undefined;
  };
  return {
    simple: {
      body: (i) => JSON.stringify({ query: GET_QUERY, variables: { id: fixture.ids[i % fixture.ids.length] } }),
      headers: (i) => ({ authorization: `Bearer ${adminTokens[i % adminTokens.length]}` }),
      check: (reply) => {
        const problem = hasNoErrors(reply);
        if (problem) return problem;
        return typeof (reply as { data: { userExample?: { id?: unknown } } }).data.userExample?.id === 'string'
          ? undefined
          : 'no userExample.id';
      },
    },
    deep: {
      // With several owners seeded (BENCH_DEEP_ACCOUNTS), request i reads owner i's account with that owner's token;
      // with one, the account's tokens rotate.
      body: (i) =>
        JSON.stringify({
          query: DEEP_QUERY,
          variables: { id: owners.length > 1 ? owners[i % owners.length]!.accountId : fixture.social.accountId },
        }),
      headers: (i) => ({
        authorization: `Bearer ${owners.length > 1 ? owners[i % owners.length]!.token : socialTokens[i % socialTokens.length]}`,
      }),
      check: (reply) => {
        const problem = hasNoErrors(reply);
        if (problem) return problem;
        const media = (reply as { data: { account?: { media?: { nodes?: { comments?: { nodes?: unknown[] } }[] } } } }).data.account?.media
          ?.nodes;
        return media?.length === 25 && media.every((node) => node.comments?.nodes?.length === 25)
          ? undefined
          : 'not 25 media × 25 comments';
      },
    },
  };
}

async function post(url: string, load: QueryLoad, i: number): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...load.headers(i) },
    body: load.body(i),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

/** Every gateway answers the same request with the same data (checked on a few rotations of ids and tokens). */
async function checkRepliesEqual(urls: Record<GatewayName, string>, loads: Record<PeerQuery, QueryLoad>): Promise<void> {
  for (const query of PEER_QUERIES) {
    for (const i of [0, 1, 7]) {
      const replies = new Map<GatewayName, string>();
      for (const gateway of GATEWAYS) {
        const reply = await post(urls[gateway], loads[query], i);
        const problem = loads[query].check(reply);
        if (problem) throw new Error(`${gateway}, ${query} query: ${problem}`);
        replies.set(gateway, JSON.stringify((reply as { data: unknown }).data));
      }
      const expected = replies.get('tributary');
      for (const [gateway, reply] of replies) {
        if (reply !== expected) {
          throw new Error(
            `${query} query: ${gateway} answered differently from tributary:\n  ${reply.slice(0, 400)}\n  ${expected?.slice(0, 400)}`,
          );
        }
      }
    }
  }
}

export async function cpuOf(pids: readonly number[]): Promise<number> {
  let total = 0;
  for (const pid of pids) total += (await processCpuMs(pid)) ?? Number.NaN;
  return total;
}

/**
 * The environment of the fleet's processes on a throwaway database: production mode, silent logs, fresh secrets, every
 * port ephemeral; `extra` adds the seeding step's variables.
 */
export function fleetEnv(databaseUrl: string, blobDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    APOLLO_TELEMETRY_DISABLED: '1',
    HOST: '127.0.0.1',
    PUBLIC_HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    JWT_SECRET: randomBytes(32).toString('hex'),
    SOCIAL_CURSOR_SECRET: randomBytes(32).toString('hex'),
    GRAPHQL_TRUSTED_CALLER_SECRET: randomBytes(24).toString('hex'),
    MEDIA_BLOB_DIR: blobDir,
    SUBGRAPH_PORT: '0',
    SUBGRAPH_USERS_GRPC: 'false',
    GATEWAY_PORT: '0',
    REST_PORT: '0',
    SOCIAL_PARENT_PORT: '0',
    // The social graph's rate limits (per app, user, page and account) would refuse a load of one account's callers
    // long before the window ends (every subgraph fetch is a call): raised so that the load measures the gateways.
    SOCIAL_RATE_APP_CALLS_PER_HOUR: '1000000000',
    SOCIAL_RATE_USER_CALLS_PER_HOUR: '1000000000',
    SOCIAL_RATE_PAGE_CALLS_PER_HOUR: '1000000000',
    SOCIAL_RATE_BUSINESS_CALLS_PER_DAY: '1000000000',
    ...extra,
  };
}

/**
 * BENCH_FLEET_NODE_FLAGS: Node flags for Tributary's processes, after npm start's own (a later V8 flag wins), to look
 * inside a run: `--cpu-prof --cpu-prof-dir=/tmp/profiles` (each process writes a CPU profile when it stops).
 */
function extraNodeFlags(): string[] {
  return (process.env.BENCH_FLEET_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
}

/**
 * `npm start`'s process (the embedded gateway, every subgraph in it) on `env`'s database, its listeners on ephemeral
 * ports; `ready` is its GraphQL URL.
 */
export async function startEmbedded(env: NodeJS.ProcessEnv, children: Child[]): Promise<Child> {
  const child = await spawnReady(
    START_EMBEDDED,
    [],
    { ...env, GRPC_PORT: '0', GRPC_STATUS_PORT: '0' },
    (line) => /^\s+GraphQL\s+(\S+)/.exec(line)?.[1],
    [...scriptNodeFlags('start'), ...extraNodeFlags()],
  );
  children.push(child);
  return child;
}

/** The four subgraph processes and the gateways in front of them, each its own OS process. */
export interface Fleet<G extends GatewayName> {
  subgraphs: Child[];
  subgraphUrls: Record<SubgraphName, string>;
  gateways: Record<G, Child>;
  urls: Record<G, string>;
}

/**
 * Starts the four subgraph processes (the production entrypoint, compiled: call buildScripts first) and the `names`
 * gateways in front of them; every process started is pushed to `children` (the caller stops them, in reverse).
 */
export async function startFleet<G extends GatewayName>(
  env: NodeJS.ProcessEnv,
  names: readonly G[],
  children: Child[],
  peerNodeFlags: readonly string[] = [],
): Promise<Fleet<G>> {
  const subgraphFlags = [...scriptNodeFlags('start:subgraph'), ...extraNodeFlags()];
  const subgraphUrls = {} as Record<SubgraphName, string>;
  const subgraphs = await Promise.all(
    SUBGRAPH_NAMES.map((name) =>
      spawnReady(START_SUBGRAPH, [name], env, (line) => new RegExp(`^subgraph ${name}: (\\S+)`).exec(line)?.[1], subgraphFlags),
    ),
  );
  children.push(...subgraphs);
  SUBGRAPH_NAMES.forEach((name, i) => (subgraphUrls[name] = subgraphs[i]!.ready));
  const gatewayEnv: NodeJS.ProcessEnv = { ...env, GATEWAY_MODE: 'distributed' };
  for (const name of SUBGRAPH_NAMES) gatewayEnv[`SUBGRAPH_${name.toUpperCase()}_URL`] = subgraphUrls[name];
  // Hive's logger reads LOG_LEVEL too, and knows no "silent" (its logging is off by configuration).
  const peerEnv: NodeJS.ProcessEnv = {
    ...gatewayEnv,
    LOG_LEVEL: undefined,
    PEER_SUPERGRAPH_FILE: fileURLToPath(SUPERGRAPH_FILE),
    PEER_TRUSTED_HEADER: TRUSTED_CALLER_HEADER,
  };
  const gateways = {} as Record<G, Child>;
  for (const name of names) {
    gateways[name] =
      name === 'tributary'
        ? await spawnReady(START_GATEWAY, [], gatewayEnv, (line) => /^GraphQL\s+(\S+)/.exec(line)?.[1], [
            ...scriptNodeFlags('start:gateway'),
            ...extraNodeFlags(),
          ])
        : await spawnReady(
            PEER_GATEWAY,
            [name],
            peerEnv,
            (line) => {
              if (!line.startsWith('{')) return undefined;
              const ready = JSON.parse(line) as { type?: string; url?: string };
              return ready.type === 'ready' ? ready.url : undefined;
            },
            peerNodeFlags,
          );
    children.push(gateways[name]);
  }
  const urls = Object.fromEntries(names.map((name) => [name, gateways[name].ready])) as Record<G, string>;
  return { subgraphs, subgraphUrls, gateways, urls };
}

/** One measured window: the load on `url` (after its warm-up), and the CPU it cost each part of the system. */
export interface MeasuredWindow {
  result: LoadResult;
  /** CPU of the `pids` processes (a gateway; npm start's process). */
  processesMs: number;
  /** CPU of the subgraph processes. */
  subgraphsMs: number;
  /** CPU of the PostgreSQL backends. */
  databaseMs: number;
  /** Cores busy with anything else meanwhile (the machine's noise). */
  otherCores: number;
}

/**
 * Loads `url` with `load` (warm-up, then a measured window; every reply checked to carry no errors) and reads the CPU
 * of `pids`, of `subgraphPids` and of the database's backends over the measured window, from /proc.
 */
export async function measureWindow(window: {
  url: string;
  load: QueryLoad;
  options: Pick<PeersOptions, 'connections' | 'durationS' | 'warmupS'>;
  pids: readonly number[];
  subgraphPids: readonly number[];
  databaseUrl: string;
}): Promise<MeasuredWindow> {
  const { url, load, options } = window;
  let counter = 0;
  const run = (durationS: number) =>
    runHttpLoad({
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      connections: options.connections,
      durationS,
      next: () => {
        const i = counter++;
        return { body: load.body(i), headers: load.headers(i) };
      },
      // A GraphQL error comes with HTTP 200: every reply is checked to carry no errors.
      verifyBody: (body) => !body.includes('"errors"'),
    });
  if (options.warmupS > 0) await run(options.warmupS);
  await sleep(500);
  const before = {
    processes: await cpuOf(window.pids),
    subgraphs: await cpuOf(window.subgraphPids),
    database: await backendsCpuByPid(window.databaseUrl),
    machine: machineTimes(),
    self: process.cpuUsage(),
  };
  const result = await run(options.durationS);
  const processesMs = (await cpuOf(window.pids)) - before.processes;
  const subgraphsMs = (await cpuOf(window.subgraphPids)) - before.subgraphs;
  const databaseMs = backendsCpuBetween(before.database, await backendsCpuByPid(window.databaseUrl));
  const machine = machineTimes();
  const self = process.cpuUsage(before.self);
  const busyMs = machine.total - before.machine.total - (machine.idle - before.machine.idle);
  const elapsedMs = result.durationS * 1000;
  const otherCores = Math.max(0, busyMs - processesMs - subgraphsMs - databaseMs - (self.user + self.system) / 1000) / elapsedMs;
  return { result, processesMs, subgraphsMs, databaseMs, otherCores };
}

export async function runPeers(options: PeersOptions, log: (line: string) => void = console.log): Promise<PeersReport> {
  const serverUrl = process.env.DATABASE_URL || undefined;
  if (!serverUrl) {
    return { skipped: 'needs DATABASE_URL: the four subgraph processes share one PostgreSQL database', windows: [], ratios: [] };
  }
  await buildScripts();
  const throwaway = await createThrowawayDatabase(serverUrl, 'tributary_peers');
  const callers = CALLERS_PER_CONNECTION * options.connections;
  const blobDir = await mkdtemp(join(tmpdir(), 'tributary-peers-'));
  const children: Child[] = [];
  try {
    const env = fleetEnv(throwaway.url, blobDir, { BENCH_RECORDS: String(options.records), BENCH_SOCIAL_TOKENS: String(callers - 1) });
    log(`  peers: seeding ${options.records} records and the deep read on ${throwaway.url.replace(/\/\/[^@]*@/, '//')}`);
    const fixture = await seed(env);
    const jwt = loadConfig(env).jwt;
    const tokens = createTokenService(jwt);
    const adminTokens = Array.from({ length: callers }, (_, i) =>
      tokens.mint({ sub: `bench-admin-${i}`, roles: [ADMIN_ROLE] }, { expiresIn: '2h' }),
    );

    const fleet = await startFleet(env, GATEWAYS, children, options.peerNodeFlags);
    const { subgraphs, gateways, urls } = fleet;
    log(`  peers: ${GATEWAYS.map((name) => `${name} ${urls[name]} (pid ${gateways[name].pid})`).join(', ')}`);

    const loads = queryLoads(fixture, adminTokens);
    await checkRepliesEqual(urls, loads);
    log('  peers: the three gateways answer both queries with the same data');

    const subgraphPids = subgraphs.map((child) => child.pid);
    const totals = new Map<
      string,
      { result: LoadResult[]; gatewayMs: number; subgraphsMs: number; databaseMs: number; otherCores: number[] }
    >();
    for (let round = 0; round < options.rounds; round++) {
      for (const query of PEER_QUERIES) {
        const order = round % 2 === 0 ? GATEWAYS : [...GATEWAYS].reverse();
        for (const gateway of order) {
          const { result, processesMs, subgraphsMs, databaseMs, otherCores } = await measureWindow({
            url: urls[gateway],
            load: loads[query],
            options,
            pids: [gateways[gateway].pid],
            subgraphPids,
            databaseUrl: throwaway.url,
          });
          const gatewayMs = processesMs;
          const key = `${query}/${gateway}`;
          const entry = totals.get(key) ?? { result: [], gatewayMs: 0, subgraphsMs: 0, databaseMs: 0, otherCores: [] };
          entry.result.push(result);
          entry.gatewayMs += gatewayMs;
          entry.subgraphsMs += subgraphsMs;
          entry.databaseMs += databaseMs;
          entry.otherCores.push(otherCores);
          totals.set(key, entry);
          const perRequest = (gatewayMs * 1000) / Math.max(1, result.ok);
          log(
            `  peers: ${query.padEnd(6)} ${gateway.padEnd(11)} ${result.requestsPerSecond.toFixed(0).padStart(6)} req/s  p99 ${result.p99Ms} ms  ` +
              `gateway ${perRequest.toFixed(0)} µs/req  subgraphs ${((subgraphsMs * 1000) / Math.max(1, result.ok)).toFixed(0)} µs/req${result.failed > 0 ? `  FAILED ${result.failed} (${result.firstFailure})` : ''}`,
          );
        }
      }
    }

    const windows: PeerWindow[] = [];
    for (const query of PEER_QUERIES) {
      for (const gateway of GATEWAYS) {
        const entry = totals.get(`${query}/${gateway}`)!;
        const ok = entry.result.reduce((sum, result) => sum + result.ok, 0);
        const failed = entry.result.reduce((sum, result) => sum + result.failed, 0);
        const durationS = entry.result.reduce((sum, result) => sum + result.durationS, 0);
        const firstFailure = entry.result.find((result) => result.firstFailure)?.firstFailure;
        const result: LoadResult = {
          ok,
          failed,
          durationS,
          requestsPerSecond: ok / durationS,
          // Percentiles of several windows cannot be merged: the slowest window's are reported.
          p50Ms: Math.max(...entry.result.map((r) => r.p50Ms)),
          p99Ms: Math.max(...entry.result.map((r) => r.p99Ms)),
          ...(firstFailure ? { firstFailure } : {}),
        };
        windows.push({
          query,
          gateway,
          result,
          gatewayCpuMicrosPerRequest: (entry.gatewayMs * 1000) / Math.max(1, ok),
          subgraphsCpuMicrosPerRequest: (entry.subgraphsMs * 1000) / Math.max(1, ok),
          databaseCpuMicrosPerRequest: (entry.databaseMs * 1000) / Math.max(1, ok),
          otherCores: Math.max(...entry.otherCores),
        });
      }
    }
    const ratios: PeersReport['ratios'] = [];
    for (const query of PEER_QUERIES) {
      const cpu = (gateway: GatewayName) => windows.find((w) => w.query === query && w.gateway === gateway)!.gatewayCpuMicrosPerRequest;
      for (const peer of ['hive', 'hive-router'] as const) {
        const ratio = cpu('tributary') / cpu(peer);
        ratios.push({ query, peer, ratio, target: PEER_TARGETS[peer], pass: ratio <= PEER_TARGETS[peer] });
      }
    }
    return { windows, ratios };
  } finally {
    await Promise.allSettled(children.reverse().map((child) => child.stop()));
    await throwaway.drop().catch((error: unknown) => log(`  peers: could not drop ${throwaway.url}: ${String(error)}`));
    await rm(blobDir, { recursive: true, force: true });
  }
}

const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '—');

export function printPeers(report: PeersReport | undefined): void {
  if (!report) return;
  console.log('\nGateway comparison (same supergraph, same four subgraph processes, PostgreSQL)');
  if (report.skipped) {
    console.log(`  skipped: ${report.skipped}`);
    return;
  }
  console.log(
    `${'query'.padEnd(7)} ${'gateway'.padEnd(34)} ${'req/s'.padStart(7)} ${'p99 ms'.padStart(7)} ${'gateway µs/req'.padStart(15)} ` +
      `${'subgraphs µs/req'.padStart(17)} ${'db µs/req'.padStart(10)} ${'failed'.padStart(7)} ${'other cores'.padStart(12)}`,
  );
  for (const w of report.windows) {
    console.log(
      `${w.query.padEnd(7)} ${GATEWAY_TITLES[w.gateway].padEnd(34)} ${fixed(w.result.requestsPerSecond).padStart(7)} ${fixed(w.result.p99Ms).padStart(7)} ` +
        `${fixed(w.gatewayCpuMicrosPerRequest).padStart(15)} ${fixed(w.subgraphsCpuMicrosPerRequest).padStart(17)} ` +
        `${fixed(w.databaseCpuMicrosPerRequest).padStart(10)} ${String(w.result.failed).padStart(7)} ${fixed(w.otherCores, 2).padStart(12)}`,
    );
  }
  for (const r of report.ratios) {
    console.log(
      `Tributary gateway CPU/req ÷ ${GATEWAY_TITLES[r.peer]}, ${r.query} query: ${fixed(r.ratio, 2)} (target ≤ ${r.target.toFixed(2)}) ${r.pass ? 'PASS' : 'MISS'}`,
    );
  }
}
