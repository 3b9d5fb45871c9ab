import { STAND_IN_IDS, STAND_INS, type StandInId } from './stand-ins/stand-in-registry.ts';
import {
  boolean,
  ConfigError,
  corsOrigins,
  hostname,
  httpUrl,
  httpUrls,
  integer,
  oneOf,
  optionalText,
  PORT_MAX,
  text,
  type Env,
} from './config-values.ts';
import { SUBGRAPH_NAMES, type Config, type JwtConfig, type S3StoreConfig, type SubgraphName } from './config-types.ts';

/**
 * Configuration, read once from the environment, validated, frozen and passed down: loadConfig, from the readers of
 * config-values.ts into the types of config-types.ts (both re-exported here: import them from this module). Nothing
 * below an entrypoint reads process.env. Every variable is documented in .env.example with its default.
 */

export { ConfigError };
export * from './config-types.ts';

const DEVELOPMENT_JWT_SECRET = 'tributary-development-secret-do-not-use-in-production';
const DEVELOPMENT_CURSOR_SECRET = 'tributary-development-cursor-secret-not-for-production';

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
  const topology = topologyOf(env);
  const jwt = jwtSection(env, production);
  const dataDir = text(env, 'DATA_DIR', './data');
  const cursorSecret = cursorSecretOf(env, production);
  const media = mediaSection(env, dataDir);
  const graphql = graphqlSection(env, production);
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
      ...topology,
      introspection: boolean(env, 'GRAPHQL_INTROSPECTION', !production),
      landingPage: boolean(env, 'GRAPHQL_LANDING_PAGE', !production),
      inlineTracing: boolean(env, 'GRAPHQL_INLINE_TRACING', false),
      bodyLimitBytes: integer(env, 'GRAPHQL_BODY_LIMIT_BYTES', Math.max(1_048_576, media.base64BodyBytes), 1024, 1 << 30),
      subgraphTimeoutMs: integer(env, 'SUBGRAPH_TIMEOUT_MS', 30_000, 100, 600_000),
      supergraphFile: env.SUPERGRAPH_FILE?.trim() || undefined,
      supergraphWatch: boolean(env, 'SUPERGRAPH_WATCH', false),
      cache: {
        // In memory by default (issue 39): every process that can follow the change log keeps what it may.
        mode: oneOf(env, 'GATEWAY_CACHE', ['off', 'memory', 'redis'] as const, 'memory'),
        chosen: (env.GATEWAY_CACHE ?? '').trim() !== '',
        maxEntries: integer(env, 'GATEWAY_CACHE_MAX_ENTRIES', 10_000, 1, 10_000_000),
        maxBytes: integer(env, 'GATEWAY_CACHE_MAX_BYTES', 67_108_864, 65_536, 2 ** 40),
        maxEntryBytes: integer(env, 'GATEWAY_CACHE_MAX_ENTRY_BYTES', 1_048_576, 1024, 2 ** 31),
        pollIntervalMs: integer(env, 'GATEWAY_CACHE_POLL_MS', 1000, 10, 600_000),
        redisUrl: text(env, 'REDIS_URL', 'redis://127.0.0.1:6379'),
        redisTimeoutMs: integer(env, 'GATEWAY_CACHE_REDIS_TIMEOUT_MS', 50, 1, 60_000),
      },
    },
    graphql,
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
      port: optionalText(env, 'SUBGRAPH_PORT') === undefined ? undefined : integer(env, 'SUBGRAPH_PORT', 0, 0, PORT_MAX),
      usersServesGrpc: boolean(env, 'SUBGRAPH_USERS_GRPC', true),
    },
    telemetry: telemetrySection(env),
    standIns: standInSwitches(env),
    database: {
      url: optionalText(env, 'DATABASE_URL'),
      pgliteDir: dataDir === ':memory:' ? undefined : `${dataDir.replace(/\/+$/, '')}/pglite`,
      poolMax: integer(env, 'DATABASE_POOL_MAX', 10, 1, 1000),
      connectTimeoutMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5000, 100, 120_000),
      statementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 10_000, 100, 3_600_000),
    },
    jwt,
    passwords: {
      scryptLogN: integer(env, 'PASSWORD_SCRYPT_LOG_N', 15, 10, 20),
    },
    users: usersSection(env),
    social: socialSection(env, envName, production, cursorSecret),
    media,
  };
  return deepFreeze(config);
}

/** GATEWAY_MODE and each subgraph's URLs (SUBGRAPH_<NAME>_URL): required in the distributed topology. */
function topologyOf(env: Env): Pick<Config['gateway'], 'mode' | 'subgraphUrls' | 'subgraphInstances'> {
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
  return { mode, subgraphUrls, subgraphInstances };
}

