import { describe, expect, it } from 'vitest';
import { parseListParams, type Condition, type ListQuery } from '../../subgraphs/users/list-params.ts';
import type { ListColumnInput, ListParamsInput } from '../../subgraphs/users/user-example.types.ts';
import {
  COLUMN_TAKES,
  columnNotAllowed,
  invalidColumnValue,
  LIST_RULE,
  likeNeedsText,
  unknownSortColumn,
  unsupportedExp,
  unsupportedLogic,
  valueIsNil,
} from '../support/user-example-errors.ts';

const LIMITS = { defaultLimit: 20, maxLimit: 1000 };

function parse(params: ListParamsInput): ListQuery {
  const result = parseListParams(params, LIMITS);
  expect(result.violations).toEqual([]);
  return result.query!;
}

function violations(params: ListParamsInput) {
  const result = parseListParams(params, LIMITS);
  expect(result.query).toBeUndefined();
  return result.violations;
}

/** The condition of a single column. */
function where(column: ListColumnInput): Condition | undefined {
  return parse({ columns: [column] }).where;
}

/** Shorthand for an `age = n` condition, as the parser builds it. */
const age = (value: number): Condition => ({ kind: 'compare', column: 'age', operator: '=', value });

describe('paging', () => {
  it('defaults to page 0, the default limit, -id and no conditions', () => {
    expect(parse({})).toEqual({ offset: 0, limit: 20, sort: [{ column: 'id', direction: 'desc' }], where: undefined, skipCount: false });
  });

  it('takes null fields as absent', () => {
    expect(parse({ page: null, limit: null, sort: null, columns: null })).toEqual(parse({}));
  });

  it('turns a limit of 0 into the default', () => {
    expect(parse({ limit: 0 }).limit).toBe(20);
  });

  it('computes the offset from page and limit', () => {
    expect(parse({ page: 3, limit: 25 })).toMatchObject({ offset: 75, limit: 25 });
    expect(parse({ page: 2 })).toMatchObject({ offset: 40, limit: 20 });
  });

  it('accepts the maximum limit and refuses one above it (no silent clamp)', () => {
    expect(parse({ limit: 1000 }).limit).toBe(1000);
    expect(violations({ limit: 1001 })).toEqual([{ field: 'params.limit', description: LIST_RULE.limit }]);
  });

  it('refuses a negative limit and a negative or fractional page', () => {
    expect(violations({ page: -1, limit: -1 })).toEqual([
      { field: 'params.page', description: LIST_RULE.page },
      { field: 'params.limit', description: LIST_RULE.limit },
    ]);
    expect(violations({ page: 1.5 })).toEqual([{ field: 'params.page', description: LIST_RULE.page }]);
  });
});

describe('sort', () => {
  it('parses - as descending and + or nothing as ascending, and appends id as the tiebreaker', () => {
    expect(parse({ sort: '-age,+name,email' }).sort).toEqual([
      { column: 'age', direction: 'desc' },
      { column: 'name', direction: 'asc' },
      { column: 'email', direction: 'asc' },
      { column: 'id', direction: 'desc' },
    ]);
  });

  it('does not append id when id is already a key', () => {
    expect(parse({ sort: 'id,age' }).sort).toEqual([
      { column: 'id', direction: 'asc' },
      { column: 'age', direction: 'asc' },
    ]);
  });

  it('ignores white space and repeated keys, and accepts JSON names', () => {
    expect(parse({ sort: ' - age , loginAt, age, createdAt ' }).sort).toEqual([
      { column: 'age', direction: 'desc' },
      { column: 'login_at', direction: 'asc' },
      { column: 'created_at', direction: 'asc' },
      { column: 'id', direction: 'desc' },
    ]);
  });

  it('treats "ignore count" (any case) as skipping the count, sorted by -id', () => {
    for (const sort of ['ignore count', ' IGNORE COUNT ']) {
      expect(parse({ sort })).toMatchObject({ skipCount: true, sort: [{ column: 'id', direction: 'desc' }] });
    }
  });

  it('names each unknown sort key, including columns that exist but are not public', () => {
    expect(violations({ sort: 'age,password_hash,-deleted_at' })).toEqual([
      { field: 'params.sort', description: unknownSortColumn('password_hash') },
      { field: 'params.sort', description: unknownSortColumn('deleted_at') },
    ]);
  });
});

