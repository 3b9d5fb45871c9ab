import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { fetchCacheMetrics, type FetchCacheReport } from './fetch-cache-metrics.ts';
import { createSeriesCounter, createSeriesHistogram, type CounterSeries, type HistogramSeries } from './prometheus-series.ts';

/**
 * The process's Prometheus metrics (prom-client), one registry per process (never prom-client's global one: tests run
 * several systems in one process). Every front door reports here — HTTP routes, GraphQL operations, gRPC methods — plus
 * the database, uploads and rate limiting. Served as text at /metrics on every HTTP listener of the process.
 *
 * Label values that come from clients (GraphQL operation names, routes) are bounded: past a fixed number of distinct
 * values per label, new ones are reported as "other", so a client cannot grow the registry without end.
 */
export interface Metrics {
  readonly enabled: boolean;
  /** The exposition text and its content type, for /metrics. */
  render(): Promise<{ contentType: string; body: string }>;
  /** One HTTP request answered by `listener` (rest-own, rest-parent, gateway, subgraph-users, …). */
  observeHttp(listener: string, method: string, route: string, status: number, seconds: number): void;
  /** One GraphQL operation executed by `server` (gateway, or a subgraph's name); `errorCodes`: extensions.code of each error. */
  observeGraphql(server: string, operation: string, type: string, seconds: number, errorCodes: readonly string[]): void;
  /**
   * An operation the fast lane of `server` looked at (gateway/stand-ins/operation-fast-lane.ts; the gateway's POST /graphql
   * and the REST adapter's in-process operations, a subgraph server's POST /graphql): `served` by it, `replayed` (run by it, answered by Apollo Server's pipeline: errors),
   * `declined` (left to the pipeline before running: a document not seen before, a refusal, anything unusual).
   */
  observeFastLane(server: string, outcome: FastLaneOutcome): void;
  /** One gRPC call; `code` is the gRPC status name (OK, NOT_FOUND, …). */
  observeGrpc(method: string, code: string, seconds: number): void;
  /** One SQL statement. */
  observeQuery(seconds: number, failed: boolean): void;
  /** Reports the pool's connections when /metrics is read. */
  trackPool(pool: () => { total: number; idle: number; waiting: number } | undefined): void;
  /** An image stored (its bytes) or refused. */
  observeUpload(outcome: 'stored' | 'refused', bytes: number): void;
  /** A request refused by a rate limit (`area`: social, media; `scope`: app, user, page, business, upload). */
  observeRateLimited(area: string, scope: string): void;
  /** Reports which stand-ins serve (lib/stand-ins/) when /metrics is read: 1 serving, 0 the library's route. */
  trackStandIns(decisions: () => readonly { id: string; enabled: boolean }[]): void;
  /** A query's fetch to `subgraph` sent again (to another instance, or the same) after a refused or reset connection. */
  observeSubgraphRetry(subgraph: string): void;
  /** Reports the gateway's fetch cache (hits, misses, evictions, size, the change log's lag) when /metrics is read. */
  trackFetchCache(report: () => FetchCacheReport): void;
  /** Reports each subgraph's instances and how many have an open circuit when /metrics is read. */
  trackSubgraphCircuits(circuits: () => readonly { subgraph: string; instances: number; open: number }[]): void;
  /** A supergraph reload (SIGHUP, the file watch): applied, unchanged, or refused (the one loaded before serves on). */
  observeSupergraphReload(outcome: 'applied' | 'unchanged' | 'refused'): void;
  /**
   * One webhook delivery of `events` events (subgraphs/shared/webhooks/webhook-delivery-worker.ts): delivered (2xx),
   * failed (to be retried), or dropped (failing for the whole retry window).
   */
  observeWebhookDelivery(outcome: WebhookDeliveryOutcome, events: number): void;
  /** Reports the webhook queue when /metrics is read: undelivered events and the age of the oldest (seconds). */
  trackWebhookQueue(stats: () => Promise<{ undelivered: number; oldestAgeSeconds: number }>): void;
  /** A GraphQL subscription through the gateway opened (+1) or ended (-1), by transport (gateway/live/). */
  observeSubscriptionOpen(transport: SubscriptionTransport, delta: 1 | -1): void;
  /** A subscription's result sent to its client; `resumed` counts subscriptions started with a cursor (`after`). */
  observeSubscriptionEvent(transport: SubscriptionTransport): void;
  observeSubscriptionResume(transport: SubscriptionTransport): void;
  /** A subscription connection closed for being too slow to read (closed with how to resume, never skipped over). */
  observeSlowConsumerClose(transport: SubscriptionTransport): void;
}

