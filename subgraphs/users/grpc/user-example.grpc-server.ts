import { performance } from 'node:perf_hooks';
import { context, SpanStatusCode } from '@opentelemetry/api';
import { Metadata, Server, status as GrpcStatus, type handleUnaryCall, type ServerOptions, type ServiceDefinition } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import type { Actor, TokenService } from '../../../lib/auth/auth.ts';
import type { Logger } from '../../../lib/logger.ts';
import { requestIdFrom, withRequestId } from '../../../lib/request-context.ts';
import type { Telemetry } from '../../../lib/telemetry/telemetry.ts';
import type { UserExampleService } from '../user-example.service.ts';
import { LOG_POSITION_HEADER } from '../../../lib/http/log-position.ts';
import { toGrpcStatus } from './grpc-status.ts';
import { assertDecoded, classifyWireErrors, safeDeserializers } from './grpc-wire-errors.ts';
import { createServerReflection } from './server-reflection.ts';
import {
  decodeCreateRequest,
  decodeListParams,
  decodeUint64,
  decodeUpdatePatch,
  encodeListReply,
  encodeUserExample,
  type CreateUserExampleReplyWire,
  type CreateUserExampleRequestWire,
  type EmptyWire,
  type GetUserExampleByIDReplyWire,
  type IdRequestWire,
  type ListUserExampleReplyWire,
  type ListUserExampleRequestWire,
  type UpdateUserExampleByIDRequestWire,
} from './user-example.grpc-codec.ts';
import { loadDescriptorSet, packageDefinitionFromDescriptorSet, USER_EXAMPLE_SERVICE_NAME } from './user-example.proto-package.ts';

export interface UserExampleGrpcDeps {
  service: UserExampleService;
  tokens: TokenService;
  logger: Logger;
  /** Passed to grpc-js (message size limits, keepalive…); defaults are grpc-js's. */
  serverOptions?: ServerOptions;
  /** Metrics and spans of each call; the health service answers what the process's readiness says. */
  telemetry: Telemetry;
  /**
   * After a write: waits until its changes reached the process's caches (the gateway's fetch cache, when it is on) and
   * gives the change log's position then applied, sent as the trailer `tributary-log-position` (as a GraphQL or REST
   * write's reply header), so that a read presenting it on any instance reads the write.
   */
  afterWrite?: () => Promise<string | undefined>;
}

/** The gRPC server and its grpc.health.v1 service, whose status the caller keeps in step with readiness. */
export interface UserExampleGrpcServer {
  server: Server;
  /** Sets the overall and the userExample service's health (SERVING when ready, NOT_SERVING otherwise). */
  setServing(serving: boolean): void;
}

/**
 * What one connection may ask of the server. A request message is at most 1 MiB (the REST body limit: the same records
 * and List params, whichever door), checked by grpc-js before decoding (RESOURCE_EXHAUSTED past it); at most 100 calls run
 * at once on one HTTP/2 connection; a kept-alive connection is pinged after 2 idle minutes.
 */
const SERVER_BOUNDS: ServerOptions = {
  'grpc.max_receive_message_length': 1024 * 1024,
  'grpc.max_concurrent_streams': 100,
  'grpc.keepalive_time_ms': 120_000,
  'grpc.keepalive_timeout_ms': 20_000,
  // Channelz (grpc-js's per-call and per-socket bookkeeping for the channelz admin service) is on by default and costs
  // CPU on every call (bench/README.md, "Issue 13's targets before coalescing"); the service is not served here, so
  // nothing reads it.
  'grpc.enable_channelz': 0,
};

/** Every service the server offers, as server reflection lists them (each described by proto/descriptor-set.binpb). */
const SERVED_SERVICES = [
  USER_EXAMPLE_SERVICE_NAME,
  'grpc.health.v1.Health',
  'grpc.reflection.v1.ServerReflection',
  'grpc.reflection.v1alpha.ServerReflection',
] as const;

const STATUS_NAMES = Object.fromEntries(Object.entries(GrpcStatus).map(([name, code]) => [code, name])) as Record<number, string>;

/**
 * The gRPC front door of Area A: the userExample service, plus server reflection and the standard grpc.health.v1 service.
 * Handlers only decode, call UserExampleService and encode; the metadata entry `authorization` is the credential.
 * Returns an unbound server: the caller binds it (see bindGrpcServer) and shuts it down.
 */
