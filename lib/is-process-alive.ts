/**
 * Whether a process with this id runs on this machine (signal 0: nothing is sent). EPERM means it runs under another
 * user. Used by the lock files and announcements that name their holder's pid (the embedded database's lock, the
 * command channel, the test build lock).
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
