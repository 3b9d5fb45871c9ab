import { createPrivateKey, createPublicKey, createSecretKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { JwtConfig } from '../config.ts';
import { PermissionDeniedError, UnauthenticatedError } from '../errors.ts';

/**
 * Who is calling. Transports turn the credential they received into an Actor without throwing; services decide what each
 * operation demands (see requireUser), so the rule is the same on GraphQL, REST and gRPC.
 */
export type Actor =
  { kind: 'anonymous' } | { kind: 'invalid'; error: UnauthenticatedError } | { kind: 'user'; subject: string; roles: readonly string[] };

export type UserActor = Extract<Actor, { kind: 'user' }>;

export const ANONYMOUS: Actor = Object.freeze({ kind: 'anonymous' });

/** Role that may read and write every record. */
export const ADMIN_ROLE = 'admin';

export interface TokenClaims {
  sub: string;
  roles?: string[];
}

export interface TokenService {
  /** Turns an Authorization header value into an Actor; never throws. */
  authenticate(authorization: string | undefined | null): Actor;
  /** Signs a token (tests, `npm run token`, seed data). */
  mint(claims: TokenClaims, options?: { expiresIn?: jwt.SignOptions['expiresIn']; notBefore?: number }): string;
}

/** Verified tokens kept per process (each ~1 KiB with its key): far more than the callers one process serves at once. */
const VERIFIED_TOKENS = 10_000;

const BEARER = /^Bearer[ \t]+([A-Za-z0-9\-_.~+/]+=*)[ \t]*$/i; // the scheme name is case-insensitive (RFC 7235)

/** Creates the JWT service: algorithm pinned, exp enforced, issuer and audience checked. */
export function createTokenService(config: JwtConfig): TokenService {
  // KeyObjects made once: given a string, jsonwebtoken tries createPublicKey() on it for every verify (and falls back to
  // createSecretKey() after it throws): OpenSSL tries every key decoder, and fails, on each request
  // (bench/README.md, "Where the time of a REST GetByID goes").
  const symmetric = config.algorithm.startsWith('HS');
  const secretKey = symmetric && config.secret !== undefined ? createSecretKey(Buffer.from(config.secret, 'utf8')) : undefined;
  const verifyKey = symmetric ? secretKey : config.publicKey === undefined ? undefined : createPublicKey(config.publicKey);
  const signKey = symmetric ? secretKey : config.privateKey === undefined ? undefined : createPrivateKey(config.privateKey);
  if (!verifyKey) throw new Error('JWT verification key missing');

  // Tokens that verified, until they expire: a client sends the same token with every request, and checking its
  // signature and claims again each time cost every request CPU (measured on gRPC's GetByID: bench/README.md,
  // "Issue 13's targets before coalescing"). Only tokens that passed every check are kept (a forged
  // or expired one is verified, and refused, every time), at most VERIFIED_TOKENS of them, oldest out first.
  const verified = new Map<string, { actor: UserActor; expiresAt: number }>();

  function authenticate(authorization: string | undefined | null): Actor {
    if (authorization === undefined || authorization === null || authorization.trim() === '') return ANONYMOUS;
    const match = BEARER.exec(authorization);
    if (!match?.[1]) {
      return invalid('malformed Authorization header: expected "Bearer <JWT>"');
    }
    const token = match[1];
    const known = verified.get(token);
    // jsonwebtoken's own test: expired once the current second (floored) reaches exp.
    if (known && Math.floor(Date.now() / 1000) < known.expiresAt) return known.actor;
    if (known) verified.delete(token);
    const result = verify(token);
    if (!('expiresAt' in result)) return result;
    if (verified.size >= VERIFIED_TOKENS) verified.delete(verified.keys().next().value!);
    verified.set(token, result);
    return result.actor;
  }

  function verify(token: string): Actor | { actor: UserActor; expiresAt: number } {
    let payload: string | jwt.JwtPayload;
    try {
      payload = jwt.verify(token, verifyKey!, {
        algorithms: [config.algorithm],
        issuer: config.issuer,
        audience: config.audience,
      });
    } catch (error) {
      return invalid(describeJwtError(error));
    }
    if (typeof payload !== 'object' || typeof payload.sub !== 'string' || payload.sub === '') {
      return invalid('invalid token: the "sub" claim is missing');
    }
    if (payload.exp === undefined) return invalid('invalid token: the "exp" claim is missing');
    const roles = Array.isArray(payload.roles) ? payload.roles.filter((r): r is string => typeof r === 'string') : [];
    // Frozen: one actor serves every request that carries the token.
    const actor: UserActor = Object.freeze({ kind: 'user', subject: payload.sub, roles: Object.freeze(roles) });
    return { actor, expiresAt: payload.exp };
  }

  function mint(claims: TokenClaims, options: { expiresIn?: jwt.SignOptions['expiresIn']; notBefore?: number } = {}) {
    if (!signKey) throw new Error('JWT signing key missing (set JWT_PRIVATE_KEY for asymmetric algorithms)');
    return jwt.sign({ roles: claims.roles ?? [] }, signKey, {
      algorithm: config.algorithm,
      subject: claims.sub,
      issuer: config.issuer,
      audience: config.audience,
      expiresIn: options.expiresIn ?? '1h',
      ...(options.notBefore !== undefined ? { notBefore: options.notBefore } : {}),
    });
  }

  return { authenticate, mint };
}

function invalid(message: string): Actor {
  return { kind: 'invalid', error: new UnauthenticatedError(message) };
}

function describeJwtError(error: unknown): string {
  if (error instanceof jwt.TokenExpiredError) return `token expired at ${error.expiredAt.toISOString()}`;
  if (error instanceof jwt.NotBeforeError) return `token not valid before ${error.date.toISOString()}`;
  if (error instanceof jwt.JsonWebTokenError) {
    if (error.message === 'invalid signature') return 'invalid token: bad signature';
    if (error.message === 'jwt malformed' || error.message === 'invalid token') return 'invalid token: not a well-formed JWT';
    if (error.message.startsWith('invalid algorithm')) return 'invalid token: signing algorithm not accepted';
    return `invalid token: ${error.message.replace(/^jwt /, '')}`;
  }
  return 'invalid token';
}

/** The operation needs a signed-in caller: throws UNAUTHENTICATED for a missing or invalid credential. */
export function requireUser(actor: Actor): UserActor {
  if (actor.kind === 'user') return actor;
  if (actor.kind === 'invalid') throw actor.error;
  throw new UnauthenticatedError('missing bearer token: send "Authorization: Bearer <JWT>"');
}

/** The operation is public, but a credential that was sent must still be valid. */
export function rejectInvalidCredential(actor: Actor): void {
  if (actor.kind === 'invalid') throw actor.error;
}

/** Throws PERMISSION_DENIED unless the caller is an administrator or is the subject itself. */
export function requireSelfOrAdmin(actor: UserActor, subject: string, what: string): void {
  if (actor.roles.includes(ADMIN_ROLE) || actor.subject === subject) return;
  throw new PermissionDeniedError(`permission denied: only the user itself or an administrator may ${what}`);
}
