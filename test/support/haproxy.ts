import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * HAProxy (Debian's package, /usr/sbin/haproxy; .ci/run installs it) in front of the gateway processes, as a fleet runs
 * them: round robin over the gateways that answer /ready 200, checked every 300 ms, a gateway marked down after two
 * 503s (its shutdown pause, SHUTDOWN_DELAY_MS, is longer than that) and up again after two answers; a request whose
 * connection to a gateway fails before it was sent goes to the other one. Keep-alive on both sides, as in production.
 * HAProxy's statistics page (its own listener) tells which servers it has up: a test waits on that for a gateway back
 * in rotation, never on a pause.
 */

export const HAPROXY = '/usr/sbin/haproxy';

export function haproxyAvailable(): boolean {
  return existsSync(HAPROXY);
}

export interface HaproxyFrontend {
  /** Where HAProxy listens for it. */
  port: number;
  /** The gateway listeners it balances over (host:port). */
  servers: readonly string[];
}

/** A server of a backend as HAProxy's statistics show it (`status`: UP, DOWN, `UP 1/2` going down, `DOWN 1/2` going up…). */
export interface HaproxyServerState {
  backend: string;
  server: string;
  status: string;
}

export interface RunningHaproxy {
  /** The last lines HAProxy wrote (its warnings, if any). */
  output(): string;
  /** Every backend's servers (the gateways, `gateway1`… in the order of `servers`) as HAProxy's checks see them now. */
  servers(): Promise<HaproxyServerState[]>;
  stop(): Promise<void>;
}

/** The configuration for `frontends` (name → frontend), with the statistics page on `statsPort`. */
export function haproxyConfig(frontends: Record<string, HaproxyFrontend>, statsPort: number): string {
  const sections = Object.entries(frontends).map(
    ([name, frontend]) => `
frontend ${name}
  bind 127.0.0.1:${frontend.port}
  http-request disable-l7-retry if METH_POST
  default_backend ${name}_gateways

backend ${name}_gateways
  balance roundrobin
  option httpchk
  http-check send meth GET uri /ready
  # Checked every 300 ms, down after two failed checks (one slow answer on a busy machine is not an outage), up after
  # two good ones; a check may take up to 2 s (by default HAProxy would give it only the interval).
  timeout check 2s
  default-server inter 300ms fall 2 rise 2
${frontend.servers.map((server, index) => `  server gateway${index + 1} ${server} check`).join('\n')}
`,
  );
  return `global
  maxconn 2000

defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  timeout http-keep-alive 10s
  # A request whose connection to a gateway failed (nothing was sent) is tried again on the other gateway; a GET also
  # when the gateway closed the connection without answering. A POST is not sent twice: it may have run.
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response

listen stats
  bind 127.0.0.1:${statsPort}
  stats enable
  stats uri /
${sections.join('')}`;
}

/**
 * Starts HAProxy in the foreground with `frontends` and its statistics page on `statsPort`; its configuration is
 * written under `dir`.
 */
export async function startHaproxy(dir: string, frontends: Record<string, HaproxyFrontend>, statsPort: number): Promise<RunningHaproxy> {
  const file = join(dir, 'haproxy.cfg');
  await writeFile(file, haproxyConfig(frontends, statsPort));
  const child = spawn(HAPROXY, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(chunk.toString('utf8'));
    if (lines.length > 200) lines.shift();
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    output: () => lines.join(''),
    servers: async () => {
      const [head, ...rows] = (await (await fetch(`http://127.0.0.1:${statsPort}/;csv`)).text()).trim().split('\n');
      const columns = head!.replace(/^# /, '').split(',');
      const [backend, server, status] = ['pxname', 'svname', 'status'].map((name) => columns.indexOf(name));
      return rows
        .map((row) => row.split(','))
        .filter((cells) => cells[server!] !== 'FRONTEND' && cells[server!] !== 'BACKEND')
        .map((cells) => ({ backend: cells[backend!]!, server: cells[server!]!, status: cells[status!]! }));
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
