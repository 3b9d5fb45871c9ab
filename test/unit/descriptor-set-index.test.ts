import protobuf from 'protobufjs';
import descriptorTypes from 'protobufjs/ext/descriptor/index.js';
import { describe, expect, it } from 'vitest';
import { indexDescriptorSet } from '../../subgraphs/users/grpc/descriptor-set-index.ts';
import { loadDescriptorSet } from '../../subgraphs/users/grpc/user-example.proto-package.ts';

/** The index reflection answers from, over the committed set and over sets that are not well formed. */

const committed = loadDescriptorSet();
const index = indexDescriptorSet(committed);

/** The committed set's files (as bytes) in order. */
function files(): Uint8Array[] {
  const set = descriptorTypes.FileDescriptorSet.decode(committed) as unknown as { file: unknown[] };
  // Re-split from the raw bytes so that nothing is re-encoded.
  const reader = protobuf.Reader.create(committed);
  const out: Uint8Array[] = [];
  while (reader.pos < reader.len) {
    reader.uint32();
    const length = reader.uint32();
    out.push(committed.subarray(reader.pos, reader.pos + length));
    reader.skip(length);
  }
  expect(out).toHaveLength(set.file.length);
  return out;
}

function setOf(parts: readonly Uint8Array[]): Uint8Array {
  const writer = protobuf.Writer.create();
  for (const part of parts) writer.uint32((1 << 3) | 2).bytes(part);
  return writer.finish();
}

describe('indexDescriptorSet', () => {
  it('holds every file of proto/ with its imports, in dependency order', () => {
    expect(index.fileNames).toEqual([
      'api/types/types.proto',
      'google/api/http.proto',
      'google/protobuf/descriptor.proto',
      'google/api/annotations.proto',
      'validate/validate.proto',
      'api/serverNameExample/v1/userExample.proto',
      'google/rpc/error_details.proto',
      'google/protobuf/any.proto',
      'google/rpc/status.proto',
      'grpc/health/v1/health.proto',
      'grpc/reflection/v1/reflection.proto',
      'grpc/reflection/v1alpha/reflection.proto',
    ]);
    expect(index.dependencies('google/api/annotations.proto')).toEqual(['google/api/http.proto', 'google/protobuf/descriptor.proto']);
  });

  it('finds each kind of symbol by its fully-qualified name', () => {
    const found = (symbol: string) => index.fileContainingSymbol(symbol);
    expect(found('api.serverNameExample.v1.userExample')).toBe('api/serverNameExample/v1/userExample.proto');
    expect(found('api.serverNameExample.v1.userExample.List')).toBe('api/serverNameExample/v1/userExample.proto');
    expect(found('api.serverNameExample.v1.UpdateUserExampleByIDRequest.login_at')).toBe('api/serverNameExample/v1/userExample.proto');
    expect(found('api.serverNameExample.v1.UpdateUserExampleByIDRequest._login_at')).toBe('api/serverNameExample/v1/userExample.proto');
    expect(found('api.serverNameExample.v1.GenderType')).toBe('api/serverNameExample/v1/userExample.proto');
    expect(found('api.serverNameExample.v1.MALE')).toBe('api/serverNameExample/v1/userExample.proto');
    expect(found('api.types.Params')).toBe('api/types/types.proto');
    expect(found('google.rpc.BadRequest.FieldViolation')).toBe('google/rpc/error_details.proto');
    expect(found('google.protobuf.FieldDescriptorProto.Type')).toBe('google/protobuf/descriptor.proto');
    expect(found('google.api.http')).toBe('google/api/annotations.proto');
    expect(found('validate.rules')).toBe('validate/validate.proto');
    expect(found('grpc.health.v1.Health.Watch')).toBe('grpc/health/v1/health.proto');
    expect(found('.api.types.Params')).toBeUndefined();
    expect(found('api.types')).toBeUndefined();
    expect(found('__proto__')).toBeUndefined();
    expect(index.file('__proto__')).toBeUndefined();
  });

  it('knows the extensions of each options message', () => {
    expect(index.extensionNumbers('google.protobuf.MethodOptions')).toEqual([72295728]);
    expect(index.extensionNumbers('google.protobuf.OneofOptions')).toEqual([1071]);
    expect(index.extensionNumbers('google.protobuf.FileOptions')).toEqual([]);
    expect(index.extensionNumbers('no.Such')).toBeUndefined();
    expect(index.fileContainingExtension('google.protobuf.FieldOptions', 1071)).toBe('validate/validate.proto');
    expect(index.fileContainingExtension('google.protobuf.FieldOptions', 1072)).toBeUndefined();
  });

  it('refuses a set that lacks an import, or lists a file twice', () => {
    const all = files();
    const withoutDescriptor = all.filter((_bytes, position) => index.fileNames[position] !== 'google/protobuf/descriptor.proto');
    expect(() => indexDescriptorSet(setOf(withoutDescriptor))).toThrow(
      'descriptor set: google/api/annotations.proto imports google/protobuf/descriptor.proto, which the set does not hold (build it with its imports)',
    );
    expect(() => indexDescriptorSet(setOf([...all, all[0]!]))).toThrow(
      'descriptor set: file "api/types/types.proto" is missing a name or listed twice',
    );
  });
});
