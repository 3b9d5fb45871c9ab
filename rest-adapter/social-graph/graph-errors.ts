import { randomBytes } from 'node:crypto';
import type { FieldsSyntaxError } from './graph-fields.ts';

/**
 * The Graph error envelope of Areas B and C (`{error: {message, type, code, error_subcode, …, fbtrace_id}}`) and the
 * reference's catalogue of situations (../shared/reference/social-graph.md §3.3), one small factory per situation. The
 * factories only build replies; the REST routes send them (`res.status(r.status).set(r.headers).json(r.body)`).
 *
 * HTTP status. Every client error is answered with **400**, permission (10, 2xx) and rate-limit (4, 17, 32, 613, 80002)
 * errors included: §3.3 records 400 as the status most often observed for all of them (403 and 429 are only "also
 * reported"), and existing Graph API clients — which must work unmodified — tell errors apart by `error.code` and
 * `error_subcode`, not by status; a client written against the real platform has mostly seen 400. Only the transient
 * server errors 1 and 2 are 5xx. Changing this is one line in `STATUS`.
 *
 * `WWW-Authenticate: OAuth "<platform> Platform" "<invalid_token|invalid_request>" "<message>"` is attached to every
 * reply: `invalid_token` for code 190, `invalid_request` otherwise. Public captures show the header on OAuthException
 * errors (190 → invalid_token; 4, 100, 200, 2500 → invalid_request) and also on a GraphMethodException (100/33,
 * `Unsupported post request…` → invalid_request), so the type does not decide it. 104 (no token) is `invalid_request` by
 * analogy (no capture found): a request without a credential is a malformed request, not a bad token.
 */

/** The `type` of a Graph error: OAuthException for most, GraphMethodException for unknown objects and operations. */
export type GraphErrorType = 'OAuthException' | 'GraphMethodException';

/** The `error` object of the envelope. Absent optional keys are left out of the JSON, as the platform does. */
export interface GraphErrorBody {
  message: string;
  type: GraphErrorType;
  code: number;
  error_subcode?: number;
  is_transient?: boolean;
  error_user_title?: string;
  error_user_msg?: string;
  fbtrace_id: string;
}

/** A complete error reply: HTTP status, JSON body and the headers to send with it. */
export interface GraphErrorReply {
  status: number;
  body: { error: GraphErrorBody };
  headers: Record<string, string>;
}

/** The error codes of the catalogue, by name. */
export const GRAPH_ERROR_CODES = {
  UNKNOWN: 1,
  SERVICE: 2,
  APP_RATE_LIMIT: 4,
  PERMISSION_DENIED: 10,
  USER_RATE_LIMIT: 17,
  PAGE_RATE_LIMIT: 32,
  INVALID_PARAMETER: 100,
  NO_TOKEN: 104,
  INVALID_TOKEN: 190,
  PERMISSION: 200,
  CUSTOM_RATE_LIMIT: 613,
  APP_TOKEN_REQUIRED: 15,
  CALLBACK_VERIFICATION_FAILED: 2200,
  UNKNOWN_PATH: 2500,
  BUSINESS_RATE_LIMIT: 80002,
} as const;

/**
 * HTTP status per code; anything not listed is 400. The choice of 400 for permission and rate-limit errors is explained
 * at the top of this file; 1 and 2 are the transient server errors of §3.3 (500).
 */
const STATUS: Readonly<Record<number, number>> = { [GRAPH_ERROR_CODES.UNKNOWN]: 500, [GRAPH_ERROR_CODES.SERVICE]: 500 };

/** The subcodes of code 190 besides 463 (expired), as §3.3 lists them. */
export type InvalidatedTokenSubcode = 458 | 459 | 460 | 464 | 467 | 492;

/** Where the unsupported-operation message sends the reader; the reference links its Graph API documentation. */
export const GRAPH_DOCUMENTATION_URL = 'https://developers.facebook.com/docs/graph-api';

/** Length of a generated `fbtrace_id`: 8 random bytes are exactly 11 base64url characters. */
export const FBTRACE_ID_LENGTH = 11;

/** A fresh `fbtrace_id`: 11 random base64url characters (e.g. `AbCdEfGh1Jk`). */
export function newFbtraceId(): string {
  return randomBytes(8).toString('base64url');
}

export interface GraphErrorsOptions {
  /**
   * The parent platform's name. The WWW-Authenticate realm is `"<name> Platform"` and messages that name the platform
   * (460) use it. Default `Social`.
   */
  platformName?: string;
  /** The site a checkpointed user must log in to (459). Default `www.social.example`. */
  website?: string;
  /** The documentation URL at the end of the unsupported-operation message. Default GRAPH_DOCUMENTATION_URL. */
  documentationUrl?: string;
  /** Makes the `fbtrace_id` of each reply; tests inject a constant. Default newFbtraceId. */
  fbtraceId?: () => string;
}

