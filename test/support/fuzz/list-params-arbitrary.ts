import fc from 'fast-check';
import { NUMBER_LIKE_TEXTS, PROTOTYPE_NAMES, hostileString } from './hostile-values.ts';

/**
 * Area A's List `params` (sponge's api.types.Params), generated along its grammar (README "List params",
 * subgraphs/users/list-params.ts) so that most requests get past the JSON decoding and reach the parser, the SQL builder
 * and the database: real column names with values of the wrong type, every operator and logic spelling, unbalanced
 * groups, huge `in` lists, thousands of columns, and ids written as "1e3", "-1" or 2^64.
 *
 * The model is transport-neutral: REST writes it as JSON (with type confusion on top), gRPC as the proto message.
 */

export interface ColumnModel {
  name?: string;
  exp?: string;
  value?: string;
  logic?: string;
}

export interface ListParamsModel {
  /** A number, or a text (REST writes it as a JSON string; gRPC cannot carry it and uses 0). */
  page?: number | string;
  limit?: number | string;
  sort?: string;
  columns?: ColumnModel[];
}

const COLUMN_TYPES = {
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
  loginAt: 'int64',
  createdAt: 'timestamp',
  updatedAt: 'timestamp',
} as const;

type ColumnType = (typeof COLUMN_TYPES)[keyof typeof COLUMN_TYPES];

const KNOWN_COLUMNS = Object.keys(COLUMN_TYPES) as (keyof typeof COLUMN_TYPES)[];

export const LIST_OPERATORS = [
  '',
  'eq',
  '=',
  'neq',
  '!=',
  'gt',
  '>',
  'gte',
  '>=',
  'lt',
  '<',
  'lte',
  '<=',
  'like',
  'in',
  'notin',
  'not in',
  'isnull',
  'is null',
  'isnotnull',
  'is not null',
] as const;

export const LIST_LOGIC = ['', 'and', '&', '&&', 'or', '|', '||', 'and:(', 'or:(', 'and:)', 'or:)'] as const;

const columnName = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...KNOWN_COLUMNS) },
  { weight: 2, arbitrary: fc.constantFrom('password', 'deleted_at', 'ID', 'Name', 'name;drop table x', 'user_example.id', '', ' id') },
  { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
  { weight: 1, arbitrary: hostileString({ maxLength: 2_000 }) },
);

const operator = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...LIST_OPERATORS) },
  { weight: 1, arbitrary: fc.constantFrom('EQ', 'In', 'IS NULL', 'not  in', 'between', '~', '@@', ...PROTOTYPE_NAMES) },
  { weight: 1, arbitrary: hostileString({ maxLength: 100 }) },
);

const logic = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...LIST_LOGIC) },
  { weight: 1, arbitrary: fc.constantFrom('AND', 'Or:(', 'and:((', 'xor', ':(', ...PROTOTYPE_NAMES) },
  { weight: 1, arbitrary: hostileString({ maxLength: 100 }) },
);

function scalarFor(type: ColumnType): fc.Arbitrary<string> {
  const integers = fc.oneof(fc.constantFrom(...NUMBER_LIKE_TEXTS), fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String));
  switch (type) {
    case 'uint64':
    case 'int64':
    case 'int32':
      return integers;
    case 'enum':
      return fc.oneof(fc.constantFrom('MALE', 'FEMALE', 'UNKNOWN', 'male', '0', '1', '2', '3', '-1', '1e0', 'OTHER'), integers);
    case 'timestamp':
      return fc.oneof(
        fc.constantFrom(
          '2024-01-01',
          '2024-01-01T00:00:00Z',
          '2024-01-01 12:00',
          '2024-13-45',
          '0000-00-00',
          '99999-01-01',
          '-infinity',
          'infinity',
          'epoch',
          'now',
          'yesterday',
          '1e3',
          '1700000000',
          'allballs',
        ),
        fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
        integers,
      );
    case 'text':
      return fc.oneof(
        fc.constantFrom('%', '_', '%_%', '\\', '%\\%', 'a%', '%a', "O'Brien", '@example.com'),
        hostileString({ maxLength: 5_000 }),
      );
  }
}

