import { createHmac, hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCursorCodec, MAX_CURSOR_LENGTH } from '../../lib/social-graph/cursor.ts';

const SECRET = 'cursor-test-secret-0123456789abcdef';
const codec = createCursorCodec(SECRET);

const ID = '17841400008460056';
const BIG_ID = '18446744073709551615';

/** The cursor with one character replaced by another of the base64url alphabet. */
function replaceAt(cursor: string, index: number): string {
  const replacement = cursor[index] === 'A' ? 'B' : 'A';
  return cursor.slice(0, index) + replacement + cursor.slice(index + 1);
}

/**
 * A cursor as an attacker would build it: a payload of their choice with a tag made under a secret they guessed, in the
 * format documented in cursor.ts (BLAKE2b-512 of the key block, the domain and the payload; 11 base64url characters).
 */
function forge(payloadJson: string, secret: string): string {
  const keyBlock = hash('blake2b512', `tributary/cursor-key/v2\u0000${secret}`, 'hex');
  const tag = hash('blake2b512', `${keyBlock}tributary/cursor/v1\u0000${payloadJson}`, 'base64url').slice(0, 11);
  return Buffer.from(payloadJson, 'utf8').toString('base64url') + tag;
}

/** The same, in the previous format (the first 8 bytes of HMAC-SHA256), which decode still accepts. */
function forgeLegacy(payloadJson: string, secret: string): string {
  const payload = Buffer.from(payloadJson, 'utf8');
  const tag = createHmac('sha256', secret).update('tributary/cursor/v1\u0000').update(payload).digest().subarray(0, 8);
  return payload.toString('base64url') + tag.toString('base64url');
}

describe('createCursorCodec: the format', () => {
  it('makes the same cursors as ever (known answers, computed once from the format documented in cursor.ts)', () => {
    const known = createCursorCodec('known-answer-secret-of-32-characters!!');
    expect(known.encode([1704110400, '17841400008460056'])).toBe('WzE3MDQxMTA0MDAsIjE3ODQxNDAwMDA4NDYwMDU2Il0YoTTGX030Ps');
    expect(known.encode(['2024-01-01T00:00:00.000Z', 'ü-ß'])).toBe('WyIyMDI0LTAxLTAxVDAwOjAwOjAwLjAwMFoiLCLDvC3DnyJdbE2mwfidHhm');
    expect(known.decode('WyIyMDI0LTAxLTAxVDAwOjAwOjAwLjAwMFoiLCLDvC3DnyJdbE2mwfidHhm')).toEqual(['2024-01-01T00:00:00.000Z', 'ü-ß']);
    expect(known.encode([1704110400, '17841400008460056'])).toBe(
      forge('[1704110400,"17841400008460056"]', 'known-answer-secret-of-32-characters!!'),
    );
  });

  it('still accepts cursors of the previous format (HMAC-SHA256 tags), so paging in progress survives an upgrade', () => {
    const known = createCursorCodec('known-answer-secret-of-32-characters!!');
    expect(known.decode('WzE3MDQxMTA0MDAsIjE3ODQxNDAwMDA4NDYwMDU2Il0Shg1Smy3abk')).toEqual([1704110400, '17841400008460056']);
    expect(known.decode('WyIyMDI0LTAxLTAxVDAwOjAwOjAwLjAwMFoiLCLDvC3DnyJdxxGuIgiAhZ0')).toEqual(['2024-01-01T00:00:00.000Z', 'ü-ß']);
    expect(codec.decode(forgeLegacy(`[1,"2"]`, SECRET))).toEqual([1, '2']);
    expect(codec.decode(forgeLegacy(`[1,"2"]`, 'guessed-secret'))).toBeUndefined();
  });
});

