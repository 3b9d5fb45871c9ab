import { afterAll, beforeAll } from 'vitest';
import {
  startEmbeddedSystem,
  startGatewayProcess,
  startSubgraphProcess,
  type RunningSystem,
  type SystemOptions,
} from '../../bin/system/index.ts';
import { ADMIN_ROLE, type TokenService } from '../../lib/auth/auth.ts';
import { loadConfig, type Config } from '../../lib/config.ts';
import { createDatabase, migrateToLatest, type DatabaseHandle } from '../../lib/database/database.ts';
import { PgliteTemplateImage } from '../../lib/database/pglite-template-image.ts';
import { ALL_MIGRATIONS } from '../../subgraphs/index.ts';
import { createLogger } from '../../lib/logger.ts';
import type { DestinationStream } from 'pino';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../lib/database/throwaway-database.ts';
import { runMediaStoreEnv } from './test-blob-store.ts';

/**
 * Starts Tributary for a test file on ephemeral ports and a database of its own: in-memory PGlite, or — in the
 * e2e-postgres project — a fresh PostgreSQL database created on the DATABASE_URL server and dropped afterwards. The
 * media's bytes go to a temporary directory, or — in that project too — to a key prefix of its own in the run's local
 * S3 bucket (test-blob-store.ts).
 */
export interface TestSystem {
  gatewayUrl: string;
  /** The REST adapter: Area A and the social graph's own-login host. */
  restUrl: string;
  /** The social graph's parent-platform host. */
  socialParentUrl: string;
  grpcAddress: string;
  tokens: TokenService;
  database: DatabaseHandle;
  config: Config;
  /** An administrator token (may read and write every record). */
  adminToken(): string;
  /** A token for the user with this subject (the record id for Area A). */
  userToken(sub: string): string;
  /** The gateway's supergraph read again from its file (SUPERGRAPH_FILE) and swapped in if it changed. */
  reloadSupergraph?: RunningSystem['reloadSupergraph'];
  /** The distributed topology's subgraph servers by name (a test stops one to see the gateway without it). */
  subgraphs?: Readonly<Record<'users' | 'accounts' | 'comments' | 'media', RunningSystem>>;
  /** Distributed topology: stops a subgraph server and starts it again on the same port (a subgraph restart). */
  restartSubgraph?(name: 'accounts' | 'comments' | 'media'): Promise<void>;
  close(): Promise<void>;
}

const BASE_ENV = {
  NODE_ENV: 'test',
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  HOST: '127.0.0.1',
  PUBLIC_HOST: '127.0.0.1',
  GATEWAY_PORT: '0',
  REST_PORT: '0',
  GRPC_PORT: '0',
  SUBGRAPH_PORT: '0',
  SOCIAL_PARENT_PORT: '0',
  DATA_DIR: ':memory:',
  // Fast hashing in tests; the format records the cost, so production settings are unaffected.
  PASSWORD_SCRYPT_LOG_N: '10',
  // Webhook receivers of the tests listen on 127.0.0.1, which production refuses (lib/http/callback-client.ts).
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  JWT_SECRET: 'test-secret-that-is-at-least-32-characters-long',
  // The gateway's fetch cache is on by default (issue 39), and evicts on the change log. Test fixtures write to the
  // database directly — around the log, which no product door does — so a system serves uncached unless its test asks
  // for the cache (the fetch-cache, response-cache and cached auth-matrix tests; npm start's processes run the default).
  GATEWAY_CACHE: 'off',
  // CI runs the e2e project a second time with every stand-in off (STAND_INS=off): the library's routes, proven.
  ...(process.env.STAND_INS !== undefined && { STAND_INS: process.env.STAND_INS }),
};

/**
 * The environment of a test that holds a stand-in to the library it copies: every stand-in on, whatever the run's
 * STAND_INS says (CI's run with them off still compares them).
 */
export const STAND_INS_ON = { STAND_INS: 'on' } as const;

/** The run's migrated PGlite template (test/support/database-templates.global-setup.ts), when the run made one. */
const PGLITE_TEMPLATE_FILE = process.env.TEST_PGLITE_TEMPLATE;
let pgliteTemplateImage: PgliteTemplateImage | undefined;

