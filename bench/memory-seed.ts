/**
 * The memory section's seeding step (bench/memory.ts): a short process of its own, run before the server starts on the same
 * configuration (environment), so that the server process is `npm start` and nothing else — no seeding code, no
 * seeding garbage, and on PGlite the data directory is opened by one process at a time. Migrates, inserts BENCH_RECORDS
 * Area A records, the deep-read social graph (25 posts × 25 comments × 2 replies) and tokens, prints one JSON line
 * (MemoryFixture) and exits.
 */
import { sql } from 'kysely';
import { ADMIN_ROLE, createTokenService } from '../lib/auth/auth.ts';
import { loadConfig } from '../lib/config.ts';
import { createDatabase, migrateToLatest } from '../lib/database/database.ts';
import { createPasswordHasher } from '../lib/auth/password.ts';
import { ALL_MIGRATIONS, createSocialTokens } from '../subgraphs/index.ts';
import type { UsersTables } from '../subgraphs/users/user-example.repository.ts';
import { seedRecords } from './seed-records.ts';
import { seedDeepRead } from './social-deep-read.ts';

/** What the seeding step hands the load generator. */
export interface MemoryFixture {
  ids: string[];
  adminToken: string;
  /**
   * The deep read's account, an own-login token for it (may hide comments), and one of its top-level comments; `tokens`
   * holds BENCH_SOCIAL_TOKENS more tokens of the same account (default 0), for loads that rotate callers; `owners`
   * holds BENCH_DEEP_ACCOUNTS accounts (default 1, the first the one above) seeded alike, each with its owner's token.
   */
  social: { accountId: string; token: string; commentId: string; tokens: string[]; owners: { accountId: string; token: string }[] };
  /** An own-login user token for the uploads (Area D). */
  uploadToken: string;
}

const config = loadConfig(process.env);
const database = await createDatabase(config.database);
try {
  await migrateToLatest(database.db, ALL_MIGRATIONS);
  const passwordHash = await createPasswordHasher({ logN: config.passwords.scryptLogN }).hash('bench-password-123');
  const ids = await seedRecords(database.db.withTables<UsersTables>(), passwordHash, Number(process.env.BENCH_RECORDS ?? '1000'));
  const social = await seedDeepRead(database, { accounts: Number(process.env.BENCH_DEEP_ACCOUNTS ?? '1') });
  const { rows } = await sql<{ id: string }>`
    select c.id::text as id from social.comment c join social.media m on m.id = c.media_id
    where m.owner_id = ${social.accountId}::bigint and c.parent_id is null order by c.id limit 1`.execute(database.db);
  const socialTokens = createSocialTokens(database);
  const tokens: string[] = [];
  for (let i = 0; i < Number(process.env.BENCH_SOCIAL_TOKENS ?? '0'); i++) {
    tokens.push(
      await socialTokens.issue({
        loginType: 'own',
        subjectId: social.accountId,
        permissions: ['social_business_basic', 'social_business_manage_comments'],
        expiresInSeconds: 24 * 3600,
      }),
    );
  }
  const uploadToken = await socialTokens.issue({
    loginType: 'own',
    subjectId: '17840000000000017',
    permissions: [],
    expiresInSeconds: 86_400,
  });
  const fixture: MemoryFixture = {
    ids,
    adminToken: createTokenService(config.jwt).mint({ sub: 'admin', roles: [ADMIN_ROLE] }, { expiresIn: '2h' }),
    social: { ...social, commentId: rows[0]!.id, tokens },
    uploadToken,
  };
  // MEMORY_PGLITE_SETTINGS (JSON name → value, PGlite only): settings under trial, written to the data directory's
  // postgresql.auto.conf, so the server starts with them as it would with them in PGlite's startParams.
  if (database.kind === 'pglite') {
    for (const [name, value] of Object.entries(JSON.parse(process.env.MEMORY_PGLITE_SETTINGS ?? '{}') as Record<string, string>)) {
      if (!/^[a-z_]+$/.test(name)) throw new Error(`not a setting name: ${name}`);
      await sql`alter system set ${sql.raw(name)} = ${sql.lit(value)}`.execute(database.db);
    }
  }
  process.stdout.write(`${JSON.stringify(fixture)}\n`);
} finally {
  await database.close();
}
