import { Counter, Gauge, type Registry } from 'prom-client';

/** What the gateway's fetch cache reports when /metrics is read (gateway/fetch-cache/fetch-cache.ts's stats). */
export interface FetchCacheReport {
  entries: number;
  bytes: number;
  hits: number;
  misses: number;
  shared: number;
  refused: number;
  evictions: Record<'change' | 'capacity' | 'expired' | 'lost', number>;
  /** The change log's position the cache has applied, and the last one seen written (decimal). */
  position: string;
  head: string;
  /** The shared level (Redis), when there is one. */
  secondLevel?: { hits: number; misses: number; errors: number };
}

/**
 * The fetch cache's series (issue 39), read from its counters at scrape time: lookups by result, replies refused,
 * evictions by cause, entries and bytes held, and how far behind the change log this process is.
 */
export function fetchCacheMetrics(registry: Registry): { trackFetchCache(report: () => FetchCacheReport): void } {
  const reports: (() => FetchCacheReport)[] = [];
  const each = (read: (report: FetchCacheReport) => void) => {
    for (const report of reports) read(report());
  };
  new Counter({
    name: 'tributary_gateway_cache_lookups_total',
    help: 'Fetch-cache lookups by result: hit, miss (fetched), shared (a miss that waited on the same fetch already running).',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      this.reset();
      each((report) => {
        this.inc({ result: 'hit' }, report.hits);
        this.inc({ result: 'miss' }, report.misses - report.shared);
        this.inc({ result: 'shared' }, report.shared);
      });
    },
  });
  new Counter({
    name: 'tributary_gateway_cache_refused_total',
    help: 'Replies fetched but not kept: larger than GATEWAY_CACHE_MAX_ENTRY_BYTES, or an entity in them changed while they were fetched.',
    registers: [registry],
    collect() {
      this.reset();
      each((report) => this.inc(report.refused));
    },
  });
  new Counter({
    name: 'tributary_gateway_cache_evictions_total',
    help: 'Entries evicted by cause: change (the change log named an entity they hold), capacity, expired (max age), lost (the log was lost: all dropped).',
    labelNames: ['cause'] as const,
    registers: [registry],
    collect() {
      this.reset();
      each((report) => {
        for (const [cause, count] of Object.entries(report.evictions)) this.inc({ cause }, count);
      });
    },
  });
  new Counter({
    name: 'tributary_gateway_cache_shared_lookups_total',
    help: 'Lookups of the shared level (Redis) on a local miss, by result: hit, miss, error (Redis down or slow: the local level served).',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      this.reset();
      each((report) => {
        if (!report.secondLevel) return;
        this.inc({ result: 'hit' }, report.secondLevel.hits);
        this.inc({ result: 'miss' }, report.secondLevel.misses);
        this.inc({ result: 'error' }, report.secondLevel.errors);
      });
    },
  });
  new Gauge({
    name: 'tributary_gateway_cache_entries',
    help: 'Entries the fetch cache holds.',
    registers: [registry],
    collect() {
      each((report) => this.set(report.entries));
    },
  });
  new Gauge({
    name: 'tributary_gateway_cache_bytes',
    help: 'Bytes the fetch cache holds (reply text and bookkeeping, estimated).',
    registers: [registry],
    collect() {
      each((report) => this.set(report.bytes));
    },
  });
  new Gauge({
    name: 'tributary_gateway_cache_log_lag',
    help: 'Changes written to the change log that this process has not yet applied to its cache (the last position seen − the position applied).',
    registers: [registry],
    collect() {
      each((report) =>
        this.set(Number(BigInt(report.head) - BigInt(report.position) > 0n ? BigInt(report.head) - BigInt(report.position) : 0n)),
      );
    },
  });
  new Gauge({
    name: 'tributary_gateway_cache_log_position',
    help: "The change log's position this process's cache has applied: every change up to it has evicted what it touched.",
    registers: [registry],
    collect() {
      each((report) => this.set(Number(report.position)));
    },
  });
  return { trackFetchCache: (report) => void reports.push(report) };
}
