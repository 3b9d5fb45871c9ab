import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'graphql-ws';
import { createSocialTokens } from '../../../subgraphs/index.ts';
import { lastEventPosition } from '../../../subgraphs/shared/event-log/event-log.repository.ts';
import { createGraphqlClient, type GraphqlClient } from '../../support/graphql-client.ts';
import { OWN_PERMISSIONS, useSocialWorld, type SocialTestWorld } from '../../support/social-fixture.ts';
import { createSubscriptionClient, subscribe, type ReceivedResult } from '../../support/subscription-client.ts';

/**
 * Subscriptions through the gateway's /graphql over graphql-ws (issue 27), with graphql-ws's own client: the comments
 * subgraph's Subscription fields fed by the event log, completed by the accounts subgraph (fields of two subgraphs in one
 * event), resumed with `after`, each event read under the rules of a query at that moment.
 */

const T0 = Date.parse('2026-11-02T10:00:00.000Z');
let current = T0;
const clock = () => new Date(current);
afterEach(() => {
  current = T0;
});

const MEDIA_EVENTS = `subscription MediaEvents($mediaId: ID!, $after: String) {
  mediaCommentEvents(mediaId: $mediaId, after: $after) {
    cursor action commentId parentId
    comment { id text hidden from { id username } }
    media { id caption owner { username } }
  }
}`;
const CREATE = `mutation Create($mediaId: ID!, $message: String) { createMediaComment(mediaId: $mediaId, message: $message) { id } }`;
const REPLY = `mutation Reply($id: ID!, $message: String) { replyToComment(id: $id, message: $message) { id } }`;
const HIDE = `mutation Hide($id: ID!, $hide: Boolean) { hideComment(id: $id, hide: $hide) { success } }`;
const DELETE = `mutation Delete($id: ID!) { deleteComment(id: $id) { success } }`;

/** An event's data without its cursor (checked on its own: a decimal position, increasing). */
function withoutCursor(result: ReceivedResult): unknown {
  expect(result.errors, JSON.stringify(result)).toBeUndefined();
  const { cursor, ...rest } = result.data.mediaCommentEvents;
  expect(cursor).toMatch(/^[1-9][0-9]*$/);
  return rest;
}

const cursorOf = (result: ReceivedResult): string => result.data.mediaCommentEvents.cursor;

const MODES = [
  { mode: 'embedded gateway', distributed: false },
  { mode: 'distributed gateway (subgraphs over HTTP and WebSocket)', distributed: true },
];