export type SubscriptionTransport = 'websocket' | 'sse' | 'multipart';

export type WebhookDeliveryOutcome = 'delivered' | 'failed' | 'dropped';

export type FastLaneOutcome = 'served' | 'replayed' | 'declined';

const MAX_LABEL_VALUES = 200;

/** Keeps at most MAX_LABEL_VALUES distinct values; later ones become "other". */
function boundedLabel(): (value: string) => string {
  const seen = new Set<string>();
  return (value) => {
    const text = value.length > 100 ? value.slice(0, 100) : value;
    if (seen.has(text)) return text;
    if (seen.size >= MAX_LABEL_VALUES) return 'other';
    seen.add(text);
    return text;
  };
}

/** Latency buckets (seconds) from 1 ms to 30 s: API calls, and uploads of several megabytes. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const NOOP: Metrics = {
  enabled: false,
  render: async () => ({ contentType: 'text/plain; version=0.0.4; charset=utf-8', body: '' }),
  observeHttp: () => undefined,
  observeGraphql: () => undefined,
  observeFastLane: () => undefined,
  observeGrpc: () => undefined,
  observeQuery: () => undefined,
  trackPool: () => undefined,
  observeUpload: () => undefined,
  observeRateLimited: () => undefined,
  trackStandIns: () => undefined,
  observeSubgraphRetry: () => undefined,
  trackSubgraphCircuits: () => undefined,
  trackFetchCache: () => undefined,
  observeSupergraphReload: () => undefined,
  observeWebhookDelivery: () => undefined,
  trackWebhookQueue: () => undefined,
  observeSubscriptionOpen: () => undefined,
  observeSubscriptionEvent: () => undefined,
  observeSubscriptionResume: () => undefined,
  observeSlowConsumerClose: () => undefined,
};

/**
 * prom-client's default metrics (CPU, memory, event loop, GC), one registry per process role and process: they describe
 * the process, not a system in it, and collectDefaultMetrics cannot be stopped — its GC observer holds its registry, and
 * so every metric and collect callback in it, for the life of the process. Made per system, each system a test or a
 * reload starts and closes would stay in memory (several hundred MB each with PGlite) and be sampled at every GC.
 */
const processRegistries = new Map<string, Registry>();
function processMetrics(role: string): Registry {
  let registry = processRegistries.get(role);
  if (registry === undefined) {
    registry = new Registry();
    registry.setDefaultLabels({ process: role });
    collectDefaultMetrics({ register: registry });
    processRegistries.set(role, registry);
  }
  return registry;
}

/**
 * @param options.process the process's role (tributary, gateway, subgraph-users, grpc…), a label on every metric so that
 *   one Prometheus job can scrape every process of a deployment.
 */
export function createMetrics(options: { enabled: boolean; process: string }): Metrics {
  if (!options.enabled) return NOOP;
  const defaults = processMetrics(options.process);
  const registry = new Registry();
  registry.setDefaultLabels({ process: options.process });
  const webhooks = webhookMetrics(registry);
  return {
    enabled: true,
    async render() {
      await webhooks.readQueues();
      return { contentType: registry.contentType, body: (await defaults.metrics()) + (await registry.metrics()) };
    },
    ...requestMetrics(registry),
    ...databaseMetrics(registry),
    ...areaMetrics(registry),
    ...gatewayMetrics(registry),
    ...fetchCacheMetrics(registry),
    observeWebhookDelivery: webhooks.observeWebhookDelivery,
    trackWebhookQueue: webhooks.trackWebhookQueue,
    ...liveMetrics(registry),
  };
}

