/**
 * The instances of one subgraph, as the gateway chooses among them for each fetch: round robin over the instances whose
 * circuit is closed, so load spreads; an instance whose fetches failed `failureThreshold` times in a row (refused,
 * reset, timed out) has its circuit opened for `openMs` and is skipped, then gets one trial fetch (half open): an answer
 * closes the circuit, a failure opens it again. With every circuit open, the instance whose circuit opened first is
 * tried anyway — a fetch that may fail is better than none at all.
 */
export interface SubgraphInstances {
  readonly size: number;
  /** The instance for the next fetch, other than those in `exclude` (the ones this fetch already failed on) if it can. */
  pick(exclude?: ReadonlySet<number>): number;
  /** A fetch to `instance` was answered. */
  answered(instance: number): void;
  /** A fetch to `instance` could not be made or answered. */
  failed(instance: number): void;
  /** How many instances have an open circuit now. */
  openCircuits(): number;
}

export interface CircuitOptions {
  /** Failures in a row that open an instance's circuit. */
  failureThreshold: number;
  /** How long an open circuit skips its instance before a trial fetch. */
  openMs: number;
  now?: () => number;
}

export const DEFAULT_CIRCUIT: CircuitOptions = { failureThreshold: 3, openMs: 5_000 };

interface Circuit {
  failures: number;
  /** When the circuit opened (undefined: closed). */
  openedAt: number | undefined;
  /**
   * When a trial fetch went out (half open): others keep skipping the instance until it ends — or for `openMs`, should
   * its verdict never come (a fetch that ended through no fault of either side, such as a client's broken upload).
   */
  trialAt: number | undefined;
}

export function createSubgraphInstances(size: number, options: CircuitOptions = DEFAULT_CIRCUIT): SubgraphInstances {
  if (size < 1) throw new Error('a subgraph has at least one instance');
  const now = options.now ?? Date.now;
  const circuits: Circuit[] = Array.from({ length: size }, () => ({ failures: 0, openedAt: undefined, trialAt: undefined }));
  let next = 0;

  /** Whether the instance may take a fetch now (closed, or open long enough for its trial). */
  function available(circuit: Circuit, at: number): boolean {
    if (circuit.openedAt === undefined) return true;
    return at - circuit.openedAt >= options.openMs && (circuit.trialAt === undefined || at - circuit.trialAt >= options.openMs);
  }

  return {
    size,
    pick(exclude) {
      const at = now();
      for (let step = 0; step < size; step += 1) {
        const instance = (next + step) % size;
        if (exclude?.has(instance)) continue;
        const circuit = circuits[instance]!;
        if (!available(circuit, at)) continue;
        next = (instance + 1) % size;
        if (circuit.openedAt !== undefined) circuit.trialAt = at;
        return instance;
      }
      // Nothing available: the instance not yet tried whose circuit opened first (or, all tried, the first).
      let best = -1;
      for (let instance = 0; instance < size; instance += 1) {
        if (exclude?.has(instance)) continue;
        if (best === -1 || (circuits[instance]!.openedAt ?? 0) < (circuits[best]!.openedAt ?? 0)) best = instance;
      }
      return best === -1 ? next : best;
    },
    answered(instance) {
      const circuit = circuits[instance];
      if (!circuit) return;
      circuit.failures = 0;
      circuit.openedAt = undefined;
      circuit.trialAt = undefined;
    },
    failed(instance) {
      const circuit = circuits[instance];
      if (!circuit) return;
      circuit.failures += 1;
      if (circuit.trialAt !== undefined || circuit.failures >= options.failureThreshold) circuit.openedAt = now();
      circuit.trialAt = undefined;
    },
    openCircuits() {
      return circuits.filter((circuit) => circuit.openedAt !== undefined).length;
    },
  };
}
