import type { Kysely } from 'kysely';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger.ts';
import { appendEvents, eventHorizon, lastEventPosition, sweepEventsBefore } from '../../subgraphs/shared/event-log/event-log.repository.ts';
import {
  createSocialEventFeed,
  type FeedEvent,
  type SocialEventFeed,
  type SocialEventStream,
} from '../../subgraphs/shared/event-log/event-log-feed.ts';
import { mentionEvent, type SocialEvent } from '../../subgraphs/shared/event-log/social-events.ts';
import type { SocialTables } from '../../subgraphs/shared/social-graph/social-tables.ts';
import { useTestDatabase } from '../support/test-system.ts';

/**
 * The event log as streams for subscriptions (issue 27): in log order, none twice, only the filter's events; resumed
 * after a cursor whether the cursor is still in memory or only in the log; a cursor past the end or below what was swept
 * refused; a stream returned while it waits ends at once. On PGlite and on PostgreSQL.
 */
describe('the social event feed', () => {
  const database = useTestDatabase();
  let db: Kysely<SocialTables>;
  const feeds: SocialEventFeed[] = [];
  const streams: SocialEventStream[] = [];

  beforeAll(() => {
    db = database().db.withTables<SocialTables>();
  });
  afterEach(async () => {
    for (const stream of streams.splice(0)) await stream.return?.();
    for (const feed of feeds.splice(0)) await feed.close();
  });

  const feed = (ringSize = 10_000) => {
    const created = createSocialEventFeed({
      db,
      listen: database().listen,
      logger: createLogger({ level: 'silent' }),
      options: { ringSize, pageSize: 2, pollIntervalMs: 200 },
    });
    feeds.push(created);
    return created;
  };
  const open = async (from: SocialEventFeed, accountId: string, after?: string) => {
    const stream = await from.open({ kind: 'accountMentions', accountId }, after);
    streams.push(stream);
    return stream;
  };
  /** Appends one event per media id, each in its own transaction (as writers do), mentioning `accountId`. */
  const mention = async (accountId: string, ...mediaIds: string[]) => {
    for (const mediaId of mediaIds)
      await db.transaction().execute((trx) => appendEvents(trx, [mentionEvent(accountId, mediaId, null) as SocialEvent]));
  };
  const take = async (stream: SocialEventStream, count: number): Promise<FeedEvent[]> => {
    const taken: FeedEvent[] = [];
    while (taken.length < count) {
      const step = await withDeadline(stream.next());
      if (step.done) break;
      taken.push(step.value);
    }
    return taken;
  };
  const mediaOf = (events: FeedEvent[]) => events.map(({ event }) => event.value.media_id);

  it('yields the filter’s events after the log’s end, in order, none twice', async () => {
    const stream = await open(feed(), '9001');
    await mention('9001', '1', '2');
    await mention('9002', 'other');
    await mention('9001', '3');
    const events = await take(stream, 3);
    expect(mediaOf(events)).toEqual(['1', '2', '3']);
    const positions = events.map(({ event }) => BigInt(event.position));
    expect(positions).toEqual([...positions].sort((a, b) => (a < b ? -1 : 1)));
    expect(events.every(({ filter }) => filter.kind === 'accountMentions' && filter.accountId === '9001')).toBe(true);
  });

  it('wakes a waiting stream only for its own events, however many of others pass the ring meanwhile', async () => {
    const small = feed(3);
    const quiet = await open(small, '9011');
    const busy = await open(small, '9012');
    // Streams wait at the log's end; ten events of another account go by (more than the ring holds), then one of ours.
    await mention('9012', ...Array.from({ length: 10 }, (_, i) => `busy-${i}`));
    expect(mediaOf(await take(busy, 10))).toEqual(Array.from({ length: 10 }, (_, i) => `busy-${i}`));
    await mention('9011', 'ours');
    expect(mediaOf(await take(quiet, 1))).toEqual(['ours']);
    await mention('9012', 'again');
    await mention('9011', 'ours-2');
    expect(mediaOf(await take(quiet, 1))).toEqual(['ours-2']);
    expect(mediaOf(await take(busy, 1))).toEqual(['again']);
  });

  it('resumes after a cursor from memory and from the log (a ring smaller than the gap)', async () => {
    const small = feed(2);
    const first = await open(small, '9003');
    await mention('9003', 'a', 'b', 'c', 'd', 'e');
    const [a] = await take(first, 1);
    // Five more events of others push 'b'… out of the two-event ring: the resumed stream reads them from the log.
    await mention('9004', 'x', 'y', 'z', 'w', 'v');
    const resumed = await open(small, '9003', a!.event.position);
    expect(mediaOf(await take(resumed, 4))).toEqual(['b', 'c', 'd', 'e']);
    await mention('9003', 'f');
    expect(mediaOf(await take(resumed, 1))).toEqual(['f']);
  });

  it('refuses a cursor that is no position, lies past the end, or lies below what was swept', async () => {
    const from = feed();
    const end = BigInt(await lastEventPosition(db));
    await expect(from.open({ kind: 'accountMentions', accountId: '1' }, 'abc')).rejects.toMatchObject({
      details: { reason: 'INVALID_PARAMETER' },
    });
    await expect(from.open({ kind: 'accountMentions', accountId: '1' }, String(end + 1000n))).rejects.toThrow('Invalid cursor.');
    await mention('9005', 'old');
    const swept = await sweepEventsBefore(db, new Date(Date.now() + 60_000));
    expect(swept).toBeGreaterThan(0);
    expect(BigInt(await eventHorizon(db))).toBeGreaterThan(end);
    await expect(from.open({ kind: 'accountMentions', accountId: '1' }, String(end))).rejects.toThrow(/older than the event log keeps/);
    // At the horizon itself nothing after it is gone.
    const stream = await open(from, '9006', await eventHorizon(db));
    await mention('9006', 'new');
    expect(mediaOf(await take(stream, 1))).toEqual(['new']);
  });

  it('ends a stream that waits for an event as soon as it is returned', async () => {
    const stream = await open(feed(), '9007');
    const waiting = stream.next();
    await stream.return?.();
    await expect(withDeadline(waiting)).resolves.toEqual({ value: undefined, done: true });
    expect(feeds[0]!.stats().streams).toBe(0);
  });
});

function withDeadline<T>(promise: Promise<T>, ms = 5000): Promise<T> {
  // bound: the wait for the stream's end fails here
  return Promise.race([promise, new Promise<T>((_resolve, reject) => setTimeout(() => reject(new Error(`nothing within ${ms} ms`)), ms))]);
}
