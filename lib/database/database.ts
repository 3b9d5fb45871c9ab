import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { PGlite, types } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect, sql, type LogEvent, type Migration, type MigrationProvider } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import type { DatabaseConfig } from '../config.ts';
import { isConnectionFailure } from '../errors.ts';
import { withStatementGuard } from './database-statement-guard.ts';
import { listenOnPostgres } from './notification-listener.ts';
import { PgliteTemplateImage } from './pglite-template-image.ts';
import { isProcessAlive } from '../is-process-alive.ts';

/**
 * One database connection for the process. Each subgraph narrows it to its own tables with `db.withTables<…>()` and owns a
 * PostgreSQL schema of its own, so the subgraphs can later move to separate databases without touching their SQL.
 */
/** The table map of the process's connection: empty on purpose, each subgraph adds its own tables with withTables. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- kysely's own idiom for "no tables yet"
export type NoTables = {};

export interface DatabaseHandle {
  db: Kysely<NoTables>;
  kind: 'pglite' | 'postgres';
  /** Cheap round trip, for readiness checks. */
  ping(): Promise<void>;
  /**
   * Calls `listener` after every statement this handle runs (its SQL, how long it took, whether it failed), until the
   * returned function is called (statement counts in tests, metrics, trace spans).
   */
  observeQueries(listener: (query: QueryEvent) => void): () => void;
  /**
   * Calls `listener` whenever this handle learns whether the database answers, until the returned function is called:
   * after every statement that succeeded, and after every attempt that failed for want of a connection (none could be
   * had: refused, timed out; or the one in use was lost: reset, the server shutting down — isConnectionFailure in
   * lib/errors.ts, the errors every transport maps to UNAVAILABLE). What the operator's one-line-per-incident log of the
   * database is made of (lib/telemetry/telemetry.ts).
   */
  observeReachability(listener: (event: ReachabilityEvent) => void): () => void;
  /**
   * Calls `onNotify` with the payload of each NOTIFY on `channel` until the returned function is called (a wake-up for
   * workers: webhook delivery). PostgreSQL: a dedicated connection outside the pool, reconnecting by itself when it drops
   * (notifications in the gap are lost, so a user polls as well; after a reconnect it is called once with ''), see
   * notification-listener.ts. PGlite: the instance's own listen. Listeners still open are closed by close().
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /** The pool's connections (PostgreSQL), or undefined (PGlite has one connection and no pool). */
  poolState(): { total: number; idle: number; waiting: number } | undefined;
  close(): Promise<void>;
}

/** One statement run by a DatabaseHandle. */
export interface QueryEvent {
  sql: string;
  durationMs: number;
  failed: boolean;
}

/** What one attempt told of the database: it answered, or it could not be reached (and why). */
export type ReachabilityEvent = { reachable: true } | { reachable: false; error: unknown };

const ANSWERED: ReachabilityEvent = { reachable: true };

export interface DatabaseOptions {
  /**
   * PGlite only: a data directory made by writePgliteTemplate (an empty database, migrated), unpacked when the configured
   * directory is new instead of running initdb and every migration (what that saves: bench/README.md, "Start-up").
   * Ignored when the file is missing or the directory already holds a database. An image is the template already read
   * and unpacked (pglite-template-image.ts: the tests keep one per worker, from which they start a hundred databases).
   */
  pgliteTemplate?: string | PgliteTemplateImage | undefined;
}

/**
 * Opens PGlite (when no URL is configured) or a pg Pool. 64-bit integers come back as decimal strings from both, so no id
 * ever passes through a JavaScript number.
 */
