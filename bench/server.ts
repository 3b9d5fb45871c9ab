/**
 * The server side of `npm run bench`, run by bench/run.ts as a child process so that the load generator never shares the
 * servers' event loop. On ONE database it starts:
 * - the embedded system (gateway with in-process subgraphs, REST adapter, gRPC server), as `npm start` runs it;
 * - a standalone users-subgraph HTTP server built on the same DatabaseHandle (the "straight to the subgraph" target);
 * - a distributed-mode gateway that reaches that subgraph server over HTTP (informational scenario);
 * - the baseline: a bare node:http handler that runs the repository's GetByID SELECT and writes the JSON;
 * - the coalescing baseline: the same handler on a listener of its own, reading as the product does — the reads that
 *   arrive together as one batch SELECT, at most USERS_READ_BATCH_MAX ids — with nothing else;
 * - a control server the parent uses to read this process's CPU time, event-loop utilisation and the PostgreSQL backends'
 *   CPU per scenario, to take CPU profiles (node:inspector) of exactly the measured window, and to run the in-process layer
 *   probes of bench/layers.ts (over an embedded-mode gateway of their own).
 * The stand-ins' switches (STAND_INS, STAND_IN_<NAME>) are taken from this process's environment; the ready line says
 * which stand-ins serve. It seeds BENCH_RECORDS records, then prints one JSON line (type BenchServerInfo) on stdout, and shuts down when stdin
 * closes or on SIGTERM/SIGINT.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'node:inspector/promises';
import { constants as perfConstants, performance, PerformanceObserver, type EventLoopUtilization } from 'node:perf_hooks';
import { sql } from 'kysely';
import { startEmbeddedSystem, startGatewayProcess, subgraphEngine, type RunningSystem } from '../bin/system/index.ts';
import { fixedSupergraph } from '../gateway/supergraph-source.ts';
import { buildGateway } from '../bin/system/system-parts.ts';
import type { SubgraphHttpClient } from '../gateway/subgraph-http-client.ts';
import { createUndiciSubgraphClient } from '../gateway/stand-ins/undici-subgraph-client.ts';
import { ADMIN_ROLE } from '../lib/auth/auth.ts';
import { loadConfig, type Config } from '../lib/config.ts';
import { createStandIns } from '../lib/stand-ins/stand-in-gate.ts';
import { STAND_IN_IDS, STAND_INS } from '../lib/stand-ins/stand-in-registry.ts';
import type { DatabaseHandle } from '../lib/database/database.ts';
import { createSubgraphErrorFormatter } from '../lib/graphql/graphql-errors.ts';
import { listen, type RunningHttpServer } from '../lib/http/http-server.ts';
import { createLogger } from '../lib/logger.ts';
import { createTelemetry } from '../lib/telemetry/telemetry.ts';
import { createPasswordHasher } from '../lib/auth/password.ts';
import { createThrowawayDatabase } from '../lib/database/throwaway-database.ts';
import { readSupergraph } from '../schema/supergraph-file.ts';
import { openBlobStore } from '../subgraphs/shared/media-store/open-blob-store.ts';
import { createSocialTokens, createSubgraphs } from '../subgraphs/index.ts';
import { deepReadBaseline, seedDeepRead } from './social-deep-read.ts';
import { createSubgraphServer, type SubgraphServer } from '../subgraphs/subgraph-server.ts';
import { findUserExampleById, findUserExamplesByIds, type UsersDb, type UsersTables } from '../subgraphs/users/user-example.repository.ts';
import type { UserExample } from '../subgraphs/users/user-example.types.ts';
import { inIdOrder } from '../lib/in-id-order.ts';
import type { BenchServerInfo, ServerWindow } from './bench-protocol.ts';
import { createLayerProbes, measureLayers, type LayerResult } from './layers.ts';
import { processCpuMs } from './proc-stat.ts';
import { seedRecords } from './seed-records.ts';
import { clearStoredUploads, countFiles, startRssSampler, uploadBaselineHandler, type RssWindow } from './upload-server.ts';

const records = Number(process.env.BENCH_RECORDS ?? '1000');
const logN = process.env.PASSWORD_SCRYPT_LOG_N ?? '15';

/** STAND_INS and each STAND_IN_<NAME> set in this process's environment, for the served system's configuration. */
function standInSwitchesOf(source: NodeJS.ProcessEnv): Record<string, string> {
  const switches: Record<string, string> = {};
  for (const name of ['STAND_INS', ...STAND_IN_IDS.map((id) => STAND_INS[id].switchVariable)]) {
    const value = source[name];
    if (value !== undefined) switches[name] = value;
  }
  return switches;
}

