import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Upload, WriteStream } from 'graphql-upload-ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpExecutor } from '../../rest-adapter/graphql-executor.ts';

/**
 * The HTTP executor (rest-adapter/graphql-executor.ts, the REST adapter apart from the gateway) gives a write's result
 * the change-log position the gateway's reply answered (`tributary-log-position`, issue 39) whether the operation went
 * as JSON or, holding a file (a media upload, an APPEND), as a GraphQL multipart request; none when the reply has none.
 */

describe('createHttpExecutor and the log position', () => {
  let server: Server;
  let position: string | undefined;
  const received: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      received.push(req.headers['content-type'] ?? '');
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', ...(position !== undefined && { 'tributary-log-position': position }) });
        res.end(JSON.stringify({ data: { done: true } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const executor = () => createHttpExecutor(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);

  /** An Upload holding a few bytes, as the media routes make one from a request's file. */
  function upload(): Upload {
    const capacitor = new WriteStream();
    capacitor.end(Buffer.from('segment bytes'));
    const file = new Upload();
    file.resolve({
      filename: 'blob',
      fieldName: 'media',
      mimetype: 'application/octet-stream',
      encoding: '7bit',
      capacitor,
      createReadStream: (options) => capacitor.createReadStream(options),
    });
    return file;
  }

  const run = (variables: Record<string, unknown>) =>
    executor().execute({ query: 'mutation M($media: Upload) { done(media: $media) }', operationName: 'M', variables, headers: {} });

  it.each([
    ['a JSON request', () => ({ media: null }), /^application\/json/],
    ['a multipart request (a file)', () => ({ media: upload() }), /^multipart\/form-data; boundary=/],
  ])('gives %s the position the reply answered', async (_name, variables, contentType) => {
    position = '4242';
    const result = await run(variables());
    expect(received.at(-1)).toMatch(contentType);
    expect(result).toEqual({ data: { done: true }, logPosition: '4242' });
  });

  it.each([
    ['a JSON request', () => ({ media: null })],
    ['a multipart request (a file)', () => ({ media: upload() })],
  ])('gives %s none when the reply has none', async (_name, variables) => {
    position = undefined;
    const result = await run(variables());
    expect(result).toEqual({ data: { done: true } });
    expect('logPosition' in result).toBe(false);
  });
});
