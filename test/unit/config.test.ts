import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/config.ts';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config.gateway.port).toBe(4000);
    expect(config.rest.port).toBe(8080);
    expect(config.grpc.port).toBe(9090);
    expect(config.gateway.mode).toBe('embedded');
    expect(config.database.url).toBeUndefined();
    expect(config.database.pgliteDir).toBe('./data/pglite');
    expect(config.gateway.introspection).toBe(true);
    expect(config.gateway.landingPage).toBe(true);
    expect(config.gateway.inlineTracing).toBe(false);
    expect(config.jwt.usingDevelopmentSecret).toBe(true);
    expect(config.users).toEqual({ listDefaultLimit: 20, listMaxLimit: 1000, readBatchMax: 100 });
    expect(Object.isFrozen(config.gateway)).toBe(true);
  });

  it('allows webhook callbacks on this machine by default in development only', () => {
    expect(loadConfig({}).social.webhooks.allowedHosts).toEqual(['127.0.0.1', '::1', 'localhost']);
    expect(loadConfig({ NODE_ENV: 'test' }).social.webhooks.allowedHosts).toEqual([]);
    expect(
      loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), SOCIAL_CURSOR_SECRET: 'y'.repeat(32) }).social.webhooks.allowedHosts,
    ).toEqual([]);
    expect(loadConfig({ WEBHOOK_ALLOWED_HOSTS: '' }).social.webhooks.allowedHosts).toEqual([]);
  });

  it("bounds V8's heap growth by default, and lets 0 hand it back to V8", () => {
    expect(loadConfig({}).heapGrowingPercent).toBe(20);
    expect(loadConfig({ HEAP_GROWING_PERCENT: '0' }).heapGrowingPercent).toBe(0);
    expect(() => loadConfig({ HEAP_GROWING_PERCENT: '-5' })).toThrow(ConfigError);
    expect(() => loadConfig({ HEAP_GROWING_PERCENT: 'lots' })).toThrow(ConfigError);
  });

  it('takes several instances of a subgraph, comma-separated; the first is its URL', () => {
    const config = loadConfig({ SUBGRAPH_COMMENTS_URL: 'http://comments-1:4003/graphql, http://comments-2:4003/graphql' });
    expect(config.gateway.subgraphInstances.comments).toEqual(['http://comments-1:4003/graphql', 'http://comments-2:4003/graphql']);
    expect(config.gateway.subgraphUrls.comments).toBe('http://comments-1:4003/graphql');
  });

  it('refuses the development JWT secret in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(
      new ConfigError('JWT_SECRET', 'must be set when NODE_ENV=production (the development secret is refused)'),
    );
  });

  it('turns introspection and the landing page off in production', () => {
    const config = loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), SOCIAL_CURSOR_SECRET: 'c'.repeat(32) });
    expect(config.gateway.introspection).toBe(false);
    expect(config.gateway.landingPage).toBe(false);
  });

  it.each([
    [{ GATEWAY_PORT: 'eighty' }, 'configuration: GATEWAY_PORT must be an integer, got "eighty"'],
    [{ REST_PORT: '70000' }, 'configuration: REST_PORT must be between 0 and 65535, got 70000'],
    [{ GATEWAY_MODE: 'mesh' }, 'configuration: GATEWAY_MODE must be one of embedded, distributed, got "mesh"'],
    [{ GATEWAY_MODE: 'distributed' }, 'configuration: SUBGRAPH_USERS_URL is required when GATEWAY_MODE=distributed'],
    [{ SUBGRAPH_USERS_URL: 'ftp://x' }, 'configuration: SUBGRAPH_USERS_URL must be an http(s) URL, got "ftp://x"'],
    [{ SUBGRAPH_USERS_URL: 'http://a:4001/graphql,ftp://b' }, 'configuration: SUBGRAPH_USERS_URL must be an http(s) URL, got "ftp://b"'],
    [
      { SUBGRAPH_USERS_URL: 'http://a:4001/graphql,,http://b:4001/graphql' },
      'configuration: SUBGRAPH_USERS_URL has an empty entry between its commas',
    ],
    [{ SUBGRAPH_USERS_URL: 'http://a:4001/graphql, http://a:4001/graphql' }, 'configuration: SUBGRAPH_USERS_URL lists a URL twice'],
    [{ JWT_SECRET: 'short' }, 'configuration: JWT_SECRET must be at least 32 characters'],
    [{ JWT_ALGORITHM: 'RS256' }, 'configuration: JWT_PUBLIC_KEY is required with JWT_ALGORITHM=RS256'],
    [{ GRAPHQL_INTROSPECTION: 'maybe' }, 'configuration: GRAPHQL_INTROSPECTION must be true or false, got "maybe"'],
    [
      { CORS_ORIGINS: 'app.example.com' },
      'configuration: CORS_ORIGINS must list origins such as https://app.example.com, got "app.example.com"',
    ],
    [{ SOCIAL_CURSOR_SECRET: 'short' }, 'configuration: SOCIAL_CURSOR_SECRET must be at least 32 characters'],
    [{ SOCIAL_PARENT_PORT: '-1' }, 'configuration: SOCIAL_PARENT_PORT must be between 0 and 65535, got -1'],
    [
      { SOCIAL_PARENT_HOSTNAME: 'graph example' },
      'configuration: SOCIAL_PARENT_HOSTNAME must be a host name such as graph.example.com, got "graph example"',
    ],
    [{ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }, 'configuration: SOCIAL_CURSOR_SECRET must be set when NODE_ENV=production'],
  ])('names the bad variable: %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('loadConfig: GraphQL hardening', () => {
  const production = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), SOCIAL_CURSOR_SECRET: 'c'.repeat(32) };

  it('has the documented defaults', () => {
    expect(loadConfig({}).graphql).toEqual({
      limits: { maxDepth: 12, maxAliases: 30, maxRootFields: 20, maxTokens: 1000, maxCost: 50_000, costListSize: 25 },
      fieldSuggestions: true,
      maxJsonDepth: 32,
      persistedOperations: { mode: 'off', manifestPath: undefined },
      trustedCallerSecret: undefined,
    });
  });

  it('turns field suggestions off in production, unless asked for', () => {
    expect(loadConfig(production).graphql.fieldSuggestions).toBe(false);
    expect(loadConfig({ ...production, GRAPHQL_FIELD_SUGGESTIONS: 'true' }).graphql.fieldSuggestions).toBe(true);
    expect(loadConfig({ GRAPHQL_FIELD_SUGGESTIONS: 'off' }).graphql.fieldSuggestions).toBe(false);
  });

  it('reads every limit, the safelist and the trusted-caller secret', () => {
    const graphql = loadConfig({
      GRAPHQL_MAX_DEPTH: '8',
      GRAPHQL_MAX_ALIASES: '0',
      GRAPHQL_MAX_ROOT_FIELDS: '5',
      GRAPHQL_MAX_TOKENS: '500',
      GRAPHQL_MAX_COST: '2000',
      GRAPHQL_COST_LIST_SIZE: '10',
      GRAPHQL_MAX_JSON_DEPTH: '8',
      GRAPHQL_PERSISTED_OPERATIONS: 'require',
      GRAPHQL_PERSISTED_OPERATIONS_MANIFEST: './manifest.json',
      GRAPHQL_TRUSTED_CALLER_SECRET: 's'.repeat(32),
    }).graphql;
    expect(graphql).toEqual({
      limits: { maxDepth: 8, maxAliases: 0, maxRootFields: 5, maxTokens: 500, maxCost: 2000, costListSize: 10 },
      fieldSuggestions: true,
      maxJsonDepth: 8,
      persistedOperations: { mode: 'require', manifestPath: './manifest.json' },
      trustedCallerSecret: 's'.repeat(32),
    });
  });

  it('accepts require mode with GATEWAY_URL when the REST adapter has the secret to send', () => {
    const config = loadConfig({
      GATEWAY_URL: 'http://gateway.internal:4000',
      GRAPHQL_PERSISTED_OPERATIONS: 'require',
      GRAPHQL_PERSISTED_OPERATIONS_MANIFEST: './manifest.json',
      GRAPHQL_TRUSTED_CALLER_SECRET: 's'.repeat(32),
    });
    expect(config.graphql.persistedOperations.mode).toBe('require');
  });

  it.each([
    [{ GRAPHQL_MAX_DEPTH: 'deep' }, 'configuration: GRAPHQL_MAX_DEPTH must be an integer, got "deep"'],
    [{ GRAPHQL_MAX_DEPTH: '0' }, 'configuration: GRAPHQL_MAX_DEPTH must be between 1 and 1000, got 0'],
    [{ GRAPHQL_MAX_ALIASES: '-1' }, 'configuration: GRAPHQL_MAX_ALIASES must be between 0 and 100000, got -1'],
    [{ GRAPHQL_MAX_ROOT_FIELDS: '0' }, 'configuration: GRAPHQL_MAX_ROOT_FIELDS must be between 1 and 100000, got 0'],
    [{ GRAPHQL_MAX_TOKENS: '5' }, 'configuration: GRAPHQL_MAX_TOKENS must be between 10 and 1000000, got 5'],
    [{ GRAPHQL_MAX_COST: '1.5' }, 'configuration: GRAPHQL_MAX_COST must be an integer, got "1.5"'],
    [{ GRAPHQL_COST_LIST_SIZE: '0' }, 'configuration: GRAPHQL_COST_LIST_SIZE must be between 1 and 100000, got 0'],
    [{ GRAPHQL_FIELD_SUGGESTIONS: 'sometimes' }, 'configuration: GRAPHQL_FIELD_SUGGESTIONS must be true or false, got "sometimes"'],
    [
      { GRAPHQL_PERSISTED_OPERATIONS: 'strict' },
      'configuration: GRAPHQL_PERSISTED_OPERATIONS must be one of off, allow, require, got "strict"',
    ],
    [
      { GRAPHQL_PERSISTED_OPERATIONS: 'allow' },
      'configuration: GRAPHQL_PERSISTED_OPERATIONS_MANIFEST is required when GRAPHQL_PERSISTED_OPERATIONS=allow',
    ],
    [{ GRAPHQL_TRUSTED_CALLER_SECRET: 'short' }, 'configuration: GRAPHQL_TRUSTED_CALLER_SECRET must be at least 32 characters'],
    [
      {
        GATEWAY_URL: 'http://gateway.internal:4000',
        GRAPHQL_PERSISTED_OPERATIONS: 'require',
        GRAPHQL_PERSISTED_OPERATIONS_MANIFEST: './m.json',
      },
      'configuration: GRAPHQL_TRUSTED_CALLER_SECRET is required when GATEWAY_URL is set and GRAPHQL_PERSISTED_OPERATIONS=require',
    ],
  ])('names the bad variable: %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('loadConfig: the media blob store', () => {
  const S3 = {
    MEDIA_STORE: 's3',
    MEDIA_S3_BUCKET: 'tributary-media',
    MEDIA_S3_ACCESS_KEY_ID: 'AKIDEXAMPLE',
    MEDIA_S3_SECRET_ACCESS_KEY: 'secret',
  };

  it('keeps the bytes in the local directory by default (DATA_DIR/media, or a temporary one in memory)', () => {
    expect(loadConfig({}).media).toMatchObject({ store: 'local', blobDir: './data/media', s3: undefined });
    expect(loadConfig({ DATA_DIR: ':memory:' }).media).toMatchObject({ store: 'local', blobDir: undefined });
    expect(loadConfig({ MEDIA_BLOB_DIR: '/srv/media' }).media.blobDir).toBe('/srv/media');
  });

  it('reads the bucket, its endpoint, region, prefix and credentials with MEDIA_STORE=s3', () => {
    expect(loadConfig(S3).media).toMatchObject({
      store: 's3',
      blobDir: undefined,
      s3: {
        endpoint: undefined,
        region: 'us-east-1',
        bucket: 'tributary-media',
        keyPrefix: '',
        accessKeyId: 'AKIDEXAMPLE',
        secretAccessKey: 'secret',
        sessionToken: undefined,
        forcePathStyle: false,
      },
    });
    const config = loadConfig({
      ...S3,
      MEDIA_S3_ENDPOINT: 'http://minio:9000',
      MEDIA_S3_REGION: 'eu-west-3',
      MEDIA_S3_KEY_PREFIX: 'media/',
      MEDIA_S3_SESSION_TOKEN: 'token',
    });
    // An endpoint of its own is an S3-compatible server: path-style unless told otherwise.
    expect(config.media.s3).toMatchObject({
      endpoint: 'http://minio:9000',
      region: 'eu-west-3',
      keyPrefix: 'media/',
      sessionToken: 'token',
      forcePathStyle: true,
    });
    expect(loadConfig({ ...S3, MEDIA_S3_ENDPOINT: 'http://minio:9000', MEDIA_S3_FORCE_PATH_STYLE: 'false' }).media.s3?.forcePathStyle).toBe(
      false,
    );
    expect(Object.isFrozen(config.media.s3)).toBe(true);
  });

  it.each([
    [{ MEDIA_STORE: 'gcs' }, 'configuration: MEDIA_STORE must be one of local, s3, got "gcs"'],
    [{ ...S3, MEDIA_S3_BUCKET: '' }, 'configuration: MEDIA_S3_BUCKET is required when MEDIA_STORE=s3'],
    [{ ...S3, MEDIA_S3_ACCESS_KEY_ID: undefined }, 'configuration: MEDIA_S3_ACCESS_KEY_ID is required when MEDIA_STORE=s3'],
    [{ ...S3, MEDIA_S3_SECRET_ACCESS_KEY: undefined }, 'configuration: MEDIA_S3_SECRET_ACCESS_KEY is required when MEDIA_STORE=s3'],
    [
      { ...S3, MEDIA_S3_BUCKET: 'Media_Bucket' },
      'configuration: MEDIA_S3_BUCKET must be a bucket name (3–63 lowercase letters, digits, dots and hyphens), got "Media_Bucket"',
    ],
    [{ ...S3, MEDIA_S3_ENDPOINT: 'ftp://minio:9000' }, 'configuration: MEDIA_S3_ENDPOINT must be an http(s) URL, got "ftp://minio:9000"'],
    [{ ...S3, MEDIA_S3_REGION: 'EU West' }, 'configuration: MEDIA_S3_REGION must be a region name such as eu-west-1, got "EU West"'],
    [
      { ...S3, MEDIA_S3_KEY_PREFIX: '/media/' },
      `configuration: MEDIA_S3_KEY_PREFIX must be at most 256 letters, digits and !_.*'()/- not starting with a slash, got "/media/"`,
    ],
    [{ ...S3, MEDIA_S3_FORCE_PATH_STYLE: 'sometimes' }, 'configuration: MEDIA_S3_FORCE_PATH_STYLE must be true or false, got "sometimes"'],
    [
      { ...S3, MEDIA_BLOB_DIR: '/srv/media' },
      'configuration: MEDIA_BLOB_DIR is set but MEDIA_STORE=s3 keeps the bytes in the bucket: remove one of them',
    ],
    [
      { MEDIA_S3_BUCKET: 'tributary-media' },
      'configuration: MEDIA_S3_BUCKET is set but MEDIA_STORE is not s3: set MEDIA_STORE=s3 to keep the bytes in the bucket, or remove it',
    ],
  ])('names the bad variable: %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
