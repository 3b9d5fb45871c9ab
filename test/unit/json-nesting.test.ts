import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonNestsDeeperThan, jsonTextNestsDeeperThan } from '../../lib/http/json-nesting.ts';

/** The depth of a parsed JSON value (a scalar is 0, [] and {} are 1). */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + children.reduce<number>((deepest, child) => Math.max(deepest, depthOf(child)), 0);
}

describe('jsonNestsDeeperThan: the nesting bound, read off the bytes', () => {
  it('agrees with the parsed value’s depth for any JSON (strings with brackets, quotes and backslashes in them included)', () => {
    const tricky = fc.constantFrom('[', ']', '{', '}', '"', '\\', '\\"', '\\\\', '[[[', '}}}', 'é', '😀');
    const text = fc.array(fc.oneof(tricky, fc.string()), { maxLength: 6 }).map((pieces) => pieces.join(''));
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.integer(),
        fc.constant(null),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(text, tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 8 }), (json, bound) => {
        const bytes = Buffer.from(JSON.stringify(json));
        expect(jsonNestsDeeperThan(bytes, bound)).toBe(depthOf(json) > bound);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses a megabyte of nesting after reading no further than the bound', () => {
    const deep = Buffer.from(`${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`);
    expect(jsonNestsDeeperThan(deep, 32)).toBe(true);
    expect(jsonNestsDeeperThan(Buffer.from(`{"x":${'['.repeat(32)}${']'.repeat(32)}}`), 32)).toBe(true);
    expect(jsonNestsDeeperThan(Buffer.from(`{"x":${'['.repeat(31)}${']'.repeat(31)}}`), 32)).toBe(false);
  });

  it('skips a long string in one search (a base64 image is not walked byte by byte) and reads an unclosed one as no nesting', () => {
    const image = Buffer.from(`{"query":"mutation($f: String!) { upload(data: $f) }","variables":{"f":"${'A'.repeat(7_000_000)}"}}`);
    expect(jsonNestsDeeperThan(image, 4)).toBe(false);
    expect(jsonNestsDeeperThan(Buffer.from(`["${'['.repeat(100)}`), 4)).toBe(false);
  });

  it('reads text the same way as its UTF-8 bytes', () => {
    expect(jsonTextNestsDeeperThan(`{"é":[[["😀"]]]}`, 3)).toBe(true);
    expect(jsonTextNestsDeeperThan(`{"é":[["[[[😀"]]}`, 3)).toBe(false);
  });
});
