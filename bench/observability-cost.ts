/**
 * The cost of observability (issue 5), measured by `npm run bench` in one run: the same scenarios (REST GetByID and the
 * GraphQL GetByID through the gateway) against three fresh server children that differ only in their environment —
 * everything off (METRICS_ENABLED=false, no OTLP endpoint), metrics on (the default), and metrics plus tracing with every
 * trace sampled and exported over OTLP/HTTP to a sink in this process that reads and discards the batches.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const OBSERVABILITY_VARIANTS = ['off', 'metrics', 'metrics+tracing'] as const;
export type ObservabilityVariant = (typeof OBSERVABILITY_VARIANTS)[number];

/** What a scenario's window reports that this comparison needs. */
export interface VariantMeasure {
  requestsPerSecond: number;
  p99Ms: number;
  cpuMicrosPerRequest: number | undefined;
}

export interface ObservabilityRow {
  variant: ObservabilityVariant;
  scenario: string;
  measure: VariantMeasure | undefined;
  /** requests/s ÷ the same scenario with everything off. */
  vsOff?: number;
  /** CPU per request with everything off ÷ this variant's. */
  cpuVsOff?: number;
}

export interface ObservabilityReport {
  rows: ObservabilityRow[];
  /** Spans the OTLP sink received (metrics+tracing), and the export requests that carried them. */
  spansExported: number;
  exportRequests: number;
}

export interface ObservabilityDeps {
  scenarios: readonly string[];
  /** Starts a server child with these variables added to its environment. */
  start(env: Record<string, string>): Promise<{ stop(): Promise<void>; run(scenario: string): Promise<VariantMeasure | undefined> }>;
}

/** An OTLP/HTTP receiver that counts spans and discards them. */
async function startSink(): Promise<{ url: string; counts(): { spans: number; requests: number }; close(): Promise<void> }> {
  let spans = 0;
  let requests = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests += 1;
      // Counting "spanId" keys is enough here and costs this process (the load generator's) far less than parsing.
      spans += Buffer.concat(chunks).toString('utf8').split('"spanId"').length - 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    counts: () => ({ spans, requests }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export async function measureObservability(deps: ObservabilityDeps): Promise<ObservabilityReport> {
  const sink = await startSink();
  const rows: ObservabilityRow[] = [];
  try {
    const environments: Record<ObservabilityVariant, Record<string, string>> = {
      off: { METRICS_ENABLED: 'false' },
      metrics: { METRICS_ENABLED: 'true' },
      'metrics+tracing': { METRICS_ENABLED: 'true', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER_ARG: '1' },
    };
    for (const variant of OBSERVABILITY_VARIANTS) {
      console.log(`  observability: ${variant}`);
      const server = await deps.start(environments[variant]);
      try {
        for (const scenario of deps.scenarios) rows.push({ variant, scenario, measure: await server.run(scenario) });
      } finally {
        await server.stop();
      }
    }
  } finally {
    await sink.close();
  }
  for (const row of rows) {
    const off = rows.find((other) => other.variant === 'off' && other.scenario === row.scenario)?.measure;
    if (!row.measure || !off) continue;
    row.vsOff = row.measure.requestsPerSecond / off.requestsPerSecond;
    if (row.measure.cpuMicrosPerRequest && off.cpuMicrosPerRequest)
      row.cpuVsOff = off.cpuMicrosPerRequest / row.measure.cpuMicrosPerRequest;
  }
  const { spans, requests } = sink.counts();
  return { rows, spansExported: spans, exportRequests: requests };
}

function fixed(value: number | undefined, digits: number): string {
  return value === undefined || Number.isNaN(value) ? '—' : value.toFixed(digits);
}

export function printObservability(report: ObservabilityReport): void {
  console.log('\nObservability cost: the same scenarios on fresh servers with everything off, metrics on (the default), and');
  console.log('metrics + tracing (every trace sampled, exported over OTLP/HTTP to a local sink)\n');
  console.log(
    `${'variant'.padEnd(17)} ${'scenario'.padEnd(17)} ${'req/s'.padStart(7)} ${'p99 ms'.padStart(7)} ${'server µs/req'.padStart(14)} ${'× off'.padStart(6)} ${'by CPU'.padStart(7)}`,
  );
  for (const row of report.rows) {
    console.log(
      `${row.variant.padEnd(17)} ${row.scenario.padEnd(17)} ${fixed(row.measure?.requestsPerSecond, 0).padStart(7)} ${fixed(row.measure?.p99Ms, 1).padStart(7)} ` +
        `${fixed(row.measure?.cpuMicrosPerRequest, 0).padStart(14)} ${fixed(row.vsOff, 2).padStart(6)} ${fixed(row.cpuVsOff, 2).padStart(7)}`,
    );
  }
  console.log(`\nspans received by the sink: ${report.spansExported} in ${report.exportRequests} export requests\n`);
}
