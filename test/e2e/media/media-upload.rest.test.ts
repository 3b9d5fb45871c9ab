import { createHash } from 'node:crypto';
import { Agent } from 'node:http';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AccessTokenCredentials, ConsumerCredentials, OAuthCredentials } from '../../../lib/auth/oauth1/oauth-credentials.ts';
import { createOAuthCredentialStore } from '../../../subgraphs/index.ts';
import { HANG_MS } from '../../support/hang-bounds.ts';
import { fixture, png, pngChunk, truncate } from '../../support/image-fixtures.ts';
import {
  bearerAuthorization,
  MEDIA_UNRECOGNIZED_TEXT,
  mediaFormData,
  mediaMultipartBody,
  mediaUploadUrl,
  oauth1Authorization,
  rawMediaId,
  sendMediaRequest,
  sendMediaRequestOverHttp,
  type MediaPart,
  type MediaReply,
} from '../../support/media-client.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * Front-door tests of Area D, the simple image upload POST /1.1/media/upload.json, against both gateway topologies
 * (embedded, and subgraphs over HTTP with the upload forwarded as a GraphQL multipart request). Real HTTP requests with
 * multipart and urlencoded bodies; statuses, raw bodies and headers are compared with the reference
 * (/work/shared/reference/media-upload.md). OAuth 1.0a requests are signed by the independent oauth-1.0a package.
 *
 * The services' clock is the test's (`clock`): OAuth timestamps and the rate-limit window are derived from it.
 */

const START = new Date('2026-11-20T12:00:00Z');
let clock = START;
const now = () => clock;
afterEach(() => {
  clock = START;
});

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);
const MAX_BYTES = 5_242_880;
const WINDOW_SECS = 900;

/** Fixtures of each accepted format and the picture each one really is (see test/fixtures/images/README.md). */
const FORMATS = [
  { file: 'baseline.jpg', type: 'image/jpeg', w: 320, h: 240 },
  { file: 'image.png', type: 'image/png', w: 50, h: 40 },
  { file: 'still.gif', type: 'image/gif', w: 48, h: 32 },
  { file: 'lossy.webp', type: 'image/webp', w: 64, h: 48 },
] as const;

const text = (reply: MediaReply) => `HTTP ${reply.status}: ${reply.text.slice(0, 500)}`;

/** The standard body, written as the reference writes it. */
const standardText = (code: number, message: string) => JSON.stringify({ errors: [{ code, message }] });

const MISSING_TEXT = standardText(38, 'media parameter is missing.');
const TOO_LARGE_TEXT = standardText(324, `Image file size must be <= ${MAX_BYTES} bytes`);
const DIMENSIONS_TEXT = standardText(324, 'Image dimensions must be >= 4x4 and <= 8192x8192');
const BAD_AUTH_TEXT = standardText(215, 'Bad Authentication data.');
const COULD_NOT_AUTHENTICATE_TEXT = standardText(32, 'Could not authenticate you.');
const INVALID_TOKEN_TEXT = standardText(89, 'Invalid or expired token.');
const TIMESTAMP_TEXT = standardText(135, 'Timestamp out of bounds.');
const APP_ONLY_TEXT = standardText(220, 'Your credentials do not allow access to this resource.');
const RATE_LIMITED_TEXT = standardText(88, 'Rate limit exceeded');

function expectJson(reply: MediaReply): void {
  expect(reply.headers.get('content-type'), text(reply)).toMatch(/^application\/json\b/);
}

/** An error reply in the standard shape; a string message is compared with the raw text, a pattern with the message. */
function expectError(reply: MediaReply, status: number, code: number, message: string | RegExp): void {
  expect(reply.status, text(reply)).toBe(status);
  expectJson(reply);
  if (typeof message === 'string') {
    expect(reply.text).toBe(standardText(code, message));
  } else {
    expect(Object.keys(reply.body)).toEqual(['errors']);
    expect(reply.body.errors).toHaveLength(1);
    expect(Object.keys(reply.body.errors[0]).sort()).toEqual(['code', 'message']);
    expect(reply.body.errors[0].code).toBe(code);
    expect(reply.body.errors[0].message).toMatch(message);
  }
  if (status === 401) expect(reply.headers.get('www-authenticate')).toMatch(/^OAuth\b/);
}

function expectRawError(reply: MediaReply, status: number, raw: string): void {
  expect(reply.status, text(reply)).toBe(status);
  expectJson(reply);
  expect(reply.text).toBe(raw);
  if (status === 401) expect(reply.headers.get('www-authenticate')).toMatch(/^OAuth\b/);
}

interface ExpectedImage {
  size: number;
  type: string;
  width: number;
  height: number;
  /** media_category was sent: media_key must be there. */
  keyed?: boolean;
}

