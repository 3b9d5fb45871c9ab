import type { FieldViolation } from '../../lib/errors.ts';
import { ownValue } from '../../lib/own-value.ts';
import { exceedsInt64, parseInt64, parseUint64, INT32_MAX, INT32_MIN } from '../../lib/int64.ts';
import { GENDER_TYPES } from '../../contracts/user-records.ts';
import type { ListColumnInput, ListParamsInput } from './user-example.types.ts';
import { exceedsRunes, hasNulCharacter, MESSAGES, tooLongMessage } from './user-example.validation.ts';

/**
 * The List request's paging, sorting and condition language (the reference's api.types.Params), checked and turned into a
 * small query description that the repository compiles to parameterised SQL. Unlike the reference, every column, operator,
 * logic and sort key is checked here, so nothing unknown reaches the database and out-of-range paging is an error, not a
 * silent clamp.
 */

export type ColumnType = 'uint64' | 'int64' | 'int32' | 'enum' | 'text' | 'timestamp';

/** Filterable and sortable columns: database names (the reference's), with the JSON names accepted as aliases. */
export const LIST_COLUMNS = {
  id: 'uint64',
  name: 'text',
  email: 'text',
  phone: 'text',
  avatar: 'text',
  age: 'int32',
  gender: 'enum',
  status: 'int32',
  login_at: 'int64',
  created_at: 'timestamp',
  updated_at: 'timestamp',
} as const satisfies Record<string, ColumnType>;

export type ListColumn = keyof typeof LIST_COLUMNS;

const ALIASES: Record<string, ListColumn> = { loginAt: 'login_at', createdAt: 'created_at', updatedAt: 'updated_at' };

export type Operator = '=' | '<>' | '>' | '>=' | '<' | '<=' | 'like' | 'in' | 'not in' | 'is null' | 'is not null';

const OPERATORS: Record<string, Operator> = {
  '': '=',
  eq: '=',
  '=': '=',
  neq: '<>',
  '!=': '<>',
  gt: '>',
  '>': '>',
  gte: '>=',
  '>=': '>=',
  lt: '<',
  '<': '<',
  lte: '<=',
  '<=': '<=',
  like: 'like',
  in: 'in',
  notin: 'not in',
  'not in': 'not in',
  isnull: 'is null',
  'is null': 'is null',
  isnotnull: 'is not null',
  'is not null': 'is not null',
};

type Joiner = 'and' | 'or';
type Paren = '(' | ')' | undefined;

const LOGIC: Record<string, { joiner: Joiner; paren: Paren }> = {
  '': { joiner: 'and', paren: undefined },
  and: { joiner: 'and', paren: undefined },
  '&': { joiner: 'and', paren: undefined },
  '&&': { joiner: 'and', paren: undefined },
  or: { joiner: 'or', paren: undefined },
  '|': { joiner: 'or', paren: undefined },
  '||': { joiner: 'or', paren: undefined },
  'and:(': { joiner: 'and', paren: '(' },
  'and:)': { joiner: 'and', paren: ')' },
  'or:(': { joiner: 'or', paren: '(' },
  'or:)': { joiner: 'or', paren: ')' },
};

/** A typed value ready to bind: strings for text, 64-bit integers and timestamps (ISO), numbers for int32. */
export type BoundValue = string | number;

export type Condition =
  | { kind: 'compare'; column: ListColumn; operator: Exclude<Operator, 'in' | 'not in' | 'is null' | 'is not null'>; value: BoundValue }
  | { kind: 'list'; column: ListColumn; operator: 'in' | 'not in'; values: BoundValue[] }
  | { kind: 'null'; column: ListColumn; operator: 'is null' | 'is not null' }
  | { kind: 'and' | 'or'; conditions: Condition[] };

export interface SortKey {
  column: ListColumn;
  direction: 'asc' | 'desc';
}

export interface ListQuery {
  offset: number;
  limit: number;
  sort: SortKey[];
  where: Condition | undefined;
  /** The reference's `sort: "ignore count"`: skip COUNT(*) and report total 0. */
  skipCount: boolean;
}

export interface ListLimits {
  defaultLimit: number;
  maxLimit: number;
}

/**
 * How much one List request may ask of the database, checked before anything is parsed further. The reference bounds
 * none of it; without bounds one request of a few hundred kilobytes binds tens of thousands of values (and past the
 * protocol's parameter limit, lib/database/database-statement-guard.ts) or makes every row match a megabyte-long LIKE pattern.
 */
