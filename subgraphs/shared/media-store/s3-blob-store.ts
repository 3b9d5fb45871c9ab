import { webcrypto } from 'node:crypto';
import { PassThrough, pipeline, Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type PutObjectCommandInput,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { S3StoreConfig } from '../../../lib/config.ts';
import { isBlobKey, newBlobKey, type BlobReader, type BlobStore } from './blob-store.ts';

/**
 * A multipart upload's part: S3's smallest (every part but the last must be at least 5 MiB). A write of unknown length
 * holds at most PART_QUEUE + 1 parts in memory: one being filled while the others are sent. A blob no larger than one
 * part is sent with one PutObject, gathered in a slab (slabPool).
 */
const PART_BYTES = 5 * 1024 * 1024;
/** How long the slabs of the single-PutObject writes are kept once none is in use (slabPool). */
const SLAB_KEEP_IDLE_MS = 10_000;
/** Parts sent at once: the next part is read from the source while one is on the wire. */
const PART_QUEUE = 2;
/**
 * A skip a reader reads through rather than ending its GET and starting another at the new offset: a new GET costs a
 * connection and the store's time to first byte (tens of milliseconds on a cloud store), in which the open stream would
 * have delivered about this much. Read-through bytes are dropped as they arrive, so this costs no memory.
 */
const READ_THROUGH_BYTES = 1024 * 1024;

/**
 * Blobs as objects of one bucket of an S3-compatible store, keyed `keyPrefix` + the blob key (the same UUIDs as the
 * local store). Bytes stream both ways: a write of up to one part is one PutObject, a longer one a multipart upload fed
 * as the source arrives (@aws-sdk/lib-storage); a read is the GET's body, a reader one ranged GET read forward. Objects
 * appear whole or not at all (PutObject and CompleteMultipartUpload are atomic), so a failed source leaves nothing
 * behind; the parts of a multipart upload whose abort fails too are left to the bucket's lifecycle rule (README,
 * "Configuration").
 *
 * Nothing is fetched at creation: the first request, or readiness (HeadBucket), finds out whether the bucket answers.
 */
export function createS3BlobStore(config: S3StoreConfig): BlobStore {
  const store: S3StoreContext = {
    config,
    client: s3Client(config),
    Bucket: config.bucket,
    slabs: slabPool(PART_BYTES, SLAB_KEEP_IDLE_MS),
  };
  return {
    write: (source, given) => writeBlob(store, source, given),
    read: (key, range) => readBlob(store, key, range),
    async openReader(key) {
      return openObjectReader(store.client, store.Bucket, objectKey(store, key));
    },
    async delete(key) {
      // S3 answers 204 for a key that is not there, so a second sweeper's delete is no error.
      await store.client.send(new DeleteObjectCommand({ Bucket: store.Bucket, Key: objectKey(store, key) }));
    },
    exists: (key) => blobExists(store, key),
    checkWritable: (signal) => checkBucket(store, signal),
    async close() {
      store.slabs.clear();
      store.client.destroy();
    },
  };
}

/** What the store's functions share: its settings, the client and bucket, the slabs of the single-PutObject writes. */
interface S3StoreContext {
  readonly config: S3StoreConfig;
  readonly client: S3Client;
  readonly Bucket: string;
  readonly slabs: SlabPool;
}

function s3Client(config: S3StoreConfig): S3Client {
  return new S3Client({
    ...(config.endpoint !== undefined && { endpoint: config.endpoint }),
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    // Explicit, so the SDK's credential chain (environment, files, instance metadata over the network) never runs.
    credentials: {
      accessKeyId: config.accessKeyId,
      secretAccessKey: config.secretAccessKey,
      ...(config.sessionToken !== undefined && { sessionToken: config.sessionToken }),
    },
    // Explicit, so that AWS_DEFAULTS_MODE=auto in the environment cannot make the SDK ask instance metadata for a region.
    defaultsMode: 'standard',
    // Checksums only where an operation requires one: the SDK's default (CRC32 on every upload and download) is not
    // served by every S3-compatible store, and the bytes are checked by the inspectors anyway.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A store that stops answering fails the request instead of holding it: no connection within 5 s, or a socket
    // idle for 2 min (longer than a reader or a stream waits between reads while its caller works).
    requestHandler: { connectionTimeout: 5_000, socketTimeout: 120_000 },
  });
}

function objectKey(store: S3StoreContext, key: string): string {
  // Keys are made here; anything else is refused before it reaches the store (as the local store does).
  if (!isBlobKey(key)) throw new TypeError(`not a blob key: ${key}`);
  return `${store.config.keyPrefix}${key}`;
}

async function writeBlob(store: S3StoreContext, source: Readable, given: string | undefined): Promise<{ key: string; bytes: number }> {
  const { client, Bucket, slabs } = store;
  const key = given ?? newBlobKey();
  const Key = objectKey(store, key);
  // Up to one part is read first, copied into a slab as it arrives. A blob that ends within it — every image of the
  // simple upload, every segment — is sent from the slab as one PutObject (putWhole); a longer one goes to
  // lib-storage as a multipart upload, those bytes first. A source that fails here has sent nothing: its error is
  // thrown as it is.
  const pieces = source[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const head: Buffer[] = [];
  let bytes = 0;
  const slab = slabs.take();
  try {
    for (;;) {
      const next = await pieces.next();
      if (next.done) {
        const body = slab.subarray(0, bytes);
        await putWhole(client, { Bucket, Key }, body, await payloadHash(body));
        return { key, bytes };
      }
      const piece = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
      if (bytes + piece.length > PART_BYTES) {
        head.push(Buffer.from(slab.subarray(0, bytes)), piece);
        bytes += piece.length;
        break;
      }
      piece.copy(slab, bytes);
      bytes += piece.length;
    }
  } finally {
    slabs.give(slab);
  }
  // The source's own error is what the caller must see (a refused image, a size limit): lib-storage rethrows it,
  // unless aborting the multipart upload fails as well, when it throws the abort's error instead.
  let sourceError: unknown;
  const body = Readable.from(
    (async function* () {
      // Handed on, not kept: lib-storage holds what it has not sent yet.
      yield* head.splice(0);
      try {
        for (let next = await pieces.next(); !next.done; next = await pieces.next()) {
          const piece = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
          bytes += piece.length;
          yield piece;
        }
      } catch (error) {
        sourceError ??= error;
        throw error;
      }
    })(),
    { objectMode: false },
  );
  const upload = new Upload({ client, params: { Bucket, Key, Body: body }, partSize: PART_BYTES, queueSize: PART_QUEUE });
  try {
    await upload.done();
  } catch (error) {
    // lib-storage stops reading when a part fails: end the source rather than leave it paused.
    body.destroy();
    await pieces.return?.();
    throw sourceError ?? error;
  }
  return { key, bytes };
}

function readBlob(store: S3StoreContext, key: string, range: { start: number; end: number } | undefined): Readable {
  const Key = objectKey(store, key);
  if (range && !(range.start >= 0 && range.end >= range.start)) throw new RangeError(`not a byte range: ${range.start}-${range.end}`);
  const out = new PassThrough();
  const controller = new AbortController();
  let answered = false;
  // A stream destroyed before the GET answers ends the GET.
  out.once('close', () => {
    if (!answered) controller.abort();
  });
  store.client
    .send(new GetObjectCommand({ Bucket: store.Bucket, Key, ...(range && { Range: `bytes=${range.start}-${range.end}` }) }), {
      abortSignal: controller.signal,
    })
    .then(
      (reply) => {
        answered = true;
        const body = reply.Body as Readable;
        if (out.destroyed) body.destroy();
        // The body's errors reach `out` (pipeline destroys every stream with the first error); `out`'s reader handles them.
        else pipeline(body, out, () => undefined);
      },
      (error: unknown) => {
        answered = true;
        // A range that starts past the end is empty, as a file's read stream is.
        if (statusOf(error) === 416) out.end();
        else out.destroy(error as Error);
      },
    );
  return out;
}

async function blobExists(store: S3StoreContext, key: string): Promise<boolean> {
  if (!isBlobKey(key)) return false;
  try {
    await store.client.send(new HeadObjectCommand({ Bucket: store.Bucket, Key: objectKey(store, key) }));
    return true;
  } catch (error) {
    // Only "not there" is an answer; a store that does not answer is an error, not a missing blob.
    if (statusOf(error) === 404) return false;
    throw error;
  }
}

async function checkBucket({ client, Bucket }: S3StoreContext, signal: AbortSignal | undefined): Promise<void> {
  // HeadBucket: the bucket exists and these credentials reach it. Readiness runs every few seconds on every
  // process; a test write each time would cost a billed PUT and DELETE per probe (and leave delete markers in a
  // versioned bucket), and a credential that may read but not write is a deployment error the first upload names.
  try {
    await client.send(new HeadBucketCommand({ Bucket }), signal ? { abortSignal: signal } : {});
  } catch (error) {
    const status = statusOf(error);
    throw new Error(
      `the S3 bucket ${Bucket} cannot be reached: ${status === 404 ? 'it does not exist' : status !== undefined ? `HTTP ${status}` : (error as Error).message}`,
      { cause: error },
    );
  }
}

type SlabPool = ReturnType<typeof slabPool>;

/**
 * Buffers of one part each for the single-PutObject writes, reused from write to write. A blob under a part is held
 * whole until its PutObject (S3 wants its length first); held as the source's own pieces, those pieces outlive V8's
 * young generation and are freed only by full collections — in a server with a large heap, one every few uploads,
 * which cost it more than the upload itself (bench/README.md, "On the S3 store"). Copied into a slab as they arrive,
 * the pieces die young, and the slab is the next write's. Slabs stay while writes go on — as many as were in use at
 * once, each a part's size when it has carried that much — and go back to the garbage collector once none has been in
 * use for `keepIdleMs`.
 */
function slabPool(size: number, keepIdleMs: number) {
  const idle: Buffer[] = [];
  let inUse = 0;
  let trim: NodeJS.Timeout | undefined;
  const clear = () => {
    clearTimeout(trim);
    trim = undefined;
    idle.length = 0;
  };
  return {
    take(): Buffer {
      clearTimeout(trim);
      trim = undefined;
      inUse += 1;
      return idle.pop() ?? Buffer.allocUnsafeSlow(size);
    },
    /** Back to the pool once nothing reads it any more (its PutObject settled). */
    give(slab: Buffer): void {
      inUse -= 1;
      idle.push(slab);
      if (inUse === 0) trim = setTimeout(clear, keepIdleMs).unref();
    },
    clear,
  };
}

/**
 * One PutObject of a blob already read, from its slab: one buffer, which the SDK can send again when it retries. The
 * payload is signed as the SDK signs a buffer, but with the SHA-256 (`sha256Hex`) the caller took off the event loop
 * (payloadHash): set in x-amz-content-sha256, it is what the signer uses instead of hashing the body on the loop.
 */
async function putWhole(
  client: S3Client,
  target: Pick<PutObjectCommandInput, 'Bucket' | 'Key'>,
  body: Buffer,
  sha256Hex: string,
): Promise<void> {
  const command = new PutObjectCommand({ ...target, Body: body });
  command.middlewareStack.add(
    (next) => (args) => {
      (args.request as { headers: Record<string, string> }).headers['x-amz-content-sha256'] = sha256Hex;
      return next(args);
    },
    { step: 'build', name: 'tributaryPayloadHash' },
  );
  await client.send(command);
}

/**
 * The payload's SHA-256 (hex) for the PutObject's signature, taken on libuv's thread pool (WebCrypto's digest runs
 * there, on a copy) rather than on the event loop: 5–6 ms of the server's main thread per 5 MB upload otherwise, in
 * the thread every request waits for (bench/README.md, "On the S3 store").
 */
async function payloadHash(body: Buffer): Promise<string> {
  return Buffer.from(await webcrypto.subtle.digest('SHA-256', body)).toString('hex');
}

/** The HTTP status of an S3 error reply, if it is one. */
function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
}

/** One GET in progress: its body, and the body read as chunks. */
interface OpenGet {
  body: Readable;
  chunks: AsyncIterator<Buffer>;
}

/**
 * A {@link BlobReader} over one object: a GET read forward as a stream. A short skip is read through; a longer one, or
 * one past what the stream delivered, ends the GET and starts a ranged one at the new offset — lazily, at the next read,
 * so that several skips in a row cost one GET. Opened with the first GET (from byte 0), which also tells the size and
 * rejects when the object is not there.
 */
async function openObjectReader(client: S3Client, Bucket: string, Key: string): Promise<BlobReader> {
  const get = async (offset: number): Promise<{ open: OpenGet; size: number | undefined }> => {
    // No Range from byte 0: a ranged GET of an empty object is refused (416).
    const reply = await client.send(new GetObjectCommand({ Bucket, Key, ...(offset > 0 && { Range: `bytes=${offset}-` }) }));
    const body = reply.Body as Readable;
    // The iterator listens for the body's errors from now on: one between two reads is thrown by the next, never unhandled.
    return { open: { body, chunks: body[Symbol.asyncIterator]() as AsyncIterator<Buffer> }, size: reply.ContentLength };
  };
  const first = await get(0);
  const size = first.size ?? Number.POSITIVE_INFINITY;
  let current: OpenGet | undefined = first.open;
  // Bytes the stream delivered and no read has taken yet; pending[0] is the blob's byte at `streamAt`.
  let pending: Buffer = Buffer.alloc(0);
  let streamAt = 0;
  let position = 0;
  let closed = false;
  let reading = false;

  const end = () => {
    current?.body.destroy();
    current = undefined;
    pending = Buffer.alloc(0);
  };

  async function readAhead(length: number): Promise<Buffer> {
    const wanted = Math.max(0, Math.min(length, size - position));
    const out = Buffer.alloc(wanted);
    if (wanted === 0) return out;
    if (current === undefined || position < streamAt || position - streamAt > READ_THROUGH_BYTES) {
      end();
      current = (await get(position)).open;
      streamAt = position;
    }
    let filled = 0;
    while (filled < wanted) {
      if (pending.length === 0) {
        const next = await current.chunks.next();
        if (next.done) break; // the end of the object
        pending = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
        continue;
      }
      if (streamAt < position) {
        // Reading through a short skip.
        const dropped = Math.min(position - streamAt, pending.length);
        pending = pending.subarray(dropped);
        streamAt += dropped;
        continue;
      }
      const copied = pending.copy(out, filled, 0, Math.min(pending.length, wanted - filled));
      pending = pending.subarray(copied);
      streamAt += copied;
      position += copied;
      filled += copied;
    }
    return filled === wanted ? out : out.subarray(0, filled);
  }

  return {
    get position() {
      return position;
    },
    async read(length) {
      if (closed) throw new Error('the blob reader is closed');
      // Two reads at once would share the stream and the position.
      if (reading) throw new Error('the blob reader is already reading');
      reading = true;
      try {
        return await readAhead(length);
      } finally {
        reading = false;
      }
    },
    skip(length) {
      position += Math.max(0, length);
    },
    async close() {
      if (closed) return;
      closed = true;
      end();
    },
  };
}
