import { readFileSync } from 'node:fs';
import { MemoryFS, PGlite } from '@electric-sql/pglite';

/** One file or directory of a template's tar, its bytes a view of the tar's (never written to). */
interface TemplateEntry {
  /** Relative to the data directory. */
  path: string;
  directory: boolean;
  /** As the tar records it (seconds since the epoch). */
  mtime: number;
  bytes: Uint8Array;
}

/**
 * A PGlite template (writePgliteTemplate's tar) read once and kept unpacked in memory, for a process that starts many
 * in-memory databases from it — the tests start a hundred or more. PGlite's own `loadDataDir` reads the tar from a Blob,
 * copies it, splits it into new buffers and looks up every parent directory of every file again, for each database: of a
 * test database's start, that was about half. A database started from the image instead gets a fresh in-memory
 * filesystem holding a copy of each file (`filesystem()`): the same data directory, files, bytes and times as PGlite's
 * loader would make.
 * A database on disk (a data directory) still loads the tar through PGlite (`blob()`).
 */
export class PgliteTemplateImage {
  private constructor(
    private readonly tar: Uint8Array,
    private readonly entries: readonly TemplateEntry[],
  ) {}

  static fromFile(file: string): PgliteTemplateImage {
    const bytes = readFileSync(file);
    const tar = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return new PgliteTemplateImage(tar, untar(tar));
  }

  /** The tar itself, for PGlite's loadDataDir (a data directory on disk). */
  blob(): Blob {
    return new Blob([this.tar]);
  }

  /** A new in-memory filesystem holding the template's data directory (PGlite's `fs` option; one per database). */
  filesystem(): MemoryFS {
    return new TemplateFilesystem(this.entries);
  }
}

/** PGlite's in-memory filesystem, filled with the template's files before PostgreSQL starts (it then finds a database). */
class TemplateFilesystem extends MemoryFS {
  constructor(private readonly entries: readonly TemplateEntry[]) {
    super();
  }

  override async initialSyncFs(): Promise<void> {
    await super.initialSyncFs();
    const fs = this.pg!.Module.FS;
    const root = PGlite.paths.PGDATA;
    const made = new Set<string>();
    const directory = (path: string): void => {
      if (made.has(path)) return;
      const parent = path.slice(0, path.lastIndexOf('/'));
      if (parent.startsWith(root)) directory(parent);
      if (!fs.analyzePath(path).exists) fs.mkdir(path);
      made.add(path);
    };
    directory(root);
    for (const entry of this.entries) {
      const path = `${root}/${entry.path}`;
      if (entry.directory) {
        directory(path);
        continue;
      }
      directory(path.slice(0, path.lastIndexOf('/')));
      // writeFile copies the bytes: the image stays as read, whatever the database writes. The time as PGlite's own
      // loader sets it (the tar's seconds, which the filesystem reads as milliseconds).
      fs.writeFile(path, entry.bytes);
      fs.utime(path, entry.mtime, entry.mtime);
    }
  }
}

/** The entries of a ustar archive as PGlite's dumpDataDir writes it: regular files and directories only. */
function untar(tar: Uint8Array): TemplateEntry[] {
  const entries: TemplateEntry[] = [];
  const field = (from: number, length: number): string => {
    let end = from;
    while (end < from + length && tar[end] !== 0) end += 1;
    return Buffer.from(tar.subarray(from, end)).toString('utf8');
  };
  const octal = (from: number, length: number): number => {
    const text = field(from, length).trim();
    const value = text === '' ? 0 : Number.parseInt(text, 8);
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`PGlite template: a header field is not an octal number: "${text}"`);
    return value;
  };
  let at = 0;
  while (at + 512 <= tar.length && tar[at] !== 0) {
    const name = field(at, 100);
    const prefix = field(at + 345, 155);
    const size = octal(at + 124, 12);
    const type = String.fromCharCode(tar[at + 156]!);
    if (type !== '0' && type !== '\0' && type !== '5')
      throw new Error(`PGlite template: entry ${name} is of type "${type}", not a file or a directory`);
    const path = `${prefix ? `${prefix}/` : ''}${name}`.replace(/^\/+|\/+$/g, '');
    if (path === '' && type === '5') {
      at += 512;
      continue;
    }
    if (path.split('/').some((segment) => segment === '' || segment === '.' || segment === '..'))
      throw new Error(`PGlite template: unexpected path "${path}"`);
    const start = at + 512;
    if (start + size > tar.length) throw new Error(`PGlite template: entry ${path} is cut short`);
    entries.push({ path, directory: type === '5', mtime: octal(at + 136, 12), bytes: tar.subarray(start, start + size) });
    at = start + Math.ceil(size / 512) * 512;
  }
  return entries;
}
