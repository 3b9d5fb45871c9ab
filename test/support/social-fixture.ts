import type { Kysely } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import type { DatabaseHandle } from '../../lib/database/database.ts';
import type { LoginType } from '../../lib/auth/social-auth/social-token.service.ts';
import { createCursorCodec } from '../../lib/social-graph/cursor.ts';
import { seedDemoEdges, type SeedDemoEdgesResult } from '../../subgraphs/accounts/demo/seed-demo-edges.ts';
import { createSocialTokens } from '../../subgraphs/index.ts';
import { OWN_LOGIN_PERMISSIONS, PARENT_PLATFORM_PERMISSIONS } from '../../subgraphs/shared/social-graph/social-demo-graph.ts';
import {
  createSocialGraphBuilder,
  type MediaInput,
  type SocialGraphBuilder,
} from '../../subgraphs/shared/social-graph/social-graph-builder.ts';
import type { SocialTables } from '../../subgraphs/shared/social-graph/social-tables.ts';
import { createRestClient, type RestClient } from './rest-client.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem, type TestSystemOptions } from './test-system.ts';

/**
 * The social graph every Area B/C front-door test starts from: a small, named world with one object per rule to test.
 *
 *   business "Acme Holdings" — owns bluebottle's page and shop; ana administers it
 *   bluebottle (BUSINESS)   — the app user's account: 30 feed posts (post[0] newest), a live video, a current and an
 *                             expired story, a carousel; its page has roles for ana (direct) and bm (via business manager)
 *   roaster (MEDIA_CREATOR) — another professional account (business_discovery); its post mentions @bluebottle in the
 *                             caption, a comment on it mentions @bluebottle, and it tags bluebottle
 *   shady (BUSINESS, age-gated), fan_one and fan_two (PERSONAL commenters)
 *
 * Comments on bluebottle's post[0]: fanComment (fan_one, with replies), fanTwoComment (fan_two), ownerComment (bluebottle's
 * own top-level comment), hiddenComment (fan_two, hidden), ownerReply (bluebottle's reply to fanComment), fanReply (fan_two's
 * reply to fanComment). liveComment is on the live video; roasterComment (on roaster's post, by fan_one) mentions
 * @bluebottle.
 *
 * A test file that changes comments (hides, deletes, replies) takes a thread of its own — post[0]'s comments again, on a
 * new post (newCommentThread) — so that the fixture's stay as described for every other test. useSocialWorld starts a
 * system with the fixture in it for a whole file.
 */

/** Every permission of each login type (the same lists npm run seed grants). */
export { OWN_LOGIN_PERMISSIONS as OWN_PERMISSIONS, PARENT_PLATFORM_PERMISSIONS as PARENT_PERMISSIONS };

export const FEED_POSTS = 30;
/** Base instant of the fixture's timestamps: post[i] is i hours before it. */
export const FIXTURE_EPOCH = new Date('2026-11-01T12:00:00Z');

/** The comments of a post as the fixture writes them on post[0] (their texts, authors, times and replies). */
export interface CommentThread {
  /** The post, bluebottle's. */
  post: string;
  /** fan_one, "Love this!" (13:00), with two replies. */
  fanComment: string;
  /** fan_two, "Where is this?" (14:00). */
  fanTwoComment: string;
  /** bluebottle's own, "Thanks all" (15:00). */
  ownerComment: string;
  /** fan_two, "spam spam" (16:00), hidden. */
  hiddenComment: string;
  /** bluebottle's reply to fanComment, "Thank you!" (17:00). */
  ownerReply: string;
  /** fan_two's reply to fanComment, "Me too" (18:00). */
  fanReply: string;
}

