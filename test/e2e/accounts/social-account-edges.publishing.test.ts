import { beforeAll, describe, expect, it } from 'vitest';
import {
  bluebottle,
  DAY,
  db,
  expectOk,
  fixture,
  getOwn,
  getParent,
  gql,
  gqlInvalidParameter,
  gqlMissingParameter,
  gqlMissingPermission,
  gqlPublishingError,
  gqlUnknownField,
  gqlUnknownObject,
  graphTime,
  HOUR,
  isoTime,
  MINUTE,
  own,
  OWN_ALL,
  ownToken,
  parent,
  parentToken,
  postOwn,
  postParent,
  QUOTA,
  roaster,
  SECOND,
  T0,
  tokenFor,
  unusedId,
  useAccountEdgesWorld,
  withQuery,
} from '../../support/account-edges-world.ts';
import {
  type ExpectedGraphError,
  expectGraphError,
  invalidParameter,
  missingParameter,
  PUBLISHING,
  publishingError,
  unknownField,
  unsupported,
} from '../../support/graph-error-expectations.ts';

/**
 * Account edges over REST and GraphQL: publishing containers and the container node, recently_searched_hashtags and
 * media_publish. The clock moves forward through the file (video processing, the 7-day hashtag window, the rolling
 * publishing quota); each block says where it stands.
 */

let clock = T0;
const now = () => new Date(clock);
useAccountEdgesWorld(now);

// =====================================================================================================================
// media POST: publishing containers, and the container node (clock: T0, then T0 + 30 s)

