import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOAuthCredentialStore } from '../../../subgraphs/index.ts';
import type { MediaTables, UploadRow } from '../../../subgraphs/shared/media-store/media-upload.repository.ts';
import type { GraphqlErrorJson } from '../../support/graphql-client.ts';
import {
  oauth1Header,
  uploadJson,
  uploadMultipart,
  type OAuth1Credentials,
  type UploadedMediaJson,
  type UploadReply,
} from '../../support/graphql-upload-client.ts';
import { fixture, png, pngChunk, truncate } from '../../support/image-fixtures.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { createTestBlobStore, runMediaStore, type TestBlobStore } from '../../support/test-blob-store.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * The image upload (Area D) through the gateway's GraphQL endpoint: mutation uploadMedia, sent as a GraphQL multipart
 * request (operations / map / file part, with Apollo-Require-Preflight) or as JSON with the base64 in mediaData.
 *
 * Every test runs against both gateway modes: embedded (the media subgraph in the gateway's process; the Upload reaches
 * it as a JavaScript value) and distributed (the gateway forwards the file to the media subgraph over HTTP as a streamed
 * GraphQL multipart request). The clock is ours and stays at T0 here: the rate-limit window (15 minutes, 500 uploads)
 * starts at T0, so every reply's rateLimit.reset is T0 + 900 s.
 *
 * Expected values come from the reference (docs/media-upload: 5,242,880 bytes, 4..8192 px, codes 215/220/32/135/38/44/324,
 * expires_after_secs 86400, media_key `3_<id>` only with a category), not from the product's constants.
 */

const T0 = new Date('2026-11-20T12:00:00Z');
const T0S = T0.getTime() / 1000;
let clock = T0;
const now = () => clock;

const MAX_BYTES = 5_242_880;
const FOUR_MB = 4 * 1024 * 1024;
const LIMIT = 500;
const RESET = T0S + 900;
const TWO_TO_THE_53 = 2n ** 53n;

const MODES = [
  { mode: 'embedded', start: (env: Record<string, string>) => startTestSystem(env, { now }) },
  { mode: 'distributed', start: (env: Record<string, string>) => startDistributedTestSystem(env, { now }) },
] as const;

/** One media error as the gateway passes it on from the media subgraph. */
function mediaError(
  code: string,
  reason: string,
  message: string,
  twitterCode: number | undefined,
  extra: Record<string, unknown> = {},
): GraphqlErrorJson {
  return {
    message,
    path: ['uploadMedia'],
    extensions: { reason, ...(twitterCode !== undefined ? { twitterCode } : {}), ...extra, code, serviceName: 'media' },
  };
}
/** After authentication every reply reports the caller's window. */
const counted = { rateLimit: { limit: LIMIT, remaining: expect.any(Number), reset: RESET } };
const AUTH_MISSING = mediaError('UNAUTHENTICATED', 'AUTH_MISSING', 'Bad Authentication data.', 215);
const SIGNATURE_INVALID = mediaError('UNAUTHENTICATED', 'SIGNATURE_INVALID', 'Could not authenticate you.', 32);
const TOKEN_INVALID = mediaError('UNAUTHENTICATED', 'TOKEN_INVALID', 'Invalid or expired token.', 89);
const TIMESTAMP = mediaError('UNAUTHENTICATED', 'TIMESTAMP_OUT_OF_BOUNDS', 'Timestamp out of bounds.', 135);
const APP_ONLY = mediaError('FORBIDDEN', 'APP_ONLY', 'Your credentials do not allow access to this resource.', 220);
const TOO_LARGE = mediaError('BAD_USER_INPUT', 'IMAGE_TOO_LARGE', `Image file size must be <= ${MAX_BYTES} bytes`, 324, counted);
const DIMENSIONS = mediaError('BAD_USER_INPUT', 'IMAGE_DIMENSIONS', 'Image dimensions must be >= 4x4 and <= 8192x8192', 324, counted);
const CORRUPT = mediaError('BAD_USER_INPUT', 'IMAGE_CORRUPT', 'Image file is truncated or corrupt', 324, counted);
const UNRECOGNIZED = mediaError('BAD_USER_INPUT', 'MEDIA_UNRECOGNIZED', 'media type unrecognized.', undefined, counted);
const MEDIA_MISSING = mediaError('BAD_USER_INPUT', 'MEDIA_MISSING', 'media parameter is missing.', 38, counted);
const BOTH_MEDIA = mediaError(
  'BAD_USER_INPUT',
  'PARAMETER_INVALID',
  'media and media_data cannot be combined: send the file in media or its base64 in media_data, not both.',
  44,
  { parameter: 'media_data', ...counted },
);

