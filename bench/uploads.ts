/**
 * The upload scenarios of `npm run bench` (Area D, the simple image upload), run by bench/run.ts against the server child
 * of bench/server.ts. Each scenario sends one multipart body, built once, at 1, 4 and 16 connections; each measured window
 * reports uploads/s, MB/s, p50/p99, × the bare busboy-to-disk baseline at the same size and connections, CPU per upload
 * and the server's RSS before and at its peak. Then the check of the issue: peak RSS must not grow beyond about twice the
 * bytes in flight as concurrency rises. The S3 variants (`-s3`, issue 28) run the same REST uploads against a second server
 * child whose media go to a bucket of s3rver in a process of its own (bench/s3-store.ts), each right after its local
 * scenario, and are judged against it: S3 ÷ local throughput ≥ S3_VS_LOCAL_TARGET. See bench/README.md, "Uploads (Area D)".
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { png } from '../test/support/image-fixtures.ts';
import type { BenchServerInfo, ServerWindow } from './bench-protocol.ts';
import { machineTimes, runBodyLoad, type LoadResult } from './load.ts';
import { summariseProfile, type CpuProfile, type ProfileSummary } from './profile-summary.ts';
import type { S3StoreProcess } from './s3-store.ts';
import { formatTable } from './format-table.ts';

export const UPLOAD_SCENARIO_NAMES = [
  'upload-baseline',
  'upload-rest-1mb',
  'upload-rest-5mb',
  'upload-graphql-1mb',
  'upload-graphql-5mb',
  'upload-graphql-http-5mb',
  'upload-rest-1mb-s3',
  'upload-rest-5mb-s3',
] as const;
export type UploadScenarioName = (typeof UPLOAD_SCENARIO_NAMES)[number];

/** The S3 variants (issue 28), each with the local-store scenario it is judged against. */
export const S3_UPLOAD_SCENARIOS = {
  'upload-rest-1mb-s3': 'upload-rest-1mb',
  'upload-rest-5mb-s3': 'upload-rest-5mb',
} as const satisfies Partial<Record<UploadScenarioName, UploadScenarioName>>;
type S3ScenarioName = keyof typeof S3_UPLOAD_SCENARIOS;
export const S3_UPLOAD_SCENARIO_NAMES = Object.keys(S3_UPLOAD_SCENARIOS) as S3ScenarioName[];
const isS3Scenario = (name: string): name is S3ScenarioName => name in S3_UPLOAD_SCENARIOS;

/** Issue 28: upload throughput on the S3 store at least this share of the local store's, at the same connections. */
export const S3_VS_LOCAL_TARGET = 0.8;

/** The two file sizes: 1 MiB, and 5,000,000 bytes (under the media rule's 5,242,880). */
export const UPLOAD_SIZES = { '1mb': 1_048_576, '5mb': 5_000_000 } as const;
type SizeName = keyof typeof UPLOAD_SIZES;

/** RSS growth allowed per extra byte in flight (the issue: "about twice the bytes in flight"). */
export const RSS_GROWTH_FACTOR = 2;

const GRAPHQL_UPLOAD = 'mutation($f: Upload){ uploadMedia(media: $f){ mediaId size } }';
const MiB = 2 ** 20;

export const UPLOAD_DESCRIPTIONS: Record<UploadScenarioName, string> = {
  'upload-baseline':
    'POST /upload on a bare node:http handler: @fastify/busboy parses the same multipart body and pipes part `media` to a new file; 200 {"size":n}',
  'upload-rest-1mb':
    'POST /1.1/media/upload.json, 1 MiB PNG in part `media`, Bearer user token: REST → gateway → media subgraph (in-process)',
  'upload-rest-5mb': 'the same with a 5,000,000-byte PNG',
  'upload-graphql-1mb': 'GraphQL multipart request of uploadMedia(media: $f) to the gateway (embedded mode), 1 MiB PNG',
  'upload-graphql-5mb': 'the same with a 5,000,000-byte PNG',
  'upload-graphql-http-5mb':
    'the 5,000,000-byte GraphQL upload to the distributed-mode gateway, which re-streams it as multipart over HTTP to the media subgraph server',
  'upload-rest-1mb-s3':
    'upload-rest-1mb on a server with MEDIA_STORE=s3: the blob goes to a bucket of s3rver (127.0.0.1, a process of its own, fresh directory)',
  'upload-rest-5mb-s3': 'the same with a 5,000,000-byte PNG',
};

