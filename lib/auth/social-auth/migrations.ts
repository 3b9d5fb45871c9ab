import { sql, type Kysely } from 'kysely';
import type { SubgraphMigrations } from '../../database/database.ts';

/**
 * The social graph's access tokens (Areas B and C): opaque bearer strings, stored only as SHA-256 hashes, each bound to a
 * login type (own-login host or parent-platform host), a subject (the professional account, or the parent-platform user),
 * the permissions granted, and an expiry; revocable.
 */
async function createAccessToken(db: Kysely<unknown>): Promise<void> {
  await db.schema.createSchema('social_auth').ifNotExists().execute();
  await db.schema
    .withSchema('social_auth')
    .createTable('access_token')
    .addColumn('token_hash', 'text', (col) => col.primaryKey())
    .addColumn('login_type', 'text', (col) => col.notNull().check(sql`login_type in ('own', 'parent')`))
    .addColumn('subject_id', 'bigint', (col) => col.notNull())
    .addColumn('permissions', sql`text[]`, (col) => col.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('label', 'text')
    .addColumn('created_at', 'timestamptz(3)', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz(3)', (col) => col.notNull())
    .addColumn('revoked_at', 'timestamptz(3)')
    .execute();
  await sql`create index access_token_subject on social_auth.access_token (login_type, subject_id)`.execute(db);
}

export const socialAuthMigrations: SubgraphMigrations = {
  schema: 'social_auth',
  migrations: {
    '2026-11-21-001-create-access-token': {
      up: createAccessToken,
      down: async (db) => {
        await db.schema.withSchema('social_auth').dropTable('access_token').execute();
      },
    },
  },
};
