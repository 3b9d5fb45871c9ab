import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { socialId } from '../../../lib/social-graph/social-ids.ts';
import { createSocialTokens } from '../../../subgraphs/index.ts';
import type { MediaInput } from '../../../subgraphs/shared/social-graph/social-graph-builder.ts';
import { graphqlErrors, type ExpectedGraphqlError } from '../../support/graph-error-expectations.ts';
import { createGraphqlClient, type GraphqlClient, type GraphqlReply } from '../../support/graphql-client.ts';
import {
  PARENT_PERMISSIONS,
  useSocialWorld,
  type CommentThread,
  type SocialFixture,
  type SocialTestWorld,
} from '../../support/social-fixture.ts';
import type { TestSystem } from '../../support/test-system.ts';

/**
 * Front-door tests of Area B (comments) through the gateway's GraphQL endpoint, in both gateway modes (embedded: the
 * subgraphs in the gateway's process; distributed: each subgraph behind its own HTTP server). The token travels as
 * `Authorization: Bearer <token>`; with no host to go by, the token's own login type decides the rules. Errors are
 * checked whole: message, path and extensions (`code`, `reason` and the reason's data, `serviceName`).
 *
 * The social graph's clock is driven by the test (`current`).
 *
 * Each topology's system holds one world, built once (useSocialWorld): the shared fixture plus a few objects the rules
 * need. Tests that change comments (hide, delete, reply) take a thread of their own (newCommentThread: post[0]'s comments
 * on a new post), tests that fill or close a media object a new post or live video, so that every test also sees the
 * fixture's comments as the fixture describes them.
 */

const T0 = Date.parse('2026-11-02T10:00:00.000Z');
let current = T0;
const clock = () => new Date(current);
// A test that moves the clock and fails half-way must not move it for the next one.
afterEach(() => {
  current = T0;
});

/** A fixture timestamp as the DateTime scalar writes it. */
const at = (hour: number) => `2026-11-01T${String(hour).padStart(2, '0')}:00:00.000Z`;

/** The comments subgraph's errors as the gateway passes them on. */
const ERR = graphqlErrors('comments');

/** The errors of a reply, each reduced to message, path and extensions (locations vary by gateway mode). */
function errorsOf(reply: GraphqlReply): ExpectedGraphqlError[] {
  expect(reply.errors, reply.text).toBeDefined();
  return reply.errors!.map((error) => ({ message: error.message, path: error.path!, extensions: error.extensions! }));
}

function expectData(reply: GraphqlReply, data: unknown): void {
  expect(reply.status, reply.text).toBe(200);
  expect(reply.errors, reply.text).toBeUndefined();
  expect(reply.data).toEqual(data);
}

function expectErrors(reply: GraphqlReply, data: unknown, errors: ExpectedGraphqlError[]): void {
  expect(reply.status, reply.text).toBe(200);
  expect(reply.data).toEqual(data);
  expect(errorsOf(reply)).toEqual(errors);
}

const ALL_FIELDS = `id text timestamp from { id username } hidden likeCount media { id } parentId user { id } username legacySocialCommentId`;
const COMMENT = `query Comment($id: ID!) { comment(id: $id) { ${ALL_FIELDS} } }`;
const PAGE_INFO = 'pageInfo { startCursor endCursor hasNextPage hasPreviousPage }';
const HIDE = `mutation Hide($id: ID!, $hide: Boolean) { hideComment(id: $id, hide: $hide) { success } }`;
const DELETE = `mutation Delete($id: ID!) { deleteComment(id: $id) { success } }`;
const REPLY = `mutation Reply($id: ID!, $message: String) { replyToComment(id: $id, message: $message) { ${ALL_FIELDS} } }`;
const CREATE = `mutation Create($mediaId: ID!, $message: String) { createMediaComment(mediaId: $mediaId, message: $message) { ${ALL_FIELDS} } }`;
const MENTION = `mutation Mention($accountId: ID!, $mediaId: ID, $commentId: ID, $message: String) {
  replyToMention(accountId: $accountId, mediaId: $mediaId, commentId: $commentId, message: $message) { id text parentId media { id } user { id } }
}`;
const MENTIONED = `query Mentioned($account: ID!, $comment: ID) {
  account(id: $account) { id mentionedComment(commentId: $comment) { id text timestamp likeCount media { id } } }
}`;
const MEDIA_COMMENTS = `query MediaComments($id: ID!, $first: Int, $after: String) {
  media(id: $id) { id comments(first: $first, after: $after) { nodes { id text } ${PAGE_INFO} } }
}`;

