import type { ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../../lib/database/throwaway-database.ts';
import { createUserExampleGrpcClient } from '../../support/grpc-user-client.ts';
import { eventually } from '../../support/eventually.ts';
import { createLogCapture } from '../../support/log-capture.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * Logs an operator can read (issue 25, item 5): with the database unreachable, every request that needs it fails with
 * UNAVAILABLE on its door — GraphQL, gRPC, REST Area A, the social graph — and the log says so once ("database
 * unreachable", the reason, no stack), not once per request; when it answers again, once more ("database recovered",
 * with the count). The database is cut off by a TCP proxy in front of the suite's PostgreSQL (test/support/tcp-proxy.ts).
 *
 * Runs in the PostgreSQL project (the embedded database cannot be made unreachable).
 */
const serverUrl = process.env.DATABASE_URL;
const skip = process.env.TEST_DATABASE !== 'postgres' || !serverUrl;

/** Requests sent through each door while the database is unreachable. */
const PER_DOOR = 10;

describe.skipIf(skip)('the database unreachable, in the log', () => {
  const capture = createLogCapture();
  let throwaway: ThrowawayDatabase;
  let proxy: TcpProxy;
  let system: TestSystem;
  let world: SocialFixture;
  let grpc: ReturnType<typeof createUserExampleGrpcClient>;

  beforeAll(async () => {
    const template = process.env.TEST_POSTGRES_TEMPLATE;
    throwaway = await createThrowawayDatabase(serverUrl!, 'tributary_test', template ? { template } : {});
    const server = new URL(throwaway.url);
    proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 5432) });
    system = await startTestSystem(
      { DATABASE_URL: proxy.through(throwaway.url), DATABASE_CONNECT_TIMEOUT_MS: '1000', LOG_LEVEL: 'info' },
      { logDestination: capture },
    );
    world = await createSocialFixture(system.database);
    grpc = createUserExampleGrpcClient(system.grpcAddress);
  });

  afterAll(async () => {
    grpc?.close();
    await system?.close();
    await proxy?.close();
    await throwaway?.drop();
  });

  it('writes one error line in all, not one per failed request, while it is unreachable, and one line when it answers again', async () => {
    const admin = system.adminToken();
    const graphql = async () => {
      const response = await fetch(system.gatewayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
        body: JSON.stringify({ query: '{ userExamples(params: { limit: 1 }) { total } }' }),
      });
      return (await response.json()) as { data?: unknown; errors?: { extensions: { code: string } }[] };
    };
    expect((await graphql()).errors).toBeUndefined();
    capture.clear();

    proxy.cut();
    // One request at a time, so that none shares another's statement (reads coalesce): each fails on its own.
    for (let i = 0; i < PER_DOOR; i++) {
      expect((await graphql()).errors?.[0]?.extensions.code).toBe('SERVICE_UNAVAILABLE');
      const grpcError = (await grpc
        .call('GetByID', { id: '1' }, { authorization: `Bearer ${admin}` })
        .catch((error: unknown) => error)) as ServiceError;
      expect(grpcError.code).toBe(14);
      const rest = await fetch(new URL('/api/v1/userExample/1', system.restUrl), { headers: { authorization: `Bearer ${admin}` } });
      expect(rest.status).toBe(503);
      expect(((await rest.json()) as { code: number }).code).toBe(14);
      const social = await fetch(new URL(`/v21.0/${world.accounts.bluebottle}?fields=username`, system.restUrl), {
        headers: { authorization: `Bearer ${world.tokens.own}` },
      });
      expect(social.status, await social.clone().text()).toBe(503);
      await social.body?.cancel();
    }

    const errorLines = () => capture.entries().filter((entry) => Number(entry.level) >= 50);
    expect(errorLines()).toHaveLength(1);
    const [down] = errorLines();
    expect(down).toMatchObject({ msg: expect.stringMatching(/^database unreachable/), reason: expect.any(String) });
    expect(down).not.toHaveProperty('err');
    // Nothing per request above debug: no resolver, gRPC or social line, and no stack anywhere.
    const messages = capture.entries().map((entry) => String(entry.msg));
    expect(messages.filter((msg) => /resolver error|gRPC service error|social request failed|REST adapter error/.test(msg))).toEqual([]);
    expect(capture.text).not.toMatch(/"stack"/);

    proxy.restore();
    await eventually(async () => (await graphql()).errors === undefined, 'the system answered again once the database was back');
    const recovered = capture.entries().filter((entry) => entry.msg === 'database recovered');
    expect(recovered).toHaveLength(1);
    // Every failed request counted (readiness probes add their own failed pings).
    expect(recovered[0]!.totalFailures).toBeGreaterThanOrEqual(4 * PER_DOOR);
    expect(recovered[0]!.downForMs).toEqual(expect.any(Number));
    expect(errorLines()).toHaveLength(1);
  });
});
