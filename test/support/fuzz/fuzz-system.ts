import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { HostReply, HostRequest, SystemInfo, Topology } from './fuzz-system-protocol.ts';

/**
 * The test runner's side of a system under fuzz: forks fuzz-system-host.ts, has it start a system, asks it for table
 * digests, and watches it die. When a request kills it, `death()` says how (exit code, signal, the last lines it wrote)
 * and the next case gets a fresh system in a fresh process (`ensureRunning`), so one crash is reported as a failure of
 * the property that caused it rather than the end of the door's run. A system that stops answering is killed and
 * replaced the same way.
 *
 * A door file that ends stops its system (its database dropped) and leaves the process, its modules loaded, to the next
 * door file of the same worker, which starts its own system there: a fresh database, seed and servers, as before, without
 * loading Apollo, the subgraphs and PGlite again (several seconds of CPU per door and database). Files run one at a time
 * in a worker, so a process serves one door at a time, and whatever goes wrong in it — a crash, a hang — happens during
 * that door's own cases. A process is reused only under the environment it was forked with.
 */

export interface ProcessDeath {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines the process wrote to stderr (an uncaught exception's stack is there). */
  stderr: string;
}

export interface FuzzSystem {
  /** The running incarnation's addresses, tokens and ids; they change when the system is restarted. */
  readonly info: SystemInfo;
  /** 1 for the first process, one more for every replacement. */
  readonly generation: number;
  /** How the current process ended, or undefined while it runs. */
  death(): ProcessDeath | undefined;
  /** Waits up to `ms` for the process to end (a dropped connection is often the process dying); true if it did. */
  diesWithin(ms: number): Promise<boolean>;
  /** A position in the process's output, to read what it logged during one case (`logsSince`). */
  logMark(): number;
  logsSince(mark: number): string[];
  /** md5 and row count of every table, by `schema.table`. */
  digest(): Promise<Record<string, string>>;
  /** The rows of `table` (schema.table) whose `column`, compared as text, is `value`. */
  rows(table: string, column: string, value: string): Promise<Record<string, unknown>[]>;
  /** Starts a replacement when the process has died (or was killed). */
  ensureRunning(): Promise<void>;
  /** Kills the process (it hangs, or answers no more) and starts a replacement. */
  recycle(reason: string): Promise<void>;
  close(): Promise<void>;
}

export interface FuzzSystemOptions {
  topology?: Topology;
  /** Configuration on top of test-system.ts's (limits, rate limits…). */
  env?: Record<string, string>;
  startTimeoutMs?: number;
}

const HOST = fileURLToPath(new URL('./fuzz-system-host.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const LOG_LINES_KEPT = 400;
const DIGEST_TIMEOUT_MS = 30_000;
/** How long a system may take to close before its process is killed instead of kept for the next door. */
const STOP_TIMEOUT_MS = 15_000;

/**
 * Rate limits and sweeps out of the way: a fuzz run sends thousands of requests with the same few tokens, and a run
 * where every reply is "rate limited" tests nothing; the sweeper would change tables between two digests.
 */
const FUZZ_ENV: Record<string, string> = {
  LOG_LEVEL: 'error',
  SOCIAL_RATE_APP_CALLS_PER_HOUR: '1000000000',
  SOCIAL_RATE_USER_CALLS_PER_HOUR: '1000000000',
  SOCIAL_RATE_PAGE_CALLS_PER_HOUR: '1000000000',
  SOCIAL_RATE_BUSINESS_CALLS_PER_DAY: '1000000000',
  MEDIA_RATE_UPLOADS_PER_WINDOW: '1000000000',
  MEDIA_SWEEP_INTERVAL_SECS: '86400',
  // The system's own bounds on a request that stalls (headers, body, silence) sit below the suite's hang bound (10 s),
  // so that such a request is the server's to answer — 408 in the door's format — and the oracles check that it does,
  // instead of the suite's clock running out first (a client that promises a body and never sends it is owed a 408).
  HTTP_HEADERS_TIMEOUT_MS: '3000',
  HTTP_REQUEST_TIMEOUT_MS: '5000',
  HTTP_SOCKET_IDLE_TIMEOUT_MS: '8000',
  // A door's system is closed when the door ends and its process starts the next door's: connections a hostile case left
  // open hold that close no longer than this (graceful shutdown is not under fuzz; test/e2e covers it).
  SHUTDOWN_GRACE_MS: '1000',
};

type Waiter = { resolve(reply: HostReply): void; reject(error: Error): void };

/** One forked fuzz-system-host.ts. */
interface HostProcess {
  child: ChildProcess;
  /** The environment it was forked with: it serves only a runner whose environment is the same. */
  key: string;
  death: ProcessDeath | undefined;
  exited: Promise<void>;
  /** Its last stderr lines since its current system started (a crash's stack is there). */
  stderrTail: string[];
  /** Where its output goes: the log of the FuzzSystem it serves. */
  onLine: (line: string) => void;
  pending: Map<number, Waiter>;
  nextId: number;
}

/** The worker's process left by the last door file, waiting for the next one. */
let idleHost: HostProcess | undefined;

/** The runner's environment as a forked process inherits it, apart from vitest's own (which names the file or worker). */
function hostKey(): string {
  return JSON.stringify(
    Object.entries(process.env)
      .filter(([name]) => !name.startsWith('VITEST'))
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

async function forkHost(startTimeoutMs: number): Promise<HostProcess> {
  const child = fork(HOST, [], {
    cwd: REPO_ROOT,
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, APOLLO_TELEMETRY_DISABLED: '1' },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'advanced',
  });
  const host: HostProcess = {
    child,
    key: hostKey(),
    death: undefined,
    exited: Promise.resolve(),
    stderrTail: [],
    onLine: () => undefined,
    pending: new Map(),
    nextId: 1,
  };
  // An IPC channel that breaks when the process dies reports here; the death itself is seen through 'exit'.
  child.on('error', () => undefined);
  const reader = (stream: NodeJS.ReadableStream | null, tail: boolean) => {
    let buffered = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        host.onLine(line);
        if (tail) {
          host.stderrTail.push(line);
          if (host.stderrTail.length > 60) host.stderrTail.shift();
        }
      }
    });
  };
  reader(child.stdout, false);
  reader(child.stderr, true);
  host.exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      host.death = { code, signal, stderr: host.stderrTail.join('\n') };
      for (const [id, waiter] of host.pending) {
        host.pending.delete(id);
        waiter.reject(new Error(`the system process ended (code ${code}, signal ${signal})`));
      }
      resolve();
    });
  });
  const loaded = new Promise<void>((resolve, reject) => {
    // bound: a process that has not loaded by then is killed and the start fails
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the fuzz system process did not load within ${startTimeoutMs} ms:\n${host.stderrTail.join('\n')}`));
    }, startTimeoutMs);
    void host.exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the fuzz system process exited before it loaded (${host.death?.code}):\n${host.stderrTail.join('\n')}`));
    });
    child.on('message', (message: HostReply) => {
      if (message.type === 'loaded') {
        clearTimeout(timer);
        resolve();
        return;
      }
      const waiter = host.pending.get(message.id);
      if (!waiter) return;
      host.pending.delete(message.id);
      waiter.resolve(message);
    });
  });
  await loaded;
  return host;
}

