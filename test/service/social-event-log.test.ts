import { sql, type Kysely } from 'kysely';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { writeComment, writeCommentHidden, writeCommentThreadDeleted } from '../../subgraphs/comments/comment-changes.ts';
import { appendEvents, lastEventPosition, readEventsAfter } from '../../subgraphs/shared/event-log/event-log.repository.ts';
import { createSocialEventSweeper } from '../../subgraphs/shared/event-log/event-log-sweeper.ts';
import { mentionEvent, type SocialEventRecord } from '../../subgraphs/shared/event-log/social-events.ts';
import type { SocialTables } from '../../subgraphs/shared/social-graph/social-tables.ts';
import { createLogger } from '../../lib/logger.ts';
import { eventually } from '../support/eventually.ts';
import { createSocialFixture, type SocialFixture } from '../support/social-fixture.ts';
import { useTestDatabase } from '../support/test-system.ts';

/**
 * The social graph's event log (issue 26, item 1): each change the Graph API reports is written in the transaction that
 * makes it, in the reference's value shapes (§6.5), with a position that only grows — and that readers see grow without
 * gaps, however many writers commit at once; a change rolled back writes nothing; the log is swept past its retention.
 */
describe('the social event log', () => {
  const database = useTestDatabase();
  let db: Kysely<SocialTables>;
  let world: SocialFixture;
  let cursor: string;

  beforeAll(async () => {
    db = database().db.withTables<SocialTables>();
    world = await createSocialFixture(database());
  });

  beforeEach(async () => {
    cursor = await lastEventPosition(db);
  });

  /** The events written since the test began (or the last call). */
  const newEvents = async (): Promise<Omit<SocialEventRecord, 'createdAt'>[]> => {
    const events = await readEventsAfter(db, cursor, 1000);
    if (events.length > 0) cursor = events.at(-1)!.position;
    return events.map(({ createdAt: _createdAt, ...event }) => event);
  };

  /** Sessions of this database waiting for an advisory lock another holds (appendEvents takes one). */
  const advisoryLockWaiters = async () =>
    Number(
      (
        await sql<{ waiting: string | number }>`
          select count(*) as waiting from pg_locks
          where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())`.execute(
          db,
        )
      ).rows[0]!.waiting,
    );

  const usernameOf = async (accountId: string) =>
    (await db.selectFrom('social.account').select('username').where('id', '=', accountId).executeTakeFirstOrThrow()).username;

  it('logs a comment created, with the accounts it mentions, in the reference shapes', async () => {
    const { accounts, posts } = world;
    const id = await writeComment(
      db,
      { mediaId: posts[1]!, authorId: accounts.fanOne, parentId: null, text: 'Love it @roaster @nobody', timestamp: new Date() },
      ['roaster', 'nobody'],
    );
    const events = await newEvents();
    expect(events).toEqual([
      {
        position: expect.stringMatching(/^\d+$/),
        accountId: accounts.bluebottle,
        kind: 'comment_created',
        field: 'comments',
        value: {
          id,
          text: 'Love it @roaster @nobody',
          from: { id: accounts.fanOne, username: 'fan_one' },
          media: { id: posts[1], media_product_type: 'FEED' },
        },
        keys: [`Comment:${id}`, `Media:${posts[1]}`],
      },
      {
        position: expect.stringMatching(/^\d+$/),
        accountId: accounts.roaster,
        kind: 'mentioned',
        field: 'mentions',
        value: { comment_id: id, media_id: posts[1] },
        keys: [`Account:${accounts.roaster}`, `Media:${posts[1]}`, `Comment:${id}`],
      },
    ]);
    expect(BigInt(events[1]!.position)).toBeGreaterThan(BigInt(events[0]!.position));
  });

  it("logs a reply with its parent_id, the owner's own comment with self_ig_scoped_id, and a live broadcast's as live_comments", async () => {
    const { accounts, posts, comments, media } = world;
    const reply = await writeComment(
      db,
      { mediaId: posts[0]!, authorId: accounts.bluebottle, parentId: comments.fanComment, text: 'Thanks!', timestamp: new Date() },
      [],
    );
    const live = await writeComment(
      db,
      { mediaId: media.live, authorId: accounts.fanTwo, parentId: null, text: 'Live!', timestamp: new Date() },
      [],
    );
    expect((await newEvents()).map(({ accountId, kind, field, value }) => ({ accountId, kind, field, value }))).toEqual([
      {
        accountId: accounts.bluebottle,
        kind: 'comment_created',
        field: 'comments',
        value: {
          id: reply,
          text: 'Thanks!',
          from: { id: accounts.bluebottle, username: 'bluebottle', self_ig_scoped_id: accounts.bluebottle },
          media: { id: posts[0], media_product_type: 'FEED' },
          parent_id: comments.fanComment,
        },
      },
      {
        accountId: accounts.bluebottle,
        kind: 'comment_created',
        field: 'live_comments',
        value: {
          id: live,
          text: 'Live!',
          from: { id: accounts.fanTwo, username: await usernameOf(accounts.fanTwo) },
          media: { id: media.live, media_product_type: 'FEED' },
        },
      },
    ]);
  });

  it('logs a comment hidden and shown once per change, and a thread deleted comment by comment', async () => {
    const { accounts } = world;
    const { fanComment, fanReply, ownerReply } = await world.newCommentThread();
    await writeCommentHidden(db, fanComment, true);
    await writeCommentHidden(db, fanComment, true); // already hidden: no change, no event
    await writeCommentHidden(db, fanComment, false);
    await writeCommentThreadDeleted(db, fanComment, new Date());
    const events = await newEvents();
    expect(events.map(({ kind, accountId, value }) => [kind, accountId, value.id])).toEqual([
      ['comment_hidden', accounts.bluebottle, fanComment],
      ['comment_shown', accounts.bluebottle, fanComment],
      ...[fanComment, ownerReply, fanReply]
        .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))
        .map((id) => ['comment_deleted', accounts.bluebottle, id]),
    ]);
    // Each names the comment and its media; a reply its parent too (whose replies it was among).
    const mediaKey = `Media:${String((events[0]!.value.media as { id: string }).id)}`;
    expect(Object.fromEntries(events.slice(2).map((event) => [String(event.value.id), event.keys]))).toEqual({
      [fanComment]: [`Comment:${fanComment}`, mediaKey],
      [ownerReply]: [`Comment:${ownerReply}`, mediaKey, `Comment:${fanComment}`],
      [fanReply]: [`Comment:${fanReply}`, mediaKey, `Comment:${fanComment}`],
    });
    expect(events[0]!.keys).toEqual([`Comment:${fanComment}`, mediaKey]);
    // Deleting again deletes nothing, and logs nothing.
    await writeCommentThreadDeleted(db, fanComment, new Date());
    expect(await newEvents()).toEqual([]);
  });

  it('writes nothing for a change that rolls back', async () => {
    const { accounts, posts } = world;
    await expect(
      db.transaction().execute(async (trx) => {
        await appendEvents(trx, [mentionEvent(accounts.fanTwo, posts[0]!, null)]);
        throw new Error('the change fails after its event was appended');
      }),
    ).rejects.toThrow('the change fails');
    // A comment on media that does not exist fails inside insertComment's own transaction.
    await expect(
      writeComment(db, { mediaId: '1', authorId: accounts.fanOne, parentId: null, text: 'nowhere', timestamp: new Date() }, []),
    ).rejects.toThrow();
    expect(await newEvents()).toEqual([]);
  });

  // PostgreSQL only: PGlite has one connection, so its transactions cannot interleave (and the read below would wait for
  // the held transaction).
  it.runIf(process.env.TEST_DATABASE === 'postgres')('never shows a reader a position before an earlier one is committed', async () => {
    const { accounts, posts } = world;
    let appended!: () => void;
    const firstAppended = new Promise<void>((resolve) => (appended = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The first writer draws its position and holds its transaction open.
    const first = db.transaction().execute(async (trx) => {
      await appendEvents(trx, [mentionEvent(accounts.fanOne, posts[0]!, null)]);
      appended();
      await released;
    });
    await firstAppended;
    // A second writer tries to append and commit: it must wait for the first, on the event log's advisory lock. The
    // event that it got there is its request of the lock, seen not granted in pg_locks; a second writer that does not
    // wait commits instead.
    let secondCommitted = false;
    const second = db
      .transaction()
      .execute((trx) => appendEvents(trx, [mentionEvent(accounts.fanTwo, posts[0]!, null)]))
      .then(() => void (secondCommitted = true));
    await eventually(
      async () => secondCommitted || (await advisoryLockWaiters()) > 0,
      'the second writer waiting on the event log lock (or committed)',
    );
    expect(secondCommitted).toBe(false);
    // A reader now: had the second committed ahead of the first, it would see the later position alone, move its cursor
    // past the earlier one, and never read it.
    const early = (await readEventsAfter(db, cursor, 10)).map((event) => event.accountId);
    release();
    await Promise.all([first, second]);
    const all = (await newEvents()).map((event) => event.accountId);
    expect(all).toEqual([accounts.fanOne, accounts.fanTwo]);
    expect(early).toEqual([]);
  });

  it('sweeps events past the retention, and only those', async () => {
    const before = await lastEventPosition(db);
    await db.transaction().execute((trx) => appendEvents(trx, [mentionEvent(world.accounts.fanTwo, world.posts[0]!, null)]));
    const fresh = await lastEventPosition(db);
    await sql`update social.event set created_at = now() - interval '50 hours' where position <= ${before}`.execute(db);
    const sweeper = createSocialEventSweeper({
      db,
      now: () => new Date(),
      retentionMs: 48 * 3_600_000,
      logger: createLogger({ level: 'silent' }),
    });
    expect(await sweeper.sweep()).toBeGreaterThan(0);
    expect((await readEventsAfter(db, '0', 1000)).map((event) => event.position)).toEqual([fresh]);
  });
});
