import { beforeAll, describe, expect, it } from 'vitest';
import { socialId } from '../../../lib/social-graph/social-ids.ts';
import { expectGraphError, invalidParameter, missingParameter, notAllowed, unsupported } from '../../support/graph-error-expectations.ts';
import type { CommentThread } from '../../support/social-fixture.ts';
import { at, type CommentsWorld, del, expectOk, get, HOSTS, post, type Side, useCommentsWorld } from '../../support/comments-rest-world.ts';

/**
 * Area B over the Graph-style REST paths (test/support/comments-rest-world.ts): POST /{comment_id}?hide= (hide and show) and DELETE
 * /{comment_id} on both hosts.
 */

const commentsWorld = useCommentsWorld();
let world: CommentsWorld;
beforeAll(() => {
  world = commentsWorld();
});

describe.each(HOSTS)('POST /{comment_id}?hide= (hide and show) on the $host', ({ login }) => {
  let side: Side;
  /** This block's own copy of post[0]'s comments: its tests hide and show them. */
  let thread: CommentThread;
  beforeAll(async () => {
    side = world.side(login);
    thread = await world.newCommentThread();
  });

  const hiddenOf = async (id: string) => {
    const reply = await get(side, `/v25.0/${id}`, side.token, { fields: 'hidden' });
    expect(reply.status, reply.text).toBe(200);
    return reply.body.hidden as boolean;
  };

  it('hides with hide=true and shows again with hide=false, answering {"success":true}', async () => {
    const { fanTwoComment } = thread;
    const hidden = await post(side, `/v25.0/${fanTwoComment}`, side.token, { hide: 'true' });
    expectOk(hidden, { success: true });
    expect(hidden.text).toBe('{"success":true}');
    expect(await hiddenOf(fanTwoComment)).toBe(true);
    // Hiding twice is still a success.
    expectOk(await post(side, `/v25.0/${fanTwoComment}`, side.token, { hide: 'true' }), { success: true });
    expect(await hiddenOf(fanTwoComment)).toBe(true);
    expectOk(await post(side, `/v25.0/${fanTwoComment}`, side.token, { hide: 'false' }), { success: true });
    expect(await hiddenOf(fanTwoComment)).toBe(false);
  });

  it('shows a hidden comment', async () => {
    const id = await world.addComment(world.fixture.posts[1]!, world.fixture.accounts.fanTwo, 'was hidden', { hidden: true });
    expect(await hiddenOf(id)).toBe(true);
    expectOk(await post(side, `/v25.0/${id}`, side.token, { hide: 'false' }), { success: true });
    expect(await hiddenOf(id)).toBe(false);
  });

  it('takes hide and the token from a form-urlencoded body', async () => {
    const id = await world.addComment(world.fixture.posts[1]!, world.fixture.accounts.fanOne, 'form body');
    const reply = await side.rest.request('POST', `/v25.0/${id}`, {
      raw: new URLSearchParams({ hide: 'true', access_token: side.token }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectOk(reply, { success: true });
    expect(await hiddenOf(id)).toBe(true);
  });

  it('takes hide and the token from a JSON body (hide as a JSON boolean)', async () => {
    const id = await world.addComment(world.fixture.posts[1]!, world.fixture.accounts.fanOne, 'json body');
    expectOk(await side.rest.request('POST', `/v25.0/${id}`, { json: { hide: true, access_token: side.token } }), { success: true });
    expect(await hiddenOf(id)).toBe(true);
    expectOk(await side.rest.request('POST', `/${id}`, { json: { hide: false }, token: side.token }), { success: true });
    expect(await hiddenOf(id)).toBe(false);
  });

  it('hides a reply', async () => {
    const { fanReply } = thread;
    expectOk(await post(side, `/v25.0/${fanReply}`, side.token, { hide: 'true' }), { success: true });
    expect(await hiddenOf(fanReply)).toBe(true);
  });

  it('answers success for the owner’s own comment on its media but leaves it shown', async () => {
    const { ownerComment } = thread;
    expectOk(await post(side, `/v25.0/${ownerComment}`, side.token, { hide: 'true' }), { success: true });
    expect(await hiddenOf(ownerComment)).toBe(false);
  });

  it('accepts the optional ad_id parameter next to hide', async () => {
    const id = await world.addComment(world.fixture.posts[1]!, world.fixture.accounts.fanOne, 'an ad comment');
    expectOk(await post(side, `/v25.0/${id}`, side.token, { hide: 'true', ad_id: '120200000000000001' }), { success: true });
    expect(await hiddenOf(id)).toBe(true);
  });

  it('refuses the comment’s author when it does not own the media: (#10)', async () => {
    expectGraphError(await post(side, `/v25.0/${world.blueOnRoaster}`, side.bluebottleOnly, { hide: 'true' }), notAllowed);
  });

  it('refuses a token that does not act for the media owner: 100/33 post', async () => {
    const { fanComment } = thread;
    expectGraphError(await post(side, `/v25.0/${fanComment}`, side.stranger, { hide: 'true' }), unsupported('post', fanComment));
    expectGraphError(await post(side, `/v25.0/${fanComment}`, side.roasterOnly, { hide: 'true' }), unsupported('post', fanComment));
    expect(await hiddenOf(fanComment)).toBe(false);
  });

  it('refuses an unknown comment: 100/33 post', async () => {
    const unknown = socialId('comment', 9_999_998n);
    expectGraphError(await post(side, `/v25.0/${unknown}`, side.token, { hide: 'true' }), unsupported('post', unknown));
  });

  it('requires hide: (#100) The parameter hide is required', async () => {
    expectGraphError(await post(side, `/v25.0/${thread.fanComment}`), missingParameter('hide'));
    expectGraphError(await side.rest.request('POST', `/v25.0/${thread.fanComment}`, { token: side.token }), missingParameter('hide'));
  });

  it('requires hide when only ad_id is given', async () => {
    expectGraphError(
      await post(side, `/v25.0/${thread.fanComment}`, side.token, { ad_id: '120200000000000001' }),
      missingParameter('hide'),
    );
  });

  it('refuses a hide value that is not a boolean: 100 Invalid parameter', async () => {
    expectGraphError(
      await post(side, `/v25.0/${thread.fanComment}`, side.token, { hide: 'maybe' }),
      invalidParameter('hide must be true or false, got "maybe".'),
    );
  });

  it('does not create or update a comment at its own address: 100/33 Unsupported post request', async () => {
    const { fanComment } = thread;
    expectGraphError(await post(side, `/v25.0/${fanComment}`, side.token, { message: 'edited text' }), unsupported('post', fanComment));
    expectOk(await get(side, `/v25.0/${fanComment}`), { id: fanComment, text: 'Love this!', timestamp: at(13) });
  });
});

// =====================================================================================================================

describe.each(HOSTS)('DELETE /{comment_id} on the $host', ({ login }) => {
  let side: Side;
  /** This block's own copy of post[0]'s comments: its tests delete them. */
  let thread: CommentThread;
  beforeAll(async () => {
    side = world.side(login);
    thread = await world.newCommentThread();
  });

  it('lets the media owner delete a fan’s comment, which is then unreadable', async () => {
    const { fanTwoComment } = thread;
    const reply = await del(side, `/v25.0/${fanTwoComment}`);
    expectOk(reply, { success: true });
    expect(reply.text).toBe('{"success":true}');
    expectGraphError(await get(side, `/v25.0/${fanTwoComment}`), unsupported('get', fanTwoComment));
    // Deleting it again: it no longer exists.
    expectGraphError(await del(side, `/v25.0/${fanTwoComment}`), unsupported('delete', fanTwoComment));
  });

  it('deletes a comment’s replies with it: neither the replies nor the replies edge can be read', async () => {
    const { fanComment, fanReply, ownerReply } = thread;
    expectOk(await side.rest.request('DELETE', `/${fanComment}`, { token: side.token }), { success: true });
    expectGraphError(await get(side, `/v25.0/${fanComment}`), unsupported('get', fanComment));
    expectGraphError(await get(side, `/v25.0/${fanComment}/replies`), unsupported('get', fanComment));
    expectGraphError(await get(side, `/v25.0/${fanReply}`), unsupported('get', fanReply));
    expectGraphError(await get(side, `/v25.0/${ownerReply}`), unsupported('get', ownerReply));
    const list = await get(side, `/v25.0/${thread.post}/comments`);
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((c: { id: string }) => c.id)).not.toContain(fanComment);
  });

  it('takes the token from a JSON body on DELETE', async () => {
    const id = await world.addComment(world.fixture.posts[1]!, world.fixture.accounts.fanTwo, 'json delete');
    expectOk(await side.rest.request('DELETE', `/v25.0/${id}`, { json: { access_token: side.token } }), { success: true });
    expectGraphError(await get(side, `/v25.0/${id}`), unsupported('get', id));
  });

  it('lets the author delete its own comment on another account’s media', async () => {
    const id = await world.addComment(world.fixture.media.roasterPost, world.fixture.accounts.bluebottle, 'my own words');
    expectOk(await get(side, `/v25.0/${id}`, side.bluebottleOnly), { id, text: 'my own words', timestamp: '2026-11-01T21:00:00+0000' });
    expectOk(await del(side, `/v25.0/${id}`, side.bluebottleOnly), { success: true });
    expectGraphError(await get(side, `/v25.0/${id}`, side.bluebottleOnly), unsupported('get', id));
    // The media owner no longer sees it either.
    expectGraphError(await get(side, `/v25.0/${id}`, side.roasterOnly), unsupported('get', id));
  });

  it('lets the owner delete a reply, leaving its parent', async () => {
    const parentId = await world.addComment(world.fixture.posts[2]!, world.fixture.accounts.fanOne, 'parent');
    const replyId = await world.addComment(world.fixture.posts[2]!, world.fixture.accounts.fanTwo, 'child', { parentId });
    expectOk(await del(side, `/v25.0/${replyId}`), { success: true });
    expectGraphError(await get(side, `/v25.0/${replyId}`), unsupported('get', replyId));
    expectOk(await get(side, `/v25.0/${parentId}/replies`), { data: [] });
  });

  it('refuses a token that acts for neither the author nor the media owner: 100/33 delete', async () => {
    const id = await world.addComment(world.fixture.posts[3]!, world.fixture.accounts.fanOne, 'keep me');
    expectGraphError(await del(side, `/v25.0/${id}`, side.stranger), unsupported('delete', id));
    expectGraphError(await del(side, `/v25.0/${id}`, side.roasterOnly), unsupported('delete', id));
    expectOk(await get(side, `/v25.0/${id}`), { id, text: 'keep me', timestamp: '2026-11-01T21:00:00+0000' });
  });

  it('refuses an unknown comment: 100/33 delete', async () => {
    const unknown = socialId('comment', 9_999_997n);
    expectGraphError(await del(side, `/v25.0/${unknown}`), unsupported('delete', unknown));
    expectGraphError(await del(side, '/v25.0/nope'), unsupported('delete', 'nope'));
  });
});
