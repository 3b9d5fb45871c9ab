import { beforeAll, describe, expect, it } from 'vitest';
import { CREATE, createGraphqlClient, validInput } from '../../support/graphql-client.ts';
import { multipartParts } from '../../support/deferred-queries.ts';
import { useSocialWorld, type SocialTestWorld } from '../../support/social-fixture.ts';
import { connectWs, type WsConversation } from '../../support/ws-conversation.ts';

/**
 * The live doors under attack (issue 41): each case an attacker or a careful client found, through the real door —
 * subscriptions counted per token whatever the header's spelling (case 2), deferred fragments of one subgraph delivered
 * (case 3), a defer the gateway does not split answered whole to a client that takes only multipart (case 4), @defer
 * labels validated (case 5), a subscription's variables coerced at the gateway (case 6), and JSON nested past the bound
 * refused before it is parsed, on every transport. Case 1 (what an open stream holds) is live-stream-memory.test.ts.
 */

const PER_TOKEN = 3;
const DEFER_ONLY = 'multipart/mixed;deferSpec=20220824';
const DEFER_OR_JSON = 'multipart/mixed;deferSpec=20220824, application/json';

describe('the live doors under attack', () => {
  const socialWorld = useSocialWorld({ env: { SUBSCRIPTIONS_PER_TOKEN: String(PER_TOKEN) } });
  let world: SocialTestWorld;
  let wsUrl: string;
  beforeAll(async () => {
    world = socialWorld();
    wsUrl = world.system.gatewayUrl.replace(/^http/, 'ws');
    const graphql = createGraphqlClient(world.system.gatewayUrl);
    for (const name of ['Ada Lovelace', 'Grace Hopper', 'Edsger Dijkstra', 'Barbara Liskov']) {
      const created = await graphql.request(CREATE, {
        token: world.system.adminToken(),
        variables: { input: validInput({ name, email: `${name.split(' ')[0]!.toLowerCase()}@example.com` }) },
      });
      expect(created.errors).toBeUndefined();
    }
  });

  const subscription = () => `subscription($m: ID!) { mediaCommentEvents(mediaId: $m) { cursor } }`;
  const postLive = (accept: string, authorization: string, body: unknown, signal?: AbortSignal) =>
    fetch(world.system.gatewayUrl, {
      method: 'POST',
      ...(signal ? { signal } : {}),
      headers: { 'content-type': 'application/json', accept, authorization },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const post = async (accept: string, authorization: string, body: unknown) => {
    const response = await postLive(accept, authorization, body);
    return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
  };
  const initialised = async (authorization: string): Promise<WsConversation> => {
    const conversation = await connectWs(wsUrl);
    conversation.send({ type: 'connection_init', payload: { Authorization: authorization } });
    await expect.poll(() => conversation.messages.map((message) => message.type)).toContain('connection_ack');
    return conversation;
  };

  describe('case 2: subscriptions per token, whatever the spelling of its header', () => {
    const perTokenRefusal = {
      message: `At most ${PER_TOKEN} subscriptions per credential are open at once.`,
      extensions: { code: 'BAD_REQUEST' },
    };
    const spellings = (token: string) => [
      `bearer ${token}`,
      `BEARER ${token}`,
      `Bearer  ${token}`,
      `Bearer\t${token}`,
      `Bearer ${token} `,
      `OAuth ${token}`,
      `oauth\t${token}\t`,
    ];

    it('refuses every other spelling of the token once one spelling holds the cap, on WebSocket, SSE and multipart', async () => {
      const token = world.fixture.tokens.own;
      const controllers: AbortController[] = [];
      const held: WsConversation[] = [];
      try {
        // The cap's worth, with one spelling, over SSE.
        for (let index = 0; index < PER_TOKEN; index += 1) {
          const controller = new AbortController();
          controllers.push(controller);
          const response = await postLive(
            'text/event-stream',
            `Bearer ${token}`,
            { query: subscription(), variables: { m: world.fixture.posts[index] } },
            controller.signal,
          );
          expect(response.status).toBe(200);
          await response.body!.getReader().read();
        }
        for (const authorization of spellings(token)) {
          for (const accept of ['text/event-stream', 'multipart/mixed;subscriptionSpec=1.0']) {
            const refused = await post(accept, authorization, { query: subscription(), variables: { m: world.fixture.posts[0] } });
            expect({ authorization, accept, status: refused.status, body: JSON.parse(refused.text) }).toEqual({
              authorization,
              accept,
              status: 400,
              body: { errors: [perTokenRefusal] },
            });
          }
          const conversation = await initialised(authorization);
          held.push(conversation);
          conversation.send({
            type: 'subscribe',
            id: 'over',
            payload: { query: subscription(), variables: { m: world.fixture.posts[0] } },
          });
          await expect
            .poll(() => conversation.messages.find((message) => message.id === 'over'))
            .toEqual({ type: 'error', id: 'over', payload: [perTokenRefusal] });
        }
      } finally {
        for (const controller of controllers) controller.abort();
        for (const conversation of held) conversation.socket.close(1000);
      }
    });

    it('counts subscriptions started at once on many connections: never more than the cap open', async () => {
      const token = world.fixture.tokens.roasterOwn;
      const conversations = await Promise.all(Array.from({ length: PER_TOKEN + 4 }, () => initialised(`Bearer ${token}`)));
      try {
        const roasterPost = world.fixture.media.roasterPost;
        for (const conversation of conversations)
          conversation.send({ type: 'subscribe', id: 's', payload: { query: subscription(), variables: { m: roasterPost } } });
        // A refusal is an `error` message (refused as it was read) or a result of errors and `complete` (refused as it
        // started, when others of the same token started in the same moment); an open one says nothing until an event.
        const refusalOf = (conversation: WsConversation) =>
          conversation.messages.find((message) => message.type === 'error')?.payload ??
          conversation.messages.find((message) => message.type === 'next')?.payload.errors;
        await expect.poll(() => conversations.filter((conversation) => refusalOf(conversation) !== undefined).length).toBe(4);
        expect(conversations.map(refusalOf).filter((refusal) => refusal !== undefined)).toEqual(
          Array.from({ length: 4 }, () => [perTokenRefusal]),
        );
        // And the three open ones stay open: one more event each would be theirs.
        const refusedNow = conversations.filter((conversation) => refusalOf(conversation) !== undefined).length;
        for (const conversation of conversations) conversation.send({ type: 'ping' });
        await expect
          .poll(() => conversations.every((conversation) => conversation.messages.some((message) => message.type === 'pong')))
          .toBe(true);
        expect(conversations.filter((conversation) => refusalOf(conversation) !== undefined)).toHaveLength(refusedNow);
      } finally {
        for (const conversation of conversations) conversation.socket.close(1000);
      }
    });
  });

  describe('case 3: a deferred fragment the planner keeps in the same subgraph', () => {
    it('arrives as an incremental part (it was silently dropped)', async () => {
      const reply = await post(DEFER_OR_JSON, `Bearer ${world.system.adminToken()}`, {
        query: `{ userExamples(params: {limit: 3}) { total ... @defer(label: "u") { userExamples { id name } } } }`,
      });
      expect(reply.status).toBe(200);
      expect(reply.type).toBe('multipart/mixed; boundary="-"; deferSpec=20220824');
      expect(multipartParts(reply.text, '-')).toEqual([
        { data: { userExamples: { total: '4' } }, hasNext: true },
        {
          incremental: [
            {
              data: {
                userExamples: [
                  { id: '4', name: 'Barbara Liskov' },
                  { id: '3', name: 'Edsger Dijkstra' },
                  { id: '2', name: 'Grace Hopper' },
                ],
              },
              path: ['userExamples'],
              label: 'u',
            },
          ],
          hasNext: false,
        },
      ]);
    });

    it('keeps the object a fragment goes into when everything asked of it is deferred (`replies: {}` first)', async () => {
      const reply = await post(DEFER_ONLY, `Bearer ${world.fixture.tokens.own}`, {
        query: `{ comment(id: "${world.fixture.comments.fanComment}") { id replies(first: 1) { ... @defer(label: "r") { nodes { text } } } } }`,
      });
      expect(multipartParts(reply.text, '-')).toEqual([
        { data: { comment: { id: world.fixture.comments.fanComment, replies: {} } }, hasNext: true },
        { incremental: [{ data: { nodes: [{ text: 'Thank you!' }] }, path: ['comment', 'replies'], label: 'r' }], hasNext: false },
      ]);
    });
  });

  describe('case 4: a defer the gateway does not split, to a client that takes only multipart', () => {
    const whole = async (query: string, variables: Record<string, unknown> = {}) => {
      const reply = await post(DEFER_ONLY, `Bearer ${world.system.adminToken()}`, { query, variables });
      return { status: reply.status, type: reply.type, parts: reply.status === 200 ? multipartParts(reply.text, '-') : reply.text };
    };
    const expected = (data: unknown) => ({
      status: 200,
      type: 'multipart/mixed; boundary="-"; deferSpec=20220824',
      parts: [{ data, hasNext: false }],
    });
    // The newest first (List's default order).
    const users = { userExamples: { total: '4', userExamples: [{ id: '4' }, { id: '3' }, { id: '2' }] } };

    it('answers @defer(if: false) whole, in one multipart part (it was 406)', async () => {
      expect(await whole(`{ userExamples(params: {limit: 3}) { total ... @defer(if: false) { userExamples { id } } } }`)).toEqual(
        expected(users),
      );
    });

    it('answers @defer(if: $variable) whole', async () => {
      expect(
        await whole(`query($d: Boolean!) { userExamples(params: {limit: 3}) { total ... @defer(if: $d) { userExamples { id } } } }`, {
          d: true,
        }),
      ).toEqual(expected(users));
    });

    it('answers nested defers whole', async () => {
      expect(
        await whole(
          `{ userExamples(params: {limit: 3}) { ... @defer(label: "outer") { total ... @defer(label: "inner") { userExamples { id } } } } }`,
        ),
      ).toEqual(expected(users));
    });

    it('answers a defer in a mutation whole', async () => {
      const reply = await whole(`mutation { updateUserExample(id: "4", input: { status: 2 }) { ... @defer { id } } }`);
      expect(reply).toEqual(expected({ updateUserExample: { id: '4' } }));
    });

    it('still answers a client that also takes JSON with JSON', async () => {
      const reply = await post(DEFER_OR_JSON, `Bearer ${world.system.adminToken()}`, {
        query: `{ userExamples(params: {limit: 3}) { total ... @defer(if: false) { userExamples { id } } } }`,
      });
      expect(reply.type).toBe('application/json; charset=utf-8');
      expect(JSON.parse(reply.text)).toEqual({ data: users });
    });
  });

  describe('case 5: @defer labels, as the incremental delivery RFC requires them', () => {
    const refused = async (query: string, variables: Record<string, unknown> = {}) => {
      const reply = await post(DEFER_OR_JSON, `Bearer ${world.fixture.tokens.own}`, { query, variables });
      return {
        status: reply.status,
        errors: (JSON.parse(reply.text) as { errors: { message: string; extensions: unknown }[] }).errors.map(
          ({ message, extensions }) => ({ message, extensions }),
        ),
      };
    };
    const validation = (message: string) => ({ status: 400, errors: [{ message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] });

    it('refuses a variable label (it came back as its AST)', async () => {
      expect(await refused(`query($l: String) { me { id ... @defer(label: $l) { username } } }`, { l: 'x' })).toEqual(
        validation(`Directive "defer"'s label argument must be a static string.`),
      );
    });

    it('refuses a label used twice (the two fragments were merged into one item)', async () => {
      expect(await refused(`{ me { id ... @defer(label: "a") { username } ... @defer(label: "a") { biography } } }`)).toEqual(
        validation('Defer/Stream directive label argument must be unique.'),
      );
    });

    it('refuses a 50,000-character label (it was echoed in every item)', async () => {
      expect(await refused(`{ me { id ... @defer(label: "${'l'.repeat(50_000)}") { username } } }`)).toEqual(
        validation(`Directive "defer"'s label argument is longer than 256 characters.`),
      );
    });
  });

  describe('case 6: a subscription variable of the wrong type', () => {
    const badId = {
      message: 'Variable "$m" got invalid value { a: 1 }; ID cannot represent value: { a: 1 }',
      extensions: { code: 'BAD_USER_INPUT' },
    };

    it('is the gateway’s BAD_USER_INPUT, as a query’s is, over SSE and multipart (it was the subgraph’s DOWNSTREAM_SERVICE_ERROR)', async () => {
      const query = await post('application/json', `Bearer ${world.fixture.tokens.own}`, {
        query: `query($m: ID!) { media(id: $m) { id } }`,
        variables: { m: { a: 1 } },
      });
      expect(query.status).toBe(400);
      expect(
        JSON.parse(query.text).errors.map(({ message, extensions }: { message: string; extensions: unknown }) => ({ message, extensions })),
      ).toEqual([badId]);
      for (const accept of ['text/event-stream', 'multipart/mixed;subscriptionSpec=1.0']) {
        const reply = await post(accept, `Bearer ${world.fixture.tokens.own}`, { query: subscription(), variables: { m: { a: 1 } } });
        expect(reply.status).toBe(400);
        expect(JSON.parse(reply.text)).toEqual({ errors: [{ ...badId, locations: [{ line: 1, column: 14 }] }] });
      }
    });

    it('is the gateway’s BAD_USER_INPUT over WebSocket', async () => {
      const conversation = await initialised(`Bearer ${world.fixture.tokens.own}`);
      conversation.send({ type: 'subscribe', id: 'bad', payload: { query: subscription(), variables: { m: { a: 1 } } } });
      await expect
        .poll(() => conversation.messages.find((message) => message.id === 'bad'))
        .toEqual({
          type: 'error',
          id: 'bad',
          payload: [{ ...badId, locations: [{ line: 1, column: 14 }] }],
        });
      conversation.socket.close(1000);
    });
  });

  describe('JSON nested past GRAPHQL_MAX_JSON_DEPTH, refused before it is parsed', () => {
    const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

    it('over HTTP: 400 in GraphQL’s shape, a body one level inside the bound runs', async () => {
      const depth = world.system.config.graphql.maxJsonDepth;
      // {"query", "variables": {"x": …}}: the body's object and the variables' are two levels.
      const within = await post(
        'application/json',
        `Bearer ${world.fixture.tokens.own}`,
        `{"query":"{ me { id } }","variables":{"x":${deep(depth - 2)}}}`,
      );
      expect(within.status).toBe(200);
      const past = await post(
        'application/json',
        `Bearer ${world.fixture.tokens.own}`,
        `{"query":"{ me { id } }","variables":{"x":${deep(depth - 1)}}}`,
      );
      expect(past.status).toBe(400);
      expect(JSON.parse(past.text)).toEqual({
        errors: [
          {
            message: `request body refused: the JSON nests arrays and objects deeper than ${depth} levels (GRAPHQL_MAX_JSON_DEPTH)`,
            extensions: { code: 'BAD_REQUEST' },
          },
        ],
      });
    });

    it('in a GET query string: 400', async () => {
      const url = new URL(world.system.gatewayUrl);
      url.searchParams.set('query', '{ __typename }');
      url.searchParams.set('variables', JSON.stringify({ x: JSON.parse(deep(40)) }));
      const response = await fetch(url, { headers: { 'apollo-require-preflight': 'true' } });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        errors: [
          {
            message: `the variables parameter nests arrays and objects deeper than 32 levels (GRAPHQL_MAX_JSON_DEPTH)`,
            extensions: { code: 'BAD_REQUEST' },
          },
        ],
      });
    });

    it('in a WebSocket message: closed 4400', async () => {
      const conversation = await initialised(`Bearer ${world.fixture.tokens.own}`);
      conversation.send(`{"type":"subscribe","id":"1","payload":{"query":"subscription { x }","variables":{"x":${deep(30_000)}}}}`);
      expect(await conversation.closed).toEqual({ code: 4400, reason: 'Invalid message received: JSON nested deeper than 32 levels' });
    });
  });
});
