/** What bench/server.ts tells bench/run.ts: its ready line and the figures of one measurement window. */
import type { StandInId } from '../lib/stand-ins/stand-in-registry.ts';
import type { RssWindow } from './upload-server.ts';

/** What the child prints, as one JSON line, once everything listens. */
export interface BenchServerInfo {
  type: 'ready';
  database: 'pglite' | 'postgres';
  /** The PostgreSQL server (credentials removed) when database is postgres. */
  databaseServer: string | undefined;
  baselineUrl: string;
  /** The coalescing baseline: GET /userExample/{id}, reads that arrive together share one batch SELECT. */
  coalescedBaselineUrl: string;
  restUrl: string;
  gatewayUrl: string;
  subgraphUrl: string;
  remoteGatewayUrl: string;
  /** A bare node:http proxy in front of the users subgraph server (the floor under the distributed gateway). */
  proxyUrl: string;
  grpcAddress: string;
  controlUrl: string;
  adminToken: string;
  ids: string[];
  /** The deep read's account (25 posts × 25 comments × 2 replies) and an own-login token for it. */
  social: { accountId: string; token: string };
  scrypt: { logN: number; singleHashMs: number; parallelHashesPerSecond: number };
  /** USERS_READ_BATCH_MAX of the served system: how many concurrent GetByID reads may share one SELECT (1: none). */
  usersReadBatchMax: number;
  /** Which stand-ins serve in this process (the switches, then the gate's check of the installed releases). */
  standIns: Record<StandInId, { enabled: true } | { enabled: false; reason: string }>;
  /**
   * Area D: the bare upload handler's URL (POST multipart, file in part `media`), an own-login social user token, and
   * where the served system keeps the media (MEDIA_STORE: the run's directory, or a bucket of the bench's s3rver).
   */
  uploads: { baselineUrl: string; token: string; userId: string; mediaStore: 'local' | 's3' };
  pid: number;
  node: string;
}

/** Deltas of one measurement window, from the control server. */
export interface ServerWindow {
  cpuUserMs: number;
  cpuSystemMs: number;
  elapsedMs: number;
  eventLoopUtilization: number;
  rssMiB: number;
  /**
   * CPU time of the PostgreSQL backends serving this process's pool during the window, read from /proc (only when the
   * database server runs on this machine); undefined on PGlite, whose work is already in cpuUserMs.
   */
  databaseCpuMs: number | undefined;
  /** The server's GC pauses during the window by kind, ms (V8's, as perf_hooks reports them). */
  gcMs?: { scavenge: number; markCompact: number; other: number };
  /** When the window was started with ?rss=<ms>: the RSS before it and its peak (bench/upload-server.ts). */
  rss?: RssWindow;
}
