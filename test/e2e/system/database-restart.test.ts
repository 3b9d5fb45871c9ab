import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../../lib/database/database.ts';
import { createUserExampleGrpcClient } from '../../support/grpc-user-client.ts';
import { fixture } from '../../support/image-fixtures.ts';
import { mediaFormData, mediaUploadUrl, sendMediaRequest } from '../../support/media-client.ts';
import { privatePostgresUnavailable, startPrivatePostgres, type PrivatePostgres } from '../../support/private-postgres.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { eventually } from '../../support/eventually.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { HANG_MS } from '../../support/hang-bounds.ts';

/**
 * The database goes away under load and comes back: a PostgreSQL server of this test's own (made from the machine's
 * installation, so the suite's shared server is untouched) is stopped with `pg_ctl stop -m fast` while clients keep
 * writing and reading through every area, then started again. While it is down, every request fails fast with the
 * area's own 503-class error (never a 500, never a hang) and the gRPC health service says NOT_SERVING; the service
 * recovers by itself within seconds of the server's return; and every write it acknowledged is still there.
 *
 * Runs in the PostgreSQL project (the embedded database cannot be stopped under a running process).
 */

const unavailable = process.env.TEST_DATABASE === 'postgres' ? privatePostgresUnavailable() : 'runs in the e2e-postgres project only';

/**
 * Longest a request may take while the database is down: the pool's connect timeout here is 1 s, and without it a
 * request would wait for ever (pg's default). Ten times that tells the two apart on a machine however busy.
 */
const FAIL_FAST_MS = 10_000;
/** Longest the service may take to answer again after the server is back: only a service that never recovers reaches it. */
const RECOVERY_MS = HANG_MS;

interface Outcome {
  area: 'A-create' | 'A-graphql' | 'BC' | 'D';
  at: number;
  ms: number;
  status: number;
  body: string;
  /** The record id of an acknowledged create. */
  id?: string;
}

