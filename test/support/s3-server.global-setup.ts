import { S3RVER_CREDENTIALS, startS3Server } from './s3-server.ts';

/**
 * Vitest global setup of the projects whose test systems keep their media in S3 (TEST_MEDIA_STORE=s3 in
 * vitest.config.ts): one local S3-compatible server (s3rver) per run, in vitest's own process, with one bucket; each
 * test system takes a key prefix of its own in it (test/support/test-blob-store.ts). Its address reaches the workers in
 * TEST_S3_ENDPOINT, the bucket's name in TEST_S3_BUCKET and s3rver's credentials in TEST_S3_ACCESS_KEY_ID and
 * TEST_S3_SECRET_ACCESS_KEY. Several projects may declare this setup: the first starts it.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.TEST_S3_ENDPOINT !== undefined) return undefined;
  const bucket = 'tributary-test';
  const server = await startS3Server({ buckets: [bucket] });
  process.env.TEST_S3_ENDPOINT = server.endpoint;
  process.env.TEST_S3_BUCKET = bucket;
  process.env.TEST_S3_ACCESS_KEY_ID = S3RVER_CREDENTIALS.accessKeyId;
  process.env.TEST_S3_SECRET_ACCESS_KEY = S3RVER_CREDENTIALS.secretAccessKey;
  return async () => {
    for (const name of ['TEST_S3_ENDPOINT', 'TEST_S3_BUCKET', 'TEST_S3_ACCESS_KEY_ID', 'TEST_S3_SECRET_ACCESS_KEY'])
      delete process.env[name];
    await server.close();
  };
}
