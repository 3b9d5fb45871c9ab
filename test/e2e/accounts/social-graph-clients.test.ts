import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { socialId } from '../../../lib/social-graph/social-ids.ts';
import { createSocialTokens } from '../../../subgraphs/index.ts';
import {
  expectGraphError,
  expiredToken,
  missingParameter,
  noToken,
  unknownPath,
  unparsableToken,
  unsupported,
  type ExpectedGraphError,
} from '../../support/graph-error-expectations.ts';
import { createGraphqlClient } from '../../support/graphql-client.ts';
import { rawRequest, type RawReply } from '../../support/raw-http.ts';
import { createSocialFixture, PARENT_PERMISSIONS, type SocialFixture } from '../../support/social-fixture.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * What unmodified Graph API clients send, on both social hosts (issue 14):
 *
 * - fbgraph POSTs its parameters as a form-urlencoded body without any Content-Type header (hide/show, replies); the
 *   platform reads such a body as a form, so must we. Requests are written byte for byte (test/support/raw-http.ts), as
 *   fetch would add `text/plain` to a string body.
 * - The platform checks the token before it looks anything up: no token is 104 and a bad token 190 whatever the path
 *   names — an id that does not exist, one that is no id at all, a method or an edge the node does not have.
 */

const T0 = Date.parse('2026-11-02T10:00:00.000Z');
const clock = () => new Date(T0);

const DIGITS = /^\d+$/;

/**
 * Tokens issued two hours before T0 for one hour: "Session has expired on Monday, 02-Nov-26 09:00:00 UTC. The current
 * time is Monday, 02-Nov-26 10:00:00 UTC."
 */
const EXPIRED = expiredToken(new Date(T0 - 3_600_000), new Date(T0));

/** One HTTP/1.1 request written as is: no header but Host, Content-Length and those given (no Content-Type unless given). */
async function send(
  baseUrl: string,
  method: string,
  path: string,
  options: { body?: string; headers?: Record<string, string> } = {},
): Promise<RawReply> {
  const body = Buffer.from(options.body ?? '', 'utf8');
  const head = [`${method} ${path} HTTP/1.1`, `Host: ${new URL(baseUrl).host}`, 'Connection: close', 'Accept: */*'];
  if (options.body !== undefined) head.push(`Content-Length: ${body.length}`);
  for (const [name, value] of Object.entries(options.headers ?? {})) head.push(`${name}: ${value}`);
  const reply = await rawRequest(baseUrl, Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]));
  // rawRequest reads bytes as latin1; the Graph replies are UTF-8 JSON.
  const text = Buffer.from(reply.body, 'latin1').toString('utf8');
  return { ...reply, body: text, json: text === '' ? undefined : JSON.parse(text) };
}

function expectOk(reply: RawReply, body: unknown): void {
  expect(reply.status, reply.body).toBe(200);
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  expect(reply.json).toEqual(body);
}

const form = (params: Record<string, string>) => new URLSearchParams(params).toString();

let system: TestSystem;
let fixture: SocialFixture;
let expiredParent: string;

beforeAll(async () => {
  system = await startTestSystem({}, { now: clock });
  fixture = await createSocialFixture(system.database, { now: clock });
  const past = createSocialTokens(system.database, () => new Date(T0 - 2 * 3_600_000));
  expiredParent = await past.issue({
    loginType: 'parent',
    subjectId: fixture.platformUsers.ana,
    permissions: [...PARENT_PERMISSIONS],
    expiresInSeconds: 3600,
  });
});
afterAll(async () => {
  await system?.close();
});

const HOSTS = [
  { host: 'own-login host', login: 'own' as const },
  { host: 'parent-platform host', login: 'parent' as const },
];

function side(login: 'own' | 'parent') {
  return login === 'own'
    ? { url: system.restUrl, token: fixture.tokens.own, expired: fixture.tokens.expired }
    : { url: system.socialParentUrl, token: fixture.tokens.parent, expired: expiredParent };
}

/** The comment's `hidden` as stored, read back through the same host. */
async function hiddenOf(login: 'own' | 'parent', commentId: string): Promise<boolean> {
  const host = side(login);
  const reply = await send(host.url, 'GET', `/v25.0/${commentId}?fields=hidden&access_token=${host.token}`);
  expect(reply.status, reply.body).toBe(200);
  return reply.json.hidden as boolean;
}

