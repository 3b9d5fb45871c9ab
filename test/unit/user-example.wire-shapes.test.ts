import { readFileSync } from 'node:fs';
import { buildASTSchema, isEnumType, isInputObjectType, isListType, isNonNullType, isObjectType, type GraphQLType } from 'graphql';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { GENDER_TYPES } from '../../contracts/user-records.ts';
import { userExampleDefinitions } from '../../rest-adapter/docs/user-example.swagger.ts';
import type { FieldType, MessageSpec } from '../../rest-adapter/user-records/proto-json.ts';
import { USER_EXAMPLE_REQUEST_MESSAGES } from '../../rest-adapter/user-records/user-example.routes.ts';
import { PROTO_ROOT, USER_EXAMPLE_PROTO } from '../../subgraphs/users/grpc/user-example.proto-package.ts';
import { decodeCreateRequest, decodeUpdatePatch, encodeUserExample } from '../../subgraphs/users/grpc/user-example.grpc-codec.ts';
import { usersTypeDefs } from '../../subgraphs/users/users-subgraph.ts';

/**
 * Area A's message shapes are written in five places: the proto (the source), the REST decoding tables, the gRPC codec,
 * the GraphQL SDL and the Swagger document. This file holds the other four to the proto, field by field and type by
 * type, so that a field added, renamed or retyped in one place and not the others fails here. Deliberate differences
 * are listed where they are allowed, each with its reason.
 */

const root = new protobuf.Root();
root.resolvePath = (_origin, target) => (target.startsWith(PROTO_ROOT) ? target : `${PROTO_ROOT}${target}`);
root.loadSync(USER_EXAMPLE_PROTO, { keepCase: true });
root.resolveAll();
const message = (name: string) => root.lookupType(name);

/** camelCase, as protojson names a field (login_at → loginAt). */
const jsonName = (field: protobuf.Field) => field.name.replace(/_([a-z])/g, (_m, letter: string) => letter.toUpperCase());

/** The proto type of a field, in the REST table's words. */
function protoFieldType(field: protobuf.Field): string {
  const base =
    field.resolvedType instanceof protobuf.Enum
      ? 'enum'
      : field.resolvedType instanceof protobuf.Type
        ? `message ${field.resolvedType.fullName.slice(1)}`
        : field.type;
  return field.repeated ? `repeated ${base}` : base;
}

function specFieldType(type: FieldType): string {
  if (typeof type === 'string') return type;
  if ('enum' in type) return 'enum';
  if ('message' in type) return `message ${type.message.name}`;
  return `repeated ${specFieldType(type.repeated)}`;
}

