import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import descriptorTypes from 'protobufjs/ext/descriptor/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexDescriptorSet } from '../../../subgraphs/users/grpc/descriptor-set-index.ts';
import { MAX_NAME_CHARS, MAX_REQUEST_BYTES, MAX_REQUESTS_PER_STREAM } from '../../../subgraphs/users/grpc/server-reflection.ts';
import { DESCRIPTOR_SET_PATH, USER_EXAMPLE_SERVICE_NAME } from '../../../subgraphs/users/grpc/user-example.proto-package.ts';
import { createGrpcReflectionClient, type GrpcReflectionClient, type ReflectionResponse } from '../../support/grpc-reflection-client.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { MISSING_TOKEN, uniqueEmail } from '../../support/user-example-fixtures.ts';

/**
 * gRPC server reflection as the tools people use read it: buf curl (node_modules/.bin/buf, the same client code as
 * `buf curl` anywhere) lists, and calls Area A's service by reflection alone, with no proto file; what reflection serves is
 * fetched with a plain grpc-js reflection client and read back by buf itself, which resolves every import, option and
 * proto3 `optional` — so a descriptor that tools cannot use fails here.
 */

const BUF = fileURLToPath(new URL('../../../node_modules/.bin/buf', import.meta.url));
const USER_EXAMPLE_FILE = 'api/serverNameExample/v1/userExample.proto';

