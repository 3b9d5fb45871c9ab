import { createFile, MP4BoxBuffer, type Movie } from 'mp4box';
import omggif from 'omggif';
import type { BlobReader, BlobStore } from '../../shared/media-store/blob-store.ts';

/**
 * The inspections behind processing_info: an animated GIF read by omggif, an MP4 read by mp4box. Both are bounded: a
 * GIF is at most the tweet_gif limit (15 MB) and is read whole; an MP4 of any size has only its top-level box headers,
 * its `ftyp` box (bounded by MAX_FTYP_BYTES) and its `moov` box (the movie's description, bounded by MAX_MOOV_BYTES)
 * read, never its media data.
 */

/** What inspection found, or why the media cannot be used (the message of processing_info.error). */
export type InspectionOutcome =
  { ok: true; mimeType: string; width: number; height: number; frames: number } | { ok: false; message: string };

/** A moov box larger than this is refused (real movies' descriptions are kilobytes to a few megabytes). */
export const MAX_MOOV_BYTES = 16 * 1024 * 1024;
/** An ftyp box larger than this is refused (a real one is a brand list of tens of bytes); it is read whole for mp4box. */
export const MAX_FTYP_BYTES = 64 * 1024;
/** Top-level boxes walked at most (a fragmented MP4 has two per fragment). */
export const MAX_TOP_LEVEL_BOXES = 20_000;

const GIF_SIGNATURES = ['GIF87a', 'GIF89a'];

/** Runs `use` on the blob opened once (one file handle, one stream), and closes it whatever happens. */
async function withReader<T>(blobs: BlobStore, key: string, use: (reader: BlobReader) => Promise<T>): Promise<T> {
  const reader = await blobs.openReader(key);
  try {
    return await use(reader);
  } finally {
    await reader.close();
  }
}

/** An animated (or still) GIF: its structure walked by omggif, every frame inside the logical screen. */
export async function inspectAnimatedGif(
  blobs: BlobStore,
  key: string,
  size: number,
  bounds: { minDimension: number; maxDimension: number },
): Promise<InspectionOutcome> {
  const bytes = await withReader(blobs, key, (reader) => reader.read(size));
  if (!GIF_SIGNATURES.includes(bytes.subarray(0, 6).toString('latin1'))) {
    return {
      ok: false,
      message: 'Invalid or Unsupported media, Reason: UnsupportedMedia. media_type image/gif was announced but the file is not a GIF.',
    };
  }
  let reader: omggif.GifReader;
  try {
    reader = new omggif.GifReader(bytes);
  } catch (error) {
    return {
      ok: false,
      message: `Invalid or Unsupported media, Reason: CorruptMedia. The GIF could not be read: ${(error as Error).message}.`,
    };
  }
  const { width, height } = reader;
  if ([width, height].some((side) => side < bounds.minDimension || side > bounds.maxDimension)) {
    return {
      ok: false,
      message: `Invalid or Unsupported media, Reason: InvalidDimensions. GIF dimensions must be >= ${bounds.minDimension}x${bounds.minDimension} and <= ${bounds.maxDimension}x${bounds.maxDimension}.`,
    };
  }
  const frames = reader.numFrames();
  if (frames < 1) return { ok: false, message: 'Invalid or Unsupported media, Reason: CorruptMedia. The GIF has no frames.' };
  for (let index = 0; index < frames; index += 1) {
    const frame = reader.frameInfo(index);
    if (frame.x + frame.width > width || frame.y + frame.height > height || frame.data_offset + frame.data_length > bytes.length) {
      return {
        ok: false,
        message: `Invalid or Unsupported media, Reason: CorruptMedia. Frame ${index} of the GIF lies outside the image.`,
      };
    }
  }
  return { ok: true, mimeType: 'image/gif', width, height, frames };
}

interface TopLevelBox {
  type: string;
  start: number;
  size: number;
}

/**
 * Top-level ISO BMFF boxes, from their headers alone, read front to back over one reader (each box's body is skipped,
 * never read); a string when the structure is broken.
 */
