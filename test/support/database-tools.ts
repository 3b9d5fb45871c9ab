import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The secret the database-tool tests give the tools and the system they run beside. */
export const TOOLS_JWT_SECRET = 'test-secret-that-is-at-least-32-characters-long';

export interface ToolRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A command-line tool as its npm script runs it (`tsx bin/<tool>.ts …`), a process of its own with a newcomer's
 * environment on the embedded database in `dataDir`.
 */
export function runTool(tool: string, args: readonly string[], dataDir: string): Promise<ToolRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'bin', `${tool}.ts`), ...args],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          TMPDIR: process.env.TMPDIR ?? '/tmp',
          NODE_ENV: 'test',
          LOG_LEVEL: 'warn',
          DATA_DIR: dataDir,
          JWT_SECRET: TOOLS_JWT_SECRET,
        },
        timeout: 120_000,
        maxBuffer: 4 * 1024 * 1024,
      },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** One request on a Unix socket (the command channel's), and the whole reply as text. */
export function exchangeLine(socketPath: string, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    const chunks: Buffer[] = [];
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}
