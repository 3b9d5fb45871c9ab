/**
 * A subgraph server's POST /graphql fast path (stand-in `http-fast-path` in front of the subgraph's Apollo Server,
 * subgraphs/subgraph-server.ts) answers exactly as its Express route: the cases the gateway's fast path is held to
 * (test/support/fast-path-cases.ts), asked of the users and the comments subgraph servers of a distributed system, the
 * bare path against the same path with a query string (which Express serves); and the fast path's requests are counted
 * under the subgraph's listener and the /graphql route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sameAsExpressTests } from '../../support/fast-path-cases.ts';
import { postForReply } from '../../support/graphql-client.ts';
import { rawRequest } from '../../support/raw-http.ts';
import { startDistributedTestSystem, type TestSystem, STAND_INS_ON } from '../../support/test-system.ts';

let system: TestSystem;

beforeAll(async () => {
  system = await startDistributedTestSystem({ ...STAND_INS_ON, GRAPHQL_BODY_LIMIT_BYTES: '4096' });
});

afterAll(async () => {
  await system?.close();
});

const subgraphUrl = (name: 'users' | 'comments' | 'accounts' | 'media') => system.subgraphs![name]!.subgraphUrls[name]!;

describe.each(['users', 'comments'] as const)('the %s subgraph server answers the same with and without Express', (name) => {
  sameAsExpressTests(() => ({ fast: subgraphUrl(name), viaExpress: `${subgraphUrl(name)}?route=express` }));
});

describe('the fast path of a subgraph server', () => {
  /** Which route wrote a reply: Express writes `Content-Length`, the fast path `content-length` (one header to clients). */
  const route = async (url: string, path: string) => {
    const query = JSON.stringify({ query: '{ __typename }' });
    const request = `POST ${path} HTTP/1.1\r\nHost: subgraph\r\nContent-Type: application/json\r\nContent-Length: ${query.length}\r\nConnection: close\r\n\r\n${query}`;
    const head = (await rawRequest(url, request, { untilClose: true })).raw.split('\r\n\r\n')[0]!;
    return head.includes('\r\ncontent-length: ') ? 'the fast path' : head.includes('\r\nContent-Length: ') ? 'Express' : head;
  };

  it('serves POST /graphql on every subgraph server, and leaves a query string to Express', async () => {
    for (const name of ['users', 'comments', 'accounts', 'media'] as const) {
      const url = subgraphUrl(name);
      expect([name, await route(url, '/graphql'), await route(url, '/graphql?route=express')]).toEqual([name, 'the fast path', 'Express']);
    }
  });

  it('serves an entity fetch as the gateway sends it, byte for byte as Express does', async () => {
    const body = JSON.stringify({
      query: 'query($representations:[_Any!]!){_entities(representations:$representations){...on UserExample{id}}}',
      variables: { representations: [{ __typename: 'UserExample', id: '1' }] },
    });
    const headers = { authorization: `Bearer ${system.adminToken()}` };
    const [a, b] = [
      await postForReply(subgraphUrl('users'), body, headers),
      await postForReply(`${subgraphUrl('users')}?route=express`, body, headers),
    ];
    expect(a.status).toBe(200);
    expect([a.body, a.contentType, a.cacheControl]).toEqual([b.body, b.contentType, b.cacheControl]);
  });

  it('counts its requests under the subgraph listener and the /graphql route', async () => {
    const url = subgraphUrl('users');
    const count = async () =>
      (await (await fetch(new URL('/metrics', url))).text())
        .split('\n')
        .filter(
          (line) =>
            line.startsWith('tributary_http_requests_total{') &&
            line.includes('listener="subgraph-users"') &&
            line.includes('route="/graphql"') &&
            line.includes('status="200"'),
        )
        .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
    const before = await count();
    await postForReply(url, JSON.stringify({ query: '{ __typename }' }));
    expect(await count()).toBe(before + 1);
  });
});
