/**
 * The distributed half of `npm run bench -- startup` (issue 38, item 4): how long each process of the distributed
 * topology takes to become able to serve — `start:subgraph` for each of the four subgraphs, `start:gateway` in front of
 * four running subgraph processes (GATEWAY_MODE=distributed, the committed supergraph, as the fleet runs it) and
 * `start:grpc` — each spawned with its package.json script's own command line (no npm in front, as npm start's process
 * is measured in startup.ts), on a throwaway PostgreSQL database (DATABASE_URL) in the fleet's environment (bench/peers.ts
 * fleetEnv: production mode, silent logs, ephemeral ports). A process is ready when it can serve: every HTTP listener it
 * prints answers /ready with 200 and status UP (the gateway's: every subgraph reached), and the gRPC process's
 * grpc.health.v1 Check answers SERVING. One untimed start first (it migrates the database; the page cache warms), then
 * `--startup-runs` rounds, each starting every process once in turn; median and max per process against ≤ 1.5 s, with the
 * 1-minute load average at each spawn, the process's CPU time and peak RSS when ready.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { SUBGRAPH_NAMES, type SubgraphName } from '../lib/config.ts';
import { createThrowawayDatabase } from '../lib/database/throwaway-database.ts';
import { createUserExampleGrpcClient } from '../test/support/grpc-user-client.ts';
import { buildScripts, fleetEnv, startFleet, type Child } from './peers.ts';
import { describe, fixed, processFigures, series, startScriptArgs, type StartupRun, type StartupSeries } from './startup.ts';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const DEADLINE_MS = 60_000;

/** Each distributed process ready within this (issue 38's Done-when). */
export const DISTRIBUTED_TARGET_MS = 1500;

export type DistributedProcess = `subgraph ${SubgraphName}` | 'gateway' | 'grpc';

export interface DistributedStartupSeries extends StartupSeries {
  process: DistributedProcess;
  /** The command line measured (the package.json script's, without npm). */
  command: string;
  pass: boolean;
}

export type DistributedStartupReport =
  { skipped: string } | { cpus: number; processes: DistributedStartupSeries[]; warmUp: StartupRun; pass: boolean };

/** How one process is started and what of its stdout says where it serves. */
interface Launch {
  process: DistributedProcess;
  script: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** From the lines printed so far, the probes of a process that listens, or undefined while it does not yet. */
  listening(lines: readonly string[]): Probes | undefined;
}

interface Probes {
  /** /ready URLs: each must answer 200 with status UP. */
  http: string[];
  /** A gRPC address whose grpc.health.v1 Check must answer SERVING. */
  grpc?: string;
}

/** /ready answers 200 and UP (not DEGRADED: a gateway is counted ready once it reaches every subgraph). */
async function readyAndUp(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    const body = (await response.json()) as { status?: string };
    return response.status === 200 && body.status === 'UP';
  } catch {
    return false;
  }
}

const readyUrl = (url: string) => new URL('/ready', url).toString();

/** The first capture of `pattern` in any of `lines`. */
const captured = (lines: readonly string[], pattern: RegExp) => lines.map((line) => pattern.exec(line)?.[1]).find(Boolean);

