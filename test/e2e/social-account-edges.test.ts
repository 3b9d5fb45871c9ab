import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SocialTables } from '../../subgraphs/shared/social-graph/social-tables.ts';
import { createSocialGraphBuilder } from '../../subgraphs/shared/social-graph/social-graph-builder.ts';
import { createGraphqlClient, type GraphqlClient } from '../support/graphql-client.ts';
import { createRestClient, type RestClient, type RestReply } from '../support/rest-client.ts';
import { createSocialFixture, type SocialFixture } from '../support/social-fixture.ts';
import { startTestSystem, type TestSystem } from '../support/test-system.ts';

/**
 * Front-door tests of the account edges wired last (reference §2.2, §3, §4): insights, content_publishing_limit, media
 * POST (publishing containers) and the container node, media_publish, upcoming_events, recently_searched_hashtags,
 * agencies and authorized_adaccounts — over the Graph-style REST paths of both hosts (own login: restUrl; parent platform:
 * socialParentUrl) and through the gateway's GraphQL endpoint (Authorization: Bearer).
 *
 * The world is the shared social fixture (bluebottle's demo edges: three upcoming events, five hashtag searches, two
 * agencies with two ad accounts each — the first of each authorised — and 35 days of insights, all seeded relative to the
 * clock). The clock is ours: it starts at T0 and only moves forward, so container expiry (24 h), video processing (30 s),
 * the publishing quota (SOCIAL_PUBLISHING_QUOTA=3 per rolling 24 h), the hashtag window (7 days) and insight windows are
 * deterministic. Describe blocks run in file order and each says where the clock stands. Tokens are minted at the current
 * clock (they live one hour), never taken from the fixture once the clock has moved.
 *
 * Permission lists are written out from the reference (§2.2, §4), not imported from the product.
 */

const T0 = Date.parse('2026-11-02T12:00:00.000Z');
const T0S = T0 / 1000;
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const DAYS = 86_400; // one day in seconds
/** The UTC midnight before T0 (the end of the last complete day), in unix seconds. */
const D0 = Date.parse('2026-11-02T00:00:00.000Z') / 1000;

const FBTRACE_ID = /^[A-Za-z0-9_-]{11}$/;
const CURSOR = /^[A-Za-z0-9_-]{20,}$/;
const DOCS = 'https://developers.facebook.com/docs/graph-api';
const QUOTA = 3;

let clock = T0;
const now = () => new Date(clock);

/** The Graph timestamp format: `2026-11-01T12:00:00+0000`. */
const graphTime = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}+0000`;
const isoTime = (ms: number) => new Date(ms).toISOString();

// ---- permissions, as the reference lists them (§0, §2.2, §4) ----

const OWN_ALL = [
  'social_business_basic',
  'social_business_manage_comments',
  'social_business_content_publish',
  'social_business_manage_insights',
  'social_business_manage_messages',
] as const;

const PARENT_ALL = [
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

// ---- the Graph error envelopes, written out as the reference gives them ----

interface ExpectedError {
  message: string;
  type?: 'OAuthException' | 'GraphMethodException';
  code: number;
  error_subcode?: number;
  is_transient?: boolean;
  error_user_title?: string;
  error_user_msg?: string;
}

const unknownField = (field: string, nodeType = 'SocialUser'): ExpectedError => ({
  message: `(#100) Tried accessing nonexisting field (${field}) on node type (${nodeType})`,
  code: 100,
});
const unsupported = (method: 'get' | 'post' | 'delete', id: string): ExpectedError => ({
  message:
    `Unsupported ${method} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, ` +
    `or does not support this operation. Please read the Graph API documentation at ${DOCS}`,
  type: 'GraphMethodException',
  code: 100,
  error_subcode: 33,
});
const missingPermission = (permission: string): ExpectedError => ({
  message: `(#200) Requires extended permission: ${permission}`,
  code: 200,
});
const notAllowed: ExpectedError = { message: '(#10) Application does not have permission for this action', code: 10 };
const invalidParameter = (userMessage: string): ExpectedError => ({
  message: 'Invalid parameter',
  code: 100,
  error_user_msg: userMessage,
});
const missingParameter = (name: string): ExpectedError => ({ message: `(#100) The parameter ${name} is required`, code: 100 });
/** A content-publishing error: code and 2207xxx subcode, with the user title and message (§3.3). */
const publishingError = (code: number, subcode: number, message: string, userTitle: string, userMessage: string): ExpectedError => ({
  message,
  code,
  error_subcode: subcode,
  is_transient: false,
  error_user_title: userTitle,
  error_user_msg: userMessage,
});

const PUBLISHING = {
  notFound: (id: string) => publishingError(24, 2207006, 'The requested resource does not exist', 'Media not found', `The media with id ${id} cannot be found.`),
  expired: publishingError(-2, 2207020, 'The media has expired.', 'Media expired', 'The media you are trying to access has expired. Please try to upload again.'),
  notReady: publishingError(9007, 2207027, 'Media ID is not available', 'Media not ready for publishing', 'The media is not ready for publishing, please wait for a moment'),
  limitReached: publishingError(
    9,
    2207042,
    'Application request limit reached',
    'Max posts limit reached',
    'You reached maximum number of posts that is allowed to be published by Content Publishing API.',
  ),
  carouselSize: publishingError(
    100,
    2207028,
    'Invalid parameter',
    'Carousel validation failed',
    "Your post won't be shared as a carousel. Carousels need at least 2 photos/videos and no more than 10 photos/videos.",
  ),
  tooManyTags: publishingError(100, 2207040, 'Invalid parameter', 'Too many tags', 'Cannot use more than 20 tags per created media.'),
  thumbOffset: publishingError(
    1,
    2207057,
    'An unknown error has occurred.',
    'Invalid thumbnail offset',
    'Thumbnail offset must be greater than or equal to 0 and less than video duration.',
  ),
};

/** `OAuth "Social Platform" "<error>" "<message>"`, quotes and backslashes escaped. */
function wwwAuthenticate(error: 'invalid_token' | 'invalid_request', message: string): string {
  const quote = (text: string) => `"${text.replace(/["\\]/g, '\\$&')}"`;
  return `OAuth "Social Platform" ${quote(error)} ${quote(message)}`;
}

function expectGraphError(reply: RestReply, expected: ExpectedError): void {
  // §3.3: client errors, publishing errors included, are HTTP 400.
  expect(reply.status, reply.text).toBe(400);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  const { message, code, type = 'OAuthException', error_subcode, is_transient, error_user_title, error_user_msg } = expected;
  expect(reply.body, reply.text).toEqual({
    error: {
      message,
      type,
      code,
      ...(error_subcode !== undefined && { error_subcode }),
      ...(is_transient !== undefined && { is_transient }),
      ...(error_user_title !== undefined && { error_user_title }),
      ...(error_user_msg !== undefined && { error_user_msg }),
      fbtrace_id: expect.stringMatching(FBTRACE_ID),
    },
  });
  expect(reply.headers.get('www-authenticate')).toBe(wwwAuthenticate(code === 190 ? 'invalid_token' : 'invalid_request', message));
}

function expectOk(reply: RestReply): void {
  expect(reply.status, reply.text).toBe(200);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
}

/** `path?name=value…`, encoded as a browser would (URLSearchParams). */
function withQuery(path: string, params: Record<string, string> = {}): string {
  const text = new URLSearchParams(params).toString();
  return text === '' ? path : `${path}?${text}`;
}

/** The link a page must carry: `base` + path + these query parameters, in this order, form-encoded. */
function link(base: string, path: string, params: [string, string][]): string {
  const url = new URL(path, base);
  for (const [name, value] of params) url.searchParams.append(name, value);
  return url.href;
}

// ---- GraphQL errors as the gateway passes them on from the accounts subgraph ----

function socialError(path: (string | number)[], code: string, message: string, details: Record<string, unknown>) {
  return { message, path, extensions: { ...details, code, serviceName: 'accounts' } };
}
const gqlMissingPermission = (path: (string | number)[], permission: string) =>
  socialError(path, 'FORBIDDEN', `(#200) Requires extended permission: ${permission}`, { reason: 'MISSING_PERMISSION', permission });
const gqlNotAllowed = (path: (string | number)[]) =>
  socialError(path, 'FORBIDDEN', '(#10) Application does not have permission for this action', { reason: 'NOT_ALLOWED' });
const gqlUnknownField = (path: (string | number)[], field: string) =>
  socialError(path, 'BAD_USER_INPUT', `(#100) Tried accessing nonexisting field (${field}) on node type (SocialUser)`, {
    reason: 'UNKNOWN_FIELD',
    field,
    nodeType: 'SocialUser',
  });
const gqlMissingParameter = (path: (string | number)[], parameter: string) =>
  socialError(path, 'BAD_USER_INPUT', `(#100) The parameter ${parameter} is required`, {
    reason: 'MISSING_PARAMETER',
    parameter,
    fieldViolations: [{ field: parameter, description: 'is required' }],
  });
const gqlInvalidParameter = (path: (string | number)[], parameter: string, message: string) =>
  socialError(path, 'BAD_USER_INPUT', message, {
    reason: 'INVALID_PARAMETER',
    parameter,
    fieldViolations: [{ field: parameter, description: message }],
  });
