/**
 * Opaque, tamper-evident keyset cursors for Graph cursor pagination (`paging.cursors.before/after`, `.after(c)`,
 * `.before(c)`).
 *
 * A cursor is `<payload><tag>`: the payload is the base64url (unpadded) UTF-8 of the position as compact JSON, e.g.
 * `[1704110400,"17841400008460056"]`; the tag is the first 11 base64url characters (66 bits) of
 * BLAKE2b-512(key block ‖ domain ‖ payload bytes), so it needs no separator. A client can read a cursor but not forge or
 * alter one: any change to the payload, the tag or the length makes `decode` return undefined.
 *
 * Why BLAKE2b with the key as a prefix rather than HMAC: BLAKE2 has no length extension (its last block is flagged), so
 * the prefix-keyed hash is a MAC on its own — RFC 7693's keyed mode likewise puts the key alone in the first block — and
 * it is one hash call where HMAC is two plus an object, and a deep read of the Graph API makes a cursor for every page
 * end it lists (bench/README.md, "Issue 13's targets before coalescing"). The key block is 128 ASCII bytes (one BLAKE2b
 * block) derived from the secret.
 *
 * Cursors of the previous format (the first 8 bytes of HMAC-SHA256(secret, domain ‖ payload), in 11 canonical
 * characters) are still accepted by `decode`, so that paging in progress survives an upgrade or a rolling deploy.
 *
 * Sizes: `[<unix seconds>, <17-digit id>]` gives a 54-character cursor; `[<ISO timestamp with milliseconds>, <17-digit
 * id>]` gives 75. Prefer a number (seconds, or integer microseconds when the column keeps them) for the timestamp part.
 *
 * JSON keeps the type of every element, so ids (64-bit decimal strings) come back as strings and never pass through a
 * number; numbers come back as the same number (JSON writes the shortest text that parses back to the same double).
 */
import { createHmac, hash, timingSafeEqual } from 'node:crypto';

/** One element of a keyset position. */
export type CursorValue = string | number;

export interface CursorCodec {
  /** The cursor of a position; the same position always gives the same cursor. Throws on non-finite numbers. */
  encode(position: readonly CursorValue[]): string;
  /** The position of a cursor this codec made, or undefined for anything else (tampered, truncated, foreign, garbage). */
  decode(cursor: string): CursorValue[] | undefined;
}

/** Characters of the tag: 66 bits, enough against online guessing, short enough for URLs. */
const TAG_CHARS = 11;
/** Bytes of the previous format's HMAC tag (8 bytes: the same 11 characters, the last two bits zero). */
const LEGACY_TAG_BYTES = 8;
/** Longest cursor `decode` looks at, and that `encode` will make; real positions are a few dozen characters. */
export const MAX_CURSOR_LENGTH = 1024;
/** Binds tags to this use, so the same secret can sign other things without their signatures passing as cursors. */
const DOMAIN = 'tributary/cursor/v1\u0000';
/** Separates the key block's derivation from every other use of the secret. */
const KEY_DOMAIN = 'tributary/cursor-key/v2\u0000';
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A cursor codec keyed by `secret` (which should be long and random; a server restart with another one voids cursors). */
export function createCursorCodec(secret: string): CursorCodec {
  if (secret.length === 0) throw new TypeError('The cursor secret must not be empty');
  const key = Buffer.from(secret, 'utf8');
  // 128 hex characters: exactly one BLAKE2b block, so the key is alone in the first compression.
  const keyBlock = hash('blake2b512', KEY_DOMAIN + secret, 'hex');
  // A string throughout: the digest straight to base64url text costs less than a Buffer and its encoding.
  const tag = (json: string): string => hash('blake2b512', keyBlock + DOMAIN + json, 'base64url').slice(0, TAG_CHARS);
  /** A tag of the previous format, HMAC-SHA256 over the same bytes, canonically spelt. */
  const isLegacyTag = (tagText: string, payload: Buffer): boolean => {
    const given = Buffer.from(tagText, 'base64url');
    if (given.length !== LEGACY_TAG_BYTES || given.toString('base64url') !== tagText) return false;
    return timingSafeEqual(given, createHmac('sha256', key).update(DOMAIN).update(payload).digest().subarray(0, LEGACY_TAG_BYTES));
  };

  return {
    encode(position) {
      for (const value of position) {
        if (typeof value === 'number' ? !Number.isFinite(value) : typeof value !== 'string') {
          throw new TypeError(`A cursor position holds strings and finite numbers, not ${String(value)}`);
        }
      }
      const json = JSON.stringify(position);
      const cursor = Buffer.from(json, 'utf8').toString('base64url') + tag(json);
      if (cursor.length > MAX_CURSOR_LENGTH) throw new RangeError(`A cursor position is too long (${cursor.length} characters)`);
      return cursor;
    },

    decode(cursor) {
      if (typeof cursor !== 'string' || cursor.length <= TAG_CHARS || cursor.length > MAX_CURSOR_LENGTH) return undefined;
      if (!BASE64URL.test(cursor)) return undefined;
      const payloadText = cursor.slice(0, -TAG_CHARS);
      const tagText = cursor.slice(-TAG_CHARS);
      const payload = Buffer.from(payloadText, 'base64url');
      // Buffer's decoder ignores stray bits; only the canonical spelling of the bytes is accepted, so that a cursor has
      // exactly one form. The payload must be UTF-8 that reads back to the same bytes: the tag is over its text.
      if (payload.toString('base64url') !== payloadText) return undefined;
      const json = payload.toString('utf8');
      if (!Buffer.from(json, 'utf8').equals(payload) || !(sameText(tagText, tag(json)) || isLegacyTag(tagText, payload))) return undefined;

      let position: unknown;
      try {
        position = JSON.parse(json);
      } catch {
        return undefined;
      }
      if (!Array.isArray(position)) return undefined;
      const values: unknown[] = position;
      return values.every((value) => typeof value === 'string' || typeof value === 'number') ? (values as CursorValue[]) : undefined;
    },
  };
}

/** Equal texts of the same length, compared in constant time (both are base64url, so one byte per character). */
function sameText(given: string, expected: string): boolean {
  return given.length === expected.length && timingSafeEqual(Buffer.from(given, 'latin1'), Buffer.from(expected, 'latin1'));
}
