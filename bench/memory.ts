/**
 * The memory section of `npm run bench` (issue "Hostile traffic", item 5): the embedded stack's resident memory at rest and
 * under a steady mixed load, on PGlite and (with DATABASE_URL) on PostgreSQL.
 *
 * For each database it seeds a fresh data directory (or a throwaway PostgreSQL database) in a process of its own
 * (bench/memory-seed.ts), then starts `bin/start.ts` — the serving process of `npm start` (`node --import tsx`, what the tsx
 * command runs in its child), with production settings and info-level logs — with bench/memory-probe.ts preloaded to read
 * the memory from inside. It samples the process right after start; at rest, 5 s after a warm-up that runs every
 * operation once; idle, once V8 has given back the start-up garbage; every few seconds during `durationS` of mixed load
 * at a fixed concurrency (Area A over REST, GraphQL and gRPC, reads and writes; social-graph reads with field expansion,
 * a comment's hide flag, GraphQL reads; small uploads; a sign-up now and then); at the end of the load, `afterS` after
 * it, and after a forced full GC. The check: RSS at the end of the load within ±10 % of RSS at rest. The next database's
 * server is prepared while the current one is under load. See bench/README.md, "Memory".
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { backendsCpuMs, processCpuMs, processRss } from './proc-stat.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../lib/database/throwaway-database.ts';
import { PROTO_LOADER_OPTIONS, USER_EXAMPLE_PROTO, USER_EXAMPLE_SERVICE_NAME } from '../subgraphs/users/grpc/user-example.proto-package.ts';
import { png } from '../test/support/image-fixtures.ts';
import { GET_QUERY } from './layers.ts';
import { machineTimes } from './load.ts';
import type { MemoryFixture } from './memory-seed.ts';
import type { MemorySample, ProbeReply, ProbeRequest } from './memory-probe.ts';
import { DEEP_FIELDS, DEEP_QUERY } from './social-deep-read.ts';
import { multipartBody } from './uploads.ts';
import { scriptNodeFlags } from './script-node-flags.ts';
import { formatTable } from './format-table.ts';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const PROBE = pathToFileURL(fileURLToPath(new URL('./memory-probe.ts', import.meta.url))).href;
const SEED = fileURLToPath(new URL('./memory-seed.ts', import.meta.url));
const START = fileURLToPath(new URL('../bin/start.ts', import.meta.url));

/** The issue's bound: RSS at the end of the load within ±10 % of RSS at rest. */
export const MEMORY_TOLERANCE = 0.1;

export interface MemoryOptions {
  /** Seconds of mixed load (the issue: 60). */
  durationS: number;
  /** Requests in flight, all the time. */
  connections: number;
  /** Seconds of quiet after the load before the "after" sample. */
  afterS: number;
  records: number;
  /** Which databases; postgres needs `databaseUrl`. */
  databases: readonly ('pglite' | 'postgres')[];
  databaseUrl: string | undefined;
  /** Extra flags for the server's node (e.g. --max-semi-space-size=4), to measure a proposed setting. */
  nodeOptions: readonly string[];
  /** Extra environment for the server (e.g. a product setting under trial). */
  serverEnv: Readonly<Record<string, string>>;
  /** PostgreSQL settings under trial on PGlite (e.g. shared_buffers), set in the data directory before the server starts. */
  pgliteSettings: Readonly<Record<string, string>>;
  /** Seconds between samples during the load. */
  sampleEveryS: number;
  /** A file to copy the server's output to (its logs; --trace-gc output when that flag is in nodeOptions). */
  serverLog?: string | undefined;
}

interface OperationCount {
  ok: number;
  failed: number;
  /** Mean latency of the successful requests, ms. */
  meanMs: number;
}

