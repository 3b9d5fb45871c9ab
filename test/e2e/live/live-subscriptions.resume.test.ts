import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUPERGRAPH_FILE } from '../../../schema/supergraph-file.ts';
import { lastEventPosition, readEventsAfter } from '../../../subgraphs/shared/event-log/event-log.repository.ts';
import { matchesFilter } from '../../../subgraphs/shared/event-log/event-log-feed.ts';
import { createGraphqlClient, type GraphqlClient } from '../../support/graphql-client.ts';
import { useSocialWorld, type SocialTestWorld } from '../../support/social-fixture.ts';
import { createSubscriptionClient, subscribe } from '../../support/subscription-client.ts';

/**
 * Resumable, nothing lost (issue 27, item 3), through the distributed gateway: a subgraph restarted under a subscription,
 * and the gateway's supergraph reloaded under it. What the client receives — across the interruption and its resume
 * with `after` — is compared with the event log itself: the same positions, in order, no gap, no duplicate.
 */

const MEDIA_EVENTS = `subscription($mediaId: ID!, $after: String) {
  mediaCommentEvents(mediaId: $mediaId, after: $after) { cursor comment { text } media { caption } }
}`;
const MENTIONS = `subscription($account: ID!, $after: String) { accountMentionEvents(accountId: $account, after: $after) { cursor } }`;
const CREATE = `mutation($mediaId: ID!, $message: String) { createMediaComment(mediaId: $mediaId, message: $message) { id } }`;

describe('subscriptions resumed across interruptions (distributed gateway)', () => {
  let dir: string;
  let file: string;
  let original: string;
  // Before the world's own hook: the system reads SUPERGRAPH_FILE when it starts.
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tributary-live-'));
    file = join(dir, 'supergraph.graphql');
    original = await readFile(SUPERGRAPH_FILE, 'utf8');
    await writeFile(file, original);
  });
  const socialWorld = useSocialWorld({
    distributed: true,
    env: {
      get SUPERGRAPH_FILE() {
        return file;
      },
    } as unknown as Record<string, string>,
  });
  let world: SocialTestWorld;
  let graphql: GraphqlClient;
  const clients: Client[] = [];

  beforeAll(async () => {
    world = socialWorld();
    graphql = createGraphqlClient(world.system.gatewayUrl);
  });
  afterAll(async () => {
    for (const client of clients) void client.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const client = () => {
    const created = createSubscriptionClient(world.system.gatewayUrl, { token: world.fixture.tokens.own });
    clients.push(created);
    return created;
  };
  const comment = async (mediaId: string, message: string) => {
    const reply = await graphql.request(CREATE, { variables: { mediaId, message }, token: world.fixture.tokens.own });
    expect(reply.errors, reply.text).toBeUndefined();
  };
  /** The log's positions of a media object's events after `after`: what a subscriber must have received. */
  const logged = async (mediaId: string, after: string) =>
    (await readEventsAfter(world.tables, after, 1000))
      .filter((event) => matchesFilter({ kind: 'mediaComments', mediaId }, event))
      .map((event) => event.position);
  const cursors = (results: { data?: any }[]) => results.map((result) => result.data.mediaCommentEvents.cursor as string);

  it('after a subgraph restart, resuming with the last cursor gets every later event once', async () => {
    const mediaId = await world.newPost({ caption: 'Restarted' });
    const start = await lastEventPosition(world.tables);
    const stream = subscribe(client(), MEDIA_EVENTS, { mediaId, after: start });
    await comment(mediaId, 'one');
    const received = [await stream.next()];
    // The comments subgraph goes away under the subscription (its stream ends), and comes back.
    await world.system.restartSubgraph!('comments');
    const ended = await stream.next();
    expect(ended.errors?.[0]?.extensions).toMatchObject({ code: 'SERVICE_UNAVAILABLE', serviceName: 'comments' });
    await stream.ended;
    await comment(mediaId, 'two');
    await comment(mediaId, 'three');
    const resumed = subscribe(client(), MEDIA_EVENTS, { mediaId, after: cursors(received).at(-1) });
    received.push(await resumed.next(), await resumed.next());
    expect(received.map((result) => result.data.mediaCommentEvents.comment.text)).toEqual(['one', 'two', 'three']);
    expect(cursors(received)).toEqual(await logged(mediaId, start));
    resumed.dispose();
  });

  it('goes on across a supergraph reload while its field exists, and ends with a resumable error once it does not', async () => {
    const mediaId = await world.newPost({ caption: 'Reloaded' });
    const start = await lastEventPosition(world.tables);
    const media = subscribe(client(), MEDIA_EVENTS, { mediaId, after: start });
    const mentionsClient = createSubscriptionClient(world.system.gatewayUrl, { token: world.fixture.tokens.parent });
    clients.push(mentionsClient);
    const mentions = subscribe(mentionsClient, MENTIONS, { account: world.fixture.accounts.bluebottle, after: start });
    await comment(mediaId, 'before');
    const received = [await media.next()];

    // A reload that changes a description only: the same stream goes on.
    await writeFile(
      file,
      original.replace(
        'Comments and replies on a media object as they are created',
        'Reloaded: comments and replies on a media object as they are created',
      ),
    );
    expect(await world.system.reloadSupergraph!()).toBe('applied');
    await comment(mediaId, 'after the first reload');
    received.push(await media.next());

    // A reload without accountMentionEvents: that subscription ends, saying why and how to resume; the other goes on.
    const withoutMentions = original.replace(
      /\n {2}"""\n {2}@mentions of an account[^]*?accountMentionEvents\(accountId: ID!, after: String\): MentionEvent!\n/,
      '\n',
    );
    expect(withoutMentions).not.toContain('accountMentionEvents');
    await writeFile(file, withoutMentions);
    expect(await world.system.reloadSupergraph!()).toBe('applied');
    const mentionReply = await graphql.request(CREATE, {
      variables: { mediaId: world.fixture.media.roasterPost, message: 'Hi @bluebottle' },
      token: world.fixture.tokens.parent,
    });
    expect(mentionReply.errors, mentionReply.text).toBeUndefined();
    const ended = await mentions.next();
    expect(ended.errors).toEqual([
      {
        message:
          'The supergraph changed and this subscription no longer runs on it (Cannot query field "accountMentionEvents" on type "Subscription".). Resubscribe with after = the last cursor received.',
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      },
    ]);
    await mentions.ended;
    await comment(mediaId, 'after the second reload');
    received.push(await media.next());
    expect(received.map((result) => result.data.mediaCommentEvents.comment.text)).toEqual([
      'before',
      'after the first reload',
      'after the second reload',
    ]);
    expect(cursors(received)).toEqual(await logged(mediaId, start));
    media.dispose();
    await writeFile(file, original);
    expect(await world.system.reloadSupergraph!()).toBe('applied');
  });
});