/**
 * Where the served system keeps its media: the run's directory, or — MEDIA_STORE=s3 with MEDIA_S3_* in this process's
 * environment, as bench/run.ts starts the server of the upload scenarios' S3 variants — a bucket of the bench's s3rver
 * (bench/s3-store.ts).
 */
function mediaStoreOf(source: NodeJS.ProcessEnv, blobDir: string): Record<string, string | undefined> {
  if (source.MEDIA_STORE !== 's3') return { MEDIA_BLOB_DIR: blobDir };
  const names = [
    'MEDIA_S3_ENDPOINT',
    'MEDIA_S3_REGION',
    'MEDIA_S3_BUCKET',
    'MEDIA_S3_KEY_PREFIX',
    'MEDIA_S3_ACCESS_KEY_ID',
    'MEDIA_S3_SECRET_ACCESS_KEY',
    'MEDIA_S3_FORCE_PATH_STYLE',
  ];
  return { MEDIA_STORE: 's3', ...Object.fromEntries(names.map((name) => [name, source[name]])) };
}

function redactedServer(serverUrl: string | undefined): string | undefined {
  if (!serverUrl) return undefined;
  const url = new URL(serverUrl);
  url.password = '';
  return url.toString();
}

/** The time of one hash, and how many hashes per second the libuv pool completes when it is kept full. */
async function measureScrypt(config: Config): Promise<BenchServerInfo['scrypt']> {
  const hasher = createPasswordHasher({ logN: config.passwords.scryptLogN });
  await hasher.hash('bench-warm-up-password');
  const singles: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    const start = performance.now();
    await hasher.hash('bench-password-123');
    singles.push(performance.now() - start);
  }
  singles.sort((a, b) => a - b);
  const parallel = 8;
  const start = performance.now();
  await Promise.all(Array.from({ length: parallel }, () => hasher.hash('bench-password-123')));
  const elapsed = performance.now() - start;
  return {
    logN: config.passwords.scryptLogN,
    singleHashMs: round(singles[1]!),
    parallelHashesPerSecond: round((parallel * 1000) / elapsed),
  };
}

function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** One GetByID read of the baselines: the live record with this id, or undefined. */
type RecordReader = (id: string) => Promise<UserExample | undefined>;

/**
 * A baseline: GET /userExample/{id} reads the record through the same Kysely handle and writes JSON. The plain baseline
 * reads with the repository's SELECT of one record, a statement per request; the coalescing one with
 * coalescingReader below. Nothing else differs.
 */
function baselineHandler(read: RecordReader) {
  const path = /^\/userExample\/(\d{1,20})$/;
  return (req: IncomingMessage, res: ServerResponse) => {
    const match = path.exec(req.url ?? '');
    if (req.method !== 'GET' || !match) {
      res.writeHead(404).end();
      return;
    }
    read(match[1]!).then(
      (record) => {
        if (!record) {
          res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":5,"message":"not found"}');
          return;
        }
        // JSON.stringify renders the Date columns as RFC 3339, as the product transports do.
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ userExample: record }));
      },
      (error: unknown) => {
        res.writeHead(500).end(String(error));
      },
    );
  };
}

