import type { GraphQLFormattedError } from 'graphql';
import { errorCodeFromGraphql } from '../../lib/errors.ts';
import { isRecord } from '../../lib/is-record.ts';
import { MEDIA_ERROR_REASONS, mediaReasonOf, type MediaErrorReason, type RateLimitState } from '../../contracts/media-upload.ts';

/**
 * The one mapping of the media service's errors onto the v2 media endpoints' replies (media-v2.routes.ts): RFC 7807
 * problems as X's API v2 sends them (../shared/reference/media-upload.md §10.2, §4, §6.3). The `type` URIs use the
 * `api.twitter.com` host that live v2 replies carry (§4; decision 10.4.5), and problems are sent as
 * `application/problem+json`, which twitter-api-v2 parses as it parses JSON.
 *
 * Shapes:
 * - a request the endpoint refuses (a parameter, a body, an image the rules refuse): 400 `invalid-request`, the
 *   individual problems in `errors` (`message`, and `parameters` naming what was wrong) beside the top-level
 *   title/detail/type, as live 400s have them;
 * - an upload id that does not exist or has expired: 404 `resource-not-found` (decision 10.4.4: the id names a resource
 *   of the path, and after expiry it is gone);
 * - someone else's upload: 403 `not-authorized-for-resource`;
 * - no, or bad, credentials: 401 `about:blank` "Unauthorized" (X's own reply); app-only credentials: 403
 *   `unsupported-authentication` with X's exact wording; over the rate limit: 429 `about:blank` "Too Many Requests".
 */

const PROBLEMS = 'https://api.twitter.com/2/problems/';

/** The media type of every problem these endpoints send. */
export const PROBLEM_JSON = 'application/problem+json; charset=utf-8';

export interface ProblemReply {
  status: number;
  body: Record<string, unknown>;
  rateLimit?: RateLimitState;
}

/** One problem of an invalid-request reply: what was wrong, and the parameter it was in. */
export interface InvalidParameter {
  message: string;
  parameter?: string;
  value?: unknown;
}

/** 400 invalid-request: the problems in `errors`, as X's live replies list them. */
export function invalidRequest(problems: readonly InvalidParameter[]): ProblemReply {
  return {
    status: 400,
    body: {
      errors: problems.map((problem) => ({
        ...(problem.parameter !== undefined
          ? { parameters: { [problem.parameter]: problem.value === undefined ? [] : [problem.value] } }
          : {}),
        message: problem.message,
      })),
      title: 'Invalid Request',
      detail: 'One or more parameters to your request was invalid.',
      type: `${PROBLEMS}invalid-request`,
    },
  };
}

/** A problem of X's generic kind (`about:blank`), whose title and detail are the HTTP status's words. */
function plain(status: number, title: string): ProblemReply {
  return { status, body: { title, detail: title, type: 'about:blank', status } };
}

const CLIENT_ERROR_TITLES: Record<number, string> = {
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  417: 'Expectation Failed',
  431: 'Request Header Fields Too Large',
};

/**
 * A request the listener refuses before any route runs (lib/http/http-client-errors.ts), on a v2 path: framing it
 * cannot read is an invalid request; the other refusals are X's generic problem for their status, with what was wrong.
 */
export function clientErrorProblem(status: number, message: string): Record<string, unknown> {
  const title = CLIENT_ERROR_TITLES[status];
  return title === undefined ? invalidRequest([{ message }]).body : { title, detail: message, type: 'about:blank', status };
}

/** A path or method the v2 media API does not have. */
export const notFoundProblem = (): ProblemReply => plain(404, 'Not Found');
export const methodNotAllowedProblem = (): ProblemReply => plain(405, 'Method Not Allowed');
/** A failure of ours (logged where it happened; nothing of it in the reply). */
export const internalErrorProblem = (): ProblemReply => plain(500, 'Internal Server Error');
export const unavailableProblem = (): ProblemReply => plain(503, 'Service Unavailable');

const UNAUTHORIZED: readonly MediaErrorReason[] = ['AUTH_MISSING', 'SIGNATURE_INVALID', 'TOKEN_INVALID', 'TIMESTAMP_OUT_OF_BOUNDS'];
const GONE: readonly MediaErrorReason[] = ['MEDIA_ID_INVALID', 'MEDIA_ID_EXPIRED'];

function rank(error: GraphQLFormattedError): number {
  const reason = mediaReasonOf(error.extensions);
  return reason === undefined ? MEDIA_ERROR_REASONS.length : MEDIA_ERROR_REASONS.indexOf(reason);
}

