import { beforeAll, describe, expect, it } from 'vitest';
import { isSocialId } from '../../../lib/social-graph/social-ids.ts';
import { shortcodeOf } from '../../../subgraphs/accounts/account-edges/content-publishing.ts';
import type { CreateContainerInput } from '../../../subgraphs/accounts/account-edges/account-edges.types.ts';
import { lastEventPosition, readEventsAfter } from '../../../subgraphs/shared/event-log/event-log.repository.ts';
import {
  HOUR,
  DAY,
  T0,
  T0_SECONDS,
  db,
  clock,
  setClock,
  service,
  serviceWith,
  newAccount,
  expectMissing,
  expectInvalid,
  expectUnknown,
  expectPublishing,
  UNKNOWN_MEDIA_TYPE,
  CAROUSEL_SIZE,
  TOO_MANY_TAGS,
  CAPTION_TOO_LONG,
  TOO_MANY_HASHTAGS,
  DOWNLOAD_FAILED,
  THUMB_OFFSET,
  NOT_FOUND,
  EXPIRED,
  NOT_READY,
  FAILED,
  LIMIT_REACHED,
  IMAGE,
  IMAGE_2,
  VIDEO,
  COVER,
  missingId,
  useAccountEdgesDatabase,
} from '../../support/account-edges-service-world.ts';

/** The account edges' service against a real database (test/support/account-edges-service-world.ts): media containers and content publishing. */

useAccountEdgesDatabase();

