import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { PGlite, types } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect, sql, type LogEvent, type Migration, type MigrationProvider } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import type { DatabaseConfig } from './config.ts';

/**
 * One database connection for the process. Each subgraph narrows it to its own tables with `db.withTables<…>()` and owns a
 * PostgreSQL schema of its own, so the subgraphs can later move to separate databases without touching their SQL.
 */
export interface DatabaseHandle {
  // The empty table map is deliberate: subgraphs add their own tables with withTables.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  db: Kysely<{}>;
  kind: 'pglite' | 'postgres';
  /** Cheap round trip, for readiness checks. */
  ping(): Promise<void>;
  /**
   * Calls `listener` with the SQL of every statement this handle runs, until the returned function is called (statement
   * counts in tests, metrics).
   */
  observeQueries(listener: (sql: string) => void): () => void;
  close(): Promise<void>;
}

/**
 * Opens PGlite (when no URL is configured) or a pg Pool. 64-bit integers come back as decimal strings from both, so no id
 * ever passes through a JavaScript number.
 */
export async function createDatabase(config: DatabaseConfig): Promise<DatabaseHandle> {
  const listeners = new Set<(sql: string) => void>();
  const log = (event: LogEvent) => {
    for (const listener of listeners) listener(event.query.sql);
  };
  const observeQueries = (listener: (sql: string) => void) => {
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  };
  if (config.url) {
    // pg already returns int8 as strings; timestamps as Date.
    const pool = new pg.Pool({ connectionString: config.url, max: config.poolMax });
    // An idle client losing its connection (database restart) must not crash the process; the pool replaces it.
    pool.on('error', () => undefined);
    const db = new Kysely<{}>({ dialect: new PostgresDialect({ pool }), log });
    return {
      db,
      kind: 'postgres',
      ping: async () => {
        await sql`select 1`.execute(db);
      },
      observeQueries,
      close: () => db.destroy(),
    };
  }

  const releaseLock = config.pgliteDir ? await lockDataDir(config.pgliteDir) : async () => undefined;
  const pglite = new PGlite({
    ...(config.pgliteDir ? { dataDir: config.pgliteDir } : {}),
    // PGlite parses int8 into BigInt; keep the decimal text instead, the same as pg does.
    parsers: { [types.INT8]: (value: string) => value },
  });
  await pglite.waitReady;
  const db = new Kysely<{}>({ dialect: new PGliteDialect(pglite), log });
  return {
    db,
    kind: 'pglite',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    observeQueries,
    close: async () => {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
      await releaseLock();
    },
  };
}

/** Raised when another live process has the embedded database open. */
export class DatabaseInUseError extends Error {}

/**
 * PGlite is a single-process database: a second process opening the same directory would corrupt it. A pid file beside
 * the data refuses that, naming the process; a pid file left by a process that died is taken over.
 */
async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  await mkdir(dir, { recursive: true });
  const lockFile = `${dir}.pid`;
  try {
    await writeFile(lockFile, String(process.pid), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const holder = Number((await readFile(lockFile, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
      throw new DatabaseInUseError(
        `the embedded database ${dir} is in use by process ${holder} (is npm start running?); stop it first, or use DATABASE_URL`,
      );
    }
    await writeFile(lockFile, String(process.pid));
  }
  return () => rm(lockFile, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A subgraph's migrations, applied in the order of their names, recorded in the subgraph's own schema. */
export interface SubgraphMigrations {
  schema: string;
  migrations: Record<string, Migration>;
}

/** Applies pending migrations of each subgraph; throws with the failing migration's name. */
export async function migrateToLatest(db: Kysely<{}>, sets: readonly SubgraphMigrations[]): Promise<string[]> {
  const applied: string[] = [];
  for (const set of sets) {
    const provider: MigrationProvider = { getMigrations: async () => set.migrations };
    const migrator = new Migrator({
      db,
      provider,
      migrationTableSchema: set.schema,
      migrationTableName: 'kysely_migration',
      migrationLockTableName: 'kysely_migration_lock',
    });
    const { error, results } = await migrator.migrateToLatest();
    for (const result of results ?? []) {
      if (result.status === 'Error') {
        throw new Error(`migration ${set.schema}/${result.migrationName} failed: ${describe(error)}`, { cause: error });
      }
      applied.push(`${set.schema}/${result.migrationName}`);
    }
    if (error) throw new Error(`migrations of ${set.schema} failed: ${describe(error)}`, { cause: error });
  }
  return applied;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** True when a database error is a unique-constraint violation (SQLSTATE 23505), from pg or PGlite alike. */
export function isUniqueViolation(error: unknown): error is { code: string; constraint?: string } {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}
