/**
 * The fuzz suite's oracles of each area's error format: what a reply must look like, whatever was asked. Each returns
 * the problems it sees (none for a well-formed reply) and whether the request was refused, which decides whether the
 * stored data must be unchanged.
 *
 *   Area A REST   google.rpc.Status JSON {code, message, details[]} with the HTTP status grpc-gateway gives that code
 *   Graph hosts   {"error": {message, type, code, …, fbtrace_id}}
 *   upload        {"errors": [{code, message}]}, or the reference's legacy {"request", "error"} (media it cannot recognise)
 *   upload v2     application/problem+json {title, detail, type} (invalid-request with an `errors` list); 200 {"data": {…}}
 *   GraphQL       a GraphQL response: {data} and/or {errors: [{message, extensions: {code}}]}
 *   gRPC          a status that is not INTERNAL or UNKNOWN, with a message
 *
 * Everywhere: no 5xx (and no error saying "internal") except a 503 while a dependency is down.
 */

import { GRAPH_ERROR_KEYS } from '../graph-error-expectations.ts';

/**
 * What went wrong in a case. `verdict` is an answer in the right format that a door's own rule forbids: a webhook
 * subscription stored without a correct handshake (or refused after one), a request the server must never have made.
 */
export type ProblemKind = 'crash' | 'hang' | 'dropped' | '5xx' | 'format' | 'stored-change' | 'verdict' | 'liveness';

export interface Problem {
  kind: ProblemKind;
  detail: string;
}

export interface Judgement {
  problems: Problem[];
  /** The request was refused (an error reply): nothing it carried may have been stored. */
  rejected: boolean;
  /** A 503 / UNAVAILABLE: acceptable only while a dependency is really down (the runner asks /ready). */
  unavailable: boolean;
}