export interface SocialFixture {
  businessId: string;
  accounts: { bluebottle: string; roaster: string; shady: string; fanOne: string; fanTwo: string };
  platformUsers: { ana: string; bm: string; stranger: string };
  pages: { bluebottle: string; roaster: string };
  /** bluebottle's feed posts, newest first. */
  posts: string[];
  media: { live: string; story: string; expiredStory: string; carousel: string; roasterPost: string; shadyPost: string };
  comments: {
    fanComment: string;
    fanTwoComment: string;
    ownerComment: string;
    hiddenComment: string;
    ownerReply: string;
    fanReply: string;
    liveComment: string;
    roasterComment: string;
    shadyComment: string;
  };
  tokens: {
    /** bluebottle, own-login host, every permission. */
    own: string;
    /** roaster, own-login host, every permission. */
    roasterOwn: string;
    /** ana (role on bluebottle's and roaster's pages), parent-platform host, every permission. */
    parent: string;
    /** bm (role on bluebottle's page granted through the business manager), every permission but ads_*. */
    bmWithoutAds: string;
    /** stranger: a parent-platform user with no page roles, every permission. */
    stranger: string;
    expired: string;
    revoked: string;
  };
  /** bluebottle's demo edges: upcoming events, hashtag searches, agencies, ad accounts, 35 days of insights. */
  edges: SeedDemoEdgesResult;
  /** Mints a token of a login type for a subject with exactly these permissions. */
  token(loginType: LoginType, subjectId: string, permissions: readonly string[]): Promise<string>;
  /** post[0]'s comments written again on a new post of bluebottle's, for a test that changes them. */
  newCommentThread(): Promise<CommentThread>;
}

/** Writes the fixture's thread of comments (see CommentThread) on `post`. */
async function writeCommentThread(
  graph: SocialGraphBuilder,
  post: string,
  authors: { bluebottle: string; fanOne: string; fanTwo: string },
  options: { legacyIdOfFanComment?: string } = {},
): Promise<CommentThread> {
  const { bluebottle, fanOne, fanTwo } = authors;
  const fanComment = await graph.comment(post, fanOne, {
    text: 'Love this!',
    timestamp: hoursAgo(-1),
    likeCount: 3,
    legacySocialCommentId: options.legacyIdOfFanComment ?? null,
  });
  const fanTwoComment = await graph.comment(post, fanTwo, { text: 'Where is this?', timestamp: hoursAgo(-2) });
  const ownerComment = await graph.comment(post, bluebottle, { text: 'Thanks all', timestamp: hoursAgo(-3) });
  const hiddenComment = await graph.comment(post, fanTwo, { text: 'spam spam', timestamp: hoursAgo(-4), hidden: true });
  const ownerReply = await graph.comment(post, bluebottle, { text: 'Thank you!', parentId: fanComment, timestamp: hoursAgo(-5) });
  const fanReply = await graph.comment(post, fanTwo, { text: 'Me too', parentId: fanComment, timestamp: hoursAgo(-6) });
  return { post, fanComment, fanTwoComment, ownerComment, hiddenComment, ownerReply, fanReply };
}

/** `hours` before FIXTURE_EPOCH (negative: after it). */
const hoursAgo = (hours: number) => new Date(FIXTURE_EPOCH.getTime() - hours * 3_600_000);

