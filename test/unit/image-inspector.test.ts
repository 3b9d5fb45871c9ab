import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileTypeFromBuffer } from 'file-type';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ImageInspector,
  ImageRejectedError,
  type ImageFacts,
  type ImageInspectorOptions,
  type ImageProblem,
} from '../../subgraphs/media/image-inspector.ts';
import { fixture, png, pngChunk, truncate } from '../support/image-fixtures.ts';

const MAX_BYTES = 5_242_880;
const LIMITS: ImageInspectorOptions = { maxBytes: MAX_BYTES, minDimension: 4, maxDimension: 8192 };

interface Outcome {
  facts?: ImageFacts | undefined;
  problem?: ImageProblem;
  /** What the inspector passed on downstream. */
  passed: Buffer;
}

function* slices(bytes: Buffer, size: number): Generator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/** Runs `source` through an inspector into a collecting sink. */
async function run(source: Readable, limits: ImageInspectorOptions = LIMITS): Promise<Outcome> {
  const inspector = new ImageInspector(limits);
  const passed: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      passed.push(chunk);
      callback();
    },
  });
  try {
    await pipeline(source, inspector, sink);
  } catch (error) {
    if (!(error instanceof ImageRejectedError)) throw error;
    expect(inspector.facts).toBeUndefined();
    return { problem: error.problem, passed: Buffer.concat(passed) };
  }
  return { facts: inspector.facts, passed: Buffer.concat(passed) };
}

/** Feeds `bytes` in chunks of `chunkSize` (default: one chunk). */
function inspect(bytes: Buffer, chunkSize = Math.max(bytes.length, 1), limits: ImageInspectorOptions = LIMITS): Promise<Outcome> {
  return run(Readable.from(slices(bytes, chunkSize)), limits);
}

async function problemOf(bytes: Buffer, chunkSize?: number, limits?: ImageInspectorOptions): Promise<ImageProblem | undefined> {
  return (await inspect(bytes, chunkSize, limits)).problem;
}

/** Deterministic bytes that look random. */
function noise(length: number, seed: string): Buffer {
  const bytes = Buffer.alloc(length);
  for (let at = 0, block = 0; at < length; at += 32, block += 1) {
    createHash('sha256').update(`${seed}:${block}`).digest().copy(bytes, at);
  }
  return bytes;
}

/** `bytes` with one bit flipped at `offset`. */
function flip(bytes: Buffer, offset: number): Buffer {
  const copy = Buffer.from(bytes);
  copy[offset]! ^= 0x01;
  return copy;
}

/** The marker segments of a JPEG before its first SOS, and the rest from SOS on. */
function jpegSegments(jpeg: Buffer): { segments: Buffer[]; rest: Buffer } {
  const segments: Buffer[] = [];
  let at = 2;
  while (jpeg[at + 1] !== 0xda) {
    const end = at + 2 + jpeg.readUInt16BE(at + 2);
    segments.push(jpeg.subarray(at, end));
    at = end;
  }
  return { segments, rest: jpeg.subarray(at) };
}

const SUPPORTED: Array<[name: string, mimeType: ImageFacts['mimeType'], width: number, height: number, frames: number]> = [
  ['baseline.jpg', 'image/jpeg', 320, 240, 1],
  ['progressive.jpg', 'image/jpeg', 80, 60, 1],
  ['restart.jpg', 'image/jpeg', 64, 40, 1],
  ['image.png', 'image/png', 50, 40, 1],
  ['still.gif', 'image/gif', 48, 32, 1],
  ['animated.gif', 'image/gif', 40, 30, 3],
  ['lossy.webp', 'image/webp', 64, 48, 1],
  ['lossless.webp', 'image/webp', 30, 20, 1],
  ['animated.webp', 'image/webp', 36, 24, 3],
  ['animated-trailing.webp', 'image/webp', 36, 24, 3],
];

/**
 * The bytes of a fixture that make up its image: all of them, but for the animated WEBP that ImageMagick 6 writes with a
 * stray still WEBP after its RIFF data, whose image is the RIFF data alone.
 */
function imageOf(name: string, bytes: Buffer): Buffer {
  return name.endsWith('-trailing.webp') ? bytes.subarray(0, 8 + bytes.readUInt32LE(4)) : bytes;
}

const CHUNKINGS: Array<[label: string, chunkSize: number | undefined]> = [
  ['one chunk', undefined],
  ['1-byte chunks', 1],
  ['7-byte chunks', 7],
  ['64 KiB chunks', 65_536],
];

