import type { CallbackClient, CallbackResponse } from '../../../lib/http/callback-client.ts';
import type { Logger } from '../../../lib/logger.ts';
import type { WebhookDeliveryOutcome } from '../../../lib/telemetry/metrics.ts';
import type { SocialDb } from '../social-graph/social-tables.ts';
import { EVENT_CHANNEL } from '../event-log/event-log.repository.ts';
import {
  claimCursor,
  ensureCursors,
  readBatch,
  recordDelivered,
  recordDropped,
  recordFailed,
  recordSkipped,
  releaseCursor,
  webhookQueue,
  type ClaimedCursor,
  type WebhookQueueEntry,
} from './webhook-delivery.repository.ts';
import { deliveryIdentity, signedDelivery, webhookPayload } from './webhook-payload.ts';

/**
 * Delivers the event log to webhook callbacks (reference §6.4; issue 26, item 3). Any number of processes run one each:
 * a worker takes one subscription's cursor at a time with a lease (webhook-delivery.repository.ts), sends its next batch
 * signed (webhook-payload.ts) through the SSRF-checked client, and records the answer. So:
 *
 * - at least once, in log order per callback: a cursor moves only when its batch was answered 2xx (or dropped); a batch
 *   that failed is sent again, the same range under the same identity, before anything after it;
 * - several processes share the work without sending a batch twice in a normal run (a cursor is taken FOR UPDATE SKIP
 *   LOCKED, then leased); a process killed mid-delivery leaves its lease to expire, and the batch goes out again;
 * - a slow or dead callback holds one of `concurrency` slots for at most the client's response timeout and is then put
 *   off by its backoff, while the other cursors are served by the other slots;
 * - retried with backoff (immediately once, then 10 s, 1 min, 5 min, 15 min, 1 h, then every 3 h) until the batch's first
 *   failure is `retryWindowMs` (36 h) old; then it is dropped and counted (dropped_total, the metrics);
 * - woken by NOTIFY on the event log's channel when `listen` is given, and by a poll every `pollIntervalMs` in any case
 *   (the poll also writes missing cursors, and takes up cursors whose lease expired or whose retry fell due).
 *
 * A 2xx answer is success; anything else — a 3xx (redirects are never followed), 4xx, 5xx, a timeout, a refusal by the
 * SSRF check, an app without a secret — a failure to retry. Nothing here throws into the process: every failure is
 * logged and left to a later pass. Logs name the app, object, attempt and status, never a secret or the callback URL
 * (which may carry credentials), and a failing callback is logged when its state changes (first failure, dropped,
 * recovered), not at every attempt.
 */

export type { WebhookDeliveryOutcome };

export interface WebhookDeliveryOptions {
  /** Deliveries in flight at once in this process (4). */
  concurrency: number;
  /** How long a worker holds a cursor (60 s): more than the callback client's response timeout plus a few statements. */
  leaseMs: number;
  /** The safety-net poll (5 s): what wakes the worker when no NOTIFY does. */
  pollIntervalMs: number;
  /** How long a failing batch is retried, from its first failure (36 h), before it is dropped. */
  retryWindowMs: number;
  /** Waits after the 1st, 2nd, … failure of a batch; the last repeats (immediately, 10 s, 1 min, 5 min, 15 min, 1 h, 3 h). */
  backoffMs: readonly number[];
  /** Events per delivery, at most (100). */
  batchSize: number;
}

export const DEFAULT_WEBHOOK_DELIVERY_OPTIONS: Readonly<WebhookDeliveryOptions> = Object.freeze({
  concurrency: 4,
  leaseMs: 60_000,
  pollIntervalMs: 5000,
  retryWindowMs: 36 * 3_600_000,
  backoffMs: Object.freeze([0, 10_000, 60_000, 300_000, 900_000, 3_600_000, 3 * 3_600_000]),
  batchSize: 100,
});

/** How long after a retry falls due this process wakes for it (see scheduleRetry). */
const RETRY_WAKE_MARGIN_MS = 10;

export interface WebhookDeliveryWorkerDeps {
  db: SocialDb;
  /** The secret that signs deliveries to an app (undefined: no such app; its deliveries fail until it exists again). */
  appSecret(appId: string): Promise<string | undefined>;
  client: CallbackClient;
  /** The time an entry is sent at (`entry[].time`) and the queue's age is measured against. */
  now?: () => Date;
  logger: Logger;
  options?: Partial<WebhookDeliveryOptions>;
  /** Subscribes to NOTIFY (DatabaseHandle.listen): without it, the worker only polls. */
  listen?: (channel: string, onNotify: (payload: string) => void) => Promise<() => Promise<void>>;
  /** Told of each delivery's outcome and its number of events (lib/telemetry/metrics.ts observeWebhookDelivery). */
  metrics?: { observeWebhookDelivery(outcome: WebhookDeliveryOutcome, events: number): void };
}

