import type { OperationLimits } from './graphql/graphql-operation-limits.ts';
import type { HttpTimeouts } from './http/http-server.ts';
import { STAND_IN_IDS, STAND_INS, type StandInId } from './stand-ins/stand-in-registry.ts';

/**
 * Configuration, read once from the environment, validated, frozen and passed down. Nothing below an entrypoint reads
 * process.env. Every variable is documented in .env.example with its default.
 */

export const SUBGRAPH_NAMES = ['users', 'accounts', 'comments', 'media'] as const;
export type SubgraphName = (typeof SUBGRAPH_NAMES)[number];

export type JwtAlgorithm = 'HS256' | 'HS384' | 'HS512' | 'RS256' | 'ES256';

export interface DatabaseConfig {
  /** PostgreSQL connection string; when absent the embedded PGlite database is used. */
  url: string | undefined;
  /** Directory of the embedded database; `undefined` keeps it in memory (tests). */
  pgliteDir: string | undefined;
  /** Largest number of pooled PostgreSQL connections per process. */
  poolMax: number;
  /** How long a request waits for a PostgreSQL connection before failing (503) when the database is down. */
  connectTimeoutMs: number;
  /**
   * The longest one SQL statement may run on PostgreSQL before the server cancels it (statement_timeout); the request
   * fails with the area's 503-class error. Every statement of the system is bounded by the services' own limits and is
   * fast; this is the bound for a database under load or a plan gone wrong. (PGlite runs in this process and has no
   * timer to cancel a statement with.)
   */
  statementTimeoutMs: number;
}

export interface JwtConfig {
  algorithm: JwtAlgorithm;
  /** Shared secret for HS* algorithms. */
  secret: string | undefined;
  /** PEM public key for RS256/ES256 verification. */
  publicKey: string | undefined;
  /** PEM private key for RS256/ES256 minting (development tooling only). */
  privateKey: string | undefined;
  issuer: string;
  audience: string;
  /** True when the built-in development secret is in use (refused in production). */
  usingDevelopmentSecret: boolean;
}

