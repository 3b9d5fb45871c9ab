import { buildSchema, parse, specifiedRules, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { deferLabelsRule, MAX_DEFER_LABEL_LENGTH } from '../../gateway/live/defer-labels-rule.ts';

const schema = buildSchema(`
  directive @defer(label: String, if: Boolean! = true) on FRAGMENT_SPREAD | INLINE_FRAGMENT
  type Query { me: User }
  type User { id: ID! name: String bio: String }
`);
const messages = (query: string) => validate(schema, parse(query), [...specifiedRules, deferLabelsRule]).map((error) => error.message);

describe('deferLabelsRule: @defer labels as the incremental delivery RFC has them', () => {
  it('takes static, unique labels, and no label', () => {
    expect(
      messages(
        `{ me { id ... @defer(label: "a") { name } ... @defer(label: "b") { bio } ... @defer { id } ... @defer(label: null) { id } } }`,
      ),
    ).toEqual([]);
  });

  it('refuses a variable label, as graphql-js 17 words it', () => {
    expect(messages(`query($l: String) { me { ... @defer(label: $l) { name } } }`)).toEqual([
      `Directive "defer"'s label argument must be a static string.`,
    ]);
  });

  it('refuses a label used twice in the document, fragments included', () => {
    expect(messages(`{ me { ... @defer(label: "a") { name } ...F } } fragment F on User { ... @defer(label: "a") { bio } }`)).toEqual([
      'Defer/Stream directive label argument must be unique.',
    ]);
  });

  it('leaves a literal of the wrong type to graphql-js’s own rule (one error, not two)', () => {
    expect(messages(`{ me { ... @defer(label: 1) { name } } }`)).toEqual(['String cannot represent a non string value: 1']);
  });

  it(`refuses a label longer than ${MAX_DEFER_LABEL_LENGTH} characters, and takes one of exactly that length`, () => {
    expect(messages(`{ me { ... @defer(label: "${'x'.repeat(MAX_DEFER_LABEL_LENGTH)}") { name } } }`)).toEqual([]);
    expect(messages(`{ me { ... @defer(label: "${'x'.repeat(MAX_DEFER_LABEL_LENGTH + 1)}") { name } } }`)).toEqual([
      `Directive "defer"'s label argument is longer than ${MAX_DEFER_LABEL_LENGTH} characters.`,
    ]);
  });
});
