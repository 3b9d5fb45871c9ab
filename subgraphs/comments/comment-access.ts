import { managesAccount, authorize, type Viewer } from '../shared/social-graph/social-access.ts';
import { socialErrors } from '../shared/social-graph/social-errors.ts';
import { isSocialId } from '../../lib/social-graph/social-ids.ts';
import type { SocialMethod } from '../../contracts/social-graph.ts';
import type { SocialDb } from '../shared/social-graph/social-tables.ts';
import type { CursorCodec } from '../../lib/social-graph/cursor.ts';
import type { PageLimits } from '../shared/social-graph/social-paging.ts';
import { findCommentsByIds, findMediaFacts, findMention, type CommentMediaFacts, type CommentRecord } from './comments.repository.ts';

/**
 * Who may see a comment and a media object's comments, the rules every part of the comments service (reads, writes,
 * event rules) applies the same way.
 */

/**
 * Whether the viewer may see the comment at all: comments on media of an account it acts for, and comments its own
 * account wrote (the platform shows those to their owner only). Not returned: comments on age-gated media (to others)
 * and comments on a live video once the broadcast has ended.
 */
export function visibleTo(viewer: Viewer, comment: CommentRecord): boolean {
  if (withheldFrom(viewer, comment)) return false;
  return managesAccount(viewer, comment.media.ownerId) || managesAccount(viewer, comment.authorId);
}

/** The comment, when it is one the viewer may see; else the platform's unknown object. */
export async function loadVisible(db: SocialDb, viewer: Viewer, id: string, method: SocialMethod): Promise<CommentRecord> {
  if (!isSocialId(id, 'comment')) throw socialErrors.unknownObject(id, method);
  const [comment] = await findCommentsByIds(db, [id]);
  if (!comment || !visibleTo(viewer, comment)) throw socialErrors.unknownObject(id, method);
  return comment;
}

/** A media object's facts, read on their own (one statement). */
export async function readMediaFacts(db: SocialDb, mediaId: string): Promise<CommentMediaFacts | undefined> {
  return (await findMediaFacts(db, [mediaId]))[0];
}

/**
 * Checks that the viewer may read a media object's comments: the media of an account it acts for, or media whose
 * caption @mentions its account (mentioned_media); refuses as an unknown object otherwise.
 */
export async function authorizeMediaComments(
  db: SocialDb,
  viewer: Viewer,
  media: CommentMediaFacts | undefined,
  mediaId: string,
): Promise<void> {
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
}

/**
 * Comments the platform never shows, whoever asks (reference §1.3): those on a live video whose broadcast has ended, and
 * those on age-gated media to anyone but the media's owner.
 */
export function withheldFrom(viewer: Viewer, comment: CommentRecord): boolean {
  if (comment.media.isLive && comment.media.liveEnded) return true;
  return comment.media.ownerAgeGated && !managesAccount(viewer, comment.media.ownerId);
}

/** The account through which the viewer reaches a comment: the media's owner when it acts for it, else the author. */
export function ownerOrAuthor(viewer: Viewer, comment: CommentRecord): string {
  return managesAccount(viewer, comment.media.ownerId) ? comment.media.ownerId : comment.authorId;
}

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

/** How the event rules read a media object's facts: by default one statement; a subscription passes its shared loader. */
export type MediaFactsOf = (mediaId: string) => Promise<CommentMediaFacts | undefined>;