/**
 * The template, read and unpacked once per worker (lib/database/pglite-template-image.ts): a worker starts dozens of
 * PGlite databases from the same file, and PGlite reading and unpacking the tar again for each was half of their start.
 */
function pgliteTemplate(): PgliteTemplateImage | undefined {
  if (PGLITE_TEMPLATE_FILE === undefined) return undefined;
  pgliteTemplateImage ??= PgliteTemplateImage.fromFile(PGLITE_TEMPLATE_FILE);
  return pgliteTemplateImage;
}

/** A throwaway PostgreSQL database for the postgres projects, copied from the run's migrated template when there is one. */
async function createTestDatabase(): Promise<ThrowawayDatabase | undefined> {
  if (process.env.TEST_DATABASE !== 'postgres') return undefined;
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error('TEST_DATABASE=postgres needs DATABASE_URL');
  const template = process.env.TEST_POSTGRES_TEMPLATE;
  return createThrowawayDatabase(serverUrl, 'tributary_test', template ? { template } : {});
}

function testConfig(extra: Record<string, string | undefined> = {}): Config {
  // On an S3 run (TEST_MEDIA_STORE=s3) the media go to the run's bucket, under a key prefix per system.
  return loadConfig({ ...BASE_ENV, ...runMediaStoreEnv(extra), ...extra });
}

function withTokens(
  system: RunningSystem,
  database: DatabaseHandle,
  throwaway: { drop(): Promise<void> } | undefined,
  extra: Partial<TestSystem> = {},
): TestSystem {
  return {
    gatewayUrl: system.gatewayUrl!,
    restUrl: system.restUrl!,
    socialParentUrl: system.socialParentUrl!,
    grpcAddress: system.grpcAddress!,
    tokens: system.tokens,
    database,
    config: system.config,
    adminToken: () => system.tokens.mint({ sub: 'admin', roles: [ADMIN_ROLE] }),
    userToken: (sub) => system.tokens.mint({ sub, roles: [] }),
    ...(system.reloadSupergraph && { reloadSupergraph: system.reloadSupergraph }),
    close: async () => {
      await system.close();
      await throwaway?.drop();
    },
    ...extra,
  };
}

/** Options of a test system: the system's own, and where its logs go (tests that read them pass a stream). */
export interface TestSystemOptions extends SystemOptions {
  logDestination?: DestinationStream;
  /** Distributed topology: the URL the gateway is given for a subgraph (a test puts a proxy of its own in between). */
  gatewaySubgraphUrl?: (name: 'users' | 'accounts' | 'comments' | 'media', url: string) => Promise<string>;
}

function testLogger(config: Config, options: TestSystemOptions) {
  return createLogger({ level: config.logLevel, ...(options.logDestination ? { destination: options.logDestination } : {}) });
}

/** The embedded topology (what npm start runs). */
export async function startTestSystem(env: Record<string, string> = {}, options: TestSystemOptions = {}): Promise<TestSystem> {
  // A test that brings its own server (env.DATABASE_URL) or database (options.database) gets no throwaway database.
  const throwaway = env.DATABASE_URL === undefined && options.database === undefined ? await createTestDatabase() : undefined;
  const config = testConfig({ ...env, DATABASE_URL: env.DATABASE_URL ?? throwaway?.url });
  const system = await startEmbeddedSystem(config, testLogger(config, options), { pgliteTemplate: pgliteTemplate(), ...options });
  return withTokens(system, system.database!, throwaway);
}

/**
 * The distributed topology in one test process: every subgraph on its own HTTP server (sharing one database, as separate
 * processes share one PostgreSQL), and a gateway reaching them over HTTP (the REST adapter runs in the gateway process, as
 * npm run start:gateway deploys it).
 */
