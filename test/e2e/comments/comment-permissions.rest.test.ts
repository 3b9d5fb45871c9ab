import { beforeAll, describe, expect, it } from 'vitest';
import { expectGraphError, missingPermission, noToken, revokedToken, unparsableToken } from '../../support/graph-error-expectations.ts';
import type { RestReply } from '../../support/rest-client.ts';
import { PARENT_PERMISSIONS, type CommentThread } from '../../support/social-fixture.ts';
import { type CommentsWorld, del, EXPIRED, get, HOSTS, post, type Side, useCommentsWorld } from '../../support/comments-rest-world.ts';

/**
 * Area B over the Graph-style REST paths (test/support/comments-rest-world.ts): The permissions and tokens of every comment
 * operation, on both hosts.
 */

const commentsWorld = useCommentsWorld();
let world: CommentsWorld;
beforeAll(() => {
  world = commentsWorld();
});

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
