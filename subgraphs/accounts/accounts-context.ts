import DataLoader from 'dataloader';
import type { SocialCallOf } from '../shared/social-graph/social-call.ts';
import type { ViewerOf } from '../shared/social-graph/social-request.ts';
import type { AccountRecord, MediaRecord } from './accounts.repository.ts';
import type { AccountsService } from './accounts.service.ts';
import type { SocialCredential } from '../../lib/auth/social-auth/social-token.service.ts';
import type { WebhookSubscriptionsService } from '../shared/webhooks/webhook-subscriptions.service.ts';

/** Per-request context of the accounts subgraph: the lazily resolved viewer and the request's DataLoaders. */
export interface AccountsContext {
  viewer: ViewerOf;
  /** This request as a call the rate limits count (admitted by the first root field). */
  call: SocialCallOf;
  accounts: AccountsService;
  /** Batches entity references of one request into one SELECT each. */
  accountLoader: DataLoader<string, AccountRecord | undefined>;
  mediaLoader: DataLoader<string, MediaRecord | undefined>;
  webhooks: WebhookSubscriptionsService;
  /** The request's token as presented (an app access token included), for the app's own settings. */
  credential: () => Promise<SocialCredential>;
}

export function createAccountsContext(
  viewer: ViewerOf,
  call: SocialCallOf,
  accounts: AccountsService,
  extra: Pick<AccountsContext, 'webhooks' | 'credential'>,
): AccountsContext {
  return {
    viewer,
    call,
    accounts,
    ...extra,
    accountLoader: new DataLoader((ids: readonly string[]) => accounts.loadAccounts(ids)),
    mediaLoader: new DataLoader((ids: readonly string[]) => accounts.loadMedia(ids)),
  };
}
