import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertUserExample, type UsersTables } from '../../../subgraphs/users/user-example.repository.ts';
import { createUserExampleGrpcClient } from '../../support/grpc-user-client.ts';
import { startOtlpCollector, type OtlpCollector } from '../../support/otlp-collector.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { uniqueEmail } from '../../support/user-example-fixtures.ts';
import { eventually } from '../../support/eventually.ts';

/**
 * With tracing on, GetByID reads that share one statement (user-example.service.ts) stay visible in every request's trace:
 * the statement's span is a child of one request's span and links to the spans of the others. Spans are received by a
 * minimal OTLP/HTTP (JSON) collector (test/support/otlp-collector.ts).
 */

describe('traces of GetByID reads that share a statement', () => {
  let collector: OtlpCollector;
  let system: TestSystem;
  const ids: string[] = [];

  beforeAll(async () => {
    collector = await startOtlpCollector();
    system = await startTestSystem({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.url, OTEL_TRACES_SAMPLER_ARG: '1' });
    const db = system.database.db.withTables<UsersTables>();
    for (const name of ['ada', 'bob', 'cyd', 'dee']) {
      ids.push(
        await insertUserExample(db, { name, email: uniqueEmail(name), passwordHash: 'x', phone: '', avatar: '', age: 20, gender: 1 }),
      );
    }
  });

  afterAll(async () => {
    await system?.close();
    await collector?.close();
  });

  it('reach every request: the statement is a child of one request and links to the others', async () => {
    const client = createUserExampleGrpcClient(system.grpcAddress);
    const token = `Bearer ${system.adminToken()}`;
    try {
      await client.call('GetByID', { id: ids[0] }, { authorization: token }); // connected first
      // Each call in a trace of its own, as separate clients' calls would be.
      const traces = Array.from({ length: 12 }, () => randomBytes(16).toString('hex'));
      const replies = await Promise.all(
        traces.map((traceId, index) =>
          client.call<{ userExample: { name: string } }>(
            'GetByID',
            { id: ids[index % ids.length] },
            { authorization: token, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
          ),
        ),
      );
      expect(replies.map((reply) => reply.userExample.name)).toEqual(traces.map((_, index) => ['ada', 'bob', 'cyd', 'dee'][index % 4]));

      const wanted = new Set(traces);
      const serverSpans = await eventually(() => {
        const found = collector.spans.filter((span) => wanted.has(span.traceId) && span.name.endsWith('/GetByID'));
        return found.length === traces.length ? found : undefined;
      }, 'the twelve GetByID server spans');
      const statements = await eventually(() => {
        const found = collector.spans.filter(
          (span) =>
            wanted.has(span.traceId) && span.name === 'SELECT' && span.attributes['db.query.text']?.includes('"users"."user_example"'),
        );
        const reached = new Set(found.flatMap((span) => [span.traceId, ...span.links.map((link) => link.traceId)]));
        return reached.size === traces.length ? found : undefined;
      }, 'SELECT spans reaching every trace');

      // Fewer statements than calls, each under one call's server span, linking exactly to other calls' server spans.
      expect(statements.length).toBeLessThan(traces.length);
      const serverSpanIds = new Map(serverSpans.map((span) => [span.spanId, span.traceId]));
      for (const statement of statements) {
        expect(serverSpanIds.get(statement.parentSpanId)).toBe(statement.traceId);
        for (const link of statement.links) {
          expect(serverSpanIds.get(link.spanId)).toBe(link.traceId);
          expect(link.traceId).not.toBe(statement.traceId);
        }
      }
      const reachedOnce = statements.flatMap((span) => [span.traceId, ...span.links.map((link) => link.traceId)]);
      expect(reachedOnce.sort()).toEqual([...traces].sort());
    } finally {
      client.close();
    }
  });
});
