/**
 * The start-up section of `npm run bench` (issues 13 and 29): how long a newcomer waits for `npm start` on the embedded
 * database. The process measured is the one package.json's `start` script runs (`node --max-semi-space-size=64
 * dist/bin/start.js`, its flags read from package.json), spawned directly so that npm's own overhead does not blur it; it
 * is ready when every listener answers its readiness endpoint — /ready with 200 on the gateway and on both REST listeners,
 * grpc.health.v1 Check SERVING on the gRPC port — found from the "listening" line it logs once it listens. Each run: a
 * fresh, empty data directory (the first start: PGlite unpacked from the build's template, migrations checked), then
 * the same directory again (an existing ./data), `--startup-runs` times; median and max, against issue 38's targets
 * (≤ 2 s fresh, ≤ 1.5 s existing; issue 13's were 3 s and 2 s). For each run also: the 1-minute load average when it began (the machine may be shared), the
 * process's CPU time and peak RSS when it became ready. Then `npm start` itself once on each, npm and its `prestart`
 * build check included: the figure a newcomer sees.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createUserExampleGrpcClient } from '../test/support/grpc-user-client.ts';
import type { DistributedStartupReport } from './startup-distributed.ts';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const BUILD = fileURLToPath(new URL('../bin/build.mjs', import.meta.url));
const DEADLINE_MS = 60_000;

export const STARTUP_TARGETS = { freshMs: 2000, existingMs: 1500 } as const;

/** One start, measured from the spawn. */
export interface StartupRun {
  /** Milliseconds until every listener answered ready. */
  readyMs: number;
  /** Milliseconds until the process logged "listening" (its servers bound; readiness then checked by the bench). */
  listeningMs: number;
  /** The 1-minute load average when the run began. */
  loadAverage1m: number;
  /** CPU time (user + system, every thread) of the server process when it was ready; absent where /proc is not. */
  cpuMs?: number;
  /** Peak resident set size (VmHWM) of the server process when it was ready, MiB; absent where /proc is not. */
  peakRssMiB?: number;
}

export interface StartupSeries {
  runs: StartupRun[];
  medianMs: number;
  maxMs: number;
  minMs: number;
  medianListeningMs: number;
  medianCpuMs: number | undefined;
  maxPeakRssMiB: number | undefined;
}

export interface StartupReport {
  /** The command measured (package.json's start script). */
  command: string;
  cpus: number;
  fresh: StartupSeries;
  existing: StartupSeries;
  /** `npm start` through npm (its `prestart` build check included), once on a fresh and once on that directory again. */
  npm: { fresh: StartupRun; existing: StartupRun };
  /** The first start after the build, on a fresh directory (page cache cold for the template); not in the series. */
  warmUp: StartupRun;
  freshPass: boolean;
  existingPass: boolean;
  /** Each process of the distributed topology, on PostgreSQL (startup-distributed.ts). */
  distributed?: DistributedStartupReport;
}

interface Listening {
  graphql: string;
  rest: string;
  restParent: string;
  grpc: string;
}

/** How a start is spawned: the start script's own command line, or npm. */
type Launcher = { kind: 'node'; args: string[] } | { kind: 'npm' };

/** A package.json script (`node <flags> dist/bin/<script>.js`; `start` by default) as arguments to this Node. */
export function startScriptArgs(name = 'start'): string[] {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const [command, ...args] = (pkg.scripts[name] ?? '').trim().split(/\s+/);
  if (command !== 'node' || args.length === 0) throw new Error(`the ${name} script is not "node …": ${pkg.scripts[name]}`);
  return args;
}

/** Whether `url` (a /ready endpoint) answers 200 within 2 s. */
export async function ready(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

const CLOCK_TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU ms and peak RSS (MiB) of a live process, from /proc (Linux); undefined elsewhere. */
export function processFigures(pid: number): { cpuMs?: number; peakRssMiB?: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) in parentheses: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return { cpuMs: (ticks * 1000) / CLOCK_TICKS_PER_SECOND, ...(hwm && { peakRssMiB: Number(hwm[1]) / 1024 }) };
  } catch {
    return {};
  }
}

