/**
 * The Graph API's field-expansion grammar (`fields=` of Areas B and C), parsed by a small recursive-descent parser:
 *
 *   fields    := field ( ',' field )*
 *   field     := name modifier* selection?
 *   modifier  := '.' name '(' argument ')'        e.g. .limit(5) .after(QVFI) .as(alias) .username(bluebottle)
 *   selection := '{' fields '}'                   nests to any depth
 *   name      := [A-Za-z_][A-Za-z0-9_]*
 *   argument  := any characters but ')' and '(' (cursors, user names, times such as "2024-01-01 12:00")
 *
 * Blanks around tokens are allowed. Malformed input raises FieldsSyntaxError with the Graph API's wording
 * (`Syntax error "Expected name." at character 5: id,,text`); what a field or modifier means is checked later, against
 * the node type it applies to.
 */

export interface FieldModifier {
  name: string;
  argument: string;
  /** Zero-based offset of the modifier's name in the input, for error messages. */
  position: number;
}

export interface FieldSelection {
  name: string;
  modifiers: FieldModifier[];
  /** The nested selection, when braces were given. */
  selection: FieldSelection[] | undefined;
  position: number;
}

export class FieldsSyntaxError extends Error {
  constructor(
    readonly expectation: string,
    readonly position: number,
    readonly input: string,
  ) {
    super(`Syntax error "${expectation}" at character ${position}: ${input}`);
    this.name = 'FieldsSyntaxError';
  }
}

/** Longest `fields` value accepted, so that a hostile request cannot make the parser recurse without bound. */
export const MAX_FIELDS_LENGTH = 8192;
/** Deepest nesting of braces accepted. */
export const MAX_FIELDS_DEPTH = 16;

const NAME_START = /[A-Za-z_]/;
const NAME_PART = /[A-Za-z0-9_]/;

export function parseFields(input: string): FieldSelection[] {
  if (input.length > MAX_FIELDS_LENGTH) {
    throw new FieldsSyntaxError(`Field list longer than ${MAX_FIELDS_LENGTH} characters.`, MAX_FIELDS_LENGTH, input.slice(0, 64));
  }
  const parser = new Parser(input);
  const fields = parser.fieldList(0);
  parser.end();
  return fields;
}

class Parser {
  private at = 0;
  constructor(private readonly input: string) {}

  fieldList(depth: number): FieldSelection[] {
    const fields = [this.field(depth)];
    this.blanks();
    while (this.peek() === ',') {
      this.at++;
      fields.push(this.field(depth));
      this.blanks();
    }
    return fields;
  }

  end(): void {
    this.blanks();
    if (this.at < this.input.length) this.fail('Expected end of string instead of "' + this.peek() + '".');
  }

  private field(depth: number): FieldSelection {
    this.blanks();
    const position = this.at;
    const name = this.name();
    const modifiers: FieldModifier[] = [];
    this.blanks();
    while (this.peek() === '.') {
      this.at++;
      this.blanks();
      const modifierPosition = this.at;
      const modifierName = this.name();
      this.blanks();
      this.expect('(');
      const argument = this.argument();
      this.expect(')');
      if (modifiers.some((modifier) => modifier.name === modifierName)) {
        this.fail(`Modifier ${modifierName} given twice.`, modifierPosition);
      }
      modifiers.push({ name: modifierName, argument, position: modifierPosition });
      this.blanks();
    }
    let selection: FieldSelection[] | undefined;
    if (this.peek() === '{') {
      if (depth + 1 > MAX_FIELDS_DEPTH) this.fail(`Nesting deeper than ${MAX_FIELDS_DEPTH} levels.`);
      this.at++;
      selection = this.fieldList(depth + 1);
      this.blanks();
      this.expect('}');
    }
    return { name, modifiers, selection, position };
  }

  private name(): string {
    const start = this.at;
    if (!NAME_START.test(this.peek())) this.fail('Expected name.');
    this.at++;
    while (NAME_PART.test(this.peek())) this.at++;
    return this.input.slice(start, this.at);
  }

  private argument(): string {
    const start = this.at;
    while (this.at < this.input.length && this.peek() !== ')') {
      if (this.peek() === '(') this.fail('Expected ")".');
      this.at++;
    }
    return this.input.slice(start, this.at).trim();
  }

  private expect(char: string): void {
    if (this.peek() !== char) this.fail(`Expected "${char}".`);
    this.at++;
  }

  private blanks(): void {
    while (this.peek() === ' ' || this.peek() === '\t' || this.peek() === '\n' || this.peek() === '\r') this.at++;
  }

  private peek(): string {
    return this.input.charAt(this.at);
  }

  private fail(expectation: string, position = this.at): never {
    throw new FieldsSyntaxError(expectation, position, this.input);
  }
}

/** The text of a parsed field list, in the grammar above (for the `fields` of next/previous links of nested edges). */
export function serializeFields(fields: readonly FieldSelection[]): string {
  return fields
    .map(
      (field) =>
        field.name +
        field.modifiers.map((modifier) => `.${modifier.name}(${modifier.argument})`).join('') +
        (field.selection ? `{${serializeFields(field.selection)}}` : ''),
    )
    .join(',');
}
