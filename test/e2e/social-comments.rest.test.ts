import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LoginType } from '../../lib/auth/social-auth/social-token.service.ts';
import { socialId } from '../../lib/social-graph/social-ids.ts';
import { createSocialTokens } from '../../subgraphs/index.ts';
import { createSocialGraphBuilder } from '../../subgraphs/shared/social-graph/social-graph-builder.ts';
import type { SocialTables } from '../../subgraphs/shared/social-graph/social-tables.ts';
import {
  expectGraphError,
  expiredToken,
  invalidParameter,
  missingParameter,
  missingPermission,
  noToken,
  notAllowed,
  revokedToken,
  unknownField,
  unknownPath,
  unparsableToken,
  unsupported,
} from '../support/graph-error-expectations.ts';
import { createRestClient, type RestClient, type RestReply } from '../support/rest-client.ts';
import { createSocialFixture, OWN_PERMISSIONS, PARENT_PERMISSIONS, type SocialFixture } from '../support/social-fixture.ts';
import { startTestSystem, type TestSystem } from '../support/test-system.ts';

/**
 * Front-door tests of Area B (comments) over the Graph-style REST paths, on both hosts: the own-login host (restUrl, a
 * token of the professional account bluebottle) and the parent-platform host (socialParentUrl, a token of ana, who has a
 * role on bluebottle's and roaster's pages). Real HTTP requests; whole bodies, statuses, error envelopes and the
 * WWW-Authenticate header are checked. Expected permission lists are written out from the reference (§1.6, §1.8, §2.2,
 * §4), not taken from the product's table.
 *
 * The social graph's clock is driven by the test (`current`), so that new comments have known timestamps and expired
 * tokens known dates.
 */

const T0 = Date.parse('2026-11-02T10:00:00.000Z');
let current = T0;
const clock = () => new Date(current);
// A test that moves the clock and fails half-way must not move it for the next one.
afterEach(() => {
  current = T0;
});

const GRAPH_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000$/;
const DIGITS = /^\d+$/;

/** A fixture timestamp: the fixture's comments are whole hours on 2026-11-01. */
const at = (hour: number) => `2026-11-01T${String(hour).padStart(2, '0')}:00:00+0000`;

/**
 * The fixture's expired tokens expired one hour before T0 (they were issued two hours before it, for one hour): "Session
 * has expired on Monday, 02-Nov-26 09:00:00 UTC. The current time is Monday, 02-Nov-26 10:00:00 UTC."
 */
const EXPIRED = expiredToken(new Date(T0 - 3_600_000), new Date(T0));

function expectOk(reply: RestReply, body: unknown): void {
  expect(reply.status, reply.text).toBe(200);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  expect(reply.body).toEqual(body);
}

/** `path?params`, the parameters form-encoded (undefined values left out). */
function withQuery(path: string, params: Record<string, string | undefined>): string {
  const defined = Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return defined.length === 0 ? path : `${path}?${new URLSearchParams(defined)}`;
}

const cursor = expect.stringMatching(/^[A-Za-z0-9_-]+$/);

// ---------------------------------------------------------------------------------------------------------------------
// The world of one describe block: the shared fixture plus a few objects the rules need.

interface Side {
  login: LoginType;
  rest: RestClient;
  /** A token with every permission acting for bluebottle (own: bluebottle itself; parent: ana, who also manages roaster). */
  token: string;
  permissions: readonly string[];
  /** A token with exactly these permissions for the same subject as `token`. */
  mint(permissions: readonly string[]): Promise<string>;
  /** Acts for roaster only: bluebottle's media and comments are someone else's. */
  roasterOnly: string;
  /** Acts for bluebottle only (not roaster), every permission (parent: bm, whose role came through the business manager). */
  bluebottleOnly: string;
  /** Acts for no account that owns the comments under test. */
  stranger: string;
  expired: string;
  revoked: string;
  /** A valid token of the other login type. */
  otherLogin: string;
}

interface World {
  f: SocialFixture;
  own: Side;
  parent: Side;
  side(login: LoginType): Side;
  /** bluebottle's comment on roaster's post: bluebottle is its author, roaster the media owner. */
  blueOnRoaster: string;
  /** A new comment written straight into the store. */
  addComment(mediaId: string, authorId: string, text: string, options?: { parentId?: string; timestamp?: Date; hidden?: boolean }): Promise<string>;
  setMedia(mediaId: string, values: { live_ended_at?: Date | null; comment_enabled?: boolean }): Promise<void>;
}

/**
 * A fresh fixture in the file's database. The fixture's usernames are unique, so the accounts of earlier fixtures are
 * renamed out of the way first (`bluebottle` → `bluebottle.<id>`): their objects stay, but nothing of the new world
 * reaches them, and @mentions in new comments resolve to the new accounts.
 */
async function makeWorld(system: TestSystem): Promise<World> {
  await sql`update social.account set username = username || '.' || id::text where position('.' in username) = 0`.execute(system.database.db);
  const f = await createSocialFixture(system.database, { now: clock });
  const tables = system.database.db.withTables<SocialTables>();
  const g = createSocialGraphBuilder(tables);
  const tokens = createSocialTokens(system.database, clock);
  const past = createSocialTokens(system.database, () => new Date(clock().getTime() - 2 * 3_600_000));

  const rita = await g.platformUser('Rita Roaster');
  await g.pageRole(f.pages.roaster, rita);
  const issue = (loginType: LoginType, subjectId: string, permissions: readonly string[]) =>
    tokens.issue({ loginType, subjectId, permissions, expiresInSeconds: 3600 });
  const parentRevoked = await issue('parent', f.platformUsers.ana, PARENT_PERMISSIONS);
  await tokens.revoke(parentRevoked);

  const own: Side = {
    login: 'own',
    rest: createRestClient(system.restUrl),
    token: f.tokens.own,
    permissions: OWN_PERMISSIONS,
    mint: (permissions) => f.token('own', f.accounts.bluebottle, permissions),
    roasterOnly: f.tokens.roasterOwn,
    bluebottleOnly: f.tokens.own,
    stranger: f.tokens.roasterOwn,
    expired: f.tokens.expired,
    revoked: f.tokens.revoked,
    otherLogin: f.tokens.parent,
  };
  const parent: Side = {
    login: 'parent',
    rest: createRestClient(system.socialParentUrl),
    token: f.tokens.parent,
    permissions: PARENT_PERMISSIONS,
    mint: (permissions) => f.token('parent', f.platformUsers.ana, permissions),
    roasterOnly: await issue('parent', rita, PARENT_PERMISSIONS),
    bluebottleOnly: await issue('parent', f.platformUsers.bm, PARENT_PERMISSIONS),
    stranger: f.tokens.stranger,
    expired: await past.issue({ loginType: 'parent', subjectId: f.platformUsers.ana, permissions: PARENT_PERMISSIONS, expiresInSeconds: 3600 }),
    revoked: parentRevoked,
    otherLogin: f.tokens.own,
  };
  const blueOnRoaster = await g.comment(f.media.roasterPost, f.accounts.bluebottle, {
    text: 'Great beans',
    timestamp: new Date('2026-11-01T20:00:00Z'),
  });
  return {
    f,
    own,
    parent,
    side: (login) => (login === 'own' ? own : parent),
    blueOnRoaster,
    addComment: (mediaId, authorId, text, options = {}) =>
      g.comment(mediaId, authorId, {
        text,
        parentId: options.parentId ?? null,
        hidden: options.hidden ?? false,
        timestamp: options.timestamp ?? new Date('2026-11-01T21:00:00Z'),
      }),
    setMedia: async (mediaId, values) => {
      await tables.updateTable('social.media').set(values).where('id', '=', mediaId).execute();
    },
  };
}

/** GET with the token in the access_token query parameter (null: no token at all). */
function get(side: Side, path: string, token: string | null = side.token, params: Record<string, string | undefined> = {}) {
  return side.rest.request('GET', withQuery(path, { ...params, access_token: token ?? undefined }));
}

function post(side: Side, path: string, token: string | null = side.token, params: Record<string, string | undefined> = {}) {
  return side.rest.request('POST', withQuery(path, { ...params, access_token: token ?? undefined }));
}

