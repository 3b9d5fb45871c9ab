import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LoginType } from '../../lib/auth/social-auth/social-token.service.ts';
import { socialId } from '../../lib/social-graph/social-ids.ts';
import { createSocialTokens } from '../../subgraphs/index.ts';
import type { MediaInput, SocialGraphBuilder } from '../../subgraphs/shared/social-graph/social-graph-builder.ts';
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
import type { RestClient, RestReply } from '../support/rest-client.ts';
import {
  OWN_PERMISSIONS,
  PARENT_PERMISSIONS,
  useSocialWorld,
  type CommentThread,
  type SocialFixture,
  type SocialTestWorld,
} from '../support/social-fixture.ts';

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
// The file's world, built once: the shared fixture plus a few objects the rules need. Tests that change comments (hide,
// delete, reply) or fill a media with comments take their own (a thread of post[0]'s comments on a new post, a new post,
// a new live video), so that every test also sees the fixture's comments as the fixture describes them.

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

interface CommentsWorld {
  fixture: SocialFixture;
  own: Side;
  parent: Side;
  side(login: LoginType): Side;
  /** bluebottle's comment on roaster's post: bluebottle is its author, roaster the media owner. */
  blueOnRoaster: string;
  /** Writes objects straight into the store (media, mentions, page roles). */
  graph: SocialGraphBuilder;
  /** A new comment written straight into the store (21:00 on the fixture's day unless `timestamp`). */
  addComment(
    mediaId: string,
    authorId: string,
    text: string,
    options?: { parentId?: string; timestamp?: Date; hidden?: boolean },
  ): Promise<string>;
  /** post[0]'s comments again on a new post of bluebottle's: for tests that hide, delete or reply to them. */
  newCommentThread(): Promise<CommentThread>;
  /** A new post of bluebottle's, for a test that fills it with comments or closes it. */
  newPost(input?: MediaInput): Promise<string>;
  setMedia(mediaId: string, values: { live_ended_at?: Date | null; comment_enabled?: boolean }): Promise<void>;
}

