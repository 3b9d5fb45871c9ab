import {
  sql,
  type Expression,
  type ExpressionBuilder,
  type Generated,
  type Kysely,
  type SqlBool,
  type Transaction,
  type Updateable,
} from 'kysely';
import { AlreadyExistsError } from '../../lib/errors.ts';
import { anyBigint } from '../../lib/database/any-bigint.ts';
import { isUniqueViolation } from '../../lib/database/database.ts';
import type { Condition, ListQuery } from './list-params.ts';
import type { UserExample, UpdateUserExamplePatch } from './user-example.types.ts';

/** The users subgraph's tables, as Kysely sees them. 64-bit columns are decimal strings. */
export interface UserExampleTable {
  id: Generated<string>;
  name: string;
  email: string;
  password_hash: string;
  phone: string;
  avatar: string;
  age: number;
  gender: number;
  status: Generated<number>;
  login_at: Generated<string>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  deleted_at: Date | null;
}

// A type alias (not an interface) so that it satisfies Kysely's table-map constraint.
export type UsersTables = {
  'users.user_example': UserExampleTable;
};

export type UsersDb = Kysely<UsersTables> | Transaction<UsersTables>;

const TABLE = 'users.user_example';

const PUBLIC_COLUMNS = [
  'id',
  'name',
  'email',
  'phone',
  'avatar',
  'age',
  'gender',
  'status',
  'login_at',
  'created_at',
  'updated_at',
] as const;

type PublicRow = Pick<UserExampleTable, 'name' | 'email' | 'phone' | 'avatar' | 'age' | 'gender' | 'deleted_at'> & {
  id: string;
  status: number;
  login_at: string;
  created_at: Date;
  updated_at: Date;
};

/** snake_case row → domain object: the one place where the mapping happens. */
function toUserExample(row: Omit<PublicRow, 'deleted_at'>): UserExample {
  return {
    id: String(row.id),
    name: row.name,
    email: row.email,
    phone: row.phone,
    avatar: row.avatar,
    age: row.age,
    gender: row.gender,
    status: row.status,
    loginAt: String(row.login_at),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function conflictOnEmail(error: unknown): never {
  if (isUniqueViolation(error)) throw new AlreadyExistsError('a user with this email already exists', { field: 'email' });
  throw error;
}

export interface NewUserExampleRow {
  name: string;
  email: string;
  passwordHash: string;
  phone: string;
  avatar: string;
  age: number;
  gender: number;
}

/** Inserts a record; AlreadyExistsError when the e-mail is taken by a live record. */
export async function insertUserExample(db: UsersDb, row: NewUserExampleRow): Promise<string> {
  try {
    const inserted = await db
      .insertInto(TABLE)
      .values({
        name: row.name,
        email: row.email,
        password_hash: row.passwordHash,
        phone: row.phone,
        avatar: row.avatar,
        age: row.age,
        gender: row.gender,
        deleted_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return String(inserted.id);
  } catch (error) {
    return conflictOnEmail(error);
  }
}

/** The live record with this id, or undefined. */
export async function findUserExampleById(db: UsersDb, id: string): Promise<UserExample | undefined> {
  const row = await db.selectFrom(TABLE).select(PUBLIC_COLUMNS).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  return row ? toUserExample(row) : undefined;
}

/** Live records for many ids at once (entity batches); missing ids are simply absent. */
export async function findUserExamplesByIds(db: UsersDb, ids: readonly string[]): Promise<UserExample[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom(TABLE).select(PUBLIC_COLUMNS).where('id', '=', anyBigint(ids)).where('deleted_at', 'is', null).execute();
  return rows.map(toUserExample);
}

/**
 * Writes exactly the fields present in the patch (presence, not "non-zero means set"). Returns false when no live record
 * has the id.
 */
export async function updateUserExample(
  db: UsersDb,
  id: string,
  patch: Omit<UpdateUserExamplePatch, 'password'> & { passwordHash?: string },
): Promise<boolean> {
  const values: Updateable<UserExampleTable> = {};
  if (patch.name !== undefined) values.name = patch.name;
  if (patch.email !== undefined) values.email = patch.email;
  if (patch.passwordHash !== undefined) values.password_hash = patch.passwordHash;
  if (patch.phone !== undefined) values.phone = patch.phone;
  if (patch.avatar !== undefined) values.avatar = patch.avatar;
  if (patch.age !== undefined) values.age = patch.age;
  if (patch.gender !== undefined) values.gender = patch.gender;
  if (patch.status !== undefined) values.status = patch.status;
  if (patch.loginAt !== undefined) values.login_at = patch.loginAt;
  try {
    const result = await db
      .updateTable(TABLE)
      .set({ ...values, updated_at: sql<Date>`now()` })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  } catch (error) {
    return conflictOnEmail(error);
  }
}

/** Soft-deletes a live record (the reference keeps deleted rows). Returns false when none had the id. */
export async function softDeleteUserExample(db: UsersDb, id: string): Promise<boolean> {
  const result = await db
    .updateTable(TABLE)
    .set({ deleted_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

type Eb = ExpressionBuilder<UsersTables, typeof TABLE>;

function compile(eb: Eb, condition: Condition): Expression<SqlBool> {
  switch (condition.kind) {
    case 'and':
      return eb.and(condition.conditions.map((inner) => compile(eb, inner)));
    case 'or':
      return eb.or(condition.conditions.map((inner) => compile(eb, inner)));
    case 'null':
      return eb(condition.column, condition.operator === 'is null' ? 'is' : 'is not', null);
    case 'list':
      return eb(condition.column, condition.operator, condition.values);
    case 'compare':
      if (condition.operator === 'like') {
        return sql<SqlBool>`${sql.ref(condition.column)} like ${condition.value} escape '\\'`;
      }
      return eb(condition.column, condition.operator, condition.value);
  }
}

/** One page of live records and, unless skipped, the number of records matching the conditions. */
export async function listUserExamples(db: UsersDb, query: ListQuery): Promise<{ total: string; rows: UserExample[] }> {
  const base = db
    .selectFrom(TABLE)
    .where('deleted_at', 'is', null)
    .$if(query.where !== undefined, (qb) => qb.where((eb) => compile(eb, query.where!)));

  let select = base.select(PUBLIC_COLUMNS).limit(query.limit).offset(query.offset);
  for (const key of query.sort) select = select.orderBy(key.column, key.direction);

  const [rows, count] = await Promise.all([
    select.execute(),
    query.skipCount ? Promise.resolve(undefined) : base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { total: count ? String(count.total) : '0', rows: rows.map(toUserExample) };
}
