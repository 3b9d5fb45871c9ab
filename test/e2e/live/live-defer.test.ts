import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { createGraphqlClient } from '../../support/graphql-client.ts';
import { useSocialWorld, type SocialTestWorld } from '../../support/social-fixture.ts';
import { createSubscriptionClient, subscribe } from '../../support/subscription-client.ts';
import { writeComment } from '../../../subgraphs/comments/comment-changes.ts';
import { lastEventPosition } from '../../../subgraphs/shared/event-log/event-log.repository.ts';
import type { SocialTables } from '../../../subgraphs/shared/social-graph/social-tables.ts';

/**
 * @defer through the federated gateway (issue 27, item 5), as `multipart/mixed;deferSpec=20220824`: the first part of a
 * deep read is sent before its deferred fragments are fetched — observed by holding the comments subgraph's requests at
 * a gate in front of it (distributed topology) until the first part has arrived — and the parts merge, in @apollo/client
 * 4 (Defer20220824Handler), to the data of the same query without @defer. Labels and paths exact. The same proxy counts
 * the WebSocket connections the gateway opens to the subgraph for subscriptions: one per caller, not per subscription.
 */

const DEFERRED = `query Deep {
  me {
    id
    username
    media(first: 2) {
      nodes {
        id
        caption
        ... on Media @defer(label: "comments") { commentsCount comments(first: 2) { nodes { id text } } }
      }
    }
  }
}`;
const UNDEFERRED = DEFERRED.replace(' @defer(label: "comments")', '');

/**
 * An HTTP proxy in front of a subgraph that holds every request while `held`, then forwards them; WebSocket upgrades pass
 * through (counted in `upgrades`).
 */