export async function createSocialFixture(database: DatabaseHandle, options: { now?: () => Date } = {}): Promise<SocialFixture> {
  const graph = createSocialGraphBuilder(database.db.withTables<SocialTables>());
  const now = options.now ?? (() => new Date());
  const tokens = createSocialTokens(database, now);

  const businessId = await graph.business('Acme Holdings');
  const bluebottle = await graph.account({
    username: 'bluebottle',
    name: 'Blue Bottle Coffee',
    biography: 'Coffee roasters since 2002',
    website: 'https://bluebottle.example',
    profilePictureUrl: 'https://cdn.social.example/bluebottle.jpg',
    altText: 'A blue bottle',
    followersCount: 1200,
    followsCount: 80,
    legacySocialUserId: '1234567890',
    shop: { businessId, approved: true, productCount: 12 },
  });
  const roaster = await graph.account({
    username: 'roaster',
    accountType: 'MEDIA_CREATOR',
    name: 'The Roaster',
    biography: 'Beans',
    followersCount: 50,
    followsCount: 7,
  });
  const shady = await graph.account({ username: 'shady', ageGated: true });
  const fanOne = await graph.account({ username: 'fan_one', accountType: 'PERSONAL' });
  const fanTwo = await graph.account({ username: 'fan_two', accountType: 'PERSONAL' });

  const ana = await graph.platformUser('Ana');
  const bm = await graph.platformUser('Bea Manager');
  const stranger = await graph.platformUser('Stranger');
  await graph.businessAdmin(businessId, ana);
  const bluebottlePage = await graph.page('Blue Bottle', bluebottle, businessId);
  const roasterPage = await graph.page('The Roaster', roaster);
  await graph.pageRole(bluebottlePage, ana);
  await graph.pageRole(roasterPage, ana);
  await graph.pageRole(bluebottlePage, bm, { viaBusinessManager: true });

  const posts: string[] = [];
  for (let i = 0; i < FEED_POSTS; i++) {
    posts.push(await graph.media(bluebottle, { caption: `Post ${i} #coffee`, timestamp: hoursAgo(i), likeCount: i }));
  }
  const live = await graph.media(bluebottle, { caption: 'Live now', mediaType: 'VIDEO', isLive: true, timestamp: hoursAgo(0.5) });
  const story = await graph.media(bluebottle, {
    caption: 'Story',
    mediaProductType: 'STORY',
    timestamp: new Date(now().getTime() - 3_600_000),
  });
  const expiredStory = await graph.media(bluebottle, {
    caption: 'Old story',
    mediaProductType: 'STORY',
    timestamp: new Date(now().getTime() - 48 * 3_600_000),
  });
  const carousel = await graph.media(bluebottle, { caption: 'Album', mediaType: 'CAROUSEL_ALBUM', timestamp: hoursAgo(100) });
  const roasterPost = await graph.media(roaster, { caption: 'Beans by @bluebottle', timestamp: hoursAgo(2), likeCount: 5 });
  const shadyPost = await graph.media(shady, { caption: 'Hidden world', timestamp: hoursAgo(3) });

  const authors = { bluebottle, fanOne, fanTwo };
  const { fanComment, fanTwoComment, ownerComment, hiddenComment, ownerReply, fanReply } = await writeCommentThread(
    graph,
    posts[0]!,
    authors,
    {
      legacyIdOfFanComment: '9001',
    },
  );
  const liveComment = await graph.comment(live, fanOne, { text: 'Hello live', timestamp: hoursAgo(-1) });
  const roasterComment = await graph.comment(roasterPost, fanOne, { text: 'Ask @bluebottle', timestamp: hoursAgo(-1) });
  const shadyComment = await graph.comment(shadyPost, fanOne, { text: 'hmm', timestamp: hoursAgo(-1) });
  await graph.mention(bluebottle, roasterPost);
  await graph.mention(bluebottle, roasterPost, roasterComment);
  await graph.tag(roasterPost, bluebottle);

  const edges = await seedDemoEdges(
    { db: database.db.withTables<SocialTables>(), codec: createCursorCodec('fixture-only-cursor-secret-not-used-for-reading'), now },
    bluebottle,
  );

  const token = (loginType: LoginType, subjectId: string, permissions: readonly string[]) =>
    tokens.issue({ loginType, subjectId, permissions, expiresInSeconds: 3600 });
  const past = createSocialTokens(database, () => new Date(now().getTime() - 2 * 3_600_000));
  const expired = await past.issue({
    loginType: 'own',
    subjectId: bluebottle,
    permissions: [...OWN_LOGIN_PERMISSIONS],
    expiresInSeconds: 3600,
  });
  const revoked = await token('own', bluebottle, OWN_LOGIN_PERMISSIONS);
  await tokens.revoke(revoked);

  return {
    businessId,
    accounts: { bluebottle, roaster, shady, fanOne, fanTwo },
    platformUsers: { ana, bm, stranger },
    pages: { bluebottle: bluebottlePage, roaster: roasterPage },
    posts,
    media: { live, story, expiredStory, carousel, roasterPost, shadyPost },
    comments: { fanComment, fanTwoComment, ownerComment, hiddenComment, ownerReply, fanReply, liveComment, roasterComment, shadyComment },
    tokens: {
      own: await token('own', bluebottle, OWN_LOGIN_PERMISSIONS),
      roasterOwn: await token('own', roaster, OWN_LOGIN_PERMISSIONS),
      parent: await token('parent', ana, PARENT_PLATFORM_PERMISSIONS),
      bmWithoutAds: await token(
        'parent',
        bm,
        PARENT_PLATFORM_PERMISSIONS.filter((p) => p !== 'ads_management' && p !== 'ads_read'),
      ),
      stranger: await token('parent', stranger, PARENT_PLATFORM_PERMISSIONS),
      expired,
      revoked,
    },
    edges,
    token,
    newCommentThread: async () =>
      writeCommentThread(graph, await graph.media(bluebottle, { caption: 'A thread of its own', timestamp: hoursAgo(0) }), authors),
  };
}