describe('createCursorCodec: round trips', () => {
  it('round-trips a [unix seconds, id] position, keeping the id a string', () => {
    const cursor = codec.encode([1_704_110_400, ID]);
    const position = codec.decode(cursor);
    expect(position).toEqual([1_704_110_400, ID]);
    expect(typeof position![0]).toBe('number');
    expect(typeof position![1]).toBe('string');
  });

  it('round-trips an [ISO timestamp, id] position', () => {
    const position = ['2024-01-01T12:00:00.123456Z', ID];
    expect(codec.decode(codec.encode(position))).toEqual(position);
  });

  it('never turns a 64-bit id into a number, however large', () => {
    for (const id of ['0', '1', '9007199254740993', '9223372036854775807', BIG_ID, '00042']) {
      const decoded = codec.decode(codec.encode(['2024-01-01T00:00:00Z', id]));
      expect(decoded).toEqual(['2024-01-01T00:00:00Z', id]);
      expect(decoded![1]).toBeTypeOf('string');
    }
  });

  it('keeps numbers exact, including fractions, negatives and integers beyond 2^53 as doubles', () => {
    const position = [0, -1, 1.5, 0.1 + 0.2, Number.MAX_SAFE_INTEGER, 2 ** 60, -1e-300, 1_704_110_400_123_456];
    expect(codec.decode(codec.encode(position))).toEqual(position);
  });

  it('round-trips any string, including quotes, separators, non-ASCII and empty ones', () => {
    const position = ['', '"', '\\', ',', ']', '[1]', 'é', '日本', '🙂', '\u0000', '\n', 'a.b_c-d'];
    expect(codec.decode(codec.encode(position))).toEqual(position);
  });

  it('round-trips a numeric string and the number it spells as different positions', () => {
    const asString = codec.encode(['42']);
    const asNumber = codec.encode([42]);
    expect(asString).not.toBe(asNumber);
    expect(codec.decode(asString)).toEqual(['42']);
    expect(codec.decode(asNumber)).toEqual([42]);
  });

  it('round-trips empty and one-element positions', () => {
    expect(codec.decode(codec.encode([]))).toEqual([]);
    expect(codec.decode(codec.encode([ID]))).toEqual([ID]);
    expect(codec.decode(codec.encode([7]))).toEqual([7]);
  });

  it('returns a fresh array each time', () => {
    const cursor = codec.encode([1, ID]);
    const first = codec.decode(cursor)!;
    first.push('x');
    expect(codec.decode(cursor)).toEqual([1, ID]);
  });
});

describe('createCursorCodec: form', () => {
  it('is deterministic: the same position gives the same cursor, also from another codec with the same secret', () => {
    expect(codec.encode([1_704_110_400, ID])).toBe(codec.encode([1_704_110_400, ID]));
    expect(createCursorCodec(SECRET).encode([1_704_110_400, ID])).toBe(codec.encode([1_704_110_400, ID]));
  });

  it('gives different positions different cursors', () => {
    const cursors = new Set([
      codec.encode([1_704_110_400, ID]),
      codec.encode([1_704_110_401, ID]),
      codec.encode([1_704_110_400, '17841400008460057']),
      codec.encode([ID, 1_704_110_400]),
      codec.encode([1_704_110_400]),
    ]);
    expect(cursors.size).toBe(5);
  });

  it('uses only URL-safe characters, with no padding', () => {
    for (const position of [[1_704_110_400, ID], ['2024-01-01T12:00:00Z', BIG_ID], ['🙂?&=/+'], []]) {
      expect(codec.encode(position)).toMatch(/^[A-Za-z0-9_-]+$/);
    }
  });

  it('is short: under 60 characters for [unix seconds, 17-digit id]', () => {
    const cursor = codec.encode([1_704_110_400, ID]);
    expect(cursor.length).toBeLessThan(60);
    expect(cursor).toHaveLength(54);
    expect(codec.encode(['2024-01-01T12:00:00.000Z', ID])).toHaveLength(75);
  });

  it('carries the position as readable base64url JSON followed by an 11-character tag', () => {
    const cursor = codec.encode([1_704_110_400, ID]);
    expect(Buffer.from(cursor.slice(0, -11), 'base64url').toString('utf8')).toBe(`[1704110400,"${ID}"]`);
  });

  it('refuses to encode values JSON cannot carry', () => {
    expect(() => codec.encode([Number.NaN])).toThrow(TypeError);
    expect(() => codec.encode([Number.POSITIVE_INFINITY, ID])).toThrow(TypeError);
    expect(() => codec.encode([ID, Number.NEGATIVE_INFINITY])).toThrow(TypeError);
    expect(() => codec.encode([null as unknown as string])).toThrow(TypeError);
    expect(() => codec.encode([{} as unknown as string])).toThrow(TypeError);
    expect(() => codec.encode([10n as unknown as number])).toThrow(TypeError);
  });

  it('refuses to encode a position whose cursor would be too long to decode', () => {
    expect(() => codec.encode(['x'.repeat(MAX_CURSOR_LENGTH)])).toThrow(RangeError);
    const longest = codec.encode(['x'.repeat(740)]);
    expect(longest.length).toBeLessThanOrEqual(MAX_CURSOR_LENGTH);
    expect(codec.decode(longest)).toEqual(['x'.repeat(740)]);
  });

  it('requires a secret', () => {
    expect(() => createCursorCodec('')).toThrow(TypeError);
  });
});

