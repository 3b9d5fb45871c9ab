import type { SocialCredential } from '../../../lib/auth/social-auth/social-token.service.ts';
import { findAdministeredBusinesses, findPageRoles, type PageRole } from './social-access.repository.ts';
import { socialErrors } from './social-errors.ts';
import {
  NODE_TYPES,
  SOCIAL_OPERATIONS,
  type OperationRule,
  type SocialHost,
  type SocialMethod,
  type SocialOperation,
} from '../../../contracts/social-graph.ts';
import type { SocialDb } from './social-tables.ts';

/**
 * Who is calling the social graph, and what they may do: the permission matrix of the reference (§1.8, §2.2, §4), one table
 * for both social subgraphs so that a rule is written once.
 *
 * Two hosts, one per login type. On the own-login host the token belongs to a professional account and reaches that account
 * only. On the parent-platform host the token belongs to a parent-platform user and reaches the accounts linked to pages on
 * which the user has a role; a role granted through a business manager ("BM") also needs ads_management or ads_read.
 */

/** The caller of one request, after its token was checked. */
export interface Viewer {
  host: SocialHost;
  /** The professional account (own login) or the parent-platform user (parent login). */
  subjectId: string;
  permissions: ReadonlySet<string>;
  /** Parent host: the user's page roles by account id. Own host: empty. */
  pageRoles: ReadonlyMap<string, PageRole>;
  /** The accounts this viewer acts for: the token's account, or the accounts of the user's pages. */
  managedAccountIds: readonly string[];
  /** The app the token was issued to (whose subscriptions `/me/subscribed_apps` manages); null for an app-less token. */
  appId: string | null;
}

export interface SocialAccess {
  /**
   * The viewer of a request, or the token error the reference gives: no token 104, unparsable/revoked/expired 190, a
   * token of the other login type 190. `host` undefined (GraphQL front-ends) takes the token's own login type.
   */
  viewer(credential: SocialCredential, host: SocialHost | undefined): Promise<Viewer>;
}

/** The reference's error for no token (104) or a token that cannot serve (190: unparsable, expired, revoked). */
export function refuseCredential(credential: Extract<SocialCredential, { kind: 'none' | 'invalid' }>): never {
  if (credential.kind === 'none') throw socialErrors.noToken();
  if (credential.reason === 'expired') throw socialErrors.expiredToken(credential.expiredAt, credential.now);
  if (credential.reason === 'revoked') throw socialErrors.revokedToken();
  throw socialErrors.unparsableToken();
}

export function createSocialAccess(db: SocialDb): SocialAccess {
  return {
    async viewer(credential, host) {
      switch (credential.kind) {
        case 'none':
        case 'invalid':
          return refuseCredential(credential);
        case 'app':
          // An app access token speaks for the app (its subscriptions), never for a user or an account.
          throw socialErrors.meWithoutUser();
        case 'token':
          break;
      }
      if (host !== undefined && credential.loginType !== host) throw socialErrors.wrongHost();
      if (credential.loginType === 'own') {
        return {
          host: 'own',
          subjectId: credential.subjectId,
          permissions: credential.permissions,
          pageRoles: new Map(),
          managedAccountIds: [credential.subjectId],
          appId: credential.appId,
        };
      }
      const roles = await findPageRoles(db, credential.subjectId);
      return {
        host: 'parent',
        subjectId: credential.subjectId,
        permissions: credential.permissions,
        pageRoles: new Map(roles.map((role) => [role.accountId, role])),
        managedAccountIds: roles.map((role) => role.accountId),
        appId: credential.appId,
      };
    },
  };
}

/** True when the viewer acts for the account (its own account, or one of the user's pages' accounts). */
export function managesAccount(viewer: Viewer, accountId: string): boolean {
  return viewer.host === 'own' ? viewer.subjectId === accountId : viewer.pageRoles.has(accountId);
}

/** Whether the operation exists on the viewer's host. */
export function availableOnHost(viewer: Viewer, operation: SocialOperation): boolean {
  return viewer.host === 'parent' || SOCIAL_OPERATIONS[operation].own !== null;
}

/**
 * Checks that the viewer holds the operation's permissions (first missing one reported, `(#200) Requires extended
 * permission: …`). With `accountId`, also that the viewer acts for that account (otherwise the account "does not exist"
 * for this token: 100/33 with `method`) and, on the parent host, the business-manager and page-task conditions.
 * An operation that does not exist on the host is an unknown field of the node.
 */
export function authorize(
  viewer: Viewer,
  operation: SocialOperation,
  target?: { accountId: string; objectId?: string; method?: SocialMethod },
): void {
  const rule: OperationRule = SOCIAL_OPERATIONS[operation];
  const requirement = viewer.host === 'own' ? rule.own : rule.parent;
  if (requirement === null) throw socialErrors.unknownField(rule.field, NODE_TYPES.account);
  if (target && !managesAccount(viewer, target.accountId)) {
    throw socialErrors.unknownObject(target.objectId ?? target.accountId, target.method ?? 'get');
  }
  for (const group of requirement) {
    if (!group.some((permission) => viewer.permissions.has(permission))) throw socialErrors.missingPermission(group[0]!);
  }
  if (viewer.host !== 'parent' || !target) return;
  const role = viewer.pageRoles.get(target.accountId)!;
  if (rule.businessManager && role.viaBusinessManager && !viewer.permissions.has('ads_management') && !viewer.permissions.has('ads_read')) {
    throw socialErrors.missingPermission('ads_read');
  }
  if (rule.tasks && !rule.tasks.some((task) => role.tasks.includes(task))) throw socialErrors.notAllowed();
}

/** True when the viewer holds the operation's permissions (no account check); for fields that are omitted, not refused. */
export function holdsPermissions(viewer: Viewer, operation: SocialOperation): boolean {
  const rule: OperationRule = SOCIAL_OPERATIONS[operation];
  const requirement = viewer.host === 'own' ? rule.own : rule.parent;
  return requirement !== null && requirement.every((group) => group.some((permission) => viewer.permissions.has(permission)));
}

/** The businesses the viewer administers (parent host only; empty on the own-login host). */
export async function administeredBusinesses(db: SocialDb, viewer: Viewer): Promise<string[]> {
  return viewer.host === 'parent' ? findAdministeredBusinesses(db, viewer.subjectId) : [];
}
