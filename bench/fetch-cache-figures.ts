/**
 * The fetch cache's figures beside its throughput (issue 39; bench/fetch-cache.ts runs them on its processes): how long
 * another instance serves a record after a write changed it, how many concurrent identical misses share one fetch, and
 * what the cache holds in memory at its bound. Each reads the instance's own counters from its /metrics
 * (lib/telemetry/fetch-cache-metrics.ts): the log position it has applied, its lookups by result, entries and bytes.
 *
 * - Staleness: a record read twice on instance B (its second read must be a hit), then updated through instance A; B's
 *   /metrics is polled, one scrape in flight, from just before the write is sent until B's applied log position reaches
 *   the position A's reply carries (`tributary-log-position`). B's follower moves its position only after the change's
 *   evictions (subgraphs/shared/event-log/change-follower.ts), so the scrape that first shows it is an upper bound of
 *   B's eviction, within one scrape's round trip. Measured from the write's request sent (an upper bound of commit →
 *   evicted) and from the commit as a listener of the log's NOTIFY sees it (PostgreSQL delivers NOTIFY at commit); then
 *   B's read of the record without a position must show the write.
 * - Single flight: `concurrency` identical reads (the same record, token and document) of a record nothing has read,
 *   sent at once; the cache's lookups over them: misses that joined the fetch already running (`shared`) ÷ the misses
 *   that could have (all but the first).
 * - Memory at the bound: after a warm-up on a few records, the process's memory after a full collection (its inspector:
 *   bench/inspector-memory.ts) and the cache's bytes; then reads of records nothing has read until the cache evicts for
 *   capacity; the same again. Per entry: the cache's own byte accounting, and the heap and RSS deltas ÷ the entries
 *   added; at the bound: RSS against the baseline RSS + GATEWAY_CACHE_MAX_BYTES.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { LOG_POSITION_HEADER } from '../lib/http/log-position.ts';
import { formatTable } from './format-table.ts';
import { inspectProcess } from './inspector-memory.ts';
import { GET_QUERY } from './layers.ts';
import { runHttpLoad } from './load.ts';
import { processRss } from './proc-stat.ts';

/** Issue 39's targets: p99 of commit → the other instance has evicted; shared ÷ concurrent identical misses; RSS. */
export const STALENESS_TARGET_MS = 50;
export const SINGLE_FLIGHT_TARGET = 0.9;
export const BOUND_RSS_TOLERANCE = 0.1;

/** The change log's NOTIFY channel (subgraphs/shared/event-log/event-log.repository.ts's EVENT_CHANNEL). */
const EVENT_CHANNEL = 'social_event';
const UPDATE_NAME = 'mutation Rename($id: UInt64!, $name: String!) { updateUserExample(id: $id, input: { name: $name }) { id } }';
const MIB = 1_048_576;

/** What the bench reads of one process's fetch cache on its /metrics. */
export interface CacheSample {
  position: number;
  /** Lookups answered from the store, at either level (a whole response, or a fetch). */
  hits: number;
  /** Lookups that found nothing (the series' `miss`: shared ones are not in it). */
  misses: number;
  /** Fetch-level misses that joined the same key's fetch already running. */
  shared: number;
  entries: number;
  bytes: number;
  capacityEvictions: number;
}

/** `origin/metrics` of a GraphQL URL: every listener of a process answers it. */
export function metricsUrlOf(graphqlUrl: string): string {
  return `${new URL(graphqlUrl).origin}/metrics`;
}

/**
 * A process's /metrics as a reader of its series: the sum of the `name{labels} value` lines of `name` that carry every
 * label of `labels` (others, such as the process's default label, may be there too); throws when there is none.
 */