interface BufResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs buf without blocking the event loop (the servers answering it live in this process). */
function runBuf(args: readonly string[]): Promise<BufResult> {
  return new Promise((resolve, reject) => {
    execFile(BUF, args, { encoding: 'utf8', timeout: 30_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') {
        reject(error);
        return;
      }
      resolve({ exitCode: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });
}

let system: TestSystem;
let reflection: GrpcReflectionClient;
let scratch: string;

/** `buf curl` over gRPC (HTTP/2 without TLS), its schema from server reflection only. */
function bufCurl(args: readonly string[]): Promise<BufResult> {
  return runBuf(['curl', '--protocol', 'grpc', '--http2-prior-knowledge', ...args]);
}

const serverUrl = () => `http://${system.grpcAddress}`;
const methodUrl = (method: string) => `${serverUrl()}/${USER_EXAMPLE_SERVICE_NAME}/${method}`;

/** Calls one userExample method by reflection alone, with every field in the reply (protojson with EmitUnpopulated). */
async function callByReflection(method: string, request: object, token?: string): Promise<BufResult> {
  const headers = token === undefined ? [] : ['-H', `authorization: Bearer ${token}`];
  return bufCurl(['--emit-defaults', ...headers, '-d', JSON.stringify(request), methodUrl(method)]);
}

function fileNames(response: ReflectionResponse): string[] {
  return response.file_descriptor_response!.file_descriptor_proto.map((bytes) => {
    const file = descriptorTypes.FileDescriptorProto.decode(bytes) as unknown as { name: string };
    return file.name;
  });
}

/** `files` as a serialized google.protobuf.FileDescriptorSet (`repeated FileDescriptorProto file = 1`). */
function fileDescriptorSet(files: readonly Uint8Array[]): Uint8Array {
  const writer = protobuf.Writer.create();
  for (const file of files) writer.uint32((1 << 3) | 2).bytes(file);
  return writer.finish();
}

interface JsonFile {
  name: string;
  package: string;
  dependency?: string[];
  messageType: { name: string; field: Record<string, unknown>[]; oneofDecl?: { name: string }[] }[];
  service?: { name: string; method: Record<string, unknown>[] }[];
}

/**
 * What a tool learns about `symbol`: the files reflection sends for it, fetched as grpcurl and buf curl do (the file, then
 * any import not yet received, by file name, on the same stream), then read by buf as a FileDescriptorSet — which fails
 * unless every import is there — and returned as buf's JSON form of each file (options and extensions decoded).
 */
async function describeByReflection(symbol: string): Promise<Map<string, JsonFile>> {
  const received = new Map<string, Uint8Array>();
  const { responses } = await reflection.exchange([{ file_containing_symbol: symbol }]);
  const queue = [...responses[0]!.file_descriptor_response!.file_descriptor_proto];
  while (queue.length > 0) {
    const bytes = queue.shift()!;
    const file = descriptorTypes.FileDescriptorProto.decode(bytes) as unknown as { name: string; dependency: string[] };
    received.set(file.name, bytes);
    for (const dependency of file.dependency) {
      if (received.has(dependency) || queue.length > 100) continue;
      queue.push(...(await reflection.ask({ file_by_filename: dependency })).file_descriptor_response!.file_descriptor_proto);
    }
  }
  const path = join(scratch, `${symbol}.binpb`);
  writeFileSync(path, fileDescriptorSet([...received.values()]));
  const built = await runBuf(['build', path, '--exclude-source-info', '-o', '-#format=json']);
  expect(built.stderr).toBe('');
  const set = JSON.parse(built.stdout) as { file: JsonFile[] };
  return new Map(set.file.map((file) => [file.name, file]));
}

beforeAll(async () => {
  system = await startTestSystem();
  reflection = createGrpcReflectionClient(system.grpcAddress, 'v1');
  scratch = mkdtempSync(join(tmpdir(), 'tributary-reflection-'));
});

afterAll(async () => {
  reflection?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  await system?.close();
});

describe('buf curl by server reflection, without proto files', () => {
  it('lists userExample, the health service and both reflection services', async () => {
    const listed = await bufCurl(['--list-services', serverUrl()]);
    expect(listed).toEqual({
      exitCode: 0,
      stdout: [
        'api.serverNameExample.v1.userExample',
        'grpc.health.v1.Health',
        'grpc.reflection.v1.ServerReflection',
        'grpc.reflection.v1alpha.ServerReflection',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('lists every method, through grpc.reflection.v1 and through v1alpha', async () => {
    const methods = [
      'api.serverNameExample.v1.userExample/Create',
      'api.serverNameExample.v1.userExample/DeleteByID',
      'api.serverNameExample.v1.userExample/GetByID',
      'api.serverNameExample.v1.userExample/List',
      'api.serverNameExample.v1.userExample/UpdateByID',
      'grpc.health.v1.Health/Check',
      'grpc.health.v1.Health/List',
      'grpc.health.v1.Health/Watch',
      'grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
      'grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo',
      '',
    ].join('\n');
    for (const protocol of ['grpc-v1', 'grpc-v1alpha']) {
      const listed = await bufCurl(['--reflect-protocol', protocol, '--list-methods', serverUrl()]);
      expect(listed, protocol).toEqual({ exitCode: 0, stdout: methods, stderr: '' });
    }
  });

  it('creates, reads and lists records by reflection alone with a Bearer token, answering what REST answers', async () => {
    const email = uniqueEmail('reflection');
    const token = system.adminToken();
    const create = {
      name: 'Ada Lovelace',
      email,
      password: 'analytical-engine',
      phone: '13800138000',
      avatar: 'https://example.com/ada.png',
      age: 36,
      gender: 'FEMALE',
    };
    const created = await callByReflection('Create', create, token);
    expect(created.stderr).toBe('');
    expect(created.exitCode).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };
    expect(JSON.parse(created.stdout)).toEqual({ id: expect.stringMatching(/^[1-9]\d*$/) });

    // The same record through the REST door, to pin the timestamps the reflection reply must carry exactly.
    const rest = await fetch(`${system.restUrl}/api/v1/userExample/${id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(rest.status).toBe(200);
    const { userExample: stored } = (await rest.json()) as { userExample: { createdAt: string; updatedAt: string } };
    const record = {
      id,
      name: 'Ada Lovelace',
      email,
      phone: '13800138000',
      avatar: 'https://example.com/ada.png',
      age: 36,
      gender: 'FEMALE',
      status: 0,
      loginAt: '0',
      createdAt: stored.createdAt,
      updatedAt: stored.updatedAt,
    };
    expect(record.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const read = await callByReflection('GetByID', { id }, token);
    expect(read.exitCode).toBe(0);
    expect(JSON.parse(read.stdout)).toEqual({ userExample: record });

    const listed = await callByReflection(
      'List',
      { params: { page: 0, limit: 10, columns: [{ name: 'email', exp: 'eq', value: email }] } },
      token,
    );
    expect(listed.exitCode).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual({ total: '1', userExamples: [record] });
  });

  it('calls grpc.health.v1.Health/Check by reflection', async () => {
    const checked = await bufCurl([
      '-d',
      JSON.stringify({ service: USER_EXAMPLE_SERVICE_NAME }),
      `${serverUrl()}/grpc.health.v1.Health/Check`,
    ]);
    expect(checked.exitCode).toBe(0);
    expect(JSON.parse(checked.stdout)).toEqual({ status: 'SERVING' });
  });

  it("answers a call without a token with the service's own UNAUTHENTICATED status", async () => {
    const refused = await callByReflection('GetByID', { id: '1' });
    expect(refused.stdout).toBe('');
    expect(JSON.parse(refused.stderr)).toEqual({ code: 'unauthenticated', message: MISSING_TOKEN });
    expect(refused.exitCode).not.toBe(0);
  });
});

describe('the descriptors reflection serves', () => {
  it('describes userExample with its real file, imports, fully-qualified types and google.api.http options', async () => {
    const files = await describeByReflection(USER_EXAMPLE_SERVICE_NAME);
    expect([...files.keys()].sort()).toEqual([
      'api/serverNameExample/v1/userExample.proto',
      'api/types/types.proto',
      'google/api/annotations.proto',
      'google/api/http.proto',
      'google/protobuf/descriptor.proto',
      'validate/validate.proto',
    ]);
    const file = files.get(USER_EXAMPLE_FILE)!;
    expect(file.package).toBe('api.serverNameExample.v1');
    expect(file.dependency).toEqual(['api/types/types.proto', 'google/api/annotations.proto', 'validate/validate.proto']);
    const http = (rule: Record<string, string>) => ({ '[google.api.http]': rule });
    const method = (name: string, request: string, reply: string, rule: Record<string, string>) => ({
      name,
      inputType: `.api.serverNameExample.v1.${request}`,
      outputType: `.api.serverNameExample.v1.${reply}`,
      options: http(rule),
    });
    expect(file.service).toEqual([
      {
        name: 'userExample',
        method: [
          method('Create', 'CreateUserExampleRequest', 'CreateUserExampleReply', { post: '/api/v1/userExample', body: '*' }),
          method('DeleteByID', 'DeleteUserExampleByIDRequest', 'DeleteUserExampleByIDReply', { delete: '/api/v1/userExample/{id}' }),
          method('UpdateByID', 'UpdateUserExampleByIDRequest', 'UpdateUserExampleByIDReply', {
            put: '/api/v1/userExample/{id}',
            body: '*',
          }),
          method('GetByID', 'GetUserExampleByIDRequest', 'GetUserExampleByIDReply', { get: '/api/v1/userExample/{id}' }),
          method('List', 'ListUserExampleRequest', 'ListUserExampleReply', { post: '/api/v1/userExample/list', body: '*' }),
        ],
      },
    ]);
  });

  it('describes ListUserExampleRequest: api.types.Params resolved in its own file, with its validate rule', async () => {
    const files = await describeByReflection('api.serverNameExample.v1.ListUserExampleRequest');
    const list = files.get(USER_EXAMPLE_FILE)!.messageType.find((message) => message.name === 'ListUserExampleRequest');
    expect(list).toEqual({
      name: 'ListUserExampleRequest',
      field: [
        {
          name: 'params',
          number: 1,
          label: 'LABEL_OPTIONAL',
          type: 'TYPE_MESSAGE',
          typeName: '.api.types.Params',
          jsonName: 'params',
          options: { '[validate.rules]': { message: { required: true } } },
        },
      ],
    });
    const field = (name: string, number: number, type: string, extra: object = {}) => ({
      name,
      number,
      label: 'LABEL_OPTIONAL',
      type,
      jsonName: name,
      ...extra,
    });
    expect(files.get('api/types/types.proto')!.messageType.find((message) => message.name === 'Params')).toEqual({
      name: 'Params',
      field: [
        field('page', 1, 'TYPE_INT32'),
        field('limit', 2, 'TYPE_INT32'),
        field('sort', 3, 'TYPE_STRING'),
        field('columns', 4, 'TYPE_MESSAGE', { label: 'LABEL_REPEATED', typeName: '.api.types.Column' }),
      ],
    });
  });

  it('describes UpdateUserExampleByIDRequest with its proto3 optional fields as such', async () => {
    const files = await describeByReflection('api.serverNameExample.v1.UpdateUserExampleByIDRequest');
    const update = files.get(USER_EXAMPLE_FILE)!.messageType.find((message) => message.name === 'UpdateUserExampleByIDRequest')!;
    const optional = ['name', 'email', 'password', 'phone', 'avatar', 'age', 'gender', 'status', 'login_at'];
    expect(update.oneofDecl).toEqual(optional.map((name) => ({ name: `_${name}` })));
    expect(update.field[0]).toEqual({
      name: 'id',
      number: 1,
      label: 'LABEL_OPTIONAL',
      type: 'TYPE_UINT64',
      jsonName: 'id',
      options: { '[validate.rules]': { uint64: { gte: '1' } } },
    });
    expect(update.field.slice(1).map(({ name, oneofIndex, proto3Optional }) => ({ name, oneofIndex, proto3Optional }))).toEqual(
      optional.map((name, oneofIndex) => ({ name, oneofIndex, proto3Optional: true })),
    );
    expect(update.field.find((entry) => entry.name === 'gender')).toMatchObject({ typeName: '.api.serverNameExample.v1.GenderType' });
  });

  it('sends the file of userExample with its imports (grpc-js): named dependencies, proto3_optional kept, bytes as buf built them', async () => {
    const response = await reflection.ask({ file_containing_symbol: USER_EXAMPLE_SERVICE_NAME });
    // The file asked for first, then its imports breadth-first, each once.
    expect(fileNames(response)).toEqual([
      USER_EXAMPLE_FILE,
      'api/types/types.proto',
      'google/api/annotations.proto',
      'validate/validate.proto',
      'google/api/http.proto',
      'google/protobuf/descriptor.proto',
    ]);
    const [bytes] = response.file_descriptor_response!.file_descriptor_proto;
    const file = descriptorTypes.FileDescriptorProto.decode(bytes!) as unknown as {
      name: string;
      dependency: string[];
      messageType: { name: string; field: { name: string; proto3Optional?: boolean; typeName?: string }[] }[];
    };
    expect(file.name).toBe(USER_EXAMPLE_FILE);
    expect(file.dependency).toEqual(['api/types/types.proto', 'google/api/annotations.proto', 'validate/validate.proto']);
    const update = file.messageType.find((message) => message.name === 'UpdateUserExampleByIDRequest')!;
    expect(update.field.filter((field) => field.proto3Optional === true).map((field) => field.name)).toEqual([
      'name',
      'email',
      'password',
      'phone',
      'avatar',
      'age',
      'gender',
      'status',
      'login_at',
    ]);
    // Exactly the bytes of the committed descriptor set, which buf built from proto/.
    const committed = indexDescriptorSet(readFileSync(DESCRIPTOR_SET_PATH));
    expect(Buffer.from(bytes!).equals(Buffer.from(committed.file(USER_EXAMPLE_FILE)!))).toBe(true);
  });

  it('answers v1alpha with the same files', async () => {
    const alpha = createGrpcReflectionClient(system.grpcAddress, 'v1alpha');
    try {
      const [v1, v1alpha] = await Promise.all([
        reflection.ask({ file_containing_symbol: 'api.types.Params' }),
        alpha.ask({ file_containing_symbol: 'api.types.Params' }),
      ]);
      expect(fileNames(v1alpha)).toEqual(['api/types/types.proto']);
      expect(v1alpha.file_descriptor_response).toEqual(v1.file_descriptor_response);
      expect((await alpha.ask({ list_services: '' })).list_services_response!.service.map((service) => service.name)).toContain(
        'grpc.reflection.v1alpha.ServerReflection',
      );
    } finally {
      alpha.close();
    }
  });

  it('finds nested symbols, enum values, methods, extensions and extension numbers', async () => {
    const { responses, status } = await reflection.exchange([
      { file_containing_symbol: 'api.serverNameExample.v1.userExample.GetByID' },
      { file_containing_symbol: 'api.serverNameExample.v1.FEMALE' },
      { file_containing_symbol: 'google.rpc.BadRequest.FieldViolation' },
      { file_containing_symbol: 'validate.rules' },
      { file_containing_extension: { containing_type: 'google.protobuf.MethodOptions', extension_number: 72295728 } },
      { all_extension_numbers_of_type: 'google.protobuf.MessageOptions' },
      { all_extension_numbers_of_type: 'google.protobuf.FieldOptions' },
      { file_by_filename: 'grpc/health/v1/health.proto' },
    ]);
    expect(status.code).toBe(grpc.status.OK);
    // Each file once per stream: the file asked for always, its imports only the first time.
    expect(responses.map((response) => response.file_descriptor_response && fileNames(response))).toEqual([
      [
        USER_EXAMPLE_FILE,
        'api/types/types.proto',
        'google/api/annotations.proto',
        'validate/validate.proto',
        'google/api/http.proto',
        'google/protobuf/descriptor.proto',
      ],
      [USER_EXAMPLE_FILE],
      ['google/rpc/error_details.proto'],
      ['validate/validate.proto'],
      ['google/api/annotations.proto'],
      undefined,
      undefined,
      ['grpc/health/v1/health.proto'],
    ]);
    expect(responses[5]!.all_extension_numbers_response).toEqual({
      base_type_name: 'google.protobuf.MessageOptions',
      extension_number: [1071, 1072],
    });
    expect(responses[6]!.all_extension_numbers_response).toEqual({
      base_type_name: 'google.protobuf.FieldOptions',
      extension_number: [1071],
    });
  });
});

describe('reflection under hostile input', () => {
  const errorOf = (response: ReflectionResponse) => response.error_response;

  it('answers what the set does not hold with NOT_FOUND in-band, and the stream goes on', async () => {
    const { responses, status } = await reflection.exchange([
      { file_containing_symbol: 'api.serverNameExample.v1.Nope' },
      { file_by_filename: '../../etc/passwd' },
      { file_containing_extension: { containing_type: 'google.protobuf.MethodOptions', extension_number: 1 } },
      { all_extension_numbers_of_type: 'no.Such' },
      { list_services: '' },
    ]);
    expect(status.code).toBe(grpc.status.OK);
    expect(responses.slice(0, 4).map(errorOf)).toEqual([
      { error_code: grpc.status.NOT_FOUND, error_message: 'symbol "api.serverNameExample.v1.Nope" not found' },
      { error_code: grpc.status.NOT_FOUND, error_message: 'file "../../etc/passwd" not found' },
      { error_code: grpc.status.NOT_FOUND, error_message: 'extension 1 of "google.protobuf.MethodOptions" not found' },
      { error_code: grpc.status.NOT_FOUND, error_message: 'type "no.Such" not found' },
    ]);
    expect(responses[4]!.list_services_response!.service).toHaveLength(4);
  });

  it('refuses a name longer than any the set holds, and a request that asks nothing, with INVALID_ARGUMENT in-band', async () => {
    const { responses, status } = await reflection.exchange([
      { file_containing_symbol: 'a'.repeat(MAX_NAME_CHARS + 1) },
      { file_containing_extension: { containing_type: 'b'.repeat(MAX_NAME_CHARS + 1), extension_number: 1 } },
      { host: 'localhost' },
    ]);
    expect(status.code).toBe(grpc.status.OK);
    expect(responses.map(errorOf)).toEqual([
      { error_code: grpc.status.INVALID_ARGUMENT, error_message: `a name is at most ${MAX_NAME_CHARS} characters` },
      { error_code: grpc.status.INVALID_ARGUMENT, error_message: `a name is at most ${MAX_NAME_CHARS} characters` },
      {
        error_code: grpc.status.INVALID_ARGUMENT,
        error_message: 'the request names no reflection request (file_by_filename, file_containing_symbol, …)',
      },
    ]);
    expect(responses[2]!.valid_host).toBe('localhost');
  });

  it(`ends a stream whose request is over ${MAX_REQUEST_BYTES} bytes with INVALID_ARGUMENT before decoding it; the next stream is served`, async () => {
    const { responses, status } = await reflection.exchange([
      { list_services: '' },
      { host: 'h'.repeat(MAX_REQUEST_BYTES), list_services: '' },
      { list_services: '' },
    ]);
    expect(responses).toHaveLength(1);
    expect(status).toEqual({
      code: grpc.status.INVALID_ARGUMENT,
      details: `a reflection request is at most ${MAX_REQUEST_BYTES} bytes`,
    });
    expect((await reflection.ask({ list_services: '' })).list_services_response!.service).toHaveLength(4);
  });

  it('ends a stream whose bytes are no ServerReflectionRequest with INVALID_ARGUMENT naming the problem', async () => {
    // A raw call whose message is one tag of wire type 7, which protobuf does not define.
    const status = await new Promise<grpc.StatusObject>((resolve) => {
      const client = new grpc.Client(system.grpcAddress, grpc.credentials.createInsecure());
      const call = client.makeBidiStreamRequest(
        '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
        (bytes: Buffer) => bytes,
        (bytes: Buffer) => bytes,
      );
      call.on('data', () => {});
      call.on('error', () => {});
      call.on('status', (received: grpc.StatusObject) => {
        client.close();
        resolve(received);
      });
      call.write(Buffer.from([0x0f]));
      call.end();
    });
    expect(status.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(status.details).toMatch(/^the request is not a ServerReflectionRequest: /);
  });

  it(`ends a stream past ${MAX_REQUESTS_PER_STREAM} requests with RESOURCE_EXHAUSTED; a new stream is served`, async () => {
    const requests = Array.from({ length: MAX_REQUESTS_PER_STREAM + 50 }, () => ({ file_containing_symbol: USER_EXAMPLE_SERVICE_NAME }));
    const { responses, status } = await reflection.exchange(requests);
    expect(status).toEqual({
      code: grpc.status.RESOURCE_EXHAUSTED,
      details: `a reflection stream answers at most ${MAX_REQUESTS_PER_STREAM} requests; open a new stream`,
    });
    expect(responses.length).toBe(MAX_REQUESTS_PER_STREAM);
    // Imports went out once: every later answer is the one file asked for.
    expect(responses.slice(1).every((response) => response.file_descriptor_response!.file_descriptor_proto.length === 1)).toBe(true);
    expect((await reflection.ask({ list_services: '' })).list_services_response!.service).toHaveLength(4);
  });
});
