/**
 * The cost of switching each stand-in off (conventions §14; lib/stand-ins/), measured by `npm run bench` in one run: the
 * scenario each stand-in speeds up, with the stand-in on and off, as the server's CPU per request (bench/README.md,
 * "Stand-ins").
 *
 * Each comparison starts two fresh server children together, one with every stand-in on and one with the stand-in off
 * (the others on), or with every one off, and alternates measured windows between them — on, off (then off, on in the
 * next round) — so that the two have the same history (a process's CPU per request falls for minutes after it starts, as
 * its young generation grows and its code is optimised) and so that load from other processes, which comes and goes on
 * this machine, falls on both halves of a pair alike. The children differ only in their switches; each sets every switch,
 * so that one in the caller's environment does not leak in, and says which stand-ins really serve (the gate turns one
 * off when an installed release is not the one it was checked against): a comparison where that differs from what was
 * asked is reported as such.
 */
import { performance } from 'node:perf_hooks';
import { STAND_IN_IDS, STAND_INS, type StandInId } from '../lib/stand-ins/stand-in-registry.ts';
import type { BenchServerInfo } from './bench-protocol.ts';
import { formatTable } from './format-table.ts';

/** The scenarios of bench/run.ts this section loads, in the order a comparison runs them. */
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

/** What a measured window gives this comparison (bench/run.ts's runScenario). */
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

/** One side of a comparison over every round: the samples added up. */
export interface StandInMeasure extends StandInSample {
  requestsPerSecond: number;
  /** The server's CPU per successful request, µs. */
  cpuMicrosPerRequest: number;
  /** The database backends' CPU per successful request, µs (0 on PGlite). */
  databaseCpuMicrosPerRequest: number | undefined;
}

export interface StandInRow {
  /** A stand-in switched off, or every one (`all off`). */
  standIn: StandInId | 'all off';
  scenario: StandInScenario;
  /** The all-on child's windows paired with this comparison's. */
  on: StandInMeasure | undefined;
  off: StandInMeasure | undefined;
  /** Server CPU per request off ÷ on: what switching it off costs (1.25: a quarter more CPU per request). */
  offVsOn: number | undefined;
  /** The same with the database backends' CPU added (PostgreSQL). */
  offVsOnWithDatabase: number | undefined;
  /** Stand-ins whose serving state in either child was not what was asked for, with the gate's reason. */
  mismatches: string[];
}

export interface StandInReport {
  /** The whole section, server starts included, s. */
  elapsedS: number;
  rounds: number;
  warmupS: number;
  /** The time each window aims at: its requests are this many seconds at the rate last seen on the same server. */
  durationS: number;
  rows: StandInRow[];
}

/** A running server child, as a comparison of two loads it. */
export interface PairServer<Scenario extends string> {
  /** Loads a scenario for warmupS, unmeasured; resolves to the requests per second it served. */
  warmUp(scenario: Scenario): Promise<number>;
  /** One measured window of `amount` requests (of durationS when undefined); its figures. */
  run(scenario: Scenario, amount: number | undefined): Promise<StandInSample | undefined>;
  stop(): Promise<void>;
}

/** A running server child of one variant. */
export interface StandInServer extends PairServer<StandInScenario> {
  info: BenchServerInfo;
}

export interface StandInDeps extends PairSettings {
  /** Starts a server child for a variant, with these variables added to its environment. */
  start(variant: StandInVariant, env: Record<string, string>): Promise<StandInServer>;
}

/** Every switch, set: the variant's stand-in (or all of them) off, the rest on. */
export function switchesOf(variant: StandInVariant): Record<string, string> {
  const env: Record<string, string> = { STAND_INS: variant === 'all off' ? 'off' : 'on' };
  for (const id of STAND_IN_IDS) env[STAND_INS[id].switchVariable] = variant === 'all off' || variant === id ? 'off' : 'on';
  return env;
}

/** The scenarios compared for a variant: every one for `all off`, the stand-in's own otherwise. */
function scenariosOf(variant: Exclude<StandInVariant, 'all on'>): readonly StandInScenario[] {
  if (variant === 'all off') return STAND_IN_SCENARIOS;
  const own = SCENARIOS_OF[variant];
  return STAND_IN_SCENARIOS.filter((scenario) => own.includes(scenario));
}

/** Whether each stand-in serves in the child as the variant asked; the differences, each with the gate's reason. */
function mismatchesOf(variant: StandInVariant, info: BenchServerInfo): string[] {
  const mismatches: string[] = [];
  for (const id of STAND_IN_IDS) {
    const wanted = !(variant === 'all off' || variant === id);
    const decision = info.standIns[id];
    if (decision.enabled !== wanted) {
      mismatches.push(`${variant}: ${decision.enabled ? `${id} served although switched off` : `${id} off: ${decision.reason}`}`);
    }
  }
  return mismatches;
}