async function scrape(metricsUrl: string): Promise<(name: string, ...labels: string[]) => number> {
  const response = await fetch(metricsUrl, { signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${metricsUrl}: HTTP ${response.status}`);
  const lines = text.split('\n');
  return (name, ...labels) => {
    const found = lines.filter((line) => line.startsWith(`${name}{`) && labels.every((label) => line.includes(label)));
    if (found.length === 0) throw new Error(`${metricsUrl} has no ${name}{${labels.join(',')}} (is the fetch cache on?)`);
    return found.reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  };
}

export async function scrapeCache(metricsUrl: string): Promise<CacheSample> {
  const value = await scrape(metricsUrl);
  return {
    position: value('tributary_gateway_cache_log_position'),
    hits: value('tributary_gateway_cache_lookups_total', 'result="hit"'),
    misses: value('tributary_gateway_cache_lookups_total', 'result="miss"'),
    shared: value('tributary_gateway_cache_lookups_total', 'result="shared"'),
    entries: value('tributary_gateway_cache_entries'),
    bytes: value('tributary_gateway_cache_bytes'),
    capacityEvictions: value('tributary_gateway_cache_evictions_total', 'cause="capacity"'),
  };
}

/** The POST requests a process has answered (a subgraph server's: each one a fetch some gateway sent it). */
async function postsAnswered(metricsUrl: string): Promise<number> {
  return (await scrape(metricsUrl))('tributary_http_requests_total', 'method="POST"');
}

/** A GraphQL POST; its `data` (throws on errors) and the reply's log position, if it carries one. */
async function graphql(
  url: string,
  token: string,
  query: string,
  variables: Record<string, unknown>,
): Promise<{ data: Record<string, unknown>; position?: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await response.json()) as { data?: Record<string, unknown> | null; errors?: unknown };
  if (response.status !== 200 || body.errors !== undefined || !body.data) {
    throw new Error(`${url}: HTTP ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
  }
  const position = response.headers.get(LOG_POSITION_HEADER) ?? undefined;
  return { data: body.data, ...(position !== undefined && { position }) };
}

const nameOf = (data: Record<string, unknown>) => (data.userExample as { name?: string } | null)?.name;

/**
 * Inserts `count` Area A records for the figures in one statement (the repository's insert, eight at a time, would take
 * minutes for the memory figure's tens of thousands), with the seeded records' password hash; returns their ids. Nothing
 * has read them: each is a cold key on every instance and in Redis.
 */
export async function insertFigureRecords(databaseUrl: string, count: number): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>(
      `insert into users.user_example (name, email, password_hash, phone, avatar, age, gender)
       select 'Figure User ' || g, 'bench-figure-' || g || '@example.com',
              (select password_hash from users.user_example order by id limit 1),
              '139' || lpad(g::text, 8, '0'), 'https://example.com/avatars/f' || g || '.png', 20 + g % 60, g % 3
       from generate_series(1, $1::int) g
       returning id::text as id`,
      [count],
    );
    return rows.map((row) => row.id);
  } finally {
    await client.end();
  }
}

export interface StalenessFigure {
  instance: string;
  writes: number;
  /** The write's commit (the log's NOTIFY, as the bench's own listener receives it) → B's first read showing it. */
  fromCommit: Percentiles;
  /**
   * The write's transaction began (the record's `updatedAt`: PostgreSQL's now(), to the millisecond) → the same read:
   * an upper bound of commit → evicted, what the target is judged on.
   */
  fromTransaction: Percentiles;
  /** The write's request sent → the same read: that bound with A's HTTP and GraphQL work before the transaction. */
  fromSent: Percentiles;
  /** The write's reply on A (A replies once its own cache has applied the write). */
  writerReply: Percentiles;
  /** One read's round trip on B: the resolution of the figures above. */
  probe: Percentiles;
  /** B's second read before the write was not a hit (the trial measured no eviction): should be 0. */
  notWarm: number;
  /** B's position was short of the write's when its read showed the write (the read was not its cache's): should be 0. */
  positionBehind: number;
}

export interface Percentiles {
  p50: number;
  p99: number;
  max: number;
}

function percentiles(values: readonly number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? Number.NaN };
}

/** Wall-clock milliseconds with a fraction (the clock PostgreSQL's now() reads). */
const wallMs = () => performance.timeOrigin + performance.now();

/**
 * `ids.length` trials of: warm the record on `reader` (B), rename it through `writer` (A) while B is read without a
 * position, one read in flight, until a read shows the new name; then B's applied position is checked to have reached the
 * write's. `databaseUrl`: the log's database, whose NOTIFY marks the commit.
 */
