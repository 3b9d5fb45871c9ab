/**
 * What a browser-facing gateway costs (issue 38, item 3): the GraphQL scenarios on two fresh servers, one with
 * CORS_ORIGINS set and one without, every request carrying a browser's `Origin` on both, measured in alternating windows
 * as the stand-ins' comparison is (bench/stand-ins.ts, comparePair) — so that the two have the same history and the
 * machine's other load falls on both alike. The CORS side answers with the CORS headers from the same fast path; the
 * other, without them. bench/README.md, "CORS".
 */
import { performance } from 'node:perf_hooks';
import { comparePair, fixed, withDatabase, type PairServer, type PairSettings, type StandInMeasure } from './stand-ins.ts';
import { formatTable } from './format-table.ts';

/** The GraphQL scenarios of bench/run.ts a browser would send: embedded, distributed, and the deep read. */
export const CORS_SCENARIOS = ['graphql-gateway', 'graphql-gateway-http', 'social-graphql-deep'] as const;
export type CorsScenario = (typeof CORS_SCENARIOS)[number];

/** The origin the CORS side allows, and every request of both sides sends. */
export const BENCH_ORIGIN = 'http://app.bench.example';

export interface CorsRow {
  scenario: CorsScenario;
  without: StandInMeasure | undefined;
  with: StandInMeasure | undefined;
  /** Server CPU per request with CORS ÷ without (1.05: 5 % more). */
  corsVsNone: number | undefined;
  /** The same with the PostgreSQL backends' CPU added. */
  corsVsNoneWithDatabase: number | undefined;
}

export interface CorsReport extends PairSettings {
  elapsedS: number;
  rows: CorsRow[];
}

export interface CorsDeps extends PairSettings {
  /** Starts a server child with these variables added to its environment. */
  start(env: Record<string, string>): Promise<PairServer<CorsScenario>>;
}

export async function measureCors(deps: CorsDeps): Promise<CorsReport> {
  const started = performance.now();
  console.log(`  cors: CORS_ORIGINS=${BENCH_ORIGIN} against none, every request with Origin — ${CORS_SCENARIOS.join(', ')}`);
  const [none, cors] = await Promise.all([deps.start({ CORS_ORIGINS: '' }), deps.start({ CORS_ORIGINS: BENCH_ORIGIN })]);
  try {
    const rows = (await comparePair(deps, none, cors, CORS_SCENARIOS)).map(({ scenario, a, b }) => ({
      scenario,
      without: a,
      with: b,
      corsVsNone: a && b ? b.cpuMicrosPerRequest / a.cpuMicrosPerRequest : undefined,
      corsVsNoneWithDatabase: withDatabase(b) / withDatabase(a),
    }));
    return { ...deps, elapsedS: Math.round((performance.now() - started) / 1000), rows };
  } finally {
    await Promise.all([none.stop(), cors.stop()]);
  }
}

export function printCors(report: CorsReport | undefined): void {
  if (!report) return;
  console.log(
    `\nCORS: the GraphQL scenarios on two fresh servers, CORS_ORIGINS set and not, every request with Origin; ` +
      `${report.rounds} pair(s) of windows of ~${report.durationS} s per row, ${report.warmupS} s warm-up, ${report.elapsedS} s in all`,
  );
  console.log('cors ÷ none: server CPU per request with CORS_ORIGINS over without (target ≤ 1.10); + db: with the PostgreSQL');
  console.log("backends' CPU added. other cores: the most seen beside the bench in the row's windows (noise).\n");
  const header = ['scenario', 'µs/req none', 'µs/req cors', 'cors ÷ none', '+ db', 'req/s none', 'req/s cors', 'other cores', 'target'];
  const cells = report.rows.map((row) => [
    row.scenario,
    fixed(row.without?.cpuMicrosPerRequest, 0),
    fixed(row.with?.cpuMicrosPerRequest, 0),
    row.corsVsNone === undefined ? '—' : `${fixed(row.corsVsNone, 2)}×`,
    Number.isNaN(row.corsVsNoneWithDatabase ?? Number.NaN) ? '—' : `${fixed(row.corsVsNoneWithDatabase, 2)}×`,
    fixed(row.without?.requestsPerSecond, 0),
    fixed(row.with?.requestsPerSecond, 0),
    fixed(Math.max(row.without?.otherCores ?? Number.NaN, row.with?.otherCores ?? Number.NaN), 2),
    row.corsVsNone === undefined ? '—' : row.corsVsNone <= 1.1 ? 'PASS' : 'MISS',
  ]);
  console.log(formatTable(header, cells));
  const noisy = report.rows.filter((row) => Math.max(row.without?.otherCores ?? 0, row.with?.otherCores ?? 0) > 0.25);
  if (noisy.length > 0)
    console.log(`\nWARNING: other processes used CPU during ${noisy.map((row) => row.scenario).join(', ')}; those figures are noisy.`);
  const failed = report.rows.filter((row) => (row.without?.failed ?? 0) + (row.with?.failed ?? 0) > 0);
  if (failed.length > 0) console.log(`WARNING: requests failed in ${failed.map((row) => row.scenario).join(', ')}.`);
  console.log('');
}
