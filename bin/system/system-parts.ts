import { fileURLToPath } from 'node:url';
import type { GatewayServer } from '../../gateway/create-gateway.ts';
import type { FetchCache } from '../../gateway/fetch-cache/fetch-cache.ts';
import type { TokenService } from '../../lib/auth/auth.ts';
import type { Config, SubgraphName } from '../../lib/config.ts';
import type { SubgraphCacheViewing } from '../../subgraphs/subgraph.ts';
import type { DatabaseHandle } from '../../lib/database/database.ts';
import type { PgliteTemplateImage } from '../../lib/database/pglite-template-image.ts';
import { createSubgraphErrorFormatter } from '../../lib/graphql/graphql-errors.ts';
import { graphqlClientErrorFormat, type ClientErrorFormat } from '../../lib/http/http-client-errors.ts';
import { listen, type ListenOptions, type RunningHttpServer } from '../../lib/http/http-server.ts';
import type { Logger } from '../../lib/logger.ts';
import type { StandIns } from '../../lib/stand-ins/stand-in-gate.ts';
import { createTelemetry, type Telemetry } from '../../lib/telemetry/telemetry.ts';
import type { GraphQLExecutor } from '../../rest-adapter/graphql-executor.ts';
import { SUPERGRAPH_FILE } from '../../schema/supergraph-file.ts';
import { fileSupergraph, type SupergraphSource } from '../../gateway/supergraph-source.ts';
import type { Subgraphs } from '../../subgraphs/index.ts';
import type { BlobStore } from '../../subgraphs/shared/media-store/blob-store.ts';
import type { UserExampleService } from '../../subgraphs/users/user-example.service.ts';
import type { ListenerHomePages } from './listener-home-pages.ts';
import type { Lifecycle, SystemOptions } from './lifecycle.ts';

/**
 * The parts every process starter (embedded-system.ts, subgraph-process.ts, gateway-process.ts, grpc-process.ts) is built
 * from: telemetry, the database (migrated), the media's blob store, the listeners' options, the gRPC server, the REST
 * adapter's two listeners, and the gateway — built and listening the same way in both topologies and the bench.
 *
 * The gateway, the REST adapter, the gRPC server, the database driver with the subgraphs' migrations and the blob store
 * are loaded by the part that starts them (a dynamic import), not with this module: each process loads only what it
 * serves — a subgraph process neither @apollo/gateway nor the REST adapter, the gateway process no subgraph and no
 * database driver — and a start is mostly module loading.
 */

