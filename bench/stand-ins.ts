/**
 * The cost of switching each stand-in off (conventions §14; lib/stand-ins/), measured by `npm run bench` in one run: the
 * scenario each stand-in speeds up, on fresh server children that differ only in their switches — every stand-in on,
 * each one off with the others on, and every one off — as the server's CPU per request (bench/README.md, "Stand-ins").
 *
 * Every variant sets every switch explicitly, so that a switch in the caller's environment does not leak into it; the
 * server child says which stand-ins really serve (the gate turns one off when an installed release is not the one it was
 * checked against), and a variant where that differs from what was asked for is reported, not silently compared.
 */
import { performance } from 'node:perf_hooks';
import { STAND_IN_IDS, STAND_INS, type StandInId } from '../lib/stand-ins/stand-in-registry.ts';
import type { BenchServerInfo } from './bench-protocol.ts';

/** The scenarios of bench/run.ts this section loads, in the order every variant runs them (the deep read last). */
export const STAND_IN_SCENARIOS = ['rest-get', 'graphql-gateway', 'graphql-gateway-http', 'social-graphql-deep'] as const;
export type StandInScenario = (typeof STAND_IN_SCENARIOS)[number];

/** The scenario(s) each stand-in speeds up: where switching it off shows. */
export const SCENARIOS_OF: Readonly<Record<StandInId, readonly StandInScenario[]>> = {
  'http-fast-path': ['graphql-gateway', 'graphql-gateway-http'],
  'lean-json-body': ['graphql-gateway', 'graphql-gateway-http'],
  'operation-fast-lane': ['graphql-gateway', 'graphql-gateway-http'],
  'result-shaping': ['social-graphql-deep'],
  'operation-cache': ['social-graphql-deep'],
  'jit-subgraph-execution': ['social-graphql-deep'],
  'undici-subgraph-client': ['graphql-gateway-http'],
  'rest-fast-path': ['rest-get'],
};

/** `all on`, `all off`, or one stand-in off with every other on. */
export type StandInVariant = 'all on' | 'all off' | StandInId;

export const STAND_IN_VARIANTS: readonly StandInVariant[] = ['all on', ...STAND_IN_IDS, 'all off'];

/** What a scenario's measured window gives this comparison (bench/run.ts's runScenario). */
export interface StandInSample {
  /** Successful requests, and the failed ones. */
  ok: number;
  failed: number;
  durationS: number;
  /** CPU of the server process during the window, ms. */
  serverCpuMs: number;
  /** CPU of the PostgreSQL backends during the window, ms: 0 on PGlite, undefined when not readable. */
  databaseCpuMs: number | undefined;
  /** Cores busy outside the server, the database and the load generator during the window: noise. */
  otherCores: number | undefined;
}

/** A variant's scenario over every round: the samples added up. */
export interface StandInMeasure extends StandInSample {
  requestsPerSecond: number;
  /** The server's CPU per successful request, µs. */
  cpuMicrosPerRequest: number;
  /** The database backends' CPU per successful request, µs (0 on PGlite). */
  databaseCpuMicrosPerRequest: number | undefined;
}

export interface StandInWindow {
  variant: StandInVariant;
  scenario: StandInScenario;
  measure: StandInMeasure | undefined;
  /** Stand-ins whose serving state in the child was not what the variant asked for, with the gate's reason. */
  mismatches: string[];
}

export interface StandInRow {
  /** A stand-in, or `all off`. */
  standIn: StandInId | 'all off';
  scenario: StandInScenario;
  on: StandInMeasure | undefined;
  off: StandInMeasure | undefined;
  /** Server CPU per request off ÷ on: what switching it off costs (1.25: a quarter more CPU per request). */
  offVsOn: number | undefined;
  /** The same with the database backends' CPU added (PostgreSQL). */
  offVsOnWithDatabase: number | undefined;
  mismatches: string[];
}

export interface StandInReport {
  /** The whole section, server starts included, s. */
  elapsedS: number;
  rounds: number;
  warmupS: number;
  durationS: number;
  windows: StandInWindow[];
  rows: StandInRow[];
}

