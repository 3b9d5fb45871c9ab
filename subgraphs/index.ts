import type { TokenService } from '../lib/auth.ts';
import type { Config, SubgraphName } from '../lib/config.ts';
import { createCursorCodec } from '../lib/cursor.ts';
import type { DatabaseHandle, SubgraphMigrations } from '../lib/database.ts';
import { createPasswordHasher } from '../lib/password.ts';
import { socialAuthMigrations } from '../lib/social-auth/migrations.ts';
import type { SocialAuthTables } from '../lib/social-auth/social-token.repository.ts';
import { createSocialTokenService, type SocialTokenService } from '../lib/social-auth/social-token.service.ts';
import { createAccountsSubgraph, type AccountsSubgraph } from './accounts/accounts-subgraph.ts';
import { createCommentsSubgraph, type CommentsSubgraph } from './comments/comments-subgraph.ts';
import { socialMigrations } from './social-store/migrations/index.ts';
import { usersMigrations } from './users/migrations/index.ts';
import { createUsersSubgraph, type UsersSubgraph } from './users/users-subgraph.ts';

/** Every subgraph's migrations, in the order they are applied. */
export const ALL_MIGRATIONS: readonly SubgraphMigrations[] = [usersMigrations, socialAuthMigrations, socialMigrations];

export interface SubgraphDeps {
  config: Config;
  database: DatabaseHandle;
  tokens: TokenService;
  /** The clock of token expiry, stories, containers and quotas; tests drive it. Default: the system clock. */
  now?: () => Date;
}

export interface Subgraphs {
  users: UsersSubgraph;
  accounts: AccountsSubgraph;
  comments: CommentsSubgraph;
}

/** The social graph's token service over a database (also used by the seed and token scripts). */
export function createSocialTokens(database: DatabaseHandle, now: () => Date = () => new Date()): SocialTokenService {
  return createSocialTokenService({ db: database.db.withTables<SocialAuthTables>(), now });
}

/** Builds the named subgraphs (all of them by default) over one database. */
export function createSubgraphs(deps: SubgraphDeps, names?: readonly SubgraphName[]): Partial<Subgraphs> {
  const wanted = new Set<SubgraphName>(names ?? ['users', 'accounts', 'comments']);
  const now = deps.now ?? (() => new Date());
  const subgraphs: Partial<Subgraphs> = {};
  if (wanted.has('users')) {
    subgraphs.users = createUsersSubgraph({
      database: deps.database,
      tokens: deps.tokens,
      passwords: createPasswordHasher({ logN: deps.config.passwords.scryptLogN }),
      listLimits: { defaultLimit: deps.config.users.listDefaultLimit, maxLimit: deps.config.users.listMaxLimit },
    });
  }
  if (wanted.has('accounts') || wanted.has('comments')) {
    const social = {
      database: deps.database,
      socialTokens: createSocialTokens(deps.database, now),
      codec: createCursorCodec(deps.config.social.cursorSecret),
      now,
    };
    if (wanted.has('accounts')) {
      subgraphs.accounts = createAccountsSubgraph({ ...social, publishingQuota: deps.config.social.publishingQuota });
    }
    if (wanted.has('comments')) subgraphs.comments = createCommentsSubgraph(social);
  }
  return subgraphs;
}