function ask(
  host: HostProcess,
  request: HostRequest extends infer R ? (R extends HostRequest ? Omit<R, 'id'> : never) : never,
  timeoutMs: number,
): Promise<HostReply> {
  if (host.death) return Promise.reject(new Error('the system process is not running'));
  const id = host.nextId++;
  return new Promise((resolve, reject) => {
    // bound: a request the process has not answered by then fails
    const timer = setTimeout(() => {
      host.pending.delete(id);
      reject(new Error(`the system process did not answer ${request.type} within ${timeoutMs} ms`));
    }, timeoutMs);
    host.pending.set(id, {
      resolve: (reply) => {
        clearTimeout(timer);
        resolve(reply);
      },
      reject: (error) => {
        clearTimeout(timer);
        reject(error);
      },
    });
    // A process that has just died cannot be written to: its 'exit' rejects the waiter, and the failed write must not
    // become an uncaught error in the test runner.
    if (!host.child.connected) {
      host.pending.delete(id);
      clearTimeout(timer);
      reject(new Error('the system process is not running'));
      return;
    }
    host.child.send({ ...request, id } as HostRequest, (error) => {
      if (!error) return;
      const waiter = host.pending.get(id);
      host.pending.delete(id);
      waiter?.reject(new Error(`the system process cannot be reached: ${error.message}`));
    });
  });
}

