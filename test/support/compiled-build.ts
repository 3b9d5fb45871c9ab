import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isProcessAlive } from '../../lib/is-process-alive.ts';
import { eventually } from './eventually.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Brings dist/ up to date (`bin/build.mjs --if-stale`, as `npm start` does) before a test starts the compiled system —
 * one test process at a time: vitest runs test files in parallel workers, and two builds at once would delete each
 * other's output (a build starts by removing dist/). The lock is a file under the temporary directory, named after this
 * checkout; one left by a process that died is taken over.
 */
export async function ensureCompiledBuild(timeoutMs = 100_000): Promise<void> {
  const lock = join(tmpdir(), `tributary-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 16)}.lock`);
  const takeLock = async () => {
    try {
      await writeFile(lock, String(process.pid), { flag: 'wx' });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number((await readFile(lock, 'utf8').catch(() => '')).trim());
      // A lock whose process died is removed, and taken at the next look.
      if (!isProcessAlive(holder)) await rm(lock, { force: true });
      return false;
    }
  };
  await eventually(takeLock, `the build lock ${lock}: dist/ is being built by another process (its pid is in the file)`, {
    withinMs: timeoutMs,
  });
  try {
    execFileSync(process.execPath, [join(ROOT, 'bin', 'build.mjs'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
  } finally {
    await rm(lock, { force: true });
  }
}