export interface Config {
  env: 'development' | 'production' | 'test';
  production: boolean;
  logLevel: string;
  /** Interface the HTTP and gRPC listeners bind to. */
  host: string;
  /** Host name printed in addresses and used to build absolute URLs when no request gives one. */
  publicHost: string;
  /** Browser origins allowed to call the GraphQL and REST endpoints (CORS); `*` allows any; empty sends no CORS headers. */
  corsOrigins: readonly string[];
  /** How long a client may take over a request, on every HTTP listener (lib/http/http-server.ts). */
  http: HttpTimeouts;
  /**
   * V8's old-generation growth per full GC, in percent over the live heap (`--heap-growing-percent`); 0 leaves V8's own
   * heuristics, which let a busy server's heap grow to several times what it holds (bench/README.md, "Memory").
   */
  heapGrowingPercent: number;
  gateway: {
    port: number;
    /** `embedded`: subgraphs run in the gateway's process; `distributed`: reached over HTTP at `subgraphUrls`. */
    mode: 'embedded' | 'distributed';
    /** Each subgraph's first URL (what a single instance is reached at). */
    subgraphUrls: Partial<Record<SubgraphName, string>>;
    /**
     * Every instance of each subgraph (`SUBGRAPH_<NAME>_URL` may list several, comma-separated): the gateway spreads
     * fetches over them, skips one whose circuit is open, and retries a query's fetch on another when a connection is
     * refused or reset (gateway/subgraph-instances.ts).
     */
    subgraphInstances: Partial<Record<SubgraphName, readonly string[]>>;
    introspection: boolean;
    landingPage: boolean;
    inlineTracing: boolean;
    bodyLimitBytes: number;
    /** Distributed mode: the longest one subgraph request may take before the gateway gives up on it. */
    subgraphTimeoutMs: number;
    /**
     * The supergraph file the gateway serves (SUPERGRAPH_FILE; the committed schema/supergraph.graphql by default). The
     * gateway process reloads it on SIGHUP, and on every change when `supergraphWatch` (gateway/supergraph-source.ts).
     */
    supergraphFile: string | undefined;
    /** Reload the supergraph whenever its file changes (SUPERGRAPH_WATCH), as Apollo Router's --hot-reload does. */
    supergraphWatch: boolean;
  };
  /** Hardening of the GraphQL endpoints: the gateway's, and the subgraph servers' of the distributed topology. */
  graphql: {
    /** Per-operation limits on documents written by outside clients (lib/graphql/graphql-operation-limits.ts). */
    limits: OperationLimits;
    /** "Did you mean …?" in error messages; off in production, where it would map the schema that introspection hides. */
    fieldSuggestions: boolean;
    /**
     * How deep the JSON of one request (a body, a WebSocket message, a `variables` parameter) may nest arrays and objects,
     * checked on its bytes before it is parsed (lib/http/json-nesting.ts), at the gateway and at the subgraph servers.
     */
    maxJsonDepth: number;
    /** The safelist (lib/graphql/graphql-persisted-operations.ts): `off`, `allow` (listed operations run by id), `require` (only them). */
    persistedOperations: { mode: 'off' | 'allow' | 'require'; manifestPath: string | undefined };
    /**
     * Shared by the processes of a deployment so they recognise each other over HTTP (lib/http/trusted-caller.ts): the REST
     * adapter sends it to a gateway at GATEWAY_URL, the gateway to the subgraph servers. Operations bearing it skip the
     * limits and the safelist. Undefined: no HTTP request is trusted, and subgraph servers enforce no operation limits.
     */
    trustedCallerSecret: string | undefined;
  };
  /** GraphQL subscriptions through the gateway (gateway/live/): the bounds of one connection and of one token. */
  subscriptions: {
    /** Largest WebSocket message a client may send (bytes). */
    maxMessageBytes: number;
    /** Subscriptions one connection may hold at once. */
    perConnection: number;
    /** Subscriptions one credential may hold at once, over all its connections to this gateway process. */
    perToken: number;
    /** Connections this gateway process accepts at once. */
    maxConnections: number;
    /** How long a new WebSocket may take to send connection_init. */
    initTimeoutMs: number;
    /** Ping interval; a connection that has not answered the previous ping by the next one is closed. */
    keepAliveMs: number;
    /**
     * Bytes a connection may have queued unsent before it counts as too slow and is closed (1013, "resubscribe with
     * after"): a slow consumer never holds more than this in the gateway's memory.
     */
    maxBufferedBytes: number;
  };
  rest: {
    port: number;
    /** When set, the adapter sends its operations to this gateway over HTTP instead of in-process. */
    gatewayUrl: string | undefined;
    bodyLimitBytes: number;
    /** Bounds of one `fields=` expansion on the Graph paths (rest-adapter/social-graph/field-expansion-budget.ts). */
    fields: { maxObjects: number; maxEdges: number; timeoutMs: number };
    /**
     * Serve the API documents (Swagger 2.0 of Area A, OpenAPI 3 of every path) and Swagger UI. On in production too by
     * default: they describe the public API, hold no secrets, and load nothing from outside the server.
     */
    apiDocs: boolean;
  };
  grpc: {
    port: number;
    /** HTTP port of the standalone gRPC process (`npm run start:grpc`) for /health, /ready and /metrics. */
    statusPort: number;
  };
  subgraph: {
    /** Port of a standalone subgraph process (`npm run start:subgraph -- <name>`); 0 picks a free one. */
    port: number | undefined;
    /** Whether the users subgraph's process also serves gRPC (off when the gRPC server runs as its own process). */
    usersServesGrpc: boolean;
  };
  /** Metrics, traces, probes and shutdown (lib/telemetry/). */
  telemetry: {
    metricsEnabled: boolean;
    tracing: {
      /** OTLP/HTTP traces endpoint; tracing is off without it. */
      endpoint: string | undefined;
      serviceName: string | undefined;
      sampleRatio: number;
    };
    /** Deadline of each readiness check (database, subgraphs…). */
    readyTimeoutMs: number;
    /** After SIGTERM: how long in-flight requests may take to finish before their connections are closed. */
    shutdownGraceMs: number;
    /**
     * On SIGTERM, how long the process keeps serving — /ready already 503 — before it stops accepting: the time load
     * balancers need to see the 503 and stop sending it work (their probe interval × the failures they wait for).
     */
    shutdownDelayMs: number;
  };
  /**
   * Which stand-ins for library code may serve (lib/stand-ins/stand-in-registry.ts): STAND_INS sets them all (on by
   * default), STAND_IN_<NAME> each one. A stand-in switched on still serves only over the releases it was checked against.
   */
  standIns: Readonly<Record<StandInId, boolean>>;
  database: DatabaseConfig;
  jwt: JwtConfig;
  passwords: {
    /** log2 of scrypt's CPU/memory cost N. */
    scryptLogN: number;
  };
  users: {
    listDefaultLimit: number;
    listMaxLimit: number;
    /** The most GetByID reads coalesced into one statement; 1 turns coalescing off. */
    readBatchMax: number;
  };
  social: {
    /** Port of the parent-platform host's listener (the own-login host is the REST adapter's port). */
    parentPort: number;
    /** Host names that select a host whatever the port (production deployments behind one proxy); lower case. */
    ownHostname: string | undefined;
    parentHostname: string | undefined;
    /** Key of the HMAC that makes paging cursors tamper-evident. */
    cursorSecret: string;
    /** Posts an account may publish through the API per rolling 24 hours. */
    publishingQuota: number;
    /** Lifetime of tokens minted by npm run seed / npm run social-token, in seconds. */
    tokenLifetimeSeconds: number;
    /** The event log (subgraphs/shared/social-events/): how long an event is kept, and how often the log is swept. */
    events: {
      retentionHours: number;
      sweepIntervalSecs: number;
    };
    /**
     * Webhook callbacks (lib/http/callback-client.ts): the addresses a callback URL may resolve to (loopback, private and
     * link-local refused unless allowPrivate, or its host is in allowedHosts), https (required in production unless
     * turned off), and the bounds of each request to one.
     */
    webhooks: {
      allowPrivate: boolean;
      allowedHosts: readonly string[];
      requireHttps: boolean;
      connectTimeoutMs: number;
      responseTimeoutMs: number;
      maxResponseBytes: number;
      /**
       * Delivery (subgraphs/shared/social-events/webhook-delivery-worker.ts), run by the processes that serve the accounts
       * subgraph: on/off, deliveries in flight per process, the safety-net poll, and how long a failing batch is retried.
       */
      delivery: boolean;
      concurrency: number;
      /** How long a process holds a subscription's batch before another may take it up (its crash's cost in delay). */
      leaseMs: number;
      pollIntervalMs: number;
      retryWindowHours: number;
    };
    /**
     * Rate limits of the social graph, on every front door (subgraphs/shared/social-graph/social-rate-limits.ts), counted in
     * the database so that every process shares them.
     */
    rateLimits: {
      appCallsPerHour: number;
      userCallsPerHour: number;
      pageCallsPerHour: number;
      businessCallsPerDay: number;
    };
  };
  /** Area D: the simple image upload. */
  media: {
    /** Largest accepted file (the reference's 5,242,880 bytes); one byte more is refused while it streams. */
    maxBytes: number;
    /** Largest body carrying the image as base64 (`media_data`, or `mediaData` in GraphQL): maxBytes × 4/3 plus 64 KiB. */
    base64BodyBytes: number;
    /** Lifetime of a media_id and its media_key. */
    expiresAfterSecs: number;
    /**
     * Where uploaded bytes live: `local`, a directory (`blobDir`) every media process must see; `s3`, a bucket of an
     * S3-compatible object store (`s3`), which any number of processes on any hosts share.
     */
    store: 'local' | 's3';
    /** Directory of the local blob store; undefined: a temporary directory made at start and removed at close (or `store` is s3). */
    blobDir: string | undefined;
    /** The bucket, with `store` s3; undefined otherwise. */
    s3: S3StoreConfig | undefined;
    /** How often the sweeper removes the bytes of expired uploads. */
    sweepIntervalSecs: number;
    /** How far an OAuth 1.0a oauth_timestamp may be from the server's clock, either way. */
    oauthTimestampSkewSecs: number;
    /** Uploads per user per window (x-rate-limit-limit); counted in the database, so shared by every process. */
    uploadsPerWindow: number;
    windowSecs: number;
    /** The chunked upload (command=INIT, APPEND, FINALIZE, STATUS). */
    chunked: {
      /** Largest APPEND segment (the reference's 5 MB). */
      segmentMaxBytes: number;
      /** Largest animated GIF uploaded with media_category tweet_gif (the reference's 15,728,640 bytes). */
      gifMaxBytes: number;
      /** Largest video (tweet_video, amplify_video; the reference's 512 MB). */
      videoMaxBytes: number;
      /** Longest the inspection of one GIF or video may run before its processing fails. */
      processingTimeoutMs: number;
    };
  };
}

