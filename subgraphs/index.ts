import type { TokenService } from '../lib/auth/auth.ts';
import type { Config, SubgraphName } from '../lib/config.ts';
import { createCursorCodec } from '../lib/social-graph/cursor.ts';
import type { DatabaseHandle, SubgraphMigrations } from '../lib/database/database.ts';
import type { Logger } from '../lib/logger.ts';
import type { Metrics } from '../lib/telemetry/metrics.ts';
import { oauthMigrations } from '../lib/auth/oauth1/migrations.ts';
import type { OAuthTables } from '../lib/auth/oauth1/oauth-credential.repository.ts';
import { createOAuthCredentials, type OAuthCredentials } from '../lib/auth/oauth1/oauth-credentials.ts';
import { createPasswordHasher } from '../lib/auth/password.ts';
import { socialAuthMigrations } from '../lib/auth/social-auth/migrations.ts';
import type { SocialAuthTables } from '../lib/auth/social-auth/social-token.repository.ts';
import { createSocialTokenService, type SocialTokenService } from '../lib/auth/social-auth/social-token.service.ts';
import { createAccountsSubgraph, type AccountsSubgraph } from './accounts/accounts-subgraph.ts';
import { createCallbackClient } from '../lib/http/callback-client.ts';
import { createCommentsSubgraph, type CommentsSubgraph } from './comments/comments-subgraph.ts';
import type { BlobStore } from './shared/media-store/blob-store.ts';
import { createMediaClaims } from './shared/media-store/media-claims.ts';
import type { MediaTables } from './shared/media-store/media-upload.repository.ts';
import { mediaMigrations } from './shared/media-store/migrations/index.ts';
import { createMediaSubgraph, type MediaSubgraph } from './media/media-subgraph.ts';
import { socialMigrations } from './shared/social-graph/migrations/index.ts';
import { createSocialRateLimiter } from './shared/social-graph/social-rate-limits.ts';
import type { SocialTables } from './shared/social-graph/social-tables.ts';
import { usersMigrations } from './users/migrations/index.ts';
import { createUsersSubgraph, type UsersSubgraph } from './users/users-subgraph.ts';

/** Every subgraph's migrations, in the order they are applied. */
export const ALL_MIGRATIONS: readonly SubgraphMigrations[] = [
  usersMigrations,
  socialAuthMigrations,
  socialMigrations,
  oauthMigrations,
  mediaMigrations,
];

export interface SubgraphDeps {
  config: Config;
  database: DatabaseHandle;
  tokens: TokenService;
  /** The clock of token expiry, stories, containers, quotas and upload expiry; tests drive it. Default: the system clock. */
  now?: () => Date;
  /** Where uploaded bytes go; needed by the media subgraph. */
  blobs?: BlobStore;
  logger: Logger;
  /** Where the media service counts uploads and refusals; none by default. */
  metrics?: Pick<Metrics, 'observeUpload' | 'observeRateLimited'>;
}

export interface Subgraphs {
  users: UsersSubgraph;
  accounts: AccountsSubgraph;
  comments: CommentsSubgraph;
  media: MediaSubgraph;
}

/** The social graph's token service over a database (also used by the seed and token scripts). */
export function createSocialTokens(database: DatabaseHandle, now: () => Date = () => new Date()): SocialTokenService {
  return createSocialTokenService({ db: database.db.withTables<SocialAuthTables>(), now });
}

/** The OAuth credentials of the image upload over a database (also used by the seed script). */
export function createOAuthCredentialStore(database: DatabaseHandle, now: () => Date = () => new Date()): OAuthCredentials {
  return createOAuthCredentials({ db: database.db.withTables<OAuthTables>(), now });
}

/** Builds the named subgraphs (all of them by default) over one database. */
export function createSubgraphs(deps: SubgraphDeps, names?: readonly SubgraphName[]): Partial<Subgraphs> {
  const wanted = new Set<SubgraphName>(names ?? ['users', 'accounts', 'comments', 'media']);
  const now = deps.now ?? (() => new Date());
  const subgraphs: Partial<Subgraphs> = {};
  if (wanted.has('users')) {
    subgraphs.users = createUsersSubgraph({
      database: deps.database,
      tokens: deps.tokens,
      passwords: createPasswordHasher({ logN: deps.config.passwords.scryptLogN }),
      listLimits: { defaultLimit: deps.config.users.listDefaultLimit, maxLimit: deps.config.users.listMaxLimit },
      readBatchMax: deps.config.users.readBatchMax,
    });
  }
  const socialTokens = createSocialTokens(deps.database, now);
  if (wanted.has('accounts') || wanted.has('comments')) {
    const social = {
      database: deps.database,
      socialTokens,
      codec: createCursorCodec(deps.config.social.cursorSecret),
      now,
      rateLimiter: createSocialRateLimiter({ db: deps.database.db.withTables<SocialTables>(), limits: deps.config.social.rateLimits, now }),
    };
    if (wanted.has('accounts')) {
      subgraphs.accounts = createAccountsSubgraph({
        ...social,
        callbacks: createCallbackClient(deps.config.social.webhooks),
        publishingQuota: deps.config.social.publishingQuota,
        mediaClaims: createMediaClaims({ db: deps.database.db.withTables<MediaTables>(), now }),
      });
    }
    if (wanted.has('comments')) {
      subgraphs.comments = createCommentsSubgraph({
        ...social,
        logger: deps.logger,
      });
    }
  }
  if (wanted.has('media')) {
    if (!deps.blobs) throw new Error('the media subgraph needs a blob store');
    subgraphs.media = createMediaSubgraph({
      config: deps.config.media,
      database: deps.database,
      blobs: deps.blobs,
      socialTokens,
      credentials: createOAuthCredentialStore(deps.database, now),
      logger: deps.logger,
      now,
      ...(deps.metrics ? { metrics: deps.metrics } : {}),
    });
  }
  return subgraphs;
}
