import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.ts';
import { LONG_TEST_MS } from '../../support/hang-bounds.ts';
import { startStreamHolder, type HolderCommand, type StreamHolder } from '../../support/stream-holder.ts';
import { useSocialWorld, type SocialTestWorld } from '../../support/social-fixture.ts';
import { hostileSubscriptionRequests, subscribeMessageOverhead } from '../../support/subscription-requests.ts';

/**
 * What an open subscription costs the gateway's process (issue 41, case 1): a stream holds what its operation needs, not
 * its request. The clients run in a child process (test/support/stream-holder.ts), so this process's heap is the
 * server's alone; it is weighed after collections, with every stream open (the open-subscriptions gauge says so).
 *
 * Each subscription is sent with the largest request the limits allow — its document and variables at
 * SUBSCRIPTION_MAX_MESSAGE_BYTES, a WebSocket message's bound, which HTTP subscriptions now meet too — filled in the ways
 * that held memory before (test/support/subscription-requests.ts): an unused variable nested to just inside
 * GRAPHQL_MAX_JSON_DEPTH, a comment, a 64 KiB alias (the one of the three an operation really keeps). Each request is
 * different, so no cache shares one stream's cost with another's. The heap may grow by at most the documented bound per
 * stream (README "Subscriptions and @defer").
 */

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The documented bound on what one open subscription holds in the gateway's process (README). */
const PER_STREAM_BOUND_BYTES = 256 * 1024;

/** How little a collection may free for the heap to count as settled: a fraction of one stream's bound. */
const SETTLED_BYTES = 64 * 1024;
/** How many collections in a row must free less than SETTLED_BYTES. */
const QUIET_COLLECTIONS = 3;

/**
 * The heap after collections, once the last timers and sockets of earlier work have ended: collections, one each time
 * `eventually` looks, until QUIET_COLLECTIONS in a row free less than SETTLED_BYTES.
 */
async function settledHeap(): Promise<number> {
  let previous = Number.POSITIVE_INFINITY;
  let quiet = 0;
  return eventually(() => {
    gc();
    const heap = process.memoryUsage().heapUsed;
    quiet = previous - heap < SETTLED_BYTES ? quiet + 1 : 0;
    previous = heap;
    return quiet >= QUIET_COLLECTIONS && heap;
  }, `the heap settled (${QUIET_COLLECTIONS} collections in a row freeing less than ${SETTLED_BYTES} bytes)`);
}

describe('the memory an open subscription holds', () => {
  const socialWorld = useSocialWorld();
  let world: SocialTestWorld;
  let holder: StreamHolder;
  let maxBytes: number;
  beforeAll(() => {
    world = socialWorld();
    maxBytes = world.system.config.subscriptions.maxMessageBytes;
    holder = startStreamHolder();
  });
  afterAll(() => {
    holder?.stop();
  });

  const openGauge = async (transport: string): Promise<number> => {
    const text = await (await fetch(new URL('/metrics', world.system.gatewayUrl))).text();
    const line = text.split('\n').find((entry) => entry.startsWith(`tributary_subscriptions_open{transport="${transport}"`));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };

  /** Hostile requests (test/support/subscription-requests.ts) at the bound of `transport`, each unlike any other. */
  const hostileBodies = (count: number, tag: string, transport: 'http' | 'websocket' = 'http'): string[] =>
    hostileSubscriptionRequests({
      count,
      tag,
      mediaIds: world.fixture.posts.slice(0, 5),
      limitBytes: (index) => (transport === 'http' ? maxBytes : maxBytes - subscribeMessageOverhead(index)),
      maxJsonDepth: world.system.config.graphql.maxJsonDepth,
    });

  const weigh = async (command: Extract<HolderCommand, { kind: 'open' }>, gauge: string) => {
    const before = await settledHeap();
    const reply = await holder.open(command);
    expect(
      reply.statuses.filter((status) => status !== 200),
      reply.refusal,
    ).toEqual([]);
    await expect.poll(() => openGauge(gauge), { timeout: 20_000 }).toBe(command.bodies.length);
    const grown = (await settledHeap()) - before;
    await holder.close();
    await expect.poll(() => openGauge(gauge), { timeout: 20_000 }).toBe(0);
    return grown;
  };

  it(
    'holds at most the bound per SSE and per multipart subscription, each POSTed at the largest size the limits allow',
    { timeout: LONG_TEST_MS * 2 },
    async () => {
      // Warm: the first streams of each transport make what every later one shares (code compiled on first use, the HTTP
      // server's and the subgraph's pools), which is no one stream's.
      for (const transport of ['sse', 'multipart'] as const) {
        await weigh(
          {
            kind: 'open',
            transport,
            url: world.system.gatewayUrl,
            token: world.fixture.tokens.own,
            bodies: hostileBodies(20, `warm${transport}`),
          },
          transport,
        );
      }
      const multipart = await weigh(
        {
          kind: 'open',
          transport: 'multipart',
          url: world.system.gatewayUrl,
          token: world.fixture.tokens.own,
          bodies: hostileBodies(20, 'multipart'),
        },
        'multipart',
      );
      const sse = await weigh(
        { kind: 'open', transport: 'sse', url: world.system.gatewayUrl, token: world.fixture.tokens.own, bodies: hostileBodies(20, 'sse') },
        'sse',
      );
      expect(sse).toBeLessThanOrEqual(20 * PER_STREAM_BOUND_BYTES);
      expect(multipart).toBeLessThanOrEqual(20 * PER_STREAM_BOUND_BYTES);
    },
  );

  it('holds at most the bound per WebSocket subscription, 100 of them at the message bound', { timeout: LONG_TEST_MS * 2 }, async () => {
    const grown = await weigh(
      {
        kind: 'open',
        transport: 'websocket',
        url: world.system.gatewayUrl,
        token: world.fixture.tokens.own,
        bodies: hostileBodies(100, 'ws', 'websocket'),
        connections: 1,
      },
      'websocket',
    );
    expect(grown).toBeLessThanOrEqual(100 * PER_STREAM_BOUND_BYTES);
  });

  it('refuses a subscription POSTed past the bound before holding anything, with 413 in GraphQL’s shape', async () => {
    const body = JSON.stringify({
      query: `subscription { mediaCommentEvents(mediaId: "${world.fixture.posts[0]}") { cursor } } # ${'x'.repeat(maxBytes)}`,
    });
    const response = await fetch(world.system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${world.fixture.tokens.own}` },
      body,
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      errors: [
        {
          message: `A subscription's document and variables are at most ${maxBytes} bytes (SUBSCRIPTION_MAX_MESSAGE_BYTES), over HTTP as in a WebSocket message.`,
          extensions: { code: 'BAD_REQUEST' },
        },
      ],
    });
  });
});
