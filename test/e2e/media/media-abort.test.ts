import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.ts';
import { LONG_TEST_MS } from '../../support/hang-bounds.ts';
import { png } from '../../support/image-fixtures.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * Clients that go away in the middle of an upload: every file is spooled to a temporary file while it streams (REST
 * route, gateway, media subgraph), and each copy must go once its request is over, however it ended — cut anywhere in the
 * body, or complete and then abandoned while the upload is being stored. A copy left behind keeps a file descriptor and
 * disk space for the life of the process. The spool directory (TMPDIR) is this file's own.
 */

const BOUNDARY = 'tributary-abort-test';
const FILE = png(100, 100, { padToBytes: 1_000_000 });

let spool: string;
let previousTmpdir: string | undefined;

beforeAll(async () => {
  spool = await mkdtemp(join(tmpdir(), 'tributary-spool-'));
  previousTmpdir = process.env.TMPDIR;
  // graphql-upload-ts's WriteStream asks os.tmpdir() for each new copy, and os.tmpdir() reads TMPDIR.
  process.env.TMPDIR = spool;
});

afterAll(async () => {
  if (previousTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previousTmpdir;
  await rm(spool, { recursive: true, force: true });
});

const spooled = async () => (await readdir(spool)).filter((name) => name.startsWith('capacitor-')).length;

/** Waits for the last temporary copy to go: a copy that is never removed (the leak under test) fails it after HANG_MS. */
const noCopyLeft = () => eventually(async () => (await spooled()) === 0, 'no temporary copy left in the spool directory');

function multipart(parts: { name: string; filename?: string; data: Buffer | string }[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const filename = part.filename === undefined ? '' : `; filename="${part.filename}"`;
    chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"${filename}\r\n\r\n`));
    chunks.push(typeof part.data === 'string' ? Buffer.from(part.data) : part.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

/** Sends the head and the first `sent` bytes of the body, waits `lingerMs`, then drops the connection. */
function abandon(url: string, headers: Record<string, string>, body: Buffer, sent: number, lingerMs: number): Promise<void> {
  const target = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(target.port), target.hostname, () => {
      const head = Object.entries({
        ...headers,
        host: target.host,
        'content-length': String(body.length),
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      socket.write(`POST ${target.pathname} HTTP/1.1\r\n${head}\r\n`);
      socket.write(body.subarray(0, sent), () => {
        // pacing: the client lingers lingerMs after the bytes it sent, then goes away mid-upload
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, lingerMs);
      });
    });
    socket.on('error', () => resolve());
  });
}

describe.each(['embedded', 'distributed'] as const)('uploads abandoned by their clients (%s gateway)', (mode) => {
  let system: TestSystem;
  let world: SocialFixture;

  beforeAll(async () => {
    system = mode === 'embedded' ? await startTestSystem() : await startDistributedTestSystem();
    world = await createSocialFixture(system.database);
  });

  afterAll(async () => {
    await system?.close();
  });

  const targets = () => ({
    rest: {
      url: new URL('/1.1/media/upload.json', system.restUrl).toString(),
      headers: { authorization: `Bearer ${world.tokens.own}` },
      body: multipart([{ name: 'media', filename: 'a.png', data: FILE }]),
    },
    graphql: {
      url: system.gatewayUrl,
      headers: { authorization: `Bearer ${world.tokens.own}`, 'apollo-require-preflight': 'true' },
      body: multipart([
        {
          name: 'operations',
          data: JSON.stringify({ query: 'mutation($f: Upload) { uploadMedia(media: $f) { mediaId } }', variables: { f: null } }),
        },
        { name: 'map', data: JSON.stringify({ 0: ['variables.f'] }) },
        { name: '0', filename: 'a.png', data: FILE },
      ]),
    },
  });

  it.each(['rest', 'graphql'] as const)(
    'leaves no temporary copy behind for %s uploads cut anywhere or abandoned while stored',
    async (kind) => {
      const { url, headers, body } = targets()[kind];
      // Cut in the head of the file part, in the middle, just before and after the file's end; then whole bodies dropped
      // 0 to 120 ms after they were sent, while the upload is being inspected and stored. Several at once.
      const cuts = [200, 5_000, 500_000, body.length - 2_000, body.length - 10];
      await Promise.all(cuts.map((cut, index) => abandon(url, headers, body, cut, index * 10)));
      await Promise.all(Array.from({ length: 12 }, (_, index) => abandon(url, headers, body, body.length, index * 10)));
      await noCopyLeft();

      // The system still answers uploads.
      const response = await fetch(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        body,
      });
      expect(response.status).toBe(200);
      expect(await response.text()).toMatch(kind === 'rest' ? /"media_id":\d+/ : /"mediaId":"\d+"/);
      await noCopyLeft();
    },
    LONG_TEST_MS,
  );
});
