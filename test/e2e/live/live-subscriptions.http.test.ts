import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { createClient as createSseClient } from 'graphql-sse';
import { lastEventPosition } from '../../../subgraphs/shared/event-log/event-log.repository.ts';
import { createGraphqlClient, type GraphqlClient } from '../../support/graphql-client.ts';
import { useSocialWorld, type SocialTestWorld } from '../../support/social-fixture.ts';
import { resultQueue } from '../../support/subscription-client.ts';

/**
 * Subscriptions over HTTP through the gateway's /graphql (issue 27), with the clients front-ends use, unmodified:
 * graphql-sse's client (GraphQL over SSE, distinct connections), and @apollo/client 4's HttpLink (Apollo's multipart
 * subscriptions); an EventSource-style reconnect with Last-Event-ID; the refusals of a subscription sent otherwise.
 */

const T0 = Date.parse('2026-11-02T10:00:00.000Z');
let current = T0;
const clock = () => new Date(current);
afterEach(() => {
  current = T0;
});

const MEDIA_EVENTS = `subscription MediaEvents($mediaId: ID!, $after: String) {
  mediaCommentEvents(mediaId: $mediaId, after: $after) { cursor action comment { text } media { caption } }
}`;
const CREATE = `mutation Create($mediaId: ID!, $message: String) { createMediaComment(mediaId: $mediaId, message: $message) { id } }`;

const MODES = [
  { mode: 'embedded gateway', distributed: false },
  { mode: 'distributed gateway', distributed: true },
];

describe.each(MODES)('subscriptions over HTTP through the $mode', ({ distributed }) => {
  const socialWorld = useSocialWorld({ now: clock, distributed });
  let world: SocialTestWorld;
  let graphql: GraphqlClient;
  let own: string;
  beforeAll(() => {
    world = socialWorld();
    graphql = createGraphqlClient(world.system.gatewayUrl);
    own = world.fixture.tokens.own;
  });
  const comment = async (mediaId: string, message: string) => {
    const reply = await graphql.request(CREATE, { variables: { mediaId, message }, token: own });
    expect(reply.errors, reply.text).toBeUndefined();
  };

  it('streams events to graphql-sse’s client (GraphQL over SSE)', async () => {
    const mediaId = await world.newPost({ caption: 'SSE post' });
    const client = createSseClient({ url: world.system.gatewayUrl, headers: { Authorization: `Bearer ${own}` }, retryAttempts: 0 });
    const results = resultQueue<any>();
    const dispose = client.subscribe(
      { query: MEDIA_EVENTS, variables: { mediaId, after: await lastEventPosition(world.tables) } },
      {
        next: (result) => results.push(result),
        error: (error) => results.push({ error }),
        complete: () => results.push({ complete: true }),
      },
    );
    try {
      await comment(mediaId, 'over SSE');
      const first = await results.next();
      expect(first).toEqual({
        data: {
          mediaCommentEvents: {
            cursor: expect.stringMatching(/^[0-9]+$/),
            action: 'CREATED',
            comment: { text: 'over SSE' },
            media: { caption: 'SSE post' },
          },
        },
      });
    } finally {
      dispose();
      client.dispose();
    }
  });

  it('streams events to @apollo/client 4 over multipart HTTP (subscriptionSpec 1.0)', async () => {
    const mediaId = await world.newPost({ caption: 'Multipart post' });
    const client = new ApolloClient({
      link: new HttpLink({ uri: world.system.gatewayUrl, headers: { authorization: `Bearer ${own}` } }),
      cache: new InMemoryCache(),
    });
    const results = resultQueue<any>();
    const subscription = client
      .subscribe({ query: gql(MEDIA_EVENTS), variables: { mediaId, after: await lastEventPosition(world.tables) } })
      .subscribe({ next: (result) => results.push(result), error: (error) => results.push({ error }) });
    try {
      await comment(mediaId, 'over multipart');
      const first = await results.next();
      expect(first.error).toBeUndefined();
      expect(first.data).toEqual({
        mediaCommentEvents: {
          __typename: 'CommentEvent',
          cursor: expect.stringMatching(/^[0-9]+$/),
          action: 'CREATED',
          comment: { __typename: 'Comment', text: 'over multipart' },
          media: { __typename: 'Media', caption: 'Multipart post' },
        },
      });
    } finally {
      subscription.unsubscribe();
      client.stop();
    }
  });

  it('resumes an SSE stream from Last-Event-ID: every later event, none twice', async () => {
    const mediaId = await world.newPost({ caption: 'Reconnecting post' });
    const start = await lastEventPosition(world.tables);
    for (const message of ['a', 'b', 'c']) await comment(mediaId, message);
    const read = async (lastEventId: string, count: number) => {
      const controller = new AbortController();
      const response = await fetch(world.system.gatewayUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          authorization: `Bearer ${own}`,
          'last-event-id': lastEventId,
        },
        body: JSON.stringify({ query: MEDIA_EVENTS, variables: { mediaId } }),
        signal: controller.signal,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      const events: { id: string; text: string }[] = [];
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of response.body!) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (/^event: next$/m.test(block) && id && data) events.push({ id, text: JSON.parse(data).data.mediaCommentEvents.comment.text });
        }
        if (events.length >= count) break;
      }
      controller.abort();
      return events.slice(0, count);
    };
    const firstTwo = await read(start, 2);
    expect(firstTwo.map((event) => event.text)).toEqual(['a', 'b']);
    const rest = await read(firstTwo[1]!.id, 1);
    expect(rest.map((event) => event.text)).toEqual(['c']);
    expect(BigInt(rest[0]!.id)).toBeGreaterThan(BigInt(firstTwo[1]!.id));
  });

  it('refuses a subscription sent without a streaming Accept, and one sent over GET, in GraphQL’s shape', async () => {
    const mediaId = await world.newPost();
    const plain = await fetch(world.system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${own}` },
      body: JSON.stringify({ query: MEDIA_EVENTS, variables: { mediaId } }),
    });
    expect(plain.status).toBe(406);
    expect(await plain.json()).toEqual({
      errors: [
        {
          message:
            'A subscription over HTTP needs Accept: multipart/mixed;subscriptionSpec=1.0 (Apollo) or text/event-stream (GraphQL over SSE); or use a WebSocket (graphql-transport-ws) on /graphql.',
          extensions: { code: 'BAD_REQUEST' },
        },
      ],
    });
    const query = encodeURIComponent(`subscription { mediaCommentEvents(mediaId: "${mediaId}") { cursor } }`);
    const viaGet = await fetch(`${world.system.gatewayUrl}?query=${query}`, {
      headers: { 'apollo-require-preflight': 'true', authorization: `Bearer ${own}` },
    });
    // Apollo Server's answer to any operation but a query over GET.
    expect(viaGet.status).toBe(405);
    expect(await viaGet.json()).toEqual({
      errors: [{ message: 'GET requests only support query operations, not subscription operations', extensions: { code: 'BAD_REQUEST' } }],
    });
  });
});
