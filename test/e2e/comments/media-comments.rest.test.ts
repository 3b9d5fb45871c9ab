import { beforeAll, describe, expect, it } from 'vitest';
import { expectGraphError, invalidParameter, missingParameter, unsupported } from '../../support/graph-error-expectations.ts';
import {
  at,
  type CommentsWorld,
  created,
  cursor,
  del,
  expectOk,
  get,
  HOSTS,
  post,
  setClock,
  type Side,
  T0,
  useCommentsWorld,
} from '../../support/comments-rest-world.ts';

/**
 * Area B over the Graph-style REST paths (test/support/comments-rest-world.ts): The media comments edge /{media_id}/comments on
 * both hosts, and comments on live video.
 */

const commentsWorld = useCommentsWorld();
let world: CommentsWorld;
beforeAll(() => {
  world = commentsWorld();
});

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
    setClock(T0 + 5 * 60_000);
    const id = await created(post(side, `/v25.0/${media}/comments`, side.token, { message: 'Fresh roast today' }));
    setClock(T0);
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
