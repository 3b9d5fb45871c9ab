import { Metadata, status as GrpcStatus, type StatusObject } from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import {
  ERROR_CODES,
  InvalidArgumentError,
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
 * UNAVAILABLE; anything else is an internal error: logged, and answered with the masked message.
 */
export function toGrpcStatus(thrown: unknown, logger: Logger, method: string): GrpcErrorStatus {
  const error = toAppError(thrown);
  const code = ERROR_CODES[error.code].grpc;
  if (error.code === 'INTERNAL' || error.code === 'UNAVAILABLE') {
    logger.error({ err: thrown, method }, 'gRPC service error');
  }
  if (error.code === 'INTERNAL') return grpcError(code, MASKED_INTERNAL_MESSAGE);
  if (error instanceof InvalidArgumentError && error.violations.length > 0) {
    const trailers = new Metadata();
    trailers.set(STATUS_DETAILS_TRAILER, encodeBadRequestStatus(code, error.message, error.violations));
    return grpcError(code, error.message, trailers);
  }
  return grpcError(code, error.message);
}

/** What a unary handler passes to its callback to fail the call; `metadata` becomes trailers. */
export type GrpcErrorStatus = Pick<StatusObject, 'code' | 'details'> & Partial<Pick<StatusObject, 'metadata'>>;

function grpcError(code: GrpcStatus, details: string, metadata?: Metadata): GrpcErrorStatus {
  return metadata ? { code, details, metadata } : { code, details };
}
