import { beforeAll, describe, expect, it } from 'vitest';
import { socialId } from '../../../lib/social-graph/social-ids.ts';
import { expectGraphError, unknownField, unsupported } from '../../support/graph-error-expectations.ts';
import {
  at,
  type CommentsWorld,
  cursor,
  expectOk,
  get,
  GRAPH_TIMESTAMP,
  HOSTS,
  type Side,
  useCommentsWorld,
} from '../../support/comments-rest-world.ts';

/**
 * Area B over the Graph-style REST paths (test/support/comments-rest-world.ts): GET /{comment_id}: the comment node read with
 * `fields` on both hosts, and what is not readable.
 */

const commentsWorld = useCommentsWorld();
let world: CommentsWorld;
beforeAll(() => {
  world = commentsWorld();
});

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