// =====================================================================================================================

describe.each(HOSTS)('fbgraph-style bodies without a Content-Type on the $host', ({ login }) => {
  it('hides and shows a comment from a form body with no Content-Type (token in the query, as fbgraph sends it)', async () => {
    const host = side(login);
    const comment = fixture.comments.fanTwoComment;
    expect(await hiddenOf(login, comment)).toBe(false);

    expectOk(await send(host.url, 'POST', `/v25.0/${comment}?access_token=${host.token}`, { body: form({ hide: 'true' }) }), {
      success: true,
    });
    expect(await hiddenOf(login, comment)).toBe(true);

    expectOk(await send(host.url, 'POST', `/v25.0/${comment}?access_token=${host.token}`, { body: form({ hide: 'false' }) }), {
      success: true,
    });
    expect(await hiddenOf(login, comment)).toBe(false);
  });

  it('reads the token from such a body too', async () => {
    const host = side(login);
    const comment = fixture.comments.fanTwoComment;
    expectOk(await send(host.url, 'POST', `/v25.0/${comment}`, { body: form({ hide: 'true', access_token: host.token }) }), {
      success: true,
    });
    expect(await hiddenOf(login, comment)).toBe(true);
    expectOk(await send(host.url, 'POST', `/v25.0/${comment}`, { body: form({ access_token: host.token, hide: 'false' }) }), {
      success: true,
    });
    expect(await hiddenOf(login, comment)).toBe(false);
  });

  it('creates a reply from a form body with no Content-Type, with the text exactly as sent', async () => {
    const host = side(login);
    const parent = fixture.comments.fanComment;
    const message = `Thanks — café & co. ${login} 100% ☕`;
    const created = await send(host.url, 'POST', `/v25.0/${parent}/replies?access_token=${host.token}`, { body: form({ message }) });
    expect(created.status, created.body).toBe(200);
    expect(Object.keys(created.json)).toEqual(['id']);
    expect(created.json.id).toMatch(DIGITS);
    const id = created.json.id as string;

    const read = await send(host.url, 'GET', `/v25.0/${id}?fields=id,text,parent_id,hidden&access_token=${host.token}`);
    expectOk(read, { id, text: message, parent_id: parent, hidden: false });
    const replies = await send(host.url, 'GET', `/v25.0/${parent}/replies?fields=id,text&limit=50&access_token=${host.token}`);
    expect(replies.status, replies.body).toBe(200);
    expect(replies.json.data).toContainEqual({ id, text: message });

    // DELETE reads a body without a Content-Type too (the token in it).
    expectOk(await send(host.url, 'DELETE', `/v25.0/${id}`, { body: form({ access_token: host.token }) }), { success: true });
    expectGraphError(await send(host.url, 'GET', `/v25.0/${id}?access_token=${host.token}`), unsupported('get', id));
  });

  it('bounds such a body as a declared form: past the limit is 100 Invalid parameter, and nothing is hidden', async () => {
    const host = side(login);
    const comment = fixture.comments.fanTwoComment;
    const limit = system.config.rest.bodyLimitBytes;
    const body = `${form({ hide: 'true' })}&padding=${'a'.repeat(limit)}`;
    const reply = await send(host.url, 'POST', `/v25.0/${comment}?access_token=${host.token}`, { body });
    expectGraphError(reply, {
      message: 'Invalid parameter',
      type: 'OAuthException',
      code: 100,
      error_user_msg: `The request body exceeds the limit of ${limit} bytes.`,
    });
    expect(await hiddenOf(login, comment)).toBe(false);
  });

  it('still ignores a body of another declared type (text/plain): hide is then missing', async () => {
    const host = side(login);
    const comment = fixture.comments.fanTwoComment;
    const reply = await send(host.url, 'POST', `/v25.0/${comment}?access_token=${host.token}`, {
      body: form({ hide: 'true' }),
      headers: { 'Content-Type': 'text/plain' },
    });
    expectGraphError(reply, missingParameter('hide'));
    expect(await hiddenOf(login, comment)).toBe(false);
  });
});

// =====================================================================================================================

