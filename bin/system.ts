import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { createGateway, type GatewayServer } from '../gateway/create-gateway.ts';
import { createTokenService, type TokenService } from '../lib/auth/auth.ts';
import type { Config, SubgraphName } from '../lib/config.ts';
import { createDatabase, migrateToLatest, type DatabaseHandle } from '../lib/database/database.ts';
import type { PgliteTemplateImage } from '../lib/database/pglite-template-image.ts';
import { createSubgraphErrorFormatter } from '../lib/graphql/graphql-errors.ts';
import { graphqlClientErrorFormat, type ClientErrorFormat } from '../lib/http/http-client-errors.ts';
import { listen, type ListenOptions, type RunningHttpServer } from '../lib/http/http-server.ts';
import type { Logger } from '../lib/logger.ts';
import { peerReady, type Readiness } from '../lib/telemetry/readiness.ts';
import { createTelemetry, type Telemetry } from '../lib/telemetry/telemetry.ts';
import { createRestAdapter, restClientErrorFormat } from '../rest-adapter/create-rest-adapter.ts';
import { rpcStatus } from '../rest-adapter/user-records/google-rpc-status.ts';
import { createHttpExecutor, type GraphQLExecutor } from '../rest-adapter/graphql-executor.ts';
import { createStandIns, type StandIns } from '../lib/stand-ins/stand-in-gate.ts';
import { SUPERGRAPH_FILE } from '../schema/supergraph-file.ts';
import {
  fileSupergraph,
  type SupergraphReloadOutcome,
  type SupergraphReloadTrigger,
  type SupergraphSource,
} from '../gateway/supergraph-source.ts';
import { bindGrpcServer } from '../subgraphs/users/grpc/bind-grpc-server.ts';
import { createUserExampleGrpcServer } from '../subgraphs/users/grpc/user-example.grpc-server.ts';
import { ALL_MIGRATIONS, createSocialTokens, createSubgraphs, type Subgraphs } from '../subgraphs/index.ts';
import { createWebhookDeliveryWorker } from '../subgraphs/shared/social-events/webhook-delivery-worker.ts';
import type { SocialTables } from '../subgraphs/shared/social-graph/social-tables.ts';
import { createCallbackClient } from '../lib/http/callback-client.ts';
import type { BlobStore } from '../subgraphs/shared/media-store/blob-store.ts';
import { openBlobStore } from '../subgraphs/shared/media-store/open-blob-store.ts';
import { createSubgraphServer } from '../subgraphs/subgraph-server.ts';
import type { UserExampleService } from '../subgraphs/users/user-example.service.ts';
import type { UsersSubgraph } from '../subgraphs/users/users-subgraph.ts';
import { createListenerHomePages, grpcStatusHomePage, subgraphHomePage, type ListenerHomePages } from './listener-home-pages.ts';
import { channelCommandHandlers } from './channel-commands.ts';
import { startCommandChannel } from './command-channel.ts';

/**
 * The composition root: wires configuration, database, subgraphs, gateway, REST adapter and gRPC server into the
 * processes the entrypoints run. Tests and the bench use these functions too, so every run wires the system the same way.
 *
 * Every process has its telemetry (metrics, traces, request-id logs, /health, /ready, /metrics on each HTTP listener) and
 * shuts down in two steps: first every listener stops accepting at once and drains (in-flight requests, an upload in
 * progress included, finish; readiness already says DOWN), then the parts behind them close in reverse order of start
 * (gateway, sweeper, blob store, database pool, traces flushed last).
 */

export interface RunningSystem {
  config: Config;
  tokens: TokenService;
  /** Present when this process owns a database connection. */
  database: DatabaseHandle | undefined;
  gatewayUrl: string | undefined;
  restUrl: string | undefined;
  /** The parent-platform host of the social graph (second REST listener). */
  socialParentUrl: string | undefined;
  grpcAddress: string | undefined;
  /** The standalone gRPC process's HTTP listener (/health, /ready, /metrics). */
  grpcStatusUrl: string | undefined;
  subgraphUrls: Partial<Record<SubgraphName, string>>;
  readiness: Readiness;
  /** The gateway's supergraph read again and swapped in if it changed (absent where no gateway runs). */
  reloadSupergraph?: (trigger?: SupergraphReloadTrigger) => Promise<SupergraphReloadOutcome>;
  /** Stops listeners first (draining in-flight requests), then closes the database. */
  close(): Promise<void>;
}

