import { Server, type handleUnaryCall, type Metadata, type ServerOptions, type ServiceDefinition } from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import type { Actor, TokenService } from '../../../lib/auth.ts';
import type { Logger } from '../../../lib/logger.ts';
import type { UserExampleService } from '../user-example.service.ts';
import { toGrpcStatus } from './grpc-status.ts';
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
import { loadUserExamplePackageDefinition, USER_EXAMPLE_SERVICE_NAME } from './user-example.proto-package.ts';

export interface UserExampleGrpcDeps {
  service: UserExampleService;
  tokens: TokenService;
  logger: Logger;
  /** Passed to grpc-js (message size limits, keepalive…); defaults are grpc-js's. */
  serverOptions?: ServerOptions;
}

/**
 * The gRPC front door of Area A: the userExample service, plus server reflection and the standard grpc.health.v1 service.
 * Handlers only decode, call UserExampleService and encode; the metadata entry `authorization` is the credential.
 * Returns an unbound server: the caller binds it (see bindGrpcServer) and shuts it down.
 */
export function createUserExampleGrpcServer(deps: UserExampleGrpcDeps): Server {
  const { service, tokens, logger } = deps;
  const packageDefinition = loadUserExamplePackageDefinition();
  const definition = packageDefinition[USER_EXAMPLE_SERVICE_NAME] as ServiceDefinition;

  /** Wraps one RPC: credential → Actor, then the call; any thrown error goes through the one status mapping. */
  function unary<Request, Reply>(
    method: string,
    handle: (actor: Actor, request: Request) => Promise<Reply>,
  ): handleUnaryCall<Request, Reply> {
    return async (call, callback) => {
      let reply: Reply;
      try {
        reply = await handle(tokens.authenticate(readAuthorization(call.metadata)), call.request);
      } catch (error) {
        callback(toGrpcStatus(error, logger, method));
        return;
      }
      callback(null, reply);
    };
  }

  const implementation = {
    Create: unary<CreateUserExampleRequestWire, CreateUserExampleReplyWire>('Create', (actor, request) =>
      service.create(actor, decodeCreateRequest(request)),
    ),
    DeleteByID: unary<IdRequestWire, EmptyWire>('DeleteByID', async (actor, request) => {
      await service.deleteById(actor, decodeUint64(request.id, 'DeleteUserExampleByIDRequest', 'id'));
      return {};
    }),
    UpdateByID: unary<UpdateUserExampleByIDRequestWire, EmptyWire>('UpdateByID', async (actor, request) => {
      const id = decodeUint64(request.id, 'UpdateUserExampleByIDRequest', 'id');
      await service.updateById(actor, id, decodeUpdatePatch(request));
      return {};
    }),
    GetByID: unary<IdRequestWire, GetUserExampleByIDReplyWire>('GetByID', async (actor, request) => {
      const record = await service.getById(actor, decodeUint64(request.id, 'GetUserExampleByIDRequest', 'id'));
      return { userExample: encodeUserExample(record) };
    }),
    List: unary<ListUserExampleRequestWire, ListUserExampleReplyWire>('List', async (actor, request) =>
      encodeListReply(await service.list(actor, decodeListParams(request))),
    ),
  };

  const server = new Server(deps.serverOptions);
  server.addService(definition, implementation);
  new ReflectionService(packageDefinition).addToServer(server);
  new HealthImplementation({ '': 'SERVING', [USER_EXAMPLE_SERVICE_NAME]: 'SERVING' }).addToServer(server);
  return server;
}

/** The first `authorization` metadata value (keys arrive lower-cased); undefined when absent. */
function readAuthorization(metadata: Metadata): string | undefined {
  const [value] = metadata.get('authorization');
  return typeof value === 'string' ? value : undefined;
}