export async function measureStaleness(options: {
  instance: string;
  writer: string;
  reader: string;
  token: string;
  ids: readonly string[];
  databaseUrl: string;
}): Promise<StalenessFigure> {
  const { reader, token } = options;
  const readerMetrics = metricsUrlOf(reader);
  const listener = new pg.Client({ connectionString: options.databaseUrl });
  await listener.connect();
  const notified: { position: number; at: number }[] = [];
  listener.on('notification', (message) => notified.push({ position: Number(message.payload), at: wallMs() }));
  await listener.query(`listen ${EVENT_CHANNEL}`);
  const figures = {
    fromCommit: [] as number[],
    fromTransaction: [] as number[],
    fromSent: [] as number[],
    writerReply: [] as number[],
    probe: [] as number[],
  };
  let notWarm = 0;
  let positionBehind = 0;
  try {
    for (const [trial, id] of options.ids.entries()) {
      const before = await scrapeCache(readerMetrics);
      await graphql(reader, token, GET_QUERY, { id });
      await graphql(reader, token, GET_QUERY, { id });
      if ((await scrapeCache(readerMetrics)).hits - before.hits < 1) notWarm++;
      notified.length = 0;
      const name = `Renamed ${trial} ${Date.now()}`;
      const sentAt = wallMs();
      const polling = (async () => {
        for (;;) {
          const sent = wallMs();
          const { data } = await graphql(reader, token, GET_QUERY, { id });
          const received = wallMs();
          if (nameOf(data) === name)
            return { sent, received, updatedAt: Date.parse((data.userExample as { updatedAt: string }).updatedAt) };
          if (received - sentAt > 10_000) throw new Error(`${options.instance}: B still served the old name 10 s after the write`);
        }
      })();
      const write = await graphql(options.writer, token, UPDATE_NAME, { id, name });
      figures.writerReply.push(wallMs() - sentAt);
      if (write.position === undefined) throw new Error(`the write's reply carries no ${LOG_POSITION_HEADER}: is the cache on on A?`);
      const fresh = await polling;
      if ((await scrapeCache(readerMetrics)).position < Number(write.position)) positionBehind++;
      const commit = notified.find((note) => note.position >= Number(write.position));
      if (commit) figures.fromCommit.push(fresh.received - commit.at);
      figures.fromTransaction.push(fresh.received - fresh.updatedAt);
      figures.fromSent.push(fresh.received - sentAt);
      figures.probe.push(fresh.received - fresh.sent);
    }
  } finally {
    await listener.end();
  }
  return {
    instance: options.instance,
    writes: options.ids.length,
    fromCommit: percentiles(figures.fromCommit),
    fromTransaction: percentiles(figures.fromTransaction),
    fromSent: percentiles(figures.fromSent),
    writerReply: percentiles(figures.writerReply),
    probe: percentiles(figures.probe),
    notWarm,
    positionBehind,
  };
}

export interface SingleFlightFigure {
  instance: string;
  rounds: number;
  concurrency: number;
  /** Reads answered from the store (a response kept by an earlier read of the round, or its fetch). */
  hits: number;
  /** Reads that joined the fetch already running for their key. */
  shared: number;
  /** Reads that ran the fetch: every read that neither hit nor shared (1 per round at best). */
  fetched: number;
  /** The subgraph server's requests over the rounds (distributed only): the fetches, counted where they arrive. */
  subgraphFetches?: number;
  /** shared ÷ (shared + the fetches beyond each round's first): of the misses that could have joined a fetch, those that did. */
  collapsing: number;
}

/**
 * For each of `ids` (records nothing has read), `concurrency` identical reads sent at once to `url`; the cache's lookups
 * over each round from its /metrics. Each read ends in one of: a hit (of a response kept by the round's first read, or
 * of the fetch: a response-level miss followed by a fetch-level hit), a shared fetch, a fetch of its own — so the
 * fetches are the reads less the hits and the shared. `subgraphMetrics`: the /metrics of the subgraph server the fetches
 * go to, which counts them itself. A first round on `warmId` opens the connections and is not counted.
 */
