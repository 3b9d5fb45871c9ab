import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, migrateToLatest } from '../../lib/database/database.ts';
import { writePgliteTemplate } from '../../lib/database/pglite-template.ts';
import { createThrowawayDatabase } from '../../lib/database/throwaway-database.ts';
import { ALL_MIGRATIONS } from '../../subgraphs/index.ts';

/**
 * Vitest global setup of the projects that open databases: one migrated template per run and database kind, which every
 * test database of the run starts from instead of running every migration again (and, on PGlite, initdb) — about a
 * second of CPU per PGlite database and a fifth of a second per PostgreSQL one, for each of the run's few hundred.
 *
 * - PGlite: the data directory dumped as a tar (lib/database/pglite-template.ts, what the build makes for npm start);
 *   its path reaches the workers in TEST_PGLITE_TEMPLATE.
 * - PostgreSQL, when DATABASE_URL is set: a database on that server, migrated and then left without a session, which
 *   each throwaway database copies (CREATE DATABASE … TEMPLATE); its name reaches the workers in TEST_POSTGRES_TEMPLATE.
 *
 * Both are made from this checkout's migrations at every run, so they are never stale, and removed when the run ends.
 * Several projects declare this setup: the first makes them.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const existing = process.env.TEST_PGLITE_TEMPLATE;
  if (existing !== undefined && existsSync(existing)) return undefined;
  const folder = mkdtempSync(join(tmpdir(), 'tributary-pglite-template-'));
  const file = join(folder, 'template.tar');
  await writePgliteTemplate(file, ALL_MIGRATIONS);
  process.env.TEST_PGLITE_TEMPLATE = file;

  const serverUrl = process.env.DATABASE_URL;
  const postgresTemplate = serverUrl ? await createThrowawayDatabase(serverUrl, 'tributary_template') : undefined;
  if (postgresTemplate) {
    const database = await createDatabase({ url: postgresTemplate.url, pgliteDir: undefined, poolMax: 1, connectTimeoutMs: 5000, statementTimeoutMs: 60_000 });
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