export interface MemoryReport {
  database: 'pglite' | 'postgres';
  nodeOptions: readonly string[];
  pgliteSettings: Readonly<Record<string, string>>;
  connections: number;
  durationS: number;
  started: MemorySample;
  /** 5 s after the warm-up: the reference of the check. */
  rest: MemorySample;
  /** Later, once V8 has given back the start-up garbage (see sampleWhenIdle); the load starts from here. */
  idle: MemorySample;
  end: MemorySample;
  after: MemorySample;
  afterGc: MemorySample;
  /** The kernel's peak RSS during the load (VmHWM, reset at its start), MiB. */
  peakRss: number;
  /** Samples during the load, seconds from its start, and how long the probe took to answer (a busy event loop delays it). */
  timeline: { t: number; sample: MemorySample; answeredInMs: number }[];
  requests: { ok: number; failed: number; perSecond: number; byOperation: Record<string, OperationCount>; firstFailure?: string };
  /** Lines the server logged at error level or above during the run (a failing door shows here). */
  serverErrors: number;
  /** end.rss / rest.rss, and whether it is within ±MEMORY_TOLERANCE. */
  ratio: number;
  verdict: 'PASS' | 'MISS';
  /** Cores used by the server process, by the PostgreSQL backends and by this load generator during the load. */
  cores: { server: number; database: number; client: number };
  /** CPU of the server process per successful request during the load, µs (what a memory setting costs). */
  serverCpuMicrosPerRequest: number;
  /** The server's garbage collection during the load: pause ms per second, and full GCs. */
  gc: { msPerSecond: number; majorGcs: number };
  /** Cores busy outside the server, its database backends and this process during the load: noise. */
  otherCores: number;
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** The server process (bin/start.ts with the probe) and its IPC channel. */
interface ServerProcess {
  pid: number;
  /** performance.now() when the process was spawned. */
  spawnedAt: number;
  urls: { graphql: string; rest: string; restParent: string; grpc: string };
  ask(type: ProbeRequest['type']): Promise<ProbeReply>;
  errorLines(): number;
  stop(): Promise<void>;
}

async function startServer(env: NodeJS.ProcessEnv, nodeOptions: readonly string[], logFile: string | undefined): Promise<ServerProcess> {
  const spawnedAt = performance.now();
  // npm start's own Node flags first, then the ones under trial (a later flag wins).
  const child: ChildProcess = spawn(
    process.execPath,
    [...scriptNodeFlags('start'), ...nodeOptions, '--import', 'tsx', '--import', PROBE, START],
    {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
      env,
    },
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const recent: string[] = [];
  let errors = 0;
  const lines = createInterface({ input: child.stdout! });
  if (logFile) child.stdout!.pipe(createWriteStream(logFile));
  const urls = new Promise<ServerProcess['urls']>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server did not log "listening" within 120 s')), 120_000);
    // Every line is read (a full pipe would block the server's synchronous log writes); the listening line gives the URLs.
    lines.on('line', (line) => {
      recent.push(line);
      if (recent.length > 20) recent.shift();
      if (!line.startsWith('{')) return;
      let entry: { msg?: string; level?: number; graphql?: string; rest?: string; restParent?: string; grpc?: string };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        return;
      }
      if ((entry.level ?? 0) >= 50) errors += 1;
      if (entry.msg === 'listening' && entry.graphql && entry.rest && entry.restParent && entry.grpc) {
        clearTimeout(timer);
        resolve({ graphql: entry.graphql, rest: entry.rest, restParent: entry.restParent, grpc: entry.grpc });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with code ${code} before it listened:\n${recent.join('\n')}`));
    });
  });
  let nextId = 0;
  const pending = new Map<number, (reply: ProbeReply) => void>();
  child.on('message', (reply: ProbeReply) => {
    pending.get(reply.id)?.(reply);
    pending.delete(reply.id);
  });
  try {
    return {
      pid: child.pid!,
      spawnedAt,
      urls: await urls,
      ask: (type) =>
        new Promise<ProbeReply>((resolve, reject) => {
          const id = ++nextId;
          pending.set(id, (reply) => (reply.error ? reject(new Error(`probe ${type}: ${reply.error}`)) : resolve(reply)));
          child.send({ id, type } satisfies ProbeRequest);
        }),
      errorLines: () => errors,
      stop: async () => {
        // SIGTERM: the product's own graceful shutdown (drain, close the database, release the data directory).
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
        await exited;
        clearTimeout(timer);
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

/** Runs the seeding step on the server's configuration and returns its fixture. */
export async function seed(env: NodeJS.ProcessEnv): Promise<MemoryFixture> {
  const child = spawn(process.execPath, ['--import', 'tsx', SEED], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'], env });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the seeding step (bench/memory-seed.ts) exited with code ${code}`);
  return JSON.parse(output.trim().split('\n').at(-1)!) as MemoryFixture;
}

/** One operation of the mix: a name, and one request that throws unless the reply is the expected one. */
interface Operation {
  name: string;
  run(): Promise<void>;
}

type UnaryCall = (
  request: object,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: (error: grpc.ServiceError | null, reply: Record<string, unknown>) => void,
) => void;

/** The operations of the mix; each entry's weight is how many times it appears in one cycle. */
function buildOperations(urls: ServerProcess['urls'], fixture: MemoryFixture): { cycle: Operation[]; signUp: Operation; close(): void } {
  const timeout = () => AbortSignal.timeout(30_000);
  const admin = { authorization: `Bearer ${fixture.adminToken}` };
  const social = { authorization: `Bearer ${fixture.social.token}` };
  const uploader = { authorization: `Bearer ${fixture.uploadToken}` };
  let counter = 0;
  const nextId = () => fixture.ids[counter++ % fixture.ids.length]!;

  const http = async (url: string, init: RequestInit, check?: (body: unknown) => boolean): Promise<void> => {
    const response = await fetch(url, { ...init, signal: timeout() });
    const text = await response.text();
    if (!response.ok) throw new Error(`HTTP ${response.status} ${text.slice(0, 200)}`);
    if (check) {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new Error(`not JSON: ${text.slice(0, 200)}`);
      }
      if (!check(body)) throw new Error(`unexpected reply ${text.slice(0, 200)}`);
    }
  };
  const json = (headers: Record<string, string>) => ({ ...headers, 'content-type': 'application/json' });
  const graphql = (headers: Record<string, string>, query: string, variables: object) =>
    http(urls.graphql, { method: 'POST', headers: json(headers), body: JSON.stringify({ query, variables }) }, (body) => {
      const reply = body as { data?: unknown; errors?: unknown };
      return reply.data !== undefined && reply.errors === undefined;
    });

  const definition = protoLoader.loadSync(USER_EXAMPLE_PROTO, PROTO_LOADER_OPTIONS);
  const Client = grpc.makeClientConstructor(definition[USER_EXAMPLE_SERVICE_NAME] as grpc.ServiceDefinition, USER_EXAMPLE_SERVICE_NAME);
  const client = new Client(urls.grpc, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set('authorization', admin.authorization);
  const unary = (method: string, request: object) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const call = (client as unknown as Record<string, UnaryCall>)[method]!.bind(client);
      call(request, metadata, { deadline: Date.now() + 30_000 }, (error, reply) => (error ? reject(error) : resolve(reply)));
    });

  const upload = png(64, 48);
  const restUpload = multipartBody([{ name: 'media', filename: 'small.png', contentType: 'image/png', data: upload }]);
  const graphqlUpload = multipartBody([
    {
      name: 'operations',
      contentType: 'application/json',
      data: JSON.stringify({ query: 'mutation($f: Upload){ uploadMedia(media: $f){ mediaId size } }', variables: { f: null } }),
    },
    { name: 'map', contentType: 'application/json', data: JSON.stringify({ 0: ['variables.f'] }) },
    { name: '0', filename: 'small.png', contentType: 'image/png', data: upload },
  ]);
  const listBody = JSON.stringify({
    params: { page: 0, limit: 10, sort: '-age,name', columns: [{ name: 'age', exp: 'gte', value: '30' }] },
  });
  const { accountId, commentId } = fixture.social;
  let hidden = false;
  let signUps = 0;
  const run = Date.now().toString(36);

  const weighted: [number, Operation][] = [
    [
      4,
      {
        name: 'rest-get',
        run: () =>
          http(`${urls.rest}/api/v1/userExample/${nextId()}`, { headers: admin }, (b) => !!(b as { userExample?: unknown }).userExample),
      },
    ],
    [
      1,
      {
        name: 'rest-list',
        run: () => http(`${urls.rest}/api/v1/userExample/list`, { method: 'POST', headers: json(admin), body: listBody }),
      },
    ],
    [
      1,
      {
        name: 'rest-update',
        run: () =>
          http(`${urls.rest}/api/v1/userExample/${nextId()}`, {
            method: 'PUT',
            headers: json(admin),
            body: JSON.stringify({ age: 20 + (counter % 60) }),
          }),
      },
    ],
    [2, { name: 'graphql-get', run: () => graphql(admin, GET_QUERY, { id: nextId() }) }],
    [
      1,
      {
        name: 'graphql-list',
        run: () =>
          graphql(admin, 'query List($p: ListParamsInput) { userExamples(params: $p) { total userExamples { id name age } } }', {
            p: { limit: 10, sort: 'name' },
          }),
      },
    ],
    [
      1,
      {
        name: 'graphql-update',
        run: () =>
          graphql(admin, 'mutation Up($id: UInt64!, $in: UpdateUserExampleInput!) { updateUserExample(id: $id, input: $in) { id } }', {
            id: nextId(),
            in: { status: counter % 3 },
          }),
      },
    ],
    [2, { name: 'grpc-get', run: async () => void (await unary('GetByID', { id: nextId() })) }],
    [1, { name: 'grpc-list', run: async () => void (await unary('List', { params: { page: 0, limit: 10, sort: '-id' } })) }],
    [1, { name: 'grpc-update', run: async () => void (await unary('UpdateByID', { id: nextId(), age: 30 })) }],
    [
      1,
      {
        name: 'social-rest-deep',
        run: () => http(`${urls.rest}/v25.0/${accountId}?fields=${encodeURIComponent(DEEP_FIELDS)}`, { headers: social }),
      },
    ],
    [
      1,
      {
        name: 'social-rest-me',
        run: () => http(`${urls.rest}/v25.0/me?fields=id,username,media_count,followers_count`, { headers: social }),
      },
    ],
    [
      1,
      {
        name: 'social-rest-media',
        run: () =>
          http(
            `${urls.rest}/v25.0/me/media?fields=${encodeURIComponent('caption,comments_count,comments.limit(2){text,username,replies{text}}')}&limit=5`,
            { headers: social },
          ),
      },
    ],
    [
      1,
      {
        name: 'social-rest-comment',
        run: () => http(`${urls.rest}/v25.0/${commentId}?fields=id,text,timestamp,hidden,media{id},replies{text}`, { headers: social }),
      },
    ],
    [
      1,
      {
        name: 'social-rest-hide',
        run: () => {
          hidden = !hidden;
          return http(`${urls.rest}/v25.0/${commentId}?hide=${hidden}`, { method: 'POST', headers: social });
        },
      },
    ],
    [1, { name: 'social-graphql-deep', run: () => graphql(social, DEEP_QUERY, { id: accountId }) }],
    [
      1,
      {
        name: 'social-graphql-comment',
        run: () => graphql(social, 'query C($id: ID!) { comment(id: $id) { id text hidden } }', { id: commentId }),
      },
    ],
    [
      1,
      {
        name: 'upload-rest',
        run: () =>
          http(`${urls.rest}/1.1/media/upload.json`, {
            method: 'POST',
            headers: { ...uploader, 'content-type': restUpload.contentType },
            body: restUpload.body,
          }),
      },
    ],
    [
      1,
      {
        name: 'upload-graphql',
        run: () =>
          http(
            urls.graphql,
            {
              method: 'POST',
              headers: { ...uploader, 'content-type': graphqlUpload.contentType, 'apollo-require-preflight': 'true' },
              body: graphqlUpload.body,
            },
            (b) => !(b as { errors?: unknown }).errors,
          ),
      },
    ],
  ];
  // Interleaved (a, b, c, a, b, a, …) so that no door gets a burst of its own.
  const cycle: Operation[] = [];
  const maxWeight = Math.max(...weighted.map(([weight]) => weight));
  for (let round = 0; round < maxWeight; round += 1) for (const [weight, op] of weighted) if (round < weight) cycle.push(op);
  const signUp: Operation = {
    name: 'rest-create',
    run: () =>
      http(`${urls.rest}/api/v1/userExample`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'Memory Sign-up',
          email: `memory-${run}-${++signUps}@example.com`,
          password: 'bench-password-123',
          phone: '13800138000',
          avatar: 'https://example.com/a.png',
          age: 30,
          gender: 'FEMALE',
        }),
      }),
  };
  return { cycle, signUp, close: () => client.close() };
}

