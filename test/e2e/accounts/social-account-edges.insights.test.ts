import { describe, expect, it } from 'vitest';
import {
  ALL_METRICS,
  bluebottle,
  D0,
  DAYS,
  expectOk,
  fixture,
  FOLLOWER_DEMOGRAPHICS,
  getOwn,
  getParent,
  gql,
  gqlInvalidParameter,
  gqlMissingParameter,
  gqlMissingPermission,
  graphTime,
  isoTime,
  LIKES,
  link,
  ONLINE_FOLLOWERS,
  own,
  ownToken,
  PARENT_ALL,
  postOwn,
  PROFILE_VIEWS,
  QUOTA,
  REACH,
  SECOND,
  stored,
  storedValue,
  system,
  T0,
  T0S,
  tokenFor,
  useAccountEdgesWorld,
  withQuery,
} from '../../support/account-edges-world.ts';
import {
  type ExpectedGraphError,
  expectGraphError,
  invalidParameter,
  missingParameter,
  unknownField,
  unsupported,
} from '../../support/graph-error-expectations.ts';

/** Account edges over REST and GraphQL: insights and content_publishing_limit (clock at T0). The world: test/support/account-edges-world.ts. */

const clock = T0;
const now = () => new Date(clock);
useAccountEdgesWorld(now);

// =====================================================================================================================
// insights (clock: T0)