interface World {
  system: TestSystem;
  fixture: SocialFixture;
  gql: GraphqlClient;
  /** bm with every permission: acts for bluebottle only. */
  bmFull: string;
  /** A parent-platform user with a role on roaster's page only. */
  rita: string;
  /** bluebottle's comment on roaster's post (bluebottle its author, roaster the media owner). */
  blueOnRoaster: string;
  addComment(
    mediaId: string,
    authorId: string,
    text: string,
    options?: { parentId?: string; hidden?: boolean; timestamp?: Date },
  ): Promise<string>;
  /** The comment as the bluebottle own-login token reads it (all fields). */
  read(id: string): Promise<GraphqlReply>;
  /** post[0]'s comments again on a new post of bluebottle's: for tests that hide, delete or reply to them. */
  newCommentThread(): Promise<CommentThread>;
  /** A new post of bluebottle's, for a test that fills it with comments or closes it. */
  newPost(input?: MediaInput): Promise<string>;
  setMedia(mediaId: string, values: { live_ended_at?: Date | null }): Promise<void>;
}

/** The world of one system: the fixture, rita (a role on roaster's page) and the objects the rules need. */
async function buildWorld(base: SocialTestWorld): Promise<World> {
  const { system, fixture, graph } = base;
  const ritaId = await graph.platformUser('Rita Roaster');
  await graph.pageRole(fixture.pages.roaster, ritaId);
  const gql = createGraphqlClient(system.gatewayUrl);
  const addComment: World['addComment'] = (mediaId, authorId, text, options = {}) =>
    graph.comment(mediaId, authorId, {
      text,
      parentId: options.parentId ?? null,
      hidden: options.hidden ?? false,
      timestamp: options.timestamp ?? new Date('2026-11-01T21:00:00Z'),
    });
  return {
    system,
    fixture,
    gql,
    bmFull: await fixture.token('parent', fixture.platformUsers.bm, PARENT_PERMISSIONS),
    rita: await fixture.token('parent', ritaId, PARENT_PERMISSIONS),
    blueOnRoaster: await addComment(fixture.media.roasterPost, fixture.accounts.bluebottle, 'Great beans', {
      timestamp: new Date('2026-11-01T20:00:00Z'),
    }),
    addComment,
    read: (id) => gql.request(COMMENT, { variables: { id }, token: fixture.tokens.own }),
    newCommentThread: () => fixture.newCommentThread(),
    newPost: (input) => base.newPost(input),
    setMedia: (mediaId, values) => base.setMedia(mediaId, values),
  };
}

const MODES = [
  { mode: 'embedded gateway', distributed: false },
  { mode: 'distributed gateway (subgraphs over HTTP)', distributed: true },
];