describe('operators', () => {
  const aliases: [string, string][] = [
    ['', '='],
    ['eq', '='],
    ['=', '='],
    ['EQ', '='],
    ['neq', '<>'],
    ['!=', '<>'],
    ['gt', '>'],
    ['>', '>'],
    ['gte', '>='],
    ['>=', '>='],
    ['lt', '<'],
    ['<', '<'],
    ['lte', '<='],
    ['<=', '<='],
  ];

  it.each(aliases)('reads exp %j as %s', (exp, operator) => {
    expect(where({ name: 'age', exp, value: '7' })).toEqual({ kind: 'compare', column: 'age', operator, value: 7 });
  });

  it('treats an absent exp as eq', () => {
    expect(where({ name: 'age', value: '7' })).toEqual(age(7));
  });

  it.each([
    ['in', 'in'],
    ['notin', 'not in'],
    ['not in', 'not in'],
    [' NOTIN ', 'not in'],
  ])('reads exp %j as the list operator %s', (exp, operator) => {
    expect(where({ name: 'age', exp, value: '1,2' })).toEqual({ kind: 'list', column: 'age', operator, values: [1, 2] });
  });

  it.each([
    ['isnull', 'is null'],
    ['is null', 'is null'],
    ['isnotnull', 'is not null'],
    ['is not null', 'is not null'],
  ])('reads exp %j as %s, ignoring any value', (exp, operator) => {
    expect(where({ name: 'phone', exp })).toEqual({ kind: 'null', column: 'phone', operator });
    expect(where({ name: 'phone', exp, value: 'whatever' })).toEqual({ kind: 'null', column: 'phone', operator });
  });

  it('names an unknown operator', () => {
    expect(violations({ columns: [{ name: 'age', exp: '~', value: '1' }] })).toEqual([
      { field: 'params.columns[0].exp', description: unsupportedExp('~') },
    ]);
  });

  it('names an unknown column and a non-public one', () => {
    expect(
      violations({
        columns: [
          { name: 'nickname', value: 'x' },
          { name: 'password_hash', value: 'x' },
        ],
      }),
    ).toEqual([
      { field: 'params.columns[0].name', description: columnNotAllowed('nickname') },
      { field: 'params.columns[1].name', description: columnNotAllowed('password_hash') },
    ]);
  });

  it('reports a column that is both unknown and has an unknown operator twice', () => {
    expect(violations({ columns: [{ name: 'x', exp: 'y', value: '1' }] }).map((v) => v.field)).toEqual([
      'params.columns[0].name',
      'params.columns[0].exp',
    ]);
  });

  it('requires a value for comparisons', () => {
    expect(violations({ columns: [{ name: 'age', exp: 'gt' }] })).toEqual([
      { field: 'params.columns[0].value', description: valueIsNil('gt') },
    ]);
    expect(violations({ columns: [{ name: 'age', value: null }] })).toEqual([
      { field: 'params.columns[0].value', description: valueIsNil('eq') },
    ]);
  });
});

describe('like', () => {
  const like = (value: string) => where({ name: 'name', exp: 'like', value });

  it('wraps a plain value in % and escapes its wildcards and backslashes', () => {
    expect(like('ann')).toEqual({ kind: 'compare', column: 'name', operator: 'like', value: '%ann%' });
    expect(like('100%_sure')).toMatchObject({ value: '%100\\%\\_sure%' });
    expect(like('a\\b')).toMatchObject({ value: '%a\\\\b%' });
  });

  it('keeps a value that already starts or ends with a wildcard as the pattern', () => {
    expect(like('ann%')).toMatchObject({ value: 'ann%' });
    expect(like('%ann')).toMatchObject({ value: '%ann' });
    expect(like('_nn')).toMatchObject({ value: '_nn' });
  });

  it('refuses a caller pattern ending in a lone escape character, and accepts an escaped one', () => {
    for (const text of ['%\\', '_a\\', '%\\\\\\']) {
      expect(violations({ columns: [{ name: 'name', exp: 'like', value: text }] }), text).toEqual([
        { field: 'params.columns[0].value', description: LIST_RULE.likeEndsInEscape },
      ]);
    }
    expect(like('%\\\\')).toMatchObject({ value: '%\\\\' });
    expect(like('a\\')).toMatchObject({ value: '%a\\\\%' });
  });

  it('removes surrounding quotes first', () => {
    expect(like('"ann"')).toMatchObject({ value: '%ann%' });
  });

  it('refuses like on a column that is not text', () => {
    expect(violations({ columns: [{ name: 'age', exp: 'like', value: '1' }] })).toEqual([
      { field: 'params.columns[0].exp', description: likeNeedsText('age', 'int32') },
    ]);
  });
});

