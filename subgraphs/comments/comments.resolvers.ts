import { DateTimeScalar, toConnection } from '../shared/social-graph/social-graphql.ts';
import { withViewer } from '../shared/social-graph/social-request.ts';
import type { Resolvers } from './generated/resolvers-types.ts';

/** Resolvers decode arguments, call the service and encode; every rule lives in the service. */

export const commentsResolvers: Resolvers = {
  DateTime: DateTimeScalar,
  Query: {
    comment: async (_, args, context) => context.comments.comment(await context.viewer(), args.id),
  },
  Mutation: {
    hideComment: async (_, args, context) => ({
      success: await context.comments.hide(await context.viewer(), args.id, args.hide),
    }),
    deleteComment: async (_, args, context) => ({
      success: await context.comments.delete(await context.viewer(), args.id),
    }),
    replyToComment: async (_, args, context) => context.comments.reply(await context.viewer(), args.id, args.message),
    createMediaComment: async (_, args, context) =>
      context.comments.commentOnMedia(await context.viewer(), await context.mediaLoader.load(args.mediaId), args.mediaId, args.message),
    replyToMention: async (_, args, context) => context.comments.replyToMention(await context.viewer(), args.accountId, args),
  },
  Comment: {
    __resolveReference: async (reference, context) => {
      const comment = await context.commentLoader.load(reference.id);
      return comment && context.comments.isVisible(await context.viewer(), comment) ? comment : null;
    },
    from: (comment) => comment,
    media: (comment) => ({ __typename: 'Media', id: comment.mediaId }),
    // Per-object fields: synchronous once the viewer is known (social-request.ts, withViewer).
    username: (comment, _args, context) => withViewer(context.viewer, (viewer) => context.comments.commenterUsername(viewer, comment)),
    user: (comment, _args, context) => withViewer(context.viewer, (viewer) => context.comments.user(viewer, comment)),
    // Not an async function: once the viewer is known (every comment of a list but the first), the list is one
    // DataLoader promise and its .then — a deep read asks this of 625 comments, and each promise costs (async hooks).
    replies: (comment, args, context) =>
      withViewer(context.viewer, (viewer) => {
        context.comments.authorizeReplies(viewer, comment);
        // The replies are on the comment's media, whose facts the comment carries: the list needs no statement for them.
        context.mediaLoader.prime(comment.mediaId, comment.media);
        return context.listLoader.load({ kind: 'replies', parentId: comment.id, mediaId: comment.mediaId, ...args }).then(toConnection);
      }),
  },
  CommentFrom: {
    id: (comment) => comment.authorId,
    username: (comment, _args, context) => withViewer(context.viewer, (viewer) => context.comments.commenterUsername(viewer, comment)),
  },
  Media: {
    __resolveReference: (reference) => ({ id: reference.id }),
    comments: async (media, args, context) => {
      const viewer = await context.viewer();
      await context.comments.authorizeMediaComments(viewer, await context.mediaLoader.load(media.id), media.id);
      return toConnection(await context.listLoader.load({ kind: 'media', parentId: media.id, mediaId: media.id, ...args }));
    },
    commentsCount: async (media, _args, context) => {
      await context.viewer();
      return context.commentsCountLoader.load(media.id);
    },
  },
  Account: {
    __resolveReference: (reference) => ({ id: reference.id }),
    mentionedComment: async (account, args, context) =>
      context.comments.mentionedComment(await context.viewer(), account.id, args.commentId),
  },
};
