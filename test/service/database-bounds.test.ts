import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../lib/database/database.ts';
import { MAX_STATEMENT_PARAMETERS, StatementTooLargeError } from '../../lib/database/database-statement-guard.ts';
import { toAppError, UnavailableError } from '../../lib/errors.ts';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../lib/database/throwaway-database.ts';

/**
 * The database's own bounds (issue "Hostile traffic": a database error in one request never poisons the session later
 * requests use): a statement carrying more bind parameters than the protocol can count is refused before it is sent, and
 * on PostgreSQL a statement past DATABASE_STATEMENT_TIMEOUT_MS is cancelled by the server; in both cases the very next
 * statement gets the right rows.
 */

const onPostgres = process.env.TEST_DATABASE === 'postgres';

describe('database bounds', () => {
  let database: DatabaseHandle;
  let throwaway: ThrowawayDatabase | undefined;
  beforeAll(async () => {
    throwaway = onPostgres ? await createThrowawayDatabase(process.env.DATABASE_URL!, 'tributary_test') : undefined;
    database = await createDatabase({
      url: throwaway?.url,
      pgliteDir: undefined,
      poolMax: 1,
      connectTimeoutMs: 5000,
      statementTimeoutMs: 300,
    });
    await sql`create table probe (id bigint primary key, label text not null)`.execute(database.db);
    await sql`insert into probe values (1, 'one'), (2, 'two')`.execute(database.db);
  });
  afterAll(async () => {
    await database?.close();
    await throwaway?.drop();
  });

  const labels = async () =>
    (await sql<{ label: string }>`select label from probe order by id`.execute(database.db)).rows.map((row) => row.label);

  it.each([MAX_STATEMENT_PARAMETERS + 1, 65_535, 65_537, 70_000])(
    'refuses a statement of %i parameters before sending it, and the next statement reads the right rows',
    async (count) => {
      const ids = Array.from({ length: count }, (_, i) => String(i + 1));
      const error = await database.db
        .withTables<{ probe: { id: string; label: string } }>()
        .selectFrom('probe')
        .select('label')
        .where('id', 'in', ids)
        .execute()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StatementTooLargeError);
      expect(toAppError(error).code).toBe('INVALID_ARGUMENT');
      expect(await labels()).toEqual(['one', 'two']);
    },
  );

  it('runs a statement of exactly the bound', async () => {
    const ids = Array.from({ length: MAX_STATEMENT_PARAMETERS }, (_, i) => String(i + 1));
    const rows = await database.db
      .withTables<{ probe: { id: string; label: string } }>()
      .selectFrom('probe')
      .select('label')
      .where('id', 'in', ids)
      .execute();
    expect(rows.map((row) => row.label).sort()).toEqual(['one', 'two']);
  });

  it.each(["'1e3'", "'99999999999999999999'", "'x'"])(
    'maps a value PostgreSQL refuses (%s::bigint) to INVALID_ARGUMENT',
    async (literal) => {
      const error = await sql
        .raw(`select ${literal}::bigint`)
        .execute(database.db)
        .catch((e: unknown) => e);
      expect(toAppError(error).code).toBe('INVALID_ARGUMENT');
      expect(await labels()).toEqual(['one', 'two']);
    },
  );

  it.runIf(onPostgres)(
    'cancels a statement past the statement timeout as UNAVAILABLE, and the connection serves the next one',
    async () => {
      const error = await sql`select pg_sleep(5)`.execute(database.db).catch((e: unknown) => e);
      const appError = toAppError(error);
      expect(appError).toBeInstanceOf(UnavailableError);
      expect(appError.message).toBe('the database took too long to answer; retry shortly');
      expect(await labels()).toEqual(['one', 'two']);
    },
  );
});
