/**
 * Readiness of a process: named checks (database reachable, supergraph loaded, subgraphs answering…), each run with a
 * deadline, answered at /ready and reflected by the gRPC health service. A process that is shutting down is not ready,
 * so load balancers stop sending it work while it drains.
 */
export type ReadinessCheck = (signal: AbortSignal) => Promise<void>;

export interface CheckOutcome {
  status: 'UP' | 'DOWN';
  /** Why a check is DOWN (its error's message). */
  error?: string;
}

export interface ReadinessReport {
  status: 'UP' | 'DOWN';
  checks: Record<string, CheckOutcome>;
}

export interface Readiness {
  /** Adds a check (a process adds its own as it starts its parts). */
  add(name: string, check: ReadinessCheck): void;
  /** Runs every check at once, each within the deadline. */
  report(): Promise<ReadinessReport>;
  /** From now on the process reports DOWN (shutdown has begun). */
  markStopping(): void;
  readonly stopping: boolean;
}

export function createReadiness(options: { timeoutMs: number }): Readiness {
  const checks = new Map<string, ReadinessCheck>();
  let stopping = false;
  return {
    add(name, check) {
      checks.set(name, check);
    },
    async report() {
      const entries = await Promise.all(
        [...checks].map(async ([name, check]): Promise<[string, CheckOutcome]> => {
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
      const outcomes = Object.fromEntries(entries);
      if (stopping) outcomes.process = { status: 'DOWN', error: 'shutting down' };
      const up = Object.values(outcomes).every((outcome) => outcome.status === 'UP');
      return { status: up ? 'UP' : 'DOWN', checks: outcomes };
    },
    markStopping() {
      stopping = true;
    },
    get stopping() {
      return stopping;
    },
  };
}

/** A check that an HTTP endpoint answers 2xx (a subgraph's or a gateway's /health). */
export function httpAnswers(url: string): ReadinessCheck {
  return async (signal) => {
    const response = await fetch(url, { signal, headers: { accept: 'application/json' } });
    await response.body?.cancel();
    if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  };
}