async function killHost(host: HostProcess): Promise<void> {
  if (!host.death) {
    host.child.kill('SIGKILL');
    await host.exited;
  }
}

/** The worker's waiting process when it was forked under this environment and still runs; otherwise a new one. */
async function takeHost(startTimeoutMs: number, reuse: boolean): Promise<HostProcess> {
  const waiting = idleHost;
  idleHost = undefined;
  if (waiting && reuse && !waiting.death && waiting.key === hostKey()) {
    waiting.child.ref();
    waiting.child.channel?.ref();
    return waiting;
  }
  if (waiting) await killHost(waiting);
  return forkHost(startTimeoutMs);
}

/** Keeps a process whose system has stopped for the worker's next door file (one at most; a second is killed). */
function keepHost(host: HostProcess): void {
  if (host.death) return;
  if (idleHost) void killHost(idleHost);
  host.onLine = () => undefined;
  // A waiting process must not keep the worker alive: it ends by itself when the worker does (IPC disconnect).
  host.child.unref();
  host.child.channel?.unref();
  idleHost = host;
}

interface Incarnation {
  host: HostProcess;
  /** The blob store's directory (MEDIA_BLOB_DIR), made here so that it can be read between requests and removed after. */
  blobDir: string;
  info: SystemInfo;
}

