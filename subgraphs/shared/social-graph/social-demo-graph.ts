import type { SocialGraphBuilder } from './social-graph-builder.ts';
import type { SocialDb } from './social-tables.ts';

/**
 * The demo social graph `npm run seed` loads: two professional accounts with media, comment threads, mentions and tags,
 * the parent-platform users and pages that reach them, and a business with a shop. Loaded once: a second run finds
 * `bluebottle` and only reads the ids back.
 */

export const OWN_LOGIN_PERMISSIONS = [
  'social_business_basic',
  'social_business_manage_comments',
  'social_business_content_publish',
  'social_business_manage_insights',
  'social_business_manage_messages',
] as const;

export const PARENT_PLATFORM_PERMISSIONS = [
  'social_basic',
  'pages_read_engagement',
  'pages_show_list',
  'pages_manage_metadata',
  'social_manage_comments',
  'social_content_publish',
  'social_manage_insights',
  'social_manage_upcoming_events',
  'ads_management',
  'ads_read',
  'business_management',
  'catalog_management',
  'social_shopping_tag_products',
] as const;

export interface SocialDemoGraph {
  created: boolean;
  accounts: Record<'bluebottle' | 'roaster' | 'fan_one' | 'fan_two' | 'fan_three', string>;
  platformUsers: Record<'ana' | 'bea', string>;
  businessId: string;
  /** bluebottle's feed posts, newest first. */
  posts: string[];
  liveMedia: string;
  roasterPost: string;
  /** A top-level comment by a fan with replies, on bluebottle's newest post. */
  threadComment: string;
  /** roaster's comment on bluebottle's newest post (roaster's own-login token may read and delete it, not hide it). */
  roasterComment: string;
  /** A comment on roaster's post that @mentions bluebottle. */
  mentionComment: string;
}

const CAPTIONS = [
  'Morning pour-over ☕ #coffee',
  'New single origin from Huila',
  'Latte art Thursday',
  'Our roastery at dawn',
  'Cold brew season is here #summer',
  'Meet the team: @roaster',
  'Weekend market pop-up',
  'Behind the bar',
  'Fresh beans, fresh start',
  'Thank you for 1,000 followers!',
  'Decaf done right',
  'Tasting notes: cherry, cocoa',
];

const FAN_LINES = ['Love this!', 'Where can I buy these beans?', 'Best coffee in town', 'So good 😍', 'Open on Sundays?', 'Recipe please!'];

