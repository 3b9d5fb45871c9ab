import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/**
 * `--upload-store-core` (issue 28): the S3 variants' object store on a core of its own, the system under test on the
 * others. In production the object store does its work on machines of its own; here s3rver — the only S3-compatible
 * server this machine has, and a JavaScript one — spends 30–38 ms of CPU per 5 MB object on the same two cores as the
 * server, PostgreSQL and the load generator, so a shared-core run measures s3rver as much as the server (bench/README.md,
 * "On the S3 store"). With this, every window — the local store's and the S3 store's alike — runs the bench servers,
 * the bench process (the load generator) and PostgreSQL's processes (the postmaster too, so that new backends inherit it)
 * on all cores but the last, and s3rver alone on the last. Affinities are set with util-linux's `taskset` for every
 * thread of each process, and set back to every core when the windows end.
 */
export interface StoreCorePinning {
  /** What was pinned where, for the report. */
  description: string;
  restore(): void;
}

function everyCore(): string {
  return `0-${cpus().length - 1}`;
}

function pin(pid: number, cores: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-cp', cores, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    // The process ended meanwhile (a PostgreSQL backend that closed), or taskset is missing.
    return false;
  }
}

/** PostgreSQL's processes on this machine (postmaster, backends, its workers), by their command name. */
function postgresPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') pids.push(Number(entry));
    } catch {
      // Gone while listing.
    }
  }
  return pids;
}

/**
 * Pins `systemPids` and PostgreSQL's processes to every core but the last, and `storePid` to the last. Refuses (throws)
 * on a machine of one core, or without taskset.
 */
export function pinStoreApart(systemPids: readonly number[], storePid: number, withPostgres: boolean): StoreCorePinning {
  const count = cpus().length;
  if (count < 2) throw new Error('--upload-store-core needs at least two cores');
  const systemCores = count === 2 ? '0' : `0-${count - 2}`;
  const storeCore = String(count - 1);
  if (!pin(storePid, storeCore)) throw new Error('--upload-store-core: taskset could not pin the store (is util-linux installed?)');
  const pinned = [storePid];
  for (const pid of [...systemPids, ...(withPostgres ? postgresPids() : [])]) if (pin(pid, systemCores)) pinned.push(pid);
  return {
    description: `s3rver on core ${storeCore}; the bench servers, the load generator${withPostgres ? ' and PostgreSQL' : ''} on core${count === 2 ? '' : 's'} ${systemCores}`,
    restore() {
      const all = everyCore();
      for (const pid of new Set([...pinned, ...(withPostgres ? postgresPids() : [])])) pin(pid, all);
    },
  };
}
