import { Transform, type TransformCallback } from 'node:stream';
import { crc32 } from 'node:zlib';
import { fileTypeFromBuffer } from 'file-type';
import { imageSize } from 'image-size';

/**
 * The streaming check of an uploaded image: `await pipeline(source, new ImageInspector(options), blobWriteStream)`.
 * Bytes pass through unchanged, in the chunks they came in; the upload is read once and never held whole. On the way
 * the inspector counts the bytes, recognises the file type from the first bytes, walks the file's structure (keeping only
 * small headers across chunk boundaries) and, once the last byte has arrived, measures the picture.
 *
 * Verdicts, in order of precedence: too-large > unrecognized / unsupported-type > corrupt > dimensions. Too-large is
 * given the moment it happens (the chunk that goes past `maxBytes` is not passed on). The others are held until the
 * end of the input: from the moment one is known nothing more is passed on, but the bytes are still counted, so an
 * upload that is both unrecognisable and too large is refused as too large (reading stays bounded by `maxBytes`).
 *
 * Decisions:
 * - The type comes from the bytes alone (file-type on the first 4100 bytes); there is no file name to trust.
 * - APNG (file-type's `image/apng`) is a valid PNG that every PNG decoder shows as its default image: it is accepted
 *   as `image/png` and reported as a still picture (frames 1), as for any PNG.
 * - Any other `image/*` type (BMP, TIFF, AVIF, HEIC, ICO, JPEG-LS, JPEG 2000, JPEG XL, PSD, raw camera files, …) is
 *   unsupported-type; anything not an image (text, SVG/XML, video, PDF, a `data:` URI, random bytes, nothing) is
 *   unrecognized. SVG is text to file-type and so unrecognized.
 * - JPEG: only the Huffman-coded DCT processes browsers decode are accepted (SOF0 baseline, SOF1 extended sequential,
 *   SOF2 progressive, 8-bit samples). A lossless, hierarchical or arithmetic-coded frame (SOF3, SOF5–7, SOF9–11,
 *   SOF13–15) or 12-bit samples are reported as corrupt: the file is a JPEG but cannot be decoded for display.
 *   Stray bytes between marker segments are corrupt too (decoders only warn about them).
 * - PNG: the first chunk must be a 13-byte IHDR (Apple's CgBI PNGs are refused), every chunk's CRC must match, an IDAT
 *   must come before IEND.
 * - GIF: at least one image descriptor; the 0x3B trailer must be reached.
 * - WEBP: the bytes must fill the RIFF size (a cut file is corrupt) and the chunks, each padded to an even length, must
 *   fill it exactly. The first chunk is VP8, VP8L or VP8X; a VP8X file with the animation flag needs ANMF frames, one
 *   without needs a VP8/VP8L chunk; the VP8/VP8L bitstream signature is checked.
 * - Bytes after PNG IEND, JPEG EOI, the GIF trailer and the end of the WEBP RIFF data are tolerated, as decoders do,
 *   but never stored or counted in `size`: they are not part of the picture, and they are where an HTML page or a ZIP
 *   archive rides along inside an "image" (a polyglot). The real service re-encodes what it receives; keeping the image
 *   up to its end is the byte-exact equivalent. (ImageMagick 6 writes animated WEBP files with a stray still WEBP after
 *   the RIFF data: what is kept is the animation, which is what libwebp and browsers show.)
 * - Dimensions come from image-size: for PNG, GIF and WEBP it reads the first 4100 bytes; for JPEG it reads SOI and
 *   the frame header (SOF) segment, which the walk keeps. Handing it the file's head instead would cost up to
 *   `maxBytes` of memory (APPn segments before the SOF can be that large) and would misreport valid files: image-size's
 *   own JPEG walk skips a SOF that directly follows SOI and stumbles on fill bytes between segments.
 */

export type SupportedImageType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

export interface ImageFacts {
  mimeType: SupportedImageType;
  width: number;
  height: number;
  /** 1 for still images; GIF image descriptors / WEBP ANMF frames */
  frames: number;
  /** Bytes of the image, up to its end; bytes after it are neither counted nor stored. */
  size: number;
}

