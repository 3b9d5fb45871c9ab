/**
 * The account metrics of the insights edge (`GET /<account>/insights`, reference §2.2): what each one is called and means,
 * which periods, metric types and breakdowns it accepts, and how its stored daily values add up over a range.
 *
 * Sources: the platform's account-insights reference (metric names, titles, the period / metric_type / breakdown of each
 * metric, the breakdown values) and its published enum of metrics. Two deliberate simplifications, both because values
 * here come from stored daily numbers rather than from a real audience:
 * - `reach` over `week` / `days_28` is the sum of the daily values (the platform counts unique accounts);
 * - demographics keep one breakdown per request (the platform accepts `breakdown=age,gender`).
 */

export const INSIGHT_PERIODS = ['day', 'week', 'days_28', 'lifetime'] as const;
export type InsightPeriod = (typeof INSIGHT_PERIODS)[number];

export const METRIC_TYPES = ['time_series', 'total_value'] as const;
export type MetricType = (typeof METRIC_TYPES)[number];

export const DEMOGRAPHIC_TIMEFRAMES = ['this_week', 'this_month'] as const;
export type DemographicTimeframe = (typeof DEMOGRAPHIC_TIMEFRAMES)[number];

/** Days a timeframe looks back (`this_week`: the last 7 days, `this_month`: the last 30). */
export const TIMEFRAME_DAYS: Readonly<Record<DemographicTimeframe, number>> = { this_week: 7, this_month: 30 };

/** Days one value of a period covers: a `week` value on day D sums D-6 … D. `lifetime` values are daily snapshots. */
export const PERIOD_DAYS: Readonly<Record<InsightPeriod, number>> = { day: 1, week: 7, days_28: 28, lifetime: 1 };

/** The values each breakdown dimension takes (what the demo data uses, and what the platform documents). */
export const BREAKDOWN_VALUES = {
  media_product_type: ['AD', 'FEED', 'REELS', 'STORY'],
  follow_type: ['FOLLOWER', 'NON_FOLLOWER', 'UNKNOWN'],
  follower_type: ['FOLLOWER', 'NON_FOLLOWER', 'UNKNOWN'],
  contact_button_type: ['BOOK_NOW', 'CALL', 'DIRECTION', 'EMAIL', 'INSTANT_EXPERIENCE', 'TEXT', 'UNDEFINED'],
  age: ['13-17', '18-24', '25-34', '35-44', '45-54', '55-64', '65+'],
  gender: ['F', 'M', 'U'],
  country: ['US', 'BR', 'IN', 'GB', 'DE', 'FR', 'JP', 'MX', 'CA', 'ES'],
  city: [
    'London, England',
    'New York, New York',
    'São Paulo, São Paulo (state)',
    'Mumbai, Maharashtra',
    'Berlin, Berlin',
    'Paris, Île-de-France',
    'Tokyo, Tokyo',
    'Toronto, Ontario',
  ],
} as const;
export type BreakdownDimension = keyof typeof BREAKDOWN_VALUES;
export const BREAKDOWN_DIMENSIONS = Object.keys(BREAKDOWN_VALUES) as BreakdownDimension[];

export interface InsightMetricDefinition {
  name: string;
  title: string;
  description: string;
  periods: readonly InsightPeriod[];
  metricTypes: readonly MetricType[];
  breakdowns: readonly BreakdownDimension[];
  /**
   * How stored daily values combine over a range: `sum` adds them (counts of things that happened each day); `latest`
   * takes the most recent day (snapshots: a follower breakdown, the hourly online-follower profile).
   */
  aggregation: 'sum' | 'latest';
  /** Demographic metrics: need `timeframe` and a breakdown, and ignore since/until. */
  demographic?: boolean;
  /** Values are maps (hour of day → count) rather than numbers: online_followers. */
  hourly?: boolean;
}

const DAY: readonly InsightPeriod[] = ['day'];
const TOTAL: readonly MetricType[] = ['total_value'];
const DEMOGRAPHIC_BREAKDOWNS: readonly BreakdownDimension[] = ['age', 'city', 'country', 'gender'];

