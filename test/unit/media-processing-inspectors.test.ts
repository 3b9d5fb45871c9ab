import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalBlobStore, type BlobStore } from '../../subgraphs/shared/media-store/blob-store.ts';
import {
  inspectAnimatedGif,
  inspectMp4,
  MAX_FTYP_BYTES,
  MAX_MOOV_BYTES,
  MAX_TOP_LEVEL_BOXES,
} from '../../subgraphs/media/chunked-upload/media-processing-inspectors.ts';
import { fixture } from '../support/image-fixtures.ts';
import { mp4AudioOnly, mp4Video } from '../support/video-fixtures.ts';

/** The bounded inspections behind processing_info, on blobs in a temporary blob store. */

let blobs: BlobStore;
beforeAll(async () => {
  blobs = await createLocalBlobStore(undefined);
});
afterAll(async () => {
  await blobs.close();
});

async function stored(bytes: Buffer): Promise<{ key: string; size: number }> {
  const { key, bytes: size } = await blobs.write(Readable.from([bytes]));
  return { key, size };
}

const mp4 = async (bytes: Buffer) => {
  const { key, size } = await stored(bytes);
  return inspectMp4(blobs, key, size);
};
const gif = async (bytes: Buffer) => {
  const { key, size } = await stored(bytes);
  return inspectAnimatedGif(blobs, key, size, { minDimension: 4, maxDimension: 8192 });
};

/** One ISO BMFF box. */
function box(type: string, payload: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + payload.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, payload]);
}

/** One ISO BMFF box with a 64-bit size (size 1, then the real size after the type). */
function largeBox(type: string, payload: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(16);
  header.writeUInt32BE(1, 0);
  header.write(type, 4, 'latin1');
  header.writeBigUInt64BE(BigInt(16 + payload.length), 8);
  return Buffer.concat([header, payload]);
}

/** The store, counting how often a blob is opened (a reader, or a stream of its bytes). */
function countingOpens(store: BlobStore): { blobs: BlobStore; opens: () => number } {
  let opens = 0;
  return {
    blobs: {
      ...store,
      read: (key, range) => {
        opens += 1;
        return store.read(key, range);
      },
      openReader: (key) => {
        opens += 1;
        return store.openReader(key);
      },
    },
    opens: () => opens,
  };
}

