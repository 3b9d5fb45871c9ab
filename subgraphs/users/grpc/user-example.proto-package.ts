import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadFileDescriptorSetFromBuffer, loadSync, type Options, type PackageDefinition } from '@grpc/proto-loader';

/** The repository's `proto/` folder, the import root of every .proto file (found from this file, not the working directory). */
export const PROTO_ROOT = fileURLToPath(new URL('../../../proto/', import.meta.url));

/** Area A's contract, relative to PROTO_ROOT. */
export const USER_EXAMPLE_PROTO = 'api/serverNameExample/v1/userExample.proto';

/**
 * The FileDescriptorSet of every file under proto/ with its imports, built by buf and committed (`npm run proto:build`;
 * `npm run check:proto` fails when it is not what proto/ gives). Server reflection serves its files as they are.
 */
export const DESCRIPTOR_SET_PATH = `${PROTO_ROOT}descriptor-set.binpb`;

/** The committed descriptor set's bytes (read at start-up; a missing file stops the process). */
export function loadDescriptorSet(): Buffer {
  return readFileSync(DESCRIPTOR_SET_PATH);
}

/** Fully qualified name of the gRPC service, as reflection and the health service report it. */
export const USER_EXAMPLE_SERVICE_NAME = 'api.serverNameExample.v1.userExample';

/**
 * How messages become JavaScript objects. `longs: String` keeps every 64-bit integer as decimal text (never a JS number);
 * `enums: String` gives enum names (an undefined numeric value stays a number); `defaults: true` fills absent singular
 * fields with their zero value, except proto3 `optional` fields, which stay absent when not sent — that absence is what
 * UpdateByID reads as "leave unchanged". `oneofs: true` also adds a virtual `_<field>` key naming each present optional
 * field; the handlers ignore it.
 */
export const PROTO_LOADER_OPTIONS: Options = Object.freeze({
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_ROOT],
});

/**
 * Parses userExample.proto and its imports into a gRPC package definition: what a client built from proto/ uses (the
 * tests' clients do). The server loads the committed descriptor set instead (packageDefinitionFromDescriptorSet).
 */
export function loadUserExamplePackageDefinition(): PackageDefinition {
  return loadSync(USER_EXAMPLE_PROTO, PROTO_LOADER_OPTIONS);
}

/**
 * The gRPC package definition of every service in a descriptor set, with the same loader options: the server's handlers
 * and its reflection read one source, the descriptor set buf built. The codecs are byte for byte those of
 * loadUserExamplePackageDefinition (test/unit/user-example.descriptor-set.test.ts holds them to it).
 */
export function packageDefinitionFromDescriptorSet(descriptorSet: Buffer): PackageDefinition {
  const { includeDirs: _notUsed, ...options } = PROTO_LOADER_OPTIONS;
  return loadFileDescriptorSetFromBuffer(descriptorSet, options);
}
