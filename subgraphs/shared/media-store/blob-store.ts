import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { constants } from 'node:fs';
import { access, mkdir, mkdtemp, open, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Where uploaded bytes live. Small on purpose, so that an object store can stand in for the local directory: write a
 * stream under a new key, read it back (whole, a range, or piece by piece going forward), delete it.
 */
export interface BlobStore {
  /**
   * Streams `source` into a new blob and returns its key (`key` when given: one of {@link newBlobKey}'s, noted before the
   * write so that a crash mid-write leaves something to find it by). The blob becomes visible only once the whole stream
   * has been written; if the source fails (a refused image, a client gone) nothing is left behind and the error is
   * rethrown.
   */
  write(source: Readable, key?: string): Promise<{ key: string; bytes: number }>;
  /** The blob's bytes, or those from `start` to `end` inclusive, as one stream. */
  read(key: string, range?: { start: number; end: number }): Readable;
  /**
   * Opens the blob once for reading piece by piece, front to back (an MP4's box headers, skipping their bodies).
   * Rejects as `read` would fail (no such blob). The caller closes the reader.
   */
  openReader(key: string): Promise<BlobReader>;
  /** Removes a blob; removing one that is not there is not an error (sweepers in several processes may race). */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /**
   * Throws unless new blobs can be written (readiness: a shared volume that went away, a read-only mount, a bucket
   * deleted or out of reach). `signal` ends a check that is taking too long.
   */
  checkWritable(signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/**
 * One blob opened once and read forward: reads and skips move ahead, never back, so that every store can serve many
 * small reads cheaply. The local store reads one open file through a small buffer and skips by moving its position;
 * an object store reads one ranged GET as a stream, reading through a short skip and ending the GET and starting a new
 * one at the new offset only for a long one (a skip is applied lazily, by the next read). Memory stays bounded by the
 * reads asked for. One read at a time: a second one while the first is pending is refused.
 */
export interface BlobReader {
  /** The offset in the blob of the next byte `read` returns. */
  readonly position: number;
  /** The next `length` bytes, a buffer of the caller's own; fewer only where the blob ends (none past its end). */
  read(length: number): Promise<Buffer>;
  /** Moves `length` bytes ahead without reading them; past the blob's end is allowed (later reads return nothing). */
  skip(length: number): void;
  /** Releases the blob (a file handle, a connection); closing twice is not an error. */
  close(): Promise<void>;
}

/** The local reader's buffer: small reads (box headers) are served from it, a skip within it costs nothing. */
const READER_BUFFER_BYTES = 64 * 1024;

/** A {@link BlobReader} over one open file: positioned reads through one buffer, skips by moving the position. */
async function openFileReader(path: string): Promise<BlobReader> {
  const handle = await open(path, 'r');
  const buffer = Buffer.alloc(READER_BUFFER_BYTES);
  // buffer[0, buffered) holds the file's bytes from bufferStart on.
  let bufferStart = 0;
  let buffered = 0;
  let position = 0;
  let closed = false;
  let reading = false;
  return {
    get position() {
      return position;
    },
    async read(length) {
      if (closed) throw new Error('the blob reader is closed');
      // Two reads at once would share the buffer and the position.
      if (reading) throw new Error('the blob reader is already reading');
      reading = true;
      try {
        return await readAhead(length);
      } finally {
        reading = false;
      }
    },
    skip(length) {
      position += Math.max(0, length);
    },
    async close() {
      if (closed) return;
      closed = true;
      await handle.close();
    },
  };

  async function readAhead(length: number): Promise<Buffer> {
    const out = Buffer.alloc(Math.max(0, length));
    let filled = 0;
    while (filled < out.length) {
      const inBuffer = position - bufferStart;
      if (inBuffer >= 0 && inBuffer < buffered) {
        const n = buffer.copy(out, filled, inBuffer, Math.min(buffered, inBuffer + out.length - filled));
        filled += n;
        position += n;
        continue;
      }
      const wanted = out.length - filled;
      // A large read goes straight into the caller's buffer; a small one refills ours.
      const direct = wanted >= READER_BUFFER_BYTES;
      const { bytesRead } = direct
        ? await handle.read(out, filled, wanted, position)
        : await handle.read(buffer, 0, READER_BUFFER_BYTES, position);
      if (bytesRead === 0) break; // the end of the blob
      if (direct) {
        filled += bytesRead;
        position += bytesRead;
      } else {
        bufferStart = position;
        buffered = bytesRead;
      }
    }
    return filled === out.length ? out : out.subarray(0, filled);
  }
}

/** A new blob key (a random UUID), for a caller that notes the key before writing its blob. */
export function newBlobKey(): string {
  return randomUUID();
}

const KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Whether `key` is one a store made (a UUID): anything else (a path in disguise) is refused before it reaches storage. */
export function isBlobKey(key: string): boolean {
  return KEY.test(key);
}

/**
 * Blobs as files under `dir`, fanned out by the key's first two characters. Writes go to `dir/tmp` first and are renamed
 * into place (atomic on one file system). With no `dir`, a temporary directory is made and removed on close (tests,
 * DATA_DIR=:memory:).
 */
export async function createLocalBlobStore(dir: string | undefined): Promise<BlobStore> {
  const root = dir ?? (await mkdtemp(join(tmpdir(), 'tributary-media-')));
  const temporaryRoot = dir === undefined;
  const staging = join(root, 'tmp');
  await mkdir(staging, { recursive: true });
  const pathOf = (key: string) => {
    // Keys are made here; anything else (a path in disguise) is refused before it reaches the file system.
    if (!isBlobKey(key)) throw new TypeError(`not a blob key: ${key}`);
    return join(root, key.slice(0, 2), key);
  };
  return {
    async write(source, given) {
      const key = given ?? newBlobKey();
      const staged = join(staging, key);
      let bytes: number;
      try {
        await pipeline(source, createWriteStream(staged, { flags: 'wx', mode: 0o600 }));
        const target = pathOf(key);
        await mkdir(join(root, key.slice(0, 2)), { recursive: true });
        await rename(staged, target);
        bytes = (await stat(target)).size;
      } catch (error) {
        await rm(staged, { force: true });
        throw error;
      }
      return { key, bytes };
    },
    read: (key, range) => createReadStream(pathOf(key), range),
    openReader: async (key) => openFileReader(pathOf(key)),
    delete: (key) => rm(pathOf(key), { force: true }),
    exists: async (key) => {
      try {
        await stat(pathOf(key));
        return true;
      } catch {
        return false;
      }
    },
    checkWritable: () => access(staging, constants.W_OK),
    close: async () => {
      if (temporaryRoot) await rm(root, { recursive: true, force: true });
    },
  };
}
