import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, migrateToLatest } from '../../lib/database/database.ts';
import { writePgliteTemplate, type PgliteTemplateOptions } from '../../lib/database/pglite-template.ts';
import { createThrowawayDatabase } from '../../lib/database/throwaway-database.ts';
import { ALL_MIGRATIONS } from '../../subgraphs/index.ts';

/**
 * Vitest global setup of the projects that open databases: one migrated template per run and database kind, which every
 * test database of the run starts from instead of running every migration again (and, on PGlite, initdb) — about a
 * second of CPU per PGlite database and a fifth of a second per PostgreSQL one, for each of the run's few hundred.
 *
 * - PGlite: the data directory dumped as a tar (lib/database/pglite-template.ts, what the build makes for npm start);
 *   its path reaches the workers in TEST_PGLITE_TEMPLATE. It differs from the build's in two sizes only (TEST_PGLITE),
 *   which no test observes and which make each of the run's PGlite databases start in about half the CPU time.
 * - PostgreSQL, when DATABASE_URL is set: a database on that server, migrated and then left without a session, which
 *   each throwaway database copies (CREATE DATABASE … TEMPLATE); its name reaches the workers in TEST_POSTGRES_TEMPLATE.
 *
 * Both are made from this checkout's migrations at every run, so they are never stale, and removed when the run ends.
 * Several projects declare this setup: the first makes them.
 */
/**
 * The tests' PGlite template, beside the build's defaults: 1 MiB write-ahead-log segments instead of 16 (the tar is a
 * quarter smaller, and every database copies it several times as it unpacks it), and a 16 MB buffer pool instead of
 * 128 MB (set up again at each start). A test database holds a few megabytes; SQL behaves the same at either size.
 */
const TEST_PGLITE: PgliteTemplateOptions = { initdbArgs: ['--wal-segsize=1'], settings: { shared_buffers: '16MB' } };

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const existing = process.env.TEST_PGLITE_TEMPLATE;
  if (existing !== undefined && existsSync(existing)) return undefined;
  const folder = mkdtempSync(join(tmpdir(), 'tributary-pglite-template-'));
  const file = join(folder, 'template.tar');
  await writePgliteTemplate(file, ALL_MIGRATIONS, TEST_PGLITE);
  process.env.TEST_PGLITE_TEMPLATE = file;

  const serverUrl = process.env.DATABASE_URL;
  const postgresTemplate = serverUrl ? await createThrowawayDatabase(serverUrl, 'tributary_template') : undefined;
  if (postgresTemplate) {
    const database = await createDatabase({
      url: postgresTemplate.url,
      pgliteDir: undefined,
      poolMax: 1,
      connectTimeoutMs: 5000,
      statementTimeoutMs: 60_000,
    });
    try {
      await migrateToLatest(database.db, ALL_MIGRATIONS);
    } finally {
      // No session may stay on a template while it is copied.
      await database.close();
    }
    process.env.TEST_POSTGRES_TEMPLATE = new URL(postgresTemplate.url).pathname.slice(1);
  }

  return async () => {
    delete process.env.TEST_PGLITE_TEMPLATE;
    delete process.env.TEST_POSTGRES_TEMPLATE;
    rmSync(folder, { recursive: true, force: true });
    await postgresTemplate?.drop();
  };
}