/** What the subscriptions have still to receive, for metrics. */
export interface WebhookQueueStats {
  /** Undelivered events, all subscriptions together. */
  undelivered: number;
  /** Age of the oldest undelivered event in seconds (0 when there is none). */
  oldestAgeSeconds: number;
  cursors: WebhookQueueEntry[];
}

export interface WebhookDeliveryWorker {
  /** Starts listening and polling; resolves once started. */
  start(): Promise<void>;
  /** Stops taking work and waits for the deliveries in flight (at most the client's response timeout). */
  stop(): Promise<void>;
  /** Looks for work now (what a NOTIFY does). */
  wake(): void;
  /** Tests: serves every cursor due until none is; returns how many batches were handled (sent, skipped or dropped). */
  runOnce(): Promise<number>;
  /** The queue, for metrics (tributary_webhook_queue_*). */
  queueStats(): Promise<WebhookQueueStats>;
}

export function createWebhookDeliveryWorker(deps: WebhookDeliveryWorkerDeps): WebhookDeliveryWorker {
  const options: WebhookDeliveryOptions = { ...DEFAULT_WEBHOOK_DELIVERY_OPTIONS, ...deps.options };
  checkOptions(options);
  const worker: DeliveryWorkerContext = {
    deps,
    options,
    db: deps.db,
    client: deps.client,
    now: deps.now ?? (() => new Date()),
    logger: deps.logger.child({ component: 'webhook-delivery' }),
    state: 'idle',
    active: 0,
    wakeups: 0,
    pollTimer: undefined,
    unlisten: undefined,
    retryTimers: new Map(),
    inFlight: new Set(),
  };
  return {
    start: () => startWorker(worker),
    stop: () => stopWorker(worker),
    wake: () => wake(worker),
    runOnce: () => runOnce(worker),
    queueStats: () => queueStats(worker),
  };
}

/** What the worker's functions share: its settings and dependencies, and the state of its run in this process. */
interface DeliveryWorkerContext {
  readonly deps: WebhookDeliveryWorkerDeps;
  readonly options: WebhookDeliveryOptions;
  readonly db: SocialDb;
  readonly client: CallbackClient;
  readonly now: () => Date;
  readonly logger: Logger;
  state: 'idle' | 'running' | 'stopping';
  /** Slots running. */
  active: number;
  /** Counts wake-ups, so that a slot that found nothing looks again when one came while it looked. */
  wakeups: number;
  pollTimer: NodeJS.Timeout | undefined;
  unlisten: (() => Promise<void>) | undefined;
  readonly retryTimers: Map<string, NodeJS.Timeout>;
  readonly inFlight: Set<Promise<unknown>>;
}

function track(worker: DeliveryWorkerContext, promise: Promise<unknown>): void {
  worker.inFlight.add(promise);
  const done = () => void worker.inFlight.delete(promise);
  promise.then(done, done);
}

/** The wait after the `failures`-th failure, cut so the next attempt falls no later than the retry window's end. */
function retryDelay(worker: DeliveryWorkerContext, cursor: ClaimedCursor, failures: number, elapsedMs: number): number {
  const { options } = worker;
  const delay = options.backoffMs[Math.min(failures, options.backoffMs.length) - 1] ?? 0;
  const atNow = cursor.now.getTime() + elapsedMs;
  const firstFailed = cursor.firstFailedAt?.getTime() ?? atNow;
  return Math.max(0, Math.min(delay, firstFailed + options.retryWindowMs - atNow));
}

