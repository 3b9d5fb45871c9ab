import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { PROTO_ROOT } from '../../subgraphs/users/grpc/user-example.proto-package.ts';

/**
 * A plain grpc-js client of gRPC server reflection (grpc.reflection.v1 or v1alpha), built from the published
 * reflection.proto as a tool would build it: requests go out on one ServerReflectionInfo stream, in order, and each
 * answer is read back as the ServerReflectionResponse object proto-loader decodes (names as in the proto).
 */
export interface ReflectionResponse {
  valid_host: string;
  original_request: Record<string, unknown>;
  message_response: 'file_descriptor_response' | 'all_extension_numbers_response' | 'list_services_response' | 'error_response';
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  all_extension_numbers_response?: { base_type_name: string; extension_number: number[] };
  list_services_response?: { service: { name: string }[] };
  error_response?: { error_code: number; error_message: string };
}

export interface ReflectionStreamResult {
  responses: ReflectionResponse[];
  /** The stream's status: OK when the server ended it normally. */
  status: { code: grpc.status; details: string };
}

export interface GrpcReflectionClient {
  /** Sends `requests` on one stream, half-closes it, and collects every answer and the final status. */
  exchange(requests: readonly object[]): Promise<ReflectionStreamResult>;
  /** One request on its own stream; its one answer. */
  ask(request: object): Promise<ReflectionResponse>;
  close(): void;
}

type ReflectionStub = grpc.Client & { ServerReflectionInfo(): grpc.ClientDuplexStream<object, ReflectionResponse> };

export function createGrpcReflectionClient(address: string, version: 'v1' | 'v1alpha' = 'v1'): GrpcReflectionClient {
  const definition = protoLoader.loadSync(join(PROTO_ROOT, `grpc/reflection/${version}/reflection.proto`), {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const Client = grpc.makeGenericClientConstructor(
    definition[`grpc.reflection.${version}.ServerReflection`] as grpc.ServiceDefinition,
    'ServerReflection',
  );
  const client = new Client(address, grpc.credentials.createInsecure()) as unknown as ReflectionStub;

  const exchange = (requests: readonly object[]) =>
    new Promise<ReflectionStreamResult>((resolve) => {
      const responses: ReflectionResponse[] = [];
      const stream = client.ServerReflectionInfo();
      stream.on('data', (response: ReflectionResponse) => responses.push(response));
      // grpc-js delivers every message before the status; the status (OK or not) ends the exchange.
      stream.on('status', (received: grpc.StatusObject) =>
        setImmediate(() => resolve({ responses, status: { code: received.code, details: received.details } })),
      );
      stream.on('error', () => {
        // The status event carries the code; without a handler an error status would be thrown.
      });
      for (const request of requests) stream.write(request);
      stream.end();
    });

  return {
    exchange,
    async ask(request) {
      const { responses, status } = await exchange([request]);
      if (status.code !== grpc.status.OK || responses.length !== 1) {
        throw new Error(`reflection: ${responses.length} answer(s), status ${status.code} ${status.details}`);
      }
      return responses[0]!;
    },
    close: () => client.close(),
  };
}