export async function startDistributedTestSystem(env: Record<string, string> = {}, options: TestSystemOptions = {}): Promise<TestSystem> {
  // A test that brings its own database (env.DATABASE_URL: one behind a proxy it cuts) gets no throwaway database.
  const throwaway = env.DATABASE_URL === undefined ? await createTestDatabase() : undefined;
  const subgraphConfig = testConfig({ ...env, DATABASE_URL: env.DATABASE_URL ?? throwaway?.url });
  const logger = testLogger(subgraphConfig, options);
  const users = await startSubgraphProcess(subgraphConfig, logger, 'users', { pgliteTemplate: pgliteTemplate(), ...options });
  const started: RunningSystem[] = [users];
  try {
    const shared = { ...options, database: users.database! };
    const accounts = await startSubgraphProcess(subgraphConfig, logger, 'accounts', shared);
    started.push(accounts);
    const comments = await startSubgraphProcess(subgraphConfig, logger, 'comments', shared);
    started.push(comments);
    const media = await startSubgraphProcess(subgraphConfig, logger, 'media', shared);
    started.push(media);
    const urlOf = (name: 'users' | 'accounts' | 'comments' | 'media', url: string | undefined) =>
      options.gatewaySubgraphUrl ? options.gatewaySubgraphUrl(name, url!) : Promise.resolve(url!);
    const gatewayConfig = testConfig({
      ...env,
      GATEWAY_MODE: 'distributed',
      SUBGRAPH_MEDIA_URL: await urlOf('media', media.subgraphUrls.media),
      SUBGRAPH_USERS_URL: await urlOf('users', users.subgraphUrls.users),
      SUBGRAPH_ACCOUNTS_URL: await urlOf('accounts', accounts.subgraphUrls.accounts),
      SUBGRAPH_COMMENTS_URL: await urlOf('comments', comments.subgraphUrls.comments),
    });
    // With the fetch cache on, the gateway follows the change log of the subgraphs' database (shared in this process).
    const gateway = await startGatewayProcess(gatewayConfig, logger, {
      database: users.database!,
      ...(options.now && { now: options.now }),
    });
    const subgraphs = { users, accounts, comments, media };
    return withTokens(
      {
        ...gateway,
        grpcAddress: users.grpcAddress,
        close: async () => {
          await gateway.close();
          for (const subgraph of started.reverse()) await subgraph.close();
        },
      },
      users.database!,
      throwaway,
      {
        subgraphs,
        restartSubgraph: async (name) => {
          const running = subgraphs[name];
          const port = new URL(running.subgraphUrls[name]!).port;
          await running.close();
          const again = await startSubgraphProcess(
            { ...subgraphConfig, subgraph: { ...subgraphConfig.subgraph, port: Number(port) } },
            logger,
            name,
            shared,
          );
          started[started.indexOf(running)] = again;
          subgraphs[name] = again;
        },
      },
    );
  } catch (error) {
    for (const subgraph of started.reverse()) await subgraph.close();
    await throwaway?.drop();
    throw error;
  }
}

/**
 * For a test file (or describe block) that needs storage but no servers: opens a database of its own before its tests
 * (openTestDatabase) and closes it after them. Call it before the file's own beforeAll hooks, which then see the handle.
 */
export function useTestDatabase(): () => DatabaseHandle {
  let opened: Awaited<ReturnType<typeof openTestDatabase>> | undefined;
  beforeAll(async () => {
    opened = await openTestDatabase();
  });
  afterAll(async () => {
    await opened?.close();
  });
  return () => {
    if (!opened) throw new Error('useTestDatabase: the database is opened in beforeAll; read it from a hook or a test');
    return opened.database;
  };
}

/** A migrated database of its own for tests that need storage but no servers (PGlite in memory, or throwaway PostgreSQL). */
export async function openTestDatabase(): Promise<{ database: DatabaseHandle; close(): Promise<void> }> {
  const throwaway = await createTestDatabase();
  const database = await createDatabase(
    { url: throwaway?.url, pgliteDir: undefined, poolMax: 4, connectTimeoutMs: 5000, statementTimeoutMs: 10_000 },
    { pgliteTemplate: pgliteTemplate() },
  );
  await migrateToLatest(database.db, ALL_MIGRATIONS);
  return {
    database,
    close: async () => {
      await database.close();
      await throwaway?.drop();
    },
  };
}