export async function loadSocialDemoGraph(db: SocialDb, g: SocialGraphBuilder, now: Date = new Date()): Promise<SocialDemoGraph> {
  const existing = await db.selectFrom('social.account').select(['id', 'username']).execute();
  const byName = new Map(existing.map((row) => [row.username, String(row.id)]));
  if (byName.has('bluebottle')) return readBack(db, byName);

  const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3_600_000);
  const businessId = await g.business('Acme Holdings');
  const bluebottle = await g.account({
    username: 'bluebottle',
    name: 'Blue Bottle Coffee',
    biography: 'Coffee roasters since 2002. Oakland, CA.',
    website: 'https://bluebottle.example',
    profilePictureUrl: 'https://cdn.social.example/profiles/bluebottle.jpg',
    altText: 'A blue bottle on a white background',
    followersCount: 1284,
    followsCount: 76,
    legacySocialUserId: '1789000000000001',
    shop: { businessId, approved: true, productCount: 24 },
  });
  const roaster = await g.account({
    username: 'roaster',
    accountType: 'MEDIA_CREATOR',
    name: 'Rae the Roaster',
    biography: 'I write about beans.',
    website: 'https://roaster.example',
    followersCount: 512,
    followsCount: 301,
  });
  const fans = [
    await g.account({ username: 'fan_one', accountType: 'PERSONAL' }),
    await g.account({ username: 'fan_two', accountType: 'PERSONAL' }),
    await g.account({ username: 'fan_three', accountType: 'PERSONAL' }),
  ];

  const ana = await g.platformUser('Ana Admin');
  const bea = await g.platformUser('Bea Manager');
  await g.businessAdmin(businessId, ana);
  const bluebottlePage = await g.page('Blue Bottle Coffee', bluebottle, businessId);
  const roasterPage = await g.page('Rae the Roaster', roaster);
  await g.pageRole(bluebottlePage, ana);
  await g.pageRole(roasterPage, ana);
  await g.pageRole(bluebottlePage, bea, { viaBusinessManager: true, tasks: ['ANALYZE', 'ADVERTISE'] });

  const posts: string[] = [];
  for (const [index, caption] of CAPTIONS.entries()) {
    posts.push(await g.media(bluebottle, { caption, timestamp: hoursAgo(6 + index * 20), likeCount: 40 + index * 7 }));
  }
  await g.media(bluebottle, { caption: 'Today at the roastery', mediaProductType: 'STORY', timestamp: hoursAgo(2) });
  const liveMedia = await g.media(bluebottle, {
    caption: 'Live cupping session',
    mediaType: 'VIDEO',
    isLive: true,
    timestamp: hoursAgo(0.25),
  });
  const roasterPost = await g.media(roaster, { caption: 'Visiting @bluebottle today', timestamp: hoursAgo(10), likeCount: 88 });
  await g.tag(roasterPost, bluebottle);
  await g.mention(bluebottle, roasterPost);

  // Threads: on each post a few fans comment, the owner answers some of them.
  let threadComment = '';
  for (const [index, post] of posts.entries()) {
    const base = 6 + index * 20;
    for (let n = 0; n < 3 + (index % 4); n++) {
      const fan = fans[(index + n) % fans.length]!;
      const comment = await g.comment(post, fan, {
        text: FAN_LINES[(index + n) % FAN_LINES.length]!,
        timestamp: hoursAgo(base - 1 - n * 0.5),
        likeCount: n,
        legacySocialCommentId: `90${index}${n}`,
        hidden: index === 3 && n === 2,
      });
      if (index === 0 && n === 0) threadComment = comment;
      if (n % 2 === 0) {
        await g.comment(post, bluebottle, { text: 'Thank you! ☕', parentId: comment, timestamp: hoursAgo(base - 1.2 - n * 0.5) });
      }
    }
  }
  await g.comment(posts[0]!, fans[1]!, { text: 'Same question here', parentId: threadComment, timestamp: hoursAgo(4) });
  const roasterComment = await g.comment(posts[0]!, roaster, { text: 'Great shot — see you Saturday', timestamp: hoursAgo(3) });
  await g.comment(liveMedia, fans[2]!, { text: 'Hello from Lisbon!', timestamp: hoursAgo(0.1) });
  const mentionComment = await g.comment(roasterPost, fans[0]!, { text: 'Thanks to @bluebottle for the tour', timestamp: hoursAgo(9) });
  await g.mention(bluebottle, roasterPost, mentionComment);

  return {
    created: true,
    accounts: { bluebottle, roaster, fan_one: fans[0]!, fan_two: fans[1]!, fan_three: fans[2]! },
    platformUsers: { ana, bea },
    businessId,
    posts,
    liveMedia,
    roasterPost,
    threadComment,
    roasterComment,
    mentionComment,
  };
}

/** The ids of a demo graph loaded before. */
async function readBack(db: SocialDb, byName: Map<string, string>): Promise<SocialDemoGraph> {
  const bluebottle = byName.get('bluebottle')!;
  const roaster = byName.get('roaster')!;
  const users = await db.selectFrom('social.platform_user').select(['id', 'name']).execute();
  const userId = (name: string) => String(users.find((user) => user.name === name)?.id ?? '');
  const business = await db.selectFrom('social.business').select('id').where('name', '=', 'Acme Holdings').executeTakeFirst();
  const media = await db
    .selectFrom('social.media')
    .select(['id', 'owner_id', 'media_product_type', 'is_live'])
    .where('owner_id', 'in', [bluebottle, roaster])
    .orderBy('timestamp', 'desc')
    .execute();
  const posts = media
    .filter((m) => String(m.owner_id) === bluebottle && m.media_product_type === 'FEED' && !m.is_live)
    .map((m) => String(m.id));
  const comments = await db
    .selectFrom('social.comment')
    .select(['id', 'media_id', 'author_id', 'parent_id', 'text'])
    .where(
      'media_id',
      'in',
      media.map((m) => String(m.id)),
    )
    .orderBy('id')
    .execute();
  const find = (predicate: (c: (typeof comments)[number]) => boolean) => String(comments.find(predicate)?.id ?? '');
  const roasterPost = String(media.find((m) => String(m.owner_id) === roaster)?.id ?? '');
  return {
    created: false,
    accounts: {
      bluebottle,
      roaster,
      fan_one: byName.get('fan_one')!,
      fan_two: byName.get('fan_two')!,
      fan_three: byName.get('fan_three')!,
    },
    platformUsers: { ana: userId('Ana Admin'), bea: userId('Bea Manager') },
    businessId: String(business?.id ?? ''),
    posts,
    liveMedia: String(media.find((m) => m.is_live)?.id ?? ''),
    roasterPost,
    threadComment: find((c) => String(c.media_id) === posts[0] && c.parent_id === null && String(c.author_id) !== roaster),
    roasterComment: find((c) => String(c.author_id) === roaster),
    mentionComment: find((c) => String(c.media_id) === roasterPost),
  };
}
