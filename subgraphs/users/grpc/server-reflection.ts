import { status as GrpcStatus, type Server, type ServerDuplexStream, type ServiceDefinition } from '@grpc/grpc-js';
import { loadFileDescriptorSetFromBuffer } from '@grpc/proto-loader';
import { indexDescriptorSet } from './descriptor-set-index.ts';

/**
 * gRPC server reflection (grpc.reflection.v1 and v1alpha, the two versions tools speak: grpcurl, buf curl, Postman,
 * grpc_cli) answered from a FileDescriptorSet built by a real protobuf toolchain (proto/descriptor-set.binpb, see
 * proto/README.md).
 *
 * Why not @grpc/reflection: it derives its descriptors from proto-loader's package definition, which regroups files by
 * package under synthetic names, drops their imports (api.types.Params cannot be resolved), keeps relative type names,
 * loses every option and turns proto3 `optional` into plain oneofs — tools then fail with "failed to find service … in
 * schema". Here every file is served with the exact bytes buf wrote.
 *
 * As grpc-go's server does, a file is sent with its transitive imports, each import at most once per stream (the file
 * asked for is always sent), so a client that walks the graph on one stream gets every file exactly once.
 */

/** What one reflection stream may ask: enough for any tool's session (a few dozen requests), not an endless loop. */
export const MAX_REQUESTS_PER_STREAM = 200;
/** Longer than any name in the set by far; a longer one names nothing and is refused without a lookup. */
export const MAX_NAME_CHARS = 1024;
/**
 * A reflection request is a name or two: past this size the stream ends (INVALID_ARGUMENT) before the request is decoded,
 * so the requests a paused stream holds stay small (the server-wide message limit is 1 MiB, for the records' sake).
 */
export const MAX_REQUEST_BYTES = 8192;

export interface ServerReflectionOptions {
  /** Fully-qualified names of the services the server offers, as list_services reports them; each must be in the set. */
  services: readonly string[];
}

/** The reflection services, ready to be added to a grpc-js server next to the services they describe. */
export interface ServerReflection {
  addToServer(server: Server): void;
}

interface ExtensionRequest {
  containing_type: string;
  extension_number: number;
}

/** ServerReflectionRequest as proto-loader hands it over (keepCase, oneofs: the set member is named). */
interface ReflectionRequest {
  host: string;
  message_request?:
    'file_by_filename' | 'file_containing_symbol' | 'file_containing_extension' | 'all_extension_numbers_of_type' | 'list_services';
  file_by_filename?: string;
  file_containing_symbol?: string;
  file_containing_extension?: ExtensionRequest | null;
  all_extension_numbers_of_type?: string;
  list_services?: string;
}

type ReflectionAnswer =
  | { file_descriptor_response: { file_descriptor_proto: Buffer[] } }
  | { all_extension_numbers_response: { base_type_name: string; extension_number: number[] } }
  | { list_services_response: { service: { name: string }[] } }
  | { error_response: { error_code: number; error_message: string } };

type ReflectionResponse = ReflectionAnswer & { valid_host: string; original_request: ReflectionRequest };

const REFUSED = Symbol('refused request');

/** What the request decoder hands over instead of a request it refuses. */
interface Refused {
  [REFUSED]: string;
}

const REFLECTION_SERVICES = ['grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection'] as const;

/** The messages' own loader options: names as in the proto, the oneof member named, bytes as Buffers. */
const LOADER_OPTIONS = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true } as const;

/**
 * Reflection over `descriptorSet` (a serialized google.protobuf.FileDescriptorSet holding every import). The reflection
 * services' own message codecs come from the same set, so it must hold grpc/reflection/v1 and v1alpha.
 */