describe('media containers and publishing', () => {
  let publisher: string;
  let friendOne: string;
  let friendTwo: string;
  let stranger: string;
  beforeAll(async () => {
    setClock(T0);
    publisher = await newAccount('publisher_one');
    friendOne = await newAccount('friend.one');
    friendTwo = await newAccount('Friend_Two');
    stranger = await newAccount('stranger_account');
  });

  async function mediaRow(id: string) {
    return db.selectFrom('social.media').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  it('creates an image container, ready at once and valid for 24 hours', async () => {
    setClock(T0);
    const container = await service.createContainer(publisher, {
      imageUrl: IMAGE,
      caption: 'Hello',
      altText: 'A cup of coffee',
      userTags: [{ username: 'friend_two', x: 0.5, y: 0.25 }],
      collaborators: ['@friend.one'],
      locationId: '123456',
    });
    expect(isSocialId(container.id, 'container')).toBe(true);
    expect(container).toEqual({
      id: container.id,
      accountId: publisher,
      mediaType: 'IMAGE',
      imageUrl: IMAGE,
      videoUrl: null,
      uploadMediaId: null,
      caption: 'Hello',
      isCarouselItem: false,
      children: [],
      userTags: [{ username: 'friend_two', x: 0.5, y: 0.25 }],
      collaborators: ['friend.one'],
      locationId: '123456',
      altText: 'A cup of coffee',
      shareToFeed: null,
      coverUrl: null,
      thumbOffset: null,
      audioName: null,
      statusCode: 'FINISHED',
      createdAt: T0,
      expiresAt: new Date(T0.getTime() + DAY),
      publishedMediaId: null,
      publishedAt: null,
    });
    setClock(new Date(T0.getTime() + DAY - 1));
    expect((await service.getContainer(publisher, container.id)).statusCode).toBe('FINISHED');
    setClock(new Date(T0.getTime() + DAY));
    expect((await service.getContainer(publisher, container.id)).statusCode).toBe('EXPIRED');
    await expectUnknown(service.getContainer(stranger, container.id), container.id, 'get');
    await expectUnknown(service.getContainer(publisher, missingId('container')), missingId('container'), 'get');
    await expectUnknown(service.getContainer(publisher, publisher), publisher, 'get');
  });

  it('keeps a video container IN_PROGRESS while it processes', async () => {
    setClock(T0);
    const reel = await service.createContainer(publisher, {
      mediaType: 'REELS',
      videoUrl: VIDEO,
      coverUrl: COVER,
      shareToFeed: true,
      audioName: 'Original audio',
      thumbOffset: 1500,
      userTags: [{ username: 'friend.one' }],
    });
    expect(reel).toMatchObject({
      mediaType: 'REELS',
      statusCode: 'IN_PROGRESS',
      coverUrl: COVER,
      shareToFeed: true,
      audioName: 'Original audio',
      thumbOffset: 1500,
      userTags: [{ username: 'friend.one' }],
    });
    setClock(new Date(T0.getTime() + 29_999));
    expect((await service.getContainer(publisher, reel.id)).statusCode).toBe('IN_PROGRESS');
    setClock(new Date(T0.getTime() + 30_000));
    expect((await service.getContainer(publisher, reel.id)).statusCode).toBe('FINISHED');

    setClock(T0);
    const instant = serviceWith({ videoProcessingSeconds: 0 });
    expect((await instant.createContainer(publisher, { mediaType: 'STORIES', videoUrl: VIDEO })).statusCode).toBe('FINISHED');
    expect((await service.createContainer(publisher, { mediaType: 'STORIES', imageUrl: IMAGE })).statusCode).toBe('FINISHED');
  });

  it('refuses each broken parameter rule with the platform code or a named 100', async () => {
    setClock(T0);
    const create = (input: CreateContainerInput) => service.createContainer(publisher, input);
    await expectMissing(create({}), 'image_url');
    await expectMissing(create({ caption: 'no media' }), 'image_url');
    await expectMissing(create({ mediaType: 'REELS' }), 'video_url');
    await expectMissing(create({ mediaType: 'VIDEO', isCarouselItem: true }), 'video_url');
    await expectMissing(create({ mediaType: 'STORIES' }), 'image_url');
    await expectMissing(create({ mediaType: 'CAROUSEL' }), 'children');
    await expectMissing(create({ mediaType: 'CAROUSEL', children: [] }), 'children');
    await expectPublishing(create({ mediaType: 'PHOTO', imageUrl: IMAGE }), UNKNOWN_MEDIA_TYPE('PHOTO'));
    await expectPublishing(create({ mediaType: 'reels', videoUrl: VIDEO }), UNKNOWN_MEDIA_TYPE('reels'));
    await expectInvalid(create({ imageUrl: IMAGE, videoUrl: VIDEO }), 'video_url', 'Only one of image_url and video_url can be given.');
    await expectInvalid(
      create({ videoUrl: VIDEO }),
      'media_type',
      'A video needs media_type REELS or STORIES (or VIDEO for a carousel item).',
    );
    await expectInvalid(create({ mediaType: 'REELS', imageUrl: IMAGE }), 'image_url', 'A REELS container takes video_url, not image_url.');
    await expectInvalid(
      create({ mediaType: 'CAROUSEL', imageUrl: IMAGE, children: ['1', '2'] }),
      'image_url',
      'A CAROUSEL container takes its media from children, not from image_url or video_url.',
    );
    await expectInvalid(
      create({ mediaType: 'CAROUSEL', children: ['1', '2'], isCarouselItem: true }),
      'is_carousel_item',
      'A CAROUSEL container cannot be a carousel item.',
    );
    await expectInvalid(
      create({ mediaType: 'REELS', videoUrl: VIDEO, isCarouselItem: true }),
      'is_carousel_item',
      'A REELS container cannot be a carousel item.',
    );
    await expectInvalid(
      create({ mediaType: 'STORIES', imageUrl: IMAGE, isCarouselItem: true }),
      'is_carousel_item',
      'A STORIES container cannot be a carousel item.',
    );

    for (const url of ['ftp://cdn.example/1.jpg', 'not a url', 'https://cdn.example/café.jpg', 'file:///etc/passwd']) {
      await expectPublishing(create({ imageUrl: url }), DOWNLOAD_FAILED(url));
    }
    await expectPublishing(create({ mediaType: 'REELS', videoUrl: 'mailto:me@example.com' }), DOWNLOAD_FAILED('mailto:me@example.com'));

    await expectPublishing(create({ mediaType: 'CAROUSEL', children: ['1'] }), CAROUSEL_SIZE);
    await expectPublishing(create({ mediaType: 'CAROUSEL', children: Array.from({ length: 11 }, (_, i) => String(i + 1)) }), CAROUSEL_SIZE);
    await expectInvalid(
      create({ mediaType: 'CAROUSEL', children: ['7', '8', '7'] }),
      'children',
      'The carousel item 7 is given more than once.',
    );
    await expectInvalid(
      create({ imageUrl: IMAGE, children: ['1', '2'] }),
      'children',
      'children can only be given with media_type CAROUSEL.',
    );

    expect((await create({ imageUrl: IMAGE, caption: 'é'.repeat(2200) })).caption).toHaveLength(2200);
    await expectPublishing(create({ imageUrl: IMAGE, caption: 'é'.repeat(2201) }), CAPTION_TOO_LONG);
    const hashtags = (n: number) => Array.from({ length: n }, (_, i) => `#tag${i}`).join(' ');
    await create({ imageUrl: IMAGE, caption: hashtags(30) });
    await expectPublishing(create({ imageUrl: IMAGE, caption: hashtags(31) }), TOO_MANY_HASHTAGS);
    const mentions = (n: number) => Array.from({ length: n }, (_, i) => `@user${i}`).join(' ');
    await create({ imageUrl: IMAGE, caption: `${mentions(20)} mail me at me@example.com` });
    await expectPublishing(create({ imageUrl: IMAGE, caption: mentions(21) }), TOO_MANY_TAGS);

    const tags = (n: number) => Array.from({ length: n }, (_, i) => ({ username: `user${i}`, x: 0.1, y: 0.1 }));
    await create({ imageUrl: IMAGE, userTags: tags(20) });
    await expectPublishing(create({ imageUrl: IMAGE, userTags: tags(21) }), TOO_MANY_TAGS);
    await expectInvalid(
      create({ mediaType: 'CAROUSEL', children: ['1', '2'], userTags: [{ username: 'friend.one', x: 0, y: 0 }] }),
      'user_tags',
      'Tag people on the carousel items, not on the CAROUSEL container.',
    );
    await expectInvalid(
      create({ imageUrl: IMAGE, userTags: [{ username: 'no spaces here', x: 0, y: 0 }] }),
      'user_tags',
      'user_tags[0].username must be a username.',
    );
    await expectInvalid(
      create({ imageUrl: IMAGE, userTags: [{ username: 'ok', y: 0.5 }] }),
      'user_tags',
      'user_tags[0].x is required for an image.',
    );
    await expectInvalid(
      create({
        imageUrl: IMAGE,
        userTags: [
          { username: 'ok', x: 1, y: 1 },
          { username: 'ok2', x: 0, y: 1.5 },
        ],
      }),
      'user_tags',
      'user_tags[1].y must be a number from 0 to 1.',
    );
    await expectInvalid(
      create({ mediaType: 'REELS', videoUrl: VIDEO, userTags: [{ username: 'ok', x: -0.1 }] }),
      'user_tags',
      'user_tags[0].x must be a number from 0 to 1.',
    );
    expect((await create({ mediaType: 'STORIES', imageUrl: IMAGE, userTags: [{ username: 'ok' }] })).userTags).toEqual([
      { username: 'ok' },
    ]);

    await expectInvalid(
      create({ imageUrl: IMAGE, collaborators: ['a', 'b', 'c', 'd'] }),
      'collaborators',
      'A post can have at most 3 collaborators.',
    );
    await expectInvalid(
      create({ mediaType: 'STORIES', imageUrl: IMAGE, collaborators: ['a'] }),
      'collaborators',
      'Collaborators can be invited on feed posts, carousels and reels only.',
    );
    await expectInvalid(
      create({ imageUrl: IMAGE, isCarouselItem: true, collaborators: ['a'] }),
      'collaborators',
      'Collaborators can be invited on feed posts, carousels and reels only.',
    );
    await expectInvalid(
      create({ imageUrl: IMAGE, collaborators: ['a', 'not valid'] }),
      'collaborators',
      'collaborators[1] must be a username.',
    );
    await expectInvalid(
      create({ imageUrl: IMAGE, locationId: 'Paris' }),
      'location_id',
      'location_id must be the numeric id of a location page.',
    );

    await expectInvalid(create({ imageUrl: IMAGE, coverUrl: COVER }), 'cover_url', 'cover_url can only be given for REELS.');
    await expectPublishing(
      create({ mediaType: 'REELS', videoUrl: VIDEO, coverUrl: 'javascript:alert(1)' }),
      DOWNLOAD_FAILED('javascript:alert(1)'),
    );
    await expectInvalid(create({ imageUrl: IMAGE, shareToFeed: true }), 'share_to_feed', 'share_to_feed can only be given for REELS.');
    await expectInvalid(
      create({ mediaType: 'STORIES', videoUrl: VIDEO, audioName: 'Song' }),
      'audio_name',
      'audio_name can only be given for REELS.',
    );
    await expectInvalid(create({ imageUrl: IMAGE, thumbOffset: 10 }), 'thumb_offset', 'thumb_offset can only be given for a video.');
    await expectInvalid(
      create({ mediaType: 'REELS', videoUrl: VIDEO, thumbOffset: 1.5 }),
      'thumb_offset',
      'thumb_offset must be a whole number of milliseconds.',
    );
    await expectPublishing(create({ mediaType: 'REELS', videoUrl: VIDEO, thumbOffset: -1 }), THUMB_OFFSET);
    expect((await create({ mediaType: 'VIDEO', videoUrl: VIDEO, isCarouselItem: true, thumbOffset: 0 })).thumbOffset).toBe(0);

    await expectInvalid(
      create({ mediaType: 'REELS', videoUrl: VIDEO, altText: 'x' }),
      'alt_text',
      'alt_text can only be given for an image post or carousel image.',
    );
    await expectInvalid(
      create({ mediaType: 'STORIES', imageUrl: IMAGE, altText: 'x' }),
      'alt_text',
      'alt_text can only be given for an image post or carousel image.',
    );
    await expectInvalid(create({ imageUrl: IMAGE, altText: 'a'.repeat(1001) }), 'alt_text', 'alt_text can have at most 1000 characters.');
    expect((await create({ imageUrl: IMAGE, isCarouselItem: true, altText: 'a'.repeat(1000) })).altText).toHaveLength(1000);

    await expectUnknown(service.createContainer(missingId('account'), { imageUrl: IMAGE }), missingId('account'), 'post');
  });

  it('builds a carousel only from finished, unexpired carousel items of the same account', async () => {
    setClock(T0);
    const item = async (account = publisher) => (await service.createContainer(account, { imageUrl: IMAGE, isCarouselItem: true })).id;
    const a = await item();
    const b = await item();
    const video = (await service.createContainer(publisher, { mediaType: 'VIDEO', videoUrl: VIDEO, isCarouselItem: true })).id;
    const plain = (await service.createContainer(publisher, { imageUrl: IMAGE })).id;
    const foreign = await item(stranger);
    const carousel = (children: string[]) => service.createContainer(publisher, { mediaType: 'CAROUSEL', children });
    const notAnItem = (id: string) => `The carousel item ${id} does not exist or is not a carousel item of this account.`;

    await expectPublishing(carousel([a, video]), NOT_READY);
    await expectInvalid(carousel([a, foreign]), 'children', notAnItem(foreign));
    await expectInvalid(carousel([a, plain]), 'children', notAnItem(plain));
    await expectInvalid(carousel([a, missingId('container')]), 'children', notAnItem(missingId('container')));
    await expectInvalid(carousel([a, 'abc']), 'children', notAnItem('abc'));

    setClock(new Date(T0.getTime() + 30_000));
    const made = await carousel([a, b, video]);
    expect(made).toMatchObject({ mediaType: 'CAROUSEL', children: [a, b, video], statusCode: 'FINISHED', imageUrl: null, videoUrl: null });
    setClock(new Date(T0.getTime() + DAY));
    await expectPublishing(carousel([a, b]), EXPIRED);
  });

  it('publishes an image with its mentions and tags, in the media table, once, and logs the mentions its service chose', async () => {
    setClock(T0);
    const logBefore = await lastEventPosition(db);
    const container = await service.createContainer(publisher, {
      imageUrl: IMAGE,
      caption: 'Thanks @friend.one and @FRIEND_TWO. cc @nobody_here @publisher_one, mail a@b.example',
      userTags: [
        { username: 'friend_two', x: 0.1, y: 0.2 },
        { username: 'ghost_user', x: 0.3, y: 0.4 },
        { username: 'publisher_one', x: 0.5, y: 0.5 },
      ],
    });
    setClock(new Date(T0.getTime() + 60_000));
    const published = await service.publishContainer(publisher, container.id);
    expect(Object.keys(published)).toEqual(['id']);
    expect(isSocialId(published.id, 'media')).toBe(true);
    expect(await mediaRow(published.id)).toMatchObject({
      owner_id: publisher,
      caption: container.caption,
      media_type: 'IMAGE',
      media_product_type: 'FEED',
      media_url: IMAGE,
      permalink: `https://social.example/p/${shortcodeOf(published.id)}`,
      thumbnail_url: null,
      timestamp: clock(),
      carousel_parent_id: null,
    });
    // The shortcode is the id in the platform's 64-letter alphabet: it reads back to the id.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const decoded = [...shortcodeOf(published.id)].reduce((value, letter) => value * 64n + BigInt(alphabet.indexOf(letter)), 0n);
    expect(decoded.toString()).toBe(published.id);
    const mentions = await db
      .selectFrom('social.mention')
      .select(['account_id', 'comment_id'])
      .where('media_id', '=', published.id)
      .orderBy('account_id')
      .execute();
    expect(mentions).toEqual([friendOne, friendTwo].sort().map((account_id) => ({ account_id, comment_id: null })));
    const tags = await db.selectFrom('social.media_tag').select('account_id').where('media_id', '=', published.id).execute();
    expect(tags).toEqual([{ account_id: friendTwo }]);
    // Exactly the events the publishing chose, in its transaction: each account the caption newly @mentions (not the
    // publisher itself, nor an unknown name, nor the tags), media_id only (§6.5).
    expect(
      (await readEventsAfter(db, logBefore, 100)).map(({ accountId, kind, field, value }) => ({ accountId, kind, field, value })),
    ).toEqual(
      [friendOne, friendTwo]
        .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))
        .map((accountId) => ({ accountId, kind: 'mentioned', field: 'mentions', value: { media_id: published.id } })),
    );
    expect(await service.getContainer(publisher, container.id)).toMatchObject({
      statusCode: 'PUBLISHED',
      publishedMediaId: published.id,
      publishedAt: clock(),
    });

    await expectInvalid(
      service.publishContainer(publisher, container.id),
      'creation_id',
      `The container ${container.id} has already been published.`,
    );
    // Still PUBLISHED, not EXPIRED, after a day.
    setClock(new Date(T0.getTime() + 2 * DAY));
    expect((await service.getContainer(publisher, container.id)).statusCode).toBe('PUBLISHED');
  });

  it('publishes reels, stories and legacy videos with their media and product types', async () => {
    setClock(T0);
    const instant = serviceWith({ videoProcessingSeconds: 0 });
    const cases: [CreateContainerInput, string, string, string, string | null][] = [
      [{ mediaType: 'REELS', videoUrl: VIDEO, coverUrl: COVER }, 'VIDEO', 'REELS', VIDEO, COVER],
      [{ mediaType: 'VIDEO', videoUrl: VIDEO }, 'VIDEO', 'REELS', VIDEO, null],
      [{ mediaType: 'STORIES', videoUrl: VIDEO }, 'VIDEO', 'STORY', VIDEO, null],
      [{ mediaType: 'STORIES', imageUrl: IMAGE_2 }, 'IMAGE', 'STORY', IMAGE_2, null],
    ];
    for (const [input, mediaType, productType, url, thumbnail] of cases) {
      const { id } = await instant.createContainer(publisher, input);
      const media = await mediaRow((await instant.publishContainer(publisher, id)).id);
      expect(media).toMatchObject({ media_type: mediaType, media_product_type: productType, media_url: url, thumbnail_url: thumbnail });
    }
  });

  it('refuses to publish what is missing, foreign, an item, unready, expired or failed', async () => {
    setClock(T0);
    await expectMissing(service.publishContainer(publisher, undefined), 'creation_id');
    await expectMissing(service.publishContainer(publisher, '  '), 'creation_id');
    await expectPublishing(service.publishContainer(publisher, missingId('container')), NOT_FOUND(missingId('container')));
    await expectPublishing(service.publishContainer(publisher, 'abc'), NOT_FOUND('abc'));
    const foreign = await service.createContainer(stranger, { imageUrl: IMAGE });
    await expectPublishing(service.publishContainer(publisher, foreign.id), NOT_FOUND(foreign.id));
    const item = await service.createContainer(publisher, { imageUrl: IMAGE, isCarouselItem: true });
    await expectInvalid(
      service.publishContainer(publisher, item.id),
      'creation_id',
      `The container ${item.id} is a carousel item: publish the carousel container that holds it.`,
    );
    const reel = await service.createContainer(publisher, { mediaType: 'REELS', videoUrl: VIDEO });
    await expectPublishing(service.publishContainer(publisher, reel.id), NOT_READY);
    const image = await service.createContainer(publisher, { imageUrl: IMAGE });
    const broken = await service.createContainer(publisher, { imageUrl: IMAGE });
    await db.updateTable('social.media_container').set({ status_code: 'ERROR' }).where('id', '=', broken.id).execute();
    expect((await service.getContainer(publisher, broken.id)).statusCode).toBe('ERROR');
    await expectPublishing(service.publishContainer(publisher, broken.id), FAILED);
    setClock(new Date(T0.getTime() + 30_000));
    expect(isSocialId((await service.publishContainer(publisher, reel.id)).id, 'media')).toBe(true);
    setClock(new Date(T0.getTime() + DAY));
    await expectPublishing(service.publishContainer(publisher, image.id), EXPIRED);
    // None of the refusals published anything.
    expect((await service.getContainer(publisher, image.id)).publishedMediaId).toBeNull();
    expect((await service.getContainer(stranger, foreign.id)).publishedMediaId).toBeNull();
    await expectUnknown(service.publishContainer(missingId('account'), image.id), missingId('account'), 'post');
  });

  it('publishes a carousel as an album with linked children, tags shown on the album', async () => {
    setClock(T0);
    const first = await service.createContainer(publisher, {
      imageUrl: IMAGE,
      isCarouselItem: true,
      userTags: [{ username: 'friend.one', x: 0.2, y: 0.2 }],
    });
    const second = await service.createContainer(publisher, { mediaType: 'VIDEO', videoUrl: VIDEO, isCarouselItem: true });
    const third = await service.createContainer(publisher, { imageUrl: IMAGE_2, isCarouselItem: true });
    setClock(new Date(T0.getTime() + 60_000));
    const album = await service.createContainer(publisher, {
      mediaType: 'CAROUSEL',
      children: [third.id, second.id, first.id],
      caption: 'Three @friend_two',
    });
    const rival = await service.createContainer(publisher, { mediaType: 'CAROUSEL', children: [first.id, third.id] });
    const { id } = await service.publishContainer(publisher, album.id);
    const permalink = `https://social.example/p/${shortcodeOf(id)}`;
    expect(await mediaRow(id)).toMatchObject({
      media_type: 'CAROUSEL_ALBUM',
      media_product_type: 'FEED',
      media_url: IMAGE_2,
      caption: 'Three @friend_two',
      permalink,
      carousel_parent_id: null,
    });
    const children = await db
      .selectFrom('social.media')
      .select(['id', 'media_type', 'media_product_type', 'media_url', 'caption', 'permalink'])
      .where('carousel_parent_id', '=', id)
      .orderBy('id')
      .execute();
    expect(children.map(({ id: _id, ...rest }) => rest)).toEqual([
      { media_type: 'IMAGE', media_product_type: 'FEED', media_url: IMAGE_2, caption: '', permalink },
      { media_type: 'VIDEO', media_product_type: 'FEED', media_url: VIDEO, caption: '', permalink },
      { media_type: 'IMAGE', media_product_type: 'FEED', media_url: IMAGE, caption: '', permalink },
    ]);
    for (const [index, child] of [third, second, first].entries()) {
      expect(await service.getContainer(publisher, child.id)).toMatchObject({
        statusCode: 'PUBLISHED',
        publishedMediaId: children[index]!.id,
      });
    }
    expect(await db.selectFrom('social.media_tag').select('account_id').where('media_id', '=', id).execute()).toEqual([
      { account_id: friendOne },
    ]);
    expect(
      await db
        .selectFrom('social.media_tag')
        .select('media_id')
        .where(
          'media_id',
          'in',
          children.map((child) => child.id),
        )
        .execute(),
    ).toEqual([]);
    expect(await db.selectFrom('social.mention').select('account_id').where('media_id', '=', id).execute()).toEqual([
      { account_id: friendTwo },
    ]);
    // A carousel sharing an item that is now published cannot be published any more.
    await expectInvalid(service.publishContainer(publisher, rival.id), 'children', `The container ${first.id} has already been published.`);
  });

  it('refuses a carousel whose item expired after the carousel was made', async () => {
    setClock(T0);
    const early = await service.createContainer(publisher, { imageUrl: IMAGE, isCarouselItem: true });
    setClock(new Date(T0.getTime() + 20 * HOUR));
    const late = await service.createContainer(publisher, { imageUrl: IMAGE, isCarouselItem: true });
    const album = await service.createContainer(publisher, { mediaType: 'CAROUSEL', children: [early.id, late.id] });
    setClock(new Date(T0.getTime() + DAY));
    expect((await service.getContainer(publisher, album.id)).statusCode).toBe('FINISHED');
    await expectPublishing(service.publishContainer(publisher, album.id), EXPIRED);
    expect((await service.getContainer(publisher, album.id)).statusCode).toBe('FINISHED');
  });

  it('enforces the publishing quota over a rolling 24 hours, a carousel counting once', async () => {
    setClock(T0);
    const quota = await newAccount('quota_account');
    const limited = serviceWith({ publishingQuota: 3 });
    const publishImage = async () => limited.publishContainer(quota, (await limited.createContainer(quota, { imageUrl: IMAGE })).id);

    await publishImage();
    setClock(new Date(T0.getTime() + HOUR));
    const items = [
      await limited.createContainer(quota, { imageUrl: IMAGE, isCarouselItem: true }),
      await limited.createContainer(quota, { imageUrl: IMAGE_2, isCarouselItem: true }),
    ];
    const album = await limited.createContainer(quota, { mediaType: 'CAROUSEL', children: items.map((child) => child.id) });
    await limited.publishContainer(quota, album.id);
    setClock(new Date(T0.getTime() + 2 * HOUR));
    await publishImage();
    expect(await limited.contentPublishingLimit(quota)).toEqual({ quotaUsage: 3, config: { quotaTotal: 3, quotaDuration: 86400 } });

    setClock(new Date(T0.getTime() + 3 * HOUR));
    const blocked = await limited.createContainer(quota, { imageUrl: IMAGE });
    await expectPublishing(limited.publishContainer(quota, blocked.id), LIMIT_REACHED, 'RESOURCE_EXHAUSTED');
    expect((await limited.getContainer(quota, blocked.id)).statusCode).toBe('FINISHED');
    setClock(new Date(T0.getTime() + DAY - 1000));
    await expect(limited.publishContainer(quota, blocked.id)).rejects.toMatchObject({ details: { subcode: 2207042 } });
    // 24 hours after the first publication, it no longer counts.
    setClock(new Date(T0.getTime() + DAY));
    expect(isSocialId((await limited.publishContainer(quota, blocked.id)).id, 'media')).toBe(true);
    expect((await limited.contentPublishingLimit(quota)).quotaUsage).toBe(3);
    // The default quota is the publishing guide's 100.
    expect((await service.contentPublishingLimit(quota)).config).toEqual({ quotaTotal: 100, quotaDuration: 86400 });
  });

  it('counts publications since a time within the last 24 hours', async () => {
    setClock(T0);
    const counted = await newAccount('limit_since');
    for (const offset of [0, HOUR, 2 * HOUR]) {
      setClock(new Date(T0.getTime() + offset));
      await service.publishContainer(counted, (await service.createContainer(counted, { imageUrl: IMAGE })).id);
    }
    setClock(new Date(T0.getTime() + 3 * HOUR));
    const usage = async (since: string | number) => (await service.contentPublishingLimit(counted, since)).quotaUsage;
    expect(await usage(T0_SECONDS + 3600)).toBe(2);
    expect(await usage(String(T0_SECONDS + 3601))).toBe(1);
    expect(await usage('-150 minutes')).toBe(2);
    expect(await usage(T0_SECONDS + 3 * 3600)).toBe(0);
    expect(await usage(T0_SECONDS + 3 * 3600 - 86400)).toBe(3);
    const message = 'The parameter since must be a unix timestamp within the last 24 hours.';
    await expectInvalid(service.contentPublishingLimit(counted, T0_SECONDS + 3 * 3600 - 86401), 'since', message);
    await expectInvalid(service.contentPublishingLimit(counted, T0_SECONDS + 3 * 3600 + 1), 'since', message);
    await expectInvalid(service.contentPublishingLimit(counted, 'whenever'), 'since', message);
  });
});