/**
 * The product's coalescing of GetByID reads (liveRecordReader in subgraphs/users/user-example.service.ts) at its barest:
 * the reads asked for before the event loop's check phase go out together as the repository's batch read
 * (findUserExamplesByIds: `id = any($1::bigint[])`), at most `batchMax` ids per statement — the product's bound,
 * USERS_READ_BATCH_MAX — and each read gets its record by id. No DataLoader, no tracing, no metrics: the least a server
 * that shares statements between requests does per read. A bound of 1 reads one record per statement, as the product
 * then does.
 */
function coalescingReader(db: UsersDb, batchMax: number): RecordReader {
  if (batchMax <= 1) return (id) => findUserExampleById(db, id);
  interface PendingRead {
    id: string;
    resolve(record: UserExample | undefined): void;
    reject(error: unknown): void;
  }
  let pending: PendingRead[] = [];
  const dispatch = () => {
    const reads = pending;
    pending = [];
    for (let start = 0; start < reads.length; start += batchMax) {
      const batch = reads.slice(start, start + batchMax);
      const ids = batch.map((read) => read.id);
      findUserExamplesByIds(db, ids).then(
        (records) => {
          const inOrder = inIdOrder(ids, records);
          for (let i = 0; i < batch.length; i += 1) batch[i]!.resolve(inOrder[i]);
        },
        (error: unknown) => {
          for (const read of batch) read.reject(error);
        },
      );
    }
  };
  return (id) =>
    new Promise((resolve, reject) => {
      // setImmediate, as the product's loader: reads parsed from different sockets in one poll phase share the statement.
      if (pending.length === 0) setImmediate(dispatch);
      pending.push({ id, resolve, reject });
    });
}

/**
 * The least a gateway in front of a subgraph can do per request: read the client's JSON body, POST it to the subgraph over
 * the gateway's own keep-alive client (gateway/subgraph-http-client.ts) with the client's headers, parse the reply and
 * serialise it again. No planning, validation, limits, metrics or logging: what this costs on top of the subgraph is the
 * floor under the distributed gateway's ratio (bench/README.md, "What remains").
 */
function bareGraphqlProxy(client: SubgraphHttpClient) {
  const hopByHop = new Set(['host', 'connection', 'content-length', 'content-type', 'keep-alive', 'transfer-encoding']);
  return (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && !hopByHop.has(name)) headers[name] = value;
      }
      client.post(body, headers).then(
        (reply) => {
          const text = JSON.stringify(JSON.parse(reply.text) as unknown);
          res.writeHead(reply.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
        },
        (error: unknown) => res.writeHead(502).end(String(error)),
      );
    });
  };
}

