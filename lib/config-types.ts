import type { StandInId } from './stand-ins/stand-in-registry.ts';

/**
 * The configuration's shape, as lib/config.ts's loadConfig fills it from the environment (import it from there): each
 * field names its variable in .env.example.
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
    /**
     * The gateway's fetch cache (GATEWAY_CACHE, issue 39; gateway/fetch-cache/): `memory` (the default: per process,
     * invalidated from the change log), `redis` or `off`, with its bounds.
     */
    cache: {
      /** `memory`: per process; `redis`: per process and, shared by the fleet, in Redis at `redisUrl`. */
      mode: 'off' | 'memory' | 'redis';
      /** GATEWAY_CACHE was set: a gateway process that cannot follow the log refuses to start instead of serving uncached. */
      chosen: boolean;
      maxEntries: number;
      maxBytes: number;
      maxEntryBytes: number;
      /** How often the change log is read when no NOTIFY came (a lost one): the staleness bound then. */
      pollIntervalMs: number;
      /** REDIS_URL: the shared level's server. */
      redisUrl: string;
      /** The longest one Redis command may take before it counts as a miss (the local level serves on). */
      redisTimeoutMs: number;
    };
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
    /** The event log (subgraphs/shared/event-log/): how long an event is kept, and how often the log is swept. */
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
       * Delivery (subgraphs/shared/webhooks/webhook-delivery-worker.ts), run by the processes that serve the accounts
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

/** The operation limits (GRAPHQL_MAX_*), applied by lib/graphql/graphql-operation-limits.ts. */
export interface OperationLimits {
  /** Deepest field nesting; a root field is at depth 1. Introspection's `__schema` is not counted. */
  maxDepth: number;
  /** Aliased fields, counted through fragments (`__typename` aliases are free). */
  maxAliases: number;
  /** Fields selected on the root type, counted through fragments. */
  maxRootFields: number;
  /** Lexical tokens of the document (comments are free). */
  maxTokens: number;
  /** Estimated cost (see estimateOperationCost). */
  maxCost: number;
  /** Items assumed for a list, or a page whose `first` is not given, when estimating the cost. */
  costListSize: number;
}

/**
 * How long a client may take (HTTP_*_TIMEOUT_MS): to send a request's headers, to send the whole request (an upload
 * included), and to let a connection sit with nothing moving while a request is in progress (a client that stops reading
 * its reply). Past each, the connection is answered 408 where it still can be, and closed. Between requests a kept-alive
 * connection is closed after 65 s idle.
 */
export interface HttpTimeouts {
  headersMs: number;
  requestMs: number;
  socketIdleMs: number;
}
