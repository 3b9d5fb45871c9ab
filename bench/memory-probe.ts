/**
 * Loaded with `--import` into the server process of the memory section (bench/memory.ts), before bin/start.ts, so that the
 * process under test is exactly what `npm start` runs and the product needs no hook of its own. Over the IPC channel the
 * parent opened it answers:
 * - `sample`: RSS and its parts (V8 heap by space, external and array buffers, the WebAssembly memories — PGlite's heap —
 *   with their resident part, anonymous and file-backed RSS, the kernel's peak RSS);
 * - `reset-peak`: restarts the kernel's peak RSS (VmHWM) at the current RSS, so a window's peak is its own;
 * - `gc`: two full garbage collections (the flag is switched on at run time: the process starts with production flags).
 *
 * PGlite creates its WebAssembly.Memory itself and hides it, so the constructor is wrapped here to see each one; the
 * memories are held through WeakRefs, so a memory that PGlite drops (initdb's) is still collected.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { constants as perfConstants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** One reading of the process's memory, in MiB. */
export interface MemorySample {
  /** Milliseconds since the process started. */
  uptimeMs: number;
  rss: number;
  /** RSS of anonymous memory (heaps, wasm, malloc) and of mapped files (the node binary, shared libraries). */
  rssAnon: number;
  rssFile: number;
  /** The kernel's peak RSS since the process started or since the last `reset-peak`. */
  peakRss: number;
  heapUsed: number;
  heapTotal: number;
  /** Committed pages of the V8 heap (all spaces), what it adds to RSS. */
  heapCommitted: number;
  external: number;
  arrayBuffers: number;
  /** Size of the live WebAssembly memories (PGlite: its Postgres heap, shared_buffers included), and how much is resident. */
  wasm: number;
  wasmResident: number;
  wasmMemories: number;
  /** Per V8 heap space: used and committed. */
  spaces: Record<string, { used: number; committed: number }>;
  /** Event-loop delay since the previous sample, ms: p99 and max (a long synchronous stretch shows here). */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  /** Garbage collection since the process started: pause time (all kinds) and the number of full (mark-compact) GCs. */
  gcMs: number;
  majorGcs: number;
}

export type ProbeRequest = { id: number; type: 'sample' | 'reset-peak' | 'gc' };
export type ProbeReply = { id: number; sample?: MemorySample; error?: string };

const MiB = 2 ** 20;
const round = (bytes: number) => Math.round((bytes / MiB) * 10) / 10;

/** What is used of a WebAssembly.Memory (this project's TypeScript library has no WebAssembly JS API types). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
type WasmMemoryConstructor = new (descriptor: object) => WasmMemory;

const memories: WeakRef<WasmMemory>[] = [];
const wasmApi = (globalThis as unknown as { WebAssembly: { Memory: WasmMemoryConstructor } }).WebAssembly;
wasmApi.Memory = new Proxy(wasmApi.Memory, {
  construct(target, args: [object], newTarget: WasmMemoryConstructor) {
    const memory = Reflect.construct(target, args, newTarget) as WasmMemory;
    memories.push(new WeakRef(memory));
    return memory;
  },
});

function liveMemories(): WasmMemory[] {
  const live: WasmMemory[] = [];
  for (let i = memories.length - 1; i >= 0; i -= 1) {
    const memory = memories[i]!.deref();
    if (memory) live.push(memory);
    else memories.splice(i, 1);
  }
  return live;
}

/**
 * Resident bytes of the wasm memories: V8 reserves several GiB of address space per memory and makes the first
 * `byteLength` bytes read-write, so each memory is one anonymous rw-p mapping of exactly that size followed by the ---p
 * rest of its reservation; smaps gives that mapping's RSS.
 */