/** Samples of one side as one measure: counts and CPU added, the largest noise kept. */
export function measureOf(samples: readonly StandInSample[]): StandInMeasure | undefined {
  if (samples.length === 0) return undefined;
  const sum = (pick: (sample: StandInSample) => number) => samples.reduce((total, sample) => total + pick(sample), 0);
  const ok = sum((sample) => sample.ok);
  const durationS = sum((sample) => sample.durationS);
  const serverCpuMs = sum((sample) => sample.serverCpuMs);
  const databaseCpuMs = samples.every((sample) => sample.databaseCpuMs !== undefined) ? sum((sample) => sample.databaseCpuMs!) : undefined;
  const noise = samples.flatMap((sample) => (sample.otherCores === undefined ? [] : [sample.otherCores]));
  return {
    ok,
    failed: sum((sample) => sample.failed),
    durationS,
    serverCpuMs,
    databaseCpuMs,
    otherCores: noise.length > 0 ? Math.max(...noise) : undefined,
    requestsPerSecond: ok / durationS,
    cpuMicrosPerRequest: ok > 0 ? (serverCpuMs * 1000) / ok : Number.NaN,
    databaseCpuMicrosPerRequest: databaseCpuMs === undefined || ok === 0 ? undefined : (databaseCpuMs * 1000) / ok,
  };
}

async function startVariant(deps: StandInDeps, variant: StandInVariant): Promise<StandInServer> {
  const startedAt = performance.now();
  const server = await deps.start(variant, switchesOf(variant));
  console.log(
    `    ${variant === 'all on' || variant === 'all off' ? variant : `${variant} off`}: server ready in ${((performance.now() - startedAt) / 1000).toFixed(1)} s`,
  );
  for (const mismatch of mismatchesOf(variant, server.info)) console.log(`    WARNING: ${mismatch}`);
  return server;
}

/** Starts the two children of a comparison together; when one fails to start, the other is stopped. */
async function startPair(deps: StandInDeps, variant: Exclude<StandInVariant, 'all on'>): Promise<[StandInServer, StandInServer]> {
  const [on, off] = await Promise.allSettled([startVariant(deps, 'all on'), startVariant(deps, variant)]);
  if (on.status === 'fulfilled' && off.status === 'fulfilled') return [on.value, off.value];
  for (const started of [on, off]) if (started.status === 'fulfilled') await started.value.stop();
  throw on.status === 'rejected' ? on.reason : (off as PromiseRejectedResult).reason;
}

/** How a pair of servers is compared: the load's connections, the rounds of paired windows, each window's size. */
export interface PairSettings {
  /** The load's connections: a window is never fewer requests than this. */
  connections: number;
  rounds: number;
  warmupS: number;
  durationS: number;
}

/**
 * Two running servers compared on each scenario in alternating windows — a, b; then b, a — each side's samples added
 * up. Each server's first window of a scenario comes after a warm-up, later ones after a full GC only. A window is a
 * fixed number of requests, ending with the last reply, so that every request's work is inside it and no other's: in a
 * timed window the requests still in flight at its end (50 deep reads of up to a second each, with every stand-in off)
 * are billed but not counted. Its size is durationS at the rate last seen for that server and scenario.
 */
export async function comparePair<Scenario extends string>(
  settings: PairSettings,
  a: PairServer<Scenario>,
  b: PairServer<Scenario>,
  scenarios: readonly Scenario[],
): Promise<{ scenario: Scenario; a: StandInMeasure | undefined; b: StandInMeasure | undefined }[]> {
  const rates = new Map<PairServer<Scenario>, Map<Scenario, number>>([
    [a, new Map()],
    [b, new Map()],
  ]);
  const sample = async (server: PairServer<Scenario>, scenario: Scenario) => {
    const seen = rates.get(server)!;
    if (!seen.has(scenario)) seen.set(scenario, settings.warmupS > 0 ? await server.warmUp(scenario) : Number.NaN);
    // No warm-up (--stand-in-warmup 0): the first window is timed. A warm-up that saw no reply: a request per connection.
    const rate = seen.get(scenario)!;
    const amount = Number.isNaN(rate) ? undefined : Math.max(settings.connections, Math.round(rate * settings.durationS));
    const measured = await server.run(scenario, amount);
    if (measured && measured.ok > 0) seen.set(scenario, measured.ok / measured.durationS);
    return measured;
  };
  const rows = [];
  for (const scenario of scenarios) {
    const samples = { a: [] as StandInSample[], b: [] as StandInSample[] };
    for (let round = 0; round < settings.rounds; round += 1) {
      // a, b; then b, a: neither side always measured first.
      for (const side of round % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const)) {
        const measured = await sample(side === 'a' ? a : b, scenario);
        if (measured) samples[side].push(measured);
      }
    }
    rows.push({ scenario, a: measureOf(samples.a), b: measureOf(samples.b) });
  }
  return rows;
}