const gqlUnknownObject = (path: (string | number)[], id: string, method: 'get' | 'post') =>
  socialError(
    path,
    'NOT_FOUND',
    `Unsupported ${method} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    { reason: 'UNKNOWN_OBJECT', id, method },
  );
function gqlPublishingError(path: (string | number)[], expected: ExpectedError, code = 'BAD_USER_INPUT') {
  return socialError(path, code, expected.message, {
    reason: 'PUBLISHING_ERROR',
    graphCode: expected.code,
    subcode: expected.error_subcode,
    userTitle: expected.error_user_title,
    userMessage: expected.error_user_msg,
  });
}

// ---- the insights catalogue's wording for the metrics used here ----

const REACH = {
  title: 'Accounts reached',
  description:
    'The number of unique accounts that have seen your content, at least once, including in ads. Content includes posts, stories, reels, videos and live videos. Reach is different from impressions, which may include multiple views of your content by the same accounts. This metric is estimated.',
};
const PROFILE_VIEWS = { title: 'Profile views', description: 'The number of times that your profile was visited.' };
const ONLINE_FOLLOWERS = {
  title: 'Online followers',
  description: 'The number of your followers who were online during each hour of the day (0–23, UTC).',
};
const LIKES = { title: 'Likes', description: 'The number of likes on your posts, reels and videos.' };
const FOLLOWER_DEMOGRAPHICS = {
  title: 'Follower demographics',
  description: 'The demographic characteristics of followers, including countries, cities and gender distribution.',
};
const ALL_METRICS =
  'reach, follower_count, website_clicks, profile_views, online_followers, accounts_engaged, total_interactions, likes, comments, shares, saves, replies, engaged_audience_demographics, follower_demographics, follows_and_unfollows, profile_links_taps, views, reposts';
const ALL_SUBTYPES =
  'AFTER_EVENT_1DAY, AFTER_EVENT_2DAY, AFTER_EVENT_3DAY, AFTER_EVENT_4DAY, AFTER_EVENT_5DAY, AFTER_EVENT_6DAY, AFTER_EVENT_7DAY, BEFORE_EVENT_15MIN, BEFORE_EVENT_1HOUR, BEFORE_EVENT_1DAY, BEFORE_EVENT_2DAY, EVENT_START, RESCHEDULED';

// ---- the world ----

let system: TestSystem;
let f: SocialFixture;
let db: Kysely<SocialTables>;
let own: RestClient;
let parent: RestClient;
let graphql: GraphqlClient;
/** bluebottle, the fixture's business account; roaster, the creator account (ana has a role on both pages). */
let b: string;
let roaster: string;
/** The fixture's agencies (Northwind, Blue Harbor), their ad accounts (`act_…`: Main, Experiments each) and Acme. */
let northwind: string;
let blueHarbor: string;
let acme: string;
let northwindMain: string;
let northwindExperiments: string;
let blueHarborMain: string;
/** An ad account of Acme Holdings (the business ana administers), added here. */
let acmeAdAccount: string;
/** A platform user whose role on bluebottle's page has only the MODERATE task, added here. */
let moderator: string;

/** Tokens minted at the current clock, by login type and permission set. */
const minted = new Map<string, string>();
async function tokenFor(loginType: 'own' | 'parent', subject: string, permissions: readonly string[]): Promise<string> {
  const key = `${clock}|${loginType}|${subject}|${permissions.join(',')}`;
  let token = minted.get(key);
  if (token === undefined) {
    token = await f.token(loginType, subject, permissions);
    minted.set(key, token);
  }
  return token;
}
/** bluebottle's own-login token with every permission. */
const ownToken = () => tokenFor('own', b, OWN_ALL);
/** ana's parent-platform token with every permission. */
const parentToken = () => tokenFor('parent', f.platformUsers.ana, PARENT_ALL);

const getOwn = async (path: string, params: Record<string, string> = {}) => own.request('GET', withQuery(path, params), { token: await ownToken() });
const getParent = async (path: string, params: Record<string, string> = {}) =>
  parent.request('GET', withQuery(path, params), { token: await parentToken() });
const postOwn = async (path: string, json: Record<string, unknown>) => own.request('POST', path, { token: await ownToken(), json });
const postParent = async (path: string, json: Record<string, unknown>) => parent.request('POST', path, { token: await parentToken(), json });
const gql = async (query: string, variables: Record<string, unknown>, token?: string) =>
  graphql.request(query, { token: token ?? (await ownToken()), variables });

/** A stored daily insight value of bluebottle (the fixture's demo data), read back by SQL. */
async function stored(metric: string, endSeconds: number): Promise<{ value: number; breakdown: Record<string, Record<string, number>> | null }> {
  const row = await db
    .selectFrom('social.insight_value')
    .select(['value', 'breakdown'])
    .where('account_id', '=', b)
    .where('metric', '=', metric)
    .where('end_time', '=', new Date(endSeconds * SECOND))
    .executeTakeFirstOrThrow();
  const breakdown = typeof row.breakdown === 'string' ? JSON.parse(row.breakdown) : row.breakdown;
  return { value: Number(row.value), breakdown: breakdown as Record<string, Record<string, number>> | null };
}
const storedValue = async (metric: string, endSeconds: number) => (await stored(metric, endSeconds)).value;

/** An id of the same kind as `known` that is well formed but names nothing (ids step by 16 per kind). */
const unusedId = (known: string) => (BigInt(known) + 16n * 100_000n).toString();

beforeAll(async () => {
  system = await startTestSystem({ SOCIAL_PUBLISHING_QUOTA: String(QUOTA) }, { now });
  f = await createSocialFixture(system.database, { now });
  db = system.database.db.withTables<SocialTables>();
  own = createRestClient(system.restUrl);
  parent = createRestClient(system.socialParentUrl);
  graphql = createGraphqlClient(system.gatewayUrl);
  b = f.accounts.bluebottle;
  roaster = f.accounts.roaster;
  acme = f.businessId;
  [northwind, blueHarbor] = f.edges.agencyIds as [string, string];
  [northwindMain, northwindExperiments, blueHarborMain] = f.edges.adAccountIds as [string, string, string, string];

  acmeAdAccount = `act_${
    (
      await db
        .insertInto('social.ad_account')
        .values({ business_id: acme, name: 'Acme Holdings — In-house' })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id
  }`;
  const g = createSocialGraphBuilder(db);
  moderator = await g.platformUser('Mo Derator');
  await g.pageRole(f.pages.bluebottle, moderator, { tasks: ['MODERATE'] });
});

afterAll(async () => {
  await system?.close();
});

// =====================================================================================================================
// insights (clock: T0)

describe('GET /{account_id}/insights', () => {
  const base = (metric: string, period: string, text: { title: string; description: string }) => ({
    name: metric,
    period,
    title: text.title,
    description: text.description,
    id: `${b}/insights/${metric}/${period}`,
  });
  const dayValues = async (metric: string, ends: number[]) =>
    Promise.all(ends.map(async (end) => ({ value: await storedValue(metric, end), end_time: graphTime(end * SECOND) })));

  it('answers the last two days as a time series by default (one value per day end), with a previous window and no next', async () => {
    const reply = await getOwn(`/v25.0/${b}/insights`, { metric: 'reach,profile_views', period: 'day' });
    expectOk(reply);
    expect(reply.body).toEqual({
      data: [
        { ...base('reach', 'day', REACH), values: await dayValues('reach', [D0 - DAYS, D0]) },
        { ...base('profile_views', 'day', PROFILE_VIEWS), values: await dayValues('profile_views', [D0 - DAYS, D0]) },
      ],
      paging: {
        // The Authorization header's token is not repeated in the link (the client sends its header again).
        previous: link(system.restUrl, `/v25.0/${b}/insights`, [
          ['metric', 'reach,profile_views'],
          ['period', 'day'],
          ['since', String(T0S - 4 * DAYS)],
          ['until', String(T0S - 2 * DAYS)],
        ]),
      },
    });
  });

  it('serves the same on the parent-platform host and under /me on the own-login host', async () => {
    const expected = { data: [{ ...base('reach', 'day', REACH), values: await dayValues('reach', [D0 - DAYS, D0]) }] };
    const onParent = await getParent(`/v25.0/${b}/insights`, { metric: 'reach', period: 'day' });
    expectOk(onParent);
    expect(onParent.body.data).toEqual(expected.data);
    const onMe = await getOwn('/me/insights', { metric: 'reach', period: 'day' });
    expectOk(onMe);
    expect(onMe.body).toEqual({
      ...expected,
      paging: { previous: link(system.restUrl, '/me/insights', [['metric', 'reach'], ['period', 'day'], ['since', String(T0S - 4 * DAYS)], ['until', String(T0S - 2 * DAYS)]]) },
    });
  });

  it('sums a rolling week for period=week', async () => {
    const reply = await getOwn(`/${b}/insights`, { metric: 'reach', period: 'week' });
    expectOk(reply);
    const week = async (end: number) => {
      let sum = 0;
      for (let day = 0; day < 7; day += 1) sum += await storedValue('reach', end - day * DAYS);
      return sum;
    };
    expect(reply.body.data).toEqual([
      {
        ...base('reach', 'week', REACH),
        values: [
          { value: await week(D0 - DAYS), end_time: graphTime((D0 - DAYS) * SECOND) },
          { value: await week(D0), end_time: graphTime(D0 * SECOND) },
        ],
      },
    ]);
  });

  it('gives online_followers as a map of hour of day to count, for period=lifetime', async () => {
    const reply = await getOwn(`/${b}/insights`, { metric: 'online_followers', period: 'lifetime' });
    expectOk(reply);
    const hours = async (end: number) => (await stored('online_followers', end)).breakdown!.hour!;
    const first = await hours(D0 - DAYS);
    expect(Object.keys(first)).toHaveLength(24);
    expect(reply.body.data).toEqual([
      {
        ...base('online_followers', 'lifetime', ONLINE_FOLLOWERS),
        values: [
          { value: first, end_time: graphTime((D0 - DAYS) * SECOND) },
          { value: await hours(D0), end_time: graphTime(D0 * SECOND) },
        ],
      },
    ]);
  });

  it('answers metric_type=total_value with the last day’s total and no values, and splits it with breakdown', async () => {
    const reply = await getOwn(`/${b}/insights`, { metric: 'reach,likes', period: 'day', metric_type: 'total_value' });
    expectOk(reply);
    expect(reply.body).toEqual({
      data: [
        { ...base('reach', 'day', REACH), total_value: { value: await storedValue('reach', D0) } },
        { ...base('likes', 'day', LIKES), total_value: { value: await storedValue('likes', D0) } },
      ],
      paging: {
        previous: link(system.restUrl, `/${b}/insights`, [
          ['metric', 'reach,likes'],
          ['period', 'day'],
          ['metric_type', 'total_value'],
          ['since', String(T0S - 2 * DAYS)],
          ['until', String(T0S - DAYS)],
        ]),
      },
    });

    const split = await getOwn(`/${b}/insights`, { metric: 'likes', period: 'day', metric_type: 'total_value', breakdown: 'media_product_type' });
    expectOk(split);
    const { value, breakdown } = await stored('likes', D0);
    const results = Object.entries(breakdown!.media_product_type!)
      .sort(([a, x], [c, y]) => y - x || a.localeCompare(c))
      .map(([key, count]) => ({ dimension_values: [key], value: count }));
    expect(results.reduce((sum, result) => sum + result.value, 0)).toBe(value);
    expect(split.body.data).toEqual([
      {
        ...base('likes', 'day', LIKES),
        total_value: { value, breakdowns: [{ dimension_keys: ['media_product_type'], results }] },
      },
    ]);
  });

  it('adds up a total over an explicit since/until window', async () => {
    const since = D0 - 7 * DAYS;
    const reply = await getOwn(`/${b}/insights`, { metric: 'reach', period: 'day', metric_type: 'total_value', since: String(since), until: String(D0) });
    expectOk(reply);
    let sum = 0;
    for (let end = since + DAYS; end <= D0; end += DAYS) sum += await storedValue('reach', end);
    expect(reply.body.data).toEqual([{ ...base('reach', 'day', REACH), total_value: { value: sum } }]);
  });

  it('describes demographics over a timeframe, with neither previous nor next', async () => {
    const reply = await getOwn(`/${b}/insights`, {
      metric: 'follower_demographics',
      period: 'lifetime',
      metric_type: 'total_value',
      breakdown: 'country',
      timeframe: 'this_week',
    });
    expectOk(reply);
    // A snapshot metric: the latest day of the timeframe.
    const { value, breakdown } = await stored('follower_demographics', D0);
    const results = Object.entries(breakdown!.country!)
      .sort(([a, x], [c, y]) => y - x || a.localeCompare(c))
      .map(([key, count]) => ({ dimension_values: [key], value: count }));
    expect(reply.body).toEqual({
      data: [
        {
          ...base('follower_demographics', 'lifetime', FOLLOWER_DEMOGRAPHICS),
          total_value: { value, breakdowns: [{ dimension_keys: ['country'], results }] },
        },
      ],
    });
  });

  it('pages by time windows: previous moves since/until back one window, its next comes back, and no next reaches past now', async () => {
    const token = await ownToken();
    const first = await own.request('GET', withQuery(`/v25.0/${b}/insights`, { metric: 'reach', period: 'day', access_token: token }));
    expectOk(first);
    const window = (since: number, until: number) =>
      link(system.restUrl, `/v25.0/${b}/insights`, [
        ['metric', 'reach'],
        ['period', 'day'],
        ['access_token', token],
        ['since', String(since)],
        ['until', String(until)],
      ]);
    expect(first.body.paging).toEqual({ previous: window(T0S - 4 * DAYS, T0S - 2 * DAYS) });

    const previous = await own.request('GET', first.body.paging.previous);
    expectOk(previous);
    expect(previous.body).toEqual({
      data: [{ ...base('reach', 'day', REACH), values: await dayValues('reach', [D0 - 3 * DAYS, D0 - 2 * DAYS]) }],
      paging: { previous: window(T0S - 6 * DAYS, T0S - 4 * DAYS), next: window(T0S - 2 * DAYS, T0S) },
    });

    const back = await own.request('GET', previous.body.paging.next);
    expectOk(back);
    expect(back.body).toEqual({ data: first.body.data, paging: { previous: window(T0S - 4 * DAYS, T0S - 2 * DAYS) } });

    // A window reaching past now: nothing after it to page to.
    const ahead = await getOwn(`/${b}/insights`, { metric: 'reach', period: 'day', since: String(T0S - DAYS), until: String(T0S + DAYS) });
    expectOk(ahead);
    expect(ahead.body.data[0].values).toEqual(await dayValues('reach', [D0]));
    expect(ahead.body.paging).toEqual({
      previous: link(system.restUrl, `/${b}/insights`, [['metric', 'reach'], ['period', 'day'], ['since', String(T0S - 3 * DAYS)], ['until', String(T0S - DAYS)]]),
    });
  });

  it('has no previous once the window before would start more than two years back', async () => {
    const since = T0S - 730 * DAYS;
    const reply = await getOwn(`/${b}/insights`, { metric: 'reach', period: 'day', since: String(since), until: String(since + DAYS) });
    expectOk(reply);
    expect(reply.body).toEqual({
      data: [{ ...base('reach', 'day', REACH), values: [] }],
      paging: {
        next: link(system.restUrl, `/${b}/insights`, [['metric', 'reach'], ['period', 'day'], ['since', String(since + DAYS)], ['until', String(since + 2 * DAYS)]]),
      },
    });
  });

  it.each<[string, Record<string, string>, ExpectedError]>([
    ['metric missing', { period: 'day' }, missingParameter('metric')],
    ['period missing', { metric: 'reach' }, missingParameter('period')],
    [
      'a retired metric',
      { metric: 'impressions', period: 'day' },
      invalidParameter(
        'Starting from version 22 and above, the impressions metric is no longer supported for the queried user. Please refer to the documentation for a list of supported metrics.',
      ),
    ],
    ['an unknown metric', { metric: 'reach,nope', period: 'day' }, invalidParameter(`(#100) metric[1] must be one of the following values: ${ALL_METRICS}`)],
    ['an unknown period', { metric: 'reach', period: 'month' }, invalidParameter('(#100) period must be one of the following values: day, week, days_28, lifetime')],
    [
      'an unknown metric_type',
      { metric: 'reach', period: 'day', metric_type: 'sum' },
      invalidParameter('(#100) metric_type must be one of the following values: time_series, total_value'),
    ],
    [
      'a period the metric does not support',
      { metric: 'reach,follower_count', period: 'week' },
      invalidParameter('(#100) The following metrics (follower_count) do not support period=week'),
    ],
    [
      'a total-only metric as a time series',
      { metric: 'likes', period: 'day' },
      invalidParameter('(#100) The following metrics (likes) should be specified with parameter metric_type=total_value'),
    ],
    [
      'an unknown breakdown',
      { metric: 'reach', period: 'day', metric_type: 'total_value', breakdown: 'planet' },
      invalidParameter(
        '(#100) breakdown[0] must be one of the following values: media_product_type, follow_type, follower_type, contact_button_type, age, gender, country, city',
      ),
    ],
    [
      'two breakdowns',
      { metric: 'reach', period: 'day', metric_type: 'total_value', breakdown: 'media_product_type,follow_type' },
      invalidParameter('Only one breakdown can be requested at a time.'),
    ],
    [
      'a breakdown of a time series',
      { metric: 'reach', period: 'day', breakdown: 'media_product_type' },
      invalidParameter('(#100) breakdown is only supported with metric_type=total_value'),
    ],
    [
      'a breakdown the metric does not support',
      { metric: 'reach', period: 'day', metric_type: 'total_value', breakdown: 'age' },
      invalidParameter('(#100) The following metrics (reach) do not support breakdown=age'),
    ],
    [
      'demographics without breakdown',
      { metric: 'follower_demographics', period: 'lifetime', metric_type: 'total_value', timeframe: 'this_week' },
      missingParameter('breakdown'),
    ],
    [
      'demographics without timeframe',
      { metric: 'follower_demographics', period: 'lifetime', metric_type: 'total_value', breakdown: 'age' },
      missingParameter('timeframe'),
    ],
    [
      'demographics with an unknown timeframe',
      { metric: 'follower_demographics', period: 'lifetime', metric_type: 'total_value', breakdown: 'age', timeframe: 'last_year' },
      invalidParameter('(#100) timeframe must be one of the following values: this_week, this_month'),
    ],
    [
      'an unreadable since',
      { metric: 'reach', period: 'day', since: 'the day before' },
      invalidParameter('(#100) The parameter since must be a unix timestamp or a strtotime-style time'),
    ],
    [
      'since after until',
      { metric: 'reach', period: 'day', since: String(T0S - DAYS), until: String(T0S - 2 * DAYS) },
      invalidParameter('(#100) The parameter since must be earlier than until'),
    ],
    [
      'more than 30 days between since and until',
      { metric: 'reach', period: 'day', since: String(T0S - 31 * DAYS), until: String(T0S) },
      invalidParameter('(#100) There cannot be more than 30 days (2592000 s) between since and until'),
    ],
    [
      'since more than two years back',
      { metric: 'reach', period: 'day', since: String(T0S - 731 * DAYS), until: String(T0S - 730 * DAYS) },
      invalidParameter('(#100) since param is not valid. Metrics data is available for the last 2 years.'),
    ],
  ])('refuses %s', async (_name, params, expected) => {
    expectGraphError(await getOwn(`/${b}/insights`, params), expected);
    expectGraphError(await getParent(`/${b}/insights`, params), expected);
  });

  it('is read-only: POST is an unsupported operation', async () => {
    expectGraphError(await postOwn(`/${b}/insights`, { metric: 'reach', period: 'day' }), unsupported('post', b));
  });

  describe('GraphQL Account.insights', () => {
    const QUERY = `query Insights($id: ID!, $metric: [String!], $period: String, $metricType: String, $breakdown: [String!], $since: String, $until: String) {
      account(id: $id) {
        insights(metric: $metric, period: $period, metricType: $metricType, breakdown: $breakdown, since: $since, until: $until) {
          data { id name period title description values { value endTime } totalValue { value breakdowns { dimensionKeys results { dimensionValues value } } } }
          window { since until hasPrevious hasNext }
        }
      }
    }`;

    it('answers the metrics and the window they cover', async () => {
      const reply = await gql(QUERY, { id: b, metric: ['reach'], period: 'day' });
      expect(reply.status).toBe(200);
      expect(reply.errors).toBeUndefined();
      expect(reply.data).toEqual({
        account: {
          insights: {
            data: [
              {
                ...base('reach', 'day', REACH),
                values: [
                  { value: await storedValue('reach', D0 - DAYS), endTime: isoTime((D0 - DAYS) * SECOND) },
                  { value: await storedValue('reach', D0), endTime: isoTime(D0 * SECOND) },
                ],
                totalValue: null,
              },
            ],
            window: { since: T0S - 2 * DAYS, until: T0S, hasPrevious: true, hasNext: false },
          },
        },
      });

      const total = await gql(QUERY, {
        id: b,
        metric: ['reach'],
        period: 'day',
        metricType: 'total_value',
        since: String(D0 - 2 * DAYS),
        until: String(D0 - DAYS),
      });
      expect(total.errors).toBeUndefined();
      expect(total.data.account.insights).toEqual({
        data: [{ ...base('reach', 'day', REACH), values: null, totalValue: { value: await storedValue('reach', D0 - DAYS), breakdowns: null } }],
        window: { since: D0 - 2 * DAYS, until: D0 - DAYS, hasPrevious: true, hasNext: true },
      });
    });

    it('reports a bad parameter with extensions.code and extensions.reason', async () => {
      const missing = await gql(QUERY, { id: b, metric: ['reach'] });
      expect(missing.errors).toEqual([gqlMissingParameter(['account', 'insights'], 'period')]);
      expect(missing.data).toEqual({ account: null });
      const wrong = await gql(QUERY, { id: b, metric: ['likes'], period: 'day' });
      expect(wrong.errors).toEqual([
        gqlInvalidParameter(['account', 'insights'], 'metric_type', '(#100) The following metrics (likes) should be specified with parameter metric_type=total_value'),
      ]);
    });

    it('needs social_business_manage_insights (own login) and social_manage_insights (parent platform)', async () => {
      const ownReply = await gql(QUERY, { id: b, metric: ['reach'], period: 'day' }, await tokenFor('own', b, ['social_business_basic']));
      expect(ownReply.errors).toEqual([gqlMissingPermission(['account', 'insights'], 'social_business_manage_insights')]);
      const parentReply = await gql(
        QUERY,
        { id: b, metric: ['reach'], period: 'day' },
        await tokenFor('parent', f.platformUsers.ana, PARENT_ALL.filter((p) => p !== 'social_manage_insights')),
      );
      expect(parentReply.errors).toEqual([gqlMissingPermission(['account', 'insights'], 'social_manage_insights')]);
    });
  });
});

