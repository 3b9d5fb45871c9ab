import { isSocialId } from '../../lib/social-graph/social-ids.ts';
import { administeredBusinesses, authorize, type Viewer } from '../shared/social-graph/social-access.ts';
import { NODE_TYPES, type SocialOperation } from '../../contracts/social-graph.ts';
import { socialErrors } from '../shared/social-graph/social-errors.ts';
import { type PageArgs } from '../shared/social-graph/social-paging.ts';
import type {
  AuthorizeAdAccountInput,
  CreateContainerInput,
  CreateUpcomingEventInput,
  InsightsParams,
  MediaContainer,
} from './account-edges/account-edges.types.ts';
import { findMediaByIds } from './accounts.repository.ts';
import type { AccountView, AccountsServiceDeps, MediaView } from './account-views.ts';

/**
 * The accounts service's gates in front of the other edges (accounts.service.ts): each checks the field and the
 * permission, then hands the account to its domain module (account-edges.service.ts).
 */
export function accountEdgeGates(deps: AccountsServiceDeps) {
  const { db, edges } = deps;
  return {
    async insights(viewer: Viewer, view: AccountView, params: InsightsParams) {
      return edges.insights(edgeOf(viewer, view, 'insights', 'readInsights'), params);
    },

    async contentPublishingLimit(viewer: Viewer, view: AccountView, since: string | null | undefined) {
      return edges.contentPublishingLimit(edgeOf(viewer, view, 'content_publishing_limit', 'readPublishingLimit'), since);
    },

    async recentlySearchedHashtags(viewer: Viewer, view: AccountView, limit: number | null | undefined) {
      return edges.recentlySearchedHashtags(edgeOf(viewer, view, 'recently_searched_hashtags', 'readRecentHashtags'), limit);
    },

    async upcomingEvents(viewer: Viewer, view: AccountView, args: PageArgs) {
      const accountId = edgeOf(viewer, view, 'upcoming_events', 'upcomingEvents');
      requireBusinessPage(viewer, accountId);
      return edges.listUpcomingEvents(accountId, args);
    },

    async createUpcomingEvent(viewer: Viewer, accountId: string, input: CreateUpcomingEventInput) {
      writeTo(viewer, accountId, 'upcomingEvents');
      requireBusinessPage(viewer, accountId);
      return edges.createUpcomingEvent(accountId, input);
    },

    async agencies(viewer: Viewer, view: AccountView, args: PageArgs) {
      return edges.agencies(edgeOf(viewer, view, 'agencies', 'readAgencies'), args);
    },

    async authorizedAdAccounts(viewer: Viewer, view: AccountView, business: string | null | undefined, args: PageArgs) {
      return edges.authorizedAdAccounts(edgeOf(viewer, view, 'authorized_adaccounts', 'adAccounts'), business ?? undefined, args);
    },

    /** POST authorized_adaccounts: the app user must administer the business whose ad account it authorises. */
    async authorizeAdAccount(viewer: Viewer, accountId: string, input: AuthorizeAdAccountInput): Promise<true> {
      writeTo(viewer, accountId, 'adAccounts');
      if (!input.businessId) throw socialErrors.missingParameter('business');
      if (!(await administeredBusinesses(db, viewer)).includes(input.businessId)) throw socialErrors.notAllowed();
      return edges.authorizeAdAccount(accountId, input);
    },

    async createContainer(viewer: Viewer, accountId: string, input: CreateContainerInput): Promise<MediaContainer> {
      return edges.createContainer(writeTo(viewer, accountId, 'publish'), input, viewer.subjectId);
    },

    async publishContainer(viewer: Viewer, accountId: string, creationId: string | null | undefined): Promise<MediaView> {
      const published = await edges.publishContainer(writeTo(viewer, accountId, 'publish'), creationId);
      const [media] = await findMediaByIds(db, [published.id]);
      return { media: media!, owned: true };
    },

    /** GET /<container_id>: a container of an account the viewer acts for. */
    async container(viewer: Viewer, id: string): Promise<MediaContainer> {
      const container = await edges.findContainerById(id);
      if (!container) throw socialErrors.unknownObject(id);
      authorize(viewer, 'publish', { accountId: container.accountId, objectId: id });
      return container;
    },
  };
}

/** An edge of a managed account: the field must exist for the view and the viewer must hold the operation. */
function edgeOf(viewer: Viewer, view: AccountView, field: string, operation: SocialOperation): string {
  if (view.scope === 'public') throw socialErrors.unknownField(field, NODE_TYPES.account);
  authorize(viewer, operation, { accountId: view.account.id });
  return view.account.id;
}

/** A write to an account's edge: the account must be one the viewer acts for (else "does not exist" for a post). */
function writeTo(viewer: Viewer, accountId: string, operation: SocialOperation): string {
  if (!isSocialId(accountId, 'account')) throw socialErrors.unknownObject(accountId, 'post');
  authorize(viewer, operation, { accountId, method: 'post' });
  return accountId;
}

/** The parent-platform conditions of upcoming events: the account's page must belong to a business. */
function requireBusinessPage(viewer: Viewer, accountId: string): void {
  if (viewer.host === 'parent' && viewer.pageRoles.get(accountId)?.businessId === null) throw socialErrors.notAllowed();
}
