import type { Kysely } from 'kysely';
import { beforeAll, expect } from 'vitest';
import type { SocialTables } from '../../subgraphs/shared/social-graph/social-tables.ts';
import { graphqlErrors } from './graph-error-expectations.ts';
import { createGraphqlClient, type GraphqlClient } from './graphql-client.ts';
import type { RestClient, RestReply } from './rest-client.ts';
import { useSocialWorld, type SocialFixture } from './social-fixture.ts';
import type { TestSystem } from './test-system.ts';

/**
 * The world of the account-edge front-door tests (test/e2e/social-account-edges.*.test.ts): one system per test file on
 * its own clock, the shared social fixture with bluebottle's demo edges, clients of both hosts and GraphQL, and what the
 * files assert with. A file calls useAccountEdgesWorld(now) once; the bindings below are set before its tests run. Files
 * run one after another in a worker that keeps its modules (isolate: false), so the world starts from nothing each time.
 *
 * Permission lists are written out from the reference (§2.2, §4), not imported from the product; the Graph errors are in
 * graph-error-expectations.ts.
 */

export const T0 = Date.parse('2026-11-02T12:00:00.000Z');
export const T0S = T0 / 1000;
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const DAYS = 86_400; // one day in seconds
/** The UTC midnight before T0 (the end of the last complete day), in unix seconds. */
export const D0 = Date.parse('2026-11-02T00:00:00.000Z') / 1000;

export const CURSOR = /^[A-Za-z0-9_-]{20,}$/;
export const QUOTA = 3;