export async function startFuzzSystem(options: FuzzSystemOptions = {}): Promise<FuzzSystem> {
  const topology = options.topology ?? 'embedded';
  const startTimeoutMs = options.startTimeoutMs ?? 120_000;
  const logs: string[] = [];
  let logCount = 0;
  let generation = 0;
  let current: Incarnation | undefined;
  let closed = false;

  function keepLog(line: string): void {
    logs.push(line);
    logCount++;
    if (logs.length > LOG_LINES_KEPT) logs.shift();
  }

  /** A system in the worker's waiting process, or in a new one (`fresh`: after a crash or a hang, always a new one). */
  async function spawnOne(fresh: boolean): Promise<Incarnation> {
    const host = await takeHost(startTimeoutMs, !fresh);
    host.onLine = keepLog;
    host.stderrTail.length = 0;
    const blobDir = mkdtempSync(join(tmpdir(), 'tributary-fuzz-blobs-'));
    try {
      const reply = await ask(
        host,
        { type: 'start', topology, env: { ...FUZZ_ENV, MEDIA_BLOB_DIR: blobDir, ...options.env } },
        startTimeoutMs,
      );
      if (reply.type === 'failed') throw new Error(`the fuzz system did not start: ${reply.message}`);
      if (reply.type !== 'started') throw new Error(`unexpected reply ${reply.type}`);
      generation++;
      return { host, blobDir, info: reply.info };
    } catch (error) {
      await killHost(host);
      rmSync(blobDir, { recursive: true, force: true });
      if (!fresh) return spawnOne(true);
      throw new Error(`${(error as Error).message}\n${host.stderrTail.join('\n')}`, { cause: error });
    }
  }

  /** A process that died (or was killed) cannot drop its throwaway database: do it here. */
  async function dropOrphanDatabase(info: SystemInfo): Promise<void> {
    const serverUrl = process.env.DATABASE_URL;
    if (!info.databaseUrl || !serverUrl) return;
    const name = new URL(info.databaseUrl).pathname.slice(1);
    if (!/^[a-z0-9_]+$/.test(name)) return;
    const client = new pg.Client({ connectionString: serverUrl });
    try {
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
    } catch {
      // Best effort: a leftover throwaway database costs disk, not correctness.
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async function kill(incarnation: Incarnation): Promise<void> {
    await killHost(incarnation.host);
    rmSync(incarnation.blobDir, { recursive: true, force: true });
    await dropOrphanDatabase(incarnation.info);
  }

  /** The system closed in its process, which waits for the next door file; killed when that fails. */
  async function stop(incarnation: Incarnation): Promise<void> {
    const reply = await ask(incarnation.host, { type: 'stop' }, STOP_TIMEOUT_MS).catch(() => undefined);
    if (reply?.type !== 'stopped') return kill(incarnation);
    rmSync(incarnation.blobDir, { recursive: true, force: true });
    keepHost(incarnation.host);
  }

  /** The stored blobs (not the staging directory of uploads in progress), as one more "table" of the digest. */
  function blobDigest(dir: string): string {
    const files: string[] = [];
    for (const shard of readdirSync(dir)) {
      if (shard === 'tmp') continue;
      for (const name of readdirSync(join(dir, shard))) files.push(`${shard}/${name}`);
    }
    return `${files.length}:${createHash('md5').update(files.sort().join('\n')).digest('hex')}`;
  }

  function running(): Incarnation {
    if (!current) throw new Error('the system process is not running');
    return current;
  }

  current = await spawnOne(false);

  const system: FuzzSystem = {
    get info() {
      return running().info;
    },
    get generation() {
      return generation;
    },
    death: () => current?.host.death,
    async diesWithin(ms) {
      const incarnation = current;
      if (!incarnation) return false;
      if (incarnation.host.death) return true;
      let timer: NodeJS.Timeout | undefined;
      // bound: the wait for the process's exit ends here; one still running is judged by the digest and the probes that follow
      const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
      const died = await Promise.race([incarnation.host.exited.then(() => true as const), timeout]);
      clearTimeout(timer);
      return died;
    },
    logMark: () => logCount,
    logsSince: (mark) => logs.slice(Math.max(0, logs.length - (logCount - mark))),
    async digest() {
      const incarnation = running();
      const reply = await ask(incarnation.host, { type: 'digest' }, DIGEST_TIMEOUT_MS);
      if (reply.type === 'failed') throw new Error(`digest failed in the system process: ${reply.message}`);
      if (reply.type !== 'digest') throw new Error(`unexpected reply ${reply.type}`);
      return { ...reply.tables, 'blob store files': blobDigest(incarnation.blobDir) };
    },
    async rows(table, column, value) {
      const reply = await ask(running().host, { type: 'rows', table, column, value }, DIGEST_TIMEOUT_MS);
      if (reply.type === 'failed') throw new Error(`reading ${table} failed in the system process: ${reply.message}`);
      if (reply.type !== 'rows') throw new Error(`unexpected reply ${reply.type}`);
      return reply.rows;
    },
    async ensureRunning() {
      if (closed) throw new Error('the fuzz system is closed');
      if (current && !current.host.death) return;
      if (current) await kill(current);
      current = undefined;
      current = await spawnOne(true);
    },
    async recycle(reason) {
      keepLog(`[fuzz harness] replacing the system process: ${reason}`);
      if (current) await kill(current);
      current = undefined;
      current = await spawnOne(true);
    },
    async close() {
      if (closed) return;
      closed = true;
      const incarnation = current;
      current = undefined;
      if (incarnation) await stop(incarnation);
    },
  };
  return system;
}