function del(side: Side, path: string, token: string | null = side.token) {
  return side.rest.request('DELETE', withQuery(path, { access_token: token ?? undefined }));
}

/** Creates a comment through the API and returns its id. */
async function created(reply: Promise<RestReply>): Promise<string> {
  const r = await reply;
  expect(r.status, r.text).toBe(200);
  expect(r.body).toEqual({ id: expect.stringMatching(DIGITS) });
  return r.body.id as string;
}

const HOSTS = [
  { host: 'own-login host', login: 'own' as const },
  { host: 'parent-platform host', login: 'parent' as const },
];

let system: TestSystem;

beforeAll(async () => {
  system = await startTestSystem({}, { now: clock });
});
afterAll(async () => {
  await system?.close();
});

// =====================================================================================================================

describe.each(HOSTS)('GET /{comment_id} on the $host', ({ login }) => {
  let w: World;
  let s: Side;
  beforeAll(async () => {
    current = T0;
    w = await makeWorld(system);
    s = w.side(login);
  });

  it('returns exactly id, text and timestamp by default, the timestamp as YYYY-MM-DDTHH:MM:SS+0000', async () => {
    const reply = await get(s, `/v25.0/${w.f.comments.fanComment}`);
    expectOk(reply, { id: w.f.comments.fanComment, text: 'Love this!', timestamp: at(13) });
    expect(Object.keys(reply.body).sort()).toEqual(['id', 'text', 'timestamp']);
    expect(reply.body.timestamp).toMatch(GRAPH_TIMESTAMP);
  });

  it('returns the default fields for an empty fields parameter', async () => {
    expectOk(await get(s, `/v25.0/${w.f.comments.fanComment}`, s.token, { fields: '' }), {
      id: w.f.comments.fanComment,
      text: 'Love this!',
      timestamp: at(13),
    });
  });

  it('works without the version segment', async () => {
    expectOk(await get(s, `/${w.f.comments.fanComment}`), { id: w.f.comments.fanComment, text: 'Love this!', timestamp: at(13) });
  });

  it('takes the token from an Authorization Bearer header', async () => {
    const reply = await s.rest.request('GET', `/v25.0/${w.f.comments.fanTwoComment}`, { token: s.token });
    expectOk(reply, { id: w.f.comments.fanTwoComment, text: 'Where is this?', timestamp: at(14) });
  });

  it('returns the requested fields plus id, id last when not requested', async () => {
    const { fanComment } = w.f.comments;
    const reply = await get(s, `/v25.0/${fanComment}`, s.token, { fields: 'from,hidden,like_count,media,username,legacy_social_comment_id,timestamp' });
    expectOk(reply, {
      from: { id: w.f.accounts.fanOne, username: 'fan_one' },
      hidden: false,
      like_count: 3,
      media: { id: w.f.posts[0] },
      username: 'fan_one',
      legacy_social_comment_id: '9001',
      timestamp: at(13),
      id: fanComment,
    });
    expect(Object.keys(reply.body)).toEqual(['from', 'hidden', 'like_count', 'media', 'username', 'legacy_social_comment_id', 'timestamp', 'id']);
  });

  it('keeps id where it was requested', async () => {
    const reply = await get(s, `/v25.0/${w.f.comments.fanComment}`, s.token, { fields: 'id,text' });
    expect(reply.text).toBe(`{"id":"${w.f.comments.fanComment}","text":"Love this!"}`);
  });

  it('shows hidden:true on a hidden comment', async () => {
    expectOk(await get(s, `/v25.0/${w.f.comments.hiddenComment}`, s.token, { fields: 'hidden,text' }), {
      hidden: true,
      text: 'spam spam',
      id: w.f.comments.hiddenComment,
    });
  });

  it('gives parent_id on replies only', async () => {
    const { fanComment, fanReply } = w.f.comments;
    expectOk(await get(s, `/v25.0/${fanReply}`, s.token, { fields: 'parent_id,text' }), { parent_id: fanComment, text: 'Me too', id: fanReply });
    expectOk(await get(s, `/v25.0/${fanComment}`, s.token, { fields: 'parent_id' }), { id: fanComment });
  });

  it('omits legacy_social_comment_id when the comment has none', async () => {
    const { fanTwoComment } = w.f.comments;
    expectOk(await get(s, `/v25.0/${fanTwoComment}`, s.token, { fields: 'legacy_social_comment_id' }), { id: fanTwoComment });
  });

  it('gives user {id} only for a comment the app user wrote', async () => {
    const { ownerComment, fanComment } = w.f.comments;
    expectOk(await get(s, `/v25.0/${ownerComment}`, s.token, { fields: 'user,username,from' }), {
      user: { id: w.f.accounts.bluebottle },
      username: 'bluebottle',
      from: { id: w.f.accounts.bluebottle, username: 'bluebottle' },
      id: ownerComment,
    });
    const fan = await get(s, `/v25.0/${fanComment}`, s.token, { fields: 'user' });
    expect(fan.text).toBe(`{"id":"${fanComment}"}`);
  });

  it('expands media across subgraphs: media{id,caption,owner{username}} and comments_count', async () => {
    const { fanComment } = w.f.comments;
    expectOk(await get(s, `/v25.0/${fanComment}`, s.token, { fields: 'media{id,caption,owner{username},comments_count}' }), {
      media: {
        id: w.f.posts[0],
        caption: 'Post 0 #coffee',
        owner: { username: 'bluebottle', id: w.f.accounts.bluebottle },
        comments_count: 6,
      },
      id: fanComment,
    });
  });

  it('renders replies as {data:[…]} with the default fields, oldest first', async () => {
    const { fanComment, ownerReply, fanReply } = w.f.comments;
    expectOk(await get(s, `/v25.0/${fanComment}`, s.token, { fields: 'replies' }), {
      replies: {
        data: [
          { id: ownerReply, text: 'Thank you!', timestamp: at(17) },
          { id: fanReply, text: 'Me too', timestamp: at(18) },
        ],
        paging: { cursors: { before: cursor, after: cursor } },
      },
      id: fanComment,
    });
    // A comment without replies: an empty list.
    expectOk(await get(s, `/v25.0/${w.f.comments.fanTwoComment}`, s.token, { fields: 'replies' }), {
      replies: { data: [] },
      id: w.f.comments.fanTwoComment,
    });
  });

  it('accepts replies.limit(n){…} and links the next page of the nested edge', async () => {
    const { fanComment, ownerReply, fanReply } = w.f.comments;
    const reply = await get(s, `/v25.0/${fanComment}`, s.token, { fields: 'replies.limit(1){text,username,parent_id}' });
    expectOk(reply, {
      replies: {
        data: [{ text: 'Thank you!', username: 'bluebottle', parent_id: fanComment, id: ownerReply }],
        paging: { cursors: { before: cursor, after: cursor }, next: expect.any(String) },
      },
      id: fanComment,
    });
    const next = new URL(reply.body.replies.paging.next);
    expect(next.pathname).toBe(`/v25.0/${fanComment}/replies`);
    expect(Object.fromEntries(next.searchParams)).toEqual({
      access_token: s.token,
      fields: 'text,username,parent_id',
      limit: '1',
      after: reply.body.replies.paging.cursors.after,
    });
    const second = await s.rest.request('GET', next.href);
    expectOk(second, {
      data: [{ text: 'Me too', username: 'fan_two', parent_id: fanComment, id: fanReply }],
      paging: { cursors: { before: cursor, after: cursor }, previous: expect.any(String) },
    });
  });

  it('renames fields with .as(alias)', async () => {
    const { fanComment } = w.f.comments;
    expectOk(await get(s, `/v25.0/${fanComment}`, s.token, { fields: 'text.as(words),like_count.as(likes),media.as(post)' }), {
      words: 'Love this!',
      likes: 3,
      post: { id: w.f.posts[0] },
      id: fanComment,
    });
  });

  it('refuses fields the comment node does not have (comment_type, mentioned_social_users)', async () => {
    for (const field of ['comment_type', 'mentioned_social_users']) {
      expectGraphError(await get(s, `/v25.0/${w.f.comments.fanComment}`, s.token, { fields: field }), unknownField(field, 'SocialComment'));
    }
  });

  it('shows the app user its own comment on another account’s media, with user', async () => {
    expectOk(await get(s, `/v25.0/${w.blueOnRoaster}`, s.bluebottleOnly, { fields: 'text,user,media' }), {
      text: 'Great beans',
      user: { id: w.f.accounts.bluebottle },
      media: { id: w.f.media.roasterPost },
      id: w.blueOnRoaster,
    });
  });

  describe('not readable: 100/33 GraphMethodException', () => {
    it('an unknown comment id', async () => {
      const unknown = socialId('comment', 9_999_999n);
      expectGraphError(await get(s, `/v25.0/${unknown}`), unsupported('get', unknown));
    });

    it('a malformed id', async () => {
      expectGraphError(await get(s, '/v25.0/not-an-id'), unsupported('get', 'not-an-id'));
      expectGraphError(await get(s, '/v25.0/12345'), unsupported('get', '12345'));
    });

    it('a comment on age-gated media of another account', async () => {
      expectGraphError(await get(s, `/v25.0/${w.f.comments.shadyComment}`), unsupported('get', w.f.comments.shadyComment));
    });

    it('a comment on media of an account the token does not act for', async () => {
      expectGraphError(await get(s, `/v25.0/${w.f.comments.fanComment}`, s.roasterOnly), unsupported('get', w.f.comments.fanComment));
      expectGraphError(await get(s, `/v25.0/${w.f.comments.fanComment}`, s.stranger), unsupported('get', w.f.comments.fanComment));
    });

    it('a comment that @mentions the account, read directly (only mentioned_comment shows it)', async () => {
      const { roasterComment } = w.f.comments;
      expectGraphError(await get(s, `/v25.0/${roasterComment}`, s.bluebottleOnly), unsupported('get', roasterComment));
    });
  });
});

