/**
 * lib/telemetry/tracing.ts's shared work: the spans made while work runs for several callers link to each other caller
 * once — not to the caller whose trace the work runs in, not to callers with nothing traced, not twice to one caller
 * that asked for several parts of it. With a real provider and its AsyncLocalStorage context manager.
 */
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerSpanContext, sharedWorkLinks, withSharedWork } from '../../lib/telemetry/tracing.ts';

let provider: NodeTracerProvider;

beforeAll(() => {
  provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] });
  provider.register();
});

afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});

describe('shared work', () => {
  it('links each other recorded caller once, and not the one it runs under', async () => {
    const tracer = trace.getTracer('test');
    const [first, second, third] = ['first', 'second', 'third'].map((name) => tracer.startSpan(name));
    const callers = [first!, second!, third!].map((span) => context.with(trace.setSpan(context.active(), span), () => callerSpanContext()));
    expect(callers.map((caller) => caller?.spanId)).toEqual([first!, second!, third!].map((span) => span.spanContext().spanId));

    const links = await context.with(trace.setSpan(context.active(), first!), () =>
      withSharedWork([callers[0], callers[1], undefined, callers[1], callers[2], callers[0]], async () => {
        await new Promise((resolve) => setImmediate(resolve)); // the links follow the work across async steps
        return sharedWorkLinks();
      }),
    );
    expect(links.map((link) => link.context.spanId)).toEqual([second!, third!].map((span) => span.spanContext().spanId));
  });

  it('adds no links when the work serves only its own caller, and none outside the work', () => {
    const span = trace.getTracer('test').startSpan('alone');
    const own = context.with(trace.setSpan(context.active(), span), () => callerSpanContext());
    expect(context.with(trace.setSpan(context.active(), span), () => withSharedWork([own, own], () => sharedWorkLinks()))).toEqual([]);
    expect(sharedWorkLinks()).toEqual([]);
    expect(callerSpanContext()).toBeUndefined();
  });
});
