import type { CursorCodec } from '../../lib/social-graph/cursor.ts';
import { toUnixSeconds } from '../../lib/social-graph/graph-time.ts';
import { isSocialId, wellFormedIds } from '../../lib/social-graph/social-ids.ts';
import { inIdOrder } from '../../lib/in-id-order.ts';
import { authorize, managesAccount, type Viewer } from '../shared/social-graph/social-access.ts';
import { socialErrors } from '../shared/social-graph/social-errors.ts';
import type { SocialMethod } from '../../contracts/social-graph.ts';
import {
  assemblePage,
  readPageArgs,
  type Page,
  type PageArgs,
  type PageLimits,
  type PageRequest,
} from '../shared/social-graph/social-paging.ts';
import type { SocialDb } from '../shared/social-graph/social-tables.ts';
import type { SocialEventFilter } from '../shared/event-log/event-log-feed.ts';
import type { SocialEventRecord } from '../shared/event-log/social-events.ts';
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
import { writeComment, writeCommentHidden, writeCommentThreadDeleted } from './comment-changes.ts';

/**
 * The rules of the comment node (Area B): who reads, hides, deletes and replies, as the spec's state table and the
 * reference (§1) give them. Every transport reaches them through the comments subgraph's resolvers.
 */

/** Page sizes: media comments are capped at 50 per query (§1.6); replies use the Graph default and the same cap. */
export const MEDIA_COMMENT_LIMITS: PageLimits = { defaultLimit: 25, maxLimit: 50 };
export const REPLY_LIMITS: PageLimits = { defaultLimit: 25, maxLimit: 50 };
/** Longest comment text the platform accepts. */
export const MAX_COMMENT_LENGTH = 2200;

export interface CommentsServiceDeps {
  db: SocialDb;
  codec: CursorCodec;
  now: () => Date;
}

/** The @usernames a text mentions, in order, without duplicates. */
export function mentionedUsernames(text: string): string[] {
  return [...new Set([...text.matchAll(/(?:^|[^A-Za-z0-9_.])@([A-Za-z0-9_](?:[A-Za-z0-9_.]{0,28}[A-Za-z0-9_])?)/g)].map((m) => m[1]!))];
}

const positionOf = (comment: CommentRecord) => [toUnixSeconds(comment.timestamp), comment.id];

/** How the event rules read a media object's facts: by default one statement; a subscription passes its shared loader. */
export type MediaFactsOf = (mediaId: string) => Promise<CommentMediaFacts | undefined>;

