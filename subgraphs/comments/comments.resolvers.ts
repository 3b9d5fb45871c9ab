import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js';
import { DateTimeScalar, toConnection } from '../social-store/social-graphql.ts';
import type { PageArgs } from '../social-store/social-paging.ts';
import type { CommentRecord } from './comments.repository.ts';
import type { CommentsContext } from './comments-context.ts';

/** Resolvers decode arguments, call the service and encode; every rule lives in the service. */

export const commentsResolvers: GraphQLResolverMap<CommentsContext> = {
  DateTime: DateTimeScalar,
  Query: {
    comment: async (_: unknown, args: { id: string }, context: CommentsContext) =>
      context.comments.comment(await context.viewer(), args.id),
  },
  Mutation: {
    hideComment: async (_: unknown, args: { id: string; hide?: boolean | null }, context: CommentsContext) => ({
      success: await context.comments.hide(await context.viewer(), args.id, args.hide),
    }),
    deleteComment: async (_: unknown, args: { id: string }, context: CommentsContext) => ({
      success: await context.comments.delete(await context.viewer(), args.id),
    }),
    replyToComment: async (_: unknown, args: { id: string; message?: string | null }, context: CommentsContext) =>
      context.comments.reply(await context.viewer(), args.id, args.message),
    createMediaComment: async (_: unknown, args: { mediaId: string; message?: string | null }, context: CommentsContext) =>
      context.comments.commentOnMedia(await context.viewer(), await context.mediaLoader.load(args.mediaId), args.mediaId, args.message),
    replyToMention: async (
      _: unknown,
      args: { accountId: string; mediaId?: string | null; commentId?: string | null; message?: string | null },
      context: CommentsContext,
    ) => context.comments.replyToMention(await context.viewer(), args.accountId, args),
  },
  Comment: {
    __resolveReference: async (reference: { id: string }, context: CommentsContext) => {
      const comment = await context.commentLoader.load(reference.id);
      return comment && context.comments.isVisible(await context.viewer(), comment) ? comment : null;
    },
    from: (comment: CommentRecord) => comment,
    media: (comment: CommentRecord) => ({ __typename: 'Media', id: comment.mediaId }),
    username: async (comment: CommentRecord, _args: unknown, context: CommentsContext) =>
      context.comments.commenterUsername(await context.viewer(), comment),
    user: async (comment: CommentRecord, _args: unknown, context: CommentsContext) =>
      context.comments.user(await context.viewer(), comment),
    replies: async (comment: CommentRecord, args: PageArgs, context: CommentsContext) => {
      context.comments.authorizeReplies(await context.viewer(), comment);
      return toConnection(await context.listLoader.load({ kind: 'replies', parentId: comment.id, ...args }));
    },
  },
  CommentFrom: {
    id: (comment: CommentRecord) => comment.authorId,
    username: async (comment: CommentRecord, _args: unknown, context: CommentsContext) =>
      context.comments.commenterUsername(await context.viewer(), comment),
  },
  Media: {
    __resolveReference: (reference: { id: string }) => ({ id: reference.id }),
    comments: async (media: { id: string }, args: PageArgs, context: CommentsContext) => {
      const viewer = await context.viewer();
      await context.comments.authorizeMediaComments(viewer, await context.mediaLoader.load(media.id), media.id);
      return toConnection(await context.listLoader.load({ kind: 'media', parentId: media.id, ...args }));
    },
    commentsCount: async (media: { id: string }, _args: unknown, context: CommentsContext) => {
      await context.viewer();
      return context.commentsCountLoader.load(media.id);
    },
  },
  Account: {
    __resolveReference: (reference: { id: string }) => ({ id: reference.id }),
    mentionedComment: async (account: { id: string }, args: { commentId?: string | null }, context: CommentsContext) =>
      context.comments.mentionedComment(await context.viewer(), account.id, args.commentId),
  },
};
