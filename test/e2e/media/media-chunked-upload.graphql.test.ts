import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HANG_MS } from '../../support/hang-bounds.ts';
import { fixture } from '../../support/image-fixtures.ts';
import { createGraphqlClient, type GraphqlClient } from '../../support/graphql-client.ts';
import { postMultipart } from '../../support/graphql-upload-client.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { mp4Video } from '../../support/video-fixtures.ts';

/**
 * The chunked upload through GraphQL: initMediaUpload, appendMediaUpload (a GraphQL multipart request with the Upload
 * scalar, or base64 mediaData), finalizeMediaUpload and the mediaUploadStatus query, on both gateway topologies (in the
 * distributed one the gateway relays the file to the media subgraph as a multipart request of its own); errors carry
 * the reference's code in extensions.twitterCode.
 */

const SESSION =
  'mediaId mediaIdString mediaKey size expiresAfterSecs image { imageType w h } video { videoType } processingInfo { state checkAfterSecs progressPercent error { code name message } } rateLimit { limit remaining }';
const INIT = `mutation ($totalBytes: String!, $mediaType: String!, $mediaCategory: String) {
  initMediaUpload(totalBytes: $totalBytes, mediaType: $mediaType, mediaCategory: $mediaCategory) { ${SESSION} }
}`;
const APPEND = `mutation ($mediaId: String!, $segmentIndex: String!, $media: Upload, $mediaData: String) {
  appendMediaUpload(mediaId: $mediaId, segmentIndex: $segmentIndex, media: $media, mediaData: $mediaData) { mediaIdString segmentIndex size }
}`;
const FINALIZE = `mutation ($mediaId: String!) { finalizeMediaUpload(mediaId: $mediaId) { ${SESSION} } }`;
const STATUS = `query ($mediaId: String!) { mediaUploadStatus(mediaId: $mediaId) { ${SESSION} } }`;

for (const mode of ['embedded', 'distributed'] as const) {
  describe(`chunked upload through GraphQL (${mode} gateway)`, () => {
    let system: TestSystem;
    let world: SocialFixture;
    let gql: GraphqlClient;

    beforeAll(async () => {
      system = mode === 'embedded' ? await startTestSystem() : await startDistributedTestSystem();
      world = await createSocialFixture(system.database);
      gql = createGraphqlClient(system.gatewayUrl);
    }, 60_000);

    afterAll(async () => {
      await system?.close();
    });

    const appendFile = (mediaId: string, segmentIndex: number, bytes: Buffer) =>
      postMultipart(
        system.gatewayUrl,
        { query: APPEND, variables: { mediaId, segmentIndex: String(segmentIndex) } },
        { files: { media: { bytes } }, authorization: `Bearer ${world.tokens.own}` },
      );

    it('uploads a video in segments, then reports its processing until it has succeeded', async () => {
      const video = mp4Video();
      const init = await gql.request(INIT, {
        token: world.tokens.own,
        variables: { totalBytes: String(video.length), mediaType: 'video/mp4', mediaCategory: 'tweet_video' },
      });
      expect(init.errors).toBeUndefined();
      const session = init.data.initMediaUpload;
      expect(session).toMatchObject({
        mediaKey: `7_${session.mediaId}`,
        size: null,
        expiresAfterSecs: 86_400,
        image: null,
        video: null,
        processingInfo: null,
      });
      expect(session.mediaIdString).toBe(session.mediaId);

      const first = await appendFile(session.mediaId, 0, video.subarray(0, 600));
      expect(first.errors).toBeUndefined();
      expect(first.data.appendMediaUpload).toEqual({ mediaIdString: session.mediaId, segmentIndex: 0, size: 600 });
      const second = await gql.request(APPEND, {
        token: world.tokens.own,
        variables: { mediaId: session.mediaId, segmentIndex: '1', mediaData: video.subarray(600).toString('base64') },
      });
      expect(second.data.appendMediaUpload).toEqual({ mediaIdString: session.mediaId, segmentIndex: 1, size: video.length - 600 });

      const finalized = await gql.request(FINALIZE, { token: world.tokens.own, variables: { mediaId: session.mediaId } });
      expect(finalized.data.finalizeMediaUpload).toMatchObject({
        size: video.length,
        video: { videoType: 'video/mp4' },
        processingInfo: { state: 'PENDING', checkAfterSecs: 1, progressPercent: null, error: null },
      });
      await vi.waitFor(
        async () => {
          const status = await gql.request(STATUS, { token: world.tokens.own, variables: { mediaId: session.mediaId } });
          expect(status.data.mediaUploadStatus.processingInfo).toEqual({
            state: 'SUCCEEDED',
            checkAfterSecs: null,
            progressPercent: 100,
            error: null,
          });
        },
        { timeout: HANG_MS, interval: 100 },
      );
    });

    it('finalizes an image at once, with no processingInfo', async () => {
      const image = fixture('image.png');
      const init = await gql.request(INIT, {
        token: world.tokens.own,
        variables: { totalBytes: String(image.length), mediaType: 'image/png' },
      });
      const mediaId = init.data.initMediaUpload.mediaId as string;
      expect((await appendFile(mediaId, 0, image)).errors).toBeUndefined();
      const finalized = await gql.request(FINALIZE, { token: world.tokens.own, variables: { mediaId } });
      expect(finalized.data.finalizeMediaUpload).toMatchObject({
        mediaKey: null,
        size: image.length,
        image: { imageType: 'image/png', w: 50, h: 40 },
        video: null,
        processingInfo: null,
      });
    });

    it('answers errors with the reference code in extensions', async () => {
      const reply = await gql.request(INIT, {
        token: world.tokens.own,
        variables: { totalBytes: '15728641', mediaType: 'image/gif', mediaCategory: 'tweet_gif' },
      });
      expect(reply.data).toBeNull();
      expect(reply.errors![0]).toMatchObject({
        message: 'File size exceeds 15728640 bytes.',
        extensions: { code: 'BAD_USER_INPUT', reason: 'FILE_TOO_LARGE', maxBytes: 15_728_640 },
      });
      const status = await gql.request(STATUS, { token: world.tokens.own, variables: { mediaId: '42' } });
      expect(status.errors![0]).toMatchObject({
        message: 'Invalid media id 42',
        extensions: { reason: 'MEDIA_ID_INVALID', twitterCode: 324 },
      });
      const anonymous = await gql.request(STATUS, { variables: { mediaId: '42' } });
      expect(anonymous.errors![0]).toMatchObject({
        message: 'Bad Authentication data.',
        extensions: { code: 'UNAUTHENTICATED', twitterCode: 215 },
      });
    });
  });
}
