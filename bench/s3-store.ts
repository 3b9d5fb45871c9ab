/**
 * The S3 store of the upload scenarios' S3 variants (issue 28): @20minutes/s3rver in a child process of its own, started
 * and stopped by bench/run.ts, listening on 127.0.0.1 with a fresh temporary directory and one bucket — so that its CPU
 * is neither the load generator's nor the server's, and is reported apart (per upload). Nothing leaves the machine.
 *
 * The child is this file run with `serve` (`node --import tsx bench/s3-store.ts serve`): it starts s3rver as the tests
 * do (test/support/s3-server.ts), prints one JSON line when ready, empties the bucket when asked on stdin (`clear`,
 * answered with one JSON line), and closes — removing its directory — when stdin ends.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { processCpuMs, processRss } from './proc-stat.ts';

const BUCKET = 'tributary-bench';
const SELF = fileURLToPath(import.meta.url);

interface Ready {
  type: 'ready';
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export interface S3StoreProcess {
  pid: number;
  /** http://127.0.0.1:<port> */
  endpoint: string;
  bucket: string;
  /** The bench server's environment for this bucket: MEDIA_STORE=s3 and MEDIA_S3_* (bench/server.ts passes them on). */
  serverEnv: Record<string, string>;
  /** Deletes every object of the bucket (between windows, as the local store's files are); how many went. */
  clear(): Promise<number>;
  /** CPU milliseconds the s3rver process has used so far (from /proc). */
  cpuMs(): Promise<number | undefined>;
  /** Its RSS now and the kernel's peak so far, MiB. */
  rss(): Promise<{ rss: number; peak: number }>;
  stop(): Promise<void>;
}

/** Starts the s3rver child and waits for its ready line. */
export async function startS3StoreProcess(): Promise<S3StoreProcess> {
  const child: ChildProcessByStdio<Writable, Readable, null> = spawn(process.execPath, ['--import', 'tsx', SELF, 'serve'], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout });
  const replies: ((line: string) => void)[] = [];
  const ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('s3rver did not become ready within 30 s')), 30_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(line) as Ready);
      } catch {
        reject(new Error(`unexpected first line from the s3rver process: ${line}`));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the s3rver process exited with code ${code} before it was ready`));
    });
  });
  lines.on('line', (line) => replies.shift()?.(line));
  const pid = child.pid!;
  return {
    pid,
    endpoint: ready.endpoint,
    bucket: ready.bucket,
    serverEnv: {
      MEDIA_STORE: 's3',
      MEDIA_S3_ENDPOINT: ready.endpoint,
      MEDIA_S3_BUCKET: ready.bucket,
      MEDIA_S3_ACCESS_KEY_ID: ready.accessKeyId,
      MEDIA_S3_SECRET_ACCESS_KEY: ready.secretAccessKey,
      MEDIA_S3_FORCE_PATH_STYLE: 'true',
    },
    clear: () =>
      new Promise<number>((resolve, reject) => {
        replies.push((line) => {
          const reply = JSON.parse(line) as { type: string; removed?: number; error?: string };
          if (reply.type === 'cleared') resolve(reply.removed ?? 0);
          else reject(new Error(`s3rver process: ${reply.error ?? line}`));
        });
        child.stdin.write('clear\n');
      }),
    cpuMs: () => processCpuMs(pid),
    rss: () => processRss(pid),
    stop: async () => {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The child: s3rver with the bench's bucket until stdin ends. */
async function serve(): Promise<void> {
  // Loaded here, not at the top: the parent (the load generator) needs none of s3rver nor the AWS SDK.
  const [{ S3RVER_CREDENTIALS, startS3Server }, { DeleteObjectCommand }] = await Promise.all([
    import('../test/support/s3-server.ts'),
    import('@aws-sdk/client-s3'),
  ]);
  const server = await startS3Server({ buckets: [BUCKET] });
  const ready: Ready = { type: 'ready', endpoint: server.endpoint, bucket: BUCKET, ...S3RVER_CREDENTIALS };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
  const clear = async (): Promise<number> => {
    const keys = await server.listKeys(BUCKET);
    // A few at a time: this runs between windows, where only its total time matters.
    for (let start = 0; start < keys.length; start += 8) {
      await Promise.all(keys.slice(start, start + 8).map((Key) => server.client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key }))));
    }
    return keys.length;
  };
  let queue = Promise.resolve();
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line.trim() !== 'clear') return;
    queue = queue.then(() =>
      clear().then(
        (removed) => void process.stdout.write(`${JSON.stringify({ type: 'cleared', removed })}\n`),
        (error: unknown) => void process.stdout.write(`${JSON.stringify({ type: 'error', error: String(error) })}\n`),
      ),
    );
  });
  lines.once('close', () => {
    void queue
      .then(() => server.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          console.error('s3rver process: error while closing:', error);
          process.exit(1);
        },
      );
  });
}

if (process.argv[1] === SELF && process.argv[2] === 'serve') await serve();
