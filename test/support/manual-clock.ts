import type { IncidentClock } from '../../lib/telemetry/incident-log.ts';

/** An IncidentClock a test moves by hand: `advance` runs the calls that fall due, in order of their time. */
export interface ManualClock extends IncidentClock {
  advance(ms: number): void;
  /** Calls scheduled and not yet run nor cancelled. */
  pending(): number;
}

export function createManualClock(start = 1_000_000): ManualClock {
  let now = start;
  let sequence = 0;
  const calls = new Map<number, { at: number; callback: () => void }>();
  return {
    now: () => now,
    schedule(callback, ms) {
      const id = sequence++;
      calls.set(id, { at: now + ms, callback });
      return () => {
        calls.delete(id);
      };
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const due = [...calls].filter(([, call]) => call.at <= until).sort(([a, x], [b, y]) => x.at - y.at || a - b)[0];
        if (!due) break;
        calls.delete(due[0]);
        now = due[1].at;
        due[1].callback();
      }
      now = until;
    },
    pending: () => calls.size,
  };
}
