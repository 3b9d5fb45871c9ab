/**
 * The two load generators of the bench: autocannon for HTTP, and a fixed-concurrency loop of unary calls for gRPC. Both
 * return the same LoadResult, so every scenario is reported alike.
 */
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

export interface LoadResult {
  /** Successful requests (HTTP 2xx, gRPC OK) completed in the window. */
  ok: number;
  /** Failed requests: non-2xx replies, connection errors and timeouts; gRPC non-OK statuses. */
  failed: number;
  durationS: number;
  requestsPerSecond: number;
  /** Latency percentiles of successful requests, in milliseconds. */
  p50Ms: number;
  p99Ms: number;
  /** The first failure seen, to tell a broken scenario from a slow one. */
  firstFailure?: string;
}

export interface HttpLoadOptions {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  connections: number;
  durationS: number;
  /**
   * Exactly this many requests instead of `durationS`: the run ends when the last reply arrives, so that the work of every
   * request sent is inside it and of none left out (requests still in flight when a timed run stops are not counted, but
   * the server has done part of their work in the window).
   */
  amount?: number | undefined;
  /** Called for every request: the path, body and/or headers to send (ids and tokens rotate, e-mails stay unique). */
  next(): { path?: string; body?: string; headers?: Record<string, string> };
  /** A reply body that does not satisfy this is a failure, even with HTTP 2xx (a GraphQL error comes with 200). */
  verifyBody?(body: string): boolean;
}

/** Runs autocannon (HTTP/1.1 keep-alive connections, one request in flight per connection). */
export async function runHttpLoad(options: HttpLoadOptions): Promise<LoadResult> {
  let firstMismatch: string | undefined;
  const verify = options.verifyBody;
  const result = await autocannon({
    url: options.url,
    method: options.method,
    headers: options.headers,
    connections: options.connections,
    ...(options.amount === undefined ? { duration: options.durationS } : { amount: options.amount }),
    // Create queues behind scrypt; a request is only a failure if it takes longer than this.
    timeout: 30,
    requests: [
      {
        setupRequest: (request) => {
          const next = options.next();
          return { ...request, ...next, ...(next.headers ? { headers: { ...options.headers, ...next.headers } } : {}) };
        },
      },
    ],
    ...(verify ? { verifyBody: verifier(verify, (body) => (firstMismatch ??= body)) } : {}),
  });
  return loadResultOf(result, firstMismatch);
}

/** autocannon's verifyBody over a string check, keeping the first failing body (cut short) for the report. */
function verifier(verify: (body: string) => boolean, mismatch: (body: string) => void): (body: unknown) => boolean {
  return (body) => {
    const ok = verify(String(body));
    if (!ok) mismatch(String(body).slice(0, 300));
    return ok;
  };
}

/** An autocannon result as a LoadResult; `mismatches` replies were 2xx without the expected body (`firstMismatch`). */
function loadResultOf(result: autocannon.Result, firstMismatch?: string): LoadResult {
  const mismatches = result.mismatches ?? 0;
  const ok = result['2xx'] - mismatches;
  const failed = result.non2xx + result.errors + mismatches;
  const firstStatus = Object.entries(result.statusCodeStats ?? {}).find(([status]) => Number(status) >= 300);
  return {
    ok,
    failed,
    durationS: result.duration,
    requestsPerSecond: ok / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ...(failed > 0
      ? {
          firstFailure: firstStatus
            ? `HTTP ${firstStatus[0]} ×${firstStatus[1].count ?? 0}`
            : firstMismatch !== undefined
              ? `${mismatches} replies without the expected body, e.g. ${firstMismatch}`
              : `${result.errors} connection errors (${result.timeouts} timeouts)`,
        }
      : {}),
  };
}

export interface CallLoadOptions {
  concurrency: number;
  durationS: number;
  /** One call; rejects on failure. */
  call(): Promise<void>;
}

/** Keeps `concurrency` calls in flight for `durationS` seconds; latencies in a sorted array for the percentiles. */
export async function runCallLoad(options: CallLoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  let failed = 0;
  let firstFailure: string | undefined;
  const start = performance.now();
  const end = start + options.durationS * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      try {
        await options.call();
        latencies.push(performance.now() - t0);
      } catch (error) {
        failed += 1;
        firstFailure ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const durationS = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    ok: latencies.length,
    failed,
    durationS,
    requestsPerSecond: latencies.length / durationS,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    ...(firstFailure ? { firstFailure } : {}),
  };
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)));
  return sorted[rank - 1]!;
}

export interface BodyLoadOptions {
  url: string;
  headers: Record<string, string>;
  connections: number;
  durationS: number;
  /** The same body on every request (built once: autocannon then builds each request's bytes once too). */
  body: Buffer;
  /** A reply body that does not satisfy this is a failure, even with HTTP 2xx (a GraphQL error comes with 200). */
  verifyBody?(body: string): boolean;
  timeoutS?: number;
}

/** POSTs the same body on `connections` keep-alive connections (one request in flight on each) for `durationS`. */
export async function runBodyLoad(options: BodyLoadOptions): Promise<LoadResult> {
  let firstMismatch: string | undefined;
  const verify = options.verifyBody;
  const result = await autocannon({
    url: options.url,
    method: 'POST',
    headers: options.headers,
    connections: options.connections,
    duration: options.durationS,
    timeout: options.timeoutS ?? 60,
    body: options.body,
    ...(verify ? { verifyBody: verifier(verify, (body) => (firstMismatch ??= body)) } : {}),
  });
  return loadResultOf(result, firstMismatch);
}

/** Idle and total CPU time of the machine's cores so far (ms): the share busy in a window tells how loaded it was. */
export function machineTimes(): { idle: number; total: number } {
  let idle = 0;
  let total = 0;
  for (const cpu of cpus()) {
    const { user, nice, sys, irq, idle: cpuIdle } = cpu.times;
    idle += cpuIdle;
    total += user + nice + sys + irq + cpuIdle;
  }
  return { idle, total };
}
