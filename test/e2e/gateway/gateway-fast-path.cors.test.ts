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
    expect(fast.headers['access-control-expose-headers']).toBe('www-authenticate,x-request-id,tributary-log-position,etag');
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
