import type { SubgraphMigrations } from '../../../../lib/database/database.ts';
import * as core from './2026-11-21-001-core.ts';
import * as accountEdges from './2026-11-21-002-account-edges.ts';
import * as rateCounters from './2026-11-24-001-rate-counters.ts';
import * as eventLog from './2026-11-27-001-event-log.ts';
import * as webhookSubscriptions from './2026-11-27-002-webhook-subscriptions.ts';
import * as eventHorizon from './2026-11-28-001-event-horizon.ts';
import * as changeLog from './2026-12-03-001-change-log.ts';
import * as logIdentity from './2026-12-03-002-log-identity.ts';

/** Migrations of the social data store shared by the comments and accounts subgraphs. */
export const socialMigrations: SubgraphMigrations = {
  schema: 'social',
  migrations: {
    '2026-11-21-001-core': core,
    '2026-11-21-002-account-edges': accountEdges,
    '2026-11-24-001-rate-counters': rateCounters,
    '2026-11-27-001-event-log': eventLog,
    '2026-11-27-002-webhook-subscriptions': webhookSubscriptions,
    '2026-11-28-001-event-horizon': eventHorizon,
    '2026-12-03-001-change-log': changeLog,
    '2026-12-03-002-log-identity': logIdentity,
  },
};