describe('POST /{account_id}/media and GET /{container_id}', () => {
  const IMAGE = 'https://cdn.example.com/photos/latte.jpg';
  const VIDEO = 'https://cdn.example.com/videos/pour.mp4';
  /** Two carousel items of bluebottle, made once. */
  const items: string[] = [];
  let roasterItem = '';
  let plainImage = '';

  beforeAll(async () => {
    for (const url of [IMAGE, 'https://cdn.example.com/photos/beans.jpg']) {
      const reply = await postOwn('/me/media', { image_url: url, is_carousel_item: true });
      expectOk(reply);
      items.push(reply.body.id);
    }
    const roasterReply = await own.request('POST', '/me/media', {
      token: await tokenFor('own', roaster, OWN_ALL),
      json: { image_url: IMAGE, is_carousel_item: true },
    });
    expectOk(roasterReply);
    roasterItem = roasterReply.body.id;
    plainImage = (await postOwn(`/${bluebottle}/media`, { image_url: IMAGE })).body.id;
  });

  it('creates an image container: {id} only, FINISHED at once', async () => {
    const reply = await postOwn(`/v25.0/${bluebottle}/media`, { image_url: IMAGE, caption: 'Morning latte' });
    expectOk(reply);
    expect(reply.body).toEqual({ id: expect.stringMatching(/^\d{17,19}$/) });
    const id = reply.body.id;
    const status = await getOwn(`/v25.0/${id}`, { fields: 'id,status_code' });
    expectOk(status);
    expect(status.body).toEqual({ id, status_code: 'FINISHED' });
    const bare = await getOwn(`/${id}`);
    expect(bare.body).toEqual({ id });
    const more = await getParent(`/${id}`, { fields: 'media_type,caption,status_code' });
    expectOk(more);
    expect(more.body).toEqual({ media_type: 'IMAGE', caption: 'Morning latte', status_code: 'FINISHED', id });
  });

  it('takes its parameters from the query string, a form body or a JSON body, on either host', async () => {
    const token = await parentToken();
    const query = await parent.request('POST', withQuery(`/${bluebottle}/media`, { image_url: IMAGE, caption: 'From the query' }), {
      token,
    });
    expectOk(query);
    const form = await parent.request('POST', `/${bluebottle}/media`, {
      token,
      raw: new URLSearchParams({ image_url: IMAGE, caption: 'From a form' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectOk(form);
    for (const [id, caption] of [
      [query.body.id, 'From the query'],
      [form.body.id, 'From a form'],
    ]) {
      const read = await getParent(`/${id}`, { fields: 'caption,status_code' });
      expect(read.body).toEqual({ caption, status_code: 'FINISHED', id });
    }
  });

  it('takes user_tags as JSON text, in the query string or a JSON body', async () => {
    const tags = JSON.stringify([{ username: 'roaster', x: 0.25, y: 0.75 }]);
    const inQuery = await own.request('POST', withQuery(`/${bluebottle}/media`, { image_url: IMAGE, user_tags: tags }), {
      token: await ownToken(),
    });
    expectOk(inQuery);
    const inBody = await postOwn(`/${bluebottle}/media`, { image_url: IMAGE, user_tags: tags });
    expectOk(inBody);
  });

  it('takes user_tags as a JSON array inside a JSON body (numbers included)', async () => {
    // A JSON body's values may be JSON themselves (§0: parameters travel in the query string or the body).
    const reply = await postOwn(`/${bluebottle}/media`, { image_url: IMAGE, user_tags: [{ username: 'roaster', x: 0.25, y: 0.75 }] });
    expectOk(reply);
    expect(reply.body).toEqual({ id: expect.stringMatching(/^\d{17,19}$/) });
  });

  it('creates a carousel from its items (a JSON list or a comma list of children)', async () => {
    const asList = await postOwn(`/${bluebottle}/media`, { media_type: 'CAROUSEL', children: items, caption: 'Two of a kind' });
    expectOk(asList);
    const asText = await postOwn(`/${bluebottle}/media`, { media_type: 'CAROUSEL', children: items.join(',') });
    expectOk(asText);
    for (const id of [asList.body.id, asText.body.id]) {
      const read = await getOwn(`/${id}`, { fields: 'status_code,media_type' });
      expect(read.body).toEqual({ status_code: 'FINISHED', media_type: 'CAROUSEL', id });
    }
  });

  it('processes a reel for 30 s: IN_PROGRESS, then FINISHED once the clock has moved', async () => {
    const reply = await postOwn(`/${bluebottle}/media`, {
      media_type: 'REELS',
      video_url: VIDEO,
      caption: 'Pour over',
      share_to_feed: true,
      thumb_offset: 1500,
    });
    expectOk(reply);
    const id = reply.body.id;
    expect((await getOwn(`/${id}`, { fields: 'status_code' })).body).toEqual({ status_code: 'IN_PROGRESS', id });
    clock += 29 * SECOND;
    expect((await getOwn(`/${id}`, { fields: 'status_code' })).body).toEqual({ status_code: 'IN_PROGRESS', id });
    clock += SECOND;
    expect((await getOwn(`/${id}`, { fields: 'status_code,media_type' })).body).toEqual({
      status_code: 'FINISHED',
      media_type: 'REELS',
      id,
    });
  });

  it('refuses a carousel whose video item is still processing (9007 / 2207027)', async () => {
    const video = await postOwn(`/${bluebottle}/media`, { media_type: 'VIDEO', video_url: VIDEO, is_carousel_item: true });
    expectOk(video);
    expectGraphError(
      await postOwn(`/${bluebottle}/media`, { media_type: 'CAROUSEL', children: [items[0], video.body.id] }),
      PUBLISHING.notReady,
    );
  });

  it('answers 100/33 for the container of another account, an unknown container, and unsupported writes', async () => {
    const roasterToken = await tokenFor('own', roaster, OWN_ALL);
    expectGraphError(
      await own.request('GET', `/${plainImage}?fields=status_code`, { token: roasterToken }),
      unsupported('get', plainImage),
    );
    const unknown = unusedId(plainImage);
    expectGraphError(await getOwn(`/${unknown}`, { fields: 'status_code' }), unsupported('get', unknown));
    expectGraphError(await postOwn(`/${plainImage}`, { caption: 'edit' }), unsupported('post', plainImage));
    expectGraphError(await getOwn(`/${plainImage}/children`), { message: 'Unknown path components: /children', code: 2500 });
  });

  it('refuses an unknown field of the container', async () => {
    expectGraphError(await getOwn(`/${plainImage}`, { fields: 'status' }), unknownField('status', 'SocialContainer'));
  });

  it.each<[string, () => Record<string, unknown>, ExpectedGraphError | (() => ExpectedGraphError)]>([
    ['no media at all', () => ({ caption: 'Nothing' }), missingParameter('image_url')],
    [
      'an unknown media_type',
      () => ({ media_type: 'PANORAMA', image_url: IMAGE }),
      publishingError(100, 2207023, 'Invalid parameter', 'Unknown media type', 'The media type PANORAMA is unknown.'),
    ],
    [
      'both image_url and video_url',
      () => ({ image_url: IMAGE, video_url: VIDEO }),
      invalidParameter('Only one of image_url and video_url can be given.'),
    ],
    [
      'a video without media_type',
      () => ({ video_url: VIDEO }),
      invalidParameter('A video needs media_type REELS or STORIES (or VIDEO for a carousel item).'),
    ],
    ['REELS without video_url', () => ({ media_type: 'REELS' }), missingParameter('video_url')],
    [
      'REELS with image_url',
      () => ({ media_type: 'REELS', image_url: IMAGE }),
      invalidParameter('A REELS container takes video_url, not image_url.'),
    ],
    ['STORIES without media', () => ({ media_type: 'STORIES' }), missingParameter('image_url')],
    [
      'a reel as carousel item',
      () => ({ media_type: 'REELS', video_url: VIDEO, is_carousel_item: true }),
      invalidParameter('A REELS container cannot be a carousel item.'),
    ],
    [
      'is_carousel_item that is not a boolean',
      () => ({ image_url: IMAGE, is_carousel_item: 'maybe' }),
      invalidParameter('is_carousel_item must be true or false, got "maybe".'),
    ],
    [
      'a URL that cannot be fetched',
      () => ({ image_url: 'ftp://cdn.example.com/latte.jpg' }),
      publishingError(
        9004,
        2207052,
        'Media download has failed.',
        'Media download has failed',
        'The media could not be fetched from this URI: ftp://cdn.example.com/latte.jpg. Please check the URI and try again.',
      ),
    ],
    ['CAROUSEL without children', () => ({ media_type: 'CAROUSEL' }), missingParameter('children')],
    [
      'CAROUSEL with image_url',
      () => ({ media_type: 'CAROUSEL', image_url: IMAGE, children: items }),
      invalidParameter('A CAROUSEL container takes its media from children, not from image_url or video_url.'),
    ],
    ['a carousel of one', () => ({ media_type: 'CAROUSEL', children: [items[0]] }), PUBLISHING.carouselSize],
    [
      'a carousel of eleven',
      () => ({ media_type: 'CAROUSEL', children: Array.from({ length: 11 }, () => items[0]) }),
      PUBLISHING.carouselSize,
    ],
    [
      'a child given twice',
      () => ({ media_type: 'CAROUSEL', children: [items[0], items[0]] }),
      () => invalidParameter(`The carousel item ${items[0]} is given more than once.`),
    ],
    [
      'a child that is not a carousel item',
      () => ({ media_type: 'CAROUSEL', children: [items[0], plainImage] }),
      () => invalidParameter(`The carousel item ${plainImage} does not exist or is not a carousel item of this account.`),
    ],
    [
      'a child of another account',
      () => ({ media_type: 'CAROUSEL', children: [items[0], roasterItem] }),
      () => invalidParameter(`The carousel item ${roasterItem} does not exist or is not a carousel item of this account.`),
    ],
    [
      'children without CAROUSEL',
      () => ({ image_url: IMAGE, children: items }),
      invalidParameter('children can only be given with media_type CAROUSEL.'),
    ],
    [
      'a caption over 2,200 characters',
      () => ({ image_url: IMAGE, caption: 'a'.repeat(2201) }),
      publishingError(36004, 2207010, 'The caption is too long.', 'Caption too long', 'The caption can have at most 2,200 characters.'),
    ],
    [
      'more than 30 hashtags',
      () => ({ image_url: IMAGE, caption: Array.from({ length: 31 }, (_, i) => `#tag${i}`).join(' ') }),
      publishingError(
        36004,
        2207010,
        'The caption has too many hashtags.',
        'Too many hashtags',
        'The caption can have at most 30 hashtags.',
      ),
    ],
    [
      'more than 20 @mentions',
      () => ({ image_url: IMAGE, caption: Array.from({ length: 21 }, (_, i) => `@user${i}`).join(' ') }),
      PUBLISHING.tooManyTags,
    ],
    [
      'more than 20 user_tags',
      () => ({
        image_url: IMAGE,
        user_tags: JSON.stringify(Array.from({ length: 21 }, (_, i) => ({ username: `user${i}`, x: 0.5, y: 0.5 }))),
      }),
      PUBLISHING.tooManyTags,
    ],
    [
      'user_tags that are not JSON',
      () => ({ image_url: IMAGE, user_tags: '[{username' }),
      invalidParameter('The parameter user_tags must be valid JSON.'),
    ],
    [
      'user_tags on the CAROUSEL container',
      () => ({ media_type: 'CAROUSEL', children: items, user_tags: JSON.stringify([{ username: 'roaster', x: 0.1, y: 0.1 }]) }),
      invalidParameter('Tag people on the carousel items, not on the CAROUSEL container.'),
    ],
    [
      'an image user tag without x',
      () => ({ image_url: IMAGE, user_tags: JSON.stringify([{ username: 'roaster', y: 0.5 }]) }),
      invalidParameter('user_tags[0].x is required for an image.'),
    ],
    [
      'a user tag outside the image',
      () => ({ image_url: IMAGE, user_tags: JSON.stringify([{ username: 'roaster', x: 1.5, y: 0.5 }]) }),
      invalidParameter('user_tags[0].x must be a number from 0 to 1.'),
    ],
    [
      'a user tag with a bad username',
      () => ({ image_url: IMAGE, user_tags: JSON.stringify([{ username: 'not valid!', x: 0.5, y: 0.5 }]) }),
      invalidParameter('user_tags[0].username must be a username.'),
    ],
    [
      'a user tag without username',
      () => ({ image_url: IMAGE, user_tags: JSON.stringify([{ x: 0.5, y: 0.5 }]) }),
      invalidParameter('user_tags[0].username must be a username.'),
    ],
    [
      'a user tag whose x is text',
      () => ({ image_url: IMAGE, user_tags: JSON.stringify([{ username: 'roaster', x: 'left', y: 0.5 }]) }),
      invalidParameter('user_tags[0].x must be a number from 0 to 1.'),
    ],
    [
      'four collaborators',
      () => ({ image_url: IMAGE, collaborators: ['a1', 'b2', 'c3', 'd4'] }),
      invalidParameter('A post can have at most 3 collaborators.'),
    ],
    [
      'collaborators on a story',
      () => ({ media_type: 'STORIES', image_url: IMAGE, collaborators: ['roaster'] }),
      invalidParameter('Collaborators can be invited on feed posts, carousels and reels only.'),
    ],
    [
      'a location that is not an id',
      () => ({ image_url: IMAGE, location_id: 'paris' }),
      invalidParameter('location_id must be the numeric id of a location page.'),
    ],
    ['cover_url on an image', () => ({ image_url: IMAGE, cover_url: IMAGE }), invalidParameter('cover_url can only be given for REELS.')],
    [
      'share_to_feed on an image',
      () => ({ image_url: IMAGE, share_to_feed: true }),
      invalidParameter('share_to_feed can only be given for REELS.'),
    ],
    [
      'audio_name on an image',
      () => ({ image_url: IMAGE, audio_name: 'Espresso beats' }),
      invalidParameter('audio_name can only be given for REELS.'),
    ],
    [
      'thumb_offset on an image',
      () => ({ image_url: IMAGE, thumb_offset: 100 }),
      invalidParameter('thumb_offset can only be given for a video.'),
    ],
    ['a negative thumb_offset', () => ({ media_type: 'REELS', video_url: VIDEO, thumb_offset: -1 }), PUBLISHING.thumbOffset],
    [
      'a fractional thumb_offset',
      () => ({ media_type: 'REELS', video_url: VIDEO, thumb_offset: 1.5 }),
      invalidParameter('thumb_offset must be a whole number of milliseconds.'),
    ],
    [
      'alt_text on a reel',
      () => ({ media_type: 'REELS', video_url: VIDEO, alt_text: 'A pour' }),
      invalidParameter('alt_text can only be given for an image post or carousel image.'),
    ],
    [
      'alt_text over 1,000 characters',
      () => ({ image_url: IMAGE, alt_text: 'a'.repeat(1001) }),
      invalidParameter('alt_text can have at most 1000 characters.'),
    ],
  ])('refuses %s', async (_name, body, expected) => {
    expectGraphError(await postOwn(`/${bluebottle}/media`, body()), typeof expected === 'function' ? expected() : expected);
  });

  describe('GraphQL createMediaContainer and mediaContainer', () => {
    const CREATE = `mutation Create($id: ID!, $input: MediaContainerInput!) {
      createMediaContainer(accountId: $id, input: $input) { id statusCode mediaType caption createdAt expiresAt publishedMediaId }
    }`;
    const READ = `query Container($id: ID!) { mediaContainer(id: $id) { id statusCode mediaType caption publishedMediaId } }`;

    it('creates a container valid 24 hours and reads its status', async () => {
      const reply = await gql(CREATE, {
        id: bluebottle,
        input: { imageUrl: IMAGE, caption: 'Via GraphQL', userTags: [{ username: 'roaster', x: 0.2, y: 0.8 }] },
      });
      expect(reply.errors).toBeUndefined();
      const created = reply.data.createMediaContainer;
      expect(created).toEqual({
        id: expect.stringMatching(/^\d{17,19}$/),
        statusCode: 'FINISHED',
        mediaType: 'IMAGE',
        caption: 'Via GraphQL',
        createdAt: isoTime(clock),
        expiresAt: isoTime(clock + DAY),
        publishedMediaId: null,
      });
      const read = await gql(READ, { id: created.id }, await parentToken());
      expect(read.errors).toBeUndefined();
      expect(read.data).toEqual({
        mediaContainer: { id: created.id, statusCode: 'FINISHED', mediaType: 'IMAGE', caption: 'Via GraphQL', publishedMediaId: null },
      });
    });

    it('reports validation and publishing errors with extensions', async () => {
      expect((await gql(CREATE, { id: bluebottle, input: { mediaType: 'REELS' } })).errors).toEqual([
        gqlMissingParameter(['createMediaContainer'], 'video_url'),
      ]);
      expect((await gql(CREATE, { id: bluebottle, input: { mediaType: 'CAROUSEL', children: [items[0]] } })).errors).toEqual([
        gqlPublishingError(['createMediaContainer'], PUBLISHING.carouselSize),
      ]);
      expect((await gql(CREATE, { id: bluebottle, input: { mediaType: 'REELS', videoUrl: VIDEO, thumbOffset: -1 } })).errors).toEqual([
        gqlPublishingError(['createMediaContainer'], PUBLISHING.thumbOffset),
      ]);
      expect((await gql(CREATE, { id: roaster, input: { imageUrl: IMAGE } })).errors).toEqual([
        gqlUnknownObject(['createMediaContainer'], roaster, 'post'),
      ]);
      const noPublish = await tokenFor('own', bluebottle, ['social_business_basic']);
      expect((await gql(CREATE, { id: bluebottle, input: { imageUrl: IMAGE } }, noPublish)).errors).toEqual([
        gqlMissingPermission(['createMediaContainer'], 'social_business_content_publish'),
      ]);
      expect((await gql(READ, { id: plainImage }, await tokenFor('own', roaster, OWN_ALL))).errors).toEqual([
        gqlUnknownObject(['mediaContainer'], plainImage, 'get'),
      ]);
    });
  });
});

// =====================================================================================================================
// recently_searched_hashtags (clock: T0 + 30 s, then moved on to T0 + 7 d − 2.5 h at the end)

describe('GET /{account_id}/recently_searched_hashtags (parent-platform host only)', () => {
  /** The five demo searches (T0 − 1 h … T0 − 5 h, newest first), then 30 more added here (T0 − 6 h … T0 − 35 h). */
  let demo: { id: string; name: string }[];
  let extra: { id: string; name: string }[];

  beforeAll(async () => {
    demo = fixture.edges.hashtags;
    extra = [];
    for (let i = 0; i < 30; i += 1) {
      const row = await db
        .insertInto('social.hashtag')
        .values({ name: `brew${i}` })
        .returning(['id', 'name'])
        .executeTakeFirstOrThrow();
      await db
        .insertInto('social.hashtag_search')
        .values({ account_id: bluebottle, hashtag_id: row.id, searched_at: new Date(T0 - (6 + i) * HOUR) })
        .execute();
      extra.push({ id: String(row.id), name: row.name });
    }
  });

  const ids = (list: { id: string }[]) => list.map(({ id }) => ({ id }));

  it('lists 25 hashtags of {id} by default, most recently searched first, without paging', async () => {
    const reply = await getParent(`/v25.0/${bluebottle}/recently_searched_hashtags`);
    expectOk(reply);
    expect(reply.body).toEqual({ data: ids([...demo, ...extra].slice(0, 25)) });
  });

  it('cuts a limit above 30 to 30, honours a smaller one, and renders name when asked', async () => {
    const all = await getParent(`/${bluebottle}/recently_searched_hashtags`, { limit: '50' });
    expectOk(all);
    expect(all.body).toEqual({ data: ids([...demo, ...extra].slice(0, 30)) });
    const three = await getParent(`/${bluebottle}/recently_searched_hashtags`, { limit: '3', fields: 'id,name' });
    expectOk(three);
    expect(three.body).toEqual({ data: demo.slice(0, 3).map(({ id, name }) => ({ id, name })) });
  });

  it('refuses a limit that is not a number', async () => {
    expectGraphError(
      await getParent(`/${bluebottle}/recently_searched_hashtags`, { limit: 'many' }),
      invalidParameter('The parameter limit must be a non-negative integer, got "many".'),
    );
  });

  it('does not exist on the own-login host', async () => {
    expectGraphError(await getOwn(`/${bluebottle}/recently_searched_hashtags`), unknownField('recently_searched_hashtags'));
    expectGraphError(await getOwn('/me/recently_searched_hashtags'), unknownField('recently_searched_hashtags'));
  });

  it('answers over GraphQL, at most 30', async () => {
    const QUERY = `query Tags($id: ID!, $first: Int) { account(id: $id) { recentlySearchedHashtags(first: $first) { id name } } }`;
    const reply = await gql(QUERY, { id: bluebottle, first: 100 }, await parentToken());
    expect(reply.errors).toBeUndefined();
    expect(reply.data.account.recentlySearchedHashtags).toEqual([...demo, ...extra].slice(0, 30));
    expect((await gql(QUERY, { id: bluebottle })).errors).toEqual([
      gqlUnknownField(['account', 'recentlySearchedHashtags'], 'recently_searched_hashtags'),
    ]);
  });

  it('keeps only the searches of the last 7 days as the clock moves on', async () => {
    clock = T0 + 7 * DAY - 2.5 * HOUR;
    // Left in the window: the searches at T0 − 1 h and T0 − 2 h.
    const reply = await getParent(`/${bluebottle}/recently_searched_hashtags`, { fields: 'name' });
    expectOk(reply);
    expect(reply.body).toEqual({ data: demo.slice(0, 2).map(({ id, name }) => ({ name, id })) });
    clock = T0 + 7 * DAY;
    expect((await getParent(`/${bluebottle}/recently_searched_hashtags`)).body).toEqual({ data: [] });
  });
});

// =====================================================================================================================
// media_publish (clock: from T0 + 7 d on; quota 3 per rolling 24 h; nothing published before this block)

describe('POST /{account_id}/media_publish', () => {
  const IMAGE = 'https://cdn.example.com/photos/publish.jpg';
  const VIDEO = 'https://cdn.example.com/videos/publish.mp4';
  let P0: number;
  /** Published media ids, in order. */
  const published: string[] = [];
  let imageContainer: string;
  let pending: string;

  beforeAll(() => {
    P0 = clock;
  });

  const limit = async () => (await getOwn(`/${bluebottle}/content_publishing_limit`, { fields: 'quota_usage,config' })).body;

  it('refuses a missing creation_id', async () => {
    expectGraphError(await postOwn(`/${bluebottle}/media_publish`, {}), missingParameter('creation_id'));
  });

  it('answers 24 / 2207006 for an unknown container, text that is no id, and another account’s container', async () => {
    const roasterContainer = await own.request('POST', '/me/media', {
      token: await tokenFor('own', roaster, OWN_ALL),
      json: { image_url: IMAGE },
    });
    expectOk(roasterContainer);
    const foreign = roasterContainer.body.id;
    expectGraphError(await postOwn(`/${bluebottle}/media_publish`, { creation_id: foreign }), PUBLISHING.notFound(foreign));
    const unknown = unusedId(foreign);
    expectGraphError(await postOwn(`/${bluebottle}/media_publish`, { creation_id: unknown }), PUBLISHING.notFound(unknown));
    expectGraphError(await postOwn(`/${bluebottle}/media_publish`, { creation_id: 'latte' }), PUBLISHING.notFound('latte'));
  });

  it('is POST only: GET is an unsupported operation', async () => {
    expectGraphError(await getOwn(`/${bluebottle}/media_publish`), unsupported('get', bluebottle));
  });

  it('publishes an image: {id}; the media comes first in GET /me/media with its caption; the container says PUBLISHED', async () => {
    const caption = 'Fresh roast with @roaster and @nobody_here, by @bluebottle #coffee';
    const container = await postOwn('/me/media', {
      image_url: IMAGE,
      caption,
      user_tags: JSON.stringify([{ username: 'roaster', x: 0.5, y: 0.5 }]),
    });
    expectOk(container);
    imageContainer = container.body.id;
    clock += MINUTE;
    const reply = await postOwn('/me/media_publish', { creation_id: imageContainer });
    expectOk(reply);
    expect(reply.body).toEqual({ id: expect.stringMatching(/^\d{17,19}$/) });
    expect(Object.keys(reply.body)).toEqual(['id']);
    const mediaId = reply.body.id as string;
    published.push(mediaId);

    const list = await getOwn('/me/media', { fields: 'caption,media_type,media_product_type,media_url,timestamp', limit: '2' });
    expectOk(list);
    expect(list.body.data[0]).toEqual({
      caption,
      media_type: 'IMAGE',
      media_product_type: 'FEED',
      media_url: IMAGE,
      timestamp: graphTime(clock),
      id: mediaId,
    });
    expect(list.body.data[1].id).not.toBe(mediaId);
    const onParent = await getParent(`/${bluebottle}/media`, { fields: 'caption', limit: '1' });
    expect(onParent.body.data).toEqual([{ caption, id: mediaId }]);

    const status = await getOwn(`/${imageContainer}`, { fields: 'status_code,published_media_id' });
    expect(status.body).toEqual({ status_code: 'PUBLISHED', published_media_id: mediaId, id: imageContainer });
    expect(await limit()).toEqual({ data: [{ quota_usage: 1, config: { quota_total: QUOTA, quota_duration: 86400 } }] });
  });

  it('records the caption’s @mentions of other existing accounts, and the user tags', async () => {
    const mediaId = published[0]!;
    const mentioned = await getParent(`/${roaster}`, { fields: `mentioned_media.media_id(${mediaId}){caption}` });
    expectOk(mentioned);
    expect(mentioned.body).toEqual({
      // Not the mentioned account's own media: `@` is removed (§2.2).
      mentioned_media: { caption: 'Fresh roast with roaster and nobody_here, by bluebottle #coffee', id: mediaId },
      id: roaster,
    });
    // The owner naming itself is no mention.
    expectGraphError(
      await getParent(`/${bluebottle}`, { fields: `mentioned_media.media_id(${mediaId}){caption}` }),
      unsupported('get', mediaId),
    );
    const tags = await getParent(`/${roaster}/tags`, { limit: '1' });
    expectOk(tags);
    expect(tags.body.data).toEqual([{ id: mediaId }]);
  });

  it('refuses to publish a container twice', async () => {
    expectGraphError(
      await postOwn(`/${bluebottle}/media_publish`, { creation_id: imageContainer }),
      invalidParameter(`The container ${imageContainer} has already been published.`),
    );
  });

  it('publishes a carousel (its items only through it) as a CAROUSEL_ALBUM with children', async () => {
    const items: string[] = [];
    for (const url of [IMAGE, 'https://cdn.example.com/photos/publish-2.jpg'])
      items.push((await postParent(`/${bluebottle}/media`, { image_url: url, is_carousel_item: true })).body.id);
    expectGraphError(
      await postParent(`/${bluebottle}/media_publish`, { creation_id: items[0] }),
      invalidParameter(`The container ${items[0]} is a carousel item: publish the carousel container that holds it.`),
    );
    const carousel = await postParent(`/${bluebottle}/media`, { media_type: 'CAROUSEL', children: items, caption: 'Album of two' });
    expectOk(carousel);
    const reply = await postParent(`/${bluebottle}/media_publish`, { creation_id: carousel.body.id });
    expectOk(reply);
    const albumId = reply.body.id as string;
    published.push(albumId);
    const album = await getParent(`/${albumId}`, { fields: 'caption,media_type,children{media_url}' });
    expectOk(album);
    expect(album.body).toEqual({
      caption: 'Album of two',
      media_type: 'CAROUSEL_ALBUM',
      children: {
        data: expect.arrayContaining([
          { media_url: IMAGE, id: expect.any(String) },
          { media_url: 'https://cdn.example.com/photos/publish-2.jpg', id: expect.any(String) },
        ]),
        paging: expect.any(Object),
      },
      id: albumId,
    });
    expect(album.body.children.data).toHaveLength(2);
    // One publication, however many items.
    expect((await limit()).data[0].quota_usage).toBe(2);
  });

  it('refuses a reel still processing (9007 / 2207027), then publishes it as REELS once 30 s have passed', async () => {
    const reel = await postOwn(`/${bluebottle}/media`, { media_type: 'REELS', video_url: VIDEO, caption: 'Slow pour' });
    expectOk(reel);
    expectGraphError(await postOwn(`/${bluebottle}/media_publish`, { creation_id: reel.body.id }), PUBLISHING.notReady);
    clock += 30 * SECOND;
    const reply = await postOwn(`/${bluebottle}/media_publish`, { creation_id: reel.body.id });
    expectOk(reply);
    published.push(reply.body.id);
    const media = await getOwn(`/${reply.body.id}`, { fields: 'media_type,media_product_type,caption' });
    expect(media.body).toEqual({ media_type: 'VIDEO', media_product_type: 'REELS', caption: 'Slow pour', id: reply.body.id });
  });

  it('refuses a fourth publication within 24 hours with code 9 / 2207042, and content_publishing_limit shows the usage', async () => {
    const container = await postOwn(`/${bluebottle}/media`, { image_url: IMAGE, caption: 'One too many' });
    expectOk(container);
    pending = container.body.id;
    expectGraphError(await postOwn(`/${bluebottle}/media_publish`, { creation_id: pending }), PUBLISHING.limitReached);
    expectGraphError(await postParent(`/${bluebottle}/media_publish`, { creation_id: pending }), PUBLISHING.limitReached);
    expect(await limit()).toEqual({ data: [{ quota_usage: QUOTA, config: { quota_total: QUOTA, quota_duration: 86400 } }] });
    const parentView = await getParent(`/${bluebottle}/content_publishing_limit`);
    expect(parentView.body).toEqual({ data: [{ quota_usage: QUOTA }] });
    // since: publications at or after it (the image and the carousel at P0 + 1 min, the reel at P0 + 1 min 30 s).
    const sinceFirst = await getOwn(`/${bluebottle}/content_publishing_limit`, { since: String((P0 + MINUTE) / SECOND) });
    expect(sinceFirst.body).toEqual({ data: [{ quota_usage: 3 }] });
    const sinceReel = await getOwn(`/${bluebottle}/content_publishing_limit`, { since: String((P0 + MINUTE) / SECOND + 1) });
    expect(sinceReel.body).toEqual({ data: [{ quota_usage: 1 }] });
    expect((await getOwn(`/${pending}`, { fields: 'status_code' })).body).toEqual({ status_code: 'FINISHED', id: pending });
  });

  it('reports the quota over GraphQL as RATE_LIMITED with the publishing details', async () => {
    const PUBLISH = `mutation Publish($id: ID!, $creationId: ID) { publishMediaContainer(accountId: $id, creationId: $creationId) { id caption } }`;
    const reply = await gql(PUBLISH, { id: bluebottle, creationId: pending });
    expect(reply.errors).toEqual([gqlPublishingError(['publishMediaContainer'], PUBLISHING.limitReached, 'RATE_LIMITED')]);
  });

  it('frees the quota on a rolling 24 hours, and lets the container expire after 24 hours (EXPIRED, then −2 / 2207020)', async () => {
    // The pending container was made at P0 + 1 min 30 s, when the reel was published.
    clock = P0 + DAY + MINUTE + 15 * SECOND;
    expect((await limit()).data[0].quota_usage).toBe(1);
    expect((await getOwn(`/${pending}`, { fields: 'status_code' })).body).toEqual({ status_code: 'FINISHED', id: pending });
    clock = P0 + DAY + MINUTE + 30 * SECOND;
    expect((await limit()).data[0].quota_usage).toBe(0);
    expect((await getOwn(`/${pending}`, { fields: 'status_code' })).body).toEqual({ status_code: 'EXPIRED', id: pending });
    expectGraphError(await postOwn(`/${bluebottle}/media_publish`, { creation_id: pending }), PUBLISHING.expired);
  });

  it('publishes through GraphQL, and reports the publishing errors with extensions', async () => {
    const CREATE = `mutation Create($id: ID!, $input: MediaContainerInput!) { createMediaContainer(accountId: $id, input: $input) { id statusCode } }`;
    const PUBLISH = `mutation Publish($id: ID!, $creationId: ID) { publishMediaContainer(accountId: $id, creationId: $creationId) { id caption mediaType mediaProductType } }`;
    const token = await parentToken();
    const created = await gql(CREATE, { id: bluebottle, input: { imageUrl: IMAGE, caption: 'GraphQL post for @roaster' } }, token);
    expect(created.errors).toBeUndefined();
    const creationId = created.data.createMediaContainer.id;
    const reply = await gql(PUBLISH, { id: bluebottle, creationId }, token);
    expect(reply.errors).toBeUndefined();
    expect(reply.data.publishMediaContainer).toEqual({
      id: expect.stringMatching(/^\d{17,19}$/),
      caption: 'GraphQL post for @roaster',
      mediaType: 'IMAGE',
      mediaProductType: 'FEED',
    });
    const container = await gql(`query C($id: ID!) { mediaContainer(id: $id) { statusCode publishedMediaId } }`, { id: creationId }, token);
    expect(container.data).toEqual({ mediaContainer: { statusCode: 'PUBLISHED', publishedMediaId: reply.data.publishMediaContainer.id } });

    expect((await gql(PUBLISH, { id: bluebottle }, token)).errors).toEqual([gqlMissingParameter(['publishMediaContainer'], 'creation_id')]);
    expect((await gql(PUBLISH, { id: bluebottle, creationId: pending }, token)).errors).toEqual([
      gqlPublishingError(['publishMediaContainer'], PUBLISHING.expired),
    ]);
    expect((await gql(PUBLISH, { id: bluebottle, creationId: 'latte' }, token)).errors).toEqual([
      gqlPublishingError(['publishMediaContainer'], PUBLISHING.notFound('latte')),
    ]);
    expect((await gql(PUBLISH, { id: bluebottle, creationId }, token)).errors).toEqual([
      gqlInvalidParameter(['publishMediaContainer'], 'creation_id', `The container ${creationId} has already been published.`),
    ]);
  });
});
