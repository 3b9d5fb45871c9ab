import { toUnixSeconds } from '../../../lib/social-graph/graph-time.ts';
import { socialErrors } from '../../shared/social-graph/social-errors.ts';
import type { StoredBreakdown } from '../../shared/social-graph/social-tables.ts';
import { listInsightValues, type InsightRow } from '../account-edges.repository.ts';
import {
  ACCOUNT_METRICS,
  BREAKDOWN_DIMENSIONS,
  DEMOGRAPHIC_TIMEFRAMES,
  findAccountMetric,
  INSIGHT_PERIODS,
  METRIC_TYPES,
  PERIOD_DAYS,
  RETIRED_ACCOUNT_METRICS,
  TIMEFRAME_DAYS,
  type BreakdownDimension,
  type DemographicTimeframe,
  type InsightMetricDefinition,
  type InsightPeriod,
  type MetricType,
} from '../insights-catalogue.ts';
import { DAY_SECONDS, SECOND, enumMessage, listParameter, parseTimeParameter, type EdgeContext } from './edge-context.ts';
import type {
  AccountInsight,
  InsightTotalValue,
  InsightValue,
  InsightsParams,
  InsightsResult,
  InsightsWindow,
} from './account-edges.types.ts';

/** Longest since–until range of the insights edge, and how far back its data goes. */
export const INSIGHTS_MAX_RANGE_SECONDS = 30 * DAY_SECONDS;
export const INSIGHTS_RETENTION_SECONDS = 730 * DAY_SECONDS;
/** The platform returns at most this many breakdown results (the top ones). */
export const INSIGHTS_MAX_BREAKDOWN_RESULTS = 45;

/** The account's insights edge: metrics by period, as a time series or a total with breakdowns, over a window the platform's rules bound. */
export function createInsights(ctx: EdgeContext) {
  const { db, clock, checkAccountId } = ctx;

  async function insights(accountId: string, params: InsightsParams): Promise<InsightsResult> {
    checkAccountId(accountId, 'get');
    const now = clock();
    const request = readInsightsRequest(params, now);
    const { window, definitions, period, metricType, breakdown } = request;

    // Rolling periods need the days before the window's first day too.
    const reachBack = (PERIOD_DAYS[period] - 1) * DAY_SECONDS;
    const rows = await listInsightValues(
      db,
      accountId,
      definitions.map((definition) => definition.name),
      new Date((window.since - reachBack) * SECOND),
      new Date(window.until * SECOND),
    );
    const data = definitions.map((definition): AccountInsight => {
      const own = rows.filter((row) => row.metric === definition.name);
      const base = {
        name: definition.name,
        period,
        title: definition.title,
        description: definition.description,
        id: `${accountId}/insights/${definition.name}/${period}`,
      };
      return metricType === 'time_series'
        ? { ...base, values: timeSeries(definition, own, period, window) }
        : { ...base, totalValue: totalValue(definition, own, window, breakdown) };
    });
    return { data, window };
  }

  return { insights };
}

interface InsightsRequest {
  definitions: InsightMetricDefinition[];
  period: InsightPeriod;
  metricType: MetricType;
  breakdown: BreakdownDimension | undefined;
  window: InsightsWindow;
}

const RETIRED_METRIC_MESSAGE = (metric: string, version: number) =>
  `Starting from version ${version} and above, the ${metric} metric is no longer supported for the queried user. Please refer to the documentation for a list of supported metrics.`;

