import { createAdAccounts } from './account-edges/ad-accounts.ts';
import type { AccountEdgesService, AccountEdgesServiceDeps } from './account-edges/account-edges.types.ts';
import { createContentPublishing } from './account-edges/content-publishing.ts';
import { createEdgeContext } from './account-edges/edge-context.ts';
import { createHashtags } from './account-edges/hashtags.ts';
import { createInsights } from './account-edges/insights.ts';
import { createUpcomingEvents } from './account-edges/upcoming-events.ts';

/**
 * The domain rules of the account edges other than media/stories/tags/live_media/mentions (reference §2.2): upcoming
 * events, recently searched hashtags, agencies, authorized ad accounts, media containers and their publication, the
 * publishing limit and insights.
 *
 * Callers (GraphQL resolvers, REST routes) have already checked that the caller may act for `accountId`; this layer holds
 * parameter validation, quotas, expiry and time windows only, and raises errors through `socialErrors` alone. Parameter
 * names in errors are the Graph's own (`start_time`, `creation_id`, …), since that is what a client sent.
 *
 * Error choices for content publishing follow the platform's error-code table for the Content Publishing API (codes −2,
 * −1, 1, 9, 24, 9004, 9007, 36004 and 100 with 2207xxx subcodes, each with a user title and message); where the platform
 * documents no error for a rule (e.g. publishing a container twice, a carousel child of another account) a plain 100
 * `invalidParameter` with our own wording is used. Each choice is noted where it is made.
 */
export function createAccountEdgesService(deps: AccountEdgesServiceDeps): AccountEdgesService {
  const ctx = createEdgeContext(deps);
  const events = createUpcomingEvents(ctx);
  const hashtags = createHashtags(ctx);
  const adAccounts = createAdAccounts(ctx);
  const publishing = createContentPublishing(ctx);
  const { insights } = createInsights(ctx);
  return {
    listUpcomingEvents: events.listEvents,
    createUpcomingEvent: events.createEvent,
    recentlySearchedHashtags: hashtags.recentHashtags,
    recordHashtagSearch: (accountId, name) => hashtags.recordSearch(accountId, name, ctx.clock()),
    agencies: adAccounts.agencies,
    authorizedAdAccounts: adAccounts.authorizedAdAccounts,
    authorizeAdAccount: (accountId, input) => adAccounts.authorizeAdAccount(accountId, input),
    createContainer: publishing.createContainer,
    getContainer: publishing.getContainer,
    findContainerById: publishing.findContainerById,
    publishContainer: publishing.publishContainer,
    contentPublishingLimit: publishing.contentPublishingLimit,
    insights,
  };
}
