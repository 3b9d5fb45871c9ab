/**
 * npm run fuzz -- [--runs N] [--seed S] [--door NAME]... [--database pglite|postgres|both] [--timeout MS] [--grep TEXT]
 *                 [--path P] [--shrink-ms MS] [--verbose]
 *
 * Runs the fuzz suite (test/fuzz/*.fuzz.test.ts) alone, N cases per door shared out among its properties (default: the
 * short run of `npm test`), on
 * PGlite and — when DATABASE_URL is set — PostgreSQL. Every failure prints its seed and path; `--seed S --path P
 * --grep "<test name>"` replays exactly that case. Doors: rest-user-example, graph, upload, chunked-upload, graphql, grpc,
 * raw-http, webhooks.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string' },
    seed: { type: 'string' },
    door: { type: 'string', multiple: true },
    database: { type: 'string' },
    timeout: { type: 'string' },
    grep: { type: 'string' },
    path: { type: 'string' },
    'shrink-ms': { type: 'string' },
    verbose: { type: 'boolean' },
  },
  allowPositionals: false,
});

const root = fileURLToPath(new URL('../', import.meta.url));
const doors = readdirSync(new URL('../test/fuzz/', import.meta.url))
  .filter((name) => name.endsWith('.fuzz.test.ts'))
  .map((name) => name.replace(/\.fuzz\.test\.ts$/, ''));

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

const numeric = (name: string, value: string | undefined) => {
  if (value !== undefined && !/^\d+$/.test(value)) fail(`--${name} must be a non-negative integer, got "${value}"`);
  return value;
};
const runs = numeric('runs', values.runs);
const seed = numeric('seed', values.seed);
const timeout = numeric('timeout', values.timeout);
const shrinkMs = numeric('shrink-ms', values['shrink-ms']);
for (const door of values.door ?? []) if (!doors.includes(door)) fail(`unknown door "${door}"; doors: ${doors.join(', ')}`);

const database = values.database ?? 'both';
if (!['pglite', 'postgres', 'both'].includes(database)) fail('--database must be pglite, postgres or both');
if (database === 'postgres' && !process.env.DATABASE_URL) fail('--database postgres needs DATABASE_URL');
const projects =
  database === 'pglite' || !process.env.DATABASE_URL
    ? ['fuzz-pglite']
    : database === 'postgres'
      ? ['fuzz-postgres']
      : ['fuzz-pglite', 'fuzz-postgres'];

const env: NodeJS.ProcessEnv = { ...process.env, APOLLO_TELEMETRY_DISABLED: '1' };
if (runs !== undefined) env.FUZZ_RUNS = runs;
if (seed !== undefined) env.FUZZ_SEED = seed;
if (timeout !== undefined) env.FUZZ_TIMEOUT_MS = timeout;
if (shrinkMs !== undefined) env.FUZZ_SHRINK_MS = shrinkMs;
if (values.path !== undefined) env.FUZZ_PATH = values.path;
if (values.verbose) env.FUZZ_VERBOSE = '1';

// vitest's own launcher (its package exports do not name it, so it is found by path, as npm's .bin link does).
const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const args = [
  vitest,
  'run',
  ...projects.flatMap((project) => ['--project', project]),
  ...(values.door ?? []).map((door) => `test/fuzz/${door}.fuzz.test.ts`),
  ...(values.grep !== undefined ? ['-t', values.grep] : []),
];
console.log(
  `fuzz: ${runs ?? 'default (short run)'} runs per property, seed ${seed ?? 'new'}, ${projects.join(' + ')}, doors: ${(values.door ?? doors).join(', ')}`,
);
const child = spawn(process.execPath, args, { cwd: root, env, stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