// =====================================================================================================================
// content_publishing_limit (clock: T0, nothing published yet)

describe('GET /{account_id}/content_publishing_limit', () => {
  it('answers quota_usage alone by default, on both hosts and under /me', async () => {
    for (const reply of [await getOwn(`/v25.0/${b}/content_publishing_limit`), await getOwn('/me/content_publishing_limit'), await getParent(`/${b}/content_publishing_limit`)]) {
      expectOk(reply);
      expect(reply.body).toEqual({ data: [{ quota_usage: 0 }] });
    }
  });

  it('adds config with fields=quota_usage,config (the configured quota per 86400 s), and gives config alone when asked', async () => {
    const both = await getOwn(`/${b}/content_publishing_limit`, { fields: 'quota_usage,config' });
    expectOk(both);
    expect(both.body).toEqual({ data: [{ quota_usage: 0, config: { quota_total: QUOTA, quota_duration: 86400 } }] });
    const config = await getParent(`/${b}/content_publishing_limit`, { fields: 'config' });
    expectOk(config);
    expect(config.body).toEqual({ data: [{ config: { quota_total: QUOTA, quota_duration: 86400 } }] });
  });

  it('accepts a since within the last 24 hours', async () => {
    const reply = await getOwn(`/${b}/content_publishing_limit`, { since: String(T0S - 86_400) });
    expectOk(reply);
    expect(reply.body).toEqual({ data: [{ quota_usage: 0 }] });
  });

  it.each([
    ['more than 24 hours back', String(T0S - 86_401)],
    ['in the future', String(T0S + 60)],
    ['unreadable', 'a while ago'],
  ])('refuses a since %s', async (_name, since) => {
    const expected = invalidParameter('The parameter since must be a unix timestamp within the last 24 hours.');
    expectGraphError(await getOwn(`/${b}/content_publishing_limit`, { since }), expected);
    expectGraphError(await getParent(`/${b}/content_publishing_limit`, { since }), expected);
  });

  it('refuses an unknown field', async () => {
    expectGraphError(
      await getOwn(`/${b}/content_publishing_limit`, { fields: 'quota_usage,quota_left' }),
      unknownField('quota_left', 'ContentPublishingLimit'),
    );
  });

  it('is read-only: POST is an unsupported operation', async () => {
    expectGraphError(await postOwn(`/${b}/content_publishing_limit`, {}), unsupported('post', b));
  });

  it('answers over GraphQL, and refuses a since more than 24 hours back with extensions', async () => {
    const QUERY = `query Limit($id: ID!, $since: String) { account(id: $id) { contentPublishingLimit(since: $since) { quotaUsage config { quotaTotal quotaDuration } } } }`;
    const reply = await gql(QUERY, { id: b });
    expect(reply.errors).toBeUndefined();
    expect(reply.data).toEqual({ account: { contentPublishingLimit: { quotaUsage: 0, config: { quotaTotal: QUOTA, quotaDuration: 86400 } } } });
    const old = await gql(QUERY, { id: b, since: String(T0S - 2 * DAYS) });
    expect(old.errors).toEqual([
      gqlInvalidParameter(['account', 'contentPublishingLimit'], 'since', 'The parameter since must be a unix timestamp within the last 24 hours.'),
    ]);
  });
});

// =====================================================================================================================
// upcoming_events (clock: T0; the demo events start at T0 + 2 d, + 5 d, + 12 d)

