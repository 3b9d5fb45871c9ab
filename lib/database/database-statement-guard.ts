import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from 'kysely';
import { InvalidArgumentError } from '../errors.ts';

/**
 * The most bind parameters one statement may carry. PostgreSQL's wire protocol counts them in a 16-bit field: past 32 767
 * the count is misread, and on PGlite a statement of exactly 65 535 parameters is not refused but leaves the embedded
 * session answering every later statement with the wrong rows (records read as missing, writes reported as failed),
 * until restart. Every statement of the system is held far below this by the services' own bounds (an `in` list, a batch
 * of ids); this guard is what makes the protocol's limit unreachable whatever a future query builds.
 */
export const MAX_STATEMENT_PARAMETERS = 32_767;

/** A statement refused before it reached the database: it would carry more parameters than the protocol can. */
export class StatementTooLargeError extends InvalidArgumentError {
  constructor(parameters: number) {
    super(`the request asks for too many values at once (${parameters} in one statement; at most ${MAX_STATEMENT_PARAMETERS})`);
  }
}

function check(query: CompiledQuery): void {
  if (query.parameters.length > MAX_STATEMENT_PARAMETERS) throw new StatementTooLargeError(query.parameters.length);
}

function guardConnection(connection: DatabaseConnection): DatabaseConnection {
  return {
    executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      check(query);
      return connection.executeQuery(query);
    },
    streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
      check(query);
      return connection.streamQuery(query, chunkSize);
    },
  };
}

/**
 * `dialect` with every statement checked against MAX_STATEMENT_PARAMETERS before it is sent. Connections are wrapped once
 * each, so the driver still sees the connection objects it handed out (PGlite's driver checks them on release).
 */
export function withStatementGuard(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: (): Driver => {
      const driver = dialect.createDriver();
      const wrapped = new WeakMap<DatabaseConnection, DatabaseConnection>();
      const inner = new WeakMap<DatabaseConnection, DatabaseConnection>();
      const outer = (connection: DatabaseConnection) => {
        let guarded = wrapped.get(connection);
        if (!guarded) {
          guarded = guardConnection(connection);
          wrapped.set(connection, guarded);
          inner.set(guarded, connection);
        }
        return guarded;
      };
      const unwrap = (connection: DatabaseConnection) => inner.get(connection) ?? connection;
      const guarded: Driver = {
        init: () => driver.init(),
        acquireConnection: async () => outer(await driver.acquireConnection()),
        beginTransaction: (connection: DatabaseConnection, settings: TransactionSettings) =>
          driver.beginTransaction(unwrap(connection), settings),
        commitTransaction: (connection: DatabaseConnection) => driver.commitTransaction(unwrap(connection)),
        rollbackTransaction: (connection: DatabaseConnection) => driver.rollbackTransaction(unwrap(connection)),
        releaseConnection: (connection: DatabaseConnection) => driver.releaseConnection(unwrap(connection)),
        destroy: () => driver.destroy(),
      };
      // Savepoints (nested transactions) where the driver has them.
      if (driver.savepoint) guarded.savepoint = (connection, name, compile) => driver.savepoint!(unwrap(connection), name, compile);
      if (driver.rollbackToSavepoint) {
        guarded.rollbackToSavepoint = (connection, name, compile) => driver.rollbackToSavepoint!(unwrap(connection), name, compile);
      }
      if (driver.releaseSavepoint) {
        guarded.releaseSavepoint = (connection, name, compile) => driver.releaseSavepoint!(unwrap(connection), name, compile);
      }
      return guarded;
    },
  };
}
