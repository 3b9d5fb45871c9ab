import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import DataLoader from 'dataloader';
import { isSocialId } from '../../social-graph/social-ids.ts';
import {
  findAccessTokens,
  findApps,
  insertAccessToken,
  insertApp,
  listApps,
  revokeAccessToken,
  type SocialAuthDb,
  type StoredApp,
} from './social-token.repository.ts';

/**
 * Access tokens of the social graph. A token is an opaque string — a prefix naming its login type (as the reference's
 * tokens do: parent-platform user tokens start "EAA") and 32 random bytes — that the service stores only as a SHA-256 hash,
 * so a database leak reveals no usable credential. Checking one is a single indexed read, shared by the tokens checked in
 * the same tick (a subscription event reaches many subscribers at once, each with a token to check again).
 */

export type LoginType = 'own' | 'parent';

/** Token prefixes by login type; the prefix is also how a token sent to the wrong host is told apart. */
export const TOKEN_PREFIXES: Readonly<Record<LoginType, string>> = Object.freeze({ own: 'SBA', parent: 'EAA' });

const TOKEN_SHAPE = /^(SBA|EAA)([A-Za-z0-9_-]{43})$/;

export type SocialCredential =
  | { kind: 'none' }
  | { kind: 'invalid'; reason: 'unparsable' }
  | { kind: 'invalid'; reason: 'expired'; expiredAt: Date; now: Date }
  | { kind: 'invalid'; reason: 'revoked' }
  | {
      kind: 'token';
      loginType: LoginType;
      /** The professional account (own login) or the parent-platform user (parent login), as a decimal id. */
      subjectId: string;
      permissions: ReadonlySet<string>;
      expiresAt: Date;
      /** The app the token was issued to; null for a token issued without one. */
      appId: string | null;
    }
  /** An app access token, `<app id>|<app secret>` (reference §6.1): the app itself, for its own settings. */
  | { kind: 'app'; appId: string };

export interface IssueTokenRequest {
  loginType: LoginType;
  subjectId: string;
  permissions: readonly string[];
  /** Lifetime in seconds: the reference's short-lived tokens last 1 hour, long-lived ones 60 days. */
  expiresInSeconds: number;
  /** A note for operators (seed data, CLI). */
  label?: string;
  /** The app the token is issued to (whose subscriptions `/me/subscribed_apps` manages). */
  appId?: string;
}

export interface SocialTokenService {
  issue(request: IssueTokenRequest): Promise<string>;
  /** What a presented token is; never throws for a bad token (the caller maps each case to its error). */
  authenticate(token: string | undefined | null): Promise<SocialCredential>;
  /** Revokes a token; false when it was unknown or already revoked. */
  revoke(token: string): Promise<boolean>;
  /** Makes an app: its id and a new secret (32 hex digits, as the reference's). */
  createApp(name: string): Promise<StoredApp>;
  /** The app with this id, or undefined. */
  findApp(id: string): Promise<StoredApp | undefined>;
  listApps(): Promise<StoredApp[]>;
}

/** An app access token: the app's id, a bar, its secret (reference §6.1). */
const APP_TOKEN_SHAPE = /^(\d{17,19})\|([0-9a-f]{32})$/;

/** The app access token of an app. */
export function appAccessToken(app: Pick<StoredApp, 'id' | 'secret'>): string {
  return `${app.id}|${app.secret}`;
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

export function createSocialTokenService(deps: { db: SocialAuthDb; now?: () => Date }): SocialTokenService {
  const now = deps.now ?? (() => new Date());
  // No cache: every check reads the token as it is at that moment (a revocation counts at once); only the reads asked
  // for in the same tick go out together, as one `token_hash in (…)` statement of at most 100 hashes.
  const stored = new DataLoader((hashes: readonly string[]) => findAccessTokens(deps.db, hashes), { cache: false, maxBatchSize: 100 });
  return {
    async issue(request) {
      const token = `${TOKEN_PREFIXES[request.loginType]}${randomBytes(32).toString('base64url')}`;
      await insertAccessToken(deps.db, {
        tokenHash: hashToken(token),
        loginType: request.loginType,
        subjectId: request.subjectId,
        permissions: request.permissions,
        expiresAt: new Date(now().getTime() + request.expiresInSeconds * 1000),
        ...(request.label !== undefined ? { label: request.label } : {}),
        ...(request.appId !== undefined ? { appId: request.appId } : {}),
      });
      return token;
    },

    async authenticate(token) {
      if (token === undefined || token === null || token === '') return { kind: 'none' };
      const appToken = APP_TOKEN_SHAPE.exec(token);
      if (appToken) {
        const [, appId, secret] = appToken as unknown as [string, string, string];
        const [app] = isSocialId(appId, 'app') ? await findApps(deps.db, [appId]) : [];
        // Compared in constant time: the secret is the credential.
        if (!app || !timingSafeEqual(Buffer.from(app.secret), Buffer.from(secret))) return { kind: 'invalid', reason: 'unparsable' };
        return { kind: 'app', appId: app.id };
      }
      if (!TOKEN_SHAPE.test(token)) return { kind: 'invalid', reason: 'unparsable' };
      const found = await stored.load(hashToken(token));
      if (!found) return { kind: 'invalid', reason: 'unparsable' };
      if (found.revokedAt) return { kind: 'invalid', reason: 'revoked' };
      const at = now();
      if (found.expiresAt.getTime() <= at.getTime()) {
        return { kind: 'invalid', reason: 'expired', expiredAt: found.expiresAt, now: at };
      }
      return {
        kind: 'token',
        loginType: found.loginType,
        subjectId: found.subjectId,
        permissions: new Set(found.permissions),
        expiresAt: found.expiresAt,
        appId: found.appId,
      };
    },

    async revoke(token) {
      if (!TOKEN_SHAPE.test(token)) return false;
      return revokeAccessToken(deps.db, hashToken(token), now());
    },

    createApp: (name) => insertApp(deps.db, { name, secret: randomBytes(16).toString('hex') }),
    async findApp(id) {
      if (!isSocialId(id, 'app')) return undefined;
      return (await findApps(deps.db, [id]))[0];
    },
    listApps: () => listApps(deps.db),
  };
}
