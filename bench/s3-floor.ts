/**
 * `npx tsx bench/s3-floor.ts [--sizes 1mb,5mb] [--connections 1,4,16] [--duration 5] [--warmup 1]`: what storing one
 * upload's bytes costs with nothing else of Tributary around it — no HTTP server, no multipart, no inspection, no
 * database. The same file as the upload scenarios (a padded PNG of bench/uploads.ts's sizes), handed in 64 KiB pieces as
 * the media service reads its spool, written over and over by `c` writers in this process:
 * - `local`: the local blob store (createLocalBlobStore) in a temporary directory — the local scenarios' store;
 * - `s3-store`: the S3 blob store (createS3BlobStore: lib-storage's Upload, one PutObject for a file under a part) on a
 *   bucket of s3rver in a process of its own (bench/s3-store.ts), as the `-s3` scenarios' server writes;
 * - `sdk-put`: one PutObjectCommand with the whole file as a Buffer, the SDK's least (same client settings), to the same
 *   bucket.
 * Reported per window: writes/s, MB/s, CPU of this process per write, and — on S3 — CPU of the s3rver process per
 * write. s3rver's figure is the floor of the `-s3` scenarios' store: on this machine its process shares the two cores
 * with the server and the load generator, where a real object store's work is done elsewhere (bench/README.md, "On the
 * S3 store (issue 28)").
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { png } from '../test/support/image-fixtures.ts';
import type { S3StoreConfig } from '../lib/config.ts';
import { createLocalBlobStore, newBlobKey } from '../subgraphs/shared/media-store/blob-store.ts';
import { createS3BlobStore } from '../subgraphs/shared/media-store/s3-blob-store.ts';
import { startS3StoreProcess, type S3StoreProcess } from './s3-store.ts';
import { UPLOAD_SIZES } from './uploads.ts';

type SizeName = keyof typeof UPLOAD_SIZES;
type Variant = 'local' | 's3-store' | 'sdk-put';
const PIECE = 64 * 1024;

/** The file in 64 KiB pieces, as a fresh stream. */
function pieces(file: Buffer): Readable {
  const chunks: Buffer[] = [];
  for (let at = 0; at < file.length; at += PIECE) chunks.push(file.subarray(at, at + PIECE));
  return Readable.from(chunks, { objectMode: false });
}

interface Window {
  variant: Variant;
  size: SizeName;
  connections: number;
  writes: number;
  writesPerSecond: number;
  megabytesPerSecond: number;
  clientCpuMsPerWrite: number;
  storeCpuMsPerWrite: number | undefined;
}

/** `connections` writers, each writing again as soon as its write ends, for `ms`; writes completed. */
async function writeLoop(write: () => Promise<void>, connections: number, ms: number): Promise<number> {
  const until = performance.now() + ms;
  let done = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        await write();
        done += 1;
      }
    }),
  );
  return done;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1mb,5mb' },
      connections: { type: 'string', default: '1,4,16' },
      duration: { type: 'string', default: '5' },
      warmup: { type: 'string', default: '1' },
    },
  });
  const sizes = values.sizes.split(',').map((size) => size.trim()) as SizeName[];
  for (const size of sizes) if (!(size in UPLOAD_SIZES)) throw new Error(`--sizes: unknown size ${size}`);
  const connections = values.connections.split(',').map(Number);
  const durationMs = Number(values.duration) * 1000;
  const warmupMs = Number(values.warmup) * 1000;

  const localDir = await mkdtemp(join(tmpdir(), 'tributary-s3-floor-'));
  let s3: S3StoreProcess | undefined;
  const windows: Window[] = [];
  try {
    s3 = await startS3StoreProcess();
    const config: S3StoreConfig = {
      endpoint: s3.endpoint,
      region: 'us-east-1',
      bucket: s3.bucket,
      keyPrefix: '',
      accessKeyId: s3.serverEnv.MEDIA_S3_ACCESS_KEY_ID!,
      secretAccessKey: s3.serverEnv.MEDIA_S3_SECRET_ACCESS_KEY!,
      sessionToken: undefined,
      forcePathStyle: true,
    };
    const local = await createLocalBlobStore(localDir);
    const store = createS3BlobStore(config);
    // The store's own client settings (s3-blob-store.ts), for the bare PutObject.
    const client = new S3Client({
      endpoint: config.endpoint,
      region: config.region,
      forcePathStyle: true,
      credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
      defaultsMode: 'standard',
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    const store3 = s3;
    console.log(`s3rver pid ${s3.pid} at ${s3.endpoint}; ${values.warmup} s warm-up + ${values.duration} s per window`);
    for (const size of sizes) {
      const file = png(320, 240, { padToBytes: UPLOAD_SIZES[size] });
      const writers: Record<Variant, () => Promise<void>> = {
        local: async () => void (await local.write(pieces(file))),
        's3-store': async () => void (await store.write(pieces(file))),
        'sdk-put': async () => void (await client.send(new PutObjectCommand({ Bucket: config.bucket, Key: newBlobKey(), Body: file }))),
      };
      for (const c of connections) {
        for (const variant of Object.keys(writers) as Variant[]) {
          const onS3 = variant !== 'local';
          await writeLoop(writers[variant], c, warmupMs);
          // Between windows, as the upload scenarios: the local store's fan-out directories (its staging one stays), the bucket.
          for (const name of await readdir(localDir))
            if (/^[0-9a-f]{2}$/.test(name)) await rm(join(localDir, name), { recursive: true, force: true });
          await store3.clear();
          const cpu = process.cpuUsage();
          const storeBefore = onS3 ? await store3.cpuMs() : undefined;
          const started = performance.now();
          const writes = await writeLoop(writers[variant], c, durationMs);
          const elapsedS = (performance.now() - started) / 1000;
          const storeAfter = onS3 ? await store3.cpuMs() : undefined;
          const used = process.cpuUsage(cpu);
          const window: Window = {
            variant,
            size,
            connections: c,
            writes,
            writesPerSecond: writes / elapsedS,
            megabytesPerSecond: (writes * UPLOAD_SIZES[size]) / 1e6 / elapsedS,
            clientCpuMsPerWrite: (used.user + used.system) / 1000 / writes,
            storeCpuMsPerWrite: storeBefore !== undefined && storeAfter !== undefined ? (storeAfter - storeBefore) / writes : undefined,
          };
          windows.push(window);
          console.log(
            `  ${`${variant} ${size} c=${c}`.padEnd(20)} ${window.writesPerSecond.toFixed(1).padStart(6)} writes/s  ${window.megabytesPerSecond.toFixed(0).padStart(4)} MB/s` +
              `  this process ${window.clientCpuMsPerWrite.toFixed(1).padStart(5)} ms/write` +
              (window.storeCpuMsPerWrite !== undefined ? `  s3rver ${window.storeCpuMsPerWrite.toFixed(1).padStart(5)} ms/write` : ''),
          );
        }
      }
    }
    client.destroy();
    await store.close();
    await local.close();
  } finally {
    await s3?.stop();
    await rm(localDir, { recursive: true, force: true });
  }
  console.log(JSON.stringify({ windows }));
}

await main();