// =====================================================================================================================

describe.each(HOSTS)('POST /{comment_id}?hide= (hide and show) on the $host', ({ login }) => {
  let w: World;
  let s: Side;
  beforeAll(async () => {
    current = T0;
    w = await makeWorld(system);
    s = w.side(login);
  });

  const hiddenOf = async (id: string) => {
    const reply = await get(s, `/v25.0/${id}`, s.token, { fields: 'hidden' });
    expect(reply.status, reply.text).toBe(200);
    return reply.body.hidden as boolean;
  };

  it('hides with hide=true and shows again with hide=false, answering {"success":true}', async () => {
    const { fanTwoComment } = w.f.comments;
    const hidden = await post(s, `/v25.0/${fanTwoComment}`, s.token, { hide: 'true' });
    expectOk(hidden, { success: true });
    expect(hidden.text).toBe('{"success":true}');
    expect(await hiddenOf(fanTwoComment)).toBe(true);
    // Hiding twice is still a success.
    expectOk(await post(s, `/v25.0/${fanTwoComment}`, s.token, { hide: 'true' }), { success: true });
    expect(await hiddenOf(fanTwoComment)).toBe(true);
    expectOk(await post(s, `/v25.0/${fanTwoComment}`, s.token, { hide: 'false' }), { success: true });
    expect(await hiddenOf(fanTwoComment)).toBe(false);
  });

  it('shows a hidden comment', async () => {
    const id = await w.addComment(w.f.posts[1]!, w.f.accounts.fanTwo, 'was hidden', { hidden: true });
    expect(await hiddenOf(id)).toBe(true);
    expectOk(await post(s, `/v25.0/${id}`, s.token, { hide: 'false' }), { success: true });
    expect(await hiddenOf(id)).toBe(false);
  });

  it('takes hide and the token from a form-urlencoded body', async () => {
    const id = await w.addComment(w.f.posts[1]!, w.f.accounts.fanOne, 'form body');
    const reply = await s.rest.request('POST', `/v25.0/${id}`, {
      raw: new URLSearchParams({ hide: 'true', access_token: s.token }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectOk(reply, { success: true });
    expect(await hiddenOf(id)).toBe(true);
  });

  it('takes hide and the token from a JSON body (hide as a JSON boolean)', async () => {
    const id = await w.addComment(w.f.posts[1]!, w.f.accounts.fanOne, 'json body');
    expectOk(await s.rest.request('POST', `/v25.0/${id}`, { json: { hide: true, access_token: s.token } }), { success: true });
    expect(await hiddenOf(id)).toBe(true);
    expectOk(await s.rest.request('POST', `/${id}`, { json: { hide: false }, token: s.token }), { success: true });
    expect(await hiddenOf(id)).toBe(false);
  });

  it('hides a reply', async () => {
    const { fanReply } = w.f.comments;
    expectOk(await post(s, `/v25.0/${fanReply}`, s.token, { hide: 'true' }), { success: true });
    expect(await hiddenOf(fanReply)).toBe(true);
  });

  it('answers success for the owner’s own comment on its media but leaves it shown', async () => {
    const { ownerComment } = w.f.comments;
    expectOk(await post(s, `/v25.0/${ownerComment}`, s.token, { hide: 'true' }), { success: true });
    expect(await hiddenOf(ownerComment)).toBe(false);
  });

  it('accepts the optional ad_id parameter next to hide', async () => {
    const id = await w.addComment(w.f.posts[1]!, w.f.accounts.fanOne, 'an ad comment');
    expectOk(await post(s, `/v25.0/${id}`, s.token, { hide: 'true', ad_id: '120200000000000001' }), { success: true });
    expect(await hiddenOf(id)).toBe(true);
  });

  it('refuses the comment’s author when it does not own the media: (#10)', async () => {
    expectGraphError(await post(s, `/v25.0/${w.blueOnRoaster}`, s.bluebottleOnly, { hide: 'true' }), notAllowed);
  });

  it('refuses a token that does not act for the media owner: 100/33 post', async () => {
    const { fanComment } = w.f.comments;
    expectGraphError(await post(s, `/v25.0/${fanComment}`, s.stranger, { hide: 'true' }), unsupported('post', fanComment));
    expectGraphError(await post(s, `/v25.0/${fanComment}`, s.roasterOnly, { hide: 'true' }), unsupported('post', fanComment));
    expect(await hiddenOf(fanComment)).toBe(false);
  });

  it('refuses an unknown comment: 100/33 post', async () => {
    const unknown = socialId('comment', 9_999_998n);
    expectGraphError(await post(s, `/v25.0/${unknown}`, s.token, { hide: 'true' }), unsupported('post', unknown));
  });

  it('requires hide: (#100) The parameter hide is required', async () => {
    expectGraphError(await post(s, `/v25.0/${w.f.comments.fanComment}`), missingParameter('hide'));
    expectGraphError(await s.rest.request('POST', `/v25.0/${w.f.comments.fanComment}`, { token: s.token }), missingParameter('hide'));
  });

  it('requires hide when only ad_id is given', async () => {
    expectGraphError(await post(s, `/v25.0/${w.f.comments.fanComment}`, s.token, { ad_id: '120200000000000001' }), missingParameter('hide'));
  });

  it('refuses a hide value that is not a boolean: 100 Invalid parameter', async () => {
    expectGraphError(
      await post(s, `/v25.0/${w.f.comments.fanComment}`, s.token, { hide: 'maybe' }),
      invalidParameter('hide must be true or false, got "maybe".'),
    );
  });

  it('does not create or update a comment at its own address: 100/33 Unsupported post request', async () => {
    const { fanComment } = w.f.comments;
    expectGraphError(await post(s, `/v25.0/${fanComment}`, s.token, { message: 'edited text' }), unsupported('post', fanComment));
    expectOk(await get(s, `/v25.0/${fanComment}`), { id: fanComment, text: 'Love this!', timestamp: at(13) });
  });
});

// =====================================================================================================================

describe.each(HOSTS)('DELETE /{comment_id} on the $host', ({ login }) => {
  let w: World;
  let s: Side;
  beforeAll(async () => {
    current = T0;
    w = await makeWorld(system);
    s = w.side(login);
  });

  it('lets the media owner delete a fan’s comment, which is then unreadable', async () => {
    const { fanTwoComment } = w.f.comments;
    const reply = await del(s, `/v25.0/${fanTwoComment}`);
    expectOk(reply, { success: true });
    expect(reply.text).toBe('{"success":true}');
    expectGraphError(await get(s, `/v25.0/${fanTwoComment}`), unsupported('get', fanTwoComment));
    // Deleting it again: it no longer exists.
    expectGraphError(await del(s, `/v25.0/${fanTwoComment}`), unsupported('delete', fanTwoComment));
  });

  it('deletes a comment’s replies with it: neither the replies nor the replies edge can be read', async () => {
    const { fanComment, fanReply, ownerReply } = w.f.comments;
    expectOk(await s.rest.request('DELETE', `/${fanComment}`, { token: s.token }), { success: true });
    expectGraphError(await get(s, `/v25.0/${fanComment}`), unsupported('get', fanComment));
    expectGraphError(await get(s, `/v25.0/${fanComment}/replies`), unsupported('get', fanComment));
    expectGraphError(await get(s, `/v25.0/${fanReply}`), unsupported('get', fanReply));
    expectGraphError(await get(s, `/v25.0/${ownerReply}`), unsupported('get', ownerReply));
    const list = await get(s, `/v25.0/${w.f.posts[0]}/comments`);
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((c: { id: string }) => c.id)).not.toContain(fanComment);
  });

  it('takes the token from a JSON body on DELETE', async () => {
    const id = await w.addComment(w.f.posts[1]!, w.f.accounts.fanTwo, 'json delete');
    expectOk(await s.rest.request('DELETE', `/v25.0/${id}`, { json: { access_token: s.token } }), { success: true });
    expectGraphError(await get(s, `/v25.0/${id}`), unsupported('get', id));
  });

  it('lets the author delete its own comment on another account’s media', async () => {
    const id = await w.addComment(w.f.media.roasterPost, w.f.accounts.bluebottle, 'my own words');
    expectOk(await get(s, `/v25.0/${id}`, s.bluebottleOnly), { id, text: 'my own words', timestamp: '2026-11-01T21:00:00+0000' });
    expectOk(await del(s, `/v25.0/${id}`, s.bluebottleOnly), { success: true });
    expectGraphError(await get(s, `/v25.0/${id}`, s.bluebottleOnly), unsupported('get', id));
    // The media owner no longer sees it either.
    expectGraphError(await get(s, `/v25.0/${id}`, s.roasterOnly), unsupported('get', id));
  });

  it('lets the owner delete a reply, leaving its parent', async () => {
    const parentId = await w.addComment(w.f.posts[2]!, w.f.accounts.fanOne, 'parent');
    const replyId = await w.addComment(w.f.posts[2]!, w.f.accounts.fanTwo, 'child', { parentId });
    expectOk(await del(s, `/v25.0/${replyId}`), { success: true });
    expectGraphError(await get(s, `/v25.0/${replyId}`), unsupported('get', replyId));
    expectOk(await get(s, `/v25.0/${parentId}/replies`), { data: [] });
  });

  it('refuses a token that acts for neither the author nor the media owner: 100/33 delete', async () => {
    const id = await w.addComment(w.f.posts[3]!, w.f.accounts.fanOne, 'keep me');
    expectGraphError(await del(s, `/v25.0/${id}`, s.stranger), unsupported('delete', id));
    expectGraphError(await del(s, `/v25.0/${id}`, s.roasterOnly), unsupported('delete', id));
    expectOk(await get(s, `/v25.0/${id}`), { id, text: 'keep me', timestamp: '2026-11-01T21:00:00+0000' });
  });

  it('refuses an unknown comment: 100/33 delete', async () => {
    const unknown = socialId('comment', 9_999_997n);
    expectGraphError(await del(s, `/v25.0/${unknown}`), unsupported('delete', unknown));
    expectGraphError(await del(s, '/v25.0/nope'), unsupported('delete', 'nope'));
  });
});

// =====================================================================================================================

describe.each(HOSTS)('replies edge /{comment_id}/replies on the $host', ({ login }) => {
  let w: World;
  let s: Side;
  beforeAll(async () => {
    current = T0;
    w = await makeWorld(system);
    s = w.side(login);
  });

  it('lists replies oldest first with the default fields id, text, timestamp', async () => {
    const { fanComment, ownerReply, fanReply } = w.f.comments;
    expectOk(await get(s, `/v25.0/${fanComment}/replies`), {
      data: [
        { id: ownerReply, text: 'Thank you!', timestamp: at(17) },
        { id: fanReply, text: 'Me too', timestamp: at(18) },
      ],
      paging: { cursors: { before: cursor, after: cursor } },
    });
  });

  it('lists the requested fields of each reply, and an empty list for a reply', async () => {
    const { fanComment, ownerReply, fanReply } = w.f.comments;
    expectOk(await s.rest.request('GET', `/${fanComment}/replies?fields=username,parent_id,user`, { token: s.token }), {
      data: [
        { username: 'bluebottle', parent_id: fanComment, user: { id: w.f.accounts.bluebottle }, id: ownerReply },
        { username: 'fan_two', parent_id: fanComment, id: fanReply },
      ],
      paging: { cursors: { before: cursor, after: cursor } },
    });
    expectOk(await get(s, `/v25.0/${fanReply}/replies`), { data: [] });
  });

  it('creates a reply with POST ?message=, answering {"id":…}; the reply is by the media owner', async () => {
    const { fanTwoComment } = w.f.comments;
    current = T0 + 60_000;
    const id = await created(post(s, `/v25.0/${fanTwoComment}/replies`, s.token, { message: 'It is in Oakland' }));
    expectOk(
      await get(s, `/v25.0/${id}`, s.token, {
        fields: 'id,text,timestamp,parent_id,hidden,like_count,media,user,username,from,legacy_social_comment_id',
      }),
      {
        id,
        text: 'It is in Oakland',
        timestamp: '2026-11-02T10:01:00+0000',
        parent_id: fanTwoComment,
        hidden: false,
        like_count: 0,
        media: { id: w.f.posts[0] },
        user: { id: w.f.accounts.bluebottle },
        username: 'bluebottle',
        from: { id: w.f.accounts.bluebottle, username: 'bluebottle' },
        legacy_social_comment_id: id,
      },
    );
    const list = await get(s, `/v25.0/${fanTwoComment}/replies`);
    expect(list.body.data).toEqual([{ id, text: 'It is in Oakland', timestamp: '2026-11-02T10:01:00+0000' }]);
  });

  it('stamps a new reply with the second it was made in, never a later one', async () => {
    current = T0 + 2 * 60_000 + 700; // 10:02:00.700
    const id = await created(post(s, `/v25.0/${w.f.comments.fanTwoComment}/replies`, s.token, { message: 'late in the second' }));
    current = T0;
    expectOk(await get(s, `/v25.0/${id}`, s.token, { fields: 'timestamp' }), { timestamp: '2026-11-02T10:02:00+0000', id });
  });

  it('takes message and the token from a JSON or form body', async () => {
    const { ownerComment } = w.f.comments;
    const fromJson = await created(
      s.rest.request('POST', `/v25.0/${ownerComment}/replies`, { json: { message: 'json reply', access_token: s.token } }),
    );
    const fromForm = await created(
      s.rest.request('POST', `/v25.0/${ownerComment}/replies`, {
        raw: new URLSearchParams({ message: 'form reply', access_token: s.token }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
    );
    const list = await get(s, `/v25.0/${ownerComment}/replies`, s.token, { fields: 'text' });
    expect(list.body.data).toEqual([
      { text: 'json reply', id: fromJson },
      { text: 'form reply', id: fromForm },
    ]);
  });

  it('attaches a reply to a reply to the top-level comment', async () => {
    const { fanComment, fanReply } = w.f.comments;
    const id = await created(post(s, `/v25.0/${fanReply}/replies`, s.token, { message: 'Replying to a reply' }));
    expectOk(await get(s, `/v25.0/${id}`, s.token, { fields: 'parent_id,text' }), { parent_id: fanComment, text: 'Replying to a reply', id });
    const list = await get(s, `/v25.0/${fanComment}/replies`, s.token, { fields: 'id' });
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([w.f.comments.ownerReply, fanReply, id]);
  });

  it('refuses a reply to a hidden comment: 100 Invalid parameter', async () => {
    expectGraphError(
      await post(s, `/v25.0/${w.f.comments.hiddenComment}/replies`, s.token, { message: 'hello?' }),
      invalidParameter('Hidden comments take no replies.'),
    );
  });

  it('refuses a reply to a reply whose top-level comment is hidden', async () => {
    const top = await w.addComment(w.f.posts[3]!, w.f.accounts.fanOne, 'hidden top', { hidden: true });
    const child = await w.addComment(w.f.posts[3]!, w.f.accounts.fanTwo, 'visible child', { parentId: top });
    expectGraphError(await post(s, `/v25.0/${child}/replies`, s.token, { message: 'hello?' }), invalidParameter('Hidden comments take no replies.'));
  });

  it('requires message: (#100) The parameter message is required', async () => {
    expectGraphError(await post(s, `/v25.0/${w.f.comments.fanComment}/replies`), missingParameter('message'));
    expectGraphError(await post(s, `/v25.0/${w.f.comments.fanComment}/replies`, s.token, { message: '' }), missingParameter('message'));
  });

  it('refuses a reply by the comment’s author on media it does not own: (#10)', async () => {
    expectGraphError(await post(s, `/v25.0/${w.blueOnRoaster}/replies`, s.bluebottleOnly, { message: 'hi' }), notAllowed);
  });

  it('refuses a token that does not act for the media owner: 100/33', async () => {
    const { fanComment } = w.f.comments;
    expectGraphError(await post(s, `/v25.0/${fanComment}/replies`, s.stranger, { message: 'hi' }), unsupported('post', fanComment));
    expectGraphError(await get(s, `/v25.0/${fanComment}/replies`, s.stranger), unsupported('get', fanComment));
  });

  it('refuses replies on comments that do not exist, and an unknown path after a comment', async () => {
    const unknown = socialId('comment', 9_999_996n);
    expectGraphError(await get(s, `/v25.0/${unknown}/replies`), unsupported('get', unknown));
    expectGraphError(await post(s, `/v25.0/${unknown}/replies`, s.token, { message: 'x' }), unsupported('post', unknown));
    const nope = await get(s, `/v25.0/${w.f.comments.fanComment}/likes`);
    expectGraphError(nope, unknownPath('/likes'));
  });

  it('refuses a bad limit, a bad cursor, and after with before: 100 Invalid parameter', async () => {
    const path = `/v25.0/${w.f.comments.fanComment}/replies`;
    expectGraphError(await get(s, path, s.token, { limit: 'abc' }), invalidParameter('The parameter limit must be a non-negative integer, got "abc".'));
    expectGraphError(await get(s, path, s.token, { after: 'not-a-cursor' }), invalidParameter('Invalid cursor.'));
    const first = await get(s, path, s.token, { limit: '1' });
    const { before, after } = first.body.paging.cursors;
    expectGraphError(await get(s, path, s.token, { after, before }), invalidParameter('The parameters after and before cannot be used together.'));
  });

  it('accepts a message of 2200 characters and refuses a longer one', async () => {
    const path = `/v25.0/${w.f.comments.ownerComment}/replies`;
    await created(post(s, path, s.token, { message: 'é'.repeat(2200) }));
    expectGraphError(await post(s, path, s.token, { message: 'é'.repeat(2201) }), invalidParameter('The message must be at most 2200 characters.'));
  });

  it('walks more than two pages with limit, after and before, without duplicate or gap', async () => {
    const thread = await w.addComment(w.f.posts[4]!, w.f.accounts.fanOne, 'Thread', { timestamp: new Date('2026-11-01T22:00:00Z') });
    const ids: string[] = [];
    // Seven replies; two pairs share a second, so the order falls back to the id.
    for (const offset of [0, 1, 1, 2, 3, 3, 4]) {
      current = T0 + 20 * 60_000 + offset * 1000;
      ids.push(await created(post(s, `/v25.0/${thread}/replies`, s.token, { message: `reply ${ids.length}` })));
    }
    current = T0;

    const pages: string[][] = [];
    let reply = await get(s, `/v25.0/${thread}/replies`, s.token, { limit: '3', fields: 'text' });
    for (;;) {
      expect(reply.status, reply.text).toBe(200);
      pages.push(reply.body.data.map((c: { id: string; text: string }) => c.id));
      for (const item of reply.body.data) expect(item).toEqual({ text: `reply ${ids.indexOf(item.id)}`, id: item.id });
      const paging = reply.body.paging;
      expect(paging.cursors).toEqual({ before: cursor, after: cursor });
      if (pages.length === 1) expect(paging.previous).toBeUndefined();
      else expect(paging.previous).toEqual(expect.any(String));
      if (paging.next === undefined) break;
      const next = new URL(paging.next);
      expect(next.pathname).toBe(`/v25.0/${thread}/replies`);
      expect(Object.fromEntries(next.searchParams)).toEqual({ limit: '3', fields: 'text', access_token: s.token, after: paging.cursors.after });
      expect(pages.length).toBeLessThan(10);
      reply = await s.rest.request('GET', next.href);
    }
    expect(pages).toEqual([ids.slice(0, 3), ids.slice(3, 6), ids.slice(6)]);

    // And back with `before`, from the last page.
    const back: string[][] = [];
    let previous: string | undefined = reply.body.paging.previous;
    while (previous !== undefined) {
      const page = await s.rest.request('GET', previous);
      expect(page.status, page.text).toBe(200);
      back.unshift(page.body.data.map((c: { id: string }) => c.id));
      expect(page.body.paging.next).toEqual(expect.any(String));
      previous = page.body.paging.previous;
      expect(back.length).toBeLessThan(10);
    }
    expect(back).toEqual([ids.slice(0, 3), ids.slice(3, 6)]);

    // The cursors also work as parameters with the token in a header.
    const after = await s.rest.request('GET', withQuery(`/v25.0/${thread}/replies`, { limit: '2' }), { token: s.token });
    expect(after.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 2));
    const secondPage = await s.rest.request('GET', withQuery(`/v25.0/${thread}/replies`, { limit: '2', after: after.body.paging.cursors.after }), {
      token: s.token,
    });
    expect(secondPage.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(2, 4));
    expect(secondPage.body.paging.next).toBeDefined();
    expect(new URL(secondPage.body.paging.next).searchParams.has('access_token')).toBe(false);
    const firstAgain = await s.rest.request('GET', withQuery(`/v25.0/${thread}/replies`, { limit: '2', before: secondPage.body.paging.cursors.before }), {
      token: s.token,
    });
    expect(firstAgain.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 2));
  });
});

// =====================================================================================================================

describe.each(HOSTS)('media comments edge /{media_id}/comments on the $host', ({ login }) => {
  let w: World;
  let s: Side;
  beforeAll(async () => {
    current = T0;
    w = await makeWorld(system);
    s = w.side(login);
  });

  it('lists top-level comments only, newest first, with the default fields', async () => {
    const { fanComment, fanTwoComment, ownerComment, hiddenComment } = w.f.comments;
    expectOk(await get(s, `/v25.0/${w.f.posts[0]}/comments`), {
      data: [
        { id: hiddenComment, text: 'spam spam', timestamp: at(16) },
        { id: ownerComment, text: 'Thanks all', timestamp: at(15) },
        { id: fanTwoComment, text: 'Where is this?', timestamp: at(14) },
        { id: fanComment, text: 'Love this!', timestamp: at(13) },
      ],
      paging: { cursors: { before: cursor, after: cursor } },
    });
  });

  it('expands replies and other fields of each comment', async () => {
    const { fanComment, fanTwoComment, ownerComment, hiddenComment, ownerReply, fanReply } = w.f.comments;
    const reply = await get(s, `/v25.0/${w.f.posts[0]}/comments`, s.token, { fields: 'hidden,username,replies{id,text}' });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.data).toEqual([
      { hidden: true, username: 'fan_two', replies: { data: [] }, id: hiddenComment },
      { hidden: false, username: 'bluebottle', replies: { data: [] }, id: ownerComment },
      { hidden: false, username: 'fan_two', replies: { data: [] }, id: fanTwoComment },
      {
        hidden: false,
        username: 'fan_one',
        replies: {
          data: [
            { id: ownerReply, text: 'Thank you!' },
            { id: fanReply, text: 'Me too' },
          ],
          paging: { cursors: { before: cursor, after: cursor } },
        },
        id: fanComment,
      },
    ]);
  });

  it('serves at most 50 comments per page even with limit=100, 25 by default, and pages on without gap', async () => {
    const media = w.f.posts[5]!;
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      ids.unshift(await w.addComment(media, w.f.accounts.fanOne, `comment ${i}`, { timestamp: new Date(Date.UTC(2026, 9, 1, 0, i)) }));
    }
    const defaults = await get(s, `/v25.0/${media}/comments`, s.token, { fields: 'id' });
    expect(defaults.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 25));

    const first = await get(s, `/v25.0/${media}/comments`, s.token, { limit: '100', fields: 'id' });
    expect(first.status, first.text).toBe(200);
    expect(first.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 50));
    expect(first.body.paging.next).toEqual(expect.any(String));
    const second = await s.rest.request('GET', first.body.paging.next);
    expect(second.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(50));
    expect(second.body.paging.next).toBeUndefined();
    expect(second.body.paging.previous).toEqual(expect.any(String));
  });

  it('creates a top-level comment with POST ?message=, answering {"id":…}; it leads the list', async () => {
    const media = w.f.posts[6]!;
    current = T0 + 5 * 60_000;
    const id = await created(post(s, `/v25.0/${media}/comments`, s.token, { message: 'Fresh roast today' }));
    current = T0;
    expectOk(await get(s, `/v25.0/${id}`, s.token, { fields: 'text,timestamp,media,user,hidden' }), {
      text: 'Fresh roast today',
      timestamp: '2026-11-02T10:05:00+0000',
      media: { id: media },
      user: { id: w.f.accounts.bluebottle },
      hidden: false,
      id,
    });
    const list = await get(s, `/v25.0/${media}/comments`);
    expect(list.body.data).toEqual([{ id, text: 'Fresh roast today', timestamp: '2026-11-02T10:05:00+0000' }]);
    // From a JSON body, too.
    const fromJson = await created(s.rest.request('POST', `/v25.0/${media}/comments`, { json: { message: 'Second', access_token: s.token } }));
    expect(fromJson).not.toBe(id);
  });

  it('records the accounts a new comment @mentions (readable through mentioned_comment)', async () => {
    const id = await created(post(s, `/v25.0/${w.f.posts[7]}/comments`, s.token, { message: 'Thanks @roaster for the beans' }));
    // ana manages roaster's page too.
    expectOk(await get(w.parent, `/v25.0/${w.f.accounts.roaster}`, w.parent.token, { fields: `mentioned_comment.comment_id(${id}){text}` }), {
      mentioned_comment: { text: 'Thanks @roaster for the beans', id },
      id: w.f.accounts.roaster,
    });
  });

  it('requires message, and refuses media of others and media with comments disabled', async () => {
    const media = w.f.posts[8]!;
    expectGraphError(await post(s, `/v25.0/${media}/comments`), missingParameter('message'));
    expectGraphError(await post(s, `/v25.0/${media}/comments`, s.stranger, { message: 'hi' }), unsupported('post', media));
    expectGraphError(await post(s, `/v25.0/${media}/comments`, s.roasterOnly, { message: 'hi' }), unsupported('post', media));
    await w.setMedia(media, { comment_enabled: false });
    expectGraphError(await post(s, `/v25.0/${media}/comments`, s.token, { message: 'hi' }), invalidParameter('Comments are disabled on this media.'));
    const comment = await w.addComment(media, w.f.accounts.fanOne, 'before they were disabled');
    expectGraphError(await post(s, `/v25.0/${comment}/replies`, s.token, { message: 'hi' }), invalidParameter('Comments are disabled on this media.'));
  });

  it('refuses the comments of media the token cannot see: 100/33', async () => {
    const { shadyPost } = w.f.media;
    expectGraphError(await get(s, `/v25.0/${shadyPost}/comments`), unsupported('get', shadyPost));
    expectGraphError(await get(s, `/v25.0/${w.f.posts[0]}/comments`, s.stranger), unsupported('get', w.f.posts[0]!));
  });
});