export function createServerReflection(descriptorSet: Uint8Array, options: ServerReflectionOptions): ServerReflection {
  const index = indexDescriptorSet(descriptorSet);
  for (const name of options.services) {
    if (!index.hasService(name)) throw new Error(`server reflection: service ${name} is not in the descriptor set`);
  }
  const listed = [...options.services].sort().map((name) => ({ name }));
  const definitions = loadFileDescriptorSetFromBuffer(Buffer.from(descriptorSet), LOADER_OPTIONS);
  const fileBytes = new Map(index.fileNames.map((name) => [name, Buffer.from(index.file(name)!)]));

  /** `name` and its transitive imports not yet sent on this stream (`name` itself always). */
  function withImports(name: string, sent: Set<string>): Buffer[] {
    const answer: Buffer[] = [fileBytes.get(name)!];
    sent.add(name);
    const queue = [...index.dependencies(name)];
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      if (sent.has(next)) continue;
      sent.add(next);
      answer.push(fileBytes.get(next)!);
      queue.push(...index.dependencies(next));
    }
    return answer;
  }

  const notFound = (what: string): ReflectionAnswer => ({
    error_response: { error_code: GrpcStatus.NOT_FOUND, error_message: `${what} not found` },
  });
  const invalid = (message: string): ReflectionAnswer => ({
    error_response: { error_code: GrpcStatus.INVALID_ARGUMENT, error_message: message },
  });
  const files = (name: string | undefined, sent: Set<string>, what: string): ReflectionAnswer =>
    name === undefined ? notFound(what) : { file_descriptor_response: { file_descriptor_proto: withImports(name, sent) } };

  function answer(request: ReflectionRequest, sent: Set<string>): ReflectionAnswer {
    const name = request.message_request ? request[request.message_request] : undefined;
    if (typeof name === 'string' && name.length > MAX_NAME_CHARS) return invalid(`a name is at most ${MAX_NAME_CHARS} characters`);
    switch (request.message_request) {
      case 'list_services':
        return { list_services_response: { service: listed } };
      case 'file_by_filename': {
        const file = request.file_by_filename ?? '';
        return files(fileBytes.has(file) ? file : undefined, sent, `file ${JSON.stringify(file)}`);
      }
      case 'file_containing_symbol': {
        const symbol = request.file_containing_symbol ?? '';
        return files(index.fileContainingSymbol(symbol), sent, `symbol ${JSON.stringify(symbol)}`);
      }
      case 'file_containing_extension': {
        const { containing_type: extendee = '', extension_number: number = 0 } = request.file_containing_extension ?? {};
        if (extendee.length > MAX_NAME_CHARS) return invalid(`a name is at most ${MAX_NAME_CHARS} characters`);
        return files(index.fileContainingExtension(extendee, number), sent, `extension ${number} of ${JSON.stringify(extendee)}`);
      }
      case 'all_extension_numbers_of_type': {
        const extendee = request.all_extension_numbers_of_type ?? '';
        const numbers = index.extensionNumbers(extendee);
        return numbers === undefined
          ? notFound(`type ${JSON.stringify(extendee)}`)
          : { all_extension_numbers_response: { base_type_name: extendee, extension_number: numbers } };
      }
      default:
        return invalid('the request names no reflection request (file_by_filename, file_containing_symbol, …)');
    }
  }

  /**
   * One ServerReflectionInfo stream. Requests are answered in order, one at a time: the next request is read only once
   * the previous answer has been handed to HTTP/2, so a client that writes and never reads holds at most one answer
   * (≤ the set's size, ~130 KB) per stream on the server, and HTTP/2 flow control then holds the client back. Past
   * MAX_REQUESTS_PER_STREAM the stream ends with RESOURCE_EXHAUSTED.
   */
  function serve(call: ServerDuplexStream<ReflectionRequest | Refused, ReflectionResponse>): void {
    const sent = new Set<string>();
    let requests = 0;
    let cancelled = false;
    let finished = false;
    const fail = (code: GrpcStatus, details: string) => {
      finished = true;
      call.emit('error', { code, details });
    };
    call.on('data', (request: ReflectionRequest | Refused) => {
      if (cancelled || finished) return;
      if (REFUSED in request) {
        fail(GrpcStatus.INVALID_ARGUMENT, request[REFUSED]);
        return;
      }
      requests += 1;
      if (requests > MAX_REQUESTS_PER_STREAM) {
        fail(GrpcStatus.RESOURCE_EXHAUSTED, `a reflection stream answers at most ${MAX_REQUESTS_PER_STREAM} requests; open a new stream`);
        return;
      }
      const response: ReflectionResponse = { valid_host: request.host, original_request: request, ...answer(request, sent) };
      call.pause();
      call.write(response, () => {
        if (!cancelled) call.resume();
      });
    });
    call.on('end', () => call.end());
    // A cancelled call (the client went away) is answered no more.
    call.on('cancelled', () => {
      cancelled = true;
    });
  }

  /**
   * `definition` whose request decoder never throws (grpc-js would answer its own opaque status): a request over
   * MAX_REQUEST_BYTES, or bytes that are no ServerReflectionRequest, become a marker that ends the stream with
   * INVALID_ARGUMENT saying why.
   */
  function boundedRequests(definition: ServiceDefinition): ServiceDefinition {
    const method = definition.ServerReflectionInfo!;
    const requestDeserialize = (bytes: Buffer): unknown => {
      if (bytes.length > MAX_REQUEST_BYTES)
        return { [REFUSED]: `a reflection request is at most ${MAX_REQUEST_BYTES} bytes` } satisfies Refused;
      try {
        return method.requestDeserialize(bytes);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return { [REFUSED]: `the request is not a ServerReflectionRequest: ${reason.slice(0, 200)}` } satisfies Refused;
      }
    };
    return { ServerReflectionInfo: { ...method, requestDeserialize } };
  }

  return {
    addToServer(server) {
      for (const serviceName of REFLECTION_SERVICES) {
        const definition = definitions[serviceName] as ServiceDefinition | undefined;
        if (!definition) throw new Error(`server reflection: ${serviceName} is not in the descriptor set`);
        server.addService(boundedRequests(definition), { ServerReflectionInfo: serve });
      }
    },
  };
}
