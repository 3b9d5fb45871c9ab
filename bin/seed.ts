/**
 * npm run seed: loads demo data and prints, as JSON, its ids and ready-to-use tokens (bin/seed-demo-data.ts). Idempotent:
 * records that exist are kept; tokens are new on every run.
 *
 * On PostgreSQL (DATABASE_URL) it writes to the database itself. On the embedded database (PGlite under DATA_DIR), which
 * one process at a time may open: while `npm start` (or `npm run dev`) runs, the command asks that process to seed over
 * its seed channel — a Unix socket only this user can reach (bin/seed-channel.ts) — and prints what it answers, the same
 * JSON; when nothing runs, it opens the database itself.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createTokenService } from '../lib/auth/auth.ts';
import { createDatabase, DatabaseInUseError, migrateToLatest } from '../lib/database/database.ts';
import { ALL_MIGRATIONS } from '../subgraphs/index.ts';
import { prepareProcess } from './process.ts';
import { requestSeedOverChannel, SeedChannelError } from './seed-channel.ts';
import { seedDemoData } from './seed-demo-data.ts';

/** How long to wait for a process that holds the database but does not serve its seed channel yet (it is starting). */
const STARTING_PROCESS_WAIT_MS = 30_000;

const { config, logger } = prepareProcess('seed');
try {
  console.log(JSON.stringify(await seed(), null, 2));
} catch (error) {
  if (!(error instanceof DatabaseInUseError || error instanceof SeedChannelError)) throw error;
  console.error(`npm run seed: ${error.message}`);
  process.exitCode = 1;
}

async function seed(): Promise<unknown> {
  const pgliteDir = config.database.url ? undefined : config.database.pgliteDir;
  if (pgliteDir === undefined) return seedDirectly();
  const deadline = Date.now() + STARTING_PROCESS_WAIT_MS;
  for (;;) {
    const answered = await requestSeedOverChannel(pgliteDir);
    if (answered !== undefined) return answered;
    try {
      return await seedDirectly();
    } catch (error) {
      // Another process holds the database and has not announced its channel (yet): it may be starting.
      if (!(error instanceof DatabaseInUseError) || Date.now() > deadline) throw error;
    }
    await sleep(250);
  }
}

async function seedDirectly(): Promise<unknown> {
  const database = await createDatabase(config.database);
  try {
    await migrateToLatest(database.db, ALL_MIGRATIONS);
    return await seedDemoData({ config, database, tokens: createTokenService(config.jwt), logger });
  } finally {
    await database.close();
  }
}
