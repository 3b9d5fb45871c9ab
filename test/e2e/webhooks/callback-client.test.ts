import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CallbackClientOptions,
  type CallbackLookup,
  createCallbackClient,
  type ResolvedAddress,
} from '../../../lib/http/callback-client.ts';
import { HANG_MS } from '../../support/hang-bounds.ts';

/**
 * The webhook callback client against real servers on 127.0.0.1 (issue 26, item 4): answers read exactly, loopback
 * refused unless allowed, redirects not followed, time and size bounded, and a name that rebinds to loopback between the
 * check and the request refused at the request. The servers count what reaches them, so "refused" means nothing was sent.
 */

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

interface TestServer {
  port: number;
  url: (path?: string) => string;
  received: Received[];
  close: () => Promise<void>;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** An HTTP server on 127.0.0.1:0 that records each request (with its whole body) and answers with `answer`. */
async function startServer(answer: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void): Promise<TestServer> {
  const received: Received[] = [];
  const server: Server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      answer(req, res, body);
    });
    // A client that hangs up mid-answer is what some tests do on purpose.
    res.on('error', () => {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const close = async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  };
  closers.push(close);
  return { port, url: (path = '/') => `http://127.0.0.1:${port}${path}`, received, close };
}

/** A TCP server on 127.0.0.1:0 that accepts connections, reads and never writes a byte. */
async function startSilentServer(): Promise<{ port: number; connections: () => number }> {
  const sockets = new Set<Socket>();
  let count = 0;
  const server: TcpServer = createTcpServer((socket) => {
    count++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    socket.resume();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(async () => {
    for (const socket of sockets) socket.destroy();
    server.close();
    await once(server, 'close');
  });
  return { port: (server.address() as AddressInfo).port, connections: () => count };
}

/** A lookup answering in turn each list of `answers` (the last one from then on), counting its calls. */
function lookupAnswering(...answers: string[][]): CallbackLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string): Promise<readonly ResolvedAddress[]> => {
    const addresses = answers[Math.min(calls.length, answers.length - 1)] ?? [];
    calls.push(hostname);
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

function client(overrides: Partial<CallbackClientOptions> = {}) {
  return createCallbackClient({
    allowPrivate: false,
    allowedHosts: ['127.0.0.1'],
    requireHttps: false,
    connectTimeoutMs: HANG_MS,
    responseTimeoutMs: HANG_MS,
    maxResponseBytes: 64 * 1024,
    userAgent: 'Tributary-Webhooks/1.0',
    ...overrides,
  });
}

describe('the webhook callback client', () => {
  it('makes a GET and reads the answer exactly', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-app': 'listener' });
      res.end('challenge-accepted-42');
    });
    const result = await client().request({ method: 'GET', url: server.url('/hooks/verify?hub.challenge=42&hub.mode=subscribe') });
    expect(result).toMatchObject({ kind: 'response', status: 200, truncated: false, redirected: false });
    if (result.kind !== 'response') return;
    expect(result.body.toString('utf8')).toBe('challenge-accepted-42');
    expect(result.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(result.headers['x-app']).toBe('listener');
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(server.received).toHaveLength(1);
    const [request] = server.received;
    expect(request).toMatchObject({ method: 'GET', url: '/hooks/verify?hub.challenge=42&hub.mode=subscribe' });
    expect(request?.headers).toMatchObject({
      host: `127.0.0.1:${server.port}`,
      connection: 'close',
      'user-agent': 'Tributary-Webhooks/1.0',
    });
    expect(request?.body.length).toBe(0);
  });

  it('POSTs a body byte for byte with its headers, and reads the answer exactly', async () => {
    const server = await startServer((_req, res, body) => {
      res.writeHead(202, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ received: body.length, echo: body.toString('utf8') }));
    });
    const payload = JSON.stringify({ object: 'page', entry: [{ id: '1', changes: [{ field: 'feed', value: { message: 'héllo ✓' } }] }] });
    const result = await client().request({
      method: 'POST',
      url: server.url('/hooks/events'),
      headers: {
        'Content-Type': 'application/json',
        'X-Hub-Signature-256': 'sha256=abc123',
        // The client sets these itself; the caller's are dropped.
        Host: 'evil.example',
        Connection: 'keep-alive',
        'Content-Length': '1',
      },
      body: payload,
    });
    expect(result).toMatchObject({ kind: 'response', status: 202, truncated: false, redirected: false });
    if (result.kind !== 'response') return;
    const bytes = Buffer.byteLength(payload);
    expect(result.body.toString('utf8')).toBe(JSON.stringify({ received: bytes, echo: payload }));
    const [request] = server.received;
    expect(request?.method).toBe('POST');
    expect(request?.body.equals(Buffer.from(payload, 'utf8'))).toBe(true);
    expect(request?.headers).toMatchObject({
      host: `127.0.0.1:${server.port}`,
      connection: 'close',
      'content-length': String(bytes),
      'content-type': 'application/json',
      'x-hub-signature-256': 'sha256=abc123',
    });
  });

  it('refuses 127.0.0.1 unless it is an allowed host, sending nothing', async () => {
    const server = await startServer((_req, res) => res.end('ok'));
    const refused = await client({ allowedHosts: [] }).request({ method: 'GET', url: server.url('/hook') });
    expect(refused).toEqual({
      kind: 'refused',
      reason: 'forbidden_address',
      message: 'the host is a loopback address, which callbacks may not reach',
    });
    expect(await client({ allowedHosts: [] }).check(server.url('/hook'))).toMatchObject({ ok: false, reason: 'forbidden_address' });
    expect(server.received).toHaveLength(0);
    const allowed = await client({ allowedHosts: ['127.0.0.1'] }).request({ method: 'GET', url: server.url('/hook') });
    expect(allowed).toMatchObject({ kind: 'response', status: 200 });
    expect(server.received).toHaveLength(1);
  });

  it('refuses a name that resolves to 127.0.0.1, even with 127.0.0.1 an allowed host', async () => {
    const server = await startServer((_req, res) => res.end('ok'));
    const lookup = lookupAnswering(['127.0.0.1']);
    const result = await client({ lookup }).request({ method: 'POST', url: `http://hooks.example.com:${server.port}/hook`, body: '{}' });
    expect(result).toEqual({
      kind: 'refused',
      reason: 'forbidden_address',
      message: 'the host name resolves to a loopback address, which callbacks may not reach',
    });
    expect(lookup.calls).toEqual(['hooks.example.com']);
    expect(server.received).toHaveLength(0);
  });

  it('connects to the address it checked, resolving once per request, with the name as Host', async () => {
    const server = await startServer((_req, res) => res.end('pinned'));
    const lookup = lookupAnswering(['127.0.0.1']);
    const pinned = client({ allowedHosts: ['hooks.test'], lookup });
    for (let i = 1; i <= 2; i++) {
      const result = await pinned.request({ method: 'GET', url: `http://hooks.test:${server.port}/hook` });
      expect(result).toMatchObject({ kind: 'response', status: 200 });
      if (result.kind === 'response') expect(result.body.toString()).toBe('pinned');
      expect(lookup.calls).toHaveLength(i);
    }
    expect(server.received.map((request) => request.headers.host)).toEqual([`hooks.test:${server.port}`, `hooks.test:${server.port}`]);
  });

  it('answers a redirect as it is and does not follow it', async () => {
    const target = await startServer((_req, res) => res.end('followed'));
    const redirecting = await startServer((_req, res) => {
      res.writeHead(302, { location: target.url('/elsewhere') });
      res.end('moved');
    });
    const result = await client().request({ method: 'POST', url: redirecting.url('/hook'), body: 'event' });
    expect(result).toMatchObject({ kind: 'response', status: 302, redirected: false, truncated: false });
    if (result.kind !== 'response') return;
    expect(result.headers.location).toBe(target.url('/elsewhere'));
    expect(result.body.toString()).toBe('moved');
    expect(redirecting.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
  });

  it('fails with a timeout when the server never answers', async () => {
    const silent = await startSilentServer();
    const result = await client({ responseTimeoutMs: 300 }).request({
      method: 'POST',
      url: `http://127.0.0.1:${silent.port}/hook`,
      body: '{}',
    });
    expect(result).toMatchObject({ kind: 'failed', reason: 'timeout' });
    expect(silent.connections()).toBe(1);
  });

  it('fails with a timeout when the answer starts but never ends', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    });
    const result = await client({ responseTimeoutMs: 300 }).request({ method: 'GET', url: server.url('/hook') });
    expect(result).toMatchObject({ kind: 'failed', reason: 'timeout' });
  });

  it('fails with a timeout when the TLS handshake never completes (the connect bound)', async () => {
    const silent = await startSilentServer();
    const result = await client({ connectTimeoutMs: 200 }).request({ method: 'GET', url: `https://127.0.0.1:${silent.port}/hook` });
    expect(result).toMatchObject({ kind: 'failed', reason: 'timeout', message: 'could not connect within 200 ms' });
  });

  it('reads at most maxResponseBytes of a huge answer and says it was cut', async () => {
    const chunk = Buffer.alloc(64 * 1024);
    for (let i = 0; i < chunk.length; i++) chunk[i] = i % 251;
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      // 64 MiB, written as the client drains it: far more than the client may read.
      let left = 1024;
      const pump = (): void => {
        while (left > 0) {
          left--;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
    });
    const maxResponseBytes = 100_000;
    const result = await client({ maxResponseBytes }).request({ method: 'GET', url: server.url('/huge') });
    expect(result).toMatchObject({ kind: 'response', status: 200, truncated: true });
    if (result.kind !== 'response') return;
    expect(result.body.length).toBe(maxResponseBytes);
    const expected = Buffer.concat([chunk, chunk]).subarray(0, maxResponseBytes);
    expect(result.body.equals(expected)).toBe(true);
  });

  it('does not call an answer of exactly maxResponseBytes cut', async () => {
    const server = await startServer((_req, res) => res.end(Buffer.alloc(1000, 'x')));
    const result = await client({ maxResponseBytes: 1000 }).request({ method: 'GET', url: server.url('/exact') });
    expect(result).toMatchObject({ kind: 'response', status: 200, truncated: false });
    if (result.kind === 'response') expect(result.body.length).toBe(1000);
  });

  it('refuses at request time a name that resolved to a public address when checked and to 127.0.0.1 since (DNS rebinding)', async () => {
    const server = await startServer((_req, res) => res.end('ok'));
    const lookup = lookupAnswering(['93.184.215.14'], ['127.0.0.1']);
    const callbacks = client({ lookup });
    const url = `http://rebind.example.com:${server.port}/hook`;
    expect(await callbacks.check(url)).toMatchObject({ ok: true, addresses: [{ address: '93.184.215.14', family: 4 }] });
    const result = await callbacks.request({ method: 'POST', url, body: '{"event":1}' });
    expect(result).toEqual({
      kind: 'refused',
      reason: 'forbidden_address',
      message: 'the host name resolves to a loopback address, which callbacks may not reach',
    });
    expect(lookup.calls).toEqual(['rebind.example.com', 'rebind.example.com']);
    expect(server.received).toHaveLength(0);
  });

  it('refuses an http: URL when https is required, sending nothing', async () => {
    const server = await startServer((_req, res) => res.end('ok'));
    const production = client({ requireHttps: true });
    const expected = { reason: 'https_required', message: 'the URL must use https:' };
    expect(await production.check(server.url('/hook'))).toEqual({ ok: false, ...expected });
    expect(await production.request({ method: 'POST', url: server.url('/hook'), body: '{}' })).toEqual({ kind: 'refused', ...expected });
    expect(server.received).toHaveLength(0);
  });

  it('fails with connect when nothing listens on the port', async () => {
    const server = await startServer((_req, res) => res.end('ok'));
    const url = server.url('/hook');
    await server.close();
    expect(await client().request({ method: 'GET', url })).toMatchObject({
      kind: 'failed',
      reason: 'connect',
      message: 'the connection was refused (ECONNREFUSED)',
    });
  });

  it('fails with reset when the server drops the connection without answering', async () => {
    const server = await startServer((req) => req.socket.destroy());
    expect(await client().request({ method: 'POST', url: server.url('/hook'), body: 'x' })).toMatchObject({
      kind: 'failed',
      reason: 'reset',
    });
  });

  it('fails with tls when an https: URL reaches a server that does not speak TLS', async () => {
    const server = await startServer((_req, res) => res.end('plain'));
    const result = await client().request({ method: 'GET', url: `https://127.0.0.1:${server.port}/hook` });
    expect(result).toMatchObject({ kind: 'failed', reason: 'tls' });
  });

  it('keeps the host name for SNI while connecting to the checked address, and fails with tls on an untrusted certificate', async () => {
    const tls = new URL('../../fixtures/tls/', import.meta.url);
    const serverNames: string[] = [];
    let requests = 0;
    const server = createHttpsServer(
      {
        key: readFileSync(new URL('x-com.key', tls)),
        cert: readFileSync(new URL('x-com.crt', tls)),
        SNICallback: (name, callback) => {
          serverNames.push(name);
          callback(null);
        },
      },
      (_req, res) => {
        requests++;
        res.end('ok');
      },
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    });
    const { port } = server.address() as AddressInfo;
    const lookup = lookupAnswering(['127.0.0.1']);
    const result = await client({ allowedHosts: ['upload.x.com'], lookup }).request({
      method: 'GET',
      url: `https://upload.x.com:${port}/hook`,
    });
    // The fixture's certificate is self-signed: nothing the client trusts.
    expect(result).toMatchObject({ kind: 'failed', reason: 'tls', message: 'the TLS handshake failed (DEPTH_ZERO_SELF_SIGNED_CERT)' });
    expect(serverNames).toEqual(['upload.x.com']);
    expect(lookup.calls).toEqual(['upload.x.com']);
    expect(requests).toBe(0);
  });

  it('answers an unusable request as failed instead of throwing', async () => {
    const server = await startServer((_req, res) => res.end('ok'));
    const result = await client().request({ method: 'GET', url: server.url('/hook'), headers: { 'x-bad': 'line\r\nbreak' } });
    expect(result).toMatchObject({ kind: 'failed', reason: 'other' });
    expect(server.received).toHaveLength(0);
  });
});
