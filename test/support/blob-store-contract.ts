import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterEach, expect, it } from 'vitest';
import type { BlobStore } from '../../subgraphs/shared/media-store/blob-store.ts';

/**
 * The BlobStore contract (subgraphs/shared/media-store/blob-store.ts), one suite for every store: each test opens a
 * store of its own on empty storage and looks at that storage directly (`listed`) where the store's own answers are not
 * enough (nothing left behind).
 */
export interface BlobStoreUnderTest {
  store: BlobStore;
  /** Everything the storage holds, whether or not the store would call it a blob (staged files, objects of any key). */
  listed(): Promise<string[]>;
  /** Takes the storage away under the store (the directory removed, the bucket deleted). */
  remove(): Promise<void>;
  /** Closes the store and removes what is left. */
  close(): Promise<void>;
}

/** A blob's bytes, different at every offset within 251 bytes (so a shifted range shows). */
export function patterned(length: number, seed = 0): Buffer {
  const bytes = Buffer.alloc(length);
  for (let index = 0; index < length; index += 1) bytes[index] = (index + seed) % 251;
  return bytes;
}

/** `bytes` in chunks of `size`, as a request body arrives. */
export function chunked(bytes: Buffer, size = 64 * 1024): Readable {
  return Readable.from(
    (function* () {
      for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
    })(),
    { objectMode: false },
  );
}

