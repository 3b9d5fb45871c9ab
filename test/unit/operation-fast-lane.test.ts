/**
 * The fast lane's own rules (gateway/stand-ins/operation-fast-lane.ts), on a stand-in gateway executor: what it records and when,
 * how much it keeps, what it declines before running anything, and that a run it hands to the pipeline is replayed there
 * once and never run twice. test/e2e/gateway/gateway-fast-lane.test.ts compares its replies with Apollo Server's.
 */
import type { ApolloGateway } from '@apollo/gateway';
import { HeaderMap } from '@apollo/server';
import { buildSchema, parse, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createGatewayContext, type GatewayContext } from '../../gateway/gateway-context.ts';
import { createOperationFastLane, type OperationFastLane } from '../../gateway/stand-ins/operation-fast-lane.ts';
import { createMetrics } from '../../lib/telemetry/metrics.ts';
import type { Telemetry } from '../../lib/telemetry/telemetry.ts';
import type { Logger } from '../../lib/logger.ts';

const schema = buildSchema('type Query { hello: String }');

type ExecutorResult = { data?: Record<string, unknown> | null; errors?: unknown[]; extensions?: Record<string, unknown> };

/** A gateway whose executor answers from `answer` and counts its calls; the lane's wrapped view of it, loaded. */
async function laneOver(
  answer: (context: { context: object }) => ExecutorResult,
  options: { maxEntries?: number; maxQueryChars?: number; refuse?: boolean } = {},
) {
  const calls: object[] = [];
  let schemaListener: ((schemaContext: { apiSchema: typeof schema; coreSupergraphSdl: string }) => void) | undefined;
  const real = {
    onSchemaLoadOrUpdate(callback: typeof schemaListener) {
      schemaListener = callback;
      return () => undefined;
    },
    async load() {
      return {
        schema,
        executor: async (requestContext: { context: object }) => {
          calls.push(requestContext);
          return answer(requestContext);
        },
      };
    },
    async stop() {},
  } as unknown as ApolloGateway;
  const metrics = createMetrics({ enabled: true, process: 'test' });
  const lane = createOperationFastLane<GatewayContext>({
    checkResolvedOperation: () => {
      if (options.refuse) throw new Error('refused');
    },
    responseExtensions: (context) => context.responseExtensions,
    server: 'gateway',
    telemetry: { metrics } as unknown as Telemetry,
    logger: {} as Logger,
    ...options,
  });
  const wrapped = lane.gateway(real);
  const events: string[] = [];
  wrapped.onSchemaLoadOrUpdate(() => events.push('schema'));
  const { executor } = await wrapped.load({ apollo: {} });
  if (!executor) throw new Error('the wrapped gateway gave no executor');
  return {
    lane,
    calls,
    executor,
    schemaChanged: (apiSchema = schema) => schemaListener?.({ apiSchema, coreSupergraphSdl: '' }),
    events,
    metrics,
  };
}

/** What Apollo Server's pipeline reports to the plugin when `query` reaches execution. */
async function seenByPipeline(lane: OperationFastLane, query: string, options: { operationName?: string; source?: string } = {}) {
  const document = parse(query);
  const operation = document.definitions[0] as OperationDefinitionNode;
  const listener = await lane.plugin.requestDidStart!({} as never);
  await listener!.executionDidStart!({
    request: { query, operationName: options.operationName },
    source: options.source ?? query,
    document,
    operation,
    operationName: operation.name?.value ?? null,
    queryHash: 'hash',
    schema,
  } as never);
}

const ask = (lane: OperationFastLane, query: string, extra: Record<string, unknown> = {}) =>
  lane.serve({ body: { query, ...extra }, headers: new HeaderMap(), context: createGatewayContext({}) });

