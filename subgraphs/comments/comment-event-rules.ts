import { isSocialId } from '../../lib/social-graph/social-ids.ts';
import { authorize, type Viewer } from '../shared/social-graph/social-access.ts';
import type { SocialEventFilter } from '../shared/event-log/event-log-feed.ts';
import type { SocialEventRecord } from '../shared/event-log/social-events.ts';
import type { CommentRecord } from './comments.repository.ts';
import {
  type CommentsServiceDeps,
  type MediaFactsOf,
  authorizeMediaComments,
  loadVisible,
  ownerOrAuthor,
  readMediaFacts,
  withheldFrom,
} from './comment-access.ts';

/** The comments service's rules for events (comments.service.ts): who may follow a stream, and which events it sees. */
export function commentEventRules(deps: CommentsServiceDeps) {
  const { db } = deps;
  const rules = {
    /**
     * Checks that the viewer may follow a filter's events, as it may read them by query: a media object's comments
     * (Media.comments), a comment's replies (Comment.replies), an account's mentions (Account.mentionedComment). Run when
     * a subscription starts and again for every event (a token expired, revoked or stripped of a permission since then
     * ends the subscription with its error). `mediaFacts` reads the media object (a subscription's event shares one read).
     */
    async authorizeEvents(
      viewer: Viewer,
      filter: SocialEventFilter,
      mediaFacts: MediaFactsOf = (mediaId) => readMediaFacts(db, mediaId),
    ): Promise<void> {
      switch (filter.kind) {
        case 'mediaComments': {
          const media = isSocialId(filter.mediaId, 'media') ? await mediaFacts(filter.mediaId) : undefined;
          await authorizeMediaComments(db, viewer, media, filter.mediaId);
          return;
        }
        case 'commentReplies': {
          const comment = await loadVisible(db, viewer, filter.commentId, 'get');
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
      mediaFacts: MediaFactsOf = (mediaId) => readMediaFacts(db, mediaId),
    ): Promise<boolean> {
      await rules.authorizeEvents(viewer, filter, mediaFacts);
      if (event.kind === 'comment_deleted') return true;
      if (event.kind === 'mentioned' && event.value.comment_id === undefined) return true;
      return comment !== undefined && !withheldFrom(viewer, comment);
    },
  };
  return rules;
}