// =====================================================================================================================

describe('comments on live video', () => {
  let w: World;
  beforeAll(async () => {
    current = T0;
    w = await makeWorld(system);
  });

  it.each(HOSTS)('are readable while the broadcast lasts ($host)', async ({ login }) => {
    const s = w.side(login);
    expectOk(await get(s, `/v25.0/${w.f.comments.liveComment}`), { id: w.f.comments.liveComment, text: 'Hello live', timestamp: at(13) });
  });

  it.each(HOSTS)('cannot be hidden, deleted or replied to, and the live video takes no new comments ($host)', async ({ login }) => {
    const s = w.side(login);
    const { liveComment } = w.f.comments;
    expectGraphError(await post(s, `/v25.0/${liveComment}`, s.token, { hide: 'true' }), unsupported('post', liveComment));
    expectGraphError(await del(s, `/v25.0/${liveComment}`), unsupported('delete', liveComment));
    expectGraphError(
      await post(s, `/v25.0/${liveComment}/replies`, s.token, { message: 'hi' }),
      invalidParameter('Live video comments take no replies; use a private reply instead.'),
    );
    expectGraphError(await post(s, `/v25.0/${w.f.media.live}/comments`, s.token, { message: 'hi' }), invalidParameter('Comments on live video are not supported.'));
    expectOk(await get(s, `/v25.0/${liveComment}`, s.token, { fields: 'hidden' }), { hidden: false, id: liveComment });
  });

  describe('once the broadcast has ended', () => {
    beforeAll(async () => {
      await w.setMedia(w.f.media.live, { live_ended_at: new Date(T0 - 60_000) });
    });

    it.each(HOSTS)('are no longer readable: 100/33 ($host)', async ({ login }) => {
      const s = w.side(login);
      const { liveComment } = w.f.comments;
      expectGraphError(await get(s, `/v25.0/${liveComment}`), unsupported('get', liveComment));
      expectGraphError(await get(s, `/v25.0/${liveComment}/replies`), unsupported('get', liveComment));
    });

    it.each(HOSTS)('are no longer listed by the media comments edge ($host)', async ({ login }) => {
      const s = w.side(login);
      expectOk(await get(s, `/v25.0/${w.f.media.live}/comments`), { data: [] });
    });
  });
});