export interface StandInDeps {
  rounds: number;
  warmupS: number;
  durationS: number;
  /**
   * Starts a server child for a variant, with these variables added to its environment; `run` loads one scenario
   * (warm-up, then the measured window) and returns its figures.
   */
  start(variant: StandInVariant, env: Record<string, string>): Promise<{
    info: BenchServerInfo;
    run(scenario: StandInScenario): Promise<StandInSample | undefined>;
    stop(): Promise<void>;
  }>;
}

/** Every switch, set: the variant's stand-in (or all of them) off, the rest on. */
export function switchesOf(variant: StandInVariant): Record<string, string> {
  const env: Record<string, string> = { STAND_INS: variant === 'all off' ? 'off' : 'on' };
  for (const id of STAND_IN_IDS) env[STAND_INS[id].switchVariable] = variant === 'all off' || variant === id ? 'off' : 'on';
  return env;
}

/** The scenarios a variant runs: every one for `all on` and `all off`, the stand-in's own otherwise. */
function scenariosOf(variant: StandInVariant): readonly StandInScenario[] {
  if (variant === 'all on' || variant === 'all off') return STAND_IN_SCENARIOS;
  const own = SCENARIOS_OF[variant];
  return STAND_IN_SCENARIOS.filter((scenario) => own.includes(scenario));
}

/** Whether each stand-in serves in the child as the variant asked; the differences, each with the gate's reason. */
function mismatchesOf(variant: StandInVariant, info: BenchServerInfo): string[] {
  const mismatches: string[] = [];
  for (const id of STAND_IN_IDS) {
    const wanted = !(variant === 'all off' || variant === id);
    const decision = info.standIns[id];
    if (decision.enabled !== wanted) mismatches.push(decision.enabled ? `${id} served although switched off` : `${id} off: ${decision.reason}`);
  }
  return mismatches;
}

/** Two rounds' samples of a window as one: counts and CPU added, the largest noise kept. */
function add(a: StandInSample | undefined, b: StandInSample): StandInMeasure {
  const sum: StandInSample = a
    ? {
        ok: a.ok + b.ok,
        failed: a.failed + b.failed,
        durationS: a.durationS + b.durationS,
        serverCpuMs: a.serverCpuMs + b.serverCpuMs,
        databaseCpuMs: a.databaseCpuMs === undefined || b.databaseCpuMs === undefined ? undefined : a.databaseCpuMs + b.databaseCpuMs,
        otherCores: a.otherCores === undefined ? b.otherCores : b.otherCores === undefined ? a.otherCores : Math.max(a.otherCores, b.otherCores),
      }
    : b;
  return {
    ...sum,
    requestsPerSecond: sum.ok / sum.durationS,
    cpuMicrosPerRequest: sum.ok > 0 ? (sum.serverCpuMs * 1000) / sum.ok : Number.NaN,
    databaseCpuMicrosPerRequest: sum.databaseCpuMs === undefined || sum.ok === 0 ? undefined : (sum.databaseCpuMs * 1000) / sum.ok,
  };
}