/** Validates the parameters of the insights edge, in the order the platform reports them, and works out the window. */
function readInsightsRequest(params: InsightsParams, now: Date): InsightsRequest {
  const metrics = [...new Set(listParameter(params.metric))];
  if (metrics.length === 0) throw socialErrors.missingParameter('metric');
  const period = params.period?.trim() ?? '';
  if (period === '') throw socialErrors.missingParameter('period');

  const definitions = metrics.map((name, index) => {
    const retiredIn = RETIRED_ACCOUNT_METRICS.get(name);
    if (retiredIn !== undefined) throw socialErrors.invalidParameter('metric', RETIRED_METRIC_MESSAGE(name, retiredIn));
    const definition = findAccountMetric(name);
    // The platform's own wording, which lists every metric it knows.
    if (!definition)
      throw socialErrors.invalidParameter(
        'metric',
        enumMessage(
          `metric[${index}]`,
          ACCOUNT_METRICS.map((metric) => metric.name),
        ),
      );
    return definition;
  });
  if (!(INSIGHT_PERIODS as readonly string[]).includes(period))
    throw socialErrors.invalidParameter('period', enumMessage('period', INSIGHT_PERIODS));
  const metricType = (params.metricType?.trim() || 'time_series') as MetricType;
  if (!METRIC_TYPES.includes(metricType)) throw socialErrors.invalidParameter('metric_type', enumMessage('metric_type', METRIC_TYPES));

  const wrongPeriod = definitions.filter((definition) => !definition.periods.includes(period as InsightPeriod));
  if (wrongPeriod.length > 0) {
    throw socialErrors.invalidParameter('period', `(#100) The following metrics (${names(wrongPeriod)}) do not support period=${period}`);
  }
  const wrongType = definitions.filter((definition) => !definition.metricTypes.includes(metricType));
  if (wrongType.length > 0) {
    // The platform's wording for a metric asked for without the metric_type it needs.
    const other = metricType === 'time_series' ? 'total_value' : 'time_series';
    throw socialErrors.invalidParameter(
      'metric_type',
      `(#100) The following metrics (${names(wrongType)}) should be specified with parameter metric_type=${other}`,
    );
  }

  const breakdowns = [...new Set(listParameter(params.breakdown))];
  breakdowns.forEach((dimension, index) => {
    if (!(BREAKDOWN_DIMENSIONS as readonly string[]).includes(dimension)) {
      throw socialErrors.invalidParameter('breakdown', enumMessage(`breakdown[${index}]`, BREAKDOWN_DIMENSIONS));
    }
  });
  if (breakdowns.length > 1) throw socialErrors.invalidParameter('breakdown', 'Only one breakdown can be requested at a time.');
  const breakdown = breakdowns[0] as BreakdownDimension | undefined;
  if (breakdown !== undefined) {
    // Breakdowns split a total; a time series has none to split.
    if (metricType !== 'total_value')
      throw socialErrors.invalidParameter('breakdown', '(#100) breakdown is only supported with metric_type=total_value');
    const unsupported = definitions.filter((definition) => !definition.breakdowns.includes(breakdown));
    if (unsupported.length > 0) {
      throw socialErrors.invalidParameter(
        'breakdown',
        `(#100) The following metrics (${names(unsupported)}) do not support breakdown=${breakdown}`,
      );
    }
  }

  const nowSeconds = toUnixSeconds(now);
  if (definitions.some((definition) => definition.demographic)) {
    // Demographics are described over a timeframe ending now; since/until do not apply to them.
    if (breakdown === undefined) throw socialErrors.missingParameter('breakdown');
    const timeframe = params.timeframe?.trim() ?? '';
    if (timeframe === '') throw socialErrors.missingParameter('timeframe');
    if (!(DEMOGRAPHIC_TIMEFRAMES as readonly string[]).includes(timeframe)) {
      throw socialErrors.invalidParameter('timeframe', enumMessage('timeframe', DEMOGRAPHIC_TIMEFRAMES));
    }
    const days = TIMEFRAME_DAYS[timeframe as DemographicTimeframe];
    return {
      definitions,
      period: period as InsightPeriod,
      metricType,
      breakdown,
      window: { since: nowSeconds - days * DAY_SECONDS, until: nowSeconds, hasPrevious: false, hasNext: false },
    };
  }

  const time = (name: 'since' | 'until', value: string | number | null | undefined): number | undefined => {
    if (value == null || value === '') return undefined;
    const at = parseTimeParameter(value, now);
    if (at === undefined)
      throw socialErrors.invalidParameter(name, `(#100) The parameter ${name} must be a unix timestamp or a strtotime-style time`);
    return toUnixSeconds(at);
  };
  // Without since, the platform shows the last two days as a series (two values) and the last day as a total.
  const defaultSpan = (metricType === 'time_series' ? 2 : 1) * DAY_SECONDS;
  const givenSince = time('since', params.since);
  const until = time('until', params.until) ?? nowSeconds;
  const since = givenSince ?? until - defaultSpan;
  if (since >= until) throw socialErrors.invalidParameter('since', '(#100) The parameter since must be earlier than until');
  if (until - since > INSIGHTS_MAX_RANGE_SECONDS) {
    throw socialErrors.invalidParameter(
      'since',
      `(#100) There cannot be more than 30 days (${INSIGHTS_MAX_RANGE_SECONDS} s) between since and until`,
    );
  }
  const oldest = nowSeconds - INSIGHTS_RETENTION_SECONDS;
  if (since < oldest)
    throw socialErrors.invalidParameter('since', '(#100) since param is not valid. Metrics data is available for the last 2 years.');
  return {
    definitions,
    period: period as InsightPeriod,
    metricType,
    breakdown,
    window: { since, until, hasPrevious: since - (until - since) >= oldest, hasNext: until < nowSeconds },
  };
}