function expectRefused(reply: UploadReply, expected: GraphqlErrorJson): void {
  expect(reply.errors, reply.text).toEqual([expected]);
  expect(reply.data, reply.text).toBeNull();
}

function expectUploaded(reply: UploadReply<{ uploadMedia: UploadedMediaJson }>): UploadedMediaJson {
  expect(reply.status, reply.text).toBe(200);
  expect(reply.errors, reply.text).toBeUndefined();
  return reply.data!.uploadMedia;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe.each(MODES)('uploadMedia through the $mode gateway', ({ start }) => {
  let system: TestSystem;
  let world: SocialFixture;
  let url: string;
  let blobs: TestBlobStore;
  let bluebottle: string;
  let roaster: string;
  let own: string;
  let oauth: OAuth1Credentials;
  let appOnlyToken: string;

  const media = () => system.database.db.withTables<MediaTables>();
  const row = (id: string): Promise<UploadRow> =>
    media().selectFrom('media.upload').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const rowCount = async () =>
    Number(
      (
        await media()
          .selectFrom('media.upload')
          .select(sql<string>`count(*)`.as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  /** Every blob the store holds (and, on the local store, anything left in its staging folder). */
  const blobFiles = async () => (await blobs.keys()).length;
  const storedBytes = async (id: string) => blobs.read((await row(id)).blob_key);

  beforeAll(async () => {
    clock = T0;
    blobs = await createTestBlobStore();
    system = await start(blobs.env);
    world = await createSocialFixture(system.database, { now });
    url = system.gatewayUrl;
    bluebottle = world.accounts.bluebottle;
    roaster = world.accounts.roaster;
    own = world.tokens.own;
    const store = createOAuthCredentialStore(system.database, now);
    const app = await store.createConsumer('upload test app');
    const access = await store.issueAccessToken(app.consumerKey, bluebottle);
    oauth = { ...app, token: access.token, tokenSecret: access.tokenSecret };
    appOnlyToken = await store.issueAppToken(app.consumerKey);
  });

  afterAll(async () => {
    await system?.close();
    await blobs?.close();
  });

  describe('success', () => {
    it("keeps the bytes in the run's blob store (an S3 bucket in the e2e project on PostgreSQL)", async () => {
      expect(system.config.media.store).toBe(runMediaStore());
      const uploaded = expectUploaded(await uploadMultipart(url, fixture('image.png'), { token: own }));
      expect(await blobs.keys()).toContain((await row(uploaded.mediaId)).blob_key);
    });

    it.each([
      { file: 'baseline.jpg', category: 'tweet_image', imageType: 'image/jpeg', w: 320, h: 240 },
      { file: 'image.png', category: 'TWEET_IMAGE', imageType: 'image/png', w: 50, h: 40 },
      { file: 'animated.gif', category: 'TweetImage', imageType: 'image/gif', w: 40, h: 30 },
      { file: 'lossy.webp', category: 'tweet_image', imageType: 'image/webp', w: 64, h: 48 },
    ])(
      'uploads $file as a multipart request: exact 64-bit id, media key, size, type and dimensions',
      async ({ file, category, imageType, w, h }) => {
        const bytes = fixture(file);
        const reply = await uploadMultipart(url, bytes, { token: own, mediaCategory: category, filename: file });
        const uploaded = expectUploaded(reply);
        expect(uploaded).toEqual({
          mediaId: expect.stringMatching(/^[1-9]\d{15,19}$/),
          mediaIdString: uploaded.mediaId,
          mediaKey: `3_${uploaded.mediaId}`,
          size: bytes.length,
          expiresAfterSecs: 86_400,
          image: { imageType, w, h },
          rateLimit: { limit: LIMIT, remaining: expect.any(Number), reset: RESET },
        });
        // Far above 2^53, and written as a string so no digit is lost.
        expect(BigInt(uploaded.mediaId) > TWO_TO_THE_53).toBe(true);
        expect(reply.text).toContain(`"mediaId":"${uploaded.mediaId}"`);
        expect(reply.text).toContain(`"mediaIdString":"${uploaded.mediaId}"`);

        const stored = await row(uploaded.mediaId);
        expect(String(stored.uploader_id)).toBe(bluebottle);
        expect(stored.media_category).toBe('tweet_image');
        expect(stored.expires_at.getTime()).toBe(T0.getTime() + 86_400_000);
        expect(sha256(await storedBytes(uploaded.mediaId))).toBe(sha256(bytes));
      },
    );

    it('returns no media key without a category, and counts each upload against the window', async () => {
      const first = expectUploaded(await uploadMultipart(url, fixture('still.gif'), { token: own }));
      expect(first.mediaKey).toBeNull();
      expect(first.image).toEqual({ imageType: 'image/gif', w: 48, h: 32 });
      const second = expectUploaded(await uploadMultipart(url, fixture('lossless.webp'), { token: own }));
      expect(second.mediaId).not.toBe(first.mediaId);
      expect(BigInt(second.mediaId) > BigInt(first.mediaId)).toBe(true);
      expect(second.rateLimit).toEqual({ limit: LIMIT, remaining: first.rateLimit.remaining - 1, reset: RESET });
      expect((await row(first.mediaId)).media_category).toBeNull();
    });

    it('accepts the image as base64 in mediaData in a JSON request', async () => {
      const bytes = fixture('progressive.jpg');
      const uploaded = expectUploaded(await uploadJson(url, bytes.toString('base64'), { token: own, mediaCategory: 'tweet_image' }));
      expect(uploaded).toMatchObject({
        mediaKey: `3_${uploaded.mediaId}`,
        size: bytes.length,
        expiresAfterSecs: 86_400,
        image: { imageType: 'image/jpeg', w: 80, h: 60 },
      });
      expect(sha256(await storedBytes(uploaded.mediaId))).toBe(sha256(bytes));
    });

    it.each([
      { file: 'baseline.jpg', imageType: 'image/jpeg', w: 320, h: 240 },
      { file: 'image.png', imageType: 'image/png', w: 50, h: 40 },
      { file: 'still.gif', imageType: 'image/gif', w: 48, h: 32 },
      { file: 'lossless.webp', imageType: 'image/webp', w: 30, h: 20 },
    ])('accepts $file as base64 in mediaData, without a media key when no category is given', async ({ file, imageType, w, h }) => {
      const bytes = fixture(file);
      const reply = await uploadJson(url, bytes.toString('base64'), { token: own });
      const uploaded = expectUploaded(reply);
      expect(uploaded).toMatchObject({ mediaKey: null, size: bytes.length, image: { imageType, w, h } });
      expect(sha256(await storedBytes(uploaded.mediaId))).toBe(sha256(bytes));
    });

    it('reads the type from the bytes: a PNG sent as image/jpeg named photo.jpg is image/png', async () => {
      const reply = await uploadMultipart(url, fixture('image.png'), { token: own, contentType: 'image/jpeg', filename: 'photo.jpg' });
      expect(expectUploaded(reply).image).toEqual({ imageType: 'image/png', w: 50, h: 40 });
    });

    it('stores additional owners given as a list or as one comma-separated entry', async () => {
      const listed = expectUploaded(
        await uploadMultipart(url, fixture('image.png'), {
          token: world.tokens.roasterOwn,
          additionalOwners: [bluebottle, world.accounts.fanOne],
        }),
      );
      expect(String((await row(listed.mediaId)).uploader_id)).toBe(roaster);
      expect((await row(listed.mediaId)).additional_owners.map(String).sort()).toEqual([bluebottle, world.accounts.fanOne].sort());
      const joined = expectUploaded(
        await uploadJson(url, fixture('image.png').toString('base64'), {
          token: world.tokens.roasterOwn,
          additionalOwners: [`${bluebottle},${world.accounts.fanTwo}`],
        }),
      );
      expect((await row(joined.mediaId)).additional_owners.map(String).sort()).toEqual([bluebottle, world.accounts.fanTwo].sort());
    });

    it('accepts a file of exactly 5,242,880 bytes, multipart and base64', async () => {
      const bytes = png(100, 100, { padToBytes: MAX_BYTES });
      expect(expectUploaded(await uploadMultipart(url, bytes, { token: own })).size).toBe(MAX_BYTES);
      expect(expectUploaded(await uploadJson(url, bytes.toString('base64'), { token: own })).size).toBe(MAX_BYTES);
    });

    it('accepts 4 and 8192 pixels each way', async () => {
      expect(expectUploaded(await uploadMultipart(url, png(4, 4), { token: own })).image).toEqual({ imageType: 'image/png', w: 4, h: 4 });
      expect(expectUploaded(await uploadMultipart(url, png(8192, 4), { token: own })).image).toEqual({
        imageType: 'image/png',
        w: 8192,
        h: 4,
      });
    });

    it('carries a 4 MB file through intact', async () => {
      // A PNG whose private padding chunk holds random bytes, so that a lost, repeated or reordered chunk shows.
      const plain = png(64, 64);
      const end = plain.subarray(plain.length - 12);
      const bytes = Buffer.concat([plain.subarray(0, plain.length - 12), pngChunk('paDd', randomBytes(FOUR_MB - plain.length - 12)), end]);
      expect(bytes.length).toBe(FOUR_MB);
      const uploaded = expectUploaded(await uploadMultipart(url, bytes, { token: own }));
      expect(uploaded.size).toBe(FOUR_MB);
      expect(uploaded.image).toEqual({ imageType: 'image/png', w: 64, h: 64 });
      expect(sha256(await storedBytes(uploaded.mediaId))).toBe(sha256(bytes));
    });
  });

  describe('CSRF prevention', () => {
    it('refuses a multipart request without Apollo-Require-Preflight with HTTP 400, storing nothing', async () => {
      const rowsBefore = await rowCount();
      const filesBefore = await blobFiles();
      const refused = await uploadMultipart(url, fixture('image.png'), { token: own, preflight: false });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.errors).toEqual([
        { message: expect.stringContaining('Cross-Site Request Forgery'), extensions: { code: 'BAD_REQUEST' } },
      ]);
      expect(refused.data).toBeUndefined();
      expect(await rowCount()).toBe(rowsBefore);
      expect(await blobFiles()).toBe(filesBefore);
      // The same request with the header goes through.
      expectUploaded(await uploadMultipart(url, fixture('image.png'), { token: own }));
      expect(await rowCount()).toBe(rowsBefore + 1);
    });
  });

  describe('errors', () => {
    it('refuses a request without a credential with 215, and a malformed one too', async () => {
      expectRefused(await uploadMultipart(url, fixture('image.png')), AUTH_MISSING);
      expectRefused(await uploadMultipart(url, fixture('image.png'), { authorization: 'Basic dXNlcjpwYXNz' }), AUTH_MISSING);
    });

    it('refuses an app-only bearer token with 220, and a revoked user token with 89', async () => {
      expectRefused(await uploadMultipart(url, fixture('image.png'), { token: appOnlyToken }), APP_ONLY);
      expectRefused(await uploadMultipart(url, fixture('image.png'), { token: world.tokens.revoked }), TOKEN_INVALID);
    });

    it('refuses a 5,242,881-byte file with 324', async () => {
      expectRefused(await uploadMultipart(url, png(100, 100, { padToBytes: MAX_BYTES + 1 }), { token: own }), TOO_LARGE);
    });

    it('refuses 5,242,881 bytes sent as base64 with 324', async () => {
      expectRefused(await uploadJson(url, png(100, 100, { padToBytes: MAX_BYTES + 1 }).toString('base64'), { token: own }), TOO_LARGE);
    });

    it('refuses a 6 MB file with 324', async () => {
      expectRefused(await uploadMultipart(url, png(100, 100, { padToBytes: 6_000_000 }), { token: own }), TOO_LARGE);
    });

    it('refuses images outside 4..8192 pixels with 324', async () => {
      expectRefused(await uploadMultipart(url, png(8193, 4), { token: own }), DIMENSIONS);
      expectRefused(await uploadMultipart(url, png(4, 3), { token: own }), DIMENSIONS);
    });

    it('refuses a text file, a video and a data: URI as unrecognised media (no numeric code)', async () => {
      expectRefused(
        await uploadMultipart(url, Buffer.from('just some text, not an image\n'), {
          token: own,
          contentType: 'text/plain',
          filename: 'notes.txt',
        }),
        UNRECOGNIZED,
      );
      expectRefused(await uploadMultipart(url, fixture('video.mp4'), { token: own, contentType: 'video/mp4' }), UNRECOGNIZED);
      expectRefused(
        await uploadJson(url, `data:image/png;base64,${fixture('image.png').toString('base64')}`, { token: own }),
        UNRECOGNIZED,
      );
    });

    it('refuses a text file named picture.png as unrecognised, and a truncated JPEG with 324', async () => {
      expectRefused(
        await uploadMultipart(url, Buffer.from('not a picture at all\n'), {
          token: own,
          contentType: 'image/png',
          filename: 'picture.png',
        }),
        UNRECOGNIZED,
      );
      const jpeg = fixture('baseline.jpg');
      expectRefused(
        await uploadMultipart(url, truncate(jpeg, jpeg.length - 200), { token: own, contentType: 'image/jpeg', filename: 'cut.jpg' }),
        CORRUPT,
      );
    });

    it('refuses both media and mediaData with 44, and neither with 38', async () => {
      const bytes = fixture('image.png');
      expectRefused(await uploadMultipart(url, bytes, { token: own, mediaData: bytes.toString('base64') }), BOTH_MEDIA);
      expectRefused(await uploadJson(url, undefined, { token: own }), MEDIA_MISSING);
    });

    it('counts a refused upload after authentication against the window', async () => {
      const refused = await uploadJson(url, undefined, { token: own });
      const remaining = (refused.errors?.[0]?.extensions?.rateLimit as { remaining: number }).remaining;
      const next = expectUploaded(await uploadMultipart(url, fixture('image.png'), { token: own }));
      expect(next.rateLimit.remaining).toBe(remaining - 1);
    });

    it('leaves no row and no file behind for refused uploads', async () => {
      const rowsBefore = await rowCount();
      const filesBefore = await blobFiles();
      // Only that they were refused: the exact errors are the tests above.
      for (const bytes of [png(100, 100, { padToBytes: MAX_BYTES + 1 }), png(8193, 4), truncate(fixture('baseline.jpg'), 40_000)]) {
        const reply = await uploadMultipart(url, bytes, { token: own });
        expect(reply.errors, reply.text).toHaveLength(1);
        expect(reply.data).toBeNull();
      }
      expect(await rowCount()).toBe(rowsBefore);
      expect(await blobFiles()).toBe(filesBefore);
    });
  });

  describe('OAuth 1.0a', () => {
    const sign = (overrides: { url?: string; at?: () => Date; credentials?: OAuth1Credentials } = {}) =>
      oauth1Header(overrides.credentials ?? oauth, { method: 'POST', url: overrides.url ?? url, now: overrides.at ?? now });

    it('accepts a request signed over POST and the gateway URL, multipart or JSON, as the token’s user', async () => {
      const multipart = expectUploaded(await uploadMultipart(url, fixture('image.png'), { authorization: sign() }));
      expect(String((await row(multipart.mediaId)).uploader_id)).toBe(bluebottle);
      const json = expectUploaded(
        await uploadJson(url, fixture('lossy.webp').toString('base64'), { authorization: sign(), mediaCategory: 'tweet_image' }),
      );
      expect(json.mediaKey).toBe(`3_${json.mediaId}`);
    });

    it('refuses a signature made for another URL, or with a wrong secret, with 32', async () => {
      const gateway = new URL(url);
      expectRefused(
        await uploadMultipart(url, fixture('image.png'), { authorization: sign({ url: `${gateway.origin}/1.1/media/upload.json` }) }),
        SIGNATURE_INVALID,
      );
      expectRefused(
        await uploadMultipart(url, fixture('image.png'), { authorization: sign({ url: `http://upload.example.com${gateway.pathname}` }) }),
        SIGNATURE_INVALID,
      );
      const wrongSecret = { ...oauth, tokenSecret: `${oauth.tokenSecret!.slice(1)}x` };
      expectRefused(
        await uploadMultipart(url, fixture('image.png'), { authorization: sign({ credentials: wrongSecret }) }),
        SIGNATURE_INVALID,
      );
    });

    it('refuses a replayed nonce with 32', async () => {
      const header = sign();
      expectUploaded(await uploadMultipart(url, fixture('image.png'), { authorization: header }));
      expectRefused(await uploadMultipart(url, fixture('image.png'), { authorization: header }), SIGNATURE_INVALID);
    });

    it('refuses a timestamp ten minutes off with 135', async () => {
      const header = sign({ at: () => new Date(clock.getTime() - 600_000) });
      expectRefused(await uploadMultipart(url, fixture('image.png'), { authorization: header }), TIMESTAMP);
    });

    it('refuses a signature with consumer credentials only (app-only) with 220', async () => {
      const { consumerKey, consumerSecret } = oauth;
      expectRefused(
        await uploadMultipart(url, fixture('image.png'), { authorization: sign({ credentials: { consumerKey, consumerSecret } }) }),
        APP_ONLY,
      );
    });
  });
});
