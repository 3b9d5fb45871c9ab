import { describe, expect, it } from 'vitest';
import { FieldsSyntaxError, MAX_FIELDS_DEPTH, parseFields, type FieldSelection } from '../../rest-adapter/social-graph/graph-fields.ts';

/** A compact rendering of the parse tree, so expectations stay readable. */
function show(fields: FieldSelection[]): string {
  return fields
    .map((field) => {
      const modifiers = field.modifiers.map((m) => `.${m.name}(${m.argument})`).join('');
      return `${field.name}${modifiers}${field.selection ? `{${show(field.selection)}}` : ''}`;
    })
    .join(',');
}

function syntaxError(input: string): FieldsSyntaxError {
  try {
    parseFields(input);
  } catch (error) {
    if (error instanceof FieldsSyntaxError) return error;
    throw error;
  }
  throw new Error(`"${input}" parsed without error`);
}

describe('parseFields', () => {
  it('parses a flat list', () => {
    expect(show(parseFields('id,text,timestamp'))).toBe('id,text,timestamp');
  });

  it('keeps the position of each field', () => {
    expect(parseFields('id,text').map((f) => f.position)).toEqual([0, 3]);
  });

  it('parses nested selections to any depth', () => {
    const input = 'media.limit(25){comments.limit(25){replies{text,username}}},username';
    expect(show(parseFields(input))).toBe(input);
  });

  it('parses every modifier with its argument', () => {
    const fields = parseFields('media.limit(5).after(QVFIUmF).before(b).since(1700000000).until(2024-01-01 12:00).as(m){id}');
    expect(fields[0]!.modifiers.map((m) => [m.name, m.argument])).toEqual([
      ['limit', '5'],
      ['after', 'QVFIUmF'],
      ['before', 'b'],
      ['since', '1700000000'],
      ['until', '2024-01-01 12:00'],
      ['as', 'm'],
    ]);
  });

  it('parses the parameterised expansions', () => {
    expect(show(parseFields('business_discovery.username(bluebottle){followers_count,media{id}}'))).toBe(
      'business_discovery.username(bluebottle){followers_count,media{id}}',
    );
    expect(show(parseFields('mentioned_comment.comment_id(17873440459141021){id,text}'))).toBe(
      'mentioned_comment.comment_id(17873440459141021){id,text}',
    );
    expect(show(parseFields('mentioned_media.media_id(17873440459141021){caption}'))).toBe(
      'mentioned_media.media_id(17873440459141021){caption}',
    );
  });

  it('allows blanks around tokens', () => {
    expect(show(parseFields(' id , replies . limit( 2 ) { text } '))).toBe('id,replies.limit(2){text}');
  });

  it.each([
    ['', 'Expected name.', 0],
    ['id,,text', 'Expected name.', 3],
    ['id,', 'Expected name.', 3],
    ['id}', 'Expected end of string instead of "}".', 2],
    ['replies{text', 'Expected "}".', 12],
    ['replies{}', 'Expected name.', 8],
    ['replies.limit5', 'Expected "(".', 14],
    ['replies.limit(5', 'Expected ")".', 15],
    ['replies.limit(a(b))', 'Expected ")".', 15],
    ['replies.(5)', 'Expected name.', 8],
    ['1d', 'Expected name.', 0],
    ['id text', 'Expected end of string instead of "t".', 3],
    ['replies.limit(1).limit(2)', 'Modifier limit given twice.', 17],
  ])('refuses %j: %s at %i', (input, expectation, position) => {
    const error = syntaxError(input);
    expect(error.expectation).toBe(expectation);
    expect(error.position).toBe(position);
    expect(error.message).toBe(`Syntax error "${expectation}" at character ${position}: ${input}`);
  });

  it('refuses nesting deeper than the limit, and accepts it at the limit', () => {
    const nested = (depth: number) => `${'a{'.repeat(depth)}b${'}'.repeat(depth)}`;
    expect(() => parseFields(nested(MAX_FIELDS_DEPTH))).not.toThrow();
    expect(syntaxError(nested(MAX_FIELDS_DEPTH + 1)).expectation).toBe(`Nesting deeper than ${MAX_FIELDS_DEPTH} levels.`);
  });

  it('refuses an over-long field list without parsing it', () => {
    expect(syntaxError('a,'.repeat(5000)).expectation).toMatch(/^Field list longer than/);
  });
});
