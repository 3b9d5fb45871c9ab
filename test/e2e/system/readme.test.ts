/**
 * README.md, run as a newcomer runs it: `npm start`'s compiled process on a fresh embedded database, and every ```sh
 * block of the README in order in one bash shell beside it (the conventions: test/support/readme-runner.ts). Each
 * command must exit 0 and print what the README shows after it. The shell works in a directory of its own that links
 * to the checkout's files (README's commands write seed.json and the like there, not into the checkout), and the
 * system's ports are ephemeral: `localhost:8080`, `:8081`, `:4000` and `:9090` in the commands and in what they print
 * are rewritten to them.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCompiledBuild } from '../../support/compiled-build.ts';
import { freePort } from '../../support/free-port.ts';
import { startServiceProcess, type ServiceProcess } from '../../support/os-process.ts';
import { readmeBlocks, readmeFailures, readmeRuns, readmeScript, type ReadmeCommand } from '../../support/readme-runner.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** What the README's shell may take, all commands together (each npm run of a tsx script costs seconds). */
const SCRIPT_TIMEOUT_MS = 240_000;
/** Left out of the shell's directory: a checkout's own data and settings are not a newcomer's. */
const NOT_LINKED = new Set(['data', '.env', '.git']);

/** Commands a README block may show only when it is skipped (see the test). */
const UNSAFE = /\bnpm\s+(ci|install|i|test|start|run\s+(build|dev|start\S*|migrate|prepare))\b|\bnpx\s+vitest\b/;

const POSTGRES = process.env.TEST_DATABASE === 'postgres';

interface Ports {
  graphql: string;
  rest: string;
  restParent: string;
  grpc: string;
  receiver: string;
}

let root: string;
let work: string;
let system: ServiceProcess | undefined;
let ports: Ports;

/** The README's shell's environment: the checkout's defaults and npm start's data directory (the embedded database). */
function environment(): NodeJS.ProcessEnv {
  const { DATABASE_URL: _database, JWT_SECRET: _secret, ...env } = process.env;
  return {
    ...env,
    NODE_ENV: 'development',
    DATA_DIR: join(root, 'data'),
    LOG_LEVEL: 'info',
    APOLLO_TELEMETRY_DISABLED: '1',
    NO_COLOR: '1',
  };
}

/** npm start's compiled process, on the shell's data directory and defaults, every port ephemeral. */
async function startSystem(): Promise<{ system: ServiceProcess; ports: Ports }> {
  const started = await startServiceProcess('npm start', 'dist/bin/start.js', [], {
    NODE_ENV: 'development',
    DATA_DIR: join(root, 'data'),
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PUBLIC_HOST: 'localhost',
    GATEWAY_PORT: '0',
    REST_PORT: '0',
    SOCIAL_PARENT_PORT: '0',
    GRPC_PORT: '0',
  });
  const port = (address: unknown) => new URL(String(address).includes('://') ? String(address) : `http://${String(address)}`).port;
  const { graphql, rest, restParent, grpc } = started.listening;
  return {
    system: started,
    ports: { graphql: port(graphql), rest: port(rest), restParent: port(restParent), grpc: port(grpc), receiver: String(await freePort()) },
  };
}

/**
 * The README's ports, in commands and in what they print, as the system under test has them; 9000, the webhook
 * receiver's, becomes a port that was free a moment ago.
 */
function rewritePorts(text: string): string {
  const mapped: Record<string, string> = {
    '4000': ports.graphql,
    '8080': ports.rest,
    '8081': ports.restParent,
    '9090': ports.grpc,
    '9000': ports.receiver,
  };
  return text
    .replace(/\b(localhost|127\.0\.0\.1):(4000|8080|8081|9090|9000)\b/g, (_match, host: string, port: string) => `${host}:${mapped[port]}`)
    .replace(/--port 9000\b/g, `--port ${ports.receiver}`);
}

/** Runs `commands` in one bash shell in the work directory; returns the failures (README.md:line and why). */
async function runCommands(commands: readonly ReadmeCommand[]): Promise<string[]> {
  const script = readmeScript(commands, rewritePorts);
  const shell = spawn('bash', ['--noprofile', '--norc', '-c', `exec 2>&1\n${script}`], {
    cwd: work,
    env: environment(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let transcript = '';
  shell.stdout!.on('data', (chunk: Buffer) => (transcript += chunk.toString('utf8')));
  shell.stderr!.on('data', (chunk: Buffer) => (transcript += chunk.toString('utf8')));
  const timer = setTimeout(() => shell.kill('SIGKILL'), SCRIPT_TIMEOUT_MS);
  await new Promise((resolve) => shell.once('close', resolve));
  clearTimeout(timer);
  const expected = commands.map((command) => ({ ...command, expected: command.expected.map(rewritePorts) }));
  return readmeFailures(expected, readmeRuns(transcript));
}

beforeAll(async () => {
  if (POSTGRES) return;
  await ensureCompiledBuild();
  root = await mkdtemp(join(tmpdir(), 'tributary-readme-'));
  work = join(root, 'checkout');
  await mkdir(work);
  for (const entry of await readdir(ROOT)) {
    if (!NOT_LINKED.has(entry)) await symlink(join(ROOT, entry), join(work, entry));
  }
  ({ system, ports } = await startSystem());
}, 120_000);

afterAll(async () => {
  await system?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

// The embedded database only, as README's "Run it" has it: once, in the PGlite project.
describe.skipIf(POSTGRES)('README.md, run as printed', () => {
  it(
    'every shell block works in order, printing what README shows',
    async () => {
      const blocks = readmeBlocks(await readFile(join(ROOT, 'README.md'), 'utf8'));
      const commands = blocks.filter((block) => block.skip === undefined).flatMap((block) => block.commands);
      // Never from here: an install, a build or a second system in the shell's directory (which links to the checkout's
      // node_modules) would change the checkout under the tests that run beside this one.
      expect(commands.filter((command) => UNSAFE.test(command.text)).map((command) => `README.md:${command.line}`)).toEqual([]);
      expect(commands.length).toBeGreaterThan(20);
      expect(await runCommands(commands)).toEqual([]);
    },
    SCRIPT_TIMEOUT_MS + 10_000,
  );

  it('fails a broken copy: a Graph API example without curl -g, and an output that is not what the system prints', async () => {
    const broken = readmeBlocks(
      [
        '```sh',
        'curl -s "localhost:8080/v25.0/me?fields=media{id}&access_token=x"',
        '#> {"error":{"message":"Invalid OAuth access token - Cannot parse access token","type":"OAuthException","code":190,"fbtrace_id":"…"}}',
        'curl -s -g "localhost:8080/v25.0/me?fields=media{id}&access_token=x"',
        '#> {"error":{"code":104}}',
        '```',
      ].join('\n'),
    );
    const failures = await runCommands(broken[0]!.commands);
    // Without -g curl reads {id} as a URL glob and asks for fields=mediaid (100), not what the example shows.
    expect(failures).toEqual([
      expect.stringMatching(
        /^README\.md:2 curl -s "localhost:\d+\/v25\.0\/me.*\n {2}printed:\n {4}\{"error":\{"message":"\(#100\) Tried accessing nonexisting field \(mediaid\)/,
      ),
      expect.stringMatching(/^README\.md:4 curl -s -g .*\n {2}printed:\n {4}\{"error":\{"message":"Invalid OAuth access token/),
    ]);
  });
});
