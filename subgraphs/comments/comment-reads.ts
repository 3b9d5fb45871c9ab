import { inIdOrder } from '../../lib/in-id-order.ts';
import { wellFormedIds, isSocialId } from '../../lib/social-graph/social-ids.ts';
import { authorize, managesAccount, type Viewer } from '../shared/social-graph/social-access.ts';
import { socialErrors } from '../shared/social-graph/social-errors.ts';
import { assemblePage, readPageArgs, type Page, type PageArgs, type PageRequest } from '../shared/social-graph/social-paging.ts';
import { toUnixSeconds } from '../../lib/social-graph/graph-time.ts';
import {
  countCommentsByMedia,
  findCommentsByIds,
  findMediaFacts,
  findMention,
  listCommentsBatch,
  type CommentListKind,
  type CommentListParent,
  type CommentMediaFacts,
  type CommentRecord,
} from './comments.repository.ts';
import {
  type CommentsServiceDeps,
  MEDIA_COMMENT_LIMITS,
  REPLY_LIMITS,
  authorizeMediaComments,
  loadVisible,
  ownerOrAuthor,
  visibleTo,
  withheldFrom,
} from './comment-access.ts';

/** The comments service's reads (comments.service.ts): batch loads, pages, and the read rules of each field. */
export function commentReads(deps: CommentsServiceDeps) {
  const { db, codec } = deps;
  return {
    /** Batch load by id for DataLoaders and entity references (no visibility rule: callers apply it). */
    async loadComments(ids: readonly string[]): Promise<(CommentRecord | undefined)[]> {
      return inIdOrder(ids, await findCommentsByIds(db, wellFormedIds(ids, 'comment')));
    },

    async loadMediaFacts(ids: readonly string[]): Promise<(CommentMediaFacts | undefined)[]> {
      return inIdOrder(ids, await findMediaFacts(db, wellFormedIds(ids, 'media')));
    },

    async countComments(mediaIds: readonly string[]): Promise<number[]> {
      const counts = await countCommentsByMedia(db, wellFormedIds(mediaIds, 'media'));
      return mediaIds.map((id) => counts.get(id) ?? 0);
    },

    /**
     * A page of comments for each parent in one statement (DataLoader batch function). Each parent comes with the facts of
     * the media its comments are on (undefined: the media is gone, so are they).
     */
    async listBatch(
      kind: CommentListKind,
      parents: readonly { id: string; media: CommentMediaFacts | undefined }[],
      request: PageRequest,
    ): Promise<Page<CommentRecord>[]> {
      const wellFormed = new Set(
        wellFormedIds(
          parents.map((parent) => parent.id),
          kind === 'media' ? 'media' : 'comment',
        ),
      );
      const listed = parents.filter(
        (parent): parent is CommentListParent =>
          wellFormed.has(parent.id) &&
          parent.media !== undefined &&
          // Comments of a live video are gone once the broadcast has ended (reference §1.3).
          !(parent.media.isLive && parent.media.liveEnded),
      );
      const rows = await listCommentsBatch(db, kind, listed, request);
      return parents.map((parent) => assemblePage(codec, request, rows.get(parent.id) ?? [], positionOf));
    },

    readPage(kind: CommentListKind, args: PageArgs): PageRequest {
      return readPageArgs(codec, args, kind === 'media' ? MEDIA_COMMENT_LIMITS : REPLY_LIMITS);
    },

    /** Whether the viewer may see the comment (for entity references). */
    isVisible: (viewer: Viewer, comment: CommentRecord): boolean => visibleTo(viewer, comment),

    /** GET /<comment_id>. */
    async comment(viewer: Viewer, id: string): Promise<CommentRecord> {
      const comment = await loadVisible(db, viewer, id, 'get');
      authorize(viewer, 'readComment', { accountId: ownerOrAuthor(viewer, comment), objectId: id });
      return comment;
    },

    /** Checks that the viewer may list the replies of a comment it was given (the comment was already shown to it). */
    authorizeReplies(viewer: Viewer, comment: CommentRecord): void {
      authorize(viewer, 'readReplies', { accountId: ownerOrAuthor(viewer, comment), objectId: comment.id });
    },

    /**
     * Checks that the viewer may read a media object's comments: the media of an account it acts for, or media whose
     * caption @mentions its account (mentioned_media). Refuses as an unknown object otherwise.
     */
    authorizeMediaComments: (viewer: Viewer, media: CommentMediaFacts | undefined, mediaId: string): Promise<void> =>
      authorizeMediaComments(db, viewer, media, mediaId),

    /** `username` (and `from.username`): a commenter's username needs the comment-management permission (§1.7). */
    commenterUsername(viewer: Viewer, comment: CommentRecord): string {
      if (!managesAccount(viewer, comment.authorId)) authorize(viewer, 'readCommenterUsername');
      return comment.authorUsername;
    },

    /** `user`: the author, only when the app user's account wrote the comment (§1.1). */
    user(viewer: Viewer, comment: CommentRecord): { id: string } | null {
      return managesAccount(viewer, comment.authorId) ? { id: comment.authorId } : null;
    },

    /** mentioned_comment.comment_id(x): a comment in which the account was @mentioned. */
    async mentionedComment(viewer: Viewer, accountId: string, commentId: string | null | undefined): Promise<CommentRecord> {
      authorize(viewer, 'readMentionedComment', { accountId });
      if (commentId === undefined || commentId === null || commentId === '') throw socialErrors.missingParameter('comment_id');
      if (!isSocialId(commentId, 'comment') || !(await findMention(db, accountId, undefined, commentId))) {
        throw socialErrors.unknownObject(commentId);
      }
      const [comment] = await findCommentsByIds(db, [commentId]);
      if (!comment || withheldFrom(viewer, comment)) throw socialErrors.unknownObject(commentId);
      if (!comment.media.commentEnabled) throw socialErrors.invalidParameter('comment_id', 'Comments are disabled on this media.');
      return comment;
    },
  };
}

const positionOf = (comment: CommentRecord) => [toUnixSeconds(comment.timestamp), comment.id];
