import { sql, type Kysely } from 'kysely';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger.ts';
import { userExampleChange } from '../../subgraphs/shared/event-log/change-events.ts';
import { createChangeFollower, type ChangeFollower } from '../../subgraphs/shared/event-log/change-follower.ts';
import {
  appendEvents,
  eventHorizon,
  lastEventPosition,
  sweepEventsBefore,
  writeWithChanges,
  type LoggedChange,
} from '../../subgraphs/shared/event-log/event-log.repository.ts';
import type { SocialTables } from '../../subgraphs/shared/social-graph/social-tables.ts';
import { eventually } from '../support/eventually.ts';
import { useTestDatabase } from '../support/test-system.ts';

/**
 * The change log followed by the gateway's fetch cache (subgraphs/shared/event-log/change-follower.ts, issue 39): from
 * the log's end, every change after it in order — woken by NOTIFY, page by page — a catch-up that resolves only once
 * what was committed before it is applied, even with a read already under way, and a loss said (`onLost`) when the log
 * cannot be read or was swept past the follower, after which it follows again from the log's end. On PGlite and on
 * PostgreSQL.
 */

/** A poll that never comes within a test: what is delivered then came by NOTIFY or by catchUp. */
const QUIET_POLL_MS = 3_600_000;
/** A poll that comes several times within a test (the horizon is read on the poll only). */
const BRISK_POLL_MS = 50;