describe('GET /{account_id}/insights', () => {
  const base = (metric: string, period: string, text: { title: string; description: string }) => ({
    name: metric,
    period,
    title: text.title,
    description: text.description,
    id: `${bluebottle}/insights/${metric}/${period}`,
  });
  const dayValues = async (metric: string, ends: number[]) =>
    Promise.all(ends.map(async (end) => ({ value: await storedValue(metric, end), end_time: graphTime(end * SECOND) })));

  it('answers the last two days as a time series by default (one value per day end), with a previous window and no next', async () => {
    const reply = await getOwn(`/v25.0/${bluebottle}/insights`, { metric: 'reach,profile_views', period: 'day' });
    expectOk(reply);
    expect(reply.body).toEqual({
      data: [
        { ...base('reach', 'day', REACH), values: await dayValues('reach', [D0 - DAYS, D0]) },
        { ...base('profile_views', 'day', PROFILE_VIEWS), values: await dayValues('profile_views', [D0 - DAYS, D0]) },
      ],
      paging: {
        // The Authorization header's token is not repeated in the link (the client sends its header again).
        previous: link(system.restUrl, `/v25.0/${bluebottle}/insights`, [
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
    const onParent = await getParent(`/v25.0/${bluebottle}/insights`, { metric: 'reach', period: 'day' });
    expectOk(onParent);
    expect(onParent.body.data).toEqual(expected.data);
    const onMe = await getOwn('/me/insights', { metric: 'reach', period: 'day' });
    expectOk(onMe);
    expect(onMe.body).toEqual({
      ...expected,
      paging: {
        previous: link(system.restUrl, '/me/insights', [
          ['metric', 'reach'],
          ['period', 'day'],
          ['since', String(T0S - 4 * DAYS)],
          ['until', String(T0S - 2 * DAYS)],
        ]),
      },
    });
  });

  it('sums a rolling week for period=week', async () => {
    const reply = await getOwn(`/${bluebottle}/insights`, { metric: 'reach', period: 'week' });
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
    const reply = await getOwn(`/${bluebottle}/insights`, { metric: 'online_followers', period: 'lifetime' });
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
    const reply = await getOwn(`/${bluebottle}/insights`, { metric: 'reach,likes', period: 'day', metric_type: 'total_value' });
    expectOk(reply);
    expect(reply.body).toEqual({
      data: [
        { ...base('reach', 'day', REACH), total_value: { value: await storedValue('reach', D0) } },
        { ...base('likes', 'day', LIKES), total_value: { value: await storedValue('likes', D0) } },
      ],
      paging: {
        previous: link(system.restUrl, `/${bluebottle}/insights`, [
          ['metric', 'reach,likes'],
          ['period', 'day'],
          ['metric_type', 'total_value'],
          ['since', String(T0S - 2 * DAYS)],
          ['until', String(T0S - DAYS)],
        ]),
      },
    });

    const split = await getOwn(`/${bluebottle}/insights`, {
      metric: 'likes',
      period: 'day',
      metric_type: 'total_value',
      breakdown: 'media_product_type',
    });
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
    const reply = await getOwn(`/${bluebottle}/insights`, {
      metric: 'reach',
      period: 'day',
      metric_type: 'total_value',
      since: String(since),
      until: String(D0),
    });
    expectOk(reply);
    let sum = 0;
    for (let end = since + DAYS; end <= D0; end += DAYS) sum += await storedValue('reach', end);
    expect(reply.body.data).toEqual([{ ...base('reach', 'day', REACH), total_value: { value: sum } }]);
  });

  it('describes demographics over a timeframe, with neither previous nor next', async () => {
    const reply = await getOwn(`/${bluebottle}/insights`, {
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
    const first = await own.request(
      'GET',
      withQuery(`/v25.0/${bluebottle}/insights`, { metric: 'reach', period: 'day', access_token: token }),
    );
    expectOk(first);
    const window = (since: number, until: number) =>
      link(system.restUrl, `/v25.0/${bluebottle}/insights`, [
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
    const ahead = await getOwn(`/${bluebottle}/insights`, {
      metric: 'reach',
      period: 'day',
      since: String(T0S - DAYS),
      until: String(T0S + DAYS),
    });
    expectOk(ahead);
    expect(ahead.body.data[0].values).toEqual(await dayValues('reach', [D0]));
    expect(ahead.body.paging).toEqual({
      previous: link(system.restUrl, `/${bluebottle}/insights`, [
        ['metric', 'reach'],
        ['period', 'day'],
        ['since', String(T0S - 3 * DAYS)],
        ['until', String(T0S - DAYS)],
      ]),
    });
  });

  it('has no previous once the window before would start more than two years back', async () => {
    const since = T0S - 730 * DAYS;
    const reply = await getOwn(`/${bluebottle}/insights`, {
      metric: 'reach',
      period: 'day',
      since: String(since),
      until: String(since + DAYS),
    });
    expectOk(reply);
    expect(reply.body).toEqual({
      data: [{ ...base('reach', 'day', REACH), values: [] }],
      paging: {
        next: link(system.restUrl, `/${bluebottle}/insights`, [
          ['metric', 'reach'],
          ['period', 'day'],
          ['since', String(since + DAYS)],
          ['until', String(since + 2 * DAYS)],
        ]),
      },
    });
  });

  it.each<[string, Record<string, string>, ExpectedGraphError]>([
    ['metric missing', { period: 'day' }, missingParameter('metric')],
    ['period missing', { metric: 'reach' }, missingParameter('period')],
    [
      'a retired metric',
      { metric: 'impressions', period: 'day' },
      invalidParameter(
        'Starting from version 22 and above, the impressions metric is no longer supported for the queried user. Please refer to the documentation for a list of supported metrics.',
      ),
    ],
    [
      'an unknown metric',
      { metric: 'reach,nope', period: 'day' },
      invalidParameter(`(#100) metric[1] must be one of the following values: ${ALL_METRICS}`),
    ],
    [
      'an unknown period',
      { metric: 'reach', period: 'month' },
      invalidParameter('(#100) period must be one of the following values: day, week, days_28, lifetime'),
    ],
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
    expectGraphError(await getOwn(`/${bluebottle}/insights`, params), expected);
    expectGraphError(await getParent(`/${bluebottle}/insights`, params), expected);
  });

  it('is read-only: POST is an unsupported operation', async () => {
    expectGraphError(await postOwn(`/${bluebottle}/insights`, { metric: 'reach', period: 'day' }), unsupported('post', bluebottle));
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
      const reply = await gql(QUERY, { id: bluebottle, metric: ['reach'], period: 'day' });
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
        id: bluebottle,
        metric: ['reach'],
        period: 'day',
        metricType: 'total_value',
        since: String(D0 - 2 * DAYS),
        until: String(D0 - DAYS),
      });
      expect(total.errors).toBeUndefined();
      expect(total.data.account.insights).toEqual({
        data: [
          { ...base('reach', 'day', REACH), values: null, totalValue: { value: await storedValue('reach', D0 - DAYS), breakdowns: null } },
        ],
        window: { since: D0 - 2 * DAYS, until: D0 - DAYS, hasPrevious: true, hasNext: true },
      });
    });

    it('reports a bad parameter with extensions.code and extensions.reason', async () => {
      const missing = await gql(QUERY, { id: bluebottle, metric: ['reach'] });
      expect(missing.errors).toEqual([gqlMissingParameter(['account', 'insights'], 'period')]);
      expect(missing.data).toEqual({ account: null });
      const wrong = await gql(QUERY, { id: bluebottle, metric: ['likes'], period: 'day' });
      expect(wrong.errors).toEqual([
        gqlInvalidParameter(
          ['account', 'insights'],
          'metric_type',
          '(#100) The following metrics (likes) should be specified with parameter metric_type=total_value',
        ),
      ]);
    });

    it('needs social_business_manage_insights (own login) and social_manage_insights (parent platform)', async () => {
      const ownReply = await gql(
        QUERY,
        { id: bluebottle, metric: ['reach'], period: 'day' },
        await tokenFor('own', bluebottle, ['social_business_basic']),
      );
      expect(ownReply.errors).toEqual([gqlMissingPermission(['account', 'insights'], 'social_business_manage_insights')]);
      const parentReply = await gql(
        QUERY,
        { id: bluebottle, metric: ['reach'], period: 'day' },
        await tokenFor(
          'parent',
          fixture.platformUsers.ana,
          PARENT_ALL.filter((p) => p !== 'social_manage_insights'),
        ),
      );
      expect(parentReply.errors).toEqual([gqlMissingPermission(['account', 'insights'], 'social_manage_insights')]);
    });
  });
});

// =====================================================================================================================
// content_publishing_limit (clock: T0, nothing published yet)

describe('GET /{account_id}/content_publishing_limit', () => {
  it('answers quota_usage alone by default, on both hosts and under /me', async () => {
    for (const reply of [
      await getOwn(`/v25.0/${bluebottle}/content_publishing_limit`),
      await getOwn('/me/content_publishing_limit'),
      await getParent(`/${bluebottle}/content_publishing_limit`),
    ]) {
      expectOk(reply);
      expect(reply.body).toEqual({ data: [{ quota_usage: 0 }] });
    }
  });

  it('adds config with fields=quota_usage,config (the configured quota per 86400 s), and gives config alone when asked', async () => {
    const both = await getOwn(`/${bluebottle}/content_publishing_limit`, { fields: 'quota_usage,config' });
    expectOk(both);
    expect(both.body).toEqual({ data: [{ quota_usage: 0, config: { quota_total: QUOTA, quota_duration: 86400 } }] });
    const config = await getParent(`/${bluebottle}/content_publishing_limit`, { fields: 'config' });
    expectOk(config);
    expect(config.body).toEqual({ data: [{ config: { quota_total: QUOTA, quota_duration: 86400 } }] });
  });

  it('accepts a since within the last 24 hours', async () => {
    const reply = await getOwn(`/${bluebottle}/content_publishing_limit`, { since: String(T0S - 86_400) });
    expectOk(reply);
    expect(reply.body).toEqual({ data: [{ quota_usage: 0 }] });
  });

  it.each([
    ['more than 24 hours back', String(T0S - 86_401)],
    ['in the future', String(T0S + 60)],
    ['unreadable', 'a while ago'],
  ])('refuses a since %s', async (_name, since) => {
    const expected = invalidParameter('The parameter since must be a unix timestamp within the last 24 hours.');
    expectGraphError(await getOwn(`/${bluebottle}/content_publishing_limit`, { since }), expected);
    expectGraphError(await getParent(`/${bluebottle}/content_publishing_limit`, { since }), expected);
  });

  it('refuses an unknown field', async () => {
    expectGraphError(
      await getOwn(`/${bluebottle}/content_publishing_limit`, { fields: 'quota_usage,quota_left' }),
      unknownField('quota_left', 'ContentPublishingLimit'),
    );
  });

  it('is read-only: POST is an unsupported operation', async () => {
    expectGraphError(await postOwn(`/${bluebottle}/content_publishing_limit`, {}), unsupported('post', bluebottle));
  });

  it('answers over GraphQL, and refuses a since more than 24 hours back with extensions', async () => {
    const QUERY = `query Limit($id: ID!, $since: String) { account(id: $id) { contentPublishingLimit(since: $since) { quotaUsage config { quotaTotal quotaDuration } } } }`;
    const reply = await gql(QUERY, { id: bluebottle });
    expect(reply.errors).toBeUndefined();
    expect(reply.data).toEqual({
      account: { contentPublishingLimit: { quotaUsage: 0, config: { quotaTotal: QUOTA, quotaDuration: 86400 } } },
    });
    const old = await gql(QUERY, { id: bluebottle, since: String(T0S - 2 * DAYS) });
    expect(old.errors).toEqual([
      gqlInvalidParameter(
        ['account', 'contentPublishingLimit'],
        'since',
        'The parameter since must be a unix timestamp within the last 24 hours.',
      ),
    ]);
  });
});
