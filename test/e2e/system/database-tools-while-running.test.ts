/**
 * The command-line tools that work on the database — `npm run social-token` (issue and `--revoke`), `npm run social-app`,
 * `npm run seed` — while `npm start` runs on the embedded database, which PGlite lets one process at a time open (issue
 * 29, item 2): each asks the running compiled system over its command channel (bin/tools/command-channel.ts) and prints what it
 * prints when it opens the database itself; the tokens they print work against the running servers, and a revoked one is
 * refused at once. `npm run token` needs no database and works beside it. Bad arguments, a refusal and a database held by
 * a process that serves no channel are one line on stderr and a failing exit, never a stack trace.
 */
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCompiledBuild } from '../../support/compiled-build.ts';
import { exchangeLine, runTool, TOOLS_JWT_SECRET as JWT_SECRET } from '../../support/database-tools.ts';
import { startServiceProcess, type ServiceProcess } from '../../support/os-process.ts';

const SKIP = process.env.TEST_DATABASE === 'postgres';
const SOCIAL_TOKEN_USAGE =
  'usage: npm run social-token -- [--login own|parent] [--subject <id or name>] [--permission P]... [--expires-in SECONDS] | --revoke <token>';
const OWN_TOKEN = /^SBA[A-Za-z0-9_-]{43}\n$/;
const PARENT_TOKEN = /^EAA[A-Za-z0-9_-]{43}\n$/;

/** One request line on the command channel's socket, and the reply. */
const exchange = async (socketPath: string, request: string): Promise<unknown> =>
  JSON.parse(await exchangeLine(socketPath, request)) as unknown;

let root: string;