function rateLimitOf(extensions: Readonly<Record<string, unknown>>): RateLimitState | undefined {
  const value = extensions.rateLimit;
  if (!isRecord(value) || typeof value.limit !== 'number' || typeof value.remaining !== 'number' || typeof value.reset !== 'number')
    return undefined;
  return { limit: value.limit, remaining: value.remaining, reset: value.reset };
}

/**
 * The reply for an operation's errors (the most telling one, in the service's order of reasons). `idParameter` names
 * where the request carried the media id (`id` in v2's paths and metadata body, `media_id` in STATUS's query).
 */
export function mapMediaErrorsV2(errors: readonly GraphQLFormattedError[], idParameter: string, mediaId: string | undefined): ProblemReply {
  const error = [...errors].sort((a, b) => rank(a) - rank(b))[0]!;
  const extensions = error.extensions ?? {};
  const reason = mediaReasonOf(extensions);
  const rateLimit = rateLimitOf(extensions);
  const withLimit = (reply: ProblemReply): ProblemReply => (rateLimit ? { ...reply, rateLimit } : reply);
  if (reason === undefined) {
    // A variable the schema refuses (a wrong type in a parameter) is the request's fault.
    if (extensions.code === 'BAD_USER_INPUT' || extensions.code === 'GRAPHQL_VALIDATION_FAILED')
      return invalidRequest([{ message: error.message }]);
    return errorCodeFromGraphql(extensions.code) === 'UNAVAILABLE' ? unavailableProblem() : internalErrorProblem();
  }
  if (UNAUTHORIZED.includes(reason)) return withLimit(plain(401, 'Unauthorized'));
  if (reason === 'APP_ONLY') {
    return withLimit({
      status: 403,
      body: {
        title: 'Unsupported Authentication',
        // X's wording, double space included (reference §6.3).
        detail:
          'Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint.  Supported authentication types are [OAuth 1.0a User Context, OAuth 2.0 User Context].',
        type: `${PROBLEMS}unsupported-authentication`,
        status: 403,
      },
    });
  }
  if (reason === 'RATE_LIMITED') return withLimit(plain(429, 'Too Many Requests'));
  if (GONE.includes(reason)) {
    return withLimit({
      status: 404,
      body: {
        errors: [
          {
            value: mediaId ?? null,
            detail: error.message,
            title: 'Not Found Error',
            resource_type: 'media',
            parameter: idParameter,
            resource_id: mediaId ?? null,
            type: `${PROBLEMS}resource-not-found`,
          },
        ],
        title: 'Not Found Error',
        detail: error.message,
        type: `${PROBLEMS}resource-not-found`,
      },
    });
  }
  if (reason === 'MEDIA_NOT_OWNED') {
    return withLimit({
      status: 403,
      body: {
        errors: [
          {
            detail: error.message,
            title: 'Authorization Error',
            resource_type: 'media',
            parameter: idParameter,
            resource_id: mediaId ?? null,
            section: 'data',
            type: `${PROBLEMS}not-authorized-for-resource`,
          },
        ],
        title: 'Authorization Error',
        detail: error.message,
        type: `${PROBLEMS}not-authorized-for-resource`,
      },
    });
  }
  // Every other reason is a request the rules refuse: a parameter, the media's bytes, the session's state.
  const parameter = typeof extensions.parameter === 'string' ? v2Parameter(extensions.parameter, idParameter) : undefined;
  return withLimit(invalidRequest([{ message: v2Words(error.message), ...(parameter !== undefined ? { parameter } : {}) }]));
}

/**
 * The service words its rules as v1.1 names them (one service for both versions); on v2's paths the commands are
 * paths and the base64 parameter is `media`. Only these phrases differ; the rest of a message is the same in both.
 */
const V2_WORDS: readonly (readonly [RegExp, string])[] = [
  [/send command=FINALIZE first/g, 'send POST /2/media/upload/{id}/finalize first'],
  [/it takes no more APPEND or FINALIZE commands/g, 'it takes no more append or finalize requests'],
  [
    /the chunked upload \(command=INIT, APPEND, FINALIZE\)/g,
    'the chunked upload (POST /2/media/upload/initialize, then {id}/append and {id}/finalize)',
  ],
  [/\bmedia_data\b/g, 'media'],
];

function v2Words(message: string): string {
  return V2_WORDS.reduce((text, [phrase, words]) => text.replace(phrase, words), message);
}

/** The v2 name of a parameter the service names as v1.1 does (media_id → the id's place in the v2 request). */
function v2Parameter(parameter: string, idParameter: string): string {
  return parameter === 'media_id' ? idParameter : parameter === 'media_data' ? 'media' : parameter;
}
