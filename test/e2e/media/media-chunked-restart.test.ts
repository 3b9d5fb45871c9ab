import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../../lib/database/throwaway-database.ts';
import { HANG_MS, LONG_TEST_MS } from '../../support/hang-bounds.ts';
import { fixture } from '../../support/image-fixtures.ts';
import {
  bearerAuthorization,
  mediaFormData,
  mediaUploadUrl,
  sendMediaRequest,
  type MediaPart,
  type MediaReply,
} from '../../support/media-client.ts';
import { createSocialFixture } from '../../support/social-fixture.ts';
import { createTestBlobStore, type TestBlobStore } from '../../support/test-blob-store.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { mp4Video } from '../../support/video-fixtures.ts';

/**
 * A chunked upload outlives the process that received its first segments: segments are in the blob store and the
 * database, never only in memory. The system is stopped and started again on the same data (PGlite under DATA_DIR, or
 * one PostgreSQL database kept across both runs, and one blob store: a directory, or a key prefix in the run's S3
 * bucket) between APPENDs, and between FINALIZE and the end of processing.
 */

const describeReply = (reply: MediaReply) => `HTTP ${reply.status}: ${reply.text.slice(0, 300)}`;

describe('a chunked upload across a restart', () => {
  let dataDir: string;
  let blobs: TestBlobStore | undefined;
  let throwaway: ThrowawayDatabase | undefined;
  let env: Record<string, string>;
  let authorization: string;
  let system: TestSystem | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tributary-chunked-'));
    if (process.env.TEST_DATABASE === 'postgres') throwaway = await createThrowawayDatabase(process.env.DATABASE_URL!, 'tributary_restart');
    blobs = await createTestBlobStore();
    // The sweeper runs every second, so work it takes up shows within the test.
    env = { DATA_DIR: dataDir, ...blobs.env, MEDIA_SWEEP_INTERVAL_SECS: '1', ...(throwaway ? { DATABASE_URL: throwaway.url } : {}) };
    system = await startTestSystem(env);
    const world = await createSocialFixture(system.database);
    authorization = bearerAuthorization(world.tokens.own);
  }, 60_000);

  afterAll(async () => {
    await system?.close();
    await throwaway?.drop();
    await blobs?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  async function restart(): Promise<TestSystem> {
    await system!.close();
    system = undefined;
    system = await startTestSystem(env);
    return system;
  }

  const post = (parts: readonly MediaPart[]) =>
    sendMediaRequest(mediaUploadUrl(system!.restUrl), { authorization, body: mediaFormData(parts) });
  const fields = (params: Record<string, string>): MediaPart[] => Object.entries(params).map(([name, value]) => ({ name, value }));
  const append = (mediaId: string, index: number, bytes: Uint8Array) =>
    post([...fields({ command: 'APPEND', media_id: mediaId, segment_index: String(index) }), { name: 'media', bytes, filename: 'blob' }]);
  const status = (mediaId: string) =>
    sendMediaRequest(mediaUploadUrl(system!.restUrl, { command: 'STATUS', media_id: mediaId }), { method: 'GET', authorization });

  it('finishes an upload whose APPENDs were interrupted by a restart', async () => {
    const video = mp4Video({ frames: 5 });
    const initReply = await post(
      fields({ command: 'INIT', total_bytes: String(video.length), media_type: 'video/mp4', media_category: 'tweet_video' }),
    );
    expect(initReply.status, describeReply(initReply)).toBe(202);
    const mediaId = initReply.body.media_id_string as string;
    const cut = 500;
    expect((await append(mediaId, 0, video.subarray(0, cut))).status).toBe(204);

    await restart();

    // The segment from before the restart is still there: a second copy of index 0 is refused.
    expect((await append(mediaId, 0, video.subarray(0, cut))).body).toEqual({
      errors: [{ code: 44, message: `segment_index parameter is invalid: segment 0 of media id ${mediaId} was already received` }],
    });
    expect((await append(mediaId, 1, video.subarray(cut))).status).toBe(204);
    const finalized = await post(fields({ command: 'FINALIZE', media_id: mediaId }));
    expect(finalized.status, describeReply(finalized)).toBe(200);
    expect(finalized.body).toMatchObject({
      media_id_string: mediaId,
      size: video.length,
      processing_info: { state: 'pending', check_after_secs: 1 },
    });
    await vi.waitFor(
      async () => {
        const reply = await status(mediaId);
        expect(reply.body.processing_info, describeReply(reply)).toEqual({ state: 'succeeded', progress_percent: 100 });
      },
      { timeout: HANG_MS, interval: 100 },
    );
  });

  it(
    'takes up processing that a stopped process left pending, without waiting for a STATUS',
    async () => {
      const video = mp4Video();
      const initReply = await post(
        fields({ command: 'INIT', total_bytes: String(video.length), media_type: 'video/mp4', media_category: 'amplify_video' }),
      );
      const mediaId = initReply.body.media_id_string as string;
      expect((await append(mediaId, 0, video)).status).toBe(204);
      expect((await post(fields({ command: 'FINALIZE', media_id: mediaId }))).status).toBe(200);
      await vi.waitFor(async () => expect((await status(mediaId)).body.processing_info.state).toBe('succeeded'), {
        timeout: HANG_MS,
        interval: 50,
      });
      // What a process that stopped right after FINALIZE leaves behind: pending, never started.
      await sql`update media.upload set processing_state = 'pending', processing_progress = 0, processing_lease_until = null
      where id = cast(${mediaId} as bigint)`.execute(system!.database.db);

      const restarted = await restart();

      await vi.waitFor(
        async () => {
          const { rows } = await sql<{
            processing_state: string;
          }>`select processing_state from media.upload where id = cast(${mediaId} as bigint)`.execute(restarted.database.db);
          expect(rows[0]!.processing_state).toBe('succeeded');
        },
        { timeout: HANG_MS, interval: 100 },
      );
    },
    LONG_TEST_MS,
  );

  it(
    'takes up processing that a stopped process left in progress past its lease, and STATUS reports it',
    async () => {
      const gif = fixture('animated.gif');
      const initReply = await post(
        fields({ command: 'INIT', total_bytes: String(gif.length), media_type: 'image/gif', media_category: 'tweet_gif' }),
      );
      const mediaId = initReply.body.media_id_string as string;
      expect((await append(mediaId, 0, gif)).status).toBe(204);
      expect((await post(fields({ command: 'FINALIZE', media_id: mediaId }))).status).toBe(200);
      await vi.waitFor(async () => expect((await status(mediaId)).body.processing_info.state).toBe('succeeded'), {
        timeout: HANG_MS,
        interval: 50,
      });
      // What a process that stopped mid-inspection leaves behind: in progress, its lease run out.
      await sql`update media.upload set processing_state = 'in_progress', processing_progress = 10,
      processing_lease_until = now() - interval '1 second', width = 0, height = 0
      where id = cast(${mediaId} as bigint)`.execute(system!.database.db);

      await restart();

      const first = await status(mediaId);
      expect(first.status, describeReply(first)).toBe(200);
      expect(['in_progress', 'succeeded']).toContain(first.body.processing_info.state);
      await vi.waitFor(
        async () => {
          const reply = await status(mediaId);
          expect(reply.body).toMatchObject({
            image: { image_type: 'image/gif', w: 40, h: 30 },
            processing_info: { state: 'succeeded', progress_percent: 100 },
          });
        },
        { timeout: HANG_MS, interval: 100 },
      );
    },
    LONG_TEST_MS,
  );
});
