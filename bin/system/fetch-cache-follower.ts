import { createFetchCache, type FetchCache } from '../../gateway/fetch-cache/fetch-cache.ts';
import type { Config } from '../../lib/config.ts';
import type { DatabaseHandle } from '../../lib/database/database.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Telemetry } from '../../lib/telemetry/telemetry.ts';
import { createChangeFollower } from '../../subgraphs/shared/event-log/change-follower.ts';
import { logIdentity } from '../../subgraphs/shared/event-log/event-log.repository.ts';
import { randomUUID } from 'node:crypto';
import type { SocialTables } from '../../subgraphs/shared/social-graph/social-tables.ts';
import type { Lifecycle } from './lifecycle.ts';

/**
 * The gateway's fetch cache (gateway/fetch-cache/) and the change log's follower that invalidates it
 * (subgraphs/shared/event-log/change-follower.ts), when GATEWAY_CACHE turns it on: each change the follower reads
 * evicts what it touched; a lost log drops the cache, which serves nothing until the log is followed again. The
 * follower starts before the gateway serves and stops before the database closes. With GATEWAY_CACHE=redis, replies are
 * shared through Redis too (gateway/fetch-cache/shared-level.ts).
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
  const db = database.db.withTables<SocialTables>();
  const follower = createChangeFollower({
    db,
    listen: database.listen,
    logger,
    onChanges: (changes) => cache.applyChanges(changes),
    onLost: () => cache.dropAll(),
    onFollowed: (position) => cache.followFrom(position),
    pollIntervalMs: settings.pollIntervalMs,
  });
  const shared = settings.mode === 'redis' ? await openSharedLevel(config, logger, await logIdentity(db, randomUUID())) : undefined;
  const cache = createFetchCache(settings, () => follower, shared);
  lifecycle.resource(() => cache.close());
  await follower.start();
  lifecycle.resource(() => follower.close());
  telemetry.metrics.trackFetchCache(() => cache.stats());
  logger.info({ mode: settings.mode, maxEntries: settings.maxEntries, maxBytes: settings.maxBytes }, 'gateway fetch cache on');
  return cache;
}

/** The shared level in Redis (ioredis, loaded only then); its outages are logged once each way, never raised. */
async function openSharedLevel(config: Config, logger: Logger, namespace: string) {
  const { openRedisSharedLevel } = await import('../../gateway/fetch-cache/shared-level.ts');
  return openRedisSharedLevel({
    namespace,
    url: config.gateway.cache.redisUrl,
    timeoutMs: config.gateway.cache.redisTimeoutMs,
    onAvailability: (available, error) =>
      available
        ? logger.info('fetch cache: Redis answers again; the shared level serves')
        : logger.warn({ err: error }, 'fetch cache: Redis does not answer; the local level serves alone'),
  });
}