/** The Graph timestamp format: `2026-11-01T12:00:00+0000`. */
export const graphTime = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}+0000`;
export const isoTime = (ms: number) => new Date(ms).toISOString();

// ---- permissions, as the reference lists them (§0, §2.2, §4) ----

export const OWN_ALL = [
  'social_business_basic',
  'social_business_manage_comments',
  'social_business_content_publish',
  'social_business_manage_insights',
  'social_business_manage_messages',
] as const;

export const PARENT_ALL = [
  'social_basic',
  'pages_read_engagement',
  'pages_show_list',
  'social_manage_comments',
  'social_content_publish',
  'social_manage_insights',
  'social_manage_upcoming_events',
  'ads_management',
  'ads_read',
  'business_management',
  'catalog_management',
  'social_shopping_tag_products',
] as const;

export function expectOk(reply: RestReply): void {
  expect(reply.status, reply.text).toBe(200);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
}

/** `path?name=value…`, encoded as a browser would (URLSearchParams). */
export function withQuery(path: string, params: Record<string, string> = {}): string {
  const text = new URLSearchParams(params).toString();
  return text === '' ? path : `${path}?${text}`;
}

/** The link a page must carry: `base` + path + these query parameters, in this order, form-encoded. */
export function link(base: string, path: string, params: [string, string][]): string {
  const url = new URL(path, base);
  for (const [name, value] of params) url.searchParams.append(name, value);
  return url.href;
}

// ---- GraphQL errors as the gateway passes them on from the accounts subgraph (graph-error-expectations.ts) ----

const accountsErrors = graphqlErrors('accounts');
export const gqlMissingPermission = accountsErrors.missingPermission;
export const gqlNotAllowed = accountsErrors.notAllowed;
export const gqlUnknownField = (path: (string | number)[], field: string) => accountsErrors.unknownField(path, field);
export const gqlMissingParameter = accountsErrors.missingParameter;
export const gqlInvalidParameter = accountsErrors.invalidParameter;
export const gqlUnknownObject = (path: (string | number)[], id: string, method: 'get' | 'post') =>
  accountsErrors.unknownObject(path, method, id);
export const gqlPublishingError = accountsErrors.publishingError;

// ---- the insights catalogue's wording for the metrics used here ----

export const REACH = {
  title: 'Accounts reached',
  description:
    'The number of unique accounts that have seen your content, at least once, including in ads. Content includes posts, stories, reels, videos and live videos. Reach is different from impressions, which may include multiple views of your content by the same accounts. This metric is estimated.',
};
export const PROFILE_VIEWS = { title: 'Profile views', description: 'The number of times that your profile was visited.' };
export const ONLINE_FOLLOWERS = {
  title: 'Online followers',
  description: 'The number of your followers who were online during each hour of the day (0–23, UTC).',
};
export const LIKES = { title: 'Likes', description: 'The number of likes on your posts, reels and videos.' };
export const FOLLOWER_DEMOGRAPHICS = {
  title: 'Follower demographics',
  description: 'The demographic characteristics of followers, including countries, cities and gender distribution.',
};
export const ALL_METRICS =
  'reach, follower_count, website_clicks, profile_views, online_followers, accounts_engaged, total_interactions, likes, comments, shares, saves, replies, engaged_audience_demographics, follower_demographics, follows_and_unfollows, profile_links_taps, views, reposts';
export const ALL_SUBTYPES =
  'AFTER_EVENT_1DAY, AFTER_EVENT_2DAY, AFTER_EVENT_3DAY, AFTER_EVENT_4DAY, AFTER_EVENT_5DAY, AFTER_EVENT_6DAY, AFTER_EVENT_7DAY, BEFORE_EVENT_15MIN, BEFORE_EVENT_1HOUR, BEFORE_EVENT_1DAY, BEFORE_EVENT_2DAY, EVENT_START, RESCHEDULED';

// ---- the world ----

let currentNow: () => Date = () => new Date(T0);

export let system: TestSystem;
export let fixture: SocialFixture;
export let db: Kysely<SocialTables>;
export let own: RestClient;
export let parent: RestClient;
export let graphql: GraphqlClient;
/** bluebottle, the fixture's business account; roaster, the creator account (ana has a role on both pages). */
export let bluebottle: string;
export let roaster: string;
/** The fixture's agencies (Northwind, Blue Harbor), their ad accounts (`act_…`: Main, Experiments each) and Acme. */
export let northwind: string;
export let blueHarbor: string;
export let acme: string;
export let northwindMain: string;
export let northwindExperiments: string;
export let blueHarborMain: string;
/** An ad account of Acme Holdings (the business ana administers), added here. */
export let acmeAdAccount: string;
/** A platform user whose role on bluebottle's page has only the MODERATE task, added here. */
export let moderator: string;

/** Tokens minted at the current clock, by login type and permission set. */
export const minted = new Map<string, string>();
export async function tokenFor(loginType: 'own' | 'parent', subject: string, permissions: readonly string[]): Promise<string> {
  const key = `${currentNow().getTime()}|${loginType}|${subject}|${permissions.join(',')}`;
  let token = minted.get(key);
  if (token === undefined) {
    token = await fixture.token(loginType, subject, permissions);
    minted.set(key, token);
  }
  return token;
}
/** bluebottle's own-login token with every permission. */
export const ownToken = () => tokenFor('own', bluebottle, OWN_ALL);
/** ana's parent-platform token with every permission. */
export const parentToken = () => tokenFor('parent', fixture.platformUsers.ana, PARENT_ALL);

export const getOwn = async (path: string, params: Record<string, string> = {}) =>
  own.request('GET', withQuery(path, params), { token: await ownToken() });
export const getParent = async (path: string, params: Record<string, string> = {}) =>
  parent.request('GET', withQuery(path, params), { token: await parentToken() });
export const postOwn = async (path: string, json: Record<string, unknown>) => own.request('POST', path, { token: await ownToken(), json });
export const postParent = async (path: string, json: Record<string, unknown>) =>
  parent.request('POST', path, { token: await parentToken(), json });
export const gql = async (query: string, variables: Record<string, unknown>, token?: string) =>
  graphql.request(query, { token: token ?? (await ownToken()), variables });

/** A stored daily insight value of bluebottle (the fixture's demo data), read back by SQL. */
export async function stored(
  metric: string,
  endSeconds: number,
): Promise<{ value: number; breakdown: Record<string, Record<string, number>> | null }> {
  const row = await db
    .selectFrom('social.insight_value')
    .select(['value', 'breakdown'])
    .where('account_id', '=', bluebottle)
    .where('metric', '=', metric)
    .where('end_time', '=', new Date(endSeconds * SECOND))
    .executeTakeFirstOrThrow();
  const breakdown = typeof row.breakdown === 'string' ? JSON.parse(row.breakdown) : row.breakdown;
  return { value: Number(row.value), breakdown: breakdown as Record<string, Record<string, number>> | null };
}
export const storedValue = async (metric: string, endSeconds: number) => (await stored(metric, endSeconds)).value;

/** An id of the same kind as `known` that is well formed but names nothing (ids step by 16 per kind). */
export const unusedId = (known: string) => (BigInt(known) + 16n * 100_000n).toString();

/** Starts this file's system on its clock (`now`), with the fixture (useSocialWorld), before its tests; closes it after. */
export function useAccountEdgesWorld(now: () => Date): void {
  const world = useSocialWorld({ env: { SOCIAL_PUBLISHING_QUOTA: String(QUOTA) }, now });
  beforeAll(async () => {
    // A token an earlier file minted for the same subject at the same clock was signed by that file's system.
    currentNow = now;
    minted.clear();
    const { graph } = world();
    ({ system, fixture, tables: db, ownHost: own, parentHost: parent } = world());
    graphql = createGraphqlClient(system.gatewayUrl);
    bluebottle = fixture.accounts.bluebottle;
    roaster = fixture.accounts.roaster;
    acme = fixture.businessId;
    [northwind, blueHarbor] = fixture.edges.agencyIds as [string, string];
    [northwindMain, northwindExperiments, blueHarborMain] = fixture.edges.adAccountIds as [string, string, string, string];

    acmeAdAccount = `act_${
      (
        await db
          .insertInto('social.ad_account')
          .values({ business_id: acme, name: 'Acme Holdings — In-house' })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id
    }`;
    moderator = await graph.platformUser('Mo Derator');
    await graph.pageRole(fixture.pages.bluebottle, moderator, { tasks: ['MODERATE'] });
  });
}
