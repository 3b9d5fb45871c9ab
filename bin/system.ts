import { createGateway, type GatewayServer } from '../gateway/create-gateway.ts';
import { createTokenService, type TokenService } from '../lib/auth.ts';
import type { Config, SubgraphName } from '../lib/config.ts';
import { createDatabase, migrateToLatest, type DatabaseHandle } from '../lib/database.ts';
import { createSubgraphErrorFormatter } from '../lib/graphql-errors.ts';
import { listen, type RunningHttpServer } from '../lib/http-server.ts';
import type { Logger } from '../lib/logger.ts';
import { createRestAdapter } from '../rest-adapter/create-rest-adapter.ts';
import { createSocialRateLimiter } from '../rest-adapter/social/social-rate-limiter.ts';
import { createHttpExecutor, createInProcessExecutor, type GraphQLExecutor } from '../rest-adapter/graphql-executor.ts';
import { readSupergraph } from '../schema/supergraph-config.ts';
import { bindGrpcServer } from '../subgraphs/users/grpc/bind-grpc-server.ts';
import { createUserExampleGrpcServer } from '../subgraphs/users/grpc/user-example.grpc-server.ts';
import { ALL_MIGRATIONS, createSubgraphs, type Subgraphs } from '../subgraphs/index.ts';
import { createLocalBlobStore, type BlobStore } from '../subgraphs/media-store/blob-store.ts';
import { createSubgraphServer } from '../subgraphs/subgraph-server.ts';
import type { UsersSubgraph } from '../subgraphs/users/users-subgraph.ts';

/**
 * The composition root: wires configuration, database, subgraphs, gateway, REST adapter and gRPC server into the
 * processes the entrypoints run. Tests and the bench use these functions too, so every run wires the system the same way.
 */

export interface RunningService {
  name: string;
  url: string;
  close(): Promise<void>;
}

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
  subgraphUrls: Partial<Record<SubgraphName, string>>;
  /** Stops listeners first (draining in-flight requests), then closes the database. */
  close(): Promise<void>;
}

async function openDatabase(config: Config, logger: Logger): Promise<DatabaseHandle> {
  const database = await createDatabase(config.database);
  const applied = await migrateToLatest(database.db, ALL_MIGRATIONS);
  if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  return database;
}

/** The blob store of a process that hosts the media subgraph, and its sweeper, started; both stop on close. */
async function openMedia(
  config: Config,
  closers: (() => Promise<void>)[],
): Promise<{ blobs: BlobStore; startSweeper(subgraphs: Partial<Subgraphs>): void }> {
  const blobs = await createLocalBlobStore(config.media.blobDir);
  closers.push(() => blobs.close());
  return {
    blobs,
    startSweeper(subgraphs) {
      const sweeper = subgraphs.media?.sweeper;
      if (!sweeper) return;
      sweeper.start(config.media.sweepIntervalSecs * 1000);
      closers.push(() => sweeper.stop());
    },
  };
}

async function closeAll(closers: (() => Promise<void>)[], logger: Logger): Promise<void> {
  for (const close of closers.reverse()) {
    try {
      await close();
    } catch (error) {
      logger.warn({ err: error }, 'error while shutting down');
    }
  }
}

/**
 * Everything in one process (what `npm start` runs): subgraphs in the gateway's process, the REST adapter calling the
 * gateway in-process, the gRPC server beside them, all on one database.
 */
export interface SystemOptions {
  /** The clock of the social graph's expiry rules; tests drive it. */
  now?: () => Date;
}

export async function startEmbeddedSystem(config: Config, logger: Logger, options: SystemOptions = {}): Promise<RunningSystem> {
  const closers: (() => Promise<void>)[] = [];
  try {
    const database = await openDatabase(config, logger);
    closers.push(() => database.close());
    const tokens = createTokenService(config.jwt);
    const media = await openMedia(config, closers);
    const subgraphs = createSubgraphs({ config, database, tokens, logger, blobs: media.blobs, ...(options.now && { now: options.now }) });
    media.startSweeper(subgraphs);
    const formatSubgraphError = createSubgraphErrorFormatter(logger);

    const gateway = await createGateway({
      config: { ...config, gateway: { ...config.gateway, mode: 'embedded' } },
      logger,
      supergraphSdl: readSupergraph(),
      localSubgraphs: subgraphs,
      formatSubgraphError,
    });
    closers.push(() => gateway.stop());
    const gatewayHttp = await listen(gateway.httpServer, { port: config.gateway.port, host: config.host, publicHost: config.publicHost });
    closers.push(() => gatewayHttp.close());

    const rest = await startRest(config, logger, createInProcessExecutor(gateway.apollo), options);
    closers.push(() => rest.own.close(), () => rest.parent.close());

    const grpcServer = createUserExampleGrpcServer({ service: subgraphs.users!.service, tokens, logger });
    const grpc = await bindGrpcServer(grpcServer, config.host, config.grpc.port);
    closers.push(() => grpc.close());

    return {
      config,
      tokens,
      database,
      gatewayUrl: `${gatewayHttp.url}/graphql`,
      restUrl: rest.own.url,
      socialParentUrl: rest.parent.url,
      grpcAddress: `${config.publicHost}:${grpc.port}`,
      subgraphUrls: {},
      close: () => closeAll(closers, logger),
    };
  } catch (error) {
    await closeAll(closers, logger);
    throw error;
  }
}

