/**
 * The distributed gateway's subgraph client against a users subgraph this file controls: what a subgraph receives
 * (method, headers, body), how its replies — good, GraphQL errors with 400, a non-GraphQL 500 or a proxy's 502/503, not
 * JSON, cut short, never finished, no subgraph at all — reach the caller (the ones that mean the subgraph is not there
 * as SERVICE_UNAVAILABLE naming it, the transport's words only as the reason outside production), and that a stalled
 * subgraph costs a request SUBGRAPH_TIMEOUT_MS, not for ever. Every case runs twice: on undici's pool (the stand-in, gateway/stand-ins/undici-subgraph-client.ts) and on the fetcher
 * @apollo/gateway makes for itself (gateway/subgraph-http-client.ts), which the stand-in must answer like.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSystem } from '../../../bin/system/index.ts';
import { TRUSTED_CALLER_HEADER } from '../../../lib/http/trusted-caller.ts';
import {
  STUB_ANSWER as ANSWER,
  STUB_QUERY as QUERY,
  SUBGRAPH_CLIENTS,
  json,
  startStubGateway,
} from '../../support/stub-subgraph-gateway.ts';

interface Received {
  method: string | undefined;
  headers: IncomingMessage['headers'];
  body: string;
}

type Behaviour = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const TRUSTED_SECRET = 'trusted-caller-secret-of-at-least-32-chars';

let subgraph: Server;
let subgraphUrl: string;
let gateway: RunningSystem;
let behaviour: Behaviour;
let received: Received[] = [];
const stalled: ServerResponse[] = [];

/**
 * A subgraph that did not answer, as the gateway reports it (gateway/remote-data-source.ts): a message naming the
 * subgraph and not its address, SERVICE_UNAVAILABLE, and — outside production, as here — the transport's own words.
 */
function unavailable(subgraph: string, reason: string) {
  return {
    message: `The ${subgraph} subgraph is unavailable. Retry the request later.`,
    extensions: { code: 'SERVICE_UNAVAILABLE', reason, serviceName: subgraph },
  };
}

