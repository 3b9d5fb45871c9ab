import {
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitedError,
  UnauthenticatedError,
  type AppError,
} from '../../../lib/errors.ts';
import type { RateLimitScope, SocialMethod } from '../../../contracts/social-graph.ts';

/**
 * The errors of the social graph (Areas B and C), as the services of both social subgraphs throw them. Each is a member of
 * the closed vocabulary (lib/errors.ts) — so GraphQL clients get the usual `extensions.code` — and carries a `reason`
 * (plus the data that reason needs) in its details. GraphQL shows the reason in `extensions.reason`; the Graph-style REST
 * routes turn each reason into the reference's error envelope (rest-adapter/social-graph/social-error-mapper.ts).
 *
 * Messages are the reference's own wording where it has one, so both transports read the same.
 */

const UNPARSABLE = 'Invalid OAuth access token - Cannot parse access token';

export const socialErrors = {
  noToken: (): AppError => new UnauthenticatedError('An access token is required to request this resource.', { reason: 'NO_TOKEN' }),

  unparsableToken: (): AppError => new UnauthenticatedError(UNPARSABLE, { reason: 'TOKEN_UNPARSABLE' }),

  expiredToken: (expiredAt: Date, now: Date): AppError =>
    new UnauthenticatedError(
      `Error validating access token: Session has expired on ${expiredAt.toISOString()}. The current time is ${now.toISOString()}.`,
      { reason: 'TOKEN_EXPIRED', expiredAt: expiredAt.toISOString(), now: now.toISOString() },
    ),

  revokedToken: (): AppError =>
    new UnauthenticatedError('Error validating access token: The session is invalid because the user logged out.', {
      reason: 'TOKEN_REVOKED',
    }),

  /** A token of the other login type: the platform answers as for a token it cannot parse. */
  wrongHost: (): AppError => new UnauthenticatedError(UNPARSABLE, { reason: 'WRONG_HOST' }),

  /** An app's own settings (its webhook subscriptions) need that app's access token (`<app id>|<app secret>`). */
  appTokenRequired: (): AppError =>
    new PermissionDeniedError('(#15) This method must be called with an app access_token.', { reason: 'APP_TOKEN_REQUIRED' }),

  /** The callback URL did not pass the verification request (§6.2): `detail` says what it answered, or why none came. */
  callbackVerificationFailed: (detail: string): AppError =>
    new InvalidArgumentError(
      `(#2200) Callback verification failed with the following errors: ${detail}`,
      [{ field: 'callback_url', description: detail }],
      { reason: 'CALLBACK_VERIFICATION_FAILED' },
    ),

  meWithoutUser: (): AppError =>
    new UnauthenticatedError('An active access token must be used to query information about the current user.', {
      reason: 'ME_WITHOUT_USER',
    }),

  /** The token lacks a permission the operation needs (`(#200) Requires extended permission: …`). */
  missingPermission: (permission: string): AppError =>
    new PermissionDeniedError(`(#200) Requires extended permission: ${permission}`, {
      reason: 'MISSING_PERMISSION',
      permission,
    }),

  /** The token's user may not do this to this object (not the owner, not the author, not an admin). */
  notAllowed: (): AppError =>
    new PermissionDeniedError('(#10) Application does not have permission for this action', { reason: 'NOT_ALLOWED' }),

  /** Unknown id, an object the token may not see, or a method the object does not support: one answer for all three. */
  unknownObject: (id: string, method: SocialMethod = 'get'): AppError =>
    new NotFoundError(
      `Unsupported ${method} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      { reason: 'UNKNOWN_OBJECT', id, method },
    ),

  unknownField: (field: string, nodeType: string): AppError =>
    new InvalidArgumentError(`(#100) Tried accessing nonexisting field (${field}) on node type (${nodeType})`, [], {
      reason: 'UNKNOWN_FIELD',
      field,
      nodeType,
    }),

  missingParameter: (name: string): AppError =>
    new InvalidArgumentError(`(#100) The parameter ${name} is required`, [{ field: name, description: 'is required' }], {
      reason: 'MISSING_PARAMETER',
      parameter: name,
    }),

  /**
   * A parameter with a bad value. `message` is what GraphQL clients read and what the Graph envelope carries in
   * `error_user_msg`; the envelope's own message stays the platform's generic `Invalid parameter`.
   */
  invalidParameter: (name: string, message: string): AppError =>
    new InvalidArgumentError(message, [{ field: name, description: message }], {
      reason: 'INVALID_PARAMETER',
      parameter: name,
    }),

  cursorTooFar: (): AppError =>
    new InvalidArgumentError('(#100) The After Cursor specified exceeds the max limit supported by this endpoint', [], {
      reason: 'CURSOR_TOO_FAR',
    }),

  rateLimited: (scope: RateLimitScope, message: string): AppError => new RateLimitedError(message, { reason: 'RATE_LIMITED', scope }),

  /**
   * A content-publishing error (reference §3.3: codes −2, −1, 9, 24, 25, 36000 with 2207xxx subcodes and a user title
   * and message). `graphCode`/`subcode` travel to the Graph envelope as they are.
   */
  publishingError: (
    graphCode: number,
    subcode: number,
    message: string,
    userTitle: string,
    userMessage: string,
    kind: 'invalid' | 'limit' = 'invalid',
  ): AppError => {
    const details = { reason: 'PUBLISHING_ERROR', graphCode, subcode, userTitle, userMessage };
    return kind === 'limit' ? new RateLimitedError(message, details) : new InvalidArgumentError(message, [], details);
  },
};