// =====================================================================================================================

describe('mentions: mentioned_comment and POST /{account_id}/mentions', () => {
  let w: World;
  beforeAll(async () => {
    current = T0;
    w = await makeWorld(system);
  });

  it('reads a comment that @mentions the account through mentioned_comment (parent-platform host)', async () => {
    const { roasterComment } = w.f.comments;
    const reply = await get(w.parent, `/v25.0/${w.f.accounts.bluebottle}`, w.parent.token, {
      fields: `mentioned_comment.comment_id(${roasterComment}){id,text,timestamp,like_count,media{id}}`,
    });
    expectOk(reply, {
      mentioned_comment: { id: roasterComment, text: 'Ask @bluebottle', timestamp: at(13), like_count: 0, media: { id: w.f.media.roasterPost } },
      id: w.f.accounts.bluebottle,
    });
    expect(Object.keys(reply.body)).toEqual(['mentioned_comment', 'id']);
  });

  it('gives mentioned_comment the default fields id, text, timestamp', async () => {
    const { roasterComment } = w.f.comments;
    expectOk(await get(w.parent, `/${w.f.accounts.bluebottle}`, w.parent.bluebottleOnly, { fields: `mentioned_comment.comment_id(${roasterComment})` }), {
      mentioned_comment: { id: roasterComment, text: 'Ask @bluebottle', timestamp: at(13) },
      id: w.f.accounts.bluebottle,
    });
  });

  it('refuses mentioned_comment without comment_id, or for a comment that does not mention the account', async () => {
    expectGraphError(await get(w.parent, `/v25.0/${w.f.accounts.bluebottle}`, w.parent.token, { fields: 'mentioned_comment{id}' }), missingParameter('comment_id'));
    const { fanComment } = w.f.comments;
    expectGraphError(
      await get(w.parent, `/v25.0/${w.f.accounts.bluebottle}`, w.parent.token, { fields: `mentioned_comment.comment_id(${fanComment}){id}` }),
      unsupported('get', fanComment),
    );
  });

  it('refuses mentioned_comment to a page role without the MANAGE, CREATE_CONTENT or MODERATE task: (#10)', async () => {
    const g = createSocialGraphBuilder(system.database.db.withTables<SocialTables>());
    const analyst = await g.platformUser('Ann Analyst');
    await g.pageRole(w.f.pages.bluebottle, analyst, { tasks: ['ANALYZE'] });
    const token = await w.f.token('parent', analyst, PARENT_PERMISSIONS);
    expectGraphError(
      await get(w.parent, `/v25.0/${w.f.accounts.bluebottle}`, token, { fields: `mentioned_comment.comment_id(${w.f.comments.roasterComment}){id}` }),
      notAllowed,
    );
  });

  it('does not show through mentioned_comment a comment on age-gated media', async () => {
    const g = createSocialGraphBuilder(system.database.db.withTables<SocialTables>());
    const shadyMention = await w.addComment(w.f.media.shadyPost, w.f.accounts.fanOne, 'psst @bluebottle');
    await g.mention(w.f.accounts.bluebottle, w.f.media.shadyPost, shadyMention);
    expectGraphError(
      await get(w.parent, `/v25.0/${w.f.accounts.bluebottle}`, w.parent.token, { fields: `mentioned_comment.comment_id(${shadyMention}){text}` }),
      unsupported('get', shadyMention),
    );
  });

  it('does not know mentioned_comment on the own-login host', async () => {
    expectGraphError(
      await get(w.own, `/v25.0/${w.f.accounts.bluebottle}`, w.own.token, {
        fields: `mentioned_comment.comment_id(${w.f.comments.roasterComment}){id,text,timestamp,like_count,media{id}}`,
      }),
      unknownField('mentioned_comment', 'SocialUser'),
    );
  });

  it.each(HOSTS)('answers a comment mention with a reply on that comment ($host)', async ({ login }) => {
    const s = w.side(login);
    const { roasterComment } = w.f.comments;
    const id = await created(
      post(s, `/v25.0/${w.f.accounts.bluebottle}/mentions`, s.bluebottleOnly, {
        media_id: w.f.media.roasterPost,
        comment_id: roasterComment,
        message: `Thanks from ${login}`,
      }),
    );
    expectOk(await get(s, `/v25.0/${id}`, s.bluebottleOnly, { fields: 'text,parent_id,media,user' }), {
      text: `Thanks from ${login}`,
      parent_id: roasterComment,
      media: { id: w.f.media.roasterPost },
      user: { id: w.f.accounts.bluebottle },
      id,
    });
  });

  it.each(HOSTS)('answers a caption mention with a top-level comment on the media ($host)', async ({ login }) => {
    const s = w.side(login);
    const id = await created(
      s.rest.request('POST', `/v25.0/${w.f.accounts.bluebottle}/mentions`, {
        json: { media_id: w.f.media.roasterPost, message: `Caption thanks from ${login}`, access_token: s.bluebottleOnly },
      }),
    );
    expectOk(await get(s, `/v25.0/${id}`, s.bluebottleOnly, { fields: 'text,parent_id,media' }), {
      text: `Caption thanks from ${login}`,
      media: { id: w.f.media.roasterPost },
      id,
    });
  });

  it.each(HOSTS)('answers a mention made in a reply on the top-level comment ($host)', async ({ login }) => {
    const s = w.side(login);
    const { roasterComment } = w.f.comments;
    // fan_two replies to roasterComment and mentions @bluebottle in the reply.
    const g = createSocialGraphBuilder(system.database.db.withTables<SocialTables>());
    const mentioning = await w.addComment(w.f.media.roasterPost, w.f.accounts.fanTwo, `@bluebottle agreed (${login})`, { parentId: roasterComment });
    await g.mention(w.f.accounts.bluebottle, w.f.media.roasterPost, mentioning);
    const id = await created(
      post(s, `/v25.0/${w.f.accounts.bluebottle}/mentions`, s.bluebottleOnly, {
        media_id: w.f.media.roasterPost,
        comment_id: mentioning,
        message: 'Glad you agree',
      }),
    );
    expectOk(await get(s, `/v25.0/${id}`, s.bluebottleOnly, { fields: 'parent_id' }), { parent_id: roasterComment, id });
  });

  it.each(HOSTS)('refuses a mentions POST without media_id or message, or where the account was not mentioned ($host)', async ({ login }) => {
    const s = w.side(login);
    const path = `/v25.0/${w.f.accounts.bluebottle}/mentions`;
    const { roasterComment, fanComment } = w.f.comments;
    expectGraphError(await post(s, path, s.bluebottleOnly, { comment_id: roasterComment, message: 'hi' }), missingParameter('media_id'));
    expectGraphError(await post(s, path, s.bluebottleOnly, { media_id: w.f.media.roasterPost, comment_id: roasterComment }), missingParameter('message'));
    expectGraphError(
      await post(s, path, s.bluebottleOnly, { media_id: w.f.posts[0], message: 'hi' }),
      invalidParameter('The account was not mentioned in the caption of this media.'),
    );
    expectGraphError(
      await post(s, path, s.bluebottleOnly, { media_id: w.f.posts[0], comment_id: fanComment, message: 'hi' }),
      invalidParameter('The account was not mentioned in this comment.'),
    );
  });

  it.each(HOSTS)('refuses a mentions POST for an account the token does not act for: 100/33 post ($host)', async ({ login }) => {
    const s = w.side(login);
    const { bluebottle } = w.f.accounts;
    expectGraphError(
      await post(s, `/v25.0/${bluebottle}/mentions`, s.roasterOnly, { media_id: w.f.media.roasterPost, message: 'hi' }),
      unsupported('post', bluebottle),
    );
  });

  it.each(HOSTS)('refuses to answer a story mention or a media the account was only tagged in ($host)', async ({ login }) => {
    const s = w.side(login);
    const g = createSocialGraphBuilder(system.database.db.withTables<SocialTables>());
    const story = await g.media(w.f.accounts.roaster, { caption: `Story with @bluebottle (${login})`, mediaProductType: 'STORY' });
    await g.mention(w.f.accounts.bluebottle, story);
    const tagged = await g.media(w.f.accounts.roaster, { caption: 'Tagged only' });
    await g.tag(tagged, w.f.accounts.bluebottle);
    const path = `/v25.0/${w.f.accounts.bluebottle}/mentions`;
    expectGraphError(await post(s, path, s.bluebottleOnly, { media_id: story, message: 'hi' }), invalidParameter('Story mentions cannot be answered.'));
    expectGraphError(
      await post(s, path, s.bluebottleOnly, { media_id: tagged, message: 'hi' }),
      invalidParameter('The account was not mentioned in the caption of this media.'),
    );
  });

  it('refuses mentioned_comment when comments are disabled on the media, or the comment was deleted', async () => {
    const g = createSocialGraphBuilder(system.database.db.withTables<SocialTables>());
    const media = await g.media(w.f.accounts.roaster, { caption: 'Quiet post' });
    const closed = await w.addComment(media, w.f.accounts.fanOne, 'Hey @bluebottle');
    await g.mention(w.f.accounts.bluebottle, media, closed);
    const gone = await w.addComment(media, w.f.accounts.fanTwo, 'Bye @bluebottle');
    await g.mention(w.f.accounts.bluebottle, media, gone);
    const read = (commentId: string) =>
      get(w.parent, `/v25.0/${w.f.accounts.bluebottle}`, w.parent.bluebottleOnly, { fields: `mentioned_comment.comment_id(${commentId}){text}` });
    expectOk(await read(closed), { mentioned_comment: { text: 'Hey @bluebottle', id: closed }, id: w.f.accounts.bluebottle });
    // roaster's manager (ana) deletes the second comment.
    expectOk(await del(w.parent, `/v25.0/${gone}`, w.parent.roasterOnly), { success: true });
    expectGraphError(await read(gone), unsupported('get', gone));
    await w.setMedia(media, { comment_enabled: false });
    expectGraphError(await read(closed), invalidParameter('Comments are disabled on this media.'));
  });

  it('does not read mentions: GET /{account_id}/mentions is unsupported', async () => {
    const { bluebottle } = w.f.accounts;
    expectGraphError(await get(w.parent, `/v25.0/${bluebottle}/mentions`), unsupported('get', bluebottle));
  });
});

