import { Metadata, type status as GrpcStatus, type StatusObject } from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import {
  ERROR_CODES,
  InvalidArgumentError,
  isConnectionFailure,
  MASKED_INTERNAL_MESSAGE,
  toAppError,
  type FieldViolation,
} from '../../../lib/errors.ts';
import type { Logger } from '../../../lib/logger.ts';
import { PROTO_ROOT } from './user-example.proto-package.ts';

/** Trailer that carries the whole google.rpc.Status, binary-encoded, next to grpc-status and grpc-message. */
export const STATUS_DETAILS_TRAILER = 'grpc-status-details-bin';

export const BAD_REQUEST_TYPE_URL = 'type.googleapis.com/google.rpc.BadRequest';

interface RpcTypes {
  status: protobuf.Type;
  badRequest: protobuf.Type;
}

let rpcTypes: RpcTypes | undefined;

/** google.rpc.Status and google.rpc.BadRequest, parsed once from proto/google/rpc on first use. */
function loadRpcTypes(): RpcTypes {
  if (!rpcTypes) {
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) => `${PROTO_ROOT}${target}`;
    root.loadSync(['google/rpc/status.proto', 'google/rpc/error_details.proto'], { keepCase: true });
    rpcTypes = {
      status: root.lookupType('google.rpc.Status'),
      badRequest: root.lookupType('google.rpc.BadRequest'),
    };
  }
  return rpcTypes;
}

/** Binary google.rpc.Status whose details hold one google.rpc.BadRequest listing `violations`. */
export function encodeBadRequestStatus(code: number, message: string, violations: readonly FieldViolation[]): Buffer {
  const { status, badRequest } = loadRpcTypes();
  const fieldViolations = violations.map(({ field, description }) => ({ field, description }));
  const badRequestBytes = badRequest.encode(badRequest.fromObject({ field_violations: fieldViolations })).finish();
  const bytes = status
    .encode(status.fromObject({ code, message, details: [{ type_url: BAD_REQUEST_TYPE_URL, value: badRequestBytes }] }))
    .finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * The one mapping of a thrown error onto a gRPC status: each AppError code becomes its canonical gRPC code with the
 * error's message; field violations also travel as a google.rpc.BadRequest in grpc-status-details-bin. A lost database is
 * UNAVAILABLE (logged once per incident by the database's own log, lib/telemetry/telemetry.ts, not once per call); anything
 * else is an internal error: logged, and answered with the masked message.
 */
export function toGrpcStatus(thrown: unknown, logger: Logger, method: string): GrpcErrorStatus {
  const error = toAppError(thrown);
  const code = ERROR_CODES[error.code].grpc;
  if (error.code === 'UNAVAILABLE' && isConnectionFailure(thrown)) {
    logger.debug({ err: thrown, method }, 'gRPC service error: the database is unreachable');
  } else if (error.code === 'INTERNAL' || error.code === 'UNAVAILABLE') {
    logger.error({ err: thrown, method }, 'gRPC service error');
  }
  if (error.code === 'INTERNAL') return grpcError(code, MASKED_INTERNAL_MESSAGE);
  const message = boundedMessage(error.message);
  if (error instanceof InvalidArgumentError && error.violations.length > 0) {
    const trailers = new Metadata();
    trailers.set(STATUS_DETAILS_TRAILER, encodeBadRequestStatus(code, message, boundedViolations(error.violations)));
    return grpcError(code, message, trailers);
  }
  return grpcError(code, message);
}

/**
 * Trailers are headers: HTTP/2 peers refuse a header block past a few kilobytes (grpc-js clients, 8 KiB of metadata by
 * default), and a status too large to send leaves the call unanswered and the connection broken for every other call on
 * it. So an error's message and violations are cut to fit well inside that, however many rules a request broke.
 */
const MAX_MESSAGE_CHARS = 512;
const MAX_DETAILS_BYTES = 2048;

/**
 * The message cut to MAX_MESSAGE_CHARS, and well-formed UTF-16: grpc-js percent-encodes it with encodeURI, which throws
 * on a lone surrogate (one a client sent, or one a cut left behind) — a throw inside the status write that ended the
 * process. Lone surrogates become U+FFFD.
 */
function boundedMessage(message: string): string {
  const cut = message.length <= MAX_MESSAGE_CHARS ? message : `${message.slice(0, MAX_MESSAGE_CHARS - 1)}…`;
  return cut.replace(LONE_SURROGATE, '\uFFFD');
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The first violations whose text fits MAX_DETAILS_BYTES, and one saying how many more there were. */
function boundedViolations(violations: readonly FieldViolation[]): FieldViolation[] {
  const kept: FieldViolation[] = [];
  let bytes = 0;
  for (const violation of violations) {
    const size = Buffer.byteLength(violation.field) + Buffer.byteLength(violation.description) + 8;
    if (bytes + size > MAX_DETAILS_BYTES) break;
    kept.push(violation);
    bytes += size;
  }
  if (kept.length < violations.length) {
    kept.push({ field: '', description: `${violations.length - kept.length} more violation(s) not listed` });
  }
  return kept;
}

/** What a unary handler passes to its callback to fail the call; `metadata` becomes trailers. */
export type GrpcErrorStatus = Pick<StatusObject, 'code' | 'details'> & Partial<Pick<StatusObject, 'metadata'>>;

function grpcError(code: GrpcStatus, details: string, metadata?: Metadata): GrpcErrorStatus {
  return metadata ? { code, details, metadata } : { code, details };
}
