import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AccessTokenCredentials, ConsumerCredentials } from '../../../lib/auth/oauth1/oauth-credentials.ts';
import { createOAuthCredentialStore } from '../../../subgraphs/index.ts';
import { graphErrorBody, invalidParameter } from '../../support/graph-error-expectations.ts';
import { HANG_MS, LONG_TEST_MS } from '../../support/hang-bounds.ts';
import { fixture, png } from '../../support/image-fixtures.ts';
import {
  bearerAuthorization,
  MEDIA_UNRECOGNIZED_TEXT,
  mediaFormData,
  mediaUploadUrl,
  oauth1Authorization,
  rawMediaId,
  sendMediaRequest,
  type MediaPart,
  type MediaReply,
} from '../../support/media-client.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { mp4AudioOnly, mp4Video } from '../../support/video-fixtures.ts';

/**
 * Front-door tests of the chunked upload (the reference's §8) on POST/GET /1.1/media/upload.json: INIT, APPEND,
 * FINALIZE and STATUS with their exact replies, and one test per error case, in the reference's two body shapes.
 * The services' clock is the test's (expiry is reached by moving it). Each test starts with the rate-limit counters
 * cleared, so the limit (30 commands per window here) is reached only where a test means to.
 */

const START = new Date('2026-11-20T12:00:00Z');
const WINDOW_SECS = 900;
const LIMIT = 30;
let clock = START;
const now = () => clock;
const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

const describeReply = (reply: MediaReply) => `HTTP ${reply.status}: ${reply.text.slice(0, 500)}`;
const standardText = (code: number, message: string) => JSON.stringify({ errors: [{ code, message }] });
const legacyText = (message: string) => JSON.stringify({ request: '/1.1/media/upload.json', error: message });

function expectRaw(reply: MediaReply, status: number, text: string): void {
  expect(reply.status, describeReply(reply)).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json\b/);
  expect(reply.text).toBe(text);
}

