/**
 * Opaque, tamper-evident keyset cursors for Graph cursor pagination (`paging.cursors.before/after`, `.after(c)`,
 * `.before(c)`).
 *
 * A cursor is `<payload><tag>`: the payload is the base64url (unpadded) UTF-8 of the position as compact JSON, e.g.
 * `[1704110400,"17841400008460056"]`; the tag is the first 8 bytes of HMAC-SHA256(secret, domain ‖ payload bytes), in
 * base64url always 11 characters, so it needs no separator. A client can read a cursor but not forge or alter one: any
 * change to the payload, the tag or the length makes `decode` return undefined.
 *
 * Sizes: `[<unix seconds>, <17-digit id>]` gives a 54-character cursor; `[<ISO timestamp with milliseconds>, <17-digit
 * id>]` gives 75. Prefer a number (seconds, or integer microseconds when the column keeps them) for the timestamp part.
 *
 * JSON keeps the type of every element, so ids (64-bit decimal strings) come back as strings and never pass through a
 * number; numbers come back as the same number (JSON writes the shortest text that parses back to the same double).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** One element of a keyset position. */
export type CursorValue = string | number;

export interface CursorCodec {
  /** The cursor of a position; the same position always gives the same cursor. Throws on non-finite numbers. */
  encode(position: readonly CursorValue[]): string;
  /** The position of a cursor this codec made, or undefined for anything else (tampered, truncated, foreign, garbage). */
  decode(cursor: string): CursorValue[] | undefined;
}

/** Bytes of the HMAC kept in a cursor: 64 bits, enough against online guessing, short enough for URLs. */
const TAG_BYTES = 8;
/** base64url length of TAG_BYTES bytes without padding. */
const TAG_CHARS = Math.ceil((TAG_BYTES * 4) / 3);
/** Longest cursor `decode` looks at, and that `encode` will make; real positions are a few dozen characters. */
export const MAX_CURSOR_LENGTH = 1024;
/** Binds tags to this use, so the same secret can sign other things without their signatures passing as cursors. */
const DOMAIN = 'tributary/cursor/v1\u0000';
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A cursor codec keyed by `secret` (which should be long and random; a server restart with another one voids cursors). */
export function createCursorCodec(secret: string): CursorCodec {
  if (secret.length === 0) throw new TypeError('The cursor secret must not be empty');
  const key = Buffer.from(secret, 'utf8');
  const tag = (payload: Buffer): Buffer =>
    createHmac('sha256', key).update(DOMAIN).update(payload).digest().subarray(0, TAG_BYTES);

  return {
    encode(position) {
      for (const value of position) {
        if (typeof value === 'number' ? !Number.isFinite(value) : typeof value !== 'string') {
          throw new TypeError(`A cursor position holds strings and finite numbers, not ${String(value)}`);
        }
      }
      // The same bytes as decode's tag(payload) — the domain, then the payload's UTF-8 — in one update, and the tag's
      // first bytes encoded straight from the digest: a deep read makes ~1,300 cursors, and each Buffer less counts.
      const json = JSON.stringify(position);
      const digest = createHmac('sha256', key).update(DOMAIN + json, 'utf8').digest();
      const cursor = Buffer.from(json, 'utf8').toString('base64url') + digest.toString('base64url', 0, TAG_BYTES);
      if (cursor.length > MAX_CURSOR_LENGTH) throw new RangeError(`A cursor position is too long (${cursor.length} characters)`);
      return cursor;
    },

    decode(cursor) {
      if (typeof cursor !== 'string' || cursor.length <= TAG_CHARS || cursor.length > MAX_CURSOR_LENGTH) return undefined;
      if (!BASE64URL.test(cursor)) return undefined;
      const payloadText = cursor.slice(0, -TAG_CHARS);
      const tagText = cursor.slice(-TAG_CHARS);
      const payload = Buffer.from(payloadText, 'base64url');
      const given = Buffer.from(tagText, 'base64url');
      // Buffer's decoder ignores stray bits; only the canonical spelling of the bytes is accepted, so that a cursor has
      // exactly one form.
      if (payload.toString('base64url') !== payloadText || given.toString('base64url') !== tagText) return undefined;
      if (given.length !== TAG_BYTES || !timingSafeEqual(given, tag(payload))) return undefined;

      let position: unknown;
      try {
        position = JSON.parse(payload.toString('utf8'));
      } catch {
        return undefined;
      }
      if (!Array.isArray(position)) return undefined;
      const values: unknown[] = position;
      return values.every((value) => typeof value === 'string' || typeof value === 'number') ? (values as CursorValue[]) : undefined;
    },
  };
}