/** The current account metrics, in the order of the platform's enum (which is the order its error message lists them). */
export const ACCOUNT_METRICS: readonly InsightMetricDefinition[] = [
  {
    name: 'reach',
    title: 'Accounts reached',
    description:
      'The number of unique accounts that have seen your content, at least once, including in ads. Content includes posts, stories, reels, videos and live videos. Reach is different from impressions, which may include multiple views of your content by the same accounts. This metric is estimated.',
    periods: ['day', 'week', 'days_28'],
    metricTypes: ['time_series', 'total_value'],
    breakdowns: ['media_product_type', 'follow_type'],
    aggregation: 'sum',
  },
  {
    name: 'follower_count',
    title: 'Follower count',
    description: 'The number of accounts that followed you each day.',
    periods: DAY,
    metricTypes: ['time_series'],
    breakdowns: [],
    aggregation: 'sum',
  },
  {
    name: 'website_clicks',
    title: 'Website clicks',
    description: "The number of times that the link in your account's bio was tapped.",
    periods: DAY,
    metricTypes: ['time_series', 'total_value'],
    breakdowns: [],
    aggregation: 'sum',
  },
  {
    name: 'profile_views',
    title: 'Profile views',
    description: 'The number of times that your profile was visited.',
    periods: DAY,
    metricTypes: ['time_series', 'total_value'],
    breakdowns: [],
    aggregation: 'sum',
  },
  {
    name: 'online_followers',
    title: 'Online followers',
    description: 'The number of your followers who were online during each hour of the day (0–23, UTC).',
    periods: ['lifetime'],
    metricTypes: ['time_series'],
    breakdowns: [],
    aggregation: 'latest',
    hourly: true,
  },
  {
    name: 'accounts_engaged',
    title: 'Accounts engaged',
    description:
      'The number of accounts that have interacted with your content, including in ads. Content includes posts, stories, reels, videos and live videos. Interactions can include actions such as likes, saves, comments, shares or replies. This metric is estimated.',
    periods: DAY,
    metricTypes: TOTAL,
    breakdowns: [],
    aggregation: 'sum',
  },
  {
    name: 'total_interactions',
    title: 'Content interactions',
    description:
      'The total number of post interactions, story interactions, reels interactions, video interactions and live video interactions, including any interactions on boosted content.',
    periods: DAY,
    metricTypes: TOTAL,
    breakdowns: ['media_product_type'],
    aggregation: 'sum',
  },
  {
    name: 'likes',
    title: 'Likes',
    description: 'The number of likes on your posts, reels and videos.',
    periods: DAY,
    metricTypes: TOTAL,
    breakdowns: ['media_product_type'],
    aggregation: 'sum',
  },
  {
    name: 'comments',
    title: 'Comments',
    description: 'The number of comments on your posts, reels, videos and live videos.',
    periods: DAY,
    metricTypes: TOTAL,
    breakdowns: ['media_product_type'],
    aggregation: 'sum',
  },
  {
    name: 'shares',
    title: 'Shares',
    description: 'The number of shares of your posts, stories, reels, videos and live videos.',
    periods: DAY,
    metricTypes: TOTAL,
    breakdowns: ['media_product_type'],
    aggregation: 'sum',
  },
  {
    name: 'saves',
    title: 'Saves',
    description: 'The number of saves of your posts, reels and videos.',
    periods: DAY,
    metricTypes: TOTAL,
    breakdowns: ['media_product_type'],
    aggregation: 'sum',
  },
  {
    name: 'replies',
    title: 'Replies',
    description: 'The number of replies that you received from your story, including text replies and quick reaction replies.',
    periods: DAY,
    metricTypes: TOTAL,
    breakdowns: [],
    aggregation: 'sum',
  },
  {
    name: 'engaged_audience_demographics',
    title: 'Engaged audience demographics',
    description: 'The demographic characteristics of the engaged audience, including countries, cities and gender distribution.',
    periods: ['lifetime'],
    metricTypes: TOTAL,
    breakdowns: DEMOGRAPHIC_BREAKDOWNS,
    aggregation: 'sum',
    demographic: true,
  },
  {
    name: 'follower_demographics',
    title: 'Follower demographics',
    description: 'The demographic characteristics of followers, including countries, cities and gender distribution.',
    periods: ['lifetime'],
    metricTypes: TOTAL,
    breakdowns: DEMOGRAPHIC_BREAKDOWNS,
    aggregation: 'latest',
    demographic: true,
  },
  {
    name: 'follows_and_unfollows',
    title: 'Follows and unfollows',
    description:
      'The number of accounts that followed you and the number of accounts that unfollowed you or left the platform in the selected time period.',
    periods: DAY,
    metricTypes: TOTAL,
    breakdowns: ['follow_type'],
    aggregation: 'sum',
  },
  {
    name: 'profile_links_taps',
    title: 'Profile links taps',
    description: 'The number of taps on your business address, call button, email button and text button.',
    periods: DAY,
    metricTypes: TOTAL,
    breakdowns: ['contact_button_type'],
    aggregation: 'sum',
  },
  {
    name: 'views',
    title: 'Views',
    description: 'The number of times your content was played or displayed. Content includes reels, posts, stories.',
    periods: DAY,
    metricTypes: TOTAL,
    breakdowns: ['follower_type', 'media_product_type'],
    aggregation: 'sum',
  },
  {
    name: 'reposts',
    title: 'Reposts',
    description: 'The number of times your content was reposted.',
    periods: DAY,
    metricTypes: TOTAL,
    breakdowns: [],
    aggregation: 'sum',
  },
];

const BY_NAME = new Map(ACCOUNT_METRICS.map((metric) => [metric.name, metric]));

/** The definition of a current metric, or undefined. */
export function findAccountMetric(name: string): InsightMetricDefinition | undefined {
  return BY_NAME.get(name);
}

/**
 * Metrics the platform retired, with the version that retired them: asking for one is refused with the platform's own
 * retirement message rather than the generic "must be one of" list.
 */
export const RETIRED_ACCOUNT_METRICS: ReadonlyMap<string, number> = new Map([['impressions', 22]]);