export function startTelemetry(config: Config, processName: string, logger: Logger): Telemetry {
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
const PGLITE_TEMPLATE = fileURLToPath(new URL('../../pglite-template.tar', import.meta.url));

export async function openDatabase(
  config: Config,
  logger: Logger,
  telemetry: Telemetry,
  lifecycle: Lifecycle,
  pgliteTemplate: string | PgliteTemplateImage = PGLITE_TEMPLATE,
): Promise<DatabaseHandle> {
  const [{ createDatabase, migrateToLatest }, { ALL_MIGRATIONS }] = await Promise.all([
    import('../../lib/database/database.ts'),
    import('../../subgraphs/index.ts'),
  ]);
  const database = await createDatabase(config.database, { pgliteTemplate });
  lifecycle.resource(() => database.close());
  telemetry.observeDatabase(database);
  telemetry.readiness.add('database', () => database.ping());
  const applied = await migrateToLatest(database.db, ALL_MIGRATIONS);
  if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  return database;
}

/** The process's own database, or one shared with another system of the same process (not closed here). */
export async function openOrShareDatabase(
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
export async function openMedia(
  config: Config,
  telemetry: Telemetry,
  lifecycle: Lifecycle,
): Promise<{ blobs: BlobStore; startSweeper(subgraphs: Partial<Subgraphs>): void }> {
  const { openBlobStore } = await import('../../subgraphs/shared/media-store/open-blob-store.ts');
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

/** A listener's address, timeouts, and the format of its answers to requests Node's parser refuses. */
export function listenOptions(config: Config, port: number, clientErrorFormat: ClientErrorFormat): ListenOptions {
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
export async function startGrpc(
  config: Config,
  service: UserExampleService,
  tokens: TokenService,
  logger: Logger,
  telemetry: Telemetry,
  lifecycle: Lifecycle,
  /** The fetch cache's afterWrite, when it is on in this process (a write's reply waits for its changes to reach it). */
  afterWrite?: () => Promise<string | undefined>,
): Promise<string> {
  const [{ createUserExampleGrpcServer }, { bindGrpcServer }] = await Promise.all([
    import('../../subgraphs/users/grpc/user-example.grpc-server.ts'),
    import('../../subgraphs/users/grpc/bind-grpc-server.ts'),
  ]);
  const grpc = createUserExampleGrpcServer({ service, tokens, logger, telemetry, ...(afterWrite && { afterWrite }) });
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

/** What the gateway is built from, whichever topology: the subgraphs in this process (none when distributed). */
export interface GatewayParts {
  config: Config;
  logger: Logger;
  telemetry: Telemetry;
  standIns: StandIns;
  localSubgraphs: Partial<Subgraphs>;
  /** The supergraph it serves: the configured file by default (the bench passes a fixed one). */
  supergraph?: SupergraphSource;
  homePages?: ListenerHomePages;
  /** The fetch cache, when GATEWAY_CACHE turns it on (fetch-cache-follower.ts). */
  fetchCache?: FetchCache;
  /** Distributed, with the cache on: the subgraphs' schemas and viewer rules (subgraphs/cache-viewing.ts). */
  cacheViewing?: Partial<Record<SubgraphName, SubgraphCacheViewing>>;
}

/** The gateway (not listening): the one way every process and the bench build it. */
export async function buildGateway(parts: GatewayParts): Promise<GatewayServer> {
  const { config, logger, telemetry } = parts;
  const { createGateway } = await import('../../gateway/create-gateway.ts');
  return createGateway({
    config,
    logger,
    supergraph: parts.supergraph ?? supergraphSource(config, logger, telemetry),
    localSubgraphs: parts.localSubgraphs,
    formatSubgraphError: createSubgraphErrorFormatter(logger),
    telemetry,
    standIns: parts.standIns,
    ...(parts.homePages && { homePage: parts.homePages.gateway }),
    ...(parts.fetchCache && { fetchCache: parts.fetchCache }),
    ...(parts.cacheViewing && { cacheViewing: parts.cacheViewing }),
  });
}

/** The gateway built, ready once its supergraph is loaded, listening on GATEWAY_PORT, stopped with the process. */
export async function startGatewayListener(
  parts: GatewayParts & { lifecycle: Lifecycle; homePages: ListenerHomePages },
): Promise<{ gateway: GatewayServer; http: RunningHttpServer }> {
  const { config, telemetry, lifecycle } = parts;
  const gateway = await buildGateway(parts);
  lifecycle.resource(() => gateway.stop());
  telemetry.readiness.add('supergraph', async () => {
    if (!gateway.supergraphLoaded()) throw new Error('the supergraph is not loaded');
  });
  const http = await listen(gateway.httpServer, listenOptions(config, config.gateway.port, graphqlClientErrorFormat));
  lifecycle.http(http);
  parts.homePages.listening('gateway', http.port);
  return { gateway, http };
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

/** The REST adapter's two listeners: the own-login host (with Areas A and D) and the parent-platform host. */
export async function startRest(
  config: Config,
  logger: Logger,
  executor: GraphQLExecutor,
  telemetry: Telemetry,
  lifecycle: Lifecycle,
  standIns: StandIns,
  homePages: ListenerHomePages,
): Promise<{ own: RunningHttpServer; parent: RunningHttpServer }> {
  const { createRestAdapter, restClientErrorFormat } = await import('../../rest-adapter/create-rest-adapter.ts');
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
