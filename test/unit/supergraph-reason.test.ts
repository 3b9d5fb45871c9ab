import { Supergraph } from '@apollo/federation-internals';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { supergraphReason } from '../../gateway/supergraph-source.ts';

/**
 * Why a supergraph does not build, as a refused reload logs it and a gateway process that cannot start prints it
 * (gateway/supergraph-source.ts, issue 40 item 7): whole — not cut off after "Caused by:" — on one line, each cause
 * with its place in the file, without graphql-js's code frames.
 */

const SUPERGRAPH = readFileSync(new URL('../../schema/supergraph.graphql', import.meta.url), 'utf8');

function failureOf(sdl: string): unknown {
  try {
    Supergraph.build(sdl);
  } catch (error) {
    return error;
  }
  throw new Error('the supergraph built');
}

describe('supergraphReason', () => {
  it("names @apollo/gateway's validation failure and its cause with its line, on one line", () => {
    const reason = supergraphReason(failureOf(SUPERGRAPH.replace('type Query', 'type Quer')));
    expect(reason).toBe('The schema is not a valid GraphQL schema: Cannot set schema query root to unknown type Query (line 6, column 3)');
  });

  it('keeps a syntax error to its message, without the code frame', () => {
    const reason = supergraphReason(failureOf(SUPERGRAPH.replace('type Query', 'type Query {')));
    expect(reason).toMatch(/^Syntax Error: [^\n]+$/);
  });

  it('bounds a reason of many causes', () => {
    const causes = Array.from({ length: 500 }, (_, i) =>
      Object.assign(new Error(`cause ${i} of many`), { locations: [{ line: i, column: 1 }] }),
    );
    const reason = supergraphReason(Object.assign(new Error('The schema is not a valid GraphQL schema.. Caused by:\n…'), { causes }));
    expect(reason.length).toBe(2_001);
    expect(reason.startsWith('The schema is not a valid GraphQL schema: cause 0 of many (line 0, column 1); cause 1 of many')).toBe(true);
  });
});
