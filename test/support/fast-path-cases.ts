import { expect, it } from 'vitest';
import { postForReply } from './graphql-client.ts';

/** What is asked: a name, the body, the request's other headers. */
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

/**
 * The cases a POST /graphql fast path (stand-in `http-fast-path`: the gateway's, a subgraph server's) is held to the
 * Express route with: each asked both ways — the bare path (the fast path) and the path with a query string (which
 * sends the same request through Express) — and the replies compared: status, body, the headers that matter.
 * Registered in the caller's describe block; `urls` is read when the tests run.
 */
export function sameAsExpressTests(urls: () => { fast: string; viaExpress: string }): void {
  it.each(CASES)('%s', async (_name, body, headers = {}) => {
    const [a, b] = [await postForReply(urls().fast, body, headers), await postForReply(urls().viaExpress, body, headers)];
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
    const [a, b] = [await postForReply(urls().fast, body()), await postForReply(urls().viaExpress, body())];
    expect([a.status, a.body, a.contentType, a.cacheControl]).toEqual([b.status, b.body, b.contentType, b.cacheControl]);
  });
}

export type LaneOutcome = 'served' | 'replayed' | 'declined';

/** A fast lane's outcomes so far (tributary_graphql_fast_lane_requests_total of `server`), from the /metrics beside `url`. */
export async function fastLaneCounts(url: string, server: string): Promise<Record<LaneOutcome, number>> {
  const text = await (await fetch(new URL('/metrics', url))).text();
  const counts: Record<LaneOutcome, number> = { served: 0, replayed: 0, declined: 0 };
  const series = new RegExp(`^tributary_graphql_fast_lane_requests_total\\{server="${server}",outcome="(\\w+)"[^}]*\\} (\\d+)`);
  for (const line of text.split('\n')) {
    const match = series.exec(line);
    if (match) counts[match[1] as LaneOutcome] = Number(match[2]);
  }
  return counts;
}

/**
 * Asks `url`'s POST /graphql through its fast lane (once the pipeline has seen the document) and through its Express
 * route (a query string, which the lane never sees); returns both replies and the lane's outcome for the second ask.
 * The lane's reply must carry the headers of the first ask's, which went through Apollo Server's pipeline on the same
 * node:http path; the Express route's own headers and request id differ from the fast path's, so they are not compared.
 */
export async function askLaneAndPipeline(url: string, server: string, body: string, headers: Record<string, string> = {}) {
  const first = await postForReply(url, body, headers);
  const before = await fastLaneCounts(url, server);
  const lane = await postForReply(url, body, headers);
  const after = await fastLaneCounts(url, server);
  expect(lane.headers).toEqual({ ...first.headers, 'content-length': String(Buffer.byteLength(lane.body)) });
  const pipeline = await postForReply(`${url}?route=express`, body, headers);
  const outcome = (Object.keys(after) as LaneOutcome[]).filter((key) => after[key] !== before[key]);
  return { lane, pipeline: { ...pipeline, headers: lane.headers, requestId: lane.requestId }, outcome };
}