/** One start on `dataDir`, timed until every listener answers ready; the process is stopped (SIGTERM) before this returns. */
async function startOnce(dataDir: string, launcher: Launcher): Promise<StartupRun> {
  // On the embedded database whatever the bench itself runs on.
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  const env = {
    ...inherited,
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PUBLIC_HOST: '127.0.0.1',
    GATEWAY_PORT: '0',
    REST_PORT: '0',
    SOCIAL_PARENT_PORT: '0',
    GRPC_PORT: '0',
  };
  const loadAverage1m = loadavg()[0]!;
  const started = performance.now();
  const child =
    launcher.kind === 'node'
      ? spawn(process.execPath, launcher.args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'], env })
      : // Its own process group, so that SIGTERM reaches npm's shell and the server alike.
        spawn('npm', ['start', '--silent'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'], env, detached: true });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const listening = await new Promise<Listening>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the server did not log "listening" within ${DEADLINE_MS / 1000} s`)), DEADLINE_MS);
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (!line.startsWith('{')) return;
        try {
          const entry = JSON.parse(line) as Partial<Listening> & { msg?: string };
          if (entry.msg === 'listening' && entry.graphql && entry.rest && entry.restParent && entry.grpc) {
            clearTimeout(timer);
            resolve(entry as Listening);
          }
        } catch {
          // not a log line
        }
      });
      void exited.then(() => reject(new Error('the server exited before it listened')));
    });
    const listeningMs = performance.now() - started;
    const probes = [new URL('/ready', listening.graphql), new URL('/ready', listening.rest), new URL('/ready', listening.restParent)].map(
      String,
    );
    const grpcClient = createUserExampleGrpcClient(listening.grpc);
    try {
      for (;;) {
        const answers = await Promise.all([
          ...probes.map(ready),
          grpcClient.health().then(
            (status) => status === 'SERVING',
            () => false,
          ),
        ]);
        if (answers.every(Boolean)) {
          const readyMs = performance.now() - started;
          // npm's child is a grandchild: its figures are not read (npm's run is for the time alone).
          const figures = launcher.kind === 'node' ? processFigures(child.pid!) : {};
          return { readyMs, listeningMs, loadAverage1m, ...figures };
        }
        if (performance.now() - started > DEADLINE_MS)
          throw new Error(`not every listener was ready within ${DEADLINE_MS / 1000} s: ${JSON.stringify(answers)}`);
        await sleep(10);
      }
    } finally {
      grpcClient.close();
    }
  } finally {
    if (launcher.kind === 'npm') process.kill(-child.pid!, 'SIGTERM');
    else child.kill('SIGTERM');
    await exited;
    // The data directory's lock goes with the server; give npm's group a moment to finish.
    if (launcher.kind === 'npm') await sleep(300);
  }
}

const sorted = (values: readonly number[]) => [...values].sort((a, b) => a - b);
const median = (values: readonly number[]) => sorted(values)[Math.floor(values.length / 2)]!;

/** A series of starts: median, max and min of the ready times, and the medians of the other figures. */
export function series(runs: StartupRun[]): StartupSeries {
  const times = runs.map((run) => run.readyMs);
  const cpu = runs.flatMap((run) => (run.cpuMs === undefined ? [] : [run.cpuMs]));
  const rss = runs.flatMap((run) => (run.peakRssMiB === undefined ? [] : [run.peakRssMiB]));
  return {
    runs,
    medianMs: median(times),
    maxMs: Math.max(...times),
    minMs: Math.min(...times),
    medianListeningMs: median(runs.map((run) => run.listeningMs)),
    medianCpuMs: cpu.length > 0 ? median(cpu) : undefined,
    maxPeakRssMiB: rss.length > 0 ? Math.max(...rss) : undefined,
  };
}

export const describe = (run: StartupRun) =>
  `${run.readyMs.toFixed(0)} ms (listening ${run.listeningMs.toFixed(0)}${run.cpuMs === undefined ? '' : `, CPU ${run.cpuMs.toFixed(0)}`}` +
  `${run.peakRssMiB === undefined ? '' : `, peak RSS ${run.peakRssMiB.toFixed(0)} MiB`}, load ${run.loadAverage1m.toFixed(2)})`;

