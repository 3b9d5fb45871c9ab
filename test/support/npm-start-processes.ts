import { createDatabase, migrateToLatest, type DatabaseHandle } from '../../lib/database/database.ts';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../lib/database/throwaway-database.ts';
import { ALL_MIGRATIONS } from '../../subgraphs/index.ts';
import { ensureCompiledBuild } from './compiled-build.ts';
import { createSocialFixture, type SocialFixture } from './social-fixture.ts';

/**
 * Tests of several `npm start` processes on one database (they need one they can all open: the suite's PostgreSQL): a
 * throwaway database, migrated and given the social fixture, and the environment of `npm start`'s compiled build
 * (dist/bin/start.js, made by `npm ci`, which starts without a TypeScript loader transpiling the sources each time).
 */
export interface NpmStartWorld {
  throwaway: ThrowawayDatabase;
  database: DatabaseHandle;
  fixture: SocialFixture;
  /** The processes' environment: production, every port ephemeral, this world's secrets, `extra` over it. */
  env(extra?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

export async function openNpmStartWorld(name: string): Promise<NpmStartWorld> {
  await ensureCompiledBuild();
  const throwaway = await createThrowawayDatabase(process.env.DATABASE_URL!, `tributary_${name.replaceAll('-', '_')}`);
  const database = await createDatabase({
    url: throwaway.url,
    pgliteDir: undefined,
    poolMax: 2,
    connectTimeoutMs: 5000,
    statementTimeoutMs: 10_000,
  });
  try {
    await migrateToLatest(database.db, ALL_MIGRATIONS);
    const fixture = await createSocialFixture(database);
    return {
      throwaway,
      database,
      fixture,
      env: (extra = {}) => ({
        NODE_ENV: 'production',
        LOG_LEVEL: 'info',
        HOST: '127.0.0.1',
        PUBLIC_HOST: '127.0.0.1',
        DATABASE_URL: throwaway.url,
        DATABASE_POOL_MAX: '2',
        JWT_SECRET: `${name}-processes-secret-0123456789abcdef`,
        SOCIAL_CURSOR_SECRET: `${name}-processes-cursor-0123456789abcdef`,
        GATEWAY_PORT: '0',
        REST_PORT: '0',
        SOCIAL_PARENT_PORT: '0',
        GRPC_PORT: '0',
        ...extra,
      }),
      close: async () => {
        await database.close();
        await throwaway.drop();
      },
    };
  } catch (error) {
    await database.close();
    await throwaway.drop();
    throw error;
  }
}
