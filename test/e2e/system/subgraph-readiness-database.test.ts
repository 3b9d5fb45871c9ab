import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../../lib/database/throwaway-database.ts';
import { eventually } from '../../support/eventually.ts';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.ts';
import { startDistributedTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * Readiness that means "can serve" (issue 25, item 1), in the distributed topology: with the database unreachable every
 * subgraph server answers /ready 503 naming the database, and the gateway, none of whose subgraphs can serve, 503 too
 * (not the 200 it answered while ~97 % of reads failed); when the database answers again, every one is ready by itself.
 * The database is cut off by a TCP proxy in front of the suite's PostgreSQL.
 */
const serverUrl = process.env.DATABASE_URL;
const skip = process.env.TEST_DATABASE !== 'postgres' || !serverUrl;

interface ReadyReport {
  status: string;
  checks: Record<string, { status: string; error?: string }>;
}

describe.skipIf(skip)('readiness of the subgraphs with the database unreachable', () => {
  let throwaway: ThrowawayDatabase;
  let proxy: TcpProxy;
  let system: TestSystem;

  beforeAll(async () => {
    const template = process.env.TEST_POSTGRES_TEMPLATE;
    throwaway = await createThrowawayDatabase(serverUrl!, 'tributary_test', template ? { template } : {});
    const server = new URL(throwaway.url);
    proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 5432) });
    system = await startDistributedTestSystem({
      DATABASE_URL: proxy.through(throwaway.url),
      DATABASE_CONNECT_TIMEOUT_MS: '1000',
      READY_TIMEOUT_MS: '1500',
    });
  });

  afterAll(async () => {
    await system?.close();
    await proxy?.close();
    await throwaway?.drop();
  });

  const probe = async (base: string): Promise<{ status: number; body: ReadyReport }> => {
    const response = await fetch(new URL('/ready', base));
    return { status: response.status, body: (await response.json()) as ReadyReport };
  };

  /** Probes `base` until its /ready answers `status` (reports are shared for a second: the first may predate the change). */
  const probeUntil = (base: string, status: number) =>
    eventually(async () => {
      const reply = await probe(base);
      return reply.status === status && reply;
    }, `${base}/ready answering ${status}`);

  it('answers 503 on every subgraph and on the gateway while it is cut off, and 200 once it answers again', async () => {
    const subgraphs = Object.entries(system.subgraphs!).map(
      ([name, running]) => [name, new URL(running.subgraphUrls[name as 'users']!).origin] as const,
    );
    expect(subgraphs).toHaveLength(4);
    for (const [, base] of subgraphs) expect((await probe(base)).status).toBe(200);
    expect((await probe(system.restUrl)).status).toBe(200);

    proxy.cut();
    for (const [name, base] of subgraphs) {
      const reply = await probeUntil(base, 503);
      expect(reply.status, name).toBe(503);
      expect(reply.body.status, name).toBe('DOWN');
      expect(reply.body.checks.database!.status, name).toBe('DOWN');
    }
    const gateway = await probeUntil(system.restUrl, 503);
    expect(gateway.status).toBe(503);
    expect(gateway.body.status).toBe('DOWN');
    expect(
      Object.entries(gateway.body.checks).filter(([check, { status }]) => check.startsWith('subgraph:') && status === 'DOWN'),
    ).toHaveLength(4);

    proxy.restore();
    for (const [name, base] of subgraphs) expect((await probeUntil(base, 200)).status, name).toBe(200);
    expect((await probeUntil(system.restUrl, 200)).body.status).toBe('UP');
  });
});
