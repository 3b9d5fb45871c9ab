import { createHash, randomBytes } from 'node:crypto';
import { findAccessToken, insertAccessToken, revokeAccessToken, type SocialAuthDb } from './social-token.repository.ts';

/**
 * Access tokens of the social graph. A token is an opaque string — a prefix naming its login type (as the reference's
 * tokens do: parent-platform user tokens start "EAA") and 32 random bytes — that the service stores only as a SHA-256 hash,
 * so a database leak reveals no usable credential. Checking one is a single indexed read.
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
    };

export interface IssueTokenRequest {
  loginType: LoginType;
  subjectId: string;
  permissions: readonly string[];
  /** Lifetime in seconds: the reference's short-lived tokens last 1 hour, long-lived ones 60 days. */
  expiresInSeconds: number;
  /** A note for operators (seed data, CLI). */
  label?: string;
}

export interface SocialTokenService {
  issue(request: IssueTokenRequest): Promise<string>;
  /** What a presented token is; never throws for a bad token (the caller maps each case to its error). */
  authenticate(token: string | undefined | null): Promise<SocialCredential>;
  /** Revokes a token; false when it was unknown or already revoked. */
  revoke(token: string): Promise<boolean>;
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

export function createSocialTokenService(deps: { db: SocialAuthDb; now?: () => Date }): SocialTokenService {
  const now = deps.now ?? (() => new Date());
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
      });
      return token;
    },

    async authenticate(token) {
      if (token === undefined || token === null || token === '') return { kind: 'none' };
      if (!TOKEN_SHAPE.test(token)) return { kind: 'invalid', reason: 'unparsable' };
      const stored = await findAccessToken(deps.db, hashToken(token));
      if (!stored) return { kind: 'invalid', reason: 'unparsable' };
      if (stored.revokedAt) return { kind: 'invalid', reason: 'revoked' };
      const at = now();
      if (stored.expiresAt.getTime() <= at.getTime()) {
        return { kind: 'invalid', reason: 'expired', expiredAt: stored.expiresAt, now: at };
      }
      return {
        kind: 'token',
        loginType: stored.loginType,
        subjectId: stored.subjectId,
        permissions: new Set(stored.permissions),
        expiresAt: stored.expiresAt,
      };
    },

    async revoke(token) {
      if (!TOKEN_SHAPE.test(token)) return false;
      return revokeAccessToken(deps.db, hashToken(token), now());
    },
  };
}
