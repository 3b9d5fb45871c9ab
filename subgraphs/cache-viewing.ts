import { buildSubgraphSchema } from '@apollo/subgraph';
import type { TokenService } from '../lib/auth/auth.ts';
import type { SubgraphName } from '../lib/config.ts';
import type { DatabaseHandle } from '../lib/database/database.ts';
import { accountsTypeDefs } from './accounts/accounts-subgraph.ts';
import { commentsTypeDefs } from './comments/comments-subgraph.ts';
import { createSocialTokens } from './index.ts';
import { createSocialAccess } from './shared/social-graph/social-access.ts';
import { createViewerOf, socialCacheViewer } from './shared/social-graph/social-request.ts';
import { createSocialCallOf } from './shared/social-graph/social-call.ts';
import { createSocialRateLimiter, type SocialRateLimitSettings } from './shared/social-graph/social-rate-limits.ts';
import type { SocialTables } from './shared/social-graph/social-tables.ts';
import type { SubgraphCacheViewing } from './subgraph.ts';
import { mediaTypeDefs } from './media/media-subgraph.ts';
import { usersCacheViewer, usersTypeDefs } from './users/users-subgraph.ts';

/**
 * The fetch cache's view of the subgraphs whose replies it may keep, for a gateway that reaches them over HTTP
 * (distributed topology): each one's schema (no resolvers: only its types and hints are read) and its viewer rule —
 * the same functions the subgraphs' own cacheViewer runs (users-subgraph.ts, social-request.ts), on the same tokens and
 * database, so a reply is keyed alike in both topologies. The media subgraph's replies are never kept (no hints, no
 * viewer: as its embedded cacheViewer, none), but its writes wait for their changes and answer their position. A
 * social root call answered from the response cache is counted against the same rate limits, in the same database.
 */
export function createCacheViewing(deps: {
  database: DatabaseHandle;
  tokens: TokenService;
  rateLimits: SocialRateLimitSettings;
  now?: () => Date;
}): Partial<Record<SubgraphName, SubgraphCacheViewing>> {
  const socialTokens = createSocialTokens(deps.database, deps.now);
  const access = createSocialAccess(deps.database.db.withTables<SocialTables>());
  const limiter = createSocialRateLimiter({
    db: deps.database.db.withTables<SocialTables>(),
    limits: deps.rateLimits,
    now: deps.now ?? (() => new Date()),
  });
  const social = (typeDefs: typeof accountsTypeDefs): SubgraphCacheViewing => ({
    schema: buildSubgraphSchema(typeDefs),
    viewer: (request) => socialCacheViewer(createViewerOf(socialTokens, access, request)),
    admitCall: async (request, objectId) => {
      const call = createSocialCallOf(limiter, request);
      try {
        await call.admit(objectId);
      } catch {
        // Refused (or the counters unreadable): the gateway runs the call, and the subgraph answers it in its own words.
        return undefined;
      }
      return { extensions: call.responseExtensions(), finish: () => call.finish() };
    },
  });
  return {
    users: {
      schema: buildSubgraphSchema(usersTypeDefs),
      viewer: (request) => Promise.resolve(usersCacheViewer(deps.tokens.authenticate(request.authorization))),
    },
    media: { schema: buildSubgraphSchema(mediaTypeDefs), viewer: () => Promise.resolve(undefined) },
    accounts: social(accountsTypeDefs),
    comments: social(commentsTypeDefs),
  };
}
