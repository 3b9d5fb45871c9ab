import type { LoginType, SocialCredential } from '../../lib/social-auth/social-token.service.ts';
import { findAdministeredBusinesses, findPageRoles, type PageRole } from './social-access.repository.ts';
import { socialErrors, type SocialMethod } from './social-errors.ts';
import type { SocialDb } from './social-tables.ts';

/**
 * Who is calling the social graph, and what they may do: the permission matrix of the reference (§1.8, §2.2, §4), one table
 * for both social subgraphs so that a rule is written once.
 *
 * Two hosts, one per login type. On the own-login host the token belongs to a professional account and reaches that account
 * only. On the parent-platform host the token belongs to a parent-platform user and reaches the accounts linked to pages on
 * which the user has a role; a role granted through a business manager ("BM") also needs ads_management or ads_read.
 */

export type SocialHost = LoginType;

/** The node type names the platform reports in `(#100) Tried accessing nonexisting field (x) on node type (T)`. */
export const NODE_TYPES = {
  account: 'SocialUser',
  media: 'SocialMedia',
  comment: 'SocialComment',
  platformUser: 'User',
  page: 'Page',
} as const;

/** A permission requirement: every group must be met; a group is met by any one of its permissions. */
type Requirement = readonly (readonly string[])[];

interface OperationRule {
  /** The Graph field or edge name, for "not on this host" errors. */
  field: string;
  /** Requirement on the own-login host; null: the operation does not exist there. */
  own: Requirement | null;
  /** Requirement on the parent-platform host. */
  parent: Requirement;
  /** Parent host: a business-manager page role also needs ads_management or ads_read. */
  businessManager: boolean;
  /** Parent host: page tasks of which the user's role must hold one. */
  tasks?: readonly string[];
}

const OWN_BASIC = ['social_business_basic'];
const OWN_COMMENTS = ['social_business_manage_comments'];
const BASIC = ['social_basic'];
const READ_ENGAGEMENT = ['pages_read_engagement'];
const READ_OR_SHOW = ['pages_read_engagement', 'pages_show_list'];
const SHOW_LIST = ['pages_show_list'];
const MANAGE_COMMENTS = ['social_manage_comments'];
const ADS = ['ads_management', 'business_management'];