export interface SystemOptions {
  /** The clock of the social graph's expiry rules; tests drive it. */
  now?: () => Date;
  /** Which stand-ins serve; by default the configuration's switches, gated (lib/stand-ins/). Tests pass their own. */
  standIns?: StandIns;
  /** A database handle to share (two systems of one test on one database); not closed here. */
  database?: DatabaseHandle;
  /** The template a new embedded database starts from (a file, or one already read); by default the build's (dist/pglite-template.tar). */
  pgliteTemplate?: string | PgliteTemplateImage;
}

/** What a process has started, stopped in two steps (see above). */
class Lifecycle {
  private readonly listeners: (() => Promise<void>)[] = [];
  private readonly resources: (() => Promise<void>)[] = [];
  private readonly draining: (() => void)[] = [];
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly telemetry: Telemetry,
    private readonly logger: Logger,
    /** SHUTDOWN_DELAY_MS: how long the process serves on, not ready, before its listeners stop accepting. */
    private readonly delayMs: number,
  ) {
    this.resources.push(() => telemetry.shutdown());
  }

  /** A listener: stops accepting and drains in the first step, alongside every other listener. */
  listener(close: () => Promise<void>): void {
    this.listeners.push(close);
  }

  /** An HTTP listener: its replies say `Connection: close` from the start of shutdown (the pause), then as a listener. */
  http(server: RunningHttpServer): void {
    this.draining.push(() => server.drain());
    this.listener(() => server.close());
  }

  /** A part behind the listeners, closed after them, the last added first. */
  resource(close: () => Promise<void>): void {
    this.resources.push(close);
  }

  close(): Promise<void> {
    this.stopping ??= this.run();
    return this.stopping;
  }

  private async run(): Promise<void> {
    this.telemetry.readiness.markStopping();
    for (const drain of this.draining) drain();
    if (this.delayMs > 0) {
      // Load balancers probe /ready every few seconds: until they have seen the 503, they keep sending requests, which
      // a closed listener would refuse.
      this.logger.info({ delayMs: this.delayMs }, 'not ready; serving on until load balancers have seen it');
      await delay(this.delayMs);
    }
    const drained = await Promise.allSettled(this.listeners.map((close) => close()));
    for (const outcome of drained) {
      if (outcome.status === 'rejected') this.logger.warn({ err: outcome.reason }, 'error while draining a listener');
    }
    for (const close of this.resources.reverse()) {
      try {
        await close();
      } catch (error) {
        this.logger.warn({ err: error }, 'error while shutting down');
      }
    }
  }
}

/** What a process serves (what it does not serve is undefined), its readiness and its shutdown. */
function runningSystem(
  config: Config,
  tokens: TokenService,
  telemetry: Telemetry,
  lifecycle: Lifecycle,
  serves: Partial<Omit<RunningSystem, 'config' | 'tokens' | 'readiness' | 'close'>>,
): RunningSystem {
  return {
    config,
    tokens,
    database: undefined,
    gatewayUrl: undefined,
    restUrl: undefined,
    socialParentUrl: undefined,
    grpcAddress: undefined,
    grpcStatusUrl: undefined,
    subgraphUrls: {},
    ...serves,
    readiness: telemetry.readiness,
    close: () => lifecycle.close(),
  };
}

function startTelemetry(config: Config, processName: string, logger: Logger): Telemetry {
  return createTelemetry(
    { metricsEnabled: config.telemetry.metricsEnabled, tracing: config.telemetry.tracing, readyTimeoutMs: config.telemetry.readyTimeoutMs },
    processName,
    logger,
  );
}

/**
 * The embedded database's template beside the compiled code (dist/pglite-template.tar, made by the build): a fresh
 * ./data starts from it. Running from source (tsx), the path names a file that does not exist, and PGlite runs initdb.
 */
const PGLITE_TEMPLATE = fileURLToPath(new URL('../pglite-template.tar', import.meta.url));

async function openDatabase(
  config: Config,
  logger: Logger,
  telemetry: Telemetry,
  lifecycle: Lifecycle,
  pgliteTemplate: string | PgliteTemplateImage = PGLITE_TEMPLATE,
): Promise<DatabaseHandle> {
  const database = await createDatabase(config.database, { pgliteTemplate });
  lifecycle.resource(() => database.close());
  telemetry.observeDatabase(database);
  telemetry.readiness.add('database', () => database.ping());
  const applied = await migrateToLatest(database.db, ALL_MIGRATIONS);
  if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  return database;
}

