/**
 * `npm run seed` on the embedded database, with and without `npm start` running on it (issue 14): while the compiled
 * system runs on a data directory — which PGlite lets one process at a time open — the seed command asks it to seed over
 * its command channel (bin/tools/command-channel.ts) and prints the same JSON as when it seeds the directory itself; the printed
 * tokens work against the running servers, a second seed keeps every record, and stale announcements are ignored.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCompiledBuild } from '../../support/compiled-build.ts';
import { exchangeLine, runTool, TOOLS_JWT_SECRET as JWT_SECRET } from '../../support/database-tools.ts';
import { png } from '../../support/image-fixtures.ts';
import { startServiceProcess, type ServiceProcess } from '../../support/os-process.ts';

const SKIP = process.env.TEST_DATABASE === 'postgres';

/** The environment both processes get: the same data directory and secrets, as a newcomer's shell gives them. */
const env = (dataDir: string): Record<string, string> => ({
  NODE_ENV: 'test',
  DATA_DIR: dataDir,
  JWT_SECRET,
});

interface SeedRun {
  code: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

/** `npm run seed`'s command (tsx bin/seed.ts), as a process of its own, and its JSON. */
async function runSeed(dataDir: string): Promise<SeedRun> {
  const run = await runTool('seed', [], dataDir);
  let json: unknown;
  try {
    json = JSON.parse(run.stdout);
  } catch {
    json = undefined;
  }
  return { ...run, json };
}

/** The JSON's shape: every key, recursively, with the type of each leaf (arrays by their first item). */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return [value.length > 0 ? shapeOf(value[0]) : 'empty'];
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shapeOf(item)]));
  return typeof value;
}

/** What a seed keeps from one run to the next: every id (the social graph's `created` flag aside). */
function recordsOf(output: any) {
  const { created: _created, ...ids } = output.social.ids as Record<string, unknown>;
  return { users: (output.areaA.userExamples as { id: string; email: string }[]).map(({ id, email }) => ({ id, email })), social: ids };
}

let root: string;

