import type { Kysely } from 'kysely';
import { appendEvents } from '../shared/event-log/event-log.repository.ts';
import { commentEvent, mentionEvent } from '../shared/event-log/social-events.ts';
import type { SocialTables } from '../shared/social-graph/social-tables.ts';
import { deleteCommentThread, findCommentEventFacts, insertComment, setCommentHidden } from './comments.repository.ts';

/**
 * The comments service's changes, each written with the events the event log records of it, in one transaction
 * (the outbox: an event is there exactly when its change is). Which events a change makes is decided here, in the
 * service layer, not in the repository that writes the rows: a comment created is `comment_created` (and `mentioned` for
 * each account its text @mentions), a comment hidden or shown `comment_hidden`/`comment_shown` (only when it changed), a
 * thread deleted `comment_deleted` for the comment and each of its replies, in id order.
 *
 * The service's rules (who may) come first (comments.service.ts); these are what happens once they passed — also the
 * way tests and the bench write a comment whose events a subscription or a webhook must see.
 */

export interface NewComment {
  mediaId: string;
  authorId: string;
  parentId: string | null;
  text: string;
  timestamp: Date;
}

/** Writes a comment and its events: its id. */
export function writeComment(db: Kysely<SocialTables>, comment: NewComment, mentionedUsernames: readonly string[]): Promise<string> {
  return db.transaction().execute(async (trx) => {
    const { id, mentioned } = await insertComment(trx, comment, mentionedUsernames);
    const facts = await findCommentEventFacts(trx, [id]);
    await appendEvents(trx, [
      ...facts.map((fact) => commentEvent('comment_created', fact)),
      ...mentioned.map((accountId) => mentionEvent(accountId, comment.mediaId, id)),
    ]);
    return id;
  });
}

/** Hides or shows a comment; a change (not a comment already so) is an event. */
export function writeCommentHidden(db: Kysely<SocialTables>, id: string, hidden: boolean): Promise<void> {
  return db.transaction().execute(async (trx) => {
    if (!(await setCommentHidden(trx, id, hidden))) return;
    const facts = await findCommentEventFacts(trx, [id]);
    await appendEvents(
      trx,
      facts.map((fact) => commentEvent(hidden ? 'comment_hidden' : 'comment_shown', fact)),
    );
  });
}

/** Deletes a comment and its replies, each an event. */
export function writeCommentThreadDeleted(db: Kysely<SocialTables>, id: string, at: Date): Promise<void> {
  return db.transaction().execute(async (trx) => {
    const deleted = await deleteCommentThread(trx, id, at);
    const facts = await findCommentEventFacts(trx, deleted);
    await appendEvents(
      trx,
      facts.map((fact) => commentEvent('comment_deleted', fact)),
    );
  });
}