describe('inspectMp4', () => {
  it('finds the video track of a (fragmented) MP4: its size and samples', async () => {
    expect(await mp4(mp4Video({ width: 96, height: 64, frames: 4 }))).toEqual({
      ok: true,
      mimeType: 'video/mp4',
      width: 96,
      height: 64,
      frames: 4,
    });
  });

  it('walks boxes with 64-bit sizes', async () => {
    expect(await mp4(Buffer.concat([mp4Video({ frames: 2 }), largeBox('free', Buffer.alloc(5)), box('free')]))).toMatchObject({
      ok: true,
      frames: 2,
    });
  });

  it('opens the blob once for the box headers and once for ftyp and moov, however many boxes there are', async () => {
    const { key, size } = await stored(Buffer.concat([mp4Video(), ...Array<Buffer>(1_000).fill(box('free'))]));
    const counted = countingOpens(blobs);
    expect(await inspectMp4(counted.blobs, key, size)).toMatchObject({ ok: true });
    expect(counted.opens()).toBe(2);
  });

  it.each([
    ['an audio-only MP4', () => mp4AudioOnly(), 'UnsupportedMedia. The MP4 has no video track.'],
    ['a file that is not ISO BMFF', () => fixture('image.png'), 'CorruptMedia. Not a readable MP4 container: byte 0 does not start a box.'],
    [
      'a file cut inside a box',
      () => mp4Video().subarray(0, 700),
      'CorruptMedia. Not a readable MP4 container: box moof at byte 680 runs past the end of the file (truncated).',
    ],
    [
      'a file cut inside a 64-bit box header',
      () => Buffer.concat([box('ftyp', Buffer.from('isom\0\0\0\0')), largeBox('mdat').subarray(0, 12)]),
      'CorruptMedia. Not a readable MP4 container: the file ends inside a box header at byte 16.',
    ],
    [
      'boxes without ftyp first',
      () => Buffer.concat([box('free'), mp4Video()]),
      'UnsupportedMedia. Not an MP4 container: the file does not start with an ftyp box.',
    ],
    ['an MP4 without moov', () => fixture('video.mp4'), 'CorruptMedia. An MP4 has exactly one moov box, this file has 0.'],
    ['two moov boxes', () => Buffer.concat([mp4Video(), box('moov')]), 'CorruptMedia. An MP4 has exactly one moov box, this file has 2.'],
    [
      'no media data',
      () => Buffer.concat([box('ftyp', Buffer.from('isom\0\0\0\0')), box('moov')]),
      'CorruptMedia. The MP4 holds no media data (no mdat box).',
    ],
    [
      'a moov that is not one',
      () => Buffer.concat([box('ftyp', Buffer.from('isom\0\0\0\0')), box('moov', Buffer.alloc(64, 0xff)), box('mdat')]),
      'CorruptMedia. The MP4 could not be read: the movie description (moov) is broken.',
    ],
  ])('refuses %s', async (_name, bytes, message) => {
    const outcome = await mp4(bytes());
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.message).toBe(`Invalid or Unsupported media, Reason: ${message}`);
  });

  it(`refuses a moov larger than ${MAX_MOOV_BYTES} bytes without parsing it`, async () => {
    const outcome = await mp4(
      Buffer.concat([box('ftyp', Buffer.from('isom\0\0\0\0')), box('moov', Buffer.alloc(MAX_MOOV_BYTES)), box('mdat')]),
    );
    expect(outcome).toEqual({
      ok: false,
      message: `Invalid or Unsupported media, Reason: UnsupportedMedia. The moov box is larger than ${MAX_MOOV_BYTES} bytes.`,
    });
  });

  it(`refuses an ftyp larger than ${MAX_FTYP_BYTES} bytes without reading it`, async () => {
    const { key, size } = await stored(Buffer.concat([box('ftyp', Buffer.alloc(MAX_FTYP_BYTES - 7)), box('moov'), box('mdat')]));
    const counted = countingOpens(blobs);
    expect(await inspectMp4(counted.blobs, key, size)).toEqual({
      ok: false,
      message: `Invalid or Unsupported media, Reason: UnsupportedMedia. The ftyp box is larger than ${MAX_FTYP_BYTES} bytes.`,
    });
    expect(counted.opens()).toBe(1);
  });

  it(`stops walking after ${MAX_TOP_LEVEL_BOXES} top-level boxes, over one open blob`, async () => {
    const { key, size } = await stored(
      Buffer.concat([box('ftyp', Buffer.from('isom\0\0\0\0')), ...Array<Buffer>(MAX_TOP_LEVEL_BOXES).fill(box('free'))]),
    );
    const counted = countingOpens(blobs);
    expect(await inspectMp4(counted.blobs, key, size)).toEqual({
      ok: false,
      message: `Invalid or Unsupported media, Reason: CorruptMedia. Not a readable MP4 container: the file has more than ${MAX_TOP_LEVEL_BOXES} top-level boxes.`,
    });
    expect(counted.opens()).toBe(1);
  });
});

describe('inspectAnimatedGif', () => {
  it('reads the screen size and frames of an animated GIF', async () => {
    expect(await gif(fixture('animated.gif'))).toEqual({ ok: true, mimeType: 'image/gif', width: 40, height: 30, frames: 3 });
  });

  it('refuses what is not a GIF, a truncated GIF, and a GIF under 4x4', async () => {
    expect(await gif(fixture('image.png'))).toMatchObject({
      ok: false,
      message: expect.stringMatching(/Reason: UnsupportedMedia\. media_type image\/gif was announced/),
    });
    expect(await gif(fixture('animated.gif').subarray(0, 1000))).toMatchObject({
      ok: false,
      message: expect.stringMatching(/Reason: CorruptMedia\. The GIF could not be read/),
    });
    const tiny = Buffer.from(fixture('still.gif'));
    tiny.writeUInt16LE(3, 6);
    tiny.writeUInt16LE(3, 8);
    expect(await gif(tiny)).toEqual({
      ok: false,
      message: 'Invalid or Unsupported media, Reason: InvalidDimensions. GIF dimensions must be >= 4x4 and <= 8192x8192.',
    });
  });
});
