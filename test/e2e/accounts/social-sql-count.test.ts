import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SocialTables } from '../../../subgraphs/shared/social-graph/social-tables.ts';
import { createSocialTokens } from '../../../subgraphs/index.ts';
import { writeComment } from '../../../subgraphs/comments/comment-changes.ts';
import { lastEventPosition } from '../../../subgraphs/shared/event-log/event-log.repository.ts';
import { createSocialFixture, OWN_PERMISSIONS, type SocialFixture } from '../../support/social-fixture.ts';
import { createSubscriptionClient, subscribe } from '../../support/subscription-client.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * The number of SQL statements a request runs must not grow with the number of items it returns: entity and list loads
 * are batched (DataLoader, windowed list queries). The deep read of the bench — an account's media, each with its
 * comments, each with its replies — is counted at several page sizes and must run the same statements every time.
 */

const SIZES = [1, 3, 10, 25] as const;

async function addThreads(system: TestSystem, fixture: SocialFixture): Promise<void> {
  const db = system.database.db.withTables<SocialTables>();
  // 25 comments (each with 2 replies) on each of the 25 newest posts, in three statements.
  const posts = fixture.posts.slice(0, 25);
  await sql`
    insert into social.comment (media_id, author_id, text, timestamp)
    select p.id::bigint, ${fixture.accounts.fanOne}::bigint, 'comment ' || n, now() - (n || ' minutes')::interval
    from unnest(${posts}::text[]) as p(id), generate_series(1, 25) as n`.execute(db);
  for (const round of [1, 2]) {
    await sql`
      insert into social.comment (media_id, author_id, parent_id, text, timestamp)
      select c.media_id, ${fixture.accounts.fanTwo}::bigint, c.id, 'reply ' || ${round}, c.timestamp + (${round} || ' seconds')::interval
      from social.comment c
      where c.parent_id is null and c.media_id = any(${posts}::bigint[]) and c.text like 'comment %'`.execute(db);
  }
}

async function countStatements(system: TestSystem, request: () => Promise<void>): Promise<number> {
  let count = 0;
  const stop = system.database.observeQueries(() => {
    count++;
  });
  try {
    await request();
  } finally {
    stop();
  }
  return count;
}

