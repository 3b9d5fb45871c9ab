/**
 * The gateway's POST /graphql fast path (gateway/stand-ins/http-fast-path.ts) answers exactly as the Express route it stands in
 * front of. A query string sends the same request through Express (the fast path takes only the bare path), so each case
 * is asked both ways and the replies compared: status, body, the headers that matter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takesFastPath } from '../../../gateway/stand-ins/http-fast-path.ts';
import { sameAsExpressTests } from '../../support/fast-path-cases.ts';
import { postForReply } from '../../support/graphql-client.ts';
import { createLogCapture } from '../../support/log-capture.ts';
import { rawRequest } from '../../support/raw-http.ts';
import { startTestSystem, type TestSystem, STAND_INS_ON } from '../../support/test-system.ts';
import { HANG_MS } from '../../support/hang-bounds.ts';

let system: TestSystem;
let fast: string;
let viaExpress: string;
const logs = createLogCapture();

beforeAll(async () => {
  system = await startTestSystem({ ...STAND_INS_ON, GRAPHQL_BODY_LIMIT_BYTES: '4096', LOG_LEVEL: 'info' }, { logDestination: logs });
  fast = system.gatewayUrl;
  viaExpress = `${system.gatewayUrl}?route=express`;
});

afterAll(async () => {
  await system?.close();
});

describe('POST /graphql answers the same with and without Express', () => {
  sameAsExpressTests(() => ({ fast, viaExpress }));

  it('answers a body the client cut short as Express does, logs no error, and serves the next request', async () => {
    const cut = (path: string) =>
      rawRequest(
        system.gatewayUrl,
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query":`,
        {
          endAfterWrite: true,
          timeoutMs: HANG_MS,
        },
      );
    const [a, b] = [await cut('/graphql'), await cut('/graphql?route=express')];
    expect([a.status, a.body, a.timedOut]).toEqual([b.status, b.body, false]);
    expect(logs.entries().filter((entry) => (entry.level as number) >= 50)).toEqual([]);
    expect((await postForReply(fast, JSON.stringify({ query: '{ __typename }' }))).body).toBe('{"data":{"__typename":"Query"}}\n');
  });

  it('takes POST /graphql with a JSON body, and leaves everything else to Express', () => {
    const json = { 'content-type': 'application/json' };
    expect(takesFastPath({ method: 'POST', url: '/graphql', headers: json })).toBe(true);
    expect(takesFastPath({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json; charset=UTF-8' } })).toBe(true);
    expect(takesFastPath({ method: 'POST', url: '/graphql', headers: { ...json, 'content-encoding': 'identity' } })).toBe(true);
    expect(takesFastPath({ method: 'POST', url: '/graphql?route=express', headers: json })).toBe(false);
    expect(takesFastPath({ method: 'GET', url: '/graphql', headers: json })).toBe(false);
    expect(takesFastPath({ method: 'POST', url: '/graphql/', headers: json })).toBe(false);
    expect(takesFastPath({ method: 'POST', url: '/graphql', headers: { 'content-type': 'multipart/form-data; boundary=x' } })).toBe(false);
    expect(takesFastPath({ method: 'POST', url: '/graphql', headers: { ...json, 'content-encoding': 'gzip' } })).toBe(false);
    expect(takesFastPath({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json; charset=latin1' } })).toBe(false);
    expect(takesFastPath({ method: 'POST', url: '/graphql', headers: {} })).toBe(false);
  });

  it('counts the request under the /graphql route in the metrics', async () => {
    const before = await (await fetch(new URL('/metrics', system.gatewayUrl))).text();
    const count = (text: string) =>
      text
        .split('\n')
        .filter(
          (line) => line.startsWith('tributary_http_requests_total{') && line.includes('route="/graphql"') && line.includes('status="200"'),
        )
        .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
    await postForReply(fast, JSON.stringify({ query: '{ __typename }' }));
    const after = await (await fetch(new URL('/metrics', system.gatewayUrl))).text();
    expect(count(after)).toBeGreaterThan(count(before));
  });
});
