import fc from 'fast-check';
import { fixture, png, truncate } from '../image-fixtures.ts';

/**
 * multipart/form-data bodies written byte by byte, so that every way a client can get one wrong can be generated: parts
 * without a name or filename, duplicated parts, a boundary in the header that is not the one in the body, a body that
 * ends in the middle of a part (with or without its closing delimiter), preambles, odd part headers, and files that are
 * images, broken images, or not images at all.
 */

export interface PartModel {
  /** `null`: no name parameter at all. */
  name: string | null;
  /** `undefined`: a field; `null`: a file part without filename; a string: a file part with that filename. */
  filename?: string | null | undefined;
  contentType?: string | undefined;
  /** Extra header lines of the part (Content-Transfer-Encoding, duplicated Content-Disposition…). */
  extraHeaders?: string[];
  data: Buffer;
}

export interface MultipartModel {
  boundary: string;
  /** The boundary named in Content-Type (usually the same; sometimes another, missing or quoted). */
  headerBoundary: string | null;
  quoteBoundary: boolean;
  preamble: string;
  parts: PartModel[];
  /** 'close': the closing delimiter; 'open': the body just stops after the last part; 'cut': cut at `cutAt` of the bytes. */
  ending: 'close' | 'open' | 'cut';
  /** Fraction of the complete body kept when cut (0–1). */
  cutAt: number;
}

export function multipartContentType(model: MultipartModel): string {
  if (model.headerBoundary === null) return 'multipart/form-data';
  return `multipart/form-data; boundary=${model.quoteBoundary ? `"${model.headerBoundary}"` : model.headerBoundary}`;
}

export function multipartBytes(model: MultipartModel): Buffer {
  const chunks: Buffer[] = [];
  if (model.preamble) chunks.push(Buffer.from(`${model.preamble}\r\n`));
  for (const part of model.parts) {
    let disposition = 'Content-Disposition: form-data';
    if (part.name !== null) disposition += `; name="${part.name}"`;
    if (typeof part.filename === 'string') disposition += `; filename="${part.filename}"`;
    const headers = [
      disposition,
      ...(part.contentType !== undefined ? [`Content-Type: ${part.contentType}`] : []),
      ...(part.extraHeaders ?? []),
    ];
    chunks.push(Buffer.from(`--${model.boundary}\r\n${headers.join('\r\n')}\r\n\r\n`, 'utf8'), part.data, Buffer.from('\r\n'));
  }
  if (model.ending !== 'open') chunks.push(Buffer.from(`--${model.boundary}--\r\n`));
  const whole = Buffer.concat(chunks);
  if (model.ending !== 'cut') return whole;
  return whole.subarray(0, Math.floor(whole.length * model.cutAt));
}

/** Image and non-image file contents, small enough to generate by the thousand. */
export const FILE_CONTENTS = {
  png: () => png(8, 8),
  tinyPng: () => png(2, 2),
  truncatedPng: () => truncate(png(16, 16), 60),
  gif: () => fixture('still.gif'),
  jpeg: () => fixture('baseline.jpg'),
  svg: () => fixture('drawing.svg'),
  bmp: () => fixture('image.bmp'),
  mp4: () => fixture('video.mp4').subarray(0, 4096),
  text: () => Buffer.from('hello, this is not an image\n'),
  empty: () => Buffer.alloc(0),
  boundaryInside: () => Buffer.concat([png(8, 8).subarray(0, 30), Buffer.from('\r\n--fuzzboundary\r\n'), png(8, 8).subarray(30)]),
};

export type FileKind = keyof typeof FILE_CONTENTS;

export const fileBytes: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...(Object.keys(FILE_CONTENTS) as FileKind[])).map((kind) => FILE_CONTENTS[kind]()) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 2_000 }).map((bytes) => Buffer.from(bytes)) },
  {
    weight: 2,
    // A valid image with a few bytes changed: the integrity walk must refuse it, never crash on it.
    arbitrary: fc
      .tuple(
        fc.constantFrom<FileKind>('png', 'gif', 'jpeg'),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
      )
      .map(([kind, flips]) => {
        const bytes = Buffer.from(FILE_CONTENTS[kind]());
        for (const [at, value] of flips) bytes[at % bytes.length] = value;
        return bytes;
      }),
  },
);

const BOUNDARY = 'fuzzboundary';

/** A multipart body of `parts` with the usual framing, sometimes broken. */
export function multipartOf(parts: fc.Arbitrary<PartModel[]>): fc.Arbitrary<MultipartModel> {
  return fc
    .record({
      boundary: fc.oneof(
        { weight: 10, arbitrary: fc.constant(BOUNDARY) },
        { weight: 1, arbitrary: fc.constantFrom('a', '-', 'x'.repeat(70), 'x'.repeat(200), 'b o u n d', 'é') },
      ),
      // Usually the header names the body's boundary; sometimes none, an empty one, or another.
      headerMismatch: fc.oneof(
        { weight: 12, arbitrary: fc.constant<string | null | undefined>(undefined) },
        { weight: 1, arbitrary: fc.constantFrom<string | null | undefined>(null, '', 'other', `${BOUNDARY}x`, 'x'.repeat(200)) },
      ),
      quoteBoundary: fc.boolean(),
      preamble: fc.oneof(
        { weight: 8, arbitrary: fc.constant('') },
        { weight: 1, arbitrary: fc.constantFrom('preamble', '--', '\r\n', `--${BOUNDARY}--`) },
      ),
      parts,
      ending: fc.oneof(
        { weight: 16, arbitrary: fc.constant<MultipartModel['ending']>('close') },
        { weight: 1, arbitrary: fc.constant<MultipartModel['ending']>('open') },
        { weight: 2, arbitrary: fc.constant<MultipartModel['ending']>('cut') },
      ),
      cutAt: fc.double({ min: 0, max: 1, noNaN: true }),
    })
    .map(({ headerMismatch, ...model }): MultipartModel => ({
      ...model,
      headerBoundary: headerMismatch === undefined ? model.boundary : headerMismatch,
    }));
}

/** Headers a part may carry besides its disposition. */
export const partExtraHeaders: fc.Arbitrary<string[]> = fc.oneof(
  { weight: 10, arbitrary: fc.constant<string[]>([]) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<string[]>(
      ['Content-Transfer-Encoding: base64'],
      ['Content-Disposition: form-data; name="other"'],
      ['Content-Length: 1'],
      ['X: ' + 'y'.repeat(20_000)],
      ['Content-Type: text/plain; charset=utf-16'],
    ),
  },
);