/**
 * What every front door records per request: HTTP routes, GraphQL operations, the fast lane's outcomes, gRPC calls.
 * Series metrics (prometheus-series.ts): the same exposition as prom-client's, without its label validation and hashing
 * at every observation.
 */
function requestMetrics(registry: Registry): Pick<Metrics, 'observeHttp' | 'observeGraphql' | 'observeFastLane' | 'observeGrpc'> {
  const httpRequests = createSeriesCounter({
    name: 'tributary_http_requests_total',
    help: 'HTTP requests answered, by listener, method, route and status.',
    labelNames: ['listener', 'method', 'route', 'status'] as const,
    registry,
  });
  const httpDuration = createSeriesHistogram({
    name: 'tributary_http_request_duration_seconds',
    help: 'Time from the request to the end of its reply, by listener, method and route.',
    labelNames: ['listener', 'method', 'route'] as const,
    buckets: LATENCY_BUCKETS,
    registry,
  });
  const graphqlDuration = createSeriesHistogram({
    name: 'tributary_graphql_operation_duration_seconds',
    help: 'GraphQL operations executed, by server (gateway or subgraph), operation name and type.',
    labelNames: ['server', 'operation', 'type'] as const,
    buckets: LATENCY_BUCKETS,
    registry,
  });
  const graphqlErrors = new Counter({
    name: 'tributary_graphql_errors_total',
    help: 'Errors in GraphQL responses, by server and extensions.code.',
    labelNames: ['server', 'code'] as const,
    registers: [registry],
  });
  const fastLane = createSeriesCounter({
    name: 'tributary_graphql_fast_lane_requests_total',
    help: "GraphQL operations a fast lane looked at (POST /graphql, the REST adapter's), by server (gateway or subgraph) and outcome (served, replayed, declined).",
    labelNames: ['server', 'outcome'] as const,
    registry,
  });
  const fastLaneSeries = new Map<string, CounterSeries>();
  const grpcDuration = createSeriesHistogram({
    name: 'tributary_grpc_request_duration_seconds',
    help: 'gRPC calls, by method and status code.',
    labelNames: ['method', 'code'] as const,
    buckets: LATENCY_BUCKETS,
    registry,
  });
  const route = boundedLabel();
  const operation = boundedLabel();
  // The series of an HTTP route are found once per listener, method, route and status (one key instead of two lookups).
  const httpSeries = new Map<string, { requests: CounterSeries; duration: HistogramSeries }>();
  return {
    observeHttp(listener, method, path, status, seconds) {
      const key = `${listener} ${method} ${path} ${status}`;
      let series = httpSeries.get(key);
      if (!series) {
        const labels = { listener, method, route: route(path) };
        series = { requests: httpRequests.series({ ...labels, status: String(status) }), duration: httpDuration.series(labels) };
        // Bounded like the labels: a route past the cap shares "other", whose key is not kept.
        if (httpSeries.size < MAX_LABEL_VALUES * 20) httpSeries.set(key, series);
      }
      series.requests.inc();
      series.duration.observe(seconds);
    },
    observeGraphql(server, name, type, seconds, errorCodes) {
      graphqlDuration.series({ server, operation: operation(name), type }).observe(seconds);
      for (const code of errorCodes) graphqlErrors.inc({ server, code });
    },
    observeFastLane(server, outcome) {
      const key = `${server} ${outcome}`;
      let series = fastLaneSeries.get(key);
      if (!series) {
        series = fastLane.series({ server, outcome });
        fastLaneSeries.set(key, series);
      }
      series.inc();
    },
    observeGrpc(method, code, seconds) {
      grpcDuration.series({ method, code }).observe(seconds);
    },
  };
}

