import { buildSubgraphSchema } from '@apollo/subgraph';
import type { TokenService } from '../lib/auth/auth.ts';
import type { SubgraphName } from '../lib/config.ts';
import type { DatabaseHandle } from '../lib/database/database.ts';
import { accountsTypeDefs } from './accounts/accounts-subgraph.ts';
import { commentsTypeDefs } from './comments/comments-subgraph.ts';
import { createSocialTokens } from './index.ts';
import { createSocialAccess } from './shared/social-graph/social-access.ts';
import { createViewerOf, socialCacheViewer } from './shared/social-graph/social-request.ts';
import type { SocialTables } from './shared/social-graph/social-tables.ts';
import type { SubgraphCacheViewing } from './subgraph.ts';
import { usersCacheViewer, usersTypeDefs } from './users/users-subgraph.ts';

/**
 * The fetch cache's view of the subgraphs whose replies it may keep, for a gateway that reaches them over HTTP
 * (distributed topology): each one's schema (no resolvers: only its types and hints are read) and its viewer rule —
 * the same functions the subgraphs' own cacheViewer runs (users-subgraph.ts, social-request.ts), on the same tokens and
 * database, so a reply is keyed alike in both topologies. The media subgraph's replies are never kept (no hints).
 */
export function createCacheViewing(deps: {
  database: DatabaseHandle;
  tokens: TokenService;
  now?: () => Date;
}): Partial<Record<SubgraphName, SubgraphCacheViewing>> {
  const socialTokens = createSocialTokens(deps.database, deps.now);
  const access = createSocialAccess(deps.database.db.withTables<SocialTables>());
  const social = (typeDefs: typeof accountsTypeDefs): SubgraphCacheViewing => ({
    schema: buildSubgraphSchema(typeDefs),
    viewer: (request) => socialCacheViewer(createViewerOf(socialTokens, access, request)),
  });
  return {
    users: {
      schema: buildSubgraphSchema(usersTypeDefs),
      viewer: (request) => Promise.resolve(usersCacheViewer(deps.tokens.authenticate(request.authorization))),
    },
    accounts: social(accountsTypeDefs),
    comments: social(commentsTypeDefs),
  };
}
