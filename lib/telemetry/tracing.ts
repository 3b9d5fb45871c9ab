import {
  context,
  createContextKey,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
} from '@opentelemetry/api';
import { createRequire } from 'node:module';
import type * as OtlpExporter from '@opentelemetry/exporter-trace-otlp-http';
import type * as Resources from '@opentelemetry/resources';
import type * as SdkTraceNode from '@opentelemetry/sdk-trace-node';

/**
 * The SDK's packages (the provider, the OTLP exporter, resources and their cloud detectors: several hundred modules) are
 * loaded only when tracing is on: a process without an endpoint never pays for them at start-up. They ship CommonJS
 * builds, so they load synchronously and createTracing stays synchronous.
 */
const require = createRequire(import.meta.url);
function loadSdk() {
  return {
    ...(require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpExporter),
    ...(require('@opentelemetry/resources') as typeof Resources),
    ...(require('@opentelemetry/sdk-trace-node') as typeof SdkTraceNode),
  };
}

/**
 * OpenTelemetry tracing, off unless an OTLP endpoint is configured. When on, every hop makes spans — the HTTP server span
 * of each request (REST adapter, gateway, subgraph), @apollo/gateway's own spans (gateway.request, gateway.plan,
 * gateway.fetch…, which it makes through @opentelemetry/api once a provider is registered), one span per SQL statement and
 * per gRPC call — and carries the W3C `traceparent` header on every request it sends to the next hop, so that one trace
 * runs from the REST adapter to the SQL. Spans are batched and exported over OTLP/HTTP (JSON).
 *
 * Spans are made by hand rather than by Node auto-instrumentation: that patches modules as they are `require`d, which
 * misses this ESM code base's `import`s without a loader hook, and would trace far more than the hops that matter.
 */
export interface Tracing {
  readonly enabled: boolean;
  /** Starts a SERVER span for an incoming request, child of the trace its headers carry (if any). */
  startServerSpan(
    name: string,
    headers: Record<string, string | string[] | undefined>,
    attributes?: Attributes,
  ): { span: Span; context: Context };
  /** A span of work inside the current trace (a gRPC call, a SQL statement that already ran…). */
  startSpan(name: string, options?: { kind?: SpanKind; attributes?: Attributes; startTime?: number; links?: Link[] }): Span;
  /** Adds the current trace's `traceparent` (and `tracestate`) to headers a request to the next hop will carry. */
  inject(headers: Record<string, string>): void;
  /** Flushes pending spans and unregisters the provider. */
  shutdown(): Promise<void>;
}

export interface TracingConfig {
  /** OTLP/HTTP traces endpoint (…/v1/traces); tracing is off without it. */
  endpoint: string | undefined;
  /** service.name of the spans; the process's role by default. */
  serviceName: string | undefined;
  /** Share of new traces recorded (0–1); a request that arrives inside a sampled trace is always recorded. */
  sampleRatio: number;
}

const TRACER_NAME = 'tributary';

const DISABLED: Tracing = {
  enabled: false,
  startServerSpan: () => ({
    span: trace.wrapSpanContext({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 }),
    context: context.active(),
  }),
  startSpan: () => trace.wrapSpanContext({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 }),
  inject: () => undefined,
  shutdown: async () => undefined,
};

/** The process's tracing. Only one provider can be registered per process; a second enabled call reuses nothing and says so. */
export function createTracing(config: TracingConfig, processName: string): Tracing {
  if (!config.endpoint) return DISABLED;
  const {
    BatchSpanProcessor,
    NodeTracerProvider,
    OTLPTraceExporter,
    ParentBasedSampler,
    resourceFromAttributes,
    TraceIdRatioBasedSampler,
  } = loadSdk();
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName ?? `tributary-${processName}` }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.sampleRatio) }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: config.endpoint }), { scheduledDelayMillis: 500 })],
  });
  // Global: @apollo/gateway finds the provider through @opentelemetry/api. Also installs the AsyncLocalStorage context
  // manager (the active span follows async code) and the W3C trace-context propagator.
  provider.register();
  const tracer = trace.getTracer(TRACER_NAME);
  return {
    enabled: true,
    startServerSpan(name, headers, attributes) {
      const parent = propagation.extract(ROOT_CONTEXT, headers);
      const span = tracer.startSpan(name, { kind: SpanKind.SERVER, ...(attributes ? { attributes } : {}) }, parent);
      return { span, context: trace.setSpan(parent, span) };
    },
    startSpan(name, options = {}) {
      return tracer.startSpan(name, {
        kind: options.kind ?? SpanKind.INTERNAL,
        ...(options.attributes ? { attributes: options.attributes } : {}),
        ...(options.startTime !== undefined ? { startTime: options.startTime } : {}),
        ...(options.links && options.links.length > 0 ? { links: options.links } : {}),
      });
    },
    inject(headers) {
      propagation.inject(context.active(), headers);
    },
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

const SHARED_WORK_KEY = createContextKey('tributary.shared-work');

/**
 * The trace position of the caller, to hand to `withSharedWork` when its work is done together with other callers'. Undefined
 * when nothing is traced (no provider, or a span that is not recorded), at the cost of one context lookup.
 */
export function callerSpanContext(): SpanContext | undefined {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return undefined;
  return span.spanContext();
}

/**
 * Runs `work` — done once on behalf of several callers, e.g. one SQL statement answering reads that several requests asked
 * for — under the first caller's trace, and has the spans it makes link to the others' (OpenTelemetry span links), so that
 * each request's trace reaches the statement that served it.
 */
export function withSharedWork<T>(callers: readonly (SpanContext | undefined)[], work: () => T): T {
  const current = trace.getActiveSpan()?.spanContext().spanId;
  // One link per other span: a request that asked for several ids of the batch is one caller.
  const others = new Map<string, SpanContext>();
  for (const caller of callers) if (caller && caller.spanId !== current) others.set(caller.spanId, caller);
  if (others.size === 0) return work();
  return context.with(context.active().setValue(SHARED_WORK_KEY, [...others.values()]), work);
}

/** The links a span made now should carry: the other callers of the shared work under way (see withSharedWork). */
export function sharedWorkLinks(): Link[] {
  const callers = context.active().getValue(SHARED_WORK_KEY) as readonly SpanContext[] | undefined;
  return callers ? callers.map((caller) => ({ context: caller })) : [];
}

/** Marks a span failed with an error (its message only: error details may carry request data). */
export function failSpan(span: Span, message: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

export { SpanKind };