/** The database: each statement's time (a series metric, as the requests'), and the pools' connections at scrape time. */
function databaseMetrics(registry: Registry): Pick<Metrics, 'observeQuery' | 'trackPool'> {
  const queryDuration = createSeriesHistogram({
    name: 'tributary_db_query_duration_seconds',
    help: 'SQL statements run, by outcome.',
    labelNames: ['outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registry,
  });
  // Not made until a statement runs: a series is reported from its first observation, as prom-client's are.
  const querySeries: { ok?: HistogramSeries; error?: HistogramSeries } = {};
  const pools: (() => { total: number; idle: number; waiting: number } | undefined)[] = [];
  new Gauge({
    name: 'tributary_db_pool_connections',
    help: 'Database connections of this process, by state (in_use, idle; waiting: requests queued for a connection).',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      let total = 0;
      let idle = 0;
      let waiting = 0;
      for (const pool of pools) {
        const state = pool();
        if (!state) continue;
        total += state.total;
        idle += state.idle;
        waiting += state.waiting;
      }
      this.set({ state: 'in_use' }, total - idle);
      this.set({ state: 'idle' }, idle);
      this.set({ state: 'waiting' }, waiting);
    },
  });
  return {
    observeQuery(seconds, failed) {
      const outcome = failed ? 'error' : 'ok';
      (querySeries[outcome] ??= queryDuration.series({ outcome })).observe(seconds);
    },
    trackPool(pool) {
      pools.push(pool);
    },
  };
}

/** What the areas count: uploads (Area D) and rate-limit refusals (the social graph's and the uploads'). */
function areaMetrics(registry: Registry): Pick<Metrics, 'observeUpload' | 'observeRateLimited'> {
  const uploads = new Counter({
    name: 'tributary_media_uploads_total',
    help: 'Image uploads, by outcome (stored, refused).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const uploadBytes = new Counter({
    name: 'tributary_media_upload_bytes_total',
    help: 'Bytes of the images stored.',
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'tributary_rate_limit_rejections_total',
    help: 'Requests refused by a rate limit, by area and scope.',
    labelNames: ['area', 'scope'] as const,
    registers: [registry],
  });
  return {
    observeUpload(outcome, bytes) {
      uploads.inc({ outcome });
      if (bytes > 0) uploadBytes.inc(bytes);
    },
    observeRateLimited(area, scope) {
      rateLimited.inc({ area, scope });
    },
  };
}

