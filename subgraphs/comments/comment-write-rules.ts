import { findCommentsByIds, findMediaFacts, findMention, type CommentMediaFacts, type CommentRecord } from './comments.repository.ts';
import { isSocialId } from '../../lib/social-graph/social-ids.ts';
import { authorize, managesAccount, type Viewer } from '../shared/social-graph/social-access.ts';
import { socialErrors } from '../shared/social-graph/social-errors.ts';
import { writeComment, writeCommentHidden, writeCommentThreadDeleted } from './comment-changes.ts';
import { type CommentsServiceDeps, MAX_COMMENT_LENGTH, loadVisible, mentionedUsernames, ownerOrAuthor } from './comment-access.ts';

/**
 * The comments service's writes (comments.service.ts): hide and show, delete, replies, comments on media and replies
 * to mentions — each rule checked, then the change written with its events (comment-changes.ts).
 */
export function commentWriteRules(deps: CommentsServiceDeps) {
  const { db, now } = deps;
  return {
    /**
     * POST /<comment_id>?hide=true|false: only a token of the media's owner. A comment the owner wrote on their own media
     * stays shown (success, hidden stays false: project decision, §5.2). Comments on live video cannot be hidden.
     */
    async hide(viewer: Viewer, id: string, hide: boolean | null | undefined): Promise<boolean> {
      if (hide === undefined || hide === null) throw socialErrors.missingParameter('hide');
      const comment = await loadVisible(db, viewer, id, 'post');
      if (!managesAccount(viewer, comment.media.ownerId)) throw socialErrors.notAllowed();
      authorize(viewer, 'moderateComment', { accountId: comment.media.ownerId, objectId: id, method: 'post' });
      if (comment.media.isLive) throw socialErrors.unknownObject(id, 'post');
      if (comment.authorId === comment.media.ownerId) return true;
      if (comment.hidden !== hide) await writeCommentHidden(db, id, hide);
      return true;
    },

    /** DELETE /<comment_id>: the comment's author (spec) or the media's owner (reference moderation); not on live video. */
    async delete(viewer: Viewer, id: string): Promise<boolean> {
      const comment = await loadVisible(db, viewer, id, 'delete');
      authorize(viewer, 'moderateComment', { accountId: ownerOrAuthor(viewer, comment), objectId: id, method: 'delete' });
      if (comment.media.isLive) throw socialErrors.unknownObject(id, 'delete');
      await writeCommentThreadDeleted(db, id, now());
      return true;
    },

    /**
     * POST /<comment_id>/replies?message=…: by the media's owner on its own media. A reply to a reply attaches to the
     * top-level comment; hidden comments and live-video comments take no replies.
     */
    async reply(viewer: Viewer, id: string, message: string | null | undefined): Promise<CommentRecord> {
      const comment = await loadVisible(db, viewer, id, 'post');
      if (!managesAccount(viewer, comment.media.ownerId)) throw socialErrors.notAllowed();
      authorize(viewer, 'replyToComment', { accountId: comment.media.ownerId, objectId: id, method: 'post' });
      const text = checkText(message);
      if (comment.media.isLive) {
        throw socialErrors.invalidParameter('comment_id', 'Live video comments take no replies; use a private reply instead.');
      }
      let parent = comment;
      if (comment.parentId !== null) {
        const [top] = await findCommentsByIds(db, [comment.parentId]);
        if (!top) throw socialErrors.unknownObject(id, 'post');
        parent = top;
      }
      if (parent.hidden || comment.hidden) throw socialErrors.invalidParameter('comment_id', 'Hidden comments take no replies.');
      if (!comment.media.commentEnabled) throw socialErrors.invalidParameter('comment_id', 'Comments are disabled on this media.');
      return create(deps, comment.mediaId, comment.media.ownerId, parent.id, text);
    },

    /** POST /<media_id>/comments?message=…: a top-level comment by the media's owner (not on live video). */
    async commentOnMedia(
      viewer: Viewer,
      media: CommentMediaFacts | undefined,
      mediaId: string,
      message: string | null | undefined,
    ): Promise<CommentRecord> {
      if (!media || !managesAccount(viewer, media.ownerId)) throw socialErrors.unknownObject(mediaId, 'post');
      authorize(viewer, 'replyToComment', { accountId: media.ownerId, objectId: mediaId, method: 'post' });
      const text = checkText(message);
      if (media.isLive) throw socialErrors.invalidParameter('media_id', 'Comments on live video are not supported.');
      if (!media.commentEnabled) throw socialErrors.invalidParameter('media_id', 'Comments are disabled on this media.');
      return create(deps, mediaId, media.ownerId, null, text);
    },

    /**
     * POST /<account_id>/mentions: answers a mention with a comment by the mentioned account — a reply on the comment that
     * mentioned it (comment_id given), or a top-level comment on the media whose caption mentioned it. Not for story
     * mentions, not for media the account was only tagged in.
     */
    async replyToMention(
      viewer: Viewer,
      accountId: string,
      input: { mediaId?: string | null; commentId?: string | null; message?: string | null },
    ): Promise<CommentRecord> {
      authorize(viewer, 'createMentionReply', { accountId, method: 'post' });
      if (!input.mediaId) throw socialErrors.missingParameter('media_id');
      const text = checkText(input.message);
      const commentId = input.commentId || null;
      const mention = isSocialId(input.mediaId, 'media') ? await findMention(db, accountId, input.mediaId, commentId) : undefined;
      if (!mention) {
        throw socialErrors.invalidParameter(
          commentId ? 'comment_id' : 'media_id',
          commentId ? 'The account was not mentioned in this comment.' : 'The account was not mentioned in the caption of this media.',
        );
      }
      const [media] = await findMediaFacts(db, [input.mediaId]);
      if (!media) throw socialErrors.unknownObject(input.mediaId, 'post');
      if (media.productType === 'STORY') throw socialErrors.invalidParameter('media_id', 'Story mentions cannot be answered.');
      if (!media.commentEnabled) throw socialErrors.invalidParameter('media_id', 'Comments are disabled on this media.');
      if (media.isLive) throw socialErrors.invalidParameter('media_id', 'Comments on live video are not supported.');
      let parentId: string | null = null;
      if (commentId) {
        const [mentioning] = await findCommentsByIds(db, [commentId]);
        if (!mentioning) throw socialErrors.unknownObject(commentId, 'post');
        parentId = mentioning.parentId ?? mentioning.id;
      }
      return create(deps, media.id, accountId, parentId, text);
    },
  };
}

function checkText(message: string | null | undefined): string {
  if (message === undefined || message === null || message.trim() === '') throw socialErrors.missingParameter('message');
  if (message.includes('\u0000')) throw socialErrors.invalidParameter('message', 'The message must not contain U+0000.');
  if ([...message].length > MAX_COMMENT_LENGTH) {
    throw socialErrors.invalidParameter('message', `The message must be at most ${MAX_COMMENT_LENGTH} characters.`);
  }
  return message;
}

/** A comment written (with its events) and read back. */
async function create(
  deps: CommentsServiceDeps,
  mediaId: string,
  authorId: string,
  parentId: string | null,
  text: string,
): Promise<CommentRecord> {
  // Whole seconds: the column keeps seconds and would round a fraction up into the future.
  const timestamp = new Date(Math.floor(deps.now().getTime() / 1000) * 1000);
  const id = await writeComment(deps.db, { mediaId, authorId, parentId, text, timestamp }, mentionedUsernames(text));
  const [created] = await findCommentsByIds(deps.db, [id]);
  return created!;
}
