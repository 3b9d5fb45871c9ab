/**
 * The library copy `remote-data-source` (lib/stand-ins/stand-in-registry.ts, LIBRARY_COPIES): gateway/remote-data-source.ts
 * builds a subgraph fetch and reads its reply as @apollo/gateway's RemoteGraphQLDataSource does. Both are sent the same
 * fetches against one subgraph this file controls and must send the same request (method, body, the headers a
 * subgraph reads) and give the gateway the same answer — but where ours deliberately differs, asserted as such: a 400
 * carrying GraphQL errors passes those errors on (the library says "400: Bad Request").
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { type GraphQLError } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayContext } from '../../gateway/gateway-context.ts';
import { PropagatingRemoteDataSource } from '../../gateway/remote-data-source.ts';
import { createFetcherSubgraphClient } from '../../gateway/subgraph-http-client.ts';
import { createSubgraphIncidents } from '../../gateway/subgraph-incidents.ts';
import { createLogger } from '../../lib/logger.ts';

interface Received {
  method: string | undefined;
  headers: IncomingMessage['headers'];
  body: string;
}

type Reply = { status: number; headers?: Record<string, string>; body: string };

let server: Server;
let url: string;
let reply: Reply;
let received: Received[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ method: req.method, headers: req.headers, body });
      res.writeHead(reply.status, reply.headers ?? {});
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const CONTEXT = { authorization: 'Bearer t', requestId: 'request-1', socialHost: 'graph', responseExtensions: {} };

/** The headers of CONTEXT as a subgraph must see them: the library is told them as its users do, in willSendRequest. */
function library(): RemoteGraphQLDataSource<GatewayContext> {
  return new RemoteGraphQLDataSource<GatewayContext>({
    url,
    willSendRequest({ request, context }) {
      request.http?.headers.set('authorization', context.authorization ?? '');
      request.http?.headers.set('x-request-id', context.requestId);
      request.http?.headers.set('x-social-host', context.socialHost ?? '');
    },
  });
}

function ours(): PropagatingRemoteDataSource {
  return new PropagatingRemoteDataSource({
    name: 'users',
    endpoints: [{ url, client: createFetcherSubgraphClient(url, { timeoutMs: 5_000 }) }],
    exposeReasons: true,
    incidents: createSubgraphIncidents(createLogger({ level: 'silent' })),
  });
}

/** One incoming-operation fetch, with the cache policy the subgraph's reply restricts recorded. */
function fetchOptions() {
  const hints: unknown[] = [];
  const headers = new Map([['apollo-federation-include-trace', 'ftv1']]);
  const options = {
    kind: 'incoming operation',
    request: {
      query: 'query Q($id: ID!) { userExample(id: $id) { id name } }',
      variables: { id: '1' },
      operationName: 'Q',
      extensions: { clientLibrary: 'x' },
      http: { method: 'POST', url, headers },
    },
    context: { ...CONTEXT },
    incomingRequestContext: { overallCachePolicy: { restrict: (hint: unknown) => hints.push(hint) } },
    document: undefined,
    pathInIncomingRequest: undefined,
  } as unknown as GraphQLDataSourceProcessOptions<GatewayContext>;
  return { options, hints };
}

/** What a data source answered, as the gateway reads it (data, errors, extensions), or what it threw. */
async function outcome(source: { process(options: GraphQLDataSourceProcessOptions<GatewayContext>): Promise<unknown> }) {
  received = [];
  const { options, hints } = fetchOptions();
  try {
    const { data, errors, extensions } = (await source.process(options)) as { data?: unknown; errors?: unknown; extensions?: unknown };
    return { answer: { data, errors, extensions }, hints, sent: received };
  } catch (error) {
    const thrown = error as GraphQLError;
    return { thrown: { message: thrown.message, extensions: thrown.extensions }, hints, sent: received };
  }
}

/** What a subgraph reads of a request: method, body, and these headers. */
const READ_HEADERS = ['content-type', 'authorization', 'x-request-id', 'x-social-host', 'apollo-federation-include-trace'];
function asSubgraphReadsIt(sent: Received[]) {
  return sent.map((one) => ({
    method: one.method,
    body: JSON.parse(one.body) as unknown,
    headers: Object.fromEntries(READ_HEADERS.map((name) => [name, one.headers[name]])),
  }));
}

const JSON_TYPE = { 'content-type': 'application/json' };

describe('the remote data source against RemoteGraphQLDataSource (@apollo/gateway 2.14.4)', () => {
  it.each<[string, Reply]>([
    [
      'data and extensions',
      { status: 200, headers: JSON_TYPE, body: '{"data":{"userExample":{"id":"1","name":"a"}},"extensions":{"x":1}}' },
    ],
    [
      'data with errors',
      { status: 200, headers: JSON_TYPE, body: '{"data":{"userExample":null},"errors":[{"message":"no","path":["userExample"]}]}' },
    ],
    [
      'a cache hint: max-age and private',
      { status: 200, headers: { ...JSON_TYPE, 'cache-control': 'max-age=30, private' }, body: '{"data":{}}' },
    ],
    ['a cache hint: public, no max-age', { status: 200, headers: { ...JSON_TYPE, 'cache-control': 'public' }, body: '{"data":{}}' }],
    ['a 200 that is JSON but no object', { status: 200, headers: JSON_TYPE, body: '"text"' }],
    ['a 401 without GraphQL errors', { status: 401, headers: JSON_TYPE, body: '{"message":"who?"}' }],
    ['a 403 as text', { status: 403, headers: { 'content-type': 'text/plain' }, body: 'forbidden' }],
    ['a 500 as text', { status: 500, headers: { 'content-type': 'text/plain' }, body: 'broken' }],
  ])('%s: the same request sent, the same answer', async (_case, answer) => {
    reply = answer;
    const theirs = await outcome(library());
    const mine = await outcome(ours());
    expect(asSubgraphReadsIt(mine.sent)).toEqual(asSubgraphReadsIt(theirs.sent));
    expect(mine.sent).toHaveLength(1);
    expect(mine.hints).toEqual(theirs.hints);
    expect('thrown' in mine ? mine.thrown : mine.answer).toEqual('thrown' in theirs ? theirs.thrown : theirs.answer);
  });

  it('where it differs on purpose: a 400 carrying GraphQL errors passes them on (the library: "400: Bad Request")', async () => {
    reply = {
      status: 400,
      headers: JSON_TYPE,
      body: '{"errors":[{"message":"Variable \\"$id\\" got invalid value","extensions":{"code":"BAD_USER_INPUT"}}]}',
    };
    const theirs = await outcome(library());
    const mine = await outcome(ours());
    expect(theirs).toMatchObject({ thrown: { message: '400: Bad Request' } });
    expect(mine).toMatchObject({
      answer: { errors: [{ message: 'Variable "$id" got invalid value', extensions: { code: 'BAD_USER_INPUT' } }] },
    });
  });
});
