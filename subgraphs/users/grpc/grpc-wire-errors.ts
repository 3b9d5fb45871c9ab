import { status as GrpcStatus, type ServiceDefinition } from '@grpc/grpc-js';
import { BaseServerInterceptingCall } from '@grpc/grpc-js/build/src/server-interceptors.js';
import type { PartialStatusObject } from '@grpc/grpc-js/build/src/call-interface.js';
import { InvalidArgumentError } from '../../../lib/errors.ts';

/**
 * A gRPC caller's malformed request is INVALID_ARGUMENT, as for every other door (README, Area A errors), never INTERNAL.
 *
 * Two places decide a call's status before any handler runs, both inside grpc-js:
 * - the request message's decoding: grpc-js answers INTERNAL "Error deserializing request" when the deserializer throws.
 *   Ours never throws (safeDeserializers): an undecodable message reaches the handler as a marker, and the handler's one
 *   error mapping answers INVALID_ARGUMENT naming what could not be read.
 * - the call's framing: a `grpc-timeout` header that is not a timeout, or a message whose compressed bytes do not
 *   decompress, are answered INTERNAL by grpc-js's call object itself, below any interceptor (server interceptors only
 *   see statuses that a handler sends). classifyWireErrors re-labels exactly those statuses, by grpc-js's own wording,
 *   at the one place every status of a server call goes through. An encoding the server does not support stays
 *   UNIMPLEMENTED, as the gRPC compression spec asks.
 */

const CLIENT_FRAMING_ERRORS = [/^Invalid grpc-timeout value/, /^Failed to decompress message/, /^Error deserializing request/];

let classified = false;

/** Re-labels grpc-js's statuses for malformed call framing as INVALID_ARGUMENT (idempotent, process-wide). */
export function classifyWireErrors(): void {
  if (classified) return;
  classified = true;
  const prototype = BaseServerInterceptingCall.prototype as unknown as { sendStatus(status: PartialStatusObject): void };
  const sendStatus = prototype.sendStatus;
  prototype.sendStatus = function (this: unknown, status: PartialStatusObject) {
    const clientFault = status.code === GrpcStatus.INTERNAL && CLIENT_FRAMING_ERRORS.some((pattern) => pattern.test(status.details ?? ''));
    sendStatus.call(this, clientFault ? { ...status, code: GrpcStatus.INVALID_ARGUMENT } : status);
  };
}

const UNDECODABLE = Symbol('undecodable request');

interface Undecodable {
  [UNDECODABLE]: string;
}

/** `definition` with deserializers that return a marker instead of throwing on bytes that are not the request message. */
export function safeDeserializers(definition: ServiceDefinition): ServiceDefinition {
  return Object.fromEntries(
    Object.entries(definition).map(([name, method]) => [
      name,
      {
        ...method,
        requestDeserialize: (bytes: Buffer): unknown => {
          try {
            return method.requestDeserialize(bytes);
          } catch (error) {
            return { [UNDECODABLE]: error instanceof Error ? error.message : String(error) } satisfies Undecodable;
          }
        },
      },
    ]),
  ) as ServiceDefinition;
}

/** Throws INVALID_ARGUMENT when `request` is the marker of an undecodable message. */
export function assertDecoded(request: unknown, messageName: string): void {
  if (typeof request === 'object' && request !== null && UNDECODABLE in request) {
    const reason = (request as Undecodable)[UNDECODABLE];
    throw new InvalidArgumentError(`the request is not a valid ${messageName} message: ${reason.slice(0, 200)}`);
  }
}