/** The day ends (UTC midnights, unix seconds) in (since, until]. */
function dayEnds(since: number, until: number): number[] {
  const ends: number[] = [];
  for (let end = Math.floor(since / DAY_SECONDS) * DAY_SECONDS + DAY_SECONDS; end <= until; end += DAY_SECONDS) ends.push(end);
  return ends;
}

function timeSeries(
  definition: InsightMetricDefinition,
  rows: InsightRow[],
  period: InsightPeriod,
  window: InsightsWindow,
): InsightValue[] {
  const byEnd = new Map(rows.map((row) => [toUnixSeconds(row.end_time), row]));
  const span = definition.aggregation === 'sum' ? PERIOD_DAYS[period] : 1;
  const values: InsightValue[] = [];
  for (const end of dayEnds(window.since, window.until)) {
    const row = byEnd.get(end);
    // A day without data has no value (the platform returns no entry rather than 0).
    if (!row) continue;
    let value: number | Record<string, number>;
    if (definition.hourly) value = hourly(row.breakdown);
    else {
      value = 0;
      for (let day = 0; day < span; day += 1) value += byEnd.get(end - day * DAY_SECONDS)?.value ?? 0;
    }
    values.push({ value, endTime: new Date(end * SECOND) });
  }
  return values;
}

function totalValue(
  definition: InsightMetricDefinition,
  rows: InsightRow[],
  window: InsightsWindow,
  breakdown: BreakdownDimension | undefined,
): InsightTotalValue {
  const inWindow = rows.filter((row) => {
    const end = toUnixSeconds(row.end_time);
    return end > window.since && end <= window.until;
  });
  const used = definition.aggregation === 'latest' ? inWindow.slice(-1) : inWindow;
  const value = used.reduce((sum, row) => sum + row.value, 0);
  if (breakdown === undefined) return { value };
  const counts = new Map<string, number>();
  for (const row of used) {
    for (const [key, count] of Object.entries(row.breakdown?.[breakdown] ?? {})) counts.set(key, (counts.get(key) ?? 0) + count);
  }
  const results = [...counts]
    .sort(([keyA, a], [keyB, b]) => b - a || (keyA < keyB ? -1 : keyA > keyB ? 1 : 0))
    .slice(0, INSIGHTS_MAX_BREAKDOWN_RESULTS)
    .map(([key, count]) => ({ dimensionValues: [key], value: count }));
  return { value, breakdowns: [{ dimensionKeys: [breakdown], results }] };
}

function hourly(breakdown: StoredBreakdown | null): Record<string, number> {
  const hours: Record<string, number> = {};
  for (let hour = 0; hour < 24; hour += 1) hours[String(hour)] = breakdown?.hour?.[String(hour)] ?? 0;
  return hours;
}

function names(definitions: readonly InsightMetricDefinition[]): string {
  return definitions.map((definition) => definition.name).join(', ');
}
