import { accountEdgeGates } from './account-edge-gates.ts';
import { accountMediaRules } from './account-media-rules.ts';
import { accountNodeRules } from './account-node-rules.ts';
import type { AccountsServiceDeps } from './account-views.ts';

export * from './account-views.ts';

/**
 * The rules of the professional-account node and its media edges (Area C). Every transport reaches them through GraphQL
 * resolvers that call this service; nothing here knows about HTTP.
 *
 * Assembled from its parts: account-node-rules.ts (the node, `/me`, business_discovery, the parent-platform user),
 * account-media-rules.ts (the media edges and nodes), account-edge-gates.ts (the permission gates of every other
 * edge); what they share is in account-views.ts and account-field-rules.ts.
 */
export function createAccountsService(deps: AccountsServiceDeps) {
  return { ...accountNodeRules(deps), ...accountMediaRules(deps), ...accountEdgeGates(deps) };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
