import { expect } from 'vitest';
import type { RawReply } from './raw-http.ts';
import type { RestReply } from './rest-client.ts';

/**
 * The errors of the social graph (Areas B and C) as every test expects them, written from the reference
 * (/work/shared/reference/social-graph.md §3.3, §3.4) and the README's decisions, not taken from the product's catalogue:
 *
 *   - the words of each error (GRAPH_MESSAGES), the same on the Graph-style REST hosts and in GraphQL errors;
 *   - the Graph error envelope `{"error": {message, type, code, error_subcode?, …, fbtrace_id}}` of each (the
 *     constructors below), its body (graphErrorBody) and its WWW-Authenticate challenge (wwwAuthenticate);
 *   - expectGraphError, the whole check of a refused REST request.
 */

/** fbtrace_id: 11 base64url characters, fresh on every reply. */
export const FBTRACE_ID = /^[A-Za-z0-9_-]{11}$/;
export const GRAPH_DOCS = 'https://developers.facebook.com/docs/graph-api';
/** Every key the envelope's `error` may have. */
export const GRAPH_ERROR_KEYS: readonly string[] = [
  'message',
  'type',
  'code',
  'error_subcode',
  'is_transient',
  'error_user_title',
  'error_user_msg',
  'error_data',
  'fbtrace_id',
];

export type GraphMethod = 'get' | 'post' | 'delete';

/** `Monday, 02-Nov-26 09:00:00 UTC`: the platform's session date (PHP's DATE_COOKIE), in UTC. */
export function sessionDate(date: Date): string {
  const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${days[date.getUTCDay()]}, ${two(date.getUTCDate())}-${months[date.getUTCMonth()]}-${two(date.getUTCFullYear() % 100)} ` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} UTC`
  );
}