/** `bytes`, then `error` (a client gone mid-upload, a refused image). */
export function failingAfter(bytes: Buffer, error: Error): Readable {
  return Readable.from(
    (async function* () {
      yield* chunked(bytes);
      throw error;
    })(),
    { objectMode: false },
  );
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Compared whole: vitest's diff of large buffers is slow. */
function expectSame(actual: Buffer, expected: Buffer): void {
  expect(actual.length).toBe(expected.length);
  expect(actual.equals(expected)).toBe(true);
}

const MISSING_KEY = '00000000-0000-4000-8000-000000000000';

/** Registers the contract's tests in the calling describe block; `open` gives each test a store on empty storage. */
export function blobStoreContract(open: () => Promise<BlobStoreUnderTest>): void {
  const opened: BlobStoreUnderTest[] = [];
  const fresh = async () => {
    const underTest = await open();
    opened.push(underTest);
    return underTest;
  };
  afterEach(async () => {
    for (const underTest of opened.splice(0)) await underTest.close();
  });

  it('writes a stream under a new key and reads it back whole', async () => {
    const { store } = await fresh();
    const bytes = patterned(200_000);
    const written = await store.write(chunked(bytes));
    expect(written.key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(written.bytes).toBe(bytes.length);
    expectSame(await readAll(store.read(written.key)), bytes);
    const again = await store.write(chunked(bytes));
    expect(again.key).not.toBe(written.key);
  });

  it('writes and reads an empty blob', async () => {
    const { store } = await fresh();
    const written = await store.write(Readable.from([], { objectMode: false }));
    expect(written.bytes).toBe(0);
    expect(await readAll(store.read(written.key))).toHaveLength(0);
    expect(await store.exists(written.key)).toBe(true);
  });

  it('streams a blob of several multipart parts (over 5 MiB) both ways', async () => {
    const { store } = await fresh();
    const bytes = patterned(11 * 1024 * 1024 + 17);
    const written = await store.write(chunked(bytes));
    expect(written.bytes).toBe(bytes.length);
    expect(sha256(await readAll(store.read(written.key)))).toBe(sha256(bytes));
    // A range across the first part's end.
    const partEnd = 5 * 1024 * 1024;
    expectSame(
      await readAll(store.read(written.key, { start: partEnd - 10, end: partEnd + 9 })),
      bytes.subarray(partEnd - 10, partEnd + 10),
    );
  });

  it('reads a range, from start to end inclusive, cut at the end of the blob', async () => {
    const { store } = await fresh();
    const bytes = patterned(100_000);
    const { key } = await store.write(chunked(bytes));
    expectSame(await readAll(store.read(key, { start: 10, end: 19 })), bytes.subarray(10, 20));
    expectSame(await readAll(store.read(key, { start: 0, end: 99 })), bytes.subarray(0, 100));
    expectSame(await readAll(store.read(key, { start: 99_990, end: 200_000 })), bytes.subarray(99_990));
    expect(await readAll(store.read(key, { start: 100_000, end: 100_010 }))).toHaveLength(0);
  });

  it('reads and skips front to back, and stops at the end of the blob', async () => {
    const { store } = await fresh();
    // Longer than the local reader's 64 KiB buffer, so that reads are served from it, across refills and past it.
    const bytes = patterned(200_000);
    const { key } = await store.write(chunked(bytes));
    const reader = await store.openReader(key);
    try {
      expectSame(await reader.read(8), bytes.subarray(0, 8));
      reader.skip(100);
      expect(reader.position).toBe(108);
      expectSame(await reader.read(4), bytes.subarray(108, 112));
      expectSame(await reader.read(100_000), bytes.subarray(112, 100_112));
      reader.skip(65_000);
      expectSame(await reader.read(30_000), bytes.subarray(165_112, 195_112));
      expectSame(await reader.read(10_000), bytes.subarray(195_112));
      expect(reader.position).toBe(bytes.length);
      expect(await reader.read(8)).toHaveLength(0);
      reader.skip(1_000);
      expect(await reader.read(8)).toHaveLength(0);
    } finally {
      await reader.close();
    }
    await reader.close();
    await expect(reader.read(1)).rejects.toThrow('closed');
  });

  it('skips far ahead, several skips in a row, and past the end', async () => {
    const { store } = await fresh();
    const bytes = patterned(3 * 1024 * 1024 + 5, 7);
    const { key } = await store.write(chunked(bytes));
    const reader = await store.openReader(key);
    try {
      expectSame(await reader.read(16), bytes.subarray(0, 16));
      // Long skips (an MP4's mdat): the S3 reader ends its GET and starts another at the new offset.
      reader.skip(1024 * 1024);
      reader.skip(1024 * 1024);
      expectSame(await reader.read(16), bytes.subarray(16 + 2 * 1024 * 1024, 32 + 2 * 1024 * 1024));
      reader.skip(10);
      expectSame(await reader.read(1024 * 1024 + 100), bytes.subarray(42 + 2 * 1024 * 1024));
      expect(await reader.read(1)).toHaveLength(0);
    } finally {
      await reader.close();
    }
    const again = await store.openReader(key);
    try {
      again.skip(bytes.length + 5);
      expect(await again.read(10)).toHaveLength(0);
      expect(again.position).toBe(bytes.length + 5);
    } finally {
      await again.close();
    }
  });

  it('hands out buffers the caller owns, one read at a time', async () => {
    const { store } = await fresh();
    const bytes = patterned(200_000);
    const { key } = await store.write(chunked(bytes));
    const reader = await store.openReader(key);
    const pending = reader.read(4);
    await expect(reader.read(4)).rejects.toThrow('already reading');
    const first = await pending;
    await reader.read(4);
    reader.skip(70_000);
    await reader.read(4);
    await reader.close();
    expectSame(first, bytes.subarray(0, 4));
  });

  it('refuses to open or read a blob that is not there', async () => {
    const { store } = await fresh();
    await expect(store.openReader(MISSING_KEY)).rejects.toThrow();
    await expect(readAll(store.read(MISSING_KEY))).rejects.toThrow();
  });

  it('refuses keys it did not make before they reach the storage', async () => {
    const { store } = await fresh();
    expect(() => store.read('../../etc/passwd')).toThrow(TypeError);
    await expect(store.openReader('../x')).rejects.toThrow(TypeError);
    expect(await store.exists('../x')).toBe(false);
  });

  it('tells whether a blob exists, and deletes idempotently', async () => {
    const underTest = await fresh();
    const { store } = underTest;
    const { key } = await store.write(chunked(patterned(1000)));
    expect(await store.exists(key)).toBe(true);
    expect(await store.exists(MISSING_KEY)).toBe(false);
    await store.delete(key);
    expect(await store.exists(key)).toBe(false);
    // Sweepers in several processes may race: the second delete is no error.
    await store.delete(key);
    await store.delete(MISSING_KEY);
    await expect(readAll(store.read(key))).rejects.toThrow();
    expect(await underTest.listed()).toEqual([]);
  });

  it('leaves nothing behind when the source fails, and rethrows its error', async () => {
    const underTest = await fresh();
    const { store } = underTest;
    const kept = await store.write(chunked(patterned(10)));
    const before = await underTest.listed();
    expect(before).toHaveLength(1);
    for (const length of [0, 100_000, 6 * 1024 * 1024]) {
      // The caller's own error, unchanged: the services tell a refused image from a failing store by it.
      const failure = new Error(`the client went away after ${length} bytes`);
      await expect(store.write(failingAfter(patterned(length), failure))).rejects.toBe(failure);
      expect(await underTest.listed()).toEqual(before);
    }
    expect(await store.exists(kept.key)).toBe(true);
  });

  it('is writable while its storage is there, and says so when it goes away', async () => {
    const underTest = await fresh();
    await underTest.store.checkWritable();
    await underTest.remove();
    await expect(underTest.store.checkWritable()).rejects.toThrow();
  });

  it('takes a source in object mode (Readable.from of buffers, as the base64 paths give)', async () => {
    const { store } = await fresh();
    const { key } = await store.write(Readable.from([Buffer.from('hello, '), Buffer.from('blob')]));
    expect(await text(store.read(key))).toBe('hello, blob');
  });
}