describe.each(MODES)('subscriptions over graphql-ws through the $mode', ({ distributed }) => {
  const socialWorld = useSocialWorld({ now: clock, distributed });
  let world: SocialTestWorld;
  let gql: GraphqlClient;
  let own: string;
  const clients: Client[] = [];
  const client = (token: string) => {
    const created = createSubscriptionClient(world.system.gatewayUrl, { token });
    clients.push(created);
    return created;
  };

  beforeAll(async () => {
    world = socialWorld();
    gql = createGraphqlClient(world.system.gatewayUrl);
    own = world.fixture.tokens.own;
  });
  afterAll(async () => {
    for (const each of clients) void each.dispose();
  });

  async function mutate(query: string, variables: Record<string, unknown>, token = own): Promise<any> {
    const reply = await gql.request(query, { variables, token });
    expect(reply.errors, reply.text).toBeUndefined();
    return reply.data;
  }

  it('sends a media object’s comments as they are created, hidden, shown and deleted, with fields of two subgraphs', async () => {
    const mediaId = await world.newPost({ caption: 'Live post' });
    // A fan's comment (written straight into the store: no event), which the owner hides and shows.
    const fanComment = await world.graph.comment(mediaId, world.fixture.accounts.fanOne, {
      text: 'Nice',
      parentId: null,
      hidden: false,
      timestamp: new Date(T0),
    });
    // From the log's end as it is now: whenever the gateway opens the stream, nothing written after this is missed.
    const stream = subscribe(client(own), MEDIA_EVENTS, { mediaId, after: await logEnd(world) });
    const media = { id: mediaId, caption: 'Live post', owner: { username: 'bluebottle' } };
    const owner = { id: world.fixture.accounts.bluebottle, username: 'bluebottle' };
    const fan = { id: world.fixture.accounts.fanOne, username: 'fan_one' };
    const received: ReceivedResult[] = [];
    // Each change is awaited as an event before the next is made: an event's comment is read as it is when it is sent.
    const expectEvent = async (change: () => Promise<unknown>, expected: unknown) => {
      await change();
      const result = await stream.next();
      received.push(result);
      expect(withoutCursor(result)).toEqual(expected);
    };
    let commentId = '';
    await expectEvent(async () => (commentId = (await mutate(CREATE, { mediaId, message: 'First!' })).createMediaComment.id), {
      action: 'CREATED',
      commentId: expect.any(String),
      parentId: null,
      comment: { id: expect.any(String), text: 'First!', hidden: false, from: owner },
      media,
    });
    await expectEvent(() => mutate(HIDE, { id: fanComment, hide: true }), {
      action: 'HIDDEN',
      commentId: fanComment,
      parentId: null,
      comment: { id: fanComment, text: 'Nice', hidden: true, from: fan },
      media,
    });
    await expectEvent(() => mutate(HIDE, { id: fanComment, hide: false }), {
      action: 'SHOWN',
      commentId: fanComment,
      parentId: null,
      comment: { id: fanComment, text: 'Nice', hidden: false, from: fan },
      media,
    });
    let replyId = '';
    await expectEvent(async () => (replyId = (await mutate(REPLY, { id: commentId, message: 'Thanks' })).replyToComment.id), {
      action: 'CREATED',
      commentId: expect.any(String),
      parentId: commentId,
      comment: { id: expect.any(String), text: 'Thanks', hidden: false, from: owner },
      media,
    });
    expect(received[3]!.data.mediaCommentEvents.commentId).toBe(replyId);
    // Deleting a comment deletes its replies: one event each, the comment's first.
    await expectEvent(() => mutate(DELETE, { id: commentId }), { action: 'DELETED', commentId, parentId: null, comment: null, media });
    received.push(await stream.next());
    expect(withoutCursor(received[5]!)).toEqual({ action: 'DELETED', commentId: replyId, parentId: commentId, comment: null, media });
    const cursors = received.map(cursorOf).map(BigInt);
    expect(cursors).toEqual([...cursors].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(new Set(cursors).size).toBe(6);
    stream.dispose();
  });

  it('resumes after a cursor: every later event, in order, none twice', async () => {
    const mediaId = await world.newPost({ caption: 'Resumed post' });
    const first = subscribe(client(own), MEDIA_EVENTS, { mediaId, after: await logEnd(world) });
    const texts = ['one', 'two', 'three', 'four'];
    for (const message of texts.slice(0, 2)) await mutate(CREATE, { mediaId, message });
    const one = await first.next();
    expect(one.data.mediaCommentEvents.comment.text).toBe('one');
    // The client goes away after the first event; two more are written while it is gone.
    first.dispose();
    for (const message of texts.slice(2)) await mutate(CREATE, { mediaId, message });
    const resumed = subscribe(client(own), MEDIA_EVENTS, { mediaId, after: cursorOf(one) });
    const again = [await resumed.next(), await resumed.next(), await resumed.next()];
    expect(again.map((result) => result.data.mediaCommentEvents.comment.text)).toEqual(['two', 'three', 'four']);
    await mutate(CREATE, { mediaId, message: 'five' });
    expect((await resumed.next()).data.mediaCommentEvents.comment.text).toBe('five');
    resumed.dispose();
  });

  it('sends the replies to a comment (commentReplyEvents)', async () => {
    const mediaId = await world.newPost({ caption: 'Thread post' });
    const { createMediaComment } = await mutate(CREATE, { mediaId, message: 'Parent' });
    const parentId = createMediaComment.id as string;
    const stream = subscribe(
      client(own),
      `subscription($id: ID!, $after: String) {
      commentReplyEvents(commentId: $id, after: $after) { cursor action parentId comment { text } media { id } }
    }`,
      { id: parentId, after: await logEnd(world) },
    );
    await mutate(CREATE, { mediaId, message: 'Not a reply' });
    await mutate(REPLY, { id: parentId, message: 'A reply' });
    const result = await stream.next();
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      commentReplyEvents: {
        cursor: expect.stringMatching(/^[0-9]+$/),
        action: 'CREATED',
        parentId,
        comment: { text: 'A reply' },
        media: { id: mediaId },
      },
    });
    stream.dispose();
  });

  it('sends the @mentions of an account (accountMentionEvents), its media completed by the accounts subgraph', async () => {
    const { accounts, tokens, media } = world.fixture;
    const stream = subscribe(
      client(tokens.parent),
      `subscription($account: ID!, $after: String) {
      accountMentionEvents(accountId: $account, after: $after) { cursor comment { text } media { id caption owner { username } } }
    }`,
      { account: accounts.bluebottle, after: await logEnd(world) },
    );
    // ana (a role on roaster's page) comments on roaster's post, mentioning @bluebottle.
    await mutate(CREATE, { mediaId: media.roasterPost, message: 'Thanks @bluebottle for the beans' }, tokens.parent);
    const result = await stream.next();
    expect(result.errors).toBeUndefined();
    expect(result.data.accountMentionEvents).toEqual({
      cursor: expect.stringMatching(/^[0-9]+$/),
      comment: { text: 'Thanks @bluebottle for the beans' },
      media: { id: media.roasterPost, caption: expect.any(String), owner: { username: 'roaster' } },
    });
    stream.dispose();
  });

  it('ends the subscription with the token’s error once it has expired', async () => {
    const token = await world.fixture.token('own', world.fixture.accounts.bluebottle, OWN_PERMISSIONS);
    const mediaId = await world.newPost();
    const stream = subscribe(client(token), MEDIA_EVENTS, { mediaId, after: await logEnd(world) });
    await mutate(CREATE, { mediaId, message: 'in time' });
    expect((await stream.next()).data.mediaCommentEvents.comment.text).toBe('in time');
    // Two hours on, the subscriber's one-hour token has expired; a fresh token writes the next comment.
    current = T0 + 2 * 3_600_000;
    const fresh = await world.fixture.token('own', world.fixture.accounts.bluebottle, OWN_PERMISSIONS);
    await mutate(CREATE, { mediaId, message: 'too late' }, fresh);
    const ended = await stream.next();
    expect(ended.data).toBeNull();
    expect(ended.errors).toEqual([
      expect.objectContaining({
        path: ['mediaCommentEvents'],
        extensions: expect.objectContaining({ code: 'UNAUTHENTICATED', reason: 'TOKEN_EXPIRED', serviceName: 'comments' }),
      }),
    ]);
    expect(ended.errors![0]!.message).toMatch(/^Error validating access token: Session has expired on /);
    await stream.ended;
  });

  it('refuses what a query refuses, in the area’s errors: an unknown media object, a bad cursor', async () => {
    const unknown = subscribe(client(own), MEDIA_EVENTS, { mediaId: '17800000000000999' });
    const refused = await unknown.next();
    expect(refused.data).toBeNull();
    expect(refused.errors).toHaveLength(1);
    expect(refused.errors![0]!.path).toEqual(['mediaCommentEvents']);
    expect(refused.errors![0]!.extensions).toMatchObject({ code: 'NOT_FOUND', serviceName: 'comments' });
    await unknown.ended;

    const mediaId = await world.newPost();
    const badCursor = subscribe(client(own), MEDIA_EVENTS, { mediaId, after: 'abc' });
    const bad = await badCursor.next();
    expect(bad.errors![0]).toMatchObject({ message: 'Invalid cursor.', path: ['mediaCommentEvents'] });
    expect(bad.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', serviceName: 'comments' });
    await badCursor.ended;
  });

  it('sends validation errors as graphql-ws error messages', async () => {
    const invalid = subscribe(client(own), `subscription { mediaCommentEvents(mediaId: "1") { nope } }`);
    await expect(invalid.ended).rejects.toEqual([
      expect.objectContaining({
        message: 'Cannot query field "nope" on type "CommentEvent".',
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      }),
    ]);
  });

  it('runs queries and mutations sent over the socket through the HTTP door', async () => {
    const query = subscribe(client(own), `query { socialCaller { __typename } }`);
    const result = await query.next();
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ socialCaller: { __typename: expect.any(String) } });
    await query.ended;
  });

  it('ends the subscription with the token’s error once it is revoked', async () => {
    const token = await world.fixture.token('own', world.fixture.accounts.bluebottle, OWN_PERMISSIONS);
    const mediaId = await world.newPost();
    const stream = subscribe(client(token), MEDIA_EVENTS, { mediaId, after: await logEnd(world) });
    await mutate(CREATE, { mediaId, message: 'before' });
    expect((await stream.next()).data.mediaCommentEvents.comment.text).toBe('before');
    expect(await createSocialTokens(world.system.database, clock).revoke(token)).toBe(true);
    await mutate(CREATE, { mediaId, message: 'after' });
    const ended = await stream.next();
    expect(ended.data).toBeNull();
    expect(ended.errors).toEqual([
      expect.objectContaining({
        message: 'Error validating access token: The session is invalid because the user logged out.',
        path: ['mediaCommentEvents'],
        extensions: expect.objectContaining({ code: 'UNAUTHENTICATED', reason: 'TOKEN_REVOKED', serviceName: 'comments' }),
      }),
    ]);
    await stream.ended;
  });
});

