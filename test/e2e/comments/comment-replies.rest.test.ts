import { beforeAll, describe, expect, it } from 'vitest';
import { socialId } from '../../../lib/social-graph/social-ids.ts';
import {
  expectGraphError,
  invalidParameter,
  missingParameter,
  notAllowed,
  unknownPath,
  unsupported,
} from '../../support/graph-error-expectations.ts';
import type { CommentThread } from '../../support/social-fixture.ts';
import {
  at,
  type CommentsWorld,
  created,
  cursor,
  expectOk,
  get,
  HOSTS,
  post,
  setClock,
  type Side,
  T0,
  useCommentsWorld,
  withQuery,
} from '../../support/comments-rest-world.ts';

/**
 * Area B over the Graph-style REST paths (test/support/comments-rest-world.ts): The replies edge /{comment_id}/replies on both
 * hosts: listing, paging and creating replies.
 */

const commentsWorld = useCommentsWorld();
let world: CommentsWorld;
beforeAll(() => {
  world = commentsWorld();
});

describe.each(HOSTS)('replies edge /{comment_id}/replies on the $host', ({ login }) => {
  let side: Side;
  /** This block's own copy of post[0]'s comments: its tests reply to them. */
  let thread: CommentThread;
  beforeAll(async () => {
    side = world.side(login);
    thread = await world.newCommentThread();
  });

  it('lists replies oldest first with the default fields id, text, timestamp', async () => {
    const { fanComment, ownerReply, fanReply } = thread;
    expectOk(await get(side, `/v25.0/${fanComment}/replies`), {
      data: [
        { id: ownerReply, text: 'Thank you!', timestamp: at(17) },
        { id: fanReply, text: 'Me too', timestamp: at(18) },
      ],
      paging: { cursors: { before: cursor, after: cursor } },
    });
  });

  it('lists the requested fields of each reply, and an empty list for a reply', async () => {
    const { fanComment, ownerReply, fanReply } = thread;
    expectOk(await side.rest.request('GET', `/${fanComment}/replies?fields=username,parent_id,user`, { token: side.token }), {
      data: [
        { username: 'bluebottle', parent_id: fanComment, user: { id: world.fixture.accounts.bluebottle }, id: ownerReply },
        { username: 'fan_two', parent_id: fanComment, id: fanReply },
      ],
      paging: { cursors: { before: cursor, after: cursor } },
    });
    expectOk(await get(side, `/v25.0/${fanReply}/replies`), { data: [] });
  });

  it('creates a reply with POST ?message=, answering {"id":…}; the reply is by the media owner', async () => {
    const { fanTwoComment } = thread;
    setClock(T0 + 60_000);
    const id = await created(post(side, `/v25.0/${fanTwoComment}/replies`, side.token, { message: 'It is in Oakland' }));
    expectOk(
      await get(side, `/v25.0/${id}`, side.token, {
        fields: 'id,text,timestamp,parent_id,hidden,like_count,media,user,username,from,legacy_social_comment_id',
      }),
      {
        id,
        text: 'It is in Oakland',
        timestamp: '2026-11-02T10:01:00+0000',
        parent_id: fanTwoComment,
        hidden: false,
        like_count: 0,
        media: { id: thread.post },
        user: { id: world.fixture.accounts.bluebottle },
        username: 'bluebottle',
        from: { id: world.fixture.accounts.bluebottle, username: 'bluebottle' },
        legacy_social_comment_id: id,
      },
    );
    const list = await get(side, `/v25.0/${fanTwoComment}/replies`);
    expect(list.body.data).toEqual([{ id, text: 'It is in Oakland', timestamp: '2026-11-02T10:01:00+0000' }]);
  });

  it('stamps a new reply with the second it was made in, never a later one', async () => {
    setClock(T0 + 2 * 60_000 + 700); // 10:02:00.700
    const id = await created(post(side, `/v25.0/${thread.fanTwoComment}/replies`, side.token, { message: 'late in the second' }));
    setClock(T0);
    expectOk(await get(side, `/v25.0/${id}`, side.token, { fields: 'timestamp' }), { timestamp: '2026-11-02T10:02:00+0000', id });
  });

  it('takes message and the token from a JSON or form body', async () => {
    const { ownerComment } = thread;
    const fromJson = await created(
      side.rest.request('POST', `/v25.0/${ownerComment}/replies`, { json: { message: 'json reply', access_token: side.token } }),
    );
    const fromForm = await created(
      side.rest.request('POST', `/v25.0/${ownerComment}/replies`, {
        raw: new URLSearchParams({ message: 'form reply', access_token: side.token }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
    );
    const list = await get(side, `/v25.0/${ownerComment}/replies`, side.token, { fields: 'text' });
    expect(list.body.data).toEqual([
      { text: 'json reply', id: fromJson },
      { text: 'form reply', id: fromForm },
    ]);
  });

  it('attaches a reply to a reply to the top-level comment', async () => {
    const { fanComment, fanReply } = thread;
    const id = await created(post(side, `/v25.0/${fanReply}/replies`, side.token, { message: 'Replying to a reply' }));
    expectOk(await get(side, `/v25.0/${id}`, side.token, { fields: 'parent_id,text' }), {
      parent_id: fanComment,
      text: 'Replying to a reply',
      id,
    });
    const list = await get(side, `/v25.0/${fanComment}/replies`, side.token, { fields: 'id' });
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([thread.ownerReply, fanReply, id]);
  });

  it('refuses a reply to a hidden comment: 100 Invalid parameter', async () => {
    expectGraphError(
      await post(side, `/v25.0/${thread.hiddenComment}/replies`, side.token, { message: 'hello?' }),
      invalidParameter('Hidden comments take no replies.'),
    );
  });

  it('refuses a reply to a reply whose top-level comment is hidden', async () => {
    const top = await world.addComment(world.fixture.posts[3]!, world.fixture.accounts.fanOne, 'hidden top', { hidden: true });
    const child = await world.addComment(world.fixture.posts[3]!, world.fixture.accounts.fanTwo, 'visible child', { parentId: top });
    expectGraphError(
      await post(side, `/v25.0/${child}/replies`, side.token, { message: 'hello?' }),
      invalidParameter('Hidden comments take no replies.'),
    );
  });

  it('requires message: (#100) The parameter message is required', async () => {
    expectGraphError(await post(side, `/v25.0/${thread.fanComment}/replies`), missingParameter('message'));
    expectGraphError(await post(side, `/v25.0/${thread.fanComment}/replies`, side.token, { message: '' }), missingParameter('message'));
  });

  it('refuses a reply by the comment’s author on media it does not own: (#10)', async () => {
    expectGraphError(await post(side, `/v25.0/${world.blueOnRoaster}/replies`, side.bluebottleOnly, { message: 'hi' }), notAllowed);
  });

  it('refuses a token that does not act for the media owner: 100/33', async () => {
    const { fanComment } = thread;
    expectGraphError(await post(side, `/v25.0/${fanComment}/replies`, side.stranger, { message: 'hi' }), unsupported('post', fanComment));
    expectGraphError(await get(side, `/v25.0/${fanComment}/replies`, side.stranger), unsupported('get', fanComment));
  });

  it('refuses replies on comments that do not exist, and an unknown path after a comment', async () => {
    const unknown = socialId('comment', 9_999_996n);
    expectGraphError(await get(side, `/v25.0/${unknown}/replies`), unsupported('get', unknown));
    expectGraphError(await post(side, `/v25.0/${unknown}/replies`, side.token, { message: 'x' }), unsupported('post', unknown));
    const nope = await get(side, `/v25.0/${thread.fanComment}/likes`);
    expectGraphError(nope, unknownPath('/likes'));
  });

  it('refuses a bad limit, a bad cursor, and after with before: 100 Invalid parameter', async () => {
    const path = `/v25.0/${thread.fanComment}/replies`;
    expectGraphError(
      await get(side, path, side.token, { limit: 'abc' }),
      invalidParameter('The parameter limit must be a non-negative integer, got "abc".'),
    );
    expectGraphError(await get(side, path, side.token, { after: 'not-a-cursor' }), invalidParameter('Invalid cursor.'));
    const first = await get(side, path, side.token, { limit: '1' });
    const { before, after } = first.body.paging.cursors;
    expectGraphError(
      await get(side, path, side.token, { after, before }),
      invalidParameter('The parameters after and before cannot be used together.'),
    );
  });

  it('accepts a message of 2200 characters and refuses a longer one', async () => {
    const path = `/v25.0/${thread.ownerComment}/replies`;
    await created(post(side, path, side.token, { message: 'é'.repeat(2200) }));
    expectGraphError(
      await post(side, path, side.token, { message: 'é'.repeat(2201) }),
      invalidParameter('The message must be at most 2200 characters.'),
    );
  });

  it('walks more than two pages with limit, after and before, without duplicate or gap', async () => {
    const longThread = await world.addComment(world.fixture.posts[4]!, world.fixture.accounts.fanOne, 'Thread', {
      timestamp: new Date('2026-11-01T22:00:00Z'),
    });
    const ids: string[] = [];
    // Seven replies; two pairs share a second, so the order falls back to the id.
    for (const offset of [0, 1, 1, 2, 3, 3, 4]) {
      setClock(T0 + 20 * 60_000 + offset * 1000);
      ids.push(await created(post(side, `/v25.0/${longThread}/replies`, side.token, { message: `reply ${ids.length}` })));
    }
    setClock(T0);

    const pages: string[][] = [];
    let reply = await get(side, `/v25.0/${longThread}/replies`, side.token, { limit: '3', fields: 'text' });
    for (;;) {
      expect(reply.status, reply.text).toBe(200);
      pages.push(reply.body.data.map((c: { id: string; text: string }) => c.id));
      for (const item of reply.body.data) expect(item).toEqual({ text: `reply ${ids.indexOf(item.id)}`, id: item.id });
      const paging = reply.body.paging;
      expect(paging.cursors).toEqual({ before: cursor, after: cursor });
      if (pages.length === 1) expect(paging.previous).toBeUndefined();
      else expect(paging.previous).toEqual(expect.any(String));
      if (paging.next === undefined) break;
      const next = new URL(paging.next);
      expect(next.pathname).toBe(`/v25.0/${longThread}/replies`);
      expect(Object.fromEntries(next.searchParams)).toEqual({
        limit: '3',
        fields: 'text',
        access_token: side.token,
        after: paging.cursors.after,
      });
      expect(pages.length).toBeLessThan(10);
      reply = await side.rest.request('GET', next.href);
    }
    expect(pages).toEqual([ids.slice(0, 3), ids.slice(3, 6), ids.slice(6)]);

    // And back with `before`, from the last page.
    const back: string[][] = [];
    let previous: string | undefined = reply.body.paging.previous;
    while (previous !== undefined) {
      const page = await side.rest.request('GET', previous);
      expect(page.status, page.text).toBe(200);
      back.unshift(page.body.data.map((c: { id: string }) => c.id));
      expect(page.body.paging.next).toEqual(expect.any(String));
      previous = page.body.paging.previous;
      expect(back.length).toBeLessThan(10);
    }
    expect(back).toEqual([ids.slice(0, 3), ids.slice(3, 6)]);

    // The cursors also work as parameters with the token in a header.
    const after = await side.rest.request('GET', withQuery(`/v25.0/${longThread}/replies`, { limit: '2' }), { token: side.token });
    expect(after.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 2));
    const secondPage = await side.rest.request(
      'GET',
      withQuery(`/v25.0/${longThread}/replies`, { limit: '2', after: after.body.paging.cursors.after }),
      {
        token: side.token,
      },
    );
    expect(secondPage.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(2, 4));
    expect(secondPage.body.paging.next).toBeDefined();
    expect(new URL(secondPage.body.paging.next).searchParams.has('access_token')).toBe(false);
    const firstAgain = await side.rest.request(
      'GET',
      withQuery(`/v25.0/${longThread}/replies`, { limit: '2', before: secondPage.body.paging.cursors.before }),
      {
        token: side.token,
      },
    );
    expect(firstAgain.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 2));
  });
});