export const LIST_BOUNDS = {
  /** Conditions in `columns`. */
  maxConditions: 100,
  /** Values of one `in` / `not in` condition. */
  maxInValues: 1000,
  /** Runes of one value (of each item of an `in` list): the longest text a record can store (MAX_LENGTHS.avatar). */
  maxValueRunes: 2048,
  /** Characters of `sort`. */
  maxSortLength: 1024,
} as const;

function resolveColumn(name: string): ListColumn | undefined {
  if (Object.hasOwn(LIST_COLUMNS, name)) return name as ListColumn;
  return ownValue(ALIASES, name);
}

const ALLOWED_COLUMNS = Object.keys(LIST_COLUMNS).join(', ');

/** Checks `params` and returns the query, or every violation found (field paths under `params.`). */
export function parseListParams(
  params: ListParamsInput,
  limits: ListLimits,
): { query: ListQuery; violations: [] } | { query: undefined; violations: FieldViolation[] } {
  const violations: FieldViolation[] = [];
  const page = params.page ?? 0;
  const requestedLimit = params.limit ?? 0;
  if (!Number.isInteger(page) || page < 0) {
    violations.push({ field: 'params.page', description: 'value must be greater than or equal to 0' });
  }
  if (!Number.isInteger(requestedLimit) || requestedLimit < 0 || requestedLimit > limits.maxLimit) {
    violations.push({
      field: 'params.limit',
      description: `value must be inside range [1, ${limits.maxLimit}] (0 or absent means the default, ${limits.defaultLimit})`,
    });
  }
  const limit = requestedLimit === 0 ? limits.defaultLimit : requestedLimit;

  const columns = params.columns ?? [];
  if (columns.length > LIST_BOUNDS.maxConditions) {
    // Nothing else is looked at: every other violation of thousands of conditions is not worth finding or sending.
    return {
      query: undefined,
      violations: [{ field: 'params.columns', description: `value must contain no more than ${LIST_BOUNDS.maxConditions} item(s)` }],
    };
  }
  if ((params.sort ?? '').length > LIST_BOUNDS.maxSortLength) {
    violations.push({ field: 'params.sort', description: `value length must be at most ${LIST_BOUNDS.maxSortLength} bytes` });
    return { query: undefined, violations };
  }
  const sortText = (params.sort ?? '').trim();
  const skipCount = sortText.toLowerCase() === 'ignore count';
  const sort: SortKey[] = [];
  if (!skipCount && sortText !== '') {
    const seen = new Set<ListColumn>();
    for (const rawKey of sortText.replace(/\s+/g, '').split(',')) {
      const descending = rawKey.startsWith('-');
      const name = descending ? rawKey.slice(1) : rawKey.replace(/^\+/, '');
      const column = resolveColumn(name);
      if (!column) {
        violations.push({ field: 'params.sort', description: `unknown sort column '${echo(name)}'; allowed: ${ALLOWED_COLUMNS}` });
        continue;
      }
      if (seen.has(column)) continue;
      seen.add(column);
      sort.push({ column, direction: descending ? 'desc' : 'asc' });
    }
  }
  if (sort.length === 0) sort.push({ column: 'id', direction: 'desc' });
  // A unique last key makes paging stable: rows that tie on the requested keys keep one order across pages.
  if (!sort.some((key) => key.column === 'id')) sort.push({ column: 'id', direction: 'desc' });

  const where = parseColumns(columns, violations);

  if (violations.length > 0) return { query: undefined, violations };
  return { query: { offset: page * limit, limit, sort, where, skipCount }, violations: [] };
}

type Token = { kind: 'condition'; condition: Condition } | { kind: 'joiner'; joiner: Joiner } | { kind: 'paren'; paren: '(' | ')' };