/** An S3-compatible bucket that holds the uploaded bytes (MEDIA_STORE=s3; subgraphs/shared/media-store/s3-blob-store.ts). */
export interface S3StoreConfig {
  /** The store's URL (MinIO, Ceph, R2, a local s3rver…); undefined: AWS S3's own endpoint for `region`. */
  endpoint: string | undefined;
  region: string;
  bucket: string;
  /** Prepended to every blob's key (`media/`), so that one bucket can hold several deployments' blobs; may be empty. */
  keyPrefix: string;
  /**
   * Given explicitly, always: the SDK's default credential chain would look for them in instance metadata, files and
   * other places this configuration does not show.
   */
  accessKeyId: string;
  secretAccessKey: string;
  /** Temporary credentials' session token. */
  sessionToken: string | undefined;
  /** Buckets addressed as `endpoint/bucket/key` instead of `bucket.endpoint/key` (what most S3-compatible servers serve). */
  forcePathStyle: boolean;
}

/** Raised when the environment is not a valid configuration; names the variable. */
export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

const DEVELOPMENT_JWT_SECRET = 'tributary-development-secret-do-not-use-in-production';
const DEVELOPMENT_CURSOR_SECRET = 'tributary-development-cursor-secret-not-for-production';

type Env = Record<string, string | undefined>;