describe('upcoming_events (parent-platform host only)', () => {
  let springLaunch: Record<string, unknown>;
  let qAndA: Record<string, unknown>;
  let openDay: Record<string, unknown>;

  beforeAll(() => {
    const [e1, e2, e3] = f.edges.eventIds;
    springLaunch = {
      id: e1,
      title: 'Spring collection live launch',
      start_time: graphTime(T0 + 2 * DAY),
      end_time: graphTime(T0 + 2 * DAY + HOUR),
      notification_subtypes: ['BEFORE_EVENT_1DAY', 'EVENT_START'],
      notification_target_time: 'EVENT_START',
    };
    qAndA = {
      id: e2,
      title: 'Behind the scenes Q&A',
      start_time: graphTime(T0 + 5 * DAY),
      end_time: graphTime(T0 + 5 * DAY + 1.5 * HOUR),
      notification_subtypes: ['BEFORE_EVENT_15MIN', 'AFTER_EVENT_1DAY'],
      notification_target_time: 'EVENT_END',
    };
    // No end time and no target time: the keys are left out.
    openDay = { id: e3, title: 'Studio open day', start_time: graphTime(T0 + 12 * DAY), notification_subtypes: ['BEFORE_EVENT_2DAY'] };
  });

  it('lists the events with every field by default, soonest first', async () => {
    const reply = await getParent(`/v25.0/${b}/upcoming_events`);
    expectOk(reply);
    expect(reply.body).toEqual({
      data: [springLaunch, qAndA, openDay],
      paging: { cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) } },
    });
  });

  it('renders only the requested fields (plus id)', async () => {
    const reply = await getParent(`/${b}/upcoming_events`, { fields: 'title,start_time' });
    expectOk(reply);
    expect(reply.body.data).toEqual([springLaunch, qAndA, openDay].map(({ id, title, start_time }) => ({ title, start_time, id })));
  });

  it('walks the list with limit=1 following next verbatim, then back with previous', async () => {
    const token = await parentToken();
    const path = `/v25.0/${b}/upcoming_events`;
    const first = await parent.request('GET', withQuery(path, { access_token: token, limit: '1' }));
    expectOk(first);
    expect(first.body).toEqual({
      data: [springLaunch],
      paging: {
        cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) },
        next: link(system.socialParentUrl, path, [['access_token', token], ['limit', '1'], ['after', first.body.paging.cursors.after]]),
      },
    });
    const second = await parent.request('GET', first.body.paging.next);
    expectOk(second);
    expect(second.body.data).toEqual([qAndA]);
    expect(second.body.paging.previous).toBe(link(system.socialParentUrl, path, [['access_token', token], ['limit', '1'], ['before', second.body.paging.cursors.before]]));
    const third = await parent.request('GET', second.body.paging.next);
    expectOk(third);
    expect(third.body.data).toEqual([openDay]);
    expect(third.body.paging.next).toBeUndefined();

    const backToSecond = await parent.request('GET', third.body.paging.previous);
    expectOk(backToSecond);
    expect(backToSecond.body.data).toEqual([qAndA]);
    const backToFirst = await parent.request('GET', backToSecond.body.paging.previous);
    expectOk(backToFirst);
    expect(backToFirst.body.data).toEqual([springLaunch]);
    expect(backToFirst.body.paging.previous).toBeUndefined();
    expect(backToFirst.body.paging.next).toBeDefined();
  });

  it('does not exist on the own-login host: GET and POST, by id and under /me', async () => {
    const expected = unknownField('upcoming_events');
    expectGraphError(await getOwn(`/${b}/upcoming_events`), expected);
    expectGraphError(await getOwn('/me/upcoming_events'), expected);
    expectGraphError(await postOwn(`/${b}/upcoming_events`, { title: 'Nope', start_time: isoTime(T0 + DAY) }), expected);
    expectGraphError(await postOwn('/me/upcoming_events', { title: 'Nope', start_time: isoTime(T0 + DAY) }), expected);
  });

  it('needs the account’s page to belong to a business: roaster’s page has none (#10)', async () => {
    expectGraphError(await getParent(`/${roaster}/upcoming_events`), notAllowed);
    expectGraphError(await postParent(`/${roaster}/upcoming_events`, { title: 'Roast-along', start_time: isoTime(T0 + DAY) }), notAllowed);
  });

  it('creates an event (ISO times, comma-listed subtypes) and lists it in start-time order with every field', async () => {
    const created = await postParent(`/v25.0/${b}/upcoming_events`, {
      title: 'Tasting night',
      start_time: isoTime(T0 + 3 * DAY),
      end_time: isoTime(T0 + 3 * DAY + 2 * HOUR),
      notification_subtypes: 'BEFORE_EVENT_1DAY,EVENT_START',
      notification_target_time: 'EVENT_START',
    });
    expectOk(created);
    expect(created.body).toEqual({ id: expect.stringMatching(/^\d{17,19}$/) });
    expect(Object.keys(created.body)).toEqual(['id']);

    const list = await getParent(`/${b}/upcoming_events`);
    expectOk(list);
    expect(list.body.data).toEqual([
      springLaunch,
      {
        id: created.body.id,
        title: 'Tasting night',
        start_time: graphTime(T0 + 3 * DAY),
        end_time: graphTime(T0 + 3 * DAY + 2 * HOUR),
        notification_subtypes: ['BEFORE_EVENT_1DAY', 'EVENT_START'],
        notification_target_time: 'EVENT_START',
      },
      qAndA,
      openDay,
    ]);
  });

  it('takes unix seconds and a JSON list of subtypes (a repeated subtype kept once), and needs only title and start_time', async () => {
    const start = T0 + 20 * DAY;
    const created = await postParent(`/${b}/upcoming_events`, {
      title: '  Harvest party  ',
      start_time: String(start / SECOND),
      notification_subtypes: ['RESCHEDULED', 'BEFORE_EVENT_1HOUR', 'RESCHEDULED'],
    });
    expectOk(created);
    const bare = await postParent(`/${b}/upcoming_events`, { title: 'Bare event', start_time: isoTime(start + DAY) });
    expectOk(bare);
    const list = await getParent(`/${b}/upcoming_events`);
    expect(list.body.data.slice(-2)).toEqual([
      { id: created.body.id, title: 'Harvest party', start_time: graphTime(start), notification_subtypes: ['RESCHEDULED', 'BEFORE_EVENT_1HOUR'] },
      { id: bare.body.id, title: 'Bare event', start_time: graphTime(start + DAY), notification_subtypes: [] },
    ]);
  });

  it.each<[string, Record<string, unknown>, ExpectedError]>([
    ['title missing', { start_time: isoTime(T0 + DAY) }, missingParameter('title')],
    ['a blank title', { title: '   ', start_time: isoTime(T0 + DAY) }, missingParameter('title')],
    ['a title over 255 characters', { title: 'x'.repeat(256), start_time: isoTime(T0 + DAY) }, invalidParameter('The title can have at most 255 characters.')],
    ['start_time missing', { title: 'No start' }, missingParameter('start_time')],
    ['an unreadable start_time', { title: 'Bad start', start_time: 'next friday-ish' }, invalidParameter('start_time must be an ISO 8601 time or a unix timestamp.')],
    ['a start_time in the past', { title: 'Past', start_time: isoTime(T0 - HOUR) }, invalidParameter('start_time must be in the future.')],
    [
      'an end_time before start_time',
      { title: 'Backwards', start_time: isoTime(T0 + 2 * DAY), end_time: isoTime(T0 + DAY) },
      invalidParameter('end_time must be after start_time.'),
    ],
    [
      'an unknown notification subtype',
      { title: 'Bad reminder', start_time: isoTime(T0 + DAY), notification_subtypes: 'EVENT_START,BEFORE_EVENT_3WEEKS' },
      invalidParameter(`(#100) notification_subtypes[1] must be one of the following values: ${ALL_SUBTYPES}`),
    ],
    [
      'an unknown notification target time',
      { title: 'Bad target', start_time: isoTime(T0 + DAY), notification_target_time: 'EVENT_MIDDLE' },
      invalidParameter('(#100) notification_target_time must be one of the following values: EVENT_START, EVENT_END'),
    ],
    [
      'EVENT_END as target time without an end_time',
      { title: 'No end', start_time: isoTime(T0 + DAY), notification_target_time: 'EVENT_END' },
      invalidParameter('notification_target_time EVENT_END needs an end_time.'),
    ],
  ])('refuses %s', async (_name, body, expected) => {
    expectGraphError(await postParent(`/${b}/upcoming_events`, body), expected);
  });

  describe('GraphQL', () => {
    const LIST = `query Events($id: ID!, $first: Int, $after: String) {
      account(id: $id) { upcomingEvents(first: $first, after: $after) { nodes { id title startTime endTime notificationSubtypes notificationTargetTime } pageInfo { endCursor hasNextPage hasPreviousPage } } }
    }`;
    const CREATE = `mutation Create($id: ID!, $input: UpcomingEventInput!) {
      createUpcomingEvent(accountId: $id, input: $input) { id title startTime endTime notificationSubtypes notificationTargetTime }
    }`;

    it('lists and pages the events', async () => {
      const token = await parentToken();
      const first = await gql(LIST, { id: b, first: 1 }, token);
      expect(first.errors).toBeUndefined();
      expect(first.data.account.upcomingEvents).toEqual({
        nodes: [
          {
            id: springLaunch.id,
            title: 'Spring collection live launch',
            startTime: isoTime(T0 + 2 * DAY),
            endTime: isoTime(T0 + 2 * DAY + HOUR),
            notificationSubtypes: ['BEFORE_EVENT_1DAY', 'EVENT_START'],
            notificationTargetTime: 'EVENT_START',
          },
        ],
        pageInfo: { endCursor: expect.stringMatching(CURSOR), hasNextPage: true, hasPreviousPage: false },
      });
      const second = await gql(LIST, { id: b, first: 1, after: first.data.account.upcomingEvents.pageInfo.endCursor }, token);
      expect(second.data.account.upcomingEvents.nodes.map((node: { title: string }) => node.title)).toEqual(['Tasting night']);
    });

    it('creates an event', async () => {
      const reply = await gql(
        CREATE,
        { id: b, input: { title: 'GraphQL meetup', startTime: isoTime(T0 + 4 * DAY), notificationSubtypes: ['EVENT_START'] } },
        await parentToken(),
      );
      expect(reply.errors).toBeUndefined();
      expect(reply.data.createUpcomingEvent).toEqual({
        id: expect.stringMatching(/^\d{17,19}$/),
        title: 'GraphQL meetup',
        startTime: isoTime(T0 + 4 * DAY),
        endTime: null,
        notificationSubtypes: ['EVENT_START'],
        notificationTargetTime: null,
      });
    });

    it('reports errors with extensions: missing start_time, bad subtype, own-login host, page without business, missing permission', async () => {
      const token = await parentToken();
      expect((await gql(CREATE, { id: b, input: { title: 'x' } }, token)).errors).toEqual([gqlMissingParameter(['createUpcomingEvent'], 'start_time')]);
      expect((await gql(CREATE, { id: b, input: { title: 'x', startTime: isoTime(T0 + DAY), notificationSubtypes: ['SOON'] } }, token)).errors).toEqual([
        gqlInvalidParameter(['createUpcomingEvent'], 'notification_subtypes', `(#100) notification_subtypes[0] must be one of the following values: ${ALL_SUBTYPES}`),
      ]);
      expect((await gql(CREATE, { id: b, input: { title: 'x', startTime: isoTime(T0 + DAY) } })).errors).toEqual([
        gqlUnknownField(['createUpcomingEvent'], 'upcoming_events'),
      ]);
      expect((await gql(LIST, { id: b })).errors).toEqual([gqlUnknownField(['account', 'upcomingEvents'], 'upcoming_events')]);
      expect((await gql(LIST, { id: roaster }, token)).errors).toEqual([gqlNotAllowed(['account', 'upcomingEvents'])]);
      const withoutEvents = await tokenFor('parent', f.platformUsers.ana, PARENT_ALL.filter((p) => p !== 'social_manage_upcoming_events'));
      expect((await gql(CREATE, { id: b, input: { title: 'x', startTime: isoTime(T0 + DAY) } }, withoutEvents)).errors).toEqual([
        gqlMissingPermission(['createUpcomingEvent'], 'social_manage_upcoming_events'),
      ]);
    });
  });
});

// =====================================================================================================================
// agencies and authorized_adaccounts (clock: T0)