/** Sends one claimed cursor's next batch and records what came of it. */
async function deliver(worker: DeliveryWorkerContext, cursor: ClaimedCursor): Promise<void> {
  const { db, deps, logger, options } = worker;
  const started = performance.now();
  const context = { appId: cursor.appId, object: cursor.object };
  const batch = await readBatch(db, cursor, options.batchSize);
  const expired =
    cursor.pendingTo !== null &&
    cursor.firstFailedAt !== null &&
    cursor.now.getTime() - cursor.firstFailedAt.getTime() >= options.retryWindowMs;
  if (expired) {
    if (await recordDropped(db, cursor, { to: batch.to, count: batch.events.length })) {
      logger.warn(
        {
          ...context,
          attempts: cursor.attempts,
          events: batch.events.length,
          delivery: deliveryIdentity(cursor.appId, cursor.object, batch.from, batch.to),
        },
        'webhook batch dropped: its callback failed for the whole retry window',
      );
      deps.metrics?.observeWebhookDelivery('dropped', batch.events.length);
    }
    return;
  }
  if (batch.to === batch.from) {
    await releaseCursor(db, cursor);
    return;
  }
  if (batch.events.length === 0) {
    await recordSkipped(db, cursor, batch.to);
    return;
  }

  const identity = deliveryIdentity(cursor.appId, cursor.object, batch.from, batch.to);
  const secret = await deps.appSecret(cursor.appId);
  let outcome: { ok: true; status: number } | { ok: false; status?: number; reason: string; message?: string };
  if (secret === undefined) {
    outcome = { ok: false, reason: 'no_app', message: 'the app has no secret to sign with (no such app)' };
  } else {
    const delivery = signedDelivery(webhookPayload(cursor.object, batch.events, cursor.includeValues, worker.now()), secret, identity);
    outcome = describe(
      await worker.client.request({ method: 'POST', url: cursor.callbackUrl, headers: delivery.headers, body: delivery.body }),
    );
  }

  const attempt = cursor.attempts + 1;
  if (outcome.ok) {
    if (await recordDelivered(db, cursor, { to: batch.to, count: batch.events.length })) {
      if (cursor.attempts > 0)
        logger.info({ ...context, attempt, status: outcome.status, delivery: identity }, 'webhook callback recovered: batch delivered');
      deps.metrics?.observeWebhookDelivery('delivered', batch.events.length);
    } else {
      logger.debug({ ...context, delivery: identity }, 'webhook lease lost before the answer was recorded; the batch goes out again');
    }
    return;
  }
  const delay = retryDelay(worker, cursor, attempt, performance.now() - started);
  if (await recordFailed(db, cursor, { to: batch.to }, delay)) {
    const { ok: _ok, ...failure } = outcome;
    if (cursor.attempts === 0)
      logger.warn(
        { ...context, attempt, ...failure, delivery: identity, retryInMs: delay },
        'webhook delivery failed; retrying with backoff',
      );
    else logger.debug({ ...context, attempt, ...failure, delivery: identity, retryInMs: delay }, 'webhook delivery failed again');
    deps.metrics?.observeWebhookDelivery('failed', batch.events.length);
    scheduleRetry(worker, `${cursor.appId}:${cursor.object}`, delay);
  }
}

/**
 * Wakes this process when a retry falls due before the next poll would (other processes find it by polling). A little
 * after it: the attempt is due by the database's clock, rounded to the millisecond, and a timer may fire a millisecond
 * early; woken too early, the worker would find nothing due and wait for the poll.
 */
function scheduleRetry(worker: DeliveryWorkerContext, key: string, delay: number): void {
  if (worker.state !== 'running' || delay >= worker.options.pollIntervalMs) return;
  clearTimeout(worker.retryTimers.get(key));
  const timer = setTimeout(() => {
    worker.retryTimers.delete(key);
    wake(worker);
  }, delay + RETRY_WAKE_MARGIN_MS);
  timer.unref();
  worker.retryTimers.set(key, timer);
}

/** Delivers a claimed cursor; a failure of the database mid-way is logged, and the lease left to expire. */
async function deliverClaimed(worker: DeliveryWorkerContext, cursor: ClaimedCursor): Promise<void> {
  try {
    await deliver(worker, cursor);
  } catch (error) {
    worker.logger.warn(
      { err: error, appId: cursor.appId, object: cursor.object },
      'webhook delivery interrupted; the batch is taken up again after its lease',
    );
  }
}

/** Takes the next cursor due and delivers it; false when none was due. */
async function deliverNext(worker: DeliveryWorkerContext): Promise<boolean> {
  const cursor = await claimCursor(worker.db, worker.options.leaseMs);
  if (!cursor) return false;
  await deliverClaimed(worker, cursor);
  return true;
}

/**
 * One slot: takes cursors and delivers them until none is due. A slot that found work starts another (up to
 * `concurrency`), so that parallelism grows with the work and an idle wake-up costs one claim, not `concurrency`.
 */
async function slot(worker: DeliveryWorkerContext): Promise<void> {
  while (worker.state === 'running') {
    const seen = worker.wakeups;
    let cursor: ClaimedCursor | undefined;
    try {
      cursor = await claimCursor(worker.db, worker.options.leaseMs);
    } catch (error) {
      worker.logger.warn({ err: error }, 'webhook delivery could not take work; the next poll tries again');
      return;
    }
    if (!cursor) {
      // A wake-up that came while this slot looked may be for work its claim did not see yet.
      if (seen === worker.wakeups) return;
      continue;
    }
    spawn(worker);
    await deliverClaimed(worker, cursor);
  }
}

