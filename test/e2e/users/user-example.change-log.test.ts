import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  lastEventPosition,
  readChangesAfter,
  readEventsAfter,
  type EventLogTables,
} from '../../../subgraphs/shared/event-log/event-log.repository.ts';
import type { SocialTables } from '../../../subgraphs/shared/social-graph/social-tables.ts';
import { postJson } from '../../support/graphql-client.ts';
import { createUserExampleGrpcClient, type UserExampleGrpcClient } from '../../support/grpc-user-client.ts';
import { createRestClient, type RestClient } from '../../support/rest-client.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * Area A's writes in the change log (issue 39, item 1): a record created, updated or deleted through any door — REST,
 * GraphQL, gRPC — is logged in the write's own transaction with the key `UserExample:<id>`, so a consumer of the log
 * (the gateway's cache) can tell exactly what changed; a write that fails or changes nothing logs nothing; and the social
 * graph's readers of the log (webhook delivery, GraphQL subscriptions) never see these changes.
 */
describe('Area A: every write in the change log, on every door', () => {
  let system: TestSystem;
  let rest: RestClient;
  let grpcClient: UserExampleGrpcClient;
  let position: string;
  let sequence = 0;
  const log = () => system.database.db.withTables<EventLogTables>();

  beforeAll(async () => {
    system = await startTestSystem();
    rest = createRestClient(system.restUrl);
    grpcClient = createUserExampleGrpcClient(system.grpcAddress);
  });
  afterAll(async () => {
    grpcClient?.close();
    await system?.close();
  });
  beforeEach(async () => {
    position = await lastEventPosition(system.database.db.withTables<SocialTables>());
  });

  /** The changes logged since the test began (or the last call): kind and keys. */
  async function newChanges(): Promise<{ kind: string; keys: string[] }[]> {
    const changes = await readChangesAfter(log(), position, 100);
    if (changes.length > 0) position = changes.at(-1)!.position;
    return changes.map(({ kind, keys }) => ({ kind, keys }));
  }

  const input = () => ({
    name: 'Change Log',
    email: `change.log.${++sequence}@example.com`,
    password: 'correct-horse-battery',
    phone: '13800138000',
    avatar: 'https://example.com/a.png',
    age: 30,
  });

  const doors = {
    async REST() {
      const admin = system.adminToken();
      const created = await rest.request('POST', '/api/v1/userExample', { json: input() });
      expect(created.status).toBe(200);
      const id = String(created.body.id);
      expect((await rest.request('PUT', `/api/v1/userExample/${id}`, { token: admin, json: { age: 31 } })).status).toBe(200);
      expect((await rest.request('DELETE', `/api/v1/userExample/${id}`, { token: admin })).status).toBe(200);
      return id;
    },
    async GraphQL() {
      const auth = { authorization: `Bearer ${system.adminToken()}` };
      const created = await postJson(system.gatewayUrl, {
        query: 'mutation($input: CreateUserExampleInput!) { createUserExample(input: $input) { id } }',
        variables: { input: input() },
      });
      const id = String(created.body.data.createUserExample.id);
      const updated = await postJson(
        system.gatewayUrl,
        { query: 'mutation($id: UInt64!) { updateUserExample(id: $id, input: { age: 31 }) { id } }', variables: { id } },
        auth,
      );
      expect(updated.body.errors).toBeUndefined();
      const deleted = await postJson(
        system.gatewayUrl,
        { query: 'mutation($id: UInt64!) { deleteUserExample(id: $id) { id } }', variables: { id } },
        auth,
      );
      expect(deleted.body.errors).toBeUndefined();
      return id;
    },
    async gRPC() {
      const auth = { authorization: `Bearer ${system.adminToken()}` };
      const { id } = await grpcClient.call<{ id: string }>('Create', input());
      await grpcClient.call('UpdateByID', { id, age: 31 }, auth);
      await grpcClient.call('DeleteByID', { id }, auth);
      return String(id);
    },
  };

  it.each(Object.keys(doors) as (keyof typeof doors)[])('logs a create, an update and a delete through %s', async (door) => {
    const id = await doors[door]();
    expect(await newChanges()).toEqual([
      { kind: 'user_example_created', keys: [`UserExample:${id}`] },
      { kind: 'user_example_updated', keys: [`UserExample:${id}`] },
      { kind: 'user_example_deleted', keys: [`UserExample:${id}`] },
    ]);
  });

  it('logs nothing for a write that fails or changes nothing, and nothing for the social graph’s readers', async () => {
    const admin = system.adminToken();
    const taken = input();
    const created = await rest.request('POST', '/api/v1/userExample', { json: taken });
    const id = String(created.body.id);
    // A duplicate e-mail (the insert fails inside the transaction), an update and a delete of a record that is not there.
    expect((await rest.request('POST', '/api/v1/userExample', { json: { ...input(), email: taken.email } })).status).toBe(409);
    expect((await rest.request('PUT', '/api/v1/userExample/999999999', { token: admin, json: { age: 31 } })).status).toBe(404);
    expect((await rest.request('DELETE', '/api/v1/userExample/999999999', { token: admin })).status).toBe(404);
    const socialBefore = position;
    expect(await newChanges()).toEqual([{ kind: 'user_example_created', keys: [`UserExample:${id}`] }]);
    expect(await readEventsAfter(system.database.db.withTables<SocialTables>(), socialBefore, 100)).toEqual([]);
  });
});
