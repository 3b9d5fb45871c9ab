/**
 * A pino destination that keeps every line a test system writes, for tests that read the logs (request ids across
 * hops, secrets that must never appear).
 */
export interface LogCapture {
  write(line: string): void;
  /** Every line so far, as written. */
  readonly text: string;
  /** Every line so far, parsed. */
  entries(): Record<string, unknown>[];
  clear(): void;
}

export function createLogCapture(): LogCapture {
  let lines: string[] = [];
  return {
    write(line) {
      lines.push(line);
    },
    get text() {
      return lines.join('');
    },
    entries() {
      return lines.flatMap((chunk) =>
        chunk
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => JSON.parse(line) as Record<string, unknown>),
      );
    },
    clear() {
      lines = [];
    },
  };
}

/** One sample of Prometheus exposition text. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses Prometheus text exposition (format 0.0.4) into samples; comments and blank lines are skipped. */
export function parseMetrics(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1]!] = pair[2]!.replace(/\\(.)/g, (_, escaped: string) => (escaped === 'n' ? '\n' : escaped));
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample named `name` whose labels include `labels` (0 when there is none). */
export function sampleValue(samples: readonly MetricSample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}
