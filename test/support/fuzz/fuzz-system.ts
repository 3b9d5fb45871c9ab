import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { HostReply, HostRequest, SystemInfo, Topology } from './fuzz-system-protocol.ts';

/**
 * The test runner's side of a system under fuzz: forks fuzz-system-host.ts, waits for it to listen, asks it for table
 * digests, and watches it die. When a request kills it, `death()` says how (exit code, signal, the last lines it wrote)
 * and the next case gets a fresh system (`ensureRunning`), so one crash is reported as a failure of the property that
 * caused it rather than the end of the door's run. A system that stops answering is killed and replaced the same way.
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
};

interface Incarnation {
  child: ChildProcess;
  /** The blob store's directory (MEDIA_BLOB_DIR), made here so that it can be read between requests and removed after. */
  blobDir: string;
  info: SystemInfo;
  death: ProcessDeath | undefined;
  exited: Promise<void>;
}

export async function startFuzzSystem(options: FuzzSystemOptions = {}): Promise<FuzzSystem> {
  const topology = options.topology ?? 'embedded';
  const startTimeoutMs = options.startTimeoutMs ?? 120_000;
  const logs: string[] = [];
  let logCount = 0;
  let nextId = 1;
  const pending = new Map<number, { resolve(reply: HostReply): void; reject(error: Error): void }>();
  let generation = 0;
  let current: Incarnation | undefined;
  let closed = false;

  function keepLog(line: string): void {
    logs.push(line);
    logCount++;
    if (logs.length > LOG_LINES_KEPT) logs.shift();
  }

  async function spawnOne(): Promise<Incarnation> {
    const blobDir = mkdtempSync(join(tmpdir(), 'tributary-fuzz-blobs-'));
    const child = fork(HOST, [], {
      cwd: REPO_ROOT,
      execArgv: ['--import', 'tsx'],
      env: {
        ...process.env,
        APOLLO_TELEMETRY_DISABLED: '1',
        FUZZ_TOPOLOGY: topology,
        FUZZ_SYSTEM_ENV: JSON.stringify({ ...FUZZ_ENV, MEDIA_BLOB_DIR: blobDir, ...options.env }),
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    const stderrTail: string[] = [];
    // An IPC channel that breaks when the process dies reports here; the death itself is seen through 'exit'.
    child.on('error', () => undefined);
    const reader = (stream: NodeJS.ReadableStream | null, tail?: string[]) => {
      let buffered = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        buffered += chunk;
        let newline: number;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          keepLog(line);
          if (tail) {
            tail.push(line);
            if (tail.length > 60) tail.shift();
          }
        }
      });
    };
    reader(child.stdout);
    reader(child.stderr, stderrTail);
    const incarnation: Incarnation = { child, blobDir, info: undefined as unknown as SystemInfo, death: undefined, exited: Promise.resolve() };
    incarnation.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        incarnation.death = { code, signal, stderr: stderrTail.join('\n') };
        for (const [id, waiter] of pending) {
          pending.delete(id);
          waiter.reject(new Error(`the system process ended (code ${code}, signal ${signal})`));
        }
        resolve();
      });
    });
    child.on('message', (message: HostReply) => {
      if (message.type === 'ready') return;
      const waiter = pending.get(message.id);
      if (!waiter) return;
      pending.delete(message.id);
      waiter.resolve(message);
    });
    incarnation.info = await new Promise<SystemInfo>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the fuzz system did not start within ${startTimeoutMs} ms:\n${stderrTail.join('\n')}`));
      }, startTimeoutMs);
      child.on('message', (message: HostReply) => {
        if (message.type !== 'ready') return;
        clearTimeout(timer);
        resolve(message.info);
      });
      void incarnation.exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`the fuzz system exited before it was ready (${incarnation.death?.code}):\n${stderrTail.join('\n')}`));
      });
    });
    generation++;
    return incarnation;
  }

  function ask(request: HostRequest extends infer R ? (R extends HostRequest ? Omit<R, 'id'> : never) : never, timeoutMs: number): Promise<HostReply> {
    const incarnation = current;
    if (!incarnation || incarnation.death) return Promise.reject(new Error('the system process is not running'));
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`the system process did not answer ${request.type} within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, {
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
      if (!incarnation.child.connected) {
        pending.delete(id);
        clearTimeout(timer);
        reject(new Error('the system process is not running'));
        return;
      }
      incarnation.child.send({ ...request, id } as HostRequest, (error) => {
        if (!error) return;
        const waiter = pending.get(id);
        pending.delete(id);
        waiter?.reject(new Error(`the system process cannot be reached: ${error.message}`));
      });
    });
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
    if (!incarnation.death) {
      incarnation.child.kill('SIGKILL');
      await incarnation.exited;
    }
    rmSync(incarnation.blobDir, { recursive: true, force: true });
    if (incarnation.info) await dropOrphanDatabase(incarnation.info);
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

  current = await spawnOne();

  const system: FuzzSystem = {
    get info() {
      return current!.info;
    },
    get generation() {
      return generation;
    },
    death: () => current?.death,
    async diesWithin(ms) {
      const incarnation = current;
      if (!incarnation) return false;
      if (incarnation.death) return true;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
      const died = await Promise.race([incarnation.exited.then(() => true as const), timeout]);
      clearTimeout(timer);
      return died;
    },
    logMark: () => logCount,
    logsSince: (mark) => logs.slice(Math.max(0, logs.length - (logCount - mark))),
    async digest() {
      const reply = await ask({ type: 'digest' }, DIGEST_TIMEOUT_MS);
      if (reply.type === 'failed') throw new Error(`digest failed in the system process: ${reply.message}`);
      if (reply.type !== 'digest') throw new Error(`unexpected reply ${reply.type}`);
      return { ...reply.tables, 'blob store files': blobDigest(current!.blobDir) };
    },
    async rows(table, column, value) {
      const reply = await ask({ type: 'rows', table, column, value }, DIGEST_TIMEOUT_MS);
      if (reply.type === 'failed') throw new Error(`reading ${table} failed in the system process: ${reply.message}`);
      if (reply.type !== 'rows') throw new Error(`unexpected reply ${reply.type}`);
      return reply.rows;
    },
    async ensureRunning() {
      if (closed) throw new Error('the fuzz system is closed');
      if (current && !current.death) return;
      if (current) await kill(current);
      current = await spawnOne();
    },
    async recycle(reason) {
      keepLog(`[fuzz harness] replacing the system process: ${reason}`);
      if (current) await kill(current);
      current = await spawnOne();
    },
    async close() {
      if (closed) return;
      closed = true;
      // Killed rather than shut down: its graceful shutdown is not under test here (test/e2e covers it), and waiting for
      // it to drain every connection a fuzz run left behind would cost the short run seconds per door.
      if (current) await kill(current);
    },
  };
  return system;
}
