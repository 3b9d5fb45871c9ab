import type { Config } from '../../lib/config.ts';
import type { DatabaseHandle } from '../../lib/database/database.ts';
import { createCallbackClient } from '../../lib/http/callback-client.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Telemetry } from '../../lib/telemetry/telemetry.ts';
import { createSocialTokens, type Subgraphs } from '../../subgraphs/index.ts';
import { createSocialEventSweeper } from '../../subgraphs/shared/event-log/event-log-sweeper.ts';
import type { SocialTables } from '../../subgraphs/shared/social-graph/social-tables.ts';
import { createWebhookDeliveryWorker } from '../../subgraphs/shared/webhooks/webhook-delivery-worker.ts';
import type { Lifecycle } from './lifecycle.ts';

/**
 * The event log's workers, for whichever subgraphs a process serves — the one function every topology starts them with
 * (subgraphs/shared/event-log/README.md says who writes the log and who reads it):
 * - where the comments subgraph is served (it writes most events), the sweeper, which keeps the log within its retention,
 *   and the end of the subscriptions' feed with the process;
 * - where the accounts subgraph is served (it manages the webhook subscriptions), webhook delivery: any number of such
 *   processes share the work through leased cursors, woken by NOTIFY with a poll as the safety net.
 * Each stops before the database closes (resources added after the database's).
 */
export async function startEventLogWorkers(
  config: Config,
  database: DatabaseHandle,
  subgraphs: Partial<Subgraphs>,
  telemetry: Telemetry,
  logger: Logger,
  lifecycle: Lifecycle,
  /** The clock of the log's retention (the system's: tests drive it). */
  now: () => Date,
): Promise<void> {
  const db = database.db.withTables<SocialTables>();
  const comments = subgraphs.comments;
  if (comments) {
    const sweeper = createSocialEventSweeper({
      db,
      now,
      retentionMs: config.social.events.retentionHours * 3_600_000,
      logger,
    });
    sweeper.start(config.social.events.sweepIntervalSecs * 1000);
    lifecycle.resource(() => sweeper.stop());
    lifecycle.resource(() => comments.close());
  }
  const webhooks = config.social.webhooks;
  if (!subgraphs.accounts || !webhooks.delivery) return;
  const socialTokens = createSocialTokens(database);
  const worker = createWebhookDeliveryWorker({
    db,
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
