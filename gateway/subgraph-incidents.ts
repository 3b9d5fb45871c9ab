import type { Logger } from '../lib/logger.ts';
import { createIncidentLog, type IncidentClock, type IncidentLog } from '../lib/telemetry/incident-log.ts';

/**
 * What an operator reads of a subgraph that cannot be reached: one error line when it goes down (its name and the first
 * failure's reason), at most one line a minute while it stays down (how many fetches failed since), and one when it
 * answers again (for how long it was down, and the count) — not a line per failed fetch, which under load buries the log.
 * Each subgraph has its own incident log (lib/telemetry/incident-log.ts).
 */
export interface SubgraphIncidents {
  /** A fetch to `subgraph` could not be made or answered (refused, reset, timed out, a gateway in front said 502–504). */
  failed(subgraph: string, reason: string): void;
  /** A fetch to `subgraph` was answered. */
  answered(subgraph: string): void;
  /** The subgraphs down now. */
  down(): string[];
  /** Stops the reminders' timers (the gateway is stopping). */
  close(): void;
}

export function createSubgraphIncidents(logger: Logger, clock?: IncidentClock): SubgraphIncidents {
  // One log per subgraph name of the supergraph: as many as it has subgraphs.
  const logs = new Map<string, IncidentLog>();
  const logOf = (subgraph: string) => {
    let log = logs.get(subgraph);
    if (!log) {
      log = createIncidentLog({
        logger,
        what: 'subgraph',
        impact: 'its fields are answered null with SERVICE_UNAVAILABLE',
        fields: { subgraph },
        ...(clock && { clock }),
      });
      logs.set(subgraph, log);
    }
    return log;
  };
  return {
    failed(subgraph, reason) {
      logOf(subgraph).failed(reason);
    },
    answered(subgraph) {
      logs.get(subgraph)?.succeeded();
    },
    down() {
      return [...logs].filter(([, log]) => log.open).map(([subgraph]) => subgraph);
    },
    close() {
      for (const log of logs.values()) log.close();
    },
  };
}
