import { sql, type Kysely } from 'kysely';

/** The users subgraph's table: the reference's user_example, with the password stored only as a hash. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createSchema('users').ifNotExists().execute();
  await db.schema
    .withSchema('users')
    .createTable('user_example')
    .addColumn('id', 'bigint', (col) => col.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('email', 'text', (col) => col.notNull())
    .addColumn('password_hash', 'text', (col) => col.notNull())
    .addColumn('phone', 'text', (col) => col.notNull())
    .addColumn('avatar', 'text', (col) => col.notNull())
    .addColumn('age', 'integer', (col) => col.notNull())
    .addColumn('gender', 'smallint', (col) => col.notNull())
    .addColumn('status', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('login_at', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz(3)', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz(3)', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', 'timestamptz(3)')
    .execute();
  // Soft-deleted rows keep their e-mail without blocking a new record with the same address.
  await sql`create unique index user_example_email_live on users.user_example (email) where deleted_at is null`.execute(db);
  await sql`create index user_example_deleted_at on users.user_example (deleted_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.withSchema('users').dropTable('user_example').execute();
}