describe('in and notin lists', () => {
  it('splits on commas, trims, and removes single or double quotes of each item', () => {
    expect(where({ name: 'name', exp: 'in', value: '"Ann", \'Bob\' ,Cy' })).toEqual({
      kind: 'list',
      column: 'name',
      operator: 'in',
      values: ['Ann', 'Bob', 'Cy'],
    });
  });

  it('converts each item to the column type', () => {
    expect(where({ name: 'id', exp: 'notin', value: '"9223372036854775807", 7' })).toEqual({
      kind: 'list',
      column: 'id',
      operator: 'not in',
      values: ['9223372036854775807', '7'],
    });
    expect(where({ name: 'gender', exp: 'in', value: 'male,FEMALE,0' })).toMatchObject({ values: [1, 2, 0] });
  });

  it('names the first item of the wrong type', () => {
    expect(violations({ columns: [{ name: 'age', exp: 'in', value: '1, x, y' }] })).toEqual([
      { field: 'params.columns[0].value', description: invalidColumnValue('x', 'age', COLUMN_TAKES.int32) },
    ]);
  });
});

describe('typed values', () => {
  const value = (name: string, text: string) => (where({ name, value: text }) as { value: unknown }).value;
  const bad = (name: string, text: string) => violations({ columns: [{ name, value: text }] });

  it('keeps ids exact as canonical strings, up to the largest storable id', () => {
    expect(value('id', '9007199254740993')).toBe('9007199254740993');
    expect(value('id', '9223372036854775807')).toBe('9223372036854775807');
    expect(value('id', '007')).toBe('7');
    expect(value('id', '"42"')).toBe('42');
  });

  it('refuses ids beyond the bigint column (up to uint64 and past it), negative or not numeric', () => {
    for (const text of ['9223372036854775808', '18446744073709551615', '18446744073709551616', '-1', '1e3', 'abc', '']) {
      expect(bad('id', text), text).toEqual([
        { field: 'params.columns[0].value', description: invalidColumnValue(text, 'id', COLUMN_TAKES.id) },
      ]);
    }
  });

  it('keeps int64 login times exact, negative included', () => {
    expect(value('login_at', '-9223372036854775808')).toBe('-9223372036854775808');
    expect(value('loginAt', '9223372036854775807')).toBe('9223372036854775807');
    expect(bad('login_at', '9223372036854775808')[0]?.description).toBe(
      invalidColumnValue('9223372036854775808', 'login_at', COLUMN_TAKES.int64),
    );
  });

  it('takes int32 within range only, as numbers', () => {
    expect(value('age', ' 35 ')).toBe(35);
    expect(value('status', '2147483647')).toBe(2147483647);
    expect(value('status', '-2147483648')).toBe(-2147483648);
    for (const text of ['2147483648', '-2147483649', '1.5', '1e2', 'x']) {
      expect(bad('status', text)[0]?.description, text).toBe(invalidColumnValue(text, 'status', COLUMN_TAKES.int32));
    }
  });

  it('takes gender by name (any case) or number', () => {
    expect(value('gender', 'UNKNOWN')).toBe(0);
    expect(value('gender', 'male')).toBe(1);
    expect(value('gender', 'Female')).toBe(2);
    expect(value('gender', '2')).toBe(2);
    expect(bad('gender', 'other')[0]?.description).toBe(invalidColumnValue('other', 'gender', COLUMN_TAKES.gender));
  });

  it('reads timestamps as RFC 3339 (UTC when no offset is given) or a date', () => {
    expect(value('created_at', '2024-01-02')).toBe('2024-01-02T00:00:00.000Z');
    expect(value('created_at', '2024-02-29')).toBe('2024-02-29T00:00:00.000Z');
    expect(value('created_at', '2024-01-02T03:04:05Z')).toBe('2024-01-02T03:04:05.000Z');
    expect(value('created_at', '2024-01-02T03:04:05.678+08:00')).toBe('2024-01-01T19:04:05.678Z');
    expect(value('updatedAt', '2024-01-02 03:04:05')).toBe('2024-01-02T03:04:05.000Z');
    expect(value('updated_at', '2024-01-02 03:04:05 +08:00')).toBe('2024-01-01T19:04:05.000Z');
  });

  it('refuses text that is not a time', () => {
    for (const text of ['yesterday', '2024-13-01', '2024-02-30', '2023-02-29T00:00:00Z', '02/01/2024', '1704153600']) {
      expect(bad('created_at', text)[0]?.description, text).toBe(invalidColumnValue(text, 'created_at', COLUMN_TAKES.time));
    }
  });

  it('refuses U+0000 in any value (no stored text can hold it)', () => {
    for (const column of [
      { name: 'name', value: 'a\u0000b' },
      { name: 'name', exp: 'like', value: '\u0000' },
      { name: 'email', exp: 'in', value: 'x,\u0000' },
    ]) {
      expect(violations({ columns: [column] }), column.exp).toEqual([{ field: 'params.columns[0].value', description: LIST_RULE.nul }]);
    }
  });

  it('keeps text as given, minus surrounding quotes', () => {
    expect(value('email', 'ann@example.com')).toBe('ann@example.com');
    expect(value('name', '"Ann Lee"')).toBe('Ann Lee');
    expect(value('name', "'Ann'")).toBe('Ann');
    expect(value('name', '"')).toBe('"');
  });
});

