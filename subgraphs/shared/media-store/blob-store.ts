import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { constants } from 'node:fs';
import { access, mkdir, mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Where uploaded bytes live. Small on purpose, so that an object store can stand in for the local directory: write a
 * stream under a new key, read it back, delete it.
 */
export interface BlobStore {
  /**
   * Streams `source` into a new blob and returns its key. The blob becomes visible only once the whole stream has been
   * written; if the source fails (a refused image, a client gone) nothing is left behind and the error is rethrown.
   */
  write(source: Readable): Promise<{ key: string; bytes: number }>;
  /** The blob's bytes, or those from `start` to `end` inclusive (an MP4's boxes are read where they are). */
  read(key: string, range?: { start: number; end: number }): Readable;
  /** Removes a blob; removing one that is not there is not an error (sweepers in several processes may race). */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** Throws unless new blobs can be written (readiness: a shared volume that went away, a read-only mount). */
  checkWritable(): Promise<void>;
  close(): Promise<void>;
}

const KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

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
    if (!KEY.test(key)) throw new TypeError(`not a blob key: ${key}`);
    return join(root, key.slice(0, 2), key);
  };
  return {
    async write(source) {
      const key = randomUUID();
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