async function buildCommentsWorld(base: SocialTestWorld): Promise<CommentsWorld> {
  const { system, fixture, graph } = base;
  const tokens = createSocialTokens(system.database, clock);
  const past = createSocialTokens(system.database, () => new Date(clock().getTime() - 2 * 3_600_000));

  const rita = await graph.platformUser('Rita Roaster');
  await graph.pageRole(fixture.pages.roaster, rita);
  const issue = (loginType: LoginType, subjectId: string, permissions: readonly string[]) =>
    tokens.issue({ loginType, subjectId, permissions, expiresInSeconds: 3600 });
  const parentRevoked = await issue('parent', fixture.platformUsers.ana, PARENT_PERMISSIONS);
  await tokens.revoke(parentRevoked);

  const own: Side = {
    login: 'own',
    rest: base.ownHost,
    token: fixture.tokens.own,
    permissions: OWN_PERMISSIONS,
    mint: (permissions) => fixture.token('own', fixture.accounts.bluebottle, permissions),
    roasterOnly: fixture.tokens.roasterOwn,
    bluebottleOnly: fixture.tokens.own,
    stranger: fixture.tokens.roasterOwn,
    expired: fixture.tokens.expired,
    revoked: fixture.tokens.revoked,
    otherLogin: fixture.tokens.parent,
  };
  const parent: Side = {
    login: 'parent',
    rest: base.parentHost,
    token: fixture.tokens.parent,
    permissions: PARENT_PERMISSIONS,
    mint: (permissions) => fixture.token('parent', fixture.platformUsers.ana, permissions),
    roasterOnly: await issue('parent', rita, PARENT_PERMISSIONS),
    bluebottleOnly: await issue('parent', fixture.platformUsers.bm, PARENT_PERMISSIONS),
    stranger: fixture.tokens.stranger,
    expired: await past.issue({
      loginType: 'parent',
      subjectId: fixture.platformUsers.ana,
      permissions: PARENT_PERMISSIONS,
      expiresInSeconds: 3600,
    }),
    revoked: parentRevoked,
    otherLogin: fixture.tokens.own,
  };
  const blueOnRoaster = await graph.comment(fixture.media.roasterPost, fixture.accounts.bluebottle, {
    text: 'Great beans',
    timestamp: new Date('2026-11-01T20:00:00Z'),
  });
  return {
    fixture,
    own,
    parent,
    side: (login) => (login === 'own' ? own : parent),
    blueOnRoaster,
    graph,
    addComment: (mediaId, authorId, text, options = {}) =>
      graph.comment(mediaId, authorId, {
        text,
        parentId: options.parentId ?? null,
        hidden: options.hidden ?? false,
        timestamp: options.timestamp ?? new Date('2026-11-01T21:00:00Z'),
      }),
    newCommentThread: () => fixture.newCommentThread(),
    newPost: (input) => base.newPost(input),
    setMedia: (mediaId, values) => base.setMedia(mediaId, values),
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
  const answer = await reply;
  expect(answer.status, answer.text).toBe(200);
  expect(answer.body).toEqual({ id: expect.stringMatching(DIGITS) });
  return answer.body.id as string;
}

const HOSTS = [
  { host: 'own-login host', login: 'own' as const },
  { host: 'parent-platform host', login: 'parent' as const },
];

const socialWorld = useSocialWorld({ now: clock });
let world: CommentsWorld;
beforeAll(async () => {
  world = await buildCommentsWorld(socialWorld());
});

// =====================================================================================================================

describe.each(HOSTS)('GET /{comment_id} on the $host', ({ login }) => {
  let side: Side;
  beforeAll(() => {
    side = world.side(login);
  });

  it('returns exactly id, text and timestamp by default, the timestamp as YYYY-MM-DDTHH:MM:SS+0000', async () => {
    const reply = await get(side, `/v25.0/${world.fixture.comments.fanComment}`);
    expectOk(reply, { id: world.fixture.comments.fanComment, text: 'Love this!', timestamp: at(13) });
    expect(Object.keys(reply.body).sort()).toEqual(['id', 'text', 'timestamp']);
    expect(reply.body.timestamp).toMatch(GRAPH_TIMESTAMP);
  });

  it('returns the default fields for an empty fields parameter', async () => {
    expectOk(await get(side, `/v25.0/${world.fixture.comments.fanComment}`, side.token, { fields: '' }), {
      id: world.fixture.comments.fanComment,
      text: 'Love this!',
      timestamp: at(13),
    });
  });

  it('works without the version segment', async () => {
    expectOk(await get(side, `/${world.fixture.comments.fanComment}`), {
      id: world.fixture.comments.fanComment,
      text: 'Love this!',
      timestamp: at(13),
    });
  });

  it('takes the token from an Authorization Bearer header', async () => {
    const reply = await side.rest.request('GET', `/v25.0/${world.fixture.comments.fanTwoComment}`, { token: side.token });
    expectOk(reply, { id: world.fixture.comments.fanTwoComment, text: 'Where is this?', timestamp: at(14) });
  });

  it('returns the requested fields plus id, id last when not requested', async () => {
    const { fanComment } = world.fixture.comments;
    const reply = await get(side, `/v25.0/${fanComment}`, side.token, {
      fields: 'from,hidden,like_count,media,username,legacy_social_comment_id,timestamp',
    });
    expectOk(reply, {
      from: { id: world.fixture.accounts.fanOne, username: 'fan_one' },
      hidden: false,
      like_count: 3,
      media: { id: world.fixture.posts[0] },
      username: 'fan_one',
      legacy_social_comment_id: '9001',
      timestamp: at(13),
      id: fanComment,
    });
    expect(Object.keys(reply.body)).toEqual([
      'from',
      'hidden',
      'like_count',
      'media',
      'username',
      'legacy_social_comment_id',
      'timestamp',
      'id',
    ]);
  });

  it('keeps id where it was requested', async () => {
    const reply = await get(side, `/v25.0/${world.fixture.comments.fanComment}`, side.token, { fields: 'id,text' });
    expect(reply.text).toBe(`{"id":"${world.fixture.comments.fanComment}","text":"Love this!"}`);
  });

  it('shows hidden:true on a hidden comment', async () => {
    expectOk(await get(side, `/v25.0/${world.fixture.comments.hiddenComment}`, side.token, { fields: 'hidden,text' }), {
      hidden: true,
      text: 'spam spam',
      id: world.fixture.comments.hiddenComment,
    });
  });

  it('gives parent_id on replies only', async () => {
    const { fanComment, fanReply } = world.fixture.comments;
    expectOk(await get(side, `/v25.0/${fanReply}`, side.token, { fields: 'parent_id,text' }), {
      parent_id: fanComment,
      text: 'Me too',
      id: fanReply,
    });
    expectOk(await get(side, `/v25.0/${fanComment}`, side.token, { fields: 'parent_id' }), { id: fanComment });
  });

  it('omits legacy_social_comment_id when the comment has none', async () => {
    const { fanTwoComment } = world.fixture.comments;
    expectOk(await get(side, `/v25.0/${fanTwoComment}`, side.token, { fields: 'legacy_social_comment_id' }), { id: fanTwoComment });
  });

  it('gives user {id} only for a comment the app user wrote', async () => {
    const { ownerComment, fanComment } = world.fixture.comments;
    expectOk(await get(side, `/v25.0/${ownerComment}`, side.token, { fields: 'user,username,from' }), {
      user: { id: world.fixture.accounts.bluebottle },
      username: 'bluebottle',
      from: { id: world.fixture.accounts.bluebottle, username: 'bluebottle' },
      id: ownerComment,
    });
    const fan = await get(side, `/v25.0/${fanComment}`, side.token, { fields: 'user' });
    expect(fan.text).toBe(`{"id":"${fanComment}"}`);
  });

  it('expands media across subgraphs: media{id,caption,owner{username}} and comments_count', async () => {
    const { fanComment } = world.fixture.comments;
    expectOk(await get(side, `/v25.0/${fanComment}`, side.token, { fields: 'media{id,caption,owner{username},comments_count}' }), {
      media: {
        id: world.fixture.posts[0],
        caption: 'Post 0 #coffee',
        owner: { username: 'bluebottle', id: world.fixture.accounts.bluebottle },
        comments_count: 6,
      },
      id: fanComment,
    });
  });

  it('renders replies as {data:[…]} with the default fields, oldest first', async () => {
    const { fanComment, ownerReply, fanReply } = world.fixture.comments;
    expectOk(await get(side, `/v25.0/${fanComment}`, side.token, { fields: 'replies' }), {
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
    expectOk(await get(side, `/v25.0/${world.fixture.comments.fanTwoComment}`, side.token, { fields: 'replies' }), {
      replies: { data: [] },
      id: world.fixture.comments.fanTwoComment,
    });
  });

  it('accepts replies.limit(n){…} and links the next page of the nested edge', async () => {
    const { fanComment, ownerReply, fanReply } = world.fixture.comments;
    const reply = await get(side, `/v25.0/${fanComment}`, side.token, { fields: 'replies.limit(1){text,username,parent_id}' });
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
      access_token: side.token,
      fields: 'text,username,parent_id',
      limit: '1',
      after: reply.body.replies.paging.cursors.after,
    });
    const second = await side.rest.request('GET', next.href);
    expectOk(second, {
      data: [{ text: 'Me too', username: 'fan_two', parent_id: fanComment, id: fanReply }],
      paging: { cursors: { before: cursor, after: cursor }, previous: expect.any(String) },
    });
  });

  it('renames fields with .as(alias)', async () => {
    const { fanComment } = world.fixture.comments;
    expectOk(await get(side, `/v25.0/${fanComment}`, side.token, { fields: 'text.as(words),like_count.as(likes),media.as(post)' }), {
      words: 'Love this!',
      likes: 3,
      post: { id: world.fixture.posts[0] },
      id: fanComment,
    });
  });

  it('refuses fields the comment node does not have (comment_type, mentioned_social_users)', async () => {
    for (const field of ['comment_type', 'mentioned_social_users']) {
      expectGraphError(
        await get(side, `/v25.0/${world.fixture.comments.fanComment}`, side.token, { fields: field }),
        unknownField(field, 'SocialComment'),
      );
    }
  });

  it('shows the app user its own comment on another account’s media, with user', async () => {
    expectOk(await get(side, `/v25.0/${world.blueOnRoaster}`, side.bluebottleOnly, { fields: 'text,user,media' }), {
      text: 'Great beans',
      user: { id: world.fixture.accounts.bluebottle },
      media: { id: world.fixture.media.roasterPost },
      id: world.blueOnRoaster,
    });
  });

  describe('not readable: 100/33 GraphMethodException', () => {
    it('an unknown comment id', async () => {
      const unknown = socialId('comment', 9_999_999n);
      expectGraphError(await get(side, `/v25.0/${unknown}`), unsupported('get', unknown));
    });

    it('a malformed id', async () => {
      expectGraphError(await get(side, '/v25.0/not-an-id'), unsupported('get', 'not-an-id'));
      expectGraphError(await get(side, '/v25.0/12345'), unsupported('get', '12345'));
    });

    it('a comment on age-gated media of another account', async () => {
      expectGraphError(
        await get(side, `/v25.0/${world.fixture.comments.shadyComment}`),
        unsupported('get', world.fixture.comments.shadyComment),
      );
    });

    it('a comment on media of an account the token does not act for', async () => {
      expectGraphError(
        await get(side, `/v25.0/${world.fixture.comments.fanComment}`, side.roasterOnly),
        unsupported('get', world.fixture.comments.fanComment),
      );
      expectGraphError(
        await get(side, `/v25.0/${world.fixture.comments.fanComment}`, side.stranger),
        unsupported('get', world.fixture.comments.fanComment),
      );
    });

    it('a comment that @mentions the account, read directly (only mentioned_comment shows it)', async () => {
      const { roasterComment } = world.fixture.comments;
      expectGraphError(await get(side, `/v25.0/${roasterComment}`, side.bluebottleOnly), unsupported('get', roasterComment));
    });
  });
});

// =====================================================================================================================

describe.each(HOSTS)('POST /{comment_id}?hide= (hide and show) on the $host', ({ login }) => {
  let side: Side;
  /** This block's own copy of post[0]'s comments: its tests hide and show them. */
  let thread: CommentThread;
  beforeAll(async () => {
    side = world.side(login);
    thread = await world.newCommentThread();
  });

  const hiddenOf = async (id: string) => {
    const reply = await get(side, `/v25.0/${id}`, side.token, { fields: 'hidden' });
    expect(reply.status, reply.text).toBe(200);
    return reply.body.hidden as boolean;
  };

  it('hides with hide=true and shows again with hide=false, answering {"success":true}', async () => {
    const { fanTwoComment } = thread;
    const hidden = await post(side, `/v25.0/${fanTwoComment}`, side.token, { hide: 'true' });
    expectOk(hidden, { success: true });
    expect(hidden.text).toBe('{"success":true}');
    expect(await hiddenOf(fanTwoComment)).toBe(true);
    // Hiding twice is still a success.
    expectOk(await post(side, `/v25.0/${fanTwoComment}`, side.token, { hide: 'true' }), { success: true });
    expect(await hiddenOf(fanTwoComment)).toBe(true);
    expectOk(await post(side, `/v25.0/${fanTwoComment}`, side.token, { hide: 'false' }), { success: true });
    expect(await hiddenOf(fanTwoComment)).toBe(false);
  });

  it('shows a hidden comment', async () => {
    const id = await world.addComment(world.fixture.posts[1]!, world.fixture.accounts.fanTwo, 'was hidden', { hidden: true });
    expect(await hiddenOf(id)).toBe(true);
    expectOk(await post(side, `/v25.0/${id}`, side.token, { hide: 'false' }), { success: true });
    expect(await hiddenOf(id)).toBe(false);
  });

  it('takes hide and the token from a form-urlencoded body', async () => {
    const id = await world.addComment(world.fixture.posts[1]!, world.fixture.accounts.fanOne, 'form body');
    const reply = await side.rest.request('POST', `/v25.0/${id}`, {
      raw: new URLSearchParams({ hide: 'true', access_token: side.token }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectOk(reply, { success: true });
    expect(await hiddenOf(id)).toBe(true);
  });

  it('takes hide and the token from a JSON body (hide as a JSON boolean)', async () => {
    const id = await world.addComment(world.fixture.posts[1]!, world.fixture.accounts.fanOne, 'json body');
    expectOk(await side.rest.request('POST', `/v25.0/${id}`, { json: { hide: true, access_token: side.token } }), { success: true });
    expect(await hiddenOf(id)).toBe(true);
    expectOk(await side.rest.request('POST', `/${id}`, { json: { hide: false }, token: side.token }), { success: true });
    expect(await hiddenOf(id)).toBe(false);
  });

  it('hides a reply', async () => {
    const { fanReply } = thread;
    expectOk(await post(side, `/v25.0/${fanReply}`, side.token, { hide: 'true' }), { success: true });
    expect(await hiddenOf(fanReply)).toBe(true);
  });

  it('answers success for the owner’s own comment on its media but leaves it shown', async () => {
    const { ownerComment } = thread;
    expectOk(await post(side, `/v25.0/${ownerComment}`, side.token, { hide: 'true' }), { success: true });
    expect(await hiddenOf(ownerComment)).toBe(false);
  });

  it('accepts the optional ad_id parameter next to hide', async () => {
    const id = await world.addComment(world.fixture.posts[1]!, world.fixture.accounts.fanOne, 'an ad comment');
    expectOk(await post(side, `/v25.0/${id}`, side.token, { hide: 'true', ad_id: '120200000000000001' }), { success: true });
    expect(await hiddenOf(id)).toBe(true);
  });

  it('refuses the comment’s author when it does not own the media: (#10)', async () => {
    expectGraphError(await post(side, `/v25.0/${world.blueOnRoaster}`, side.bluebottleOnly, { hide: 'true' }), notAllowed);
  });

  it('refuses a token that does not act for the media owner: 100/33 post', async () => {
    const { fanComment } = thread;
    expectGraphError(await post(side, `/v25.0/${fanComment}`, side.stranger, { hide: 'true' }), unsupported('post', fanComment));
    expectGraphError(await post(side, `/v25.0/${fanComment}`, side.roasterOnly, { hide: 'true' }), unsupported('post', fanComment));
    expect(await hiddenOf(fanComment)).toBe(false);
  });

  it('refuses an unknown comment: 100/33 post', async () => {
    const unknown = socialId('comment', 9_999_998n);
    expectGraphError(await post(side, `/v25.0/${unknown}`, side.token, { hide: 'true' }), unsupported('post', unknown));
  });

  it('requires hide: (#100) The parameter hide is required', async () => {
    expectGraphError(await post(side, `/v25.0/${thread.fanComment}`), missingParameter('hide'));
    expectGraphError(await side.rest.request('POST', `/v25.0/${thread.fanComment}`, { token: side.token }), missingParameter('hide'));
  });

  it('requires hide when only ad_id is given', async () => {
    expectGraphError(
      await post(side, `/v25.0/${thread.fanComment}`, side.token, { ad_id: '120200000000000001' }),
      missingParameter('hide'),
    );
  });

  it('refuses a hide value that is not a boolean: 100 Invalid parameter', async () => {
    expectGraphError(
      await post(side, `/v25.0/${thread.fanComment}`, side.token, { hide: 'maybe' }),
      invalidParameter('hide must be true or false, got "maybe".'),
    );
  });

  it('does not create or update a comment at its own address: 100/33 Unsupported post request', async () => {
    const { fanComment } = thread;
    expectGraphError(await post(side, `/v25.0/${fanComment}`, side.token, { message: 'edited text' }), unsupported('post', fanComment));
    expectOk(await get(side, `/v25.0/${fanComment}`), { id: fanComment, text: 'Love this!', timestamp: at(13) });
  });
});

// =====================================================================================================================

describe.each(HOSTS)('DELETE /{comment_id} on the $host', ({ login }) => {
  let side: Side;
  /** This block's own copy of post[0]'s comments: its tests delete them. */
  let thread: CommentThread;
  beforeAll(async () => {
    side = world.side(login);
    thread = await world.newCommentThread();
  });

  it('lets the media owner delete a fan’s comment, which is then unreadable', async () => {
    const { fanTwoComment } = thread;
    const reply = await del(side, `/v25.0/${fanTwoComment}`);
    expectOk(reply, { success: true });
    expect(reply.text).toBe('{"success":true}');
    expectGraphError(await get(side, `/v25.0/${fanTwoComment}`), unsupported('get', fanTwoComment));
    // Deleting it again: it no longer exists.
    expectGraphError(await del(side, `/v25.0/${fanTwoComment}`), unsupported('delete', fanTwoComment));
  });

  it('deletes a comment’s replies with it: neither the replies nor the replies edge can be read', async () => {
    const { fanComment, fanReply, ownerReply } = thread;
    expectOk(await side.rest.request('DELETE', `/${fanComment}`, { token: side.token }), { success: true });
    expectGraphError(await get(side, `/v25.0/${fanComment}`), unsupported('get', fanComment));
    expectGraphError(await get(side, `/v25.0/${fanComment}/replies`), unsupported('get', fanComment));
    expectGraphError(await get(side, `/v25.0/${fanReply}`), unsupported('get', fanReply));
    expectGraphError(await get(side, `/v25.0/${ownerReply}`), unsupported('get', ownerReply));
    const list = await get(side, `/v25.0/${thread.post}/comments`);
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((c: { id: string }) => c.id)).not.toContain(fanComment);
  });

  it('takes the token from a JSON body on DELETE', async () => {
    const id = await world.addComment(world.fixture.posts[1]!, world.fixture.accounts.fanTwo, 'json delete');
    expectOk(await side.rest.request('DELETE', `/v25.0/${id}`, { json: { access_token: side.token } }), { success: true });
    expectGraphError(await get(side, `/v25.0/${id}`), unsupported('get', id));
  });

  it('lets the author delete its own comment on another account’s media', async () => {
    const id = await world.addComment(world.fixture.media.roasterPost, world.fixture.accounts.bluebottle, 'my own words');
    expectOk(await get(side, `/v25.0/${id}`, side.bluebottleOnly), { id, text: 'my own words', timestamp: '2026-11-01T21:00:00+0000' });
    expectOk(await del(side, `/v25.0/${id}`, side.bluebottleOnly), { success: true });
    expectGraphError(await get(side, `/v25.0/${id}`, side.bluebottleOnly), unsupported('get', id));
    // The media owner no longer sees it either.
    expectGraphError(await get(side, `/v25.0/${id}`, side.roasterOnly), unsupported('get', id));
  });

  it('lets the owner delete a reply, leaving its parent', async () => {
    const parentId = await world.addComment(world.fixture.posts[2]!, world.fixture.accounts.fanOne, 'parent');
    const replyId = await world.addComment(world.fixture.posts[2]!, world.fixture.accounts.fanTwo, 'child', { parentId });
    expectOk(await del(side, `/v25.0/${replyId}`), { success: true });
    expectGraphError(await get(side, `/v25.0/${replyId}`), unsupported('get', replyId));
    expectOk(await get(side, `/v25.0/${parentId}/replies`), { data: [] });
  });

  it('refuses a token that acts for neither the author nor the media owner: 100/33 delete', async () => {
    const id = await world.addComment(world.fixture.posts[3]!, world.fixture.accounts.fanOne, 'keep me');
    expectGraphError(await del(side, `/v25.0/${id}`, side.stranger), unsupported('delete', id));
    expectGraphError(await del(side, `/v25.0/${id}`, side.roasterOnly), unsupported('delete', id));
    expectOk(await get(side, `/v25.0/${id}`), { id, text: 'keep me', timestamp: '2026-11-01T21:00:00+0000' });
  });

  it('refuses an unknown comment: 100/33 delete', async () => {
    const unknown = socialId('comment', 9_999_997n);
    expectGraphError(await del(side, `/v25.0/${unknown}`), unsupported('delete', unknown));
    expectGraphError(await del(side, '/v25.0/nope'), unsupported('delete', 'nope'));
  });
});

// =====================================================================================================================

describe.each(HOSTS)('replies edge /{comment_id}/replies on the $host', ({ login }) => {
  let side: Side;
  /** This block's own copy of post[0]'s comments: its tests reply to them. */
  let thread: CommentThread;
  beforeAll(async () => {
    side = world.side(login);
    thread = await world.newCommentThread();
  });

  it('lists replies oldest first with the default fields id, text, timestamp', async () => {
    const { fanComment, ownerReply, fanReply } = thread;
    expectOk(await get(side, `/v25.0/${fanComment}/replies`), {
      data: [
        { id: ownerReply, text: 'Thank you!', timestamp: at(17) },
        { id: fanReply, text: 'Me too', timestamp: at(18) },
      ],
      paging: { cursors: { before: cursor, after: cursor } },
    });
  });

  it('lists the requested fields of each reply, and an empty list for a reply', async () => {
    const { fanComment, ownerReply, fanReply } = thread;
    expectOk(await side.rest.request('GET', `/${fanComment}/replies?fields=username,parent_id,user`, { token: side.token }), {
      data: [
        { username: 'bluebottle', parent_id: fanComment, user: { id: world.fixture.accounts.bluebottle }, id: ownerReply },
        { username: 'fan_two', parent_id: fanComment, id: fanReply },
      ],
      paging: { cursors: { before: cursor, after: cursor } },
    });
    expectOk(await get(side, `/v25.0/${fanReply}/replies`), { data: [] });
  });

  it('creates a reply with POST ?message=, answering {"id":…}; the reply is by the media owner', async () => {
    const { fanTwoComment } = thread;
    current = T0 + 60_000;
    const id = await created(post(side, `/v25.0/${fanTwoComment}/replies`, side.token, { message: 'It is in Oakland' }));
    expectOk(
      await get(side, `/v25.0/${id}`, side.token, {
        fields: 'id,text,timestamp,parent_id,hidden,like_count,media,user,username,from,legacy_social_comment_id',
      }),
      {
        id,
        text: 'It is in Oakland',
        timestamp: '2026-11-02T10:01:00+0000',
        parent_id: fanTwoComment,
        hidden: false,
        like_count: 0,
        media: { id: thread.post },
        user: { id: world.fixture.accounts.bluebottle },
        username: 'bluebottle',
        from: { id: world.fixture.accounts.bluebottle, username: 'bluebottle' },
        legacy_social_comment_id: id,
      },
    );
    const list = await get(side, `/v25.0/${fanTwoComment}/replies`);
    expect(list.body.data).toEqual([{ id, text: 'It is in Oakland', timestamp: '2026-11-02T10:01:00+0000' }]);
  });

  it('stamps a new reply with the second it was made in, never a later one', async () => {
    current = T0 + 2 * 60_000 + 700; // 10:02:00.700
    const id = await created(post(side, `/v25.0/${thread.fanTwoComment}/replies`, side.token, { message: 'late in the second' }));
    current = T0;
    expectOk(await get(side, `/v25.0/${id}`, side.token, { fields: 'timestamp' }), { timestamp: '2026-11-02T10:02:00+0000', id });
  });

  it('takes message and the token from a JSON or form body', async () => {
    const { ownerComment } = thread;
    const fromJson = await created(
      side.rest.request('POST', `/v25.0/${ownerComment}/replies`, { json: { message: 'json reply', access_token: side.token } }),
    );
    const fromForm = await created(
      side.rest.request('POST', `/v25.0/${ownerComment}/replies`, {
        raw: new URLSearchParams({ message: 'form reply', access_token: side.token }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
    );
    const list = await get(side, `/v25.0/${ownerComment}/replies`, side.token, { fields: 'text' });
    expect(list.body.data).toEqual([
      { text: 'json reply', id: fromJson },
      { text: 'form reply', id: fromForm },
    ]);
  });

  it('attaches a reply to a reply to the top-level comment', async () => {
    const { fanComment, fanReply } = thread;
    const id = await created(post(side, `/v25.0/${fanReply}/replies`, side.token, { message: 'Replying to a reply' }));
    expectOk(await get(side, `/v25.0/${id}`, side.token, { fields: 'parent_id,text' }), {
      parent_id: fanComment,
      text: 'Replying to a reply',
      id,
    });
    const list = await get(side, `/v25.0/${fanComment}/replies`, side.token, { fields: 'id' });
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([thread.ownerReply, fanReply, id]);
  });

  it('refuses a reply to a hidden comment: 100 Invalid parameter', async () => {
    expectGraphError(
      await post(side, `/v25.0/${thread.hiddenComment}/replies`, side.token, { message: 'hello?' }),
      invalidParameter('Hidden comments take no replies.'),
    );
  });

  it('refuses a reply to a reply whose top-level comment is hidden', async () => {
    const top = await world.addComment(world.fixture.posts[3]!, world.fixture.accounts.fanOne, 'hidden top', { hidden: true });
    const child = await world.addComment(world.fixture.posts[3]!, world.fixture.accounts.fanTwo, 'visible child', { parentId: top });
    expectGraphError(
      await post(side, `/v25.0/${child}/replies`, side.token, { message: 'hello?' }),
      invalidParameter('Hidden comments take no replies.'),
    );
  });

  it('requires message: (#100) The parameter message is required', async () => {
    expectGraphError(await post(side, `/v25.0/${thread.fanComment}/replies`), missingParameter('message'));
    expectGraphError(await post(side, `/v25.0/${thread.fanComment}/replies`, side.token, { message: '' }), missingParameter('message'));
  });

  it('refuses a reply by the comment’s author on media it does not own: (#10)', async () => {
    expectGraphError(await post(side, `/v25.0/${world.blueOnRoaster}/replies`, side.bluebottleOnly, { message: 'hi' }), notAllowed);
  });

  it('refuses a token that does not act for the media owner: 100/33', async () => {
    const { fanComment } = thread;
    expectGraphError(await post(side, `/v25.0/${fanComment}/replies`, side.stranger, { message: 'hi' }), unsupported('post', fanComment));
    expectGraphError(await get(side, `/v25.0/${fanComment}/replies`, side.stranger), unsupported('get', fanComment));
  });

  it('refuses replies on comments that do not exist, and an unknown path after a comment', async () => {
    const unknown = socialId('comment', 9_999_996n);
    expectGraphError(await get(side, `/v25.0/${unknown}/replies`), unsupported('get', unknown));
    expectGraphError(await post(side, `/v25.0/${unknown}/replies`, side.token, { message: 'x' }), unsupported('post', unknown));
    const nope = await get(side, `/v25.0/${thread.fanComment}/likes`);
    expectGraphError(nope, unknownPath('/likes'));
  });

  it('refuses a bad limit, a bad cursor, and after with before: 100 Invalid parameter', async () => {
    const path = `/v25.0/${thread.fanComment}/replies`;
    expectGraphError(
      await get(side, path, side.token, { limit: 'abc' }),
      invalidParameter('The parameter limit must be a non-negative integer, got "abc".'),
    );
    expectGraphError(await get(side, path, side.token, { after: 'not-a-cursor' }), invalidParameter('Invalid cursor.'));
    const first = await get(side, path, side.token, { limit: '1' });
    const { before, after } = first.body.paging.cursors;
    expectGraphError(
      await get(side, path, side.token, { after, before }),
      invalidParameter('The parameters after and before cannot be used together.'),
    );
  });

  it('accepts a message of 2200 characters and refuses a longer one', async () => {
    const path = `/v25.0/${thread.ownerComment}/replies`;
    await created(post(side, path, side.token, { message: 'é'.repeat(2200) }));
    expectGraphError(
      await post(side, path, side.token, { message: 'é'.repeat(2201) }),
      invalidParameter('The message must be at most 2200 characters.'),
    );
  });

  it('walks more than two pages with limit, after and before, without duplicate or gap', async () => {
    const longThread = await world.addComment(world.fixture.posts[4]!, world.fixture.accounts.fanOne, 'Thread', {
      timestamp: new Date('2026-11-01T22:00:00Z'),
    });
    const ids: string[] = [];
    // Seven replies; two pairs share a second, so the order falls back to the id.
    for (const offset of [0, 1, 1, 2, 3, 3, 4]) {
      current = T0 + 20 * 60_000 + offset * 1000;
      ids.push(await created(post(side, `/v25.0/${longThread}/replies`, side.token, { message: `reply ${ids.length}` })));
    }
    current = T0;

    const pages: string[][] = [];
    let reply = await get(side, `/v25.0/${longThread}/replies`, side.token, { limit: '3', fields: 'text' });
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
      expect(next.pathname).toBe(`/v25.0/${longThread}/replies`);
      expect(Object.fromEntries(next.searchParams)).toEqual({
        limit: '3',
        fields: 'text',
        access_token: side.token,
        after: paging.cursors.after,
      });
      expect(pages.length).toBeLessThan(10);
      reply = await side.rest.request('GET', next.href);
    }
    expect(pages).toEqual([ids.slice(0, 3), ids.slice(3, 6), ids.slice(6)]);

    // And back with `before`, from the last page.
    const back: string[][] = [];
    let previous: string | undefined = reply.body.paging.previous;
    while (previous !== undefined) {
      const page = await side.rest.request('GET', previous);
      expect(page.status, page.text).toBe(200);
      back.unshift(page.body.data.map((c: { id: string }) => c.id));
      expect(page.body.paging.next).toEqual(expect.any(String));
      previous = page.body.paging.previous;
      expect(back.length).toBeLessThan(10);
    }
    expect(back).toEqual([ids.slice(0, 3), ids.slice(3, 6)]);

    // The cursors also work as parameters with the token in a header.
    const after = await side.rest.request('GET', withQuery(`/v25.0/${longThread}/replies`, { limit: '2' }), { token: side.token });
    expect(after.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 2));
    const secondPage = await side.rest.request(
      'GET',
      withQuery(`/v25.0/${longThread}/replies`, { limit: '2', after: after.body.paging.cursors.after }),
      {
        token: side.token,
      },
    );
    expect(secondPage.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(2, 4));
    expect(secondPage.body.paging.next).toBeDefined();
    expect(new URL(secondPage.body.paging.next).searchParams.has('access_token')).toBe(false);
    const firstAgain = await side.rest.request(
      'GET',
      withQuery(`/v25.0/${longThread}/replies`, { limit: '2', before: secondPage.body.paging.cursors.before }),
      {
        token: side.token,
      },
    );
    expect(firstAgain.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 2));
  });
});

// =====================================================================================================================

describe.each(HOSTS)('media comments edge /{media_id}/comments on the $host', ({ login }) => {
  let side: Side;
  beforeAll(() => {
    side = world.side(login);
  });

  it('lists top-level comments only, newest first, with the default fields', async () => {
    const { fanComment, fanTwoComment, ownerComment, hiddenComment } = world.fixture.comments;
    expectOk(await get(side, `/v25.0/${world.fixture.posts[0]}/comments`), {
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
    const { fanComment, fanTwoComment, ownerComment, hiddenComment, ownerReply, fanReply } = world.fixture.comments;
    const reply = await get(side, `/v25.0/${world.fixture.posts[0]}/comments`, side.token, { fields: 'hidden,username,replies{id,text}' });
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
    const media = await world.newPost();
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      ids.unshift(
        await world.addComment(media, world.fixture.accounts.fanOne, `comment ${i}`, { timestamp: new Date(Date.UTC(2026, 9, 1, 0, i)) }),
      );
    }
    const defaults = await get(side, `/v25.0/${media}/comments`, side.token, { fields: 'id' });
    expect(defaults.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 25));

    const first = await get(side, `/v25.0/${media}/comments`, side.token, { limit: '100', fields: 'id' });
    expect(first.status, first.text).toBe(200);
    expect(first.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 50));
    expect(first.body.paging.next).toEqual(expect.any(String));
    const second = await side.rest.request('GET', first.body.paging.next);
    expect(second.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(50));
    expect(second.body.paging.next).toBeUndefined();
    expect(second.body.paging.previous).toEqual(expect.any(String));
  });

  it('creates a top-level comment with POST ?message=, answering {"id":…}; it leads the list', async () => {
    const media = await world.newPost();
    current = T0 + 5 * 60_000;
    const id = await created(post(side, `/v25.0/${media}/comments`, side.token, { message: 'Fresh roast today' }));
    current = T0;
    expectOk(await get(side, `/v25.0/${id}`, side.token, { fields: 'text,timestamp,media,user,hidden' }), {
      text: 'Fresh roast today',
      timestamp: '2026-11-02T10:05:00+0000',
      media: { id: media },
      user: { id: world.fixture.accounts.bluebottle },
      hidden: false,
      id,
    });
    const list = await get(side, `/v25.0/${media}/comments`);
    expect(list.body.data).toEqual([{ id, text: 'Fresh roast today', timestamp: '2026-11-02T10:05:00+0000' }]);
    // From a JSON body, too.
    const fromJson = await created(
      side.rest.request('POST', `/v25.0/${media}/comments`, { json: { message: 'Second', access_token: side.token } }),
    );
    expect(fromJson).not.toBe(id);
  });

  it('records the accounts a new comment @mentions (readable through mentioned_comment)', async () => {
    const id = await created(
      post(side, `/v25.0/${await world.newPost()}/comments`, side.token, { message: 'Thanks @roaster for the beans' }),
    );
    // ana manages roaster's page too.
    expectOk(
      await get(world.parent, `/v25.0/${world.fixture.accounts.roaster}`, world.parent.token, {
        fields: `mentioned_comment.comment_id(${id}){text}`,
      }),
      {
        mentioned_comment: { text: 'Thanks @roaster for the beans', id },
        id: world.fixture.accounts.roaster,
      },
    );
  });

  it('requires message, and refuses media of others and media with comments disabled', async () => {
    const media = await world.newPost();
    expectGraphError(await post(side, `/v25.0/${media}/comments`), missingParameter('message'));
    expectGraphError(await post(side, `/v25.0/${media}/comments`, side.stranger, { message: 'hi' }), unsupported('post', media));
    expectGraphError(await post(side, `/v25.0/${media}/comments`, side.roasterOnly, { message: 'hi' }), unsupported('post', media));
    await world.setMedia(media, { comment_enabled: false });
    expectGraphError(
      await post(side, `/v25.0/${media}/comments`, side.token, { message: 'hi' }),
      invalidParameter('Comments are disabled on this media.'),
    );
    const comment = await world.addComment(media, world.fixture.accounts.fanOne, 'before they were disabled');
    expectGraphError(
      await post(side, `/v25.0/${comment}/replies`, side.token, { message: 'hi' }),
      invalidParameter('Comments are disabled on this media.'),
    );
  });

  it('refuses the comments of media the token cannot see: 100/33', async () => {
    const { shadyPost } = world.fixture.media;
    expectGraphError(await get(side, `/v25.0/${shadyPost}/comments`), unsupported('get', shadyPost));
    expectGraphError(
      await get(side, `/v25.0/${world.fixture.posts[0]}/comments`, side.stranger),
      unsupported('get', world.fixture.posts[0]!),
    );
  });
});

// =====================================================================================================================

describe('comments on live video', () => {
  /** A live video of this block's own, with a fan's comment (13:00), as the fixture's: the block ends its broadcast. */
  let live: { video: string; comment: string };
  beforeAll(async () => {
    const video = await world.newPost({ caption: 'Live now', mediaType: 'VIDEO', isLive: true });
    live = {
      video,
      comment: await world.addComment(video, world.fixture.accounts.fanOne, 'Hello live', { timestamp: new Date('2026-11-01T13:00:00Z') }),
    };
  });

  it.each(HOSTS)('are readable while the broadcast lasts ($host)', async ({ login }) => {
    const side = world.side(login);
    expectOk(await get(side, `/v25.0/${live.comment}`), { id: live.comment, text: 'Hello live', timestamp: at(13) });
  });

  it.each(HOSTS)('cannot be hidden, deleted or replied to, and the live video takes no new comments ($host)', async ({ login }) => {
    const side = world.side(login);
    const liveComment = live.comment;
    expectGraphError(await post(side, `/v25.0/${liveComment}`, side.token, { hide: 'true' }), unsupported('post', liveComment));
    expectGraphError(await del(side, `/v25.0/${liveComment}`), unsupported('delete', liveComment));
    expectGraphError(
      await post(side, `/v25.0/${liveComment}/replies`, side.token, { message: 'hi' }),
      invalidParameter('Live video comments take no replies; use a private reply instead.'),
    );
    expectGraphError(
      await post(side, `/v25.0/${live.video}/comments`, side.token, { message: 'hi' }),
      invalidParameter('Comments on live video are not supported.'),
    );
    expectOk(await get(side, `/v25.0/${liveComment}`, side.token, { fields: 'hidden' }), { hidden: false, id: liveComment });
  });

  describe('once the broadcast has ended', () => {
    beforeAll(async () => {
      await world.setMedia(live.video, { live_ended_at: new Date(T0 - 60_000) });
    });

    it.each(HOSTS)('are no longer readable: 100/33 ($host)', async ({ login }) => {
      const side = world.side(login);
      const liveComment = live.comment;
      expectGraphError(await get(side, `/v25.0/${liveComment}`), unsupported('get', liveComment));
      expectGraphError(await get(side, `/v25.0/${liveComment}/replies`), unsupported('get', liveComment));
    });

    it.each(HOSTS)('are no longer listed by the media comments edge ($host)', async ({ login }) => {
      const side = world.side(login);
      expectOk(await get(side, `/v25.0/${live.video}/comments`), { data: [] });
    });
  });
});

// =====================================================================================================================

describe('mentions: mentioned_comment and POST /{account_id}/mentions', () => {
  it('reads a comment that @mentions the account through mentioned_comment (parent-platform host)', async () => {
    const { roasterComment } = world.fixture.comments;
    const reply = await get(world.parent, `/v25.0/${world.fixture.accounts.bluebottle}`, world.parent.token, {
      fields: `mentioned_comment.comment_id(${roasterComment}){id,text,timestamp,like_count,media{id}}`,
    });
    expectOk(reply, {
      mentioned_comment: {
        id: roasterComment,
        text: 'Ask @bluebottle',
        timestamp: at(13),
        like_count: 0,
        media: { id: world.fixture.media.roasterPost },
      },
      id: world.fixture.accounts.bluebottle,
    });
    expect(Object.keys(reply.body)).toEqual(['mentioned_comment', 'id']);
  });

  it('gives mentioned_comment the default fields id, text, timestamp', async () => {
    const { roasterComment } = world.fixture.comments;
    expectOk(
      await get(world.parent, `/${world.fixture.accounts.bluebottle}`, world.parent.bluebottleOnly, {
        fields: `mentioned_comment.comment_id(${roasterComment})`,
      }),
      {
        mentioned_comment: { id: roasterComment, text: 'Ask @bluebottle', timestamp: at(13) },
        id: world.fixture.accounts.bluebottle,
      },
    );
  });

  it('refuses mentioned_comment without comment_id, or for a comment that does not mention the account', async () => {
    expectGraphError(
      await get(world.parent, `/v25.0/${world.fixture.accounts.bluebottle}`, world.parent.token, { fields: 'mentioned_comment{id}' }),
      missingParameter('comment_id'),
    );
    const { fanComment } = world.fixture.comments;
    expectGraphError(
      await get(world.parent, `/v25.0/${world.fixture.accounts.bluebottle}`, world.parent.token, {
        fields: `mentioned_comment.comment_id(${fanComment}){id}`,
      }),
      unsupported('get', fanComment),
    );
  });

  it('refuses mentioned_comment to a page role without the MANAGE, CREATE_CONTENT or MODERATE task: (#10)', async () => {
    const analyst = await world.graph.platformUser('Ann Analyst');
    await world.graph.pageRole(world.fixture.pages.bluebottle, analyst, { tasks: ['ANALYZE'] });
    const token = await world.fixture.token('parent', analyst, PARENT_PERMISSIONS);
    expectGraphError(
      await get(world.parent, `/v25.0/${world.fixture.accounts.bluebottle}`, token, {
        fields: `mentioned_comment.comment_id(${world.fixture.comments.roasterComment}){id}`,
      }),
      notAllowed,
    );
  });

  it('does not show through mentioned_comment a comment on age-gated media', async () => {
    const shadyMention = await world.addComment(world.fixture.media.shadyPost, world.fixture.accounts.fanOne, 'psst @bluebottle');
    await world.graph.mention(world.fixture.accounts.bluebottle, world.fixture.media.shadyPost, shadyMention);
    expectGraphError(
      await get(world.parent, `/v25.0/${world.fixture.accounts.bluebottle}`, world.parent.token, {
        fields: `mentioned_comment.comment_id(${shadyMention}){text}`,
      }),
      unsupported('get', shadyMention),
    );
  });

  it('does not know mentioned_comment on the own-login host', async () => {
    expectGraphError(
      await get(world.own, `/v25.0/${world.fixture.accounts.bluebottle}`, world.own.token, {
        fields: `mentioned_comment.comment_id(${world.fixture.comments.roasterComment}){id,text,timestamp,like_count,media{id}}`,
      }),
      unknownField('mentioned_comment', 'SocialUser'),
    );
  });

  it.each(HOSTS)('answers a comment mention with a reply on that comment ($host)', async ({ login }) => {
    const side = world.side(login);
    const { roasterComment } = world.fixture.comments;
    const id = await created(
      post(side, `/v25.0/${world.fixture.accounts.bluebottle}/mentions`, side.bluebottleOnly, {
        media_id: world.fixture.media.roasterPost,
        comment_id: roasterComment,
        message: `Thanks from ${login}`,
      }),
    );
    expectOk(await get(side, `/v25.0/${id}`, side.bluebottleOnly, { fields: 'text,parent_id,media,user' }), {
      text: `Thanks from ${login}`,
      parent_id: roasterComment,
      media: { id: world.fixture.media.roasterPost },
      user: { id: world.fixture.accounts.bluebottle },
      id,
    });
  });

  it.each(HOSTS)('answers a caption mention with a top-level comment on the media ($host)', async ({ login }) => {
    const side = world.side(login);
    const id = await created(
      side.rest.request('POST', `/v25.0/${world.fixture.accounts.bluebottle}/mentions`, {
        json: { media_id: world.fixture.media.roasterPost, message: `Caption thanks from ${login}`, access_token: side.bluebottleOnly },
      }),
    );
    expectOk(await get(side, `/v25.0/${id}`, side.bluebottleOnly, { fields: 'text,parent_id,media' }), {
      text: `Caption thanks from ${login}`,
      media: { id: world.fixture.media.roasterPost },
      id,
    });
  });

  it.each(HOSTS)('answers a mention made in a reply on the top-level comment ($host)', async ({ login }) => {
    const side = world.side(login);
    const { roasterComment } = world.fixture.comments;
    // fan_two replies to roasterComment and mentions @bluebottle in the reply.
    const mentioning = await world.addComment(
      world.fixture.media.roasterPost,
      world.fixture.accounts.fanTwo,
      `@bluebottle agreed (${login})`,
      { parentId: roasterComment },
    );
    await world.graph.mention(world.fixture.accounts.bluebottle, world.fixture.media.roasterPost, mentioning);
    const id = await created(
      post(side, `/v25.0/${world.fixture.accounts.bluebottle}/mentions`, side.bluebottleOnly, {
        media_id: world.fixture.media.roasterPost,
        comment_id: mentioning,
        message: 'Glad you agree',
      }),
    );
    expectOk(await get(side, `/v25.0/${id}`, side.bluebottleOnly, { fields: 'parent_id' }), { parent_id: roasterComment, id });
  });

  it.each(HOSTS)(
    'refuses a mentions POST without media_id or message, or where the account was not mentioned ($host)',
    async ({ login }) => {
      const side = world.side(login);
      const path = `/v25.0/${world.fixture.accounts.bluebottle}/mentions`;
      const { roasterComment, fanComment } = world.fixture.comments;
      expectGraphError(
        await post(side, path, side.bluebottleOnly, { comment_id: roasterComment, message: 'hi' }),
        missingParameter('media_id'),
      );
      expectGraphError(
        await post(side, path, side.bluebottleOnly, { media_id: world.fixture.media.roasterPost, comment_id: roasterComment }),
        missingParameter('message'),
      );
      expectGraphError(
        await post(side, path, side.bluebottleOnly, { media_id: world.fixture.posts[0], message: 'hi' }),
        invalidParameter('The account was not mentioned in the caption of this media.'),
      );
      expectGraphError(
        await post(side, path, side.bluebottleOnly, { media_id: world.fixture.posts[0], comment_id: fanComment, message: 'hi' }),
        invalidParameter('The account was not mentioned in this comment.'),
      );
    },
  );

  it.each(HOSTS)('refuses a mentions POST for an account the token does not act for: 100/33 post ($host)', async ({ login }) => {
    const side = world.side(login);
    const { bluebottle } = world.fixture.accounts;
    expectGraphError(
      await post(side, `/v25.0/${bluebottle}/mentions`, side.roasterOnly, { media_id: world.fixture.media.roasterPost, message: 'hi' }),
      unsupported('post', bluebottle),
    );
  });

  it.each(HOSTS)('refuses to answer a story mention or a media the account was only tagged in ($host)', async ({ login }) => {
    const side = world.side(login);
    const story = await world.graph.media(world.fixture.accounts.roaster, {
      caption: `Story with @bluebottle (${login})`,
      mediaProductType: 'STORY',
    });
    await world.graph.mention(world.fixture.accounts.bluebottle, story);
    const tagged = await world.graph.media(world.fixture.accounts.roaster, { caption: 'Tagged only' });
    await world.graph.tag(tagged, world.fixture.accounts.bluebottle);
    const path = `/v25.0/${world.fixture.accounts.bluebottle}/mentions`;
    expectGraphError(
      await post(side, path, side.bluebottleOnly, { media_id: story, message: 'hi' }),
      invalidParameter('Story mentions cannot be answered.'),
    );
    expectGraphError(
      await post(side, path, side.bluebottleOnly, { media_id: tagged, message: 'hi' }),
      invalidParameter('The account was not mentioned in the caption of this media.'),
    );
  });

  it('refuses mentioned_comment when comments are disabled on the media, or the comment was deleted', async () => {
    const media = await world.graph.media(world.fixture.accounts.roaster, { caption: 'Quiet post' });
    const closed = await world.addComment(media, world.fixture.accounts.fanOne, 'Hey @bluebottle');
    await world.graph.mention(world.fixture.accounts.bluebottle, media, closed);
    const gone = await world.addComment(media, world.fixture.accounts.fanTwo, 'Bye @bluebottle');
    await world.graph.mention(world.fixture.accounts.bluebottle, media, gone);
    const read = (commentId: string) =>
      get(world.parent, `/v25.0/${world.fixture.accounts.bluebottle}`, world.parent.bluebottleOnly, {
        fields: `mentioned_comment.comment_id(${commentId}){text}`,
      });
    expectOk(await read(closed), { mentioned_comment: { text: 'Hey @bluebottle', id: closed }, id: world.fixture.accounts.bluebottle });
    // roaster's manager (ana) deletes the second comment.
    expectOk(await del(world.parent, `/v25.0/${gone}`, world.parent.roasterOnly), { success: true });
    expectGraphError(await read(gone), unsupported('get', gone));
    await world.setMedia(media, { comment_enabled: false });
    expectGraphError(await read(closed), invalidParameter('Comments are disabled on this media.'));
  });

  it('does not read mentions: GET /{account_id}/mentions is unsupported', async () => {
    const { bluebottle } = world.fixture.accounts;
    expectGraphError(await get(world.parent, `/v25.0/${bluebottle}/mentions`), unsupported('get', bluebottle));
  });
});

// =====================================================================================================================

describe('the commenter’s username needs the comment-management permission (27 August 2024)', () => {
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
    const side = world.side(login);
    const token = await side.mint(basic);
    const media = world.fixture.posts[0]!;
    const list = await get(side, `/v25.0/${media}/comments`, token, { fields: 'text' });
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((c: { text: string }) => c.text)).toEqual(['spam spam', 'Thanks all', 'Where is this?', 'Love this!']);
    expectGraphError(await get(side, `/v25.0/${media}/comments`, token, { fields: 'username' }), missingPermission(gate));
    expectGraphError(await get(side, `/v25.0/${media}/comments`, token, { fields: 'text,from' }), missingPermission(gate));
    // With the permission, the username is there.
    const allowed = await get(side, `/v25.0/${media}/comments`, await side.mint([...basic, gate]), { fields: 'username' });
    expect(allowed.body.data.map((c: { username: string }) => c.username)).toEqual(['fan_two', 'bluebottle', 'fan_two', 'fan_one']);
  });

  it.each(cases)('refuses the comment node itself without it ($host)', async ({ login, basic, gate }) => {
    const side = world.side(login);
    const token = await side.mint(basic);
    expectGraphError(await get(side, `/v25.0/${world.fixture.comments.fanComment}`, token), missingPermission(gate));
    expectGraphError(
      await get(side, `/v25.0/${world.fixture.comments.ownerComment}`, token, { fields: 'username' }),
      missingPermission(gate),
    );
  });
});