/** The operations of Areas B and C and their requirements, as §1.6, §1.8, §2.2 and §4 of the reference give them. */
export const SOCIAL_OPERATIONS = {
  readAccount: { field: 'id', own: [OWN_BASIC], parent: [BASIC, READ_ENGAGEMENT], businessManager: true },
  readMedia: { field: 'media', own: [OWN_BASIC], parent: [BASIC, READ_OR_SHOW], businessManager: true },
  readStories: {
    field: 'stories',
    own: [OWN_BASIC],
    parent: [BASIC, ['social_manage_insights'], READ_ENGAGEMENT, SHOW_LIST],
    businessManager: false,
  },
  readTags: { field: 'tags', own: [OWN_BASIC], parent: [BASIC, MANAGE_COMMENTS, READ_OR_SHOW], businessManager: true },
  readLiveMedia: { field: 'live_media', own: [OWN_BASIC], parent: [BASIC, READ_ENGAGEMENT], businessManager: true },
  /** The media `comments` edge (and counts): basic reads; the commenter's username is gated separately. */
  readMediaComments: { field: 'comments', own: [OWN_BASIC], parent: [BASIC, READ_ENGAGEMENT], businessManager: true },
  /** The comment node and its replies edge (§1.8). */
  readComment: {
    field: 'id',
    own: [OWN_BASIC, OWN_COMMENTS],
    parent: [BASIC, MANAGE_COMMENTS, READ_ENGAGEMENT],
    businessManager: true,
  },
  /** Hide, show and delete (§1.8). */
  moderateComment: {
    field: 'hide',
    own: [OWN_BASIC, OWN_COMMENTS],
    parent: [BASIC, MANAGE_COMMENTS, READ_ENGAGEMENT],
    businessManager: true,
  },
  /** POST replies (§1.6 adds pages_show_list). */
  replyToComment: {
    field: 'replies',
    own: [OWN_BASIC, OWN_COMMENTS],
    parent: [BASIC, MANAGE_COMMENTS, SHOW_LIST, READ_ENGAGEMENT],
    businessManager: true,
  },
  /** A commenter's username, since 27 August 2024 (§1.7). */
  readCommenterUsername: { field: 'username', own: [OWN_COMMENTS], parent: [MANAGE_COMMENTS], businessManager: false },
  publish: {
    field: 'media_publish',
    own: [OWN_BASIC, ['social_business_content_publish']],
    parent: [BASIC, ['social_content_publish'], READ_OR_SHOW],
    businessManager: true,
    tasks: ['MANAGE', 'CREATE_CONTENT'],
  },
  readPublishingLimit: {
    field: 'content_publishing_limit',
    own: [OWN_BASIC, ['social_business_content_publish']],
    parent: [BASIC, ['social_content_publish'], READ_ENGAGEMENT],
    businessManager: true,
  },
  readInsights: {
    field: 'insights',
    own: [OWN_BASIC, ['social_business_manage_insights']],
    parent: [BASIC, ['social_manage_insights'], READ_OR_SHOW],
    businessManager: true,
  },
  createMentionReply: {
    field: 'mentions',
    own: [OWN_BASIC, OWN_COMMENTS],
    parent: [BASIC, MANAGE_COMMENTS, READ_ENGAGEMENT, SHOW_LIST],
    businessManager: true,
  },
  readMentionedComment: {
    field: 'mentioned_comment',
    own: null,
    parent: [BASIC, MANAGE_COMMENTS, READ_ENGAGEMENT, SHOW_LIST],
    businessManager: true,
    tasks: ['MANAGE', 'CREATE_CONTENT', 'MODERATE'],
  },
  readMentionedMedia: {
    field: 'mentioned_media',
    own: null,
    parent: [BASIC, MANAGE_COMMENTS, READ_ENGAGEMENT, SHOW_LIST],
    businessManager: true,
    tasks: ['MANAGE', 'CREATE_CONTENT', 'MODERATE'],
  },
  /** GET replies (§1.6: the edge lists pages_show_list besides the node's permissions). */
  readReplies: {
    field: 'replies',
    own: [OWN_BASIC, OWN_COMMENTS],
    parent: [BASIC, MANAGE_COMMENTS, SHOW_LIST, READ_ENGAGEMENT],
    businessManager: true,
  },
  businessDiscovery: {
    field: 'business_discovery',
    own: null,
    parent: [BASIC, ['social_manage_insights'], READ_OR_SHOW],
    businessManager: true,
  },
  readRecentHashtags: { field: 'recently_searched_hashtags', own: null, parent: [BASIC], businessManager: true },
  upcomingEvents: {
    field: 'upcoming_events',
    own: null,
    parent: [BASIC, ['social_manage_upcoming_events']],
    businessManager: false,
  },
  readAgencies: { field: 'agencies', own: null, parent: [ADS], businessManager: false },
  adAccounts: { field: 'authorized_adaccounts', own: null, parent: [ADS], businessManager: false },
  shoppingEligibility: {
    field: 'shopping_product_tag_eligibility',
    own: null,
    parent: [['catalog_management'], ['social_shopping_tag_products']],
    businessManager: false,
  },
} as const satisfies Record<string, OperationRule>;

export type SocialOperation = keyof typeof SOCIAL_OPERATIONS;

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
}

export interface SocialAccess {
  /**
   * The viewer of a request, or the token error the reference gives: no token 104, unparsable/revoked/expired 190, a
   * token of the other login type 190. `host` undefined (GraphQL front-ends) takes the token's own login type.
   */
  viewer(credential: SocialCredential, host: SocialHost | undefined): Promise<Viewer>;
}

export function createSocialAccess(db: SocialDb): SocialAccess {
  return {
    async viewer(credential, host) {
      switch (credential.kind) {
        case 'none':
          throw socialErrors.noToken();
        case 'invalid':
          if (credential.reason === 'expired') throw socialErrors.expiredToken(credential.expiredAt, credential.now);
          if (credential.reason === 'revoked') throw socialErrors.revokedToken();
          throw socialErrors.unparsableToken();
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
        };
      }
      const roles = await findPageRoles(db, credential.subjectId);
      return {
        host: 'parent',
        subjectId: credential.subjectId,
        permissions: credential.permissions,
        pageRoles: new Map(roles.map((role) => [role.accountId, role])),
        managedAccountIds: roles.map((role) => role.accountId),
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
