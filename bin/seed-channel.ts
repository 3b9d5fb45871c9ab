import { chmod, lstat, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Logger } from '../lib/logger.ts';

/**
 * How `npm run seed` reaches a running `npm start` on the embedded database. PGlite lets one process at a time open the
 * data directory (the lock is `<pglite dir>.pid`, lib/database/database.ts), so while the system runs the seed command
 * cannot open it; instead it asks the running process to seed, and prints what it answers.
 *
 * The channel is a Unix domain socket only the local user can reach: `seed.sock` (mode 0600) in a directory of its own
 * (mode 0700) next to the data, `<pglite dir>.seed/` — or, when that path is too long for a socket address, a private
 * directory under the system's temporary directory. The process that holds the lock announces it in
 * `<pglite dir>.seed.json` (mode 0600: `{pid, socket}`) beside the lock, and removes both when it stops. No network
 * port is opened.
 *
 * One exchange per connection, each side bounded: the request is one line of JSON (`{"command":"seed"}`, at most
 * 1 KiB, within 5 s of connecting), the reply one line (`{"ok":true,"result":…}` or `{"ok":false,"error":"…"}`, at most
 * 1 MiB, within 2 minutes). Seeds run one at a time. A stale announcement (its process is gone, or its socket answers
 * nobody) is ignored by the client and overwritten by the next process that takes the lock.
 */

/** Where the channel of the embedded database in `pgliteDir` is announced. */
export function seedAnnouncementFile(pgliteDir: string): string {
  return `${pgliteDir}.seed.json`;
}

const REQUEST_LIMIT_BYTES = 1024;
const REQUEST_TIMEOUT_MS = 5_000;
const REPLY_LIMIT_BYTES = 1024 * 1024;
const REPLY_TIMEOUT_MS = 120_000;
/** Linux's sun_path holds 108 bytes, the terminating NUL included (macOS: 104). */
const MAX_SOCKET_PATH_BYTES = 103;
const MAX_CONNECTIONS = 4;

export interface SeedChannel {
  /** The socket's path. */
  socketPath: string;
  /** Stops accepting, and removes the socket and the announcement. */
  close(): Promise<void>;
}

/**
 * Serves seed requests for the process that holds the lock of `pgliteDir`: `seed()` runs for each (one at a time), and
 * its result is the reply.
 */
export async function startSeedChannel(pgliteDir: string, seed: () => Promise<unknown>, logger: Logger): Promise<SeedChannel> {
  const announcement = seedAnnouncementFile(pgliteDir);
  // Absolute, so that the announcement names the socket whatever the client's working directory.
  const { directory, removeDirectory } = await privateDirectory(`${resolve(pgliteDir)}.seed`);
  const socketPath = join(directory, 'seed.sock');
  // We hold the data directory's lock: a socket left here belongs to a process that died.
  await rm(socketPath, { force: true });

  let queue: Promise<unknown> = Promise.resolve();
  const serialised = () => {
    const run = queue.then(seed);
    queue = run.catch(() => undefined);
    return run;
  };

  const server = createServer((socket) => serve(socket, serialised, logger));
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
  if (Buffer.byteLength(join(preferred, 'seed.sock')) <= MAX_SOCKET_PATH_BYTES) {
    await mkdir(preferred, { recursive: true, mode: 0o700 });
    // A directory that was there before: ours, not a link, and private again.
    const stats = await lstat(preferred);
    if (!stats.isDirectory() || (process.getuid && stats.uid !== process.getuid())) {
      throw new Error(`${preferred} is not a directory of this user; remove it and start again`);
    }
    await chmod(preferred, 0o700);
    return { directory: preferred, removeDirectory: () => rm(preferred, { recursive: true, force: true }) };
  }
  const directory = await mkdtemp(join(tmpdir(), 'tributary-seed-'));
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

/** One exchange: a request line within the bounds, then the reply line, then the end. */
function serve(socket: Socket, seed: () => Promise<unknown>, logger: Logger): void {
  const chunks: Buffer[] = [];
  let received = 0;
  let answered = false;
  const reply = (body: unknown) => {
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
    const text = Buffer.concat(chunks).toString('utf8');
    const newline = text.indexOf('\n');
    if (newline < 0) {
      if (received > REQUEST_LIMIT_BYTES) reply({ ok: false, error: `the request is larger than ${REQUEST_LIMIT_BYTES} bytes` });
      return;
    }
    let command: unknown;
    try {
      command = (JSON.parse(text.slice(0, newline)) as { command?: unknown } | null)?.command;
    } catch {
      command = undefined;
    }
    if (command !== 'seed') {
      reply({ ok: false, error: 'unknown request: send {"command":"seed"}' });
      return;
    }
    // The request is in: from here the seed's own time counts, not the request's.
    socket.pause();
    socket.setTimeout(0);
    seed().then(
      (result) => {
        logger.info('demo data seeded for npm run seed');
        reply({ ok: true, result });
      },
      (error: unknown) => {
        logger.error({ err: error }, 'seed requested over the seed channel failed');
        reply({ ok: false, error: `seeding failed: ${(error as Error).message}` });
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

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The seed channel could not be used; the message says why. */
export class SeedChannelError extends Error {}

/**
 * Asks the process that announced a seed channel for `pgliteDir` to seed, and returns its result; undefined when no live
 * process announces one (none runs, or it died: the caller may open the database itself). Throws SeedChannelError when a
 * live process announces a channel that fails to answer as it should.
 */
export async function requestSeedOverChannel(pgliteDir: string): Promise<unknown> {
  const announced = await readAnnouncement(seedAnnouncementFile(pgliteDir));
  if (!announced || announced.pid === process.pid || !isAlive(announced.pid)) return undefined;
  const reply = await exchange(announced.socket, `${JSON.stringify({ command: 'seed' })}\n`).catch((error: NodeJS.ErrnoException) => {
    // Nobody listens there (the announcing process is gone and its pid reused): as if nothing were announced.
    if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') return undefined;
    throw new SeedChannelError(`the running process ${announced.pid} did not answer on ${announced.socket}: ${error.message}`);
  });
  if (reply === undefined) return undefined;
  let parsed: { ok?: unknown; result?: unknown; error?: unknown };
  try {
    parsed = JSON.parse(reply) as typeof parsed;
  } catch {
    throw new SeedChannelError(`the running process ${announced.pid} answered something that is not JSON`);
  }
  if (parsed.ok !== true) throw new SeedChannelError(`the running process ${announced.pid} could not seed: ${String(parsed.error)}`);
  return parsed.result;
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
