import { isSocialId, wellFormedIds } from '../../lib/social-graph/social-ids.ts';
import { inIdOrder } from '../../lib/in-id-order.ts';
import { administeredBusinesses, authorize, managesAccount, type Viewer } from '../shared/social-graph/social-access.ts';
import { NODE_TYPES } from '../../contracts/social-graph.ts';
import { socialErrors } from '../shared/social-graph/social-errors.ts';
import { findAccountByUsername, findAccountsByIds, findPlatformUser, listUserPages, type AccountRecord } from './accounts.repository.ts';
import { checkAccountField } from './account-field-rules.ts';
import type { AccountView, AccountsServiceDeps } from './account-views.ts';

/** The accounts service's account node (accounts.service.ts): the account, `/me`, its fields' rules, business_discovery, the parent-platform user. */
export function accountNodeRules(deps: AccountsServiceDeps) {
  const { db } = deps;
  return {
    /** Batch load for entity references and DataLoaders: accounts in the order of `ids`. */
    async loadAccounts(ids: readonly string[]): Promise<(AccountRecord | undefined)[]> {
      return inIdOrder(ids, await findAccountsByIds(db, wellFormedIds(ids, 'account')));
    },

    /** GET /<account_id>: an account the viewer acts for. */
    async account(viewer: Viewer, id: string): Promise<AccountView> {
      if (!isSocialId(id, 'account') || !managesAccount(viewer, id)) throw socialErrors.unknownObject(id);
      const account = (await findAccountsByIds(db, [id]))[0];
      if (!account || account.accountType === 'PERSONAL') throw socialErrors.unknownObject(id);
      return { account, scope: 'managed' };
    },

    /** `/me` on the own-login host: the account that granted the token. */
    async me(viewer: Viewer): Promise<AccountView> {
      if (viewer.host !== 'own') {
        throw socialErrors.invalidParameter(
          'me',
          'me is the professional account of an own-login token; with a parent-platform token ask for platformUser.',
        );
      }
      return this.account(viewer, viewer.subjectId);
    },

    /** An account reached as a federation entity: managed when the viewer acts for it, otherwise public fields only. */
    viewOf(viewer: Viewer, account: AccountRecord): AccountView {
      return { account, scope: managesAccount(viewer, account.id) ? 'managed' : 'public' };
    },

    /**
     * Checks a field of the account node: refused (as the platform does) when not public for an account seen through
     * business_discovery; on a managed account, the node's read permissions (each edge checks its own instead, so that
     * `/<account>/agencies` needs the agencies permissions only).
     */
    checkField: (view: AccountView, field: string, viewer?: Viewer): void => checkAccountField(view, field, viewer),

    /** Fields only the own-login host's account node has (`account_type`, `user_id`). */
    checkOwnHostField(viewer: Viewer, view: AccountView, field: string): void {
      this.checkField(view, field, viewer);
      if (viewer.host !== 'own') throw socialErrors.unknownField(field, NODE_TYPES.account);
    },

    /**
     * shopping_product_tag_eligibility: catalog_management + social_shopping_tag_products (parent host), then true only
     * when the app user administers the business that owns the account's shop, and the shop is approved with products.
     */
    async shoppingProductTagEligibility(viewer: Viewer, view: AccountView): Promise<boolean> {
      // A field of the node: the node's read permissions first (and the business-manager rule), then its own.
      this.checkField(view, 'shopping_product_tag_eligibility', viewer);
      authorize(viewer, 'shoppingEligibility', { accountId: view.account.id });
      const { shopBusinessId, shopApproved, shopCatalogProductCount } = view.account;
      if (shopBusinessId === null || !shopApproved || shopCatalogProductCount === 0) return false;
      return (await administeredBusinesses(db, viewer)).includes(shopBusinessId);
    },

    /** business_discovery.username(x): another professional account's public fields. */
    async businessDiscovery(viewer: Viewer, view: AccountView, username: string | null | undefined): Promise<AccountView> {
      this.checkField(view, 'business_discovery');
      authorize(viewer, 'businessDiscovery', { accountId: view.account.id });
      if (username === undefined || username === null || username === '') throw socialErrors.missingParameter('username');
      const found = await findAccountByUsername(db, username);
      if (!found || found.accountType === 'PERSONAL' || found.ageGated || !found.isPublished) {
        throw socialErrors.invalidParameter('username', `Cannot find User with username: ${username}`);
      }
      // Public fields only, even for an account the viewer also acts for: the edge shows what anyone may discover.
      return { account: found, scope: 'public' };
    },

    /**
     * The caller of a request whose token checked out (socialCaller): nothing is looked up beyond the token, so a path the
     * graph does not serve can be refused after the token's own errors, as the platform orders them.
     */
    caller(viewer: Viewer): { host: Viewer['host']; subjectId: string } {
      return { host: viewer.host, subjectId: viewer.subjectId };
    },

    /** GET /me on the parent-platform host: the user behind the token. */
    async platformUser(viewer: Viewer) {
      if (viewer.host !== 'parent') {
        throw socialErrors.invalidParameter('platformUser', 'platformUser needs a parent-platform (Login for Business) token.');
      }
      const user = await findPlatformUser(db, viewer.subjectId);
      if (!user) throw socialErrors.meWithoutUser();
      return user;
    },

    /** GET /me/accounts on the parent-platform host: the user's pages, each with its linked account if the token may read it. */
    async userPages(viewer: Viewer) {
      return listUserPages(db, viewer.subjectId);
    },

    /** `social_business_account` of a page: the linked account, which the token must be allowed to read. */
    async pageAccount(
      viewer: Viewer,
      accountId: string | null,
      load: (id: string) => Promise<AccountRecord | undefined>,
    ): Promise<AccountView | null> {
      if (accountId === null) return null;
      authorize(viewer, 'readAccount', { accountId });
      const account = await load(accountId);
      return account ? { account, scope: 'managed' } : null;
    },
  };
}