/** The process's own database, or one shared with another system of the same process (not closed here). */
async function openOrShareDatabase(
  config: Config,
  logger: Logger,
  telemetry: Telemetry,
  lifecycle: Lifecycle,
  options: Pick<SystemOptions, 'database' | 'pgliteTemplate'>,
): Promise<DatabaseHandle> {
  const shared = options.database;
  if (!shared) return openDatabase(config, logger, telemetry, lifecycle, options.pgliteTemplate);
  telemetry.readiness.add('database', () => shared.ping());
  return shared;
}

/** The blob store of a process that hosts the media subgraph, and its sweeper, started; both stop on close. */
async function openMedia(
  config: Config,
  telemetry: Telemetry,
  lifecycle: Lifecycle,
): Promise<{ blobs: BlobStore; startSweeper(subgraphs: Partial<Subgraphs>): void }> {
  const blobs = await openBlobStore(config.media);
  lifecycle.resource(() => blobs.close());
  telemetry.readiness.add('blobStore', (signal) => blobs.checkWritable(signal));
  return {
    blobs,
    startSweeper(subgraphs) {
      const sweeper = subgraphs.media?.sweeper;
      if (!sweeper) return;
      sweeper.start(config.media.sweepIntervalSecs * 1000);
      lifecycle.resource(() => sweeper.stop());
    },
  };
}

/**
 * Webhook delivery, in the processes that serve the accounts subgraph (which manages the subscriptions): any number of
 * them share the work through leased cursors, woken by NOTIFY with a poll as the safety net. Stopped before the
 * database closes (it is a resource added after the database's).
 */
async function startWebhookDelivery(
  config: Config,
  database: DatabaseHandle,
  subgraphs: Partial<Subgraphs>,
  telemetry: Telemetry,
  logger: Logger,
  lifecycle: Lifecycle,
): Promise<void> {
  const webhooks = config.social.webhooks;
  if (!subgraphs.accounts || !webhooks.delivery) return;
  const socialTokens = createSocialTokens(database);
  const worker = createWebhookDeliveryWorker({
    db: database.db.withTables<SocialTables>(),
    appSecret: async (appId) => (await socialTokens.findApp(appId))?.secret,
    client: createCallbackClient(webhooks),
    logger,
    metrics: telemetry.metrics,
    listen: database.listen,
    options: {
      concurrency: webhooks.concurrency,
      leaseMs: webhooks.leaseMs,
      pollIntervalMs: webhooks.pollIntervalMs,
      retryWindowMs: webhooks.retryWindowHours * 3_600_000,
    },
  });
  telemetry.metrics.trackWebhookQueue(() => worker.queueStats());
  await worker.start();
  lifecycle.resource(() => worker.stop());
}

/** The event log's sweeper, in the process that serves the comments subgraph (the one that writes most events). */
function startEventSweeper(config: Config, subgraphs: Partial<Subgraphs>, lifecycle: Lifecycle): void {
  const sweeper = subgraphs.comments?.eventSweeper;
  if (!sweeper) return;
  sweeper.start(config.social.events.sweepIntervalSecs * 1000);
  lifecycle.resource(() => sweeper.stop());
  // The subscriptions' view of the log (its listener), ended with the process.
  const comments = subgraphs.comments;
  if (comments) lifecycle.resource(() => comments.close());
}

/** A listener's address, timeouts, and the format of its answers to requests Node's parser refuses. */
function listenOptions(config: Config, port: number, clientErrorFormat: ClientErrorFormat): ListenOptions {
  return {
    port,
    host: config.host,
    publicHost: config.publicHost,
    shutdownGraceMs: config.telemetry.shutdownGraceMs,
    timeouts: config.http,
    clientErrorFormat,
  };
}

/**
 * The gRPC server of Area A on the users service, with its health service kept in step with the process's readiness
 * (checked every few seconds; NOT_SERVING at once when shutdown begins).
 */