/** A 200 with exactly the reference's keys; returns media_id as written (all digits). */
function expectUploaded(reply: MediaReply, expected: ExpectedImage): string {
  expect(reply.status, text(reply)).toBe(200);
  expectJson(reply);
  const id = rawMediaId(reply.text);
  expect(id, `media_id must be a bare JSON number in ${reply.text}`).toMatch(/^[1-9]\d*$/);
  expect(BigInt(id!)).toBeGreaterThan(2n ** 53n);
  expect(reply.body.media_id_string).toBe(id);
  const keys = ['expires_after_secs', 'image', 'media_id', 'media_id_string', 'size', ...(expected.keyed ? ['media_key'] : [])];
  expect(Object.keys(reply.body).sort()).toEqual(keys.sort());
  if (expected.keyed) expect(reply.body.media_key).toBe(`3_${id}`);
  else expect(reply.text).not.toContain('media_key');
  expect(reply.body.size).toBe(expected.size);
  expect(reply.body.expires_after_secs).toBe(86_400);
  expect(reply.body.image).toEqual({ image_type: expected.type, w: expected.width, h: expected.height });
  expect(Object.keys(reply.body.image)).toEqual(['image_type', 'w', 'h']);
  return id!;
}

/** A PNG of exactly `size` bytes whose padding is incompressible (its base64 has the usual share of "+" and "/"). */
function noisyPng(size: number): Buffer {
  const image = png(4, 4);
  const end = image.subarray(image.length - 12);
  const noise = Buffer.alloc(size - image.length - 12);
  let block = Buffer.from('tributary');
  for (let at = 0; at < noise.length; at += block.length) {
    block = createHash('sha256').update(block).digest();
    block.copy(noise, at);
  }
  return Buffer.concat([image.subarray(0, image.length - 12), pngChunk('noIs', noise), end]);
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** 19-digit user ids. */
const userIds = (count: number) => Array.from({ length: count }, (_, i) => (1_000_000_000_000_000_000n + BigInt(i)).toString());

for (const mode of ['embedded', 'distributed'] as const) {
  describe(`POST /1.1/media/upload.json (${mode} gateway)`, () => {
    let system: TestSystem;
    let world: SocialFixture;
    let credentials: OAuthCredentials;
    let app: ConsumerCredentials;
    let userToken: AccessTokenCredentials;
    let own: string;

    beforeAll(async () => {
      system = mode === 'embedded' ? await startTestSystem({}, { now }) : await startDistributedTestSystem({}, { now });
      world = await createSocialFixture(system.database, { now });
      credentials = createOAuthCredentialStore(system.database, now);
      app = await credentials.createConsumer('media upload tests');
      userToken = await credentials.issueAccessToken(app.consumerKey, world.accounts.bluebottle);
      own = bearerAuthorization(world.tokens.own);
    });

    afterAll(async () => {
      await system?.close();
    });

    const url = (query?: Record<string, string>) => mediaUploadUrl(system.restUrl, query);

    /** A multipart upload (FormData), as bluebottle by default. */
    function upload(parts: readonly MediaPart[], options: { query?: Record<string, string>; authorization?: string | undefined } = {}) {
      const authorization = 'authorization' in options ? options.authorization : own;
      return sendMediaRequest(url(options.query), { authorization, body: mediaFormData(parts) });
    }

    /** An urlencoded upload, as bluebottle by default. */
    function uploadForm(
      params: Record<string, string>,
      options: { query?: Record<string, string>; authorization?: string | undefined } = {},
    ) {
      const authorization = 'authorization' in options ? options.authorization : own;
      return sendMediaRequest(url(options.query), { authorization, body: new URLSearchParams(params) });
    }

    const media = (bytes: Uint8Array, filename = 'picture', contentType = 'application/octet-stream'): MediaPart => ({
      name: 'media',
      bytes,
      filename,
      contentType,
    });

    async function uploadCount(): Promise<number> {
      const { rows } = await sql<{ count: number }>`select count(*)::int as count from media.upload`.execute(system.database.db);
      return Number(rows[0]!.count);
    }

    async function stored(id: string) {
      const { rows } = await sql<{
        uploader_id: string;
        mime_type: string;
        width: number;
        height: number;
        size: number;
        additional_owners: string[];
      }>`
        select uploader_id::text as uploader_id, mime_type, width, height, size, additional_owners::text[] as additional_owners
        from media.upload where id = cast(${id} as bigint)`.execute(system.database.db);
      expect(rows).toHaveLength(1);
      return rows[0]!;
    }

    const signedBy = (signUrl: string, extra: { data?: Record<string, string>; timestamp?: number; nonce?: string } = {}) =>
      oauth1Authorization({
        consumer: { key: app.consumerKey, secret: app.consumerSecret },
        token: { key: userToken.token, secret: userToken.tokenSecret },
        url: signUrl,
        timestamp: extra.timestamp ?? unixSeconds(clock),
        ...(extra.data ? { data: extra.data } : {}),
        ...(extra.nonce ? { nonce: extra.nonce } : {}),
      });

    describe('accepted images', () => {
      it.each(FORMATS)('stores a multipart $file as $type with its real size and dimensions', async (format) => {
        const bytes = fixture(format.file);
        const reply = await upload([media(bytes, format.file)]);
        const id = expectUploaded(reply, { size: bytes.length, type: format.type, width: format.w, height: format.h });
        expect(reply.headers.get('x-rate-limit-limit')).toBe('500');
        expect(reply.headers.get('x-rate-limit-reset')).toBe(String(unixSeconds(START) + WINDOW_SECS));
        const row = await stored(id);
        expect(row).toMatchObject({
          uploader_id: world.accounts.bluebottle,
          mime_type: format.type,
          width: format.w,
          height: format.h,
          size: bytes.length,
        });
        expect(row.additional_owners).toEqual([]);
      });

      it.each(FORMATS)('stores a base64 $file sent as urlencoded media_data', async (format) => {
        const bytes = fixture(format.file);
        const reply = await uploadForm({ media_data: base64(bytes) });
        const id = expectUploaded(reply, { size: bytes.length, type: format.type, width: format.w, height: format.h });
        expect((await stored(id)).size).toBe(bytes.length);
      });

      it('gives each upload its own id, increasing', async () => {
        const first = expectUploaded(await upload([media(fixture('image.png'))]), { size: 4420, type: 'image/png', width: 50, height: 40 });
        const second = expectUploaded(await upload([media(fixture('image.png'))]), {
          size: 4420,
          type: 'image/png',
          width: 50,
          height: 40,
        });
        expect(BigInt(second)).toBeGreaterThan(BigInt(first));
      });

      it('accepts an animated GIF as image/gif', async () => {
        const bytes = fixture('animated.gif');
        expectUploaded(await upload([media(bytes, 'anim.gif', 'image/gif')]), {
          size: bytes.length,
          type: 'image/gif',
          width: 40,
          height: 30,
        });
      });

      it('reads the type from the bytes: a PNG sent as image/jpeg named x.jpg is image/png', async () => {
        const bytes = fixture('image.png');
        expectUploaded(await upload([media(bytes, 'x.jpg', 'image/jpeg')]), {
          size: bytes.length,
          type: 'image/png',
          width: 50,
          height: 40,
        });
      });

      it.each([
        { label: 'no filename and no Content-Type', contentType: undefined },
        { label: 'no filename', contentType: 'application/octet-stream' },
      ])('takes a media part with $label as the file', async ({ contentType }) => {
        const bytes = fixture('baseline.jpg');
        const { body, contentType: type } = mediaMultipartBody([
          { name: 'media', bytes, filename: null, ...(contentType ? { contentType } : {}) },
        ]);
        const reply = await sendMediaRequest(url(), { authorization: own, body, contentType: type });
        expectUploaded(reply, { size: bytes.length, type: 'image/jpeg', width: 320, height: 240 });
      });

      it('takes media_category and additional_owners from the query string while the file is in the body', async () => {
        const owners = [world.accounts.roaster, world.accounts.fanOne];
        const bytes = fixture('lossy.webp');
        const reply = await upload([media(bytes, 'photo.webp', 'image/webp')], {
          query: { media_category: 'tweet_image', additional_owners: owners.join(',') },
        });
        const id = expectUploaded(reply, { size: bytes.length, type: 'image/webp', width: 64, height: 48, keyed: true });
        expect((await stored(id)).additional_owners.sort()).toEqual([...owners].sort());
      });

      it('takes media_category with a base64 upload', async () => {
        const bytes = fixture('still.gif');
        const reply = await uploadForm({ media_data: base64(bytes), media_category: 'tweet_image' });
        expectUploaded(reply, { size: bytes.length, type: 'image/gif', width: 48, height: 32, keyed: true });
      });

      it('accepts exactly 5,242,880 bytes, multipart and base64', async () => {
        const bytes = png(16, 16, { padToBytes: MAX_BYTES });
        expect(bytes.length).toBe(MAX_BYTES);
        const multipart = await upload([media(bytes, 'big.png', 'image/png')]);
        expect(multipart.text).toContain(`"size":${MAX_BYTES}`);
        expectUploaded(multipart, { size: MAX_BYTES, type: 'image/png', width: 16, height: 16 });
        expectUploaded(await uploadForm({ media_data: base64(bytes) }), { size: MAX_BYTES, type: 'image/png', width: 16, height: 16 });
      });

      // Base64 of incompressible bytes has its share of "+" and "/", which an urlencoded body escapes as %2B and %2F.
      // These go over a connection of their own (see the keep-alive test below).
      it('accepts a 5,242,880-byte image of incompressible bytes as urlencoded media_data', async () => {
        const bytes = noisyPng(MAX_BYTES);
        expect(bytes.length).toBe(MAX_BYTES);
        const reply = await sendMediaRequestOverHttp(url(), {
          authorization: own,
          body: new URLSearchParams({ media_data: base64(bytes) }),
        });
        expectUploaded(reply, { size: MAX_BYTES, type: 'image/png', width: 4, height: 4 });
      });

      it.each([
        [4, 4],
        [8192, 4],
        [4, 8192],
      ])('accepts a %ix%i image (the dimension bounds)', async (width, height) => {
        const bytes = png(width, height);
        expectUploaded(await upload([media(bytes, 'edge.png')]), { size: bytes.length, type: 'image/png', width, height });
      });

      it('accepts 100 additional owners', async () => {
        const owners = userIds(100);
        const reply = await upload([media(fixture('image.png'))], { query: { additional_owners: owners.join(',') } });
        const id = expectUploaded(reply, { size: 4420, type: 'image/png', width: 50, height: 40 });
        expect((await stored(id)).additional_owners.sort()).toEqual(owners);
      });
    });

    describe('media_category', () => {
      it.each(['tweet_image', 'TWEET_IMAGE', 'TweetImage', 'tweetImage'])('gives media_key 3_<media_id> for %s', async (category) => {
        const bytes = fixture('progressive.jpg');
        const reply = await upload([media(bytes, 'p.jpg'), { name: 'media_category', value: category }]);
        expectUploaded(reply, { size: bytes.length, type: 'image/jpeg', width: 80, height: 60, keyed: true });
      });

      it.each(['tweet_video', 'TWEET_VIDEO', 'TweetVideo', 'amplify_video', 'AmplifyVideo', 'tweet_gif', 'TWEET_GIF', 'tweetGif'])(
        'refuses %s with code 44, pointing to the chunked upload',
        async (category) => {
          const before = await uploadCount();
          const reply = await upload([media(fixture('animated.gif'), 'a.gif'), { name: 'media_category', value: category }]);
          expectError(reply, 400, 44, /chunked/i);
          expect(await uploadCount()).toBe(before);
        },
      );

      it.each(['banana', 'dm_image', 'tweet_images'])('refuses the unknown category %s with code 44', async (category) => {
        const reply = await upload([media(fixture('image.png'))], { query: { media_category: category } });
        expectError(reply, 400, 44, /media_category/);
      });

      it('gives no media_key key at all without a category', async () => {
        const reply = await upload([media(fixture('image.png'))]);
        expectUploaded(reply, { size: 4420, type: 'image/png', width: 50, height: 40 });
        expect(reply.text).not.toMatch(/media_key/);
        expect('media_key' in reply.body).toBe(false);
      });
    });

    describe('refusals', () => {
      it('answers 38 "media parameter is missing." without media or media_data', async () => {
        expectRawError(await upload([{ name: 'media_category', value: 'tweet_image' }]), 400, MISSING_TEXT);
        expectRawError(await uploadForm({ media_category: 'tweet_image' }), 400, MISSING_TEXT);
      });

      it('refuses media together with media_data with code 44', async () => {
        const bytes = fixture('image.png');
        const reply = await upload([media(bytes), { name: 'media_data', value: base64(bytes) }]);
        expectError(reply, 400, 44, /media_data/);
      });

      it.each(['!!!not base64!!!', 'abcde', 'QUJD$RA=='])('refuses media_data %j that is not base64 with code 44', async (value) => {
        expectError(await uploadForm({ media_data: value }), 400, 44, /media_data/);
      });

      it('answers a data: URI in media_data with the legacy "media type unrecognized." body', async () => {
        const reply = await uploadForm({ media_data: `data:image/png;base64,${base64(fixture('image.png'))}` });
        expectRawError(reply, 400, MEDIA_UNRECOGNIZED_TEXT);
      });

      it.each([
        { label: 'a text file named x.png', bytes: Buffer.from('hello, this is not a picture\n'), filename: 'x.png', type: 'image/png' },
        { label: 'an MP4 video', bytes: fixture('video.mp4'), filename: 'clip.mp4', type: 'video/mp4' },
        { label: 'an SVG drawing', bytes: fixture('drawing.svg'), filename: 'drawing.svg', type: 'image/svg+xml' },
      ])('answers $label with the legacy "media type unrecognized." body', async ({ bytes, filename, type }) => {
        expectRawError(await upload([media(bytes, filename, type)]), 400, MEDIA_UNRECOGNIZED_TEXT);
      });

      it('answers a video sent as media_data with the legacy body too', async () => {
        expectRawError(await uploadForm({ media_data: base64(fixture('video.mp4')) }), 400, MEDIA_UNRECOGNIZED_TEXT);
      });

      it.each(['image.bmp', 'image.tiff'])('refuses %s (an image type it does not take) with code 324', async (file) => {
        expectError(await upload([media(fixture(file), file)]), 400, 324, /.+/);
      });

      it('refuses 5,242,881 bytes with 324, multipart and base64', async () => {
        const bytes = png(16, 16, { padToBytes: MAX_BYTES + 1 });
        expectRawError(await upload([media(bytes, 'big.png', 'image/png')]), 400, TOO_LARGE_TEXT);
        expectRawError(await uploadForm({ media_data: base64(bytes) }), 400, TOO_LARGE_TEXT);
      });

      it('refuses 5,242,881 bytes of incompressible content sent as urlencoded media_data with 324', async () => {
        const reply = await sendMediaRequestOverHttp(url(), {
          authorization: own,
          body: new URLSearchParams({ media_data: base64(noisyPng(MAX_BYTES + 1)) }),
        });
        expectRawError(reply, 400, TOO_LARGE_TEXT);
      });

      it('refuses a 6 MB base64 media_data sent as a multipart text part with 324', async () => {
        const reply = await upload([{ name: 'media_data', value: base64(png(16, 16, { padToBytes: 6 * 1024 * 1024 })) }]);
        expectRawError(reply, 400, TOO_LARGE_TEXT);
      });

      it('answers the next request on a kept-alive connection after refusing an oversized urlencoded body', async () => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        try {
          const oversized = await sendMediaRequestOverHttp(
            url(),
            { authorization: own, body: new URLSearchParams({ media_data: base64(noisyPng(6 * 1024 * 1024)) }) },
            { agent },
          );
          expect(oversized.status, text(oversized)).toBe(400);
          const next = await sendMediaRequestOverHttp(
            url(),
            { authorization: own, body: new URLSearchParams({ media_data: base64(fixture('image.png')) }) },
            { agent, timeoutMs: HANG_MS },
          );
          expectUploaded(next, { size: 4420, type: 'image/png', width: 50, height: 40 });
        } finally {
          agent.destroy();
        }
      });

      it('refuses an 8 MB multipart file with 324', async () => {
        const bytes = png(16, 16, { padToBytes: 8 * 1024 * 1024 });
        expectRawError(await upload([media(bytes, 'huge.png', 'image/png')]), 400, TOO_LARGE_TEXT);
      });

      it.each([
        [3, 10],
        [10, 3],
        [8193, 4],
        [4, 8193],
      ])('refuses a %ix%i image with 324 and the dimension rule', async (width, height) => {
        expectRawError(await upload([media(png(width, height), 'odd.png')]), 400, DIMENSIONS_TEXT);
      });

      it('refuses a truncated JPEG with 324', async () => {
        const bytes = truncate(fixture('baseline.jpg'), 40_000);
        expectError(await upload([media(bytes, 'cut.jpg', 'image/jpeg')]), 400, 324, /.+/);
        expectError(await uploadForm({ media_data: base64(bytes) }), 400, 324, /.+/);
      });

      it('refuses 101 additional owners with code 44 naming additional_owners', async () => {
        const reply = await upload([media(fixture('image.png'))], { query: { additional_owners: userIds(101).join(',') } });
        expectError(reply, 400, 44, /additional_owners/);
      });

      it.each(['12,abc', 'abc', '12345678901234567890', '12,,13', '-5'])('refuses additional_owners %j with code 44', async (owners) => {
        const reply = await upload([media(fixture('image.png')), { name: 'additional_owners', value: owners }]);
        expectError(reply, 400, 44, /additional_owners/);
      });

      it('answers GET with 405 and Allow: POST', async () => {
        const reply = await sendMediaRequest(url(), { method: 'GET', authorization: own });
        expect(reply.status, text(reply)).toBe(405);
        expect(reply.headers.get('allow')).toBe('POST');
        expect(reply.body?.errors?.[0]?.code).toBe(34);
      });

      it('answers an unknown /1.1/ path with 404 and code 34', async () => {
        for (const path of ['/1.1/media/upload2.json', '/1.1/statuses/update.json']) {
          const reply = await sendMediaRequest(new URL(path, system.restUrl).toString(), {
            authorization: own,
            body: mediaFormData([media(fixture('image.png'))]),
          });
          expectError(reply, 404, 34, /^Sorry, that page does not exist/);
        }
      });

      // A command parameter, in the query or the body, makes the request a chunked upload command
      // (media-chunked-upload.rest.test.ts): never a simple upload, whatever file comes with it.
      it('treats command=… in the query or the body as the chunked upload, not as a simple upload', async () => {
        expectError(
          await upload([media(fixture('image.png'))], { query: { command: 'INIT' } }),
          400,
          38,
          'total_bytes parameter is missing.',
        );
        expectError(
          await uploadForm({ command: 'UPLOAD', total_bytes: '4420', media_type: 'image/png' }),
          400,
          44,
          /^command parameter is invalid/,
        );
      });

      it('keeps working after each failed upload and stores nothing for the failures', async () => {
        const valid = () => upload([media(fixture('image.png'))]);
        const failures: (() => Promise<MediaReply>)[] = [
          () => upload([media(png(16, 16, { padToBytes: MAX_BYTES + 1 }), 'big.png')]),
          () => uploadForm({ media_data: base64(png(16, 16, { padToBytes: MAX_BYTES + 1 })) }),
          () => upload([media(Buffer.from('not a picture'), 'x.png')]),
          () => upload([media(png(3, 3))]),
          () => upload([media(fixture('image.bmp'))]),
          () => upload([media(truncate(fixture('image.png'), 2000))]),
          () => uploadForm({ media_data: '!!!' }),
          () => upload([media(fixture('image.png')), { name: 'media_data', value: 'AAAA' }]),
          () => upload([media(fixture('image.png')), { name: 'media_category', value: 'tweet_video' }]),
          () => upload([media(fixture('image.png')), { name: 'additional_owners', value: 'x' }]),
          () => upload([]),
        ];
        const before = await uploadCount();
        for (const fail of failures) {
          const failed = await fail();
          expect(failed.status, text(failed)).toBe(400);
          expect(await uploadCount()).toBe(before);
        }
        // A valid upload after each kind of failure, on the same server.
        let expected = before;
        for (const fail of failures) {
          await fail();
          expectUploaded(await valid(), { size: 4420, type: 'image/png', width: 50, height: 40 });
          expected += 1;
          expect(await uploadCount()).toBe(expected);
        }
      });
    });

    describe('bearer authentication', () => {
      it('answers 215 "Bad Authentication data." without an Authorization header, before looking at the body', async () => {
        const reply = await upload([media(fixture('image.png'))], { authorization: undefined });
        expectRawError(reply, 400, BAD_AUTH_TEXT);
        expect(reply.headers.get('x-rate-limit-limit')).toBeNull();
        expectRawError(await upload([], { authorization: undefined }), 400, BAD_AUTH_TEXT);
      });

      it('answers 215 to Basic authentication', async () => {
        const basic = `Basic ${Buffer.from(`${app.consumerKey}:${app.consumerSecret}`).toString('base64')}`;
        expectRawError(await upload([media(fixture('image.png'))], { authorization: basic }), 400, BAD_AUTH_TEXT);
      });

      it('accepts a social user token as a bearer token, storing the upload as that user', async () => {
        const reply = await upload([media(fixture('image.png'))], { authorization: bearerAuthorization(world.tokens.roasterOwn) });
        const id = expectUploaded(reply, { size: 4420, type: 'image/png', width: 50, height: 40 });
        expect((await stored(id)).uploader_id).toBe(world.accounts.roaster);
      });

      it('answers 401 code 89 to an unknown bearer token', async () => {
        const reply = await upload([media(fixture('image.png'))], { authorization: bearerAuthorization('no-such-token-0123456789') });
        expectRawError(reply, 401, INVALID_TOKEN_TEXT);
      });

      it.each(['expired', 'revoked'] as const)('answers 401 code 89 to an %s social token', async (which) => {
        const reply = await upload([media(fixture('image.png'))], { authorization: bearerAuthorization(world.tokens[which]) });
        expectRawError(reply, 401, INVALID_TOKEN_TEXT);
      });

      it('answers 403 code 220 to an app-only bearer token', async () => {
        const appToken = await credentials.issueAppToken(app.consumerKey);
        const before = await uploadCount();
        expectRawError(await upload([media(fixture('image.png'))], { authorization: bearerAuthorization(appToken) }), 403, APP_ONLY_TEXT);
        expect(await uploadCount()).toBe(before);
      });
    });

    describe('OAuth 1.0a', () => {
      it('accepts a signed multipart upload whose query parameters are signed (the body is not)', async () => {
        const query = { media_category: 'tweet_image', additional_owners: world.accounts.roaster };
        const target = url(query);
        const bytes = fixture('baseline.jpg');
        const reply = await sendMediaRequest(target, {
          authorization: signedBy(target),
          body: mediaFormData([media(bytes, 'a.jpg', 'image/jpeg')]),
        });
        const id = expectUploaded(reply, { size: bytes.length, type: 'image/jpeg', width: 320, height: 240, keyed: true });
        const row = await stored(id);
        expect(row.uploader_id).toBe(world.accounts.bluebottle);
        expect(row.additional_owners).toEqual([world.accounts.roaster]);
      });

      it('accepts a multipart upload signed without its query string (the best-practice page’s way)', async () => {
        const target = url({ media_category: 'tweet_image' });
        const reply = await sendMediaRequest(target, {
          authorization: signedBy(url()),
          body: mediaFormData([media(fixture('image.png'))]),
        });
        expectUploaded(reply, { size: 4420, type: 'image/png', width: 50, height: 40, keyed: true });
      });

      it('answers 32 when the signed query differs from the one sent', async () => {
        const signedFor = url({ media_category: 'tweet_image' });
        const target = url({ media_category: 'TWEET_IMAGE' });
        const reply = await sendMediaRequest(target, {
          authorization: signedBy(signedFor),
          body: mediaFormData([media(fixture('image.png'))]),
        });
        expectRawError(reply, 401, COULD_NOT_AUTHENTICATE_TEXT);
      });

      it('accepts an urlencoded media_data upload with the body parameters signed', async () => {
        const bytes = fixture('lossless.webp');
        const params = { media_data: base64(bytes), media_category: 'tweet_image' };
        const target = url();
        const reply = await sendMediaRequest(target, {
          authorization: signedBy(target, { data: params }),
          body: new URLSearchParams(params),
        });
        expectUploaded(reply, { size: bytes.length, type: 'image/webp', width: 30, height: 20, keyed: true });
      });

      it('answers 32 to an urlencoded upload whose body parameters were not signed', async () => {
        const target = url();
        const params = { media_data: base64(fixture('image.png')) };
        const reply = await sendMediaRequest(target, { authorization: signedBy(target), body: new URLSearchParams(params) });
        expectRawError(reply, 401, COULD_NOT_AUTHENTICATE_TEXT);
      });

      it('answers 324 to a signed urlencoded body whose media_data is too long to keep, without spending its nonce', async () => {
        const target = url();
        // Longer than the base64 of 5,242,881 bytes: the adapter keeps only that much, so the signature cannot be checked.
        const params = { media_data: base64(noisyPng(MAX_BYTES + 1024)) };
        const authorization = signedBy(target, { data: params, nonce: 'cut-body-nonce' });
        const before = await uploadCount();
        expectRawError(await sendMediaRequestOverHttp(target, { authorization, body: new URLSearchParams(params) }), 400, TOO_LARGE_TEXT);
        expect(await uploadCount()).toBe(before);
        // The nonce was not spent: a good request signed with it is still accepted.
        const small = { media_data: base64(fixture('image.png')) };
        const again = await sendMediaRequest(target, {
          authorization: signedBy(target, { data: small, nonce: 'cut-body-nonce' }),
          body: new URLSearchParams(small),
        });
        expectUploaded(again, { size: 4420, type: 'image/png', width: 50, height: 40 });
      });

      it('answers 135 to a stale timestamp on a body too long to keep, and 220 to a consumer-only one', async () => {
        const target = url();
        const params = { media_data: base64(noisyPng(MAX_BYTES + 1024)) };
        const stale = signedBy(target, { data: params, timestamp: unixSeconds(clock) - 600 });
        expectRawError(
          await sendMediaRequestOverHttp(target, { authorization: stale, body: new URLSearchParams(params) }),
          401,
          TIMESTAMP_TEXT,
        );
        const appOnly = oauth1Authorization({
          consumer: { key: app.consumerKey, secret: app.consumerSecret },
          url: target,
          timestamp: unixSeconds(clock),
          data: params,
        });
        expectRawError(
          await sendMediaRequestOverHttp(target, { authorization: appOnly, body: new URLSearchParams(params) }),
          403,
          APP_ONLY_TEXT,
        );
      });

      it('answers 32 "Could not authenticate you." to a signature made with a wrong secret', async () => {
        const target = url();
        const authorization = oauth1Authorization({
          consumer: { key: app.consumerKey, secret: `${app.consumerSecret}x` },
          token: { key: userToken.token, secret: userToken.tokenSecret },
          url: target,
          timestamp: unixSeconds(clock),
        });
        expectRawError(
          await sendMediaRequest(target, { authorization, body: mediaFormData([media(fixture('image.png'))]) }),
          401,
          COULD_NOT_AUTHENTICATE_TEXT,
        );
      });

      it('answers 89 to an unknown oauth_token', async () => {
        const target = url();
        const authorization = oauth1Authorization({
          consumer: { key: app.consumerKey, secret: app.consumerSecret },
          token: { key: `${world.accounts.bluebottle}-NoSuchTokenNoSuchTokenNoSuchTokenNoSuchTo`, secret: 'x'.repeat(45) },
          url: target,
          timestamp: unixSeconds(clock),
        });
        expectRawError(
          await sendMediaRequest(target, { authorization, body: mediaFormData([media(fixture('image.png'))]) }),
          401,
          INVALID_TOKEN_TEXT,
        );
      });

      it('answers 89 to a revoked access token', async () => {
        const revoked = await credentials.issueAccessToken(app.consumerKey, world.accounts.bluebottle);
        const target = url();
        const sign = () =>
          oauth1Authorization({
            consumer: { key: app.consumerKey, secret: app.consumerSecret },
            token: { key: revoked.token, secret: revoked.tokenSecret },
            url: target,
            timestamp: unixSeconds(clock),
          });
        expectUploaded(await sendMediaRequest(target, { authorization: sign(), body: mediaFormData([media(fixture('image.png'))]) }), {
          size: 4420,
          type: 'image/png',
          width: 50,
          height: 40,
        });
        expect(await credentials.revokeAccessToken(revoked.token)).toBe(true);
        expectRawError(
          await sendMediaRequest(target, { authorization: sign(), body: mediaFormData([media(fixture('image.png'))]) }),
          401,
          INVALID_TOKEN_TEXT,
        );
      });

      it.each([600, -600])('answers 135 "Timestamp out of bounds." to a timestamp %i s off the clock', async (offset) => {
        const target = url();
        const authorization = signedBy(target, { timestamp: unixSeconds(clock) + offset });
        expectRawError(
          await sendMediaRequest(target, { authorization, body: mediaFormData([media(fixture('image.png'))]) }),
          401,
          TIMESTAMP_TEXT,
        );
      });

      it('judges the timestamp by the service clock: signed now, sent after the clock moved 10 minutes', async () => {
        const target = url();
        const authorization = signedBy(target);
        clock = new Date(START.getTime() + 600_000);
        expectRawError(
          await sendMediaRequest(target, { authorization, body: mediaFormData([media(fixture('image.png'))]) }),
          401,
          TIMESTAMP_TEXT,
        );
      });

      it('answers a replayed request (same nonce and timestamp) with 32', async () => {
        const target = url({ media_category: 'tweet_image' });
        const authorization = signedBy(target);
        const first = await sendMediaRequest(target, { authorization, body: mediaFormData([media(fixture('image.png'))]) });
        expectUploaded(first, { size: 4420, type: 'image/png', width: 50, height: 40, keyed: true });
        const before = await uploadCount();
        const replay = await sendMediaRequest(target, { authorization, body: mediaFormData([media(fixture('image.png'))]) });
        expectRawError(replay, 401, COULD_NOT_AUTHENTICATE_TEXT);
        expect(await uploadCount()).toBe(before);
      });

      it('answers 403 code 220 to a consumer-only signature (no oauth_token)', async () => {
        const target = url();
        const authorization = oauth1Authorization({
          consumer: { key: app.consumerKey, secret: app.consumerSecret },
          url: target,
          timestamp: unixSeconds(clock),
        });
        expect(authorization).not.toContain('oauth_token');
        expectRawError(
          await sendMediaRequest(target, { authorization, body: mediaFormData([media(fixture('image.png'))]) }),
          403,
          APP_ONLY_TEXT,
        );
      });

      it('answers 215 to an OAuth header without oauth_nonce', async () => {
        const target = url();
        const authorization = oauth1Authorization({
          consumer: { key: app.consumerKey, secret: app.consumerSecret },
          token: { key: userToken.token, secret: userToken.tokenSecret },
          url: target,
          timestamp: unixSeconds(clock),
          omit: ['oauth_nonce'],
        });
        expect(authorization).not.toContain('oauth_nonce');
        expect(authorization).toContain('oauth_signature=');
        expectRawError(
          await sendMediaRequest(target, { authorization, body: mediaFormData([media(fixture('image.png'))]) }),
          400,
          BAD_AUTH_TEXT,
        );
      });
    });
  });
}