function parseColumns(columns: readonly ListColumnInput[], violations: FieldViolation[]): Condition | undefined {
  if (columns.length === 0) return undefined;
  const tokens: Token[] = [];
  let depth = 0;
  let balanced = true;
  columns.forEach((input, index) => {
    const at = `params.columns[${index}]`;
    const condition = parseCondition(input, at, violations);
    const logicText = (input.logic ?? '').trim();
    const logic = ownValue(LOGIC, logicText) ?? ownValue(LOGIC, logicText.toLowerCase());
    if (!logic) {
      violations.push({
        field: `${at}.logic`,
        description: `unsupported logic type '${echo(logicText)}'; allowed: and, or, &, &&, |, ||, and:(, and:), or:(, or:)`,
      });
      return;
    }
    if (logic.paren === '(') {
      tokens.push({ kind: 'paren', paren: '(' });
      depth++;
    }
    if (condition) tokens.push({ kind: 'condition', condition });
    if (logic.paren === ')') {
      tokens.push({ kind: 'paren', paren: ')' });
      depth--;
      if (depth < 0) balanced = false;
    }
    // The logic of a column joins it to the next one; the last column's joiner is ignored.
    if (index < columns.length - 1) tokens.push({ kind: 'joiner', joiner: logic.joiner });
  });
  if (!balanced || depth !== 0) {
    violations.push({ field: 'params.columns', description: 'mismatched parentheses in logic' });
  }
  if (violations.length > 0) return undefined;
  return new ConditionParser(tokens).parse();
}

/** Precedence parser over the token stream: parentheses, then AND, then OR, as in SQL. */
class ConditionParser {
  private position = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): Condition {
    return this.or();
  }

  private or(): Condition {
    const parts = [this.and()];
    while (this.peekJoiner('or')) {
      this.position++;
      parts.push(this.and());
    }
    return parts.length === 1 ? parts[0]! : { kind: 'or', conditions: parts };
  }

  private and(): Condition {
    const parts = [this.primary()];
    while (this.peekJoiner('and')) {
      this.position++;
      parts.push(this.primary());
    }
    return parts.length === 1 ? parts[0]! : { kind: 'and', conditions: parts };
  }

  private primary(): Condition {
    const token = this.tokens[this.position++];
    if (token?.kind === 'condition') return token.condition;
    if (token?.kind === 'paren' && token.paren === '(') {
      const inner = this.or();
      this.position++; // the matching ')' (balance was checked before parsing)
      return inner;
    }
    throw new Error('unbalanced condition tokens'); // unreachable after the balance check
  }

  private peekJoiner(joiner: Joiner): boolean {
    const token = this.tokens[this.position];
    return token?.kind === 'joiner' && token.joiner === joiner;
  }
}

function parseCondition(input: ListColumnInput, at: string, violations: FieldViolation[]): Condition | undefined {
  const name = (input.name ?? '').trim();
  const column = resolveColumn(name);
  const expText = (input.exp ?? '').trim();
  const operator = ownValue(OPERATORS, expText.toLowerCase());
  let ok = true;
  if (!column) {
    violations.push({ field: `${at}.name`, description: `field name '${echo(name)}' is not allowed; allowed: ${ALLOWED_COLUMNS}` });
    ok = false;
  }
  if (!operator) {
    violations.push({
      field: `${at}.exp`,
      description: `unsupported exp type '${echo(expText)}'; allowed: eq, neq, gt, gte, lt, lte, like, in, notin, isnull, isnotnull (or =, !=, >, >=, <, <=, not in, is null, is not null)`,
    });
    ok = false;
  }
  if (!ok || !column || !operator) return undefined;

  if (operator === 'is null' || operator === 'is not null') return { kind: 'null', column, operator };

  const type = LIST_COLUMNS[column];
  const raw = input.value;
  if (raw === undefined || raw === null) {
    violations.push({ field: `${at}.value`, description: `field 'value' cannot be nil for exp '${echo(expText || 'eq')}'` });
    return undefined;
  }
  if (operator !== 'in' && operator !== 'not in' && exceedsRunes(raw, LIST_BOUNDS.maxValueRunes)) {
    violations.push({ field: `${at}.value`, description: tooLongMessage(LIST_BOUNDS.maxValueRunes) });
    return undefined;
  }
  // No stored text can hold U+0000, and PostgreSQL refuses it as a parameter.
  if (hasNulCharacter(raw)) {
    violations.push({ field: `${at}.value`, description: MESSAGES.nulCharacter });
    return undefined;
  }
  if (operator === 'like') {
    if (type !== 'text') {
      violations.push({ field: `${at}.exp`, description: `like needs a text column; '${column}' is ${type}` });
      return undefined;
    }
    const pattern = likePattern(unquote(raw));
    // A caller's own pattern may end in a lone escape character, which PostgreSQL refuses at run time.
    if (/(?:^|[^\\])(?:\\\\)*\\$/.test(pattern)) {
      violations.push({ field: `${at}.value`, description: "like pattern must not end with the escape character '\\'" });
      return undefined;
    }
    return { kind: 'compare', column, operator, value: pattern };
  }
  if (operator === 'in' || operator === 'not in') {
    const items = raw.split(',', LIST_BOUNDS.maxInValues + 1);
    if (items.length > LIST_BOUNDS.maxInValues) {
      violations.push({
        field: `${at}.value`,
        description: `value must list no more than ${LIST_BOUNDS.maxInValues} item(s) for exp '${echo(expText)}'`,
      });
      return undefined;
    }
    const values: BoundValue[] = [];
    for (const item of items) {
      if (exceedsRunes(item, LIST_BOUNDS.maxValueRunes)) {
        violations.push({ field: `${at}.value`, description: tooLongMessage(LIST_BOUNDS.maxValueRunes) });
        return undefined;
      }
      const value = convertValue(unquote(item.trim()), type);
      if (value === undefined) {
        violations.push({ field: `${at}.value`, description: describeBadValue(item.trim(), column, type) });
        return undefined;
      }
      values.push(value);
    }
    return { kind: 'list', column, operator, values };
  }
  const value = convertValue(unquote(raw.trim()), type);
  if (value === undefined) {
    violations.push({ field: `${at}.value`, description: describeBadValue(raw, column, type) });
    return undefined;
  }
  return { kind: 'compare', column, operator, value };
}