async function topLevelBoxes(reader: BlobReader, size: number): Promise<TopLevelBox[] | string> {
  const boxes: TopLevelBox[] = [];
  let at = 0;
  while (at < size) {
    if (boxes.length >= MAX_TOP_LEVEL_BOXES) return `the file has more than ${MAX_TOP_LEVEL_BOXES} top-level boxes`;
    if (size - at < 8) return `the file ends inside a box header at byte ${at}`;
    // Only the 8 bytes every header has: a box may be just those, and the reader does not go back.
    const header = await reader.read(8);
    let boxSize = header.readUInt32BE(0);
    const type = header.subarray(4, 8).toString('latin1');
    if (!/^[\x20-\x7e]{4}$/.test(type)) return `byte ${at} does not start a box`;
    let headerSize = 8;
    if (boxSize === 1) {
      const largeSize = size - at < 16 ? Buffer.alloc(0) : await reader.read(8);
      if (largeSize.length < 8) return `the file ends inside a box header at byte ${at}`;
      const large = largeSize.readBigUInt64BE(0);
      if (large > BigInt(Number.MAX_SAFE_INTEGER)) return `box ${type} at byte ${at} is too large`;
      boxSize = Number(large);
      headerSize = 16;
    } else if (boxSize === 0) {
      boxSize = size - at;
    }
    if (boxSize < headerSize) return `box ${type} at byte ${at} has an impossible size`;
    if (at + boxSize > size) return `box ${type} at byte ${at} runs past the end of the file (truncated)`;
    boxes.push({ type, start: at, size: boxSize });
    reader.skip(boxSize - headerSize);
    at += boxSize;
  }
  return boxes;
}

/**
 * An MP4 (ISO BMFF) container with a video track: `ftyp` first, every top-level box whole, one `moov` (parsed by
 * mp4box), media data present (`mdat`), and a video track with a size and samples (in moov, or in fragments for a
 * fragmented MP4). The media data itself is not decoded.
 */
export async function inspectMp4(blobs: BlobStore, key: string, size: number): Promise<InspectionOutcome> {
  const fail = (reason: string, detail: string): InspectionOutcome => ({
    ok: false,
    message: `Invalid or Unsupported media, Reason: ${reason}. ${detail}.`,
  });
  const boxes = await withReader(blobs, key, (reader) => topLevelBoxes(reader, size));
  if (typeof boxes === 'string') return fail('CorruptMedia', `Not a readable MP4 container: ${boxes}`);
  if (boxes[0]?.type !== 'ftyp') return fail('UnsupportedMedia', 'Not an MP4 container: the file does not start with an ftyp box');
  const moovs = boxes.filter((box) => box.type === 'moov');
  if (moovs.length !== 1) return fail('CorruptMedia', `An MP4 has exactly one moov box, this file has ${moovs.length}`);
  const moov = moovs[0]!;
  if (moov.size > MAX_MOOV_BYTES) return fail('UnsupportedMedia', `The moov box is larger than ${MAX_MOOV_BYTES} bytes`);
  if (boxes[0].size > MAX_FTYP_BYTES) return fail('UnsupportedMedia', `The ftyp box is larger than ${MAX_FTYP_BYTES} bytes`);
  if (!boxes.some((box) => box.type === 'mdat')) return fail('CorruptMedia', 'The MP4 holds no media data (no mdat box)');

  const movie = await new Promise<Movie | string>((resolve) => {
    const file = createFile();
    let settled = false;
    const settle = (value: Movie | string) => {
      if (!settled) resolve(value);
      settled = true;
    };
    file.onError = (module, message) => settle(`${module}: ${message}`);
    file.onReady = (info) => settle(info);
    void (async () => {
      try {
        // ftyp comes first and moov after it: one reader, front to back, skipping what lies between.
        await withReader(blobs, key, async (reader) => {
          for (const box of [boxes[0]!, moov]) {
            reader.skip(box.start - reader.position);
            const bytes = await reader.read(box.size);
            file.appendBuffer(
              MP4BoxBuffer.fromArrayBuffer(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length), box.start),
            );
          }
          file.flush();
        });
        settle('the movie description (moov) could not be read');
      } catch {
        // mp4box throws its own internals' errors at a broken moov; the client gets what is wrong, not them.
        settle('the movie description (moov) is broken');
      }
    })();
  });
  if (typeof movie === 'string') return fail('CorruptMedia', `The MP4 could not be read: ${movie}`);
  const track = movie.videoTracks.find((candidate) => (candidate.video?.width ?? 0) > 0 && (candidate.video?.height ?? 0) > 0);
  if (!track) return fail('UnsupportedMedia', 'The MP4 has no video track');
  // A fragmented MP4 describes its samples in its fragments (moof), not in moov.
  const fragments = boxes.filter((box) => box.type === 'moof').length;
  if (track.nb_samples < 1 && fragments === 0) return fail('CorruptMedia', 'The video track has no samples');
  return { ok: true, mimeType: 'video/mp4', width: track.video!.width, height: track.video!.height, frames: track.nb_samples || fragments };
}