describe('the upload rate limit (3 per 15-minute window)', () => {
  for (const mode of ['embedded', 'distributed'] as const) {
    describe(`${mode} gateway`, () => {
      let system: TestSystem;
      let world: SocialFixture;

      beforeAll(async () => {
        const env = { MEDIA_RATE_UPLOADS_PER_WINDOW: '3' };
        system = mode === 'embedded' ? await startTestSystem(env, { now }) : await startDistributedTestSystem(env, { now });
        world = await createSocialFixture(system.database, { now });
      });

      afterAll(async () => {
        await system?.close();
      });

      const send = (token: string, parts: MediaPart[]) =>
        sendMediaRequest(mediaUploadUrl(system.restUrl), { authorization: bearerAuthorization(token), body: mediaFormData(parts) });
      const image = (): MediaPart => ({ name: 'media', bytes: fixture('image.png'), filename: 'i.png', contentType: 'image/png' });

      function expectLimitHeaders(reply: MediaReply, remaining: number, reset: Date): void {
        expect(reply.headers.get('x-rate-limit-limit'), text(reply)).toBe('3');
        expect(reply.headers.get('x-rate-limit-remaining'), text(reply)).toBe(String(remaining));
        expect(reply.headers.get('x-rate-limit-reset'), text(reply)).toBe(String(unixSeconds(reset)));
      }

      it('counts every authenticated request down, answers the 4th with 429 code 88, and starts again in the next window', async () => {
        clock = new Date('2026-11-20T12:07:30Z');
        const windowEnd = new Date('2026-11-20T12:15:00Z');

        const first = await send(world.tokens.own, [image()]);
        expectUploaded(first, { size: 4420, type: 'image/png', width: 50, height: 40 });
        expectLimitHeaders(first, 2, windowEnd);

        clock = new Date('2026-11-20T12:10:00Z');
        const invalid = await send(world.tokens.own, [{ name: 'media_category', value: 'tweet_image' }]);
        expectRawError(invalid, 400, MISSING_TEXT);
        expectLimitHeaders(invalid, 1, windowEnd);

        const tooSmall = await send(world.tokens.own, [{ name: 'media', bytes: png(3, 3), filename: 's.png' }]);
        expectRawError(tooSmall, 400, DIMENSIONS_TEXT);
        expectLimitHeaders(tooSmall, 0, windowEnd);

        clock = new Date('2026-11-20T12:14:59Z');
        const limited = await send(world.tokens.own, [image()]);
        expectRawError(limited, 429, RATE_LIMITED_TEXT);
        expectLimitHeaders(limited, 0, windowEnd);

        // Another user has a window of their own.
        const roaster = await send(world.tokens.roasterOwn, [image()]);
        expectUploaded(roaster, { size: 4420, type: 'image/png', width: 50, height: 40 });
        expectLimitHeaders(roaster, 2, windowEnd);

        // Unauthenticated requests are not counted and carry no rate-limit headers.
        const anonymous = await sendMediaRequest(mediaUploadUrl(system.restUrl), { body: mediaFormData([image()]) });
        expectRawError(anonymous, 400, BAD_AUTH_TEXT);
        expect(anonymous.headers.get('x-rate-limit-limit')).toBeNull();

        clock = new Date('2026-11-20T12:15:00Z');
        const nextWindow = await send(world.tokens.own, [image()]);
        expectUploaded(nextWindow, { size: 4420, type: 'image/png', width: 50, height: 40 });
        expectLimitHeaders(nextWindow, 2, new Date('2026-11-20T12:30:00Z'));
      });
    });
  }
});