function spawn(worker: DeliveryWorkerContext): void {
  if (worker.state !== 'running' || worker.active >= worker.options.concurrency) return;
  worker.active++;
  const running = slot(worker).finally(() => worker.active--);
  track(worker, running);
}

function wake(worker: DeliveryWorkerContext): void {
  if (worker.state !== 'running') return;
  worker.wakeups++;
  spawn(worker);
}

async function writeMissingCursors(worker: DeliveryWorkerContext): Promise<void> {
  try {
    await ensureCursors(worker.db);
  } catch (error) {
    worker.logger.warn({ err: error }, 'webhook cursors could not be checked; the next poll tries again');
  }
}

/** WebhookDeliveryWorker.start. */
async function startWorker(worker: DeliveryWorkerContext): Promise<void> {
  if (worker.state !== 'idle') return;
  worker.state = 'running';
  if (worker.deps.listen) {
    try {
      worker.unlisten = await worker.deps.listen(EVENT_CHANNEL, () => wake(worker));
    } catch (error) {
      worker.logger.warn({ err: error }, 'webhook delivery cannot listen for events; it polls only');
    }
  }
  const poll = () => {
    const checked = writeMissingCursors(worker).then(() => wake(worker));
    track(worker, checked);
  };
  worker.pollTimer = setInterval(poll, worker.options.pollIntervalMs);
  worker.pollTimer.unref();
  await writeMissingCursors(worker);
  wake(worker);
}

/** WebhookDeliveryWorker.stop. */
async function stopWorker(worker: DeliveryWorkerContext): Promise<void> {
  if (worker.state !== 'running') return;
  worker.state = 'stopping';
  clearInterval(worker.pollTimer);
  for (const timer of worker.retryTimers.values()) clearTimeout(timer);
  worker.retryTimers.clear();
  const stopListening = worker.unlisten;
  worker.unlisten = undefined;
  await stopListening?.().catch((error: unknown) => worker.logger.warn({ err: error }, 'webhook delivery could not stop listening'));
  while (worker.inFlight.size > 0) await Promise.allSettled([...worker.inFlight]);
  worker.state = 'idle';
}

/** WebhookDeliveryWorker.runOnce: `concurrency` lanes deliver until none finds a cursor due. */
async function runOnce(worker: DeliveryWorkerContext): Promise<number> {
  await ensureCursors(worker.db);
  let handled = 0;
  const lane = async () => {
    while (await deliverNext(worker)) handled++;
  };
  const results = await Promise.allSettled(Array.from({ length: worker.options.concurrency }, lane));
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return handled;
}

/** WebhookDeliveryWorker.queueStats. */
async function queueStats(worker: DeliveryWorkerContext): Promise<WebhookQueueStats> {
  const cursors = await webhookQueue(worker.db);
  const at = worker.now().getTime();
  let undelivered = 0;
  let oldest: number | undefined;
  for (const cursor of cursors) {
    undelivered += cursor.undelivered;
    const time = cursor.oldestUndeliveredAt?.getTime();
    if (time !== undefined && (oldest === undefined || time < oldest)) oldest = time;
  }
  return { undelivered, oldestAgeSeconds: oldest === undefined ? 0 : Math.max(0, (at - oldest) / 1000), cursors };
}

/** A callback's answer as a delivery outcome: 2xx is success, anything else a failure and its reason. */
function describe(
  response: CallbackResponse,
): { ok: true; status: number } | { ok: false; status?: number; reason: string; message?: string } {
  if (response.kind === 'response') {
    if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status };
    return {
      ok: false,
      status: response.status,
      reason: response.status >= 300 && response.status < 400 ? 'redirect_not_followed' : 'status',
    };
  }
  return { ok: false, reason: response.kind === 'refused' ? `refused_${response.reason}` : response.reason, message: response.message };
}

function checkOptions(options: WebhookDeliveryOptions): void {
  const positive = (name: keyof WebhookDeliveryOptions, value: number) => {
    if (!Number.isFinite(value) || value <= 0) throw new RangeError(`webhook delivery: ${name} must be a positive number, got ${value}`);
  };
  positive('concurrency', options.concurrency);
  positive('leaseMs', options.leaseMs);
  positive('pollIntervalMs', options.pollIntervalMs);
  positive('retryWindowMs', options.retryWindowMs);
  positive('batchSize', options.batchSize);
  if (options.backoffMs.length === 0 || options.backoffMs.some((ms) => !Number.isFinite(ms) || ms < 0)) {
    throw new RangeError('webhook delivery: backoffMs must be a non-empty list of non-negative numbers');
  }
}