interface UploadTarget {
  scenario: UploadScenarioName;
  /** The server child it is sent to: the run's one (media in a directory), or the S3 variants' one. */
  store: 'local' | 's3';
  size: SizeName;
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Is this reply body a successful upload of the whole file? */
  verify(text: string): boolean;
}

interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer | string;
}

/** A multipart/form-data body and its content type. */
export function multipartBody(parts: readonly Part[]): { body: Buffer; contentType: string } {
  const boundary = `----tributary-bench-${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    const type = part.contentType ? `Content-Type: ${part.contentType}\r\n` : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`, 'utf8'));
    chunks.push(typeof part.data === 'string' ? Buffer.from(part.data, 'utf8') : part.data);
    chunks.push(Buffer.from('\r\n', 'utf8'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`, 'utf8'));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The targets of the wanted scenarios, in run order: by size, the baseline first, each S3 variant right after its local
 * scenario (so that the two see the machine alike). `s3Info`: the S3 variants' server.
 */
function buildTargets(info: BenchServerInfo, s3Info: BenchServerInfo | undefined, wanted: ReadonlySet<string>): UploadTarget[] {
  const files: Record<SizeName, Buffer> = {
    '1mb': png(320, 240, { padToBytes: UPLOAD_SIZES['1mb'] }),
    '5mb': png(320, 240, { padToBytes: UPLOAD_SIZES['5mb'] }),
  };
  const auth = { authorization: `Bearer ${info.uploads.token}` };
  const targets: UploadTarget[] = [];
  for (const size of Object.keys(UPLOAD_SIZES) as SizeName[]) {
    const bytes = UPLOAD_SIZES[size];
    const file = files[size];
    const rest = multipartBody([{ name: 'media', filename: 'bench.png', contentType: 'image/png', data: file }]);
    const graphql = multipartBody([
      { name: 'operations', contentType: 'application/json', data: JSON.stringify({ query: GRAPHQL_UPLOAD, variables: { f: null } }) },
      { name: 'map', contentType: 'application/json', data: JSON.stringify({ 0: ['variables.f'] }) },
      { name: '0', filename: 'bench.png', contentType: 'image/png', data: file },
    ]);
    const graphqlHeaders = { ...auth, 'content-type': graphql.contentType, 'apollo-require-preflight': 'true' };
    const graphqlOk = (text: string) => {
      const reply = parse(text) as { data?: { uploadMedia?: { mediaId?: unknown; size?: unknown } }; errors?: unknown } | undefined;
      return !reply?.errors && typeof reply?.data?.uploadMedia?.mediaId === 'string' && reply.data.uploadMedia.size === bytes;
    };
    const restOk = (text: string) => {
      const reply = parse(text) as { media_id_string?: unknown; size?: unknown } | undefined;
      return typeof reply?.media_id_string === 'string' && reply.size === bytes;
    };
    const candidates: UploadTarget[] = [
      {
        scenario: 'upload-baseline',
        store: 'local',
        size,
        url: info.uploads.baselineUrl,
        headers: { 'content-type': rest.contentType },
        body: rest.body,
        verify: (text) => (parse(text) as { size?: unknown } | undefined)?.size === bytes,
      },
      {
        scenario: `upload-rest-${size}`,
        store: 'local',
        size,
        url: `${info.restUrl}/1.1/media/upload.json`,
        headers: { ...auth, 'content-type': rest.contentType },
        body: rest.body,
        verify: restOk,
      },
      ...(s3Info
        ? [
            {
              scenario: `upload-rest-${size}-s3`,
              store: 's3',
              size,
              url: `${s3Info.restUrl}/1.1/media/upload.json`,
              headers: { authorization: `Bearer ${s3Info.uploads.token}`, 'content-type': rest.contentType },
              body: rest.body,
              verify: restOk,
            } satisfies UploadTarget,
          ]
        : []),
      {
        scenario: `upload-graphql-${size}`,
        store: 'local',
        size,
        url: info.gatewayUrl,
        headers: graphqlHeaders,
        body: graphql.body,
        verify: graphqlOk,
      },
      {
        scenario: `upload-graphql-http-${size}` as UploadScenarioName,
        store: 'local',
        size,
        url: info.remoteGatewayUrl,
        headers: graphqlHeaders,
        body: graphql.body,
        verify: graphqlOk,
      },
    ];
    for (const target of candidates) if (wanted.has(target.scenario)) targets.push(target);
  }
  return targets;
}

export interface UploadReport {
  scenario: UploadScenarioName;
  /** Where the server kept the uploads: its directory, or a bucket of the bench's s3rver. */
  store: 'local' | 's3';
  size: SizeName;
  bytes: number;
  connections: number;
  skipped?: string;
  /** The pre-flight upload failed: the scenario is broken, not slow (the bench exits 1). */
  broken?: boolean;
  result?: LoadResult;
  uploadsPerSecond?: number;
  /** Decimal megabytes (10^6 bytes) of file per second. */
  megabytesPerSecond?: number;
  /** uploads/s ÷ the baseline's uploads/s at the same size and connections. */
  vsBaseline?: number;
  server?: ServerWindow;
  serverCpuMsPerUpload?: number;
  databaseCpuMsPerUpload?: number;
  clientCpuPercent?: number;
  /** Cores busy outside the server, the database, the S3 server and the load generator during the window (noise). */
  otherCores?: number;
  /** S3 variants: CPU of the s3rver process per successful upload (its own process; a remote store's work elsewhere). */
  storeCpuMsPerUpload?: number;
  /** S3 variants: the s3rver process's RSS at the window's end and its peak so far (kernel), MiB. */
  storeRss?: { rssMiB: number; peakMiB: number };
  /**
   * Spool files (graphql-upload-ts's capacitor-*.tmp in the server's TMPDIR) that the window left behind: still there once
   * the server was idle again, minus those there before it. The window's end aborts the uploads in flight, so this counts
   * the aborted uploads whose temporary file (and descriptor) was never released.
   */
  spoolLeaked?: number;
  /** With --profile: a CPU profile of the server during the window. */
  profile?: { file: string; summary: ProfileSummary };
}

export interface RssCheck {
  scenario: UploadScenarioName;
  size: SizeName;
  from: number;
  to: number;
  /** peakRSS(to) − peakRSS(from), MiB (sampled every ~5 ms). */
  growthMiB: number;
  /** The same from the kernel's peak (VmHWM of each window). */
  kernelGrowthMiB: number | undefined;
  /**
   * (peak − RSS before) at `to` minus the same at `from`: the growth within the windows, which memory kept from an earlier
   * window (V8 and malloc do not give everything back) cannot hide.
   */
  riseGrowthMiB: number;
  riseVerdict: 'PASS' | 'MISS';
  /** RSS_GROWTH_FACTOR × (to − from) × file size, MiB. */
  allowanceMiB: number;
  /** growth ÷ ((to − from) × file size): RSS bytes per extra byte in flight. */
  perByteInFlight: number;
  verdict: 'PASS' | 'MISS';
}

/** A server child the upload windows are sent to, as the run reaches it. */
export interface UploadServerSide {
  info: BenchServerInfo;
  control<T>(path: string): Promise<T>;
  /** Waits until the server is idle again. */
  settle(): Promise<void>;
}

export interface UploadRunDeps {
  info: BenchServerInfo;
  wanted: ReadonlySet<string>;
  connections: readonly number[];
  warmupS: number;
  durationS: number;
  control<T>(path: string): Promise<T>;
  /** Waits until the server is idle again. */
  settle(): Promise<void>;
  /** With --profile: where to write each window's CPU profile (the server writes it), by window label. */
  profileFile?(label: string): string;
  /** The S3 variants' server (MEDIA_STORE=s3) and the s3rver process that holds its bucket; absent: none is wanted. */
  s3?: UploadServerSide & { store: S3StoreProcess };
}

async function preflight(target: UploadTarget): Promise<void> {
  const response = await fetch(target.url, { method: 'POST', headers: target.headers, body: target.body });
  const text = await response.text();
  if (response.status !== 200 || !target.verify(text)) {
    throw new Error(`${target.scenario}: unexpected reply HTTP ${response.status} ${text.slice(0, 300)}`);
  }
}

export async function runUploads(deps: UploadRunDeps): Promise<UploadReport[]> {
  const reports: UploadReport[] = [];
  const label = (target: UploadTarget, c?: number) =>
    `${target.scenario === 'upload-baseline' ? `upload-baseline-${target.size}` : target.scenario}${c === undefined ? '' : ` c=${c}`}`.padEnd(
      30,
    );
  const s3 = deps.s3;
  const baseOf = (target: UploadTarget) => ({
    scenario: target.scenario,
    store: target.store,
    size: target.size,
    bytes: UPLOAD_SIZES[target.size],
  });
  // Each scenario's windows in turn, except that an S3 variant shares its local scenario's turn: at each connection
  // count, the local window and then the S3 one, so that the two see the machine alike (other sessions' load comes and
  // goes over the minutes the windows take).
  const turns: UploadTarget[][] = [];
  const targets = buildTargets(deps.info, s3?.info, deps.wanted);
  for (const target of targets) {
    try {
      await preflight(target);
    } catch (error) {
      console.log(`  ${label(target)} FAILED — ${(error as Error).message}`);
      for (const connections of deps.connections)
        reports.push({ ...baseOf(target), connections, broken: true, skipped: (error as Error).message });
      continue;
    }
    const local = isS3Scenario(target.scenario) ? S3_UPLOAD_SCENARIOS[target.scenario] : undefined;
    const turn = local === undefined ? undefined : turns.find((candidate) => candidate[0]!.scenario === local);
    if (turn) turn.push(target);
    else turns.push([target]);
  }
  for (const turn of turns) {
    for (const connections of deps.connections) {
      for (const target of turn) reports.push(await measureWindow(target, connections));
    }
  }
  // Reported scenario by scenario, in the targets' order (each S3 variant after its local scenario).
  const order = (report: UploadReport) => targets.findIndex((target) => target.scenario === report.scenario && target.size === report.size);
  reports.sort((a, b) => order(a) - order(b));

  async function measureWindow(target: UploadTarget, connections: number): Promise<UploadReport> {
    const base = baseOf(target);
    const side: UploadServerSide = target.store === 's3' && s3 ? s3 : deps;
    const store = target.store === 's3' ? s3?.store : undefined;
    const load = (c: number, durationS: number) =>
      runBodyLoad({ url: target.url, headers: target.headers, body: target.body, connections: c, durationS, verifyBody: target.verify });
    if (deps.warmupS > 0) {
      await load(connections, deps.warmupS);
      await side.settle();
    }
    // Stored uploads go between windows: the disk stays small and the kernel has little to write back.
    await side.control('/uploads/clear');
    await store?.clear();
    const { files: spooledBefore } = await side.control<{ files: number }>('/uploads/spooled');
    const profileFile = deps.profileFile?.(
      `${target.scenario === 'upload-baseline' ? `upload-baseline-${target.size}` : target.scenario}-c${connections}`,
    );
    if (profileFile) await side.control('/profile/start');
    await side.control('/window/start?rss=5');
    const storeCpuBefore = await store?.cpuMs();
    const clientCpu = process.cpuUsage();
    const machineBefore = machineTimes();
    const result = await load(connections, deps.durationS);
    const machineAfter = machineTimes();
    const clientUsed = process.cpuUsage(clientCpu);
    const storeCpuAfter = await store?.cpuMs();
    const server = await side.control<ServerWindow>('/window/stop');
    const storeRss = await store?.rss();
    let profile: UploadReport['profile'];
    if (profileFile) {
      await side.control(`/profile/stop?file=${encodeURIComponent(profileFile)}`);
      profile = { file: profileFile, summary: summariseProfile(JSON.parse(await readFile(profileFile, 'utf8')) as CpuProfile, 15) };
    }
    await side.settle();
    const { files: spooledAfter } = await side.control<{ files: number }>('/uploads/spooled');
    const spoolLeaked = spooledAfter - spooledBefore;

    const total = machineAfter.total - machineBefore.total;
    const busyShare = total > 0 ? 1 - (machineAfter.idle - machineBefore.idle) / total : Number.NaN;
    const serverCores = (server.cpuUserMs + server.cpuSystemMs) / server.elapsedMs;
    const clientCores = (clientUsed.user + clientUsed.system) / 1000 / server.elapsedMs;
    const databaseCores = (server.databaseCpuMs ?? 0) / server.elapsedMs;
    const storeCpuMs = storeCpuBefore !== undefined && storeCpuAfter !== undefined ? storeCpuAfter - storeCpuBefore : undefined;
    const storeCores = (storeCpuMs ?? 0) / server.elapsedMs;
    const ok = result.ok;
    const report: UploadReport = {
      ...base,
      connections,
      result,
      uploadsPerSecond: result.requestsPerSecond,
      megabytesPerSecond: (result.requestsPerSecond * base.bytes) / 1e6,
      server,
      serverCpuMsPerUpload: ok > 0 ? (server.cpuUserMs + server.cpuSystemMs) / ok : Number.NaN,
      databaseCpuMsPerUpload:
        side.info.database === 'pglite' ? 0 : server.databaseCpuMs !== undefined && ok > 0 ? server.databaseCpuMs / ok : undefined,
      clientCpuPercent: Math.round(clientCores * 100),
      otherCores: Math.round((busyShare * cpus().length - serverCores - clientCores - databaseCores - storeCores) * 100) / 100,
      ...(store && {
        storeCpuMsPerUpload: storeCpuMs !== undefined && ok > 0 ? storeCpuMs / ok : Number.NaN,
        ...(storeRss && { storeRss: { rssMiB: round(storeRss.rss), peakMiB: round(storeRss.peak) } }),
      }),
      spoolLeaked,
      ...(profile ? { profile } : {}),
    };
    const failures = result.failed > 0 ? `  (${result.failed} failed: ${result.firstFailure})` : '';
    const rss = server.rss ? `  RSS ${server.rss.rssBeforeMiB} → peak ${server.rss.rssPeakMiB} MiB` : '';
    const s3rver = store ? `  s3rver ${fixed(report.storeCpuMsPerUpload, 1)} ms/upload` : '';
    console.log(
      `  ${label(target, connections)} ${fixed(result.requestsPerSecond, 1).padStart(7)} uploads/s  ${fixed(report.megabytesPerSecond, 1).padStart(6)} MB/s  p50 ${fixed(result.p50Ms, 0)} ms  p99 ${fixed(result.p99Ms, 0)} ms${rss}${s3rver}${failures}`,
    );
    return report;
  }
  await deps.control('/uploads/clear');
  if (s3) {
    await s3.control('/uploads/clear');
    await s3.store.clear();
  }
  for (const report of reports) {
    if (!report.result || report.scenario === 'upload-baseline') continue;
    const baseline = reports.find(
      (other) => other.scenario === 'upload-baseline' && other.size === report.size && other.connections === report.connections,
    );
    if (baseline?.uploadsPerSecond) report.vsBaseline = (report.uploadsPerSecond ?? Number.NaN) / baseline.uploadsPerSecond;
  }
  return reports;
}

/** Peak RSS growth from the lowest concurrency to each higher one, per scenario and size. */
export function rssChecks(reports: readonly UploadReport[]): RssCheck[] {
  const checks: RssCheck[] = [];
  const groups = new Map<string, UploadReport[]>();
  for (const report of reports) {
    if (!report.server?.rss) continue;
    const key = `${report.scenario} ${report.size}`;
    groups.set(key, [...(groups.get(key) ?? []), report]);
  }
  for (const group of groups.values()) {
    const sorted = [...group].sort((a, b) => a.connections - b.connections);
    const low = sorted[0]!;
    for (const high of sorted.slice(1)) {
      const inFlight = (high.connections - low.connections) * high.bytes;
      const growthMiB = high.server!.rss!.rssPeakMiB - low.server!.rss!.rssPeakMiB;
      const kernelHigh = high.server!.rss!.rssKernelPeakMiB;
      const kernelLow = low.server!.rss!.rssKernelPeakMiB;
      const allowanceMiB = (RSS_GROWTH_FACTOR * inFlight) / MiB;
      const rise = (report: UploadReport) => report.server!.rss!.rssPeakMiB - report.server!.rss!.rssBeforeMiB;
      const riseGrowthMiB = rise(high) - rise(low);
      checks.push({
        scenario: high.scenario,
        size: high.size,
        from: low.connections,
        to: high.connections,
        growthMiB: round(growthMiB),
        kernelGrowthMiB: kernelHigh !== undefined && kernelLow !== undefined ? round(kernelHigh - kernelLow) : undefined,
        allowanceMiB: round(allowanceMiB),
        perByteInFlight: round((growthMiB * MiB) / inFlight, 2),
        verdict: growthMiB <= allowanceMiB ? 'PASS' : 'MISS',
        riseGrowthMiB: round(riseGrowthMiB),
        riseVerdict: riseGrowthMiB <= allowanceMiB ? 'PASS' : 'MISS',
      });
    }
  }
  return checks;
}

/** One S3 window beside its local-store window at the same connections (issue 28). */
export interface S3Comparison {
  scenario: S3ScenarioName;
  local: UploadScenarioName;
  size: SizeName;
  connections: number;
  localUploadsPerSecond: number;
  s3UploadsPerSecond: number;
  /** S3 ÷ local uploads/s: the issue's figure, held to S3_VS_LOCAL_TARGET. */
  throughputRatio: number;
  verdict: 'PASS' | 'MISS';
  /** Server CPU per upload, local ÷ S3: what the S3 path costs the server itself (a remote store's work is elsewhere). */
  serverCpuRatio: number;
  localServerCpuMsPerUpload: number;
  s3ServerCpuMsPerUpload: number;
  /** s3rver's CPU per upload (its own process, on this machine's cores too). */
  storeCpuMsPerUpload: number | undefined;
  localPeakRssMiB: number | undefined;
  s3PeakRssMiB: number | undefined;
  /** The server's GC pauses per upload, local and S3, ms. */
  localGcMsPerUpload: number | undefined;
  s3GcMsPerUpload: number | undefined;
}

function gcPerUpload(report: UploadReport): number | undefined {
  const gc = report.server?.gcMs;
  const ok = report.result?.ok ?? 0;
  return gc && ok > 0 ? round((gc.scavenge + gc.markCompact + gc.other) / ok, 1) : undefined;
}

/** Each S3 window beside its local one (same size and connections). */
export function s3Comparisons(reports: readonly UploadReport[]): S3Comparison[] {
  const comparisons: S3Comparison[] = [];
  for (const report of reports) {
    if (!isS3Scenario(report.scenario) || !report.result) continue;
    const localName = S3_UPLOAD_SCENARIOS[report.scenario];
    const local = reports.find((other) => other.scenario === localName && other.connections === report.connections && other.result);
    if (!local) continue;
    const throughputRatio = (report.uploadsPerSecond ?? Number.NaN) / (local.uploadsPerSecond ?? Number.NaN);
    comparisons.push({
      scenario: report.scenario,
      local: localName,
      size: report.size,
      connections: report.connections,
      localUploadsPerSecond: round(local.uploadsPerSecond ?? Number.NaN),
      s3UploadsPerSecond: round(report.uploadsPerSecond ?? Number.NaN),
      throughputRatio: round(throughputRatio, 2),
      verdict: throughputRatio >= S3_VS_LOCAL_TARGET ? 'PASS' : 'MISS',
      serverCpuRatio: round((local.serverCpuMsPerUpload ?? Number.NaN) / (report.serverCpuMsPerUpload ?? Number.NaN), 2),
      localServerCpuMsPerUpload: round(local.serverCpuMsPerUpload ?? Number.NaN),
      s3ServerCpuMsPerUpload: round(report.serverCpuMsPerUpload ?? Number.NaN),
      storeCpuMsPerUpload: report.storeCpuMsPerUpload === undefined ? undefined : round(report.storeCpuMsPerUpload),
      localPeakRssMiB: local.server?.rss?.rssPeakMiB,
      s3PeakRssMiB: report.server?.rss?.rssPeakMiB,
      localGcMsPerUpload: gcPerUpload(local),
      s3GcMsPerUpload: gcPerUpload(report),
    });
  }
  return comparisons;
}

function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function fixed(value: number | undefined, digits: number): string {
  return value === undefined || Number.isNaN(value) ? '—' : value.toFixed(digits);
}

export function uploadTable(reports: readonly UploadReport[]): string {
  const header = [
    'scenario',
    'size',
    'conn',
    'uploads/s',
    'MB/s',
    'p50 ms',
    'p99 ms',
    '× baseline',
    'failed',
    'server ms/upload',
    'db ms/upload',
    's3rver ms/upload',
    'server ELU',
    'RSS before MiB',
    'peak RSS MiB',
    'kernel peak MiB',
    'client CPU',
    'other cores',
    'spool leaked',
  ];
  const rows = reports.map((report) =>
    report.result
      ? [
          report.scenario,
          report.size,
          String(report.connections),
          fixed(report.uploadsPerSecond, 1),
          fixed(report.megabytesPerSecond, 1),
          fixed(report.result.p50Ms, 0),
          fixed(report.result.p99Ms, 0),
          report.scenario === 'upload-baseline' ? '1.00' : fixed(report.vsBaseline, 2),
          String(report.result.failed),
          fixed(report.serverCpuMsPerUpload, 2),
          fixed(report.databaseCpuMsPerUpload, 2),
          fixed(report.storeCpuMsPerUpload, 2),
          fixed(report.server?.eventLoopUtilization, 2),
          fixed(report.server?.rss?.rssBeforeMiB, 0),
          fixed(report.server?.rss?.rssPeakMiB, 0),
          fixed(report.server?.rss?.rssKernelPeakMiB, 0),
          `${report.clientCpuPercent}%`,
          fixed(report.otherCores, 2),
          String(report.spoolLeaked ?? '—'),
        ]
      : [
          report.scenario,
          report.size,
          String(report.connections),
          report.broken ? 'FAILED' : 'skipped',
          ...new Array<string>(header.length - 4).fill(''),
        ],
  );
  return formatTable(header, rows, 2);
}

/** Prints the table, the column notes and the RSS check; returns the checks. */
export function printUploadSummary(reports: readonly UploadReport[]): RssCheck[] {
  console.log(`\nUploads (Area D): 1mb = ${UPLOAD_SIZES['1mb']} bytes, 5mb = ${UPLOAD_SIZES['5mb']} bytes of PNG; MB = 10^6 bytes\n`);
  console.log(`${uploadTable(reports)}\n`);
  console.log('× baseline: uploads/s ÷ upload-baseline at the same size and connections. server/db ms/upload: CPU of the server process');
  console.log('/ the PostgreSQL backends per successful upload. RSS before: after a full GC at the start of the window; peak RSS:');
  console.log(
    'largest of process.memoryUsage.rss() sampled every 5 ms (worker thread) during it; kernel peak: VmHWM, reset at the start of the',
  );
  console.log("window. spool leaked: temporary upload files (graphql-upload-ts's capacitor-*.tmp in the server's TMPDIR) that the");
  console.log('window left behind once the server was idle again; its end aborts the uploads in flight. s3rver ms/upload: CPU of the');
  console.log("S3 variants' s3rver process (127.0.0.1, a process of its own) per successful upload; its cores are not counted as other.\n");
  const noisy = reports.filter((report) => (report.otherCores ?? 0) > 0.25);
  if (noisy.length > 0) {
    console.log(
      `WARNING: other processes used CPU during ${noisy.map((report) => `${report.scenario}/${report.size}/c${report.connections}`).join(', ')}; those figures are noisy.\n`,
    );
  }
  const leaks = reports.filter((report) => (report.spoolLeaked ?? 0) > 0);
  if (leaks.length > 0) {
    console.log(
      `WARNING: aborted uploads left their temporary file and descriptor behind in ${leaks.map((report) => `${report.scenario}/c${report.connections} (${report.spoolLeaked})`).join(', ')}.\n`,
    );
  }
  const checks = rssChecks(reports);
  if (checks.length > 0) {
    console.log(`Peak RSS must not grow beyond about ${RSS_GROWTH_FACTOR}× the bytes in flight as concurrency rises:`);
    console.log('  peakRSS(c) − peakRSS(lowest c) ≤ 2 × (c − lowest c) × file size; "within windows": the same with each');
    console.log("  window's rise (peak − RSS before) in place of its peak, which memory kept from earlier windows cannot hide");
    for (const check of checks) {
      const product = check.scenario === 'upload-baseline' ? '  (baseline, for reference)' : '';
      console.log(
        `  ${`${check.scenario} ${check.size}`.padEnd(28)} c=${check.from}→${check.to}`.padEnd(42) +
          `${check.growthMiB >= 0 ? '+' : ''}${check.growthMiB.toFixed(1).padStart(6)} MiB (kernel ${check.kernelGrowthMiB === undefined ? '—' : `${check.kernelGrowthMiB >= 0 ? '+' : ''}${check.kernelGrowthMiB.toFixed(1)}`} MiB)` +
          `  allowance ${check.allowanceMiB.toFixed(1).padStart(6)} MiB  ${check.perByteInFlight.toFixed(2).padStart(5)} × bytes in flight  ${check.verdict}` +
          `  (within windows ${check.riseGrowthMiB >= 0 ? '+' : ''}${check.riseGrowthMiB.toFixed(1)} MiB ${check.riseVerdict})${product}`,
      );
    }
    console.log('');
  }
  const comparisons = s3Comparisons(reports);
  if (comparisons.length > 0) {
    console.log(
      `On the S3 store (issue 28): each -s3 window beside its local-store window, S3 ÷ local throughput ≥ ${S3_VS_LOCAL_TARGET}:`,
    );
    for (const c of comparisons) {
      console.log(
        `  ${`${c.local} c=${c.connections}`.padEnd(22)} local ${fixed(c.localUploadsPerSecond, 1).padStart(5)}  S3 ${fixed(c.s3UploadsPerSecond, 1).padStart(5)} uploads/s` +
          `  S3 ÷ local ${fixed(c.throughputRatio, 2)} ${c.verdict}` +
          `   server ms/upload ${fixed(c.localServerCpuMsPerUpload, 1)} → ${fixed(c.s3ServerCpuMsPerUpload, 1)} (by CPU ${fixed(c.serverCpuRatio, 2)})` +
          `  + s3rver ${fixed(c.storeCpuMsPerUpload, 1)}   GC ms/upload ${fixed(c.localGcMsPerUpload, 1)} → ${fixed(c.s3GcMsPerUpload, 1)}` +
          `   peak RSS ${fixed(c.localPeakRssMiB, 0)} → ${fixed(c.s3PeakRssMiB, 0)} MiB`,
      );
    }
    const misses = comparisons.filter((c) => c.verdict === 'MISS').length;
    console.log(
      `  ${misses === 0 ? 'PASS' : 'MISS'}: ${comparisons.length - misses} of ${comparisons.length} windows at ≥ ${S3_VS_LOCAL_TARGET} × the local store's throughput\n`,
    );
  }
  return checks;
}
