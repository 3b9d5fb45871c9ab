import { sql } from 'kysely';
import { TwitterApi } from 'twitter-api-v2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOAuthCredentialStore, createSocialTokens } from '../../../subgraphs/index.ts';
import { fixture } from '../../support/image-fixtures.ts';
import {
  bearerAuthorization,
  mediaMultipartBody,
  mediaUploadUrl,
  sendMediaRequest,
  type MediaReply,
  type MediaRequest,
} from '../../support/media-client.ts';
import { containerAltText } from '../../support/media-containers.ts';
import { createSocialFixture, OWN_PERMISSIONS, type SocialFixture } from '../../support/social-fixture.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { redirectUploadHost, type UploadHostRedirect } from '../../support/upload-host-redirect.ts';
import { mp4Video } from '../../support/video-fixtures.ts';

/**
 * X's API v2 media endpoints (reference media-upload.md §10): twitter-api-v2 1.29.1 unmodified — `v2.uploadMedia`
 * (initialize, append as multipart, finalize, STATUS polled until processing succeeds) and `v2.createMediaMetadata` —
 * with OAuth 1.0a and with an OAuth 2.0 user bearer token, its host (api.x.com) redirected to the REST adapter by a local
 * TLS front (test/support/upload-host-redirect.ts); then every error case of §10 as a problem (application/problem+json),
 * exact, through the front door. Both versions are one media service: ids and sessions cross between them.
 */

// The system's clock starts at the real time (OAuth 1.0a signatures carry the client's timestamp) and moves on only in
// the last test.
const T0 = new Date();
let clock = T0;
const now = () => clock;

const PROBLEMS = 'https://api.twitter.com/2/problems/';
const UNAUTHORIZED = { title: 'Unauthorized', detail: 'Unauthorized', type: 'about:blank', status: 401 };

function invalid(message: string, parameter?: string, values: unknown[] = []): unknown {
  return {
    errors: [{ ...(parameter !== undefined ? { parameters: { [parameter]: values } } : {}), message }],
    title: 'Invalid Request',
    detail: 'One or more parameters to your request was invalid.',
    type: `${PROBLEMS}invalid-request`,
  };
}

function notFound(id: string, parameter: string, detail: string): unknown {
  return {
    errors: [
      {
        value: id,
        detail,
        title: 'Not Found Error',
        resource_type: 'media',
        parameter,
        resource_id: id,
        type: `${PROBLEMS}resource-not-found`,
      },
    ],
    title: 'Not Found Error',
    detail,
    type: `${PROBLEMS}resource-not-found`,
  };
}

