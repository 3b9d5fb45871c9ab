import { createTokenService } from '../../lib/auth/auth.ts';
import type { Config } from '../../lib/config.ts';
import type { Logger } from '../../lib/logger.ts';
import { createStandIns } from '../../lib/stand-ins/stand-in-gate.ts';
import { createSubgraphs } from '../../subgraphs/index.ts';
import { channelCommandHandlers } from '../tools/channel-commands.ts';
import { startCommandChannel } from '../tools/command-channel.ts';
import { startEventLogWorkers } from './event-log-workers.ts';
import { startFetchCache } from './fetch-cache-follower.ts';
import { Lifecycle, runningSystem, type RunningSystem, type SystemOptions } from './lifecycle.ts';
import { createListenerHomePages } from './listener-home-pages.ts';
import { openMedia, openOrShareDatabase, startGatewayListener, startGrpc, startRest, startTelemetry } from './system-parts.ts';

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
    await startEventLogWorkers(config, database, subgraphs, telemetry, logger, lifecycle, options.now ?? (() => new Date()));

    const standIns = options.standIns ?? createStandIns(config.standIns, logger);
    telemetry.metrics.trackStandIns(() => standIns.decisions());
    const homePages = createListenerHomePages(config);
    const fetchCache = await startFetchCache(config, database, telemetry, logger, lifecycle);
    const { gateway, http: gatewayHttp } = await startGatewayListener({
      ...(fetchCache && { fetchCache }),
      config: { ...config, gateway: { ...config.gateway, mode: 'embedded' } },
      logger,
      telemetry,
      standIns,
      localSubgraphs: subgraphs,
      lifecycle,
      homePages,
    });

    const rest = await startRest(config, logger, gateway.door, telemetry, lifecycle, standIns, homePages);
    const grpcAddress = await startGrpc(
      config,
      subgraphs.users!.service,
      tokens,
      logger,
      telemetry,
      lifecycle,
      fetchCache && (() => fetchCache.afterWrite()),
    );

    // The embedded database admits this process alone: `npm run seed`, `social-token` and `social-app` ask it to run
    // their command (bin/tools/command-channel.ts, bin/tools/channel-commands.ts), with the URLs it listens on and its
    // own secrets, so the tokens printed work against it. A convenience: without it the system still serves (the tools
    // then say the database is in use).
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