export async function measureStandIns(deps: StandInDeps): Promise<StandInReport> {
  const sectionStart = performance.now();
  const windows = new Map<string, StandInWindow>();
  for (let round = 0; round < deps.rounds; round += 1) {
    // Rounds alternate the order of the variants, so that neither end of the run is always the same variant's.
    const variants = round % 2 === 0 ? STAND_IN_VARIANTS : [...STAND_IN_VARIANTS].reverse();
    for (const variant of variants) {
      const scenarios = scenariosOf(variant);
      console.log(`  stand-ins${deps.rounds > 1 ? ` (round ${round + 1}/${deps.rounds})` : ''}: ${variant === 'all on' || variant === 'all off' ? variant : `${variant} off`} — ${scenarios.join(', ')}`);
      const startedAt = performance.now();
      const server = await deps.start(variant, switchesOf(variant));
      console.log(`    server ready in ${((performance.now() - startedAt) / 1000).toFixed(1)} s`);
      try {
        const mismatches = mismatchesOf(variant, server.info);
        for (const mismatch of mismatches) console.log(`    WARNING: ${mismatch}`);
        for (const scenario of scenarios) {
          const key = `${variant}\u0000${scenario}`;
          const window = windows.get(key) ?? { variant, scenario, measure: undefined, mismatches: [] };
          const measured = await server.run(scenario);
          if (measured) window.measure = add(window.measure, measured);
          window.mismatches = [...new Set([...window.mismatches, ...mismatches])];
          windows.set(key, window);
        }
      } finally {
        await server.stop();
      }
    }
  }
  const find = (variant: StandInVariant, scenario: StandInScenario) => windows.get(`${variant}\u0000${scenario}`);
  const rows: StandInRow[] = [];
  const row = (standIn: StandInId | 'all off', scenario: StandInScenario): StandInRow => {
    const on = find('all on', scenario);
    const off = find(standIn, scenario);
    const withDatabase = (measure: StandInMeasure | undefined) =>
      measure && measure.databaseCpuMicrosPerRequest !== undefined ? measure.cpuMicrosPerRequest + measure.databaseCpuMicrosPerRequest : Number.NaN;
    return {
      standIn,
      scenario,
      on: on?.measure,
      off: off?.measure,
      offVsOn: on?.measure && off?.measure ? off.measure.cpuMicrosPerRequest / on.measure.cpuMicrosPerRequest : undefined,
      offVsOnWithDatabase: withDatabase(off?.measure) / withDatabase(on?.measure),
      mismatches: [...new Set([...(on?.mismatches ?? []), ...(off?.mismatches ?? [])])],
    };
  };
  for (const id of STAND_IN_IDS) for (const scenario of scenariosOf(id)) rows.push(row(id, scenario));
  for (const scenario of STAND_IN_SCENARIOS) rows.push(row('all off', scenario));
  return { elapsedS: Math.round((performance.now() - sectionStart) / 1000), rounds: deps.rounds, warmupS: deps.warmupS, durationS: deps.durationS, windows: [...windows.values()], rows };
}

function fixed(value: number | undefined, digits: number): string {
  return value === undefined || Number.isNaN(value) ? '—' : value.toFixed(digits);
}

export function printStandIns(report: StandInReport | undefined): void {
  if (!report) return;
  console.log(
    `\nStand-ins: the scenario each speeds up, on fresh servers with every stand-in on and with it off (the others on); ` +
      `${report.rounds} round(s) of ${report.warmupS} s + ${report.durationS} s per window, ${report.elapsedS} s in all`,
  );
  console.log('µs/req: CPU of the server process per successful request (both hops of graphql-gateway-http run in it).');
  console.log('off ÷ on: what switching the stand-in off costs in server CPU per request (1.30: 30 % more); + db: with the');
  console.log("PostgreSQL backends' CPU added.\n");
  const header = ['stand-in', 'scenario', 'µs/req on', 'µs/req off', 'off ÷ on', '+ db', 'req/s on', 'req/s off'];
  const cells = report.rows.map((row) => [
    row.standIn,
    row.scenario,
    fixed(row.on?.cpuMicrosPerRequest, 0),
    fixed(row.off?.cpuMicrosPerRequest, 0),
    row.offVsOn === undefined ? '—' : `${fixed(row.offVsOn, 2)}×`,
    Number.isNaN(row.offVsOnWithDatabase ?? Number.NaN) ? '—' : `${fixed(row.offVsOnWithDatabase, 2)}×`,
    fixed(row.on?.requestsPerSecond, 0),
    fixed(row.off?.requestsPerSecond, 0),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((row) => row[column]!.length)));
  const line = (row: string[]) => row.map((cell, column) => (column < 2 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
  console.log(line(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of cells) console.log(line(row));
  const noisy = report.windows.filter((window) => (window.measure?.otherCores ?? 0) > 0.25);
  if (noisy.length > 0) {
    console.log(
      `\nWARNING: other processes used CPU during ${noisy.map((window) => `${window.variant}/${window.scenario}`).join(', ')}; those figures are noisy.`,
    );
  }
  const failed = report.windows.filter((window) => (window.measure?.failed ?? 0) > 0);
  if (failed.length > 0) console.log(`WARNING: requests failed in ${failed.map((window) => `${window.variant}/${window.scenario}`).join(', ')}.`);
  const mismatched = report.rows.filter((row) => row.mismatches.length > 0);
  for (const row of mismatched) console.log(`WARNING: ${row.standIn} / ${row.scenario} did not run as asked: ${row.mismatches.join('; ')}`);
  console.log('');
}