describe.skipIf(unavailable !== undefined)('losing the database under load', () => {
  let server: PrivatePostgres;
  let system: TestSystem;
  let world: SocialFixture;
  let check: DatabaseHandle;
  let grpc: ReturnType<typeof createUserExampleGrpcClient>;

  beforeAll(async () => {
    server = await startPrivatePostgres();
    system = await startTestSystem({
      DATABASE_URL: server.url,
      DATABASE_CONNECT_TIMEOUT_MS: '1000',
      DATABASE_POOL_MAX: '4',
      READY_TIMEOUT_MS: '1500',
    });
    world = await createSocialFixture(system.database);
    check = await createDatabase({ url: server.url, pgliteDir: undefined, poolMax: 1, connectTimeoutMs: 1000, statementTimeoutMs: 10_000 });
    grpc = createUserExampleGrpcClient(system.grpcAddress);
  }, 120_000);

  afterAll(async () => {
    grpc?.close();
    await check?.close();
    await system?.close();
    await server?.destroy();
  });

  it('fails fast with each area’s 503 while it is down, recovers by itself, and loses no acknowledged write', async () => {
    const outcomes: Outcome[] = [];
    let running = true;
    let created = 0;
    const admin = system.adminToken();
    const started = performance.now();
    const timed = async (area: Outcome['area'], send: () => Promise<Response>, id?: (body: string) => string | undefined) => {
      const at = performance.now() - started;
      let status: number;
      let body: string;
      try {
        const response = await send();
        status = response.status;
        body = await response.text();
      } catch (error) {
        status = 0;
        body = String(error);
      }
      const outcome: Outcome = { area, at, ms: performance.now() - started - at, status, body };
      const acknowledged = status === 200 ? id?.(body) : undefined;
      if (acknowledged) outcome.id = acknowledged;
      outcomes.push(outcome);
    };
    const workers = [
      async () => {
        while (running) {
          created += 1;
          const record = {
            name: 'Restart',
            email: `restart.${created}@db.test`,
            password: 'restart-password',
            phone: '13800138000',
            avatar: 'https://example.com/r.png',
            age: 30,
            gender: 'MALE',
          };
          await timed(
            'A-create',
            () => fetch(new URL('/api/v1/userExample', system.restUrl), { method: 'POST', body: JSON.stringify(record) }),
            (body) => (JSON.parse(body) as { id?: string }).id,
          );
        }
      },
      async () => {
        while (running) {
          await timed('A-graphql', () =>
            fetch(system.gatewayUrl, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
              body: JSON.stringify({ query: '{ userExamples(params: { limit: 1 }) { total } }' }),
            }),
          );
        }
      },
      async () => {
        while (running) {
          await timed('BC', () =>
            fetch(new URL(`/v21.0/${world.accounts.bluebottle}?fields=username`, system.restUrl), {
              headers: { authorization: `Bearer ${world.tokens.own}` },
            }),
          );
        }
      },
      async () => {
        const image = fixture('image.png');
        while (running) {
          await timed('D', async () => {
            const reply = await sendMediaRequest(mediaUploadUrl(system.restUrl), {
              authorization: `Bearer ${world.tokens.own}`,
              body: mediaFormData([{ name: 'media', bytes: image }]),
            });
            return new Response(reply.text, { status: reply.status });
          });
        }
      },
    ];
    const load = Promise.all(workers.map((work) => work()));
    const since = (from: number, area: Outcome['area']) => outcomes.filter((outcome) => outcome.at >= from && outcome.area === area);

    try {
      // Up: every area answers.
      await eventually(
        () => (['A-create', 'A-graphql', 'BC', 'D'] as const).every((area) => since(0, area).some((o) => o.status === 200)),
        'every area answering 200 before the stop',
        { withinMs: 15_000 },
      );
      const stopAt = performance.now() - started;
      await server.stop();
      const downAt = performance.now() - started;

      // Down: a few rounds of every area, answered fast and in each area's own words.
      await eventually(
        () => (['A-create', 'A-graphql', 'BC', 'D'] as const).every((area) => since(downAt, area).length >= 3),
        'three answers from every area while the database is down',
        { withinMs: 20_000 },
      );
      // Probes within a second share one readiness report (lib/telemetry/readiness.ts): one made just before the stop may
      // still answer; the next ones see it.
      const ready = await eventually(async () => {
        const response = await fetch(new URL('/ready', system.restUrl));
        if (response.status !== 200) return response;
        await response.body?.cancel();
        return false;
      }, 'the readiness probe answering other than 200 while the database is down');
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { checks: Record<string, { status: string }> }).checks.database!.status).toBe('DOWN');
      // The gRPC health service follows readiness (re-read every 5 s).
      const health = async () => grpc.health().catch((error: unknown) => String(error));
      let grpcHealth = await eventually(async () => {
        const status = await health();
        return status === 'NOT_SERVING' && status;
      }, 'the gRPC health service saying NOT_SERVING while the database is down');
      expect(grpcHealth).toBe('NOT_SERVING');
      const restartAt = performance.now() - started;
      await server.start();
      const upAgainAt = performance.now() - started;

      // Back: each area answers again within seconds, by itself.
      await eventually(
        () => (['A-create', 'A-graphql', 'BC', 'D'] as const).every((area) => since(upAgainAt, area).some((o) => o.status === 200)),
        'every area answering 200 again after the restart',
        { withinMs: RECOVERY_MS },
      );
      running = false;
      await load;
      grpcHealth = await eventually(async () => {
        const status = await health();
        return status === 'SERVING' && status;
      }, 'the gRPC health service saying SERVING again after the restart');
      expect(grpcHealth).toBe('SERVING');

      const during = outcomes.filter((outcome) => outcome.at >= downAt && outcome.at + outcome.ms <= restartAt);
      expect(during.length).toBeGreaterThanOrEqual(12);
      for (const outcome of during) {
        expect(outcome.ms, `${outcome.area} took ${Math.round(outcome.ms)} ms`).toBeLessThan(FAIL_FAST_MS);
        if (outcome.area === 'A-graphql') {
          expect(outcome.status, outcome.body).toBe(200);
          expect(JSON.parse(outcome.body).errors[0].extensions.code, outcome.body).toBe('SERVICE_UNAVAILABLE');
        } else {
          expect(outcome.status, `${outcome.area}: ${outcome.body}`).toBe(503);
        }
        if (outcome.area === 'A-create') expect(JSON.parse(outcome.body)).toMatchObject({ code: 14, message: expect.any(String) });
        if (outcome.area === 'BC') expect(JSON.parse(outcome.body).error).toMatchObject({ code: 2, is_transient: true });
        if (outcome.area === 'D') expect(JSON.parse(outcome.body)).toEqual({ errors: [{ code: 130, message: 'Over capacity' }] });
      }
      // Whatever happened to requests caught mid-flight by the stop, none was a 500 or a dropped connection.
      for (const outcome of outcomes)
        expect([200, 503], `${outcome.area} at ${Math.round(outcome.at)} ms: ${outcome.body.slice(0, 200)}`).toContain(outcome.status);
      const recovered = (['A-create', 'A-graphql', 'BC', 'D'] as const).map(
        (area) => since(upAgainAt, area).find((o) => o.status === 200)!.at + 0,
      );
      for (const at of recovered) expect(at - upAgainAt).toBeLessThan(RECOVERY_MS);
      expect(stopAt).toBeLessThan(downAt);

      // No acknowledged write was lost.
      const acknowledged = outcomes.filter((outcome) => outcome.id !== undefined).map((outcome) => outcome.id!);
      expect(acknowledged.length).toBeGreaterThan(3);
      const { rows } = await sql<{
        id: string;
      }>`select id::text as id from users.user_example where id = any(${acknowledged}::bigint[])`.execute(check.db);
      expect(new Set(rows.map((row) => row.id))).toEqual(new Set(acknowledged));
    } finally {
      running = false;
      await load;
    }
  }, 90_000);
});
