import type { Registry } from 'prom-client';

/**
 * Counters and histograms for the hot paths, whose label sets are looked up once and then recorded by reference.
 *
 * prom-client validates and hashes the label object at every `inc` and `observe`, even through `labels(...)` children
 * (their methods are bound calls to the same code): a REST GetByID records four times, paying for those checks each
 * time (bench/README.md, "Issue 13's targets before coalescing"). Here a series is found once per label set (a Map
 * lookup on the caller's side keeps it), and recording is arithmetic on its fields; the work of exposition waits for a
 * scrape, when prom-client's Registry renders these metrics with the same code and in the same text as its own Counter
 * and Histogram (test/unit/prometheus-series.test.ts holds them to that).
 *
 * Registered as prom-client metrics are: the Registry asks a metric only for its name and `get()` (or
 * `getForPromString()`), whose shapes these reproduce.
 */

/** One label set of a counter. */
export interface CounterSeries {
  inc(value?: number): void;
}

/** One label set of a histogram. */
export interface HistogramSeries {
  observe(value: number): void;
}

interface MetricOptions<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  registry: Registry;
}

export interface SeriesCounter<L extends string> {
  /** The series of these label values (created at zero, as prom-client's own counter reports it after its first inc). */
  series(labels: Readonly<Record<L, string>>): CounterSeries;
}

export interface SeriesHistogram<L extends string> {
  series(labels: Readonly<Record<L, string>>): HistogramSeries;
}

/** The key of a label set: its values in the metric's label order, each prefixed by its length (no two sets share one). */
function keyOf<L extends string>(labelNames: readonly L[], labels: Readonly<Record<L, string>>): string {
  let key = '';
  for (const name of labelNames) key += `${labels[name].length}:${labels[name]}`;
  return key;
}

/** Copies the label set in the metric's label order, so that exposition does not depend on the caller's object. */
function ownLabels<L extends string>(labelNames: readonly L[], labels: Readonly<Record<L, string>>): Record<string, string> {
  const copy: Record<string, string> = {};
  for (const name of labelNames) copy[name] = labels[name];
  return copy;
}

/** The series of one metric by label set, made by `make` the first time a set is asked for, in that order. */
function seriesByLabels<L extends string, S>(labelNames: readonly L[], make: (labels: Record<string, string>) => S) {
  const all = new Map<string, S>();
  return {
    all,
    series(labels: Readonly<Record<L, string>>): S {
      const key = keyOf(labelNames, labels);
      let series = all.get(key);
      if (!series) {
        series = make(ownLabels(labelNames, labels));
        all.set(key, series);
      }
      return series;
    },
  };
}

class CounterSeriesImpl implements CounterSeries {
  value = 0;
  constructor(readonly labels: Record<string, string>) {}
  inc(value = 1): void {
    this.value += value;
  }
}

export function createSeriesCounter<L extends string>(options: MetricOptions<L>): SeriesCounter<L> {
  const { all, series } = seriesByLabels(options.labelNames, (labels) => new CounterSeriesImpl(labels));
  const metric = {
    name: options.name,
    help: options.help,
    type: 'counter',
    aggregator: 'sum',
    // prom-client's Counter.get(): one { value, labels } per label set, in the order they were first recorded.
    get: async () => ({
      name: options.name,
      help: options.help,
      type: 'counter',
      aggregator: 'sum',
      values: [...all.values()].map((one) => ({ value: one.value, labels: one.labels })),
    }),
  };
  options.registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
  return { series };
}

class HistogramSeriesImpl implements HistogramSeries {
  /** Observations per bucket (not cumulative); values above the last bound are only in `count`. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(
    readonly labels: Record<string, string>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }
  observe(value: number): void {
    const { bounds } = this;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.counts[i]! += 1;
        break;
      }
    }
    this.sum += value;
    this.count += 1;
  }
}

export function createSeriesHistogram<L extends string>(options: MetricOptions<L> & { buckets: readonly number[] }): SeriesHistogram<L> {
  const bounds = [...options.buckets].sort((a, b) => a - b);
  const { all, series } = seriesByLabels(options.labelNames, (labels) => new HistogramSeriesImpl(labels, bounds));
  const bucketName = `${options.name}_bucket`;
  // prom-client's Histogram.getForPromString(): per label set, each bound's cumulative count, then +Inf, _sum and
  // _count, the set's own labels as `sharedLabels` (the Registry appends them after `le` and the default labels).
  const getForPromString = async () => {
    const values: {
      labels: Record<string, string | number>;
      sharedLabels: Record<string, string>;
      value: number;
      metricName: string;
      exemplar: null | undefined;
    }[] = [];
    for (const one of all.values()) {
      let cumulative = 0;
      for (let i = 0; i < bounds.length; i++) {
        cumulative += one.counts[i]!;
        values.push({ labels: { le: bounds[i]! }, sharedLabels: one.labels, value: cumulative, metricName: bucketName, exemplar: null });
      }
      values.push(
        { labels: { le: '+Inf' }, sharedLabels: one.labels, value: one.count, metricName: bucketName, exemplar: null },
        { labels: {}, sharedLabels: one.labels, value: one.sum, metricName: `${options.name}_sum`, exemplar: undefined },
        { labels: {}, sharedLabels: one.labels, value: one.count, metricName: `${options.name}_count`, exemplar: undefined },
      );
    }
    return { name: options.name, help: options.help, type: 'histogram', values, aggregator: 'sum' };
  };
  const metric = {
    name: options.name,
    help: options.help,
    type: 'histogram',
    aggregator: 'sum',
    getForPromString,
    // As prom-client's get(): the same values with each set's labels merged in (getMetricsAsJSON, aggregation).
    get: async () => {
      const data = await getForPromString();
      return {
        ...data,
        values: data.values.map(({ labels, sharedLabels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } })),
      };
    },
  };
  options.registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
  return { series };
}
