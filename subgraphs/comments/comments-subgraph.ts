import { readFileSync } from 'node:fs';
import { buildSubgraphSchema } from '@apollo/subgraph';
import DataLoader from 'dataloader';
import { parse } from 'graphql';
import type { CursorCodec } from '../../lib/social-graph/cursor.ts';
import type { DatabaseHandle } from '../../lib/database/database.ts';
import type { SocialTokenService } from '../../lib/auth/social-auth/social-token.service.ts';
import { createSocialAccess } from '../shared/social-graph/social-access.ts';
import { admittingRootFields, createSocialCallOf } from '../shared/social-graph/social-call.ts';
import type { SocialRateLimiter } from '../shared/social-graph/social-rate-limits.ts';
import { createViewerOf, socialCacheViewer } from '../shared/social-graph/social-request.ts';
import type { SocialTables } from '../shared/social-graph/social-tables.ts';
import type { Subgraph, SubgraphRequestInfo, SubgraphSchemaModule } from '../subgraph.ts';
import type { Logger } from '../../lib/logger.ts';
import {
  createSocialEventFeed,
  type FeedEvent,
  type SocialEventFeed,
  type SocialEventFeedOptions,
} from '../shared/event-log/event-log-feed.ts';
import { subscribePerEvent } from '../../lib/graphql/subscribe-per-event.ts';
import { createCommentsContext, eventComment, type CommentReads, type CommentsContext } from './comments-context.ts';
import { commentsResolvers } from './comments.resolvers.ts';
import { createCommentsService, type CommentsService } from './comments.service.ts';

/** The comments subgraph's SDL, read beside this file. */
export const commentsTypeDefs = parse(readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8'));

export interface CommentsSubgraphDeps {
  database: DatabaseHandle;
  socialTokens: SocialTokenService;
  codec: CursorCodec;
  now: () => Date;
  /** The social graph's rate limits, shared with the other social subgraph (one per process; counted in the database). */
  rateLimiter: SocialRateLimiter;
  /** The subscriptions' view of the event log (defaults: event-log-feed.ts). */
  eventFeed?: Partial<SocialEventFeedOptions>;
  logger: Logger;
}

export interface CommentsSubgraph extends Subgraph<CommentsContext> {
  service: CommentsService;
  /** The event log as streams for the Subscription fields; opened by the first subscription, closed by close(). */
  events: SocialEventFeed;
  close(): Promise<void>;
}

/** Builds the comments subgraph (Area B: comments, replies, moderation, mentions). Pure: opens nothing. */
export function createCommentsSubgraph(deps: CommentsSubgraphDeps): CommentsSubgraph {
  const db = deps.database.db.withTables<SocialTables>();
  const access = createSocialAccess(db);
  const service = createCommentsService({ db, codec: deps.codec, now: deps.now });
  const schema = buildSubgraphSchema([
    { typeDefs: commentsTypeDefs, resolvers: admittingRootFields(commentsResolvers) } as SubgraphSchemaModule,
  ]);
  const events = createSocialEventFeed({
    db,
    listen: deps.database.listen,
    logger: deps.logger,
    ...(deps.eventFeed ? { options: deps.eventFeed } : {}),
  });
  const createContext = (request: SubgraphRequestInfo, reads?: CommentReads) =>
    createCommentsContext(
      createViewerOf(deps.socialTokens, access, request),
      createSocialCallOf(deps.rateLimiter, request),
      service,
      events,
      reads,
    );
  // An event reaches every subscription that follows it in the same tick, each reading it under a context of its own: the
  // reads they make together (the event's comment, its media object's facts; the tokens, in the token service) go out
  // as one statement for all of them instead of one per subscriber. Not cached: each event reads the rows as they are.
  const sharedComments = new DataLoader((ids: readonly string[]) => service.loadComments(ids), { cache: false, maxBatchSize: 500 });
  const sharedMediaFacts = new DataLoader((ids: readonly string[]) => service.loadMediaFacts(ids), { cache: false, maxBatchSize: 500 });
  const eventReads: CommentReads = {
    loadComments: (ids) => sharedComments.loadMany(ids),
    loadMediaFacts: (ids) => sharedMediaFacts.loadMany(ids),
  };
  return {
    name: 'comments',
    typeDefs: commentsTypeDefs,
    schema,
    service,
    events,
    createContext,
    responseExtensions: (context) => context.call.responseExtensions(),
    cacheViewer: (context) => socialCacheViewer(context.viewer),
    admitCall: (context, objectId) => context.call.admit(objectId),
    finishRequest: (context) => context.call.finish(),
    subscribe: (request, operation) =>
      subscribePerEvent({
        schema,
        document: operation.document,
        variableValues: operation.variables,
        operationName: operation.operationName,
        createContext: () => createContext(request, eventReads),
        // Each event under the rules of a query at that moment: the token read again, the access checked again, and the
        // event's comment shown only where a query would show it.
        admit: async (delivered, context) => {
          const { event, filter } = delivered as FeedEvent;
          const [viewer, comment] = await Promise.all([context.viewer(), eventComment(context, event)]);
          // The comment was read with its media object's facts: the access check needs no read of its own.
          if (comment) context.mediaLoader.prime(comment.media.id, comment.media);
          return service.admitsEvent(viewer, filter, event, comment ?? undefined, (mediaId) => context.mediaLoader.load(mediaId));
        },
      }),
    close: () => events.close(),
  };
}