function text(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

function optionalText(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(name, `must be an integer, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const normalised = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(normalised)) return true;
  if (['0', 'false', 'no', 'off'].includes(normalised)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function httpUrl(env: Env, name: string): string | undefined {
  const raw = optionalText(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(name, `must be an http(s) URL, got "${raw}"`);
  }
  return raw;
}

/** A comma-separated list of absolute http(s) URLs (at most 16, none twice). */
function httpUrls(env: Env, name: string): string[] | undefined {
  const raw = optionalText(env, name);
  if (raw === undefined) return undefined;
  const urls = raw.split(',').map((part) => part.trim());
  if (urls.length > 16) throw new ConfigError(name, `lists ${urls.length} URLs; at most 16`);
  if (urls.includes('')) throw new ConfigError(name, 'has an empty entry between its commas');
  for (const url of urls) httpUrl({ [name]: url }, name);
  if (new Set(urls).size !== urls.length) throw new ConfigError(name, 'lists a URL twice');
  return urls;
}

function corsOrigins(env: Env, name: string): string[] {
  const raw = optionalText(env, name);
  if (raw === undefined) return [];
  const origins = raw
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    if (origin === '*') continue;
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      url = undefined;
    }
    if (!url || url.origin !== origin) throw new ConfigError(name, `must list origins such as https://app.example.com, got "${origin}"`);
  }
  return origins;
}

const PORT_MAX = 65535;

function hostname(env: Env, name: string): string | undefined {
  const raw = optionalText(env, name);
  if (raw === undefined) return undefined;
  const value = raw.trim().toLowerCase();
  if (!/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(value))
    throw new ConfigError(name, `must be a host name such as graph.example.com, got "${raw}"`);
  return value;
}

/** S3 bucket names: 3–63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit. */
const S3_BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** Key prefixes of the characters S3 documents as safe in keys, not starting with a slash. */
const S3_KEY_PREFIX = /^[A-Za-z0-9!_.*'()-][A-Za-z0-9!_.*'()/-]{0,255}$/;

/** The MEDIA_S3_* variables: required and checked with MEDIA_STORE=s3, refused without it (they would do nothing). */
function s3Store(env: Env, store: 'local' | 's3'): S3StoreConfig | undefined {
  const names = [
    'MEDIA_S3_ENDPOINT',
    'MEDIA_S3_REGION',
    'MEDIA_S3_BUCKET',
    'MEDIA_S3_KEY_PREFIX',
    'MEDIA_S3_ACCESS_KEY_ID',
    'MEDIA_S3_SECRET_ACCESS_KEY',
    'MEDIA_S3_SESSION_TOKEN',
    'MEDIA_S3_FORCE_PATH_STYLE',
  ];
  if (store !== 's3') {
    const stray = names.find((name) => optionalText(env, name) !== undefined);
    if (stray !== undefined)
      throw new ConfigError(stray, 'is set but MEDIA_STORE is not s3: set MEDIA_STORE=s3 to keep the bytes in the bucket, or remove it');
    return undefined;
  }
  const required = (name: string) => {
    const value = optionalText(env, name);
    if (value === undefined) throw new ConfigError(name, 'is required when MEDIA_STORE=s3');
    return value;
  };
  const endpoint = httpUrl(env, 'MEDIA_S3_ENDPOINT');
  const bucket = required('MEDIA_S3_BUCKET');
  if (!S3_BUCKET.test(bucket))
    throw new ConfigError('MEDIA_S3_BUCKET', `must be a bucket name (3–63 lowercase letters, digits, dots and hyphens), got "${bucket}"`);
  const region = text(env, 'MEDIA_S3_REGION', 'us-east-1');
  if (!/^[a-z0-9-]{1,64}$/.test(region))
    throw new ConfigError('MEDIA_S3_REGION', `must be a region name such as eu-west-1, got "${region}"`);
  const keyPrefix = optionalText(env, 'MEDIA_S3_KEY_PREFIX') ?? '';
  if (keyPrefix !== '' && !S3_KEY_PREFIX.test(keyPrefix)) {
    throw new ConfigError(
      'MEDIA_S3_KEY_PREFIX',
      `must be at most 256 letters, digits and !_.*'()/- not starting with a slash, got "${keyPrefix}"`,
    );
  }
  return {
    endpoint,
    region,
    bucket,
    keyPrefix,
    accessKeyId: required('MEDIA_S3_ACCESS_KEY_ID'),
    secretAccessKey: required('MEDIA_S3_SECRET_ACCESS_KEY'),
    sessionToken: optionalText(env, 'MEDIA_S3_SESSION_TOKEN'),
    // S3-compatible servers (MinIO, s3rver…) mostly serve path-style only; AWS's own endpoint prefers virtual hosts.
    forcePathStyle: boolean(env, 'MEDIA_S3_FORCE_PATH_STYLE', endpoint !== undefined),
  };
}

/**
 * Parses the environment into a frozen configuration. Throws ConfigError naming the first bad variable.
 * @param env usually process.env; tests pass their own object.
 */
export function loadConfig(env: Env = process.env): Config {
  const envName = oneOf(env, 'NODE_ENV', ['development', 'production', 'test'] as const, 'development');
  const production = envName === 'production';

  const mode = oneOf(env, 'GATEWAY_MODE', ['embedded', 'distributed'] as const, 'embedded');
  const subgraphUrls: Partial<Record<SubgraphName, string>> = {};
  const subgraphInstances: Partial<Record<SubgraphName, readonly string[]>> = {};
  for (const name of SUBGRAPH_NAMES) {
    const variable = `SUBGRAPH_${name.toUpperCase()}_URL`;
    const urls = httpUrls(env, variable);
    if (urls) {
      subgraphUrls[name] = urls[0]!;
      subgraphInstances[name] = urls;
    } else if (mode === 'distributed') throw new ConfigError(variable, 'is required when GATEWAY_MODE=distributed');
  }

  const algorithm = oneOf(env, 'JWT_ALGORITHM', ['HS256', 'HS384', 'HS512', 'RS256', 'ES256'] as const, 'HS256');
  const symmetric = algorithm.startsWith('HS');
  const configuredSecret = optionalText(env, 'JWT_SECRET');
  const publicKey = optionalText(env, 'JWT_PUBLIC_KEY');
  const usingDevelopmentSecret = symmetric && configuredSecret === undefined;
  if (usingDevelopmentSecret && production) {
    throw new ConfigError('JWT_SECRET', 'must be set when NODE_ENV=production (the development secret is refused)');
  }
  if (symmetric && configuredSecret !== undefined && configuredSecret.length < 32) {
    throw new ConfigError('JWT_SECRET', 'must be at least 32 characters');
  }
  if (!symmetric && publicKey === undefined) {
    throw new ConfigError('JWT_PUBLIC_KEY', `is required with JWT_ALGORITHM=${algorithm}`);
  }

  const databaseUrl = optionalText(env, 'DATABASE_URL');
  const dataDir = text(env, 'DATA_DIR', './data');
  const pgliteDir = dataDir === ':memory:' ? undefined : `${dataDir.replace(/\/+$/, '')}/pglite`;

  const listMaxLimit = integer(env, 'USERS_LIST_MAX_LIMIT', 1000, 1, 100_000);
  const cursorSecret = optionalText(env, 'SOCIAL_CURSOR_SECRET');
  if (cursorSecret !== undefined && cursorSecret.length < 32) {
    throw new ConfigError('SOCIAL_CURSOR_SECRET', 'must be at least 32 characters');
  }
  if (cursorSecret === undefined && production) {
    throw new ConfigError('SOCIAL_CURSOR_SECRET', 'must be set when NODE_ENV=production');
  }
  const subgraphPort = optionalText(env, 'SUBGRAPH_PORT');
  const mediaMaxBytes = integer(env, 'MEDIA_MAX_BYTES', 5_242_880, 1024, 1 << 30);
  // A GraphQL or REST body may carry the image as base64 (a third larger), plus the operation around it.
  const base64BodyBytes = Math.ceil(mediaMaxBytes / 3) * 4 + 65_536;
  const mediaBlobDir = optionalText(env, 'MEDIA_BLOB_DIR');
  const mediaStore = oneOf(env, 'MEDIA_STORE', ['local', 's3'] as const, 'local');
  const mediaS3 = s3Store(env, mediaStore);
  if (mediaStore === 's3' && mediaBlobDir !== undefined) {
    // Bytes an operator believes shared would otherwise land in one process's directory, or the other way round.
    throw new ConfigError('MEDIA_BLOB_DIR', 'is set but MEDIA_STORE=s3 keeps the bytes in the bucket: remove one of them');
  }
  const persistedMode = oneOf(env, 'GRAPHQL_PERSISTED_OPERATIONS', ['off', 'allow', 'require'] as const, 'off');
  const persistedManifest = optionalText(env, 'GRAPHQL_PERSISTED_OPERATIONS_MANIFEST');
  if (persistedMode !== 'off' && persistedManifest === undefined) {
    throw new ConfigError('GRAPHQL_PERSISTED_OPERATIONS_MANIFEST', `is required when GRAPHQL_PERSISTED_OPERATIONS=${persistedMode}`);
  }
  const trustedCallerSecret = optionalText(env, 'GRAPHQL_TRUSTED_CALLER_SECRET');
  if (trustedCallerSecret !== undefined && trustedCallerSecret.length < 32) {
    throw new ConfigError('GRAPHQL_TRUSTED_CALLER_SECRET', 'must be at least 32 characters');
  }
  if (persistedMode === 'require' && trustedCallerSecret === undefined && optionalText(env, 'GATEWAY_URL') !== undefined) {
    // The REST adapter's generated operations cannot be listed: over HTTP only the secret lets them through.
    throw new ConfigError('GRAPHQL_TRUSTED_CALLER_SECRET', 'is required when GATEWAY_URL is set and GRAPHQL_PERSISTED_OPERATIONS=require');
  }
  // The standard OpenTelemetry variables: a traces endpoint as it is, or a base endpoint to which /v1/traces is added.
  const otlpBase = httpUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const otlpTraces =
    httpUrl(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? (otlpBase ? `${otlpBase.replace(/\/+$/, '')}/v1/traces` : undefined);
  const sampleRatioText = optionalText(env, 'OTEL_TRACES_SAMPLER_ARG');
  const sampleRatio = sampleRatioText === undefined ? 1 : Number(sampleRatioText);
  if (!(sampleRatio >= 0 && sampleRatio <= 1))
    throw new ConfigError('OTEL_TRACES_SAMPLER_ARG', `must be a ratio from 0 to 1, got "${sampleRatioText}"`);

  const config: Config = {
    env: envName,
    production,
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    host: text(env, 'HOST', '127.0.0.1'),
    publicHost: text(env, 'PUBLIC_HOST', 'localhost'),
    corsOrigins: corsOrigins(env, 'CORS_ORIGINS'),
    http: {
      headersMs: integer(env, 'HTTP_HEADERS_TIMEOUT_MS', 20_000, 1_000, 600_000),
      requestMs: integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 120_000, 1_000, 3_600_000),
      socketIdleMs: integer(env, 'HTTP_SOCKET_IDLE_TIMEOUT_MS', 120_000, 1_000, 3_600_000),
    },
    heapGrowingPercent: integer(env, 'HEAP_GROWING_PERCENT', 20, 0, 1_000),
    gateway: {
      port: integer(env, 'GATEWAY_PORT', 4000, 0, PORT_MAX),
      mode,
      subgraphUrls,
      subgraphInstances,
      introspection: boolean(env, 'GRAPHQL_INTROSPECTION', !production),
      landingPage: boolean(env, 'GRAPHQL_LANDING_PAGE', !production),
      inlineTracing: boolean(env, 'GRAPHQL_INLINE_TRACING', false),
      bodyLimitBytes: integer(env, 'GRAPHQL_BODY_LIMIT_BYTES', Math.max(1_048_576, base64BodyBytes), 1024, 1 << 30),
      subgraphTimeoutMs: integer(env, 'SUBGRAPH_TIMEOUT_MS', 30_000, 100, 600_000),
      supergraphFile: env.SUPERGRAPH_FILE?.trim() || undefined,
      supergraphWatch: boolean(env, 'SUPERGRAPH_WATCH', false),
    },
    graphql: {
      limits: {
        maxDepth: integer(env, 'GRAPHQL_MAX_DEPTH', 12, 1, 1000),
        maxAliases: integer(env, 'GRAPHQL_MAX_ALIASES', 30, 0, 100_000),
        maxRootFields: integer(env, 'GRAPHQL_MAX_ROOT_FIELDS', 20, 1, 100_000),
        maxTokens: integer(env, 'GRAPHQL_MAX_TOKENS', 1000, 10, 1_000_000),
        maxCost: integer(env, 'GRAPHQL_MAX_COST', 50_000, 1, 1_000_000_000),
        costListSize: integer(env, 'GRAPHQL_COST_LIST_SIZE', 25, 1, 100_000),
      },
      fieldSuggestions: boolean(env, 'GRAPHQL_FIELD_SUGGESTIONS', !production),
      maxJsonDepth: integer(env, 'GRAPHQL_MAX_JSON_DEPTH', 32, 4, 1000),
      persistedOperations: { mode: persistedMode, manifestPath: persistedManifest },
      trustedCallerSecret,
    },
    subscriptions: {
      maxMessageBytes: integer(env, 'SUBSCRIPTION_MAX_MESSAGE_BYTES', 65_536, 1024, 16_777_216),
      perConnection: integer(env, 'SUBSCRIPTIONS_PER_CONNECTION', 100, 1, 100_000),
      perToken: integer(env, 'SUBSCRIPTIONS_PER_TOKEN', 1000, 1, 1_000_000),
      maxConnections: integer(env, 'SUBSCRIPTION_MAX_CONNECTIONS', 10_000, 1, 1_000_000),
      initTimeoutMs: integer(env, 'SUBSCRIPTION_INIT_TIMEOUT_MS', 3000, 100, 600_000),
      keepAliveMs: integer(env, 'SUBSCRIPTION_KEEPALIVE_MS', 12_000, 100, 600_000),
      maxBufferedBytes: integer(env, 'SUBSCRIPTION_MAX_BUFFERED_BYTES', 1_048_576, 1024, 1 << 30),
    },
    rest: {
      port: integer(env, 'REST_PORT', 8080, 0, PORT_MAX),
      gatewayUrl: httpUrl(env, 'GATEWAY_URL'),
      bodyLimitBytes: integer(env, 'REST_BODY_LIMIT_BYTES', 1_048_576, 1024, 1 << 30),
      fields: {
        maxObjects: integer(env, 'REST_FIELDS_MAX_OBJECTS', 50_000, 1, 10_000_000),
        maxEdges: integer(env, 'REST_FIELDS_MAX_EDGES', 64, 1, 10_000),
        timeoutMs: integer(env, 'REST_FIELDS_TIMEOUT_MS', 10_000, 100, 600_000),
      },
      apiDocs: boolean(env, 'REST_API_DOCS', true),
    },
    grpc: {
      port: integer(env, 'GRPC_PORT', 9090, 0, PORT_MAX),
      statusPort: integer(env, 'GRPC_STATUS_PORT', 9091, 0, PORT_MAX),
    },
    subgraph: {
      port: subgraphPort === undefined ? undefined : integer(env, 'SUBGRAPH_PORT', 0, 0, PORT_MAX),
      usersServesGrpc: boolean(env, 'SUBGRAPH_USERS_GRPC', true),
    },
    telemetry: {
      metricsEnabled: boolean(env, 'METRICS_ENABLED', true),
      tracing: { endpoint: otlpTraces, serviceName: optionalText(env, 'OTEL_SERVICE_NAME'), sampleRatio },
      readyTimeoutMs: integer(env, 'READY_TIMEOUT_MS', 2000, 10, 60_000),
      shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 25_000, 0, 600_000),
      shutdownDelayMs: integer(env, 'SHUTDOWN_DELAY_MS', 0, 0, 300_000),
    },
    standIns: standInSwitches(env),
    database: {
      url: databaseUrl,
      pgliteDir,
      poolMax: integer(env, 'DATABASE_POOL_MAX', 10, 1, 1000),
      connectTimeoutMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5000, 100, 120_000),
      statementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 10_000, 100, 3_600_000),
    },
    jwt: {
      algorithm,
      secret: symmetric ? (configuredSecret ?? DEVELOPMENT_JWT_SECRET) : undefined,
      publicKey,
      privateKey: optionalText(env, 'JWT_PRIVATE_KEY'),
      issuer: text(env, 'JWT_ISSUER', 'tributary'),
      audience: text(env, 'JWT_AUDIENCE', 'tributary'),
      usingDevelopmentSecret,
    },
    passwords: {
      scryptLogN: integer(env, 'PASSWORD_SCRYPT_LOG_N', 15, 10, 20),
    },
    users: {
      listDefaultLimit: Math.min(integer(env, 'USERS_LIST_DEFAULT_LIMIT', 20, 1, 100_000), listMaxLimit),
      listMaxLimit,
      readBatchMax: integer(env, 'USERS_READ_BATCH_MAX', 100, 1, 1000),
    },
    social: {
      parentPort: integer(env, 'SOCIAL_PARENT_PORT', 8081, 0, PORT_MAX),
      ownHostname: hostname(env, 'SOCIAL_OWN_HOSTNAME'),
      parentHostname: hostname(env, 'SOCIAL_PARENT_HOSTNAME'),
      cursorSecret: cursorSecret ?? DEVELOPMENT_CURSOR_SECRET,
      publishingQuota: integer(env, 'SOCIAL_PUBLISHING_QUOTA', 100, 1, 100_000),
      tokenLifetimeSeconds: integer(env, 'SOCIAL_TOKEN_LIFETIME_SECONDS', 60 * 24 * 60 * 60, 60, 10 * 365 * 24 * 60 * 60),
      events: {
        // Past the 36 h for which a webhook delivery is retried (reference §6.4) by default.
        retentionHours: integer(env, 'SOCIAL_EVENTS_RETENTION_HOURS', 48, 1, 24 * 365),
        sweepIntervalSecs: integer(env, 'SOCIAL_EVENTS_SWEEP_INTERVAL_SECS', 600, 1, 86_400),
      },
      webhooks: {
        allowPrivate: boolean(env, 'WEBHOOK_ALLOW_PRIVATE', false),
        // In development a callback on this machine (a receiver beside `npm start`, README "Webhooks") is allowed by
        // default; production and tests refuse loopback unless it is listed.
        allowedHosts: (env.WEBHOOK_ALLOWED_HOSTS ?? (envName === 'development' ? '127.0.0.1,::1,localhost' : ''))
          .split(',')
          .map((host) => host.trim().toLowerCase())
          .filter((host) => host !== ''),
        requireHttps: boolean(env, 'WEBHOOK_REQUIRE_HTTPS', production),
        connectTimeoutMs: integer(env, 'WEBHOOK_CONNECT_TIMEOUT_MS', 5_000, 100, 60_000),
        responseTimeoutMs: integer(env, 'WEBHOOK_RESPONSE_TIMEOUT_MS', 10_000, 100, 120_000),
        maxResponseBytes: integer(env, 'WEBHOOK_MAX_RESPONSE_BYTES', 65_536, 0, 1 << 24),
        delivery: boolean(env, 'WEBHOOK_DELIVERY', true),
        concurrency: integer(env, 'WEBHOOK_DELIVERY_CONCURRENCY', 4, 1, 256),
        // Past the longest delivery (the response timeout) with room for its statements, by default.
        leaseMs: integer(
          env,
          'WEBHOOK_LEASE_MS',
          integer(env, 'WEBHOOK_RESPONSE_TIMEOUT_MS', 10_000, 100, 120_000) + 30_000,
          1_000,
          600_000,
        ),
        pollIntervalMs: integer(env, 'WEBHOOK_POLL_INTERVAL_MS', 5_000, 50, 600_000),
        // The reference retries "over the next 36 hours".
        retryWindowHours: integer(env, 'WEBHOOK_RETRY_WINDOW_HOURS', 36, 1, 24 * 30),
      },
      rateLimits: {
        appCallsPerHour: integer(env, 'SOCIAL_RATE_APP_CALLS_PER_HOUR', 200_000, 1, 1_000_000_000),
        userCallsPerHour: integer(env, 'SOCIAL_RATE_USER_CALLS_PER_HOUR', 20_000, 1, 1_000_000_000),
        pageCallsPerHour: integer(env, 'SOCIAL_RATE_PAGE_CALLS_PER_HOUR', 4_800, 1, 1_000_000_000),
        businessCallsPerDay: integer(env, 'SOCIAL_RATE_BUSINESS_CALLS_PER_DAY', 100_000, 1, 1_000_000_000),
      },
    },
    media: {
      maxBytes: mediaMaxBytes,
      expiresAfterSecs: integer(env, 'MEDIA_EXPIRES_AFTER_SECS', 86_400, 1, 365 * 86_400),
      store: mediaStore,
      blobDir:
        mediaStore === 's3' ? undefined : (mediaBlobDir ?? (dataDir === ':memory:' ? undefined : `${dataDir.replace(/\/+$/, '')}/media`)),
      s3: mediaS3,
      base64BodyBytes,
      sweepIntervalSecs: integer(env, 'MEDIA_SWEEP_INTERVAL_SECS', 60, 1, 86_400),
      oauthTimestampSkewSecs: integer(env, 'MEDIA_OAUTH_TIMESTAMP_SKEW_SECS', 300, 1, 86_400),
      uploadsPerWindow: integer(env, 'MEDIA_RATE_UPLOADS_PER_WINDOW', 500, 1, 1_000_000_000),
      windowSecs: integer(env, 'MEDIA_RATE_WINDOW_SECS', 900, 1, 86_400),
      chunked: {
        // At most MEDIA_MAX_BYTES: the transports cut every file part one byte past that.
        segmentMaxBytes: integer(env, 'MEDIA_SEGMENT_MAX_BYTES', Math.min(5_242_880, mediaMaxBytes), 1024, mediaMaxBytes),
        gifMaxBytes: integer(env, 'MEDIA_GIF_MAX_BYTES', 15_728_640, 1024, 1 << 30),
        videoMaxBytes: integer(env, 'MEDIA_VIDEO_MAX_BYTES', 536_870_912, 1024, 2_147_483_647),
        processingTimeoutMs: integer(env, 'MEDIA_PROCESSING_TIMEOUT_MS', 30_000, 100, 600_000),
      },
    },
  };
  const { webhooks } = config.social;
  if (webhooks.leaseMs <= webhooks.responseTimeoutMs) {
    // A lease that ends before its delivery can would let a second process send the same batch while the first waits.
    throw new ConfigError(
      'WEBHOOK_LEASE_MS',
      `must be longer than WEBHOOK_RESPONSE_TIMEOUT_MS (${webhooks.responseTimeoutMs}), got ${webhooks.leaseMs}`,
    );
  }
  return deepFreeze(config);
}

/** STAND_INS for every stand-in, each one's own variable over it. */
function standInSwitches(env: Env): Record<StandInId, boolean> {
  const all = boolean(env, 'STAND_INS', true);
  return Object.fromEntries(STAND_IN_IDS.map((id) => [id, boolean(env, STAND_INS[id].switchVariable, all)])) as Record<StandInId, boolean>;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