describe.each(HOSTS)('token errors come before object lookup on the $host', ({ login }) => {
  const nonexistentComment = socialId('comment', 987_654n);
  /** A well-formed id of a kind no Graph path serves (an event), and text that is no id at all. */
  const ids = () => [
    { name: 'a nonexistent comment id', id: nonexistentComment },
    { name: 'an id of no node the paths serve', id: socialId('event', 987_654n) },
    { name: 'a malformed id', id: '12ab' },
    { name: 'an existing comment', id: fixture.comments.fanComment },
    { name: 'an existing account', id: fixture.accounts.bluebottle },
  ];
  /** Each request, with and without an edge, by every method the comment node and its edges are addressed with. */
  const requests = (id: string) => [
    { method: 'GET', path: `/v25.0/${id}` },
    { method: 'POST', path: `/v25.0/${id}?hide=true` },
    { method: 'DELETE', path: `/v25.0/${id}` },
    { method: 'GET', path: `/v25.0/${id}/replies` },
    { method: 'POST', path: `/v25.0/${id}/replies?message=hello` },
    { method: 'GET', path: `/v25.0/${id}/no_such_edge` },
    { method: 'GET', path: `/${id}` },
  ];
  const withToken = (path: string, token: string) => `${path}${path.includes('?') ? '&' : '?'}access_token=${encodeURIComponent(token)}`;

  /** Sends every request about every id; `expected` must be the answer to each. Nothing may change. */
  async function expectEvery(token: string | undefined, expected: ExpectedGraphError, via: 'query' | 'header' = 'query'): Promise<void> {
    const host = side(login);
    for (const { name, id } of ids()) {
      for (const { method, path } of requests(id)) {
        const reply =
          token === undefined
            ? await send(host.url, method, path)
            : via === 'query'
              ? await send(host.url, method, withToken(path, token))
              : await send(host.url, method, path, { headers: { Authorization: `OAuth ${token}` } });
        try {
          expectGraphError(reply, expected);
        } catch (error) {
          throw new Error(`${method} ${path} (${name}): ${(error as Error).message}`, { cause: error });
        }
      }
    }
    expect(await hiddenOf(login, fixture.comments.fanComment)).toBe(false);
  }

  it('answers 104 without a token', async () => {
    await expectEvery(undefined, noToken);
  });

  it('answers 190 for a garbage token, in the query or the Authorization header', async () => {
    await expectEvery('garbage', unparsableToken);
    await expectEvery(`${login === 'own' ? 'SBA' : 'EAA'}${'A'.repeat(43)}`, unparsableToken, 'header');
  });

  it('answers 190/463 for an expired token', async () => {
    await expectEvery(side(login).expired, EXPIRED);
  });

  it('answers with a valid token as before: 100/33 for what does not exist or is not supported, 2500 for an unknown edge', async () => {
    const host = side(login);
    const authorized = (path: string) => withToken(path, host.token);
    for (const id of [nonexistentComment, socialId('event', 987_654n), '12ab']) {
      expectGraphError(await send(host.url, 'GET', authorized(`/v25.0/${id}`)), unsupported('get', id));
      expectGraphError(await send(host.url, 'POST', authorized(`/v25.0/${id}?hide=true`)), unsupported('post', id));
      expectGraphError(await send(host.url, 'DELETE', authorized(`/v25.0/${id}`)), unsupported('delete', id));
      expectGraphError(await send(host.url, 'GET', authorized(`/v25.0/${id}/no_such_edge`)), unknownPath('/no_such_edge'));
    }
    const account = fixture.accounts.bluebottle;
    expectGraphError(await send(host.url, 'POST', authorized(`/v25.0/${account}?hide=true`)), unsupported('post', account));
    expectGraphError(await send(host.url, 'DELETE', authorized(`/v25.0/${account}`)), unsupported('delete', account));
    expectGraphError(await send(host.url, 'GET', authorized(`/v25.0/${account}/replies`)), unknownPath('/replies'));
    expectGraphError(
      await send(host.url, 'GET', authorized(`/v25.0/${fixture.comments.fanComment}/no_such_edge`)),
      unknownPath('/no_such_edge'),
    );
    // A comment without hide= but with another parameter is an attempted update: not supported.
    expectGraphError(
      await send(host.url, 'POST', authorized(`/v25.0/${fixture.comments.fanComment}?text=changed`)),
      unsupported('post', fixture.comments.fanComment),
    );
    expectOk(await send(host.url, 'GET', authorized(`/v25.0/${fixture.comments.fanComment}?fields=text`)), {
      text: expect.any(String),
      id: fixture.comments.fanComment,
    });
  });
});

