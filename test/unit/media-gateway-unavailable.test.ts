import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.ts';
import { UnavailableError } from '../../lib/errors.ts';
import { createLogger } from '../../lib/logger.ts';
import { createTelemetry } from '../../lib/telemetry/telemetry.ts';
import { createRestAdapter } from '../../rest-adapter/create-rest-adapter.ts';
import type { GraphQLExecutor } from '../../rest-adapter/graphql-executor.ts';
import { fixture } from '../support/image-fixtures.ts';
import { mediaFormData, mediaUploadUrl, sendMediaRequest } from '../support/media-client.ts';

/**
 * The media routes of a REST adapter process whose gateway does not answer (GATEWAY_URL down: the HTTP executor throws
 * UnavailableError): the reference's 503 over capacity, code 130 — not its 500 internal error, which would tell a client
 * the request itself failed.
 */
describe('the media routes with the gateway unreachable', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const config = loadConfig({});
    const logger = createLogger({ level: 'silent' });
    const telemetry = createTelemetry(
      { metricsEnabled: false, tracing: config.telemetry.tracing, readyTimeoutMs: config.telemetry.readyTimeoutMs },
      'media-unavailable-test',
      logger,
    );
    const executor: GraphQLExecutor = {
      execute: async () => {
        throw new UnavailableError('the GraphQL gateway is unreachable');
      },
    };
    const { app } = createRestAdapter({
      executor,
      logger,
      telemetry,
      corsOrigins: [],
      bodyLimitBytes: config.rest.bodyLimitBytes,
      media: { maxBytes: config.media.maxBytes, base64BodyBytes: config.media.base64BodyBytes },
      apiDocs: false,
      socialHost: 'own',
    });
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const OVER_CAPACITY = { errors: [{ code: 130, message: 'Over capacity' }] };

  it('answers the upload, the chunked commands, STATUS and the metadata with 503 code 130', async () => {
    const authorization = 'Bearer some-token';
    const replies = [
      await sendMediaRequest(mediaUploadUrl(base), {
        authorization,
        body: mediaFormData([{ name: 'media', bytes: fixture('image.png'), filename: 'i.png' }]),
      }),
      await sendMediaRequest(mediaUploadUrl(base), {
        authorization,
        body: mediaFormData([
          { name: 'command', value: 'INIT' },
          { name: 'total_bytes', value: '10' },
          { name: 'media_type', value: 'image/png' },
        ]),
      }),
      await sendMediaRequest(mediaUploadUrl(base, { command: 'STATUS', media_id: '1' }), { method: 'GET', authorization }),
      await sendMediaRequest(new URL('/1.1/media/metadata/create.json', base).toString(), {
        authorization,
        body: '{"media_id":"1","alt_text":{"text":"x"}}',
        contentType: 'application/json',
      }),
    ];
    for (const reply of replies)
      expect({ status: reply.status, body: reply.body }, reply.text).toEqual({ status: 503, body: OVER_CAPACITY });
  });

  it('answers the v2 endpoints with 503 Service Unavailable problems', async () => {
    const authorization = 'Bearer some-token';
    const json = (path: string, body: unknown) =>
      sendMediaRequest(new URL(path, base).toString(), { authorization, body: JSON.stringify(body), contentType: 'application/json' });
    const replies = [
      await json('/2/media/upload/initialize', { media_type: 'image/png', total_bytes: 10 }),
      await json('/2/media/upload/1/append', { media: 'AAAA', segment_index: 0 }),
      await json('/2/media/upload/1/finalize', {}),
      await sendMediaRequest(new URL('/2/media/upload?media_id=1', base).toString(), { method: 'GET', authorization }),
      await json('/2/media/upload', { media: fixture('image.png').toString('base64'), media_category: 'tweet_image' }),
      await json('/2/media/metadata', { id: '1', metadata: { alt_text: { text: 'x' } } }),
    ];
    for (const reply of replies) {
      expect({ status: reply.status, body: reply.body }, reply.text).toEqual({
        status: 503,
        body: { title: 'Service Unavailable', detail: 'Service Unavailable', type: 'about:blank', status: 503 },
      });
      expect(reply.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    }
  });
});
