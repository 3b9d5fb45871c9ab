import { createFetchCache, type FetchCache } from '../../gateway/fetch-cache/fetch-cache.ts';
import type { Config } from '../../lib/config.ts';
import type { DatabaseHandle } from '../../lib/database/database.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Telemetry } from '../../lib/telemetry/telemetry.ts';
import { createChangeFollower } from '../../subgraphs/shared/event-log/change-follower.ts';
import type { SocialTables } from '../../subgraphs/shared/social-graph/social-tables.ts';
import type { Lifecycle } from './lifecycle.ts';

/**
 * The gateway's fetch cache (gateway/fetch-cache/) and the change log's follower that invalidates it
 * (subgraphs/shared/event-log/change-follower.ts), when GATEWAY_CACHE turns it on: each change the follower reads
 * evicts what it touched; a lost log drops the cache, which serves nothing until the log is followed again. The
 * follower starts before the gateway serves and stops before the database closes.
 */
export async function startFetchCache(
  config: Config,
  database: DatabaseHandle,
  telemetry: Telemetry,
  logger: Logger,
  lifecycle: Lifecycle,
): Promise<FetchCache | undefined> {
  const settings = config.gateway.cache;
  if (settings.mode === 'off') return undefined;
  const follower = createChangeFollower({
    db: database.db.withTables<SocialTables>(),
    listen: database.listen,
    logger,
    onChanges: (changes) => cache.applyChanges(changes.flatMap((change) => change.keys)),
    onLost: () => cache.dropAll(),
    pollIntervalMs: settings.pollIntervalMs,
  });
  const cache = createFetchCache(settings, () => follower);
  await follower.start();
  lifecycle.resource(() => follower.close());
  telemetry.metrics.trackFetchCache(() => cache.stats());
  logger.info({ mode: settings.mode, maxEntries: settings.maxEntries, maxBytes: settings.maxBytes }, 'gateway fetch cache on');
  return cache;
}