// =====================================================================================================================

describe('the commenter’s username needs the comment-management permission (27 August 2024)', () => {
  let w: World;
  beforeAll(async () => {
    current = T0;
    w = await makeWorld(system);
  });

  const cases = [
    { host: 'own-login host', login: 'own' as const, basic: ['social_business_basic'], gate: 'social_business_manage_comments' },
    {
      host: 'parent-platform host',
      login: 'parent' as const,
      basic: ['social_basic', 'pages_read_engagement', 'pages_show_list'],
      gate: 'social_manage_comments',
    },
  ];

  it.each(cases)('lists media comments without it, but not their username or from ($host)', async ({ login, basic, gate }) => {
    const s = w.side(login);
    const token = await s.mint(basic);
    const media = w.f.posts[0]!;
    const list = await get(s, `/v25.0/${media}/comments`, token, { fields: 'text' });
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((c: { text: string }) => c.text)).toEqual(['spam spam', 'Thanks all', 'Where is this?', 'Love this!']);
    expectGraphError(await get(s, `/v25.0/${media}/comments`, token, { fields: 'username' }), missingPermission(gate));
    expectGraphError(await get(s, `/v25.0/${media}/comments`, token, { fields: 'text,from' }), missingPermission(gate));
    // With the permission, the username is there.
    const allowed = await get(s, `/v25.0/${media}/comments`, await s.mint([...basic, gate]), { fields: 'username' });
    expect(allowed.body.data.map((c: { username: string }) => c.username)).toEqual(['fan_two', 'bluebottle', 'fan_two', 'fan_one']);
  });

  it.each(cases)('refuses the comment node itself without it ($host)', async ({ login, basic, gate }) => {
    const s = w.side(login);
    const token = await s.mint(basic);
    expectGraphError(await get(s, `/v25.0/${w.f.comments.fanComment}`, token), missingPermission(gate));
    expectGraphError(await get(s, `/v25.0/${w.f.comments.ownerComment}`, token, { fields: 'username' }), missingPermission(gate));
  });
});