describe('Area A message shapes: the proto against the REST tables, the gRPC codec, the SDL and Swagger', () => {
  it('the gender enum of contracts/ is the proto GenderType', () => {
    expect(GENDER_TYPES).toEqual(root.lookupEnum('api.serverNameExample.v1.GenderType').values);
  });

  it.each(USER_EXAMPLE_REQUEST_MESSAGES.map((spec) => [spec.name, spec] as const))(
    'REST decodes %s field for field as the proto declares it',
    (name, spec: MessageSpec) => {
      const proto = message(name);
      const fromProto = Object.fromEntries(proto.fieldsArray.map((field) => [jsonName(field), protoFieldType(field)]));
      const fromSpec = Object.fromEntries(Object.entries(spec.fields).map(([field, { type }]) => [field, specFieldType(type)]));
      // Column.value is a string in the proto; the reference's HTTP side takes any JSON scalar there and keeps its text.
      if (name === 'api.types.Column') fromSpec.value = 'string';
      expect(fromSpec).toEqual(fromProto);
      // Every field whose proto name differs from its JSON name is accepted under both.
      for (const field of proto.fieldsArray) {
        if (field.name !== jsonName(field)) expect(spec.fields[jsonName(field)]?.protoName).toBe(field.name);
      }
    },
  );

  const schema = buildASTSchema(usersTypeDefs, { assumeValidSDL: true });
  const graphqlType = (type: GraphQLType): string => {
    const inner = isNonNullType(type) ? type.ofType : type;
    if (isListType(inner)) return `repeated ${graphqlType(inner.ofType)}`;
    if (isEnumType(inner)) return 'enum';
    return { String: 'string', Int: 'int32', Int64: 'int64', UInt64: 'uint64' }[inner.name] ?? `message ${inner.name}`;
  };
  // Message types are named differently on each side (api.types.Column / ListColumnInput): compared as "message".
  const protoAsGraphql = (field: protobuf.Field) => protoFieldType(field).replace(/message .*/, 'message');
  const sdlFields = (name: string) => {
    const type = schema.getType(name);
    if (!isInputObjectType(type) && !isObjectType(type)) throw new Error(`${name} is not an object or input type`);
    return Object.fromEntries(
      Object.values(type.getFields()).map((field) => [field.name, graphqlType(field.type).replace(/message .*/, 'message')]),
    );
  };

  it.each([
    // [SDL type, proto message, fields the SDL adds or leaves out, and why]
    ['CreateUserExampleInput', 'api.serverNameExample.v1.CreateUserExampleRequest', { genderNumber: 'int32' }, []],
    ['UpdateUserExampleInput', 'api.serverNameExample.v1.UpdateUserExampleByIDRequest', { genderNumber: 'int32' }, ['id']],
    ['UserExample', 'api.serverNameExample.v1.UserExample', {}, []],
    ['ListParamsInput', 'api.types.Params', {}, []],
    ['ListColumnInput', 'api.types.Column', {}, []],
  ] as const)('the SDL type %s has the fields and types of %s', (sdlName, protoName, sdlOnly, protoOnly) => {
    // genderNumber: the REST adapter's way to pass a gender number the enum does not name (the service validates it);
    // id: the update's id is an argument of the mutation, not a field of its input.
    const expected = Object.fromEntries(
      message(protoName)
        .fieldsArray.filter((field) => !(protoOnly as readonly string[]).includes(field.name))
        .map((field) => [jsonName(field), protoAsGraphql(field)]),
    );
    expect(sdlFields(sdlName)).toEqual({ ...expected, ...sdlOnly });
  });

  it.each([
    ['v1CreateUserExampleRequest', 'api.serverNameExample.v1.CreateUserExampleRequest', []],
    // protoc-gen-openapiv2 names the body of an RPC whose path binds `id` `<Service><Rpc>Body`: the message without id.
    ['userExampleUpdateByIDBody', 'api.serverNameExample.v1.UpdateUserExampleByIDRequest', ['id']],
    ['v1UserExample', 'api.serverNameExample.v1.UserExample', []],
    ['v1ListUserExampleRequest', 'api.serverNameExample.v1.ListUserExampleRequest', []],
    ['v1ListUserExampleReply', 'api.serverNameExample.v1.ListUserExampleReply', []],
    ['v1CreateUserExampleReply', 'api.serverNameExample.v1.CreateUserExampleReply', []],
    ['typesParams', 'api.types.Params', []],
    ['typesColumn', 'api.types.Column', []],
  ] as const)('the Swagger definition %s has the properties of %s', (definition, protoName, protoOnly) => {
    const properties = (userExampleDefinitions()[definition] as { properties: Record<string, unknown> }).properties;
    const expected = message(protoName)
      .fieldsArray.filter((field) => !(protoOnly as readonly string[]).includes(field.name))
      .map(jsonName)
      .sort();
    expect(Object.keys(properties).sort()).toEqual(expected);
  });

  it('the gRPC codec reads every field of Create and UpdateByID and writes every field of UserExample', () => {
    const wire = (name: string) =>
      Object.fromEntries(
        message(name).fieldsArray.map((field) => [
          field.name,
          field.resolvedType instanceof protobuf.Enum ? 'FEMALE' : field.type === 'string' ? 'x' : field.type.endsWith('64') ? '7' : 7,
        ]),
      );
    const created = decodeCreateRequest(wire('api.serverNameExample.v1.CreateUserExampleRequest') as never);
    expect(Object.keys(created).sort()).toEqual(
      message('api.serverNameExample.v1.CreateUserExampleRequest').fieldsArray.map(jsonName).sort(),
    );
    const patch = decodeUpdatePatch(wire('api.serverNameExample.v1.UpdateUserExampleByIDRequest') as never);
    const updatable = message('api.serverNameExample.v1.UpdateUserExampleByIDRequest').fieldsArray.filter((field) => field.name !== 'id');
    expect(Object.keys(patch).sort()).toEqual(updatable.map(jsonName).sort());
    const record = encodeUserExample({
      id: '1',
      name: 'n',
      email: 'e',
      phone: 'p',
      avatar: 'a',
      age: 1,
      gender: 2,
      status: 1,
      loginAt: '0',
      createdAt: new Date(0),
      updatedAt: new Date(0),
    } as never);
    expect(Object.keys(record).sort()).toEqual(
      message('api.serverNameExample.v1.UserExample')
        .fieldsArray.map((field) => field.name)
        .sort(),
    );
  });

  it('reads the proto it is checking against (not an empty stand-in)', () => {
    expect(readFileSync(`${PROTO_ROOT}${USER_EXAMPLE_PROTO}`, 'utf8')).toContain('message CreateUserExampleRequest');
    expect(message('api.serverNameExample.v1.UserExample').fieldsArray.length).toBeGreaterThan(10);
  });
});