describe('ImageInspector', () => {
  describe.each(SUPPORTED)('accepts %s', (name, mimeType, width, height, frames) => {
    it.each(CHUNKINGS)('fed in %s, passing the image on unchanged', async (_label, chunkSize) => {
      const bytes = fixture(name);
      const image = imageOf(name, bytes);
      expect(await inspect(bytes, chunkSize)).toEqual({
        facts: { mimeType, width, height, frames, size: image.length },
        passed: image,
      });
    });
  });

  describe('size limit', () => {
    it('accepts a PNG of exactly maxBytes', async () => {
      const bytes = png(64, 48, { padToBytes: MAX_BYTES });
      expect(bytes.length).toBe(MAX_BYTES);
      const outcome = await inspect(bytes, 65_536);
      expect(outcome.facts).toEqual({ mimeType: 'image/png', width: 64, height: 48, frames: 1, size: MAX_BYTES });
      expect(outcome.passed.length).toBe(MAX_BYTES);
    });

    it('refuses a PNG one byte over maxBytes as too-large when that byte arrives, and accepts it with a limit one higher', async () => {
      const bytes = png(64, 48, { padToBytes: MAX_BYTES + 1 });
      expect(bytes.length).toBe(MAX_BYTES + 1);
      // 80 chunks of 64 KiB are exactly maxBytes; the 81st, one byte, is refused.
      const refused = await inspect(bytes, 65_536);
      expect(refused.problem).toEqual({ kind: 'too-large', maxBytes: MAX_BYTES });
      expect(refused.passed.length).toBe(MAX_BYTES);
      const accepted = await inspect(bytes, 65_536, { ...LIMITS, maxBytes: MAX_BYTES + 1 });
      expect(accepted.facts).toEqual({ mimeType: 'image/png', width: 64, height: 48, frames: 1, size: MAX_BYTES + 1 });
    });

    it('does not pass on the chunk that goes past maxBytes', async () => {
      const outcome = await inspect(png(64, 48, { padToBytes: MAX_BYTES + 1 }), 100_000);
      expect(outcome.problem).toEqual({ kind: 'too-large', maxBytes: MAX_BYTES });
      expect(outcome.passed.length).toBe(5_200_000); // 52 whole chunks; the 53rd would reach 5,300,000
    });

    it('fails as soon as maxBytes is passed, without reading the rest of the upload', async () => {
      const bytes = png(64, 48, { padToBytes: 20_000_000 });
      let read = 0;
      const source = Readable.from(
        (function* () {
          for (const chunk of slices(bytes, 65_536)) {
            read += chunk.length;
            yield chunk;
          }
        })(),
      );
      const outcome = await run(source);
      expect(outcome.problem).toEqual({ kind: 'too-large', maxBytes: MAX_BYTES });
      // What the source had produced when the pipeline stopped: the limit plus the streams' read-ahead, nowhere near 20 MB.
      expect(read).toBeGreaterThan(MAX_BYTES);
      expect(read).toBeLessThan(MAX_BYTES + 32 * 65_536);
    });

    it('refuses an upload over maxBytes as too-large even when it is not an image, or a corrupt one', async () => {
      expect(await problemOf(noise(MAX_BYTES + 1, 'too-large'), 65_536)).toEqual({ kind: 'too-large', maxBytes: MAX_BYTES });
      const big = png(64, 48, { padToBytes: MAX_BYTES + 1 });
      const corrupt = flip(big, big.indexOf('IDAT') + 10);
      expect(await problemOf(corrupt, 65_536)).toEqual({ kind: 'too-large', maxBytes: MAX_BYTES });
    });
  });

  describe('dimensions', () => {
    it.each([
      [3, 10],
      [10, 3],
      [8193, 4],
      [4, 8193],
    ])('refuses a %ix%i PNG', async (width, height) => {
      expect(await problemOf(png(width, height))).toEqual({ kind: 'dimensions', width, height });
    });

    it.each([
      [4, 4],
      [8192, 4],
      [4, 8192],
    ])('accepts a %ix%i PNG', async (width, height) => {
      const bytes = png(width, height);
      expect((await inspect(bytes)).facts).toEqual({ mimeType: 'image/png', width, height, frames: 1, size: bytes.length });
    });

    it('measures a JPEG whose frame header directly follows SOI', async () => {
      const { segments, rest } = jpegSegments(fixture('baseline.jpg'));
      const frameHeader = segments.filter((segment) => segment[1] === 0xc0);
      const others = segments.filter((segment) => segment[1] !== 0xc0);
      expect(frameHeader).toHaveLength(1);
      const bytes = Buffer.concat([Buffer.from([0xff, 0xd8]), ...frameHeader, ...others, rest]);
      expect((await inspect(bytes, 7)).facts).toEqual({ mimeType: 'image/jpeg', width: 320, height: 240, frames: 1, size: bytes.length });
    });
  });

  describe('type recognition', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'image-inspector-'));
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    it('knows a PNG saved with a .jpg name as a PNG (the bytes decide, not the name)', async () => {
      const path = join(scratch, 'photo.jpg');
      writeFileSync(path, fixture('image.png'));
      const outcome = await run(createReadStream(path));
      expect(outcome.facts).toEqual({ mimeType: 'image/png', width: 50, height: 40, frames: 1, size: 4420 });
    });

    it.each([
      ['an SVG drawing', () => fixture('drawing.svg')],
      ['the first bytes of an MP4', () => fixture('video.mp4')],
      ['plain text', () => Buffer.from('This is not an image, only a few words of text.\n'.repeat(200))],
      ['a data: URI of a PNG', () => Buffer.from(`data:image/png;base64,${fixture('image.png').toString('base64')}`)],
      ['4 KiB of random bytes', () => noise(4096, 'small')],
      ['1 MB of random bytes', () => noise(1_000_000, 'large')],
      ['nothing at all', () => Buffer.alloc(0)],
    ])('refuses %s as unrecognized', async (_label, bytes) => {
      expect(await problemOf(bytes())).toEqual({ kind: 'unrecognized' });
    });

    it.each([
      ['image.bmp', 'image/bmp'],
      ['image.tiff', 'image/tiff'],
      ['image.avif', 'image/avif'],
    ])('refuses %s as unsupported-type %s, in one chunk or in 7-byte chunks', async (name, mimeType) => {
      expect(await problemOf(fixture(name))).toEqual({ kind: 'unsupported-type', mimeType });
      expect(await problemOf(fixture(name), 7)).toEqual({ kind: 'unsupported-type', mimeType });
    });

    it('refuses a truncated BMP as unsupported-type rather than corrupt', async () => {
      expect(await problemOf(truncate(fixture('image.bmp'), 100))).toEqual({ kind: 'unsupported-type', mimeType: 'image/bmp' });
    });

    it('accepts an APNG as a still image/png', async () => {
      const still = png(20, 10);
      const animationControl = Buffer.alloc(8);
      animationControl.writeUInt32BE(1, 0); // num_frames (num_plays stays 0)
      const ihdrEnd = 8 + 25;
      const bytes = Buffer.concat([still.subarray(0, ihdrEnd), pngChunk('acTL', animationControl), still.subarray(ihdrEnd)]);
      expect((await fileTypeFromBuffer(bytes))?.mime).toBe('image/apng');
      expect((await inspect(bytes)).facts).toEqual({ mimeType: 'image/png', width: 20, height: 10, frames: 1, size: bytes.length });
    });
  });

  describe('integrity', () => {
    const baseline = fixture('baseline.jpg');
    const imagePng = fixture('image.png');
    const lossy = fixture('lossy.webp');
    const corruptCases: Array<[label: string, bytes: () => Buffer, detail: string]> = [
      ['a JPEG cut in its entropy-coded data', () => truncate(baseline, 30_000), 'the file ends inside JPEG entropy-coded data'],
      ['a JPEG cut in its headers', () => truncate(baseline, 100), 'the file ends inside the JPEG FFDB segment'],
      ['a JPEG without its EOI marker', () => truncate(baseline, baseline.length - 2), 'the file ends inside JPEG entropy-coded data'],
      [
        'a progressive JPEG cut between two scans',
        () => {
          const progressive = fixture('progressive.jpg');
          // Cut just after the second scan's tables start: inside the DHT segment that follows the first scan's data.
          const secondTables = progressive.indexOf(Buffer.from([0xff, 0xc4]), progressive.indexOf(Buffer.from([0xff, 0xda])));
          return truncate(progressive, secondTables + 5);
        },
        'the file ends inside the JPEG FFC4 segment',
      ],
      [
        'an arithmetic-coded JPEG (SOF9)',
        () => {
          const bytes = Buffer.from(baseline);
          bytes[bytes.indexOf(Buffer.from([0xff, 0xc0])) + 1] = 0xc9;
          return bytes;
        },
        "the JPEG's frame header FFC9 is not a baseline, extended or progressive Huffman-coded frame",
      ],
      ['a truncated PNG', () => truncate(imagePng, 2000), 'the file ends inside the PNG IDAT chunk'],
      ['a PNG without IEND', () => truncate(imagePng, imagePng.length - 12), 'the file ends inside a PNG chunk header'],
      [
        'a PNG with one flipped byte in IDAT',
        () => flip(imagePng, imagePng.indexOf('IDAT') + 100),
        'the CRC of the PNG IDAT chunk does not match',
      ],
      ['a truncated GIF', () => truncate(fixture('still.gif'), 500), 'the file ends inside GIF image data'],
      ['a GIF without its trailer', () => truncate(fixture('animated.gif'), 1820), 'the file ends inside a GIF block'],
      ['a truncated WEBP', () => truncate(lossy, lossy.length - 10), 'the file ends inside the WEBP "VP8 " chunk'],
      ['a truncated animated WEBP', () => truncate(fixture('animated.webp'), 700), 'the file ends inside the WEBP "ANMF" chunk'],
      [
        'a WEBP whose RIFF size is smaller than its chunks',
        () => {
          const bytes = Buffer.from(lossy);
          bytes.writeUInt32LE(bytes.readUInt32LE(4) - 2, 4);
          return bytes;
        },
        'the WEBP "VP8 " chunk runs past the RIFF size',
      ],
      ['a 3x10 PNG cut short (corrupt before dimensions)', () => truncate(png(3, 10), 50), 'the file ends inside the PNG IDAT chunk'],
    ];

    it.each(corruptCases)('refuses %s as corrupt', async (_label, bytes, detail) => {
      expect(await problemOf(bytes())).toEqual({ kind: 'corrupt', detail });
      expect(await problemOf(bytes(), 7)).toEqual({ kind: 'corrupt', detail });
    });

    it('stops passing bytes on once the image is known to be corrupt', async () => {
      const big = png(64, 48, { padToBytes: 1_000_000 });
      const outcome = await inspect(flip(big, big.indexOf('IDAT') + 10), 65_536);
      expect(outcome.problem).toEqual({ kind: 'corrupt', detail: 'the CRC of the PNG IDAT chunk does not match' });
      expect(outcome.passed.length).toBe(65_536);
    });

    it.each([
      ['baseline.jpg', 'image/jpeg', 320, 240],
      ['image.png', 'image/png', 50, 40],
      ['animated.gif', 'image/gif', 40, 30],
    ] as const)('accepts %s with bytes after its end, and passes on the image alone', async (name, mimeType, width, height) => {
      const image = fixture(name);
      const bytes = Buffer.concat([image, Buffer.from('<html><script>alert(1)</script></html> after the end of the image')]);
      expect(await inspect(bytes, 7)).toEqual({
        facts: { mimeType, width, height, frames: name === 'animated.gif' ? 3 : 1, size: image.length },
        passed: image,
      });
    });

    it.each(CHUNKINGS)('accepts a JPEG with fill bytes (0xFF) before its markers, fed in %s', async (_label, chunkSize) => {
      // One fill byte after SOI, one in front of EOI at the end of the entropy-coded data.
      const end = baseline.length - 2;
      const fill = Buffer.from([0xff]);
      const bytes = Buffer.concat([baseline.subarray(0, 2), fill, baseline.subarray(2, end), fill, baseline.subarray(end)]);
      expect((await inspect(bytes, chunkSize)).facts).toEqual({
        mimeType: 'image/jpeg',
        width: 320,
        height: 240,
        frames: 1,
        size: bytes.length,
      });
    });

    it('walks 5 MB of JPEG entropy-coded data with stuffed bytes and restart markers', async () => {
      const { segments } = jpegSegments(baseline);
      const scanHeader = baseline.subarray(baseline.indexOf(Buffer.from([0xff, 0xda])));
      const scanHeaderEnd = 2 + scanHeader.readUInt16BE(2);
      const random = noise(4_900_000, 'entropy');
      const data = Buffer.alloc(random.length * 2);
      let length = 0;
      for (let at = 0; at < random.length; at += 1) {
        data[length++] = random[at]!;
        if (random[at] === 0xff) data[length++] = 0x00; // stuffing
        if (at % 100_000 === 99_999) {
          data[length++] = 0xff;
          data[length++] = 0xd0 + (Math.floor(at / 100_000) & 7); // RSTn
        }
      }
      const bytes = Buffer.concat([
        Buffer.from([0xff, 0xd8]),
        ...segments,
        scanHeader.subarray(0, scanHeaderEnd),
        data.subarray(0, length),
        Buffer.from([0xff, 0xd9]),
      ]);
      expect(bytes.length).toBeLessThanOrEqual(MAX_BYTES);
      for (const chunkSize of [65_536, 4099]) {
        expect((await inspect(bytes, chunkSize)).facts).toEqual({
          mimeType: 'image/jpeg',
          width: 320,
          height: 240,
          frames: 1,
          size: bytes.length,
        });
      }
    });
  });

  it('fails with an ImageRejectedError that carries the problem', async () => {
    const inspector = new ImageInspector(LIMITS);
    const failure = pipeline(Readable.from([fixture('image.bmp')]), inspector, new Writable({ write: (_c, _e, cb) => cb() }));
    await expect(failure).rejects.toThrow(ImageRejectedError);
    await expect(failure).rejects.toMatchObject({
      name: 'ImageRejectedError',
      message: 'image/bmp is not a supported image type',
      problem: { kind: 'unsupported-type', mimeType: 'image/bmp' },
    });
  });
});
