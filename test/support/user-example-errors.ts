import { expect } from 'vitest';

/**
 * Area A's error wording, in one place for every door's tests: the google.rpc.Status bodies of the REST adapter, the
 * validation rules' descriptions (protoc-gen-validate's, the same on REST, GraphQL and gRPC), the List parameters' rule
 * descriptions, the message a set of violations makes, the authentication messages, and the messages of the service's
 * other refusals. Written from the reference (/work/shared/reference/user-records.md §2.2, §3, §8.3) and the README's
 * decisions (Area A: access, validation, List, errors; bounds on every door), not taken from the product.
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
export const GET_REQUEST = 'GetUserExampleByIDRequest';
export const DELETE_REQUEST = 'DeleteUserExampleByIDRequest';

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

/**
 * The avatar's other description: protoc-gen-validate's `uri` rule says RULE.avatar of a reference that parses but is
 * relative, and this of text that is no URI at all (a space in it).
 */
export const AVATAR_NOT_A_URI = 'value must be a valid URI';

/** GraphQL takes the gender by name or by number (README, Area A: JSON), not both: the message and the violation. */
export const GENDER_GIVEN_TWICE = { message: 'give gender or genderNumber, not both', description: 'gender is given too' } as const;

/** U+0000 in any text, stored or a List value: PostgreSQL text cannot hold it. */
export const NUL_CHARACTER = 'value must not contain the NUL character (U+0000)';

/** What a record may store, in runes, on create and update alike (README: bounds on every door). */
export const STORED_RUNES = { name: 256, email: 254, password: 1024, phone: 64, avatar: 2048 } as const;
/** The description of a text past its bound. */
export const atMostRunes = (max: number) => `value length must be at most ${max} runes`;

/** The message the service writes for a set of violations: `invalid <subject>: field: description; …`. */
export function violationMessage(subject: string, violations: readonly { field: string; description: string }[]): string {
  return `invalid ${subject}: ${violations.map((v) => `${v.field}: ${v.description}`).join('; ')}`;
}

// ---- List parameters ----

/** The columns a List filters and sorts on, as the service names them when it refuses one (README, List). */
export const LIST_COLUMNS = 'id, name, email, phone, avatar, age, gender, status, login_at, created_at, updated_at';
/** The operators (reference §3.4), then their aliases. */
export const LIST_OPERATORS =
  'eq, neq, gt, gte, lt, lte, like, in, notin, isnull, isnotnull (or =, !=, >, >=, <, <=, not in, is null, is not null)';
/** The logic values (reference §3.5). */
export const LIST_LOGIC = 'and, or, &, &&, |, ||, and:(, and:), or:(, or:)';

/** The List parameters' fixed descriptions. */
export const LIST_RULE = {
  /** `params` absent (the reference's "required" rule). */
  params: 'value is required',
  page: 'value must be greater than or equal to 0',
  /** 1–1000; the reference's silent clamp is an error here. */
  limit: 'value must be inside range [1, 1000] (0 or absent means the default, 20)',
  /** More than 100 conditions. */
  columns: 'value must contain no more than 100 item(s)',
  /** A condition value longer than any stored text. */
  valueLength: atMostRunes(STORED_RUNES.avatar),
  nul: NUL_CHARACTER,
  likeEndsInEscape: "like pattern must not end with the escape character '\\'",
  parentheses: 'mismatched parentheses in logic',
} as const;

/** sponge's words for an unknown operator (reference §3.4), which the service follows with what it allows. */
export const unsupportedExpType = (exp: string) => `unsupported exp type '${exp}'`;
export const unsupportedExp = (exp: string) => `${unsupportedExpType(exp)}; allowed: ${LIST_OPERATORS}`;
/** sponge's words for an unknown logic and an unknown column (reference §3.5), with what is allowed. */
export const unsupportedLogic = (logic: string) => `unsupported logic type '${logic}'; allowed: ${LIST_LOGIC}`;
export const columnNotAllowed = (name: string) => `field name '${name}' is not allowed; allowed: ${LIST_COLUMNS}`;
/** A sort key that is no column (the reference lets it fail in SQL). */
export const unknownSortColumn = (name: string) => `unknown sort column '${name}'; allowed: ${LIST_COLUMNS}`;
/** A value that is not of its column's type: `expected` says what the column takes. */
export const invalidColumnValue = (value: string, column: string, expected: string) =>
  `value '${value}' is not valid for column '${column}': ${expected}`;
/** What a column of each type takes, in invalidColumnValue. */
export const COLUMN_TAKES = {
  int32: 'expected a 32-bit integer',
  int64: 'expected a 64-bit integer',
  /** ids are stored as bigint. */
  id: 'expected an unsigned 64-bit integer no greater than 9223372036854775807 (ids are stored as bigint)',
  gender: 'expected a GenderType name or number',
  time: 'expected an RFC 3339 time or a date (YYYY-MM-DD)',
} as const;
/** sponge's words for a condition without the value its operator needs (reference §3.5), naming the operator. */
export const valueIsNil = (exp: string) => `field 'value' cannot be nil for exp '${exp}'`;
/** `like` on a column that holds no text. */
export const likeNeedsText = (column: string, type: string) => `like needs a text column; '${column}' is ${type}`;
/** An `in`/`not in` list past 1000 values. */
export const tooManyValues = (exp: string) => `value must list no more than 1000 item(s) for exp '${exp}'`;

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
/** Signed with another key. */
export const BAD_SIGNATURE = invalidToken('bad signature');
/** Unsigned (alg none): the algorithm is pinned. */
export const SIGNATURE_REQUIRED = invalidToken('signature is required');
/** No `exp`: it is required. */
export const EXP_MISSING = invalidToken('the "exp" claim is missing');
export const tokenExpired = (at: Date) => `token expired at ${at.toISOString()}`;
/** tokenExpired at an instant the test does not know: to the millisecond, in UTC. */
export const TOKEN_EXPIRED = /^token expired at \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const permissionDenied = (action: 'update' | 'delete') =>
  `permission denied: only the user itself or an administrator may ${action} this userExample`;

// ---- the records ----

export const notFound = (id: string) => `userExample ${id} not found`;
export const DUPLICATE_EMAIL = 'a user with this email already exists';

/** Anything unexpected: logged, and masked in the reply (README, Area A errors). */
export const INTERNAL_ERROR = 'internal error';
