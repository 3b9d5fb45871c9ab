import type { TokenService } from '../lib/auth.ts';
import type { Config, SubgraphName } from '../lib/config.ts';
import type { DatabaseHandle, SubgraphMigrations } from '../lib/database.ts';
import { createPasswordHasher } from '../lib/password.ts';
import { socialAuthMigrations } from '../lib/social-auth/migrations.ts';
import { socialMigrations } from './social-store/migrations/index.ts';
import { usersMigrations } from './users/migrations/index.ts';
import { createUsersSubgraph, type UsersSubgraph } from './users/users-subgraph.ts';

/** Every subgraph's migrations, in the order they are applied. */
export const ALL_MIGRATIONS: readonly SubgraphMigrations[] = [usersMigrations, socialAuthMigrations, socialMigrations];

export interface SubgraphDeps {
  config: Config;
  database: DatabaseHandle;
  tokens: TokenService;
}

export interface Subgraphs {
  users: UsersSubgraph;
}

/** Builds the named subgraphs (all of them by default) over one database. */
export function createSubgraphs(deps: SubgraphDeps, names?: readonly SubgraphName[]): Partial<Subgraphs> {
  const wanted = new Set(names ?? ['users']);
  const subgraphs: Partial<Subgraphs> = {};
  if (wanted.has('users')) {
    subgraphs.users = createUsersSubgraph({
      database: deps.database,
      tokens: deps.tokens,
      passwords: createPasswordHasher({ logN: deps.config.passwords.scryptLogN }),
      listLimits: { defaultLimit: deps.config.users.listDefaultLimit, maxLimit: deps.config.users.listMaxLimit },
    });
  }
  return subgraphs;
}
