import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphErrorBody, invalidParameter } from '../../support/graph-error-expectations.ts';
import { HANG_MS } from '../../support/hang-bounds.ts';
import { rawRequest } from '../../support/raw-http.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { statusBody } from '../../support/user-example-errors.ts';
import { newUser } from '../../support/user-example-rest.ts';

/**
 * Regression tests of what Node's HTTP parser refuses before any route sees it (issue "Hostile traffic"): header blocks
 * past 16 KiB, framing it cannot read, a client too slow to send its headers. Each was an empty 431/400; each is now a
 * reply in the format of the door and path it was sent to, and the server goes on serving.
 */

const BIG_HEADER = `X-Padding: ${'a'.repeat(17_000)}\r\n`;
/** The HTTP layer's words, the same in every door's format. */
const HEADERS_TOO_LARGE = "the request's headers exceed the limit of 16384 bytes";

describe('HTTP framing and limits', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await startTestSystem({ HTTP_HEADERS_TIMEOUT_MS: '1000' });
  });
  afterAll(() => system?.close());

  const request = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${extra}\r\n`;

  describe('headers over the limit: 431 in each door’s format', () => {
    it('Area A paths: google.rpc.Status', async () => {
      const reply = await rawRequest(system.restUrl, request('/api/v1/userExample/1', BIG_HEADER));
      expect(reply.status).toBe(431);
      expect(reply.headers['content-type']).toMatch(/^application\/json/);
      expect(reply.json).toEqual(statusBody(3, HEADERS_TOO_LARGE));
    });

    it('Graph paths, on both hosts: the Graph envelope', async () => {
      for (const base of [system.restUrl, system.socialParentUrl]) {
        const reply = await rawRequest(base, request('/v25.0/me', BIG_HEADER));
        expect(reply.status).toBe(431);
        // Refused by the HTTP layer before any host sees it: the envelope, without the host's OAuth challenge.
        expect(reply.json).toEqual(graphErrorBody(invalidParameter(HEADERS_TOO_LARGE)));
      }
    });

    it('the upload: its standard error', async () => {
      const reply = await rawRequest(system.restUrl, request('/1.1/media/upload.json', BIG_HEADER));
      expect(reply.status).toBe(431);
      expect(reply.json).toEqual({ errors: [{ code: 324, message: HEADERS_TOO_LARGE }] });
    });

    it("X API v2's media paths: a problem", async () => {
      const reply = await rawRequest(system.restUrl, request('/2/media/upload?command=STATUS&media_id=1', BIG_HEADER));
      expect(reply.status).toBe(431);
      expect(reply.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(reply.json).toEqual({ title: 'Request Header Fields Too Large', detail: HEADERS_TOO_LARGE, type: 'about:blank', status: 431 });
      const framing = await rawRequest(
        system.restUrl,
        'POST /2/media/upload/initialize HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      );
      expect(framing.status).toBe(400);
      expect(framing.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(framing.json).toEqual({
        errors: [{ message: expect.stringMatching(/^the request is not valid HTTP\/1\.1 \(HPE_[A-Z_]+\)$/) }],
        title: 'Invalid Request',
        detail: 'One or more parameters to your request was invalid.',
        type: 'https://api.twitter.com/2/problems/invalid-request',
      });
    });

    it('GraphQL: a GraphQL error', async () => {
      const reply = await rawRequest(system.gatewayUrl, request('/graphql', BIG_HEADER));
      expect(reply.status).toBe(431);
      expect(reply.json).toEqual({
        errors: [{ message: HEADERS_TOO_LARGE, extensions: { code: 'BAD_REQUEST' } }],
      });
    });
  });

  describe('framing the parser cannot read: 400 in each door’s format', () => {
    it.each([
      [
        'a bad chunk size',
        'POST /api/v1/userExample HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      ],
      [
        'both Content-Length and chunked',
        'POST /api/v1/userExample HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      ],
      ['a header without a colon', 'GET /api/v1/userExample/1 HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'],
    ])('Area A with %s', async (_label, raw) => {
      const reply = await rawRequest(system.restUrl, raw);
      expect(reply.status).toBe(400);
      expect(reply.json).toMatchObject({ code: 3, details: [] });
      expect(reply.json.message).toMatch(/^the request is not valid HTTP\/1\.1 \(HPE_[A-Z_]+\)$/);
    });

    it('GraphQL with a bad chunk size', async () => {
      const reply = await rawRequest(
        system.gatewayUrl,
        'POST /graphql HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      );
      expect(reply.status).toBe(400);
      expect(reply.json.errors[0].extensions).toEqual({ code: 'BAD_REQUEST' });
    });

    it('a refusal pipelined behind a write waits for the write’s reply: both answered, in order, the change kept', async () => {
      // Found by the raw-HTTP fuzz door (seed 596521326): the refusal was written, and the connection closed, while the
      // PUT before it was still at the database — its change committed and its reply was lost.
      const created = await fetch(`${system.restUrl}/api/v1/userExample`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(newUser()),
      });
      const { id } = (await created.json()) as { id: string };
      const update = JSON.stringify({ name: 'Pipelined Ada' });
      const raw =
        `PUT /api/v1/userExample/${id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${system.adminToken()}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(update)}\r\n\r\n${update}` +
        'POST /api/v1/userExample HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nzz';
      const reply = await rawRequest(system.restUrl, raw, { untilClose: true, timeoutMs: HANG_MS });
      expect(reply.timedOut).toBe(false);
      const statusLines = reply.raw.match(/HTTP\/1\.1 \d{3}/g);
      expect(statusLines).toEqual(['HTTP/1.1 200', 'HTTP/1.1 400']);
      expect(reply.status).toBe(200);
      expect(reply.json).toEqual({});
      const read = await fetch(`${system.restUrl}/api/v1/userExample/${id}`, {
        headers: { authorization: `Bearer ${system.adminToken()}` },
      });
      expect(((await read.json()) as { userExample: { name: string } }).userExample.name).toBe('Pipelined Ada');
    });

    it('an unreadable request line, where no path is known: google.rpc.Status', async () => {
      const reply = await rawRequest(system.restUrl, 'THIS IS NOT HTTP\r\n\r\n');
      expect(reply.status).toBe(400);
      expect(reply.json).toMatchObject({ code: 3, details: [] });
    });
  });

  it('answers 408 to a client too slow to send its headers, and closes the connection', async () => {
    // The system's headers timeout is 1 s here (HTTP_HEADERS_TIMEOUT_MS); Node's own default is 60 s. The client waits
    // up to HANG_MS: an answer before that (timedOut false, with the 408 body) can only be the configured timeout's, and
    // a busy machine that answers after 4 s instead of 1 s does not fail the test.
    const started = performance.now();
    const reply = await rawRequest(system.restUrl, 'GET /api/v1/userExample/1 HTTP/1.1\r\nHost: x\r\n', { timeoutMs: HANG_MS });
    expect(reply.timedOut).toBe(false);
    expect(reply.status).toBe(408);
    expect(reply.json).toEqual(statusBody(3, 'the request was not received in time'));
    expect(performance.now() - started).toBeLessThan(HANG_MS);
  });

  it('keeps serving after all of it', async () => {
    const response = await fetch(`${system.restUrl}/health`);
    expect(response.status).toBe(200);
  });
});
