import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpExecutor, isGraphQLResponse } from '../../rest-adapter/graphql-executor.ts';
import { GetByIdDocument } from '../../rest-adapter/user-records/generated/operations.ts';

/**
 * The HTTP executor (rest-adapter/graphql-executor.ts): the one place where JSON from the wire becomes an operation's
 * result, so what it takes for a GraphQL response, and what it sends for a generated document.
 */

describe('isGraphQLResponse', () => {
  it.each([
    ['data', { data: { userExample: null } }],
    ['null data with errors', { data: null, errors: [{ message: 'no', path: ['userExample'], locations: [{ line: 1, column: 2 }] }] }],
    ['errors with extensions', { errors: [{ message: 'no', extensions: { code: 'NOT_FOUND' } }], extensions: { socialUsage: {} } }],
  ])('takes a response with %s', (_name, body) => {
    expect(isGraphQLResponse(body)).toBe(true);
  });

  it.each([
    ['a string', 'Bad Gateway'],
    ['null', null],
    ['an array', [{ data: {} }]],
    ['data that is a list', { data: [] }],
    ['data that is a string', { data: 'ok' }],
    ['errors that are no list', { errors: { message: 'no' } }],
    ['an error without a message', { errors: [{ code: 'NOT_FOUND' }] }],
    ['an error whose message is no string', { errors: [{ message: 42 }] }],
    ['an error whose path holds an object', { errors: [{ message: 'no', path: [{}] }] }],
    ['an error whose locations are no list', { errors: [{ message: 'no', locations: { line: 1 } }] }],
    ['extensions that are a list', { data: {}, extensions: [] }],
  ])('refuses %s', (_name, body) => {
    expect(isGraphQLResponse(body)).toBe(false);
  });
});

describe('createHttpExecutor', () => {
  let server: Server;
  let reply: { status: number; body: string } = { status: 200, body: '{}' };
  const received: unknown[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  function executor() {
    return createHttpExecutor(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }

  it("sends a generated document's text with its variables and reads the reply as its result", async () => {
    const record = { id: '9007199254740993', name: 'Ann', email: 'a@example.com', phone: '13800138000', avatar: 'https://a.example/a.png' };
    reply = { status: 200, body: JSON.stringify({ data: { userExample: record } }) };
    const result = await executor().execute({
      query: GetByIdDocument,
      operationName: 'GetByID',
      variables: { id: '9007199254740993' },
      headers: {},
    });
    expect(result).toEqual({ data: { userExample: record } });
    expect(result.data?.userExample?.id).toBe('9007199254740993');
    expect(received.at(-1)).toEqual({ query: String(GetByIdDocument), operationName: 'GetByID', variables: { id: '9007199254740993' } });
  });

  it.each([
    ['a body of another shape', 502, JSON.stringify({ message: 'bad gateway' })],
    ['data that is no object', 200, JSON.stringify({ data: 'ok' })],
    ['errors without messages', 200, JSON.stringify({ errors: [{}] })],
    ['no JSON at all', 502, '<html>Bad Gateway</html>'],
  ])('answers UNAVAILABLE for %s', async (_name, status, body) => {
    reply = { status, body };
    await expect(
      executor().execute({ query: 'query Q { __typename }', operationName: 'Q', variables: {}, headers: {} }),
    ).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: `the GraphQL gateway answered HTTP ${status} without a GraphQL body`,
    });
  });
});