function jwtSection(env: Env, production: boolean): JwtConfig & { usingDevelopmentSecret: boolean } {
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
  return {
    algorithm,
    secret: symmetric ? (configuredSecret ?? DEVELOPMENT_JWT_SECRET) : undefined,
    publicKey,
    privateKey: optionalText(env, 'JWT_PRIVATE_KEY'),
    issuer: text(env, 'JWT_ISSUER', 'tributary'),
    audience: text(env, 'JWT_AUDIENCE', 'tributary'),
    usingDevelopmentSecret,
  };
}

/** SOCIAL_CURSOR_SECRET: required in production, at least 32 characters; the development one otherwise. */
function cursorSecretOf(env: Env, production: boolean): string {
  const cursorSecret = optionalText(env, 'SOCIAL_CURSOR_SECRET');
  if (cursorSecret !== undefined && cursorSecret.length < 32) {
    throw new ConfigError('SOCIAL_CURSOR_SECRET', 'must be at least 32 characters');
  }
  if (cursorSecret === undefined && production) {
    throw new ConfigError('SOCIAL_CURSOR_SECRET', 'must be set when NODE_ENV=production');
  }
  return cursorSecret ?? DEVELOPMENT_CURSOR_SECRET;
}

function graphqlSection(env: Env, production: boolean): Config['graphql'] {
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
  return {
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
  };
}

function telemetrySection(env: Env): Config['telemetry'] {
  // The standard OpenTelemetry variables: a traces endpoint as it is, or a base endpoint to which /v1/traces is added.
  const otlpBase = httpUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const otlpTraces =
    httpUrl(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? (otlpBase ? `${otlpBase.replace(/\/+$/, '')}/v1/traces` : undefined);
  const sampleRatioText = optionalText(env, 'OTEL_TRACES_SAMPLER_ARG');
  const sampleRatio = sampleRatioText === undefined ? 1 : Number(sampleRatioText);
  if (!(sampleRatio >= 0 && sampleRatio <= 1))
    throw new ConfigError('OTEL_TRACES_SAMPLER_ARG', `must be a ratio from 0 to 1, got "${sampleRatioText}"`);
  return {
    metricsEnabled: boolean(env, 'METRICS_ENABLED', true),
    tracing: { endpoint: otlpTraces, serviceName: optionalText(env, 'OTEL_SERVICE_NAME'), sampleRatio },
    readyTimeoutMs: integer(env, 'READY_TIMEOUT_MS', 2000, 10, 60_000),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 25_000, 0, 600_000),
    shutdownDelayMs: integer(env, 'SHUTDOWN_DELAY_MS', 0, 0, 300_000),
  };
}

function usersSection(env: Env): Config['users'] {
  const listMaxLimit = integer(env, 'USERS_LIST_MAX_LIMIT', 1000, 1, 100_000);
  return {
    listDefaultLimit: Math.min(integer(env, 'USERS_LIST_DEFAULT_LIMIT', 20, 1, 100_000), listMaxLimit),
    listMaxLimit,
    readBatchMax: integer(env, 'USERS_READ_BATCH_MAX', 100, 1, 1000),
  };
}

function socialSection(env: Env, envName: Config['env'], production: boolean, cursorSecret: string): Config['social'] {
  return {
    parentPort: integer(env, 'SOCIAL_PARENT_PORT', 8081, 0, PORT_MAX),
    ownHostname: hostname(env, 'SOCIAL_OWN_HOSTNAME'),
    parentHostname: hostname(env, 'SOCIAL_PARENT_HOSTNAME'),
    cursorSecret,
    publishingQuota: integer(env, 'SOCIAL_PUBLISHING_QUOTA', 100, 1, 100_000),
    tokenLifetimeSeconds: integer(env, 'SOCIAL_TOKEN_LIFETIME_SECONDS', 60 * 24 * 60 * 60, 60, 10 * 365 * 24 * 60 * 60),
    events: {
      // Past the 36 h for which a webhook delivery is retried (reference §6.4) by default.
      retentionHours: integer(env, 'SOCIAL_EVENTS_RETENTION_HOURS', 48, 1, 24 * 365),
      sweepIntervalSecs: integer(env, 'SOCIAL_EVENTS_SWEEP_INTERVAL_SECS', 600, 1, 86_400),
    },
    webhooks: webhooksSection(env, envName, production),
    rateLimits: {
      appCallsPerHour: integer(env, 'SOCIAL_RATE_APP_CALLS_PER_HOUR', 200_000, 1, 1_000_000_000),
      userCallsPerHour: integer(env, 'SOCIAL_RATE_USER_CALLS_PER_HOUR', 20_000, 1, 1_000_000_000),
      pageCallsPerHour: integer(env, 'SOCIAL_RATE_PAGE_CALLS_PER_HOUR', 4_800, 1, 1_000_000_000),
      businessCallsPerDay: integer(env, 'SOCIAL_RATE_BUSINESS_CALLS_PER_DAY', 100_000, 1, 1_000_000_000),
    },
  };
}

