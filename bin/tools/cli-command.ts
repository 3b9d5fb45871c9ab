import { stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { createTokenService, type TokenService } from '../../lib/auth/auth.ts';
import type { Config } from '../../lib/config.ts';
import { createDatabase, DatabaseInUseError, migrateToLatest, type DatabaseHandle } from '../../lib/database/database.ts';
import type { Logger } from '../../lib/logger.ts';
import { ALL_MIGRATIONS } from '../../subgraphs/index.ts';
import { ExpectedCommandError, requestOverCommandChannel } from './command-channel.ts';

/**
 * A command-line tool that works on the database (`npm run seed`, `social-token`, `social-app`), written once and run
 * wherever the database can be reached: by the tool itself on a database it opens, or — on the embedded database, which
 * one process at a time may open — by the running `npm start` that holds it, asked over its command channel
 * (bin/tools/command-channel.ts, bin/tools/channel-commands.ts). Either way the same `parse` reads the command line and the same
 * `run` makes the output, so the tool prints the same lines.
 */
export interface CliCommand<Request> {
  /** The tool's name: `npm run <name>`, and the command's name on the channel. */
  name: string;
  /**
   * Reads and validates the command line (the tool's own arguments, after `--`); throws CommandUsageError. Runs in the
   * tool, and again in the running process for a request over the channel.
   */
  parse(args: readonly string[]): Request;
  /**
   * Runs the command and returns exactly what the tool prints on stdout. Throws ExpectedCommandError for a condition the
   * tool reports in one line (a record that does not exist).
   */
  run(request: Request, context: CommandContext): Promise<string>;
}

/** What a command runs with: the configuration and the database of whoever runs it. */
export interface CommandContext {
  config: Config;
  /** A migrated database. */
  database: DatabaseHandle;
  tokens: TokenService;
  logger: Logger;
  /** The REST listeners' base URLs as a running system listens on them (ports 0 included); else from the configuration. */
  urls?: { ownLogin: string; parentPlatform: string };
}

/** Bad arguments: the tool prints the message and exits 2. */
export class CommandUsageError extends ExpectedCommandError {}

/** node:util's parseArgs, strict and without positionals, its errors as one-line usage errors that end with `usage`. */
export function parseCommandLine<const Options extends NonNullable<ParseArgsConfig['options']>>(
  args: readonly string[],
  options: Options,
  usage: string,
): ReturnType<typeof parseArgs<{ options: Options; strict: true; allowPositionals: false }>>['values'] {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    if (!String((error as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS_')) throw error;
    // "Unknown option '--x'. To specify a positional argument …": the first sentence says it.
    throw new CommandUsageError(`${(error as Error).message.replace(/\. .*$/s, '')}; usage: ${usage}`);
  }
}

/** How long to wait for a process that holds the database but does not serve its channel yet (it is starting). */
const STARTING_PROCESS_WAIT_MS = 30_000;

/**
 * The tool's whole run: parses its command line, runs the command where the database is, prints the output; an
 * expected condition (bad arguments, the embedded database held by a process that serves no channel, a refusal) is one
 * line on stderr, `npm run <name>: …`, and exit code 2 (arguments) or 1.
 */
export async function runCliCommand<Request>(
  command: CliCommand<Request>,
  prepareProcess: (name: string) => { config: Config; logger: Logger },
  args: readonly string[] = process.argv.slice(2),
): Promise<void> {
  try {
    const request = command.parse(args);
    // The entrypoint's process preparation (bin/system/process.ts), handed in: a tool's commands are run by the system
    // too (channel-commands.ts), so nothing here imports the system's wiring. After `parse`: bad arguments load nothing.
    const { config, logger } = prepareProcess(command.name);
    process.stdout.write(await runWhereTheDatabaseIs(command, request, args, config, logger));
  } catch (error) {
    if (!reportExpectedError(command.name, error)) throw error;
  }
}

/**
 * Prints an expected condition as the tool's one line on stderr and sets the exit code; false for anything else (a bug,
 * which the caller lets through with its stack trace).
 */
export function reportExpectedError(name: string, error: unknown): boolean {
  if (!(error instanceof ExpectedCommandError || error instanceof DatabaseInUseError)) return false;
  console.error(`npm run ${name}: ${error.message.replace(/\s*\n\s*/g, ' ')}`);
  process.exitCode = error instanceof CommandUsageError ? 2 : 1;
  return true;
}

async function runWhereTheDatabaseIs<Request>(
  command: CliCommand<Request>,
  request: Request,
  args: readonly string[],
  config: Config,
  logger: Logger,
): Promise<string> {
  const pgliteDir = config.database.url ? undefined : config.database.pgliteDir;
  if (pgliteDir === undefined) return runDirectly(command, request, config, logger);
  const deadline = Date.now() + STARTING_PROCESS_WAIT_MS;
  for (;;) {
    const answered = await requestOverCommandChannel(pgliteDir, command.name, args);
    if (answered !== undefined) return answered;
    try {
      return await runDirectly(command, request, config, logger);
    } catch (error) {
      // Another process holds the database and has not announced its channel: it may be starting — unless it took the
      // lock long ago (a tool, or a system that offers no channel), when waiting would change nothing.
      if (!(error instanceof DatabaseInUseError) || Date.now() > deadline || !(await lockTakenRecently(pgliteDir))) throw error;
    }
    await sleep(250);
  }
}

async function lockTakenRecently(pgliteDir: string): Promise<boolean> {
  const taken = await stat(`${pgliteDir}.pid`).then(
    (stats) => stats.mtimeMs,
    // Gone: its holder has just stopped, and the next attempt opens the database.
    () => Date.now(),
  );
  return Date.now() - taken < STARTING_PROCESS_WAIT_MS;
}

async function runDirectly<Request>(command: CliCommand<Request>, request: Request, config: Config, logger: Logger): Promise<string> {
  const database = await createDatabase(config.database);
  try {
    await migrateToLatest(database.db, ALL_MIGRATIONS);
    return await command.run(request, { config, database, tokens: createTokenService(config.jwt), logger });
  } finally {
    await database.close();
  }
}
