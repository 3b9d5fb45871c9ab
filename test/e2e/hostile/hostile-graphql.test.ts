import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { postJson } from '../../support/graphql-client.ts';
import { multipartBody, rawRequest } from '../../support/raw-http.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * Regression tests of the GraphQL front door under hostile input (issue "Hostile traffic"): each case once killed the
 * process or was answered as the server's fault, and must now be answered as the client's, in GraphQL's own shape, with
 * the process still serving. Both topologies: the distributed one puts subgraph servers behind the gateway.
 */

const MODES = [
  // Embedded, the media service refuses the missing credential before it would read the file that never came; the
  // distributed gateway must relay the file to the media subgraph first, and finds it was never received whole.
  { mode: 'embedded gateway', start: () => startTestSystem(), truncatedFile: { code: 'UNAUTHENTICATED', reason: 'AUTH_MISSING' } },
  { mode: 'distributed gateway', start: () => startDistributedTestSystem(), truncatedFile: { code: 'BAD_USER_INPUT' } },
];

const UPLOAD = 'mutation Upload($media: Upload!) { uploadMedia(media: $media) { mediaIdString } }';
const PNG_START = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

/** A GraphQL multipart request whose body ends in the middle of the file part named "0" (Content-Length is honest). */
function truncatedMultipart(path: string, map: string): Buffer {
  const boundary = 'hostile-boundary';
  const body = multipartBody(
    boundary,
    [
      { name: 'operations', content: JSON.stringify({ query: UPLOAD, variables: { media: null } }) },
      { name: 'map', content: map },
      { name: '0', filename: 'a.png', type: 'image/png', content: PNG_START },
    ],
    { close: false },
  );
  // Cut inside the file's bytes: no CRLF, no closing boundary.
  const cut = body.subarray(0, body.length - 6);
  const head =
    `POST ${path} HTTP/1.1\r\nHost: localhost\r\nApollo-Require-Preflight: true\r\n` +
    `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${cut.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), cut]);
}

describe.each(MODES)('GraphQL front door under hostile input ($mode)', ({ start, truncatedFile }) => {
  let system: TestSystem;
  let fixture: SocialFixture;
  beforeAll(async () => {
    system = await start();
    fixture = await createSocialFixture(system.database);
  });
  afterAll(() => system?.close());

  async function stillServes(): Promise<void> {
    const reply = await postJson(system.gatewayUrl, { query: '{ __typename }' });
    expect(reply).toEqual({ status: 200, body: { data: { __typename: 'Query' } } });
  }

  describe('a multipart request whose body ends mid-file', () => {
    it.each([
      ['a map entry for a part that never arrives', '{"1":["variables.media"]}'],
      ['a "__proto__" map key', '{"__proto__":["variables.media"]}'],
    ])('is answered, not fatal, with %s', async (_label, map) => {
      const reply = await rawRequest(system.gatewayUrl, truncatedMultipart('/graphql', map));
      expect(reply.timedOut).toBe(false);
      expect(reply.status).toBe(200);
      expect(reply.json.errors).toHaveLength(1);
      expect(reply.json.errors[0].extensions).toMatchObject(truncatedFile);
      await stillServes();
    });

    it('is answered, not fatal, with an empty map', async () => {
      const reply = await rawRequest(system.gatewayUrl, truncatedMultipart('/graphql', '{}'));
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({
        errors: [
          {
            message: 'Variable "$media" of non-null type "Upload!" must not be null.',
            locations: [{ line: 1, column: 17 }],
            extensions: { code: 'BAD_USER_INPUT' },
          },
        ],
      });
      await stillServes();
    });

    it('is answered, not fatal, when the client sends a token', async () => {
      const request = truncatedMultipart('/graphql', '{"1":["variables.media"]}')
        .toString('latin1')
        .replace('Host: localhost\r\n', `Host: localhost\r\nAuthorization: Bearer ${fixture.tokens.own}\r\n`);
      const reply = await rawRequest(system.gatewayUrl, Buffer.from(request, 'latin1'));
      expect(reply.status).toBeLessThan(500);
      expect(JSON.stringify(reply.json)).not.toContain('INTERNAL_SERVER_ERROR');
      await stillServes();
    });
  });

  describe('request-level mistakes are HTTP 400, never 500', () => {
    it('refuses an operationName the document does not define', async () => {
      expect(await postJson(system.gatewayUrl, { query: 'query A { __typename }', operationName: 'Nope' })).toEqual({
        status: 400,
        body: { errors: [{ message: 'Unknown operation named "Nope".', extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } }] },
      });
    });

    it('refuses several operations sent without an operationName', async () => {
      expect(await postJson(system.gatewayUrl, { query: 'query A { __typename } query B { __typename }' })).toEqual({
        status: 400,
        body: {
          errors: [
            {
              message: 'Must provide operation name if query contains multiple operations.',
              extensions: { code: 'OPERATION_RESOLUTION_FAILURE' },
            },
          ],
        },
      });
    });

    it('refuses a subscription of a field the schema’s Subscription type lacks', async () => {
      expect(await postJson(system.gatewayUrl, { query: 'subscription { me { id } }' })).toEqual({
        status: 400,
        body: {
          errors: [
            {
              message: 'Cannot query field "me" on type "Subscription".',
              locations: [{ line: 1, column: 16 }],
              extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
            },
          ],
        },
      });
    });

    it('refuses an unparsable document and an unparsable body', async () => {
      expect(await postJson(system.gatewayUrl, { query: '{ me { ' })).toEqual({
        status: 400,
        body: {
          errors: [
            {
              message: 'Syntax Error: Expected Name, found <EOF>.',
              locations: [{ line: 1, column: 8 }],
              extensions: { code: 'GRAPHQL_PARSE_FAILED' },
            },
          ],
        },
      });
      const response = await fetch(system.gatewayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"query": ',
      });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { errors: { extensions: { code: string } }[] };
      expect(body.errors[0]!.extensions.code).toBe('BAD_REQUEST');
    });

    it('refuses a persisted query of an unknown version as the client’s mistake', async () => {
      const reply = await postJson(system.gatewayUrl, {
        query: '{ __typename }',
        extensions: { persistedQuery: { version: 2, sha256Hash: 'abc' } },
      });
      expect(reply).toEqual({
        status: 400,
        body: { errors: [{ message: 'Unsupported persisted query version', extensions: { code: 'BAD_REQUEST' } }] },
      });
    });
  });

  describe('ids that are no ids reach no bigint column', () => {
    it.each(['1e3', '-1', '18446744073709551616', '1.5', ' 17840000000000018'])(
      'answers createMediaComment(mediaId: %j) as an unknown object, not an internal error',
      async (mediaId) => {
        const reply = await postJson(
          system.gatewayUrl,
          { query: 'mutation($m: ID!) { createMediaComment(mediaId: $m, message: "hi") { id } }', variables: { m: mediaId } },
          { authorization: `Bearer ${fixture.tokens.own}` },
        );
        expect(reply.status).toBe(200);
        expect(reply.body.data).toBeNull();
        expect(reply.body.errors).toHaveLength(1);
        expect(reply.body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', reason: 'UNKNOWN_OBJECT', id: mediaId });
      },
    );

    it.each(['1e3', '99999999999999999999'])('answers entity lookups of %j as not found', async (id) => {
      const reply = await postJson(
        system.gatewayUrl,
        { query: 'query($id: ID!) { comment(id: $id) { id } media(id: $id) { id } account(id: $id) { id } }', variables: { id } },
        { authorization: `Bearer ${fixture.tokens.own}` },
      );
      expect(reply.status).toBe(200);
      const codes = (reply.body.errors as { extensions: { code: string } }[]).map((error) => error.extensions.code);
      expect(codes).toEqual(['NOT_FOUND', 'NOT_FOUND', 'NOT_FOUND']);
    });
  });
});