/** A value fitting the column and operator most of the time: `in` lists of any length, `like` patterns, wrong types. */
function valueFor(name: string | undefined, exp: string | undefined): fc.Arbitrary<string | undefined> {
  const type: ColumnType = (
    name !== undefined && Object.hasOwn(COLUMN_TYPES, name) ? COLUMN_TYPES[name as keyof typeof COLUMN_TYPES] : 'text'
  ) as ColumnType;
  const one = scalarFor(type);
  const listy = exp !== undefined && /in$/i.test(exp.trim());
  // Items of a long list stay short: a request is bounded by the body limit anyway, and the generator by memory.
  const list = fc
    .tuple(
      one.filter((item) => item.length <= 40),
      fc.oneof(fc.nat({ max: 12 }), fc.integer({ min: 900, max: 1_100 }), fc.integer({ min: 5_000, max: 40_000 })),
    )
    .map(([value, count]) => Array.from({ length: Math.max(1, count) }, (_, index) => (index % 3 === 0 ? value : String(index))).join(','));
  return fc.oneof(
    { weight: listy ? 2 : 6, arbitrary: one },
    { weight: listy ? 6 : 1, arbitrary: list },
    { weight: 1, arbitrary: fc.constantFrom(undefined, '', ',', ',,,', '1,,2', ' , ') },
  );
}

export const columnModel: fc.Arbitrary<ColumnModel> = fc
  .record({
    name: fc.option(columnName, { nil: undefined, freq: 20 }),
    exp: fc.option(operator, { nil: undefined, freq: 6 }),
    logic: fc.option(logic, { nil: undefined, freq: 4 }),
  })
  .chain((column) =>
    valueFor(column.name, column.exp).map((value): ColumnModel => ({ ...column, ...(value !== undefined ? { value } : {}) })),
  );

const sortKey = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.tuple(fc.constantFrom('', '-', '+', ' -'), fc.constantFrom(...KNOWN_COLUMNS)).map(([sign, name]) => sign + name),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom('--', '-+', '+-'), fc.constantFrom(...KNOWN_COLUMNS)).map(([sign, name]) => sign + name),
  },
  { weight: 1, arbitrary: columnName },
);

const sort = fc.oneof(
  { weight: 12, arbitrary: fc.array(sortKey, { maxLength: 4 }).map((keys) => keys.join(',')) },
  { weight: 1, arbitrary: fc.constantFrom('ignore count', 'IGNORE COUNT', ' ignore  count ', '', ',', '-', '-,-', 'age desc', 'id;') },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1_000, max: 200_000 }).map((n) =>
      Array.from({ length: Math.ceil(n / 4) }, () => '-age')
        .join(',')
        .slice(0, n),
    ),
  },
);

/** Mostly in range (so that a request gets past paging to the conditions), sometimes any edge value. */
const pagingNumber = (max: number) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.integer({ min: 0, max }) },
    { weight: 1, arbitrary: fc.integer({ min: -2, max: 1_002 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(2_147_483_647, -2_147_483_648, 2_147_483_648, 4_294_967_296, 9_007_199_254_740_991, 1e21, 0.5, -0),
    },
    { weight: 1, arbitrary: fc.constantFrom(...NUMBER_LIKE_TEXTS) },
  );

/** A column whose JSON stays small, for requests with thousands of them. */
const smallColumn = columnModel.filter(
  (column) => (column.value?.length ?? 0) + (column.name?.length ?? 0) + (column.exp?.length ?? 0) + (column.logic?.length ?? 0) < 200,
);

/** Columns: usually a handful, sometimes thousands (one request must not be able to bind tens of thousands of values). */
const columns = fc.oneof(
  { weight: 10, arbitrary: fc.array(columnModel, { maxLength: 6 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.array(smallColumn, { minLength: 1, maxLength: 3 }), fc.integer({ min: 90, max: 5_000 }))
      .map(([pattern, count]) => Array.from({ length: count }, (_, index) => pattern[index % pattern.length]!)),
  },
);

export const listParamsModel: fc.Arbitrary<ListParamsModel> = fc.record(
  { page: pagingNumber(3), limit: pagingNumber(1_000), sort, columns },
  { requiredKeys: [] },
);
