import {
  commentUntouched,
  json,
  othersOf,
  PRE,
  PSL,
  ritaToken,
  roasterToken,
  rule,
  SB,
  SBB,
  SBMC,
  SMC,
  strangerToken,
  type SocialOperation,
  type Target,
} from './social-operations.ts';
import { actorToken, WORLD_TEXTS, type SocialWorld } from './social-world.ts';

/**
 * Area B: the comment node, its replies edge, and the media node's comments edge (the reference's related endpoints).
 *
 * Requirements (reference §1.8 for the node — read, hide and delete alike —, §1.6 for the replies edge, which adds
 * pages_show_list on the parent-platform host; §4: every comment operation needs the comment-management permission).
 * The media comments edge lists with the basic read permissions: §1.7 says the commenter's username is what needs
 * comment management since 27 August 2024 ("before that date the basic permission sufficed"). A top-level comment on
 * media is a comment written by the media's owner, so it takes the replies edge's permissions.
 */

const VERSION_PREFIX = '/v25.0';
const NODE_OWN = [[SBB], [SBMC]] as const;
const NODE_PARENT = [[SB], [SMC], [PRE]] as const;
const REPLIES_PARENT = [[SB], [SMC], [PSL], [PRE]] as const;

const comment = (id: string): Target => ({ comment: id });

/** A fresh fan comment on bluebottle's post, for cells that hide or delete. */
const freshFanComment = async (world: SocialWorld): Promise<Target> => comment(await world.freshComment('busyPost', 'fanTwo'));

