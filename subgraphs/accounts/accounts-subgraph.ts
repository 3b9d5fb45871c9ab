import { readFileSync } from 'node:fs';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import type { SocialTokenService } from '../../lib/auth/social-auth/social-token.service.ts';
import type { CursorCodec } from '../../lib/social-graph/cursor.ts';
import type { DatabaseHandle } from '../../lib/database/database.ts';
import { createSocialAccess } from '../shared/social-graph/social-access.ts';
import { admittingRootFields, createSocialCallOf } from '../shared/social-graph/social-call.ts';
import type { SocialRateLimiter } from '../shared/social-graph/social-rate-limits.ts';
import { bearerToken } from '../../lib/auth/bearer-token.ts';
import { createViewerOf, socialCacheViewer } from '../shared/social-graph/social-request.ts';
import type { CallbackClient } from '../../lib/http/callback-client.ts';
import { createWebhookSubscriptionsService, type WebhookSubscriptionsService } from '../shared/webhooks/webhook-subscriptions.service.ts';
import type { SocialTables } from '../shared/social-graph/social-tables.ts';
import type { MediaClaims } from '../shared/media-store/media-claims.ts';
import type { Subgraph, SubgraphSchemaModule } from '../subgraph.ts';
import { createAccountEdgesService } from './account-edges.service.ts';
import { createAccountsContext, type AccountsContext } from './accounts-context.ts';
import { accountsResolvers } from './accounts.resolvers.ts';
import { createAccountsService, type AccountsService } from './accounts.service.ts';

/** The accounts subgraph's SDL, read beside this file. */
export const accountsTypeDefs = parse(readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8'));

export interface AccountsSubgraphDeps {
  database: DatabaseHandle;
  socialTokens: SocialTokenService;
  codec: CursorCodec;
  now: () => Date;
  /** The social graph's rate limits, shared with the other social subgraph (one per process; counted in the database). */
  rateLimiter: SocialRateLimiter;
  /** Posts per rolling 24 hours (SOCIAL_PUBLISHING_QUOTA). */
  publishingQuota: number;
  /** Uploaded images (Area D) that containers may take as their image. */
  mediaClaims: MediaClaims;
  /** Webhook callbacks: their URLs checked and their verification requests made (webhooks/). */
  callbacks: CallbackClient;
}

export interface AccountsSubgraph extends Subgraph<AccountsContext> {
  service: AccountsService;
  webhooks: WebhookSubscriptionsService;
}

/** Builds the accounts subgraph (Area C: professional accounts, their media and edges). Pure: opens nothing. */
export function createAccountsSubgraph(deps: AccountsSubgraphDeps): AccountsSubgraph {
  const db = deps.database.db.withTables<SocialTables>();
  const access = createSocialAccess(db);
  const edges = createAccountEdgesService({
    db,
    codec: deps.codec,
    now: deps.now,
    publishingQuota: deps.publishingQuota,
    mediaClaims: deps.mediaClaims,
  });
  const service = createAccountsService({ db, codec: deps.codec, now: deps.now, edges });
  const webhooks = createWebhookSubscriptionsService({ db, apps: deps.socialTokens, callbacks: deps.callbacks, now: deps.now });
  const schema = buildSubgraphSchema([
    { typeDefs: accountsTypeDefs, resolvers: admittingRootFields(accountsResolvers) } as SubgraphSchemaModule,
  ]);
  return {
    name: 'accounts',
    typeDefs: accountsTypeDefs,
    schema,
    service,
    webhooks,
    createContext: (request) =>
      createAccountsContext(createViewerOf(deps.socialTokens, access, request), createSocialCallOf(deps.rateLimiter, request), service, {
        webhooks,
        credential: () => deps.socialTokens.authenticate(bearerToken(request.authorization)),
      }),
    responseExtensions: (context) => context.call.responseExtensions(),
    cacheViewer: (context) => socialCacheViewer(context.viewer),
    admitCall: (context, objectId) => context.call.admit(objectId),
    finishRequest: (context) => context.call.finish(),
  };
}