export async function measureSingleFlight(options: {
  instance: string;
  url: string;
  token: string;
  warmId: string;
  ids: readonly string[];
  concurrency: number;
  subgraphMetrics?: string | undefined;
}): Promise<SingleFlightFigure> {
  const metrics = metricsUrlOf(options.url);
  const burst = (id: string) =>
    Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        const { data } = await graphql(options.url, options.token, GET_QUERY, { id });
        if ((data.userExample as { id?: string } | null)?.id !== id) throw new Error(`read of ${id}: ${JSON.stringify(data)}`);
      }),
    );
  await burst(options.warmId);
  let hits = 0;
  let shared = 0;
  let subgraphFetches = 0;
  for (const id of options.ids) {
    const before = await scrapeCache(metrics);
    const postsBefore = options.subgraphMetrics ? await postsAnswered(options.subgraphMetrics) : 0;
    await burst(id);
    const after = await scrapeCache(metrics);
    if (options.subgraphMetrics) subgraphFetches += (await postsAnswered(options.subgraphMetrics)) - postsBefore;
    hits += after.hits - before.hits;
    shared += after.shared - before.shared;
  }
  const fetched = options.ids.length * options.concurrency - hits - shared;
  return {
    instance: options.instance,
    rounds: options.ids.length,
    concurrency: options.concurrency,
    hits,
    shared,
    fetched,
    ...(options.subgraphMetrics && { subgraphFetches }),
    collapsing: shared / Math.max(1, shared + fetched - options.ids.length),
  };
}

export interface BoundFigure {
  instance: string;
  maxBytes: number;
  /** RSS and heap after a full collection; `procRssMiB`: RSS just before it, garbage and all (what /proc shows). */
  baseline: { rssMiB: number; heapUsedMiB: number; procRssMiB: number; entries: number; bytes: number };
  atBound: { rssMiB: number; heapUsedMiB: number; procRssMiB: number; entries: number; bytes: number; capacityEvictions: number };
  /** The cache's own accounting, the heap's and RSS's growth, per entry added (bytes). */
  perEntry: { accounted: number; heap: number; rss: number };
  /** RSS at the bound ÷ (baseline RSS + the bound), after a full collection each; and of the RSS before it. */
  rssRatio: number;
  procRssRatio: number;
}

/**
 * The process `pid` serving `url` (with GATEWAY_CACHE_MAX_BYTES = `maxBytes`, and entries unbounded): warmed on
 * `warmIds`, measured, filled with reads of `fillIds` (each a new entry) until it evicts for capacity, measured again.
 * Opens the process's inspector (SIGUSR1, on 127.0.0.1:9229): one such process at a time, stopped after.
 */
