import type { Logger } from '../../../lib/logger.ts';
import type { SocialDb } from '../social-graph/social-tables.ts';
import { EVENT_CHANNEL, eventHorizon, lastEventPosition, readChangesAfter, type LoggedChange } from './event-log.repository.ts';

/**
 * The change log followed by a consumer that must never act on what it cannot vouch for (issue 39: the gateway's cache
 * evicts what each change touched). It keeps its own position, reads every change after it in order — woken by NOTIFY
 * on the log's channel, with a poll in case a notification was lost — and hands each page to `onChanges` before it
 * moves on. When it cannot read the log (the database is unreachable) or the log no longer holds what lies after its
 * position (the sweeper went past it), it says so (`onLost`) and jumps to the log's end once it can read again: the
 * consumer drops what it holds, since changes it will never see may have touched it.
 *
 * The log's writers commit in position order (event-log.repository.ts), so reading past n never skips a change before it.
 * Positions are 64-bit: compared as BigInt, carried as decimal strings.
 */
export interface ChangeFollowerDeps {
  db: SocialDb;
  /** DatabaseHandle.listen: the wake-up when changes are appended. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  logger: Logger;
  /** Called with each page of changes, in log order; must not throw. */
  onChanges(changes: readonly LoggedChange[]): void;
  /** Called when the follower can no longer vouch for what it has applied (the log unreadable, or swept past it). */
  onLost(reason: 'unreachable' | 'swept'): void;
  /**
   * Called when the follower begins to follow from `position` (at start, and again after a loss): every change after it
   * will be handed on; none before it was (a consumer trusts nothing read before it).
   */
  onFollowed?(position: string): void;
  /** The poll in case a NOTIFY was lost, and the retry while the log is unreachable (1 s). */
  pollIntervalMs?: number;
  /** Changes per read (500). */
  pageSize?: number;
}

export interface ChangeFollower {
  /** Reads the log's end and starts following it. */
  start(): Promise<void>;
  /**
   * Reads every change committed before this call (a write's reply waits on it, so that the process that took the write
   * never serves what it replaced). Resolves false when the log could not be read: the follower is not vouching then.
   */
  catchUp(): Promise<boolean>;
  /** True while every change up to `position()` has been applied and the log is being followed. */
  vouching(): boolean;
  /** The last position applied (decimal). */
  position(): string;
  /** The last position the log was seen to hold (NOTIFY's payload, or the last read): the lag is head − position. */
  head(): string;
  close(): Promise<void>;
}

const DEFAULT_POLL_MS = 1000;
const DEFAULT_PAGE = 500;

export function createChangeFollower(deps: ChangeFollowerDeps): ChangeFollower {
  const pageSize = deps.pageSize ?? DEFAULT_PAGE;
  let position = 0n;
  let head = 0n;
  let vouching = false;
  let closed = false;
  let stopListening: (() => Promise<void>) | undefined;
  let poll: NodeJS.Timeout | undefined;
  let reading: Promise<boolean> | undefined;
  let checkHorizon = false;

  const lose = (reason: 'unreachable' | 'swept', error?: unknown) => {
    if (vouching) deps.logger.warn({ reason, err: error }, 'change log lost: the cache is dropped until the log is read again');
    vouching = false;
    deps.onLost(reason);
  };

  /**
   * Where following starts: the log's end — or the horizon, when the sweeper emptied the log (its end then reads 0, and
   * every position up to the horizon is gone), as the subscriptions' feed starts (event-log-feed.ts).
   */
  const end = async (): Promise<bigint> => {
    const [last, horizon] = await Promise.all([lastEventPosition(deps.db), eventHorizon(deps.db)]);
    return BigInt(last) > BigInt(horizon) ? BigInt(last) : BigInt(horizon);
  };

  /** One pass: to the log's end from the position (or from the end, after a loss). */
  const readOnce = async (): Promise<boolean> => {
    try {
      if (!vouching) {
        // Nothing held is vouched for (dropped at the loss; a fetch begun before it cannot store, one begun while the log
        // was lost bypassed the cache): start from the end; every change before it is in what the database now answers.
        position = await end();
        if (position > head) head = position;
        deps.onFollowed?.(String(position));
        vouching = true;
        deps.logger.info({ position: String(position) }, 'change log followed');
        return true;
      }
      if (checkHorizon) {
        checkHorizon = false;
        if (BigInt(await eventHorizon(deps.db)) > position) {
          lose('swept');
          return readOnce();
        }
      }
      for (;;) {
        const page = await readChangesAfter(deps.db, String(position), pageSize);
        if (page.length === 0) break;
        deps.onChanges(page);
        position = BigInt(page.at(-1)!.position);
        if (position > head) head = position;
        if (page.length < pageSize) break;
      }
      return true;
    } catch (error) {
      lose('unreachable', error);
      return false;
    }
  };

  /**
   * Reads the log. While a read is under way, one more follows it, shared by every caller meanwhile: what resolves a
   * caller is always a read begun after it called.
   */
  let next: Promise<boolean> | undefined;
  const wake = (): Promise<boolean> => {
    if (closed) return Promise.resolve(false);
    if (!reading) {
      reading = readOnce().finally(() => {
        reading = undefined;
      });
      return reading;
    }
    next ??= reading.then(() => {
      next = undefined;
      return wake();
    });
    return next;
  };

  return {
    async start() {
      position = await end();
      head = position;
      deps.onFollowed?.(String(position));
      vouching = true;
      stopListening = await deps.listen(EVENT_CHANNEL, (payload) => {
        if (/^[0-9]{1,19}$/.test(payload) && BigInt(payload) > head) head = BigInt(payload);
        void wake();
      });
      poll = setInterval(() => {
        checkHorizon = true;
        void wake();
      }, deps.pollIntervalMs ?? DEFAULT_POLL_MS);
      poll.unref();
      // Whatever was appended between reading the end and listening.
      await wake();
    },
    catchUp: () => wake(),
    vouching: () => vouching && !closed,
    position: () => String(position),
    head: () => String(head),
    async close() {
      closed = true;
      clearInterval(poll);
      await reading;
      await stopListening?.();
    },
  };
}
