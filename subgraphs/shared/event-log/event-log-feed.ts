import type { Logger } from '../../../lib/logger.ts';
import { socialErrors } from '../social-graph/social-errors.ts';
import type { SocialDb } from '../social-graph/social-tables.ts';
import { EVENT_CHANNEL, eventHorizon, lastEventPosition, readEventsAfter } from './event-log.repository.ts';
import type { SocialEventRecord } from './social-events.ts';

/**
 * The event log as streams for GraphQL subscriptions (issue 27): each stream yields the events of one object that come
 * after a cursor (a log position), in log order, none twice, until it is returned.
 *
 * One tail per process reads the log as it grows — woken by NOTIFY on the log's channel, and by a poll in case a
 * notification was lost — and keeps the last `ringSize` events in memory, a complete run of positions (ringBase, head]:
 * the log's writers commit in position order (event-log.repository.ts), so reading past n never skips an earlier
 * event. A stream whose cursor lies inside that run is served from memory; one further back (a client resuming after a
 * long gap) reads the log in pages until it catches up. Streams are pulled: a stream holds at most one page of events,
 * however slow its consumer, so memory is bounded by the ring and the number of streams, never by the traffic; what a
 * slow consumer's transport buffers is the transport's to bound (it closes the consumer and says how to resume).
 *
 * Positions are 64-bit: compared as BigInt, carried as decimal strings.
 */

/** Which events a stream carries. */
export type SocialEventFilter =
  /** Comments and replies on a media object, created, hidden, shown, deleted. */
  | { kind: 'mediaComments'; mediaId: string }
  /** Replies to a comment, created, hidden, shown, deleted. */
  | { kind: 'commentReplies'; commentId: string }
  /** @mentions of an account, in comments and captions. */
  | { kind: 'accountMentions'; accountId: string };

/** The key a stream waits under (filterKey), and the keys of the streams an event is for (eventKeys): matchesFilter's rule. */
function filterKey(filter: SocialEventFilter): string {
  switch (filter.kind) {
    case 'mediaComments':
      return `m:${filter.mediaId}`;
    case 'commentReplies':
      return `c:${filter.commentId}`;
    case 'accountMentions':
      return `a:${filter.accountId}`;
  }
}

function eventKeys(event: SocialEventRecord): string[] {
  if (event.kind === 'mentioned') return typeof event.accountId === 'string' ? [`a:${event.accountId}`] : [];
  const keys: string[] = [];
  const mediaId = (event.value.media as { id?: unknown } | undefined)?.id;
  if (typeof mediaId === 'string') keys.push(`m:${mediaId}`);
  if (typeof event.value.parent_id === 'string') keys.push(`c:${event.value.parent_id}`);
  return keys;
}

export function matchesFilter(filter: SocialEventFilter, event: SocialEventRecord): boolean {
  switch (filter.kind) {
    case 'mediaComments':
      return event.kind !== 'mentioned' && (event.value.media as { id?: unknown } | undefined)?.id === filter.mediaId;
    case 'commentReplies':
      return event.kind !== 'mentioned' && event.value.parent_id === filter.commentId;
    case 'accountMentions':
      return event.kind === 'mentioned' && event.accountId === filter.accountId;
  }
}

export interface SocialEventFeedOptions {
  /** Events kept in memory for streams near the head (10 000). */
  ringSize: number;
  /** Events per read of the log (500). */
  pageSize: number;
  /** The safety-net poll, in case a NOTIFY was lost (1 s). */
  pollIntervalMs: number;
}

export const DEFAULT_SOCIAL_EVENT_FEED_OPTIONS: Readonly<SocialEventFeedOptions> = Object.freeze({
  ringSize: 10_000,
  pageSize: 500,
  pollIntervalMs: 1000,
});

