import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3StoreConfig } from '../../lib/config.ts';

/**
 * Which blob store the run's test systems keep their media in: the local directory, or — in the projects that set
 * TEST_MEDIA_STORE=s3 (vitest.config.ts: the e2e project on PostgreSQL, so that the media suite runs on both stores
 * without a third run) — a bucket of the run's s3rver (s3-server.global-setup.ts), under a key prefix per system.
 */
export function runMediaStore(): 'local' | 's3' {
  // Read at each call: a worker keeps this module from one file to the next (isolate: false).
  return process.env.TEST_MEDIA_STORE === 's3' ? 's3' : 'local';
}

/** The run's S3 server and bucket (TEST_S3_*, from s3-server.global-setup.ts), as a store configuration with `keyPrefix`. */
function runS3Config(keyPrefix: string): S3StoreConfig {
  const {
    TEST_S3_ENDPOINT: endpoint,
    TEST_S3_BUCKET: bucket,
    TEST_S3_ACCESS_KEY_ID: accessKeyId,
    TEST_S3_SECRET_ACCESS_KEY: secretAccessKey,
  } = process.env;
  if (!endpoint || !bucket || !accessKeyId || !secretAccessKey) {
    throw new Error('TEST_MEDIA_STORE=s3 needs the S3 global setup (test/support/s3-server.global-setup.ts) in its project');
  }
  return { endpoint, region: 'us-east-1', bucket, keyPrefix, accessKeyId, secretAccessKey, sessionToken: undefined, forcePathStyle: true };
}

const freshPrefix = () => `systems/${randomUUID()}/`;

/**
 * The environment that puts a test system's media where the run says, given the test's own environment: on an S3 run,
 * the bucket under a fresh key prefix (or the one the test names, to find the blobs again after a restart). A test
 * that names a blob directory or a store itself keeps what it named.
 */
export function runMediaStoreEnv(env: Record<string, string | undefined>): Record<string, string> {
  if (runMediaStore() !== 's3' || env.MEDIA_BLOB_DIR !== undefined || env.MEDIA_STORE !== undefined) return {};
  const config = runS3Config(env.MEDIA_S3_KEY_PREFIX ?? freshPrefix());
  return {
    MEDIA_STORE: 's3',
    MEDIA_S3_ENDPOINT: config.endpoint!,
    MEDIA_S3_REGION: config.region,
    MEDIA_S3_BUCKET: config.bucket,
    MEDIA_S3_KEY_PREFIX: config.keyPrefix,
    MEDIA_S3_ACCESS_KEY_ID: config.accessKeyId,
    MEDIA_S3_SECRET_ACCESS_KEY: config.secretAccessKey,
  };
}

/**
 * A blob store a test can look into, whichever the run uses: pass `env` to the test systems that should keep their
 * blobs there (several in turn share it: a restart finds the blobs again), then list, read and look up blobs by key
 * without going through the system. On the local store a directory of its own; on S3 a key prefix of its own.
 */
export interface TestBlobStore {
  env: Record<string, string>;
  /**
   * Every blob the storage holds, by key, writes in progress included where the storage shows them (the local store's
   * staged files; S3 shows an object only once it is whole).
   */
  keys(): Promise<string[]>;
  read(key: string): Promise<Buffer>;
  exists(key: string): Promise<boolean>;
  /** Removes what the systems left (call it after closing them). */
  close(): Promise<void>;
}

export async function createTestBlobStore(): Promise<TestBlobStore> {
  if (runMediaStore() === 's3') {
    // Loaded only on an S3 run: every test system's module graph reaches this file, and the SDK takes a tenth of a
    // second to import (in each fuzz door's child process too).
    const [{ DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command }, { s3Client }] = await Promise.all([
      import('@aws-sdk/client-s3'),
      import('./s3-server.ts'),
    ]);
    const config = runS3Config(freshPrefix());
    const client = s3Client(config);
    const Bucket = config.bucket;
    const keys = async () => {
      const found: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket, Prefix: config.keyPrefix, ...(token && { ContinuationToken: token }) }),
        );
        for (const object of page.Contents ?? []) found.push(object.Key!.slice(config.keyPrefix.length));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return found.sort();
    };
    return {
      env: { MEDIA_S3_KEY_PREFIX: config.keyPrefix },
      keys,
      read: async (key) => {
        const reply = await client.send(new GetObjectCommand({ Bucket, Key: config.keyPrefix + key }));
        return Buffer.from(await reply.Body!.transformToByteArray());
      },
      exists: async (key) => {
        try {
          await client.send(new HeadObjectCommand({ Bucket, Key: config.keyPrefix + key }));
          return true;
        } catch (error) {
          if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
          throw error;
        }
      },
      close: async () => {
        try {
          for (const key of await keys()) await client.send(new DeleteObjectCommand({ Bucket, Key: config.keyPrefix + key }));
        } finally {
          client.destroy();
        }
      },
    };
  }
  const dir = await mkdtemp(join(tmpdir(), 'tributary-test-blobs-'));
  // The local store's layout (subgraphs/shared/media-store/blob-store.ts): dir/<first two characters>/<key>.
  const path = (key: string) => join(dir, key.slice(0, 2), key);
  return {
    env: { MEDIA_BLOB_DIR: dir },
    keys: async () =>
      (await readdir(dir, { recursive: true, withFileTypes: true }))
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name)
        .sort(),
    read: (key) => readFile(path(key)),
    exists: async (key) => {
      try {
        await stat(path(key));
        return true;
      } catch {
        return false;
      }
    },
    close: () => rm(dir, { recursive: true, force: true }),
  };
}