/** A sign-up (scrypt, 32 MiB and ~80 ms of CPU each) once in this many operations: a few per second. */
const SIGN_UP_EVERY = 200;

/** Keeps `connections` operations in flight for `durationS`, going round the cycle. */
async function runMix(ops: ReturnType<typeof buildOperations>, connections: number, durationS: number): Promise<MemoryReport['requests']> {
  const byOperation: Record<string, OperationCount> = {};
  let firstFailure: string | undefined;
  let issued = 0;
  const start = performance.now();
  const end = start + durationS * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      issued += 1;
      const op = issued % SIGN_UP_EVERY === 0 ? ops.signUp : ops.cycle[issued % ops.cycle.length]!;
      const count = (byOperation[op.name] ??= { ok: 0, failed: 0, meanMs: 0 });
      const t0 = performance.now();
      try {
        await op.run();
        count.ok += 1;
        count.meanMs += (performance.now() - t0 - count.meanMs) / count.ok;
      } catch (error) {
        count.failed += 1;
        firstFailure ??= `${op.name}: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsedS = (performance.now() - start) / 1000;
  const ok = Object.values(byOperation).reduce((sum, count) => sum + count.ok, 0);
  const failed = Object.values(byOperation).reduce((sum, count) => sum + count.failed, 0);
  return { ok, failed, perSecond: round(ok / elapsedS, 0), byOperation, ...(firstFailure ? { firstFailure } : {}) };
}

/** Every operation once, in order, failing on the first that does not work (a broken door is not a memory figure). */
async function warmUp(ops: ReturnType<typeof buildOperations>): Promise<void> {
  const seen = new Set<string>();
  for (const op of [...ops.cycle, ops.signUp]) {
    if (seen.has(op.name)) continue;
    seen.add(op.name);
    try {
      await op.run();
    } catch (error) {
      throw new Error(`memory warm-up: ${op.name} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
}

/** A server of one database, seeded, started, warmed up and at rest: ready for its load. */
interface PreparedServer {
  database: 'pglite' | 'postgres';
  server: ServerProcess;
  ops: ReturnType<typeof buildOperations>;
  throwaway: ThrowawayDatabase | undefined;
  started: MemorySample;
  rest: MemorySample;
  idle: MemorySample;
  /** Stops the server and removes its data (directory, throwaway database). */
  dispose(): Promise<void>;
}

/**
 * V8's memory reducers give back start-up garbage a while after start-up, once allocation has stopped: 15–45 s after start
 * here, that of the main heap (its new space shrinks from 32 MiB to 1 MiB) and that of tsx's module-loader thread, a V8
 * isolate of its own (~45 MiB); on PostgreSQL RSS drops from ~270 to ~175 MiB. "Idle" is sampled after them: once RSS,
 * polled from IDLE_FROM_UPTIME_MS on, has stayed within 1 % for IDLE_STABLE_MS (at the latest at IDLE_UNTIL_UPTIME_MS).
 */
const IDLE_FROM_UPTIME_MS = 40_000;
const IDLE_STABLE_MS = 8_000;
const IDLE_UNTIL_UPTIME_MS = 75_000;

async function sampleWhenIdle(server: ServerProcess): Promise<MemorySample> {
  // Polled from /proc, outside the server: a probe sample allocates ~1 MB in the server, and frequent ones would keep V8
  // from seeing the process as idle, which is what lets its memory reducer run at all.
  const history: { at: number; rss: number }[] = [];
  for (;;) {
    const at = performance.now() - server.spawnedAt;
    const rss = round((await processRss(server.pid)).rss);
    history.push({ at, rss });
    const window = history.filter((entry) => entry.at >= at - IDLE_STABLE_MS);
    const spread = Math.max(...window.map((entry) => entry.rss)) - Math.min(...window.map((entry) => entry.rss));
    const stable = history.length > window.length && spread <= 0.01 * rss;
    if ((at >= IDLE_FROM_UPTIME_MS && stable) || at >= IDLE_UNTIL_UPTIME_MS) break;
    await sleep(1_000);
  }
  return (await server.ask('sample')).sample!;
}

async function prepare(database: 'pglite' | 'postgres', options: MemoryOptions, log: (line: string) => void): Promise<PreparedServer> {
  const root = await mkdtemp(join(tmpdir(), 'tributary-bench-memory-'));
  let throwaway: ThrowawayDatabase | undefined;
  let server: ServerProcess | undefined;
  let ops: ReturnType<typeof buildOperations> | undefined;
  let disposing: Promise<void> | undefined;
  // Once only, whoever asks first (the measurement when it ends, the runner when a step failed).
  const dispose = () =>
    (disposing ??= (async () => {
      ops?.close();
      await server?.stop();
      await throwaway?.drop();
      await rm(root, { recursive: true, force: true });
    })());
  try {
    if (database === 'postgres') throwaway = await createThrowawayDatabase(options.databaseUrl!, 'tributary_bench_memory');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production',
      // npm start's default: one access line per request, written to a pipe this process reads.
      LOG_LEVEL: 'info',
      APOLLO_TELEMETRY_DISABLED: '1',
      HOST: '127.0.0.1',
      PUBLIC_HOST: '127.0.0.1',
      GATEWAY_PORT: '0',
      REST_PORT: '0',
      SOCIAL_PARENT_PORT: '0',
      GRPC_PORT: '0',
      DATA_DIR: join(root, 'data'),
      JWT_SECRET: randomBytes(32).toString('hex'),
      SOCIAL_CURSOR_SECRET: randomBytes(32).toString('hex'),
      BENCH_RECORDS: String(options.records),
      // The load is one user and one account at hundreds of requests per second: the per-user limits would refuse most.
      MEDIA_RATE_UPLOADS_PER_WINDOW: '1000000000',
      SOCIAL_RATE_APP_CALLS_PER_HOUR: '1000000000',
      SOCIAL_RATE_USER_CALLS_PER_HOUR: '1000000000',
      SOCIAL_RATE_PAGE_CALLS_PER_HOUR: '1000000000',
      SOCIAL_RATE_BUSINESS_CALLS_PER_DAY: '1000000000',
      ...options.serverEnv,
    };
    if (throwaway) env.DATABASE_URL = throwaway.url;
    else delete env.DATABASE_URL;
    delete env.NODE_OPTIONS;

    const fixture = await seed({ ...env, MEMORY_PGLITE_SETTINGS: JSON.stringify(options.pgliteSettings) });
    server = await startServer(env, options.nodeOptions, options.serverLog && `${options.serverLog}.${database}`);
    const started = (await server.ask('sample')).sample!;
    ops = buildOperations(server.urls, fixture);
    await warmUp(ops);
    // Quiet after the warm-up: what is left is what the process holds at rest, not the warm-up's work in progress.
    await sleep(5_000);
    const rest = (await server.ask('sample')).sample!;
    const idle = await sampleWhenIdle(server);
    log(
      `    ${database}: RSS right after start ${started.rss} MiB, at rest after the warm-up ${rest.rss} MiB, ` +
        `idle ${Math.round(idle.uptimeMs / 1000)} s after start ${idle.rss} MiB`,
    );
    return { database, server, ops, throwaway, started, rest, idle, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

async function measure(prepared: PreparedServer, options: MemoryOptions, log: (line: string) => void): Promise<MemoryReport> {
  const { database, server, ops, throwaway, started, rest, idle } = prepared;
  const ask = async (type: ProbeRequest['type']) => (await server.ask(type)).sample!;
  log(`    ${database}: ${options.durationS} s of mixed load at ${options.connections} in flight...`);
  await server.ask('reset-peak');
  const timeline: MemoryReport['timeline'] = [];
  const loadStart = performance.now();
  const cpuBefore = {
    server: (await processCpuMs(server.pid)) ?? Number.NaN,
    backends: await backendsCpuMs(throwaway?.url),
    client: process.cpuUsage(),
    machine: machineTimes(),
  };
  let polledPeak = 0;
  let sampling = true;
  const sampler = (async () => {
    let nextSample = options.sampleEveryS * 1000;
    while (sampling) {
      await sleep(250);
      const rss = round((await processRss(server.pid)).rss);
      if (rss > polledPeak) polledPeak = rss;
      const t = performance.now() - loadStart;
      if (sampling && t >= nextSample) {
        nextSample += options.sampleEveryS * 1000;
        const sample = await ask('sample');
        timeline.push({ t: Math.round(t / 1000), sample, answeredInMs: Math.round(performance.now() - loadStart - t) });
      }
    }
  })();
  const load = runMix(ops, options.connections, options.durationS);
  // The end sample is taken as the load's time runs out, while its last requests are still in flight.
  await sleep(options.durationS * 1000);
  const end = await ask('sample');
  const requests = await load;
  sampling = false;
  await sampler;
  const elapsedMs = performance.now() - loadStart;
  const serverCpuMs = ((await processCpuMs(server.pid)) ?? Number.NaN) - cpuBefore.server;
  const serverCores = serverCpuMs / elapsedMs;
  const backendCores = ((await backendsCpuMs(throwaway?.url)) - cpuBefore.backends) / elapsedMs;
  const client = process.cpuUsage(cpuBefore.client);
  const clientCores = (client.user + client.system) / 1000 / elapsedMs;
  const machine = machineTimes();
  const busy = 1 - (machine.idle - cpuBefore.machine.idle) / (machine.total - cpuBefore.machine.total);
  const otherCores = round(busy * cpus().length - serverCores - backendCores - clientCores, 2);

  await sleep(options.afterS * 1000);
  const after = await ask('sample');
  const afterGc = await ask('gc');
  const peakRss = Math.max(end.peakRss, polledPeak);
  const ratio = end.rss / rest.rss;
  const report: MemoryReport = {
    database,
    nodeOptions: options.nodeOptions,
    pgliteSettings: database === 'pglite' ? options.pgliteSettings : {},
    connections: options.connections,
    durationS: options.durationS,
    started,
    rest,
    idle,
    end,
    after,
    afterGc,
    peakRss,
    timeline,
    requests,
    serverErrors: server.errorLines(),
    ratio: round(ratio, 3),
    verdict: Math.abs(ratio - 1) <= MEMORY_TOLERANCE ? 'PASS' : 'MISS',
    cores: { server: round(serverCores, 2), database: round(backendCores, 2), client: round(clientCores, 2) },
    serverCpuMicrosPerRequest: Math.round((serverCpuMs * 1000) / requests.ok),
    gc: { msPerSecond: round((end.gcMs - rest.gcMs) / options.durationS), majorGcs: end.majorGcs - rest.majorGcs },
    otherCores,
  };
  log(
    `    ${database}: ${requests.perSecond} req/s (${requests.failed} failed), RSS peak ${peakRss}, end ${end.rss}, ` +
      `${options.afterS} s after ${after.rss}, after a full GC ${afterGc.rss} MiB; end / rest ${report.ratio.toFixed(2)} ${report.verdict}`,
  );
  return report;
}

/**
 * The memory section on each configured database. The next database's server is seeded, started and brought to rest while
 * the current one is under load (its idle wait would otherwise add half a minute per database); never two loads at once.
 */
export async function runMemory(options: MemoryOptions, log: (line: string) => void = console.log): Promise<MemoryReport[]> {
  const databases = options.databases.filter((database) => {
    if (database === 'postgres' && !options.databaseUrl) {
      log('    postgres: skipped (set DATABASE_URL to measure on PostgreSQL)');
      return false;
    }
    return true;
  });
  const reports: MemoryReport[] = [];
  // Each preparation's failure is reported where it is awaited; the catch only keeps it from being unhandled meanwhile.
  const preparations = new Map<number, Promise<PreparedServer>>();
  const begin = (index: number) => {
    const preparation = prepare(databases[index]!, options, log);
    preparation.catch(() => undefined);
    preparations.set(index, preparation);
  };
  try {
    if (databases.length > 0) begin(0);
    for (let index = 0; index < databases.length; index += 1) {
      const prepared = await preparations.get(index)!;
      try {
        if (index + 1 < databases.length) begin(index + 1);
        reports.push(await measure(prepared, options, log));
      } finally {
        await prepared.dispose();
      }
    }
  } finally {
    // Every server is stopped, a preparation still under way when an earlier step failed included (dispose runs once).
    for (const preparation of preparations.values()) {
      await preparation.then(
        (prepared) => prepared.dispose(),
        () => undefined,
      );
    }
  }
  return reports;
}

function fixed(value: number, digits = 0): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '—';
}

/** The tables of the section: one per database, then the verdicts. */
export function printMemory(reports: readonly MemoryReport[]): void {
  if (reports.length === 0) return;
  console.log(
    `\nMemory of the embedded stack (npm start) — MiB; the check: RSS at the end of the load within ±${MEMORY_TOLERANCE * 100} % of RSS at rest`,
  );
  for (const report of reports) {
    const settings = Object.entries(report.pgliteSettings).map(([name, value]) => `${name}=${value}`);
    const flags =
      (report.nodeOptions.length > 0 ? `, node ${report.nodeOptions.join(' ')}` : '') +
      (settings.length > 0 ? `, PGlite ${settings.join(' ')}` : '');
    console.log(
      `\n${report.database}: ${report.durationS} s of mixed load at ${report.connections} in flight, ${report.requests.perSecond} req/s, ` +
        `${report.requests.failed} failed${report.requests.firstFailure ? ` (first: ${report.requests.firstFailure})` : ''}${flags}`,
    );
    const header = [
      '',
      'RSS',
      'anon',
      'V8 heap used',
      'V8 committed',
      'new space',
      'old space',
      'external',
      'wasm (resident)',
      'rest of anon',
    ];
    const row = (label: string, s: MemorySample, rss = s.rss) => [
      label,
      fixed(rss),
      fixed(s.rssAnon),
      fixed(s.heapUsed),
      fixed(s.heapCommitted),
      fixed(s.spaces.new_space?.committed ?? Number.NaN),
      fixed(s.spaces.old_space?.committed ?? Number.NaN),
      fixed(s.external),
      s.wasmMemories > 0 ? `${fixed(s.wasm)} (${fixed(s.wasmResident)})` : '—',
      // Anonymous memory outside V8's heap and the wasm memories: malloc (Node, OpenSSL, buffers), code, thread stacks.
      fixed(s.rssAnon - s.heapCommitted - (s.wasmMemories > 0 ? s.wasmResident : 0)),
    ];
    const rows = [
      row('right after start', report.started),
      row('at rest, after the warm-up', report.rest),
      row(`idle, ${Math.round(report.idle.uptimeMs / 1000)} s after start`, report.idle),
      ['peak during the load', fixed(report.peakRss), ...new Array<string>(header.length - 2).fill('')],
      row('end of the load', report.end),
      row(`${report.timeline.length > 0 ? 'after the load' : 'after'}`, report.after),
      row('after a full GC', report.afterGc),
    ];
    console.log(formatTable(header, rows));
    console.log(`RSS every few seconds of the load: ${report.timeline.map(({ t, sample }) => `${t}s ${fixed(sample.rss)}`).join(', ')}`);
    console.log(
      `server CPU ${report.serverCpuMicrosPerRequest} µs/request; GC ${report.gc.msPerSecond} ms/s, ${report.gc.majorGcs} full GCs; ` +
        `cores: server ${report.cores.server}, database ${report.cores.database}, load generator ${report.cores.client}, other ${report.otherCores}`,
    );
    const slowest = Object.entries(report.requests.byOperation).sort(([, a], [, b]) => b.meanMs - a.meanMs);
    console.log(`requests (ok, mean ms): ${slowest.map(([name, count]) => `${name} ${count.ok} ${fixed(count.meanMs)}`).join(', ')}`);
    if (report.serverErrors > 0) console.log(`the server logged ${report.serverErrors} lines at error level`);
    if (report.otherCores > 0.25) console.log(`WARNING: other processes used ${report.otherCores} cores during the load (noise)`);
  }
  console.log('');
  for (const report of reports) {
    console.log(
      `${`memory ${report.database}: end of load / at rest`.padEnd(47)} ${report.ratio.toFixed(2).padStart(5)}  ` +
        `(${fixed(report.end.rss)} / ${fixed(report.rest.rss)} MiB; peak ${fixed(report.peakRss)}; ` +
        `/ idle ${(report.end.rss / report.idle.rss).toFixed(2)})  target 1 ± ${MEMORY_TOLERANCE}  ${report.verdict}`,
    );
  }
}