function expectProblem(reply: MediaReply, status: number, body: unknown): void {
  expect({ status: reply.status, body: reply.body }, reply.text).toEqual({ status, body });
  expect(reply.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
}

describe('media v2 (embedded gateway)', () => {
  let system: TestSystem;
  let world: SocialFixture;
  let redirect: UploadHostRedirect;
  let clients: { name: string; client: TwitterApi }[];
  let appToken: string;

  beforeAll(async () => {
    system = await startTestSystem({}, { now });
    world = await createSocialFixture(system.database, { now });
    const credentials = createOAuthCredentialStore(system.database, now);
    const app = await credentials.createConsumer('twitter-api-v2 v2 tests');
    const token = await credentials.issueAccessToken(app.consumerKey, world.accounts.bluebottle);
    appToken = await credentials.issueAppToken(app.consumerKey);
    redirect = await redirectUploadHost(system.restUrl);
    const settings = { httpAgent: redirect.agent };
    clients = [
      {
        name: 'OAuth 1.0a',
        client: new TwitterApi(
          { appKey: app.consumerKey, appSecret: app.consumerSecret, accessToken: token.token, accessSecret: token.tokenSecret },
          settings,
        ),
      },
      { name: 'OAuth 2.0 bearer', client: new TwitterApi(world.tokens.own, settings) },
    ];
  }, 60_000);

  afterAll(async () => {
    await redirect?.close();
    await system?.close();
  });

  const v2Url = (path: string) => new URL(path, system.restUrl).toString();
  const send = (path: string, request: MediaRequest & { json?: unknown } = {}) =>
    sendMediaRequest(v2Url(path), {
      authorization: bearerAuthorization(world.tokens.own),
      ...(request.json !== undefined ? { body: JSON.stringify(request.json), contentType: 'application/json' } : {}),
      ...request,
    });

  async function stored(id: string) {
    const { rows } = await sql<{
      uploader_id: string;
      mime_type: string;
      width: number;
      height: number;
      size: number;
      processing_state: string | null;
    }>`
      select uploader_id::text as uploader_id, mime_type, width, height, size, processing_state
      from media.upload where id = cast(${id} as bigint)`.execute(system.database.db);
    expect(rows).toHaveLength(1);
    return rows[0]!;
  }

  /** A session opened with v2's initialize by bluebottle (or `token`'s owner). */
  async function initialize(body: Record<string, unknown>, token: string = world.tokens.own): Promise<string> {
    const reply = await send('/2/media/upload/initialize', { json: body, authorization: bearerAuthorization(token) });
    expect(reply.status, reply.text).toBe(200);
    return reply.body.data.id as string;
  }

  const appendPart = (id: string, segmentIndex: string, bytes: Uint8Array, token: string = world.tokens.own) => {
    const { body, contentType } = mediaMultipartBody([
      { name: 'segment_index', value: segmentIndex },
      { name: 'media', bytes, filename: null, contentType: 'application/octet-stream' },
    ]);
    return send(`/2/media/upload/${id}/append`, { body, contentType, authorization: bearerAuthorization(token) });
  };

  for (const index of [0, 1]) {
    const label = index === 0 ? 'OAuth 1.0a' : 'OAuth 2.0 bearer';

    it(`twitter-api-v2 uploads a PNG with v2.uploadMedia (${label})`, async () => {
      const png = fixture('image.png');
      const id = await clients[index]!.client.v2.uploadMedia(png, { media_type: 'image/png' });
      expect(id).toMatch(/^\d{19}$/);
      expect(await stored(id)).toEqual({
        uploader_id: world.accounts.bluebottle,
        mime_type: 'image/png',
        width: 50,
        height: 40,
        size: png.length,
        processing_state: null,
      });
      const status = await send(`/2/media/upload?command=STATUS&media_id=${id}`, { method: 'GET' });
      expect(status.status, status.text).toBe(200);
      expect(status.body).toEqual({
        data: { id, media_key: `3_${id}`, size: png.length, expires_after_secs: 86_400, image: { image_type: 'image/png', w: 50, h: 40 } },
      });
      expect(status.headers.get('x-rate-limit-remaining')).toMatch(/^\d+$/);
    });

    it(`twitter-api-v2 uploads an animated GIF in several segments and polls STATUS until it succeeds (${label})`, async () => {
      const gif = fixture('animated.gif');
      const id = await clients[index]!.client.v2.uploadMedia(gif, { media_type: 'image/gif' }, 700);
      expect(await stored(id)).toMatchObject({
        mime_type: 'image/gif',
        width: 40,
        height: 30,
        size: gif.length,
        processing_state: 'succeeded',
      });
      const status = await send(`/2/media/upload?media_id=${id}`, { method: 'GET' });
      expect(status.body).toEqual({
        data: {
          id,
          media_key: `16_${id}`,
          size: gif.length,
          expires_after_secs: 86_400,
          processing_info: { state: 'succeeded', progress_percent: 100 },
          image: { image_type: 'image/gif', w: 40, h: 30 },
        },
      });
    });

    it(`twitter-api-v2 uploads an MP4 as tweet_video and polls STATUS until it succeeds (${label})`, async () => {
      const video = mp4Video();
      const id = await clients[index]!.client.v2.uploadMedia(video, { media_type: 'video/mp4' }, 400);
      expect(await stored(id)).toMatchObject({
        mime_type: 'video/mp4',
        width: 64,
        height: 48,
        size: video.length,
        processing_state: 'succeeded',
      });
      const status = await send(`/2/media/upload?command=STATUS&media_id=${id}`, { method: 'GET' });
      expect(status.body).toEqual({
        data: {
          id,
          media_key: `7_${id}`,
          size: video.length,
          expires_after_secs: 86_400,
          processing_info: { state: 'succeeded', progress_percent: 100 },
          video: { video_type: 'video/mp4' },
        },
      });
    });

    it(`twitter-api-v2 sets alt text with v2.createMediaMetadata, shown on the container made from the media (${label})`, async () => {
      const client = clients[index]!.client;
      const id = await client.v2.uploadMedia(fixture('image.png'), { media_type: 'image/png' });
      const text = `A leaf, described through ${label}`;
      expect(await client.v2.createMediaMetadata(id, { alt_text: { text } })).toEqual({
        data: { id, associated_metadata: { alt_text: { text } } },
      });
      expect(await containerAltText(system.restUrl, id, world.tokens.own, world.accounts.bluebottle)).toBe(text);
    });
  }

  it('answers the one-shot upload (JSON with base64, and multipart) with v2 data', async () => {
    const png = fixture('image.png');
    const expected = (id: string) => ({
      data: { id, media_key: `3_${id}`, size: png.length, expires_after_secs: 86_400, image: { image_type: 'image/png', w: 50, h: 40 } },
    });
    const json = await send('/2/media/upload', {
      json: { media: png.toString('base64'), media_category: 'tweet_image', media_type: 'image/png' },
    });
    expect(json.status, json.text).toBe(200);
    expect(json.body).toEqual(expected(json.body.data.id));
    const { body, contentType } = mediaMultipartBody([
      { name: 'media_category', value: 'tweet_image' },
      { name: 'media', bytes: png, filename: null, contentType: 'application/octet-stream' },
    ]);
    const multipart = await send('/2/media/upload', { body, contentType });
    expect(multipart.status, multipart.text).toBe(200);
    expect(multipart.body).toEqual(expected(multipart.body.data.id));
    expect(await stored(multipart.body.data.id)).toMatchObject({ mime_type: 'image/png', size: png.length });
  });

  it('shares sessions and ids with v1.1: INIT on 1.1, APPEND on v2 (JSON with base64), FINALIZE on 1.1, alt text on v2', async () => {
    const png = fixture('image.png');
    const init = await sendMediaRequest(
      mediaUploadUrl(system.restUrl, { command: 'INIT', total_bytes: String(png.length), media_type: 'image/png' }),
      {
        authorization: bearerAuthorization(world.tokens.own),
      },
    );
    expect(init.status, init.text).toBe(202);
    const id = init.body.media_id_string as string;
    const append = await send(`/2/media/upload/${id}/append`, { json: { media: png.toString('base64'), segment_index: 0 } });
    expect(append.status, append.text).toBe(200);
    const { rows } = await sql<{ expires_at: Date }>`select expires_at from media.upload_session where id = cast(${id} as bigint)`.execute(
      system.database.db,
    );
    expect(append.body).toEqual({ data: { expires_at: Math.floor(rows[0]!.expires_at.getTime() / 1000) } });
    const finalize = await sendMediaRequest(mediaUploadUrl(system.restUrl, { command: 'FINALIZE', media_id: id }), {
      authorization: bearerAuthorization(world.tokens.own),
    });
    expect(finalize.status, finalize.text).toBe(200);
    const metadata = await send('/2/media/metadata', { json: { id, metadata: { alt_text: { text: 'from 1.1 to v2' } } } });
    expect(metadata.body).toEqual({ data: { id, associated_metadata: { alt_text: { text: 'from 1.1 to v2' } } } });
  });

  describe('problems (reference §10.2)', () => {
    it('answers missing, invalid, expired and revoked credentials with 401 Unauthorized, and app-only ones with 403', async () => {
      const body = { media_type: 'image/png', total_bytes: 10 };
      for (const authorization of [
        undefined,
        'Bearer not-a-token',
        bearerAuthorization(world.tokens.expired),
        bearerAuthorization(world.tokens.revoked),
      ]) {
        const reply = await send('/2/media/upload/initialize', { json: body, authorization });
        expectProblem(reply, 401, UNAUTHORIZED);
        expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="Tributary", OAuth realm="Tributary"');
      }
      expectProblem(await send('/2/media/upload/initialize', { json: body, authorization: bearerAuthorization(appToken) }), 403, {
        title: 'Unsupported Authentication',
        detail:
          'Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint.  Supported authentication types are [OAuth 1.0a User Context, OAuth 2.0 User Context].',
        type: `${PROBLEMS}unsupported-authentication`,
        status: 403,
      });
    });

    it('refuses initialize bodies the spec does not allow, and sessions the media rules refuse', async () => {
      const cases: [unknown, unknown][] = [
        [
          { media_type: 'image/png', total_bytes: 10, colour: 'red' },
          invalid(
            'The `colour` field is not allowed: this request takes `media_type`, `total_bytes`, `media_category`, `shared`, `additional_owners`.',
            'colour',
          ),
        ],
        [
          { media_type: 'image/png', total_bytes: '10' },
          invalid('The `total_bytes` field must be an integer from 0 to 17179869184.', 'total_bytes', ['10']),
        ],
        [
          { media_type: 'image/png', total_bytes: 10.5 },
          invalid('The `total_bytes` field must be an integer from 0 to 17179869184.', 'total_bytes', [10.5]),
        ],
        [{ media_type: 7, total_bytes: 10 }, invalid('The `media_type` field must be a string.', 'media_type', [7])],
        [{ media_type: 'image/png', total_bytes: 10, shared: 'yes' }, invalid('The `shared` field must be a boolean.', 'shared', ['yes'])],
        [
          { media_type: 'image/png', total_bytes: 10, additional_owners: ['12a'] },
          invalid('The `additional_owners` field must be an array of user ids (strings of 1 to 19 digits).', 'additional_owners', [
            ['12a'],
          ]),
        ],
        [{ total_bytes: 10 }, invalid('media_type parameter is missing.', 'media_type')],
        [{ media_type: 'image/png' }, invalid('total_bytes parameter is missing.', 'total_bytes')],
        [{ media_type: 'application/pdf', total_bytes: 10 }, invalid('media type unrecognized.')],
        [{ media_type: 'image/png', total_bytes: 6_000_000 }, invalid('File size exceeds 5242880 bytes.')],
        [[1, 2], invalid('The request body must be a JSON object.')],
      ];
      for (const [body, problem] of cases) expectProblem(await send('/2/media/upload/initialize', { json: body }), 400, problem);
      expectProblem(
        await send('/2/media/upload/initialize', { body: '{"media_type":', contentType: 'application/json' }),
        400,
        invalid('The request body is not valid JSON.'),
      );
    });

    it('refuses appends to ids that are not ids, unknown or expired, or not the caller’s; duplicate and out-of-range segments; other parts', async () => {
      const png = fixture('image.png');
      expectProblem(await appendPart('12ab', '0', png), 400, invalid('The `id` path parameter value [12ab] is not valid.', 'id', ['12ab']));
      expectProblem(await appendPart('42', '0', png), 404, notFound('42', 'id', 'Invalid media id 42'));
      const id = await initialize({ media_type: 'image/png', total_bytes: png.length });
      expectProblem(await appendPart(id, '0', png, world.tokens.roasterOwn), 403, {
        errors: [
          {
            detail: `User id ${world.accounts.roaster} doesn't own media id ${id}`,
            title: 'Authorization Error',
            resource_type: 'media',
            parameter: 'id',
            resource_id: id,
            section: 'data',
            type: `${PROBLEMS}not-authorized-for-resource`,
          },
        ],
        title: 'Authorization Error',
        detail: `User id ${world.accounts.roaster} doesn't own media id ${id}`,
        type: `${PROBLEMS}not-authorized-for-resource`,
      });
      expectProblem(
        await appendPart(id, '1000', png),
        400,
        invalid('segment_index parameter is invalid: "1000" is not an integer from 0 to 999', 'segment_index'),
      );
      expect((await appendPart(id, '0', png.subarray(0, 10))).status).toBe(200);
      expectProblem(
        await appendPart(id, '0', png.subarray(10)),
        400,
        invalid(`segment_index parameter is invalid: segment 0 of media id ${id} was already received`, 'segment_index'),
      );
      const { body, contentType } = mediaMultipartBody([
        { name: 'segment_index', value: '1' },
        { name: 'colour', value: 'red' },
      ]);
      expectProblem(
        await send(`/2/media/upload/${id}/append`, { body, contentType }),
        400,
        invalid('The `colour` part is not allowed: append takes `segment_index` and `media`.', 'colour'),
      );
      expectProblem(
        await send(`/2/media/upload/${id}/append`, { json: { segment_index: 1 } }),
        400,
        invalid('media parameter is missing.'),
      );
      expectProblem(
        await send(`/2/media/upload/${id}/append`, { json: { media: 'AAAA', segment_index: 1, extra: true } }),
        400,
        invalid('The `extra` field is not allowed: this request takes `media`, `segment_index`.', 'extra'),
      );
    });

    it('refuses finalizing segments that do not add up, or a session twice', async () => {
      const png = fixture('image.png');
      const short = await initialize({ media_type: 'image/png', total_bytes: png.length });
      expect((await appendPart(short, '0', png.subarray(0, 20))).status).toBe(200);
      expectProblem(
        await send(`/2/media/upload/${short}/finalize`, { json: {} }),
        400,
        invalid('Segments do not add up to provided total file size.'),
      );
      const whole = await initialize({ media_type: 'image/png', total_bytes: png.length });
      expect((await appendPart(whole, '0', png)).status).toBe(200);
      const first = await send(`/2/media/upload/${whole}/finalize`, { json: {} });
      expect(first.status, first.text).toBe(200);
      expectProblem(
        await send(`/2/media/upload/${whole}/finalize`, { json: {} }),
        400,
        invalid(`Media id ${whole} is already finalized: it takes no more append or finalize requests`),
      );
      expectProblem(
        await send('/2/media/upload/99x/finalize', { json: {} }),
        400,
        invalid('The `id` path parameter value [99x] is not valid.', 'id', ['99x']),
      );
    });

    it('refuses STATUS without a media id, with one that is not, with another command, and for an unknown id', async () => {
      const status = (query: string) => send(`/2/media/upload${query}`, { method: 'GET' });
      expectProblem(await status(''), 400, invalid('The `media_id` query parameter can not be empty.', 'media_id', ['']));
      expectProblem(
        await status('?media_id=abc'),
        400,
        invalid('The `media_id` query parameter value [abc] is not valid.', 'media_id', ['abc']),
      );
      expectProblem(
        await status('?command=INIT&media_id=1'),
        400,
        invalid('The `command` query parameter value must be STATUS.', 'command', ['INIT']),
      );
      expectProblem(await status('?command=STATUS&media_id=77'), 404, notFound('77', 'media_id', 'Invalid media id 77'));
    });

    it('refuses metadata without an id, for an unknown or foreign id, without alt text, too long, or with metadata not kept here', async () => {
      const id = await clients[1]!.client.v2.uploadMedia(fixture('image.png'), { media_type: 'image/png' });
      const metadata = (body: unknown, token: string = world.tokens.own) =>
        send('/2/media/metadata', { json: body, authorization: bearerAuthorization(token) });
      expectProblem(await metadata({ metadata: { alt_text: { text: 'x' } } }), 400, invalid('The `id` field is required.', 'id'));
      expectProblem(
        await metadata({ id: 12, metadata: { alt_text: { text: 'x' } } }),
        400,
        invalid('The `id` field must be a media id (a string of 1 to 19 digits).', 'id', [12]),
      );
      expectProblem(await metadata({ id: '42', metadata: { alt_text: { text: 'x' } } }), 404, notFound('42', 'id', 'Invalid media id 42'));
      expect((await metadata({ id, metadata: { alt_text: { text: 'x' } } }, world.tokens.roasterOwn)).status).toBe(403);
      expectProblem(await metadata({ id }), 400, invalid('The `metadata` field is required: {"alt_text":{"text":"…"}}.', 'metadata'));
      expectProblem(await metadata({ id, metadata: {} }), 400, invalid('metadata.alt_text is required.', 'metadata.alt_text'));
      expectProblem(
        await metadata({ id, metadata: { alt_text: 'flat' } }),
        400,
        invalid('metadata.alt_text.text is required (a string).', 'metadata.alt_text.text'),
      );
      expectProblem(
        await metadata({ id, metadata: { alt_text: { text: 'x'.repeat(1001) } } }),
        400,
        invalid('alt_text parameter is invalid: the text is 1001 characters long; at most 1000 are allowed', 'alt_text'),
      );
      expectProblem(
        await metadata({ id, metadata: { alt_text: { text: 'x' }, sensitive_media_warning: { adult_content: true } } }),
        400,
        invalid('metadata.sensitive_media_warning is not kept by this server: only alt_text is.', 'metadata.sensitive_media_warning'),
      );
      expectProblem(
        await metadata({ id, metadata: { alt_text: { text: 'x' } }, extra: 1 }),
        400,
        invalid('The `extra` field is not allowed: this request takes `id`, `metadata`.', 'extra'),
      );
    });

    it('refuses a one-shot upload without a category, in the command form, or of bytes that are no image', async () => {
      const png = fixture('image.png').toString('base64');
      expectProblem(
        await send('/2/media/upload', { json: { media: png } }),
        400,
        invalid('The `media_category` field is required.', 'media_category'),
      );
      expectProblem(
        await send('/2/media/upload', { json: { media: png, media_category: 'tweet_image', media_type: 'image/heic' } }),
        400,
        invalid(
          'The `media_type` field must be one of image/jpeg, image/bmp, image/png, image/webp, image/pjpeg, image/tiff, text/srt, text/vtt.',
          'media_type',
          ['image/heic'],
        ),
      );
      const { body, contentType } = mediaMultipartBody([{ name: 'command', value: 'INIT' }]);
      expectProblem(
        await send('/2/media/upload', { body, contentType }),
        400,
        invalid(
          'The command form of /2/media/upload is not served: use POST /2/media/upload/initialize, /2/media/upload/{id}/append and /2/media/upload/{id}/finalize.',
          'command',
          ['INIT'],
        ),
      );
      expectProblem(
        await send('/2/media/upload', {
          json: { media: Buffer.from('not an image at all').toString('base64'), media_category: 'tweet_image' },
        }),
        400,
        invalid('media type unrecognized.'),
      );
    });

    it("words the rules as v2's paths name them, not v1.1's commands and parameters", async () => {
      const png = fixture('image.png');
      expectProblem(
        await send('/2/media/upload', { json: { media: 'not base64!', media_category: 'tweet_image' } }),
        400,
        invalid('media parameter is invalid: it is not base64', 'media'),
      );
      expectProblem(
        await send('/2/media/upload', { json: { media: png.toString('base64'), media_category: 'tweet_video' } }),
        400,
        invalid(
          'media_category parameter is invalid: tweet_video is for videos and animated GIFs, which need the chunked upload (POST /2/media/upload/initialize, then {id}/append and {id}/finalize); this endpoint takes images only',
          'media_category',
        ),
      );
      const open = await initialize({ media_type: 'image/png', total_bytes: png.length });
      expectProblem(
        await send(`/2/media/upload?command=STATUS&media_id=${open}`, { method: 'GET' }),
        400,
        invalid(`Media id ${open} is not finalized: send POST /2/media/upload/{id}/finalize first`),
      );
    });

    it('answers paths and methods v2 does not have with its own problems', async () => {
      expectProblem(await send('/2/media/upload/initialize', { method: 'GET' }), 405, {
        title: 'Method Not Allowed',
        detail: 'Method Not Allowed',
        type: 'about:blank',
        status: 405,
      });
      expectProblem(await send('/2/media/elsewhere', { method: 'GET' }), 404, {
        title: 'Not Found',
        detail: 'Not Found',
        type: 'about:blank',
        status: 404,
      });
    });

    it('answers an append or finalize whose path id does not decode (%zz) with invalid-request (found by fuzzing)', async () => {
      // Express fails to decode the path parameter before any route runs: the error must not reach Area A's handler.
      for (const step of ['append', 'finalize']) {
        const reply = await send(`/2/media/upload/%zz/${step}`, { json: {} });
        expectProblem(reply, 400, invalid('The `id` path parameter value [%zz] is not valid.', 'id', ['%zz']));
      }
      expectProblem(
        await send('/2/media/upload/%zz/append', { method: 'GET' }),
        400,
        invalid('The `id` path parameter value [%zz] is not valid.', 'id', ['%zz']),
      );
    });

    // Last: the clock moves a day on.
    it('answers an expired session with 404 resource-not-found', async () => {
      const id = await initialize({ media_type: 'image/png', total_bytes: 100 });
      const expiredAt = new Date(clock.getTime() + 86_400_000);
      clock = new Date(clock.getTime() + 86_401_000);
      const token = await createSocialTokens(system.database, now).issue({
        loginType: 'own',
        subjectId: world.accounts.bluebottle,
        permissions: [...OWN_PERMISSIONS],
        expiresInSeconds: 3600,
      });
      expectProblem(
        await appendPart(id, '0', fixture('image.png'), token),
        404,
        notFound(id, 'id', `Media id ${id} expired at ${expiredAt.toISOString()}`),
      );
    });
  });
});

describe('media v2 under the upload rate limit (2 per window, shared with 1.1)', () => {
  let system: TestSystem;
  let world: SocialFixture;

  beforeAll(async () => {
    system = await startTestSystem({ MEDIA_RATE_UPLOADS_PER_WINDOW: '2' });
    world = await createSocialFixture(system.database);
  }, 60_000);

  afterAll(async () => {
    await system?.close();
  });

  it('counts v1.1 and v2 requests in one window and answers the third with 429 Too Many Requests and the limit headers', async () => {
    const authorization = bearerAuthorization(world.tokens.own);
    const init = await sendMediaRequest(mediaUploadUrl(system.restUrl, { command: 'INIT', total_bytes: '100', media_type: 'image/png' }), {
      authorization,
    });
    expect(init.status, init.text).toBe(202);
    const initialize = () =>
      sendMediaRequest(new URL('/2/media/upload/initialize', system.restUrl).toString(), {
        authorization,
        body: '{"media_type":"image/png","total_bytes":100}',
        contentType: 'application/json',
      });
    const second = await initialize();
    expect(second.status, second.text).toBe(200);
    expect(second.headers.get('x-rate-limit-remaining')).toBe('0');
    const third = await initialize();
    expectProblem(third, 429, { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 });
    expect([third.headers.get('x-rate-limit-limit'), third.headers.get('x-rate-limit-remaining')]).toEqual(['2', '0']);
    expect(third.headers.get('x-rate-limit-reset')).toBe(second.headers.get('x-rate-limit-reset'));
  });
});