/** Client text repeated in a violation, cut to a length that identifies it (the request may hold a megabyte of it). */
function echo(text: string): string {
  if (text.length <= 64) return text;
  // Never between the two halves of a surrogate pair.
  const cut = /[\uD800-\uDBFF]$/.test(text.slice(0, 63)) ? text.slice(0, 62) : text.slice(0, 63);
  return `${cut}…`;
}

/** The reference keeps a value in double quotes as a string; for typed columns the quotes are just removed. */
function unquote(value: string): string {
  if (value.length >= 2 && ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'")))) {
    return value.slice(1, -1);
  }
  return value;
}

/** `%v%` unless the caller already placed a wildcard at either end; inner wildcards of a wrapped value are escaped. */
function likePattern(value: string): string {
  if (/^[%_]|[%_]$/.test(value)) return value;
  return `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:?\d{2}| [+-]\d{2}:\d{2})?)?$/i;

function convertValue(text: string, type: ColumnType): BoundValue | undefined {
  switch (type) {
    case 'text':
      return text;
    case 'uint64': {
      // Ids are stored as PostgreSQL bigint; a larger uint64 cannot even be bound against the column.
      const value = parseUint64(text);
      return value !== undefined && !exceedsInt64(value) ? value : undefined;
    }
    case 'int64':
      return parseInt64(text);
    case 'int32': {
      if (!/^-?\d{1,10}$/.test(text)) return undefined;
      const value = Number(text);
      return value >= INT32_MIN && value <= INT32_MAX ? value : undefined;
    }
    case 'enum': {
      const byName = ownValue<number>(GENDER_TYPES, text.toUpperCase());
      if (byName !== undefined) return byName;
      return convertValue(text, 'int32');
    }
    case 'timestamp': {
      if (!TIMESTAMP.test(text)) return undefined;
      // Date.parse rolls an impossible day over (2024-02-30 → March 1); the written date must exist.
      const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
      const calendar = new Date(Date.UTC(year, month - 1, day));
      if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return undefined;
      const normalised = text.replace(' ', 'T').replace(/ ([+-])/, '$1');
      const time = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(normalised) || normalised.length === 10 ? normalised : `${normalised}Z`);
      return Number.isNaN(time) ? undefined : new Date(time).toISOString();
    }
  }
}

function describeBadValue(value: string, column: ListColumn, type: ColumnType): string {
  const expected: Record<ColumnType, string> = {
    text: 'text',
    uint64: 'an unsigned 64-bit integer no greater than 9223372036854775807 (ids are stored as bigint)',
    int64: 'a 64-bit integer',
    int32: 'a 32-bit integer',
    enum: 'a GenderType name or number',
    timestamp: 'an RFC 3339 time or a date (YYYY-MM-DD)',
  };
  return `value '${echo(value)}' is not valid for column '${column}': expected ${expected[type]}`;
}
