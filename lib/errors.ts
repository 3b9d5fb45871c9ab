/**
 * The closed error vocabulary every service throws. Transports never invent errors of their own kind: each maps these
 * classes once (GraphQL → extensions.code, REST → the area's error body, gRPC → status code + details).
 *
 * The codes are the gRPC canonical codes because Area A's contract is gRPC-first and the grpc-gateway table maps them onto
 * HTTP statuses; the GraphQL code is what front-ends see in `extensions.code`.
 */

/** One broken rule of a request, as google.rpc.BadRequest.FieldViolation carries it. */
export interface FieldViolation {
  field: string;
  description: string;
}

export const ERROR_CODES = {
  INVALID_ARGUMENT: { grpc: 3, http: 400, graphql: 'BAD_USER_INPUT' },
  UNAUTHENTICATED: { grpc: 16, http: 401, graphql: 'UNAUTHENTICATED' },
  PERMISSION_DENIED: { grpc: 7, http: 403, graphql: 'FORBIDDEN' },
  NOT_FOUND: { grpc: 5, http: 404, graphql: 'NOT_FOUND' },
  ALREADY_EXISTS: { grpc: 6, http: 409, graphql: 'ALREADY_EXISTS' },
  RESOURCE_EXHAUSTED: { grpc: 8, http: 429, graphql: 'RATE_LIMITED' },
  UNAVAILABLE: { grpc: 14, http: 503, graphql: 'SERVICE_UNAVAILABLE' },
  INTERNAL: { grpc: 13, http: 500, graphql: 'INTERNAL_SERVER_ERROR' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

const CODE_BY_GRAPHQL = new Map<string, ErrorCode>(
  (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => [ERROR_CODES[code].graphql, code]),
);
const CODE_BY_GRPC = new Map<number, ErrorCode>((Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => [ERROR_CODES[code].grpc, code]));

/** The error code behind a GraphQL `extensions.code`; unknown codes are internal errors. */
export function errorCodeFromGraphql(code: unknown): ErrorCode {
  return (typeof code === 'string' && CODE_BY_GRAPHQL.get(code)) || 'INTERNAL';
}

/** The error code behind a numeric gRPC status; unknown codes are internal errors. */
export function errorCodeFromGrpc(code: number): ErrorCode {
  return CODE_BY_GRPC.get(code) ?? 'INTERNAL';
}

/** Base class: every error a service means to show a caller. Anything else is an internal error and is masked. */
export abstract class AppError extends Error {
  abstract readonly code: ErrorCode;
  /** Extra machine-readable detail a transport may render (field violations, area-specific codes). */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.details = details;
  }
}

/** Violations an InvalidArgumentError's message lists by name, and that it keeps in all. */
const MESSAGE_VIOLATIONS = 10;
const MAX_VIOLATIONS = 100;

export class InvalidArgumentError extends AppError {
  readonly code = 'INVALID_ARGUMENT';
  readonly violations: readonly FieldViolation[];

  /** @param message the whole-request summary; `violations` list every broken rule, field by field. */
  constructor(message: string, violations: FieldViolation[] = [], details: Record<string, unknown> = {}) {
    super(message, details);
    // A request can break a rule thousands of times over (a body of 10 000 unknown fields); the reply lists the first
    // MAX_VIOLATIONS and says how many more, so that it stays small whatever the request was.
    this.violations =
      violations.length <= MAX_VIOLATIONS
        ? violations
        : [
            ...violations.slice(0, MAX_VIOLATIONS),
            { field: '', description: `${violations.length - MAX_VIOLATIONS} more violation(s) not listed` },
          ];
  }

  /** Builds the error from violations, with a message that lists them all. */
  static fromViolations(subject: string, violations: FieldViolation[]): InvalidArgumentError {
    // The message names the first few; every violation stays in `violations` (transports bound what they send).
    const shown = violations.slice(0, MESSAGE_VIOLATIONS).map((v) => `${v.field}: ${v.description}`);
    if (violations.length > MESSAGE_VIOLATIONS) shown.push(`and ${violations.length - MESSAGE_VIOLATIONS} more`);
    return new InvalidArgumentError(`invalid ${subject}: ${shown.join('; ')}`, violations);
  }
}

export class UnauthenticatedError extends AppError {
  readonly code = 'UNAUTHENTICATED';
}

export class PermissionDeniedError extends AppError {
  readonly code = 'PERMISSION_DENIED';
}

export class NotFoundError extends AppError {
  readonly code = 'NOT_FOUND';
}

export class AlreadyExistsError extends AppError {
  readonly code = 'ALREADY_EXISTS';
}

export class RateLimitedError extends AppError {
  readonly code = 'RESOURCE_EXHAUSTED';
}

export class UnavailableError extends AppError {
  readonly code = 'UNAVAILABLE';
}

export class InternalError extends AppError {
  readonly code = 'INTERNAL';
}

/** The message shown for any 5xx-class error: the real cause is logged, never sent. */
export const MASKED_INTERNAL_MESSAGE = 'internal error';

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);

/**
 * True for a lost or refused database connection (pg network errors, SQLSTATE classes 08 and 57P0x): the database could
 * not be reached. Its handle tells these to observeReachability (lib/database/database.ts), and the process logs them once
 * per incident (lib/telemetry/telemetry.ts), so transports do not log them per request.
 */
export function isConnectionFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_ERROR_CODES.has(code) || code.startsWith('08') || /^57P0[1-3]$/.test(code))) {
    return true;
  }
  const message = (error as { message?: unknown }).message;
  // pg-pool's own wording when no connection could be made within connectionTimeoutMillis (the database is down).
  return (
    typeof message === 'string' &&
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
      message,
    )
  );
}

/**
 * True for a database error caused by a value the statement carried rather than by the statement or the database:
 * SQLSTATE class 22 (data exception: text that is not a number, a number out of its column's range, a string too long)
 * and class 54 (program limit exceeded: a statement too large or too complex). Services check their input before it gets
 * this far; this is the net under a check that was missed, so that a client's bad value is never an internal error.
 */
function isValueRejection(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^(22|54)[0-9A-Z]{3}$/.test(code);
}

/**
 * Any thrown value as a member of the vocabulary: AppErrors as they are, a lost database as UNAVAILABLE (the caller may
 * retry), a value the database refused as INVALID_ARGUMENT, everything else as INTERNAL. Transports call this once, in
 * their one mapping function.
 */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  if (isConnectionFailure(error)) return new UnavailableError('the database is unavailable; retry shortly', {}, { cause: error });
  if ((error as { code?: unknown } | null)?.code === '57014') {
    return new UnavailableError('the database took too long to answer; retry shortly', {}, { cause: error });
  }
  if (isValueRejection(error)) {
    return new InvalidArgumentError('a value in the request is malformed or out of range for its field');
  }
  return new InternalError(MASKED_INTERNAL_MESSAGE, {}, { cause: error });
}
