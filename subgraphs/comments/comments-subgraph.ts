import { readFileSync } from 'node:fs';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import type { CursorCodec } from '../../lib/social-graph/cursor.ts';
import type { DatabaseHandle } from '../../lib/database/database.ts';
import type { SocialTokenService } from '../../lib/auth/social-auth/social-token.service.ts';
import { createSocialAccess } from '../shared/social-graph/social-access.ts';
import { admittingRootFields, createSocialCallOf } from '../shared/social-graph/social-call.ts';
import type { SocialRateLimiter } from '../shared/social-graph/social-rate-limits.ts';
import { createViewerOf } from '../shared/social-graph/social-request.ts';
import type { SocialTables } from '../shared/social-graph/social-tables.ts';
import type { Subgraph, SubgraphSchemaModule } from '../subgraph.ts';
import type { Logger } from '../../lib/logger.ts';
import { createSocialEventSweeper, type SocialEventSweeper } from '../shared/social-events/social-event-sweeper.ts';
import { createCommentsContext, type CommentsContext } from './comments-context.ts';
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
  /** How long the event log keeps an event (social-events/). */
  eventRetentionMs: number;
  logger: Logger;
}

export interface CommentsSubgraph extends Subgraph<CommentsContext> {
  service: CommentsService;
  /** Sweeps the event log past its retention; the process that serves this subgraph starts it. */
  eventSweeper: SocialEventSweeper;
}

/** Builds the comments subgraph (Area B: comments, replies, moderation, mentions). Pure: opens nothing. */
export function createCommentsSubgraph(deps: CommentsSubgraphDeps): CommentsSubgraph {
  const db = deps.database.db.withTables<SocialTables>();
  const access = createSocialAccess(db);
  const service = createCommentsService({ db, codec: deps.codec, now: deps.now });
  const schema = buildSubgraphSchema([{ typeDefs: commentsTypeDefs, resolvers: admittingRootFields(commentsResolvers) } as SubgraphSchemaModule]);
  return {
    name: 'comments',
    typeDefs: commentsTypeDefs,
    schema,
    service,
    eventSweeper: createSocialEventSweeper({ db, now: deps.now, retentionMs: deps.eventRetentionMs, logger: deps.logger }),
    createContext: (request) =>
      createCommentsContext(createViewerOf(deps.socialTokens, access, request), createSocialCallOf(deps.rateLimiter, request), service),
    responseExtensions: (context) => context.call.responseExtensions(),
    finishRequest: (context) => context.call.finish(),
  };
}