export function createCommentsService(deps: CommentsServiceDeps) {
  const { db, codec, now } = deps;
  const readMediaFacts: MediaFactsOf = async (mediaId) => (await findMediaFacts(db, [mediaId]))[0];

  /**
   * Whether the viewer may see the comment at all: comments on media of an account it acts for, and comments its own
   * account wrote (the platform shows those to their owner only). Not returned: comments on age-gated media (to others)
   * and comments on a live video once the broadcast has ended.
   */
  function visibleTo(viewer: Viewer, comment: CommentRecord): boolean {
    if (withheldFrom(viewer, comment)) return false;
    return managesAccount(viewer, comment.media.ownerId) || managesAccount(viewer, comment.authorId);
  }

  async function loadVisible(viewer: Viewer, id: string, method: SocialMethod): Promise<CommentRecord> {
    if (!isSocialId(id, 'comment')) throw socialErrors.unknownObject(id, method);
    const [comment] = await findCommentsByIds(db, [id]);
    if (!comment || !visibleTo(viewer, comment)) throw socialErrors.unknownObject(id, method);
    return comment;
  }

  function checkText(message: string | null | undefined): string {
    if (message === undefined || message === null || message.trim() === '') throw socialErrors.missingParameter('message');
    if (message.includes('\u0000')) throw socialErrors.invalidParameter('message', 'The message must not contain U+0000.');
    if ([...message].length > MAX_COMMENT_LENGTH) {
      throw socialErrors.invalidParameter('message', `The message must be at most ${MAX_COMMENT_LENGTH} characters.`);
    }
    return message;
  }

  async function create(mediaId: string, authorId: string, parentId: string | null, text: string): Promise<CommentRecord> {
    // Whole seconds: the column keeps seconds and would round a fraction up into the future.
    const timestamp = new Date(Math.floor(now().getTime() / 1000) * 1000);
    const id = await writeComment(db, { mediaId, authorId, parentId, text, timestamp }, mentionedUsernames(text));
    const [created] = await findCommentsByIds(db, [id]);
    return created!;
  }

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
      const comment = await loadVisible(viewer, id, 'get');
      authorize(viewer, 'readComment', { accountId: ownerOrAuthor(viewer, comment), objectId: id });
      return comment;
    },

    /** Checks that the viewer may list the replies of a comment it was given (the comment was already shown to it). */
    authorizeReplies(viewer: Viewer, comment: CommentRecord): void {
      authorize(viewer, 'readReplies', { accountId: ownerOrAuthor(viewer, comment), objectId: comment.id });
    },

    /**
     * Checks that the viewer may read a media object's comments: the media of an account it acts for, or media whose
     * caption @mentions its account (mentioned_media). Returns the facts, or refuses as an unknown object.
     */
    async authorizeMediaComments(viewer: Viewer, media: CommentMediaFacts | undefined, mediaId: string): Promise<void> {
      if (!media) throw socialErrors.unknownObject(mediaId);
      if (managesAccount(viewer, media.ownerId)) {
        authorize(viewer, 'readMediaComments', { accountId: media.ownerId, objectId: mediaId });
        return;
      }
      for (const accountId of viewer.managedAccountIds) {
        if (await findMention(db, accountId, mediaId, null)) {
          authorize(viewer, 'readMentionedMedia', { accountId, objectId: mediaId });
          return;
        }
      }
      throw socialErrors.unknownObject(mediaId);
    },

    /** `username` (and `from.username`): a commenter's username needs the comment-management permission (§1.7). */
    commenterUsername(viewer: Viewer, comment: CommentRecord): string {
      if (!managesAccount(viewer, comment.authorId)) authorize(viewer, 'readCommenterUsername');
      return comment.authorUsername;
    },

    /** `user`: the author, only when the app user's account wrote the comment (§1.1). */
    user(viewer: Viewer, comment: CommentRecord): { id: string } | null {
      return managesAccount(viewer, comment.authorId) ? { id: comment.authorId } : null;
    },

    /**
     * Checks that the viewer may follow a filter's events, as it may read them by query: a media object's comments
     * (Media.comments), a comment's replies (Comment.replies), an account's mentions (Account.mentionedComment). Run when
     * a subscription starts and again for every event (a token expired, revoked or stripped of a permission since then
     * ends the subscription with its error). `mediaFacts` reads the media object (a subscription's event shares one read).
     */
    async authorizeEvents(viewer: Viewer, filter: SocialEventFilter, mediaFacts: MediaFactsOf = readMediaFacts): Promise<void> {
      switch (filter.kind) {
        case 'mediaComments': {
          const media = isSocialId(filter.mediaId, 'media') ? await mediaFacts(filter.mediaId) : undefined;
          await this.authorizeMediaComments(viewer, media, filter.mediaId);
          return;
        }
        case 'commentReplies': {
          const comment = await loadVisible(viewer, filter.commentId, 'get');
          authorize(viewer, 'readReplies', { accountId: ownerOrAuthor(viewer, comment), objectId: comment.id });
          return;
        }
        case 'accountMentions':
          authorize(viewer, 'readMentionedComment', { accountId: filter.accountId });
          return;
      }
    },

    /**
     * Whether the viewer sees an event of a stream it follows, under the rules as they are now: the stream's access is
     * checked again (authorizeEvents: a token stripped of a permission ends the stream with that refusal), and an event
     * of a comment a query would not show it (on a live video that has ended, on age-gated media of another account) is
     * left out, as a query's list leaves the comment out. A deletion names only the comment's id, and is sent. `comment`
     * is the event's comment as it is now (undefined: deleted since).
     */
    async admitsEvent(
      viewer: Viewer,
      filter: SocialEventFilter,
      event: SocialEventRecord,
      comment: CommentRecord | undefined,
      mediaFacts: MediaFactsOf = readMediaFacts,
    ): Promise<boolean> {
      await this.authorizeEvents(viewer, filter, mediaFacts);
      if (event.kind === 'comment_deleted') return true;
      if (event.kind === 'mentioned' && event.value.comment_id === undefined) return true;
      return comment !== undefined && !withheldFrom(viewer, comment);
    },

    /**
     * POST /<comment_id>?hide=true|false: only a token of the media's owner. A comment the owner wrote on their own media
     * stays shown (success, hidden stays false: project decision, §5.2). Comments on live video cannot be hidden.
     */
    async hide(viewer: Viewer, id: string, hide: boolean | null | undefined): Promise<boolean> {
      if (hide === undefined || hide === null) throw socialErrors.missingParameter('hide');
      const comment = await loadVisible(viewer, id, 'post');
      if (!managesAccount(viewer, comment.media.ownerId)) throw socialErrors.notAllowed();
      authorize(viewer, 'moderateComment', { accountId: comment.media.ownerId, objectId: id, method: 'post' });
      if (comment.media.isLive) throw socialErrors.unknownObject(id, 'post');
      if (comment.authorId === comment.media.ownerId) return true;
      if (comment.hidden !== hide) await writeCommentHidden(db, id, hide);
      return true;
    },

    /** DELETE /<comment_id>: the comment's author (spec) or the media's owner (reference moderation); not on live video. */
    async delete(viewer: Viewer, id: string): Promise<boolean> {
      const comment = await loadVisible(viewer, id, 'delete');
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
      const comment = await loadVisible(viewer, id, 'post');
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
      return create(comment.mediaId, comment.media.ownerId, parent.id, text);
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
      return create(mediaId, media.ownerId, null, text);
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
      return create(media.id, accountId, parentId, text);
    },
  };
}

/**
 * Comments the platform never shows, whoever asks (reference §1.3): those on a live video whose broadcast has ended, and
 * those on age-gated media to anyone but the media's owner.
 */
function withheldFrom(viewer: Viewer, comment: CommentRecord): boolean {
  if (comment.media.isLive && comment.media.liveEnded) return true;
  return comment.media.ownerAgeGated && !managesAccount(viewer, comment.media.ownerId);
}

/** The account through which the viewer reaches a comment: the media's owner when it acts for it, else the author. */
function ownerOrAuthor(viewer: Viewer, comment: CommentRecord): string {
  return managesAccount(viewer, comment.media.ownerId) ? comment.media.ownerId : comment.authorId;
}

export type CommentsService = ReturnType<typeof createCommentsService>;
