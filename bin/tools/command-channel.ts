import { chmod, lstat, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Logger } from '../../lib/logger.ts';
import { isProcessAlive } from '../../lib/is-process-alive.ts';

/**
 * How the command-line tools that write to the database (`npm run seed`, `npm run social-token`, `npm run social-app`)
 * reach a running `npm start` on the embedded database. PGlite lets one process at a time open the data directory (the
 * lock is `<pglite dir>.pid`, lib/database/database.ts), so while the system runs a tool cannot open it; instead it asks
 * the running process to run its command, and prints what it answers.
 *
 * The channel is a Unix domain socket only the local user can reach: `commands.sock` (mode 0600) in a directory of its
 * own (mode 0700) next to the data, `<pglite dir>.commands/` — or, when that path is too long for a socket address, a
 * private directory under the system's temporary directory. The process that holds the lock announces it in
 * `<pglite dir>.commands.json` (mode 0600: `{pid, socket}`) beside the lock, and removes both when it stops. No network
 * port is opened.
 *
 * One exchange per connection, each side bounded: the request is one line of JSON naming a command of a closed set and
 * its command-line arguments (`{"command":"social-token","args":["--revoke","SBA…"]}`, at most 4 KiB and 64 arguments,
 * within 5 s of connecting); the running process parses and validates the arguments itself, as the tool does, and runs
 * nothing but its own handler for that command. The reply is one line (`{"ok":true,"output":"…"}`: exactly what the tool
 * prints, or `{"ok":false,"error":"…"}`), at most 1 MiB, within 2 minutes. Commands run one at a time. A stale
 * announcement (its process is gone, or its socket answers nobody) is ignored by the client and overwritten by the next
 * process that takes the lock.
 */

/** Where the channel of the embedded database in `pgliteDir` is announced. */
export function commandAnnouncementFile(pgliteDir: string): string {
  return `${pgliteDir}.commands.json`;
}

/** Bounds of a request, exported for the tests that pass them. */
export const REQUEST_LIMIT_BYTES = 4096;
export const REQUEST_ARGUMENTS_LIMIT = 64;
const REQUEST_TIMEOUT_MS = 5_000;
const REPLY_LIMIT_BYTES = 1024 * 1024;
const REPLY_TIMEOUT_MS = 120_000;
/** Linux's sun_path holds 108 bytes, the terminating NUL included (macOS: 104). */
const MAX_SOCKET_PATH_BYTES = 103;
const MAX_CONNECTIONS = 4;
const SOCKET_NAME = 'commands.sock';

/**
 * A command the running process serves: it parses and validates `args` (the tool's command line) and returns exactly what
 * the tool prints on stdout. It throws `ExpectedCommandError` for a condition the tool reports in one line (bad arguments,
 * a record that does not exist); anything else is logged here and answered as a failure.
 */
export type CommandHandler = (args: readonly string[]) => Promise<string>;

/** A condition a command reports to its caller as it is (its message is the whole answer), not a failure to log. */
export class ExpectedCommandError extends Error {}

export interface CommandChannel {
  /** The socket's path. */
  socketPath: string;
  /** Stops accepting, and removes the socket and the announcement. */
  close(): Promise<void>;
}

/**
 * Serves the commands of `handlers` (the closed set: nothing else is run) for the process that holds the lock of
 * `pgliteDir`, one at a time; each handler's result is the reply.
 */
export async function startCommandChannel(
  pgliteDir: string,
  handlers: ReadonlyMap<string, CommandHandler>,
  logger: Logger,
): Promise<CommandChannel> {
  const announcement = commandAnnouncementFile(pgliteDir);
  // Absolute, so that the announcement names the socket whatever the client's working directory.
  const { directory, removeDirectory } = await privateDirectory(`${resolve(pgliteDir)}.commands`);
  const socketPath = join(directory, SOCKET_NAME);
  // We hold the data directory's lock: a socket left here belongs to a process that died.
  await rm(socketPath, { force: true });

  let queue: Promise<unknown> = Promise.resolve();
  const serialised = (run: () => Promise<string>) => {
    const result = queue.then(run);
    queue = result.catch(() => undefined);
    return result;
  };

  const server = createServer((socket) => serve(socket, handlers, serialised, logger));
  server.maxConnections = MAX_CONNECTIONS;
  await listenOn(server, socketPath);
  await chmod(socketPath, 0o600);
  await writeFile(announcement, `${JSON.stringify({ pid: process.pid, socket: socketPath })}\n`, { mode: 0o600 });
  return {
    socketPath,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(socketPath, { force: true });
      await removeDirectory();
      // Only our own announcement: a process that took the lock after us has written its own.
      const current = await readAnnouncement(announcement);
      if (current?.pid === process.pid) await rm(announcement, { force: true });
    },
  };
}

/** A directory only this user may enter: `preferred` when a socket path inside it fits, else a fresh one under tmpdir. */
async function privateDirectory(preferred: string): Promise<{ directory: string; removeDirectory: () => Promise<void> }> {
  if (Buffer.byteLength(join(preferred, SOCKET_NAME)) <= MAX_SOCKET_PATH_BYTES) {
    await mkdir(preferred, { recursive: true, mode: 0o700 });
    // A directory that was there before: ours, not a link, and private again.
    const stats = await lstat(preferred);
    if (!stats.isDirectory() || (process.getuid && stats.uid !== process.getuid())) {
      throw new Error(`${preferred} is not a directory of this user; remove it and start again`);
    }
    await chmod(preferred, 0o700);
    return { directory: preferred, removeDirectory: () => rm(preferred, { recursive: true, force: true }) };
  }
  const directory = await mkdtemp(join(tmpdir(), 'tributary-commands-'));
  return { directory, removeDirectory: () => rm(directory, { recursive: true, force: true }) };
}

