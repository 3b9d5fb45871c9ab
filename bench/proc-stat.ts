/**
 * Figures of another local process read from /proc (Linux): what the bench reports of processes it does not run itself
 * (the server children, gateways, subgraphs, PostgreSQL backends). Elsewhere the readers answer NaN / undefined.
 */
import { readFile } from 'node:fs/promises';
import pg from 'pg';

/** The kernel's clock ticks per second (USER_HZ), which utime and stime count in; 100 on every Linux the bench runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU milliseconds so far of a process (utime + stime), or undefined when /proc does not have it. */
export async function processCpuMs(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15 of the whole line.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** RSS and the kernel's peak RSS of a process, MiB (NaN when /proc does not have them). */
export async function processRss(pid: number): Promise<{ rss: number; peak: number }> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
    return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
  } catch {
    return { rss: Number.NaN, peak: Number.NaN };
  }
}

/** CPU milliseconds so far of each PostgreSQL backend connected to the database of `databaseUrl` (a local server). */
export async function backendsCpuByPid(databaseUrl: string): Promise<Map<number, number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    const usage = new Map<number, number>();
    for (const { pid } of rows) {
      const ms = await processCpuMs(pid);
      if (ms !== undefined) usage.set(pid, ms);
    }
    return usage;
  } finally {
    await client.end();
  }
}

/**
 * The backends' CPU between two readings: per backend, so that one a pool closed during the window takes nothing away
 * (its CPU since the first reading is lost, a small undercount), and one it opened counts from zero.
 */
export function backendsCpuBetween(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

/**
 * CPU milliseconds so far of the PostgreSQL backends connected to the throwaway database (a local server: read from /proc),
 * 0 on PGlite, whose work is in the server process. The pool keeps its connections, so the same backends serve the window.
 */
export async function backendsCpuMs(databaseUrl: string | undefined): Promise<number> {
  if (!databaseUrl) return 0;
  let total = 0;
  for (const ms of (await backendsCpuByPid(databaseUrl)).values()) total += ms;
  return total;
}
