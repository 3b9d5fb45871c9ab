import { sql, type Kysely } from 'kysely';
import type { SubgraphMigrations } from '../../database/database.ts';
import { socialIdDefault } from '../../social-graph/social-ids.ts';

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

/**
 * Apps (issue 26): what the Graph API's app dashboard holds — an id, a name and the app secret, which signs webhook
 * deliveries (X-Hub-Signature-256) and makes the app access token `<app id>|<app secret>`. The secret is kept as it is:
 * the platform must compute HMACs with it, so a hash would not do. Access tokens gain the app they were issued to (the
 * app a user's `/me/subscribed_apps` subscribes); tokens issued before are the app-less null.
 */
async function createApps(db: Kysely<unknown>): Promise<void> {
  await sql`create sequence social_auth.app_seq`.execute(db);
  await sql`create table social_auth.app (
    id bigint primary key default ${sql.raw(socialIdDefault('app', 'social_auth.app_seq'))},
    name text not null,
    secret text not null,
    created_at timestamptz(3) not null default now()
  )`.execute(db);
  await sql`alter table social_auth.access_token add column app_id bigint references social_auth.app (id) on delete cascade`.execute(db);
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
    '2026-11-27-001-apps': {
      up: createApps,
      down: async (db) => {
        await sql`alter table social_auth.access_token drop column app_id`.execute(db);
        await sql`drop table social_auth.app`.execute(db);
        await sql`drop sequence social_auth.app_seq`.execute(db);
      },
    },
  },
};