/** The event log's last position now: a subscription `after` it gets every event written from here on. */
function logEnd(world: SocialTestWorld): Promise<string> {
  return lastEventPosition(world.tables);
}

describe('one caller’s subscriptions past what a subgraph connection takes (distributed gateway)', () => {
  // Two per connection, at the gateway and at the subgraph servers alike (one deployment, one configuration).
  const socialWorld = useSocialWorld({ distributed: true, env: { SUBSCRIPTIONS_PER_CONNECTION: '2' } });

  it('opens another connection to the subgraph: six subscriptions of one token each get their event', async () => {
    const world = socialWorld();
    const clients = [0, 1, 2].map(() => createSubscriptionClient(world.system.gatewayUrl, { token: world.fixture.tokens.own }));
    try {
      const mediaId = await world.newPost({ caption: 'Busy post' });
      const after = await logEnd(world);
      // The gateway multiplexes one caller's subscription fetches on one WebSocket to the comments subgraph, whose own
      // bound is two: the third and later went to a connection that refused them ("At most 2 subscriptions per connection").
      const streams = clients.flatMap((each) => [
        subscribe(each, MEDIA_EVENTS, { mediaId, after }),
        subscribe(each, MEDIA_EVENTS, { mediaId, after }),
      ]);
      const reply = await createGraphqlClient(world.system.gatewayUrl).request(CREATE, {
        variables: { mediaId, message: 'for all six' },
        token: world.fixture.tokens.own,
      });
      expect(reply.errors).toBeUndefined();
      for (const stream of streams) {
        const result = await stream.next();
        expect(result.errors).toBeUndefined();
        expect(result.data.mediaCommentEvents.comment.text).toBe('for all six');
      }
      for (const stream of streams) stream.dispose();
    } finally {
      for (const each of clients) await each.dispose();
    }
  });
});
