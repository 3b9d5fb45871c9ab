import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Three kinds of tests: fast unit tests; service-level tests (test/service), which drive a service or the database layer
 * directly on a real database; and front-door tests (test/e2e) that start real servers on ephemeral ports. The last two
 * run on PGlite always, and a second time on PostgreSQL when DATABASE_URL is set (as .ci/run does).
 */
/** One migrated template per run and database kind, which every test database starts from. */
const DATABASE_TEMPLATES_SETUP = './test/support/database-templates.global-setup.ts';
/**
 * The run's local S3-compatible server (s3rver), for the projects whose test systems keep their media in S3: the e2e
 * project on PostgreSQL (below), so that the media suite runs on the S3 store and on the local one (PGlite) without a
 * third run of the suite.
 */
const S3_SERVER_SETUP = './test/support/s3-server.global-setup.ts';
const MEDIA_ON_S3 = { TEST_MEDIA_STORE: 's3' };

const onDatabase = (name: string, database: 'pglite' | 'postgres', folder: 'e2e' | 'service', env: Record<string, string> = {}) => ({
  extends: true as const,
  test: {
    name,
    include: [`test/${folder}/**/*.test.ts`],
    env: { TEST_DATABASE: database, APOLLO_TELEMETRY_DISABLED: '1', ...env },
    globalSetup: [DATABASE_TEMPLATES_SETUP, ...(env.TEST_MEDIA_STORE === 's3' ? [S3_SERVER_SETUP] : [])],
    // A worker keeps its modules from one file to the next: each file otherwise starts a process that loads Apollo, the
    // subgraphs and PGlite again (about half of the e2e project's time). Files still run one at a time per worker and
    // start systems of their own; what a file leaves behind must not reach the next (test/README.md).
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

/**
 * The fuzz suite (test/fuzz, fast-check): each door file starts its own system in a child process. `npm test` runs the
 * short run (FUZZ_RUNS unset); `npm run fuzz -- --runs N` (bin/fuzz.ts) runs these projects alone, longer. A worker keeps
 * its modules from one door file to the next, and with them the child process the last door left: the next door starts
 * its own system there instead of loading the whole system into a new process (test/support/fuzz/fuzz-system.ts).
 */
const fuzz = (name: string, database: 'pglite' | 'postgres') => ({
  extends: true as const,
  test: {
    name,
    include: ['test/fuzz/**/*.fuzz.test.ts'],
    env: { TEST_DATABASE: database, APOLLO_TELEMETRY_DISABLED: '1' },
    globalSetup: [DATABASE_TEMPLATES_SETUP],
    isolate: false,
    // Each property sets its own timeout from the run's size (test/support/fuzz/fuzz-settings.ts).
    testTimeout: 600_000,
    hookTimeout: 180_000,
  },
});

export default defineConfig({
  // graphql ships CommonJS (main) and ESM (module) builds; Node and the Apollo packages load the CommonJS one, so tests
  // must too, or two graphql realms meet ("Cannot use GraphQLSchema from another module or realm").
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    // Both cores (vitest leaves one free by default): a front-door test spends much of its time waiting on its servers,
    // PostgreSQL or a child process, and its bounds do not assume an idle machine (test/support/hang-bounds.ts).
    maxWorkers: availableParallelism(),
    // The default reporter, then each project's duration (test/support/project-durations-reporter.ts).
    reporters: ['default', './test/support/project-durations-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          env: { APOLLO_TELEMETRY_DISABLED: '1' },
          // As the database projects: a fresh process per file spent most of this project's time importing the same
          // modules again (about half of its wall time); a unit file restores what it changes (timers, TZ, spies).
          isolate: false,
        },
      },
      onDatabase('service-pglite', 'pglite', 'service'),
      ...(process.env.DATABASE_URL ? [onDatabase('service-postgres', 'postgres', 'service')] : []),
      onDatabase('e2e-pglite', 'pglite', 'e2e'),
      // The front-door suite on PostgreSQL, its media in S3 (MEDIA_ON_S3). With TEST_STAND_INS_OFF (CI, .ci/run) it runs
      // with every stand-in off — the libraries' own routes (gateway/stand-ins/README.md); tests that compare a stand-in
      // with its library switch it on themselves — so that CI proves both databases, both routes and both blob stores in
      // two runs of the suite instead of three: the stand-ins on PGlite (above), on PostgreSQL in the fuzz doors and the
      // fleet. Without PostgreSQL, the stand-ins-off run is on PGlite.
      ...(process.env.DATABASE_URL
        ? [
            process.env.TEST_STAND_INS_OFF
              ? onDatabase('e2e-postgres-stand-ins-off', 'postgres', 'e2e', { STAND_INS: 'off', ...MEDIA_ON_S3 })
              : onDatabase('e2e-postgres', 'postgres', 'e2e', MEDIA_ON_S3),
          ]
        : process.env.TEST_STAND_INS_OFF
          ? [onDatabase('e2e-pglite-stand-ins-off', 'pglite', 'e2e', { STAND_INS: 'off' })]
          : []),
      // The fleet behind HAProxy (test/fleet): several OS processes on PostgreSQL, once per run.
      ...(process.env.DATABASE_URL
        ? [
            {
              extends: true as const,
              test: {
                name: 'fleet',
                include: ['test/fleet/**/*.test.ts'],
                env: { TEST_DATABASE: 'postgres', APOLLO_TELEMETRY_DISABLED: '1' },
                testTimeout: 120_000,
                hookTimeout: 240_000,
              },
            },
          ]
        : []),
      fuzz('fuzz-pglite', 'pglite'),
      ...(process.env.DATABASE_URL ? [fuzz('fuzz-postgres', 'postgres')] : []),
      // Swagger UI and the offline GraphQL IDE in Debian's chromium (playwright-core; .ci/run installs the browser).
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          env: { TEST_DATABASE: 'pglite', APOLLO_TELEMETRY_DISABLED: '1' },
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
