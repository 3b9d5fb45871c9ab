import { createHash, randomBytes } from 'node:crypto';
import {
  deleteNoncesSeenBefore,
  findAccessToken,
  findAppToken,
  findConsumer,
  insertAccessToken,
  insertAppToken,
  insertConsumer,
  recordNonce,
  revokeAccessToken,
  type OAuthDb,
  type StoredAccessToken,
  type StoredConsumer,
} from './oauth-credential.repository.ts';

/**
 * The OAuth credentials of the image upload, shaped as the reference's platform shapes them so that its clients accept
 * them: 25-character consumer keys with 50-character secrets, access tokens `<user id>-<random>` with 45-character
 * secrets, app-only bearer tokens starting with the platform's run of "A"s.
 */

export interface ConsumerCredentials {
  consumerKey: string;
  consumerSecret: string;
}

export interface AccessTokenCredentials {
  token: string;
  tokenSecret: string;
}

export interface OAuthCredentials {
  createConsumer(name: string): Promise<ConsumerCredentials>;
  /** A user access token of an app; `userId` is a decimal 64-bit id. */
  issueAccessToken(consumerKey: string, userId: string): Promise<AccessTokenCredentials>;
  /** An app-only bearer token (what the reference's client-credentials grant returns). */
  issueAppToken(consumerKey: string): Promise<string>;
  findConsumer(consumerKey: string): Promise<StoredConsumer | undefined>;
  findAccessToken(token: string): Promise<StoredAccessToken | undefined>;
  /** The app of a presented bearer string when it is a live app-only token. */
  findAppToken(token: string): Promise<{ consumerKey: string } | undefined>;
  revokeAccessToken(token: string): Promise<boolean>;
  /** False when this nonce was already used with the same timestamp, app and token (a replay). */
  recordNonce(use: { consumerKey: string; token: string | undefined; nonce: string; timestamp: string }): Promise<boolean>;
  /** Forgets nonces seen before `before` (their timestamps are outside the window by then). */
  purgeNonces(before: Date): Promise<number>;
}

/** Every app-only token of the reference begins with this run; clients and logs recognise it. */
export const APP_TOKEN_PREFIX = 'AAAAAAAAAAAAAAAAAAAAA';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Uniform random alphanumerics (rejection sampling keeps every character equally likely). */
function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHANUMERIC[byte % 62];
    }
  }
  return out;
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

export function createOAuthCredentials(deps: { db: OAuthDb; now?: () => Date }): OAuthCredentials {
  const now = deps.now ?? (() => new Date());
  const { db } = deps;
  return {
    async createConsumer(name) {
      const credentials = { consumerKey: randomAlphanumeric(25), consumerSecret: randomAlphanumeric(50) };
      await insertConsumer(db, { ...credentials, name });
      return credentials;
    },
    async issueAccessToken(consumerKey, userId) {
      const credentials = { token: `${userId}-${randomAlphanumeric(40)}`, tokenSecret: randomAlphanumeric(45) };
      await insertAccessToken(db, { ...credentials, consumerKey, userId });
      return credentials;
    },
    async issueAppToken(consumerKey) {
      const token = `${APP_TOKEN_PREFIX}${randomAlphanumeric(91)}`;
      await insertAppToken(db, { tokenHash: hashToken(token), consumerKey });
      return token;
    },
    findConsumer: (consumerKey) => findConsumer(db, consumerKey),
    findAccessToken: (token) => findAccessToken(db, token),
    findAppToken: (token) => findAppToken(db, hashToken(token)),
    revokeAccessToken: (token) => revokeAccessToken(db, token, now()),
    recordNonce: (use) => recordNonce(db, { ...use, token: use.token ?? '', seenAt: now() }),
    purgeNonces: (before) => deleteNoncesSeenBefore(db, before),
  };
}
