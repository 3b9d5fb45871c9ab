import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, DeleteBucketCommand, DeleteObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { S3StoreConfig } from '../../lib/config.ts';

/**
 * A local S3-compatible server for the tests: @20minutes/s3rver (a maintained fork of s3rver; the original's last
 * release, 3.7.1, pins busboy 0.3 and fast-xml-parser 3), in this process, on an ephemeral port of 127.0.0.1, keeping
 * its buckets in a temporary directory removed on close. Nothing of the tests' S3 traffic leaves the machine.
 *
 * What s3rver does not do (the tests rely on none of it): list or abort multipart uploads (AbortMultipartUpload is
 * refused with 405, so an aborted upload's parts stay in its directory, never listed as objects), and a range ending at
 * byte 0 (`bytes=0-0` answers the whole object).
 */

/** s3rver's one built-in account; it checks every request's SigV4 signature against this pair. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

/** The part of s3rver's API used here (the package ships no types); it is a Koa application. */
interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
  httpServer: Server;
  middleware: ((context: { path: string; app: object }, next: () => Promise<void>) => Promise<void>)[];
}
type S3rverConstructor = new (options: {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  configureBuckets: { name: string }[];
}) => S3rverInstance;

/** A request as s3rver received it (tests count GETs and their ranges). */
export interface S3Request {
  method: string;
  path: string;
  range: string | undefined;
}

export interface RunningS3Server {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  /** Every request received so far, in order. */
  readonly requests: readonly S3Request[];
  /** A client of this server (path-style, s3rver's credentials); destroyed on close. */
  client: S3Client;
  /** A store configuration for a bucket of this server. */
  storeConfig(bucket: string, keyPrefix?: string): S3StoreConfig;
  createBucket(bucket: string): Promise<void>;
  /** Empties the bucket and deletes it (a bucket that went away). */
  deleteBucket(bucket: string): Promise<void>;
  /** Every key in the bucket under `prefix`, sorted. */
  listKeys(bucket: string, prefix?: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Starts s3rver with `buckets` made. */
export async function startS3Server(options: { buckets?: string[] } = {}): Promise<RunningS3Server> {
  const S3rver = createRequire(import.meta.url)('@20minutes/s3rver') as S3rverConstructor;
  const directory = await mkdtemp(join(tmpdir(), 'tributary-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: (options.buckets ?? []).map((name) => ({ name })),
  });
  // The SDK signs a bucket's own requests (HeadBucket, ListObjectsV2, CreateBucket) on the path /bucket/, which s3rver
  // canonicalizes as /bucket, so it would refuse them all as SignatureDoesNotMatch. Its allowMismatchedSignatures is
  // read from the request's application: waived for those requests alone, every object request's signature (what the
  // store reads and writes) is still checked against s3rver's credentials.
  server.middleware.unshift((context, next) => {
    if (/^\/[^/]+\/?$/.test(context.path))
      context.app = Object.create(context.app, { allowMismatchedSignatures: { value: true } }) as object;
    return next();
  });
  let port: number;
  try {
    ({ port } = await server.run());
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  const requests: S3Request[] = [];
  server.httpServer.on('request', (request: { method?: string; url?: string; headers: Record<string, string | string[] | undefined> }) => {
    const range = request.headers.range;
    requests.push({ method: request.method ?? '', path: request.url ?? '', range: typeof range === 'string' ? range : undefined });
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const storeConfig = (bucket: string, keyPrefix = ''): S3StoreConfig => ({
    endpoint,
    region: 'us-east-1',
    bucket,
    keyPrefix,
    ...S3RVER_CREDENTIALS,
    sessionToken: undefined,
    forcePathStyle: true,
  });
  const client = s3Client(storeConfig('unused'));
  const listKeys = async (bucket: string, prefix = '') => {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ...(token && { ContinuationToken: token }) }),
      );
      for (const object of page.Contents ?? []) keys.push(object.Key!);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys.sort();
  };
  return {
    endpoint,
    requests,
    client,
    storeConfig,
    createBucket: async (bucket) => {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
    },
    deleteBucket: async (bucket) => {
      // One DeleteObject per key: DeleteObjects needs a Content-MD5 that the SDK no longer sends by default.
      for (const key of await listKeys(bucket)) await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      await client.send(new DeleteBucketCommand({ Bucket: bucket }));
    },
    listKeys,
    close: async () => {
      client.destroy();
      // Keep-alive connections of clients not yet destroyed would hold close() open.
      server.httpServer.closeAllConnections();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** A client for a store configuration, as the store makes its own: explicit credentials, region and endpoint. */
export function s3Client(config: S3StoreConfig): S3Client {
  return new S3Client({
    ...(config.endpoint !== undefined && { endpoint: config.endpoint }),
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
    defaultsMode: 'standard',
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}