export type GraphMethod = 'get' | 'post' | 'delete';

/** Longest message repeated in the WWW-Authenticate header; the body always carries the whole message. */
const MAX_HEADER_MESSAGE = 1024;

/**
 * `Monday, 19-Jun-23 06:29:46 UTC`: the date format of the platform's expired-session message (PHP's DATE_COOKIE, RFC 850
 * style — captures read `Session has expired on Monday, 19-Jun-23 06:29:46 PDT`), written in UTC.
 */
export function formatSessionDate(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${WEEKDAYS[date.getUTCDay()]}, ${two(date.getUTCDate())}-${MONTHS[date.getUTCMonth()]}-` +
    `${two(date.getUTCFullYear() % 100)} ${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:` +
    `${two(date.getUTCSeconds())} UTC`
  );
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * The header value: three quoted strings, inner quotes and backslashes escaped (captures show `\"`). Characters a header
 * cannot carry (controls, non-ASCII: messages can repeat user input such as a path or a `fields` value) become `?`, and a
 * very long message is cut, so that sending the reply can never fail.
 */
export function wwwAuthenticate(realm: string, error: 'invalid_token' | 'invalid_request', message: string): string {
  const quote = (text: string) => `"${text.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, '\\$&')}"`;
  const shown = message.length > MAX_HEADER_MESSAGE ? `${message.slice(0, MAX_HEADER_MESSAGE - 3)}...` : message;
  return `OAuth ${quote(realm)} ${quote(error)} ${quote(shown)}`;
}

/** The catalogue: one factory per situation of §3.3, each returning a complete reply with a fresh fbtrace_id. */
export function createGraphErrors(options: GraphErrorsOptions = {}) {
  const platformName = options.platformName ?? 'Social';
  const realm = `${platformName} Platform`;
  const website = options.website ?? 'www.social.example';
  const documentationUrl = options.documentationUrl ?? GRAPH_DOCUMENTATION_URL;
  const fbtraceId = options.fbtraceId ?? newFbtraceId;

  interface Details {
    type?: GraphErrorType;
    subcode?: number | undefined;
    transient?: boolean;
    userTitle?: string | undefined;
    userMessage?: string | undefined;
    status?: number;
  }

  function reply(code: number, message: string, details: Details = {}): GraphErrorReply {
    // Keys in the platform's order; absent optional keys are left out rather than sent as null.
    const error: GraphErrorBody = {
      message,
      type: details.type ?? 'OAuthException',
      code,
      ...(details.subcode !== undefined && { error_subcode: details.subcode }),
      ...(details.transient !== undefined && { is_transient: details.transient }),
      ...(details.userTitle !== undefined && { error_user_title: details.userTitle }),
      ...(details.userMessage !== undefined && { error_user_msg: details.userMessage }),
      fbtrace_id: fbtraceId(),
    };
    return {
      status: details.status ?? STATUS[code] ?? 400,
      body: { error },
      headers: {
        'WWW-Authenticate': wwwAuthenticate(realm, code === GRAPH_ERROR_CODES.INVALID_TOKEN ? 'invalid_token' : 'invalid_request', message),
      },
    };
  }

  const UNPARSABLE_TOKEN = 'Invalid OAuth access token - Cannot parse access token';

  // Wording of each subcode as public captures show it ("Error validating access token: …"); 492 is a page-role error.
  const invalidatedMessage = (subcode: InvalidatedTokenSubcode, appId: string | undefined): string => {
    switch (subcode) {
      case 458:
        return `Error validating access token: The user has not authorized application ${appId}.`;
      case 459:
        return `Error validating access token: You cannot access the app till you log in to ${website} and follow the instructions given.`;
      case 460:
        return `Error validating access token: The session has been invalidated because the user changed their password or ${platformName} has changed the session for security reasons.`;
      case 464:
        return 'Error validating access token: Sessions for the user are not allowed because the user is not a confirmed user.';
      case 467:
        return 'Error validating access token: The session is invalid because the user logged out.';
      case 492:
        return 'The user must be an administrator, editor, or moderator of the page in order to impersonate it. If the page business requires Two Factor Authentication, the user also needs to enable Two Factor Authentication.';
    }
  };

  /** 190 with a subcode for a token that parses but no longer works. 458 names the application the user removed. */
  function invalidatedToken(subcode: 458, appId: string): GraphErrorReply;
  function invalidatedToken(subcode: Exclude<InvalidatedTokenSubcode, 458>): GraphErrorReply;
  function invalidatedToken(subcode: InvalidatedTokenSubcode, appId?: string): GraphErrorReply {
    return reply(GRAPH_ERROR_CODES.INVALID_TOKEN, invalidatedMessage(subcode, appId), { subcode });
  }

  const rateLimit = (code: number, message: string) => reply(code, message, { transient: true });

  const unsupportedOperation = (method: GraphMethod, id: string) =>
    reply(
      GRAPH_ERROR_CODES.INVALID_PARAMETER,
      `Unsupported ${method} request. Object with ID '${id}' does not exist, cannot be loaded due to missing ` +
        `permissions, or does not support this operation. Please read the Graph API documentation at ${documentationUrl}`,
      { type: 'GraphMethodException', subcode: 33 },
    );

  const unknownEdge = (pathComponents: string | readonly string[]) =>
    reply(GRAPH_ERROR_CODES.UNKNOWN_PATH, `Unknown path components: ${joinPath(pathComponents)}`);

  return {
    /** 104: no access_token parameter and no Authorization header. */
    noToken: () => reply(GRAPH_ERROR_CODES.NO_TOKEN, 'An access token is required to request this resource.'),

    /** 190: a token that is not one of ours at all. */
    unparsableToken: () => reply(GRAPH_ERROR_CODES.INVALID_TOKEN, UNPARSABLE_TOKEN),

    /** 190/463: an expired token; both dates in the platform's format, in UTC. */
    expiredToken: (expiredAt: Date, now: Date) =>
      reply(
        GRAPH_ERROR_CODES.INVALID_TOKEN,
        `Error validating access token: Session has expired on ${formatSessionDate(expiredAt)}. ` +
          `The current time is ${formatSessionDate(now)}.`,
        { subcode: 463 },
      ),

    invalidatedToken,

    /**
     * 190 without subcode: a valid token of the other login type sent to this host. Project decision: the real
     * platform answers exactly as for an unparsable token, so this reply is that one.
     */
    wrongHost: () => reply(GRAPH_ERROR_CODES.INVALID_TOKEN, UNPARSABLE_TOKEN),

    /** 10: the application may not perform this action at all. */
    appPermission: () => reply(GRAPH_ERROR_CODES.PERMISSION_DENIED, '(#10) Application does not have permission for this action'),

    /** 200: the token lacks one named permission. */
    missingPermission: (permission: string) => reply(GRAPH_ERROR_CODES.PERMISSION, `(#200) Requires extended permission: ${permission}`),

    /** 200: the token may not perform this action (not the owner, missing role). */
    permissionsError: () => reply(GRAPH_ERROR_CODES.PERMISSION, '(#200) Permissions error'),

    /** 100: a field the node type does not have; `nodeType` as the platform names it (`User`, `Page`, …). */
    unknownField: (field: string, nodeType: string) =>
      reply(GRAPH_ERROR_CODES.INVALID_PARAMETER, `(#100) Tried accessing nonexisting field (${field}) on node type (${nodeType})`),

    /** 100: `.as(alias)` where aliasing is not supported (§3.1). */
    unknownFields: (name: string) => reply(GRAPH_ERROR_CODES.INVALID_PARAMETER, `(#100) Unknown fields: ${name}.`),

    /** 100: a required parameter is missing. */
    missingParameter: (name: string) => reply(GRAPH_ERROR_CODES.INVALID_PARAMETER, `(#100) The parameter ${name} is required`),

    /**
     * 100: a parameter with a bad value. The message stays the platform's generic `Invalid parameter` unless given;
     * the specifics go to `error_user_msg` (and optionally `error_user_title`), as the platform does.
     */
    invalidParameter: (message = 'Invalid parameter', userMessage?: string, userTitle?: string) =>
      reply(GRAPH_ERROR_CODES.INVALID_PARAMETER, message, { userMessage, userTitle }),

    /** 100: an `after` cursor past the deepest page the edge serves (§3.2). */
    cursorTooFar: () =>
      reply(GRAPH_ERROR_CODES.INVALID_PARAMETER, '(#100) The After Cursor specified exceeds the max limit supported by this endpoint'),

    /**
     * 100/33 GraphMethodException: the object does not exist, the token may not see it, or the method is not supported
     * on it (creating a comment at its own address, any write to an account). One answer for all three, as the
     * platform gives, so that a caller cannot probe which ids exist.
     */
    unsupportedOperation,

    /** 2500: path segments after a node that name no edge (`/<id>/nope` → `Unknown path components: /nope`). */
    unknownEdge,

    /** 15: an app's own settings (its webhook subscriptions) asked for with a token that is not that app's. */
    appTokenRequired: () => reply(GRAPH_ERROR_CODES.APP_TOKEN_REQUIRED, '(#15) This method must be called with an app access_token.'),

    /** 2200: the callback did not answer the verification request (§6.2) as it should; the message says how. */
    callbackVerificationFailed: (message: string) => reply(GRAPH_ERROR_CODES.CALLBACK_VERIFICATION_FAILED, message),

    /** 2500: `/me` with a token that has no user behind it. */
    meWithoutUser: () =>
      reply(GRAPH_ERROR_CODES.UNKNOWN_PATH, 'An active access token must be used to query information about the current user.'),

    /** 2500: a malformed `fields` expression, with graph-fields.ts's message (`Syntax error "…" at character n: …`). */
    syntaxError: (error: FieldsSyntaxError | string) =>
      reply(GRAPH_ERROR_CODES.UNKNOWN_PATH, typeof error === 'string' ? error : error.message),

    /**
     * A first path segment that is not a version (`/vfoo/123/replies`, `/2.7/me`). The platform does not reject the
     * version: it takes the segment for a node id, so the rest of the path becomes unknown path components (2500,
     * `Unknown path components: /123/replies`; captures: a version without its `v`, a doubled `/v2.1/v2.1/…`, `v2.80`).
     * With nothing after the segment it is an unknown object (100/33 with the segment as the id).
     */
    badVersion: (segment: string, rest: readonly string[] = [], method: GraphMethod = 'get') =>
      rest.length > 0 ? unknownEdge(rest) : unsupportedOperation(method, segment),

    /** 4: the application's platform rate limit (X-App-Usage reached 100). */
    appRateLimit: () => rateLimit(GRAPH_ERROR_CODES.APP_RATE_LIMIT, '(#4) Application request limit reached'),

    /** 17: the per-user rate limit. */
    userRateLimit: () => rateLimit(GRAPH_ERROR_CODES.USER_RATE_LIMIT, '(#17) User request limit reached'),

    /** 32: the per-page rate limit (parent-platform host). */
    pageRateLimit: () => rateLimit(GRAPH_ERROR_CODES.PAGE_RATE_LIMIT, '(#32) Page request limit reached'),

    /** 613: a limit specific to one endpoint. */
    customRateLimit: () => rateLimit(GRAPH_ERROR_CODES.CUSTOM_RATE_LIMIT, '(#613) Calls to this api have exceeded the rate limit.'),

    /** 80002: the account's business-use-case limit; `platformName` is the account's platform (`Social`). */
    businessRateLimit: (platformName: string) =>
      rateLimit(
        GRAPH_ERROR_CODES.BUSINESS_RATE_LIMIT,
        `There have been too many calls to this ${platformName} account. Wait a bit and try again.`,
      ),

    /**
     * A content-publishing error (§3.3: codes −2, −1, 9, 24, 25, 36000 with 2207xxx subcodes), with the user-facing title
     * and message the platform adds to them.
     */
    publishingError: (code: number, subcode: number, message: string, userTitle: string, userMessage: string, transient = false) =>
      reply(code, message, { subcode, userTitle, userMessage, transient, status: 400 }),

    /**
     * 1: a request that asks for more than one reply may carry (a `fields=` expansion past the bounds of
     * rest-adapter/social-graph/field-expansion-budget.ts, or one that takes too long), in the platform's own words for it. The
     * platform sends it with HTTP 500; here it is 400, because the request, not the server, is at fault and a client
     * retrying it unchanged would fail again (Graph clients act on the code, not the status).
     */
    tooMuchData: (userMessage: string) =>
      reply(GRAPH_ERROR_CODES.UNKNOWN, "Please reduce the amount of data you're asking for, then retry your request", {
        transient: false,
        userMessage,
        status: 400,
      }),

    /** 1: an internal failure (the real error is logged, never shown). */
    unknownError: () => reply(GRAPH_ERROR_CODES.UNKNOWN, 'An unknown error has occurred.', { transient: true }),

    /** 2: a dependency is down or timed out; 503 when the caller knows the service is unavailable. */
    unexpectedError: (status: 500 | 503 = 500) =>
      reply(GRAPH_ERROR_CODES.SERVICE, 'An unexpected error has occurred. Please retry your request later.', {
        transient: true,
        status,
      }),
  };
}

export type GraphErrors = ReturnType<typeof createGraphErrors>;

/** The catalogue with the defaults: platform `Social`, random fbtrace_ids. */
export const GRAPH_ERRORS: GraphErrors = createGraphErrors();

function joinPath(components: string | readonly string[]): string {
  const path = typeof components === 'string' ? components : components.join('/');
  return path.startsWith('/') ? path : `/${path}`;
}
