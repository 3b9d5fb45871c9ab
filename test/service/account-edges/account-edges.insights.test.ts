import { beforeAll, describe, expect, it } from 'vitest';
import { upsertInsightValues } from '../../../subgraphs/accounts/account-edges.repository.ts';
import type { AccountEdgesService } from '../../../subgraphs/accounts/account-edges/account-edges.types.ts';
import { seedDemoEdges } from '../../../subgraphs/accounts/demo/seed-demo-edges.ts';
import { ACCOUNT_METRICS } from '../../../subgraphs/accounts/insights-catalogue.ts';
import type { StoredBreakdown } from '../../../subgraphs/shared/social-graph/social-tables.ts';
import {
  DAY,
  T0,
  T0_SECONDS,
  MIDNIGHT,
  db,
  clock,
  setClock,
  codec,
  service,
  newAccount,
  expectMissing,
  expectInvalid,
  expectUnknown,
  missingId,
  useAccountEdgesDatabase,
} from '../../support/account-edges-service-world.ts';

/** The account edges' service against a real database (test/support/account-edges-service-world.ts): insights, and the demo data. */

useAccountEdgesDatabase();

describe('insights', () => {
  let account: string;
  /** Day d = 1 is the last complete day (ending at MIDNIGHT), d = 2 the one before, … */
  const end = (d: number) => MIDNIGHT - (d - 1) * 86_400;
  const reach = (d: number) => 1000 + d;
  const likes = (d: number) => 10 * d;

  beforeAll(async () => {
    setClock(T0);
    account = await newAccount('insights_account');
    const rows: { account_id: string; metric: string; end_time: Date; value: number; breakdown: StoredBreakdown | null }[] = [];
    for (let d = 1; d <= 40; d += 1) {
      const at = new Date(end(d) * 1000);
      rows.push({
        account_id: account,
        metric: 'reach',
        end_time: at,
        value: reach(d),
        breakdown: { media_product_type: { FEED: 600 + d, REELS: 400 } },
      });
      rows.push({
        account_id: account,
        metric: 'likes',
        end_time: at,
        value: likes(d),
        breakdown: { media_product_type: { FEED: 6 * d, REELS: 4 * d } },
      });
      rows.push({ account_id: account, metric: 'follower_count', end_time: at, value: 5, breakdown: null });
      rows.push({
        account_id: account,
        metric: 'engaged_audience_demographics',
        end_time: at,
        value: 3,
        breakdown: { country: { US: 2, BR: 1 } },
      });
    }
    rows.push({
      account_id: account,
      metric: 'online_followers',
      end_time: new Date(end(1) * 1000),
      value: 9,
      breakdown: { hour: { '0': 1, '13': 9 } },
    });
    rows.push({
      account_id: account,
      metric: 'follower_demographics',
      end_time: new Date(end(2) * 1000),
      value: 90,
      breakdown: { country: { US: 40, BR: 50 } },
    });
    rows.push({
      account_id: account,
      metric: 'follower_demographics',
      end_time: new Date(end(1) * 1000),
      value: 100,
      breakdown: { country: { US: 50, BR: 30, IN: 20 }, age: { '18-24': 60, '25-34': 40 } },
    });
    await upsertInsightValues(db, rows);
  });

  const REACH = {
    name: 'reach',
    title: 'Accounts reached',
    description:
      'The number of unique accounts that have seen your content, at least once, including in ads. Content includes posts, stories, reels, videos and live videos. Reach is different from impressions, which may include multiple views of your content by the same accounts. This metric is estimated.',
  };

  it('serves the last two days as a daily series by default', async () => {
    setClock(T0);
    const result = await service.insights(account, { metric: 'reach', period: 'day' });
    expect(result).toEqual({
      data: [
        {
          ...REACH,
          period: 'day',
          id: `${account}/insights/reach/day`,
          values: [
            { value: reach(2), endTime: new Date(end(2) * 1000) },
            { value: reach(1), endTime: new Date(end(1) * 1000) },
          ],
        },
      ],
      window: { since: T0_SECONDS - 2 * 86_400, until: T0_SECONDS, hasPrevious: true, hasNext: false },
    });
  });

  it('moves window by window without gaps or repeats, and stops at now', async () => {
    setClock(T0);
    const since = end(12);
    const span = 3 * 86_400;
    let result = await service.insights(account, { metric: ['reach'], period: 'day', since: String(since), until: String(since + span) });
    const seen: number[] = [];
    let windows = 0;
    for (;;) {
      windows += 1;
      seen.push(...result.data[0]!.values!.map((value) => value.value as number));
      if (!result.window.hasNext) break;
      result = await service.insights(account, {
        metric: 'reach',
        period: 'day',
        since: result.window.since + span,
        until: result.window.until + span,
      });
    }
    expect(windows).toBe(4);
    expect(seen).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1].map(reach));
    expect(result.window).toEqual({ since: since + 3 * span, until: since + 4 * span, hasPrevious: true, hasNext: false });
  });

  it('sums rolling weeks and 28-day periods, and skips days without data', async () => {
    setClock(T0);
    const window = { since: end(3), until: end(1) };
    const week = await service.insights(account, { metric: 'reach', period: 'week', ...window });
    const sum = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => reach(from + i)).reduce((a, b) => a + b, 0);
    expect(week.data[0]!.values).toEqual([
      { value: sum(2, 8), endTime: new Date(end(2) * 1000) },
      { value: sum(1, 7), endTime: new Date(end(1) * 1000) },
    ]);
    expect(week.data[0]!.id).toBe(`${account}/insights/reach/week`);
    const month = await service.insights(account, { metric: 'reach', period: 'days_28', since: end(2), until: end(1) });
    expect(month.data[0]!.values).toEqual([{ value: sum(1, 28), endTime: new Date(end(1) * 1000) }]);
    // 40 days of data: a 28-day value on day 20 only has days 20..40 plus nothing older.
    const partial = await service.insights(account, { metric: 'reach', period: 'days_28', since: end(21), until: end(20) });
    expect(partial.data[0]!.values).toEqual([{ value: sum(20, 40), endTime: new Date(end(20) * 1000) }]);
    const empty = await service.insights(account, { metric: 'reach,follower_count', period: 'day', since: end(60), until: end(50) });
    expect(empty.data.map((metric) => [metric.name, metric.values])).toEqual([
      ['reach', []],
      ['follower_count', []],
    ]);
  });

  it('totals a window, with a breakdown on request, and a day by default', async () => {
    setClock(T0);
    const total = await service.insights(account, {
      metric: 'likes',
      period: 'day',
      metricType: 'total_value',
      since: end(4),
      until: end(1),
    });
    expect(total.data).toEqual([
      {
        name: 'likes',
        period: 'day',
        title: 'Likes',
        description: 'The number of likes on your posts, reels and videos.',
        id: `${account}/insights/likes/day`,
        totalValue: { value: likes(1) + likes(2) + likes(3) },
      },
    ]);
    const split = await service.insights(account, {
      metric: 'likes,reach',
      period: 'day',
      metricType: 'total_value',
      breakdown: 'media_product_type',
      since: end(4),
      until: end(1),
    });
    expect(split.data.map((metric) => metric.totalValue)).toEqual([
      {
        value: 60,
        breakdowns: [
          {
            dimensionKeys: ['media_product_type'],
            results: [
              { dimensionValues: ['FEED'], value: 36 },
              { dimensionValues: ['REELS'], value: 24 },
            ],
          },
        ],
      },
      {
        value: reach(1) + reach(2) + reach(3),
        breakdowns: [
          {
            dimensionKeys: ['media_product_type'],
            results: [
              { dimensionValues: ['FEED'], value: 1806 },
              { dimensionValues: ['REELS'], value: 1200 },
            ],
          },
        ],
      },
    ]);
    const lastDay = await service.insights(account, { metric: 'likes', period: 'day', metricType: 'total_value' });
    expect(lastDay.data[0]!.totalValue).toEqual({ value: likes(1) });
    expect(lastDay.window).toEqual({ since: T0_SECONDS - 86_400, until: T0_SECONDS, hasPrevious: true, hasNext: false });
    const nothing = await service.insights(account, {
      metric: 'likes',
      period: 'day',
      metricType: 'total_value',
      since: end(60),
      until: end(59),
    });
    expect(nothing.data[0]!.totalValue).toEqual({ value: 0 });
  });

  it('serves hourly online followers and demographics over a timeframe', async () => {
    setClock(T0);
    const online = await service.insights(account, { metric: 'online_followers', period: 'lifetime' });
    const hours = Object.fromEntries(Array.from({ length: 24 }, (_, hour) => [String(hour), hour === 0 ? 1 : hour === 13 ? 9 : 0]));
    expect(online.data[0]).toMatchObject({
      name: 'online_followers',
      period: 'lifetime',
      values: [{ value: hours, endTime: new Date(end(1) * 1000) }],
    });

    const followers = await service.insights(account, {
      metric: 'follower_demographics',
      period: 'lifetime',
      metricType: 'total_value',
      breakdown: 'country',
      timeframe: 'this_month',
      since: 'garbage is ignored',
    });
    expect(followers.data[0]!.totalValue).toEqual({
      value: 100,
      breakdowns: [
        {
          dimensionKeys: ['country'],
          results: [
            { dimensionValues: ['US'], value: 50 },
            { dimensionValues: ['BR'], value: 30 },
            { dimensionValues: ['IN'], value: 20 },
          ],
        },
      ],
    });
    expect(followers.window).toEqual({ since: T0_SECONDS - 30 * 86_400, until: T0_SECONDS, hasPrevious: false, hasNext: false });
    const engaged = await service.insights(account, {
      metric: 'engaged_audience_demographics',
      period: 'lifetime',
      metricType: 'total_value',
      breakdown: 'country',
      timeframe: 'this_week',
    });
    expect(engaged.data[0]!.totalValue).toEqual({
      value: 21,
      breakdowns: [
        {
          dimensionKeys: ['country'],
          results: [
            { dimensionValues: ['US'], value: 14 },
            { dimensionValues: ['BR'], value: 7 },
          ],
        },
      ],
    });
  });

  it('accepts strtotime times and repeated metrics', async () => {
    setClock(T0);
    const result = await service.insights(account, {
      metric: 'follower_count, reach,follower_count',
      period: 'day',
      since: '-3 days',
      until: 'now',
    });
    expect(result.data.map((metric) => [metric.name, metric.values!.length])).toEqual([
      ['follower_count', 3],
      ['reach', 3],
    ]);
    expect(result.window).toEqual({ since: T0_SECONDS - 3 * 86_400, until: T0_SECONDS, hasPrevious: true, hasNext: false });
  });

  it('refuses each broken rule in the platform wording', async () => {
    setClock(T0);
    const ask = (params: Parameters<AccountEdgesService['insights']>[1]) => service.insights(account, params);
    await expectMissing(ask({ period: 'day' }), 'metric');
    await expectMissing(ask({ metric: ' , ', period: 'day' }), 'metric');
    await expectMissing(ask({ metric: 'reach' }), 'period');
    await expectInvalid(
      ask({ metric: 'reach,reachh', period: 'day' }),
      'metric',
      '(#100) metric[1] must be one of the following values: reach, follower_count, website_clicks, profile_views, online_followers, accounts_engaged, total_interactions, likes, comments, shares, saves, replies, engaged_audience_demographics, follower_demographics, follows_and_unfollows, profile_links_taps, views, reposts',
    );
    await expectInvalid(
      ask({ metric: 'impressions', period: 'day' }),
      'metric',
      'Starting from version 22 and above, the impressions metric is no longer supported for the queried user. Please refer to the documentation for a list of supported metrics.',
    );
    await expectInvalid(
      ask({ metric: 'reach', period: 'month' }),
      'period',
      '(#100) period must be one of the following values: day, week, days_28, lifetime',
    );
    await expectInvalid(
      ask({ metric: 'reach', period: 'day', metricType: 'sum' }),
      'metric_type',
      '(#100) metric_type must be one of the following values: time_series, total_value',
    );
    await expectInvalid(
      ask({ metric: 'reach,follower_count', period: 'week' }),
      'period',
      '(#100) The following metrics (follower_count) do not support period=week',
    );
    await expectInvalid(
      ask({ metric: 'reach,likes,saves', period: 'day' }),
      'metric_type',
      '(#100) The following metrics (likes, saves) should be specified with parameter metric_type=total_value',
    );
    await expectInvalid(
      ask({ metric: 'follower_count', period: 'day', metricType: 'total_value' }),
      'metric_type',
      '(#100) The following metrics (follower_count) should be specified with parameter metric_type=time_series',
    );
    await expectInvalid(
      ask({ metric: 'likes', period: 'day', metricType: 'total_value', breakdown: 'colour' }),
      'breakdown',
      '(#100) breakdown[0] must be one of the following values: media_product_type, follow_type, follower_type, contact_button_type, age, gender, country, city',
    );
    await expectInvalid(
      ask({ metric: 'reach', period: 'day', metricType: 'total_value', breakdown: ['media_product_type', 'follow_type'] }),
      'breakdown',
      'Only one breakdown can be requested at a time.',
    );
    await expectInvalid(
      ask({ metric: 'reach', period: 'day', breakdown: 'media_product_type' }),
      'breakdown',
      '(#100) breakdown is only supported with metric_type=total_value',
    );
    await expectInvalid(
      ask({ metric: 'likes,replies', period: 'day', metricType: 'total_value', breakdown: 'media_product_type' }),
      'breakdown',
      '(#100) The following metrics (replies) do not support breakdown=media_product_type',
    );
    const demographics = { metric: 'follower_demographics', period: 'lifetime', metricType: 'total_value' };
    await expectMissing(ask({ ...demographics, timeframe: 'this_week' }), 'breakdown');
    await expectMissing(ask({ ...demographics, breakdown: 'age' }), 'timeframe');
    await expectInvalid(
      ask({ ...demographics, breakdown: 'age', timeframe: 'last_30_days' }),
      'timeframe',
      '(#100) timeframe must be one of the following values: this_week, this_month',
    );

    await expectInvalid(
      ask({ metric: 'reach', period: 'day', since: end(1), until: end(1) }),
      'since',
      '(#100) The parameter since must be earlier than until',
    );
    await expectInvalid(
      ask({ metric: 'reach', period: 'day', since: end(1), until: end(2) }),
      'since',
      '(#100) The parameter since must be earlier than until',
    );
    await expectInvalid(
      ask({ metric: 'reach', period: 'day', since: end(40), until: end(40) + 30 * 86_400 + 1 }),
      'since',
      '(#100) There cannot be more than 30 days (2592000 s) between since and until',
    );
    expect((await ask({ metric: 'reach', period: 'day', since: end(31), until: end(1) })).data[0]!.values).toHaveLength(30);
    await expectInvalid(
      ask({ metric: 'reach', period: 'day', since: '-40 days' }),
      'since',
      '(#100) There cannot be more than 30 days (2592000 s) between since and until',
    );
    await expectInvalid(
      ask({ metric: 'reach', period: 'day', since: T0_SECONDS - 731 * 86_400, until: T0_SECONDS - 730 * 86_400 }),
      'since',
      '(#100) since param is not valid. Metrics data is available for the last 2 years.',
    );
    await expectInvalid(
      ask({ metric: 'reach', period: 'day', since: 'whenever' }),
      'since',
      '(#100) The parameter since must be a unix timestamp or a strtotime-style time',
    );
    await expectInvalid(
      ask({ metric: 'reach', period: 'day', until: 'garbage' }),
      'until',
      '(#100) The parameter until must be a unix timestamp or a strtotime-style time',
    );
    await expectUnknown(service.insights('0', { metric: 'reach', period: 'day' }), '0', 'get');
  });

  it('offers no previous window past the two years of data', async () => {
    setClock(T0);
    const since = T0_SECONDS - 729 * 86_400;
    const early = await service.insights(account, { metric: 'reach', period: 'day', since, until: since + 2 * 86_400 });
    expect(early.window).toEqual({ since, until: since + 2 * 86_400, hasPrevious: false, hasNext: true });
    const later = await service.insights(account, { metric: 'reach', period: 'day', since: since + 86_400, until: since + 2 * 86_400 });
    expect(later.window.hasPrevious).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------------------------------

describe('demo data', () => {
  it('fills every edge deterministically, and a second run changes nothing', async () => {
    setClock(T0);
    const demo = await newAccount('demo_account');
    const first = await seedDemoEdges({ db, codec, now: clock }, demo);
    expect(first.eventIds).toHaveLength(3);
    expect(first.hashtags.map((tag) => tag.name)).toEqual(['coffee', 'latteart', 'specialtycoffee', 'baristalife', 'pourover']);
    expect(first.agencyIds).toHaveLength(2);
    expect(first.adAccountIds).toHaveLength(4);
    expect(first.authorizedAdAccountIds).toEqual([first.adAccountIds[0], first.adAccountIds[2]]);
    expect(first.insightDays).toBe(35);

    const events = await service.listUpcomingEvents(demo, {});
    expect(events.items.map((event) => [event.title, event.startTime])).toEqual([
      ['Spring collection live launch', new Date(T0.getTime() + 2 * DAY)],
      ['Behind the scenes Q&A', new Date(T0.getTime() + 5 * DAY)],
      ['Studio open day', new Date(T0.getTime() + 12 * DAY)],
    ]);
    expect((await service.recentlySearchedHashtags(demo)).map((tag) => tag.name)).toEqual([
      'coffee',
      'latteart',
      'specialtycoffee',
      'baristalife',
      'pourover',
    ]);
    expect((await service.agencies(demo, {})).items.map((business) => business.name)).toEqual([
      'Northwind Creative Agency',
      'Blue Harbor Media',
    ]);
    expect((await service.authorizedAdAccounts(demo, undefined, {})).items.map((ad) => [ad.id, ad.name, ad.currency])).toEqual([
      [first.adAccountIds[0], 'Northwind Creative Agency — Main', 'USD'],
      [first.adAccountIds[2], 'Blue Harbor Media — Main', 'EUR'],
    ]);

    const stored = () =>
      db
        .selectFrom('social.insight_value')
        .select(['metric', 'end_time', 'value', 'breakdown'])
        .where('account_id', '=', demo)
        .orderBy('metric')
        .orderBy('end_time')
        .execute();
    const rows = await stored();
    expect(rows).toHaveLength(35 * ACCOUNT_METRICS.length);
    expect(rows.filter((row) => row.metric === 'reach').map((row) => row.end_time.getTime() / 1000)).toEqual(
      Array.from({ length: 35 }, (_, i) => MIDNIGHT - (34 - i) * 86_400),
    );
    for (const row of rows.filter((row) => row.breakdown !== null && row.metric !== 'online_followers')) {
      for (const parts of Object.values(row.breakdown!)) {
        expect(Object.values(parts).reduce((a, b) => a + b, 0)).toBe(Number(row.value));
      }
    }
    const online = rows.find((row) => row.metric === 'online_followers')!;
    expect(Object.keys(online.breakdown!.hour!)).toHaveLength(24);
    const totals = await service.insights(demo, {
      metric: 'views',
      period: 'day',
      metricType: 'total_value',
      breakdown: 'media_product_type',
      since: '-7 days',
    });
    expect(totals.data[0]!.totalValue!.value).toBeGreaterThan(0);

    const searches = () =>
      db
        .selectFrom('social.hashtag_search')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('account_id', '=', demo)
        .executeTakeFirstOrThrow();
    const searchCount = (await searches()).n;
    setClock(new Date(T0.getTime() + 60_000));
    const second = await seedDemoEdges({ db, codec, now: clock }, demo);
    expect(second.eventIds).toEqual(first.eventIds);
    expect(second.agencyIds).toEqual(first.agencyIds);
    expect(second.adAccountIds).toEqual(first.adAccountIds);
    expect(second.hashtags).toEqual(first.hashtags);
    expect((await searches()).n).toBe(searchCount);
    expect(await stored()).toEqual(rows);
    expect((await service.authorizedAdAccounts(demo, undefined, {})).items).toHaveLength(2);

    // Another account gets values of its own.
    const another = await newAccount('demo_other');
    await seedDemoEdges({ db, codec, now: clock }, another, { insightDays: 2 });
    const theirs = await db
      .selectFrom('social.insight_value')
      .select('value')
      .where('account_id', '=', another)
      .where('metric', '=', 'reach')
      .orderBy('end_time')
      .execute();
    expect(theirs).toHaveLength(2);
    expect(theirs.map((row) => row.value)).not.toEqual(
      rows
        .filter((row) => row.metric === 'reach')
        .slice(-2)
        .map((row) => row.value),
    );
    await expectUnknown(seedDemoEdges({ db, codec, now: clock }, missingId('account')), missingId('account'), 'post');
  });
});