function listenOn(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The request line as a command of the closed set and its arguments, or the reason it is none. */
function parseRequest(
  line: string,
  handlers: ReadonlyMap<string, CommandHandler>,
): { command: string; args: string[] } | { error: string } {
  const names = [...handlers.keys()].map((name) => JSON.stringify(name)).join(', ');
  const unknown = { error: `unknown request: send {"command":<one of ${names}>,"args":[<string>, …]}` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return unknown;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return unknown;
  const { command, args = [], ...rest } = parsed as { command?: unknown; args?: unknown };
  if (typeof command !== 'string' || !handlers.has(command) || Object.keys(rest).length > 0) return unknown;
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) return { error: 'args must be an array of strings' };
  if (args.length > REQUEST_ARGUMENTS_LIMIT) return { error: `more than ${REQUEST_ARGUMENTS_LIMIT} arguments` };
  return { command, args: args as string[] };
}

/** One exchange: a request line within the bounds, then the reply line, then the end. */
function serve(
  socket: Socket,
  handlers: ReadonlyMap<string, CommandHandler>,
  serialised: (run: () => Promise<string>) => Promise<string>,
  logger: Logger,
): void {
  const chunks: Buffer[] = [];
  let received = 0;
  let answered = false;
  const reply = (body: { ok: true; output: string } | { ok: false; error: string }) => {
    if (answered) return;
    answered = true;
    socket.setTimeout(0);
    socket.end(`${JSON.stringify(body)}\n`);
  };
  socket.on('error', () => socket.destroy());
  socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    if (answered) return;
    chunks.push(chunk);
    received += chunk.length;
    const data = Buffer.concat(chunks);
    const newline = data.indexOf(0x0a);
    if (newline < 0 ? received > REQUEST_LIMIT_BYTES : newline > REQUEST_LIMIT_BYTES) {
      reply({ ok: false, error: `the request is larger than ${REQUEST_LIMIT_BYTES} bytes` });
      return;
    }
    if (newline < 0) return;
    const request = parseRequest(data.subarray(0, newline).toString('utf8'), handlers);
    if ('error' in request) {
      reply({ ok: false, error: request.error });
      return;
    }
    // The request is in: from here the command's own time counts, not the request's.
    socket.pause();
    socket.setTimeout(0);
    const handler = handlers.get(request.command)!;
    serialised(() => handler(request.args)).then(
      (output) => {
        logger.info({ command: request.command }, 'command run for the command line');
        reply({ ok: true, output });
      },
      (error: unknown) => {
        if (error instanceof ExpectedCommandError) {
          reply({ ok: false, error: error.message });
          return;
        }
        logger.error({ err: error, command: request.command }, 'command requested over the command channel failed');
        reply({ ok: false, error: `${request.command} failed in the running process ${process.pid}: ${(error as Error).message}` });
      },
    );
  });
}

interface Announcement {
  pid: number;
  socket: string;
}

async function readAnnouncement(file: string): Promise<Announcement | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  if (text.length > 4096) return undefined;
  try {
    const parsed = JSON.parse(text) as Partial<Announcement> | null;
    if (parsed && Number.isInteger(parsed.pid) && parsed.pid! > 0 && typeof parsed.socket === 'string' && parsed.socket.startsWith('/')) {
      return { pid: parsed.pid!, socket: parsed.socket };
    }
  } catch {
    // Not ours, or half-written: as if absent.
  }
  return undefined;
}

/**
 * Asks the process that announced a command channel for `pgliteDir` to run `command` with `args`, and returns what it
 * answers (the tool's output); undefined when no live process announces one (none runs, or it died: the caller may open
 * the database itself). Throws ExpectedCommandError with the running process's answer when it refuses or fails the
 * command, or when a live process announces a channel that fails to answer as it should.
 */
export async function requestOverCommandChannel(pgliteDir: string, command: string, args: readonly string[]): Promise<string | undefined> {
  const announced = await readAnnouncement(commandAnnouncementFile(pgliteDir));
  if (!announced || announced.pid === process.pid || !isProcessAlive(announced.pid)) return undefined;
  const reply = await exchange(announced.socket, `${JSON.stringify({ command, args })}\n`).catch((error: NodeJS.ErrnoException) => {
    // Nobody listens there (the announcing process is gone and its pid reused): as if nothing were announced.
    if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') return undefined;
    throw new ExpectedCommandError(`the running process ${announced.pid} did not answer on ${announced.socket}: ${error.message}`);
  });
  if (reply === undefined) return undefined;
  let parsed: { ok?: unknown; output?: unknown; error?: unknown };
  try {
    parsed = JSON.parse(reply) as typeof parsed;
  } catch {
    throw new ExpectedCommandError(`the running process ${announced.pid} answered something that is not JSON`);
  }
  if (parsed.ok === true && typeof parsed.output === 'string') return parsed.output;
  throw new ExpectedCommandError(
    typeof parsed.error === 'string' ? parsed.error : `the running process ${announced.pid} answered no output`,
  );
}

/** Sends `request` on the socket and reads the one reply line, bounded in size and time. */
function exchange(socketPath: string, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath);
    const chunks: Buffer[] = [];
    let received = 0;
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(REPLY_TIMEOUT_MS, () => fail(new Error(`no reply within ${REPLY_TIMEOUT_MS / 1000} s`)));
    socket.on('connect', () => socket.write(request));
    socket.on('error', fail);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received > REPLY_LIMIT_BYTES) fail(new Error(`the reply is larger than ${REPLY_LIMIT_BYTES} bytes`));
    });
    socket.on('end', () => {
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const newline = text.indexOf('\n');
      if (newline < 0) reject(new Error('the reply ended before it was complete'));
      else resolve(text.slice(0, newline));
    });
  });
}
