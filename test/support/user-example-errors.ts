import { expect } from 'vitest';

/**
 * Area A's error wording, in one place for every door's tests: the google.rpc.Status bodies of the REST adapter, the
 * validation rules' descriptions (protoc-gen-validate's, the same on REST, GraphQL and gRPC), the message a set of
 * violations makes, the authentication messages, and the messages of the service's other refusals. Written from the
 * reference (user-records.md), not taken from the product.
 */

// ---- google.rpc.Status ----

export const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';

/** A google.rpc.Status body with a BadRequest detail listing these violations (code 3, INVALID_ARGUMENT). */
export function badRequestBody(message: unknown, fieldViolations: { field: string; description: unknown }[]) {
  return {
    code: 3,
    message,
    details: [{ '@type': BAD_REQUEST_TYPE, fieldViolations }],
  };
}

/** A google.rpc.Status body without details. */
export function statusBody(code: number, message: unknown) {
  return { code, message, details: [] };
}

// ---- validation ----

/** The request messages whose violations the service names. */
export const CREATE_REQUEST = 'CreateUserExampleRequest';
export const UPDATE_REQUEST = 'UpdateUserExampleByIDRequest';
export const LIST_REQUEST = 'ListUserExampleRequest';

/** The create rules' descriptions (protoc-gen-validate wording, the same on every transport). */
export const RULE = {
  name: 'value length must be at least 2 runes',
  email: 'value must be a valid email address',
  password: 'value length must be at least 10 runes',
  phone: 'value does not match regex pattern "^1[3456789]\\d{9}$"',
  avatar: 'value must be absolute',
  age: 'value must be inside range [0, 120]',
  gender: 'value must be one of the defined enum values',
  id: 'value must be greater than or equal to 1',
} as const;

/** The message the service writes for a set of violations: `invalid <subject>: field: description; …`. */
export function violationMessage(subject: string, violations: readonly { field: string; description: string }[]): string {
  return `invalid ${subject}: ${violations.map((v) => `${v.field}: ${v.description}`).join('; ')}`;
}

/** A path id that is no unsigned 64-bit integer: the description of its violation, and the whole message. */
export const pathIdDescription = (raw: string) => `expected an unsigned 64-bit integer, got "${raw}"`;
export const invalidPathId = (raw: string) => `invalid path id: ${pathIdDescription(raw)}`;

// ---- bodies the adapter cannot read ----

/** `malformed JSON body: <detail>`, the detail matching `detail` (the parser's own words). */
export const malformedJsonBody = (detail: RegExp) => expect.stringMatching(new RegExp(`^malformed JSON body: ${detail.source}`));
/** `unreadable request body: <detail>` (a bad encoding or charset). */
export const unreadableBody = (detail: RegExp) => expect.stringMatching(new RegExp(`^unreadable request body: ${detail.source}`));
export const bodyTooLarge = (limitBytes: number) => `request body exceeds the limit of ${limitBytes} bytes`;

// ---- routing ----

export const noRoute = (method: string, path: string) => `no route for ${method} ${path}`;
export const methodNotAllowed = (method: string, path: string) => `method ${method} not allowed on ${path}`;

// ---- authentication and permissions ----

export const MISSING_TOKEN = 'missing bearer token: send "Authorization: Bearer <JWT>"';
export const MALFORMED_HEADER = 'malformed Authorization header: expected "Bearer <JWT>"';
/** `invalid token: <reason>`, the reason jsonwebtoken's. */
export const invalidToken = (reason: string) => `invalid token: ${reason}`;
export const NOT_A_JWT = invalidToken('not a well-formed JWT');
export const tokenExpired = (at: Date) => `token expired at ${at.toISOString()}`;
export const permissionDenied = (action: 'update' | 'delete') => `permission denied: only the user itself or an administrator may ${action} this userExample`;

// ---- the records ----

export const notFound = (id: string) => `userExample ${id} not found`;
export const DUPLICATE_EMAIL = 'a user with this email already exists';