// =====================================================================================================================

interface Operation {
  name: string;
  /** Required permissions on the own-login host (null: the operation does not exist there). */
  own: readonly string[] | null;
  parent: readonly string[];
  send(w: World, s: Side, token: string | null): Promise<RestReply>;
}

/** The comment operations and their permissions, from reference §1.6, §1.8, §2.2 and §4. */
const OPERATIONS: Operation[] = [
  {
    name: 'GET /{comment_id}',
    own: ['social_business_basic', 'social_business_manage_comments'],
    parent: ['social_basic', 'social_manage_comments', 'pages_read_engagement'],
    send: (w, s, token) => get(s, `/v25.0/${w.f.comments.fanComment}`, token),
  },
  {
    name: 'GET /{comment_id}/replies',
    own: ['social_business_basic', 'social_business_manage_comments'],
    parent: ['social_basic', 'social_manage_comments', 'pages_show_list', 'pages_read_engagement'],
    send: (w, s, token) => get(s, `/v25.0/${w.f.comments.fanComment}/replies`, token),
  },
  {
    name: 'POST /{comment_id}/replies',
    own: ['social_business_basic', 'social_business_manage_comments'],
    parent: ['social_basic', 'social_manage_comments', 'pages_show_list', 'pages_read_engagement'],
    send: (w, s, token) => post(s, `/v25.0/${w.f.comments.fanTwoComment}/replies`, token, { message: 'matrix reply' }),
  },
  {
    name: 'POST /{comment_id}?hide=',
    own: ['social_business_basic', 'social_business_manage_comments'],
    parent: ['social_basic', 'social_manage_comments', 'pages_read_engagement'],
    send: (w, s, token) => post(s, `/v25.0/${w.f.comments.fanTwoComment}`, token, { hide: 'false' }),
  },
  {
    name: 'DELETE /{comment_id}',
    own: ['social_business_basic', 'social_business_manage_comments'],
    parent: ['social_basic', 'social_manage_comments', 'pages_read_engagement'],
    send: async (w, s, token) => del(s, `/v25.0/${await w.addComment(w.f.posts[9]!, w.f.accounts.fanOne, 'delete me')}`, token),
  },
  {
    name: 'GET /{media_id}/comments',
    own: ['social_business_basic'],
    parent: ['social_basic', 'pages_read_engagement'],
    send: (w, s, token) => get(s, `/v25.0/${w.f.posts[0]}/comments`, token),
  },
  {
    name: 'POST /{account_id}/mentions',
    own: ['social_business_basic', 'social_business_manage_comments'],
    parent: ['social_basic', 'social_manage_comments', 'pages_read_engagement', 'pages_show_list'],
    send: (w, s, token) =>
      post(s, `/v25.0/${w.f.accounts.bluebottle}/mentions`, token, {
        media_id: w.f.media.roasterPost,
        comment_id: w.f.comments.roasterComment,
        message: 'matrix mention',
      }),
  },
  {
    name: 'GET /{account_id}?fields=mentioned_comment…',
    own: null,
    parent: ['social_basic', 'social_manage_comments', 'pages_read_engagement', 'pages_show_list'],
    send: (w, s, token) =>
      get(s, `/v25.0/${w.f.accounts.bluebottle}`, token, { fields: `mentioned_comment.comment_id(${w.f.comments.roasterComment}){id}` }),
  },
];