beforeAll(async () => {
  if (SKIP) return;
  // As compiled-start.test.ts: CI's `npm ci` has built dist/ already; an edited checkout gets it rebuilt, as `npm start` would.
  await ensureCompiledBuild();
  root = await mkdtemp(join(tmpdir(), 'tributary-seed-'));
}, 180_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

// The embedded database only (the PostgreSQL project would seed PostgreSQL, which any number of processes may open).
describe.skipIf(SKIP)('npm run seed while npm start runs on the embedded database', () => {
  let system: ServiceProcess | undefined;
  afterAll(async () => {
    await system?.stop();
  });

  it('seeds through the running system, prints the same JSON as a direct seed, and its tokens work', async () => {
    const dataDir = join(root, 'data');
    const pgliteDir = join(dataDir, 'pglite');
    system = await startServiceProcess('npm start', 'dist/bin/start.js', [], {
      ...env(dataDir),
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PUBLIC_HOST: '127.0.0.1',
      GATEWAY_PORT: '0',
      REST_PORT: '0',
      SOCIAL_PARENT_PORT: '0',
      GRPC_PORT: '0',
    });
    const rest = system.listening.rest as string;
    const restParent = system.listening.restParent as string;
    const graphql = system.listening.graphql as string;

    // The channel: a socket only this user can reach, announced beside the database's lock.
    const announcement = JSON.parse(await readFile(`${pgliteDir}.commands.json`, 'utf8')) as { pid: number; socket: string };
    expect(announcement.socket).toBe(join(`${pgliteDir}.commands`, 'commands.sock'));
    expect((await stat(`${pgliteDir}.commands.json`)).mode & 0o777).toBe(0o600);
    expect((await stat(`${pgliteDir}.commands`)).mode & 0o777).toBe(0o700);
    const socketStats = await stat(announcement.socket);
    expect(socketStats.isSocket()).toBe(true);
    expect(socketStats.mode & 0o777).toBe(0o600);

    const first = await runSeed(dataDir);
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
    const out = first.json;
    // The running system seeded: the hosts are the ports it listens on.
    expect(out.social.hosts).toEqual({ ownLogin: rest, parentPlatform: restParent });
    expect(out.media.uploadUrl).toBe(`${rest}/1.1/media/upload.json`);
    expect(out.social.ids.created).toBe(true);
    expect(out.areaA.userExamples.map((user: { email: string }) => user.email)).toEqual([
      'li.wei@example.com',
      'zhang.min@example.com',
      'chen.jie@example.com',
      'wang.fang@example.com',
    ]);

    // One request per area with the printed tokens, against the running servers.
    const userId = out.areaA.userExamples[0].id as string;
    const record = await fetch(`${rest}/api/v1/userExample/${userId}`, { headers: { authorization: `Bearer ${out.areaA.adminToken}` } });
    expect(record.status).toBe(200);
    expect(((await record.json()) as any).userExample).toMatchObject({ id: userId, name: 'Li Wei', email: 'li.wei@example.com' });

    const ownToken = out.social.tokens.ownLogin.mediaOwner as string;
    const comment = out.social.ids.threadComment as string;
    const read = await fetch(`${rest}/v25.0/${comment}?fields=id,hidden&access_token=${ownToken}`);
    expect({ status: read.status, body: await read.json() }).toEqual({ status: 200, body: { id: comment, hidden: false } });

    const accounts = await fetch(
      `${restParent}/v25.0/me/accounts?fields=social_business_account{id,username}&access_token=${out.social.tokens.parentPlatform.pageAdmin}`,
    );
    expect(accounts.status).toBe(200);
    expect(((await accounts.json()) as any).data.map((page: any) => page.social_business_account?.id)).toContain(
      out.social.ids.accounts.bluebottle,
    );

    const upload = new FormData();
    upload.append('media', new Blob([new Uint8Array(png(8, 8))], { type: 'image/png' }), 'demo.png');
    const uploaded = await fetch(out.media.uploadUrl, { method: 'POST', headers: { authorization: `Bearer ${ownToken}` }, body: upload });
    expect(uploaded.status).toBe(200);
    expect(((await uploaded.json()) as any).image).toEqual({ image_type: 'image/png', w: 8, h: 8 });

    const me = await fetch(graphql, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ownToken}` },
      body: JSON.stringify({ query: '{ me { username } }' }),
    });
    expect(((await me.json()) as any).data).toEqual({ me: { username: 'bluebottle' } });

    // Twice: every record kept, new tokens.
    const second = await runSeed(dataDir);
    expect({ code: second.code, stderr: second.stderr }).toEqual({ code: 0, stderr: '' });
    expect(second.json.social.ids.created).toBe(false);
    expect(recordsOf(second.json)).toEqual(recordsOf(out));
    expect(second.json.social.tokens.ownLogin.mediaOwner).not.toBe(ownToken);
    expect(shapeOf(second.json)).toEqual(shapeOf(out));

    // The channel answers only the requests of its closed set, bounded (database-tools-while-running.test.ts: the rest).
    expect(JSON.parse(await exchangeLine(announcement.socket, '{"command":"drop"}\n'))).toEqual({
      ok: false,
      error: 'unknown request: send {"command":<one of "seed", "social-token", "social-app">,"args":[<string>, …]}',
    });
    expect(JSON.parse(await exchangeLine(announcement.socket, 'x'.repeat(8192)))).toEqual({
      ok: false,
      error: 'the request is larger than 4096 bytes',
    });

    // Stopped: the announcement and the socket go with it, and the seed opens the directory itself — the same JSON.
    expect(await system.stop()).toBe(0);
    system = undefined;
    expect(existsSync(`${pgliteDir}.commands.json`)).toBe(false);
    expect(existsSync(`${pgliteDir}.commands`)).toBe(false);

    // What a killed process leaves: a lock and an announcement of a process that is gone; and an announcement whose
    // process is alive (here: this test runner, as a reused pid would be) but whose socket nobody serves.
    await writeFile(`${pgliteDir}.pid`, '999999999');
    await writeFile(`${pgliteDir}.commands.json`, JSON.stringify({ pid: 999_999_999, socket: announcement.socket }));
    const afterCrash = await runSeed(dataDir);
    expect({ code: afterCrash.code, stderr: afterCrash.stderr }).toEqual({ code: 0, stderr: '' });
    await writeFile(`${pgliteDir}.commands.json`, JSON.stringify({ pid: process.pid, socket: announcement.socket }));
    const direct = await runSeed(dataDir);
    expect({ code: direct.code, stderr: direct.stderr }).toEqual({ code: 0, stderr: '' });

    for (const run of [afterCrash, direct]) {
      expect(run.json.social.hosts).toEqual({ ownLogin: 'http://localhost:8080', parentPlatform: 'http://localhost:8081' });
      expect(recordsOf(run.json)).toEqual(recordsOf(out));
      expect(shapeOf(run.json)).toEqual(shapeOf(out));
    }
    expect(existsSync(`${pgliteDir}.pid`)).toBe(false);
  }, 300_000);
});
