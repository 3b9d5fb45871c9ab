import { entityKey } from './change-events.ts';

/**
 * The social graph's events: what the log (event-log.repository.ts) holds for each change the Graph API reports, in
 * the reference's value shapes (../shared/reference/social-graph.md §6.5), so that a webhook delivery sends `value` as
 * it is and a GraphQL subscription reads the same record. Ids are decimal strings, as everywhere.
 *
 * The Graph API's webhooks report comments and replies as they are created (`comments`, or `live_comments` on a live
 * broadcast) and @mentions (`mentions`); the log also keeps a comment hidden, shown and deleted (`kind`), which
 * subscriptions report as changes and removals and webhook delivery leaves out.
 */

export type SocialEventKind = 'comment_created' | 'comment_hidden' | 'comment_shown' | 'comment_deleted' | 'mentioned';

/** The webhook field an event belongs to (§6.6 gives each its permissions). */
export type SocialEventField = 'comments' | 'live_comments' | 'mentions';

export interface SocialEvent {
  /** The professional account the event concerns (the webhook entry's id): the media's owner, or the account mentioned. */
  accountId: string;
  kind: SocialEventKind;
  field: SocialEventField;
  value: Record<string, unknown>;
  /** The entities the change touched, as the change log names them (change-events.ts). */
  keys: readonly string[];
}

/** An event as the log holds it: with its position (the cursor of subscriptions, the order of deliveries). */
export interface SocialEventRecord extends SocialEvent {
  position: string;
  createdAt: Date;
}

/** What an event of a comment is made of (read in the transaction that changes it). */
export interface CommentEventFacts {
  id: string;
  text: string;
  parentId: string | null;
  authorId: string;
  authorUsername: string;
  mediaId: string;
  mediaOwnerId: string;
  mediaProductType: string;
  /** The media is a live broadcast still running: its comments are `live_comments` (§6.5). */
  live: boolean;
}

/**
 * §6.5's `comments` value: `{id, text, from: {id, username, self_ig_scoped_id?}, media: {id, media_product_type},
 * parent_id?}` — `self_ig_scoped_id` when the account comments on its own media, `parent_id` on replies only.
 */
export function commentValue(facts: CommentEventFacts): Record<string, unknown> {
  return {
    id: facts.id,
    text: facts.text,
    from: {
      id: facts.authorId,
      username: facts.authorUsername,
      ...(facts.authorId === facts.mediaOwnerId ? { self_ig_scoped_id: facts.authorId } : {}),
    },
    media: { id: facts.mediaId, media_product_type: facts.mediaProductType },
    ...(facts.parentId !== null ? { parent_id: facts.parentId } : {}),
  };
}

/** A comment created, hidden, shown or deleted: an event of the media owner's account. */
export function commentEvent(kind: Exclude<SocialEventKind, 'mentioned'>, facts: CommentEventFacts): SocialEvent {
  return {
    accountId: facts.mediaOwnerId,
    kind,
    field: facts.live ? 'live_comments' : 'comments',
    value: commentValue(facts),
    // The comment, the media whose comments (and count) it is among, and a reply's parent, whose replies it is among.
    keys: [
      entityKey('Comment', facts.id),
      entityKey('Media', facts.mediaId),
      ...(facts.parentId ? [entityKey('Comment', facts.parentId)] : []),
    ],
  };
}

/** An account @mentioned in a comment (`{comment_id, media_id}`) or in a caption (`{media_id}`): ids only (§6.5). */
export function mentionEvent(accountId: string, mediaId: string, commentId: string | null): SocialEvent {
  return {
    accountId,
    kind: 'mentioned',
    field: 'mentions',
    value: commentId === null ? { media_id: mediaId } : { comment_id: commentId, media_id: mediaId },
    // The account mentioned (its mentioned_comment and mentioned_media edges) and what it is mentioned in.
    keys: [entityKey('Account', accountId), entityKey('Media', mediaId), ...(commentId === null ? [] : [entityKey('Comment', commentId)])],
  };
}