const MATRIX = HOSTS.flatMap(({ host, login }) =>
  OPERATIONS.filter((op) => (login === 'own' ? op.own !== null : true)).map((op) => ({
    host,
    login,
    op,
    required: (login === 'own' ? op.own : op.parent)!,
  })),
);

describe('permissions and tokens of the comment operations', () => {
  let w: World;
  beforeAll(async () => {
    current = T0;
    w = await makeWorld(system);
  });

  const missingCases = MATRIX.flatMap(({ host, login, op, required }) =>
    required.map((permission) => ({ name: op.name, host, login, op, required, permission })),
  );

  it.each(missingCases)('$name on the $host without $permission: (#200) Requires extended permission: $permission', async ({
    login,
    op,
    permission,
  }) => {
    const s = w.side(login);
    const token = await s.mint(s.permissions.filter((p) => p !== permission));
    expectGraphError(await op.send(w, s, token), missingPermission(permission));
  });

  it.each(MATRIX)('$op.name on the $host succeeds with exactly its permissions', async ({ login, op, required }) => {
    const s = w.side(login);
    const reply = await op.send(w, s, await s.mint(required));
    expect(reply.status, reply.text).toBe(200);
  });

  const parentCases = MATRIX.filter((c) => c.login === 'parent');

  it.each(parentCases)('$op.name with a business-manager page role needs ads_management or ads_read', async ({ op }) => {
    expectGraphError(await op.send(w, w.parent, w.f.tokens.bmWithoutAds), missingPermission('ads_read'));
    const withAdsRead = await w.f.token('parent', w.f.platformUsers.bm, PARENT_PERMISSIONS.filter((p) => p !== 'ads_management'));
    const reply = await op.send(w, w.parent, withAdsRead);
    expect(reply.status, reply.text).toBe(200);
  });

  it.each(MATRIX)('$op.name on the $host without a token: 104', async ({ login, op }) => {
    expectGraphError(await op.send(w, w.side(login), null), noToken);
  });

  it.each(MATRIX)('$op.name on the $host with a garbage or unknown token: 190', async ({ login, op }) => {
    const s = w.side(login);
    expectGraphError(await op.send(w, s, 'garbage'), unparsableToken);
    const unknown = `${login === 'own' ? 'SBA' : 'EAA'}${'A'.repeat(43)}`;
    expectGraphError(await op.send(w, s, unknown), unparsableToken);
  });

  it.each(MATRIX)('$op.name on the $host with a token of the other login type: 190 Cannot parse access token', async ({ login, op }) => {
    const s = w.side(login);
    expectGraphError(await op.send(w, s, s.otherLogin), unparsableToken);
  });

  it.each(MATRIX)('$op.name on the $host with an expired token: 190/463', async ({ login, op }) => {
    const s = w.side(login);
    expectGraphError(await op.send(w, s, s.expired), EXPIRED);
  });

  it.each(MATRIX)('$op.name on the $host with a revoked token: 190/467', async ({ login, op }) => {
    const s = w.side(login);
    expectGraphError(await op.send(w, s, s.revoked), revokedToken);
  });
});