function launches(env: NodeJS.ProcessEnv, gatewayEnv: NodeJS.ProcessEnv): Launch[] {
  const subgraph = startScriptArgs('start:subgraph');
  const subgraphs = SUBGRAPH_NAMES.map((name): Launch => ({
    process: `subgraph ${name}`,
    script: 'start:subgraph',
    args: [...subgraph, name],
    env,
    listening: (lines) => {
      const url = captured(lines, new RegExp(`^subgraph ${name}: (\\S+)`));
      return url ? { http: [readyUrl(url)] } : undefined;
    },
  }));
  const gateway: Launch = {
    process: 'gateway',
    script: 'start:gateway',
    args: startScriptArgs('start:gateway'),
    env: gatewayEnv,
    listening: (lines) => {
      const urls = [/^GraphQL\s+(\S+)/, /^REST\s+(\S+)\s*$/, /^REST\s+(\S+)\s+\(social graph/].map((pattern) => captured(lines, pattern));
      return urls.every(Boolean) ? { http: urls.map((url) => readyUrl(url!)) } : undefined;
    },
  };
  const grpc: Launch = {
    process: 'grpc',
    script: 'start:grpc',
    args: startScriptArgs('start:grpc'),
    env: { ...env, GRPC_PORT: '0', GRPC_STATUS_PORT: '0' },
    listening: (lines) => {
      const address = captured(lines, /^gRPC\s+(\S+)/);
      const status = captured(lines, /^status\s+(\S+)/);
      return address && status ? { http: [readyUrl(status)], grpc: address } : undefined;
    },
  };
  return [...subgraphs, gateway, grpc];
}

/** One start of `launch`, timed from the spawn until it can serve; the process is stopped (SIGTERM) before this returns. */
async function startOnce(launch: Launch): Promise<StartupRun> {
  // BENCH_STARTUP_NODE_FLAGS: Node flags after the script's own, to look inside a start (`--cpu-prof --cpu-prof-dir=…`).
  const flags = (process.env.BENCH_STARTUP_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const loadAverage1m = loadavg()[0]!;
  const started = performance.now();
  const child = spawn(process.execPath, [...flags, ...launch.args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: launch.env,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const probes = await new Promise<Probes>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${launch.process} did not listen within ${DEADLINE_MS / 1000} s`)), DEADLINE_MS);
      const lines: string[] = [];
      createInterface({ input: child.stdout }).on('line', (line) => {
        lines.push(line);
        const found = launch.listening(lines);
        if (found) {
          clearTimeout(timer);
          resolve(found);
        }
      });
      void exited.then(() => reject(new Error(`${launch.process} exited before it listened:\n${lines.join('\n')}`)));
    });
    const listeningMs = performance.now() - started;
    const grpcClient = probes.grpc === undefined ? undefined : createUserExampleGrpcClient(probes.grpc);
    try {
      for (;;) {
        const answers = await Promise.all([
          ...probes.http.map(readyAndUp),
          ...(grpcClient
            ? [
                grpcClient.health().then(
                  (status) => status === 'SERVING',
                  () => false,
                ),
              ]
            : []),
        ]);
        if (answers.every(Boolean))
          return { readyMs: performance.now() - started, listeningMs, loadAverage1m, ...processFigures(child.pid!) };
        if (performance.now() - started > DEADLINE_MS)
          throw new Error(`${launch.process} was not ready within ${DEADLINE_MS / 1000} s: ${JSON.stringify(answers)}`);
        await sleep(10);
      }
    } finally {
      grpcClient?.close();
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/**
 * Every distributed process started `runs` times (after one untimed start), on a throwaway database of DATABASE_URL's
 * server; skipped, saying why, without DATABASE_URL.
 */
export async function runDistributedStartup(runs: number, log: (line: string) => void = console.log): Promise<DistributedStartupReport> {
  const serverUrl = process.env.DATABASE_URL || undefined;
  if (!serverUrl) return { skipped: 'needs DATABASE_URL: the distributed processes share one PostgreSQL database' };
  await buildScripts();
  const throwaway = await createThrowawayDatabase(serverUrl, 'tributary_startup');
  const blobDir = await mkdtemp(join(tmpdir(), 'tributary-startup-distributed-'));
  const children: Child[] = [];
  try {
    const env = fleetEnv(throwaway.url, blobDir);
    const all = launches(env, env);
    // The untimed start migrates the empty database, so that every counted start finds it migrated, as in a fleet.
    const warmUp = await startOnce(all[0]!);
    log(`  startup (distributed): warm-up (not counted, migrates the database), ${all[0]!.process} ${describe(warmUp)}`);
    // The gateway's subgraphs: four processes running through every round.
    const fleet = await startFleet(env, [], children);
    const gatewayEnv: NodeJS.ProcessEnv = { ...env, GATEWAY_MODE: 'distributed' };
    for (const name of SUBGRAPH_NAMES) gatewayEnv[`SUBGRAPH_${name.toUpperCase()}_URL`] = fleet.subgraphUrls[name];
    const measured = launches(env, gatewayEnv);
    const results = new Map<DistributedProcess, StartupRun[]>(measured.map((launch) => [launch.process, []]));
    for (let run = 0; run < runs; run++) {
      for (const launch of measured) results.get(launch.process)!.push(await startOnce(launch));
      log(
        `  startup (distributed): run ${run + 1}: ${measured.map((launch) => `${launch.process} ${describe(results.get(launch.process)!.at(-1)!)}`).join('; ')}`,
      );
    }
    const processes = measured.map((launch): DistributedStartupSeries => {
      const figures = series(results.get(launch.process)!);
      return {
        process: launch.process,
        command: `node ${launch.args.join(' ')}`,
        ...figures,
        pass: figures.medianMs <= DISTRIBUTED_TARGET_MS,
      };
    });
    return { cpus: cpus().length, processes, warmUp, pass: processes.every((entry) => entry.pass) };
  } finally {
    for (const child of children.reverse()) await child.stop();
    await throwaway.drop();
    await rm(blobDir, { recursive: true, force: true });
  }
}

export function printDistributedStartup(report: DistributedStartupReport | undefined): void {
  if (!report) return;
  if ('skipped' in report) {
    console.log(`\nStart-up of the distributed processes: skipped (${report.skipped})`);
    return;
  }
  console.log(
    `\nStart-up of the distributed processes on PostgreSQL: each package.json script's process (without npm) from spawn until it ` +
      `can serve (/ready 200 UP on every listener; gRPC SERVING); ${report.processes[0]?.runs.length ?? 0} runs each, ${report.cpus} cores`,
  );
  console.log(
    `${'process'.padEnd(18)} ${'median ms'.padStart(9)} ${'max ms'.padStart(7)} ${'min ms'.padStart(7)} ${'listening ms'.padStart(12)} ` +
      `${'CPU ms'.padStart(7)} ${'peak RSS MiB'.padStart(12)} ${'load 1m'.padStart(11)} ${'target ms'.padStart(9)} verdict`,
  );
  for (const s of report.processes) {
    const loads = s.runs.map((run) => run.loadAverage1m);
    console.log(
      `${s.process.padEnd(18)} ${fixed(s.medianMs).padStart(9)} ${fixed(s.maxMs).padStart(7)} ${fixed(s.minMs).padStart(7)} ` +
        `${fixed(s.medianListeningMs).padStart(12)} ${fixed(s.medianCpuMs).padStart(7)} ${fixed(s.maxPeakRssMiB).padStart(12)} ` +
        `${`${fixed(Math.min(...loads), 2)}–${fixed(Math.max(...loads), 2)}`.padStart(11)} ${`≤ ${DISTRIBUTED_TARGET_MS}`.padStart(9)} ${s.pass ? 'PASS' : 'MISS'}`,
    );
  }
  console.log(
    `  (commands: ${[...new Set(report.processes.map((s) => s.command.replace(/ (users|comments|accounts|media)$/, ' <name>')))].join('; ')})`,
  );
}