describe.each(MODES)('GraphQL Area B through the $mode', ({ distributed }) => {
  const socialWorld = useSocialWorld({ now: clock, distributed });
  let world: World;
  beforeAll(async () => {
    world = await buildWorld(socialWorld());
  });

  // ===================================================================================================================

  describe('Query.comment', () => {
    it('reads every field of a fan’s comment with the own-login token', async () => {
      const { fanComment } = world.fixture.comments;
      expectData(await world.read(fanComment), {
        comment: {
          id: fanComment,
          text: 'Love this!',
          timestamp: at(13),
          from: { id: world.fixture.accounts.fanOne, username: 'fan_one' },
          hidden: false,
          likeCount: 3,
          media: { id: world.fixture.posts[0] },
          parentId: null,
          user: null,
          username: 'fan_one',
          legacySocialCommentId: '9001',
        },
      });
    });

    it('reads the same comment with the parent-platform token', async () => {
      const { fanComment } = world.fixture.comments;
      const reply = await world.gql.request(COMMENT, { variables: { id: fanComment }, token: world.fixture.tokens.parent });
      expectData(reply, (await world.read(fanComment)).data);
    });

    it('gives user only for the app user’s own comment, and parentId only on replies', async () => {
      const { ownerComment, fanReply, fanComment } = world.fixture.comments;
      const own = await world.gql.request(`query($id: ID!) { comment(id: $id) { user { id } username parentId } }`, {
        variables: { id: ownerComment },
        token: world.fixture.tokens.own,
      });
      expectData(own, { comment: { user: { id: world.fixture.accounts.bluebottle }, username: 'bluebottle', parentId: null } });
      const reply = await world.gql.request(`query($id: ID!) { comment(id: $id) { user { id } username parentId hidden } }`, {
        variables: { id: fanReply },
        token: world.fixture.tokens.parent,
      });
      expectData(reply, { comment: { user: null, username: 'fan_two', parentId: fanComment, hidden: false } });
    });

    it('resolves media across subgraphs: comment { media { owner { username } commentsCount } }', async () => {
      const query = `query($id: ID!) { comment(id: $id) { id media { id caption owner { id username } commentsCount } } }`;
      for (const token of [world.fixture.tokens.own, world.fixture.tokens.parent]) {
        expectData(await world.gql.request(query, { variables: { id: world.fixture.comments.fanComment }, token }), {
          comment: {
            id: world.fixture.comments.fanComment,
            media: {
              id: world.fixture.posts[0],
              caption: 'Post 0 #coffee',
              owner: { id: world.fixture.accounts.bluebottle, username: 'bluebottle' },
              commentsCount: 6,
            },
          },
        });
      }
    });

    it('pages replies oldest first with first, after and before', async () => {
      const { fanComment, ownerReply, fanReply } = world.fixture.comments;
      const query = `query($id: ID!, $first: Int, $after: String, $before: String) {
        comment(id: $id) { replies(first: $first, after: $after, before: $before) { nodes { id text timestamp parentId } ${PAGE_INFO} } }
      }`;
      const all = await world.gql.request(query, { variables: { id: fanComment }, token: world.fixture.tokens.own });
      expectData(all, {
        comment: {
          replies: {
            nodes: [
              { id: ownerReply, text: 'Thank you!', timestamp: at(17), parentId: fanComment },
              { id: fanReply, text: 'Me too', timestamp: at(18), parentId: fanComment },
            ],
            pageInfo: { startCursor: expect.any(String), endCursor: expect.any(String), hasNextPage: false, hasPreviousPage: false },
          },
        },
      });
      const first = await world.gql.request(query, { variables: { id: fanComment, first: 1 }, token: world.fixture.tokens.own });
      expect(first.data.comment.replies.nodes.map((n: { id: string }) => n.id)).toEqual([ownerReply]);
      expect(first.data.comment.replies.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
      const second = await world.gql.request(query, {
        variables: { id: fanComment, first: 1, after: first.data.comment.replies.pageInfo.endCursor },
        token: world.fixture.tokens.own,
      });
      expect(second.data.comment.replies.nodes.map((n: { id: string }) => n.id)).toEqual([fanReply]);
      expect(second.data.comment.replies.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
      const back = await world.gql.request(query, {
        variables: { id: fanComment, first: 1, before: second.data.comment.replies.pageInfo.startCursor },
        token: world.fixture.tokens.own,
      });
      expect(back.data.comment.replies.nodes.map((n: { id: string }) => n.id)).toEqual([ownerReply]);
    });

    it('lists a media object’s top-level comments newest first', async () => {
      const { fanComment, fanTwoComment, ownerComment, hiddenComment } = world.fixture.comments;
      const reply = await world.gql.request(MEDIA_COMMENTS, {
        variables: { id: world.fixture.posts[0] },
        token: world.fixture.tokens.parent,
      });
      expectData(reply, {
        media: {
          id: world.fixture.posts[0],
          comments: {
            nodes: [
              { id: hiddenComment, text: 'spam spam' },
              { id: ownerComment, text: 'Thanks all' },
              { id: fanTwoComment, text: 'Where is this?' },
              { id: fanComment, text: 'Love this!' },
            ],
            pageInfo: { startCursor: expect.any(String), endCursor: expect.any(String), hasNextPage: false, hasPreviousPage: false },
          },
        },
      });
    });

    it('serves at most 50 media comments per page, even when asked for 100', async () => {
      const media = await world.newPost();
      const ids: string[] = [];
      for (let i = 0; i < 55; i++) {
        ids.unshift(
          await world.addComment(media, world.fixture.accounts.fanOne, `c${i}`, { timestamp: new Date(Date.UTC(2026, 9, 1, 0, i)) }),
        );
      }
      const first = await world.gql.request(MEDIA_COMMENTS, { variables: { id: media, first: 100 }, token: world.fixture.tokens.own });
      expect(first.errors, first.text).toBeUndefined();
      expect(first.data.media.comments.nodes.map((n: { id: string }) => n.id)).toEqual(ids.slice(0, 50));
      expect(first.data.media.comments.pageInfo.hasNextPage).toBe(true);
      const second = await world.gql.request(MEDIA_COMMENTS, {
        variables: { id: media, first: 100, after: first.data.media.comments.pageInfo.endCursor },
        token: world.fixture.tokens.own,
      });
      expect(second.data.media.comments.nodes.map((n: { id: string }) => n.id)).toEqual(ids.slice(50));
      expect(second.data.media.comments.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    });

    it('reads a comment that @mentions the account through Account.mentionedComment (parent-platform token)', async () => {
      const { roasterComment } = world.fixture.comments;
      const reply = await world.gql.request(MENTIONED, {
        variables: { account: world.fixture.accounts.bluebottle, comment: roasterComment },
        token: world.bmFull,
      });
      expectData(reply, {
        account: {
          id: world.fixture.accounts.bluebottle,
          mentionedComment: {
            id: roasterComment,
            text: 'Ask @bluebottle',
            timestamp: at(13),
            likeCount: 0,
            media: { id: world.fixture.media.roasterPost },
          },
        },
      });
    });

    it('refuses mentionedComment to an own-login token as an unknown field', async () => {
      const reply = await world.gql.request(MENTIONED, {
        variables: { account: world.fixture.accounts.bluebottle, comment: world.fixture.comments.roasterComment },
        token: world.fixture.tokens.own,
      });
      expectErrors(reply, { account: { id: world.fixture.accounts.bluebottle, mentionedComment: null } }, [
        ERR.unknownField(['account', 'mentionedComment'], 'mentioned_comment'),
      ]);
    });

    it('refuses mentionedComment without commentId, or for a comment that does not mention the account', async () => {
      const missing = await world.gql.request(MENTIONED, {
        variables: { account: world.fixture.accounts.bluebottle },
        token: world.fixture.tokens.parent,
      });
      expectErrors(missing, { account: { id: world.fixture.accounts.bluebottle, mentionedComment: null } }, [
        ERR.missingParameter(['account', 'mentionedComment'], 'comment_id'),
      ]);
      const { fanComment } = world.fixture.comments;
      const other = await world.gql.request(MENTIONED, {
        variables: { account: world.fixture.accounts.bluebottle, comment: fanComment },
        token: world.fixture.tokens.parent,
      });
      expectErrors(other, { account: { id: world.fixture.accounts.bluebottle, mentionedComment: null } }, [
        ERR.unknownObject(['account', 'mentionedComment'], 'get', fanComment),
      ]);
    });

    describe('comments the token may not read: UNKNOWN_OBJECT (NOT_FOUND)', () => {
      it('an unknown id and a malformed id', async () => {
        const unknown = socialId('comment', 9_999_999n);
        expectErrors(await world.read(unknown), { comment: null }, [ERR.unknownObject(['comment'], 'get', unknown)]);
        expectErrors(await world.read('not-an-id'), { comment: null }, [ERR.unknownObject(['comment'], 'get', 'not-an-id')]);
        // An id of another kind (an account) is not a comment.
        const account = world.fixture.accounts.bluebottle;
        expectErrors(await world.read(account), { comment: null }, [ERR.unknownObject(['comment'], 'get', account)]);
      });

      it('a comment on age-gated media of another account', async () => {
        const { shadyComment } = world.fixture.comments;
        expectErrors(await world.read(shadyComment), { comment: null }, [ERR.unknownObject(['comment'], 'get', shadyComment)]);
      });

      it('a comment on media of an account the token does not act for', async () => {
        const { fanComment } = world.fixture.comments;
        for (const token of [world.fixture.tokens.roasterOwn, world.rita, world.fixture.tokens.stranger]) {
          const reply = await world.gql.request(COMMENT, { variables: { id: fanComment }, token });
          expectErrors(reply, { comment: null }, [ERR.unknownObject(['comment'], 'get', fanComment)]);
        }
      });

      it('a comment that @mentions the account, read directly', async () => {
        const { roasterComment } = world.fixture.comments;
        for (const token of [world.fixture.tokens.own, world.bmFull]) {
          const reply = await world.gql.request(COMMENT, { variables: { id: roasterComment }, token });
          expectErrors(reply, { comment: null }, [ERR.unknownObject(['comment'], 'get', roasterComment)]);
        }
      });
    });
  });

  // ===================================================================================================================

  describe('tokens and permissions', () => {
    let expiredParent: string;
    let revokedParent: string;
    beforeAll(async () => {
      const tokens = createSocialTokens(world.system.database, clock);
      const past = createSocialTokens(world.system.database, () => new Date(clock().getTime() - 2 * 3_600_000));
      expiredParent = await past.issue({
        loginType: 'parent',
        subjectId: world.fixture.platformUsers.ana,
        permissions: PARENT_PERMISSIONS,
        expiresInSeconds: 3600,
      });
      revokedParent = await tokens.issue({
        loginType: 'parent',
        subjectId: world.fixture.platformUsers.ana,
        permissions: PARENT_PERMISSIONS,
        expiresInSeconds: 3600,
      });
      await tokens.revoke(revokedParent);
    });

    it('refuses a request without a token: NO_TOKEN', async () => {
      const reply = await world.gql.request(COMMENT, { variables: { id: world.fixture.comments.fanComment } });
      expectErrors(reply, { comment: null }, [ERR.noToken(['comment'])]);
    });

    it('refuses a garbage or unknown token: TOKEN_UNPARSABLE', async () => {
      for (const token of ['garbage', `SBA${'A'.repeat(43)}`, `EAA${'A'.repeat(43)}`]) {
        const reply = await world.gql.request(COMMENT, { variables: { id: world.fixture.comments.fanComment }, token });
        expectErrors(reply, { comment: null }, [ERR.unparsableToken(['comment'])]);
      }
    });

    it('refuses expired tokens of both login types: TOKEN_EXPIRED with both instants', async () => {
      for (const token of [world.fixture.tokens.expired, expiredParent]) {
        const reply = await world.gql.request(COMMENT, { variables: { id: world.fixture.comments.fanComment }, token });
        // Issued two hours before T0 for one hour: expired at 09:00, an hour before the clock's 10:00.
        expectErrors(reply, { comment: null }, [
          ERR.expiredToken(['comment'], new Date('2026-11-02T09:00:00.000Z'), new Date('2026-11-02T10:00:00.000Z')),
        ]);
      }
    });

    it('refuses revoked tokens of both login types: TOKEN_REVOKED', async () => {
      for (const token of [world.fixture.tokens.revoked, revokedParent]) {
        const reply = await world.gql.request(COMMENT, { variables: { id: world.fixture.comments.fanComment }, token });
        expectErrors(reply, { comment: null }, [ERR.revokedToken(['comment'])]);
      }
    });

    it('refuses a token of the other login type when the request names the host (X-Social-Host): WRONG_HOST', async () => {
      const reply = await world.gql.request(COMMENT, {
        variables: { id: world.fixture.comments.fanComment },
        token: world.fixture.tokens.parent,
        headers: { 'x-social-host': 'own' },
      });
      expectErrors(reply, { comment: null }, [ERR.wrongHost(['comment'])]);
    });

    it('refuses a business-manager page role without ads_management or ads_read', async () => {
      const reply = await world.gql.request(COMMENT, {
        variables: { id: world.fixture.comments.fanComment },
        token: world.fixture.tokens.bmWithoutAds,
      });
      expectErrors(reply, { comment: null }, [ERR.missingPermission(['comment'], 'ads_read')]);
      const hide = await world.gql.request(HIDE, {
        variables: { id: world.fixture.comments.fanComment, hide: false },
        token: world.fixture.tokens.bmWithoutAds,
      });
      expectErrors(hide, null, [ERR.missingPermission(['hideComment'], 'ads_read')]);
    });

    it('needs the comment-management permission for the comment node and for commenters’ usernames', async () => {
      const own = await world.fixture.token('own', world.fixture.accounts.bluebottle, ['social_business_basic']);
      const parent = await world.fixture.token('parent', world.fixture.platformUsers.ana, [
        'social_basic',
        'pages_read_engagement',
        'pages_show_list',
      ]);
      for (const [token, permission] of [
        [own, 'social_business_manage_comments'],
        [parent, 'social_manage_comments'],
      ] as const) {
        expectErrors(await world.gql.request(COMMENT, { variables: { id: world.fixture.comments.fanComment }, token }), { comment: null }, [
          ERR.missingPermission(['comment'], permission),
        ]);
        const texts = await world.gql.request(MEDIA_COMMENTS, { variables: { id: world.fixture.posts[0], first: 1 }, token });
        expect(texts.errors, texts.text).toBeUndefined();
        expect(texts.data.media.comments.nodes).toEqual([{ id: world.fixture.comments.hiddenComment, text: 'spam spam' }]);
        const usernames = await world.gql.request(`query($id: ID!) { media(id: $id) { comments(first: 1) { nodes { id username } } } }`, {
          variables: { id: world.fixture.posts[0] },
          token,
        });
        expect(errorsOf(usernames)).toEqual([ERR.missingPermission(['media', 'comments', 'nodes', 0, 'username'], permission)]);
      }
    });

    it('names the missing permission of each mutation', async () => {
      const token = await world.fixture.token('own', world.fixture.accounts.bluebottle, ['social_business_basic']);
      const gate = 'social_business_manage_comments';
      const { fanTwoComment } = world.fixture.comments;
      expectErrors(await world.gql.request(HIDE, { variables: { id: fanTwoComment, hide: true }, token }), null, [
        ERR.missingPermission(['hideComment'], gate),
      ]);
      expectErrors(await world.gql.request(DELETE, { variables: { id: fanTwoComment }, token }), null, [
        ERR.missingPermission(['deleteComment'], gate),
      ]);
      expectErrors(await world.gql.request(REPLY, { variables: { id: fanTwoComment, message: 'x' }, token }), null, [
        ERR.missingPermission(['replyToComment'], gate),
      ]);
      const mention = await world.gql.request(MENTION, {
        variables: { accountId: world.fixture.accounts.bluebottle, mediaId: world.fixture.media.roasterPost, message: 'x' },
        token,
      });
      expectErrors(mention, null, [ERR.missingPermission(['replyToMention'], gate)]);
      const noShowList = await world.fixture.token(
        'parent',
        world.fixture.platformUsers.ana,
        PARENT_PERMISSIONS.filter((p) => p !== 'pages_show_list'),
      );
      expectErrors(await world.gql.request(REPLY, { variables: { id: fanTwoComment, message: 'x' }, token: noShowList }), null, [
        ERR.missingPermission(['replyToComment'], 'pages_show_list'),
      ]);
      // Nothing happened.
      expect((await world.read(fanTwoComment)).data.comment.hidden).toBe(false);
    });
  });

  // ===================================================================================================================

  describe('Mutation.hideComment and deleteComment', () => {
    /** This block's own copy of post[0]'s comments, and its own comment of bluebottle's on roaster's post: it hides and deletes them. */
    let thread: CommentThread;
    let blueOnRoaster: string;
    beforeAll(async () => {
      thread = await world.newCommentThread();
      blueOnRoaster = await world.addComment(world.fixture.media.roasterPost, world.fixture.accounts.bluebottle, 'Great beans', {
        timestamp: new Date('2026-11-01T20:00:00Z'),
      });
    });

    it('hides and shows a comment of the owner’s media (own and parent tokens)', async () => {
      const { fanTwoComment } = thread;
      for (const token of [world.fixture.tokens.own, world.fixture.tokens.parent]) {
        expectData(await world.gql.request(HIDE, { variables: { id: fanTwoComment, hide: true }, token }), {
          hideComment: { success: true },
        });
        expect((await world.read(fanTwoComment)).data.comment.hidden).toBe(true);
        expectData(await world.gql.request(HIDE, { variables: { id: fanTwoComment, hide: false }, token }), {
          hideComment: { success: true },
        });
        expect((await world.read(fanTwoComment)).data.comment.hidden).toBe(false);
      }
    });

    it('hides a reply; leaves the owner’s own comment shown', async () => {
      const { fanReply, ownerComment } = thread;
      expectData(await world.gql.request(HIDE, { variables: { id: fanReply, hide: true }, token: world.fixture.tokens.own }), {
        hideComment: { success: true },
      });
      expect((await world.read(fanReply)).data.comment.hidden).toBe(true);
      expectData(await world.gql.request(HIDE, { variables: { id: ownerComment, hide: true }, token: world.fixture.tokens.own }), {
        hideComment: { success: true },
      });
      expect((await world.read(ownerComment)).data.comment.hidden).toBe(false);
    });

    it('requires hide', async () => {
      const reply = await world.gql.request(`mutation($id: ID!) { hideComment(id: $id) { success } }`, {
        variables: { id: thread.fanComment },
        token: world.fixture.tokens.own,
      });
      expectErrors(reply, null, [ERR.missingParameter(['hideComment'], 'hide')]);
    });

    it('refuses the author who does not own the media (NOT_ALLOWED), and tokens that do not see the comment (UNKNOWN_OBJECT)', async () => {
      for (const token of [world.fixture.tokens.own, world.bmFull]) {
        expectErrors(await world.gql.request(HIDE, { variables: { id: blueOnRoaster, hide: true }, token }), null, [
          ERR.notAllowed(['hideComment']),
        ]);
      }
      const { fanComment } = thread;
      for (const token of [world.fixture.tokens.roasterOwn, world.fixture.tokens.stranger]) {
        expectErrors(await world.gql.request(HIDE, { variables: { id: fanComment, hide: true }, token }), null, [
          ERR.unknownObject(['hideComment'], 'post', fanComment),
        ]);
      }
    });

    it('refuses to hide or delete a comment on a live video', async () => {
      const { liveComment } = world.fixture.comments;
      expectErrors(await world.gql.request(HIDE, { variables: { id: liveComment, hide: true }, token: world.fixture.tokens.own }), null, [
        ERR.unknownObject(['hideComment'], 'post', liveComment),
      ]);
      expectErrors(await world.gql.request(DELETE, { variables: { id: liveComment }, token: world.fixture.tokens.parent }), null, [
        ERR.unknownObject(['deleteComment'], 'delete', liveComment),
      ]);
    });

    it('lets the media owner delete a comment with its replies', async () => {
      const { fanComment, fanReply, ownerReply } = thread;
      expectData(await world.gql.request(DELETE, { variables: { id: fanComment }, token: world.fixture.tokens.parent }), {
        deleteComment: { success: true },
      });
      for (const id of [fanComment, fanReply, ownerReply]) {
        expectErrors(await world.read(id), { comment: null }, [ERR.unknownObject(['comment'], 'get', id)]);
      }
      expectErrors(await world.gql.request(DELETE, { variables: { id: fanComment }, token: world.fixture.tokens.own }), null, [
        ERR.unknownObject(['deleteComment'], 'delete', fanComment),
      ]);
      const count = await world.gql.request(`query($id: ID!) { media(id: $id) { commentsCount } }`, {
        variables: { id: thread.post },
        token: world.fixture.tokens.own,
      });
      expectData(count, { media: { commentsCount: 3 } });
    });

    it('lets the author delete its own comment on another account’s media', async () => {
      const mine = await world.addComment(world.fixture.media.roasterPost, world.fixture.accounts.bluebottle, 'mine');
      expectData(await world.gql.request(DELETE, { variables: { id: mine }, token: world.fixture.tokens.own }), {
        deleteComment: { success: true },
      });
      expectErrors(await world.read(mine), { comment: null }, [ERR.unknownObject(['comment'], 'get', mine)]);
      expectData(await world.gql.request(DELETE, { variables: { id: blueOnRoaster }, token: world.bmFull }), {
        deleteComment: { success: true },
      });
    });

    it('refuses a delete by a token acting for neither author nor media owner', async () => {
      const { fanTwoComment } = thread;
      for (const token of [world.fixture.tokens.roasterOwn, world.fixture.tokens.stranger, world.rita]) {
        expectErrors(await world.gql.request(DELETE, { variables: { id: fanTwoComment }, token }), null, [
          ERR.unknownObject(['deleteComment'], 'delete', fanTwoComment),
        ]);
      }
      expect((await world.read(fanTwoComment)).data.comment.text).toBe('Where is this?');
    });
  });

  // ===================================================================================================================

  describe('Mutation.replyToComment, createMediaComment and replyToMention', () => {
    /** This block's own copy of post[0]'s comments: it replies to them. */
    let thread: CommentThread;
    beforeAll(async () => {
      thread = await world.newCommentThread();
    });

    it('replies to a comment as the media owner', async () => {
      const { fanTwoComment } = thread;
      current = T0 + 60_000;
      const reply = await world.gql.request(REPLY, {
        variables: { id: fanTwoComment, message: 'In Oakland' },
        token: world.fixture.tokens.parent,
      });
      current = T0;
      expect(reply.errors, reply.text).toBeUndefined();
      const id = reply.data.replyToComment.id as string;
      expect(reply.data).toEqual({
        replyToComment: {
          id: expect.stringMatching(/^\d+$/),
          text: 'In Oakland',
          timestamp: '2026-11-02T10:01:00.000Z',
          from: { id: world.fixture.accounts.bluebottle, username: 'bluebottle' },
          hidden: false,
          likeCount: 0,
          media: { id: thread.post },
          parentId: fanTwoComment,
          user: { id: world.fixture.accounts.bluebottle },
          username: 'bluebottle',
          legacySocialCommentId: id,
        },
      });
      expectData(await world.read(id), { comment: reply.data.replyToComment });
    });

    it('attaches a reply to a reply to the top-level comment', async () => {
      const { fanReply, fanComment } = thread;
      const reply = await world.gql.request(REPLY, { variables: { id: fanReply, message: 'Nested' }, token: world.fixture.tokens.own });
      expect(reply.errors, reply.text).toBeUndefined();
      expect(reply.data.replyToComment).toMatchObject({ text: 'Nested', parentId: fanComment });
    });

    it('refuses replies to hidden comments, replies without message, and replies by a non-owner', async () => {
      expectErrors(
        await world.gql.request(REPLY, { variables: { id: thread.hiddenComment, message: 'x' }, token: world.fixture.tokens.own }),
        null,
        [ERR.invalidParameter(['replyToComment'], 'comment_id', 'Hidden comments take no replies.')],
      );
      for (const variables of [{ id: thread.fanComment }, { id: thread.fanComment, message: '  ' }]) {
        expectErrors(await world.gql.request(REPLY, { variables, token: world.fixture.tokens.own }), null, [
          ERR.missingParameter(['replyToComment'], 'message'),
        ]);
      }
      expectErrors(
        await world.gql.request(REPLY, { variables: { id: world.blueOnRoaster, message: 'x' }, token: world.fixture.tokens.own }),
        null,
        [ERR.notAllowed(['replyToComment'])],
      );
      expectErrors(
        await world.gql.request(REPLY, { variables: { id: thread.fanComment, message: 'x' }, token: world.fixture.tokens.stranger }),
        null,
        [ERR.unknownObject(['replyToComment'], 'post', thread.fanComment)],
      );
    });

    it('refuses replies to live-video comments and comments on a live video', async () => {
      expectErrors(
        await world.gql.request(REPLY, {
          variables: { id: world.fixture.comments.liveComment, message: 'x' },
          token: world.fixture.tokens.own,
        }),
        null,
        [ERR.invalidParameter(['replyToComment'], 'comment_id', 'Live video comments take no replies; use a private reply instead.')],
      );
      expectErrors(
        await world.gql.request(CREATE, {
          variables: { mediaId: world.fixture.media.live, message: 'x' },
          token: world.fixture.tokens.own,
        }),
        null,
        [ERR.invalidParameter(['createMediaComment'], 'media_id', 'Comments on live video are not supported.')],
      );
    });

    it('creates a top-level comment on the owner’s media', async () => {
      const media = await world.newPost();
      current = T0 + 2 * 60_000;
      const reply = await world.gql.request(CREATE, {
        variables: { mediaId: media, message: 'New beans' },
        token: world.fixture.tokens.own,
      });
      current = T0;
      expect(reply.errors, reply.text).toBeUndefined();
      expect(reply.data.createMediaComment).toEqual({
        id: expect.stringMatching(/^\d+$/),
        text: 'New beans',
        timestamp: '2026-11-02T10:02:00.000Z',
        from: { id: world.fixture.accounts.bluebottle, username: 'bluebottle' },
        hidden: false,
        likeCount: 0,
        media: { id: media },
        parentId: null,
        user: { id: world.fixture.accounts.bluebottle },
        username: 'bluebottle',
        legacySocialCommentId: reply.data.createMediaComment.id,
      });
      const list = await world.gql.request(MEDIA_COMMENTS, { variables: { id: media }, token: world.fixture.tokens.parent });
      expect(list.data.media.comments.nodes).toEqual([{ id: reply.data.createMediaComment.id, text: 'New beans' }]);
    });

    it('stamps a new comment with the second it was made in, never a later one', async () => {
      const media = await world.newPost();
      current = T0 + 3 * 60_000 + 700;
      const reply = await world.gql.request(CREATE, { variables: { mediaId: media, message: 'late' }, token: world.fixture.tokens.own });
      current = T0;
      expect(reply.errors, reply.text).toBeUndefined();
      expect(reply.data.createMediaComment.timestamp).toBe('2026-11-02T10:03:00.000Z');
    });

    it('refuses a media comment without message or on media of others', async () => {
      const media = world.fixture.posts[5]!;
      expectErrors(await world.gql.request(CREATE, { variables: { mediaId: media }, token: world.fixture.tokens.own }), null, [
        ERR.missingParameter(['createMediaComment'], 'message'),
      ]);
      expectErrors(
        await world.gql.request(CREATE, { variables: { mediaId: media, message: 'x' }, token: world.fixture.tokens.roasterOwn }),
        null,
        [ERR.unknownObject(['createMediaComment'], 'post', media)],
      );
    });

    it('answers a comment mention and a caption mention', async () => {
      const { roasterComment } = world.fixture.comments;
      const onComment = await world.gql.request(MENTION, {
        variables: {
          accountId: world.fixture.accounts.bluebottle,
          mediaId: world.fixture.media.roasterPost,
          commentId: roasterComment,
          message: 'Thanks!',
        },
        token: world.fixture.tokens.own,
      });
      expectData(onComment, {
        replyToMention: {
          id: expect.stringMatching(/^\d+$/),
          text: 'Thanks!',
          parentId: roasterComment,
          media: { id: world.fixture.media.roasterPost },
          user: { id: world.fixture.accounts.bluebottle },
        },
      });
      const onCaption = await world.gql.request(MENTION, {
        variables: {
          accountId: world.fixture.accounts.bluebottle,
          mediaId: world.fixture.media.roasterPost,
          message: 'Thanks for the shout-out',
        },
        token: world.bmFull,
      });
      expectData(onCaption, {
        replyToMention: {
          id: expect.stringMatching(/^\d+$/),
          text: 'Thanks for the shout-out',
          parentId: null,
          media: { id: world.fixture.media.roasterPost },
          user: { id: world.fixture.accounts.bluebottle },
        },
      });
    });

    it('refuses a mention answer without mediaId or message, or where the account was not mentioned', async () => {
      const base = { accountId: world.fixture.accounts.bluebottle, token: world.fixture.tokens.own };
      const send = (variables: Record<string, unknown>) =>
        world.gql.request(MENTION, { variables: { accountId: base.accountId, ...variables }, token: base.token });
      expectErrors(await send({ message: 'x' }), null, [ERR.missingParameter(['replyToMention'], 'media_id')]);
      expectErrors(await send({ mediaId: world.fixture.media.roasterPost }), null, [ERR.missingParameter(['replyToMention'], 'message')]);
      expectErrors(await send({ mediaId: world.fixture.posts[0], message: 'x' }), null, [
        ERR.invalidParameter(['replyToMention'], 'media_id', 'The account was not mentioned in the caption of this media.'),
      ]);
      expectErrors(await send({ mediaId: world.fixture.posts[0], commentId: world.fixture.comments.fanComment, message: 'x' }), null, [
        ERR.invalidParameter(['replyToMention'], 'comment_id', 'The account was not mentioned in this comment.'),
      ]);
      const roaster = await world.gql.request(MENTION, {
        variables: { accountId: world.fixture.accounts.bluebottle, mediaId: world.fixture.media.roasterPost, message: 'x' },
        token: world.rita,
      });
      expectErrors(roaster, null, [ERR.unknownObject(['replyToMention'], 'post', world.fixture.accounts.bluebottle)]);
    });
  });

  // ===================================================================================================================

  describe('comments on a live video that has ended', () => {
    /** A live video of this block's own, with a fan's comment (13:00) as the fixture's: the block ends its broadcast. */
    let live: { video: string; comment: string };
    beforeAll(async () => {
      const video = await world.newPost({ caption: 'Live now', mediaType: 'VIDEO', isLive: true });
      live = {
        video,
        comment: await world.addComment(video, world.fixture.accounts.fanOne, 'Hello live', {
          timestamp: new Date('2026-11-01T13:00:00Z'),
        }),
      };
      await world.setMedia(video, { live_ended_at: new Date(T0 - 60_000) });
    });

    it('are no longer readable', async () => {
      const liveComment = live.comment;
      for (const token of [world.fixture.tokens.own, world.fixture.tokens.parent]) {
        const reply = await world.gql.request(COMMENT, { variables: { id: liveComment }, token });
        expectErrors(reply, { comment: null }, [ERR.unknownObject(['comment'], 'get', liveComment)]);
      }
    });

    it('are no longer listed on the media', async () => {
      const reply = await world.gql.request(MEDIA_COMMENTS, { variables: { id: live.video }, token: world.fixture.tokens.own });
      expect(reply.errors, reply.text).toBeUndefined();
      expect(reply.data.media.comments.nodes).toEqual([]);
    });
  });
});
