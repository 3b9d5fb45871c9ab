import type { Logger } from '../logger.ts';

/**
 * What an operator reads of a dependency that stops answering (the database, a subgraph): one error line when an incident
 * begins (what, and the first failure's reason: its message, never a stack), at most one warn line a minute while it
 * lasts (how many failures since the last line), and one warn line when it answers again (for how long it did not, and
 * how many failures in all) — instead of a line, and a stack, per failed request, which during an outage buries the log
 * (issue 25: a 10 s database outage once wrote ~1,100 of them).
 *
 * An incident begins with a failure and ends with a success: what counts as either is the caller's to say, from a signal
 * that proves the dependency answered (see lib/telemetry/telemetry.ts for the database, gateway/subgraph-incidents.ts for
 * subgraphs).
 */
export interface IncidentLog {
  /** An attempt failed because the dependency could not be reached: counted, and logged when it begins an incident. */
  failed(reason: unknown): void;
  /** The dependency answered: ends the incident under way, if any. */
  succeeded(): void;
  /** True from a failure until the next success. */
  readonly open: boolean;
  /** Stops the reminder's timer; later calls are ignored (the process is shutting down). */
  close(): void;
}

/** The time and timers of an incident log; tests drive their own. */
export interface IncidentClock {
  now(): number;
  /** Calls `callback` once after `ms`; the returned function cancels the call. */
  schedule(callback: () => void, ms: number): () => void;
}

/** Date.now and an unref'd setTimeout: a pending reminder never keeps a process alive. */
export const SYSTEM_CLOCK: IncidentClock = {
  now: () => Date.now(),
  schedule(callback, ms) {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export interface IncidentLogOptions {
  logger: Logger;
  /** What is unreachable, as the lines name it: "database" → "database unreachable", "database recovered". */
  what: string;
  /** What the incident means for callers, after the first line's message ("its fields are answered null …"). */
  impact?: string;
  /** Fields every line carries (`{ subgraph: 'comments' }`). */
  fields?: Record<string, unknown>;
  /** The shortest time between two lines of one incident: 60 s. */
  reminderMs?: number;
  clock?: IncidentClock;
}

const REMINDER_MS = 60_000;

interface Incident {
  since: number;
  totalFailures: number;
  /** Failures since the last line. */
  newFailures: number;
  lastLineAt: number;
  lastReason: string;
  /** Cancels the pending reminder, when one is scheduled. */
  cancelReminder: (() => void) | undefined;
}

/** An incident log for one dependency (one per database handle, one per subgraph). */
export function createIncidentLog(options: IncidentLogOptions): IncidentLog {
  const { logger, what, fields = {} } = options;
  const clock = options.clock ?? SYSTEM_CLOCK;
  const reminderMs = options.reminderMs ?? REMINDER_MS;
  const firstLine = options.impact ? `${what} unreachable: ${options.impact}` : `${what} unreachable`;
  let incident: Incident | undefined;
  let closed = false;

  function remind(): void {
    if (!incident) return;
    incident.cancelReminder = undefined;
    if (incident.newFailures === 0) return;
    const at = clock.now();
    logger.warn(
      {
        ...fields,
        reason: incident.lastReason,
        newFailures: incident.newFailures,
        totalFailures: incident.totalFailures,
        downForMs: at - incident.since,
      },
      `${what} still unreachable`,
    );
    incident.lastLineAt = at;
    incident.newFailures = 0;
  }

  return {
    failed(reason) {
      if (closed) return;
      const at = clock.now();
      if (!incident) {
        const text = reasonText(reason);
        incident = { since: at, totalFailures: 1, newFailures: 0, lastLineAt: at, lastReason: text, cancelReminder: undefined };
        logger.error({ ...fields, reason: text }, firstLine);
        return;
      }
      incident.totalFailures += 1;
      incident.newFailures += 1;
      incident.lastReason = reasonText(reason);
      // A reminder only when there is something new to say, so that no timer outlives the failures it reports.
      incident.cancelReminder ??= clock.schedule(remind, Math.max(0, incident.lastLineAt + reminderMs - at));
    },
    succeeded() {
      if (!incident) return;
      const ended = incident;
      incident = undefined;
      ended.cancelReminder?.();
      logger.warn({ ...fields, totalFailures: ended.totalFailures, downForMs: clock.now() - ended.since }, `${what} recovered`);
    },
    get open() {
      return incident !== undefined;
    },
    close() {
      closed = true;
      incident?.cancelReminder?.();
      incident = undefined;
    },
  };
}

/**
 * A failure's reason as one line of text: its message (an operator's clue, e.g. "connect ECONNREFUSED 10.0.0.5:5432"),
 * never its stack. Node reports a refused connection to a name with several addresses as an AggregateError with no
 * message of its own: its errors' messages then.
 */
function reasonText(reason: unknown): string {
  if (typeof reason === 'string') return reason;
  if (reason instanceof AggregateError && !reason.message && reason.errors.length > 0) {
    return reason.errors.map(reasonText).join('; ');
  }
  if (reason instanceof Error) {
    const code = (reason as { code?: unknown }).code;
    return reason.message || (typeof code === 'string' ? code : reason.name);
  }
  return String(reason);
}
