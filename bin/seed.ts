/**
 * npm run seed: loads demo data and prints, as JSON, its ids and ready-to-use tokens (bin/tools/seed-demo-data.ts). Idempotent:
 * records that exist are kept; tokens are new on every run.
 *
 * On PostgreSQL (DATABASE_URL) it writes to the database itself. On the embedded database (PGlite under DATA_DIR), which
 * one process at a time may open: while `npm start` (or `npm run dev`) runs, the command asks that process to seed over
 * its command channel — a Unix socket only this user can reach (bin/tools/command-channel.ts) — and prints what it answers, the
 * same JSON; when nothing runs, it opens the database itself (bin/tools/cli-command.ts).
 */
import { prepareProcess } from './system/process.ts';
import { runCliCommand } from './tools/cli-command.ts';
import { seedCommand } from './tools/seed-command.ts';

await runCliCommand(seedCommand, prepareProcess);
