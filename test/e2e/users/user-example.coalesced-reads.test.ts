import type { ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertUserExample, softDeleteUserExample, type UsersTables } from '../../../subgraphs/users/user-example.repository.ts';
import { createGraphqlClient, serviceError } from '../../support/graphql-client.ts';
import { createUserExampleGrpcClient } from '../../support/grpc-user-client.ts';
import { createRestClient, statusBody } from '../../support/rest-client.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { notFound } from '../../support/user-example-errors.ts';
import { uniqueEmail } from '../../support/user-example-fixtures.ts';

/**
 * GetByID reads that arrive together share one SELECT (USERS_READ_BATCH_MAX, subgraphs/users/user-example.service.ts),
 * on every door: each caller still gets exactly its own record or its own NOT_FOUND. Statements are counted on the
 * system's database handle.
 */

const NAMES = ['ada', 'bob', 'cyd', 'dee', 'eve', 'fay'] as const;
const MISSING = '9223372036854775000';

interface World {
  system: TestSystem;
  /** Live records' ids, in NAMES order. */
  ids: string[];
  deletedId: string;
}

async function startWorld(env: Record<string, string> = {}): Promise<World> {
  const system = await startTestSystem(env);
  const db = system.database.db.withTables<UsersTables>();
  const ids: string[] = [];
  for (const name of NAMES) {
    ids.push(await insertUserExample(db, { name, email: uniqueEmail(name), passwordHash: 'x', phone: '', avatar: '', age: 40, gender: 2 }));
  }
  const deletedId = await insertUserExample(db, {
    name: 'gone',
    email: uniqueEmail('gone'),
    passwordHash: 'x',
    phone: '',
    avatar: '',
    age: 1,
    gender: 0,
  });
  await softDeleteUserExample(db, deletedId);
  return { system, ids, deletedId };
}

/** How many SELECTs of user records `run` caused, and what it returned. */
async function countSelects<T>(system: TestSystem, run: () => Promise<T>): Promise<{ selects: number; result: T }> {
  let selects = 0;
  const stop = system.database.observeQueries((query) => {
    if (/^\s*select\b[\s\S]*"users"\."user_example"/i.test(query.sql)) selects++;
  });
  try {
    return { result: await run(), selects };
  } finally {
    stop();
  }
}

const ALIASED = `query Together($a: UInt64!, $b: UInt64!, $c: UInt64!, $d: UInt64!) {
  a: userExample(id: $a) { id name }
  b: userExample(id: $b) { id name }
  c: userExample(id: $c) { id name }
  d: userExample(id: $d) { id name }
}`;

/**
 * One GraphQL operation reading four records (one missing, one twice) through the gateway: checks the exact reply and
 * answers how many SELECTs it ran.
 */
async function readFourTogether({ system, ids }: World): Promise<number> {
  const graphql = createGraphqlClient(system.gatewayUrl);
  const { selects, result } = await countSelects(system, () =>
    graphql.request(ALIASED, { token: system.adminToken(), variables: { a: ids[0], b: MISSING, c: ids[2], d: ids[0] } }),
  );
  expect(result.status).toBe(200);
  expect(result.data).toEqual({ a: { id: ids[0], name: 'ada' }, b: null, c: { id: ids[2], name: 'cyd' }, d: { id: ids[0], name: 'ada' } });
  expect(result.errors).toEqual([{ ...serviceError('userExample', 'NOT_FOUND', notFound(MISSING)), path: ['b'] }]);
  return selects;
}

describe('GetByID reads that arrive together', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(async () => {
    await world?.system.close();
  });

  it('GraphQL: the root fields of one operation run one statement, and a missing record is only its own field’s error', async () => {
    expect(await readFourTogether(world)).toBe(1);
  });

  it('gRPC: concurrent calls share statements, and every call gets its own reply', async () => {
    const { system, ids, deletedId } = world;
    const client = createUserExampleGrpcClient(system.grpcAddress);
    try {
      await client.call('GetByID', { id: ids[0] }, { authorization: `Bearer ${system.adminToken()}` }); // connected first
      const asked = Array.from({ length: 48 }, (_, index) => (index % 8 === 6 ? MISSING : index % 8 === 7 ? deletedId : ids[index % 8]!));
      const { selects, result } = await countSelects(system, () =>
        Promise.all(
          asked.map((id) =>
            client
              .call<{ userExample: { id: string; name: string } }>('GetByID', { id }, { authorization: `Bearer ${system.adminToken()}` })
              .then(
                (reply) => `${reply.userExample.id} ${reply.userExample.name}`,
                (error: ServiceError) => `${error.code} ${error.details}`,
              ),
          ),
        ),
      );
      expect(result).toEqual(
        asked.map((id) => {
          const index = ids.indexOf(id);
          return index >= 0 ? `${id} ${NAMES[index]}` : `5 ${notFound(id)}`;
        }),
      );
      // 48 calls sent at once over one HTTP/2 connection arrive in a few socket reads, not 48.
      expect(selects).toBeGreaterThanOrEqual(1);
      expect(selects).toBeLessThan(asked.length / 2);
    } finally {
      client.close();
    }
  });

  it('REST: concurrent GETs each answer their own record or their own 404', async () => {
    const { system, ids, deletedId } = world;
    const rest = createRestClient(system.restUrl);
    const asked = [...ids, MISSING, deletedId, ...ids];
    const replies = await Promise.all(asked.map((id) => rest.request('GET', `/api/v1/userExample/${id}`, { token: system.adminToken() })));
    expect(replies.map((reply) => [reply.status, reply.body])).toEqual(
      asked.map((id) => {
        const index = ids.indexOf(id);
        return index >= 0
          ? [200, { userExample: expect.objectContaining({ id, name: NAMES[index], age: 40, gender: 'FEMALE' }) }]
          : [404, statusBody(5, notFound(id))];
      }),
    );
  });
});

describe('USERS_READ_BATCH_MAX=1', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ USERS_READ_BATCH_MAX: '1' });
  });
  afterAll(async () => {
    await world?.system.close();
  });

  it('gives every read its own statement, with the same replies', async () => {
    expect(await readFourTogether(world)).toBe(4);
  });
});
