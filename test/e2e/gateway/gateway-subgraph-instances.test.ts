/**
 * The distributed gateway over several instances of a subgraph, and its retries (issue 25; gateway/remote-data-source.ts,
 * gateway/subgraph-instances.ts), against users-subgraph instances this file controls: fetches are spread over the
 * instances; with one killed every query is still answered, each executed once where it was answered; a query whose
 * connection is reset is sent again; a mutation's fetch is sent once, whatever happens. On both subgraph clients.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningSystem } from '../../../bin/system/index.ts';
import { parseMetrics, sampleValue } from '../../support/log-capture.ts';
import {
  STUB_ANSWER as ANSWER,
  STUB_QUERY as QUERY,
  SUBGRAPH_CLIENTS,
  json,
  startStubGateway,
} from '../../support/stub-subgraph-gateway.ts';

const MUTATION = 'mutation Drop($id: UInt64!) { deleteUserExample(id: $id) { id } }';

/** A users-subgraph instance: what it was asked (the operation's first word), and how it answers. */
interface Instance {
  url: string;
  /** The first word of each operation it received: `query` or `mutation`. */
  received: string[];
  answer: (res: ServerResponse, operation: string) => void;
  /** kill -9, as the gateway sees it: the port closed and every connection dropped. */
  kill(): Promise<void>;
}

const servers: Server[] = [];
const gateways: RunningSystem[] = [];

async function startInstance(): Promise<Instance> {
  const instance: Instance = {
    url: '',
    received: [],
    answer: (res) => json(res, 200, ANSWER),
    kill: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/ready' || req.url === '/health') return json(res, 200, { status: 'UP' });
      const { query } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { query: string };
      const operation = query.trimStart().startsWith('mutation') ? 'mutation' : 'query';
      instance.received.push(operation);
      instance.answer(res, operation);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  instance.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  return instance;
}

async function startGateway(usersUrls: string, undiciSwitch: string): Promise<RunningSystem> {
  const gateway = await startStubGateway(usersUrls, undiciSwitch, { SUBGRAPH_TIMEOUT_MS: '5000' });
  gateways.push(gateway);
  return gateway;
}

async function ask(gateway: RunningSystem, query = QUERY): Promise<{ status: number; body: unknown }> {
  const response = await fetch(gateway.gatewayUrl!, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables: { id: '7' } }),
  });
  return { status: response.status, body: await response.json() };
}

async function metric(gateway: RunningSystem, name: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(new URL('/metrics', gateway.gatewayUrl!))).text();
  return sampleValue(parseMetrics(text), name, labels);
}

describe.each(SUBGRAPH_CLIENTS)('several instances and retries, over %s', (_client, undiciSwitch) => {
  afterEach(async () => {
    for (const gateway of gateways.splice(0)) await gateway.close();
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('spreads fetches over the instances; with one killed, every query is answered, each run once where it was answered', async () => {
    const [a, b] = [await startInstance(), await startInstance()];
    const gateway = await startGateway(`${a.url},${b.url}`, undiciSwitch);
    for (let i = 0; i < 10; i++) expect(await ask(gateway)).toEqual({ status: 200, body: ANSWER });
    expect([a.received.length, b.received.length]).toEqual([5, 5]);

    await a.kill();
    for (let i = 0; i < 20; i++) expect(await ask(gateway)).toEqual({ status: 200, body: ANSWER });
    expect(a.received).toHaveLength(5);
    expect(b.received).toHaveLength(25);
    expect(await metric(gateway, 'tributary_subgraph_retries_total', { subgraph: 'users' })).toBeGreaterThanOrEqual(1);
    // Three refusals in a row open the killed instance's circuit: it is skipped until a trial, 5 s on.
    expect(await metric(gateway, 'tributary_subgraph_retries_total', { subgraph: 'users' })).toBeLessThanOrEqual(3);
    expect(await metric(gateway, 'tributary_subgraph_instances', { subgraph: 'users', circuit: 'open' })).toBe(1);
    expect(await metric(gateway, 'tributary_subgraph_instances', { subgraph: 'users', circuit: 'closed' })).toBe(1);
  });

  it("sends a query again after a reset connection; sends a mutation's fetch once, and answers it unavailable", async () => {
    const instance = await startInstance();
    const gateway = await startGateway(instance.url, undiciSwitch);
    let resets = 1;
    instance.answer = (res, operation) => {
      if (operation === 'mutation' || resets-- > 0) res.socket?.destroy();
      else json(res, 200, ANSWER);
    };
    expect(await ask(gateway)).toEqual({ status: 200, body: ANSWER });
    expect(instance.received).toEqual(['query', 'query']);

    instance.received = [];
    const dropped = await ask(gateway, MUTATION);
    expect(dropped.status).toBe(200);
    expect(dropped.body).toMatchObject({
      data: null,
      errors: [
        {
          message: 'The users subgraph is unavailable. Retry the request later.',
          extensions: { code: 'SERVICE_UNAVAILABLE', serviceName: 'users' },
        },
      ],
    });
    expect(instance.received).toEqual(['mutation']);
  });

  it("sends a mutation's fetch to another instance when one refuses the connection (nothing was sent), once", async () => {
    const [a, b] = [await startInstance(), await startInstance()];
    const gateway = await startGateway(`${a.url},${b.url}`, undiciSwitch);
    const deleted = { data: { deleteUserExample: { id: '7' } } };
    b.answer = (res) => json(res, 200, deleted);
    await a.kill();
    for (let i = 0; i < 2; i++) expect(await ask(gateway, MUTATION)).toEqual({ status: 200, body: deleted });
    expect(a.received).toEqual([]);
    expect(b.received).toEqual(['mutation', 'mutation']);
  });
});