describe('the change follower', () => {
  const database = useTestDatabase();
  let db: Kysely<SocialTables>;
  const followers: ChangeFollower[] = [];

  beforeAll(() => {
    db = database().db.withTables<SocialTables>();
  });
  afterEach(async () => {
    for (const follower of followers.splice(0)) await follower.close();
  });

  /**
   * A follower that records what it is handed. `notify: false` gives it a listen that never wakes it, so that only its
   * poll and catchUp read; `notifiers` are the wake-ups it registered (calling one is a NOTIFY with that payload).
   */
  function follow(options: { db?: Kysely<SocialTables>; notify?: boolean; pageSize?: number; pollIntervalMs?: number } = {}) {
    const pages: LoggedChange[][] = [];
    const lost: string[] = [];
    const notifiers: ((payload: string) => void)[] = [];
    const follower = createChangeFollower({
      db: options.db ?? db,
      listen: async (channel, onNotify) => {
        notifiers.push(onNotify);
        return options.notify === false ? async () => undefined : database().listen(channel, onNotify);
      },
      logger: createLogger({ level: 'silent' }),
      onChanges: (changes) => pages.push([...changes]),
      onLost: (reason) => lost.push(reason),
      pollIntervalMs: options.pollIntervalMs ?? QUIET_POLL_MS,
      ...(options.pageSize !== undefined && { pageSize: options.pageSize }),
    });
    followers.push(follower);
    const delivered = () => pages.flat();
    /** The user ids of the changes delivered, in order. */
    const ids = () => delivered().map((change) => change.keys.join(','));
    return { follower, pages, lost, notifiers, delivered, ids };
  }

  /** One change per id, each in its own transaction (as writers commit them); the position of the last. */
  const change = async (...ids: string[]): Promise<string> => {
    for (const id of ids) {
      await writeWithChanges(db, async () => ({ result: undefined, changes: [userExampleChange('updated', id)] }));
    }
    return lastEventPosition(db);
  };
  /** Changes of every id in one transaction. */
  const changeTogether = async (...ids: string[]): Promise<string> => {
    await db.transaction().execute((trx) =>
      appendEvents(
        trx,
        ids.map((id) => userExampleChange('updated', id)),
      ),
    );
    return lastEventPosition(db);
  };
  const keyOf = (id: string) => `UserExample:${id}`;

  it("starts at the log's end: what was written before is not delivered, what comes after is", async () => {
    await change('before-1', 'before-2');
    const end = await lastEventPosition(db);
    const { follower, ids } = follow();
    expect(follower.vouching()).toBe(false);
    await follower.start();
    expect(follower.vouching()).toBe(true);
    expect(follower.position()).toBe(end);
    expect(follower.head()).toBe(end);
    const after = await change('after');
    await eventually(() => ids().length > 0, 'the change after the start delivered');
    expect(ids()).toEqual([keyOf('after')]);
    expect(follower.position()).toBe(after);
  });

  it('delivers changes by NOTIFY, in log order, each once, with their position, kind and keys', async () => {
    const { follower, delivered, ids } = follow();
    await follower.start();
    await change('n1', 'n2', 'n3');
    await eventually(() => ids().length >= 3, 'three changes delivered');
    const last = await lastEventPosition(db);
    expect(ids()).toEqual([keyOf('n1'), keyOf('n2'), keyOf('n3')]);
    const positions = delivered().map((c) => BigInt(c.position));
    expect(positions).toEqual([...positions].sort((a, b) => (a < b ? -1 : 1)));
    expect(new Set(positions).size).toBe(3);
    expect(delivered()[2]).toEqual({ position: last, kind: 'user_example_updated', keys: [keyOf('n3')] });
    expect(follower.position()).toBe(last);
    expect(follower.head()).toBe(last);
  });

  it('catchUp resolves only once every change committed before it is delivered', async () => {
    const { follower, ids } = follow({ notify: false });
    await follower.start();
    const first = await change('c1');
    // Neither NOTIFY nor the poll wakes this follower: the change waits for catchUp.
    expect(ids()).toEqual([]);
    expect(await follower.catchUp()).toBe(true);
    expect(ids()).toEqual([keyOf('c1')]);
    expect(follower.position()).toBe(first);
    const second = await change('c2', 'c3');
    expect(await follower.catchUp()).toBe(true);
    expect(ids()).toEqual([keyOf('c1'), keyOf('c2'), keyOf('c3')]);
    expect(follower.position()).toBe(second);
    // Nothing new: resolves at once, delivers nothing.
    expect(await follower.catchUp()).toBe(true);
    expect(ids()).toHaveLength(3);
  });

  it('catchUp called while a read is under way waits for a read begun after it', async () => {
    const reads = interceptedReads(db);
    const { follower, ids } = follow({ db: reads.db, notify: false });
    await follower.start();
    // A read that has seen the log as it was (nothing after the position) is held before it returns.
    const held = reads.holdNext('social.event');
    const underWay = follower.catchUp();
    await held.reached;
    const position = await change('during');
    const caller = follower.catchUp();
    held.release();
    expect(await underWay).toBe(true);
    expect(await caller).toBe(true);
    expect(ids()).toEqual([keyOf('during')]);
    expect(follower.position()).toBe(position);
  });

  it('reads the log page by page: pages of pageSize, all in order', async () => {
    const { follower, pages, ids } = follow({ notify: false, pageSize: 2 });
    await follower.start();
    await changeTogether('p1', 'p2', 'p3', 'p4', 'p5');
    expect(await follower.catchUp()).toBe(true);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(ids()).toEqual(['p1', 'p2', 'p3', 'p4', 'p5'].map(keyOf));
    // A last page that is full is followed by a read that finds nothing: no empty page is handed on.
    await changeTogether('q1', 'q2', 'q3', 'q4');
    expect(await follower.catchUp()).toBe(true);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1, 2, 2]);
    expect(ids().slice(5)).toEqual(['q1', 'q2', 'q3', 'q4'].map(keyOf));
  });

  it('reads pages of changes committed one by one under NOTIFY, all five in order', async () => {
    const { follower, pages, ids } = follow({ pageSize: 2 });
    await follower.start();
    await change('r1', 'r2', 'r3', 'r4', 'r5');
    await eventually(() => ids().length >= 5, 'five changes delivered');
    expect(ids()).toEqual(['r1', 'r2', 'r3', 'r4', 'r5'].map(keyOf));
    expect(pages.every((page) => page.length >= 1 && page.length <= 2)).toBe(true);
  });

  it("takes the head from NOTIFY's payload when it is a position past it, and never moves the position with it", async () => {
    const { follower, notifiers } = follow({ notify: false });
    await follower.start();
    const start = follower.position();
    const notify = notifiers[0]!;
    const ahead = String(BigInt(start) + 1000n);
    notify(ahead);
    expect(follower.head()).toBe(ahead);
    for (const payload of ['not a position', '-5', '1'.repeat(20), String(BigInt(start) + 10n), '']) notify(payload);
    expect(follower.head()).toBe(ahead);
    expect(await follower.catchUp()).toBe(true);
    expect(follower.position()).toBe(start);
    // A change read moves the position; the head, already past it, stays.
    const position = await change('h1');
    expect(await follower.catchUp()).toBe(true);
    expect(follower.position()).toBe(position);
    expect(follower.head()).toBe(ahead);
  });

  it('raises the head to the position read when no NOTIFY told it', async () => {
    const { follower } = follow({ notify: false });
    await follower.start();
    const position = await change('h2');
    await follower.catchUp();
    expect(follower.head()).toBe(position);
  });

  it('says the log is lost when it cannot be read, and follows again from its end once it can', async () => {
    const reads = interceptedReads(db);
    const { follower, lost, ids } = follow({ db: reads.db, notify: false });
    await follower.start();
    expect(lost).toEqual([]);
    reads.failing = true;
    expect(await follower.catchUp()).toBe(false);
    expect(follower.vouching()).toBe(false);
    expect(lost[0]).toBe('unreachable');
    // Written while the log could not be read: never delivered, since the follower jumps to the end.
    const missed = await change('missed');
    reads.failing = false;
    expect(await follower.catchUp()).toBe(true);
    expect(follower.vouching()).toBe(true);
    expect(follower.position()).toBe(missed);
    expect(lost.every((reason) => reason === 'unreachable')).toBe(true);
    const next = await change('next');
    expect(await follower.catchUp()).toBe(true);
    expect(ids()).toEqual([keyOf('next')]);
    expect(follower.position()).toBe(next);
  });

  it('stops vouching and reading when closed', async () => {
    const { follower } = follow({ notify: false });
    await follower.start();
    await follower.close();
    expect(follower.vouching()).toBe(false);
    expect(await follower.catchUp()).toBe(false);
  });

  // Last: the sweep removes what the log held (later tests would start at a log's end of their own).
  it("says the log is lost when the horizon passes its position, and follows again from the log's end", async () => {
    const reads = interceptedReads(db);
    const { follower, lost, ids } = follow({ db: reads.db, notify: false, pollIntervalMs: BRISK_POLL_MS });
    await follower.start();
    const start = follower.position();
    // A poll's read has seen the log as it was (nothing after the position): its reply is held while two changes are
    // committed and the first, old, swept past its retention. The poll then reads the horizon before any change.
    const held = reads.holdNext('social.event');
    await held.reached;
    const { swept, kept } = await db.transaction().execute(async (trx) => {
      await appendEvents(trx, [userExampleChange('updated', 'swept')]);
      const sweptAt = await lastEventPosition(trx);
      await sql`update social.event set created_at = created_at - interval '1 day' where position = ${sweptAt}`.execute(trx);
      await appendEvents(trx, [userExampleChange('updated', 'kept')]);
      expect(await sweepEventsBefore(trx, new Date(Date.now() - 3_600_000))).toBe(1);
      return { swept: sweptAt, kept: await lastEventPosition(trx) };
    });
    expect(await eventHorizon(db)).toBe(swept);
    expect(BigInt(swept)).toBeGreaterThan(BigInt(start));
    held.release();
    await eventually(() => lost.includes('swept'), "the follower's loss by the sweep");
    expect(lost[0]).toBe('swept');
    await eventually(() => follower.vouching(), 'the follower following again');
    expect(await follower.catchUp()).toBe(true);
    // From the log's end: neither the swept change nor the one after it is delivered (the consumer dropped all).
    expect(follower.position()).toBe(kept);
    expect(ids()).toEqual([]);
    const next = await change('after-sweep');
    expect(await follower.catchUp()).toBe(true);
    expect(ids()).toEqual([keyOf('after-sweep')]);
    expect(follower.position()).toBe(next);
    expect(lost.filter((reason) => reason === 'swept')).toEqual(['swept']);
  });

  it('follows from the horizon when the sweeper emptied the log: one loss, then no loss at every later poll', async () => {
    const reads = interceptedReads(db);
    const { follower, lost } = follow({ db: reads.db, notify: false, pollIntervalMs: BRISK_POLL_MS });
    await follower.start();
    // Every change swept: the log's end reads 0 while the horizon holds the last position swept.
    const horizon = await db.transaction().execute(async (trx) => {
      await appendEvents(trx, [userExampleChange('updated', 'emptied')]);
      await sweepEventsBefore(trx, new Date(Date.now() + 3_600_000));
      return eventHorizon(trx);
    });
    expect(await lastEventPosition(db)).toBe('0');
    await eventually(() => lost.includes('swept') && follower.vouching(), 'the loss by the sweep, then following again');
    expect(follower.position()).toBe(horizon);
    // Three more polls, each of which reads the horizon: none is a loss (the follower stands at the horizon, not at 0).
    for (let poll = 0; poll < 3; poll += 1) {
      const held = reads.holdNext('social.event_horizon');
      await held.reached;
      held.release();
    }
    expect(await follower.catchUp()).toBe(true);
    expect(lost).toEqual(['swept']);
    expect(follower.position()).toBe(horizon);
  });
});

