/**
 * The user service's GetByID against a real database (PGlite, or PostgreSQL in the e2e-postgres project): reads asked
 * for in the same turn of the event loop share one SELECT (at most USERS_READ_BATCH_MAX ids each), every caller still
 * gets its own record or its own NOT_FOUND, nothing is cached between turns, and a batch maximum of 1 gives every read
 * its own statement.
 */
import type { Kysely } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../lib/auth/auth.ts';
import type { DatabaseHandle } from '../../lib/database/database.ts';
import { NotFoundError } from '../../lib/errors.ts';
import {
  insertUserExample,
  softDeleteUserExample,
  updateUserExample,
  type UsersTables,
} from '../../subgraphs/users/user-example.repository.ts';
import { createUserExampleService, type UserExampleService } from '../../subgraphs/users/user-example.service.ts';
import { openTestDatabase, useTestDatabase } from '../support/test-system.ts';
import { MISSING_TOKEN, notFound } from '../support/user-example-errors.ts';
import { uniqueEmail } from '../support/user-example-fixtures.ts';

const READER: Actor = { kind: 'user', subject: '1', roles: [] };
const UNUSED_HASHER = {
  hash: () => Promise.reject(new Error('no password is hashed by a read')),
  verify: () => Promise.reject(new Error('no password is verified by a read')),
};

let db: Kysely<UsersTables>;
const ids: string[] = [];
let deletedId: string;

const openDatabase = useTestDatabase();
let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase();
  db = database.db.withTables<UsersTables>();
  for (const name of ['ada', 'bob', 'cyd', 'dee', 'eve']) {
    ids.push(await insertUserExample(db, { name, email: uniqueEmail(name), passwordHash: 'x', phone: '', avatar: '', age: 30, gender: 1 }));
  }
  deletedId = await insertUserExample(db, {
    name: 'gone',
    email: uniqueEmail('gone'),
    passwordHash: 'x',
    phone: '',
    avatar: '',
    age: 1,
    gender: 0,
  });
  await softDeleteUserExample(db, deletedId);
});

function service(readBatchMax: number): UserExampleService {
  return createUserExampleService({ db, passwords: UNUSED_HASHER, listLimits: { defaultLimit: 20, maxLimit: 1000 }, readBatchMax });
}

/** The SELECTs on the user table while `run` goes, and what it returned. */
async function selectsDuring<T>(run: () => Promise<T>): Promise<{ selects: string[]; result: T }> {
  const selects: string[] = [];
  const stop = database.observeQueries((query) => {
    if (/^\s*select\b[\s\S]*"users"\."user_example"/i.test(query.sql)) selects.push(query.sql);
  });
  try {
    return { result: await run(), selects };
  } finally {
    stop();
  }
}

/** Each read settled: the record's name, or the error's class and message. */
function outcomes(reads: Promise<{ name: string }>[]): Promise<string[]> {
  return Promise.all(
    reads.map((read) =>
      read.then(
        (record) => record.name,
        (error: Error) => `${error.constructor.name}: ${error.message}`,
      ),
    ),
  );
}

describe('GetByID reads asked for together', () => {
  it('share one statement, and each caller gets its own record or its own NOT_FOUND', async () => {
    const users = service(100);
    const missing = '9223372036854775807';
    const { selects, result } = await selectsDuring(() =>
      outcomes([ids[0]!, ids[1]!, missing, ids[0]!, deletedId, ids[4]!].map((id) => users.getById(READER, id))),
    );
    expect(result).toEqual(['ada', 'bob', `NotFoundError: ${notFound(missing)}`, 'ada', `NotFoundError: ${notFound(deletedId)}`, 'eve']);
    expect(selects).toHaveLength(1);
    expect(selects[0]).toMatch(/= any\(\$1::bigint\[\]\)/);
  });

  it('go out in statements of at most the batch maximum', async () => {
    const users = service(2);
    const { selects, result } = await selectsDuring(() => outcomes(ids.map((id) => users.getById(READER, id))));
    expect(result).toEqual(['ada', 'bob', 'cyd', 'dee', 'eve']);
    expect(selects).toHaveLength(3);
  });

  it('each run their own statement when the batch maximum is 1', async () => {
    const users = service(1);
    const { selects, result } = await selectsDuring(() => outcomes(ids.map((id) => users.getById(READER, id))));
    expect(result).toEqual(['ada', 'bob', 'cyd', 'dee', 'eve']);
    expect(selects).toHaveLength(5);
  });

  it('are not cached: a read after a committed change sees it, and reads in later turns run again', async () => {
    const users = service(100);
    const first = await selectsDuring(() => users.getById(READER, ids[2]!));
    await updateUserExample(db, ids[2]!, { name: 'cyd renamed' });
    const second = await selectsDuring(() => users.getById(READER, ids[2]!));
    expect([first.result.name, second.result.name]).toEqual(['cyd', 'cyd renamed']);
    expect([first.selects.length, second.selects.length]).toEqual([1, 1]);
    await softDeleteUserExample(db, ids[2]!);
    await expect(users.getById(READER, ids[2]!)).rejects.toThrow(new NotFoundError(notFound(ids[2]!)));
  });

  it('check access before reading: an anonymous read runs no statement', async () => {
    const users = service(100);
    const { selects, result } = await selectsDuring(() => outcomes([users.getById({ kind: 'anonymous' }, ids[0]!)]));
    expect(result).toEqual([`UnauthenticatedError: ${MISSING_TOKEN}`]);
    expect(selects).toEqual([]);
  });

  it('all fail with the statement when it fails, and the next batch runs normally', async () => {
    const users = service(100);
    // A statement that cannot run: the reads' ids are fine, the connection is closed under them.
    const broken = await openTestDatabase();
    const brokenUsers = createUserExampleService({
      db: broken.database.db.withTables<UsersTables>(),
      passwords: UNUSED_HASHER,
      listLimits: { defaultLimit: 20, maxLimit: 1000 },
      readBatchMax: 100,
    });
    await broken.close();
    const failed = await outcomes([brokenUsers.getById(READER, ids[0]!), brokenUsers.getById(READER, ids[1]!)]);
    expect(failed).toHaveLength(2);
    expect(failed[0]).toBe(failed[1]);
    expect(failed[0]).not.toMatch(/^NotFoundError/);
    expect(await outcomes([users.getById(READER, ids[0]!)])).toEqual(['ada']);
  });
});
