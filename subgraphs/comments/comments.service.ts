import type { CommentsServiceDeps } from './comment-access.ts';
import { commentEventRules } from './comment-event-rules.ts';
import { commentReads } from './comment-reads.ts';
import { commentWriteRules } from './comment-write-rules.ts';

/**
 * The rules of the comment node (Area B): who reads, hides, deletes and replies, as the spec's state table and the
 * reference (§1) give them. Every transport reaches them through the comments subgraph's resolvers.
 *
 * The service is assembled from its parts, each in a file of its own: comment-reads.ts (loads, pages, the read rules of
 * each field), comment-event-rules.ts (who follows which events), comment-write-rules.ts (hide, delete, replies: the
 * rules, then the change with its events, comment-changes.ts); comment-access.ts holds what they share (visibility
 * rules, limits, the service's dependencies).
 */

export function createCommentsService(deps: CommentsServiceDeps) {
  return { ...commentReads(deps), ...commentEventRules(deps), ...commentWriteRules(deps) };
}

export type CommentsService = ReturnType<typeof createCommentsService>;
