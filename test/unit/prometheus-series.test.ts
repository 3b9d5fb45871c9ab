/**
 * lib/telemetry/prometheus-series.ts renders exactly what prom-client's own Counter and Histogram render for the same
 * observations: both kinds are fed the same values in two registries with the same default labels, and the exposition
 * texts (and the JSON form) compared whole.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createSeriesCounter, createSeriesHistogram } from '../../lib/telemetry/prometheus-series.ts';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

function registries() {
  const theirs = new Registry();
  const ours = new Registry();
  for (const registry of [theirs, ours]) registry.setDefaultLabels({ process: 'tributary' });
  return { theirs, ours };
}

const LABEL_SETS = [
  { listener: 'rest-own', method: 'GET', route: '/api/v1/userExample/:id' },
  { listener: 'gateway', method: 'POST', route: '/graphql' },
  { listener: 'rest-own', method: 'GET', route: 'quote " backslash \\ newline \n' },
];

describe('series metrics', () => {
  it('render a histogram as prom-client does: bounds, values on them, above the last, zero, several series', async () => {
    const { theirs, ours } = registries();
    const reference = new Histogram({
      name: 'h_seconds',
      help: 'A histogram.',
      labelNames: ['listener', 'method', 'route'],
      buckets: BUCKETS,
      registers: [theirs],
    });
    const series = createSeriesHistogram({
      name: 'h_seconds',
      help: 'A histogram.',
      labelNames: ['listener', 'method', 'route'],
      buckets: BUCKETS,
      registry: ours,
    });
    const values = [0, 0.0004, 0.001, 0.0011, 0.0025, 0.3, 1, 29.9, 30, 30.0001, 1000, 0.05, 0.049999];
    values.forEach((value, index) => {
      const labels = LABEL_SETS[index % LABEL_SETS.length]!;
      reference.observe(labels, value);
      series.series(labels).observe(value);
    });
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
    expect(await ours.metrics()).toContain(
      'h_seconds_bucket{le="0.001",process="tributary",listener="rest-own",method="GET",route="/api/v1/userExample/:id"} 1',
    );
  });

  it('render a counter as prom-client does, in the order the series were first counted', async () => {
    const { theirs, ours } = registries();
    const reference = new Counter({
      name: 'c_total',
      help: 'A counter.',
      labelNames: ['listener', 'method', 'route'],
      registers: [theirs],
    });
    const series = createSeriesCounter({
      name: 'c_total',
      help: 'A counter.',
      labelNames: ['listener', 'method', 'route'],
      registry: ours,
    });
    for (const [index, amount] of [1, 1, 3, 1, 2.5].entries()) {
      const labels = LABEL_SETS[(index * 2) % LABEL_SETS.length]!;
      reference.inc(labels, amount);
      series.series(labels).inc(amount);
    }
    series.series(LABEL_SETS[1]!).inc();
    reference.inc(LABEL_SETS[1]!);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
  });

  it('report nothing but their help and type before the first observation, and keep label sets apart', async () => {
    const { theirs, ours } = registries();
    new Histogram({ name: 'h_seconds', help: 'A histogram.', labelNames: ['a', 'b'], buckets: BUCKETS, registers: [theirs] });
    const series = createSeriesHistogram({
      name: 'h_seconds',
      help: 'A histogram.',
      labelNames: ['a', 'b'],
      buckets: BUCKETS,
      registry: ours,
    });
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(series.series({ a: 'x', b: 'yz' })).toBe(series.series({ b: 'yz', a: 'x' }));
    expect(series.series({ a: 'x', b: 'yz' })).not.toBe(series.series({ a: 'xy', b: 'z' }));
  });
});