// ---- a system with the fixture, for a whole test file ----

/** A running system with the social fixture in its database, and what tests reach it with. */
export interface SocialTestWorld {
  system: TestSystem;
  fixture: SocialFixture;
  /** The own-login host (the REST adapter, restUrl) and the parent-platform host (socialParentUrl). */
  ownHost: RestClient;
  parentHost: RestClient;
  /** Writes objects a test needs of its own straight into the store. */
  graph: SocialGraphBuilder;
  tables: Kysely<SocialTables>;
  /** A new post of bluebottle's (a live video, a story… with `input`), for a test that changes or fills one. */
  newPost(input?: MediaInput): Promise<string>;
  setMedia(mediaId: string, values: { live_ended_at?: Date | null; comment_enabled?: boolean }): Promise<void>;
  /** hidden, and whether the comment still exists (not deleted), as stored. */
  commentState(commentId: string): Promise<{ hidden: boolean; exists: boolean }>;
}

/** The parts of a world on a database, without the system (the auth matrix's world builds on it). */
export function socialWorldParts(database: DatabaseHandle, fixture: SocialFixture) {
  const tables = database.db.withTables<SocialTables>();
  const graph = createSocialGraphBuilder(tables);
  return {
    graph,
    tables,
    newPost: (input: MediaInput = {}) =>
      graph.media(fixture.accounts.bluebottle, { caption: 'A post of its own', timestamp: hoursAgo(0), ...input }),
    setMedia: async (mediaId: string, values: { live_ended_at?: Date | null; comment_enabled?: boolean }) => {
      await tables.updateTable('social.media').set(values).where('id', '=', mediaId).execute();
    },
    commentState: async (commentId: string) => {
      const row = await tables.selectFrom('social.comment').select(['hidden', 'deleted_at']).where('id', '=', commentId).executeTakeFirst();
      return { hidden: row?.hidden ?? false, exists: row !== undefined && row.deleted_at === null };
    },
  };
}

/**
 * For a test file (or describe block) of the social graph: starts a system (env, options: the system's clock…; with
 * `distributed`, the distributed topology: each subgraph its own server) before its tests and builds the fixture in it on
 * the same clock, once; closes the system after them. Call it before the file's own hooks, which then read the world from
 * the accessor. A file that runs its tests in both topologies calls it once in each topology's describe block.
 */
export function useSocialWorld(
  options: { env?: Record<string, string>; system?: TestSystemOptions; now?: () => Date; distributed?: boolean } = {},
): () => SocialTestWorld {
  let world: SocialTestWorld | undefined;
  beforeAll(async () => {
    const now = options.now;
    const systemOptions = { ...options.system, ...(now && { now }) };
    const system = options.distributed
      ? await startDistributedTestSystem(options.env ?? {}, systemOptions)
      : await startTestSystem(options.env ?? {}, systemOptions);
    try {
      const fixture = await createSocialFixture(system.database, now ? { now } : {});
      world = {
        system,
        fixture,
        ownHost: createRestClient(system.restUrl),
        parentHost: createRestClient(system.socialParentUrl),
        ...socialWorldParts(system.database, fixture),
      };
    } catch (error) {
      await system.close();
      throw error;
    }
  });
  afterAll(async () => {
    await world?.system.close();
  });
  return () => {
    if (!world) throw new Error('useSocialWorld: the world is built in beforeAll; read it from a hook or a test');
    return world;
  };
}