async function startGrpc(
  config: Config,
  service: UserExampleService,
  tokens: TokenService,
  logger: Logger,
  telemetry: Telemetry,
  lifecycle: Lifecycle,
): Promise<string> {
  const grpc = createUserExampleGrpcServer({ service, tokens, logger, telemetry });
  const bound = await bindGrpcServer(grpc.server, config.host, config.grpc.port, { shutdownGraceMs: config.telemetry.shutdownGraceMs });
  const refresh = () =>
    telemetry.readiness.report().then(
      (report) => grpc.setServing(report.status !== 'DOWN'),
      () => grpc.setServing(false),
    );
  const timer = setInterval(refresh, HEALTH_REFRESH_MS);
  timer.unref();
  void refresh();
  lifecycle.listener(async () => {
    clearInterval(timer);
    grpc.setServing(false);
    await bound.close();
  });
  return `${config.publicHost}:${bound.port}`;
}

/** How often the gRPC health service re-reads readiness. */
const HEALTH_REFRESH_MS = 5_000;

/**
 * Everything in one process (what `npm start` runs): subgraphs in the gateway's process, the REST adapter calling the
 * gateway in-process, the gRPC server beside them, all on one database.
 */
export async function startEmbeddedSystem(config: Config, logger: Logger, options: SystemOptions = {}): Promise<RunningSystem> {
  const telemetry = startTelemetry(config, 'tributary', logger);
  const lifecycle = new Lifecycle(telemetry, logger, config.telemetry.shutdownDelayMs);
  try {
    const database = await openOrShareDatabase(config, logger, telemetry, lifecycle, options);
    const tokens = createTokenService(config.jwt);
    const media = await openMedia(config, telemetry, lifecycle);
    const subgraphs = createSubgraphs({
      config,
      database,
      tokens,
      logger,
      blobs: media.blobs,
      metrics: telemetry.metrics,
      ...(options.now && { now: options.now }),
    });
    media.startSweeper(subgraphs);
    startEventSweeper(config, subgraphs, lifecycle);
    await startWebhookDelivery(config, database, subgraphs, telemetry, logger, lifecycle);

    const standIns = options.standIns ?? createStandIns(config.standIns, logger);
    telemetry.metrics.trackStandIns(() => standIns.decisions());
    const homePages = createListenerHomePages(config);
    const gateway = await createGateway({
      config: { ...config, gateway: { ...config.gateway, mode: 'embedded' } },
      logger,
      supergraph: supergraphSource(config, logger, telemetry),
      localSubgraphs: subgraphs,
      formatSubgraphError: createSubgraphErrorFormatter(logger),
      telemetry,
      standIns,
      homePage: homePages.gateway,
    });
    lifecycle.resource(() => gateway.stop());
    addSupergraphCheck(telemetry, gateway);
    const gatewayHttp = await listen(gateway.httpServer, listenOptions(config, config.gateway.port, graphqlClientErrorFormat));
    lifecycle.http(gatewayHttp);
    homePages.listening('gateway', gatewayHttp.port);

    const rest = await startRest(config, logger, gateway.door, telemetry, lifecycle, standIns, homePages);
    const grpcAddress = await startGrpc(config, subgraphs.users!.service, tokens, logger, telemetry, lifecycle);

    // The embedded database admits this process alone: `npm run seed`, `social-token` and `social-app` ask it to run
    // their command (bin/command-channel.ts, bin/channel-commands.ts), with the URLs it listens on and its own secrets,
    // so the tokens printed work against it. A convenience: without it the system still serves (the tools then say the
    // database is in use).
    if (database.kind === 'pglite' && config.database.pgliteDir) {
      const urls = { ownLogin: rest.own.url, parentPlatform: rest.parent.url };
      try {
        const handlers = channelCommandHandlers({ config, database, tokens, logger, urls });
        const channel = await startCommandChannel(config.database.pgliteDir, handlers, logger);
        lifecycle.listener(() => channel.close());
      } catch (error) {
        logger.warn({ err: error }, 'command channel not offered: npm run seed, social-token and social-app cannot reach this process');
      }
    }

    return runningSystem(config, tokens, telemetry, lifecycle, {
      database,
      gatewayUrl: `${gatewayHttp.url}/graphql`,
      reloadSupergraph: (trigger) => gateway.reloadSupergraph(trigger),
      restUrl: rest.own.url,
      socialParentUrl: rest.parent.url,
      grpcAddress,
    });
  } catch (error) {
    await lifecycle.close();
    throw error;
  }
}

/** The supergraph file the configuration names (the committed one by default), watched when SUPERGRAPH_WATCH is on. */
function supergraphSource(config: Config, logger: Logger, telemetry: Telemetry): SupergraphSource {
  return fileSupergraph({
    path: config.gateway.supergraphFile ?? fileURLToPath(SUPERGRAPH_FILE),
    watch: config.gateway.supergraphWatch,
    logger,
    onReload: (outcome) => telemetry.metrics.observeSupergraphReload(outcome),
  });
}