for (const mode of ['embedded', 'distributed'] as const) {
  describe(`chunked upload on /1.1/media/upload.json (${mode} gateway)`, () => {
    let system: TestSystem;
    let world: SocialFixture;
    let app: ConsumerCredentials;
    let userToken: AccessTokenCredentials;
    let own: string;
    let roaster: string;

    beforeAll(async () => {
      const env = { MEDIA_RATE_UPLOADS_PER_WINDOW: String(LIMIT) };
      system = mode === 'embedded' ? await startTestSystem(env, { now }) : await startDistributedTestSystem(env, { now });
      world = await createSocialFixture(system.database, { now });
      const credentials = createOAuthCredentialStore(system.database, now);
      app = await credentials.createConsumer('chunked upload tests');
      userToken = await credentials.issueAccessToken(app.consumerKey, world.accounts.bluebottle);
      own = bearerAuthorization(world.tokens.own);
      roaster = bearerAuthorization(world.tokens.roasterOwn);
    }, 60_000);

    afterAll(async () => {
      await system?.close();
    });

    beforeEach(async () => {
      clock = START;
      await sql`delete from media.rate_counter`.execute(system.database.db);
    });

    const url = (query?: Record<string, string>) => mediaUploadUrl(system.restUrl, query);
    const post = (parts: readonly MediaPart[], authorization: string | undefined = own, query?: Record<string, string>) =>
      sendMediaRequest(url(query), { authorization, body: mediaFormData(parts) });
    const fields = (params: Record<string, string>): MediaPart[] => Object.entries(params).map(([name, value]) => ({ name, value }));
    const segment = (bytes: Uint8Array): MediaPart => ({ name: 'media', bytes, filename: 'blob', contentType: 'application/octet-stream' });

    const init = (params: Record<string, string>, authorization?: string) => post(fields({ command: 'INIT', ...params }), authorization);
    const append = (mediaId: string, index: number | string, bytes: Uint8Array | undefined, authorization?: string) =>
      post(
        [...fields({ command: 'APPEND', media_id: mediaId, segment_index: String(index) }), ...(bytes ? [segment(bytes)] : [])],
        authorization,
      );
    const finalize = (mediaId: string, authorization?: string) => post(fields({ command: 'FINALIZE', media_id: mediaId }), authorization);
    const status = (mediaId: string, authorization: string | undefined = own) =>
      sendMediaRequest(url({ command: 'STATUS', media_id: mediaId }), { method: 'GET', authorization });

    /** INIT that must succeed; returns the media id. */
    async function opened(params: Record<string, string>, authorization?: string): Promise<string> {
      const reply = await init(params, authorization);
      expect(reply.status, describeReply(reply)).toBe(202);
      return reply.body.media_id_string as string;
    }

    /** A whole upload in segments of `size` bytes; returns the FINALIZE reply. */
    async function uploadInSegments(
      bytes: Buffer,
      params: Record<string, string>,
      size = 1000,
    ): Promise<{ mediaId: string; reply: MediaReply }> {
      const mediaId = await opened({ total_bytes: String(bytes.length), ...params });
      for (let at = 0, index = 0; at < bytes.length; at += size, index += 1) {
        const reply = await append(mediaId, index, bytes.subarray(at, at + size));
        expect(reply.status, describeReply(reply)).toBe(204);
      }
      return { mediaId, reply: await finalize(mediaId) };
    }

    async function processingState(mediaId: string) {
      const { rows } = await sql<{ processing_state: string | null; processing_error: string | null }>`
        select processing_state, processing_error from media.upload where id = cast(${mediaId} as bigint)`.execute(system.database.db);
      return rows[0];
    }

    describe('the protocol', () => {
      it('answers INIT with 202 and the media object: media_id as a bare number, media_key with the category, expiry', async () => {
        const reply = await init({ total_bytes: '4420', media_type: 'image/png', media_category: 'tweet_image' });
        expect(reply.status, describeReply(reply)).toBe(202);
        const id = rawMediaId(reply.text)!;
        expect(BigInt(id)).toBeGreaterThan(2n ** 53n);
        expect(reply.text).toBe(`{"media_id":${id},"media_id_string":"${id}","media_key":"3_${id}","expires_after_secs":86400}`);
        expect(reply.headers.get('x-rate-limit-limit')).toBe(String(LIMIT));
        expect(reply.headers.get('x-rate-limit-remaining')).toBe(String(LIMIT - 1));
      });

      it.each([
        ['TweetGif', 'image/gif', '16'],
        ['TWEET_VIDEO', 'video/mp4', '7'],
        ['amplify_video', 'video/mp4', '13'],
      ])('gives media_category %s (%s) the key prefix %s_', async (category, mediaType, prefix) => {
        const reply = await init({ total_bytes: '1000', media_type: mediaType, media_category: category });
        const id = rawMediaId(reply.text)!;
        expect(reply.text).toBe(`{"media_id":${id},"media_id_string":"${id}","media_key":"${prefix}_${id}","expires_after_secs":86400}`);
      });

      it('has no media_key without a category', async () => {
        const reply = await init({ total_bytes: '4420', media_type: 'image/png' });
        const id = rawMediaId(reply.text)!;
        expect(reply.text).toBe(`{"media_id":${id},"media_id_string":"${id}","expires_after_secs":86400}`);
      });

      it('answers APPEND with 204 and no body, FINALIZE of an image with 200 and its image object, in segment_index order', async () => {
        const bytes = fixture('baseline.jpg');
        const mediaId = await opened({ total_bytes: String(bytes.length), media_type: 'image/jpeg', media_category: 'tweet_image' });
        // Sent out of order: they are assembled by segment_index.
        const cuts = [0, 30_000, 60_000, bytes.length];
        for (const index of [2, 0, 1]) {
          const reply = await append(mediaId, index, bytes.subarray(cuts[index], cuts[index + 1]));
          expect(reply.status, describeReply(reply)).toBe(204);
          expect(reply.text).toBe('');
          expect(reply.headers.get('x-rate-limit-remaining')).not.toBeNull();
        }
        const reply = await finalize(mediaId);
        expect(reply.status, describeReply(reply)).toBe(200);
        expect(reply.text).toBe(
          `{"media_id":${mediaId},"media_id_string":"${mediaId}","media_key":"3_${mediaId}","size":${bytes.length},"expires_after_secs":86400,` +
            `"image":{"image_type":"image/jpeg","w":320,"h":240}}`,
        );
        const status200 = await status(mediaId);
        expect(status200.status).toBe(200);
        expect(status200.text).toBe(reply.text);
        const { rows } = await sql<{
          n: number;
        }>`select count(*)::int as n from media.upload_segment where session_id = cast(${mediaId} as bigint)`.execute(system.database.db);
        expect(rows[0]!.n).toBe(0);
      });

      it('takes segments as base64 media_data too', async () => {
        const bytes = fixture('image.png');
        const mediaId = await opened({ total_bytes: String(bytes.length), media_type: 'image/png' });
        const reply = await post(
          fields({ command: 'APPEND', media_id: mediaId, segment_index: '0', media_data: bytes.toString('base64') }),
        );
        expect(reply.status, describeReply(reply)).toBe(204);
        expect((await finalize(mediaId)).body.image).toEqual({ image_type: 'image/png', w: 50, h: 40 });
      });

      it('counts every command against the upload rate limit, and answers 88 past it', async () => {
        const mediaId = await opened({ total_bytes: '4420', media_type: 'image/png' }, roaster);
        let last: MediaReply | undefined;
        for (let count = 1; count < LIMIT; count += 1) last = await status(mediaId, roaster);
        expect(last!.headers.get('x-rate-limit-remaining')).toBe('0');
        const refused = await append(mediaId, 0, fixture('image.png'), roaster);
        expectRaw(refused, 429, standardText(88, 'Rate limit exceeded'));
        expect(refused.headers.get('x-rate-limit-reset')).toBe(String(unixSeconds(clock) + WINDOW_SECS));
      });

      it('accepts OAuth 1.0a signed commands, STATUS signed over GET and its query', async () => {
        const bytes = fixture('image.png');
        const sign = (method: string, signUrl: string) =>
          oauth1Authorization({
            consumer: { key: app.consumerKey, secret: app.consumerSecret },
            token: { key: userToken.token, secret: userToken.tokenSecret },
            method,
            url: signUrl,
            timestamp: unixSeconds(clock),
          });
        const initReply = await init({ total_bytes: String(bytes.length), media_type: 'image/png' }, sign('POST', url()));
        expect(initReply.status, describeReply(initReply)).toBe(202);
        const mediaId = initReply.body.media_id_string as string;
        expect((await append(mediaId, 0, bytes, sign('POST', url()))).status).toBe(204);
        expect((await finalize(mediaId, sign('POST', url()))).status).toBe(200);
        const statusUrl = url({ command: 'STATUS', media_id: mediaId });
        const reply = await sendMediaRequest(statusUrl, { method: 'GET', authorization: sign('GET', statusUrl) });
        expect(reply.status, describeReply(reply)).toBe(200);
        const forged = await sendMediaRequest(statusUrl, {
          method: 'GET',
          authorization: sign('GET', url({ command: 'STATUS', media_id: '1' })),
        });
        expectRaw(forged, 401, standardText(32, 'Could not authenticate you.'));
      });

      it('refuses missing credentials (215) and app-only bearer tokens (220) on every command', async () => {
        // An empty Authorization header is no credential at all.
        expectRaw(await init({ total_bytes: '10', media_type: 'image/png' }, ''), 400, standardText(215, 'Bad Authentication data.'));
        expectRaw(await status('1', ''), 400, standardText(215, 'Bad Authentication data.'));
        const appToken = await createOAuthCredentialStore(system.database, now).issueAppToken(app.consumerKey);
        expectRaw(
          await finalize('1', bearerAuthorization(appToken)),
          403,
          standardText(220, 'Your credentials do not allow access to this resource.'),
        );
      });
    });

    describe('processing_info of animated GIFs and videos', () => {
      it('runs an animated GIF through pending → succeeded, then STATUS shows its image', async () => {
        const gif = fixture('animated.gif');
        const { mediaId, reply } = await uploadInSegments(gif, { media_type: 'image/gif', media_category: 'tweet_gif' });
        expectRaw(
          reply,
          200,
          `{"media_id":${mediaId},"media_id_string":"${mediaId}","media_key":"16_${mediaId}","size":${gif.length},"expires_after_secs":86400,` +
            `"processing_info":{"state":"pending","check_after_secs":1}}`,
        );
        await vi.waitFor(async () => expect((await processingState(mediaId))?.processing_state).toBe('succeeded'), {
          timeout: HANG_MS,
          interval: 50,
        });
        expectRaw(
          await status(mediaId),
          200,
          `{"media_id":${mediaId},"media_id_string":"${mediaId}","media_key":"16_${mediaId}","size":${gif.length},"expires_after_secs":86400,` +
            `"image":{"image_type":"image/gif","w":40,"h":30},"processing_info":{"state":"succeeded","progress_percent":100}}`,
        );
      });

      it('runs an MP4 through to succeeded with a video object', async () => {
        const video = mp4Video();
        const { mediaId } = await uploadInSegments(video, { media_type: 'video/mp4', media_category: 'tweet_video' }, 300);
        await vi.waitFor(async () => expect((await processingState(mediaId))?.processing_state).toBe('succeeded'), {
          timeout: HANG_MS,
          interval: 50,
        });
        expectRaw(
          await status(mediaId),
          200,
          `{"media_id":${mediaId},"media_id_string":"${mediaId}","media_key":"7_${mediaId}","size":${video.length},"expires_after_secs":86400,` +
            `"video":{"video_type":"video/mp4"},"processing_info":{"state":"succeeded","progress_percent":100}}`,
        );
      });

      it.each([
        [
          'an MP4 without a video track',
          () => mp4AudioOnly(),
          'video/mp4',
          'tweet_video',
          'Invalid or Unsupported media, Reason: UnsupportedMedia. The MP4 has no video track.',
        ],
        [
          'a truncated MP4',
          () => mp4Video().subarray(0, 700),
          'video/mp4',
          'tweet_video',
          /^Invalid or Unsupported media, Reason: CorruptMedia\. Not a readable MP4 container: box moof at byte 680 runs past the end/,
        ],
        [
          'a PNG announced as video/mp4',
          () => fixture('image.png'),
          'video/mp4',
          'amplify_video',
          /^Invalid or Unsupported media, Reason: CorruptMedia\. Not a readable MP4 container/,
        ],
        [
          'a truncated GIF',
          () => fixture('animated.gif').subarray(0, 1000),
          'image/gif',
          'tweet_gif',
          /^Invalid or Unsupported media, Reason: CorruptMedia\. The GIF could not be read/,
        ],
        [
          'a PNG announced as image/gif',
          () => fixture('image.png'),
          'image/gif',
          'tweet_gif',
          /^Invalid or Unsupported media, Reason: UnsupportedMedia\. media_type image\/gif was announced/,
        ],
      ] as const)('fails %s with processing_info.error', async (_name, bytes, mediaType, category, message) => {
        const { mediaId, reply } = await uploadInSegments(bytes(), { media_type: mediaType, media_category: category }, 400);
        expect(reply.body.processing_info).toEqual({ state: 'pending', check_after_secs: 1 });
        await vi.waitFor(async () => expect((await processingState(mediaId))?.processing_state).toBe('failed'), {
          timeout: HANG_MS,
          interval: 50,
        });
        const failed = await status(mediaId);
        expect(failed.status, describeReply(failed)).toBe(200);
        expect(Object.keys(failed.body.processing_info)).toEqual(['state', 'progress_percent', 'error']);
        expect(failed.body.processing_info.state).toBe('failed');
        expect(failed.body.processing_info.error.code).toBe(1);
        expect(failed.body.processing_info.error.name).toBe('InvalidMedia');
        if (typeof message === 'string') expect(failed.body.processing_info.error.message).toBe(message);
        else expect(failed.body.processing_info.error.message).toMatch(message);
      });
    });

    describe('use of a processed media elsewhere (container creation)', () => {
      const createContainer = async (uploadMediaId: string) => {
        const response = await fetch(new URL(`/v21.0/${world.accounts.bluebottle}/media`, system.restUrl), {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${world.tokens.own}` },
          body: JSON.stringify({ upload_media_id: uploadMediaId }),
        });
        return { status: response.status, body: (await response.json()) as any };
      };
      const setState = (mediaId: string, state: string) =>
        sql`update media.upload set processing_state = ${state} where id = cast(${mediaId} as bigint)`.execute(system.database.db);

      it('takes an animated GIF by id or 16_ key only once its processing has succeeded', async () => {
        const { mediaId } = await uploadInSegments(fixture('animated.gif'), { media_type: 'image/gif', media_category: 'tweet_gif' });
        await vi.waitFor(async () => expect((await processingState(mediaId))?.processing_state).toBe('succeeded'), {
          timeout: HANG_MS,
          interval: 50,
        });
        // As it was while processing ran.
        await setState(mediaId, 'in_progress');
        const early = await createContainer(mediaId);
        expect(early.status).toBe(400);
        expect(early.body).toEqual(
          graphErrorBody(
            invalidParameter(`The media id ${mediaId} is still processing (in_progress); ask its STATUS until it has succeeded.`),
          ),
        );
        await setState(mediaId, 'succeeded');
        const created = await createContainer(`16_${mediaId}`);
        expect(created.status, JSON.stringify(created.body)).toBe(200);
        expect(created.body.id).toMatch(/^\d+$/);
        const wrongPrefix = await createContainer(`3_${mediaId}`);
        expect(wrongPrefix.body).toEqual(graphErrorBody(invalidParameter(`The media id 3_${mediaId} was not found.`)));
      });

      it(
        'refuses a GIF whose processing failed, and a video (containers take images)',
        async () => {
          const { mediaId } = await uploadInSegments(fixture('image.png'), { media_type: 'image/gif', media_category: 'tweet_gif' });
          await vi.waitFor(async () => expect((await processingState(mediaId))?.processing_state).toBe('failed'), {
            timeout: HANG_MS,
            interval: 50,
          });
          expect((await createContainer(mediaId)).body).toEqual(
            graphErrorBody(invalidParameter(`The media id ${mediaId} failed processing and cannot be used.`)),
          );
          const video = await uploadInSegments(mp4Video(), { media_type: 'video/mp4', media_category: 'tweet_video' });
          await vi.waitFor(async () => expect((await processingState(video.mediaId))?.processing_state).toBe('succeeded'), {
            timeout: HANG_MS,
            interval: 50,
          });
          expect((await createContainer(`7_${video.mediaId}`)).body).toEqual(
            graphErrorBody(invalidParameter(`The media id ${video.mediaId} is a video, not an image.`)),
          );
        },
        LONG_TEST_MS,
      );
    });

    describe('errors of INIT', () => {
      it.each([
        [{ media_type: 'image/png' }, 38, 'total_bytes parameter is missing.'],
        [{ total_bytes: '12' }, 38, 'media_type parameter is missing.'],
        [{ total_bytes: 'abc', media_type: 'image/png' }, 44, 'total_bytes parameter is invalid: "abc" is not a positive number of bytes'],
        [{ total_bytes: '0', media_type: 'image/png' }, 44, 'total_bytes parameter is invalid: "0" is not a positive number of bytes'],
        [{ total_bytes: '-5', media_type: 'image/png' }, 44, 'total_bytes parameter is invalid: "-5" is not a positive number of bytes'],
        [
          { total_bytes: '12', media_type: 'image/png', media_category: 'dm_video' },
          44,
          'media_category parameter is invalid: "dm_video" is not one of tweet_image, tweet_gif, tweet_video, amplify_video',
        ],
        [
          { total_bytes: '12', media_type: 'video/mp4', media_category: 'tweet_gif' },
          44,
          'media_category parameter is invalid: tweet_gif does not fit media_type video/mp4: use tweet_video or amplify_video',
        ],
        [
          { total_bytes: '12', media_type: 'image/png', media_category: 'tweet_gif' },
          44,
          'media_category parameter is invalid: tweet_gif does not fit media_type image/png: use tweet_image',
        ],
        [
          { total_bytes: '12', media_type: 'image/gif', media_category: 'tweet_video' },
          44,
          'media_category parameter is invalid: tweet_video does not fit media_type image/gif: use tweet_image or tweet_gif',
        ],
        [
          { total_bytes: '12', media_type: 'image/png', additional_owners: '12,x' },
          44,
          'additional_owners parameter is invalid: "x" is not a user id (1 to 19 digits)',
        ],
      ])('refuses %j with code %i', async (params, code, message) => {
        expectRaw(await init(params), 400, standardText(code, message));
      });

      it('refuses a media_type it does not take in the legacy shape', async () => {
        expectRaw(await init({ total_bytes: '12', media_type: 'application/pdf' }), 400, MEDIA_UNRECOGNIZED_TEXT);
        expectRaw(await init({ total_bytes: '12', media_type: 'video/webm' }), 400, MEDIA_UNRECOGNIZED_TEXT);
      });

      it.each([
        [{ media_type: 'image/png', media_category: 'tweet_image' }, 5_242_880],
        [{ media_type: 'image/gif' }, 5_242_880],
        [{ media_type: 'image/gif', media_category: 'tweet_gif' }, 15_728_640],
        [{ media_type: 'video/mp4', media_category: 'tweet_video' }, 536_870_912],
        [{ media_type: 'video/mp4', media_category: 'amplify_video' }, 536_870_912],
      ])('refuses total_bytes past the limit of %j (%i bytes) in the legacy shape, and takes exactly the limit', async (params, limit) => {
        expectRaw(await init({ total_bytes: String(limit + 1), ...params }), 400, legacyText(`File size exceeds ${limit} bytes.`));
        expect((await init({ total_bytes: String(limit), ...params })).status).toBe(202);
      });

      it('refuses a command it does not know, and commands sent with the wrong method', async () => {
        expectRaw(
          await post(fields({ command: 'UPLOAD' })),
          400,
          standardText(44, 'command parameter is invalid: "UPLOAD" is not one of INIT, APPEND, FINALIZE, STATUS'),
        );
        expectRaw(
          await post(fields({ command: 'STATUS', media_id: '1' })),
          400,
          standardText(44, 'command parameter is invalid: STATUS is sent with GET, not POST'),
        );
        expectRaw(
          await sendMediaRequest(url({ command: 'INIT', total_bytes: '1', media_type: 'image/png' }), {
            method: 'GET',
            authorization: own,
          }),
          400,
          standardText(44, 'command parameter is invalid: INIT is sent with POST, not GET'),
        );
      });
    });

    describe('errors of APPEND', () => {
      it.each([
        [{ segment_index: '0' }, 38, 'media_id parameter is missing.'],
        [{ media_id: 'abc', segment_index: '0' }, 324, 'Invalid media id abc'],
        [{ media_id: '1234567890123456789', segment_index: '0' }, 324, 'Invalid media id 1234567890123456789'],
      ])('refuses %j with %i', async (params, code, message) => {
        expectRaw(await post([...fields({ command: 'APPEND', ...params }), segment(Buffer.from('x'))]), 400, standardText(code, message));
      });

      it('refuses a media id that is a simple upload, not a chunked one', async () => {
        const simple = await post([segment(fixture('image.png'))]);
        expect(simple.status).toBe(200);
        const id = simple.body.media_id_string as string;
        expectRaw(await append(id, 0, Buffer.from('x')), 400, standardText(324, `Invalid media id ${id}`));
      });

      it('refuses bad segment indexes, missing or doubled media, and a segment sent twice', async () => {
        const mediaId = await opened({ total_bytes: '100', media_type: 'image/png' });
        expectRaw(
          await post([...fields({ command: 'APPEND', media_id: mediaId }), segment(Buffer.from('x'))]),
          400,
          standardText(38, 'segment_index parameter is missing.'),
        );
        for (const index of ['1000', '-1', 'a', '1.5']) {
          expectRaw(
            await append(mediaId, index, Buffer.from('x')),
            400,
            standardText(44, `segment_index parameter is invalid: ${JSON.stringify(index)} is not an integer from 0 to 999`),
          );
        }
        expectRaw(await append(mediaId, 0, undefined), 400, standardText(38, 'media parameter is missing.'));
        expectRaw(
          await post([
            ...fields({ command: 'APPEND', media_id: mediaId, segment_index: '0', media_data: 'eA==' }),
            segment(Buffer.from('x')),
          ]),
          400,
          standardText(44, 'media and media_data cannot be combined: send the file in media or its base64 in media_data, not both.'),
        );
        expectRaw(await append(mediaId, 0, Buffer.alloc(0)), 400, standardText(44, 'media parameter is invalid: the segment is empty'));
        expect((await append(mediaId, 999, Buffer.from('first'))).status).toBe(204);
        expectRaw(
          await append(mediaId, 999, Buffer.from('again')),
          400,
          standardText(44, `segment_index parameter is invalid: segment 999 of media id ${mediaId} was already received`),
        );
      });

      it('refuses a segment over 5,242,880 bytes and segments past total_bytes, in the legacy shape', async () => {
        const mediaId = await opened({ total_bytes: '15000000', media_type: 'image/gif', media_category: 'tweet_gif' });
        expectRaw(await append(mediaId, 0, Buffer.alloc(5_242_881, 1)), 400, legacyText('Segment size exceeds 5242880 bytes.'));
        expect((await append(mediaId, 0, Buffer.alloc(5_242_880, 1))).status).toBe(204);
        const small = await opened({ total_bytes: '10', media_type: 'image/png' });
        expect((await append(small, 0, Buffer.alloc(6))).status).toBe(204);
        expectRaw(
          await append(small, 1, Buffer.alloc(5)),
          400,
          legacyText('Segments add up to more than the provided total file size (10 bytes).'),
        );
      });

      it("refuses another user's session with the reference's ownership error", async () => {
        const mediaId = await opened({ total_bytes: '10', media_type: 'image/png' }, roaster);
        const message = `User id ${world.accounts.bluebottle} doesn't own media id ${mediaId}`;
        expectRaw(await append(mediaId, 0, Buffer.from('x')), 400, standardText(324, message));
        expectRaw(await finalize(mediaId), 400, standardText(324, message));
        expectRaw(await status(mediaId), 400, standardText(324, message));
      });

      it('refuses APPEND, FINALIZE and STATUS after the media id expired', async () => {
        // Signed with OAuth 1.0a: its access tokens outlive the day that passes here.
        const signed = () =>
          oauth1Authorization({
            consumer: { key: app.consumerKey, secret: app.consumerSecret },
            token: { key: userToken.token, secret: userToken.tokenSecret },
            url: url(),
            timestamp: unixSeconds(clock),
          });
        const mediaId = await opened({ total_bytes: '4420', media_type: 'image/png' }, signed());
        const expiredAt = new Date(clock.getTime() + 86_400_000);
        clock = new Date(expiredAt.getTime() + 1000);
        const message = `Media id ${mediaId} expired at ${expiredAt.toISOString()}`;
        expectRaw(await append(mediaId, 0, fixture('image.png'), signed()), 400, standardText(324, message));
        expectRaw(await finalize(mediaId, signed()), 400, standardText(324, message));
        const statusUrl = url({ command: 'STATUS', media_id: mediaId });
        const authorization = oauth1Authorization({
          consumer: { key: app.consumerKey, secret: app.consumerSecret },
          token: { key: userToken.token, secret: userToken.tokenSecret },
          method: 'GET',
          url: statusUrl,
          timestamp: unixSeconds(clock),
        });
        expectRaw(await sendMediaRequest(statusUrl, { method: 'GET', authorization }), 400, standardText(324, message));
      });

      it('refuses APPEND after FINALIZE', async () => {
        const { mediaId, reply } = await uploadInSegments(fixture('image.png'), { media_type: 'image/png' });
        expect(reply.status).toBe(200);
        expectRaw(
          await append(mediaId, 5, Buffer.from('x')),
          400,
          standardText(324, `Media id ${mediaId} is already finalized: it takes no more APPEND or FINALIZE commands`),
        );
      });
    });

    describe('errors of FINALIZE and STATUS', () => {
      it('refuses FINALIZE without segments, with a missing segment, or with segments that do not add up to total_bytes', async () => {
        const bytes = fixture('image.png');
        const empty = await opened({ total_bytes: String(bytes.length), media_type: 'image/png' });
        expectRaw(await finalize(empty), 400, legacyText(`No segments were uploaded for media id ${empty}: send command=APPEND first.`));

        const gap = await opened({ total_bytes: String(bytes.length), media_type: 'image/png' });
        await append(gap, 0, bytes.subarray(0, 1000));
        await append(gap, 2, bytes.subarray(2000));
        expectRaw(
          await finalize(gap),
          400,
          legacyText('Segment 1 is missing: segments are numbered from 0 without gaps (received up to 2).'),
        );
        // Sending the missing segment repairs it.
        await append(gap, 1, bytes.subarray(1000, 2000));
        expect((await finalize(gap)).status).toBe(200);

        const short = await opened({ total_bytes: String(bytes.length), media_type: 'image/png' });
        await append(short, 0, bytes.subarray(0, 1000));
        expectRaw(await finalize(short), 400, legacyText('Segments do not add up to provided total file size.'));
      });

      it('refuses FINALIZE twice', async () => {
        const { mediaId } = await uploadInSegments(fixture('image.png'), { media_type: 'image/png' });
        expectRaw(
          await finalize(mediaId),
          400,
          standardText(324, `Media id ${mediaId} is already finalized: it takes no more APPEND or FINALIZE commands`),
        );
      });

      it('refuses an image that is not one at FINALIZE, as the simple upload does', async () => {
        const text = Buffer.from('this is not an image at all, just text');
        expectRaw((await uploadInSegments(text, { media_type: 'image/png' })).reply, 400, MEDIA_UNRECOGNIZED_TEXT);
        const small = png(3, 3);
        expectRaw(
          (await uploadInSegments(small, { media_type: 'image/png' })).reply,
          400,
          standardText(324, 'Image dimensions must be >= 4x4 and <= 8192x8192'),
        );
      });

      it('refuses STATUS before FINALIZE, and of unknown or missing media ids', async () => {
        const mediaId = await opened({ total_bytes: '10', media_type: 'image/png' });
        expectRaw(await status(mediaId), 400, standardText(324, `Media id ${mediaId} is not finalized: send command=FINALIZE first`));
        expectRaw(await status('42'), 400, standardText(324, 'Invalid media id 42'));
        expectRaw(
          await sendMediaRequest(url({ command: 'STATUS' }), { method: 'GET', authorization: own }),
          400,
          standardText(38, 'media_id parameter is missing.'),
        );
      });
    });

    describe('the simple upload', () => {
      it('still refuses tweet_gif and tweet_video, pointing at the chunked upload', async () => {
        const reply = await post([segment(fixture('animated.gif')), ...fields({ media_category: 'tweet_gif' })]);
        expect(reply.status).toBe(400);
        expect(reply.body.errors[0].code).toBe(44);
      });
    });
  });
}