beforeAll(async () => {
  if (SKIP) return;
  // As compiled-start.test.ts: CI's `npm ci` has built dist/ already; an edited checkout gets it rebuilt, as `npm start` would.
  await ensureCompiledBuild();
  root = await mkdtemp(join(tmpdir(), 'tributary-tools-'));
}, 180_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

// The embedded database only (on PostgreSQL every tool opens the database itself, beside any number of processes).
describe.skipIf(SKIP)('the database tools while npm start runs on the embedded database', () => {
  let system: ServiceProcess | undefined;
  let dataDir: string;
  let pgliteDir: string;
  let rest: string;
  let restParent: string;
  let seeded: { areaA: { userExamples: { id: string }[] }; social: { ids: { accounts: { bluebottle: string } } } };

  beforeAll(async () => {
    if (SKIP) return;
    dataDir = join(root, 'data');
    pgliteDir = join(dataDir, 'pglite');
    system = await startServiceProcess('npm start', 'dist/bin/start.js', [], {
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      JWT_SECRET,
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PUBLIC_HOST: '127.0.0.1',
      GATEWAY_PORT: '0',
      REST_PORT: '0',
      SOCIAL_PARENT_PORT: '0',
      GRPC_PORT: '0',
    });
    rest = system.listening.rest as string;
    restParent = system.listening.restParent as string;
    const seed = await runTool('seed', [], dataDir);
    expect({ code: seed.code, stderr: seed.stderr }).toEqual({ code: 0, stderr: '' });
    seeded = JSON.parse(seed.stdout) as typeof seeded;
  }, 180_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('npm run social-token issues tokens through the running system that read the Graph API on each host', async () => {
    const own = await runTool('social-token', [], dataDir);
    expect({ code: own.code, stderr: own.stderr }).toEqual({ code: 0, stderr: '' });
    expect(own.stdout).toMatch(OWN_TOKEN);
    const me = await fetch(`${rest}/v25.0/me?fields=id,username&access_token=${own.stdout.trim()}`);
    expect({ status: me.status, body: await me.json() }).toEqual({
      status: 200,
      body: { id: seeded.social.ids.accounts.bluebottle, username: 'bluebottle' },
    });

    const parent = await runTool('social-token', ['--login', 'parent', '--permission', 'pages_show_list', '--expires-in', '600'], dataDir);
    expect({ code: parent.code, stderr: parent.stderr }).toEqual({ code: 0, stderr: '' });
    expect(parent.stdout).toMatch(PARENT_TOKEN);
    const user = await fetch(`${restParent}/v25.0/me?fields=name&access_token=${parent.stdout.trim()}`);
    expect({ status: user.status, body: await user.json() }).toMatchObject({ status: 200, body: { name: 'Ana Admin' } });
  }, 60_000);

  it('npm run social-token --revoke revokes through the running system, and the Graph API refuses the token at once', async () => {
    const issued = await runTool('social-token', ['--subject', 'bluebottle'], dataDir);
    const token = issued.stdout.trim();
    expect((await fetch(`${rest}/v25.0/me?fields=id&access_token=${token}`)).status).toBe(200);

    const revoked = await runTool('social-token', ['--revoke', token], dataDir);
    expect(revoked).toEqual({ code: 0, stdout: 'revoked\n', stderr: '' });
    const refused = await fetch(`${rest}/v25.0/me?fields=id&access_token=${token}`);
    expect({ status: refused.status, body: await refused.json() }).toEqual({
      status: 400,
      body: {
        error: expect.objectContaining({
          message: 'Error validating access token: The session is invalid because the user logged out.',
          type: 'OAuthException',
          code: 190,
        }),
      },
    });

    expect(await runTool('social-token', ['--revoke', token], dataDir)).toEqual({
      code: 0,
      stdout: 'unknown or already revoked\n',
      stderr: '',
    });
  }, 60_000);

  it('npm run social-app creates and lists apps through the running system; the app access token manages its subscriptions', async () => {
    const created = await runTool('social-app', ['--create', 'Demo app'], dataDir);
    expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: '' });
    const app = JSON.parse(created.stdout) as { id: string; name: string; secret: string; access_token: string };
    expect(created.stdout).toBe(`${JSON.stringify(app, null, 2)}\n`);
    expect(app).toEqual({
      id: expect.stringMatching(/^\d+$/),
      name: 'Demo app',
      secret: expect.stringMatching(/^[0-9a-f]{32}$/),
      access_token: `${app.id}|${app.secret}`,
    });
    const subscriptions = await fetch(`${restParent}/v25.0/${app.id}/subscriptions?access_token=${encodeURIComponent(app.access_token)}`);
    expect({ status: subscriptions.status, body: await subscriptions.json() }).toEqual({ status: 200, body: { data: [] } });

    // Every app, the seed's first, each as `<id>  <name>`.
    const listed = await runTool('social-app', ['--list'], dataDir);
    expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(listed.stdout).toMatch(/^(\d+ {2}.+\n)+$/);
    expect(listed.stdout.split('\n').slice(-2)).toEqual([`${app.id}  Demo app`, '']);
  }, 60_000);

  it('npm run token needs no database: its token reads a record of Area A while the system runs', async () => {
    const minted = await runTool('token', [], dataDir);
    expect({ code: minted.code, stderr: minted.stderr }).toEqual({ code: 0, stderr: '' });
    expect(minted.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const id = seeded.areaA.userExamples[0]!.id;
    const read = await fetch(`${rest}/api/v1/userExample/${id}`, { headers: { authorization: `Bearer ${minted.stdout.trim()}` } });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { userExample: { id: string; name: string } }).userExample).toMatchObject({ id, name: 'Li Wei' });
  }, 60_000);

  it('a tool with bad arguments prints one line on stderr and exits 2, touching nothing', async () => {
    const cases: [string, string[], string][] = [
      ['social-token', ['--login', 'sideways'], `npm run social-token: --login must be own or parent; ${SOCIAL_TOKEN_USAGE}`],
      ['social-token', ['--bogus'], `npm run social-token: Unknown option '--bogus'; ${SOCIAL_TOKEN_USAGE}`],
      [
        'social-token',
        ['--expires-in', 'soon'],
        `npm run social-token: --expires-in must be a positive number of seconds; ${SOCIAL_TOKEN_USAGE}`,
      ],
      ['social-token', ['--revoke', 'x', '--login', 'own'], `npm run social-token: --revoke takes no other option; ${SOCIAL_TOKEN_USAGE}`],
      ['social-app', [], 'npm run social-app: give --create "<name>" or --list; usage: npm run social-app -- --create "<name>" | --list'],
      ['seed', ['now'], "npm run seed: Unexpected argument 'now'; usage: npm run seed"],
      [
        'token',
        ['--expires-in', '3600'],
        'npm run token: --expires-in must be like 90s, 30m, 12h or 7d; usage: npm run token -- [--sub ID] [--role ROLE]... [--expires-in 12h]',
      ],
    ];
    for (const [tool, args, line] of cases) {
      expect({ tool, args, ...(await runTool(tool, args, dataDir)) }).toEqual({ tool, args, code: 2, stdout: '', stderr: `${line}\n` });
    }
  }, 120_000);

  it('a refusal of the running system is one line and exit 1, as when the tool opens the database itself', async () => {
    expect(await runTool('social-token', ['--subject', 'nobody'], dataDir)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'npm run social-token: no account "nobody" (run npm run seed first)\n',
    });
  }, 60_000);

  it('the running system validates the arguments itself and runs only commands of its closed set', async () => {
    const { socket } = JSON.parse(await readFile(`${pgliteDir}.commands.json`, 'utf8')) as { socket: string };
    expect(await exchange(socket, `${JSON.stringify({ command: 'social-token', args: ['--login', 'sideways'] })}\n`)).toEqual({
      ok: false,
      error: `--login must be own or parent; ${SOCIAL_TOKEN_USAGE}`,
    });
    const unknown = {
      ok: false,
      error: 'unknown request: send {"command":<one of "seed", "social-token", "social-app">,"args":[<string>, …]}',
    };
    expect(await exchange(socket, '{"command":"token"}\n')).toEqual(unknown);
    expect(await exchange(socket, '{"command":"__proto__"}\n')).toEqual(unknown);
    expect(await exchange(socket, '{"command":"seed","code":"process.exit()"}\n')).toEqual(unknown);
    expect(await exchange(socket, '{"command":"social-app","args":[1]}\n')).toEqual({
      ok: false,
      error: 'args must be an array of strings',
    });
    expect(await exchange(socket, `${JSON.stringify({ command: 'social-app', args: Array(65).fill('--list') })}\n`)).toEqual({
      ok: false,
      error: 'more than 64 arguments',
    });
    expect(await exchange(socket, `${JSON.stringify({ command: 'social-token', args: ['--subject', 'x'.repeat(5000)] })}\n`)).toEqual({
      ok: false,
      error: 'the request is larger than 4096 bytes',
    });
    // A request the tool would send is answered with exactly what the tool prints.
    expect(await exchange(socket, `${JSON.stringify({ command: 'social-app', args: ['--list'] })}\n`)).toEqual({
      ok: true,
      output: (await runTool('social-app', ['--list'], dataDir)).stdout,
    });
  });

  it('stopped, the tools open the database themselves and print the same lines; held by a process with no channel, one line', async () => {
    const listed = await runTool('social-app', ['--list'], dataDir);
    const issued = await runTool('social-token', [], dataDir);
    expect(await system!.stop()).toBe(0);
    system = undefined;

    const direct = await runTool('social-token', [], dataDir);
    expect({ code: direct.code, stderr: direct.stderr }).toEqual({ code: 0, stderr: '' });
    expect(direct.stdout).toMatch(OWN_TOKEN);
    expect(await runTool('social-token', ['--revoke', issued.stdout.trim()], dataDir)).toEqual({
      code: 0,
      stdout: 'revoked\n',
      stderr: '',
    });
    expect(await runTool('social-token', ['--revoke', issued.stdout.trim()], dataDir)).toEqual({
      code: 0,
      stdout: 'unknown or already revoked\n',
      stderr: '',
    });
    expect(await runTool('social-app', ['--list'], dataDir)).toEqual(listed);
    expect(await runTool('social-token', ['--subject', 'nobody'], dataDir)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'npm run social-token: no account "nobody" (run npm run seed first)\n',
    });

    // A live process (this runner) took the lock a minute ago and serves no channel: no wait, one line.
    const lock = `${pgliteDir}.pid`;
    await writeFile(lock, String(process.pid));
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(lock, minuteAgo, minuteAgo);
    try {
      expect(await runTool('social-token', [], dataDir)).toEqual({
        code: 1,
        stdout: '',
        stderr: `npm run social-token: the embedded database ${pgliteDir} is in use by process ${process.pid} (is npm start running?); stop it first, or use DATABASE_URL\n`,
      });
    } finally {
      await rm(lock, { force: true });
    }
  }, 120_000);
});