/**
 * The follower's database with its reads under the test's control: `failing` makes every query fail (the database
 * unreachable); `holdNext(table)` holds the result of the next query of that table (any, without one), once the query
 * has run, until `release()`.
 */
function interceptedReads(real: Kysely<SocialTables>) {
  let hold: { table: string | undefined; reached: () => void; released: Promise<void> } | undefined;
  const control = {
    failing: false,
    db: undefined as unknown as Kysely<SocialTables>,
    holdNext(table?: string) {
      let reached!: () => void;
      let release!: () => void;
      const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
      hold = { table, reached, released: new Promise<void>((resolve) => (release = resolve)) };
      return { reached: reachedPromise, release };
    },
  };
  const EXECUTES = new Set(['execute', 'executeTakeFirst', 'executeTakeFirstOrThrow']);
  /** `target`, its builders wrapped in turn; `table` is the one the chain selects from. */
  const wrap = <T extends object>(target: T, table: string | undefined): T =>
    new Proxy(target, {
      get(object, property) {
        const value: unknown = Reflect.get(object, property, object);
        if (typeof value !== 'function') return value;
        if (EXECUTES.has(String(property))) {
          return async (...args: unknown[]) => {
            if (control.failing) throw new Error('connect ECONNREFUSED (the test cut the database off)');
            const result: unknown = await (value as (...a: unknown[]) => Promise<unknown>).apply(object, args);
            const held = hold;
            if (held && (held.table === undefined || held.table === table)) {
              hold = undefined;
              held.reached();
              await held.released;
            }
            return result;
          };
        }
        return (...args: unknown[]) => {
          const built: unknown = (value as (...a: unknown[]) => unknown).apply(object, args);
          const from = property === 'selectFrom' && typeof args[0] === 'string' ? args[0] : table;
          return built !== null && typeof built === 'object' && 'execute' in built ? wrap(built, from) : built;
        };
      },
    });
  control.db = wrap(real, undefined);
  return control;
}
