/**
 * The gateway's POST /graphql fast path (gateway/stand-ins/http-fast-path.ts) answers exactly as the Express route it stands in
 * front of. A query string sends the same request through Express (the fast path takes only the bare path), so each case
 * is asked both ways and the replies compared: status, body, the headers that matter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takesFastPath } from '../../../gateway/stand-ins/http-fast-path.ts';
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

const CASES: [string, string, Record<string, string>?][] = [
  ['a query', JSON.stringify({ query: '{ __typename }' })],
  [
    'a query with variables and an operation name',
    JSON.stringify({ query: 'query Q($id: UInt64!) { userExample(id: $id) { id } }', variables: { id: '1' }, operationName: 'Q' }),
  ],
  ['a validation error', JSON.stringify({ query: '{ nope }' })],
  ['an unknown operation name', JSON.stringify({ query: 'query A { __typename }', operationName: 'B' })],
  ['a body that is not JSON', '{"query": '],
  ['a JSON body that is not an object', '"{ __typename }"'],
  ['a batch', JSON.stringify([{ query: '{ __typename }' }])],
  ['a body over GRAPHQL_BODY_LIMIT_BYTES', JSON.stringify({ query: `{ __typename }${' '.repeat(5000)}` })],
  ['a document past the token limit', JSON.stringify({ query: `{ ${'__typename '.repeat(20_000)} }` })],
  ['a UTF-8 charset', JSON.stringify({ query: '{ __typename }' }), { 'content-type': 'application/json; charset=utf-8' }],
  ["the caller's request id", JSON.stringify({ query: '{ __typename }' }), { 'x-request-id': 'fast-path-1' }],
  // What the fast path's own body reader (lean-json-body.ts) reads, and what it hands to body-parser.
  ['JSON whitespace before the object', `\r\n\t ${JSON.stringify({ query: '{ __typename }' })}`],
  ['an object with trailing garbage', `${JSON.stringify({ query: '{ __typename }' })} x`],
  ['an object that does not parse', '{"query": "{ __typename }",}'],
  ['an empty body', ''],
  ['JSON null', 'null'],
  ['a JSON number', '42'],
  ['a body of whitespace', '   '],
];

describe('POST /graphql answers the same with and without Express', () => {
  it.each(CASES)('%s', async (_name, body, headers = {}) => {
    const [a, b] = [await postForReply(fast, body, headers), await postForReply(viaExpress, body, headers)];
    expect(a.status).toBe(b.status);
    expect(a.body).toBe(b.body);
    expect(a.contentType).toBe(b.contentType);
    expect(a.contentLength).toBe(String(Buffer.byteLength(a.body)));
    expect(a.cacheControl).toBe(b.cacheControl);
    if (headers['x-request-id']) expect([a.requestId, b.requestId]).toEqual(['fast-path-1', 'fast-path-1']);
    else expect(a.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each<[string, () => Uint8Array | ReadableStream<Uint8Array>]>([
    [
      'a UTF-8 byte-order mark before the object',
      () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ query: '{ __typename }' }))]),
    ],
    [
      'bytes that are not UTF-8 in a string',
      () => Buffer.concat([Buffer.from('{"query":"{ __typename }","operationName":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
    ],
    ['a chunked body (no Content-Length)', () => new Blob([JSON.stringify({ query: '{ __typename }' })]).stream()],
    ['a chunked body that is not JSON', () => new Blob(['{"query": ']).stream()],
  ])('%s', async (_name, body) => {
    const [a, b] = [await postForReply(fast, body()), await postForReply(viaExpress, body())];
    expect([a.status, a.body, a.contentType, a.cacheControl]).toEqual([b.status, b.body, b.contentType, b.cacheControl]);
  });

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
