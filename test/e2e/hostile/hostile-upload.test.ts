import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaTables } from '../../../subgraphs/shared/media-store/media-upload.repository.ts';
import { fixture } from '../../support/image-fixtures.ts';
import {
  bearerAuthorization,
  MEDIA_UPLOAD_PATH,
  mediaMultipartBody,
  mediaUploadUrl,
  sendMediaRequest,
} from '../../support/media-client.ts';
import { multipartBody, rawRequest } from '../../support/raw-http.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { createTestBlobStore, type TestBlobStore } from '../../support/test-blob-store.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * Regression tests of the upload (Area D) under hostile input (issue "Hostile traffic"): an image carrying an HTML page or
 * a ZIP archive after its end (a polyglot) is stored without them, and a multipart body that ends inside a part the
 * route does not want is answered instead of ending the process.
 */

/** A ZIP archive's end-of-central-directory record: the smallest thing unzip recognises. */
const ZIP_TAIL = Buffer.from('504b0506000000000000000000000000000000000000', 'hex');
const HTML_TAIL = Buffer.from('<html><body><script>document.location="https://evil.example"</script></body></html>');

describe('upload under hostile input', () => {
  let system: TestSystem;
  let world: SocialFixture;
  let blobs: TestBlobStore;
  beforeAll(async () => {
    blobs = await createTestBlobStore();
    system = await startTestSystem(blobs.env);
    world = await createSocialFixture(system.database);
  });
  afterAll(async () => {
    await system?.close();
    await blobs?.close();
  });

  async function storedBytes(mediaId: string): Promise<Buffer> {
    const row = await system.database.db
      .withTables<MediaTables>()
      .selectFrom('media.upload')
      .select('blob_key')
      .where('id', '=', mediaId)
      .executeTakeFirstOrThrow();
    return blobs.read(row.blob_key);
  }

  it.each([
    ['image.png', 'an HTML page', HTML_TAIL],
    ['image.png', 'a ZIP archive', ZIP_TAIL],
    ['baseline.jpg', 'an HTML page', HTML_TAIL],
    ['animated.gif', 'a ZIP archive', ZIP_TAIL],
  ])('stores %s without %s appended after its end, and reports the image’s own size', async (name, _what, tail) => {
    const image = fixture(name);
    const { body, contentType } = mediaMultipartBody([{ name: 'media', bytes: Buffer.concat([image, tail]), filename: name }]);
    const reply = await sendMediaRequest(mediaUploadUrl(system.restUrl), {
      authorization: bearerAuthorization(world.tokens.own),
      body,
      contentType,
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.size).toBe(image.length);
    expect(await storedBytes(reply.body.media_id_string)).toEqual(image);
  });

  it('stores an image sent in base64 without its trailer, through GraphQL too', async () => {
    const image = fixture('image.png');
    const response = await fetch(system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${world.tokens.own}` },
      body: JSON.stringify({
        query: 'mutation($d: String) { uploadMedia(mediaData: $d) { mediaId size } }',
        variables: { d: Buffer.concat([image, HTML_TAIL]).toString('base64') },
      }),
    });
    const reply = (await response.json()) as { data: { uploadMedia: { mediaId: string; size: number } } };
    expect(reply.data.uploadMedia.size).toBe(image.length);
    expect(await storedBytes(reply.data.uploadMedia.mediaId)).toEqual(image);
  });

  it.each(['an extra file part', 'a second media part'])(
    'answers a multipart body that ends inside %s, and keeps serving',
    async (what) => {
      const boundary = 'hostile-upload';
      const parts = [
        { name: 'media', filename: 'a.png', type: 'image/png', content: fixture('image.png') },
        {
          name: what === 'an extra file part' ? 'other' : 'media',
          filename: 'b.bin',
          type: 'application/octet-stream',
          content: Buffer.alloc(64, 1),
        },
      ];
      const body = multipartBody(boundary, parts, { close: false });
      const cut = body.subarray(0, body.length - 10);
      const request = Buffer.concat([
        Buffer.from(
          `POST ${MEDIA_UPLOAD_PATH} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${world.tokens.own}\r\n` +
            `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${cut.length}\r\n\r\n`,
        ),
        cut,
      ]);
      const reply = await rawRequest(system.restUrl, request);
      expect(reply.timedOut).toBe(false);
      expect(reply.status).toBe(400);
      expect(reply.json.errors[0].code).toBe(44);
      const next = await sendMediaRequest(mediaUploadUrl(system.restUrl), {
        authorization: bearerAuthorization(world.tokens.own),
        ...mediaMultipartBody([{ name: 'media', bytes: fixture('image.png'), filename: 'a.png' }]),
      });
      expect(next.status).toBe(200);
    },
  );

  // Found by the 10,000-case fuzz run: busboy accepts `boundary=` and then never finishes a body of a few tens of
  // kilobytes, so the request was held until the connection's idle timeout dropped it without a reply.
  it.each([
    [
      'the upload',
      MEDIA_UPLOAD_PATH,
      'boundary=',
      { errors: [{ code: 44, message: 'the request body is not valid multipart/form-data: the boundary is empty' }] },
    ],
    [
      'the upload',
      MEDIA_UPLOAD_PATH,
      'boundary=""',
      { errors: [{ code: 44, message: 'the request body is not valid multipart/form-data: the boundary is empty' }] },
    ],
    [
      'GraphQL',
      '/graphql',
      'boundary=',
      {
        errors: [
          { message: 'the request body is not valid multipart/form-data: the boundary is empty', extensions: { code: 'BAD_REQUEST' } },
        ],
      },
    ],
  ])('answers %s with a multipart body under an empty %s at once, and keeps the connection', async (_door, path, parameter, expected) => {
    const body = Buffer.from(`---\r\nContent-Disposition: form-data; name="f0"\r\n\r\n${'A'.repeat(16_384)}\r\n-----\r\n`);
    const base = path === '/graphql' ? system.gatewayUrl : system.restUrl;
    const request = Buffer.concat([
      Buffer.from(
        `POST ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${world.tokens.own}\r\napollo-require-preflight: true\r\n` +
          `Content-Type: multipart/form-data; ${parameter}\r\nContent-Length: ${body.length}\r\n\r\n`,
      ),
      body,
    ]);
    const reply = await rawRequest(base, request);
    expect(reply.timedOut).toBe(false);
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual(expected);
  });
});
