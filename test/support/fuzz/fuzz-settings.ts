import type fc from 'fast-check';

/**
 * How a fuzz run is sized and seeded, read once from the environment that bin/fuzz.ts (or the CI's plain `npm test`)
 * sets. Every property of every door file reads the same settings, so one FUZZ_SEED replays a whole run and the seed a
 * failure prints is the one to pass back.
 *
 *   FUZZ_RUNS        cases per door, shared out among the door's properties (default: the short run of `npm test`,
 *                    SHORT_RUN_RUNS cases per property)
 *   FUZZ_SEED        fast-check's seed (default: a new one per run, printed)
 *   FUZZ_PATH        fast-check's replay path of one failure (use with FUZZ_SEED and a test-name filter)
 *   FUZZ_TIMEOUT_MS  the bound on one request's reply (default 10 s): longer is a hang
 *   FUZZ_SHRINK_MS   how long a property may spend shrinking a failure before it reports the smallest one so far
 */
export interface FuzzSettings {
  runs: number;
  seed: number;
  path: string | undefined;
  /** One request's bound: no reply within it is a hang. */
  requestTimeoutMs: number;
  /** How long a property may shrink after its first failure. */
  shrinkBudgetMs: number;
  /** True when the runs are the default short run of `npm test`. */
  shortRun: boolean;
}

/**
 * The default short run. Each property runs this many cases; with about six properties a door and six doors, and each
 * case costing a few requests, the fuzz projects add about a minute to `npm test` on both databases together.
 */
export const SHORT_RUN_RUNS = 6;

function integerFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

let cachedSettings: FuzzSettings | undefined;

export function fuzzSettings(): FuzzSettings {
  if (cachedSettings) return cachedSettings;
  const runs = integerFrom('FUZZ_RUNS', SHORT_RUN_RUNS);
  // A seed that fits fast-check's 32-bit generator; printed so that any run can be replayed.
  const seed = integerFrom('FUZZ_SEED', (Date.now() ^ (Math.random() * 0x7fffffff)) >>> 0) | 0;
  const requestTimeoutMs = integerFrom('FUZZ_TIMEOUT_MS', 10_000);
  const shortRun = process.env.FUZZ_RUNS === undefined || process.env.FUZZ_RUNS === '';
  cachedSettings = {
    runs,
    seed,
    path: process.env.FUZZ_PATH || undefined,
    requestTimeoutMs,
    // A short run must not turn into minutes when it finds a bug (shrinking replays requests, and a hang costs a whole
    // bound per replay); a long run may shrink for longer.
    shrinkBudgetMs: integerFrom('FUZZ_SHRINK_MS', shortRun ? 20_000 : 300_000),
    shortRun,
  };
  return cachedSettings;
}

/**
 * Runs of one property of a door that has `properties` of them: FUZZ_RUNS is a budget per door (the "~10,000
 * requests per front door"), shared out evenly; the short run gives every property SHORT_RUN_RUNS.
 */
export function runsPerProperty(properties: number): number {
  const settings = fuzzSettings();
  return settings.shortRun ? settings.runs : Math.max(1, Math.ceil(settings.runs / Math.max(1, properties)));
}

/** fast-check's parameters for one property of a door file with `properties` of them. */
export function propertyParameters<T>(properties: number): fc.Parameters<T> {
  const settings = fuzzSettings();
  return {
    numRuns: runsPerProperty(properties),
    seed: settings.seed,
    ...(settings.path !== undefined ? { path: settings.path, endOnFailure: true } : {}),
    // Our failure text describes the request (shortened); it is what a reader needs next to the seed and path.
    includeErrorInReport: true,
  };
}

/**
 * Vitest's timeout of a property's test: every run may take a few request bounds (the request, the liveness probes),
 * plus the shrinking budget, plus slack for a system restart.
 */
export function propertyTestTimeoutMs(requestsPerCase = 4): number {
  const settings = fuzzSettings();
  // Sized for a door of one property (the most runs one property can get).
  const worst = runsPerProperty(1) * requestsPerCase * (settings.requestTimeoutMs + 1_000) + settings.shrinkBudgetMs * 2 + 120_000;
  return Math.min(worst, 2_147_000_000);
}
