import { request as httpRequest } from 'node:http';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.ts';
import { LONG_TEST_MS } from '../../support/hang-bounds.ts';
import { fixture } from '../../support/image-fixtures.ts';
import { bearerAuthorization, mediaMultipartBody, mediaUploadUrl, sendMediaRequest } from '../../support/media-client.ts';
import { openNpmStartWorld, type NpmStartWorld } from '../../support/npm-start-processes.ts';
import { startServiceProcess, type ServiceProcess } from '../../support/os-process.ts';
import { S3RVER_CREDENTIALS, startS3Server, type RunningS3Server } from '../../support/s3-server.ts';

/**
 * Uploads on any instance (issue 28): two `npm start` processes on one PostgreSQL database and one S3 store (an s3rver
 * this test starts; nothing leaves the machine). A chunked upload begun on one process takes segments on both and is
 * finalized on the other (sessions in the database, bytes in the bucket); a process killed with SIGKILL in the middle
 * of an APPEND is restarted and the upload finishes; and once sessions expire the sweeper leaves nothing in the bucket
 * but the finished upload's file — the test lists the bucket itself.
 */

// Separate OS processes need a database they can all open: PostgreSQL.
describe.runIf(process.env.TEST_DATABASE === 'postgres')(
  'chunked uploads across two npm start processes on one database and one S3 store',
  () => {
    const bucket = 'tributary-processes';
    let world: NpmStartWorld;
    let s3: RunningS3Server;
    let env: Record<string, string>;
    let first: ServiceProcess;
    let second: ServiceProcess;

    beforeAll(async () => {
      s3 = await startS3Server({ buckets: [bucket] });
      world = await openNpmStartWorld('media-processes');
      env = world.env({
        MEDIA_STORE: 's3',
        MEDIA_S3_ENDPOINT: s3.endpoint,
        MEDIA_S3_BUCKET: bucket,
        MEDIA_S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
        MEDIA_S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
        MEDIA_SWEEP_INTERVAL_SECS: '1',
      });
      [first, second] = await Promise.all([
        startServiceProcess('first', 'dist/bin/start.js', [], env),
        startServiceProcess('second', 'dist/bin/start.js', [], env),
      ]);
    }, 180_000);

    afterAll(async () => {
      await Promise.all([first?.stop(), second?.stop()]);
      await world?.close();
      await s3?.close();
    }, 60_000);

    const rest = (process: ServiceProcess) => String(process.listening.rest);
    const authorization = () => bearerAuthorization(world.fixture.tokens.own);
    const command = (process: ServiceProcess, params: Record<string, string>, media?: Uint8Array) => {
      const { body, contentType } = mediaMultipartBody([
        ...Object.entries(params).map(([name, value]) => ({ name, value })),
        ...(media ? [{ name: 'media', bytes: media, filename: 'segment' }] : []),
      ]);
      return sendMediaRequest(mediaUploadUrl(rest(process)), { authorization: authorization(), body, contentType });
    };

    const bucketKeys = () => s3.listKeys(bucket);

    it(
      'INIT on one process, APPENDs on both (one cut by SIGKILL and sent again after a restart), FINALIZE on the other',
      async () => {
        const png = fixture('image.png');
        const third = Math.ceil(png.length / 3);
        const segments = [png.subarray(0, third), png.subarray(third, 2 * third), png.subarray(2 * third)];

        const init = await command(first, {
          command: 'INIT',
          total_bytes: String(png.length),
          media_type: 'image/png',
          media_category: 'tweet_image',
        });
        expect(init.status, init.text).toBe(202);
        const id = init.body.media_id_string as string;
        expect((await command(first, { command: 'APPEND', media_id: id, segment_index: '0' }, segments[0])).status).toBe(204);
        expect((await command(second, { command: 'APPEND', media_id: id, segment_index: '1' }, segments[1])).status).toBe(204);

        // Segment 2 to the first process: the headers and half the body, then SIGKILL while it waits for the rest.
        const { body, contentType } = mediaMultipartBody([
          { name: 'command', value: 'APPEND' },
          { name: 'media_id', value: id },
          { name: 'segment_index', value: '2' },
          { name: 'media', bytes: segments[2]!, filename: 'segment' },
        ]);
        const cut = httpRequest(mediaUploadUrl(rest(first)), {
          method: 'POST',
          headers: {
            authorization: authorization(),
            'content-type': contentType,
            'content-length': String(body.length),
            expect: '100-continue',
          },
        });
        const answered = new Promise<string>((resolve) => {
          cut.on('response', (response) => resolve(`answered ${response.statusCode}`));
          cut.on('error', (error) => resolve(`failed: ${error.message}`));
        });
        // The kill must find the request in the process's hands, its body half read: Node answers `100 Continue` as it
        // hands a request to the application, so the half is written only once the process has taken the request.
        const taken = new Promise<void>((resolve) => cut.once('continue', resolve));
        cut.flushHeaders();
        await taken;
        await new Promise<void>((resolve, reject) =>
          cut.write(body.subarray(0, Math.floor(body.length / 2)), (error) => (error ? reject(error) : resolve())),
        );
        expect(await first.stop('SIGKILL')).toBeNull();
        expect(await answered).toMatch(/^failed: /);
        const { rows: recorded } = await sql<{
          count: string;
        }>`select count(*)::text as count from media.upload_segment where session_id = cast(${id} as bigint)`.execute(world.database.db);
        expect(recorded[0]!.count).toBe('2');

        first = await startServiceProcess('first again', 'dist/bin/start.js', [], env);
        expect((await command(first, { command: 'APPEND', media_id: id, segment_index: '2' }, segments[2])).status).toBe(204);
        const finalize = await command(second, { command: 'FINALIZE', media_id: id });
        expect(finalize.status, finalize.text).toBe(200);
        expect(finalize.body).toMatchObject({
          media_id_string: id,
          media_key: `3_${id}`,
          size: png.length,
          image: { image_type: 'image/png', w: 50, h: 40 },
        });
        // Either process serves the finished upload (STATUS), from the same bucket.
        const status = await sendMediaRequest(mediaUploadUrl(rest(first), { command: 'STATUS', media_id: id }), {
          method: 'GET',
          authorization: authorization(),
        });
        expect(status.status, status.text).toBe(200);
        expect(status.body.size).toBe(png.length);

        // A session abandoned after one segment; once it has expired (moved back here: the processes keep real time),
        // the sweeper of either process removes its segment. The bucket then holds the finished upload's file alone.
        const abandoned = await command(second, { command: 'INIT', total_bytes: String(png.length), media_type: 'image/png' });
        const abandonedId = abandoned.body.media_id_string as string;
        expect((await command(first, { command: 'APPEND', media_id: abandonedId, segment_index: '0' }, segments[0])).status).toBe(204);
        await sql`update media.upload_session set expires_at = now() - interval '1 second' where id = cast(${abandonedId} as bigint)`.execute(
          world.database.db,
        );
        const { rows: uploads } = await sql<{
          blob_key: string;
        }>`select blob_key from media.upload where id = cast(${id} as bigint)`.execute(world.database.db);
        // The sweeper deletes a session's segment blobs first and its row after (a pass cut between them finds the row
        // again), so the pass is over only once both are gone.
        const keys = await eventually(async () => {
          const listed = await bucketKeys();
          if (listed.length !== 1) return false;
          const { rows: sessions } = await sql<{
            count: string;
          }>`select count(*)::text as count from media.upload_session where id = cast(${abandonedId} as bigint)`.execute(world.database.db);
          return sessions[0]!.count === '0' && listed;
        }, 'the abandoned session and its segment swept');
        expect(keys).toEqual([uploads[0]!.blob_key]);
      },
      LONG_TEST_MS * 2,
    );
  },
);