describe.each([
  ['embedded', startTestSystem],
  ['distributed', startDistributedTestSystem],
] as const)('SQL statements of a deep read (%s gateway)', (_mode, start) => {
  let system: TestSystem;
  let fixture: SocialFixture;
  beforeAll(async () => {
    system = await start();
    fixture = await createSocialFixture(system.database);
    await addThreads(system, fixture);
  });
  afterAll(async () => {
    await system?.close();
  });

  it('stays flat through REST as media, comment and reply pages grow', async () => {
    const counts: number[] = [];
    for (const size of SIZES) {
      const fields = `id,username,media.limit(${size}){id,caption,comments.limit(${size}){id,text,username,replies.limit(${size}){text,username}}}`;
      let items = 0;
      counts.push(
        await countStatements(system, async () => {
          const response = await fetch(`${system.restUrl}/v25.0/me?fields=${encodeURIComponent(fields)}`, {
            headers: { authorization: `Bearer ${fixture.tokens.own}` },
          });
          const body = (await response.json()) as { media: { data: { comments?: { data: { replies?: { data: unknown[] } }[] } }[] } };
          expect(response.status).toBe(200);
          for (const media of body.media.data) {
            for (const comment of media.comments?.data ?? []) items += 1 + (comment.replies?.data.length ?? 0);
          }
        }),
      );
      // The page sizes really were served: size media × size comments × (1 + min(size, 2) replies), give or take the
      // fixture's own comments on the newest post.
      expect(items).toBeGreaterThanOrEqual(size * size);
    }
    expect(new Set(counts).size, `statements per size ${SIZES.join('/')}: ${counts.join('/')}`).toBe(1);
    // Token, account, media page, comments page, replies page (and the comment counts nothing asked for are not read).
    expect(counts[0]).toBeLessThanOrEqual(8);
  });

  it('stays flat through GraphQL too', async () => {
    const counts: number[] = [];
    for (const size of SIZES) {
      counts.push(
        await countStatements(system, async () => {
          const response = await fetch(system.gatewayUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${fixture.tokens.own}` },
            body: JSON.stringify({
              query: `query Deep($n: Int) { me { username media(first: $n) { nodes { id commentsCount comments(first: $n) {
                nodes { text username media { id } replies(first: $n) { nodes { text username } } } } } } } }`,
              variables: { n: size },
            }),
          });
          const body = (await response.json()) as { errors?: unknown; data: { me: { media: { nodes: unknown[] } } } };
          expect(body.errors).toBeUndefined();
          expect(body.data.me.media.nodes).toHaveLength(size);
        }),
      );
    }
    expect(new Set(counts).size, `statements per size ${SIZES.join('/')}: ${counts.join('/')}`).toBe(1);
  });

  it('reads the caller’s token once per request in the gateway’s process, once per subgraph over HTTP', async () => {
    const tokenReads: string[] = [];
    const stop = system.database.observeQueries((query) => {
      if (query.sql.includes('"social_auth"."access_token"')) tokenReads.push(query.sql);
    });
    try {
      const response = await fetch(
        `${system.restUrl}/v25.0/me?fields=${encodeURIComponent('id,media.limit(2){id,comments{id,replies{id}}}')}`,
        {
          headers: { authorization: `Bearer ${fixture.tokens.own}` },
        },
      );
      expect(response.status).toBe(200);
    } finally {
      stop();
    }
    // The accounts and the comments subgraph both need the viewer: in-process they share one lookup; over HTTP each reads
    // it once (the two subgraph servers of this test share a process, where two reads in the same tick are one statement).
    if (_mode === 'embedded') expect(tokenReads).toHaveLength(1);
    else expect(tokenReads.length).oneOf([1, 2]);
  });

  it('reads an event for its subscribers together: the statements of one event do not grow with their number', async () => {
    // Subscribers of one media object, each with a token of its own: each event is read for each of them under its own
    // token and rules, but the reads they make at once (the tokens, the comment, the media object) go out together.
    const tokens = createSocialTokens(system.database);
    const mediaId = fixture.posts[3]!;
    const query = `subscription($mediaId: ID!, $after: String) { mediaCommentEvents(mediaId: $mediaId, after: $after) { commentId comment { text from { username } } } }`;
    const db = system.database.db.withTables<SocialTables>();
    const readsFor = async (subscribers: number): Promise<string[]> => {
      const clients = [];
      const streams = [];
      // From the log's end as it is now: whenever a stream opens, the warm-up event below reaches it.
      const after = await lastEventPosition(db);
      for (let i = 0; i < subscribers; i++) {
        const token = await tokens.issue({
          loginType: 'own',
          subjectId: fixture.accounts.bluebottle,
          permissions: OWN_PERMISSIONS,
          expiresInSeconds: 3600,
        });
        const client = createSubscriptionClient(system.gatewayUrl, { token });
        clients.push(client);
        streams.push(subscribe(client, query, { mediaId, after }));
      }
      try {
        // Until every stream is open: an event each has received.
        const warm = await writeComment(
          db,
          { mediaId, authorId: fixture.accounts.fanOne, parentId: null, text: 'warm-up', timestamp: new Date() },
          [],
        );
        for (const stream of streams) expect((await stream.next()).data.mediaCommentEvents.commentId).toBe(warm);
        const reads: string[] = [];
        const stop = system.database.observeQueries((observed) => {
          // The reads an event makes for its subscribers (the event log's own reads and the write are not counted).
          if (/^select/i.test(observed.sql) && /"social_auth"\."access_token"|"social"\."comment"|"social"\."media"/.test(observed.sql))
            reads.push(observed.sql);
        });
        try {
          const id = await writeComment(
            db,
            { mediaId, authorId: fixture.accounts.fanOne, parentId: null, text: 'counted', timestamp: new Date() },
            [],
          );
          for (const stream of streams) {
            const result = await stream.next();
            expect(result.errors).toBeUndefined();
            expect(result.data.mediaCommentEvents).toEqual({ commentId: id, comment: { text: 'counted', from: { username: 'fan_one' } } });
          }
        } finally {
          stop();
        }
        return reads;
      } finally {
        for (const stream of streams) stream.dispose();
        for (const client of clients) void client.dispose();
      }
    };
    const one = await readsFor(1);
    const six = await readsFor(6);
    expect(six.length, `one subscriber:\n${one.join('\n')}\nsix subscribers:\n${six.join('\n')}`).toBe(one.length);
    // The write's own read of what the event log records, then for the event the tokens and the comment (with its media
    // object's facts): two reads, whatever the number of subscribers (each subscriber read them before).
    expect(one.length, one.join('\n')).toBeLessThanOrEqual(3);
  });
});