function addSupergraphCheck(telemetry: Telemetry, gateway: GatewayServer): void {
  telemetry.readiness.add('supergraph', async () => {
    if (!gateway.supergraphLoaded()) throw new Error('the supergraph is not loaded');
  });
}

/** The REST adapter's two listeners: the own-login host (with Areas A and D) and the parent-platform host. */
async function startRest(
  config: Config,
  logger: Logger,
  executor: GraphQLExecutor,
  telemetry: Telemetry,
  lifecycle: Lifecycle,
  standIns: StandIns,
  homePages: ListenerHomePages,
): Promise<{ own: RunningHttpServer; parent: RunningHttpServer }> {
  const common = {
    standIns,
    executor,
    logger,
    bodyLimitBytes: config.rest.bodyLimitBytes,
    corsOrigins: config.corsOrigins,
    ownHostname: config.social.ownHostname,
    parentHostname: config.social.parentHostname,
    media: { maxBytes: config.media.maxBytes, base64BodyBytes: config.media.base64BodyBytes },
    telemetry,
    apiDocs: config.rest.apiDocs,
    fields: config.rest.fields,
  };
  // Each listener's API documents name the other host too, known once it listens (ports may be 0).
  const sibling: { parentUrl?: string } = {};
  const own = await listen(
    createRestAdapter({ ...common, socialHost: 'own', siblingUrl: () => sibling.parentUrl, homePage: homePages.rest('own') }).listener,
    listenOptions(config, config.rest.port, restClientErrorFormat('own')),
  );
  lifecycle.http(own);
  homePages.listening('own', own.port);
  const parent = await listen(
    createRestAdapter({ ...common, socialHost: 'parent', siblingUrl: () => own.url, homePage: homePages.rest('parent') }).listener,
    listenOptions(config, config.social.parentPort, restClientErrorFormat('parent')),
  );
  sibling.parentUrl = parent.url;
  lifecycle.http(parent);
  homePages.listening('parent', parent.port);
  return { own, parent };
}

/** One subgraph as its own process (distributed topology), plus the gRPC server when it is the users subgraph. */
export async function startSubgraphProcess(
  config: Config,
  logger: Logger,
  name: SubgraphName,
  options: SystemOptions = {},
): Promise<RunningSystem> {
  const telemetry = startTelemetry(config, `subgraph-${name}`, logger);
  const lifecycle = new Lifecycle(telemetry, logger, config.telemetry.shutdownDelayMs);
  try {
    const database = await openOrShareDatabase(config, logger, telemetry, lifecycle, options);
    const tokens = createTokenService(config.jwt);
    const media = name === 'media' ? await openMedia(config, telemetry, lifecycle) : undefined;
    const built = createSubgraphs(
      {
        config,
        database,
        tokens,
        logger,
        metrics: telemetry.metrics,
        ...(media && { blobs: media.blobs }),
        ...(options.now && { now: options.now }),
      },
      [name],
    );
    media?.startSweeper(built);
    startEventSweeper(config, built, lifecycle);
    await startWebhookDelivery(config, database, built, telemetry, logger, lifecycle);
    const subgraph = built[name]!;
    const server = await createSubgraphServer(subgraph, {
      config,
      formatError: createSubgraphErrorFormatter(logger),
      telemetry,
      logger,
      homePage: subgraphHomePage(config, name),
    });
    lifecycle.resource(() => server.stop());
    const http = await listen(server.httpServer, listenOptions(config, config.subgraph.port ?? 4001, graphqlClientErrorFormat));
    lifecycle.http(http);
    const users = name === 'users' && config.subgraph.usersServesGrpc ? (subgraph as UsersSubgraph) : undefined;
    const grpcAddress = users ? await startGrpc(config, users.service, tokens, logger, telemetry, lifecycle) : undefined;
    return runningSystem(config, tokens, telemetry, lifecycle, {
      database,
      grpcAddress,
      subgraphUrls: { [name]: `${http.url}/graphql` },
    });
  } catch (error) {
    await lifecycle.close();
    throw error;
  }
}

/**
 * The gRPC server of Area A as its own process: the users service on the database, no GraphQL; a small HTTP listener
 * (GRPC_STATUS_PORT) answers /health, /ready and /metrics for it.
 */
