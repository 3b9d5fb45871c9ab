/**
 * What `npm start` runs: the compiled build (dist/bin/start.js, made by `npm run build`, which `npm ci` runs) as an OS
 * process of its own, on a fresh data directory — started from the build's migrated PGlite template, so no migration is
 * applied — and again on the directory it left, where the records written before are still there.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROLE, createTokenService } from '../../../lib/auth/auth.ts';
import { ensureCompiledBuild } from '../../support/compiled-build.ts';
import { loadConfig } from '../../../lib/config.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const START = join(ROOT, 'dist', 'bin', 'start.js');
const JWT_SECRET = 'test-secret-that-is-at-least-32-characters-long';

interface Started {
  child: ChildProcess;
  logs: { msg?: string; graphql?: string; rest?: string; applied?: string[] }[];
  graphql: string;
  rest: string;
}

/** npm start's process on `dataDir` (the embedded database), every port ephemeral. */
function spawnStart(dataDir: string): ChildProcess {
  const { DATABASE_URL: _ignored, ...env } = process.env;
  return spawn(process.execPath, [START], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PUBLIC_HOST: '127.0.0.1',
      GATEWAY_PORT: '0',
      REST_PORT: '0',
      SOCIAL_PARENT_PORT: '0',
      GRPC_PORT: '0',
      JWT_SECRET,
    },
  });
}

async function start(dataDir: string): Promise<Started> {
  const child = spawnStart(dataDir);
  const logs: Started['logs'] = [];
  const listening = await new Promise<Started['logs'][number]>((resolve, reject) => {
    // bound: a start that never listens fails here
    const timer = setTimeout(() => reject(new Error('dist/bin/start.js did not listen within 60 s')), 60_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const entry = JSON.parse(line) as Started['logs'][number];
      logs.push(entry);
      if (entry.msg === 'listening') {
        clearTimeout(timer);
        resolve(entry);
      }
    });
    child.once('exit', (code) => reject(new Error(`dist/bin/start.js exited with ${code}`)));
  });
  return { child, logs, graphql: listening.graphql!, rest: listening.rest! };
}

async function stop(started: Started): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => started.child.once('exit', resolve));
  started.child.kill('SIGTERM');
  return exited;
}

let root: string;

beforeAll(async () => {
  if (process.env.TEST_DATABASE === 'postgres') return;
  // CI's `npm ci` has built dist/ already; a checkout edited since gets it rebuilt, as `npm start` would.
  await ensureCompiledBuild();
  root = await mkdtemp(join(tmpdir(), 'tributary-compiled-'));
}, 120_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

// The embedded database only: once, in the PGlite project (the PostgreSQL project would run the same processes again).
describe.skipIf(process.env.TEST_DATABASE === 'postgres')('npm start runs the compiled build', () => {
  it('the build holds every entrypoint and the database template', () => {
    for (const entry of ['start', 'start-subgraph', 'start-gateway', 'start-grpc'])
      expect(existsSync(join(ROOT, 'dist', 'bin', `${entry}.js`))).toBe(true);
    expect(existsSync(join(ROOT, 'dist', 'pglite-template.tar'))).toBe(true);
    expect(existsSync(join(ROOT, 'dist', 'schema', 'supergraph.graphql'))).toBe(true);
    expect(existsSync(join(ROOT, 'dist', 'proto', 'api', 'serverNameExample', 'v1', 'userExample.proto'))).toBe(true);
  });

  it('starts on a fresh ./data from the migrated template, writes, and starts again on what it left', async () => {
    const dataDir = join(root, 'data');
    const admin = createTokenService(loadConfig({ JWT_SECRET }).jwt).mint({ sub: 'admin', roles: [ADMIN_ROLE] });
    let id: string | undefined;
    const first = await start(dataDir);
    try {
      // The template is migrated: nothing to apply on a fresh directory.
      expect(first.logs.filter((entry) => entry.msg === 'migrations applied')).toEqual([]);
      const created = await fetch(`${first.rest}/api/v1/userExample`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'Compiled',
          email: 'compiled@example.com',
          password: 'compiled-password-1',
          phone: '13800000000',
          avatar: 'https://example.com/a.png',
          age: 30,
          gender: 1,
        }),
      });
      expect({ status: created.status, body: created.status === 200 ? undefined : await created.text() }).toEqual({
        status: 200,
        body: undefined,
      });
      ({ id } = (await created.json()) as { id: string });
      expect(id).toMatch(/^[1-9][0-9]*$/);
      const typename = await fetch(first.graphql, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      expect(await typename.json()).toEqual({ data: { __typename: 'Query' } });
    } finally {
      expect(await stop(first)).toBe(0);
    }

    const second = await start(dataDir);
    try {
      expect(second.logs.filter((entry) => entry.msg === 'migrations applied')).toEqual([]);
      const read = await fetch(`${second.rest}/api/v1/userExample/${id}`, { headers: { authorization: `Bearer ${admin}` } });
      expect(read.status).toBe(200);
      expect(((await read.json()) as { userExample: { id: string; name: string } }).userExample).toMatchObject({ id, name: 'Compiled' });

      // A second npm start on the same ./data while this one runs: one line saying what holds it, and a failing exit.
      const another = spawnStart(dataDir);
      let stderr = '';
      another.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      another.stdout!.resume();
      const code = await new Promise<number | null>((resolve) => another.once('exit', resolve));
      expect({ code, lines: stderr.trimEnd().split('\n') }).toEqual({
        code: 1,
        lines: [
          expect.stringMatching(
            new RegExp(
              `^npm start: the embedded database \\S+ is in use by process ${second.child.pid} \\(is npm start running\\?\\); stop it first, or use DATABASE_URL$`,
            ),
          ),
        ],
      });
    } finally {
      expect(await stop(second)).toBe(0);
    }
  }, 120_000);
});