// =====================================================================================================================

describe('the same order through GraphQL', () => {
  const UNPARSABLE = 'Invalid OAuth access token - Cannot parse access token';

  it('refuses the token before it looks for the object, whatever the id', async () => {
    const gql = createGraphqlClient(`${system.gatewayUrl}/graphql`);
    const cases = [
      { query: 'query ($id: ID!) { comment(id: $id) { id } }', field: 'comment', serviceName: 'comments' },
      { query: 'query ($id: ID!) { account(id: $id) { id } }', field: 'account', serviceName: 'accounts' },
      { query: 'mutation ($id: ID!) { hideComment(id: $id, hide: true) { success } }', field: 'hideComment', serviceName: 'comments' },
    ];
    for (const { query, field, serviceName } of cases) {
      for (const id of [nonexistent(), '12ab', fixture.comments.fanComment]) {
        for (const [token, reason, message] of [
          [undefined, 'NO_TOKEN', 'An access token is required to request this resource.'],
          ['garbage', 'TOKEN_UNPARSABLE', UNPARSABLE],
        ] as const) {
          const reply = await gql.request(query, { variables: { id }, ...(token && { token }) });
          expect(reply.status, reply.text).toBe(200);
          expect(reply.errors?.map((error) => ({ message: error.message, path: error.path, extensions: error.extensions }))).toEqual([
            { message, path: [field], extensions: { reason, code: 'UNAUTHENTICATED', serviceName } },
          ]);
        }
      }
    }
  });

  it('socialCaller names the token’s caller, and refuses the token as every operation does', async () => {
    const gql = createGraphqlClient(`${system.gatewayUrl}/graphql`);
    const query = '{ socialCaller { host subjectId } }';
    expect((await gql.request(query, { token: fixture.tokens.own })).data).toEqual({
      socialCaller: { host: 'own', subjectId: fixture.accounts.bluebottle },
    });
    expect((await gql.request(query, { token: fixture.tokens.parent })).data).toEqual({
      socialCaller: { host: 'parent', subjectId: fixture.platformUsers.ana },
    });
    const expired = await gql.request(query, { token: fixture.tokens.expired });
    expect(expired.data).toBeNull();
    expect(expired.errors?.[0]?.extensions).toMatchObject({ reason: 'TOKEN_EXPIRED', code: 'UNAUTHENTICATED', serviceName: 'accounts' });
  });

  const nonexistent = () => socialId('comment', 987_654n);
});

// =====================================================================================================================

describe('the same order with the gateway and the subgraphs in separate servers (distributed topology)', () => {
  let distributed: TestSystem;
  let world: SocialFixture;
  beforeAll(async () => {
    distributed = await startDistributedTestSystem({}, { now: clock });
    world = await createSocialFixture(distributed.database, { now: clock });
  });
  afterAll(async () => {
    await distributed?.close();
  });

  it.each(HOSTS)(
    'answers 104, 190 and, with a valid token, 100/33 and 2500 for paths the graph does not serve ($host)',
    async ({ login }) => {
      const url = login === 'own' ? distributed.restUrl : distributed.socialParentUrl;
      const token = login === 'own' ? world.tokens.own : world.tokens.parent;
      for (const id of ['12ab', socialId('event', 987_654n)]) {
        expectGraphError(await send(url, 'GET', `/v25.0/${id}`), noToken);
        expectGraphError(
          await send(url, 'POST', `/v25.0/${id}/no_such_edge`, { body: form({ access_token: 'garbage' }) }),
          unparsableToken,
        );
        expectGraphError(await send(url, 'GET', `/v25.0/${id}?access_token=${token}`), unsupported('get', id));
        expectGraphError(await send(url, 'DELETE', `/v25.0/${id}/no_such_edge?access_token=${token}`), unknownPath('/no_such_edge'));
      }
    },
  );
});
