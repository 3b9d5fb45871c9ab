import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { png } from '../../support/image-fixtures.ts';
import {
  bearerAuthorization,
  mediaFormData,
  mediaUploadUrl,
  sendMediaRequest,
  type MediaPart,
  type MediaReply,
} from '../../support/media-client.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * Area D's REST writes answer the change log's position they reached (`tributary-log-position`, issue 39), as Area A's
 * and the Graph's do: the simple upload, the chunked upload's INIT, APPEND and FINALIZE, and the alt text — each a
 * change of its own, so each later write answers a later position — with the fetch cache on (embedded and distributed);
 * STATUS, a read, answers none, and takes a presented position. With the cache off (GATEWAY_CACHE=off) no reply carries one.
 */

const NOW = () => new Date('2026-11-02T00:00:00.000Z');
const LOG_POSITION = 'tributary-log-position';

const describeReply = (reply: MediaReply) => `HTTP ${reply.status}: ${reply.text.slice(0, 300)}`;
const fields = (params: Record<string, string>): MediaPart[] => Object.entries(params).map(([name, value]) => ({ name, value }));

const CASES = [
  {
    name: 'the cache in memory, embedded gateway',
    cached: true,
    start: () => startTestSystem({ GATEWAY_CACHE: 'memory' }, { now: NOW }),
  },
  {
    name: 'the cache in memory, distributed gateway',
    cached: true,
    start: () => startDistributedTestSystem({ GATEWAY_CACHE: 'memory' }, { now: NOW }),
  },
  { name: 'the cache off', cached: false, start: () => startTestSystem({ GATEWAY_CACHE: 'off' }, { now: NOW }) },
];

describe.each(CASES)('the media REST writes’ log position ($name)', ({ cached, start }) => {
  let system: TestSystem;
  let world: SocialFixture;

  beforeAll(async () => {
    system = await start();
    world = await createSocialFixture(system.database, { now: NOW });
  }, 60_000);
  afterAll(async () => {
    await system?.close();
  });

  const upload = (parts: readonly MediaPart[]) =>
    sendMediaRequest(mediaUploadUrl(system.restUrl), { authorization: bearerAuthorization(world.tokens.own), body: mediaFormData(parts) });

  /** The reply's position: a decimal number with the cache on (returned), none with it off (undefined). */
  function answered(reply: MediaReply, status: number): bigint | undefined {
    expect(reply.status, describeReply(reply)).toBe(status);
    const header = reply.headers.get(LOG_POSITION);
    if (!cached) {
      expect(header).toBeNull();
      return undefined;
    }
    expect(header).toMatch(/^[1-9][0-9]*$/);
    return BigInt(header!);
  }

  it('the simple upload, INIT, APPEND, FINALIZE and the alt text each answer a later position; STATUS none', async () => {
    const image = png(16, 16);
    const simple = await upload([{ name: 'media', bytes: image, filename: 'image.png' }]);
    const uploaded = answered(simple, 200);
    expect(simple.text).toMatch(/^\{"media_id":\d+,"media_id_string":"\d+","size":\d+,"expires_after_secs":\d+,"image":\{/);

    const init = await upload(fields({ command: 'INIT', total_bytes: String(image.length), media_type: 'image/png' }));
    const begun = answered(init, 202);
    const mediaId = init.body.media_id_string as string;
    const append = await upload([
      ...fields({ command: 'APPEND', media_id: mediaId, segment_index: '0' }),
      { name: 'media', bytes: image, filename: 'blob', contentType: 'application/octet-stream' },
    ]);
    const appended = answered(append, 204);
    expect(append.text).toBe('');
    const finalize = await upload(fields({ command: 'FINALIZE', media_id: mediaId }));
    const finalized = answered(finalize, 200);
    expect(finalize.body.media_id_string).toBe(mediaId);

    const metadata = await sendMediaRequest(new URL('/1.1/media/metadata/create.json', system.restUrl).toString(), {
      authorization: bearerAuthorization(world.tokens.own),
      body: JSON.stringify({ media_id: mediaId, alt_text: { text: 'A 16-pixel square' } }),
      contentType: 'application/json',
    });
    const described = answered(metadata, 200);
    expect(metadata.text).toBe('');

    if (cached) {
      const positions = [uploaded!, begun!, appended!, finalized!, described!];
      expect(positions).toEqual([...positions].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      expect(new Set(positions).size).toBe(positions.length);
    }

    // STATUS is a read: it presents the last write's position (reached at once) and answers none of its own.
    const status = await fetch(mediaUploadUrl(system.restUrl, { command: 'STATUS', media_id: mediaId }), {
      headers: {
        authorization: bearerAuthorization(world.tokens.own),
        ...(described !== undefined && { [LOG_POSITION]: String(described) }),
      },
    });
    expect(status.status).toBe(200);
    expect(status.headers.get(LOG_POSITION)).toBeNull();
    expect(((await status.json()) as { media_id_string: string }).media_id_string).toBe(mediaId);
  });
});
