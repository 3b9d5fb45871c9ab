import { createTokenService } from '../../lib/auth/auth.ts';
import type { Config, SubgraphName } from '../../lib/config.ts';
import { createSubgraphErrorFormatter } from '../../lib/graphql/graphql-errors.ts';
import { graphqlClientErrorFormat } from '../../lib/http/http-client-errors.ts';
import { listen } from '../../lib/http/http-server.ts';
import type { Logger } from '../../lib/logger.ts';
import { createStandIns } from '../../lib/stand-ins/stand-in-gate.ts';
import { createSubgraphs } from '../../subgraphs/index.ts';
import { createSubgraphServer } from '../../subgraphs/subgraph-server.ts';
import type { UsersSubgraph } from '../../subgraphs/users/users-subgraph.ts';
import { startEventLogWorkers } from './event-log-workers.ts';
import { subgraphEngine } from './subgraph-engine.ts';
import { Lifecycle, runningSystem, type RunningSystem, type SystemOptions } from './lifecycle.ts';
import { subgraphHomePage } from './internal-home-pages.ts';
import { listenOptions, openMedia, openOrShareDatabase, startGrpc, startTelemetry } from './system-parts.ts';

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
    const standIns = options.standIns ?? createStandIns(config.standIns, logger);
    telemetry.metrics.trackStandIns(() => standIns.decisions());
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
    await startEventLogWorkers(config, database, built, telemetry, logger, lifecycle, options.now ?? (() => new Date()));
    const subgraph = built[name]!;
    const server = await createSubgraphServer(subgraph, {
      config,
      formatError: createSubgraphErrorFormatter(logger),
      telemetry,
      logger,
      homePage: subgraphHomePage(config, name),
      engine: subgraphEngine(config, telemetry, logger, standIns),
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