export interface SocialEventFeedDeps {
  db: SocialDb;
  /** DatabaseHandle.listen: the wake-up when events are appended. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  logger: Logger;
  options?: Partial<SocialEventFeedOptions>;
}

/** An event as a stream yields it: with the filter it was taken for (what a per-event check re-authorizes). */
export interface FeedEvent {
  event: SocialEventRecord;
  filter: SocialEventFilter;
}

export interface SocialEventStream extends AsyncIterableIterator<FeedEvent> {
  /** The position the stream has reached: the last event it yielded, or what it skipped as not its own. */
  readonly position: string;
}

export interface SocialEventFeed {
  /**
   * A stream of the filter's events after `after` (a cursor an earlier event carried), or after the log's current end
   * when absent. Refuses a cursor that is no position, lies past the log's end, or lies below what the sweeper removed
   * (events after it may be gone): the social graph's invalid-parameter error, saying what to do instead.
   */
  open(filter: SocialEventFilter, after: string | null | undefined): Promise<SocialEventStream>;
  /** Streams open, and the last position the tail read. */
  stats(): { streams: number; head: string };
  close(): Promise<void>;
}

const CURSOR = /^(?:0|[1-9][0-9]{0,18})$/;

export function createSocialEventFeed(deps: SocialEventFeedDeps): SocialEventFeed {
  const tail = new FeedTail(deps, { ...DEFAULT_SOCIAL_EVENT_FEED_OPTIONS, ...deps.options });
  return {
    open: (filter, after) => openStream(tail, filter, after),
    stats: () => ({ streams: tail.streams.size, head: String(tail.head) }),
    close: () => tail.close(),
  };
}

/** The feed's one tail of the log: the events it keeps in memory, and the streams open on it. */
class FeedTail {
  readonly db: SocialDb;
  /** Events (ringBase, head], in order; `ring[offset]` is the first; `positions[i]` is `ring[i]`'s, parsed once. */
  ring: SocialEventRecord[] = [];
  positions: bigint[] = [];
  offset = 0;
  ringBase = 0n;
  head = 0n;
  closed = false;
  readonly streams = new Set<FeedStream>();
  /**
   * Streams that have read up to the head and wait, by the key of the events they carry: an event wakes only the streams
   * it is for (a thousand subscriptions to fifty media objects: twenty woken per event, not a thousand scanning it).
   */
  readonly waiting = new Map<string, Set<FeedStream>>();
  private started: Promise<void> | undefined;
  private stopListening: (() => Promise<void>) | undefined;
  private poll: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private failing = false;

  constructor(
    readonly deps: SocialEventFeedDeps,
    readonly options: SocialEventFeedOptions,
  ) {
    this.db = deps.db;
  }

  start(): Promise<void> {
    this.started ??= (async () => {
      this.head = BigInt(await lastEventPosition(this.db));
      this.ringBase = this.head;
      this.stopListening = await this.deps.listen(EVENT_CHANNEL, this.wake);
      this.poll = setInterval(this.wake, this.options.pollIntervalMs);
      this.poll.unref();
      // Whatever was appended between reading the end and listening.
      this.wake();
    })().catch((error: unknown) => {
      this.started = undefined;
      throw error;
    });
    return this.started;
  }

  /** Reads the log past the head (once more after the read under way, if one is). */
  readonly wake = (): void => {
    if (this.closed) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = this.readTail().finally(() => {
      this.reading = undefined;
      if (this.readAgain) {
        this.readAgain = false;
        this.wake();
      }
    });
  };

  private async readTail(): Promise<void> {
    const { options } = this;
    try {
      for (;;) {
        const page = await readEventsAfter(this.db, String(this.head), options.pageSize);
        if (page.length === 0) break;
        const first = this.ring.length;
        for (const event of page) {
          this.ring.push(event);
          this.positions.push(BigInt(event.position));
        }
        this.head = this.positions.at(-1)!;
        // Each waiting stream this page has an event for, woken at the first such event (what lies before it in the
        // page is none of its own: its cursor moves there at once).
        for (let index = first; index < this.ring.length; index += 1) {
          for (const key of eventKeys(this.ring[index]!)) {
            const streamsOfKey = this.waiting.get(key);
            if (!streamsOfKey) continue;
            this.waiting.delete(key);
            for (const stream of streamsOfKey) stream.wake(this.positions[index - 1] ?? this.ringBase);
          }
        }
        const excess = this.ring.length - this.offset - options.ringSize;
        if (excess > 0) {
          this.offset += excess;
          this.ringBase = this.positions[this.offset - 1]!;
          // Compact once the dropped part is as large as the kept one: amortised O(1) per event.
          if (this.offset >= options.ringSize) {
            this.ring = this.ring.slice(this.offset);
            this.positions = this.positions.slice(this.offset);
            this.offset = 0;
          }
        }
        if (page.length < options.pageSize) break;
      }
      if (this.failing) this.deps.logger.info('event feed reading the log again');
      this.failing = false;
    } catch (error) {
      // The database is unreachable or the read failed: the poll tries again; streams wait meanwhile.
      if (!this.failing) this.deps.logger.warn({ err: error }, 'event feed could not read the log; retrying at the next poll');
      this.failing = true;
    }
  }

