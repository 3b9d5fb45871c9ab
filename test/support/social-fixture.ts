import type { DatabaseHandle } from '../../lib/database/database.ts';
import type { LoginType } from '../../lib/auth/social-auth/social-token.service.ts';
import { createCursorCodec } from '../../lib/social-graph/cursor.ts';
import { seedDemoEdges, type SeedDemoEdgesResult } from '../../subgraphs/accounts/demo/seed-demo-edges.ts';
import { createSocialTokens } from '../../subgraphs/index.ts';
import { OWN_LOGIN_PERMISSIONS, PARENT_PLATFORM_PERMISSIONS } from '../../subgraphs/shared/social-graph/social-demo-graph.ts';
import { createSocialGraphBuilder } from '../../subgraphs/shared/social-graph/social-graph-builder.ts';
import type { SocialTables } from '../../subgraphs/shared/social-graph/social-tables.ts';

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
 */

/** Every permission of each login type (the same lists npm run seed grants). */
export { OWN_LOGIN_PERMISSIONS as OWN_PERMISSIONS, PARENT_PLATFORM_PERMISSIONS as PARENT_PERMISSIONS };

export const FEED_POSTS = 30;
/** Base instant of the fixture's timestamps: post[i] is i hours before it. */
export const FIXTURE_EPOCH = new Date('2026-11-01T12:00:00Z');

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
}

export async function createSocialFixture(database: DatabaseHandle, options: { now?: () => Date } = {}): Promise<SocialFixture> {
  const g = createSocialGraphBuilder(database.db.withTables<SocialTables>());
  const now = options.now ?? (() => new Date());
  const tokens = createSocialTokens(database, now);
  const hoursAgo = (hours: number) => new Date(FIXTURE_EPOCH.getTime() - hours * 3_600_000);

  const businessId = await g.business('Acme Holdings');
  const bluebottle = await g.account({
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
  const roaster = await g.account({ username: 'roaster', accountType: 'MEDIA_CREATOR', name: 'The Roaster', biography: 'Beans', followersCount: 50, followsCount: 7 });
  const shady = await g.account({ username: 'shady', ageGated: true });
  const fanOne = await g.account({ username: 'fan_one', accountType: 'PERSONAL' });
  const fanTwo = await g.account({ username: 'fan_two', accountType: 'PERSONAL' });

  const ana = await g.platformUser('Ana');
  const bm = await g.platformUser('Bea Manager');
  const stranger = await g.platformUser('Stranger');
  await g.businessAdmin(businessId, ana);
  const bluebottlePage = await g.page('Blue Bottle', bluebottle, businessId);
  const roasterPage = await g.page('The Roaster', roaster);
  await g.pageRole(bluebottlePage, ana);
  await g.pageRole(roasterPage, ana);
  await g.pageRole(bluebottlePage, bm, { viaBusinessManager: true });

  const posts: string[] = [];
  for (let i = 0; i < FEED_POSTS; i++) {
    posts.push(await g.media(bluebottle, { caption: `Post ${i} #coffee`, timestamp: hoursAgo(i), likeCount: i }));
  }
  const live = await g.media(bluebottle, { caption: 'Live now', mediaType: 'VIDEO', isLive: true, timestamp: hoursAgo(0.5) });
  const story = await g.media(bluebottle, { caption: 'Story', mediaProductType: 'STORY', timestamp: new Date(now().getTime() - 3_600_000) });
  const expiredStory = await g.media(bluebottle, {
    caption: 'Old story',
    mediaProductType: 'STORY',
    timestamp: new Date(now().getTime() - 48 * 3_600_000),
  });
  const carousel = await g.media(bluebottle, { caption: 'Album', mediaType: 'CAROUSEL_ALBUM', timestamp: hoursAgo(100) });
  const roasterPost = await g.media(roaster, { caption: 'Beans by @bluebottle', timestamp: hoursAgo(2), likeCount: 5 });
  const shadyPost = await g.media(shady, { caption: 'Hidden world', timestamp: hoursAgo(3) });

  const post0 = posts[0]!;
  const fanComment = await g.comment(post0, fanOne, { text: 'Love this!', timestamp: hoursAgo(-1), likeCount: 3, legacySocialCommentId: '9001' });
  const fanTwoComment = await g.comment(post0, fanTwo, { text: 'Where is this?', timestamp: hoursAgo(-2) });
  const ownerComment = await g.comment(post0, bluebottle, { text: 'Thanks all', timestamp: hoursAgo(-3) });
  const hiddenComment = await g.comment(post0, fanTwo, { text: 'spam spam', timestamp: hoursAgo(-4), hidden: true });
  const ownerReply = await g.comment(post0, bluebottle, { text: 'Thank you!', parentId: fanComment, timestamp: hoursAgo(-5) });
  const fanReply = await g.comment(post0, fanTwo, { text: 'Me too', parentId: fanComment, timestamp: hoursAgo(-6) });
  const liveComment = await g.comment(live, fanOne, { text: 'Hello live', timestamp: hoursAgo(-1) });
  const roasterComment = await g.comment(roasterPost, fanOne, { text: 'Ask @bluebottle', timestamp: hoursAgo(-1) });
  const shadyComment = await g.comment(shadyPost, fanOne, { text: 'hmm', timestamp: hoursAgo(-1) });
  await g.mention(bluebottle, roasterPost);
  await g.mention(bluebottle, roasterPost, roasterComment);
  await g.tag(roasterPost, bluebottle);

  const edges = await seedDemoEdges(
    { db: database.db.withTables<SocialTables>(), codec: createCursorCodec('fixture-only-cursor-secret-not-used-for-reading'), now },
    bluebottle,
  );

  const token = (loginType: LoginType, subjectId: string, permissions: readonly string[]) =>
    tokens.issue({ loginType, subjectId, permissions, expiresInSeconds: 3600 });
  const past = createSocialTokens(database, () => new Date(now().getTime() - 2 * 3_600_000));
  const expired = await past.issue({ loginType: 'own', subjectId: bluebottle, permissions: [...OWN_LOGIN_PERMISSIONS], expiresInSeconds: 3600 });
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
      bmWithoutAds: await token('parent', bm, PARENT_PLATFORM_PERMISSIONS.filter((p) => p !== 'ads_management' && p !== 'ads_read')),
      stranger: await token('parent', stranger, PARENT_PLATFORM_PERMISSIONS),
      expired,
      revoked,
    },
    edges,
    token,
  };
}
