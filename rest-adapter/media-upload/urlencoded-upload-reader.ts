import type { Readable } from 'node:stream';

/**
 * Reads an application/x-www-form-urlencoded upload body as it streams. Every parameter but `media_data` is small and
 * kept whole (up to `fieldBytes`); `media_data`, the image in base64, is percent-decoded on the fly and kept only up to
 * the length of base64 that can still decode to an acceptable image plus one byte. A longer value is cut there: the
 * service then sees an image one byte too large and refuses it in its own words, and the rest of the body is read and
 * thrown away (so the reply can be read on a kept-alive connection) without being held in memory.
 *
 * Why not URLSearchParams over the whole body: an urlencoded body escapes base64's "+" and "/" as %2B and %2F, so a
 * body holding an acceptable image can be up to three times its base64 length; holding all of it to parse it at once
 * would make the largest body, not the largest image, the memory bound.
 */

export interface UrlencodedUpload {
  /** Every parameter but the first `media_data`, in body order, decoded. */
  params: [string, string][];
  /** The first `media_data`, percent-decoded (its spaces are "+" signs the client left unescaped), or undefined. */
  mediaData: string | undefined;
  /** True when `media_data` was longer than `mediaDataChars` significant characters and was cut there. */
  mediaDataCut: boolean;
}

export class UrlencodedBodyError extends Error {}

export interface UrlencodedLimits {
  /** Significant characters (all but line breaks and tabs) of media_data kept; more means the image is too large. */
  mediaDataChars: number;
  /** Largest encoded name or value of any other parameter. */
  fieldBytes: number;
  /** Most parameters. */
  fields: number;
}

const AMPERSAND = 0x26;
const EQUALS = 0x3d;
const PERCENT = 0x25;
const PLUS = 0x2b;
const SPACE = 0x20;

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/** Decodes one form-encoded name or value (`+` is a space; bad escapes stay as they are, as URLSearchParams does). */
function decodeComponent(bytes: Buffer): string {
  return new URLSearchParams(`a=${bytes.toString('latin1')}`).get('a') ?? '';
}

/** Percent-decodes media_data as it arrives, across chunk boundaries, counting what it keeps. */
class MediaDataDecoder {
  private readonly kept: Buffer[] = [];
  private significant = 0;
  /** Bytes of an escape split across chunks (`%` or `%4`). */
  private escape: number[] = [];
  cut = false;

  constructor(private readonly limit: number) {}

  write(bytes: Buffer): void {
    if (this.cut) return;
    const out = Buffer.allocUnsafe(bytes.length + this.escape.length);
    let length = 0;
    const emit = (byte: number) => {
      // Line breaks and tabs are ignored by the base64 decoder; everything else counts towards the image's size.
      if (byte !== 0x0a && byte !== 0x0d && byte !== 0x09) {
        if (this.significant === this.limit) {
          this.cut = true;
          return false;
        }
        this.significant++;
      }
      out[length++] = byte;
      return true;
    };
    for (const byte of bytes) {
      if (this.escape.length > 0) {
        this.escape.push(byte);
        if (this.escape.length < 3) continue;
        const [, high, low] = this.escape as [number, number, number];
        const value = hexValue(high) >= 0 && hexValue(low) >= 0 ? hexValue(high) * 16 + hexValue(low) : -1;
        const decoded = value >= 0 ? [value] : this.escape;
        this.escape = [];
        if (!decoded.every(emit)) break;
        continue;
      }
      if (byte === PERCENT) {
        this.escape = [byte];
        continue;
      }
      if (!emit(byte === PLUS ? SPACE : byte)) break;
    }
    this.kept.push(out.subarray(0, length));
  }

  end(): string {
    // A dangling `%` or `%4` at the very end stays as it was sent (the service then finds the value is not base64).
    if (!this.cut) this.kept.push(Buffer.from(this.escape));
    this.escape = [];
    return Buffer.concat(this.kept).toString('latin1');
  }
}

/**
 * Reads the body of `stream` to its end. Rejects with UrlencodedBodyError when a parameter other than media_data is
 * longer than `fieldBytes` or there are more than `fields` parameters (the rest of the body is still drained).
 */
export async function readUrlencodedUpload(stream: Readable, limits: UrlencodedLimits): Promise<UrlencodedUpload> {
  const params: [string, string][] = [];
  let mediaData: MediaDataDecoder | undefined;
  let mediaDataText: string | undefined;
  let problem: string | undefined;

  // The pair being read: its name's bytes until `=`, then its value's (or media_data's decoder).
  let name: Buffer[] = [];
  let nameLength = 0;
  let value: Buffer[] | undefined;
  let valueLength = 0;
  let decoder: MediaDataDecoder | undefined;
  let count = 0;

  const tooLong = (what: string) => {
    problem ??= `the ${what} parameter is larger than ${limits.fieldBytes} bytes`;
  };
  const finishPair = () => {
    if (decoder) {
      mediaDataText = decoder.end();
    } else if (nameLength > 0 || value !== undefined) {
      if (++count > limits.fields) problem ??= `more than ${limits.fields} parameters were sent`;
      else if (problem === undefined) params.push([decodeComponent(Buffer.concat(name)), decodeComponent(Buffer.concat(value ?? []))]);
    }
    name = [];
    nameLength = 0;
    value = undefined;
    valueLength = 0;
    decoder = undefined;
  };
  const startValue = () => {
    const decodedName = decodeComponent(Buffer.concat(name));
    if (decodedName === 'media_data' && mediaData === undefined) {
      mediaData = decoder = new MediaDataDecoder(limits.mediaDataChars);
    } else {
      value = [];
    }
  };

  for await (const chunk of stream) {
    if (problem !== undefined) continue; // drain
    const bytes = chunk as Buffer;
    let start = 0;
    for (let at = 0; at < bytes.length; at++) {
      const byte = bytes[at]!;
      if (byte === AMPERSAND) {
        appendTo(bytes.subarray(start, at));
        finishPair();
        start = at + 1;
      } else if (byte === EQUALS && value === undefined && decoder === undefined) {
        appendTo(bytes.subarray(start, at));
        startValue();
        start = at + 1;
      }
    }
    appendTo(bytes.subarray(start));
  }
  if (problem === undefined) finishPair();
  if (problem !== undefined) throw new UrlencodedBodyError(problem);
  return { params, mediaData: mediaDataText, mediaDataCut: mediaData?.cut ?? false };

  function appendTo(part: Buffer): void {
    if (part.length === 0) return;
    if (decoder) {
      decoder.write(part);
    } else if (value !== undefined) {
      valueLength += part.length;
      if (valueLength > limits.fieldBytes) tooLong(decodeComponent(Buffer.concat(name)));
      else value.push(Buffer.from(part));
    } else {
      nameLength += part.length;
      if (nameLength > limits.fieldBytes) tooLong('name of a');
      else name.push(Buffer.from(part));
    }
  }
}