export const COMMENT_OPERATIONS: readonly SocialOperation[] = [
  {
    key: 'comment.read',
    area: 'B',
    label: { rest: `GET ${VERSION_PREFIX}/{comment-id}`, graphql: 'comment(id)' },
    own: rule(NODE_OWN, false),
    parent: rule(NODE_PARENT, true),
    target: async (world) => comment(world.ids.readComment),
    rest: (t) => ({
      method: 'GET',
      path: `${VERSION_PREFIX}/${t.comment}`,
      params: { fields: 'id,text,timestamp,username,from,hidden,like_count' },
    }),
    graphql: (t) => ({
      query: 'query Read($id: ID!) { comment(id: $id) { id text timestamp username from { id username } hidden likeCount } }',
      variables: { id: t.comment },
    }),
    secrets: () => [json(WORLD_TEXTS.readComment), json('fan_one')],
    reads: true,
    wrongOwner: {
      own: othersOf('comment', 'get').own!,
      parent: [
        ...othersOf('comment', 'get').parent!,
        {
          label: "with rita's token (she acts for roaster only)",
          token: ritaToken,
          error: { kind: 'unknownObject', method: 'get', object: 'comment' },
        },
      ],
    },
  },
  {
    key: 'comment.hide',
    area: 'B',
    label: { rest: `POST ${VERSION_PREFIX}/{comment-id}?hide=true`, graphql: 'hideComment(id, hide: true)' },
    own: rule(NODE_OWN, false),
    parent: rule(NODE_PARENT, true),
    target: freshFanComment,
    rest: (t) => ({ method: 'POST', path: `${VERSION_PREFIX}/${t.comment}`, params: { hide: 'true' } }),
    graphql: (t) => ({ query: 'mutation Hide($id: ID!) { hideComment(id: $id, hide: true) { success } }', variables: { id: t.comment } }),
    secrets: () => [json(WORLD_TEXTS.fresh)],
    reads: false,
    wrongOwner: {
      own: [
        ...othersOf('comment', 'post').own!,
        {
          // Spec: hide/show needs the token of the user who owns the media commented on.
          label: "with bluebottle's token on its own comment on roaster's media (author, not the media's owner)",
          token: actorToken('own'),
          target: async (world) => comment(await world.freshComment('roasterPost', 'bluebottle')),
          error: { kind: 'notAllowed' },
        },
      ],
      parent: [
        ...othersOf('comment', 'post').parent!,
        {
          label: "with rita's token on roaster's comment on bluebottle's media (acts for the author, not the media's owner)",
          token: ritaToken,
          target: async (world) => comment(await world.freshComment('busyPost', 'roaster')),
          error: { kind: 'notAllowed' },
        },
      ],
    },
    unchanged: commentUntouched,
  },
  {
    key: 'comment.delete',
    area: 'B',
    label: { rest: `DELETE ${VERSION_PREFIX}/{comment-id}`, graphql: 'deleteComment(id)' },
    own: rule(NODE_OWN, false),
    parent: rule(NODE_PARENT, true),
    target: freshFanComment,
    rest: (t) => ({ method: 'DELETE', path: `${VERSION_PREFIX}/${t.comment}` }),
    graphql: (t) => ({ query: 'mutation Delete($id: ID!) { deleteComment(id: $id) { success } }', variables: { id: t.comment } }),
    secrets: () => [json(WORLD_TEXTS.fresh)],
    reads: false,
    wrongOwner: {
      // Neither the author nor the media's owner: the comment is not even visible to these tokens.
      own: othersOf('comment', 'delete').own!,
      parent: [
        ...othersOf('comment', 'delete').parent!,
        {
          label: "with rita's token on a fan's comment on bluebottle's media",
          token: ritaToken,
          error: { kind: 'unknownObject', method: 'delete', object: 'comment' },
        },
      ],
    },
    unchanged: commentUntouched,
  },
  {
    key: 'replies.list',
    area: 'B',
    label: { rest: `GET ${VERSION_PREFIX}/{comment-id}/replies`, graphql: 'comment(id) { replies }' },
    own: rule(NODE_OWN, false),
    parent: rule(REPLIES_PARENT, true),
    target: async (world) => comment(world.ids.readComment),
    rest: (t) => ({ method: 'GET', path: `${VERSION_PREFIX}/${t.comment}/replies`, params: { fields: 'id,text,username' } }),
    graphql: (t) => ({
      query: 'query Replies($id: ID!) { comment(id: $id) { replies { nodes { id text username } } } }',
      variables: { id: t.comment },
    }),
    secrets: () => [json(WORLD_TEXTS.readReply)],
    reads: true,
    wrongOwner: othersOf('comment', 'get'),
  },
  {
    key: 'replies.create',
    area: 'B',
    label: { rest: `POST ${VERSION_PREFIX}/{comment-id}/replies`, graphql: 'replyToComment(id, message)' },
    own: rule(NODE_OWN, false),
    parent: rule(REPLIES_PARENT, true),
    target: async (world) => comment(world.ids.readComment),
    rest: (t) => ({ method: 'POST', path: `${VERSION_PREFIX}/${t.comment}/replies`, params: { message: 'AM reply' } }),
    graphql: (t) => ({
      query: 'mutation Reply($id: ID!, $message: String) { replyToComment(id: $id, message: $message) { id } }',
      variables: { id: t.comment, message: 'AM reply' },
    }),
    secrets: () => [json(WORLD_TEXTS.readComment)],
    reads: false,
    wrongOwner: {
      own: [
        ...othersOf('comment', 'post').own!,
        {
          label: "with bluebottle's token on its own comment on roaster's media (not the media's owner)",
          token: actorToken('own'),
          target: async (world) => comment(world.ids.blueOnRoaster),
          error: { kind: 'notAllowed' },
        },
      ],
      parent: [
        ...othersOf('comment', 'post').parent!,
        {
          label: "with rita's token on roaster's comment on bluebottle's media (not the media's owner)",
          token: ritaToken,
          target: async (world) => comment(world.ids.roasterOnBlue),
          error: { kind: 'notAllowed' },
        },
      ],
    },
  },
  {
    key: 'media.comments.list',
    area: 'B',
    label: { rest: `GET ${VERSION_PREFIX}/{media-id}/comments`, graphql: 'media(id) { comments }' },
    own: rule([[SBB]], false),
    parent: rule([[SB], [PRE]], true),
    target: async (world) => ({ media: world.ids.post }),
    rest: (t) => ({ method: 'GET', path: `${VERSION_PREFIX}/${t.media}/comments`, params: { fields: 'id,text' } }),
    graphql: (t) => ({
      query: 'query Comments($id: ID!) { media(id: $id) { comments { nodes { id text } } } }',
      variables: { id: t.media },
    }),
    secrets: () => [json(WORLD_TEXTS.readComment)],
    reads: true,
    wrongOwner: othersOf('media', 'get'),
  },
  {
    key: 'media.comments.create',
    area: 'B',
    label: { rest: `POST ${VERSION_PREFIX}/{media-id}/comments`, graphql: 'createMediaComment(mediaId, message)' },
    own: rule(NODE_OWN, false),
    parent: rule(REPLIES_PARENT, true),
    target: async (world) => ({ media: world.ids.busyPost }),
    rest: (t) => ({ method: 'POST', path: `${VERSION_PREFIX}/${t.media}/comments`, params: { message: 'AM owner comment' } }),
    graphql: (t) => ({
      query: 'mutation Comment($id: ID!, $message: String) { createMediaComment(mediaId: $id, message: $message) { id } }',
      variables: { id: t.media, message: 'AM owner comment' },
    }),
    secrets: () => [json(WORLD_TEXTS.readComment)],
    reads: false,
    wrongOwner: {
      own: [
        {
          label: "with roaster's token (another account)",
          token: roasterToken,
          error: { kind: 'unknownObject', method: 'post', object: 'media' },
        },
      ],
      parent: [
        {
          label: 'with the token of a user with no page role (stranger)',
          token: strangerToken,
          error: { kind: 'unknownObject', method: 'post', object: 'media' },
        },
      ],
    },
  },
];
