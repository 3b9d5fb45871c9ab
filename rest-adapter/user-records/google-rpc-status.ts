import type { ServerResponse } from 'node:http';
import type { GraphQLFormattedError } from 'graphql';
import {
  ERROR_CODES,
  errorCodeFromGraphql,
  MASKED_INTERNAL_MESSAGE,
  toAppError,
  type ErrorCode,
  type FieldViolation,
} from '../../lib/errors.ts';
import { sendJson } from '../../lib/http/send-json.ts';
import type { Logger } from '../../lib/logger.ts';
import { isRecord } from '../../lib/is-record.ts';

/**
 * Area A's REST error format: a google.rpc.Status in JSON, as grpc-gateway writes it — {code, message, details} with the
 * HTTP status of the gRPC code, field violations as a google.rpc.BadRequest detail.
 */
export interface RpcStatusBody {
  code: number;
  message: string;
  details: Record<string, unknown>[];
}

export function rpcStatus(code: ErrorCode, message: string, violations: readonly FieldViolation[] = []): RpcStatusBody {
  return {
    code: ERROR_CODES[code].grpc,
    message,
    details:
      violations.length > 0
        ? [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: violations.map((v) => ({ ...v })) }]
        : [],
  };
}

/** Sends the status on a node:http or Express response alike (the REST fast path has no Express). */
export function sendRpcStatus(res: ServerResponse, code: ErrorCode, message: string, violations: readonly FieldViolation[] = []) {
  if (code === 'UNAUTHENTICATED') {
    // RFC 6750 §3.1: a request that sent no credential gets the bare challenge; a refused credential gets the reason.
    const sentCredential = Boolean(res.req.headers.authorization);
    res.setHeader(
      'WWW-Authenticate',
      sentCredential
        ? `Bearer realm="tributary", error="invalid_token", error_description="${message.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, "'")}"`
        : 'Bearer realm="tributary"',
    );
  }
  sendJson(res, ERROR_CODES[code].http, rpcStatus(code, message, violations));
}

/** The one mapping of a GraphQL error (from the gateway) onto the google.rpc.Status reply. */
export function sendGraphqlError(res: ServerResponse, error: GraphQLFormattedError, logger: Logger) {
  const extensionCode = error.extensions?.code;
  // Parse, validation and variable-coercion errors are the request's fault.
  const code =
    extensionCode === 'GRAPHQL_VALIDATION_FAILED' || extensionCode === 'GRAPHQL_PARSE_FAILED'
      ? 'INVALID_ARGUMENT'
      : errorCodeFromGraphql(extensionCode);
  const reported = error.extensions?.fieldViolations;
  const violations = Array.isArray(reported) ? reported.filter(isFieldViolation) : [];
  if (code === 'INTERNAL') logger.error({ graphqlError: error }, 'internal error behind a REST request');
  sendRpcStatus(res, code, code === 'INTERNAL' ? MASKED_INTERNAL_MESSAGE : error.message, violations);
}

/** A field violation as the services report it in `extensions.fieldViolations`. */
function isFieldViolation(value: unknown): value is FieldViolation {
  return isRecord(value) && typeof value.field === 'string' && typeof value.description === 'string';
}

/** Maps an error thrown inside the adapter itself (gateway unreachable, unexpected failures). */
export function sendThrownError(res: ServerResponse, thrown: unknown, logger: Logger) {
  const error = toAppError(thrown);
  if (error.code === 'INTERNAL' || error.code === 'UNAVAILABLE') logger.error({ err: thrown }, 'REST adapter error');
  sendRpcStatus(res, error.code, error.code === 'INTERNAL' ? MASKED_INTERNAL_MESSAGE : error.message);
}
