/**
 * The start-up section of `npm run bench` (issue 13): `npm start` — the command a newcomer types, npm and its `prestart`
 * build check included — on the embedded database, timed from the spawn until every port answers: /health on the
 * gateway and on both REST listeners, and grpc.health.v1 Check on the gRPC port. A fresh ./data (a new directory each
 * run) and an existing one (the directory the fresh run left), several runs each; the median is what counts, against the
 * targets (≤ 3 s fresh, ≤ 2 s existing).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createUserExampleGrpcClient } from '../test/support/grpc-user-client.ts';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const BUILD = fileURLToPath(new URL('../bin/build.mjs', import.meta.url));

export const STARTUP_TARGETS = { freshMs: 3000, existingMs: 2000 } as const;

export interface StartupReport {
  /** Milliseconds from spawning `npm start` to every port answering, one entry per run. */
  freshMs: number[];
  existingMs: number[];
  freshMedianMs: number;
  existingMedianMs: number;
  freshPass: boolean;
  existingPass: boolean;
}

interface Listening {
  graphql: string;
  rest: string;
  restParent: string;
  grpc: string;
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** One `npm start` on `dataDir`: ms until every port answers; the process is stopped (SIGTERM) before this returns. */
async function startOnce(dataDir: string): Promise<number> {
  // On the embedded database whatever the bench itself runs on.
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  const started = performance.now();
  const child = spawn('npm', ['start', '--silent'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
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
    },
    // Its own process group, so that SIGTERM reaches npm's shell and the server alike.
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const listening = await new Promise<Listening>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('npm start did not log "listening" within 60 s')), 60_000);
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
      void exited.then(() => reject(new Error('npm start exited before it listened')));
    });
    const gatewayHealth = new URL('/health', listening.graphql).toString();
    const grpcClient = createUserExampleGrpcClient(listening.grpc);
    try {
      for (;;) {
        const ready = await Promise.all([
          answers(gatewayHealth),
          answers(`${listening.rest}/health`),
          answers(`${listening.restParent}/health`),
          grpcClient.health().then((status) => status === 'SERVING', () => false),
        ]);
        if (ready.every(Boolean)) return performance.now() - started;
        if (performance.now() - started > 60_000) throw new Error(`not every port answered within 60 s: ${JSON.stringify(ready)}`);
        await sleep(10);
      }
    } finally {
      grpcClient.close();
    }
  } finally {
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
    // The data directory's lock file goes with the server; give the group a moment to finish.
    await sleep(300);
  }
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function runStartup(runs: number, log: (line: string) => void = console.log): Promise<StartupReport> {
  // The build `npm start` would make if the sources changed: made now, so that no run includes it.
  execFileSync(process.execPath, [BUILD, '--if-stale'], { cwd: REPO_ROOT, stdio: 'inherit' });
  const freshMs: number[] = [];
  const existingMs: number[] = [];
  const root = await mkdtemp(join(tmpdir(), 'tributary-startup-'));
  try {
    for (let run = 0; run < runs; run++) {
      const dataDir = join(root, `data-${run}`);
      freshMs.push(await startOnce(dataDir));
      existingMs.push(await startOnce(dataDir));
      log(`  startup: run ${run + 1}: fresh ./data ${freshMs.at(-1)!.toFixed(0)} ms, existing ./data ${existingMs.at(-1)!.toFixed(0)} ms`);
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  const freshMedianMs = median(freshMs);
  const existingMedianMs = median(existingMs);
  return {
    freshMs,
    existingMs,
    freshMedianMs,
    existingMedianMs,
    freshPass: freshMedianMs <= STARTUP_TARGETS.freshMs,
    existingPass: existingMedianMs <= STARTUP_TARGETS.existingMs,
  };
}

export function printStartup(report: StartupReport | undefined): void {
  if (!report) return;
  console.log('\nStart-up: `npm start` (PGlite) until every port answers (median of runs)');
  console.log(
    `  fresh ./data     ${report.freshMedianMs.toFixed(0).padStart(5)} ms (target ≤ ${STARTUP_TARGETS.freshMs}) ${report.freshPass ? 'PASS' : 'MISS'}   runs: ${report.freshMs.map((ms) => ms.toFixed(0)).join(', ')}`,
  );
  console.log(
    `  existing ./data  ${report.existingMedianMs.toFixed(0).padStart(5)} ms (target ≤ ${STARTUP_TARGETS.existingMs}) ${report.existingPass ? 'PASS' : 'MISS'}   runs: ${report.existingMs.map((ms) => ms.toFixed(0)).join(', ')}`,
  );
}