/** The part of an HTTP reply the oracles read. */
export interface ReplyView {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function excerpt(text: string, max = 600): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

function describeReply(reply: ReplyView): string {
  return `HTTP ${reply.status} ${reply.headers['content-type'] ?? '(no content type)'} ${reply.text === '' ? '(empty body)' : excerpt(reply.text)}`;
}

function isJsonContentType(headers: Record<string, string>): boolean {
  return /^application\/(?:[\w.+-]+\+)?json\b/i.test(headers['content-type'] ?? '');
}

/** grpc-gateway's HTTP status of each gRPC code (reference user-records.md §8.3). */
export const HTTP_STATUS_OF_GRPC_CODE: Readonly<Record<number, number>> = {
  0: 200,
  1: 499,
  2: 500,
  3: 400,
  4: 504,
  5: 404,
  6: 409,
  7: 403,
  8: 429,
  9: 400,
  10: 409,
  11: 400,
  12: 501,
  13: 500,
  14: 503,
  15: 500,
  16: 401,
};

/** A reply's 5xx problem: none below 500, none for a 503 the runner may excuse (`unavailable`). */
export function serverError(reply: ReplyView, unavailable: boolean): Problem[] {
  if (reply.status < 500) return [];
  // The runner decides whether a 503 is excused (a dependency really down); anything else 5xx is a defect.
  if (reply.status === 503 && unavailable) return [];
  return [{ kind: '5xx', detail: describeReply(reply) }];
}

/** Area A over REST: google.rpc.Status for every error, its HTTP status the gRPC code's. */
export function judgeRpcStatusReply(reply: ReplyView, method: string): Judgement {
  const problems: Problem[] = [];
  const unavailable = reply.status === 503;
  problems.push(...serverError(reply, unavailable));
  const ok = reply.status >= 200 && reply.status < 300;
  if (method.toUpperCase() === 'HEAD') return { problems, rejected: !ok, unavailable };
  if (ok) {
    if (!isObject(reply.json))
      problems.push({ kind: 'format', detail: `a ${reply.status} whose body is not a JSON object: ${describeReply(reply)}` });
    return { problems, rejected: false, unavailable };
  }
  const body = reply.json;
  const wellFormed =
    isJsonContentType(reply.headers) &&
    isObject(body) &&
    Number.isInteger(body.code) &&
    typeof body.message === 'string' &&
    Array.isArray(body.details) &&
    body.details.every((detail) => isObject(detail) && typeof detail['@type'] === 'string') &&
    Object.keys(body).every((key) => key === 'code' || key === 'message' || key === 'details');
  if (!wellFormed) {
    problems.push({ kind: 'format', detail: `not a google.rpc.Status JSON body: ${describeReply(reply)}` });
    return { problems, rejected: true, unavailable };
  }
  const code = (body as { code: number }).code;
  const expected = HTTP_STATUS_OF_GRPC_CODE[code];
  // grpc-gateway answers its routing failures with their own statuses: an unknown path 404 (NOT_FOUND, the table's),
  // a known path with another method 405 with UNIMPLEMENTED in the body.
  const routing = reply.status === 405 && code === 12;
  // Refusals of the HTTP layer itself (headers too large, a body past the limit, an unsupported Expect, a request not
  // received in time) keep
  // their own statuses; their body still says which gRPC code the area gives them.
  const transport =
    (reply.status === 408 || reply.status === 413 || reply.status === 417 || reply.status === 431) &&
    (code === 3 || code === 4 || code === 8);
  if (code === 0 || expected === undefined || (expected !== reply.status && !routing && !transport)) {
    problems.push({
      kind: 'format',
      detail: `google.rpc.Status code ${code} sent with HTTP ${reply.status} (expected ${expected ?? 'a defined code'})`,
    });
  }
  if (code === 2 || code === 13) problems.push({ kind: '5xx', detail: `an internal error: ${describeReply(reply)}` });
  return { problems, rejected: true, unavailable };
}

const GRAPH_ERROR_KEY_SET = new Set(GRAPH_ERROR_KEYS);

/** Areas B and C: the Graph error envelope. */
export function judgeGraphReply(reply: ReplyView, method: string): Judgement {
  const problems: Problem[] = [];
  const unavailable = reply.status === 503;
  problems.push(...serverError(reply, unavailable));
  const ok = reply.status >= 200 && reply.status < 300;
  if (method.toUpperCase() === 'HEAD') return { problems, rejected: !ok, unavailable };
  if (ok) {
    if (!isObject(reply.json))
      problems.push({ kind: 'format', detail: `a ${reply.status} whose body is not a JSON object: ${describeReply(reply)}` });
    return { problems, rejected: false, unavailable };
  }
  const error = isObject(reply.json) ? reply.json.error : undefined;
  const wellFormed =
    isJsonContentType(reply.headers) &&
    isObject(reply.json) &&
    Object.keys(reply.json).length === 1 &&
    isObject(error) &&
    typeof error.message === 'string' &&
    typeof error.type === 'string' &&
    Number.isInteger(error.code) &&
    typeof error.fbtrace_id === 'string' &&
    (error.error_subcode === undefined || Number.isInteger(error.error_subcode)) &&
    Object.keys(error).every((key) => GRAPH_ERROR_KEY_SET.has(key));
  if (!wellFormed) {
    problems.push({ kind: 'format', detail: `not a Graph error envelope: ${describeReply(reply)}` });
    return { problems, rejected: true, unavailable };
  }
  // Codes 1 and 2 are the platform's "unknown error" and "service error": the server's own failures — except code 1's
  // documented client-side use, "Please reduce the amount of data you're asking for" (a 4xx with that message).
  const { code, message } = error as { code: number; message: string };
  if ((code === 1 || code === 2) && (reply.status >= 500 || !/reduce the amount of data/i.test(message))) {
    if (!problems.some((problem) => problem.kind === '5xx'))
      problems.push({ kind: '5xx', detail: `an unknown-error envelope: ${describeReply(reply)}` });
  }
  return { problems, rejected: true, unavailable };
}

export const UPLOAD_PATH = '/1.1/media/upload.json';
export const METADATA_PATH = '/1.1/media/metadata/create.json';

/** Area D: the reference's two error bodies; a success has the media object. */
export function judgeUploadReply(reply: ReplyView, method: string): Judgement {
  const problems: Problem[] = [];
  const unavailable = reply.status === 503;
  problems.push(...serverError(reply, unavailable));
  const ok = reply.status >= 200 && reply.status < 300;
  if (method.toUpperCase() === 'HEAD') return { problems, rejected: !ok, unavailable };
  if (ok) {
    problems.push(...mediaObjectProblems(reply, { image: true }));
    return { problems, rejected: false, unavailable };
  }
  addMediaErrorProblems(problems, reply, UPLOAD_PATH);
  return { problems, rejected: true, unavailable };
}

/**
 * What is wrong with a 2xx that should carry the reference's media object: media_id_string digits, media_id the same
 * digits as a JSON number, and (for an upload or a finished chunked one) `image`.
 */
export function mediaObjectProblems(reply: ReplyView, expect: { image: boolean }): Problem[] {
  const body = reply.json;
  const wellFormed =
    isObject(body) &&
    typeof body.media_id_string === 'string' &&
    /^\d+$/.test(body.media_id_string) &&
    new RegExp(`"media_id"\\s*:\\s*${body.media_id_string}\\b`).test(reply.text) &&
    (!expect.image || isObject(body.image));
  return wellFormed
    ? []
    : [
        {
          kind: 'format',
          detail: `a ${reply.status} that is not ${expect.image ? 'an uploaded' : 'a'} media object: ${describeReply(reply)}`,
        },
      ];
}

/**
 * What is wrong with an error reply of Area D at `path` (the upload's or the metadata's): it must be the standard
 * `{"errors":[{code, message}]}` or the legacy `{"request": path, "error"}` (a 400), and never code 131, the reference's
 * "internal error".
 */
export function mediaErrorProblems(reply: ReplyView, path: string): Problem[] {
  const body = reply.json;
  const standard =
    isObject(body) &&
    Object.keys(body).length === 1 &&
    Array.isArray(body.errors) &&
    body.errors.length > 0 &&
    body.errors.every((error) => isObject(error) && Number.isInteger(error.code) && typeof error.message === 'string');
  const legacy =
    isObject(body) && Object.keys(body).length === 2 && body.request === path && typeof body.error === 'string' && reply.status === 400;
  if (!isJsonContentType(reply.headers) || (!standard && !legacy))
    return [{ kind: 'format', detail: `not an upload error body: ${describeReply(reply)}` }];
  if (standard && (body.errors as { code: number }[]).some((error) => error.code === 131))
    return [{ kind: '5xx', detail: `an internal-error body: ${describeReply(reply)}` }];
  return [];
}

/** Adds mediaErrorProblems to `problems`, one 5xx at most (a 500 with code 131 is one defect, not two). */
export function addMediaErrorProblems(problems: Problem[], reply: ReplyView, path: string): void {
  for (const problem of mediaErrorProblems(reply, path)) {
    if (problem.kind !== '5xx' || !problems.some((known) => known.kind === '5xx')) problems.push(problem);
  }
}

/** The host of X's v2 problem types (media-v2-problems.ts; reference §10.2, decision 10.4.5). */
const V2_PROBLEM_TYPES = 'https://api.twitter.com/2/problems/';

/**
 * Area D under API v2 (/2/media/…, reference §10): a success is 200 `{"data": {…}}` and nothing else; every error is
 * an RFC 7807 problem sent as application/problem+json — `title`, `detail` and `type` strings, `type` about:blank or one
 * of v2's problem types (never internal-error), `status` (when present) the HTTP status, and an invalid-request with its
 * problems in a non-empty `errors` list of objects with a `message`.
 */
export function judgeMediaV2Reply(reply: ReplyView, method: string): Judgement {
  const problems: Problem[] = [];
  const unavailable = reply.status === 503;
  problems.push(...serverError(reply, unavailable));
  const ok = reply.status >= 200 && reply.status < 300;
  if (method.toUpperCase() === 'HEAD') return { problems, rejected: !ok, unavailable };
  if (ok) {
    problems.push(...mediaV2DataProblems(reply));
    return { problems, rejected: false, unavailable };
  }
  if (reply.status < 500) problems.push(...mediaV2ProblemProblems(reply));
  return { problems, rejected: true, unavailable };
}

/** What is wrong with a v2 success: it must be a 200 whose JSON body is exactly `{"data": {…}}`. */
export function mediaV2DataProblems(reply: ReplyView): Problem[] {
  const body = reply.json;
  const wellFormed =
    reply.status === 200 && isJsonContentType(reply.headers) && isObject(body) && Object.keys(body).length === 1 && isObject(body.data);
  return wellFormed ? [] : [{ kind: 'format', detail: `a ${reply.status} that is not v2's {"data": {…}}: ${describeReply(reply)}` }];
}

/** What is wrong with a v2 error reply: see judgeMediaV2Reply. */
export function mediaV2ProblemProblems(reply: ReplyView): Problem[] {
  const body = reply.json;
  const wrong = (why: string): Problem[] => [{ kind: 'format', detail: `not a v2 problem (${why}): ${describeReply(reply)}` }];
  if (!/^application\/problem\+json\b/i.test(reply.headers['content-type'] ?? '')) return wrong('content type');
  if (!isObject(body)) return wrong('not a JSON object');
  for (const key of ['title', 'detail', 'type'] as const) {
    if (typeof body[key] !== 'string' || body[key] === '') return wrong(`no ${key}`);
  }
  const type = body.type as string;
  if (type !== 'about:blank' && !(type.startsWith(V2_PROBLEM_TYPES) && /^[a-z-]+$/.test(type.slice(V2_PROBLEM_TYPES.length))))
    return wrong(`type ${type}`);
  if (type.endsWith('/internal-error')) return [{ kind: '5xx', detail: `an internal-error problem: ${describeReply(reply)}` }];
  if (body.status !== undefined && body.status !== reply.status)
    return wrong(`status ${String(body.status)} sent with HTTP ${reply.status}`);
  const errors = body.errors;
  if (type.endsWith('/invalid-request') && errors === undefined) return wrong('invalid-request without errors');
  if (errors !== undefined) {
    if (!Array.isArray(errors) || errors.length === 0 || !errors.every(isObject)) return wrong('errors is not a non-empty list of objects');
    if (type.endsWith('/invalid-request') && !errors.every((error) => typeof error.message === 'string' && error.message !== ''))
      return wrong('an invalid-request error without a message');
  }
  return [];
}

/** GraphQL error codes that mean the server failed, not the request. */
const INTERNAL_GRAPHQL_CODES = new Set(['INTERNAL_SERVER_ERROR', 'UNKNOWN']);

function judgeGraphqlResult(result: unknown, where: string, problems: Problem[]): { rejected: boolean; unavailable: boolean } {
  if (!isObject(result)) {
    problems.push({ kind: 'format', detail: `${where}is not a JSON object` });
    return { rejected: true, unavailable: false };
  }
  const errors = result.errors;
  const hasData = 'data' in result;
  let unavailable = false;
  if (errors !== undefined) {
    if (!Array.isArray(errors) || errors.length === 0) {
      problems.push({ kind: 'format', detail: `${where}has "errors" that is not a non-empty list` });
    } else {
      for (const error of errors) {
        const code = isObject(error) && isObject(error.extensions) ? error.extensions.code : undefined;
        if (!isObject(error) || typeof error.message !== 'string' || typeof code !== 'string') {
          problems.push({
            kind: 'format',
            detail: `${where}has an error without message and extensions.code: ${excerpt(JSON.stringify(error))}`,
          });
          continue;
        }
        if (INTERNAL_GRAPHQL_CODES.has(code))
          problems.push({ kind: '5xx', detail: `${where}has an internal error: ${excerpt(JSON.stringify(error))}` });
        if (code === 'SERVICE_UNAVAILABLE') unavailable = true;
      }
    }
  } else if (!hasData) {
    problems.push({ kind: 'format', detail: `${where}has neither data nor errors` });
  }
  const data = result.data;
  const rejected = !isObject(data) || Object.values(data).every((value) => value === null);
  return { rejected, unavailable };
}

/** The gateway: a GraphQL response (or, for a batch, a list of them); no 5xx, no internal errors at any status. */
export function judgeGraphqlReply(reply: ReplyView, method = 'POST'): Judgement {
  const problems: Problem[] = [];
  // A reply to HEAD has no body to judge.
  if (method.toUpperCase() === 'HEAD')
    return { problems: serverError(reply, reply.status === 503), rejected: true, unavailable: reply.status === 503 };
  if (!isJsonContentType(reply.headers) && !/^application\/graphql-response\+json/i.test(reply.headers['content-type'] ?? '')) {
    problems.push({ kind: 'format', detail: `not a JSON reply: ${describeReply(reply)}` });
    problems.push(...serverError(reply, false));
    return { problems, rejected: true, unavailable: false };
  }
  let rejected: boolean;
  let unavailable = false;
  if (Array.isArray(reply.json)) {
    if (reply.json.length === 0) problems.push({ kind: 'format', detail: 'an empty batch reply' });
    rejected = true;
    for (const [index, result] of reply.json.entries()) {
      const one = judgeGraphqlResult(result, `batch reply [${index}] `, problems);
      rejected &&= one.rejected;
      unavailable ||= one.unavailable;
    }
  } else {
    ({ rejected, unavailable } = judgeGraphqlResult(reply.json, 'the reply ', problems));
  }
  unavailable ||= reply.status === 503;
  problems.push(...serverError(reply, unavailable));
  if (problems.some((problem) => problem.kind === 'format')) problems.push({ kind: 'format', detail: describeReply(reply) });
  return { problems, rejected, unavailable };
}

/** gRPC status codes by number (for messages). */
export const GRPC_CODE_NAMES: Readonly<Record<number, string>> = {
  0: 'OK',
  1: 'CANCELLED',
  2: 'UNKNOWN',
  3: 'INVALID_ARGUMENT',
  4: 'DEADLINE_EXCEEDED',
  5: 'NOT_FOUND',
  6: 'ALREADY_EXISTS',
  7: 'PERMISSION_DENIED',
  8: 'RESOURCE_EXHAUSTED',
  9: 'FAILED_PRECONDITION',
  10: 'ABORTED',
  11: 'OUT_OF_RANGE',
  12: 'UNIMPLEMENTED',
  13: 'INTERNAL',
  14: 'UNAVAILABLE',
  15: 'DATA_LOSS',
  16: 'UNAUTHENTICATED',
};

/** A finished gRPC call: a defined status, never INTERNAL or UNKNOWN, a message with every error. */
export function judgeGrpcStatus(code: number | undefined, message: string | undefined, where = ''): Judgement {
  const problems: Problem[] = [];
  if (code === undefined || !Number.isInteger(code) || GRPC_CODE_NAMES[code] === undefined) {
    problems.push({ kind: 'format', detail: `${where}no valid grpc-status (got ${String(code)}; message ${JSON.stringify(message)})` });
    return { problems, rejected: true, unavailable: false };
  }
  const named = `${GRPC_CODE_NAMES[code]} (${code}): ${JSON.stringify(excerpt(message ?? ''))}`;
  if (code === 2 || code === 13 || code === 15) problems.push({ kind: '5xx', detail: `${where}${named}` });
  if (code !== 0 && (message === undefined || message.trim() === ''))
    problems.push({ kind: 'format', detail: `${where}${named} without a message` });
  // DEADLINE_EXCEEDED and CANCELLED say nothing of the outcome: the gRPC spec lets the work complete anyway ("even if the
  // operation has completed successfully"), so the stored data is not compared after them.
  return { problems, rejected: code !== 0 && code !== 1 && code !== 4, unavailable: code === 14 };
}