function webhooksSection(env: Env, envName: Config['env'], production: boolean): Config['social']['webhooks'] {
  const responseTimeoutMs = integer(env, 'WEBHOOK_RESPONSE_TIMEOUT_MS', 10_000, 100, 120_000);
  const webhooks = {
    allowPrivate: boolean(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    // In development a callback on this machine (a receiver beside `npm start`, README "Webhooks") is allowed by
    // default; production and tests refuse loopback unless it is listed.
    allowedHosts: (env.WEBHOOK_ALLOWED_HOSTS ?? (envName === 'development' ? '127.0.0.1,::1,localhost' : ''))
      .split(',')
      .map((host) => host.trim().toLowerCase())
      .filter((host) => host !== ''),
    requireHttps: boolean(env, 'WEBHOOK_REQUIRE_HTTPS', production),
    connectTimeoutMs: integer(env, 'WEBHOOK_CONNECT_TIMEOUT_MS', 5_000, 100, 60_000),
    responseTimeoutMs,
    maxResponseBytes: integer(env, 'WEBHOOK_MAX_RESPONSE_BYTES', 65_536, 0, 1 << 24),
    delivery: boolean(env, 'WEBHOOK_DELIVERY', true),
    concurrency: integer(env, 'WEBHOOK_DELIVERY_CONCURRENCY', 4, 1, 256),
    // Past the longest delivery (the response timeout) with room for its statements, by default.
    leaseMs: integer(env, 'WEBHOOK_LEASE_MS', responseTimeoutMs + 30_000, 1_000, 600_000),
    pollIntervalMs: integer(env, 'WEBHOOK_POLL_INTERVAL_MS', 5_000, 50, 600_000),
    // The reference retries "over the next 36 hours".
    retryWindowHours: integer(env, 'WEBHOOK_RETRY_WINDOW_HOURS', 36, 1, 24 * 30),
  };
  if (webhooks.leaseMs <= webhooks.responseTimeoutMs) {
    // A lease that ends before its delivery can would let a second process send the same batch while the first waits.
    throw new ConfigError(
      'WEBHOOK_LEASE_MS',
      `must be longer than WEBHOOK_RESPONSE_TIMEOUT_MS (${webhooks.responseTimeoutMs}), got ${webhooks.leaseMs}`,
    );
  }
  return webhooks;
}

function mediaSection(env: Env, dataDir: string): Config['media'] {
  const maxBytes = integer(env, 'MEDIA_MAX_BYTES', 5_242_880, 1024, 1 << 30);
  const blobDir = optionalText(env, 'MEDIA_BLOB_DIR');
  const store = oneOf(env, 'MEDIA_STORE', ['local', 's3'] as const, 'local');
  const s3 = s3Store(env, store);
  if (store === 's3' && blobDir !== undefined) {
    // Bytes an operator believes shared would otherwise land in one process's directory, or the other way round.
    throw new ConfigError('MEDIA_BLOB_DIR', 'is set but MEDIA_STORE=s3 keeps the bytes in the bucket: remove one of them');
  }
  return {
    maxBytes,
    expiresAfterSecs: integer(env, 'MEDIA_EXPIRES_AFTER_SECS', 86_400, 1, 365 * 86_400),
    store,
    blobDir: store === 's3' ? undefined : (blobDir ?? (dataDir === ':memory:' ? undefined : `${dataDir.replace(/\/+$/, '')}/media`)),
    s3,
    // A GraphQL or REST body may carry the image as base64 (a third larger), plus the operation around it.
    base64BodyBytes: Math.ceil(maxBytes / 3) * 4 + 65_536,
    sweepIntervalSecs: integer(env, 'MEDIA_SWEEP_INTERVAL_SECS', 60, 1, 86_400),
    oauthTimestampSkewSecs: integer(env, 'MEDIA_OAUTH_TIMESTAMP_SKEW_SECS', 300, 1, 86_400),
    uploadsPerWindow: integer(env, 'MEDIA_RATE_UPLOADS_PER_WINDOW', 500, 1, 1_000_000_000),
    windowSecs: integer(env, 'MEDIA_RATE_WINDOW_SECS', 900, 1, 86_400),
    chunked: {
      // At most MEDIA_MAX_BYTES: the transports cut every file part one byte past that.
      segmentMaxBytes: integer(env, 'MEDIA_SEGMENT_MAX_BYTES', Math.min(5_242_880, maxBytes), 1024, maxBytes),
      gifMaxBytes: integer(env, 'MEDIA_GIF_MAX_BYTES', 15_728_640, 1024, 1 << 30),
      videoMaxBytes: integer(env, 'MEDIA_VIDEO_MAX_BYTES', 536_870_912, 1024, 2_147_483_647),
      processingTimeoutMs: integer(env, 'MEDIA_PROCESSING_TIMEOUT_MS', 30_000, 100, 600_000),
    },
  };
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
