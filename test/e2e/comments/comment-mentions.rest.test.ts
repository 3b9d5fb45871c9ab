import { beforeAll, describe, expect, it } from 'vitest';
import {
  expectGraphError,
  invalidParameter,
  missingParameter,
  missingPermission,
  notAllowed,
  unknownField,
  unsupported,
} from '../../support/graph-error-expectations.ts';
import { PARENT_PERMISSIONS } from '../../support/social-fixture.ts';
import { at, type CommentsWorld, created, del, expectOk, get, HOSTS, post, useCommentsWorld } from '../../support/comments-rest-world.ts';

/**
 * Area B over the Graph-style REST paths (test/support/comments-rest-world.ts): Mentions (mentioned_comment, POST
 * /{account_id}/mentions) and the username gate of the comment-management permission.
 */

const commentsWorld = useCommentsWorld();
let world: CommentsWorld;
beforeAll(() => {
  world = commentsWorld();
});

describe('mentions: mentioned_comment and POST /{account_id}/mentions', () => {
  it('reads a comment that @mentions the account through mentioned_comment (parent-platform host)', async () => {
    const { roasterComment } = world.fixture.comments;
    const reply = await get(world.parent, `/v25.0/${world.fixture.accounts.bluebottle}`, world.parent.token, {
      fields: `mentioned_comment.comment_id(${roasterComment}){id,text,timestamp,like_count,media{id}}`,
    });
    expectOk(reply, {
      mentioned_comment: {
        id: roasterComment,
        text: 'Ask @bluebottle',
        timestamp: at(13),
        like_count: 0,
        media: { id: world.fixture.media.roasterPost },
      },
      id: world.fixture.accounts.bluebottle,
    });
    expect(Object.keys(reply.body)).toEqual(['mentioned_comment', 'id']);
  });

  it('gives mentioned_comment the default fields id, text, timestamp', async () => {
    const { roasterComment } = world.fixture.comments;
    expectOk(
      await get(world.parent, `/${world.fixture.accounts.bluebottle}`, world.parent.bluebottleOnly, {
        fields: `mentioned_comment.comment_id(${roasterComment})`,
      }),
      {
        mentioned_comment: { id: roasterComment, text: 'Ask @bluebottle', timestamp: at(13) },
        id: world.fixture.accounts.bluebottle,
      },
    );
  });

  it('refuses mentioned_comment without comment_id, or for a comment that does not mention the account', async () => {
    expectGraphError(
      await get(world.parent, `/v25.0/${world.fixture.accounts.bluebottle}`, world.parent.token, { fields: 'mentioned_comment{id}' }),
      missingParameter('comment_id'),
    );
    const { fanComment } = world.fixture.comments;
    expectGraphError(
      await get(world.parent, `/v25.0/${world.fixture.accounts.bluebottle}`, world.parent.token, {
        fields: `mentioned_comment.comment_id(${fanComment}){id}`,
      }),
      unsupported('get', fanComment),
    );
  });

  it('refuses mentioned_comment to a page role without the MANAGE, CREATE_CONTENT or MODERATE task: (#10)', async () => {
    const analyst = await world.graph.platformUser('Ann Analyst');
    await world.graph.pageRole(world.fixture.pages.bluebottle, analyst, { tasks: ['ANALYZE'] });
    const token = await world.fixture.token('parent', analyst, PARENT_PERMISSIONS);
    expectGraphError(
      await get(world.parent, `/v25.0/${world.fixture.accounts.bluebottle}`, token, {
        fields: `mentioned_comment.comment_id(${world.fixture.comments.roasterComment}){id}`,
      }),
      notAllowed,
    );
  });

  it('does not show through mentioned_comment a comment on age-gated media', async () => {
    const shadyMention = await world.addComment(world.fixture.media.shadyPost, world.fixture.accounts.fanOne, 'psst @bluebottle');
    await world.graph.mention(world.fixture.accounts.bluebottle, world.fixture.media.shadyPost, shadyMention);
    expectGraphError(
      await get(world.parent, `/v25.0/${world.fixture.accounts.bluebottle}`, world.parent.token, {
        fields: `mentioned_comment.comment_id(${shadyMention}){text}`,
      }),
      unsupported('get', shadyMention),
    );
  });

  it('does not know mentioned_comment on the own-login host', async () => {
    expectGraphError(
      await get(world.own, `/v25.0/${world.fixture.accounts.bluebottle}`, world.own.token, {
        fields: `mentioned_comment.comment_id(${world.fixture.comments.roasterComment}){id,text,timestamp,like_count,media{id}}`,
      }),
      unknownField('mentioned_comment', 'SocialUser'),
    );
  });

  it.each(HOSTS)('answers a comment mention with a reply on that comment ($host)', async ({ login }) => {
    const side = world.side(login);
    const { roasterComment } = world.fixture.comments;
    const id = await created(
      post(side, `/v25.0/${world.fixture.accounts.bluebottle}/mentions`, side.bluebottleOnly, {
        media_id: world.fixture.media.roasterPost,
        comment_id: roasterComment,
        message: `Thanks from ${login}`,
      }),
    );
    expectOk(await get(side, `/v25.0/${id}`, side.bluebottleOnly, { fields: 'text,parent_id,media,user' }), {
      text: `Thanks from ${login}`,
      parent_id: roasterComment,
      media: { id: world.fixture.media.roasterPost },
      user: { id: world.fixture.accounts.bluebottle },
      id,
    });
  });

  it.each(HOSTS)('answers a caption mention with a top-level comment on the media ($host)', async ({ login }) => {
    const side = world.side(login);
    const id = await created(
      side.rest.request('POST', `/v25.0/${world.fixture.accounts.bluebottle}/mentions`, {
        json: { media_id: world.fixture.media.roasterPost, message: `Caption thanks from ${login}`, access_token: side.bluebottleOnly },
      }),
    );
    expectOk(await get(side, `/v25.0/${id}`, side.bluebottleOnly, { fields: 'text,parent_id,media' }), {
      text: `Caption thanks from ${login}`,
      media: { id: world.fixture.media.roasterPost },
      id,
    });
  });

  it.each(HOSTS)('answers a mention made in a reply on the top-level comment ($host)', async ({ login }) => {
    const side = world.side(login);
    const { roasterComment } = world.fixture.comments;
    // fan_two replies to roasterComment and mentions @bluebottle in the reply.
    const mentioning = await world.addComment(
      world.fixture.media.roasterPost,
      world.fixture.accounts.fanTwo,
      `@bluebottle agreed (${login})`,
      { parentId: roasterComment },
    );
    await world.graph.mention(world.fixture.accounts.bluebottle, world.fixture.media.roasterPost, mentioning);
    const id = await created(
      post(side, `/v25.0/${world.fixture.accounts.bluebottle}/mentions`, side.bluebottleOnly, {
        media_id: world.fixture.media.roasterPost,
        comment_id: mentioning,
        message: 'Glad you agree',
      }),
    );
    expectOk(await get(side, `/v25.0/${id}`, side.bluebottleOnly, { fields: 'parent_id' }), { parent_id: roasterComment, id });
  });

  it.each(HOSTS)(
    'refuses a mentions POST without media_id or message, or where the account was not mentioned ($host)',
    async ({ login }) => {
      const side = world.side(login);
      const path = `/v25.0/${world.fixture.accounts.bluebottle}/mentions`;
      const { roasterComment, fanComment } = world.fixture.comments;
      expectGraphError(
        await post(side, path, side.bluebottleOnly, { comment_id: roasterComment, message: 'hi' }),
        missingParameter('media_id'),
      );
      expectGraphError(
        await post(side, path, side.bluebottleOnly, { media_id: world.fixture.media.roasterPost, comment_id: roasterComment }),
        missingParameter('message'),
      );
      expectGraphError(
        await post(side, path, side.bluebottleOnly, { media_id: world.fixture.posts[0], message: 'hi' }),
        invalidParameter('The account was not mentioned in the caption of this media.'),
      );
      expectGraphError(
        await post(side, path, side.bluebottleOnly, { media_id: world.fixture.posts[0], comment_id: fanComment, message: 'hi' }),
        invalidParameter('The account was not mentioned in this comment.'),
      );
    },
  );

  it.each(HOSTS)('refuses a mentions POST for an account the token does not act for: 100/33 post ($host)', async ({ login }) => {
    const side = world.side(login);
    const { bluebottle } = world.fixture.accounts;
    expectGraphError(
      await post(side, `/v25.0/${bluebottle}/mentions`, side.roasterOnly, { media_id: world.fixture.media.roasterPost, message: 'hi' }),
      unsupported('post', bluebottle),
    );
  });

  it.each(HOSTS)('refuses to answer a story mention or a media the account was only tagged in ($host)', async ({ login }) => {
    const side = world.side(login);
    const story = await world.graph.media(world.fixture.accounts.roaster, {
      caption: `Story with @bluebottle (${login})`,
      mediaProductType: 'STORY',
    });
    await world.graph.mention(world.fixture.accounts.bluebottle, story);
    const tagged = await world.graph.media(world.fixture.accounts.roaster, { caption: 'Tagged only' });
    await world.graph.tag(tagged, world.fixture.accounts.bluebottle);
    const path = `/v25.0/${world.fixture.accounts.bluebottle}/mentions`;
    expectGraphError(
      await post(side, path, side.bluebottleOnly, { media_id: story, message: 'hi' }),
      invalidParameter('Story mentions cannot be answered.'),
    );
    expectGraphError(
      await post(side, path, side.bluebottleOnly, { media_id: tagged, message: 'hi' }),
      invalidParameter('The account was not mentioned in the caption of this media.'),
    );
  });

  it('refuses mentioned_comment when comments are disabled on the media, or the comment was deleted', async () => {
    const media = await world.graph.media(world.fixture.accounts.roaster, { caption: 'Quiet post' });
    const closed = await world.addComment(media, world.fixture.accounts.fanOne, 'Hey @bluebottle');
    await world.graph.mention(world.fixture.accounts.bluebottle, media, closed);
    const gone = await world.addComment(media, world.fixture.accounts.fanTwo, 'Bye @bluebottle');
    await world.graph.mention(world.fixture.accounts.bluebottle, media, gone);
    const read = (commentId: string) =>
      get(world.parent, `/v25.0/${world.fixture.accounts.bluebottle}`, world.parent.bluebottleOnly, {
        fields: `mentioned_comment.comment_id(${commentId}){text}`,
      });
    expectOk(await read(closed), { mentioned_comment: { text: 'Hey @bluebottle', id: closed }, id: world.fixture.accounts.bluebottle });
    // roaster's manager (ana) deletes the second comment.
    expectOk(await del(world.parent, `/v25.0/${gone}`, world.parent.roasterOnly), { success: true });
    expectGraphError(await read(gone), unsupported('get', gone));
    await world.setMedia(media, { comment_enabled: false });
    expectGraphError(await read(closed), invalidParameter('Comments are disabled on this media.'));
  });

  it('does not read mentions: GET /{account_id}/mentions is unsupported', async () => {
    const { bluebottle } = world.fixture.accounts;
    expectGraphError(await get(world.parent, `/v25.0/${bluebottle}/mentions`), unsupported('get', bluebottle));
  });
});

