import { DateTimeScalar, toConnection } from '../shared/social-graph/social-graphql.ts';
import { withViewer } from '../shared/social-graph/social-request.ts';
import type { FeedEvent, SocialEventFilter } from '../shared/event-log/event-log-feed.ts';
import type { SocialEventRecord } from '../shared/event-log/social-events.ts';
import { eventComment, type CommentsContext } from './comments-context.ts';
import type { CommentEventAction, Resolvers } from './generated/resolvers-types.ts';

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
  Subscription: {
    mediaCommentEvents: {
      subscribe: (_, args, context) => openEvents(context, { kind: 'mediaComments', mediaId: args.mediaId }, args.after),
      resolve: (delivered: FeedEvent) => delivered.event,
    },
    commentReplyEvents: {
      subscribe: (_, args, context) => openEvents(context, { kind: 'commentReplies', commentId: args.commentId }, args.after),
      resolve: (delivered: FeedEvent) => delivered.event,
    },
    accountMentionEvents: {
      subscribe: (_, args, context) => openEvents(context, { kind: 'accountMentions', accountId: args.accountId }, args.after),
      resolve: (delivered: FeedEvent) => delivered.event,
    },
  },
  CommentEvent: {
    cursor: (event) => event.position,
    action: (event) => COMMENT_EVENT_ACTIONS[event.kind]!,
    occurredAt: (event) => event.createdAt,
    commentId: (event) => String(event.value.id),
    comment: (event, _args, context) => eventComment(context, event),
    media: (event) => ({ id: String((event.value.media as { id: string }).id) }),
    parentId: (event) => (typeof event.value.parent_id === 'string' ? event.value.parent_id : null),
  },
  MentionEvent: {
    cursor: (event) => event.position,
    occurredAt: (event) => event.createdAt,
    media: (event) => ({ id: String(event.value.media_id) }),
    comment: (event, _args, context) => eventComment(context, event),
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

const COMMENT_EVENT_ACTIONS: Partial<Record<SocialEventRecord['kind'], CommentEventAction>> = {
  comment_created: 'CREATED',
  comment_hidden: 'HIDDEN',
  comment_shown: 'SHOWN',
  comment_deleted: 'DELETED',
};

/** Starts a subscription's stream once the viewer may read what it carries (the service's rule). */
async function openEvents(context: CommentsContext, filter: SocialEventFilter, after: string | null | undefined) {
  await context.comments.authorizeEvents(await context.viewer(), filter);
  return context.events.open(filter, after);
}