describe('logic', () => {
  const col = (n: number, logic?: string): ListColumnInput => ({
    name: 'age',
    value: String(n),
    ...(logic !== undefined ? { logic } : {}),
  });

  it("joins with and by default, and ignores the last column's logic", () => {
    expect(parse({ columns: [col(1), col(2, 'or')] }).where).toEqual({ kind: 'and', conditions: [age(1), age(2)] });
  });

  it('gives AND precedence over OR: a and b or c → or(and(a, b), c)', () => {
    expect(parse({ columns: [col(1, 'and'), col(2, 'or'), col(3)] }).where).toEqual({
      kind: 'or',
      conditions: [{ kind: 'and', conditions: [age(1), age(2)] }, age(3)],
    });
  });

  it('a or b and c → or(a, and(b, c))', () => {
    expect(parse({ columns: [col(1, 'or'), col(2, 'and'), col(3)] }).where).toEqual({
      kind: 'or',
      conditions: [age(1), { kind: 'and', conditions: [age(2), age(3)] }],
    });
  });

  it('accepts the symbol forms &, &&, |, || and any case', () => {
    for (const [and, or] of [
      ['&', '|'],
      ['&&', '||'],
      ['AND', 'OR'],
    ]) {
      expect(parse({ columns: [col(1, and), col(2, or), col(3)] }).where, `${and} ${or}`).toEqual({
        kind: 'or',
        conditions: [{ kind: 'and', conditions: [age(1), age(2)] }, age(3)],
      });
    }
  });

  it('groups with or:( … and:) : a and (b or c)', () => {
    expect(parse({ columns: [col(1, 'and'), col(2, 'or:('), col(3, 'and:)')] }).where).toEqual({
      kind: 'and',
      conditions: [age(1), { kind: 'or', conditions: [age(2), age(3)] }],
    });
  });

  it('groups with and:( … or:) : (a and b) or c, and nests groups', () => {
    expect(parse({ columns: [col(1, 'and:('), col(2, 'or:)'), col(3)] }).where).toEqual({
      kind: 'or',
      conditions: [{ kind: 'and', conditions: [age(1), age(2)] }, age(3)],
    });
    // A column closes its group after itself: ( a or ( b and c ) and d ) → a or ((b and c) and d)
    expect(parse({ columns: [col(1, 'or:('), col(2, 'and:('), col(3, 'and:)'), col(4, 'and:)')] }).where).toEqual({
      kind: 'or',
      conditions: [age(1), { kind: 'and', conditions: [{ kind: 'and', conditions: [age(2), age(3)] }, age(4)] }],
    });
  });

  it('reports mismatched parentheses: unclosed, closed too early, closed before opened', () => {
    const mismatch = [{ field: 'params.columns', description: LIST_RULE.parentheses }];
    expect(violations({ columns: [col(1, 'or:('), col(2)] })).toEqual(mismatch);
    expect(violations({ columns: [col(1, 'and:)'), col(2, 'or:('), col(3, 'and:)')] })).toEqual(mismatch);
    expect(violations({ columns: [col(1, 'and:)')] })).toEqual(mismatch);
  });

  it('names an unknown logic', () => {
    expect(violations({ columns: [col(1, 'xor'), col(2)] })).toEqual([
      { field: 'params.columns[0].logic', description: unsupportedLogic('xor') },
    ]);
  });

  it('reports every problem of the request together', () => {
    expect(
      violations({
        limit: 5000,
        sort: 'nope',
        columns: [
          { name: 'age', value: 'x' },
          { name: 'bogus', exp: 'eq', value: '1' },
        ],
      }).map((violation) => violation.field),
    ).toEqual(['params.limit', 'params.sort', 'params.columns[0].value', 'params.columns[1].name']);
  });
});