// =====================================================================================================================

interface Operation {
  name: string;
  /** Required permissions on the own-login host (null: the operation does not exist there). */
  own: readonly string[] | null;
  parent: readonly string[];
  /** Sends the operation to `thread` (the comment operations) or to the fixture's mention (the mention operations). */
  send(side: Side, token: string | null, thread: CommentThread): Promise<RestReply>;
}

/** The comment operations and their permissions, from reference §1.6, §1.8, §2.2 and §4. */
const OPERATIONS: Operation[] = [
  {
    name: 'GET /{comment_id}',
    own: ['social_business_basic', 'social_business_manage_comments'],
    parent: ['social_basic', 'social_manage_comments', 'pages_read_engagement'],
    send: (side, token, thread) => get(side, `/v25.0/${thread.fanComment}`, token),
  },
  {
    name: 'GET /{comment_id}/replies',
    own: ['social_business_basic', 'social_business_manage_comments'],
    parent: ['social_basic', 'social_manage_comments', 'pages_show_list', 'pages_read_engagement'],
    send: (side, token, thread) => get(side, `/v25.0/${thread.fanComment}/replies`, token),
  },
  {
    name: 'POST /{comment_id}/replies',
    own: ['social_business_basic', 'social_business_manage_comments'],
    parent: ['social_basic', 'social_manage_comments', 'pages_show_list', 'pages_read_engagement'],
    send: (side, token, thread) => post(side, `/v25.0/${thread.fanTwoComment}/replies`, token, { message: 'matrix reply' }),
  },
  {
    name: 'POST /{comment_id}?hide=',
    own: ['social_business_basic', 'social_business_manage_comments'],
    parent: ['social_basic', 'social_manage_comments', 'pages_read_engagement'],
    send: (side, token, thread) => post(side, `/v25.0/${thread.fanTwoComment}`, token, { hide: 'false' }),
  },
  {
    name: 'DELETE /{comment_id}',
    own: ['social_business_basic', 'social_business_manage_comments'],
    parent: ['social_basic', 'social_manage_comments', 'pages_read_engagement'],
    send: async (side, token, thread) =>
      del(side, `/v25.0/${await world.addComment(thread.post, world.fixture.accounts.fanOne, 'delete me')}`, token),
  },
  {
    name: 'GET /{media_id}/comments',
    own: ['social_business_basic'],
    parent: ['social_basic', 'pages_read_engagement'],
    send: (side, token, thread) => get(side, `/v25.0/${thread.post}/comments`, token),
  },
  {
    name: 'POST /{account_id}/mentions',
    own: ['social_business_basic', 'social_business_manage_comments'],
    parent: ['social_basic', 'social_manage_comments', 'pages_read_engagement', 'pages_show_list'],
    send: (side, token) =>
      post(side, `/v25.0/${world.fixture.accounts.bluebottle}/mentions`, token, {
        media_id: world.fixture.media.roasterPost,
        comment_id: world.fixture.comments.roasterComment,
        message: 'matrix mention',
      }),
  },
  {
    name: 'GET /{account_id}?fields=mentioned_comment…',
    own: null,
    parent: ['social_basic', 'social_manage_comments', 'pages_read_engagement', 'pages_show_list'],
    send: (side, token) =>
      get(side, `/v25.0/${world.fixture.accounts.bluebottle}`, token, {
        fields: `mentioned_comment.comment_id(${world.fixture.comments.roasterComment}){id}`,
      }),
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
  /** The operations that change a comment (reply, hide) do it on a thread of the matrix's own. */
  let thread: CommentThread;
  beforeAll(async () => {
    thread = await world.newCommentThread();
  });

  const missingCases = MATRIX.flatMap(({ host, login, op, required }) =>
    required.map((permission) => ({ name: op.name, host, login, op, required, permission })),
  );

  it.each(missingCases)(
    '$name on the $host without $permission: (#200) Requires extended permission: $permission',
    async ({ login, op, permission }) => {
      const side = world.side(login);
      const token = await side.mint(side.permissions.filter((p) => p !== permission));
      expectGraphError(await op.send(side, token, thread), missingPermission(permission));
    },
  );

  it.each(MATRIX)('$op.name on the $host succeeds with exactly its permissions', async ({ login, op, required }) => {
    const side = world.side(login);
    const reply = await op.send(side, await side.mint(required), thread);
    expect(reply.status, reply.text).toBe(200);
  });

  const parentCases = MATRIX.filter((c) => c.login === 'parent');

  it.each(parentCases)('$op.name with a business-manager page role needs ads_management or ads_read', async ({ op }) => {
    expectGraphError(await op.send(world.parent, world.fixture.tokens.bmWithoutAds, thread), missingPermission('ads_read'));
    const withAdsRead = await world.fixture.token(
      'parent',
      world.fixture.platformUsers.bm,
      PARENT_PERMISSIONS.filter((p) => p !== 'ads_management'),
    );
    const reply = await op.send(world.parent, withAdsRead, thread);
    expect(reply.status, reply.text).toBe(200);
  });

  it.each(MATRIX)('$op.name on the $host without a token: 104', async ({ login, op }) => {
    expectGraphError(await op.send(world.side(login), null, thread), noToken);
  });

  it.each(MATRIX)('$op.name on the $host with a garbage or unknown token: 190', async ({ login, op }) => {
    const side = world.side(login);
    expectGraphError(await op.send(side, 'garbage', thread), unparsableToken);
    const unknown = `${login === 'own' ? 'SBA' : 'EAA'}${'A'.repeat(43)}`;
    expectGraphError(await op.send(side, unknown, thread), unparsableToken);
  });

  it.each(MATRIX)('$op.name on the $host with a token of the other login type: 190 Cannot parse access token', async ({ login, op }) => {
    const side = world.side(login);
    expectGraphError(await op.send(side, side.otherLogin, thread), unparsableToken);
  });

  it.each(MATRIX)('$op.name on the $host with an expired token: 190/463', async ({ login, op }) => {
    const side = world.side(login);
    expectGraphError(await op.send(side, side.expired, thread), EXPIRED);
  });

  it.each(MATRIX)('$op.name on the $host with a revoked token: 190/467', async ({ login, op }) => {
    const side = world.side(login);
    expectGraphError(await op.send(side, side.revoked, thread), revokedToken);
  });
});
