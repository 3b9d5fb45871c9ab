import { sql, type Kysely } from 'kysely';
import type { SubgraphMigrations } from '../../database/database.ts';

/**
 * OAuth credentials of the image upload (Area D), as the reference's platform issues them: apps (consumer key and secret),
 * user access tokens (token and secret, bound to an app and a user), app-only bearer tokens, and the nonces already seen.
 *
 * OAuth 1.0a's HMAC-SHA1 needs both secrets in the clear on the verifying side, so they are stored as they are (as every
 * OAuth 1.0a provider must); protect the database accordingly. App-only bearer tokens need no secret: only their SHA-256
 * is kept.
 */
async function createCredentials(db: Kysely<unknown>): Promise<void> {
  await db.schema.createSchema('oauth').ifNotExists().execute();
  await db.schema
    .withSchema('oauth')
    .createTable('consumer')
    .addColumn('consumer_key', 'text', (col) => col.primaryKey())
    .addColumn('consumer_secret', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz(3)', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz(3)')
    .execute();
  await db.schema
    .withSchema('oauth')
    .createTable('access_token')
    .addColumn('token', 'text', (col) => col.primaryKey())
    .addColumn('token_secret', 'text', (col) => col.notNull())
    .addColumn('consumer_key', 'text', (col) => col.notNull().references('oauth.consumer.consumer_key'))
    .addColumn('user_id', 'bigint', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz(3)', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz(3)')
    .execute();
  await db.schema
    .withSchema('oauth')
    .createTable('app_token')
    .addColumn('token_hash', 'text', (col) => col.primaryKey())
    .addColumn('consumer_key', 'text', (col) => col.notNull().references('oauth.consumer.consumer_key'))
    .addColumn('created_at', 'timestamptz(3)', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz(3)')
    .execute();
  // RFC 5849 §3.3: a nonce is unique per timestamp, client and token. Rows older than the timestamp window can never be
  // replayed (the timestamp check refuses them first), so the sweeper deletes them.
  await db.schema
    .withSchema('oauth')
    .createTable('nonce')
    .addColumn('consumer_key', 'text', (col) => col.notNull())
    .addColumn('token', 'text', (col) => col.notNull())
    .addColumn('nonce', 'text', (col) => col.notNull())
    .addColumn('timestamp', 'bigint', (col) => col.notNull())
    .addColumn('seen_at', 'timestamptz(3)', (col) => col.notNull())
    .addPrimaryKeyConstraint('nonce_pkey', ['consumer_key', 'token', 'nonce', 'timestamp'])
    .execute();
  await sql`create index nonce_seen_at on oauth.nonce (seen_at)`.execute(db);
}

export const oauthMigrations: SubgraphMigrations = {
  schema: 'oauth',
  migrations: {
    '2026-11-21-001-create-credentials': {
      up: createCredentials,
      down: async (db) => {
        for (const table of ['nonce', 'app_token', 'access_token', 'consumer']) {
          await db.schema.withSchema('oauth').dropTable(table).execute();
        }
      },
    },
  },
};
