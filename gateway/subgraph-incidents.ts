import type { Logger } from '../lib/logger.ts';

/**
 * What an operator reads of a subgraph that cannot be reached: one warn line when it goes down (its name and the first
 * failure's reason), one line a minute while it stays down (how many fetches failed since), and one when it answers
 * again (for how long it was down, and the count) — not a line per failed fetch, which under load buries the log.
 */
export interface SubgraphIncidents {
  /** A fetch to `subgraph` could not be made or answered (refused, reset, timed out, a gateway in front said 502–504). */
  failed(subgraph: string, reason: string): void;
  /** A fetch to `subgraph` was answered. */
  answered(subgraph: string): void;
  /** The subgraphs down now. */
  down(): string[];
}

interface Incident {
  since: number;
  failures: number;
  lastReported: number;
}

/** How often a subgraph that stays down is reported again. */
const REMINDER_MS = 60_000;

export function createSubgraphIncidents(logger: Logger, now: () => number = Date.now): SubgraphIncidents {
  const incidents = new Map<string, Incident>();
  return {
    failed(subgraph, reason) {
      const at = now();
      const incident = incidents.get(subgraph);
      if (!incident) {
        incidents.set(subgraph, { since: at, failures: 1, lastReported: at });
        logger.warn({ subgraph, reason }, 'subgraph unavailable: its fields are answered null with SERVICE_UNAVAILABLE');
        return;
      }
      incident.failures += 1;
      if (at - incident.lastReported >= REMINDER_MS) {
        incident.lastReported = at;
        logger.warn({ subgraph, reason, failedFetches: incident.failures, downForMs: at - incident.since }, 'subgraph still unavailable');
      }
    },
    answered(subgraph) {
      const incident = incidents.get(subgraph);
      if (!incident) return;
      incidents.delete(subgraph);
      logger.warn({ subgraph, failedFetches: incident.failures, downForMs: now() - incident.since }, 'subgraph recovered');
    },
    down() {
      return [...incidents.keys()];
    },
  };
}
