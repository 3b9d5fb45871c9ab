import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newBlobKey, type BlobStore } from '../../../subgraphs/shared/media-store/blob-store.ts';
import {
  discardBlobs,
  notePendingBlob,
  PENDING_BLOB_GRACE_MS,
  type MediaTables,
} from '../../../subgraphs/shared/media-store/media-upload.repository.ts';
import { openBlobStore } from '../../../subgraphs/shared/media-store/open-blob-store.ts';
import { eventually } from '../../support/eventually.ts';
import { LONG_TEST_MS } from '../../support/hang-bounds.ts';
import { fixture } from '../../support/image-fixtures.ts';
import { bearerAuthorization, mediaFormData, mediaUploadUrl, sendMediaRequest } from '../../support/media-client.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { createTestBlobStore, type TestBlobStore } from '../../support/test-blob-store.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * What a crash leaves in the blob store, and the sweeper that removes it (issue 28; the ledger of
 * subgraphs/shared/media-store/blob-ledger.ts). A process killed between writing a blob and recording it, or between
 * FINALIZE's commit and the deletion of its segments, leaves rows in media.pending_blob; the media sweeper (every second
 * here) deletes those blobs — at once for discarded segments, after the grace for writes never recorded — and the test
 * lists the store itself (the run's store: a directory, or the S3 bucket on the PostgreSQL run). The leftovers are made
 * as the crashed process would have left them, through the same repository calls and a second handle on the store.
 */

const T0 = new Date();
let clock = T0;
const now = () => clock;

describe('the blob ledger and the sweeper (embedded gateway)', () => {
  let system: TestSystem;
  let world: SocialFixture;
  let blobs: TestBlobStore;
  let store: BlobStore;

  beforeAll(async () => {
    blobs = await createTestBlobStore();
    system = await startTestSystem({ ...blobs.env, MEDIA_SWEEP_INTERVAL_SECS: '1' }, { now });
    world = await createSocialFixture(system.database, { now });
    store = await openBlobStore(system.config.media);
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    await system?.close();
    await blobs?.close();
  });

  const media = () => system.database.db.withTables<MediaTables>();
  const ledger = async () =>
    (await media().selectFrom('media.pending_blob').select('blob_key').orderBy('blob_key').execute()).map((row) => row.blob_key);
  const writeBlob = (key: string) => store.write(Readable.from([Buffer.from(`left by a crash: ${key}`)]), key);

  const command = (params: Record<string, string>, parts: Parameters<typeof mediaFormData>[0] = []) =>
    sendMediaRequest(mediaUploadUrl(system.restUrl), {
      authorization: bearerAuthorization(world.tokens.own),
      body: mediaFormData([...Object.entries(params).map(([name, value]) => ({ name, value })), ...parts]),
    });

  it('leaves only the assembled file after a chunked upload, and nothing on the ledger', async () => {
    const before = new Set(await blobs.keys());
    const png = fixture('image.png');
    const init = await command({ command: 'INIT', total_bytes: String(png.length), media_type: 'image/png' });
    expect(init.status, init.text).toBe(202);
    const id = init.body.media_id_string as string;
    for (const [index, part] of [png.subarray(0, 100), png.subarray(100)].entries()) {
      const append = await command({ command: 'APPEND', media_id: id, segment_index: String(index) }, [
        { name: 'media', bytes: part, filename: 'part' },
      ]);
      expect(append.status, append.text).toBe(204);
    }
    expect((await blobs.keys()).filter((key) => !before.has(key))).toHaveLength(2);
    const finalize = await command({ command: 'FINALIZE', media_id: id });
    expect(finalize.status, finalize.text).toBe(200);
    const { blob_key: assembled } = await media()
      .selectFrom('media.upload')
      .select('blob_key')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect((await blobs.keys()).filter((key) => !before.has(key))).toEqual([assembled]);
    expect(await ledger()).toEqual([]);
  });

  it('takes a refused write off the ledger (a segment past the session’s total)', async () => {
    const init = await command({ command: 'INIT', total_bytes: '10', media_type: 'image/png' });
    const id = init.body.media_id_string as string;
    const append = await command({ command: 'APPEND', media_id: id, segment_index: '0' }, [
      { name: 'media', bytes: fixture('image.png'), filename: 'part' },
    ]);
    expect(append.status, append.text).toBe(400);
    expect(await ledger()).toEqual([]);
  });

  it(
    'removes segments a FINALIZE committed but did not delete at once, and a write never recorded once the grace has passed',
    async () => {
      // A process killed after FINALIZE's commit: its segments on the ledger, due now, their blobs still there.
      const segments = [newBlobKey(), newBlobKey()];
      for (const key of segments) await writeBlob(key);
      await discardBlobs(media(), segments, clock);
      // A process killed after writing a blob and before recording it: noted with the grace, never claimed.
      const unrecorded = newBlobKey();
      await notePendingBlob(media(), unrecorded, new Date(clock.getTime() + PENDING_BLOB_GRACE_MS));
      await writeBlob(unrecorded);
      expect(await blobs.exists(unrecorded)).toBe(true);

      await eventually(
        async () => !(await blobs.exists(segments[0]!)) && !(await blobs.exists(segments[1]!)),
        'the discarded segments’ blobs deleted by the sweeper',
      );
      await eventually(async () => (await ledger()).length === 1, 'the discarded segments taken off the ledger');
      // Within the grace the write may still be running somewhere: it stays.
      expect(await ledger()).toEqual([unrecorded]);
      expect(await blobs.exists(unrecorded)).toBe(true);

      clock = new Date(clock.getTime() + PENDING_BLOB_GRACE_MS);
      await eventually(async () => (await ledger()).length === 0, 'the unrecorded write taken off the ledger once the grace has passed');
      const listed = await blobs.keys();
      for (const key of [...segments, unrecorded]) expect(listed).not.toContain(key);
    },
    LONG_TEST_MS,
  );
});