function wasmResident(sizes: readonly number[]): number {
  if (sizes.length === 0) return 0;
  let smaps: string;
  try {
    smaps = readFileSync('/proc/self/smaps', 'utf8');
  } catch {
    return Number.NaN;
  }
  const mappings: { start: number; end: number; perm: string; name: string; rss: number }[] = [];
  for (const line of smaps.split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      mappings.push({ start: parseInt(header[1]!, 16), end: parseInt(header[2]!, 16), perm: header[3]!, name: header[4]!.trim(), rss: 0 });
    } else if (line.startsWith('Rss:') && mappings.length > 0) {
      mappings[mappings.length - 1]!.rss = Number(/(\d+)/.exec(line)?.[1] ?? '0') * 1024;
    }
  }
  const wanted = [...sizes];
  let resident = 0;
  for (let i = 0; i + 1 < mappings.length; i += 1) {
    const mapping = mappings[i]!;
    const next = mappings[i + 1]!;
    const index = wanted.indexOf(mapping.end - mapping.start);
    if (index < 0 || mapping.perm !== 'rw-p' || mapping.name !== '' || next.perm !== '---p' || next.start !== mapping.end) continue;
    resident += mapping.rss;
    wanted.splice(index, 1);
  }
  return resident;
}

function statusKiB(): Record<string, number> {
  const values: Record<string, number> = {};
  try {
    for (const line of readFileSync('/proc/self/status', 'utf8').split('\n')) {
      const match = /^(\w+):\s+(\d+) kB/.exec(line);
      if (match) values[match[1]!] = Number(match[2]);
    }
  } catch {
    // Not Linux: the fields stay undefined and read as NaN.
  }
  return values;
}

const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();

const gcTotals = { ms: 0, major: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcTotals.ms += entry.duration;
    if ((entry as { detail?: { kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) gcTotals.major += 1;
  }
}).observe({ entryTypes: ['gc'] });

/**
 * The /proc files are read synchronously: a kernel file of unknown size is read by fs.readFile a few KiB per thread-pool
 * round trip (smaps: ~200 of them), which under load took seconds; read at once it costs ~10–20 ms of the event loop.
 */
function sample(): MemorySample {
  const delay = { p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 };
  loopDelay.reset();
  const usage = process.memoryUsage();
  const spaces: MemorySample['spaces'] = {};
  let committed = 0;
  for (const space of getHeapSpaceStatistics()) {
    spaces[space.space_name] = { used: round(space.space_used_size), committed: round(space.physical_space_size) };
    committed += space.physical_space_size;
  }
  const live = liveMemories();
  const sizes = live.map((memory) => memory.buffer.byteLength);
  const status = statusKiB();
  const kib = (name: string) => round((status[name] ?? Number.NaN) * 1024);
  return {
    uptimeMs: Math.round(process.uptime() * 1000),
    rss: round(usage.rss),
    rssAnon: kib('RssAnon'),
    rssFile: kib('RssFile'),
    peakRss: kib('VmHWM'),
    heapUsed: round(usage.heapUsed),
    heapTotal: round(usage.heapTotal),
    heapCommitted: round(committed),
    external: round(usage.external),
    arrayBuffers: round(usage.arrayBuffers),
    wasm: round(sizes.reduce((sum, size) => sum + size, 0)),
    wasmResident: round(wasmResident(sizes)),
    wasmMemories: live.length,
    spaces,
    loopDelayP99Ms: Math.round(delay.p99),
    loopDelayMaxMs: Math.round(delay.max),
    gcMs: Math.round(gcTotals.ms),
    majorGcs: gcTotals.major,
  };
}

let gc: (() => void) | undefined;
async function collect(): Promise<void> {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  // Two passes a little apart: V8 returns freed pages to the system shortly after a GC, and WeakRef'd memories need a
  // second pass once their finalisation has run.
  gc();
  await new Promise((resolve) => setTimeout(resolve, 200));
  gc();
  await new Promise((resolve) => setTimeout(resolve, 200));
}

async function handle(request: ProbeRequest): Promise<ProbeReply> {
  switch (request.type) {
    case 'sample':
      return { id: request.id, sample: sample() };
    case 'reset-peak':
      // "5" resets VmHWM to the current RSS (Linux ≥ 4.0).
      writeFileSync('/proc/self/clear_refs', '5');
      return { id: request.id };
    case 'gc':
      await collect();
      return { id: request.id, sample: sample() };
  }
}

if (process.send) {
  process.on('message', (request: ProbeRequest) => {
    handle(request).then(
      (reply) => process.send?.(reply),
      (error: unknown) => process.send?.({ id: request.id, error: String(error) } satisfies ProbeReply),
    );
  });
  // The channel must not keep the process alive on its own: the server's listeners do, and a SIGTERM must still end it.
  process.channel?.unref();
}
