import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  lastEventPosition,
  readChangesAfter,
  readEventsAfter,
  type EventLogTables,
} from '../../../subgraphs/shared/event-log/event-log.repository.ts';
import type { SocialTables } from '../../../subgraphs/shared/social-graph/social-tables.ts';
import { eventually } from '../../support/eventually.ts';
import { fixture } from '../../support/image-fixtures.ts';
import { bearerAuthorization, mediaFormData, mediaUploadUrl, sendMediaRequest, type MediaPart } from '../../support/media-client.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { mp4Video } from '../../support/video-fixtures.ts';

/**
 * Area D's writes in the change log (issue 39, item 1): every change of an upload — uploaded whole, a chunked upload
 * begun, each segment, FINALIZE, its processing begun and ended, its alt text, its expiry swept — is logged in the write's
 * own transaction with the key `MediaUploadSession:<media id>`; a refused write logs nothing; the social graph's readers
 * of the log never see these changes. Through the REST doors (/1.1/media/upload.json, /1.1/media/metadata/create.json),
 * the services' clock the test's, the sweeper every second.
 */

const T0 = new Date('2026-11-20T12:00:00Z');
let clock = T0;
const now = () => clock;
const EXPIRES_AFTER_SECS = 60;

describe('Area D: every write in the change log', () => {
  let system: TestSystem;
  let world: SocialFixture;
  let position: string;
  const log = () => system.database.db.withTables<EventLogTables>();
  const own = () => bearerAuthorization(world.tokens.own);

  beforeAll(async () => {
    system = await startTestSystem({ MEDIA_SWEEP_INTERVAL_SECS: '1', MEDIA_EXPIRES_AFTER_SECS: String(EXPIRES_AFTER_SECS) }, { now });
    world = await createSocialFixture(system.database, { now });
  });
  afterAll(async () => {
    await system?.close();
  });
  beforeEach(async () => {
    position = await lastEventPosition(system.database.db.withTables<SocialTables>());
  });

  /** The changes of one upload logged since the test began (or the last call), by kind. */
  async function changesOf(mediaId: string): Promise<string[]> {
    const changes = await readChangesAfter(log(), position, 100);
    if (changes.length > 0) position = changes.at(-1)!.position;
    for (const change of changes) expect(change.keys).toEqual([`MediaUploadSession:${mediaId}`]);
    return changes.map((change) => change.kind);
  }

  const post = (parts: readonly MediaPart[]) =>
    sendMediaRequest(mediaUploadUrl(system.restUrl), { authorization: own(), body: mediaFormData(parts) });
  const fields = (params: Record<string, string>): MediaPart[] => Object.entries(params).map(([name, value]) => ({ name, value }));

  async function uploadedImage(): Promise<string> {
    const reply = await post([{ name: 'media', bytes: fixture('image.png'), filename: 'image.png' }]);
    expect(reply.status, reply.text).toBe(200);
    return reply.body.media_id_string as string;
  }

  it('logs an image uploaded and its alt text set; nothing for a refused upload', async () => {
    const refused = await post([{ name: 'media', bytes: Buffer.from('not an image'), filename: 'x.png' }]);
    expect(refused.status).toBe(400);
    const mediaId = await uploadedImage();
    const metadata = await sendMediaRequest(new URL('/1.1/media/metadata/create.json', system.restUrl).toString(), {
      authorization: own(),
      body: JSON.stringify({ media_id: mediaId, alt_text: { text: 'A flat white' } }),
      contentType: 'application/json',
    });
    expect(metadata.status, metadata.text).toBe(200);
    expect(await changesOf(mediaId)).toEqual(['media_uploaded', 'media_metadata_set']);
  });

  it('logs an upload retained when a publishing container takes it', async () => {
    const mediaId = await uploadedImage();
    const container = await fetch(new URL(`/v21.0/${world.accounts.bluebottle}/media`, system.restUrl), {
      method: 'POST',
      headers: { authorization: own(), 'content-type': 'application/json' },
      body: JSON.stringify({ upload_media_id: mediaId, caption: 'Uploaded latte' }),
    });
    const made = await container.text();
    expect(container.status, made).toBe(200);
    const containerId = (JSON.parse(made) as { id: string }).id;
    // The claim is logged in the container's transaction, with the container's own change (the account's).
    const changes = await readChangesAfter(log(), position, 100);
    expect(changes.map(({ kind, keys }) => ({ kind, keys }))).toEqual([
      { kind: 'media_uploaded', keys: [`MediaUploadSession:${mediaId}`] },
      { kind: 'media_retained', keys: [`MediaUploadSession:${mediaId}`] },
      { kind: 'media_container_created', keys: [`Account:${world.accounts.bluebottle}`, `MediaContainer:${containerId}`] },
    ]);
  });

  it('logs a chunked video upload step by step, its processing begun and ended', async () => {
    const video = mp4Video();
    const init = await post(
      fields({ command: 'INIT', total_bytes: String(video.length), media_type: 'video/mp4', media_category: 'tweet_video' }),
    );
    expect(init.status, init.text).toBe(202);
    const mediaId = init.body.media_id_string as string;
    const appended = await post([
      ...fields({ command: 'APPEND', media_id: mediaId, segment_index: '0' }),
      { name: 'media', bytes: video, filename: 'blob', contentType: 'application/octet-stream' },
    ]);
    expect(appended.status, appended.text).toBe(204);
    // The same index again is refused: nothing logged for it.
    const again = await post([
      ...fields({ command: 'APPEND', media_id: mediaId, segment_index: '0' }),
      { name: 'media', bytes: video, filename: 'blob', contentType: 'application/octet-stream' },
    ]);
    expect(again.status).toBe(400);
    const finalized = await post(fields({ command: 'FINALIZE', media_id: mediaId }));
    expect(finalized.status, finalized.text).toBe(200);
    // STATUS advances the processing until it ends.
    await eventually(async () => {
      const reply = await sendMediaRequest(mediaUploadUrl(system.restUrl, { command: 'STATUS', media_id: mediaId }), {
        method: 'GET',
        authorization: own(),
      });
      return reply.body?.processing_info?.state === 'succeeded';
    }, 'the video processed');
    expect(await changesOf(mediaId)).toEqual([
      'media_upload_started',
      'media_segment_appended',
      'media_upload_finalized',
      'media_processing',
      'media_processed',
    ]);
  });

  it('logs an upload expired when the sweeper removes its bytes, and nothing for the social graph’s readers', async () => {
    const socialBefore = position;
    const mediaId = await uploadedImage();
    expect(await changesOf(mediaId)).toEqual(['media_uploaded']);
    // Every upload so far expires: the earlier tests' too, each with its own key.
    clock = new Date(clock.getTime() + (EXPIRES_AFTER_SECS + 1) * 1000);
    const expired: string[] = [];
    await eventually(async () => {
      const changes = await readChangesAfter(log(), position, 100);
      if (changes.length > 0) position = changes.at(-1)!.position;
      for (const change of changes) {
        expect(change.kind).toBe('media_expired');
        expired.push(...change.keys);
      }
      return expired.includes(`MediaUploadSession:${mediaId}`);
    }, 'the expiry logged');
    expect(expired.filter((key) => key === `MediaUploadSession:${mediaId}`)).toHaveLength(1);
    expect(await readEventsAfter(system.database.db.withTables<SocialTables>(), socialBefore, 100)).toEqual([]);
  });
});