export async function createDatabase(config: DatabaseConfig, options: DatabaseOptions = {}): Promise<DatabaseHandle> {
  const listeners = new Set<(query: QueryEvent) => void>();
  const reachabilityListeners = new Set<(event: ReachabilityEvent) => void>();
  const reachability = (event: ReachabilityEvent) => {
    for (const listener of reachabilityListeners) listener(event);
  };
  const log = (event: LogEvent) => {
    const query = { sql: event.query.sql, durationMs: event.queryDurationMillis, failed: event.level === 'error' };
    for (const listener of listeners) listener(query);
    if (event.level === 'query') reachability(ANSWERED);
    else if (isConnectionFailure(event.error)) reachability({ reachable: false, error: event.error });
  };
  const observeQueries = (listener: (query: QueryEvent) => void) => {
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  };
  const observeReachability = (listener: (event: ReachabilityEvent) => void) => {
    reachabilityListeners.add(listener);
    return () => {
      reachabilityListeners.delete(listener);
    };
  };
  // The NOTIFY listeners still open, closed with the handle.
  const notificationListeners = new Set<() => Promise<void>>();
  const tracked = (stop: () => Promise<void>) => {
    let stopping: Promise<void> | undefined;
    const once = () => {
      notificationListeners.delete(once);
      return (stopping ??= stop());
    };
    notificationListeners.add(once);
    return once;
  };
  const closeListeners = () => Promise.all([...notificationListeners].map((stop) => stop()));
  if (config.url) {
    const url = config.url;
    // pg already returns int8 as strings; timestamps as Date.
    // A bounded wait for a connection: with the database down or unreachable, requests fail fast (503) instead of
    // queueing until the client gives up; the pool reconnects by itself once the database is back.
    const pool = new pg.Pool({
      connectionString: config.url,
      max: config.poolMax,
      connectionTimeoutMillis: config.connectTimeoutMs,
      // The server cancels a statement past this (SQLSTATE 57014), and the connection stays usable for the next one.
      statement_timeout: config.statementTimeoutMs,
    });
    // A client losing its connection (database restart) must not crash the process: the pool reports idle clients'
    // errors here, and a checked-out client between two statements (inside a transaction) emits its own 'error', which
    // with no listener would be an uncaught exception. The statement under way fails on its own, and the pool drops the
    // broken client when it is released.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => {
      client.on('error', () => undefined);
    });
    // The pool as kysely sees it: the same pool, with a connection it could not get told to reachability listeners
    // (kysely logs statements only, and with the database down no statement is ever sent: the connect itself fails).
    const watchedPool = {
      connect: () =>
        pool.connect().catch((error: unknown) => {
          if (isConnectionFailure(error)) reachability({ reachable: false, error });
          throw error;
        }),
      end: () => pool.end(),
    };
    const db = new Kysely<NoTables>({ dialect: withStatementGuard(new PostgresDialect({ pool: watchedPool })), log });
    return {
      db,
      kind: 'postgres',
      ping: async () => {
        await sql`select 1`.execute(db);
      },
      observeQueries,
      observeReachability,
      listen: async (channel, onNotify) =>
        tracked(await listenOnPostgres({ connectionString: url, connectTimeoutMs: config.connectTimeoutMs }, channel, onNotify)),
      poolState: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      close: async () => {
        await closeListeners();
        await db.destroy();
      },
    };
  }

  const source = options.pgliteTemplate && (await isNewDataDir(config.pgliteDir)) ? options.pgliteTemplate : undefined;
  // In memory from an image: its files copied into the new filesystem. Otherwise PGlite unpacks the tar.
  const image = source instanceof PgliteTemplateImage && !config.pgliteDir ? source : undefined;
  const template = source && !image ? await readTemplate(source) : undefined;
  const releaseLock = config.pgliteDir ? await lockDataDir(config.pgliteDir) : async () => undefined;
  const pglite = new PGlite({
    ...(config.pgliteDir ? { dataDir: config.pgliteDir } : {}),
    ...(image ? { fs: image.filesystem() } : {}),
    ...(template ? { loadDataDir: template } : {}),
    parsers: PGLITE_PARSERS,
  });
  await pglite.waitReady;
  const db = new Kysely<NoTables>({ dialect: withStatementGuard(new PGliteDialect(pglite)), log });
  return {
    db,
    kind: 'pglite',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    observeQueries,
    observeReachability,
    listen: async (channel, onNotify) => {
      const unlisten = await pglite.listen(channel, (payload) => {
        try {
          onNotify(payload);
        } catch {
          // The listener's own failure is its own business.
        }
      });
      return tracked(async () => {
        if (!pglite.closed) await unlisten();
      });
    },
    poolState: () => undefined,
    close: async () => {
      await closeListeners();
      await db.destroy();
      if (!pglite.closed) await pglite.close();
      await releaseLock();
    },
  };
}

/** PGlite parses int8 into BigInt; keep the decimal text instead, the same as pg does. */
export const PGLITE_PARSERS = { [types.INT8]: (value: string) => value };

/** True for in-memory PGlite and for a data directory that does not exist yet or is empty. */
async function isNewDataDir(dir: string | undefined): Promise<boolean> {
  if (!dir) return true;
  try {
    return (await readdir(dir)).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}

async function readTemplate(file: string | PgliteTemplateImage): Promise<Blob | undefined> {
  if (typeof file !== 'string') return file.blob();
  try {
    return new Blob([await readFile(file)]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
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
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isProcessAlive(holder)) {
      throw new DatabaseInUseError(
        `the embedded database ${dir} is in use by process ${holder} (is npm start running?); stop it first, or use DATABASE_URL`,
      );
    }
    await writeFile(lockFile, String(process.pid));
  }
  return () => rm(lockFile, { force: true });
}

/** A subgraph's migrations, applied in the order of their names, recorded in the subgraph's own schema. */
export interface SubgraphMigrations {
  schema: string;
  migrations: Record<string, Migration>;
}

/** Applies pending migrations of each subgraph; throws with the failing migration's name. */
export async function migrateToLatest(db: Kysely<NoTables>, sets: readonly SubgraphMigrations[]): Promise<string[]> {
  if (await isUpToDate(db, sets)) return [];
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

/**
 * One statement instead of Kysely's Migrator per schema (which creates its tables if missing, takes its lock and reads
 * its history: several statements per schema, paid on every start; bench/README.md, "Start-up"): true when every
 * schema's history already holds exactly its migrations. Anything else — a schema never migrated (the statement
 * fails), a migration missing or unknown — is left to the Migrator, which applies or refuses as before.
 */
async function isUpToDate(db: Kysely<NoTables>, sets: readonly SubgraphMigrations[]): Promise<boolean> {
  if (sets.length === 0) return true;
  const history = sql.join(
    sets.map((set) => sql`select ${set.schema}::text as schema, name from ${sql.table(`${set.schema}.kysely_migration`)}`),
    sql` union all `,
  );
  let rows: { schema: string; name: string }[];
  try {
    rows = (await sql<{ schema: string; name: string }>`${history}`.execute(db)).rows;
  } catch {
    return false;
  }
  const recorded = new Set(rows.map((row) => `${row.schema}/${row.name}`));
  const known = sets.flatMap((set) => Object.keys(set.migrations).map((name) => `${set.schema}/${name}`));
  return recorded.size === known.length && known.every((name) => recorded.has(name));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** True when a database error is a unique-constraint violation (SQLSTATE 23505), from pg or PGlite alike. */
export function isUniqueViolation(error: unknown): error is { code: string; constraint?: string } {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}
