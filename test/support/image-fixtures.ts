import { readFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';

/**
 * Image bytes for tests: the committed files in test/fixtures/images/ (see its README for how each was made) and
 * builders for PNGs of any size, made here in JS.
 */

const FIXTURES = new URL('../fixtures/images/', import.meta.url);
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** A private, ancillary, safe-to-copy chunk type: decoders skip it. */
const PADDING_CHUNK = 'paDd';

/** The bytes of test/fixtures/images/<name>. */
export function fixture(name: string): Buffer {
  return readFileSync(new URL(name, FIXTURES));
}

/** One PNG chunk: length, type, data and CRC. */
export function pngChunk(type: string, data: Buffer = Buffer.alloc(0)): Buffer {
  if (!/^[A-Za-z]{4}$/.test(type)) throw new RangeError(`not a PNG chunk type: ${type}`);
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write(type, 4, 'latin1');
  data.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  return chunk;
}

/**
 * A valid 8-bit RGB PNG of `width` × `height` with a deterministic pattern: signature, IHDR, IDAT, IEND. With
 * `padToBytes`, a private ancillary chunk before IEND makes the file exactly that many bytes (at least 12 more than the
 * unpadded file, the size of an empty chunk).
 */
export function png(width: number, height: number, options: { padToBytes?: number } = {}): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB (compression, filter and interlace methods stay 0)
  const stride = 1 + width * 3;
  const pixels = Buffer.alloc(stride * height); // each row starts with filter type 0 (None)
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const at = y * stride + 1 + x * 3;
      pixels[at] = (x * 7 + y * 3) & 0xff;
      pixels[at + 1] = (x * 2 + y * 11) & 0xff;
      pixels[at + 2] = (x ^ y) & 0xff;
    }
  }
  const parts = [PNG_SIGNATURE, pngChunk('IHDR', header), pngChunk('IDAT', deflateSync(pixels))];
  const end = pngChunk('IEND');
  if (options.padToBytes !== undefined) {
    const unpadded = parts.reduce((sum, part) => sum + part.length, end.length);
    const padding = options.padToBytes - unpadded - 12;
    if (padding < 0) throw new RangeError(`a ${width}x${height} PNG needs at least ${unpadded + 12} bytes to be padded`);
    parts.push(pngChunk(PADDING_CHUNK, Buffer.alloc(padding)));
  }
  parts.push(end);
  return Buffer.concat(parts);
}

/** The first `keepBytes` bytes of `buffer`, as a copy. */
export function truncate(buffer: Buffer, keepBytes: number): Buffer {
  if (!Number.isInteger(keepBytes) || keepBytes < 0 || keepBytes > buffer.length) {
    throw new RangeError(`cannot keep ${keepBytes} of ${buffer.length} bytes`);
  }
  return Buffer.from(buffer.subarray(0, keepBytes));
}
