import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../lib/telemetry/metrics.ts';
import { createReadiness, readinessHttpStatus } from '../../lib/telemetry/readiness.ts';
import { requestIdFrom } from '../../lib/request-context.ts';
import { parseMetrics, sampleValue } from '../support/log-capture.ts';
import { HANG_MS } from '../support/hang-bounds.ts';

describe('readiness', () => {
  it('is UP when every check passes, and names each failing check with its error', async () => {
    const readiness = createReadiness({ timeoutMs: 200 });
    readiness.add('database', async () => undefined);
    readiness.add('subgraph:media', async () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:4004');
    });
    expect(await readiness.report()).toEqual({
      status: 'DOWN',
      checks: { database: { status: 'UP' }, 'subgraph:media': { status: 'DOWN', error: 'connect ECONNREFUSED 127.0.0.1:4004' } },
    });
  });

  it('reports a check that does not answer within the deadline as DOWN, without waiting for it', async () => {
    const readiness = createReadiness({ timeoutMs: 50 });
    readiness.add('database', () => new Promise(() => undefined));
    const started = Date.now();
    expect(await readiness.report()).toEqual({ status: 'DOWN', checks: { database: { status: 'DOWN', error: 'no answer within 50 ms' } } });
    // A report that waited for the check would never end; any bound a hang cannot meet says it did not wait.
    expect(Date.now() - started).toBeLessThan(HANG_MS);
  });

  it('is DEGRADED, and ready, while some but not all degrading checks fail; DOWN when all of them or a required one fail', async () => {
    const failing = new Set<string>();
    const readiness = createReadiness({ timeoutMs: 200 });
    readiness.add('supergraph', async () => {
      if (failing.has('supergraph')) throw new Error('the supergraph is not loaded');
    });
    for (const name of ['users', 'comments']) {
      readiness.add(
        `subgraph:${name}`,
        async () => {
          if (failing.has(name)) throw new Error(`subgraph ${name} does not answer`);
        },
        { degrades: true },
      );
    }
    failing.add('comments');
    const degraded = await readiness.report();
    expect(degraded).toEqual({
      status: 'DEGRADED',
      degraded: ['subgraph:comments'],
      checks: {
        supergraph: { status: 'UP' },
        'subgraph:users': { status: 'UP' },
        'subgraph:comments': { status: 'DOWN', error: 'subgraph comments does not answer' },
      },
    });
    expect(readinessHttpStatus(degraded)).toBe(200);
    failing.add('users');
    const nothingToServe = await readiness.report();
    expect(nothingToServe.status).toBe('DOWN');
    expect(readinessHttpStatus(nothingToServe)).toBe(503);
    failing.clear();
    failing.add('supergraph');
    expect((await readiness.report()).status).toBe('DOWN');
    failing.clear();
    expect(await readiness.report()).toMatchObject({ status: 'UP' });
  });

  it('answers the probes of the next reuseMs with the report made, running the checks once', async () => {
    let runs = 0;
    const readiness = createReadiness({ timeoutMs: 200, reuseMs: 60_000 });
    readiness.add('database', async () => {
      runs += 1;
    });
    await Promise.all([readiness.report(), readiness.report(), readiness.report()]);
    await readiness.report();
    expect(runs).toBe(1);
    // Shutdown shows at once, whatever report is reused.
    readiness.markStopping();
    expect((await readiness.report()).status).toBe('DOWN');
    expect(runs).toBe(1);
  });

  it('is DOWN once shutdown has begun, whatever the checks say', async () => {
    const readiness = createReadiness({ timeoutMs: 50 });
    readiness.add('database', async () => undefined);
    readiness.markStopping();
    expect(await readiness.report()).toEqual({
      status: 'DOWN',
      checks: { database: { status: 'UP' }, process: { status: 'DOWN', error: 'shutting down' } },
    });
  });
});

describe('metrics', () => {
  it('caps client-chosen label values at 200 distinct ones, then reports "other"', async () => {
    const metrics = createMetrics({ enabled: true, process: 'test' });
    for (let i = 0; i < 250; i++) metrics.observeGraphql('gateway', `Operation${i}`, 'query', 0.001, []);
    const samples = parseMetrics((await metrics.render()).body).filter(
      (sample) => sample.name === 'tributary_graphql_operation_duration_seconds_count',
    );
    expect(samples).toHaveLength(201);
    expect(sampleValue(samples, 'tributary_graphql_operation_duration_seconds_count', { operation: 'other' })).toBe(50);
    expect(sampleValue(samples, 'tributary_graphql_operation_duration_seconds_count', { operation: 'Operation199' })).toBe(1);
  });

  it('records nothing and renders nothing when off', async () => {
    const metrics = createMetrics({ enabled: false, process: 'test' });
    metrics.observeHttp('rest-own', 'GET', '/x', 200, 0.01);
    expect(metrics.enabled).toBe(false);
    expect((await metrics.render()).body).toBe('');
  });
});

describe('request ids', () => {
  it('keeps a well-formed caller id and replaces anything else by a new UUID', () => {
    expect(requestIdFrom('abc-123_x.y:z')).toBe('abc-123_x.y:z');
    expect(requestIdFrom(['first', 'second'])).toBe('first');
    for (const bad of [undefined, '', 'has space', 'x'.repeat(129), 'new\nline', 'é']) {
      expect(requestIdFrom(bad)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });
});