describe('createCursorCodec: tampering', () => {
  const cursor = codec.encode([1_704_110_400, ID]);

  it('refuses a cursor with any single character changed', () => {
    for (let index = 0; index < cursor.length; index++) {
      expect(codec.decode(replaceAt(cursor, index)), `character ${index}`).toBeUndefined();
    }
  });

  it('refuses a cursor with any bit of its bytes flipped', () => {
    const payloadText = cursor.slice(0, -11);
    const tagText = cursor.slice(-11);
    const payload = Buffer.from(payloadText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    for (let bit = 0; bit < payload.length * 8; bit++) {
      const changed = Buffer.from(payload);
      changed[bit >> 3]! ^= 1 << (bit & 7);
      expect(codec.decode(changed.toString('base64url') + tagText)).toBeUndefined();
    }
    for (let bit = 0; bit < tag.length * 8; bit++) {
      const changed = Buffer.from(tag);
      changed[bit >> 3]! ^= 1 << (bit & 7);
      expect(codec.decode(payloadText + changed.toString('base64url'))).toBeUndefined();
    }
  });

  it('refuses a position rewritten by the client, with or without the original tag', () => {
    const tagText = cursor.slice(-11);
    const rewritten = Buffer.from(`[1704110400,"17841400008460057"]`).toString('base64url');
    expect(codec.decode(rewritten + tagText)).toBeUndefined();
    expect(codec.decode(rewritten)).toBeUndefined();
    expect(codec.decode(forge(`[1704110400,"17841400008460057"]`, 'guessed-secret'))).toBeUndefined();
    expect(codec.decode(forgeLegacy(`[1704110400,"17841400008460057"]`, 'guessed-secret'))).toBeUndefined();
  });

  it('refuses a payload that is not UTF-8, even with the tag of the text it would decode to', () => {
    const bytes = Buffer.concat([Buffer.from('["a'), Buffer.from([0xff]), Buffer.from('"]')]);
    const text = bytes.toString('utf8');
    const tag = forge(text, SECRET).slice(-11);
    expect(codec.decode(forge(text, SECRET))).toEqual(['a\ufffd']);
    expect(codec.decode(bytes.toString('base64url') + tag)).toBeUndefined();
  });

  it('refuses truncated and extended cursors', () => {
    for (let length = 0; length < cursor.length; length++) {
      expect(codec.decode(cursor.slice(0, length)), `first ${length} characters`).toBeUndefined();
    }
    expect(codec.decode(cursor.slice(1))).toBeUndefined();
    expect(codec.decode(`${cursor}A`)).toBeUndefined();
    expect(codec.decode(`A${cursor}`)).toBeUndefined();
    expect(codec.decode(cursor + cursor)).toBeUndefined();
  });

  it('refuses the tag of one position on another', () => {
    const other = codec.encode([1_704_110_401, ID]);
    expect(codec.decode(cursor.slice(0, -11) + other.slice(-11))).toBeUndefined();
    expect(codec.decode(other.slice(0, -11) + cursor.slice(-11))).toBeUndefined();
  });

  it('refuses cursors made with another secret', () => {
    const foreign = createCursorCodec(`${SECRET}-other`).encode([1_704_110_400, ID]);
    expect(foreign).not.toBe(cursor);
    expect(codec.decode(foreign)).toBeUndefined();
  });

  it('refuses a tag made without the cursor domain (another use of the same secret)', () => {
    const payload = Buffer.from(`[1704110400,"${ID}"]`);
    const plainTag = createHmac('sha256', SECRET).update(payload).digest().subarray(0, 8);
    expect(codec.decode(payload.toString('base64url') + plainTag.toString('base64url'))).toBeUndefined();
    const keyBlock = hash('blake2b512', `tributary/cursor-key/v2\u0000${SECRET}`, 'hex');
    const plainBlake = hash('blake2b512', `${keyBlock}${payload.toString('utf8')}`, 'base64url').slice(0, 11);
    expect(codec.decode(payload.toString('base64url') + plainBlake)).toBeUndefined();
    const secretAsKey = hash('blake2b512', `${SECRET}tributary/cursor/v1\u0000${payload.toString('utf8')}`, 'base64url').slice(0, 11);
    expect(codec.decode(payload.toString('base64url') + secretAsKey)).toBeUndefined();
  });

  it('accepts a cursor forged with the real secret, which shows the tag is all that protects it', () => {
    expect(codec.decode(forge(`[1,"2"]`, SECRET))).toEqual([1, '2']);
  });
});

describe('createCursorCodec: garbage', () => {
  it('refuses text that is not base64url', () => {
    const cursor = codec.encode([1_704_110_400, ID]);
    for (const text of [
      '',
      ' ',
      `+${cursor.slice(1)}`,
      `${cursor.slice(0, 5)}/${cursor.slice(6)}`,
      `${cursor}=`,
      `${cursor.slice(0, 10)}=${cursor.slice(10)}`,
      ` ${cursor}`,
      `${cursor} `,
      `${cursor.slice(0, 10)}.${cursor.slice(10)}`,
      `${cursor.slice(0, -11)}.${cursor.slice(-11)}`,
      cursor.replace(/[A-Za-z]/, 'é'),
      'not a cursor',
      '%2F%2F',
    ]) {
      expect(codec.decode(text), JSON.stringify(text)).toBeUndefined();
    }
  });

  it('refuses a non-canonical spelling of the same bytes', () => {
    const cursor = codec.encode([1_704_110_400, ID]);
    // The last character of the 11-character tag carries 4 bits; its other 2 bits must be zero.
    const last = cursor.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[alphabet.indexOf(last) + 1]!;
    expect(Buffer.from(cursor.slice(-11, -1) + sibling, 'base64url')).toEqual(Buffer.from(cursor.slice(-11), 'base64url'));
    expect(codec.decode(cursor.slice(0, -1) + sibling)).toBeUndefined();
  });

  it('refuses cursors beyond the maximum length without hashing them', () => {
    expect(codec.decode('A'.repeat(MAX_CURSOR_LENGTH + 1))).toBeUndefined();
    expect(codec.decode('A'.repeat(100_000))).toBeUndefined();
  });

  it('refuses correctly signed payloads that are not an array of strings and numbers', () => {
    for (const json of ['{"0":1}', '"abc"', '42', 'null', 'true', '[1,null]', '[1,[2]]', '[{"a":1}]', '[true]', '[1,', '', 'not json']) {
      expect(codec.decode(forge(json, SECRET)), json).toBeUndefined();
    }
  });

  it('refuses values of the wrong type without throwing', () => {
    for (const value of [undefined, null, 42, {}, [], Buffer.from('x')]) {
      expect(codec.decode(value as unknown as string)).toBeUndefined();
    }
  });
});
