import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writePgliteTemplate } from '../../lib/database/pglite-template.ts';
import { ALL_MIGRATIONS } from '../../subgraphs/index.ts';

/**
 * Vitest global setup of the projects that open databases: one migrated PGlite template per run
 * (lib/database/pglite-template.ts, what the build makes for npm start), so that every in-memory database of the run
 * starts from it instead of running initdb and every migration again — a few seconds of CPU per test system. The file
 * is made from this checkout's migrations at every run, so it is never stale; its path reaches the test workers in
 * TEST_PGLITE_TEMPLATE (test/support/test-system.ts reads it). Several projects declare this setup: the first makes it.
 */
export default async function setup(): Promise<(() => void) | undefined> {
  const existing = process.env.TEST_PGLITE_TEMPLATE;
  if (existing !== undefined && existsSync(existing)) return undefined;
  const folder = mkdtempSync(join(tmpdir(), 'tributary-pglite-template-'));
  const file = join(folder, 'template.tar');
  await writePgliteTemplate(file, ALL_MIGRATIONS);
  process.env.TEST_PGLITE_TEMPLATE = file;
  return () => {
    delete process.env.TEST_PGLITE_TEMPLATE;
    rmSync(folder, { recursive: true, force: true });
  };
}
