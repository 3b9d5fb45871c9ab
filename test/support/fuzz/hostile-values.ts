import fc from 'fast-check';

/**
 * Values every door's generators draw on: strings and numbers that have broken parsers before (prototype names, lone
 * surrogates, NUL, numbers past 2^53 and 2^64, exponent forms of integers), and a JSON writer that keeps numbers exactly
 * as generated (JSON.stringify cannot write 18446744073709551616 or 1e400).
 */

/** Property names of Object.prototype and friends: a lookup in a plain object finds them unless it checks own keys. */
export const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupGetter__',
] as const;

/** Texts that look like numbers to one parser and not to another. */
export const NUMBER_LIKE_TEXTS = [
  '0',
  '-0',
  '1',
  '-1',
  '+1',
  '01',
  '1e3',
  '1E3',
  '1.0',
  '1.5',
  '0x10',
  '0b1',
  '1_000',
  ' 1',
  '1 ',
  '１',
  'NaN',
  'Infinity',
  '-Infinity',
  '2147483647',
  '2147483648',
  '-2147483649',
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '18446744073709551615',
  '18446744073709551616',
  '340282366920938463463374607431768211456',
  '1e400',
  '-1e400',
  '1e-400',
  '',
] as const;

/** Strings that have tripped up text handling somewhere. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF',
  '\uFEFF',
  '\u202E',
  '💩',
  'ｆｕｌｌ',
  'é',
  '\r\n',
  '%',
  '%00',
  '%zz',
  '%C0%AF',
  '../..',
  '{',
  '}',
  '(',
  ')',
  ',',
  '.',
  "'",
  '"',
  '\\',
  '${x}',
  '<script>',
  "' or 1=1 --",
  '%_%',
  'null',
  'true',
  'undefined',
  ...PROTOTYPE_NAMES,
] as const;

/** A string: mostly short and hostile, sometimes long. */
export function hostileString(options: { maxLength?: number } = {}): fc.Arbitrary<string> {
  const maxLength = options.maxLength ?? 200_000;
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
    { weight: 2, arbitrary: fc.constantFrom(...NUMBER_LIKE_TEXTS) },
    { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('a', 'é', '💩', '\u0000', ',', '%', '9'), fc.integer({ min: 1, max: maxLength }))
        .map(([unit, count]) => unit.repeat(Math.max(1, Math.floor(count / unit.length)))),
    },
  );
}

/** A JSON number exactly as written on the wire (edge values of every integer width, exponents, fractions). */
export function rawJsonNumber(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(
      '0',
      '-0',
      '1',
      '-1',
      '1e3',
      '1.5',
      '2147483647',
      '2147483648',
      '-2147483649',
      '4294967296',
      '9007199254740993',
      '9223372036854775807',
      '9223372036854775808',
      '-9223372036854775809',
      '18446744073709551615',
      '18446744073709551616',
      '1e308',
      '1e309',
      '-1e309',
      '1e-400',
      '0.0000001',
      '123456789012345678901234567890',
    ),
    fc.integer().map(String),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)),
  );
}

/** A JSON value as text; numbers are written exactly as `rawJsonNumber` makes them. */
export type RawJson = string;

export function quote(text: string): RawJson {
  return JSON.stringify(text);
}

export function rawObject(entries: readonly (readonly [string, RawJson])[]): RawJson {
  return `{${entries.map(([key, value]) => `${quote(key)}:${value}`).join(',')}}`;
}

export function rawArray(items: readonly RawJson[]): RawJson {
  return `[${items.join(',')}]`;
}

/** Any JSON value (a few levels deep), as text. */
export function rawJsonValue(maxDepth = 3): fc.Arbitrary<RawJson> {
  const { value } = fc.letrec<{ value: RawJson; leaf: RawJson }>((tie) => ({
    leaf: fc.oneof(fc.constantFrom('null', 'true', 'false'), rawJsonNumber(), hostileString({ maxLength: 5_000 }).map(quote)),
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true, maxDepth },
      tie('leaf'),
      fc.array(tie('value'), { maxLength: 4 }).map(rawArray),
      fc.array(fc.tuple(hostileString({ maxLength: 20 }), tie('value')), { maxLength: 4 }).map(rawObject),
    ),
  }));
  return value;
}

/** Ways to break a JSON text that was otherwise right. */
export function corruptJson(valid: RawJson): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constant(valid),
    fc.nat({ max: Math.max(0, valid.length - 1) }).map((at) => valid.slice(0, at)),
    fc.constantFrom(
      `${valid},`,
      `${valid}}`,
      `\uFEFF${valid}`,
      `${valid} trailing`,
      valid.replace(/^\{/, '{,'),
      `/* c */${valid}`,
      valid.replace(/"/g, "'"),
    ),
    fc.nat({ max: 20_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
    fc.nat({ max: 20_000 }).map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
    fc.constantFrom('', ' ', 'null', '[]', '"x"', '1', 'NaN', '{"__proto__":{"polluted":true}}', '{"a":1,"a":2}'),
  );
}

/** Percent-encodes a path segment or query value; sometimes leaves a raw '%' or invalid UTF-8 escape in it. */
export function urlPart(): fc.Arbitrary<string> {
  return fc.oneof(
    {
      weight: 5,
      arbitrary: hostileString({ maxLength: 3_000 }).map((text) => encodeURIComponent(text.replace(/[\uD800-\uDFFF]/g, '\uFFFD'))),
    },
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%C0%AF', '%FF', '%ED%A0%80', '%00', '%2e%2e', '..', '.') },
  );
}

/** The ways a `media_data` value can spell (or misspell) a file's base64. */
export const BASE64_SPELLINGS = ['plain', 'url', 'spaces', 'newlines', 'nopad', 'datauri', 'junk', 'extra-pad'] as const;
export type Base64Spelling = (typeof BASE64_SPELLINGS)[number];

/**
 * `bytes` as base64 spelled `how`: standard, URL-safe, broken by spaces or CRLF line breaks, unpadded, as a data: URI, with
 * a stray `=`, or with junk characters inserted at `junkAt`.
 */
export function hostileBase64(bytes: Buffer, how: Base64Spelling, junkAt = 4): string {
  const b64 = bytes.toString('base64');
  switch (how) {
    case 'plain':
      return b64;
    case 'url':
      return bytes.toString('base64url');
    case 'spaces':
      return b64.replace(/(.{7})/g, '$1 ');
    case 'newlines':
      return b64.replace(/(.{76})/g, '$1\r\n');
    case 'nopad':
      return b64.replace(/=+$/, '');
    case 'datauri':
      return `data:image/png;base64,${b64}`;
    case 'extra-pad':
      return `${b64}=`;
    case 'junk':
      return `${b64.slice(0, junkAt)}*&^%${b64.slice(junkAt)}`;
  }
}