describe('the fast lane', () => {
  it('serves only documents the pipeline took to execution, with the same requested operationName', async () => {
    const { lane, calls } = await laneOver(() => ({ data: { hello: 'world' } }));
    expect(await ask(lane, '{ hello }')).toBeUndefined();
    await seenByPipeline(lane, '{ hello }');
    expect(await ask(lane, '{ hello }')).toEqual({
      status: 200,
      headers: [
        ['cache-control', 'no-store'],
        ['content-type', 'application/json; charset=utf-8'],
      ],
      body: '{"data":{"hello":"world"}}\n',
    });
    expect(await ask(lane, '{ hello }', { operationName: 'Other' })).toBeUndefined();
    expect(await ask(lane, '{  hello }')).toBeUndefined();
    expect(calls).toHaveLength(1);
  });

  it('does not recognise a document the pipeline got from elsewhere than its text (a persisted query)', async () => {
    const { lane } = await laneOver(() => ({ data: { hello: 'world' } }));
    await seenByPipeline(lane, '{ hello }', { source: '{ hello } ' });
    expect(await ask(lane, '{ hello }')).toBeUndefined();
  });

  it('declines, before running anything, what the pipeline must look at', async () => {
    const { lane, calls } = await laneOver(() => ({ data: { hello: 'world' } }));
    await seenByPipeline(lane, '{ hello }');
    for (const extra of [{ extensions: {} }, { variables: '{}' }, { variables: [] }, { operationName: 3 }]) {
      expect(await ask(lane, '{ hello }', extra)).toBeUndefined();
    }
    for (const body of [null, [], 'x', { query: 7 }, { query: '' }]) {
      expect(await lane.serve({ body, headers: new HeaderMap(), context: createGatewayContext({}) })).toBeUndefined();
    }
    expect(
      await lane.serve({
        body: { query: '{ hello }' },
        headers: new HeaderMap([['accept', 'text/html']]),
        context: createGatewayContext({}),
      }),
    ).toBeUndefined();
    expect(calls).toHaveLength(0);
    expect(await ask(lane, '{ hello }', { variables: null, operationName: null })).toBeDefined();
  });

  it('declines an operation its checks refuse (the pipeline refuses it in its own words)', async () => {
    const { lane, calls } = await laneOver(() => ({ data: { hello: 'world' } }), { refuse: true });
    await seenByPipeline(lane, '{ hello }');
    expect(await ask(lane, '{ hello }')).toBeUndefined();
    expect(calls).toHaveLength(0);
  });

  it('hands errors to the pipeline, whose executor replays them once instead of running the operation again', async () => {
    const failure = { data: null, errors: [{ message: 'boom' }] };
    const { lane, calls, executor } = await laneOver(() => failure);
    await seenByPipeline(lane, '{ hello }');
    const context = createGatewayContext({});
    expect(await lane.serve({ body: { query: '{ hello }' }, headers: new HeaderMap(), context })).toBeUndefined();
    expect(calls).toHaveLength(1);
    // Apollo Server runs its pipeline on a shallow copy of the context.
    const copy = Object.assign(Object.create(Object.getPrototypeOf(context) as object), context) as object;
    expect(await executor({ context: copy } as never)).toBe(failure);
    expect(calls).toHaveLength(1);
    await executor({ context: copy } as never);
    expect(calls).toHaveLength(2);
  });

  it('hands a failed execution to the pipeline as the same failure', async () => {
    const boom = new Error('subgraph client failed');
    const { lane, executor } = await laneOver(() => {
      throw boom;
    });
    await seenByPipeline(lane, '{ hello }');
    const context = createGatewayContext({});
    expect(await lane.serve({ body: { query: '{ hello }' }, headers: new HeaderMap(), context })).toBeUndefined();
    await expect(executor({ context } as never)).rejects.toBe(boom);
  });

  it("adds the subgraphs' forwarded extensions, and answers in-process operations as executeOperation would", async () => {
    const { lane } = await laneOver(({ context }) => {
      (context as { responseExtensions: Record<string, unknown> }).responseExtensions.socialUsage = { app: 1 };
      return { data: { hello: 'world' } };
    });
    await seenByPipeline(lane, 'query Q { hello }', { operationName: 'Q' });
    const context = createGatewayContext({});
    expect(await lane.execute({ query: 'query Q { hello }', operationName: 'Q', variables: undefined, context })).toEqual({
      data: { hello: 'world' },
      extensions: { socialUsage: { app: 1 } },
    });
  });

  it('keeps at most maxEntries documents and maxQueryChars of text, dropping the oldest first', async () => {
    const { lane } = await laneOver(() => ({ data: { hello: 'world' } }), { maxEntries: 2, maxQueryChars: 40 });
    await seenByPipeline(lane, 'query A { hello }');
    await seenByPipeline(lane, 'query B { hello }');
    await seenByPipeline(lane, 'query C { hello }');
    expect(await ask(lane, 'query A { hello }')).toBeUndefined();
    expect(await ask(lane, 'query B { hello }')).toBeDefined();
    expect(await ask(lane, 'query C { hello }')).toBeDefined();
    // 17 + 17 + 22 characters: past 40, so B goes; a document longer than the whole budget is never kept.
    await seenByPipeline(lane, 'query Long { hello   }');
    expect(await ask(lane, 'query B { hello }')).toBeUndefined();
    expect(await ask(lane, 'query C { hello }')).toBeDefined();
    await seenByPipeline(lane, `query Huge { hello ${' '.repeat(40)}}`);
    expect(await ask(lane, `query Huge { hello ${' '.repeat(40)}}`)).toBeUndefined();
    expect(await ask(lane, 'query C { hello }')).toBeDefined();
  });

  it('starts afresh on a new schema, and stops serving once closed', async () => {
    const { lane, schemaChanged, events } = await laneOver(() => ({ data: { hello: 'world' } }));
    await seenByPipeline(lane, '{ hello }');
    schemaChanged();
    expect(events).toEqual(['schema']);
    expect(await ask(lane, '{ hello }')).toBeUndefined();
    await seenByPipeline(lane, '{ hello }');
    expect(await ask(lane, '{ hello }')).toBeDefined();
    lane.close();
    expect(await ask(lane, '{ hello }')).toBeUndefined();
  });

  it('does not record a document the pipeline validated against the schema before a reload', async () => {
    const { lane, schemaChanged } = await laneOver(() => ({ data: { hello: 'world' } }));
    schemaChanged(buildSchema('type Query { hello: String, added: Int }'));
    // A request planned before the reload reaches execution after it, with the old schema.
    await seenByPipeline(lane, '{ hello }');
    expect(await ask(lane, '{ hello }')).toBeUndefined();
  });

  it('gives the executor no operationName for a document of one operation (sparing it a hash per request), and the name otherwise', async () => {
    const { lane, calls } = await laneOver(() => ({ data: { hello: 'world' } }));
    await seenByPipeline(lane, 'query A { hello }', { operationName: 'A' });
    await seenByPipeline(lane, 'query A { hello } query B { hello }', { operationName: 'A' });
    await lane.execute({ query: 'query A { hello }', operationName: 'A', variables: undefined, context: createGatewayContext({}) });
    await lane.execute({
      query: 'query A { hello } query B { hello }',
      operationName: 'A',
      variables: undefined,
      context: createGatewayContext({}),
    });
    expect(calls.map((call) => (call as { request: { operationName?: string }; operationName: string }).request.operationName)).toEqual([
      undefined,
      'A',
    ]);
    expect(calls.map((call) => (call as { operationName: string }).operationName)).toEqual(['A', 'A']);
  });

  it('counts its outcomes', async () => {
    const { lane, metrics } = await laneOver(() => ({ data: { hello: 'world' } }));
    await ask(lane, '{ hello }');
    await seenByPipeline(lane, '{ hello }');
    await ask(lane, '{ hello }');
    await ask(lane, '{ hello }');
    const text = (await metrics.render()).body;
    expect(text).toContain('tributary_graphql_fast_lane_requests_total{server="gateway",outcome="declined",process="test"} 1');
    expect(text).toContain('tributary_graphql_fast_lane_requests_total{server="gateway",outcome="served",process="test"} 2');
  });
});
