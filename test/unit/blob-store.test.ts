import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalBlobStore } from '../../subgraphs/shared/media-store/blob-store.ts';
import { createS3BlobStore } from '../../subgraphs/shared/media-store/s3-blob-store.ts';
import { blobStoreContract, chunked, patterned } from '../support/blob-store-contract.ts';
import { startS3Server, type RunningS3Server } from '../support/s3-server.ts';

/** The blob store contract on both stores: the local directory, and an S3 bucket of a local s3rver. */

describe('the local blob store', () => {
  blobStoreContract(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tributary-blob-store-'));
    const store = await createLocalBlobStore(dir);
    return {
      store,
      listed: async () =>
        (await readdir(dir, { recursive: true, withFileTypes: true }))
          .filter((entry) => entry.isFile())
          .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
          .sort(),
      remove: () => rm(dir, { recursive: true, force: true }),
      close: async () => {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  });
});

describe('the S3 blob store', () => {
  let server: RunningS3Server;
  beforeAll(async () => {
    server = await startS3Server();
  });
  afterAll(async () => {
    await server?.close();
  });

  /** A store on a bucket of its own (so that the bucket can go away under it). */
  async function bucketStore(keyPrefix = '') {
    const bucket = `t-${randomUUID()}`;
    await server.createBucket(bucket);
    let present = true;
    const store = createS3BlobStore(server.storeConfig(bucket, keyPrefix));
    return {
      bucket,
      store,
      listed: () => server.listKeys(bucket),
      remove: async () => {
        present = false;
        await server.deleteBucket(bucket);
      },
      close: async () => {
        await store.close();
        if (present) await server.deleteBucket(bucket);
      },
    };
  }

  blobStoreContract(() => bucketStore());

  it('keeps its blobs under its key prefix', async () => {
    const { store, bucket, listed, close } = await bucketStore('media/a/');
    try {
      const { key } = await store.write(chunked(patterned(10)));
      expect(await listed()).toEqual([`media/a/${key}`]);
      expect(await server.listKeys(bucket, 'media/a/')).toEqual([`media/a/${key}`]);
    } finally {
      await close();
    }
  });

  it('reads through a short skip on the same GET, and starts one ranged GET at the offset of a long one', async () => {
    const { store, close } = await bucketStore();
    try {
      const bytes = patterned(4 * 1024 * 1024);
      const { key } = await store.write(chunked(bytes));
      const gets = () => server.requests.filter((request) => request.method === 'GET' && request.path.includes(key));
      const reader = await store.openReader(key);
      try {
        await reader.read(8);
        reader.skip(500_000);
        expect((await reader.read(8)).equals(bytes.subarray(500_008, 500_016))).toBe(true);
        expect(gets()).toEqual([expect.objectContaining({ range: undefined })]);
        // Skips are applied by the next read: two long ones in a row cost one GET.
        reader.skip(1024 * 1024);
        reader.skip(1024 * 1024);
        const offset = 500_016 + 2 * 1024 * 1024;
        expect(gets()).toHaveLength(1);
        expect((await reader.read(8)).equals(bytes.subarray(offset, offset + 8))).toBe(true);
        expect(gets().map((request) => request.range)).toEqual([undefined, `bytes=${offset}-`]);
        // Past the end: nothing to ask for.
        reader.skip(bytes.length);
        expect(await reader.read(8)).toHaveLength(0);
        expect(gets()).toHaveLength(2);
      } finally {
        await reader.close();
      }
    } finally {
      await close();
    }
  });

  it('writes blobs up to one part as one PutObject and longer ones in parts, several at once, each read back as written', async () => {
    const { store, close } = await bucketStore();
    try {
      const part = 5 * 1024 * 1024;
      // Different bytes at once: each write's buffer is another's next, so a buffer reused too early would show.
      const sizes = [part, part + 1, part - 1, 1, 300_000, 3_000_000];
      const blobs = sizes.map((size, seed) => patterned(size, seed));
      const written = await Promise.all(blobs.map((bytes) => store.write(chunked(bytes))));
      const again = await store.write(chunked(blobs[4]!));
      for (const [index, { key, bytes }] of [...written.entries(), [4, again] as const]) {
        expect(bytes).toBe(blobs[index]!.length);
        expect((await buffer(store.read(key))).equals(blobs[index]!)).toBe(true);
      }
      const ofKey = (key: string) => server.requests.filter((request) => request.path.includes(key) && request.method !== 'GET');
      // A blob of one part exactly is still one PutObject; one byte more makes a multipart upload.
      expect(ofKey(written[0]!.key).map((request) => request.method)).toEqual(['PUT']);
      expect(ofKey(written[1]!.key).map((request) => request.method)).toEqual(['POST', 'PUT', 'PUT', 'POST']);
    } finally {
      await close();
    }
  });

  it('names the bucket when readiness fails', async () => {
    const { store, remove, bucket, close } = await bucketStore();
    try {
      await remove();
      await expect(store.checkWritable()).rejects.toThrow(`the S3 bucket ${bucket} cannot be reached: it does not exist`);
      const signal = AbortSignal.abort();
      await expect(store.checkWritable(signal)).rejects.toThrow();
    } finally {
      await close();
    }
  });
});
