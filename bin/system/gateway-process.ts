import { createTokenService } from '../../lib/auth/auth.ts';
import type { Config } from '../../lib/config.ts';
import type { Logger } from '../../lib/logger.ts';
import { createStandIns } from '../../lib/stand-ins/stand-in-gate.ts';
import { peerReady } from '../../lib/telemetry/readiness.ts';
import { createHttpExecutor, type GraphQLExecutor } from '../../rest-adapter/graphql-executor.ts';
import { Lifecycle, runningSystem, type RunningSystem, type SystemOptions } from './lifecycle.ts';
import { createListenerHomePages } from './listener-home-pages.ts';
import { openOrShareDatabase, startGatewayListener, startRest, startTelemetry } from './system-parts.ts';
import { startFetchCache } from './fetch-cache-follower.ts';
import type { TokenService } from '../../lib/auth/auth.ts';
import type { Telemetry } from '../../lib/telemetry/telemetry.ts';
import type { FetchCache } from '../../gateway/fetch-cache/fetch-cache.ts';
import type { SubgraphCacheViewing } from '../../subgraphs/subgraph.ts';
import type { SubgraphName } from '../../lib/config.ts';

/**
 * The gateway and the REST adapter of the distributed topology: subgraphs are reached at their configured URLs, and the
 * adapter calls the gateway in-process, or over HTTP when GATEWAY_URL names another gateway. Ready when the supergraph is
 * loaded (and that other gateway is ready) and some subgraph is ready; DEGRADED, naming them, while others are not.
 */
export async function startGatewayProcess(
  config: Config,
  logger: Logger,
  options: Pick<SystemOptions, 'standIns' | 'database' | 'now'> = {},
): Promise<RunningSystem> {
  const telemetry = startTelemetry(config, 'gateway', logger);
  const lifecycle = new Lifecycle(telemetry, logger, config.telemetry.shutdownDelayMs);
  try {
    const tokens = createTokenService(config.jwt);
    const standIns = options.standIns ?? createStandIns(config.standIns, logger);
    telemetry.metrics.trackStandIns(() => standIns.decisions());
    const homePages = createListenerHomePages(config);
    const cached = await startDistributedFetchCache(config, logger, telemetry, lifecycle, tokens, options);
    const { gateway, http: gatewayHttp } = await startGatewayListener({
      ...cached,
      config,
      logger,
      telemetry,
      standIns,
      localSubgraphs: {},
      lifecycle,
      homePages,
    });
    if (config.gateway.mode === 'distributed') {
      for (const [name, urls] of Object.entries(config.gateway.subgraphInstances)) {
        // A subgraph none of whose instances is ready (down, or its database is) degrades the gateway: the rest of the
        // supergraph is served.
        telemetry.readiness.add(`subgraph:${name}`, peerReady(`subgraph ${name}`, urls), { degrades: true });
      }
    }
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

/**
 * The fetch cache of a gateway process (GATEWAY_CACHE): it follows the change log, so this process opens the shared
 * PostgreSQL database (DATABASE_URL: PGlite is one process's own), and keys replies with the subgraphs' own viewer rules
 * (subgraphs/cache-viewing.ts, loaded only then), on the subgraphs' clock (token expiry). Nothing when the cache is off: the gateway process opens no database.
 */
async function startDistributedFetchCache(
  config: Config,
  logger: Logger,
  telemetry: Telemetry,
  lifecycle: Lifecycle,
  tokens: TokenService,
  options: Pick<SystemOptions, 'database' | 'now'>,
): Promise<{ fetchCache?: FetchCache; cacheViewing?: Partial<Record<SubgraphName, SubgraphCacheViewing>> }> {
  if (config.gateway.cache.mode === 'off' || config.gateway.mode !== 'distributed') return {};
  if (!options.database && config.database.url === undefined) {
    if (!config.gateway.cache.chosen) {
      // The default (memory) needs the shared database's change log; a gateway process without one serves uncached.
      logger.info('fetch cache off: a gateway process follows the change log of the shared database, and DATABASE_URL is not set');
      return {};
    }
    throw new Error('GATEWAY_CACHE needs DATABASE_URL in a gateway process: it follows the change log of the shared PostgreSQL database');
  }
  const database = await openOrShareDatabase(config, logger, telemetry, lifecycle, options);
  const fetchCache = await startFetchCache(config, database, telemetry, logger, lifecycle);
  const { createCacheViewing } = await import('../../subgraphs/cache-viewing.ts');
  return {
    ...(fetchCache && { fetchCache }),
    cacheViewing: createCacheViewing({
      database,
      tokens,
      rateLimits: config.social.rateLimits,
      ...(options.now && { now: options.now }),
    }),
  };
}
