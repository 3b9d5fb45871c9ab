import type { Logger } from '../../../lib/logger.ts';
import type { SocialDb } from '../social-graph/social-tables.ts';
import { sweepEventsBefore } from './event-log.repository.ts';

/**
 * Keeps the event log bounded: events older than the retention (SOCIAL_EVENTS_RETENTION_HOURS, 48 h by default — past
 * the 36 h for which the Graph API retries a webhook delivery, so no delivery still owed loses its event) are deleted.
 * Safe in several processes at once: a delete of rows another sweep took is a delete of nothing.
 */
export interface SocialEventSweeper {
  /** One pass; returns how many events were removed. */
  sweep(): Promise<number>;
  start(intervalMs: number): void;
  stop(): Promise<void>;
}

export function createSocialEventSweeper(deps: { db: SocialDb; now: () => Date; retentionMs: number; logger: Logger }): SocialEventSweeper {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;

  async function sweep(): Promise<number> {
    const removed = await sweepEventsBefore(deps.db, new Date(deps.now().getTime() - deps.retentionMs));
    if (removed > 0) deps.logger.info({ removed }, 'events past their retention swept');
    return removed;
  }

  return {
    sweep,
    start(intervalMs) {
      if (timer) return;
      timer = setInterval(() => {
        if (running) return;
        running = sweep()
          .catch((error: unknown) => deps.logger.warn({ err: error }, 'event sweep failed; the next pass tries again'))
          .finally(() => (running = undefined));
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