export type ImageProblem =
  | { kind: 'too-large'; maxBytes: number }
  | { kind: 'unrecognized' }
  | { kind: 'unsupported-type'; mimeType: string }
  | { kind: 'corrupt'; detail: string }
  | { kind: 'dimensions'; width: number; height: number };

/** The error an {@link ImageInspector} fails with; `problem` says why the image was refused. */
export class ImageRejectedError extends Error {
  override readonly name = 'ImageRejectedError';
  readonly problem: ImageProblem;

  constructor(problem: ImageProblem) {
    super(describe(problem));
    this.problem = problem;
  }
}

export interface ImageInspectorOptions {
  /** Largest accepted upload in bytes; byte `maxBytes + 1` fails the transform at once. */
  maxBytes: number;
  /** Smallest accepted width and height, in pixels (inclusive). */
  minDimension: number;
  /** Largest accepted width and height, in pixels (inclusive). */
  maxDimension: number;
}

/** file-type's recommended sample: enough for every signature it knows. Also what image-size reads (but for JPEG). */
const SNIFF_BYTES = 4100;

const SUPPORTED: ReadonlySet<string> = new Set<SupportedImageType>(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** A pass-through Transform: bytes go through unchanged; it errors with ImageRejectedError; after it has flushed, `facts` is set. */
export class ImageInspector extends Transform {
  /** What the image is; set once the transform has flushed without error. */
  facts: ImageFacts | undefined;

  private readonly options: ImageInspectorOptions;
  private received = 0;
  /** Bytes passed on: the image up to its end (PNG IEND, JPEG EOI, GIF trailer, end of the WEBP RIFF data). */
  private kept = 0;
  /** Chunks that arrived before the type was known (at most SNIFF_BYTES plus one chunk). */
  private waiting: Buffer[] = [];
  private waitingBytes = 0;
  private sniffed = false;
  private mimeType: SupportedImageType | undefined;
  private walker: Walker | undefined;
  /** What image-size will read: the first SNIFF_BYTES, or for JPEG SOI and the frame header segment. */
  private head: Buffer | undefined;
  /** A verdict found before the end, given at the end unless the upload turns out too large. */
  private problem: ImageProblem | undefined;

  constructor(options: ImageInspectorOptions) {
    super();
    this.options = options;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.received += chunk.length;
    if (this.received > this.options.maxBytes) {
      callback(new ImageRejectedError({ kind: 'too-large', maxBytes: this.options.maxBytes }));
      return;
    }
    if (this.problem !== undefined) {
      callback();
      return;
    }
    if (this.sniffed) {
      this.pass(chunk, this.walk(chunk));
      callback();
      return;
    }
    this.waiting.push(chunk);
    this.waitingBytes += chunk.length;
    if (this.waitingBytes < SNIFF_BYTES) {
      callback();
      return;
    }
    this.sniff().then(() => callback(), callback);
  }

  override _flush(callback: TransformCallback): void {
    (this.sniffed ? Promise.resolve() : this.sniff()).then(() => {
      const problem = this.verdict();
      callback(problem === undefined ? null : new ImageRejectedError(problem));
    }, callback);
  }

  /** Recognises the type from the waiting chunks, then walks them. */
  private async sniff(): Promise<void> {
    this.sniffed = true;
    const waiting = this.waiting;
    this.waiting = [];
    const start = Buffer.concat(waiting, this.waitingBytes);
    const type = await fileTypeFromBuffer(start.subarray(0, SNIFF_BYTES)).catch(() => undefined);
    const mimeType = type?.mime === 'image/apng' ? 'image/png' : type?.mime;
    if (mimeType === undefined || !mimeType.startsWith('image/')) {
      this.problem = { kind: 'unrecognized' };
      return;
    }
    if (!SUPPORTED.has(mimeType)) {
      this.problem = { kind: 'unsupported-type', mimeType };
      return;
    }
    this.mimeType = mimeType as SupportedImageType;
    if (this.mimeType === 'image/jpeg') {
      // image-size skips the first segment after SOI: an empty comment segment takes that place.
      this.walker = new Walker(walkJpeg((frameHeader) => (this.head = Buffer.concat([JPEG_SOI_AND_EMPTY_COMMENT, frameHeader]))));
    } else {
      this.head = Buffer.from(start.subarray(0, SNIFF_BYTES));
      this.walker = new Walker(walkerFor(this.mimeType));
    }
    this.pass(start, this.walk(start));
  }

  /** Walks `bytes`; returns how many of them belong to the image (the rest follow its end). */
  private walk(bytes: Buffer): number {
    const walker = this.walker!;
    const inside = walker.feed(bytes);
    if (walker.problem !== undefined) this.problem = walker.problem;
    return inside;
  }

  /** Passes on the first `inside` bytes of `bytes`: what follows the image's end is never stored. */
  private pass(bytes: Buffer, inside: number): void {
    if (inside === 0) return;
    this.kept += inside;
    this.push(inside === bytes.length ? bytes : bytes.subarray(0, inside));
  }

  private verdict(): ImageProblem | undefined {
    if (this.problem !== undefined) return this.problem;
    const walker = this.walker!;
    const ending = walker.finish();
    if (ending !== undefined) return ending;
    let width: number;
    let height: number;
    try {
      ({ width, height } = imageSize(this.head!));
    } catch (error) {
      return { kind: 'corrupt', detail: `the dimensions cannot be read (${(error as Error).message})` };
    }
    const { minDimension, maxDimension } = this.options;
    if (width < minDimension || width > maxDimension || height < minDimension || height > maxDimension) {
      return { kind: 'dimensions', width, height };
    }
    this.facts = { mimeType: this.mimeType!, width, height, frames: walker.result!.frames, size: this.kept };
    return undefined;
  }
}

function describe(problem: ImageProblem): string {
  switch (problem.kind) {
    case 'too-large':
      return `the image is larger than ${problem.maxBytes} bytes`;
    case 'unrecognized':
      return 'the file is not a recognized image';
    case 'unsupported-type':
      return `${problem.mimeType} is not a supported image type`;
    case 'corrupt':
      return `the image is corrupt: ${problem.detail}`;
    case 'dimensions':
      return `the image's dimensions ${problem.width}x${problem.height} are out of bounds`;
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// The structure walk. A walker is a generator that yields what it needs next — "take n bytes" (handed back as one
// buffer), "skip n bytes" (optionally seeing each slice, for a CRC) or "scan JPEG entropy-coded data for the next
// marker" (handed back the marker code) — and returns the number of frames once the format's end has been reached.
// The driver (Walker) feeds it chunk by chunk; it keeps at most one pending `take` buffer between chunks.

type Need =
  | { readonly op: 'take'; readonly n: number; readonly what: string }
  | { readonly op: 'skip'; readonly n: number; readonly what: string; readonly each?: ((bytes: Buffer) => void) | undefined }
  | { readonly op: 'scan'; readonly what: string };

/** How a walk ended. */
interface WalkEnd {
  frames: number;
}

type Walk<T> = Generator<Need, T, Buffer | number | undefined>;

/** Thrown inside a walker: the structure is broken. */
class Broken extends Error {}

function* take(n: number, what: string): Walk<Buffer> {
  return (yield { op: 'take', n, what }) as Buffer;
}

function* skip(n: number, what: string, each?: (bytes: Buffer) => void): Walk<void> {
  yield { op: 'skip', n, what, each };
}

function* scanForMarker(what: string): Walk<number> {
  return (yield { op: 'scan', what }) as number;
}

function walkerFor(mimeType: Exclude<SupportedImageType, 'image/jpeg'>): Walk<WalkEnd> {
  switch (mimeType) {
    case 'image/png':
      return walkPng();
    case 'image/gif':
      return walkGif();
    case 'image/webp':
      return walkWebp();
  }
}

const EMPTY = Buffer.alloc(0);

/** Drives a walker over the chunks of a stream. */
class Walker {
  result: WalkEnd | undefined;
  problem: ImageProblem | undefined;

  private readonly steps: Walk<WalkEnd>;
  private need: Need | undefined;
  /** The partly filled buffer of a `take` that spans chunks. */
  private taking: Buffer | undefined;
  private filled = 0;
  private skipLeft = 0;
  /** The scan has just read an 0xFF; the byte after it (perhaps in the next chunk) says what it was. */
  private afterFF = false;

  constructor(steps: Walk<WalkEnd>) {
    this.steps = steps;
    this.resume(undefined);
  }

  /** Walks `chunk`; returns how many of its bytes came before the end of the image (all of them while it goes on). */
  feed(chunk: Buffer): number {
    let at = 0;
    while (at < chunk.length && this.problem === undefined) {
      const need = this.need;
      if (need === undefined) return at; // the walk has ended: what follows is not part of the image
      if (need.op === 'take') {
        if (this.filled === 0 && chunk.length - at >= need.n) {
          at += need.n;
          this.resume(chunk.subarray(at - need.n, at));
          continue;
        }
        this.taking ??= Buffer.alloc(need.n);
        const n = Math.min(need.n - this.filled, chunk.length - at);
        chunk.copy(this.taking, this.filled, at, at + n);
        this.filled += n;
        at += n;
        if (this.filled === need.n) {
          const taken = this.taking;
          this.taking = undefined;
          this.filled = 0;
          this.resume(taken);
        }
      } else if (need.op === 'skip') {
        const n = Math.min(this.skipLeft, chunk.length - at);
        need.each?.(chunk.subarray(at, at + n));
        this.skipLeft -= n;
        at += n;
        if (this.skipLeft === 0) {
          this.resume(undefined);
        }
      } else if (this.afterFF) {
        const code = chunk[at]!;
        at += 1;
        if (code === 0xff) continue; // a fill byte: the marker code is still to come
        this.afterFF = false;
        if (code === 0x00 || (code >= 0xd0 && code <= 0xd7)) continue; // stuffed 0xFF, or a restart marker
        this.resume(code);
      } else {
        const ff = chunk.indexOf(0xff, at);
        if (ff === -1) {
          at = chunk.length;
        } else {
          at = ff + 1;
          this.afterFF = true;
        }
      }
    }
    // The walk may have ended on this chunk's last byte.
    return this.need === undefined && this.problem === undefined ? at : chunk.length;
  }

  /** At the end of the input: the verdict of the walk, if it is not a success. */
  finish(): ImageProblem | undefined {
    if (this.problem !== undefined) return this.problem;
    if (this.need !== undefined) return corrupt(`the file ends inside ${this.need.what}`);
    return undefined;
  }

  private resume(value: Buffer | number | undefined): void {
    try {
      let next = this.steps.next(value);
      // Empty takes and skips are answered at once, so that `need` always waits for at least one byte.
      while (!next.done && next.value.op !== 'scan' && next.value.n === 0) {
        next = this.steps.next(next.value.op === 'take' ? EMPTY : undefined);
      }
      if (next.done) {
        this.need = undefined;
        this.result = next.value;
        return;
      }
      this.need = next.value;
      if (next.value.op === 'skip') this.skipLeft = next.value.n;
      if (next.value.op === 'scan') this.afterFF = false;
    } catch (error) {
      if (!(error instanceof Broken)) throw error;
      this.need = undefined;
      this.problem = corrupt(error.message);
    }
  }
}

function corrupt(detail: string): ImageProblem {
  return { kind: 'corrupt', detail };
}

// --- PNG --------------------------------------------------------------------------------------------------------------

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function* walkPng(): Walk<WalkEnd> {
  if (!(yield* take(8, 'the PNG signature')).equals(PNG_SIGNATURE)) throw new Broken('the PNG signature is wrong');
  let first = true;
  let sawImageData = false;
  for (;;) {
    const header = yield* take(8, 'a PNG chunk header');
    const length = header.readUInt32BE(0);
    const typeBytes = header.subarray(4, 8);
    const type = typeBytes.toString('latin1');
    if (!/^[A-Za-z]{4}$/.test(type)) throw new Broken(`a PNG chunk type is not four letters (${JSON.stringify(type)})`);
    if (length > 0x7fffffff) throw new Broken(`the PNG ${type} chunk's length is out of range`);
    if (first !== (type === 'IHDR')) throw new Broken(first ? 'the first PNG chunk is not IHDR' : 'the PNG has a second IHDR');
    if (type === 'IHDR' && length !== 13) throw new Broken('the PNG IHDR chunk is not 13 bytes long');
    if (type === 'IEND' && length !== 0) throw new Broken('the PNG IEND chunk is not empty');
    first = false;
    let crc = crc32(typeBytes);
    yield* skip(length, `the PNG ${type} chunk`, (bytes) => {
      crc = crc32(bytes, crc);
    });
    if ((yield* take(4, `the CRC of the PNG ${type} chunk`)).readUInt32BE(0) !== crc) {
      throw new Broken(`the CRC of the PNG ${type} chunk does not match`);
    }
    if (type === 'IDAT') sawImageData = true;
    if (type === 'IEND') {
      if (!sawImageData) throw new Broken('the PNG has no IDAT chunk');
      return { frames: 1 };
    }
  }
}

// --- JPEG -------------------------------------------------------------------------------------------------------------

const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
/** Frame headers: SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC). */
const FRAME_HEADERS: ReadonlySet<number> = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);
/** Baseline, extended sequential and progressive Huffman-coded DCT: what browsers decode. */
const DECODABLE_FRAME_HEADERS: ReadonlySet<number> = new Set([0xc0, 0xc1, 0xc2]);
const JPEG_SOI_AND_EMPTY_COMMENT = Buffer.from([0xff, 0xd8, 0xff, 0xfe, 0x00, 0x02]);

const markerName = (code: number): string => `FF${code.toString(16).toUpperCase().padStart(2, '0')}`;

/** Walks a JPEG; `onFrameHeader` gets the frame header segment (marker, length and body). */
function* walkJpeg(onFrameHeader: (segment: Buffer) => void): Walk<WalkEnd> {
  const soi = yield* take(2, 'the JPEG SOI marker');
  if (soi[0] !== 0xff || soi[1] !== SOI) throw new Broken('the JPEG does not start with SOI');
  let frame = false;
  let scans = 0;
  let marker = yield* readMarker();
  for (;;) {
    if (marker === EOI) {
      if (!frame) throw new Broken('the JPEG has no frame header (SOF)');
      if (scans === 0) throw new Broken('the JPEG has no scan (SOS)');
      return { frames: 1 };
    }
    if (marker === SOI) throw new Broken('the JPEG has a second SOI marker');
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      marker = yield* readMarker(); // TEM and RSTn stand alone, without a length
      continue;
    }
    const lengthBytes = yield* take(2, `the length of the JPEG ${markerName(marker)} segment`);
    const length = lengthBytes.readUInt16BE(0);
    if (length < 2) throw new Broken(`the JPEG ${markerName(marker)} segment's length is less than 2`);
    if (FRAME_HEADERS.has(marker)) {
      if (frame) throw new Broken('the JPEG has a second frame header');
      if (!DECODABLE_FRAME_HEADERS.has(marker)) {
        throw new Broken(`the JPEG's frame header ${markerName(marker)} is not a baseline, extended or progressive Huffman-coded frame`);
      }
      const body = yield* take(length - 2, 'the JPEG frame header');
      if (body.length < 6 || body.length !== 6 + 3 * body[5]!) throw new Broken('the JPEG frame header has the wrong length');
      if (body[0] !== 8) throw new Broken(`the JPEG has ${body[0]}-bit samples`);
      frame = true;
      onFrameHeader(Buffer.concat([Buffer.from([0xff, marker]), lengthBytes, body]));
      marker = yield* readMarker();
    } else if (marker === SOS) {
      if (!frame) throw new Broken('the JPEG has a scan before its frame header');
      yield* skip(length - 2, 'a JPEG scan header');
      scans += 1;
      marker = yield* scanForMarker('JPEG entropy-coded data');
    } else {
      yield* skip(length - 2, `the JPEG ${markerName(marker)} segment`);
      marker = yield* readMarker();
    }
  }
}

/** Reads a marker between segments: 0xFF, any fill 0xFFs, then the code. */
function* readMarker(): Walk<number> {
  const first = (yield* take(1, 'a JPEG marker'))[0]!;
  if (first !== 0xff) throw new Broken(`a JPEG marker was expected, found 0x${first.toString(16).padStart(2, '0')}`);
  let code = 0xff;
  while (code === 0xff) code = (yield* take(1, 'a JPEG marker'))[0]!; // 0xFF before the code is fill
  if (code === 0x00) throw new Broken('a JPEG marker was expected, found FF00');
  return code;
}

// --- GIF --------------------------------------------------------------------------------------------------------------

const colourTableBytes = (packed: number): number => 3 * 2 ** ((packed & 0x07) + 1);

function* walkGif(): Walk<WalkEnd> {
  const header = yield* take(13, 'the GIF header'); // signature and version, then the logical screen descriptor
  const signature = header.toString('latin1', 0, 6);
  if (signature !== 'GIF87a' && signature !== 'GIF89a') throw new Broken('the GIF signature is wrong');
  if (header[10]! & 0x80) yield* skip(colourTableBytes(header[10]!), 'the GIF global colour table');
  let images = 0;
  for (;;) {
    const introducer = (yield* take(1, 'a GIF block'))[0]!;
    if (introducer === 0x2c) {
      const descriptor = yield* take(9, 'a GIF image descriptor');
      images += 1;
      if (descriptor[8]! & 0x80) yield* skip(colourTableBytes(descriptor[8]!), 'a GIF local colour table');
      yield* take(1, 'a GIF LZW code size');
      yield* subBlocks('GIF image data');
    } else if (introducer === 0x21) {
      yield* take(1, 'a GIF extension label');
      yield* subBlocks('a GIF extension');
    } else if (introducer === 0x3b) {
      if (images === 0) throw new Broken('the GIF has no image');
      return { frames: images };
    } else {
      throw new Broken(`unknown GIF block 0x${introducer.toString(16).padStart(2, '0')}`);
    }
  }
}

function* subBlocks(what: string): Walk<void> {
  for (;;) {
    const size = (yield* take(1, what))[0]!;
    if (size === 0) return;
    yield* skip(size, what);
  }
}

// --- WEBP -------------------------------------------------------------------------------------------------------------

function* walkWebp(): Walk<WalkEnd> {
  const header = yield* take(12, 'the RIFF header');
  if (header.toString('latin1', 0, 4) !== 'RIFF' || header.toString('latin1', 8, 12) !== 'WEBP') {
    throw new Broken('the RIFF/WEBP header is wrong');
  }
  let left = header.readUInt32LE(4) - 4; // bytes of chunks the RIFF size announces after "WEBP"
  if (left < 8) throw new Broken('the RIFF size leaves no room for a chunk');
  let first = true;
  let animated = false;
  let image = false;
  let frames = 0;
  while (left > 0) {
    if (left < 8) throw new Broken('the RIFF size ends inside a chunk header');
    const chunkHeader = yield* take(8, 'a WEBP chunk header');
    const fourcc = chunkHeader.toString('latin1', 0, 4);
    const size = chunkHeader.readUInt32LE(4);
    const padded = size + (size & 1);
    left -= 8;
    if (padded > left) throw new Broken(`the WEBP ${JSON.stringify(fourcc)} chunk runs past the RIFF size`);
    left -= padded;
    const what = `the WEBP ${JSON.stringify(fourcc)} chunk`;
    if (first && fourcc !== 'VP8X' && fourcc !== 'VP8 ' && fourcc !== 'VP8L') {
      throw new Broken('the first WEBP chunk is not VP8, VP8L or VP8X');
    }
    let seen = 0;
    if (first && fourcc === 'VP8X') {
      if (size < 10) throw new Broken('the WEBP VP8X chunk is too short');
      animated = ((yield* take(10, what))[0]! & 0x02) !== 0;
      seen = 10;
    } else if (fourcc === 'VP8 ') {
      // A key frame's tag (3 bytes) is followed by the start code 9D 01 2A and the dimensions.
      const start = size >= 10 ? yield* take(10, what) : EMPTY;
      if (start.length < 10 || start[3] !== 0x9d || start[4] !== 0x01 || start[5] !== 0x2a) {
        throw new Broken('the WEBP VP8 bitstream has no key frame start code');
      }
      image = true;
      seen = 10;
    } else if (fourcc === 'VP8L') {
      const start = size >= 5 ? yield* take(5, what) : EMPTY;
      if (start.length < 5 || start[0] !== 0x2f) throw new Broken('the WEBP VP8L bitstream has no signature');
      image = true;
      seen = 5;
    } else if (fourcc === 'ANMF') {
      frames += 1;
    }
    first = false;
    yield* skip(padded - seen, what);
  }
  if (animated) {
    if (frames === 0) throw new Broken('the animated WEBP has no ANMF frame');
    return { frames };
  }
  if (!image) throw new Broken('the WEBP has no VP8 or VP8L image chunk');
  return { frames: 1 };
}