describe.each(SUBGRAPH_CLIENTS)('over %s', (_client, undiciSwitch) => {
  beforeAll(async () => {
    subgraph = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.url === '/health') return json(res, 200, { status: 'UP' });
        const body = Buffer.concat(chunks).toString('utf8');
        received.push({ method: req.method, headers: req.headers, body });
        behaviour(req, res, body);
      });
    });
    await new Promise<void>((resolve) => subgraph.listen(0, '127.0.0.1', resolve));
    subgraphUrl = `http://127.0.0.1:${(subgraph.address() as AddressInfo).port}/graphql`;
    gateway = await startStubGateway(subgraphUrl, undiciSwitch, {
      SUBGRAPH_TIMEOUT_MS: '400',
      GRAPHQL_TRUSTED_CALLER_SECRET: TRUSTED_SECRET,
    });
  });

  afterAll(async () => {
    for (const res of stalled) res.destroy();
    await gateway?.close();
    subgraph.closeAllConnections();
    await new Promise<void>((resolve) => subgraph.close(() => resolve()));
  });

  beforeEach(() => {
    received = [];
    behaviour = (_req, res) => json(res, 200, ANSWER);
  });

  async function ask(headers: Record<string, string> = {}): Promise<{ status: number; body: unknown; ms: number }> {
    const started = performance.now();
    const response = await fetch(gateway.gatewayUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query: QUERY, variables: { id: '7' }, operationName: 'One' }),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, body: await response.json(), ms: performance.now() - started };
  }

  describe('what a subgraph receives', () => {
    it("one POST of {query, variables, operationName} as JSON, with the caller's credentials, request id and the trusted-caller secret", async () => {
      const reply = await ask({ authorization: 'Bearer abc.def.ghi', 'x-request-id': 'req-0123456789abcdef', 'x-social-host': 'parent' });
      expect(reply).toMatchObject({ status: 200, body: ANSWER });
      expect(received).toHaveLength(1);
      const [request] = received;
      expect(request!.method).toBe('POST');
      expect(request!.headers['content-type']).toBe('application/json');
      expect(request!.headers['content-length']).toBe(String(Buffer.byteLength(request!.body)));
      expect(request!.headers.authorization).toBe('Bearer abc.def.ghi');
      expect(request!.headers['x-request-id']).toBe('req-0123456789abcdef');
      expect(request!.headers['x-social-host']).toBe('parent');
      expect(request!.headers[TRUSTED_CALLER_HEADER]).toBe(TRUSTED_SECRET);
      const body = JSON.parse(request!.body) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(['query', 'variables', 'operationName']);
      expect(body.variables).toEqual({ id: '7' });
      expect(body.query).toBe('query One__users__0($id:UInt64!){userExample(id:$id){id name}}');
      expect(body.operationName).toBe('One__users__0');
    });

    it('no credentials the caller did not send', async () => {
      await ask();
      expect(received[0]!.headers.authorization).toBeUndefined();
      expect(received[0]!.headers['x-social-host']).toBeUndefined();
      // The gateway makes a request id when the caller has none, and hands it on.
      expect(received[0]!.headers['x-request-id']).toMatch(/^[0-9a-f-]{16,}$/);
    });

    it('keep-alive: consecutive requests reuse one connection', async () => {
      const ports = new Set<number | undefined>();
      behaviour = (req, res) => {
        ports.add(req.socket.remotePort);
        json(res, 200, ANSWER);
      };
      for (let i = 0; i < 5; i++) expect((await ask()).body).toEqual(ANSWER);
      expect(ports.size).toBe(1);
    });
  });

  describe('how its replies reach the caller', () => {
    it('GraphQL errors answered with 400 are the subgraph\'s own, not "400: Bad Request"', async () => {
      behaviour = (_req, res) =>
        json(res, 400, { errors: [{ message: 'Variable "$id" got invalid value', extensions: { code: 'BAD_USER_INPUT' } }] });
      const reply = await ask();
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        data: { userExample: null },
        errors: [{ message: 'Variable "$id" got invalid value', extensions: { code: 'BAD_USER_INPUT', serviceName: 'users' } }],
      });
    });

    it("a proxy's 502 without a GraphQL body: the subgraph is unavailable (outside production, the status as the reason)", async () => {
      behaviour = (_req, res) => res.writeHead(502, { 'content-type': 'text/plain' }).end('upstream gone');
      const reply = await ask();
      expect(reply.body).toEqual({ data: { userExample: null }, errors: [unavailable('users', '502: Bad Gateway')] });
    });

    it("a 503 without a GraphQL body: unavailable, the subgraph's own reason phrase as the reason", async () => {
      behaviour = (_req, res) => res.writeHead(503, 'Down for maintenance', { 'content-type': 'text/plain' }).end('back soon');
      const reply = await ask();
      expect(reply.body).toEqual({ data: { userExample: null }, errors: [unavailable('users', '503: Down for maintenance')] });
    });

    it('a 500 without a GraphQL body is an error naming the status (and, outside production, what the subgraph said)', async () => {
      behaviour = (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('it broke');
      const reply = await ask();
      expect(reply.body).toEqual({
        data: { userExample: null },
        errors: [
          {
            message: '500: Internal Server Error',
            extensions: {
              code: 'INTERNAL_SERVER_ERROR',
              response: { url: subgraphUrl, status: 500, statusText: 'Internal Server Error', body: 'it broke' },
            },
          },
        ],
      });
    });

    it('a subgraph nobody listens on is unavailable, the refused connection as the reason', async () => {
      const reply = await fetch(gateway.gatewayUrl!, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ account(id: "1") { id } }' }),
      });
      expect(await reply.json()).toEqual({
        data: { account: null },
        errors: [unavailable('accounts', 'request to http://127.0.0.1:9/graphql failed, reason: connect ECONNREFUSED 127.0.0.1:9')],
      });
    });

    it('a 200 that is not JSON is an error', async () => {
      behaviour = (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>oops</html>');
      const reply = await ask();
      expect(reply.body).toEqual({
        data: { userExample: null },
        errors: [
          {
            message: 'Expected JSON response body, but received: <html>oops</html>',
            extensions: { code: 'INTERNAL_SERVER_ERROR' },
          },
        ],
      });
    });

    it('a reply cut short: unavailable, and the next request is served', async () => {
      behaviour = (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
        res.write('{"data":{"userEx');
        // pacing: the subgraph sends part of its reply, then a moment later destroys the response mid-body
        setTimeout(() => res.destroy(), 20);
      };
      const reply = await ask();
      expect(reply.body).toEqual({
        data: { userExample: null },
        errors: [unavailable('users', `Invalid response body while trying to fetch ${subgraphUrl}: aborted`)],
      });
      behaviour = (_req, res) => json(res, 200, ANSWER);
      expect((await ask()).body).toEqual(ANSWER);
    });

    it('a subgraph that closes the connection without a reply: unavailable, the hung-up socket as the reason, and the next request is served', async () => {
      behaviour = (_req, res) => res.socket?.destroy();
      const reply = await ask();
      expect(reply.body).toEqual({
        data: { userExample: null },
        errors: [unavailable('users', `request to ${subgraphUrl} failed, reason: socket hang up`)],
      });
      behaviour = (_req, res) => json(res, 200, ANSWER);
      expect((await ask()).body).toEqual(ANSWER);
    });

    it('a subgraph that never answers costs the request SUBGRAPH_TIMEOUT_MS (400 ms here), then is unavailable', async () => {
      behaviour = (_req, res) => stalled.push(res);
      const reply = await ask();
      expect(reply.body).toEqual({
        data: { userExample: null },
        errors: [unavailable('users', `request to ${subgraphUrl} failed, reason: no reply within 400 ms`)],
      });
      expect(reply.ms).toBeGreaterThanOrEqual(390);
      expect(reply.ms).toBeLessThan(5_000);
    });
  });
});
