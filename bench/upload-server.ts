/**
 * The server side of the upload scenarios (Area D) of `npm run bench`, used by bench/server.ts:
 * - the upload baseline: a bare node:http handler that parses the same multipart request with the same busboy library
 *   (@fastify/busboy) and streams the file part to a file on disk — nothing else (no auth, no inspection, no database);
 * - the peak-RSS sampler of a measured window: process.memoryUsage.rss() every ~5 ms (in a worker thread), plus the
 *   kernel's own high-water mark (VmHWM of /proc/self/status, reset through /proc/self/clear_refs), which also sees a
 *   peak between two samples;
 * - the housekeeping of the run's temporary directory: blobs and spooled files cleared between windows (so a run does
 *   not fill the disk or make the kernel write back gigabytes), and a count of the spool files left behind.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { Busboy, type BusboyHeaders, type BusboyInstance } from '@fastify/busboy';

/** POST /upload: multipart/form-data with the file in part `media`; the part is streamed to `dir`; 200 {"size":n}. */
export function uploadBaselineHandler(dir: string) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== 'POST' || req.url !== '/upload') return false;
    const fail = (status: number, message: string) => {
      if (!res.headersSent) res.writeHead(status, { 'content-type': 'text/plain' }).end(message);
      req.resume();
    };
    let parser: BusboyInstance;
    try {
      parser = new Busboy({ headers: req.headers as BusboyHeaders, limits: { files: 1, fileSize: 5_242_881 } });
    } catch (error) {
      fail(400, (error as Error).message);
      return true;
    }
    let written: Promise<number> | undefined;
    parser.on('file', (name, stream) => {
      if (name !== 'media' || written) {
        stream.resume();
        return;
      }
      const out = createWriteStream(join(dir, randomUUID()), { flags: 'wx', mode: 0o600 });
      written = new Promise<number>((resolve, reject) => {
        out.once('close', () => resolve(out.bytesWritten));
        out.once('error', reject);
        stream.once('error', reject);
      });
      stream.pipe(out);
    });
    parser.once('error', (error: Error) => fail(400, error.message));
    parser.once('finish', () => {
      if (!written) {
        fail(400, 'no media part');
        return;
      }
      written.then(
        (size) => res.writeHead(200, { 'content-type': 'application/json' }).end(`{"size":${size}}`),
        (error: unknown) => fail(500, String(error)),
      );
    });
    req.pipe(parser);
    return true;
  };
}

export interface RssWindow {
  /** RSS when the window started (after a full GC), MiB. */
  rssBeforeMiB: number;
  /** Largest sample of process.memoryUsage.rss() during the window, MiB. */
  rssPeakMiB: number;
  rssSamples: number;
  /** The kernel's peak RSS of the window (VmHWM after a reset at its start), MiB; undefined without /proc. */
  rssKernelPeakMiB: number | undefined;
}

const MiB = 2 ** 20;

async function kernelPeakKiB(): Promise<number | undefined> {
  try {
    const status = await readFile('/proc/self/status', 'utf8');
    const match = /VmHWM:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The sampling loop, in a worker thread so that it keeps its pace while the main event loop is busy and costs the event
 * loop under test nothing (process.memoryUsage.rss() reads /proc/self/stat: ~0.1 ms a call, 2 % of a loaded event loop
 * at 200 calls/s). RSS is per process, so the worker sees the whole server.
 */
const SAMPLER_SOURCE = `
const { parentPort } = require('node:worker_threads');
let timer;
let peak = 0;
let samples = 0;
const sample = () => {
  const rss = process.memoryUsage.rss();
  samples += 1;
  if (rss > peak) peak = rss;
};
parentPort.on('message', (message) => {
  if (message.type === 'start') {
    clearInterval(timer);
    peak = 0;
    samples = 0;
    sample();
    timer = setInterval(sample, message.intervalMs);
    parentPort.postMessage({ type: 'started' });
  } else if (message.type === 'stop') {
    clearInterval(timer);
    sample();
    parentPort.postMessage({ type: 'stopped', peak, samples });
  }
});
`;

let sampler: Promise<Worker> | undefined;

/** The sampler thread, started once and online (so that its own memory is in the first window's RSS before). */
function samplerWorker(): Promise<Worker> {
  sampler ??= new Promise<Worker>((resolve, reject) => {
    const worker = new Worker(SAMPLER_SOURCE, { eval: true });
    worker.unref();
    worker.once('online', () => resolve(worker));
    worker.once('error', reject);
  });
  return sampler;
}

function ask<T>(worker: Worker, message: object, reply: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onMessage = (data: { type: string }) => {
      if (data.type !== reply) return;
      worker.off('message', onMessage);
      worker.off('error', reject);
      resolve(data as T);
    };
    worker.on('message', onMessage);
    worker.once('error', reject);
    worker.postMessage(message);
  });
}

/**
 * Starts sampling this process's RSS every `intervalMs` (in a worker thread) until stop(). Runs full GCs first when the
 * process was started with --expose-gc, so that the RSS before the window does not carry the previous window's garbage.
 */
export async function startRssSampler(intervalMs: number): Promise<{ stop(): Promise<RssWindow> }> {
  const worker = await samplerWorker();
  // Two full GCs 100 ms apart: V8 gives freed pages back to the system a little after a GC, not during it.
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    await sleep(100);
    gc();
    await sleep(100);
  }
  let kernelReset: boolean;
  try {
    // "5" resets the peak RSS (VmHWM) to the current RSS (Linux ≥ 4.0, own process).
    await writeFile('/proc/self/clear_refs', '5');
    kernelReset = true;
  } catch {
    kernelReset = false;
  }
  const before = process.memoryUsage.rss();
  await ask(worker, { type: 'start', intervalMs }, 'started');
  return {
    async stop() {
      const { peak, samples } = await ask<{ peak: number; samples: number }>(worker, { type: 'stop' }, 'stopped');
      const kernelKiB = kernelReset ? await kernelPeakKiB() : undefined;
      return {
        rssBeforeMiB: round(before / MiB),
        rssPeakMiB: round(Math.max(before, peak) / MiB),
        rssSamples: samples,
        rssKernelPeakMiB: kernelKiB === undefined ? undefined : round((kernelKiB * 1024) / MiB),
      };
    },
  };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

/**
 * Empties the stored uploads between windows: the baseline's files, and the blob store's fan-out directories (two hex
 * characters; its `tmp` staging directory stays, the store recreates a fan-out directory before each rename). The
 * product's metadata rows keep pointing at removed blobs, which nothing in the bench reads.
 */
export async function clearStoredUploads(dirs: { baseline: string; blobRoots: readonly string[] }): Promise<number> {
  let removed = 0;
  for (const name of await readdir(dirs.baseline)) {
    await rm(join(dirs.baseline, name), { force: true });
    removed += 1;
  }
  for (const root of dirs.blobRoots) {
    for (const name of await readdir(root).catch(() => [] as string[])) {
      if (!/^[0-9a-f]{2}$/.test(name)) continue;
      const fanOut = join(root, name);
      removed += (await readdir(fanOut)).length;
      await rm(fanOut, { recursive: true, force: true });
    }
  }
  return removed;
}

/** Files in `dir` whose names start with `prefix` (graphql-upload-ts spools each file as TMPDIR/capacitor-*.tmp). */
export async function countFiles(dir: string, prefix: string): Promise<number> {
  return (await readdir(dir).catch(() => [] as string[])).filter((name) => name.startsWith(prefix)).length;
}
