import { expect } from 'vitest';
import type { SocialErrorSpec } from './social-errors.ts';
import { ALL_OWN, ALL_PARENT, type Host, type SocialWorld, type TokenSpec, type WorldIds } from './social-world.ts';

/**
 * The shape of the social graph's operation table (Areas B and C) and the permission names it uses. Each operation says,
 * per host, what the reference requires (§1.6, §1.8, §2.2, §4 of /work/shared/reference/social-graph.md and the README's
 * decisions) — written out here, never read from the product's own matrix — how to send it on REST and GraphQL, which
 * of its object's values a refusal must not show, and who counts as the wrong owner.
 */

export type Transport = 'rest' | 'graphql';

/** The objects one request acts on, by name (`comment`, `account`, `media`…): ids only. */
export type Target = Readonly<Record<string, string>>;

/** Every group is needed; a group is met by any one of its permissions (the reference's "a or b"). */
export type Requirement = readonly (readonly string[])[];

export interface HostRule {
  permissions: Requirement;
  /** A page role granted through a business manager also needs ads_management or ads_read (the reference's "BM"). */
  businessManager: boolean;
  /** Page tasks of which the user's role must hold one (parent-platform host). */
  tasks?: readonly string[];
  /** The user must administer the business named in the request (§2.2: authorized_adaccounts, "business ADMIN"). */
  businessAdmin?: boolean;
}

export type HostAccess =
  | { kind: 'rule'; rule: HostRule }
  /** The path exists on the host but the reference makes the operation parent-platform only: 100 unknown field. */
  | { kind: 'not-on-host'; field: string }
  /**
   * The app's own access token is the credential (§6.1: an app's webhook subscriptions): no user permission applies, and
   * any user token — the door's actor's with every permission included — or another app's token is 15.
   */
  | { kind: 'app-token' }
  /** No such path on the host at all. */
  | { kind: 'absent'; reason: string };

export interface RestCall {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path from the host's root, with the version: `/v25.0/…`. */
  path: string;
  /** Query parameters for GET and DELETE, a form-urlencoded body for POST. */
  params?: Record<string, string>;
}

export interface GraphqlCall {
  query: string;
  variables: Record<string, unknown>;
}

export interface WrongOwnerCase {
  label: string;
  token: TokenSpec;
  /** The case's own objects (default: the operation's). */
  target?: (world: SocialWorld, host: Host) => Promise<Target>;
  error: SocialErrorSpec;
}

export interface SocialOperation {
  key: string;
  area: 'B' | 'C';
  /** How the request reads in a test name, per transport (`GET /v25.0/{comment-id}`, `comment(id)`). */
  label: Record<Transport, string>;
  own: HostAccess;
  parent: HostAccess;
  /** The objects of the door's own actor (bluebottle's, reached by bluebottle or by ana); fresh ones for writes. */
  target(world: SocialWorld, host: Host): Promise<Target>;
  rest(target: Target, host: Host): RestCall;
  graphql(target: Target, host: Host): GraphqlCall;
  /** Values of the object that a refusal must not show (and that an allowed read does show). */
  secrets(ids: WorldIds, transport: Transport, host: Host): string[];
  /** Whether the allowed reply renders the secrets (reads), as the positive control of the leak check. */
  reads: boolean;
  /** Why a GraphQL refusal may keep other fields' values (they need nothing the refused one does); else all are null. */
  partialGraphqlRefusal?: string;
  wrongOwner: Partial<Record<Host, readonly WrongOwnerCase[]>>;
  /** Why there is no wrong owner for this operation, when there is none. */
  wrongOwnerNotApplicable?: string;
  /** After a refusal: the object is as it was. */
  unchanged?(world: SocialWorld, target: Target): Promise<void>;
}

// Permission names of the reference (§0), own-login host.
export const SBB = 'social_business_basic';
export const SBMC = 'social_business_manage_comments';
export const SBCP = 'social_business_content_publish';
export const SBMI = 'social_business_manage_insights';
// Parent-platform host.
export const SB = 'social_basic';
export const PMM = 'pages_manage_metadata';
export const SMC = 'social_manage_comments';
export const SCP = 'social_content_publish';
export const SMI = 'social_manage_insights';
export const SMUE = 'social_manage_upcoming_events';
export const PRE = 'pages_read_engagement';
export const PSL = 'pages_show_list';
export const ADS_MANAGEMENT = 'ads_management';
export const BUSINESS_MANAGEMENT = 'business_management';
export const CATALOG = 'catalog_management';
export const SHOP_TAGS = 'social_shopping_tag_products';

export const rule = (permissions: Requirement, businessManager: boolean, tasks?: readonly string[], businessAdmin = false): HostAccess => ({
  kind: 'rule',
  rule: { permissions, businessManager, ...(tasks ? { tasks } : {}), ...(businessAdmin ? { businessAdmin } : {}) },
});

export const notOnHost = (field: string): HostAccess => ({ kind: 'not-on-host', field });

/** JSON text of a value as it appears in a reply (the leak checks look for whole JSON strings, not substrings of messages). */
export const json = (value: string): string => JSON.stringify(value);

// Tokens of the wrong owners.
export const roasterToken: TokenSpec = { kind: 'grant', login: 'own', subject: 'roaster', permissions: ALL_OWN };
export const strangerToken: TokenSpec = { kind: 'grant', login: 'parent', subject: 'stranger', permissions: ALL_PARENT };
/** rita acts for roaster only (a direct role on roaster's page). */
export const ritaToken: TokenSpec = { kind: 'grant', login: 'parent', subject: 'rita', permissions: ALL_PARENT };
/** bm with every permission: a business-manager role on bluebottle's page, but no admin of its business. */
export const bmFullToken: TokenSpec = { kind: 'grant', login: 'parent', subject: 'bm', permissions: ALL_PARENT };

/** The stock wrong owners of an object of bluebottle: roaster's account token; a parent-platform user with no role on its page. */
export function othersOf(object: string, method: 'get' | 'post' | 'delete'): Partial<Record<Host, readonly WrongOwnerCase[]>> {
  return {
    own: [{ label: "with roaster's token (another account)", token: roasterToken, error: { kind: 'unknownObject', method, object } }],
    parent: [
      {
        label: 'with the token of a user with no page role (stranger)',
        token: strangerToken,
        error: { kind: 'unknownObject', method, object },
      },
    ],
  };
}

/** A refused hide or delete left the comment shown and in place. */
export async function commentUntouched(world: SocialWorld, target: Target): Promise<void> {
  expect(await world.commentState(target.comment!), 'the refused request changed the comment').toEqual({ hidden: false, exists: true });
}
