import { sql } from 'kysely';
import { TwitterApi } from 'twitter-api-v2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOAuthCredentialStore } from '../../../subgraphs/index.ts';
import { fixture } from '../../support/image-fixtures.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { redirectUploadHost, type UploadHostRedirect } from '../../support/upload-host-redirect.ts';
import { mp4Video } from '../../support/video-fixtures.ts';

/**
 * The most used Node client of the reference, twitter-api-v2 (1.29.1), unmodified: its `v1.uploadMedia` speaks only the
 * chunked protocol (INIT, APPEND in parallel, FINALIZE, then STATUS until processing succeeds). Only its host is
 * redirected — it always calls https://upload.x.com/1.1/media/upload.json, served here by a local TLS front for that name
 * (test/support/upload-host-redirect.ts, the client's own `httpAgent` setting). Signed with OAuth 1.0a (consumer keys and
 * an access token) and with an OAuth 2.0 bearer user token, against both gateway topologies.
 */

for (const mode of ['embedded', 'distributed'] as const) {
  describe(`twitter-api-v2 v1.uploadMedia against the chunked upload (${mode} gateway)`, () => {
    let system: TestSystem;
    let world: SocialFixture;
    let redirect: UploadHostRedirect;
    let clients: { name: string; client: TwitterApi }[];

    beforeAll(async () => {
      system = mode === 'embedded' ? await startTestSystem() : await startDistributedTestSystem();
      world = await createSocialFixture(system.database);
      const credentials = createOAuthCredentialStore(system.database);
      const app = await credentials.createConsumer('twitter-api-v2 tests');
      const token = await credentials.issueAccessToken(app.consumerKey, world.accounts.bluebottle);
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

    for (const index of [0, 1]) {
      const label = index === 0 ? 'OAuth 1.0a' : 'OAuth 2.0 bearer';

      it(`uploads a PNG (${label})`, async () => {
        const png = fixture('image.png');
        const media = await clients[index]!.client.v1.uploadMedia(png, { mimeType: 'image/png' }, true);
        expect(media.media_id_string).toMatch(/^\d{19}$/);
        expect(media).toEqual({
          media_id: expect.any(Number),
          media_id_string: media.media_id_string,
          media_key: `3_${media.media_id_string}`,
          size: png.length,
          expires_after_secs: 86_400,
          image: { image_type: 'image/png', w: 50, h: 40 },
        });
        expect(await stored(media.media_id_string)).toEqual({
          uploader_id: world.accounts.bluebottle,
          mime_type: 'image/png',
          width: 50,
          height: 40,
          size: png.length,
          processing_state: null,
        });
      });

      it(`uploads an animated GIF as tweet_gif in several segments (${label})`, async () => {
        const gif = fixture('animated.gif');
        const client = clients[index]!.client;
        // The client returns FINALIZE's reply, after polling STATUS until processing succeeded.
        const finalized = await client.v1.uploadMedia(gif, { mimeType: 'image/gif', target: 'tweet', chunkLength: 700 }, true);
        const mediaId = finalized.media_id_string;
        expect(finalized).toEqual({
          media_id: expect.any(Number),
          media_id_string: mediaId,
          media_key: `16_${mediaId}`,
          size: gif.length,
          expires_after_secs: 86_400,
          processing_info: { state: 'pending', check_after_secs: 1 },
        });
        expect(await stored(mediaId)).toMatchObject({
          mime_type: 'image/gif',
          width: 40,
          height: 30,
          size: gif.length,
          processing_state: 'succeeded',
        });
        expect(await client.v1.mediaInfo(mediaId)).toEqual({
          media_id: expect.any(Number),
          media_id_string: mediaId,
          media_key: `16_${mediaId}`,
          size: gif.length,
          expires_after_secs: expect.any(Number),
          image: { image_type: 'image/gif', w: 40, h: 30 },
          processing_info: { state: 'succeeded', progress_percent: 100 },
        });
      });

      it(`uploads a small MP4 as tweet_video, polling STATUS until it succeeds (${label})`, async () => {
        const video = mp4Video();
        const client = clients[index]!.client;
        const mediaId = await client.v1.uploadMedia(video, { mimeType: 'video/mp4', target: 'tweet', chunkLength: 400 });
        expect(await stored(mediaId)).toMatchObject({
          mime_type: 'video/mp4',
          width: 64,
          height: 48,
          size: video.length,
          processing_state: 'succeeded',
        });
        const status = await client.v1.mediaInfo(mediaId);
        expect(status).toEqual({
          media_id: expect.any(Number),
          media_id_string: mediaId,
          media_key: `7_${mediaId}`,
          size: video.length,
          expires_after_secs: expect.any(Number),
          video: { video_type: 'video/mp4' },
          processing_info: { state: 'succeeded', progress_percent: 100 },
        });
        expect(status.expires_after_secs).toBeGreaterThan(86_300);
      });
    }

    it('reports a video that is not one through processing_info, and the client throws its error', async () => {
      const notVideo = fixture('image.png');
      await expect(clients[0]!.client.v1.uploadMedia(notVideo, { mimeType: 'video/mp4', target: 'tweet' })).rejects.toThrow(
        /^Failed to process media: InvalidMedia - Invalid or Unsupported media, Reason: CorruptMedia\. Not a readable MP4 container/,
      );
    });
  });
}
