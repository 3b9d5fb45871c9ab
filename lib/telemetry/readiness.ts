/**
 * Readiness of a process: named checks (database reachable, supergraph loaded, subgraphs ready…), each run with a
 * deadline, answered at /ready and reflected by the gRPC health service. Readiness means "can serve": a check is either
 * required (the process serves nothing without it: its database, its supergraph) or one that only degrades it (a
 * subgraph behind the gateway: the rest of the supergraph is still served, with errors on that subgraph's fields). The
 * process is
 * - UP when every check passes;
 * - DEGRADED (still ready: HTTP 200) when only degrading checks fail, and not all of them, the failing ones named in
 *   `degraded`;
 * - DOWN (HTTP 503) when a required check fails, every degrading check fails (nothing could be served), or shutdown has
 *   begun, so that load balancers stop sending it work while it drains.
 * A report is shared by every probe that asks within `reuseMs` of it (and by those that ask while it runs), so a flood of
 * probes does not become a flood of database pings and subgraph calls.
 */
export type ReadinessCheck = (signal: AbortSignal) => Promise<void>;

export type ReadinessStatus = 'UP' | 'DEGRADED' | 'DOWN';

export interface CheckOutcome {
  status: 'UP' | 'DOWN';
  /** Why a check is DOWN (its error's message). */
  error?: string;
}

export interface ReadinessReport {
  status: ReadinessStatus;
  /** The degrading checks that fail (present when DEGRADED). */
  degraded?: string[];
  checks: Record<string, CheckOutcome>;
}

export interface CheckOptions {
  /** A failure degrades the process instead of making it unready (default: required). */
  degrades?: boolean;
}

export interface Readiness {
  /** Adds a check (a process adds its own as it starts its parts). */
  add(name: string, check: ReadinessCheck, options?: CheckOptions): void;
  /** Runs every check at once, each within the deadline (or answers the report made within the last `reuseMs`). */
  report(): Promise<ReadinessReport>;
  /** From now on the process reports DOWN (shutdown has begun). */
  markStopping(): void;
  readonly stopping: boolean;
}

/** The HTTP status of a report: ready (200) while UP or DEGRADED. */
export function readinessHttpStatus(report: ReadinessReport): number {
  return report.status === 'DOWN' ? 503 : 200;
}

export function createReadiness(options: { timeoutMs: number; reuseMs?: number }): Readiness {
  const checks = new Map<string, { check: ReadinessCheck; degrades: boolean }>();
  const reuseMs = options.reuseMs ?? 0;
  let stopping = false;
  let latest: { at: number; report: Promise<Record<string, CheckOutcome>> } | undefined;

  async function runChecks(): Promise<Record<string, CheckOutcome>> {
    const entries = await Promise.all(
      [...checks].map(async ([name, { check }]): Promise<[string, CheckOutcome]> => {
        const signal = AbortSignal.timeout(options.timeoutMs);
        try {
          await Promise.race([
            check(signal),
            new Promise<never>((_, reject) => {
              signal.addEventListener('abort', () => reject(new Error(`no answer within ${options.timeoutMs} ms`)), { once: true });
            }),
          ]);
          return [name, { status: 'UP' }];
        } catch (error) {
          return [name, { status: 'DOWN', error: error instanceof Error ? error.message : String(error) }];
        }
      }),
    );
    return Object.fromEntries(entries);
  }

  function outcomes(): Promise<Record<string, CheckOutcome>> {
    const now = Date.now();
    // A report still running is shared too (its `at` is when it started).
    if (latest && now - latest.at < reuseMs) return latest.report;
    const report = runChecks();
    latest = { at: now, report };
    return report;
  }

  return {
    add(name, check, checkOptions = {}) {
      checks.set(name, { check, degrades: checkOptions.degrades === true });
      latest = undefined;
    },
    async report() {
      const checked = { ...(await outcomes()) };
      const failing = Object.entries(checked)
        .filter(([, outcome]) => outcome.status === 'DOWN')
        .map(([name]) => name);
      const degrading = [...checks].filter(([, check]) => check.degrades).map(([name]) => name);
      const requiredDown = failing.some((name) => !checks.get(name)?.degrades);
      const allDegradingDown = degrading.length > 0 && degrading.every((name) => failing.includes(name));
      if (stopping) checked.process = { status: 'DOWN', error: 'shutting down' };
      if (stopping || requiredDown || allDegradingDown) return { status: 'DOWN', checks: checked };
      if (failing.length > 0) return { status: 'DEGRADED', degraded: failing, checks: checked };
      return { status: 'UP', checks: checked };
    },
    markStopping() {
      stopping = true;
    },
    get stopping() {
      return stopping;
    },
  };
}

/**
 * A check that another process of the deployment is ready: its /ready answers 2xx (UP or DEGRADED) — for a peer with
 * several instances, any one of them. The error names the peer, not its addresses: /ready is served on public listeners.
 */
export function peerReady(peer: string, baseUrls: string | readonly string[]): ReadinessCheck {
  const urls = (typeof baseUrls === 'string' ? [baseUrls] : baseUrls).map((base) => new URL('/ready', base).toString());
  const probe = async (url: string, signal: AbortSignal): Promise<void> => {
    let response: Response;
    try {
      response = await fetch(url, { signal, headers: { accept: 'application/json' } });
    } catch (error) {
      if (signal.aborted) throw error;
      // The cause (with the address) stays server-side; the message is what /ready shows.
      throw new Error(`${peer} does not answer`, { cause: error });
    }
    await response.body?.cancel();
    if (!response.ok) throw new Error(`${peer} is not ready (HTTP ${response.status})`);
  };
  return async (signal) => {
    if (urls.length === 1) return probe(urls[0]!, signal);
    try {
      await Promise.any(urls.map((url) => probe(url, signal)));
    } catch (error) {
      if (signal.aborted) throw error;
      throw new Error(`${peer}: none of its ${urls.length} instances is ready`, { cause: error });
    }
  };
}