describe('agencies and authorized_adaccounts (parent-platform host only)', () => {
  const adAccount = (id: string) => ({ id, account_id: id.slice(4) });

  it('lists the agencies as {id, name}', async () => {
    const reply = await getParent(`/v25.0/${b}/agencies`);
    expectOk(reply);
    expect(reply.body).toEqual({
      data: [
        { id: northwind, name: 'Northwind Creative Agency' },
        { id: blueHarbor, name: 'Blue Harbor Media' },
      ],
      paging: { cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) } },
    });
  });

  it('pages the agencies with limit=1', async () => {
    const first = await getParent(`/${b}/agencies`, { limit: '1' });
    expectOk(first);
    expect(first.body.data).toEqual([{ id: northwind, name: 'Northwind Creative Agency' }]);
    const second = await parent.request('GET', first.body.paging.next, { token: await parentToken() });
    expectOk(second);
    expect(second.body.data).toEqual([{ id: blueHarbor, name: 'Blue Harbor Media' }]);
    expect(second.body.paging.next).toBeUndefined();
  });

  it('lists the authorised ad accounts as {id: act_…, account_id} by default, and more fields when asked', async () => {
    const reply = await getParent(`/${b}/authorized_adaccounts`);
    expectOk(reply);
    expect(reply.body).toEqual({
      data: [adAccount(northwindMain), adAccount(blueHarborMain)],
      paging: { cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) } },
    });
    const detailed = await getParent(`/${b}/authorized_adaccounts`, { fields: 'name,currency,timezone_name,account_status' });
    expectOk(detailed);
    expect(detailed.body.data).toEqual([
      { name: 'Northwind Creative Agency — Main', currency: 'USD', timezone_name: 'America/Los_Angeles', account_status: 1, id: northwindMain },
      { name: 'Blue Harbor Media — Main', currency: 'EUR', timezone_name: 'Europe/Amsterdam', account_status: 1, id: blueHarborMain },
    ]);
  });

  it('filters by business', async () => {
    const onlyBlueHarbor = await getParent(`/${b}/authorized_adaccounts`, { business: blueHarbor });
    expectOk(onlyBlueHarbor);
    expect(onlyBlueHarbor.body.data).toEqual([adAccount(blueHarborMain)]);
    const none = await getParent(`/${b}/authorized_adaccounts`, { business: acme });
    expectOk(none);
    expect(none.body).toEqual({ data: [] });
  });

  it('answers 100/33 for a business that does not exist', async () => {
    const missing = unusedId(acme);
    expectGraphError(await getParent(`/${b}/authorized_adaccounts`, { business: missing }), unsupported('get', missing));
    expectGraphError(await getParent(`/${b}/authorized_adaccounts`, { business: 'acme' }), unsupported('get', 'acme'));
  });

  it('do not exist on the own-login host', async () => {
    expectGraphError(await getOwn(`/${b}/agencies`), unknownField('agencies'));
    expectGraphError(await getOwn('/me/authorized_adaccounts'), unknownField('authorized_adaccounts'));
    expectGraphError(await postOwn('/me/authorized_adaccounts', { account_id: acmeAdAccount, business: acme }), unknownField('authorized_adaccounts'));
  });

  describe('POST authorized_adaccounts', () => {
    it('refuses a missing business with (#100) The parameter business is required', async () => {
      expectGraphError(await postParent(`/${b}/authorized_adaccounts`, { account_id: acmeAdAccount }), missingParameter('business'));
    });

    it('refuses a missing account_id', async () => {
      expectGraphError(await postParent(`/${b}/authorized_adaccounts`, { business: acme }), missingParameter('account_id'));
    });

    it('refuses with #10 when the app user is not an admin of the business', async () => {
      // ana administers Acme Holdings only; Northwind's ad account is Northwind's to authorise.
      expectGraphError(await postParent(`/${b}/authorized_adaccounts`, { account_id: northwindExperiments, business: northwind }), notAllowed);
    });

    it('refuses with 100 an ad account that belongs to another business', async () => {
      expectGraphError(
        await postParent(`/${b}/authorized_adaccounts`, { account_id: northwindExperiments, business: acme }),
        invalidParameter(`The ad account ${northwindExperiments} does not belong to the business ${acme}.`),
      );
    });

    it('answers {success: true}, lists the ad account afterwards, and takes the id without act_ too', async () => {
      const reply = await postParent(`/v25.0/${b}/authorized_adaccounts`, { account_id: acmeAdAccount, business: acme });
      expectOk(reply);
      expect(reply.body).toEqual({ success: true });
      const again = await postParent(`/${b}/authorized_adaccounts`, { account_id: acmeAdAccount.slice(4), business: acme });
      expectOk(again);
      expect(again.body).toEqual({ success: true });

      const list = await getParent(`/${b}/authorized_adaccounts`);
      expect(list.body.data).toEqual([adAccount(northwindMain), adAccount(blueHarborMain), adAccount(acmeAdAccount)]);
      const acmeOnly = await getParent(`/${b}/authorized_adaccounts`, { business: acme, fields: 'name' });
      expect(acmeOnly.body.data).toEqual([{ name: 'Acme Holdings — In-house', id: acmeAdAccount }]);
    });
  });

  describe('GraphQL', () => {
    const QUERY = `query Ads($id: ID!, $business: ID) {
      account(id: $id) {
        agencies { nodes { id name } }
        authorizedAdAccounts(business: $business) { nodes { id accountId name currency timezoneName accountStatus } }
      }
    }`;
    const AUTHORIZE = `mutation Authorize($id: ID!, $adAccountId: ID, $business: ID) { authorizeAdAccount(accountId: $id, adAccountId: $adAccountId, business: $business) { success } }`;

    it('reads agencies and the ad accounts of one business', async () => {
      const reply = await gql(QUERY, { id: b, business: northwind }, await parentToken());
      expect(reply.errors).toBeUndefined();
      expect(reply.data).toEqual({
        account: {
          agencies: { nodes: [{ id: northwind, name: 'Northwind Creative Agency' }, { id: blueHarbor, name: 'Blue Harbor Media' }] },
          authorizedAdAccounts: {
            nodes: [
              {
                id: northwindMain,
                accountId: northwindMain.slice(4),
                name: 'Northwind Creative Agency — Main',
                currency: 'USD',
                timezoneName: 'America/Los_Angeles',
                accountStatus: 1,
              },
            ],
          },
        },
      });
    });

    it('authorises an ad account, and reports the business rules with extensions', async () => {
      const token = await parentToken();
      const ok = await gql(AUTHORIZE, { id: b, adAccountId: acmeAdAccount, business: acme }, token);
      expect(ok.errors).toBeUndefined();
      expect(ok.data).toEqual({ authorizeAdAccount: { success: true } });
      expect((await gql(AUTHORIZE, { id: b, adAccountId: acmeAdAccount }, token)).errors).toEqual([gqlMissingParameter(['authorizeAdAccount'], 'business')]);
      expect((await gql(AUTHORIZE, { id: b, adAccountId: northwindExperiments, business: northwind }, token)).errors).toEqual([
        gqlNotAllowed(['authorizeAdAccount']),
      ]);
      expect((await gql(AUTHORIZE, { id: b, adAccountId: northwindExperiments, business: acme }, token)).errors).toEqual([
        gqlInvalidParameter(['authorizeAdAccount'], 'account_id', `The ad account ${northwindExperiments} does not belong to the business ${acme}.`),
      ]);
      expect((await gql(AUTHORIZE, { id: b, adAccountId: acmeAdAccount, business: acme })).errors).toEqual([
        gqlUnknownField(['authorizeAdAccount'], 'authorized_adaccounts'),
      ]);
      const noAds = await tokenFor('parent', f.platformUsers.ana, PARENT_ALL.filter((p) => p !== 'ads_management' && p !== 'business_management'));
      expect((await gql(AUTHORIZE, { id: b, adAccountId: acmeAdAccount, business: acme }, noAds)).errors).toEqual([
        gqlMissingPermission(['authorizeAdAccount'], 'ads_management'),
      ]);
    });
  });
});

// =====================================================================================================================
// field expansion of these edges on the account node (clock: T0)

describe('field expansion of upcoming_events, agencies and authorized_adaccounts', () => {
  it('expands the three edges in one read, with .limit(), {…} and .business(<id>), and a next link on the edge’s own path', async () => {
    const token = await parentToken();
    const fields = `upcoming_events.limit(1){title},agencies{name},authorized_adaccounts.business(${northwind}){id}`;
    const reply = await parent.request('GET', withQuery(`/v25.0/${b}`, { access_token: token, fields }));
    expectOk(reply);
    expect(reply.body).toEqual({
      upcoming_events: {
        data: [{ title: 'Spring collection live launch', id: f.edges.eventIds[0] }],
        paging: {
          cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) },
          next: expect.any(String),
        },
      },
      agencies: {
        data: [
          { name: 'Northwind Creative Agency', id: northwind },
          { name: 'Blue Harbor Media', id: blueHarbor },
        ],
        paging: { cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) } },
      },
      authorized_adaccounts: {
        data: [{ id: northwindMain }],
        paging: { cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) } },
      },
      id: b,
    });
    const after = reply.body.upcoming_events.paging.cursors.after;
    expect(reply.body.upcoming_events.paging.next).toBe(
      link(system.socialParentUrl, `/v25.0/${b}/upcoming_events`, [['access_token', token], ['fields', 'title'], ['limit', '1'], ['after', after]]),
    );
    const next = await parent.request('GET', reply.body.upcoming_events.paging.next);
    expectOk(next);
    // The second event by start time: "Tasting night" was created above at T0 + 3 d.
    expect(next.body.data).toEqual([{ title: 'Tasting night', id: expect.any(String) }]);
  });

  it('refuses these edges on the own-login host as unknown fields of the account', async () => {
    expectGraphError(await getOwn(`/${b}`, { fields: 'username,agencies{name}' }), unknownField('agencies'));
    expectGraphError(await getOwn('/me', { fields: 'upcoming_events.limit(1){title}' }), unknownField('upcoming_events'));
    expectGraphError(await getOwn('/me', { fields: `authorized_adaccounts.business(${northwind}){id}` }), unknownField('authorized_adaccounts'));
  });

  it('refuses an unknown field inside an expanded edge with the edge’s node type', async () => {
    expectGraphError(await getParent(`/${b}`, { fields: 'upcoming_events{venue}' }), unknownField('venue', 'UpcomingEvent'));
    expectGraphError(await getParent(`/${b}`, { fields: 'agencies{budget}' }), unknownField('budget', 'Business'));
  });

  it('applies the permission of each expanded edge', async () => {
    const noEvents = await tokenFor('parent', f.platformUsers.ana, PARENT_ALL.filter((p) => p !== 'social_manage_upcoming_events'));
    const reply = await parent.request('GET', withQuery(`/${b}`, { fields: 'agencies{name},upcoming_events{title}' }), { token: noEvents });
    expectGraphError(reply, missingPermission('social_manage_upcoming_events'));
  });
});

// =====================================================================================================================
// media POST: publishing containers, and the container node (clock: T0, then T0 + 30 s)

