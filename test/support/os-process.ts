import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/**
 * One of Tributary's entrypoints (bin/start-*.ts, or its compiled dist/bin/*.js) as a real OS process, configured only
 * by its environment, as a deployment runs it. Its JSON log lines are kept; the one whose msg is "listening" tells where it serves (ports are
 * picked by the OS).
 */
export interface ServiceProcess {
  name: string;
  /** The fields of its "listening" log line (urls, addresses). */
  listening: Record<string, unknown>;
  /** Every JSON log line so far. */
  logs(): Record<string, unknown>[];
  /** Sends a signal; resolves with the exit code once the process has ended. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Sends a signal the process goes on after (SIGHUP to the gateway: reload). */
  signal(signal: NodeJS.Signals): void;
  /** Resolves with the exit code when the process ends. */
  readonly exited: Promise<number | null>;
}

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export async function startServiceProcess(
  name: string,
  entrypoint: string,
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<ServiceProcess> {
  // A compiled entrypoint (dist/…/*.js) runs as production runs it, without the TypeScript loader.
  const loader = entrypoint.endsWith('.js') ? [] : ['--import', 'tsx'];
  const child: ChildProcessByStdio<null, Readable, Readable> = spawn(process.execPath, [...loader, entrypoint, ...args], {
    cwd: REPO_ROOT,
    // Only what the process needs: no variable of the test runner's leaks into its configuration.
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      TMPDIR: process.env.TMPDIR ?? '/tmp',
      APOLLO_TELEMETRY_DISABLED: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  const stderr: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let buffered = '';
  let onListening: ((fields: Record<string, unknown>) => void) | undefined;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (!line.startsWith('{')) continue;
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        lines.push(entry);
        if (entry.msg === 'listening') onListening?.(entry);
      } catch {
        // Not a log line.
      }
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => stderr.push(chunk));

  const listening = await new Promise<Record<string, unknown>>((resolve, reject) => {
    // bound: a process that has not logged 'listening' by then fails the start (it is killed by the caller's stop)
    const timer = setTimeout(
      () => reject(new Error(`${name} did not start within ${timeoutMs} ms: ${stderr.join('').slice(-2000)}`)),
      timeoutMs,
    );
    onListening = (fields) => {
      clearTimeout(timer);
      resolve(fields);
    };
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening: ${stderr.join('').slice(-2000)}`));
    });
  });
  return {
    name,
    listening,
    logs: () => [...lines],
    exited,
    signal(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