/** The gateway's own: retries, supergraph reloads, subgraph circuits and which stand-ins serve (the last two at scrape time). */
function gatewayMetrics(
  registry: Registry,
): Pick<Metrics, 'observeSubgraphRetry' | 'observeSupergraphReload' | 'trackSubgraphCircuits' | 'trackStandIns'> {
  const subgraphRetries = new Counter({
    name: 'tributary_subgraph_retries_total',
    help: 'Query fetches the gateway sent again after a subgraph instance refused or reset the connection (mutations never are).',
    labelNames: ['subgraph'] as const,
    registers: [registry],
  });
  const supergraphReloads = new Counter({
    name: 'tributary_supergraph_reloads_total',
    help: 'Supergraph reloads (SIGHUP, the file watch) by outcome: applied, unchanged, refused (the supergraph loaded before serves on).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const circuits: (() => readonly { subgraph: string; instances: number; open: number }[])[] = [];
  new Gauge({
    name: 'tributary_subgraph_instances',
    help: 'Instances of each subgraph the gateway reaches, by circuit state (closed: taking fetches; open: skipped after failing in a row).',
    labelNames: ['subgraph', 'circuit'] as const,
    registers: [registry],
    collect() {
      for (const report of circuits) {
        for (const { subgraph, instances, open } of report()) {
          this.set({ subgraph, circuit: 'closed' }, instances - open);
          this.set({ subgraph, circuit: 'open' }, open);
        }
      }
    },
  });
  const standIns: (() => readonly { id: string; enabled: boolean }[])[] = [];
  new Gauge({
    name: 'tributary_stand_in_serving',
    help: "Stand-ins for library code (gateway/stand-ins/README.md): 1 serving, 0 off (switched off, or the library's release is not the one it was checked against: see the start-up warning).",
    labelNames: ['stand_in'] as const,
    registers: [registry],
    collect() {
      for (const decisions of standIns) for (const { id, enabled } of decisions()) this.set({ stand_in: id }, enabled ? 1 : 0);
    },
  });
  return {
    observeSubgraphRetry(subgraph) {
      subgraphRetries.inc({ subgraph });
    },
    observeSupergraphReload(outcome) {
      supergraphReloads.inc({ outcome });
    },
    trackSubgraphCircuits(report) {
      circuits.push(report);
    },
    trackStandIns(decisions) {
      standIns.push(decisions);
    },
  };
}

/** Webhook deliveries as they happen, and the queue read from the database when /metrics is (`readQueues`). */
function webhookMetrics(
  registry: Registry,
): Pick<Metrics, 'observeWebhookDelivery' | 'trackWebhookQueue'> & { readQueues(): Promise<void> } {
  const webhookDeliveries = new Counter({
    name: 'tributary_webhook_deliveries_total',
    help: 'Webhook deliveries (POSTs of a batch to a callback), by outcome: delivered (2xx), failed (retried with backoff), dropped (failing for the whole retry window).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const webhookEvents = new Counter({
    name: 'tributary_webhook_events_total',
    help: 'Events in webhook deliveries, by outcome: delivered, dropped.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const webhookQueues: (() => Promise<{ undelivered: number; oldestAgeSeconds: number }>)[] = [];
  const webhookQueueEvents = new Gauge({
    name: 'tributary_webhook_queue_events',
    help: 'Events not yet delivered to the webhook callbacks that get them, all subscriptions together (read at scrape time).',
    registers: [registry],
  });
  const webhookQueueAge = new Gauge({
    name: 'tributary_webhook_queue_oldest_age_seconds',
    help: 'Age of the oldest event not yet delivered to a webhook callback that gets it; 0 when none waits (read at scrape time).',
    registers: [registry],
  });
  return {
    observeWebhookDelivery(outcome, events) {
      webhookDeliveries.inc({ outcome });
      if (outcome !== 'failed' && events > 0) webhookEvents.inc({ outcome }, events);
    },
    trackWebhookQueue(stats) {
      webhookQueues.push(stats);
    },
    /** Both webhook queue gauges from one reading per scrape; when the database cannot answer, they keep the last one. */
    async readQueues() {
      if (webhookQueues.length === 0) return;
      try {
        const all = await Promise.all(webhookQueues.map((stats) => stats()));
        webhookQueueEvents.set(all.reduce((sum, one) => sum + one.undelivered, 0));
        webhookQueueAge.set(Math.max(...all.map((one) => one.oldestAgeSeconds)));
      } catch {
        // The database's own metrics say why.
      }
    },
  };
}

/** GraphQL subscriptions through the gateway (gateway/live/), by transport. */
function liveMetrics(
  registry: Registry,
): Pick<Metrics, 'observeSubscriptionOpen' | 'observeSubscriptionEvent' | 'observeSubscriptionResume' | 'observeSlowConsumerClose'> {
  const subscriptionsOpen = new Gauge({
    name: 'tributary_subscriptions_open',
    help: 'GraphQL subscriptions open through the gateway, by transport (websocket, sse, multipart).',
    labelNames: ['transport'] as const,
    registers: [registry],
  });
  const subscriptionEvents = new Counter({
    name: 'tributary_subscription_events_total',
    help: 'Subscription results sent to clients, by transport.',
    labelNames: ['transport'] as const,
    registers: [registry],
  });
  const subscriptionResumes = new Counter({
    name: 'tributary_subscription_resumes_total',
    help: 'Subscriptions started with a cursor (after, or Last-Event-ID over SSE): clients resuming, by transport.',
    labelNames: ['transport'] as const,
    registers: [registry],
  });
  const slowConsumerCloses = new Counter({
    name: 'tributary_subscription_slow_closes_total',
    help: 'Subscription connections closed for reading too slowly (told to resubscribe with after), by transport.',
    labelNames: ['transport'] as const,
    registers: [registry],
  });
  return {
    observeSubscriptionOpen(transport, delta) {
      subscriptionsOpen.inc({ transport }, delta);
    },
    observeSubscriptionEvent(transport) {
      subscriptionEvents.inc({ transport });
    },
    observeSubscriptionResume(transport) {
      subscriptionResumes.inc({ transport });
    },
    observeSlowConsumerClose(transport) {
      slowConsumerCloses.inc({ transport });
    },
  };
}

/** Metrics that record nothing (tests and tools that need none). */
export function noMetrics(): Metrics {
  return NOOP;
}
