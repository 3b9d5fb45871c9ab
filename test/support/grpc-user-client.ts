import * as grpc from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { loadUserExamplePackageDefinition, USER_EXAMPLE_SERVICE_NAME } from '../../subgraphs/users/grpc/user-example.proto-package.ts';

/**
 * A plain grpc-js client of Area A's userExample service, built from proto/ as any client would, and of the standard
 * grpc.health.v1 service — for tests that only need to make calls (the gRPC front-door tests have their own, richer one).
 */
export interface UserExampleGrpcClient {
  /** Calls one RPC with these metadata entries (e.g. authorization, x-request-id); rejects with the ServiceError. */
  call<T = Record<string, unknown>>(method: string, request: object, metadata?: Record<string, string>): Promise<T>;
  /** grpc.health.v1.Health/Check of `service` ('' is the whole server): SERVING, NOT_SERVING… */
  health(service?: string): Promise<string>;
  close(): void;
}

type Callback = (error: grpc.ServiceError | null, reply: Record<string, unknown>) => void;
type Call = (request: object, metadata: grpc.Metadata, callback: Callback) => void;

export function createUserExampleGrpcClient(address: string): UserExampleGrpcClient {
  const definition = loadUserExamplePackageDefinition();
  const Service = grpc.makeGenericClientConstructor(definition[USER_EXAMPLE_SERVICE_NAME] as grpc.ServiceDefinition, 'userExample');
  const client = new Service(address, grpc.credentials.createInsecure());
  const HealthClient = grpc.makeGenericClientConstructor(healthService, 'Health');
  const healthClient = new HealthClient(address, grpc.credentials.createInsecure());
  const invoke = (target: grpc.Client, method: string, request: object, entries: Record<string, string>) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const metadata = new grpc.Metadata();
      for (const [key, value] of Object.entries(entries)) metadata.set(key, value);
      const rpc = (target as unknown as Record<string, Call>)[method]!.bind(target);
      rpc(request, metadata, (error, reply) => (error ? reject(error) : resolve(reply)));
    });
  return {
    call: async <T>(method: string, request: object, metadata: Record<string, string> = {}) =>
      (await invoke(client, method, request, metadata)) as T,
    health: async (service = '') => String((await invoke(healthClient, 'Check', { service }, {})).status),
    close() {
      client.close();
      healthClient.close();
    },
  };
}