/** The REST adapter's two listeners: the own-login host (with Areas A and D) and the parent-platform host. */
async function startRest(
  config: Config,
  logger: Logger,
  executor: GraphQLExecutor,
  options: SystemOptions = {},
): Promise<{ own: RunningHttpServer; parent: RunningHttpServer }> {
  const now = options.now;
  const common = {
    socialRateLimiter: createSocialRateLimiter(config.social.rateLimits, now ? () => now().getTime() : Date.now),
    executor,
    logger,
    bodyLimitBytes: config.rest.bodyLimitBytes,
    corsOrigins: config.corsOrigins,
    ownHostname: config.social.ownHostname,
    parentHostname: config.social.parentHostname,
    media: { maxBytes: config.media.maxBytes, base64BodyBytes: config.media.base64BodyBytes },
  };
  const listenOptions = { host: config.host, publicHost: config.publicHost };
  const own = await listen(createRestAdapter({ ...common, socialHost: 'own' }), { ...listenOptions, port: config.rest.port });
  try {
    const parent = await listen(createRestAdapter({ ...common, socialHost: 'parent' }), {
      ...listenOptions,
      port: config.social.parentPort,
    });
    return { own, parent };
  } catch (error) {
    await own.close();
    throw error;
  }
}

/** One subgraph as its own process (distributed topology), plus the gRPC server when it is the users subgraph. */
export async function startSubgraphProcess(
  config: Config,
  logger: Logger,
  name: SubgraphName,
  options: SystemOptions & {
    /** A database handle to share (several subgraphs in one test process on one in-memory database); not closed here. */
    database?: DatabaseHandle;
  } = {},
): Promise<RunningSystem> {
  const closers: (() => Promise<void>)[] = [];
  try {
    const database = options.database ?? (await openDatabase(config, logger));
    if (!options.database) closers.push(() => database.close());
    const tokens = createTokenService(config.jwt);
    const media = name === 'media' ? await openMedia(config, closers) : undefined;
    const built = createSubgraphs(
      { config, database, tokens, logger, ...(media && { blobs: media.blobs }), ...(options.now && { now: options.now }) },
      [name],
    );
    media?.startSweeper(built);
    const subgraph = built[name]!;
    const users = name === 'users' ? (subgraph as UsersSubgraph) : undefined;
    const server = await createSubgraphServer(subgraph, { config, formatError: createSubgraphErrorFormatter(logger) });
    closers.push(() => server.stop());
    const http = await listen(server.httpServer, {
      port: config.subgraph.port ?? 4001,
      host: config.host,
      publicHost: config.publicHost,
    });
    closers.push(() => http.close());
    let grpcAddress: string | undefined;
    if (users) {
      const grpc = await bindGrpcServer(
        createUserExampleGrpcServer({ service: users.service, tokens, logger }),
        config.host,
        config.grpc.port,
      );
      closers.push(() => grpc.close());
      grpcAddress = `${config.publicHost}:${grpc.port}`;
    }
    return {
      config,
      tokens,
      database,
      gatewayUrl: undefined,
      restUrl: undefined,
      socialParentUrl: undefined,
      grpcAddress,
      subgraphUrls: { [name]: `${http.url}/graphql` },
      close: () => closeAll(closers, logger),
    };
  } catch (error) {
    await closeAll(closers, logger);
    throw error;
  }
}

/**
 * The gateway and the REST adapter of the distributed topology: subgraphs are reached at their configured URLs, and the
 * adapter calls the gateway in-process, or over HTTP when GATEWAY_URL names another gateway.
 */
export async function startGatewayProcess(config: Config, logger: Logger): Promise<RunningSystem> {
  const closers: (() => Promise<void>)[] = [];
  try {
    const tokens = createTokenService(config.jwt);
    const gateway: GatewayServer = await createGateway({
      config,
      logger,
      supergraphSdl: readSupergraph(),
      localSubgraphs: {},
      formatSubgraphError: createSubgraphErrorFormatter(logger),
    });
    closers.push(() => gateway.stop());
    const gatewayHttp = await listen(gateway.httpServer, { port: config.gateway.port, host: config.host, publicHost: config.publicHost });
    closers.push(() => gatewayHttp.close());
    const executor = config.rest.gatewayUrl ? createHttpExecutor(config.rest.gatewayUrl) : createInProcessExecutor(gateway.apollo);
    const rest = await startRest(config, logger, executor);
    closers.push(() => rest.own.close(), () => rest.parent.close());
    return {
      config,
      tokens,
      database: undefined,
      gatewayUrl: `${gatewayHttp.url}/graphql`,
      restUrl: rest.own.url,
      socialParentUrl: rest.parent.url,
      grpcAddress: undefined,
      subgraphUrls: config.gateway.subgraphUrls,
      close: () => closeAll(closers, logger),
    };
  } catch (error) {
    await closeAll(closers, logger);
    throw error;
  }
}