export function createUserExampleGrpcServer(deps: UserExampleGrpcDeps): UserExampleGrpcServer {
  const { service, tokens, logger, telemetry } = deps;
  // One source for the service's codecs and for reflection: the descriptor set buf built from proto/.
  const descriptorSet = loadDescriptorSet();
  const packageDefinition = packageDefinitionFromDescriptorSet(descriptorSet);
  const definition = safeDeserializers(packageDefinition[USER_EXAMPLE_SERVICE_NAME] as ServiceDefinition);
  classifyWireErrors();

  /** Wraps one RPC: credential → Actor, then the call; any thrown error goes through the one status mapping. */
  function unary<Request, Reply>(
    method: string,
    requestMessage: string,
    handle: (actor: Actor, request: Request) => Promise<Reply>,
    writes = false,
  ): handleUnaryCall<Request, Reply> {
    const fullName = `${USER_EXAMPLE_SERVICE_NAME}/${method}`;
    return (call, callback) => {
      const started = performance.now();
      const requestId = requestIdFrom(readMetadata(call.metadata, 'x-request-id'));
      const traced = telemetry.tracing.enabled
        ? telemetry.tracing.startServerSpan(
            fullName,
            { traceparent: readMetadata(call.metadata, 'traceparent'), tracestate: readMetadata(call.metadata, 'tracestate') },
            { 'rpc.system': 'grpc', 'rpc.method': method },
          )
        : undefined;
      const finish = (code: number) => {
        telemetry.metrics.observeGrpc(method, STATUS_NAMES[code] ?? String(code), (performance.now() - started) / 1000);
        if (traced) {
          traced.span.setAttribute('rpc.grpc.status_code', code);
          if (code !== GrpcStatus.OK) traced.span.setStatus({ code: SpanStatusCode.ERROR });
          traced.span.end();
        }
      };
      const run = async () => {
        let reply: Reply;
        try {
          // The message is read before the credential, as every gRPC server decodes a request before its handler runs.
          assertDecoded(call.request, requestMessage);
          reply = await handle(tokens.authenticate(readAuthorization(call.metadata)), call.request);
        } catch (error) {
          const status = toGrpcStatus(error, logger, method);
          finish(status.code ?? GrpcStatus.UNKNOWN);
          callback(status);
          return;
        }
        const position = writes ? await deps.afterWrite?.() : undefined;
        finish(GrpcStatus.OK);
        if (position === undefined) callback(null, reply);
        else callback(null, reply, positionTrailer(position));
      };
      withRequestId(requestId, () => void (traced ? context.with(traced.context, run) : run()));
    };
  }

  const implementation = {
    Create: unary<CreateUserExampleRequestWire, CreateUserExampleReplyWire>(
      'Create',
      'CreateUserExampleRequest',
      (actor, request) => service.create(actor, decodeCreateRequest(request)),
      true,
    ),
    DeleteByID: unary<IdRequestWire, EmptyWire>(
      'DeleteByID',
      'DeleteUserExampleByIDRequest',
      async (actor, request) => {
        await service.deleteById(actor, decodeUint64(request.id, 'DeleteUserExampleByIDRequest', 'id'));
        return {};
      },
      true,
    ),
    UpdateByID: unary<UpdateUserExampleByIDRequestWire, EmptyWire>(
      'UpdateByID',
      'UpdateUserExampleByIDRequest',
      async (actor, request) => {
        const id = decodeUint64(request.id, 'UpdateUserExampleByIDRequest', 'id');
        await service.updateById(actor, id, decodeUpdatePatch(request));
        return {};
      },
      true,
    ),
    GetByID: unary<IdRequestWire, GetUserExampleByIDReplyWire>('GetByID', 'GetUserExampleByIDRequest', async (actor, request) => {
      const record = await service.getById(actor, decodeUint64(request.id, 'GetUserExampleByIDRequest', 'id'));
      return { userExample: encodeUserExample(record) };
    }),
    List: unary<ListUserExampleRequestWire, ListUserExampleReplyWire>('List', 'ListUserExampleRequest', async (actor, request) =>
      encodeListReply(await service.list(actor, decodeListParams(request))),
    ),
  };

  const server = new Server({ ...SERVER_BOUNDS, ...deps.serverOptions });
  server.addService(definition, implementation);
  createServerReflection(descriptorSet, { services: SERVED_SERVICES }).addToServer(server);
  const health = new HealthImplementation({ '': 'SERVING', [USER_EXAMPLE_SERVICE_NAME]: 'SERVING' });
  health.addToServer(server);
  return {
    server,
    setServing(serving) {
      const state = serving ? 'SERVING' : 'NOT_SERVING';
      health.setStatus('', state);
      health.setStatus(USER_EXAMPLE_SERVICE_NAME, state);
    },
  };
}

function readMetadata(metadata: Metadata, key: string): string | undefined {
  const [value] = metadata.get(key);
  return typeof value === 'string' ? value : undefined;
}

/** The first `authorization` metadata value (keys arrive lower-cased); undefined when absent. */
function readAuthorization(metadata: Metadata): string | undefined {
  const [value] = metadata.get('authorization');
  return typeof value === 'string' ? value : undefined;
}

/** The trailer a write's reply carries its change-log position in (UserExampleGrpcDeps.afterWrite). */
function positionTrailer(position: string): Metadata {
  const trailer = new Metadata();
  trailer.set(LOG_POSITION_HEADER, position);
  return trailer;
}