export async function measureBound(options: {
  instance: string;
  url: string;
  pid: number;
  token: string;
  warmIds: readonly string[];
  fillIds: readonly string[];
  maxBytes: number;
}): Promise<BoundFigure> {
  const metrics = metricsUrlOf(options.url);
  const inspectorBusy = await fetch('http://127.0.0.1:9229/json/list', { signal: AbortSignal.timeout(2000) }).then(
    () => true,
    () => false,
  );
  if (inspectorBusy) throw new Error('127.0.0.1:9229 is taken (another process has its inspector open): not measuring memory');
  const load = async (ids: readonly string[], amount: number) => {
    let next = 0;
    const result = await runHttpLoad({
      url: options.url,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${options.token}` },
      connections: 16,
      durationS: 0,
      amount,
      next: () => ({ body: JSON.stringify({ query: GET_QUERY, variables: { id: ids[next++ % ids.length] } }) }),
      verifyBody: (body) => !body.includes('"errors"'),
    });
    if (result.failed > 0) throw new Error(`${options.instance}: ${result.failed} reads failed (${result.firstFailure})`);
  };
  await load(options.warmIds, 20 * options.warmIds.length);
  const baseProcRssMiB = (await processRss(options.pid)).rss;
  const inspector = await inspectProcess(options.pid);
  try {
    const baseMemory = await inspector.collectAndRead();
    const base = await scrapeCache(metrics);
    let filled = base;
    for (let start = 0; start < options.fillIds.length && filled.capacityEvictions === 0; start += 10_000) {
      const slice = options.fillIds.slice(start, start + 10_000);
      await load(slice, slice.length);
      filled = await scrapeCache(metrics);
    }
    const procRssMiB = (await processRss(options.pid)).rss;
    const boundMemory = await inspector.collectAndRead();
    const added = Math.max(1, filled.entries - base.entries);
    return {
      instance: options.instance,
      maxBytes: options.maxBytes,
      baseline: { ...baseMemory, procRssMiB: baseProcRssMiB, entries: base.entries, bytes: base.bytes },
      atBound: { ...boundMemory, entries: filled.entries, bytes: filled.bytes, capacityEvictions: filled.capacityEvictions, procRssMiB },
      perEntry: {
        accounted: (filled.bytes - base.bytes) / added,
        heap: ((boundMemory.heapUsedMiB - baseMemory.heapUsedMiB) * MIB) / added,
        rss: ((boundMemory.rssMiB - baseMemory.rssMiB) * MIB) / added,
      },
      rssRatio: boundMemory.rssMiB / (baseMemory.rssMiB + options.maxBytes / MIB),
      procRssRatio: procRssMiB / (baseProcRssMiB + options.maxBytes / MIB),
    };
  } finally {
    inspector.close();
  }
}

export interface FetchCacheFigures {
  staleness: StalenessFigure[];
  singleFlight: SingleFlightFigure[];
  bound: BoundFigure[];
  /** A figure that could not be taken, and why. */
  notTaken: string[];
}

const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
const verdict = (pass: boolean) => (pass ? 'PASS' : 'MISS');

export function printFetchCacheFigures(figures: FetchCacheFigures | undefined): void {
  if (!figures) return;
  if (figures.staleness.length > 0) {
    console.log(`\n  staleness: a write through instance A → instance B's first read (no position) showing it, ms`);
    const pair = (p: Percentiles) => `${fixed(p.p50, 1)} / ${fixed(p.p99, 1)}`;
    const cells = figures.staleness.map((row) => [
      row.instance,
      String(row.writes),
      pair(row.fromCommit),
      `${pair(row.fromTransaction)} / ${fixed(row.fromTransaction.max, 1)}`,
      pair(row.fromSent),
      pair(row.writerReply),
      pair(row.probe),
      `${row.notWarm} / ${row.positionBehind}`,
      verdict(row.fromTransaction.p99 <= STALENESS_TARGET_MS),
    ]);
    const header = [
      'B',
      'writes',
      'commit→B p50/p99',
      'tx start→B p50/p99/max',
      'sent→B p50/p99',
      'A reply p50/p99',
      'B read p50/p99',
      'not warm/behind',
      `p99 ≤ ${STALENESS_TARGET_MS}`,
    ];
    console.log(formatTable(header, cells, 1));
  }
  if (figures.singleFlight.length > 0) {
    console.log('\n  single flight: identical cold reads sent at once');
    const cells = figures.singleFlight.map((row) => [
      row.instance,
      `${row.rounds} × ${row.concurrency}`,
      String(row.hits),
      String(row.shared),
      String(row.fetched),
      row.subgraphFetches === undefined ? '—' : String(row.subgraphFetches),
      `${fixed(row.collapsing * 100, 1)} %`,
      verdict(row.collapsing >= SINGLE_FLIGHT_TARGET),
    ]);
    console.log(
      formatTable(
        ['instance', 'reads', 'hits', 'shared', 'fetched', 'subgraph saw', 'collapsing', `≥ ${SINGLE_FLIGHT_TARGET * 100} %`],
        cells,
        1,
      ),
    );
  }
  if (figures.bound.length > 0) {
    console.log('\n  memory: the cache filled to GATEWAY_CACHE_MAX_BYTES (RSS and heap after a full collection)');
    const cells = figures.bound.map((row) => [
      row.instance,
      fixed(row.maxBytes / MIB),
      `${fixed(row.baseline.rssMiB)} (${fixed(row.baseline.heapUsedMiB)})`,
      `${fixed(row.atBound.rssMiB)} (${fixed(row.atBound.heapUsedMiB)})`,
      `${fixed(row.baseline.procRssMiB)} → ${fixed(row.atBound.procRssMiB)} (${fixed(row.procRssRatio, 2)})`,
      String(row.atBound.entries),
      `${fixed(row.perEntry.accounted)} / ${fixed(row.perEntry.heap)} / ${fixed(row.perEntry.rss)}`,
      fixed(row.rssRatio, 3),
      verdict(Math.abs(row.rssRatio - 1) <= BOUND_RSS_TOLERANCE),
    ]);
    const header = [
      'instance',
      'bound MiB',
      'base RSS (heap)',
      'bound RSS (heap)',
      'RSS no GC (÷ base+bound)',
      'entries',
      'B/entry acct/heap/RSS',
      '÷ base+bound',
      '±10 %',
    ];
    console.log(formatTable(header, cells, 1));
  }
  for (const line of figures.notTaken) console.log(`  not taken: ${line}`);
}