/** CPU per request with the database backends' added (NaN where the database's is not known). */
export function withDatabase(measure: StandInMeasure | undefined): number {
  return measure?.databaseCpuMicrosPerRequest === undefined
    ? Number.NaN
    : measure.cpuMicrosPerRequest + measure.databaseCpuMicrosPerRequest;
}

export async function measureStandIns(deps: StandInDeps): Promise<StandInReport> {
  const sectionStart = performance.now();
  const rows: StandInRow[] = [];
  for (const variant of [...STAND_IN_IDS, 'all off'] as const) {
    const scenarios = scenariosOf(variant);
    console.log(`  stand-ins: ${variant === 'all off' ? 'every stand-in off' : `${variant} off`} against all on — ${scenarios.join(', ')}`);
    const [allOn, off] = await startPair(deps, variant);
    try {
      const mismatches = [...mismatchesOf('all on', allOn.info), ...mismatchesOf(variant, off.info)];
      for (const { scenario, a: on, b: offMeasure } of await comparePair(deps, allOn, off, scenarios)) {
        rows.push({
          standIn: variant,
          scenario,
          on,
          off: offMeasure,
          offVsOn: on && offMeasure ? offMeasure.cpuMicrosPerRequest / on.cpuMicrosPerRequest : undefined,
          offVsOnWithDatabase: withDatabase(offMeasure) / withDatabase(on),
          mismatches,
        });
      }
    } finally {
      await Promise.all([allOn.stop(), off.stop()]);
    }
  }
  return {
    elapsedS: Math.round((performance.now() - sectionStart) / 1000),
    rounds: deps.rounds,
    warmupS: deps.warmupS,
    durationS: deps.durationS,
    rows,
  };
}

export function fixed(value: number | undefined, digits: number): string {
  return value === undefined || Number.isNaN(value) ? '—' : value.toFixed(digits);
}

export function printStandIns(report: StandInReport | undefined): void {
  if (!report) return;
  console.log(
    `\nStand-ins: the scenario each speeds up, in alternating windows on two fresh servers, every stand-in on and one off ` +
      `(the others on); ${report.rounds} pair(s) of windows of ~${report.durationS} s per row (a fixed number of requests ` +
      `each), ${report.warmupS} s warm-up, ${report.elapsedS} s in all`,
  );
  console.log('µs/req: CPU of the server process per successful request (both hops of graphql-gateway-http run in it).');
  console.log('off ÷ on: what switching the stand-in off costs in server CPU per request (1.30: 30 % more); + db: with the');
  console.log("PostgreSQL backends' CPU added. other cores: the most seen beside the bench in the row's windows (noise).\n");
  const header = ['stand-in off', 'scenario', 'µs/req on', 'µs/req off', 'off ÷ on', '+ db', 'req/s on', 'req/s off', 'other cores'];
  const cells = report.rows.map((row) => {
    const noise = [row.on?.otherCores, row.off?.otherCores].filter((value) => value !== undefined);
    return [
      row.standIn,
      row.scenario,
      fixed(row.on?.cpuMicrosPerRequest, 0),
      fixed(row.off?.cpuMicrosPerRequest, 0),
      row.offVsOn === undefined ? '—' : `${fixed(row.offVsOn, 2)}×`,
      Number.isNaN(row.offVsOnWithDatabase ?? Number.NaN) ? '—' : `${fixed(row.offVsOnWithDatabase, 2)}×`,
      fixed(row.on?.requestsPerSecond, 0),
      fixed(row.off?.requestsPerSecond, 0),
      noise.length > 0 ? fixed(Math.max(...noise), 2) : '—',
    ];
  });
  console.log(formatTable(header, cells, 2));
  const noisy = report.rows.filter((row) => Math.max(row.on?.otherCores ?? 0, row.off?.otherCores ?? 0) > 0.25);
  if (noisy.length > 0) {
    console.log(
      `\nWARNING: other processes used CPU during ${noisy.map((row) => `${row.standIn}/${row.scenario}`).join(', ')}; those figures are noisy.`,
    );
  }
  const failed = report.rows.filter((row) => (row.on?.failed ?? 0) + (row.off?.failed ?? 0) > 0);
  if (failed.length > 0) console.log(`WARNING: requests failed in ${failed.map((row) => `${row.standIn}/${row.scenario}`).join(', ')}.`);
  for (const row of report.rows.filter((candidate) => candidate.mismatches.length > 0)) {
    console.log(`WARNING: ${row.standIn} / ${row.scenario} did not run as asked: ${row.mismatches.join('; ')}`);
  }
  console.log('');
}
