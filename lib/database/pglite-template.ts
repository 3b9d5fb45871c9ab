import { writeFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { migrateToLatest, PGLITE_PARSERS, type NoTables, type SubgraphMigrations } from './database.ts';

/** How a template's database differs from PGlite's defaults (none for the build's; the tests' own: see their global setup). */
export interface PgliteTemplateOptions {
  /** Arguments added to PGlite's initdb (`--wal-segsize=1`). */
  initdbArgs?: readonly string[];
  /** Server settings stored in the data directory (ALTER SYSTEM), which every database started from it reads. */
  settings?: Readonly<Record<string, string>>;
}

/**
 * Writes the embedded database's template (createDatabase's `pgliteTemplate`): an in-memory PGlite, initialised and
 * migrated, dumped as an uncompressed tar of its data directory. It holds no rows but what migrations insert, and no
 * secret. The build makes it (bin/build.mjs), so a fresh ./data skips initdb and the first migrations.
 */
export async function writePgliteTemplate(
  file: string,
  sets: readonly SubgraphMigrations[],
  options: PgliteTemplateOptions = {},
): Promise<void> {
  const pglite = new PGlite({ parsers: PGLITE_PARSERS, ...(options.initdbArgs && { initDbStartParams: [...options.initdbArgs] }) });
  try {
    await pglite.waitReady;
    const db = new Kysely<NoTables>({ dialect: new PGliteDialect(pglite) });
    await migrateToLatest(db, sets);
    for (const [name, value] of Object.entries(options.settings ?? {})) {
      await sql`alter system set ${sql.id(name)} = ${sql.lit(value)}`.execute(db);
    }
    // A checkpoint first, so the dump holds the data files themselves rather than a write-ahead log to replay.
    await pglite.exec('checkpoint');
    const dump = await pglite.dumpDataDir('none');
    await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  } finally {
    await pglite.close();
  }
}
