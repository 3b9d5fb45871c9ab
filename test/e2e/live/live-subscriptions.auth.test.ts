import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'graphql-ws';
import { writeComment, writeCommentThreadDeleted } from '../../../subgraphs/comments/comment-changes.ts';
import { lastEventPosition } from '../../../subgraphs/shared/event-log/event-log.repository.ts';
import { createGraphqlClient, type GraphqlClient } from '../../support/graphql-client.ts';
import { PARENT_PERMISSIONS, useSocialWorld, type SocialTestWorld } from '../../support/social-fixture.ts';
import { createSubscriptionClient, subscribe } from '../../support/subscription-client.ts';

/**
 * Each event read under the rules of a query (issue 27, item 4), through the gateway's WebSocket: a field the token's
 * permissions withhold (a commenter's username without the comment-management permission) is an error at that field of
 * that event; a comment a query withholds (a live video's once the broadcast has ended) is not sent at all; a token of
 * the other login type on a host named for the other is refused as a query is; a token without the read permission
 * cannot subscribe.
 */

const HIDE = `mutation($id: ID!, $hide: Boolean) { hideComment(id: $id, hide: $hide) { success } }`;

describe('subscriptions under the read rules of a query, per event', () => {
  const socialWorld = useSocialWorld();
  let world: SocialTestWorld;
  let graphql: GraphqlClient;
  const clients: Client[] = [];
  beforeAll(() => {
    world = socialWorld();
    graphql = createGraphqlClient(world.system.gatewayUrl);
  });
  afterAll(() => {
    for (const client of clients) void client.dispose();
  });
  const client = (token: string, extra: Record<string, string> = {}) => {
    const created = createSubscriptionClient(world.system.gatewayUrl, { connectionParams: { Authorization: `Bearer ${token}`, ...extra } });
    clients.push(created);
    return created;
  };

  it('withholds a commenter’s username from a token without the comment-management permission, event by event', async () => {
    const { accounts } = world.fixture;
    const mediaId = await world.newPost();
    const fanComment = await world.graph.comment(mediaId, accounts.fanOne, {
      text: 'Nice',
      parentId: null,
      hidden: false,
      timestamp: new Date(),
    });
    const basic = await world.fixture.token('own', accounts.bluebottle, ['social_business_basic']);
    const stream = subscribe(
      client(basic),
      `subscription($id: ID!, $after: String) {
      mediaCommentEvents(mediaId: $id, after: $after) { action comment { text from { id username } } }
    }`,
      { id: mediaId, after: await lastEventPosition(world.tables) },
    );
    const hidden = await graphql.request(HIDE, { variables: { id: fanComment, hide: true }, token: world.fixture.tokens.own });
    expect(hidden.errors, hidden.text).toBeUndefined();
    const event = await stream.next();
    expect(event.data).toEqual({
      mediaCommentEvents: { action: 'HIDDEN', comment: { text: 'Nice', from: { id: accounts.fanOne, username: null } } },
    });
    expect(event.errors).toEqual([
      expect.objectContaining({
        path: ['mediaCommentEvents', 'comment', 'from', 'username'],
        extensions: expect.objectContaining({ code: 'FORBIDDEN', serviceName: 'comments' }),
      }),
    ]);
    stream.dispose();
  });

  it('does not send an event of a comment a query withholds (a live video whose broadcast has ended)', async () => {
    const { accounts } = world.fixture;
    const live = await world.newPost({ mediaType: 'VIDEO', isLive: true });
    const stream = subscribe(
      client(world.fixture.tokens.own),
      `subscription($id: ID!, $after: String) {
      mediaCommentEvents(mediaId: $id, after: $after) { action comment { text } }
    }`,
      { id: live, after: await lastEventPosition(world.tables) },
    );
    // The broadcast ends: a comment logged on it now is shown by no query, and not sent; its deletion names only its id,
    // and is sent — the first event the stream gives.
    await world.setMedia(live, { live_ended_at: new Date() });
    const withheld = await writeComment(
      world.tables,
      { mediaId: live, authorId: accounts.fanOne, parentId: null, text: 'withheld', timestamp: new Date() },
      [],
    );
    await writeCommentThreadDeleted(world.tables, withheld, new Date());
    expect((await stream.next()).data).toEqual({ mediaCommentEvents: { action: 'DELETED', comment: null } });
    stream.dispose();
  });

  it('refuses a parent-platform token on the own-login host, and a token without the read permission, as a query does', async () => {
    const mediaId = world.fixture.posts[0]!;
    const query = `subscription($id: ID!) { mediaCommentEvents(mediaId: $id) { cursor } }`;
    const wrongHost = subscribe(client(world.fixture.tokens.parent, { 'X-Social-Host': 'own' }), query, { id: mediaId });
    const refused = await wrongHost.next();
    expect(refused.data).toBeNull();
    expect(refused.errors![0]!.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'WRONG_HOST', serviceName: 'comments' });
    await wrongHost.ended;

    const noRead = await world.fixture.token(
      'parent',
      world.fixture.platformUsers.bm,
      PARENT_PERMISSIONS.filter((permission) => permission !== 'pages_read_engagement'),
    );
    const withoutPermission = subscribe(client(noRead), query, { id: mediaId });
    const denied = await withoutPermission.next();
    expect(denied.data).toBeNull();
    expect(denied.errors![0]!.extensions).toMatchObject({ code: 'FORBIDDEN', serviceName: 'comments' });
    await withoutPermission.ended;
  });
});