  /** Index in `ring` of the first event after `position` (ring.length when none). */
  firstAfter(position: bigint): number {
    let low = this.offset;
    let high = this.ring.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.positions[middle]! <= position) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.poll);
    for (const stream of [...this.streams]) stream.finish();
    await this.reading;
    await this.stopListening?.();
  }
}

/** SocialEventFeed.open: a stream after the cursor given, or after the log's end; a cursor the log cannot serve refused. */
async function openStream(tail: FeedTail, filter: SocialEventFilter, after: string | null | undefined): Promise<SocialEventStream> {
  if (tail.closed) throw new Error('the event feed is closed');
  await tail.start();
  const { db } = tail;
  let from: bigint;
  if (after === null || after === undefined) {
    // The log's end as the database has it now (the tail may be a moment behind): every event after this one.
    from = BigInt(await lastEventPosition(db));
  } else {
    if (!CURSOR.test(after)) throw socialErrors.invalidParameter('after', 'Invalid cursor.');
    from = BigInt(after);
    const [end, horizon] = await Promise.all([lastEventPosition(db), eventHorizon(db)]);
    // An empty log (all of it swept) ends at the horizon.
    if (from > BigInt(end) && from > BigInt(horizon)) throw socialErrors.invalidParameter('after', 'Invalid cursor.');
    if (from < BigInt(horizon)) {
      throw socialErrors.invalidParameter(
        'after',
        'The cursor is older than the event log keeps: events after it were removed. Subscribe without after to start from now.',
      );
    }
  }
  const stream = new FeedStream(tail, filter, from);
  tail.streams.add(stream);
  return stream;
}

class FeedStream implements SocialEventStream {
  private cursor: bigint;
  private pending: SocialEventRecord[] = [];
  private done = false;
  private readonly key: string;
  /** Resolves the wait under way (an event for this stream came, or it was finished). */
  private wakeUp: (() => void) | undefined;

  constructor(
    private readonly tail: FeedTail,
    private readonly filter: SocialEventFilter,
    from: bigint,
  ) {
    this.cursor = from;
    this.key = filterKey(filter);
  }

  /** An event for this stream was read; none after `before` and up to it is (the cursor may move there). */
  wake(before: bigint): void {
    if (before > this.cursor) this.cursor = before;
    const wakeUp = this.wakeUp;
    this.wakeUp = undefined;
    wakeUp?.();
  }

  get position(): string {
    return String(this.cursor);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<FeedEvent>> {
    const { tail } = this;
    while (!this.done) {
      const queued = this.pending.shift();
      if (queued) return { value: { event: queued, filter: this.filter }, done: false };
      if (this.cursor < tail.ringBase) {
        // Behind what memory holds: a page of the log (bounded, whatever the consumer's pace).
        const page = await readEventsAfter(tail.db, String(this.cursor), tail.options.pageSize);
        if (this.done) break;
        if (page.length === 0) {
          this.cursor = tail.ringBase;
          continue;
        }
        for (const event of page) if (matchesFilter(this.filter, event)) this.pending.push(event);
        this.cursor = BigInt(page.at(-1)!.position);
        continue;
      }
      for (let index = tail.firstAfter(this.cursor); index < tail.ring.length; index += 1) {
        const event = tail.ring[index]!;
        if (matchesFilter(this.filter, event)) {
          this.cursor = BigInt(event.position);
          return { value: { event, filter: this.filter }, done: false };
        }
      }
      // Nothing of ours up to the head (a page read past it already may have taken the cursor further): wait under our
      // key until the tail reads an event of ours (or the stream is finished).
      if (tail.head > this.cursor) this.cursor = tail.head;
      await new Promise<void>((resolve) => {
        this.wakeUp = resolve;
        let streamsOfKey = tail.waiting.get(this.key);
        if (!streamsOfKey) tail.waiting.set(this.key, (streamsOfKey = new Set()));
        streamsOfKey.add(this);
      });
    }
    return { value: undefined, done: true };
  }

  async return(): Promise<IteratorResult<FeedEvent>> {
    this.finish();
    return { value: undefined, done: true };
  }

  finish(): void {
    if (this.done) return;
    this.done = true;
    this.pending = [];
    this.tail.streams.delete(this);
    const streamsOfKey = this.tail.waiting.get(this.key);
    streamsOfKey?.delete(this);
    if (streamsOfKey?.size === 0) this.tail.waiting.delete(this.key);
    this.wake(this.cursor);
  }
}