export async function startGrpcProcess(config: Config, logger: Logger): Promise<RunningSystem> {
  const telemetry = startTelemetry(config, 'grpc', logger);
  const lifecycle = new Lifecycle(telemetry, logger, config.telemetry.shutdownDelayMs);
  try {
    const database = await openDatabase(config, logger, telemetry, lifecycle);
    const tokens = createTokenService(config.jwt);
    const users = createSubgraphs({ config, database, tokens, logger, metrics: telemetry.metrics }, ['users']).users!;
    const grpcAddress = await startGrpc(config, users.service, tokens, logger, telemetry, lifecycle);
    const app = express();
    app.disable('x-powered-by');
    app.use(telemetry.http('grpc-status'));
    app.use(telemetry.routes());
    app.use(grpcStatusHomePage(config, grpcAddress));
    // The probes are all it serves: anything else is a 404 in the shape of the other answers (google.rpc.Status).
    app.use((req: express.Request, res: express.Response) => {
      res
        .status(404)
        .json(rpcStatus('NOT_FOUND', `no route for ${req.method} ${req.path}: this listener serves /health, /ready and /metrics`));
    });
    const status = await listen(
      app,
      listenOptions(config, config.grpc.statusPort, ({ message }) => rpcStatus('INVALID_ARGUMENT', message)),
    );
    lifecycle.http(status);
    return runningSystem(config, tokens, telemetry, lifecycle, {
      database,
      grpcAddress,
      grpcStatusUrl: status.url,
    });
  } catch (error) {
    await lifecycle.close();
    throw error;
  }
}

/**
 * The gateway and the REST adapter of the distributed topology: subgraphs are reached at their configured URLs, and the
 * adapter calls the gateway in-process, or over HTTP when GATEWAY_URL names another gateway. Ready when the supergraph is
 * loaded (and that other gateway is ready) and some subgraph is ready; DEGRADED, naming them, while others are not.
 */
export async function startGatewayProcess(
  config: Config,
  logger: Logger,
  options: Pick<SystemOptions, 'standIns'> = {},
): Promise<RunningSystem> {
  const telemetry = startTelemetry(config, 'gateway', logger);
  const lifecycle = new Lifecycle(telemetry, logger, config.telemetry.shutdownDelayMs);
  try {
    const tokens = createTokenService(config.jwt);
    const standIns = options.standIns ?? createStandIns(config.standIns, logger);
    telemetry.metrics.trackStandIns(() => standIns.decisions());
    const homePages = createListenerHomePages(config);
    const gateway: GatewayServer = await createGateway({
      config,
      logger,
      supergraph: supergraphSource(config, logger, telemetry),
      localSubgraphs: {},
      formatSubgraphError: createSubgraphErrorFormatter(logger),
      telemetry,
      standIns,
      homePage: homePages.gateway,
    });
    lifecycle.resource(() => gateway.stop());
    addSupergraphCheck(telemetry, gateway);
    if (config.gateway.mode === 'distributed') {
      for (const [name, urls] of Object.entries(config.gateway.subgraphInstances)) {
        // A subgraph none of whose instances is ready (down, or its database is) degrades the gateway: the rest of the
        // supergraph is served.
        telemetry.readiness.add(`subgraph:${name}`, peerReady(`subgraph ${name}`, urls), { degrades: true });
      }
    }
    const gatewayHttp = await listen(gateway.httpServer, listenOptions(config, config.gateway.port, graphqlClientErrorFormat));
    lifecycle.http(gatewayHttp);
    homePages.listening('gateway', gatewayHttp.port);
    let executor: GraphQLExecutor;
    if (config.rest.gatewayUrl) {
      executor = createHttpExecutor(config.rest.gatewayUrl, telemetry.tracing, config.graphql.trustedCallerSecret);
      telemetry.readiness.add('gateway', peerReady('the gateway', config.rest.gatewayUrl));
    } else {
      executor = gateway.door;
    }
    const rest = await startRest(config, logger, executor, telemetry, lifecycle, standIns, homePages);
    return runningSystem(config, tokens, telemetry, lifecycle, {
      gatewayUrl: `${gatewayHttp.url}/graphql`,
      reloadSupergraph: (trigger) => gateway.reloadSupergraph(trigger),
      restUrl: rest.own.url,
      socialParentUrl: rest.parent.url,
      subgraphUrls: config.gateway.subgraphUrls,
    });
  } catch (error) {
    await lifecycle.close();
    throw error;
  }
}