/** CPU milliseconds so far of each PostgreSQL backend connected to this bench's database (local server only). */
async function backendCpu(database: DatabaseHandle): Promise<Map<number, number> | undefined> {
  if (database.kind !== 'postgres') return undefined;
  const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity where datname = current_database()`.execute(database.db);
  const usage = new Map<number, number>();
  for (const { pid } of rows) {
    const ms = await processCpuMs(pid);
    if (ms === undefined) return undefined;
    usage.set(pid, ms);
  }
  return usage;
}

/** Per-window CPU/ELU deltas and CPU profiles of this process, for the parent. */
function controlHandler(
  database: DatabaseHandle,
  layers: (ms: number, concurrency: number) => Promise<LayerResult[]>,
  uploads: { clear(): Promise<number>; spooled(): Promise<number> },
) {
  let window:
    | {
        cpu: NodeJS.CpuUsage;
        elu: EventLoopUtilization;
        at: number;
        backends: Map<number, number> | undefined;
        rss: { stop(): Promise<RssWindow> } | undefined;
        gc: GcTotals;
      }
    | undefined;
  const gc = observeGc();
  let session: Session | undefined;
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://control');
    const reply = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const fail = (error: unknown) => res.writeHead(500).end(String(error));
    switch (url.pathname) {
      case '/gc': {
        // A full collection before a scenario's warm-up (the server runs with --expose-gc): every scenario starts from
        // the same heap, instead of paying for the garbage and the grown old generation of the scenario before it.
        (globalThis as { gc?: () => void }).gc?.();
        reply({});
        return;
      }
      case '/window/start': {
        // ?rss=<ms>: sample the RSS every <ms> during the window (after a full GC), for the upload scenarios.
        const rssEvery = Number(url.searchParams.get('rss') ?? '0');
        (async () => {
          const rss = rssEvery > 0 ? await startRssSampler(Math.max(1, rssEvery)) : undefined;
          const backends = await backendCpu(database);
          window = {
            cpu: process.cpuUsage(),
            elu: performance.eventLoopUtilization(),
            at: performance.now(),
            backends,
            rss,
            gc: { ...gc },
          };
        })().then(() => reply({}), fail);
        return;
      }
      case '/window/stop': {
        if (!window) return fail('no window started');
        const started = window;
        window = undefined;
        const cpu = process.cpuUsage(started.cpu);
        const elu = performance.eventLoopUtilization(started.elu);
        const elapsedMs = performance.now() - started.at;
        const rss = started.rss?.stop();
        Promise.all([backendCpu(database), rss]).then(([backends, rssWindow]) => {
          let databaseCpuMs: number | undefined;
          if (started.backends && backends) {
            // Backends that connected during the window count from zero; ones that left are lost (the pool keeps them).
            databaseCpuMs = 0;
            for (const [pid, ms] of backends) databaseCpuMs += ms - (started.backends.get(pid) ?? 0);
          }
          const result: ServerWindow = {
            cpuUserMs: round(cpu.user / 1000),
            cpuSystemMs: round(cpu.system / 1000),
            elapsedMs: round(elapsedMs),
            eventLoopUtilization: round(elu.utilization, 3),
            rssMiB: round(process.memoryUsage().rss / 2 ** 20),
            databaseCpuMs,
            gcMs: {
              scavenge: round(gc.scavenge - started.gc.scavenge),
              markCompact: round(gc.markCompact - started.gc.markCompact),
              other: round(gc.other - started.gc.other),
            },
            ...(rssWindow ? { rss: rssWindow } : {}),
          };
          reply(result);
        }, fail);
        return;
      }
      case '/cpu': {
        // CPU time this process spends over the next `ms` milliseconds (the parent waits for a backlog to drain).
        const ms = Math.min(Number(url.searchParams.get('ms') ?? '250'), 5000);
        const before = process.cpuUsage();
        setTimeout(() => {
          const used = process.cpuUsage(before);
          reply({ cpuPercent: round(((used.user + used.system) / 1000 / ms) * 100) });
        }, ms);
        return;
      }
      case '/uploads/clear':
        // Between upload windows: removes the stored uploads (baseline files, blobs); replies how many went.
        uploads.clear().then((removed) => reply({ removed }), fail);
        return;
      case '/uploads/spooled':
        // Spool files of graphql-upload-ts still in this process's TMPDIR (none should be left once the server is idle).
        uploads.spooled().then((files) => reply({ files }), fail);
        return;
      case '/layers': {
        const ms = Math.min(Number(url.searchParams.get('ms') ?? '2000'), 30_000);
        const concurrency = Math.min(Number(url.searchParams.get('concurrency') ?? '50'), 1000);
        layers(ms, concurrency).then(reply, fail);
        return;
      }
      case '/profile/start':
        (async () => {
          session = new Session();
          session.connect();
          await session.post('Profiler.enable');
          await session.post('Profiler.setSamplingInterval', { interval: 200 });
          await session.post('Profiler.start');
        })().then(() => reply({}), fail);
        return;
      case '/profile/stop': {
        const file = url.searchParams.get('file');
        if (!session || !file) return fail('no profile running or no file given');
        const running = session;
        session = undefined;
        (async () => {
          const { profile } = await running.post('Profiler.stop');
          running.disconnect();
          await writeFile(file, JSON.stringify(profile));
        })().then(() => reply({ file }), fail);
        return;
      }
      default:
        res.writeHead(404).end();
    }
  };
}

async function main(): Promise<void> {
  const serverUrl = process.env.DATABASE_URL || undefined;
  // A database of its own on the configured PostgreSQL server, dropped at exit; none on PGlite.
  const throwaway = serverUrl ? await createThrowawayDatabase(serverUrl, 'tributary_bench') : undefined;
  // Area D: one temporary directory for the run — the blob store (MEDIA_BLOB_DIR, unless MEDIA_STORE=s3), the upload
  // baseline's files, and this process's TMPDIR, where graphql-upload-ts spools each uploaded file — removed at exit.
  const uploadRoot = await mkdtemp(join(tmpdir(), 'tributary-bench-uploads-'));
  const uploadDirs = { blobs: join(uploadRoot, 'blobs'), baseline: join(uploadRoot, 'baseline'), spool: join(uploadRoot, 'spool') };
  for (const dir of Object.values(uploadDirs)) await mkdir(dir, { recursive: true });
  process.env.TMPDIR = uploadDirs.spool;
  const env = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PUBLIC_HOST: '127.0.0.1',
    GATEWAY_PORT: '0',
    REST_PORT: '0',
    GRPC_PORT: '0',
    SUBGRAPH_PORT: '0',
    SOCIAL_PARENT_PORT: '0',
    SOCIAL_CURSOR_SECRET: randomBytes(32).toString('hex'),
    DATA_DIR: ':memory:',
    DATABASE_URL: throwaway?.url,
    DATABASE_POOL_MAX: process.env.DATABASE_POOL_MAX,
    JWT_SECRET: randomBytes(32).toString('hex'),
    PASSWORD_SCRYPT_LOG_N: logN,
    ...mediaStoreOf(process.env, uploadDirs.blobs),
    // The default (500 uploads per user per 15 min) would refuse most of the run with 429.
    MEDIA_RATE_UPLOADS_PER_WINDOW: '1000000000',
    // The observability comparison (bench/observability-cost.ts) starts servers with these set.
    METRICS_ENABLED: process.env.METRICS_ENABLED,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
    OTEL_TRACES_SAMPLER_ARG: process.env.OTEL_TRACES_SAMPLER_ARG,
    // USERS_READ_BATCH_MAX=1 measures GetByID with a statement per read (the plain baseline always runs one per request,
    // the coalescing baseline shares statements up to the same bound).
    USERS_READ_BATCH_MAX: process.env.USERS_READ_BATCH_MAX,
    // The CORS comparison (bench/cors.ts) starts a server with it set: the embedded and the distributed gateway serve it.
    CORS_ORIGINS: process.env.CORS_ORIGINS,
    // The stand-ins' switches (lib/stand-ins/): the stand-ins section (bench/stand-ins.ts) starts servers with one or all
    // of them off; `STAND_INS=off npm run bench` measures the library's own routes throughout.
    ...standInSwitchesOf(process.env),
  };
  const config = loadConfig(env);
  const logger = createLogger({ level: config.logLevel, name: 'bench' });
  const closers: (() => Promise<void>)[] = [];
  const shutdown = async () => {
    for (const close of closers.reverse()) {
      try {
        await close();
      } catch (error) {
        console.error('bench server: error while shutting down:', error);
      }
    }
  };
  try {
    closers.push(() => rm(uploadRoot, { recursive: true, force: true }));
    if (throwaway) closers.push(() => throwaway.drop());
    // One set of decisions for every gateway of this process (the embedded one, the distributed one, the layer probes'):
    // the patched exports hold process-wide anyway, and the parent is told which stand-ins really serve.
    const standIns = createStandIns(config.standIns, logger);
    const system: RunningSystem = await startEmbeddedSystem(config, logger, { standIns });
    closers.push(() => system.close());
    const database = system.database!;

    // Every subgraph, served over HTTP by its own server, on the SAME database handle as the embedded system.
    const blobs = await openBlobStore(config.media);
    closers.push(() => blobs.close());
    // Metrics of their own; no tracing of their own (one trace provider per process: the embedded system's, when on).
    const telemetry = createTelemetry(
      {
        metricsEnabled: config.telemetry.metricsEnabled,
        tracing: { ...config.telemetry.tracing, endpoint: undefined },
        readyTimeoutMs: 2000,
      },
      'bench-subgraphs',
      logger,
    );
    const subgraphs = createSubgraphs({ config, database, tokens: system.tokens, logger, blobs, metrics: telemetry.metrics });
    const users = subgraphs.users!;
    const subgraphUrls: Record<string, string> = {};
    let usersApollo: SubgraphServer['apollo'] | undefined;
    for (const subgraph of Object.values(subgraphs)) {
      // The engine a subgraph process runs (bin/system/subgraph-engine.ts): the fleet measured as it is deployed.
      const server = await createSubgraphServer(subgraph, {
        config,
        formatError: createSubgraphErrorFormatter(logger),
        telemetry,
        logger,
        engine: subgraphEngine(config, telemetry, logger, standIns),
      });
      if (subgraph.name === 'users') usersApollo = server.apollo;
      closers.push(() => server.stop());
      const http = await listen(server.httpServer, { port: 0, host: config.host, publicHost: config.publicHost });
      closers.push(() => http.close());
      subgraphUrls[`SUBGRAPH_${subgraph.name.toUpperCase()}_URL`] = `${http.url}/graphql`;
    }
    const subgraphUrl = subgraphUrls.SUBGRAPH_USERS_URL!;

    // The distributed topology's gateway, reaching those subgraph servers over HTTP.
    const remote = await startGatewayProcess(loadConfig({ ...env, ...subgraphUrls, GATEWAY_MODE: 'distributed' }), logger, { standIns });
    closers.push(() => remote.close());
    // The floor under any gateway's HTTP hop: a bare proxy in front of the same users subgraph server.
    const proxyClient = createUndiciSubgraphClient(subgraphUrl, { timeoutMs: 30_000 });
    closers.push(async () => proxyClient.close());
    const proxy = await listen(bareGraphqlProxy(proxyClient), { port: 0, host: config.host, publicHost: config.publicHost });
    closers.push(() => proxy.close());

    const usersDb = database.db.withTables<UsersTables>();
    const userBaseline = baselineHandler((id) => findUserExampleById(usersDb, id));
    const deepBaseline = deepReadBaseline(database);
    const uploadBaseline = uploadBaselineHandler(uploadDirs.baseline);
    const baseline: RunningHttpServer = await listen(
      (req, res) => {
        if (!uploadBaseline(req, res) && !deepBaseline(req, res)) userBaseline(req, res);
      },
      {
        port: 0,
        host: config.host,
        publicHost: config.publicHost,
      },
    );
    closers.push(() => baseline.close());
    // The second baseline on a listener of its own, so that both serve the same path with nothing else in front.
    const coalescedBaseline: RunningHttpServer = await listen(baselineHandler(coalescingReader(usersDb, config.users.readBatchMax)), {
      port: 0,
      host: config.host,
      publicHost: config.publicHost,
    });
    closers.push(() => coalescedBaseline.close());
    // In-process probes of each layer of a GetByID (--layers): an embedded-mode gateway of their own, not listening.
    const probeGateway = await buildGateway({
      config: { ...config, gateway: { ...config.gateway, mode: 'embedded' } },
      logger,
      supergraph: fixedSupergraph(readSupergraph()),
      localSubgraphs: subgraphs,
      telemetry,
      standIns,
    });
    closers.push(() => probeGateway.stop());
    const adminToken = system.tokens.mint({ sub: 'admin', roles: [ADMIN_ROLE] }, { expiresIn: '1h' });
    const probes = createLayerProbes({
      usersDb,
      users,
      tokens: system.tokens,
      authorization: `Bearer ${adminToken}`,
      subgraphApollo: usersApollo!,
      gatewayExecutor: probeGateway.door,
    });
    let seededIds: string[] = [];
    const layers = (ms: number, concurrency: number) => measureLayers(probes, { ms, concurrency, ids: seededIds });

    const uploadControl = {
      clear: () => clearStoredUploads({ baseline: uploadDirs.baseline, blobRoots: [uploadDirs.blobs] }),
      spooled: () => countFiles(uploadDirs.spool, 'capacitor-'),
    };
    const control = await listen(controlHandler(database, layers, uploadControl), {
      port: 0,
      host: config.host,
      publicHost: config.publicHost,
    });
    closers.push(() => control.close());

    const scrypt = await measureScrypt(config);
    const passwordHash = await createPasswordHasher({ logN: config.passwords.scryptLogN }).hash('bench-password-123');
    const ids = await seedRecords(usersDb, passwordHash, records);
    seededIds = ids;
    const social = await seedDeepRead(database);
    // The uploads' caller: an own-login user token of the social graph (any decimal id will do as its subject).
    const uploadUserId = '17840000000000017';
    const uploadToken = await createSocialTokens(database).issue({
      loginType: 'own',
      subjectId: uploadUserId,
      permissions: [],
      expiresInSeconds: 86_400,
    });

    const info: BenchServerInfo = {
      type: 'ready',
      database: database.kind,
      databaseServer: redactedServer(process.env.DATABASE_URL || undefined),
      baselineUrl: baseline.url,
      coalescedBaselineUrl: coalescedBaseline.url,
      restUrl: system.restUrl!,
      gatewayUrl: system.gatewayUrl!,
      subgraphUrl,
      remoteGatewayUrl: remote.gatewayUrl!,
      proxyUrl: `${proxy.url}/graphql`,
      grpcAddress: system.grpcAddress!,
      controlUrl: control.url,
      adminToken,
      ids,
      social,
      scrypt,
      usersReadBatchMax: config.users.readBatchMax,
      standIns: Object.fromEntries(
        standIns
          .decisions()
          .map((decision) => [decision.id, decision.enabled ? { enabled: true } : { enabled: false, reason: decision.reason }]),
      ) as BenchServerInfo['standIns'],
      uploads: { baselineUrl: `${baseline.url}/upload`, token: uploadToken, userId: uploadUserId, mediaStore: config.media.store },
      pid: process.pid,
      node: process.version,
    };
    process.stdout.write(`${JSON.stringify(info)}\n`);
  } catch (error) {
    console.error('bench server: start-up failed:', error);
    await shutdown();
    process.exit(1);
  }

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    shutdown().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.stdin.on('end', stop);
  process.stdin.on('close', stop);
  process.stdin.resume();
  // Each ApolloServer (gateway, subgraph) installs its own SIGTERM/SIGINT handler that stops it and then re-raises the
  // signal, which kills the process before the database is closed and the throwaway database dropped. This process owns
  // its signals, so those handlers go.
  process.removeAllListeners('SIGTERM');
  process.removeAllListeners('SIGINT');
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

await main();

/** Pause time of V8's collections so far, by kind, in ms (main thread; concurrent marking is not in it). */
interface GcTotals {
  scavenge: number;
  markCompact: number;
  other: number;
}

/** Adds up the process's GC pauses as V8 reports them (perf_hooks 'gc' entries), from now on. */
function observeGc(): GcTotals {
  const totals: GcTotals = { scavenge: 0, markCompact: 0, other: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = ((entry as { detail?: unknown }).detail as { kind?: number } | undefined)?.kind;
      if (kind === perfConstants.NODE_PERFORMANCE_GC_MINOR) totals.scavenge += entry.duration;
      else if (kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) totals.markCompact += entry.duration;
      else totals.other += entry.duration;
    }
  }).observe({ entryTypes: ['gc'] });
  return totals;
}
