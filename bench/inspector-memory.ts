import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';

/**
 * Another Node process's memory after a full collection, through its inspector: SIGUSR1 opens the inspector of a running
 * process (on 127.0.0.1:9229, Node's default), HeapProfiler.collectGarbage collects, Runtime.evaluate reads
 * process.memoryUsage(). A process's RSS without a collection holds whatever garbage it last left, so per-object figures
 * taken from it are noise; after one they are what the process holds. For the bench's own server processes only.
 */
export interface InspectedMemory {
  rssMiB: number;
  heapUsedMiB: number;
}

export interface MemoryInspector {
  /** Collects garbage in the process, then reads its memory. */
  collectAndRead(): Promise<InspectedMemory>;
  close(): void;
}

const INSPECTOR = 'http://127.0.0.1:9229';

export async function inspectProcess(pid: number): Promise<MemoryInspector> {
  process.kill(pid, 'SIGUSR1');
  let target: string | undefined;
  for (let attempt = 0; attempt < 50 && target === undefined; attempt += 1) {
    await sleep(100);
    try {
      const list = (await (await fetch(`${INSPECTOR}/json/list`)).json()) as { webSocketDebuggerUrl?: string }[];
      target = list[0]?.webSocketDebuggerUrl;
    } catch {
      // Not listening yet.
    }
  }
  if (!target) throw new Error(`the inspector of process ${pid} did not open on ${INSPECTOR}`);
  const socket = new WebSocket(target);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let nextId = 1;
  const waiting = new Map<number, (result: unknown) => void>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  });
  const call = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  return {
    async collectAndRead() {
      await call('HeapProfiler.collectGarbage');
      await call('HeapProfiler.collectGarbage');
      const evaluated = (await call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true })) as {
        result: { value: string };
      };
      const usage = JSON.parse(evaluated.result.value) as { rss: number; heapUsed: number };
      return { rssMiB: usage.rss / 1_048_576, heapUsedMiB: usage.heapUsed / 1_048_576 };
    },
    close() {
      socket.close();
    },
  };
}