export async function runStartup(runs: number, log: (line: string) => void = console.log): Promise<StartupReport> {
  // The build `npm start` would make if the sources changed: made now, so that no run includes it.
  execFileSync(process.execPath, [BUILD, '--if-stale'], { cwd: REPO_ROOT, stdio: 'inherit' });
  const args = startScriptArgs();
  const node: Launcher = { kind: 'node', args };
  const fresh: StartupRun[] = [];
  const existing: StartupRun[] = [];
  const root = await mkdtemp(join(tmpdir(), 'tributary-startup-'));
  try {
    const warmUp = await startOnce(join(root, 'warm-up'), node);
    log(`  startup: warm-up (not counted), fresh ./data ${describe(warmUp)}`);
    for (let run = 0; run < runs; run++) {
      const dataDir = join(root, `data-${run}`);
      fresh.push(await startOnce(dataDir, node));
      existing.push(await startOnce(dataDir, node));
      log(`  startup: run ${run + 1}: fresh ./data ${describe(fresh.at(-1)!)}; existing ./data ${describe(existing.at(-1)!)}`);
    }
    const npmDir = join(root, 'npm');
    const npm = { fresh: await startOnce(npmDir, { kind: 'npm' }), existing: await startOnce(npmDir, { kind: 'npm' }) };
    log(`  startup: npm start: fresh ./data ${describe(npm.fresh)}; existing ./data ${describe(npm.existing)}`);
    const freshSeries = series(fresh);
    const existingSeries = series(existing);
    return {
      command: `node ${args.join(' ')}`,
      cpus: cpus().length,
      fresh: freshSeries,
      existing: existingSeries,
      npm,
      warmUp,
      freshPass: freshSeries.medianMs <= STARTUP_TARGETS.freshMs,
      existingPass: existingSeries.medianMs <= STARTUP_TARGETS.existingMs,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

export const fixed = (value: number | undefined, digits = 0) => (value === undefined ? '—' : value.toFixed(digits));

export function printStartup(report: StartupReport | undefined): void {
  if (!report) return;
  console.log(
    `\nStart-up on PGlite: \`${report.command}\` (npm start's process, without npm) from spawn until every listener is ready ` +
      `(/ready 200 ×3, gRPC SERVING); ${report.fresh.runs.length} runs each, ${report.cpus} cores`,
  );
  console.log(
    `${'./data'.padEnd(9)} ${'median ms'.padStart(9)} ${'max ms'.padStart(7)} ${'min ms'.padStart(7)} ${'listening ms'.padStart(12)} ` +
      `${'CPU ms'.padStart(7)} ${'peak RSS MiB'.padStart(12)} ${'load 1m'.padStart(11)} ${'target ms'.padStart(9)} verdict`,
  );
  const row = (name: string, s: StartupSeries, target: number, pass: boolean) => {
    const loads = s.runs.map((run) => run.loadAverage1m);
    console.log(
      `${name.padEnd(9)} ${fixed(s.medianMs).padStart(9)} ${fixed(s.maxMs).padStart(7)} ${fixed(s.minMs).padStart(7)} ${fixed(s.medianListeningMs).padStart(12)} ` +
        `${fixed(s.medianCpuMs).padStart(7)} ${fixed(s.maxPeakRssMiB).padStart(12)} ${`${fixed(Math.min(...loads), 2)}–${fixed(Math.max(...loads), 2)}`.padStart(11)} ` +
        `${`≤ ${target}`.padStart(9)} ${pass ? 'PASS' : 'MISS'}`,
    );
  };
  row('fresh', report.fresh, STARTUP_TARGETS.freshMs, report.freshPass);
  row('existing', report.existing, STARTUP_TARGETS.existingMs, report.existingPass);
  console.log(
    `  (median listening ms: the process's "listening" log line; CPU ms: its CPU time, every thread, when ready; peak RSS: VmHWM when ready)`,
  );
  console.log(
    `npm start (through npm, prestart check included, once): fresh ./data ${fixed(report.npm.fresh.readyMs)} ms, ` +
      `existing ./data ${fixed(report.npm.existing.readyMs)} ms (load ${fixed(report.npm.fresh.loadAverage1m, 2)}, ${fixed(report.npm.existing.loadAverage1m, 2)})`,
  );
  console.log(`first start after the build (warm-up, not counted): fresh ./data ${fixed(report.warmUp.readyMs)} ms`);
}