// =====================================================================================================================

describe('the commenter’s username needs the comment-management permission (27 August 2024)', () => {
  const cases = [
    { host: 'own-login host', login: 'own' as const, basic: ['social_business_basic'], gate: 'social_business_manage_comments' },
    {
      host: 'parent-platform host',
      login: 'parent' as const,
      basic: ['social_basic', 'pages_read_engagement', 'pages_show_list'],
      gate: 'social_manage_comments',
    },
  ];

  it.each(cases)('lists media comments without it, but not their username or from ($host)', async ({ login, basic, gate }) => {
    const side = world.side(login);
    const token = await side.mint(basic);
    const media = world.fixture.posts[0]!;
    const list = await get(side, `/v25.0/${media}/comments`, token, { fields: 'text' });
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((c: { text: string }) => c.text)).toEqual(['spam spam', 'Thanks all', 'Where is this?', 'Love this!']);
    expectGraphError(await get(side, `/v25.0/${media}/comments`, token, { fields: 'username' }), missingPermission(gate));
    expectGraphError(await get(side, `/v25.0/${media}/comments`, token, { fields: 'text,from' }), missingPermission(gate));
    // With the permission, the username is there.
    const allowed = await get(side, `/v25.0/${media}/comments`, await side.mint([...basic, gate]), { fields: 'username' });
    expect(allowed.body.data.map((c: { username: string }) => c.username)).toEqual(['fan_two', 'bluebottle', 'fan_two', 'fan_one']);
  });

  it.each(cases)('refuses the comment node itself without it ($host)', async ({ login, basic, gate }) => {
    const side = world.side(login);
    const token = await side.mint(basic);
    expectGraphError(await get(side, `/v25.0/${world.fixture.comments.fanComment}`, token), missingPermission(gate));
    expectGraphError(
      await get(side, `/v25.0/${world.fixture.comments.ownerComment}`, token, { fields: 'username' }),
      missingPermission(gate),
    );
  });
});
