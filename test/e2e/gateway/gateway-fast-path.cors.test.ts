/**
 * The gateway's HTTP fast path with CORS_ORIGINS configured (issue 38, item 3): a browser's POST /graphql stays on the
 * fast path (gateway/stand-ins/http-fast-path.ts), which runs the Express route's own `cors` handler first, and answers
 * exactly as the Express route — the same CORS headers for an allowed origin, another origin and none — while the
 * preflight is Express's. Which route answered is told by the spelling of its headers on the wire: Express's res.send
 * writes `Content-Length`, the fast path `content-length` (the same header to every client: names are case-insensitive).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postForReply } from '../../support/graphql-client.ts';
import { rawRequest } from '../../support/raw-http.ts';
import { startTestSystem, type TestSystem, STAND_INS_ON } from '../../support/test-system.ts';

const QUERY = JSON.stringify({ query: '{ __typename }' });

describe.each([
  ['a list of origins', 'http://app.example,http://localhost:5173'],
  ['any origin', '*'],
])('POST /graphql with CORS_ORIGINS: %s', (_name, origins) => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await startTestSystem({ ...STAND_INS_ON, CORS_ORIGINS: origins });
  });
  afterAll(async () => {
    await system?.close();
  });

  const answeredBy = async (path: string, headers: Record<string, string>) => {
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    const request = `POST ${path} HTTP/1.1\r\nHost: gateway\r\n${lines.join('')}Content-Type: application/json\r\nContent-Length: ${QUERY.length}\r\nConnection: close\r\n\r\n${QUERY}`;
    const head = (await rawRequest(system.gatewayUrl, request, { untilClose: true })).raw.split('\r\n\r\n')[0]!;
    return head.includes('\r\ncontent-length: ') ? 'the fast path' : head.includes('\r\nContent-Length: ') ? 'Express' : head;
  };

  it.each([
    ['an allowed origin', { origin: 'http://localhost:5173' }],
    ['another origin', { origin: 'http://evil.example' }],
    ['no origin', {}],
  ])('%s: the fast path answers, with the same CORS headers as the Express route', async (_case, headers: Record<string, string>) => {
    const fast = await postForReply(system.gatewayUrl, QUERY, headers);
    const express = await postForReply(`${system.gatewayUrl}?route=express`, QUERY, headers);
    expect([fast.status, fast.body, fast.headers]).toEqual([express.status, express.body, express.headers]);
    expect(await answeredBy('/graphql', headers)).toBe('the fast path');
    expect(await answeredBy('/graphql?route=express', headers)).toBe('Express');
    const allowed = origins === '*' ? '*' : headers.origin === 'http://localhost:5173' ? headers.origin : undefined;
    expect(fast.headers['access-control-allow-origin']).toBe(allowed);
    // The exposed headers go with an allowed origin only: a page of another origin reads nothing of the reply anyway.
    expect(fast.headers['access-control-expose-headers']).toBe(
      allowed === undefined ? undefined : 'www-authenticate,x-request-id,tributary-log-position,etag',
    );
    expect(fast.headers.vary).toBe('Origin');
  });

  it('the preflight is answered by the cors handler on the Express route', async () => {
    const response = await fetch(system.gatewayUrl, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,authorization',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(origins === '*' ? '*' : 'http://localhost:5173');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET,HEAD,PUT,PATCH,POST,DELETE');
    expect(response.headers.get('access-control-max-age')).toBe('600');
  });
});

/** A WebSocket upgrade to /graphql with these headers: the HTTP status line's code, or 101 once it is switched. */
async function upgradeStatus(gatewayUrl: string, headers: Record<string, string>): Promise<number> {
  const { default: WebSocket } = await import('ws');
  const socket = new WebSocket(gatewayUrl.replace(/^http/, 'ws'), 'graphql-transport-ws', { headers });
  return new Promise((resolve, reject) => {
    socket.once('open', () => {
      socket.close();
      resolve(101);
    });
    socket.once('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('error', reject);
  });
}

const preflight = (url: string, origin: string, requestHeaders = 'content-type,authorization') =>
  fetch(url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': requestHeaders },
  });

describe.each([
  [
    'development, nothing configured',
    {},
    ['http://localhost:3000', 'http://127.0.0.1:5173'],
    ['http://evil.example', 'https://localhost.evil.example'],
  ],
  [
    'CORS_LOCAL_ORIGINS=false, one origin listed',
    { CORS_LOCAL_ORIGINS: 'false', CORS_ORIGINS: 'https://app.example' },
    ['https://app.example'],
    ['http://localhost:3000'],
  ],
] as const)('the CORS policy of the gateway: %s (issue 40)', (_name, env, allowed, refused) => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await startTestSystem({ ...env });
  });
  afterAll(async () => {
    await system?.close();
  });

  it.each(allowed)('allows %s: its preflight mirrors the headers asked for (Apollo Client awareness, tracing)', async (origin) => {
    const asked = 'content-type,authorization,apollographql-client-name,apollographql-client-version,traceparent';
    const response = await preflight(system.gatewayUrl, origin, asked);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(origin);
    expect(response.headers.get('access-control-allow-headers')).toBe(asked);
    expect(await upgradeStatus(system.gatewayUrl, { origin })).toBe(101);
  });

  it.each(refused)("refuses %s: its preflight is a CORS refusal (not Apollo's CSRF message), its WebSocket 403", async (origin) => {
    const response = await preflight(system.gatewayUrl, origin);
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(await response.json()).toEqual({
      errors: [
        {
          message: `CORS: the origin ${origin} is not allowed to call this server; list it in CORS_ORIGINS (comma-separated)`,
          extensions: { code: 'CORS_ORIGIN_NOT_ALLOWED' },
        },
      ],
    });
    const rest = await preflight(`${system.restUrl}/api/v1/userExample/1`, origin);
    expect(rest.status).toBe(403);
    expect(await upgradeStatus(system.gatewayUrl, { origin })).toBe(403);
  });

  it('serves a WebSocket without an Origin (no browser: graphql-ws on Node, curl)', async () => {
    expect(await upgradeStatus(system.gatewayUrl, {})).toBe(101);
  });
});