/** The words of each error, on either transport. */
export const GRAPH_MESSAGES = {
  noToken: 'An access token is required to request this resource.',
  unparsableToken: 'Invalid OAuth access token - Cannot parse access token',
  /** The REST hosts write both instants as session dates (sessionDate); GraphQL as ISO 8601. */
  expiredToken: (expiredAt: string, now: string) =>
    `Error validating access token: Session has expired on ${expiredAt}. The current time is ${now}.`,
  revokedToken: 'Error validating access token: The session is invalid because the user logged out.',
  missingPermission: (permission: string) => `(#200) Requires extended permission: ${permission}`,
  notAllowed: '(#10) Application does not have permission for this action',
  missingParameter: (name: string) => `(#100) The parameter ${name} is required`,
  invalidParameter: 'Invalid parameter',
  unknownField: (field: string, nodeType = 'SocialUser') =>
    `(#100) Tried accessing nonexisting field (${field}) on node type (${nodeType})`,
  /** The REST hosts add a pointer to the documentation (unsupported()); GraphQL errors do not. */
  unknownObject: (method: GraphMethod, id: string) =>
    `Unsupported ${method} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
  unknownPath: (components: string) => `Unknown path components: ${components}`,
  syntaxError: (expectation: string, at: number, input: string) => `Syntax error "${expectation}" at character ${at}: ${input}`,
  tooMuchData: "Please reduce the amount of data you're asking for, then retry your request",
  /** An app's own settings (its webhook subscriptions, §6.1) with a token that is not that app's access token. */
  appTokenRequired: '(#15) This method must be called with an app access_token.',
  /** The callback did not answer the verification request (§6.2) with the challenge; `detail` says what it did. */
  callbackVerificationFailed: (detail: string) => `(#2200) Callback verification failed with the following errors: ${detail}`,
} as const;

// ---- the envelopes ----

/**
 * One Graph error as the envelope carries it (fbtrace_id aside); `type` is OAuthException unless given. A RegExp
 * user message matches a message that names its own details (a count, a size).
 */
export interface ExpectedGraphError {
  message: string;
  type?: 'OAuthException' | 'GraphMethodException';
  code: number;
  error_subcode?: number;
  is_transient?: boolean;
  error_user_title?: string;
  error_user_msg?: string | RegExp;
}

export const noToken: ExpectedGraphError = { message: GRAPH_MESSAGES.noToken, code: 104 };
/** A token the host cannot read: garbage, unknown, or of the other login type (README decision). */
export const unparsableToken: ExpectedGraphError = { message: GRAPH_MESSAGES.unparsableToken, code: 190 };
export const expiredToken = (expiredAt: Date, now: Date): ExpectedGraphError => ({
  message: GRAPH_MESSAGES.expiredToken(sessionDate(expiredAt), sessionDate(now)),
  code: 190,
  error_subcode: 463,
});
export const revokedToken: ExpectedGraphError = { message: GRAPH_MESSAGES.revokedToken, code: 190, error_subcode: 467 };
export const missingPermission = (permission: string): ExpectedGraphError => ({
  message: GRAPH_MESSAGES.missingPermission(permission),
  code: 200,
});
export const notAllowed: ExpectedGraphError = { message: GRAPH_MESSAGES.notAllowed, code: 10 };
export const missingParameter = (name: string): ExpectedGraphError => ({ message: GRAPH_MESSAGES.missingParameter(name), code: 100 });
export const invalidParameter = (userMessage: string): ExpectedGraphError => ({
  message: GRAPH_MESSAGES.invalidParameter,
  code: 100,
  error_user_msg: userMessage,
});
export const unknownField = (field: string, nodeType = 'SocialUser'): ExpectedGraphError => ({
  message: GRAPH_MESSAGES.unknownField(field, nodeType),
  code: 100,
});
/** 100/33: an object that does not exist, cannot be seen, or does not take this method. */
export const unsupported = (method: GraphMethod, id: string): ExpectedGraphError => ({
  message: `${GRAPH_MESSAGES.unknownObject(method, id)} Please read the Graph API documentation at ${GRAPH_DOCS}`,
  type: 'GraphMethodException',
  code: 100,
  error_subcode: 33,
});
export const unknownPath = (components: string): ExpectedGraphError => ({ message: GRAPH_MESSAGES.unknownPath(components), code: 2500 });
export const syntaxError = (expectation: string, at: number, input: string): ExpectedGraphError => ({
  message: GRAPH_MESSAGES.syntaxError(expectation, at, input),
  code: 2500,
});
/** 1: a `fields=` expansion past the bounds (sent as 400, not the platform's 500: the request is at fault). */
export const tooMuchData = (userMessage: string | RegExp): ExpectedGraphError => ({
  message: GRAPH_MESSAGES.tooMuchData,
  code: 1,
  is_transient: false,
  error_user_msg: userMessage,
});
/** 15: an app's webhook subscriptions asked for with a user token or another app's token. */
export const appTokenRequired: ExpectedGraphError = { message: GRAPH_MESSAGES.appTokenRequired, code: 15 };
/** 2200: the callback's answer to the verification request was not the challenge. */
export const callbackVerificationFailed = (detail: string): ExpectedGraphError => ({
  message: GRAPH_MESSAGES.callbackVerificationFailed(detail),
  code: 2200,
});
/** A rate limit (§3.4: codes 4, 17, 32, 80002): transient. */
export const rateLimited = (code: number, message: string): ExpectedGraphError => ({ message, code, is_transient: true });

/** The four rate limits of §3.4: the application's, a user's, a user's on one page, and the business use case's. */
export const RATE_LIMITS = {
  app: rateLimited(4, '(#4) Application request limit reached'),
  user: rateLimited(17, '(#17) User request limit reached'),
  page: rateLimited(32, '(#32) Page request limit reached'),
  business: rateLimited(80002, 'There have been too many calls to this Social account. Wait a bit and try again.'),
};

/** A content-publishing error: code and 2207xxx subcode, with the user title and message (§3.3). */
export const publishingError = (
  code: number,
  subcode: number,
  message: string,
  userTitle: string,
  userMessage: string,
): ExpectedGraphError => ({
  message,
  code,
  error_subcode: subcode,
  is_transient: false,
  error_user_title: userTitle,
  error_user_msg: userMessage,
});

export const PUBLISHING = {
  notFound: (id: string) =>
    publishingError(24, 2207006, 'The requested resource does not exist', 'Media not found', `The media with id ${id} cannot be found.`),
  expired: publishingError(
    -2,
    2207020,
    'The media has expired.',
    'Media expired',
    'The media you are trying to access has expired. Please try to upload again.',
  ),
  notReady: publishingError(
    9007,
    2207027,
    'Media ID is not available',
    'Media not ready for publishing',
    'The media is not ready for publishing, please wait for a moment',
  ),
  limitReached: publishingError(
    9,
    2207042,
    'Application request limit reached',
    'Max posts limit reached',
    'You reached maximum number of posts that is allowed to be published by Content Publishing API.',
  ),
  carouselSize: publishingError(
    100,
    2207028,
    'Invalid parameter',
    'Carousel validation failed',
    "Your post won't be shared as a carousel. Carousels need at least 2 photos/videos and no more than 10 photos/videos.",
  ),
  tooManyTags: publishingError(100, 2207040, 'Invalid parameter', 'Too many tags', 'Cannot use more than 20 tags per created media.'),
  thumbOffset: publishingError(
    1,
    2207057,
    'An unknown error has occurred.',
    'Invalid thumbnail offset',
    'Thumbnail offset must be greater than or equal to 0 and less than video duration.',
  ),
};

// ---- bodies, headers and the whole check ----

const text = (value: string | RegExp) => (typeof value === 'string' ? value : expect.stringMatching(value));

/** The body of a refusal: exactly the envelope, fbtrace_id matched by shape. A RegExp message matches the message. */
export function graphErrorBody(expected: Omit<ExpectedGraphError, 'message'> & { message: string | RegExp }) {
  const { message, code, type = 'OAuthException', error_subcode, is_transient, error_user_title, error_user_msg } = expected;
  return {
    error: {
      message: text(message),
      type,
      code,
      ...(error_subcode !== undefined && { error_subcode }),
      ...(is_transient !== undefined && { is_transient }),
      ...(error_user_title !== undefined && { error_user_title }),
      ...(error_user_msg !== undefined && { error_user_msg: text(error_user_msg) }),
      fbtrace_id: expect.stringMatching(FBTRACE_ID),
    },
  };
}

/**
 * The challenge of a refusal: `OAuth "Social Platform" "<error>" "<message>"` — invalid_token for code 190, invalid_request
 * otherwise — the message with characters outside printable ASCII as `?` and quotes and backslashes escaped.
 */
export function wwwAuthenticate(code: number, message: string): string {
  const quote = (text: string) => `"${text.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, '\\$&')}"`;
  return `OAuth "Social Platform" ${quote(code === 190 ? 'invalid_token' : 'invalid_request')} ${quote(message)}`;
}

/** A reply of either test client: fetch's (RestReply) or one read off a socket (RawReply). */
export type AnyReply = RestReply | RawReply;

/** The status, text, parsed body and a header of either kind of reply. */
export function replyView(reply: AnyReply): { status: number; text: string; body: any; header(name: string): string | null | undefined } {
  if ('raw' in reply)
    return { status: reply.status, text: reply.body, body: reply.json, header: (name) => reply.headers[name.toLowerCase()] };
  return { status: reply.status, text: reply.text, body: reply.body, header: (name) => reply.headers.get(name) };
}

/**
 * A refused REST request, whole: HTTP 400 (§3.3: client errors, publishing errors included — or `status`), a JSON body
 * that is exactly the envelope, and the OAuth challenge repeating the message.
 */
export function expectGraphError(reply: AnyReply, expected: ExpectedGraphError, options: { status?: number } = {}): void {
  const { status, text, body, header } = replyView(reply);
  expect(status, text).toBe(options.status ?? 400);
  expect(header('content-type'), text).toMatch(/^application\/json\b/);
  expect(body, text).toEqual(graphErrorBody(expected));
  expect(header('www-authenticate'), text).toBe(wwwAuthenticate(expected.code, expected.message));
}

// ---- the same errors in GraphQL ----

/**
 * One social-graph error as the gateway passes it on in a GraphQL response, reduced to message, path and extensions
 * (locations vary with the gateway's topology): the same words as on the REST hosts (GRAPH_MESSAGES, without the REST
 * hosts' pointer to the documentation), the Graph error's kind as `extensions.reason` with its data, a GraphQL code, and
 * the subgraph that answered.
 */
export interface ExpectedGraphqlError {
  message: string;
  path: (string | number)[];
  extensions: Record<string, unknown>;
}

/** The subgraphs of the social graph. */
export type SocialSubgraph = 'accounts' | 'comments' | 'media';

/** The GraphQL form of each Graph error, as `serviceName` answers it. */
export function graphqlErrors(serviceName: SocialSubgraph) {
  type Path = (string | number)[];
  const error = (path: Path, code: string, message: string, reason: string, data: Record<string, unknown> = {}): ExpectedGraphqlError => ({
    message,
    path,
    extensions: { reason, ...data, code, serviceName },
  });
  return {
    noToken: (path: Path) => error(path, 'UNAUTHENTICATED', GRAPH_MESSAGES.noToken, 'NO_TOKEN'),
    unparsableToken: (path: Path) => error(path, 'UNAUTHENTICATED', GRAPH_MESSAGES.unparsableToken, 'TOKEN_UNPARSABLE'),
    /** A token of the other login type where the request names its host: the same words as an unparsable one. */
    wrongHost: (path: Path) => error(path, 'UNAUTHENTICATED', GRAPH_MESSAGES.unparsableToken, 'WRONG_HOST'),
    /** GraphQL writes both instants in ISO 8601, and gives them as data too. */
    expiredToken: (path: Path, expiredAt: Date, now: Date) =>
      error(path, 'UNAUTHENTICATED', GRAPH_MESSAGES.expiredToken(expiredAt.toISOString(), now.toISOString()), 'TOKEN_EXPIRED', {
        expiredAt: expiredAt.toISOString(),
        now: now.toISOString(),
      }),
    revokedToken: (path: Path) => error(path, 'UNAUTHENTICATED', GRAPH_MESSAGES.revokedToken, 'TOKEN_REVOKED'),
    missingPermission: (path: Path, permission: string) =>
      error(path, 'FORBIDDEN', GRAPH_MESSAGES.missingPermission(permission), 'MISSING_PERMISSION', { permission }),
    notAllowed: (path: Path) => error(path, 'FORBIDDEN', GRAPH_MESSAGES.notAllowed, 'NOT_ALLOWED'),
    missingParameter: (path: Path, parameter: string) =>
      error(path, 'BAD_USER_INPUT', GRAPH_MESSAGES.missingParameter(parameter), 'MISSING_PARAMETER', {
        parameter,
        fieldViolations: [{ field: parameter, description: 'is required' }],
      }),
    /** The user message is the error's message here (REST: GRAPH_MESSAGES.invalidParameter with error_user_msg). */
    invalidParameter: (path: Path, parameter: string, message: string) =>
      error(path, 'BAD_USER_INPUT', message, 'INVALID_PARAMETER', {
        parameter,
        fieldViolations: [{ field: parameter, description: message }],
      }),
    unknownField: (path: Path, field: string, nodeType = 'SocialUser') =>
      error(path, 'BAD_USER_INPUT', GRAPH_MESSAGES.unknownField(field, nodeType), 'UNKNOWN_FIELD', { field, nodeType }),
    /** REST's 100/33 (unsupported): an object the token may not see, or that does not take the method. */
    unknownObject: (path: Path, method: GraphMethod, id: string) =>
      error(path, 'NOT_FOUND', GRAPH_MESSAGES.unknownObject(method, id), 'UNKNOWN_OBJECT', { id, method }),
    /** A publishing refusal: REST's error (`expected`) carried as data, under `code` (BAD_USER_INPUT unless said). */
    publishingError: (path: Path, expected: ExpectedGraphError, code = 'BAD_USER_INPUT') =>
      error(path, code, expected.message, 'PUBLISHING_ERROR', {
        graphCode: expected.code,
        subcode: expected.error_subcode,
        userTitle: expected.error_user_title,
        userMessage: expected.error_user_msg,
      }),
  };
}