async function startGate(
  target: string,
): Promise<{ url: string; held: boolean; waiting: number; upgrades: number; release(): void; close(): Promise<void> }> {
  const upstream = new URL(target);
  const queue: (() => void)[] = [];
  const gate = {
    url: '',
    held: false,
    upgrades: 0,
    get waiting() {
      return queue.length;
    },
    release() {
      gate.held = false;
      for (const forward of queue.splice(0)) forward();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    const forward = () => {
      const proxied = httpRequest(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (reply) => {
          res.writeHead(reply.statusCode ?? 502, reply.headers);
          reply.pipe(res);
        },
      );
      proxied.on('error', () => res.destroy());
      req.pipe(proxied);
    };
    if (gate.held) queue.push(forward);
    else forward();
  });
  server.on('upgrade', (req, socket, head) => {
    gate.upgrades += 1;
    const onward = connect(Number(upstream.port), upstream.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      onward.write(`${lines.join('\r\n')}\r\n\r\n`);
      onward.write(head);
      socket.pipe(onward).pipe(socket);
    });
    onward.on('error', () => socket.destroy());
    socket.on('error', () => onward.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  gate.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${upstream.pathname}`;
  return gate;
}

describe('@defer through the distributed gateway', () => {
  let gate: Awaited<ReturnType<typeof startGate>> | undefined;
  const socialWorld = useSocialWorld({
    distributed: true,
    system: {
      gatewaySubgraphUrl: async (name, url) => {
        if (name !== 'comments') return url;
        gate = await startGate(url);
        return gate.url;
      },
    },
  });
  let world: SocialTestWorld;
  beforeAll(() => {
    world = socialWorld();
  });
  afterAll(async () => {
    gate?.release();
    await gate?.close();
  });

  it('sends the first part before the deferred fetch, then the deferred fragments at their paths', async () => {
    gate!.held = true;
    const response = await fetch(world.system.gatewayUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'multipart/mixed;deferSpec=20220824,application/json;q=0.9',
        authorization: `Bearer ${world.fixture.tokens.own}`,
      },
      body: JSON.stringify({ query: DEFERRED }),
    });
    expect(response.status, response.status === 200 ? '' : await response.text()).toBe(200);
    expect(response.headers.get('content-type')).toBe('multipart/mixed; boundary="-"; deferSpec=20220824');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const parts = (): any[] =>
      text
        .split('\r\n---')
        .map((part) => part.split('\r\n\r\n')[1])
        .filter((json): json is string => json !== undefined && json.trim().startsWith('{'))
        .map((json) => JSON.parse(json));
    while (parts().length < 1) text += decoder.decode((await reader.read()).value, { stream: true });
    // The first part is here, and the deferred fetch to the comments subgraph is made — and waits at the gate, unanswered.
    await expect.poll(() => gate!.waiting).toBeGreaterThan(0);
    const [first] = parts();
    expect(first.hasNext).toBe(true);
    expect(first.data.me.username).toBe('bluebottle');
    expect(first.data.me.media.nodes).toHaveLength(2);
    for (const node of first.data.me.media.nodes) expect(Object.keys(node)).toEqual(['id', 'caption']);
    gate!.release();
    for (;;) {
      const step = await reader.read();
      if (step.done) break;
      text += decoder.decode(step.value, { stream: true });
    }
    expect(text.endsWith('\r\n-----\r\n')).toBe(true);
    const [, second] = parts();
    expect(second.hasNext).toBe(false);
    expect(second.incremental).toHaveLength(2);
    second.incremental.forEach((item: any, index: number) => {
      expect(item.label).toBe('comments');
      expect(item.path).toEqual(['me', 'media', 'nodes', index]);
      expect(Object.keys(item.data)).toEqual(['commentsCount', 'comments']);
    });
    // The parts merged are the undeferred query's data.
    const whole = await createGraphqlClient(world.system.gatewayUrl).request(UNDEFERRED, { token: world.fixture.tokens.own });
    const merged = structuredClone(first.data);
    for (const item of second.incremental) Object.assign(merged.me.media.nodes[item.path[3]], item.data);
    expect(merged).toEqual(whole.data);
  });

  it('is read by @apollo/client 4 (Defer20220824Handler): a partial result, then the whole, equal to the undeferred query', async () => {
    const client = new ApolloClient({
      link: new HttpLink({ uri: world.system.gatewayUrl, headers: { authorization: `Bearer ${world.fixture.tokens.own}` } }),
      cache: new InMemoryCache(),
      incrementalHandler: new Defer20220824Handler(),
    });
    const seen: any[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const subscription = client.watchQuery({ query: gql(DEFERRED), fetchPolicy: 'network-only' }).subscribe({
        next: (result) => {
          seen.push(result);
          if (result.dataState === 'complete') {
            subscription.unsubscribe();
            resolve();
          }
        },
        error: reject,
      });
    });
    await done;
    expect(seen.some((result) => result.dataState === 'streaming')).toBe(true);
    const final = seen.at(-1);
    const plain = new ApolloClient({
      link: new HttpLink({ uri: world.system.gatewayUrl, headers: { authorization: `Bearer ${world.fixture.tokens.own}` } }),
      cache: new InMemoryCache(),
    });
    const whole = await plain.query({ query: gql(UNDEFERRED), fetchPolicy: 'network-only' });
    expect(final.data).toEqual(whole.data);
    client.stop();
    plain.stop();
  });

  it('answers a @defer query as one result when the client takes no incremental delivery, and refuses a broken one in GraphQL’s shape', async () => {
    const graphql = createGraphqlClient(world.system.gatewayUrl);
    const deferred = await graphql.request(DEFERRED, { token: world.fixture.tokens.own });
    const whole = await graphql.request(UNDEFERRED, { token: world.fixture.tokens.own });
    expect(deferred.status).toBe(200);
    expect(deferred.data).toEqual(whole.data);
    const broken = await graphql.request(`{ me { ... @defer(label: 1) { id } } }`, { token: world.fixture.tokens.own });
    expect(broken.status).toBe(400);
    expect(broken.errors).toEqual([expect.objectContaining({ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })]);
  });

  it('sends a deferred fragment’s errors with the item they belong to', async () => {
    const basic = await world.fixture.token('own', world.fixture.accounts.bluebottle, ['social_business_basic']);
    const response = await fetch(world.system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed;deferSpec=20220824', authorization: `Bearer ${basic}` },
      body: JSON.stringify({
        query: `{ me { media(first: 1) { nodes { id ... @defer(label: "who") { comments(first: 1) { nodes { id from { username } } } } } } } }`,
      }),
    });
    const text = await response.text();
    const parts = text
      .split('\r\n---')
      .map((part) => part.split('\r\n\r\n')[1])
      .filter((json): json is string => json !== undefined && json.trim().startsWith('{'))
      .map((json) => JSON.parse(json));
    expect(parts).toHaveLength(2);
    const [item] = parts[1].incremental;
    expect(item.label).toBe('who');
    expect(item.path).toEqual(['me', 'media', 'nodes', 0]);
    expect(item.data.comments.nodes[0].from).toEqual({ username: null });
    expect(item.errors).toEqual([
      expect.objectContaining({
        path: ['me', 'media', 'nodes', 0, 'comments', 'nodes', 0, 'from', 'username'],
        extensions: expect.objectContaining({ code: 'FORBIDDEN', serviceName: 'comments' }),
      }),
    ]);
  });

  it('opens one WebSocket to the subgraph per caller, whatever the number of its subscriptions', async () => {
    const db = world.system.database.db.withTables<SocialTables>();
    const after = await lastEventPosition(db);
    const before = gate!.upgrades;
    const client = createSubscriptionClient(world.system.gatewayUrl, { token: world.fixture.tokens.own });
    const query = `subscription($mediaId: ID!, $after: String) { mediaCommentEvents(mediaId: $mediaId, after: $after) { commentId } }`;
    const streams = [0, 1, 2].map((i) => subscribe(client, query, { mediaId: world.fixture.posts[i], after }));
    try {
      // Each stream open all the way: an event each.
      for (const [i, stream] of streams.entries()) {
        const id = await writeComment(
          db,
          {
            mediaId: world.fixture.posts[i]!,
            authorId: world.fixture.accounts.fanOne,
            parentId: null,
            text: `multiplexed ${i}`,
            timestamp: new Date(),
          },
          [],
        );
        expect((await stream.next()).data.mediaCommentEvents.commentId).toBe(id);
      }
    } finally {
      for (const stream of streams) stream.dispose();
      await client.dispose();
    }
    expect(gate!.upgrades - before).toBe(1);
  });
});