describe('POST /{account_id}/media and GET /{container_id}', () => {
  const IMAGE = 'https://cdn.example.com/photos/latte.jpg';
  const VIDEO = 'https://cdn.example.com/videos/pour.mp4';
  /** Two carousel items of bluebottle, made once. */
  const items: string[] = [];
  let roasterItem = '';
  let plainImage = '';

  beforeAll(async () => {
    for (const url of [IMAGE, 'https://cdn.example.com/photos/beans.jpg']) {
      const reply = await postOwn('/me/media', { image_url: url, is_carousel_item: true });
      expectOk(reply);
      items.push(reply.body.id);
    }
    const roasterReply = await own.request('POST', '/me/media', {
      token: await tokenFor('own', roaster, OWN_ALL),
      json: { image_url: IMAGE, is_carousel_item: true },
    });
    expectOk(roasterReply);
    roasterItem = roasterReply.body.id;
    plainImage = (await postOwn(`/${b}/media`, { image_url: IMAGE })).body.id;
  });

  it('creates an image container: {id} only, FINISHED at once', async () => {
    const reply = await postOwn(`/v25.0/${b}/media`, { image_url: IMAGE, caption: 'Morning latte' });
    expectOk(reply);
    expect(reply.body).toEqual({ id: expect.stringMatching(/^\d{17,19}$/) });
    const id = reply.body.id;
    const status = await getOwn(`/v25.0/${id}`, { fields: 'id,status_code' });
    expectOk(status);
    expect(status.body).toEqual({ id, status_code: 'FINISHED' });
    const bare = await getOwn(`/${id}`);
    expect(bare.body).toEqual({ id });
    const more = await getParent(`/${id}`, { fields: 'media_type,caption,status_code' });
    expectOk(more);
    expect(more.body).toEqual({ media_type: 'IMAGE', caption: 'Morning latte', status_code: 'FINISHED', id });
  });

  it('takes its parameters from the query string, a form body or a JSON body, on either host', async () => {
    const token = await parentToken();
    const query = await parent.request('POST', withQuery(`/${b}/media`, { image_url: IMAGE, caption: 'From the query' }), { token });
    expectOk(query);
    const form = await parent.request('POST', `/${b}/media`, {
      token,
      raw: new URLSearchParams({ image_url: IMAGE, caption: 'From a form' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectOk(form);
    for (const [id, caption] of [[query.body.id, 'From the query'], [form.body.id, 'From a form']]) {
      const read = await getParent(`/${id}`, { fields: 'caption,status_code' });
      expect(read.body).toEqual({ caption, status_code: 'FINISHED', id });
    }
  });

  it('takes user_tags as JSON text, in the query string or a JSON body', async () => {
    const tags = JSON.stringify([{ username: 'roaster', x: 0.25, y: 0.75 }]);
    const inQuery = await own.request('POST', withQuery(`/${b}/media`, { image_url: IMAGE, user_tags: tags }), { token: await ownToken() });
    expectOk(inQuery);
    const inBody = await postOwn(`/${b}/media`, { image_url: IMAGE, user_tags: tags });
    expectOk(inBody);
  });

  it('takes user_tags as a JSON array inside a JSON body (numbers included)', async () => {
    // A JSON body's values may be JSON themselves (§0: parameters travel in the query string or the body).
    const reply = await postOwn(`/${b}/media`, { image_url: IMAGE, user_tags: [{ username: 'roaster', x: 0.25, y: 0.75 }] });
    expectOk(reply);
    expect(reply.body).toEqual({ id: expect.stringMatching(/^\d{17,19}$/) });
  });

  it('creates a carousel from its items (a JSON list or a comma list of children)', async () => {
    const asList = await postOwn(`/${b}/media`, { media_type: 'CAROUSEL', children: items, caption: 'Two of a kind' });
    expectOk(asList);
    const asText = await postOwn(`/${b}/media`, { media_type: 'CAROUSEL', children: items.join(',') });
    expectOk(asText);
    for (const id of [asList.body.id, asText.body.id]) {
      const read = await getOwn(`/${id}`, { fields: 'status_code,media_type' });
      expect(read.body).toEqual({ status_code: 'FINISHED', media_type: 'CAROUSEL', id });
    }
  });

  it('processes a reel for 30 s: IN_PROGRESS, then FINISHED once the clock has moved', async () => {
    const reply = await postOwn(`/${b}/media`, { media_type: 'REELS', video_url: VIDEO, caption: 'Pour over', share_to_feed: true, thumb_offset: 1500 });
    expectOk(reply);
    const id = reply.body.id;
    expect((await getOwn(`/${id}`, { fields: 'status_code' })).body).toEqual({ status_code: 'IN_PROGRESS', id });
    clock += 29 * SECOND;
    expect((await getOwn(`/${id}`, { fields: 'status_code' })).body).toEqual({ status_code: 'IN_PROGRESS', id });
    clock += SECOND;
    expect((await getOwn(`/${id}`, { fields: 'status_code,media_type' })).body).toEqual({ status_code: 'FINISHED', media_type: 'REELS', id });
  });

  it('refuses a carousel whose video item is still processing (9007 / 2207027)', async () => {
    const video = await postOwn(`/${b}/media`, { media_type: 'VIDEO', video_url: VIDEO, is_carousel_item: true });
    expectOk(video);
    expectGraphError(await postOwn(`/${b}/media`, { media_type: 'CAROUSEL', children: [items[0], video.body.id] }), PUBLISHING.notReady);
  });

  it('answers 100/33 for the container of another account, an unknown container, and unsupported writes', async () => {
    const roasterToken = await tokenFor('own', roaster, OWN_ALL);
    expectGraphError(await own.request('GET', `/${plainImage}?fields=status_code`, { token: roasterToken }), unsupported('get', plainImage));
    const unknown = unusedId(plainImage);
    expectGraphError(await getOwn(`/${unknown}`, { fields: 'status_code' }), unsupported('get', unknown));
    expectGraphError(await postOwn(`/${plainImage}`, { caption: 'edit' }), unsupported('post', plainImage));
    expectGraphError(await getOwn(`/${plainImage}/children`), { message: 'Unknown path components: /children', code: 2500 });
  });

  it('refuses an unknown field of the container', async () => {
    expectGraphError(await getOwn(`/${plainImage}`, { fields: 'status' }), unknownField('status', 'SocialContainer'));
  });

  it.each<[string, () => Record<string, unknown>, ExpectedError | (() => ExpectedError)]>([
    ['no media at all', () => ({ caption: 'Nothing' }), missingParameter('image_url')],
    ['an unknown media_type', () => ({ media_type: 'PANORAMA', image_url: IMAGE }), publishingError(100, 2207023, 'Invalid parameter', 'Unknown media type', 'The media type PANORAMA is unknown.')],
    ['both image_url and video_url', () => ({ image_url: IMAGE, video_url: VIDEO }), invalidParameter('Only one of image_url and video_url can be given.')],
    ['a video without media_type', () => ({ video_url: VIDEO }), invalidParameter('A video needs media_type REELS or STORIES (or VIDEO for a carousel item).')],
    ['REELS without video_url', () => ({ media_type: 'REELS' }), missingParameter('video_url')],
    ['REELS with image_url', () => ({ media_type: 'REELS', image_url: IMAGE }), invalidParameter('A REELS container takes video_url, not image_url.')],
    ['STORIES without media', () => ({ media_type: 'STORIES' }), missingParameter('image_url')],
    ['a reel as carousel item', () => ({ media_type: 'REELS', video_url: VIDEO, is_carousel_item: true }), invalidParameter('A REELS container cannot be a carousel item.')],
    ['is_carousel_item that is not a boolean', () => ({ image_url: IMAGE, is_carousel_item: 'maybe' }), invalidParameter('is_carousel_item must be true or false, got "maybe".')],
    [
      'a URL that cannot be fetched',
      () => ({ image_url: 'ftp://cdn.example.com/latte.jpg' }),
      publishingError(
        9004,
        2207052,
        'Media download has failed.',
        'Media download has failed',
        'The media could not be fetched from this URI: ftp://cdn.example.com/latte.jpg. Please check the URI and try again.',
      ),
    ],
    ['CAROUSEL without children', () => ({ media_type: 'CAROUSEL' }), missingParameter('children')],
    [
      'CAROUSEL with image_url',
      () => ({ media_type: 'CAROUSEL', image_url: IMAGE, children: items }),
      invalidParameter('A CAROUSEL container takes its media from children, not from image_url or video_url.'),
    ],
    ['a carousel of one', () => ({ media_type: 'CAROUSEL', children: [items[0]] }), PUBLISHING.carouselSize],
    ['a carousel of eleven', () => ({ media_type: 'CAROUSEL', children: Array.from({ length: 11 }, () => items[0]) }), PUBLISHING.carouselSize],
    ['a child given twice', () => ({ media_type: 'CAROUSEL', children: [items[0], items[0]] }), () => invalidParameter(`The carousel item ${items[0]} is given more than once.`)],
    [
      'a child that is not a carousel item',
      () => ({ media_type: 'CAROUSEL', children: [items[0], plainImage] }),
      () => invalidParameter(`The carousel item ${plainImage} does not exist or is not a carousel item of this account.`),
    ],
    [
      'a child of another account',
      () => ({ media_type: 'CAROUSEL', children: [items[0], roasterItem] }),
      () => invalidParameter(`The carousel item ${roasterItem} does not exist or is not a carousel item of this account.`),
    ],
    ['children without CAROUSEL', () => ({ image_url: IMAGE, children: items }), invalidParameter('children can only be given with media_type CAROUSEL.')],
    [
      'a caption over 2,200 characters',
      () => ({ image_url: IMAGE, caption: 'a'.repeat(2201) }),
      publishingError(36004, 2207010, 'The caption is too long.', 'Caption too long', 'The caption can have at most 2,200 characters.'),
    ],
    [
      'more than 30 hashtags',
      () => ({ image_url: IMAGE, caption: Array.from({ length: 31 }, (_, i) => `#tag${i}`).join(' ') }),
      publishingError(36004, 2207010, 'The caption has too many hashtags.', 'Too many hashtags', 'The caption can have at most 30 hashtags.'),
    ],
    ['more than 20 @mentions', () => ({ image_url: IMAGE, caption: Array.from({ length: 21 }, (_, i) => `@user${i}`).join(' ') }), PUBLISHING.tooManyTags],
    [
      'more than 20 user_tags',
      () => ({ image_url: IMAGE, user_tags: JSON.stringify(Array.from({ length: 21 }, (_, i) => ({ username: `user${i}`, x: 0.5, y: 0.5 }))) }),
      PUBLISHING.tooManyTags,
    ],
    ['user_tags that are not JSON', () => ({ image_url: IMAGE, user_tags: '[{username' }), invalidParameter('The parameter user_tags must be valid JSON.')],
    [
      'user_tags on the CAROUSEL container',
      () => ({ media_type: 'CAROUSEL', children: items, user_tags: JSON.stringify([{ username: 'roaster', x: 0.1, y: 0.1 }]) }),
      invalidParameter('Tag people on the carousel items, not on the CAROUSEL container.'),
    ],
    ['an image user tag without x', () => ({ image_url: IMAGE, user_tags: JSON.stringify([{ username: 'roaster', y: 0.5 }]) }), invalidParameter('user_tags[0].x is required for an image.')],
    ['a user tag outside the image', () => ({ image_url: IMAGE, user_tags: JSON.stringify([{ username: 'roaster', x: 1.5, y: 0.5 }]) }), invalidParameter('user_tags[0].x must be a number from 0 to 1.')],
    ['a user tag with a bad username', () => ({ image_url: IMAGE, user_tags: JSON.stringify([{ username: 'not valid!', x: 0.5, y: 0.5 }]) }), invalidParameter('user_tags[0].username must be a username.')],
    ['a user tag without username', () => ({ image_url: IMAGE, user_tags: JSON.stringify([{ x: 0.5, y: 0.5 }]) }), invalidParameter('user_tags[0].username must be a username.')],
    ['a user tag whose x is text', () => ({ image_url: IMAGE, user_tags: JSON.stringify([{ username: 'roaster', x: 'left', y: 0.5 }]) }), invalidParameter('user_tags[0].x must be a number from 0 to 1.')],
    ['four collaborators', () => ({ image_url: IMAGE, collaborators: ['a1', 'b2', 'c3', 'd4'] }), invalidParameter('A post can have at most 3 collaborators.')],
    [
      'collaborators on a story',
      () => ({ media_type: 'STORIES', image_url: IMAGE, collaborators: ['roaster'] }),
      invalidParameter('Collaborators can be invited on feed posts, carousels and reels only.'),
    ],
    ['a location that is not an id', () => ({ image_url: IMAGE, location_id: 'paris' }), invalidParameter('location_id must be the numeric id of a location page.')],
    ['cover_url on an image', () => ({ image_url: IMAGE, cover_url: IMAGE }), invalidParameter('cover_url can only be given for REELS.')],
    ['share_to_feed on an image', () => ({ image_url: IMAGE, share_to_feed: true }), invalidParameter('share_to_feed can only be given for REELS.')],
    ['audio_name on an image', () => ({ image_url: IMAGE, audio_name: 'Espresso beats' }), invalidParameter('audio_name can only be given for REELS.')],
    ['thumb_offset on an image', () => ({ image_url: IMAGE, thumb_offset: 100 }), invalidParameter('thumb_offset can only be given for a video.')],
    ['a negative thumb_offset', () => ({ media_type: 'REELS', video_url: VIDEO, thumb_offset: -1 }), PUBLISHING.thumbOffset],
    ['a fractional thumb_offset', () => ({ media_type: 'REELS', video_url: VIDEO, thumb_offset: 1.5 }), invalidParameter('thumb_offset must be a whole number of milliseconds.')],
    ['alt_text on a reel', () => ({ media_type: 'REELS', video_url: VIDEO, alt_text: 'A pour' }), invalidParameter('alt_text can only be given for an image post or carousel image.')],
    ['alt_text over 1,000 characters', () => ({ image_url: IMAGE, alt_text: 'a'.repeat(1001) }), invalidParameter('alt_text can have at most 1000 characters.')],
  ])('refuses %s', async (_name, body, expected) => {
    expectGraphError(await postOwn(`/${b}/media`, body()), typeof expected === 'function' ? expected() : expected);
  });

  describe('GraphQL createMediaContainer and mediaContainer', () => {
    const CREATE = `mutation Create($id: ID!, $input: MediaContainerInput!) {
      createMediaContainer(accountId: $id, input: $input) { id statusCode mediaType caption createdAt expiresAt publishedMediaId }
    }`;
    const READ = `query Container($id: ID!) { mediaContainer(id: $id) { id statusCode mediaType caption publishedMediaId } }`;

    it('creates a container valid 24 hours and reads its status', async () => {
      const reply = await gql(CREATE, { id: b, input: { imageUrl: IMAGE, caption: 'Via GraphQL', userTags: [{ username: 'roaster', x: 0.2, y: 0.8 }] } });
      expect(reply.errors).toBeUndefined();
      const created = reply.data.createMediaContainer;
      expect(created).toEqual({
        id: expect.stringMatching(/^\d{17,19}$/),
        statusCode: 'FINISHED',
        mediaType: 'IMAGE',
        caption: 'Via GraphQL',
        createdAt: isoTime(clock),
        expiresAt: isoTime(clock + DAY),
        publishedMediaId: null,
      });
      const read = await gql(READ, { id: created.id }, await parentToken());
      expect(read.errors).toBeUndefined();
      expect(read.data).toEqual({ mediaContainer: { id: created.id, statusCode: 'FINISHED', mediaType: 'IMAGE', caption: 'Via GraphQL', publishedMediaId: null } });
    });

    it('reports validation and publishing errors with extensions', async () => {
      expect((await gql(CREATE, { id: b, input: { mediaType: 'REELS' } })).errors).toEqual([gqlMissingParameter(['createMediaContainer'], 'video_url')]);
      expect((await gql(CREATE, { id: b, input: { mediaType: 'CAROUSEL', children: [items[0]] } })).errors).toEqual([
        gqlPublishingError(['createMediaContainer'], PUBLISHING.carouselSize),
      ]);
      expect((await gql(CREATE, { id: b, input: { mediaType: 'REELS', videoUrl: VIDEO, thumbOffset: -1 } })).errors).toEqual([
        gqlPublishingError(['createMediaContainer'], PUBLISHING.thumbOffset),
      ]);
      expect((await gql(CREATE, { id: roaster, input: { imageUrl: IMAGE } })).errors).toEqual([gqlUnknownObject(['createMediaContainer'], roaster, 'post')]);
      const noPublish = await tokenFor('own', b, ['social_business_basic']);
      expect((await gql(CREATE, { id: b, input: { imageUrl: IMAGE } }, noPublish)).errors).toEqual([
        gqlMissingPermission(['createMediaContainer'], 'social_business_content_publish'),
      ]);
      expect((await gql(READ, { id: plainImage }, await tokenFor('own', roaster, OWN_ALL))).errors).toEqual([
        gqlUnknownObject(['mediaContainer'], plainImage, 'get'),
      ]);
    });
  });
});

// =====================================================================================================================
// the permission matrix of these operations (clock: T0 + 30 s)

describe('permissions', () => {
  interface Operation {
    name: string;
    /** Each group must be met; a group is met by any one of its permissions (written out from §2.2 and §4). */
    own: string[][] | null;
    parent: string[][];
    /** Parent host: a business-manager page role also needs ads_management or ads_read ("BM"). */
    businessManager: boolean;
    send: (client: RestClient, token: string) => Promise<RestReply>;
  }

  let finished: string;
  beforeAll(async () => {
    finished = (await postOwn(`/${b}/media`, { image_url: 'https://cdn.example.com/photos/perm.jpg' })).body.id;
  });

  const get = (path: string, params: Record<string, string> = {}) => (client: RestClient, token: string) =>
    client.request('GET', withQuery(path, params), { token });
  const post = (path: string, body: () => Record<string, unknown>) => (client: RestClient, token: string) =>
    client.request('POST', path, { token, json: body() });

  const operations = (): Operation[] => [
    {
      name: 'GET insights',
      own: [['social_business_basic'], ['social_business_manage_insights']],
      parent: [['social_basic'], ['social_manage_insights'], ['pages_read_engagement', 'pages_show_list']],
      businessManager: true,
      send: get(`/${b}/insights`, { metric: 'reach', period: 'day' }),
    },
    {
      name: 'GET content_publishing_limit',
      own: [['social_business_basic'], ['social_business_content_publish']],
      parent: [['social_basic'], ['social_content_publish'], ['pages_read_engagement']],
      businessManager: true,
      send: get(`/${b}/content_publishing_limit`),
    },
    {
      name: 'POST media',
      own: [['social_business_basic'], ['social_business_content_publish']],
      parent: [['social_basic'], ['social_content_publish'], ['pages_read_engagement', 'pages_show_list']],
      businessManager: true,
      send: post(`/${b}/media`, () => ({ image_url: 'https://cdn.example.com/photos/perm.jpg' })),
    },
    {
      name: 'POST media_publish',
      own: [['social_business_basic'], ['social_business_content_publish']],
      parent: [['social_basic'], ['social_content_publish'], ['pages_read_engagement', 'pages_show_list']],
      businessManager: true,
      send: post(`/${b}/media_publish`, () => ({ creation_id: finished })),
    },
    {
      name: 'GET recently_searched_hashtags',
      own: null,
      parent: [['social_basic']],
      businessManager: true,
      send: get(`/${b}/recently_searched_hashtags`),
    },
    {
      name: 'GET upcoming_events',
      own: null,
      parent: [['social_basic'], ['social_manage_upcoming_events']],
      businessManager: false,
      send: get(`/${b}/upcoming_events`),
    },
    {
      name: 'POST upcoming_events',
      own: null,
      parent: [['social_basic'], ['social_manage_upcoming_events']],
      businessManager: false,
      send: post(`/${b}/upcoming_events`, () => ({ title: 'Permission party', start_time: isoTime(clock + DAY) })),
    },
    {
      name: 'GET agencies',
      own: null,
      parent: [['ads_management', 'business_management']],
      businessManager: false,
      send: get(`/${b}/agencies`),
    },
    {
      name: 'GET authorized_adaccounts',
      own: null,
      parent: [['ads_management', 'business_management']],
      businessManager: false,
      send: get(`/${b}/authorized_adaccounts`),
    },
    {
      name: 'POST authorized_adaccounts',
      own: null,
      parent: [['ads_management', 'business_management']],
      businessManager: false,
      send: post(`/${b}/authorized_adaccounts`, () => ({ account_id: acmeAdAccount, business: acme })),
    },
  ];
  const EDGE_OF: Record<string, string> = {
    'GET recently_searched_hashtags': 'recently_searched_hashtags',
    'GET upcoming_events': 'upcoming_events',
    'POST upcoming_events': 'upcoming_events',
    'GET agencies': 'agencies',
    'GET authorized_adaccounts': 'authorized_adaccounts',
    'POST authorized_adaccounts': 'authorized_adaccounts',
  };

  it.each(operations().map((operation) => [operation.name, operation.name]))('%s: each missing permission in turn, on both hosts', async (name) => {
    const operation = operations().find((candidate) => candidate.name === name)!;
    if (operation.own === null) {
      // Not on the own-login host, whatever the token holds.
      expectGraphError(await operation.send(own, await ownToken()), unknownField(EDGE_OF[name]!));
    } else {
      for (const group of operation.own) {
        const token = await tokenFor('own', b, OWN_ALL.filter((p) => !group.includes(p)));
        expectGraphError(await operation.send(own, token), missingPermission(group[0]!));
      }
    }
    for (const group of operation.parent) {
      const token = await tokenFor('parent', f.platformUsers.ana, PARENT_ALL.filter((p) => !group.includes(p)));
      expectGraphError(await operation.send(parent, token), missingPermission(group[0]!));
    }
  });

  // Everything with an either-or group but publishing (which would use the quota); POST media only makes a container.
  const EITHER_OR = ['GET insights', 'POST media', 'GET agencies', 'GET authorized_adaccounts', 'POST authorized_adaccounts'];

  it.each(EITHER_OR)('%s: accepts either permission of an either-or group', async (name) => {
    const operation = operations().find((candidate) => candidate.name === name)!;
    const groups = operation.parent.filter((candidate) => candidate.length > 1);
    expect(groups).toHaveLength(1);
    for (const kept of groups[0]!) {
      const token = await tokenFor('parent', f.platformUsers.ana, PARENT_ALL.filter((p) => !groups[0]!.includes(p) || p === kept));
      const reply = await operation.send(parent, token);
      expect(reply.status, `${operation.name} with only ${kept}: ${reply.text}`).toBe(200);
    }
  });

  it.each(operations().filter((operation) => operation.businessManager).map((operation) => operation.name))(
    '%s: a business-manager page role also needs ads_management or ads_read (BM)',
    async (name) => {
      const operation = operations().find((candidate) => candidate.name === name)!;
      const bm = await tokenFor('parent', f.platformUsers.bm, PARENT_ALL.filter((p) => p !== 'ads_management' && p !== 'ads_read'));
      expectGraphError(await operation.send(parent, bm), missingPermission('ads_read'));
      if (name.startsWith('GET')) {
        const withAdsRead = await tokenFor('parent', f.platformUsers.bm, PARENT_ALL.filter((p) => p !== 'ads_management'));
        expectOk(await operation.send(parent, withAdsRead));
      }
    },
  );

  it.each(['GET upcoming_events', 'POST upcoming_events', 'GET agencies', 'GET authorized_adaccounts'])(
    '%s: no BM rule, so a business-manager page role needs no ads_management or ads_read',
    async (name) => {
      const operation = operations().find((candidate) => candidate.name === name)!;
      const bm = await tokenFor('parent', f.platformUsers.bm, PARENT_ALL.filter((p) => p !== 'ads_management' && p !== 'ads_read'));
      const reply = await operation.send(parent, bm);
      expect(reply.status, reply.text).toBe(200);
    },
  );

  it('refuses publishing (#10) to a page role without the MANAGE or CREATE_CONTENT task', async () => {
    const token = await tokenFor('parent', moderator, PARENT_ALL);
    expectGraphError(await parent.request('POST', `/${b}/media`, { token, json: { image_url: 'https://cdn.example.com/photos/perm.jpg' } }), notAllowed);
    expectGraphError(await parent.request('POST', `/${b}/media_publish`, { token, json: { creation_id: finished } }), notAllowed);
    // Reading insights needs no page task.
    expectOk(await parent.request('GET', withQuery(`/${b}/insights`, { metric: 'reach', period: 'day' }), { token }));
  });

  it('answers 100/33 to a user without a role on the account’s page, whatever the permissions', async () => {
    const token = await tokenFor('parent', f.platformUsers.stranger, PARENT_ALL);
    expectGraphError(await parent.request('GET', withQuery(`/${b}/agencies`), { token }), unsupported('get', b));
    expectGraphError(await parent.request('POST', `/${b}/media`, { token, json: { image_url: 'https://cdn.example.com/photos/perm.jpg' } }), unsupported('post', b));
    expectGraphError(await parent.request('POST', `/${b}/upcoming_events`, { token, json: { title: 'x', start_time: isoTime(clock + DAY) } }), unsupported('post', b));
  });

  it('reads a container only with the publishing permissions', async () => {
    const token = await tokenFor('own', b, ['social_business_basic', 'social_business_manage_insights']);
    expectGraphError(await own.request('GET', `/${finished}?fields=status_code`, { token }), missingPermission('social_business_content_publish'));
  });
});

// =====================================================================================================================
// recently_searched_hashtags (clock: T0 + 30 s, then moved on to T0 + 7 d − 2.5 h at the end)

describe('GET /{account_id}/recently_searched_hashtags (parent-platform host only)', () => {
  /** The five demo searches (T0 − 1 h … T0 − 5 h, newest first), then 30 more added here (T0 − 6 h … T0 − 35 h). */
  let demo: { id: string; name: string }[];
  let extra: { id: string; name: string }[];

  beforeAll(async () => {
    demo = f.edges.hashtags;
    extra = [];
    for (let i = 0; i < 30; i += 1) {
      const row = await db.insertInto('social.hashtag').values({ name: `brew${i}` }).returning(['id', 'name']).executeTakeFirstOrThrow();
      await db
        .insertInto('social.hashtag_search')
        .values({ account_id: b, hashtag_id: row.id, searched_at: new Date(T0 - (6 + i) * HOUR) })
        .execute();
      extra.push({ id: String(row.id), name: row.name });
    }
  });

  const ids = (list: { id: string }[]) => list.map(({ id }) => ({ id }));

  it('lists 25 hashtags of {id} by default, most recently searched first, without paging', async () => {
    const reply = await getParent(`/v25.0/${b}/recently_searched_hashtags`);
    expectOk(reply);
    expect(reply.body).toEqual({ data: ids([...demo, ...extra].slice(0, 25)) });
  });

  it('cuts a limit above 30 to 30, honours a smaller one, and renders name when asked', async () => {
    const all = await getParent(`/${b}/recently_searched_hashtags`, { limit: '50' });
    expectOk(all);
    expect(all.body).toEqual({ data: ids([...demo, ...extra].slice(0, 30)) });
    const three = await getParent(`/${b}/recently_searched_hashtags`, { limit: '3', fields: 'id,name' });
    expectOk(three);
    expect(three.body).toEqual({ data: demo.slice(0, 3).map(({ id, name }) => ({ id, name })) });
  });

  it('refuses a limit that is not a number', async () => {
    expectGraphError(await getParent(`/${b}/recently_searched_hashtags`, { limit: 'many' }), invalidParameter('The parameter limit must be a non-negative integer, got "many".'));
  });

  it('does not exist on the own-login host', async () => {
    expectGraphError(await getOwn(`/${b}/recently_searched_hashtags`), unknownField('recently_searched_hashtags'));
    expectGraphError(await getOwn('/me/recently_searched_hashtags'), unknownField('recently_searched_hashtags'));
  });

  it('answers over GraphQL, at most 30', async () => {
    const QUERY = `query Tags($id: ID!, $first: Int) { account(id: $id) { recentlySearchedHashtags(first: $first) { id name } } }`;
    const reply = await gql(QUERY, { id: b, first: 100 }, await parentToken());
    expect(reply.errors).toBeUndefined();
    expect(reply.data.account.recentlySearchedHashtags).toEqual([...demo, ...extra].slice(0, 30));
    expect((await gql(QUERY, { id: b })).errors).toEqual([gqlUnknownField(['account', 'recentlySearchedHashtags'], 'recently_searched_hashtags')]);
  });

  it('keeps only the searches of the last 7 days as the clock moves on', async () => {
    clock = T0 + 7 * DAY - 2.5 * HOUR;
    // Left in the window: the searches at T0 − 1 h and T0 − 2 h.
    const reply = await getParent(`/${b}/recently_searched_hashtags`, { fields: 'name' });
    expectOk(reply);
    expect(reply.body).toEqual({ data: demo.slice(0, 2).map(({ id, name }) => ({ name, id })) });
    clock = T0 + 7 * DAY;
    expect((await getParent(`/${b}/recently_searched_hashtags`)).body).toEqual({ data: [] });
  });
});

// =====================================================================================================================
// media_publish (clock: from T0 + 7 d on; quota 3 per rolling 24 h; nothing published before this block)

describe('POST /{account_id}/media_publish', () => {
  const IMAGE = 'https://cdn.example.com/photos/publish.jpg';
  const VIDEO = 'https://cdn.example.com/videos/publish.mp4';
  let P0: number;
  /** Published media ids, in order. */
  const published: string[] = [];
  let imageContainer: string;
  let pending: string;

  beforeAll(() => {
    P0 = clock;
  });

  const limit = async () => (await getOwn(`/${b}/content_publishing_limit`, { fields: 'quota_usage,config' })).body;

  it('refuses a missing creation_id', async () => {
    expectGraphError(await postOwn(`/${b}/media_publish`, {}), missingParameter('creation_id'));
  });

  it('answers 24 / 2207006 for an unknown container, text that is no id, and another account’s container', async () => {
    const roasterContainer = await own.request('POST', '/me/media', { token: await tokenFor('own', roaster, OWN_ALL), json: { image_url: IMAGE } });
    expectOk(roasterContainer);
    const foreign = roasterContainer.body.id;
    expectGraphError(await postOwn(`/${b}/media_publish`, { creation_id: foreign }), PUBLISHING.notFound(foreign));
    const unknown = unusedId(foreign);
    expectGraphError(await postOwn(`/${b}/media_publish`, { creation_id: unknown }), PUBLISHING.notFound(unknown));
    expectGraphError(await postOwn(`/${b}/media_publish`, { creation_id: 'latte' }), PUBLISHING.notFound('latte'));
  });

  it('is POST only: GET is an unsupported operation', async () => {
    expectGraphError(await getOwn(`/${b}/media_publish`), unsupported('get', b));
  });

  it('publishes an image: {id}; the media comes first in GET /me/media with its caption; the container says PUBLISHED', async () => {
    const caption = 'Fresh roast with @roaster and @nobody_here, by @bluebottle #coffee';
    const container = await postOwn('/me/media', { image_url: IMAGE, caption, user_tags: JSON.stringify([{ username: 'roaster', x: 0.5, y: 0.5 }]) });
    expectOk(container);
    imageContainer = container.body.id;
    clock += MINUTE;
    const reply = await postOwn('/me/media_publish', { creation_id: imageContainer });
    expectOk(reply);
    expect(reply.body).toEqual({ id: expect.stringMatching(/^\d{17,19}$/) });
    expect(Object.keys(reply.body)).toEqual(['id']);
    const mediaId = reply.body.id as string;
    published.push(mediaId);

    const list = await getOwn('/me/media', { fields: 'caption,media_type,media_product_type,media_url,timestamp', limit: '2' });
    expectOk(list);
    expect(list.body.data[0]).toEqual({
      caption,
      media_type: 'IMAGE',
      media_product_type: 'FEED',
      media_url: IMAGE,
      timestamp: graphTime(clock),
      id: mediaId,
    });
    expect(list.body.data[1].id).not.toBe(mediaId);
    const onParent = await getParent(`/${b}/media`, { fields: 'caption', limit: '1' });
    expect(onParent.body.data).toEqual([{ caption, id: mediaId }]);

    const status = await getOwn(`/${imageContainer}`, { fields: 'status_code,published_media_id' });
    expect(status.body).toEqual({ status_code: 'PUBLISHED', published_media_id: mediaId, id: imageContainer });
    expect(await limit()).toEqual({ data: [{ quota_usage: 1, config: { quota_total: QUOTA, quota_duration: 86400 } }] });
  });

  it('records the caption’s @mentions of other existing accounts, and the user tags', async () => {
    const mediaId = published[0]!;
    const mentioned = await getParent(`/${roaster}`, { fields: `mentioned_media.media_id(${mediaId}){caption}` });
    expectOk(mentioned);
    expect(mentioned.body).toEqual({
      // Not the mentioned account's own media: `@` is removed (§2.2).
      mentioned_media: { caption: 'Fresh roast with roaster and nobody_here, by bluebottle #coffee', id: mediaId },
      id: roaster,
    });
    // The owner naming itself is no mention.
    expectGraphError(await getParent(`/${b}`, { fields: `mentioned_media.media_id(${mediaId}){caption}` }), unsupported('get', mediaId));
    const tags = await getParent(`/${roaster}/tags`, { limit: '1' });
    expectOk(tags);
    expect(tags.body.data).toEqual([{ id: mediaId }]);
  });

  it('refuses to publish a container twice', async () => {
    expectGraphError(await postOwn(`/${b}/media_publish`, { creation_id: imageContainer }), invalidParameter(`The container ${imageContainer} has already been published.`));
  });

  it('publishes a carousel (its items only through it) as a CAROUSEL_ALBUM with children', async () => {
    const items: string[] = [];
    for (const url of [IMAGE, 'https://cdn.example.com/photos/publish-2.jpg']) items.push((await postParent(`/${b}/media`, { image_url: url, is_carousel_item: true })).body.id);
    expectGraphError(await postParent(`/${b}/media_publish`, { creation_id: items[0] }), invalidParameter(`The container ${items[0]} is a carousel item: publish the carousel container that holds it.`));
    const carousel = await postParent(`/${b}/media`, { media_type: 'CAROUSEL', children: items, caption: 'Album of two' });
    expectOk(carousel);
    const reply = await postParent(`/${b}/media_publish`, { creation_id: carousel.body.id });
    expectOk(reply);
    const albumId = reply.body.id as string;
    published.push(albumId);
    const album = await getParent(`/${albumId}`, { fields: 'caption,media_type,children{media_url}' });
    expectOk(album);
    expect(album.body).toEqual({
      caption: 'Album of two',
      media_type: 'CAROUSEL_ALBUM',
      children: {
        data: expect.arrayContaining([
          { media_url: IMAGE, id: expect.any(String) },
          { media_url: 'https://cdn.example.com/photos/publish-2.jpg', id: expect.any(String) },
        ]),
        paging: expect.any(Object),
      },
      id: albumId,
    });
    expect(album.body.children.data).toHaveLength(2);
    // One publication, however many items.
    expect((await limit()).data[0].quota_usage).toBe(2);
  });

  it('refuses a reel still processing (9007 / 2207027), then publishes it as REELS once 30 s have passed', async () => {
    const reel = await postOwn(`/${b}/media`, { media_type: 'REELS', video_url: VIDEO, caption: 'Slow pour' });
    expectOk(reel);
    expectGraphError(await postOwn(`/${b}/media_publish`, { creation_id: reel.body.id }), PUBLISHING.notReady);
    clock += 30 * SECOND;
    const reply = await postOwn(`/${b}/media_publish`, { creation_id: reel.body.id });
    expectOk(reply);
    published.push(reply.body.id);
    const media = await getOwn(`/${reply.body.id}`, { fields: 'media_type,media_product_type,caption' });
    expect(media.body).toEqual({ media_type: 'VIDEO', media_product_type: 'REELS', caption: 'Slow pour', id: reply.body.id });
  });

  it('refuses a fourth publication within 24 hours with code 9 / 2207042, and content_publishing_limit shows the usage', async () => {
    const container = await postOwn(`/${b}/media`, { image_url: IMAGE, caption: 'One too many' });
    expectOk(container);
    pending = container.body.id;
    expectGraphError(await postOwn(`/${b}/media_publish`, { creation_id: pending }), PUBLISHING.limitReached);
    expectGraphError(await postParent(`/${b}/media_publish`, { creation_id: pending }), PUBLISHING.limitReached);
    expect(await limit()).toEqual({ data: [{ quota_usage: QUOTA, config: { quota_total: QUOTA, quota_duration: 86400 } }] });
    const parentView = await getParent(`/${b}/content_publishing_limit`);
    expect(parentView.body).toEqual({ data: [{ quota_usage: QUOTA }] });
    // since: publications at or after it (the image and the carousel at P0 + 1 min, the reel at P0 + 1 min 30 s).
    const sinceFirst = await getOwn(`/${b}/content_publishing_limit`, { since: String((P0 + MINUTE) / SECOND) });
    expect(sinceFirst.body).toEqual({ data: [{ quota_usage: 3 }] });
    const sinceReel = await getOwn(`/${b}/content_publishing_limit`, { since: String((P0 + MINUTE) / SECOND + 1) });
    expect(sinceReel.body).toEqual({ data: [{ quota_usage: 1 }] });
    expect((await getOwn(`/${pending}`, { fields: 'status_code' })).body).toEqual({ status_code: 'FINISHED', id: pending });
  });

  it('reports the quota over GraphQL as RATE_LIMITED with the publishing details', async () => {
    const PUBLISH = `mutation Publish($id: ID!, $creationId: ID) { publishMediaContainer(accountId: $id, creationId: $creationId) { id caption } }`;
    const reply = await gql(PUBLISH, { id: b, creationId: pending });
    expect(reply.errors).toEqual([gqlPublishingError(['publishMediaContainer'], PUBLISHING.limitReached, 'RATE_LIMITED')]);
  });

  it('frees the quota on a rolling 24 hours, and lets the container expire after 24 hours (EXPIRED, then −2 / 2207020)', async () => {
    // The pending container was made at P0 + 1 min 30 s, when the reel was published.
    clock = P0 + DAY + MINUTE + 15 * SECOND;
    expect((await limit()).data[0].quota_usage).toBe(1);
    expect((await getOwn(`/${pending}`, { fields: 'status_code' })).body).toEqual({ status_code: 'FINISHED', id: pending });
    clock = P0 + DAY + MINUTE + 30 * SECOND;
    expect((await limit()).data[0].quota_usage).toBe(0);
    expect((await getOwn(`/${pending}`, { fields: 'status_code' })).body).toEqual({ status_code: 'EXPIRED', id: pending });
    expectGraphError(await postOwn(`/${b}/media_publish`, { creation_id: pending }), PUBLISHING.expired);
  });

  it('publishes through GraphQL, and reports the publishing errors with extensions', async () => {
    const CREATE = `mutation Create($id: ID!, $input: MediaContainerInput!) { createMediaContainer(accountId: $id, input: $input) { id statusCode } }`;
    const PUBLISH = `mutation Publish($id: ID!, $creationId: ID) { publishMediaContainer(accountId: $id, creationId: $creationId) { id caption mediaType mediaProductType } }`;
    const token = await parentToken();
    const created = await gql(CREATE, { id: b, input: { imageUrl: IMAGE, caption: 'GraphQL post for @roaster' } }, token);
    expect(created.errors).toBeUndefined();
    const creationId = created.data.createMediaContainer.id;
    const reply = await gql(PUBLISH, { id: b, creationId }, token);
    expect(reply.errors).toBeUndefined();
    expect(reply.data.publishMediaContainer).toEqual({
      id: expect.stringMatching(/^\d{17,19}$/),
      caption: 'GraphQL post for @roaster',
      mediaType: 'IMAGE',
      mediaProductType: 'FEED',
    });
    const container = await gql(`query C($id: ID!) { mediaContainer(id: $id) { statusCode publishedMediaId } }`, { id: creationId }, token);
    expect(container.data).toEqual({ mediaContainer: { statusCode: 'PUBLISHED', publishedMediaId: reply.data.publishMediaContainer.id } });

    expect((await gql(PUBLISH, { id: b }, token)).errors).toEqual([gqlMissingParameter(['publishMediaContainer'], 'creation_id')]);
    expect((await gql(PUBLISH, { id: b, creationId: pending }, token)).errors).toEqual([gqlPublishingError(['publishMediaContainer'], PUBLISHING.expired)]);
    expect((await gql(PUBLISH, { id: b, creationId: 'latte' }, token)).errors).toEqual([
      gqlPublishingError(['publishMediaContainer'], PUBLISHING.notFound('latte')),
    ]);
    expect((await gql(PUBLISH, { id: b, creationId }, token)).errors).toEqual([
      gqlInvalidParameter(['publishMediaContainer'], 'creation_id', `The container ${creationId} has already been published.`),
    ]);
  });
});
