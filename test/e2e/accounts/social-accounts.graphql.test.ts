import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SocialTables } from '../../../subgraphs/shared/social-graph/social-tables.ts';
import { createGraphqlClient, type GraphqlClient } from '../../support/graphql-client.ts';
import { GRAPH_MESSAGES, graphqlErrors } from '../../support/graph-error-expectations.ts';
import { createSocialFixture, FIXTURE_EPOCH, PARENT_PERMISSIONS, type SocialFixture } from '../../support/social-fixture.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * Front-door tests of Area C through the gateway's GraphQL endpoint (Authorization: Bearer): the account, me,
 * platformUser and media queries, their connections, businessDiscovery and mentionedMedia, the social errors as GraphQL
 * errors (extensions.code and extensions.reason), and queries that cross from the accounts subgraph into the comments
 * subgraph and back — in both gateway modes (subgraphs in the gateway's process, and subgraphs over HTTP).
 */

const NOW = new Date('2026-11-02T00:00:00.000Z');
const HOUR = 3_600_000;
const CURSOR = /^[A-Za-z0-9_-]{20,}$/;
const postTime = (i: number) => new Date(FIXTURE_EPOCH.getTime() - i * HOUR).toISOString();

/** Social errors as the gateway passes them on from the accounts subgraph. */
const accountsErrors = graphqlErrors('accounts');
/** One of them, as a table of cases gives it: its code, message and the extensions beside them. */
function socialError(path: (string | number)[], code: string, message: string, details: Record<string, unknown>) {
  return { message, path, extensions: { ...details, code, serviceName: 'accounts' } };
}
const unknownField = (path: (string | number)[], field: string) => accountsErrors.unknownField(path, field);
const unknownObject = (path: (string | number)[], id: string) => accountsErrors.unknownObject(path, 'get', id);
const invalidParameter = accountsErrors.invalidParameter;

const ACCOUNT = `query Account($id: ID!) { account(id: $id) { ...Fields } }`;
const fields = (selection: string) => `fragment Fields on Account { ${selection} }`;

describe.each([
  { mode: 'embedded', start: () => startTestSystem({}, { now: () => NOW }) },
  { mode: 'distributed (subgraphs over HTTP)', start: () => startDistributedTestSystem({}, { now: () => NOW }) },
])('GraphQL Area C, $mode gateway', ({ start }) => {
  let system: TestSystem;
  let fixture: SocialFixture;
  let db: Kysely<SocialTables>;
  let graphql: GraphqlClient;
  let bluebottle: string;
  let cafe: string;
  let cafePost: string;

  /** An account query with a fragment selection, as `token`. */
  const account = (token: string, id: string, selection: string) =>
    graphql.request(`${ACCOUNT} ${fields(selection)}`, { token, variables: { id } });

  beforeAll(async () => {
    system = await start();
    fixture = await createSocialFixture(system.database, { now: () => NOW });
    db = system.database.db.withTables<SocialTables>();
    graphql = createGraphqlClient(system.gatewayUrl);
    bluebottle = fixture.accounts.bluebottle;
    // "cafe": a professional account no test user manages; its post mentions @bluebottle.
    cafe = String(
      (
        await db
          .insertInto('social.account')
          .values({
            account_type: 'BUSINESS',
            username: 'cafe',
            follows_count: 3,
            followers_count: 9,
            profile_picture_url: null,
            alt_text: null,
            legacy_social_user_id: null,
            shop_business_id: null,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
    cafePost = String(
      (
        await db
          .insertInto('social.media')
          .values({
            owner_id: cafe,
            caption: 'Beans from @bluebottle',
            media_type: 'IMAGE',
            media_product_type: 'FEED',
            media_url: 'https://cdn.social.example/media/cafe.jpg',
            permalink: 'https://social.example/p/cafe/',
            thumbnail_url: null,
            timestamp: new Date(postTime(6)),
            live_ended_at: null,
            deleted_at: null,
            carousel_parent_id: null,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
    await db.insertInto('social.mention').values({ account_id: bluebottle, media_id: cafePost, comment_id: null }).execute();
  });
  afterAll(async () => {
    await system?.close();
  });

  describe('account', () => {
    it('reads every field of the account with an own-login token', async () => {
      const reply = await account(
        fixture.tokens.own,
        bluebottle,
        'id accountType userId username name biography website profilePictureUrl hasProfilePic altText followersCount followsCount isPublished legacySocialUserId',
      );
      expect(reply.status).toBe(200);
      expect(reply.errors).toBeUndefined();
      expect(reply.data).toEqual({
        account: {
          id: bluebottle,
          accountType: 'BUSINESS',
          userId: bluebottle,
          username: 'bluebottle',
          name: 'Blue Bottle Coffee',
          biography: 'Coffee roasters since 2002',
          website: 'https://bluebottle.example',
          profilePictureUrl: 'https://cdn.social.example/bluebottle.jpg',
          hasProfilePic: true,
          altText: 'A blue bottle',
          followersCount: 1200,
          followsCount: 80,
          isPublished: true,
          legacySocialUserId: '1234567890',
        },
      });
    });

    it('counts 30 feed posts and the carousel in mediaCount, not the stories or the live broadcast in progress', async () => {
      const reply = await account(fixture.tokens.own, bluebottle, 'mediaCount media(first: 100) { nodes { id } }');
      expect(reply.errors).toBeUndefined();
      expect(reply.data.account.media.nodes).toHaveLength(31);
      expect(reply.data.account.mediaCount).toBe(31);
    });

    it('reads shoppingProductTagEligibility with a parent-platform token holding the catalog permissions', async () => {
      const reply = await account(fixture.tokens.parent, bluebottle, 'id username shoppingProductTagEligibility');
      expect(reply.errors).toBeUndefined();
      expect(reply.data).toEqual({ account: { id: bluebottle, username: 'bluebottle', shoppingProductTagEligibility: true } });
      const token = await fixture.token(
        'parent',
        fixture.platformUsers.ana,
        PARENT_PERMISSIONS.filter((p) => p !== 'catalog_management'),
      );
      const refused = await account(token, bluebottle, 'username shoppingProductTagEligibility');
      expect(refused.data).toEqual({ account: { username: 'bluebottle', shoppingProductTagEligibility: null } });
      expect(refused.errors).toEqual([
        accountsErrors.missingPermission(['account', 'shoppingProductTagEligibility'], 'catalog_management'),
      ]);
    });

    it('refuses the own-login-only fields to a parent-platform token, and the shop field to an own-login token', async () => {
      const parentReply = await account(fixture.tokens.parent, bluebottle, 'id accountType userId');
      expect(parentReply.data).toEqual({ account: { id: bluebottle, accountType: null, userId: null } });
      expect(parentReply.errors).toEqual([
        unknownField(['account', 'accountType'], 'account_type'),
        unknownField(['account', 'userId'], 'user_id'),
      ]);
      const ownReply = await account(fixture.tokens.own, bluebottle, 'id shoppingProductTagEligibility');
      expect(ownReply.data).toEqual({ account: { id: bluebottle, shoppingProductTagEligibility: null } });
      expect(ownReply.errors).toEqual([unknownField(['account', 'shoppingProductTagEligibility'], 'shopping_product_tag_eligibility')]);
    });

    it('answers NOT_FOUND / UNKNOWN_OBJECT for an account the token does not act for', async () => {
      for (const [token, id] of [
        [fixture.tokens.own, fixture.accounts.roaster],
        [fixture.tokens.parent, cafe],
        [fixture.tokens.stranger, bluebottle],
        [fixture.tokens.parent, fixture.accounts.fanOne],
        [fixture.tokens.own, 'not-an-id'],
      ] as const) {
        const reply = await account(token, id, 'id');
        expect(reply.data).toEqual({ account: null });
        expect(reply.errors).toEqual([unknownObject(['account'], id)]);
      }
    });
  });

  describe('me and platformUser', () => {
    it('resolves me to the own-login token’s account, with its media connection', async () => {
      const reply = await graphql.request(
        `{ me { id username media(first: 2) { nodes { id caption timestamp likeCount } pageInfo { startCursor endCursor hasNextPage hasPreviousPage } } } }`,
        { token: fixture.tokens.own },
      );
      expect(reply.errors).toBeUndefined();
      expect(reply.data).toEqual({
        me: {
          id: bluebottle,
          username: 'bluebottle',
          media: {
            nodes: [0, 1].map((i) => ({ id: fixture.posts[i], caption: `Post ${i} #coffee`, timestamp: postTime(i), likeCount: i })),
            pageInfo: {
              startCursor: expect.stringMatching(CURSOR),
              endCursor: expect.stringMatching(CURSOR),
              hasNextPage: true,
              hasPreviousPage: false,
            },
          },
        },
      });
    });

    it('refuses me to a parent-platform token (its /me is the platform user)', async () => {
      const reply = await graphql.request('{ me { id } }', { token: fixture.tokens.parent });
      expect(reply.data).toEqual({ me: null });
      expect(reply.errors).toEqual([
        invalidParameter(
          ['me'],
          'me',
          'me is the professional account of an own-login token; with a parent-platform token ask for platformUser.',
        ),
      ]);
    });

    it('resolves platformUser to the parent-platform user, with its pages and their linked accounts', async () => {
      const reply = await graphql.request('{ platformUser { id name accounts { id name tasks socialBusinessAccount { id username } } } }', {
        token: fixture.tokens.parent,
      });
      expect(reply.errors).toBeUndefined();
      const tasks = ['MANAGE', 'CREATE_CONTENT', 'MODERATE', 'ADVERTISE', 'ANALYZE'];
      expect(reply.data).toEqual({
        platformUser: {
          id: fixture.platformUsers.ana,
          name: 'Ana',
          accounts: [
            { id: fixture.pages.bluebottle, name: 'Blue Bottle', tasks, socialBusinessAccount: { id: bluebottle, username: 'bluebottle' } },
            {
              id: fixture.pages.roaster,
              name: 'The Roaster',
              tasks,
              socialBusinessAccount: { id: fixture.accounts.roaster, username: 'roaster' },
            },
          ],
        },
      });
      const stranger = await graphql.request('{ platformUser { id name accounts { id } } }', { token: fixture.tokens.stranger });
      expect(stranger.data).toEqual({ platformUser: { id: fixture.platformUsers.stranger, name: 'Stranger', accounts: [] } });
    });

    it('refuses platformUser to an own-login token', async () => {
      const reply = await graphql.request('{ platformUser { id } }', { token: fixture.tokens.own });
      expect(reply.data).toEqual({ platformUser: null });
      expect(reply.errors).toEqual([
        invalidParameter(['platformUser'], 'platformUser', 'platformUser needs a parent-platform (Login for Business) token.'),
      ]);
    });
  });

  describe('media', () => {
    const MEDIA = `query Media($id: ID!) { media(id: $id) {
      id caption mediaType mediaProductType mediaUrl permalink thumbnailUrl timestamp likeCount isCommentEnabled username
      owner { id username } children(first: 5) { nodes { id } }
    } }`;

    it('reads a media object of an account the token acts for, with its owner', async () => {
      for (const token of [fixture.tokens.own, fixture.tokens.parent]) {
        const reply = await graphql.request(MEDIA, { token, variables: { id: fixture.posts[3] } });
        expect(reply.errors).toBeUndefined();
        expect(reply.data).toEqual({
          media: {
            id: fixture.posts[3],
            caption: 'Post 3 #coffee',
            mediaType: 'IMAGE',
            mediaProductType: 'FEED',
            mediaUrl: `https://cdn.social.example/media/${fixture.posts[3]}.jpg`,
            permalink: `https://social.example/p/${fixture.posts[3]}/`,
            thumbnailUrl: null,
            timestamp: postTime(3),
            likeCount: 3,
            isCommentEnabled: true,
            username: 'bluebottle',
            owner: { id: bluebottle, username: 'bluebottle' },
            children: { nodes: [] },
          },
        });
      }
    });

    it('answers UNKNOWN_OBJECT for media of an account the token does not act for', async () => {
      const reply = await graphql.request(MEDIA, { token: fixture.tokens.own, variables: { id: fixture.media.roasterPost } });
      expect(reply.data).toEqual({ media: null });
      expect(reply.errors).toEqual([unknownObject(['media'], fixture.media.roasterPost)]);
    });
  });

  describe('connections', () => {
    it('walks the media connection forward with first/after and back with before', async () => {
      const PAGE = `query Page($id: ID!, $after: String, $before: String) {
        account(id: $id) { media(first: 10, after: $after, before: $before) { nodes { id } pageInfo { startCursor endCursor hasNextPage hasPreviousPage } } }
      }`;
      const seen: string[] = [];
      const pages: { startCursor: string; endCursor: string; hasNextPage: boolean; hasPreviousPage: boolean }[] = [];
      let after: string | undefined;
      do {
        const reply = await graphql.request(PAGE, { token: fixture.tokens.parent, variables: { id: bluebottle, after } });
        expect(reply.errors).toBeUndefined();
        const media = reply.data.account.media;
        seen.push(...media.nodes.map((node: { id: string }) => node.id));
        pages.push(media.pageInfo);
        after = media.pageInfo.hasNextPage ? media.pageInfo.endCursor : undefined;
      } while (after !== undefined && pages.length < 10);
      expect(seen).toEqual([...fixture.posts, fixture.media.carousel]);
      expect(pages.map((page) => [page.hasPreviousPage, page.hasNextPage])).toEqual([
        [false, true],
        [true, true],
        [true, true],
        [true, false],
      ]);
      const back = await graphql.request(PAGE, {
        token: fixture.tokens.parent,
        variables: { id: bluebottle, before: pages[2]!.startCursor },
      });
      expect(back.data.account.media.nodes.map((node: { id: string }) => node.id)).toEqual(fixture.posts.slice(10, 20));
      expect(back.data.account.media.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
    });

    it('filters the media connection with since and until', async () => {
      const reply = await graphql.request(
        'query Window($id: ID!, $since: String, $until: String) { account(id: $id) { media(since: $since, until: $until) { nodes { id } } } }',
        {
          token: fixture.tokens.own,
          variables: { id: bluebottle, since: 'yesterday 09:00', until: String(Date.parse(postTime(1)) / 1000) },
        },
      );
      expect(reply.errors).toBeUndefined();
      expect(reply.data.account.media.nodes).toEqual([{ id: fixture.posts[1] }, { id: fixture.posts[2] }, { id: fixture.posts[3] }]);
    });

    it('lists stories, liveMedia and tags as connections', async () => {
      const reply = await account(
        fixture.tokens.own,
        bluebottle,
        'stories { nodes { id mediaProductType } pageInfo { hasNextPage } } liveMedia { nodes { id } } tags { nodes { id username owner { id } } }',
      );
      expect(reply.errors).toBeUndefined();
      expect(reply.data).toEqual({
        account: {
          stories: { nodes: [{ id: fixture.media.story, mediaProductType: 'STORY' }], pageInfo: { hasNextPage: false } },
          liveMedia: { nodes: [{ id: fixture.media.live }] },
          // Someone else's media: no owner.
          tags: { nodes: [{ id: fixture.media.roasterPost, username: 'roaster', owner: null }] },
        },
      });
    });

    it('refuses a cursor it did not make', async () => {
      const reply = await account(fixture.tokens.own, bluebottle, 'media(after: "bad") { nodes { id } }');
      expect(reply.data).toEqual({ account: null });
      expect(reply.errors).toEqual([invalidParameter(['account', 'media'], 'after', 'Invalid cursor.')]);
    });
  });

  describe('businessDiscovery and mentionedMedia', () => {
    it('reads another account’s public fields and media through businessDiscovery', async () => {
      const reply = await account(
        fixture.tokens.parent,
        bluebottle,
        'businessDiscovery(username: "cafe") { id username followersCount mediaCount media(first: 1) { nodes { id } pageInfo { hasNextPage } } }',
      );
      expect(reply.errors).toBeUndefined();
      expect(reply.data).toEqual({
        account: {
          businessDiscovery: {
            id: cafe,
            username: 'cafe',
            followersCount: 9,
            mediaCount: 1,
            media: { nodes: [{ id: cafePost }], pageInfo: { hasNextPage: false } },
          },
        },
      });
    });

    it.each([
      { username: 'cafe', who: 'an account the app user does not manage' },
      { username: 'roaster', who: 'an account the app user also manages (ana has a role on its page)' },
    ])('refuses a non-public field through businessDiscovery of $who', async ({ username }) => {
      const reply = await account(
        fixture.tokens.parent,
        bluebottle,
        `businessDiscovery(username: "${username}") { username followsCount }`,
      );
      expect(reply.errors).toEqual([unknownField(['account', 'businessDiscovery', 'followsCount'], 'follows_count')]);
      expect(reply.data).toEqual({ account: { businessDiscovery: { username, followsCount: null } } });
    });

    it('refuses an unknown username and an own-login token', async () => {
      const unknown = await account(fixture.tokens.parent, bluebottle, 'businessDiscovery(username: "nobody") { id }');
      expect(unknown.data).toEqual({ account: { businessDiscovery: null } });
      expect(unknown.errors).toEqual([
        invalidParameter(['account', 'businessDiscovery'], 'username', 'Cannot find User with username: nobody'),
      ]);
      const own = await account(fixture.tokens.own, bluebottle, 'businessDiscovery(username: "roaster") { id }');
      expect(own.data).toEqual({ account: { businessDiscovery: null } });
      expect(own.errors).toEqual([unknownField(['account', 'businessDiscovery'], 'business_discovery')]);
    });

    it.each([
      { poster: 'cafe (not managed by the app user)', media: () => cafePost, caption: 'Beans from bluebottle', username: 'cafe' },
      {
        poster: 'roaster (whose page ana also manages)',
        media: () => fixture.media.roasterPost,
        caption: 'Beans by bluebottle',
        username: 'roaster',
      },
    ])('reads a media object by $poster that mentions the account: @ removed, no owner', async ({ media, caption, username }) => {
      const mediaId = media();
      const reply = await graphql.request(
        'query Mentioned($id: ID!, $media: ID) { account(id: $id) { mentionedMedia(mediaId: $media) { id caption username owner { id } } } }',
        { token: fixture.tokens.parent, variables: { id: bluebottle, media: mediaId } },
      );
      expect(reply.errors).toBeUndefined();
      expect(reply.data).toEqual({ account: { mentionedMedia: { id: mediaId, caption, username, owner: null } } });
    });

    it('refuses mentionedMedia to an own-login token naming the field', async () => {
      const reply = await graphql.request(
        'query Mentioned($id: ID!, $media: ID) { account(id: $id) { mentionedMedia(mediaId: $media) { id } } }',
        { token: fixture.tokens.own, variables: { id: bluebottle, media: fixture.media.roasterPost } },
      );
      expect(reply.data).toEqual({ account: { mentionedMedia: null } });
      expect(reply.errors).toEqual([unknownField(['account', 'mentionedMedia'], 'mentioned_media')]);
    });
  });

  describe('token errors', () => {
    it.each([
      { name: 'no token', which: undefined, code: 'UNAUTHENTICATED', message: GRAPH_MESSAGES.noToken, details: { reason: 'NO_TOKEN' } },
      {
        name: 'a garbage token',
        which: 'garbage',
        code: 'UNAUTHENTICATED',
        message: GRAPH_MESSAGES.unparsableToken,
        details: { reason: 'TOKEN_UNPARSABLE' },
      },
      {
        name: 'a revoked token',
        which: 'revoked',
        code: 'UNAUTHENTICATED',
        message: GRAPH_MESSAGES.revokedToken,
        details: { reason: 'TOKEN_REVOKED' },
      },
      {
        name: 'an expired token',
        which: 'expired',
        code: 'UNAUTHENTICATED',
        message: GRAPH_MESSAGES.expiredToken('2026-11-01T23:00:00.000Z', '2026-11-02T00:00:00.000Z'),
        details: { reason: 'TOKEN_EXPIRED', expiredAt: '2026-11-01T23:00:00.000Z', now: '2026-11-02T00:00:00.000Z' },
      },
      {
        name: 'a business-manager role without ads_*',
        which: 'bmWithoutAds',
        code: 'FORBIDDEN',
        message: GRAPH_MESSAGES.missingPermission('ads_read'),
        details: { reason: 'MISSING_PERMISSION', permission: 'ads_read' },
      },
    ])('answers $name with $code', async ({ which, code, message, details }) => {
      const token =
        which === undefined ? undefined : which === 'garbage' ? 'garbage' : fixture.tokens[which as 'revoked' | 'expired' | 'bmWithoutAds'];
      const reply = await graphql.request('query Account($id: ID!) { account(id: $id) { id username } }', {
        ...(token !== undefined && { token }),
        variables: { id: bluebottle },
      });
      expect(reply.status).toBe(200);
      expect(reply.data).toEqual({ account: null });
      if (which === 'bmWithoutAds') {
        // The account exists for this token; its fields need the read permissions (its edges need their own), so the
        // field asked for is refused; the non-null `id` nulls the account at its first error.
        expect(reply.errors).toHaveLength(1);
        expect([
          socialError(['account', 'id'], code, message, details),
          socialError(['account', 'username'], code, message, details),
        ]).toContainEqual(reply.errors![0]);
        return;
      }
      expect(reply.errors).toEqual([socialError(['account'], code, message, details)]);
    });
  });

  describe('across subgraphs', () => {
    const CROSS = `query Cross($id: ID!) {
      account(id: $id) { media(first: 2) { nodes { commentsCount comments(first: 1) { nodes { text media { owner { username } } } } } } }
    }`;
    const expected = {
      account: {
        media: {
          nodes: [
            // post[0]: four top-level comments and two replies; the newest top-level one is the hidden comment.
            { commentsCount: 6, comments: { nodes: [{ text: 'spam spam', media: { owner: { username: 'bluebottle' } } }] } },
            { commentsCount: 0, comments: { nodes: [] } },
          ],
        },
      },
    };

    it('goes from accounts to comments and back to accounts, with an own-login token', async () => {
      const reply = await graphql.request(CROSS, { token: fixture.tokens.own, variables: { id: bluebottle } });
      expect(reply.errors).toBeUndefined();
      expect(reply.data).toEqual(expected);
    });

    it('goes from accounts to comments and back to accounts, with a parent-platform token', async () => {
      const reply = await graphql.request(CROSS, { token: fixture.tokens.parent, variables: { id: bluebottle } });
      expect(reply.errors).toBeUndefined();
      expect(reply.data).toEqual(expected);
    });

    it('reaches a comment’s media and its owner from the comments subgraph', async () => {
      const reply = await graphql.request(
        'query Comment($id: ID!) { comment(id: $id) { text media { id caption owner { id username } } } }',
        { token: fixture.tokens.own, variables: { id: fixture.comments.fanComment } },
      );
      expect(reply.errors).toBeUndefined();
      expect(reply.data).toEqual({
        comment: {
          text: 'Love this!',
          media: { id: fixture.posts[0], caption: 'Post 0 #coffee', owner: { id: bluebottle, username: 'bluebottle' } },
        },
      });
    });
  });
});
