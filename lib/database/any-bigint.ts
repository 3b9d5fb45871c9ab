import { sql, type RawBuilder } from 'kysely';

/**
 * `column = any($1::bigint[])`: a list of 64-bit ids (decimal strings, never JavaScript numbers) as ONE array parameter.
 * Kysely's `in` writes one placeholder per id, and a batched load is hundreds of ids (a deep read asks for the replies of
 * 625 comments at once): the statement's text, its parse and its bind then grow with the batch, on the database's CPU as
 * well as ours. The array parameter keeps the statement the same whatever the batch; PostgreSQL plans `= any(array)` as
 * it plans an `in` list.
 */
export function anyBigint(ids: readonly string[]): RawBuilder<string> {
  return sql<string>`any(${[...ids]}::bigint[])`;
}
