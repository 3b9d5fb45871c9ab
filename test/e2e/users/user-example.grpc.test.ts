import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { service as healthService } from 'grpc-health-check';
import { sql } from 'kysely';
import protobuf from 'protobufjs';
import descriptorTypes from 'protobufjs/ext/descriptor/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenService } from '../../../lib/auth/auth.ts';
import { PROTO_LOADER_OPTIONS, PROTO_ROOT, USER_EXAMPLE_SERVICE_NAME } from '../../../subgraphs/users/grpc/user-example.proto-package.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';
import {
  BAD_REQUEST_TYPE,
  BAD_SIGNATURE,
  CREATE_REQUEST,
  DELETE_REQUEST,
  DUPLICATE_EMAIL,
  GET_REQUEST,
  INTERNAL_ERROR,
  LIST_REQUEST,
  LIST_RULE,
  MALFORMED_HEADER,
  MISSING_TOKEN,
  notFound,
  permissionDenied,
  RULE,
  TOKEN_EXPIRED,
  unsupportedExpType,
  UPDATE_REQUEST,
  violationMessage,
} from '../../support/user-example-errors.ts';
import { uniqueEmail } from '../../support/user-example-fixtures.ts';

/**
 * Front-door tests of Area A's gRPC service: a real grpc-js client built from proto/ with proto-loader talks to the
 * running system over HTTP/2, and error details are decoded from grpc-status-details-bin as any gRPC client would.
 */

// The client reads proto/ with the server's own loader options: 64-bit integers as strings, enums by name.
const LOADER_OPTIONS = PROTO_LOADER_OPTIONS;
const SERVICE_NAME = USER_EXAMPLE_SERVICE_NAME;

type Reply = Record<string, unknown>;
type Callback = (error: grpc.ServiceError | null, reply: Reply) => void;
type Call = (request: object, metadata: grpc.Metadata, callback: Callback) => void;

interface FieldViolation {
  field: string;
  description: string;
}

const rpcRoot = new protobuf.Root();
rpcRoot.resolvePath = (_origin, target) => join(PROTO_ROOT, target);
rpcRoot.loadSync(['google/rpc/status.proto', 'google/rpc/error_details.proto'], { keepCase: true });
const StatusType = rpcRoot.lookupType('google.rpc.Status');
const BadRequestType = rpcRoot.lookupType('google.rpc.BadRequest');

/** The google.rpc.Status a failed call carried in grpc-status-details-bin, with its BadRequest detail decoded. */
function statusDetails(error: grpc.ServiceError): {
  code: number;
  message: string;
  violations: FieldViolation[];
  typeUrls: string[];
} {
  const [bytes] = error.metadata.get('grpc-status-details-bin');
  if (!Buffer.isBuffer(bytes)) throw new Error('no grpc-status-details-bin trailer');
  const status = StatusType.toObject(StatusType.decode(bytes), { defaults: true }) as {
    code: number;
    message: string;
    details: { type_url: string; value: Uint8Array }[];
  };
  const badRequest = status.details.find((any) => any.type_url === BAD_REQUEST_TYPE);
  const decoded = badRequest
    ? (BadRequestType.toObject(BadRequestType.decode(badRequest.value), { defaults: true }) as {
        field_violations: FieldViolation[];
      })
    : { field_violations: [] };
  const violations = decoded.field_violations;
  return {
    code: status.code,
    message: status.message,
    violations: violations.map(({ field, description }) => ({ field, description })),
    typeUrls: status.details.map((any) => any.type_url),
  };
}

const VALID_CREATE = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  password: 'analytical-engine',
  phone: '13800138000',
  avatar: 'https://example.com/ada.png',
  age: 36,
  gender: 'FEMALE',
} as const;

let system: TestSystem;
let client: grpc.Client;

function metadataFor(token: string | undefined): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

/** Calls one RPC; `token: undefined` sends no credential. */
function call<T extends Reply = Reply>(method: string, request: object, token: string | undefined): Promise<T> {
  const rpc = (client as unknown as Record<string, Call>)[method]!.bind(client);
  return new Promise((resolve, reject) => {
    rpc(request, metadataFor(token), (error, reply) => (error ? reject(error) : resolve(reply as T)));
  });
}

/** Calls one RPC that must fail, and returns the error. */
async function callFailing(method: string, request: object, token: string | undefined): Promise<grpc.ServiceError> {
  try {
    await call(method, request, token);
  } catch (error) {
    return error as grpc.ServiceError;
  }
  throw new Error(`${method} succeeded but was expected to fail`);
}

async function createUser(overrides: Partial<Record<keyof typeof VALID_CREATE, unknown>> = {}): Promise<string> {
  const request = { ...VALID_CREATE, email: uniqueEmail(), ...overrides };
  return (await call<{ id: string }>('Create', request, undefined)).id;
}

async function getUser(id: string): Promise<Record<string, unknown>> {
  const reply = await call<{ userExample: Record<string, unknown> }>('GetByID', { id }, system.adminToken());
  return reply.userExample;
}

beforeAll(async () => {
  system = await startTestSystem();
  const definition = protoLoader.loadSync('api/serverNameExample/v1/userExample.proto', LOADER_OPTIONS);
  const api = grpc.loadPackageDefinition(definition).api as unknown as {
    serverNameExample: { v1: { userExample: grpc.ServiceClientConstructor } };
  };
  const UserExampleClient = api.serverNameExample.v1.userExample;
  client = new UserExampleClient(system.grpcAddress, grpc.credentials.createInsecure());
});

afterAll(async () => {
  client?.close();
  await system?.close();
});

describe('Create', () => {
  it('creates a record without a token and answers its id as a uint64 decimal string', async () => {
    const reply = await call('Create', { ...VALID_CREATE, email: uniqueEmail() }, undefined);
    expect(Object.keys(reply)).toEqual(['id']);
    expect(reply.id).toMatch(/^[1-9]\d*$/);
  });

  const brokenRules: [field: keyof typeof RULE, value: unknown, description: string][] = [
    ['name', 'A', RULE.name],
    ['email', 'not-an-email', RULE.email],
    ['password', 'short', RULE.password],
    ['phone', '12345678901', RULE.phone],
    ['avatar', 'avatar.png', RULE.avatar],
    ['age', 121, RULE.age],
    ['age', -1, RULE.age],
    ['gender', 7, RULE.gender],
  ];

  it.each(brokenRules)('rejects %s = %j with INVALID_ARGUMENT and one violation', async (field, value, description) => {
    const error = await callFailing('Create', { ...VALID_CREATE, email: uniqueEmail(), [field]: value }, undefined);
    const message = violationMessage(CREATE_REQUEST, [{ field, description }]);
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error.details).toBe(message);
    expect(statusDetails(error)).toEqual({
      code: grpc.status.INVALID_ARGUMENT,
      message,
      violations: [{ field, description }],
      typeUrls: [BAD_REQUEST_TYPE],
    });
  });

  it('reports every broken rule at once when all are broken', async () => {
    const error = await callFailing('Create', { name: '', email: '', password: '', phone: '', avatar: '', age: 500, gender: 3 }, undefined);
    const violations = [
      { field: 'name', description: RULE.name },
      { field: 'email', description: RULE.email },
      { field: 'password', description: RULE.password },
      { field: 'phone', description: RULE.phone },
      { field: 'avatar', description: RULE.avatar },
      { field: 'age', description: RULE.age },
      { field: 'gender', description: RULE.gender },
    ];
    const message = violationMessage(CREATE_REQUEST, violations);
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error.details).toBe(message);
    expect(statusDetails(error)).toEqual({
      code: grpc.status.INVALID_ARGUMENT,
      message,
      violations,
      typeUrls: [BAD_REQUEST_TYPE],
    });
  });

  it('rejects a second live record with the same e-mail with ALREADY_EXISTS', async () => {
    const email = uniqueEmail('duplicate');
    await createUser({ email });
    const error = await callFailing('Create', { ...VALID_CREATE, email }, undefined);
    expect(error.code).toBe(grpc.status.ALREADY_EXISTS);
    expect(error.details).toBe(DUPLICATE_EMAIL);
    expect(error.metadata.get('grpc-status-details-bin')).toEqual([]);
  });

  it('rejects an invalid credential even though Create is public', async () => {
    const expired = system.tokens.mint({ sub: '1', roles: ['admin'] }, { expiresIn: -10 });
    const error = await callFailing('Create', { ...VALID_CREATE, email: uniqueEmail() }, expired);
    expect(error.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(error.details).toMatch(TOKEN_EXPIRED);
  });
});

describe('GetByID', () => {
  it('returns the exact stored record, with RFC 3339 timestamps, the gender by name and no password', async () => {
    const email = uniqueEmail('get');
    const id = await createUser({ email, gender: 'MALE', age: 0 });
    const reply = await call('GetByID', { id }, system.userToken(id));

    const row = await sql<{ created_at: Date; updated_at: Date }>`
      select created_at, updated_at from users.user_example where id = ${id}
    `.execute(system.database.db);
    const stored = row.rows[0]!;
    expect(reply).toEqual({
      userExample: {
        id,
        name: VALID_CREATE.name,
        email,
        phone: VALID_CREATE.phone,
        avatar: VALID_CREATE.avatar,
        age: 0,
        gender: 'MALE',
        status: 0,
        login_at: '0',
        created_at: stored.created_at.toISOString(),
        updated_at: stored.updated_at.toISOString(),
      },
    });
    const record = reply.userExample as Record<string, string>;
    expect(record.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(JSON.stringify(reply)).not.toMatch(/password/i);
    expect(JSON.stringify(reply)).not.toContain(VALID_CREATE.password);
  });

  it('answers NOT_FOUND for an id with no record', async () => {
    const error = await callFailing('GetByID', { id: '999999999' }, system.adminToken());
    expect(error.code).toBe(grpc.status.NOT_FOUND);
    expect(error.details).toBe(notFound('999999999'));
  });

  it('answers NOT_FOUND for the largest uint64, which no stored record can carry', async () => {
    const error = await callFailing('GetByID', { id: '18446744073709551615' }, system.adminToken());
    expect(error.code).toBe(grpc.status.NOT_FOUND);
    expect(error.details).toBe(notFound('18446744073709551615'));
  });

  it('rejects id 0 with INVALID_ARGUMENT and an id violation', async () => {
    const error = await callFailing('GetByID', { id: '0' }, system.adminToken());
    const message = violationMessage(GET_REQUEST, [{ field: 'id', description: RULE.id }]);
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error.details).toBe(message);
    expect(statusDetails(error).violations).toEqual([{ field: 'id', description: RULE.id }]);
  });

  it('answers UNAUTHENTICATED, saying the token is missing, when no authorization metadata is sent', async () => {
    const id = await createUser();
    const error = await callFailing('GetByID', { id }, undefined);
    expect(error.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(error.details).toBe(MISSING_TOKEN);
  });

  it('answers UNAUTHENTICATED for a token signed with another key, saying the signature is bad', async () => {
    const id = await createUser();
    const otherKey = 'a-different-secret-of-at-least-32-characters';
    const otherIssuer = createTokenService({ ...system.config.jwt, secret: otherKey });
    const error = await callFailing('GetByID', { id }, otherIssuer.mint({ sub: id, roles: ['admin'] }));
    expect(error.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(error.details).toBe(BAD_SIGNATURE);
  });

  it('answers UNAUTHENTICATED for an expired token, saying when it expired', async () => {
    const id = await createUser();
    const expired = system.tokens.mint({ sub: '1', roles: ['admin'] }, { expiresIn: -10 });
    const error = await callFailing('GetByID', { id }, expired);
    expect(error.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(error.details).toMatch(TOKEN_EXPIRED);
  });

  it('answers UNAUTHENTICATED for an authorization value that is not a bearer token', async () => {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', 'Basic dXNlcjpwYXNz');
    const rpc = (client as unknown as Record<string, Call>).GetByID!.bind(client);
    const error = await new Promise<grpc.ServiceError>((resolve) => rpc({ id: '1' }, metadata, (e) => resolve(e!)));
    expect(error.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(error.details).toBe(MALFORMED_HEADER);
  });
});

describe('UpdateByID', () => {
  it('writes "" and 0 when they are sent, and leaves absent fields unchanged', async () => {
    const email = uniqueEmail('update');
    const id = await createUser({ email, age: 44 });
    await call('UpdateByID', { id, status: 2, login_at: '1700000000' }, system.adminToken());
    expect(await getUser(id)).toMatchObject({ name: VALID_CREATE.name, age: 44, status: 2, login_at: '1700000000' });

    const reply = await call('UpdateByID', { id, name: '', age: 0, status: 0 }, system.adminToken());
    expect(reply).toEqual({});
    expect(await getUser(id)).toMatchObject({
      id,
      name: '',
      email,
      phone: VALID_CREATE.phone,
      avatar: VALID_CREATE.avatar,
      age: 0,
      gender: 'FEMALE',
      status: 0,
      login_at: '1700000000',
    });
  });

  it('lets users update their own record and changes the gender and a 64-bit login time exactly', async () => {
    const id = await createUser();
    await call('UpdateByID', { id, gender: 'UNKNOWN', login_at: '9223372036854775807' }, system.userToken(id));
    expect(await getUser(id)).toMatchObject({ gender: 'UNKNOWN', login_at: '9223372036854775807' });
  });

  it('rejects a gender number the enum does not define', async () => {
    const id = await createUser();
    const error = await callFailing('UpdateByID', { id, gender: 9 }, system.adminToken());
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error.details).toBe(violationMessage(UPDATE_REQUEST, [{ field: 'gender', description: RULE.gender }]));
    expect(statusDetails(error).violations).toEqual([{ field: 'gender', description: RULE.gender }]);
  });

  it('answers NOT_FOUND for an id with no record', async () => {
    const error = await callFailing('UpdateByID', { id: '999999998', name: 'Nobody' }, system.adminToken());
    expect(error.code).toBe(grpc.status.NOT_FOUND);
    expect(error.details).toBe(notFound('999999998'));
  });

  it("answers PERMISSION_DENIED when a non-administrator updates someone else's record", async () => {
    const owner = await createUser();
    const other = await createUser();
    const error = await callFailing('UpdateByID', { id: owner, name: 'Mallory' }, system.userToken(other));
    expect(error.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(error.details).toBe(permissionDenied('update'));
    expect(await getUser(owner)).toMatchObject({ name: VALID_CREATE.name });
  });
});

describe('DeleteByID', () => {
  it('deletes a record, after which GetByID and a second delete answer NOT_FOUND', async () => {
    const id = await createUser();
    expect(await call('DeleteByID', { id }, system.adminToken())).toEqual({});
    const afterGet = await callFailing('GetByID', { id }, system.adminToken());
    expect(afterGet.code).toBe(grpc.status.NOT_FOUND);
    expect(afterGet.details).toBe(notFound(id));
    const again = await callFailing('DeleteByID', { id }, system.adminToken());
    expect(again.code).toBe(grpc.status.NOT_FOUND);
    expect(again.details).toBe(notFound(id));
  });

  it('rejects id 0 with INVALID_ARGUMENT', async () => {
    const error = await callFailing('DeleteByID', { id: '0' }, system.adminToken());
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error.details).toBe(violationMessage(DELETE_REQUEST, [{ field: 'id', description: RULE.id }]));
  });
});

describe('List', () => {
  const ages = [20, 30, 40, 50];
  const ids: Record<number, string> = {};

  beforeAll(async () => {
    for (const age of ages) ids[age] = await createUser({ name: `Lister ${age}`, email: uniqueEmail('lister'), age });
  });

  const ofListers = { name: 'email', exp: 'like', value: 'lister.' };

  it('pages, sorts and filters with gte, and answers total as an int64 string', async () => {
    const params = { page: 0, limit: 2, sort: 'age', columns: [ofListers, { name: 'age', exp: 'gte', value: '30' }] };
    const first = await call<{ total: string; userExamples: { id: string; age: number }[] }>('List', { params }, system.adminToken());
    expect(first.total).toBe('3');
    expect(first.userExamples.map((u) => [u.id, u.age])).toEqual([
      [ids[30], 30],
      [ids[40], 40],
    ]);
    const second = await call<{ total: string; userExamples: { id: string; age: number }[] }>(
      'List',
      { params: { ...params, page: 1 } },
      system.adminToken(),
    );
    expect(second.total).toBe('3');
    expect(second.userExamples.map((u) => [u.id, u.age])).toEqual([[ids[50], 50]]);
  });

  it('filters with in and sorts descending', async () => {
    const reply = await call<{ total: string; userExamples: { id: string; name: string }[] }>(
      'List',
      { params: { limit: 10, sort: '-age', columns: [ofListers, { name: 'age', exp: 'in', value: '20,50' }] } },
      system.adminToken(),
    );
    expect(reply.total).toBe('2');
    expect(reply.userExamples.map((u) => [u.id, u.name])).toEqual([
      [ids[50], 'Lister 50'],
      [ids[20], 'Lister 20'],
    ]);
  });

  it('returns whole records, without passwords', async () => {
    const reply = await call<{ userExamples: Record<string, unknown>[] }>(
      'List',
      { params: { limit: 1, columns: [{ name: 'id', value: ids[40] }] } },
      system.adminToken(),
    );
    expect(reply.userExamples).toHaveLength(1);
    expect(Object.keys(reply.userExamples[0]!).sort()).toEqual([
      'age',
      'avatar',
      'created_at',
      'email',
      'gender',
      'id',
      'login_at',
      'name',
      'phone',
      'status',
      'updated_at',
    ]);
    expect(reply.userExamples[0]).toMatchObject({ id: ids[40], name: 'Lister 40', age: 40, gender: 'FEMALE' });
  });

  it('rejects a request without params', async () => {
    const error = await callFailing('List', {}, system.adminToken());
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    const violation = { field: 'params', description: LIST_RULE.params };
    expect(error.details).toBe(violationMessage(LIST_REQUEST, [violation]));
    expect(statusDetails(error).violations).toEqual([violation]);
  });

  it('rejects an unknown operator with a violation naming the column', async () => {
    const error = await callFailing('List', { params: { columns: [{ name: 'age', exp: 'between', value: '1' }] } }, system.adminToken());
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    const { violations } = statusDetails(error);
    expect(violations).toHaveLength(1);
    expect(violations[0]!.field).toBe('params.columns[0].exp');
    expect(violations[0]!.description).toMatch(new RegExp(`^${unsupportedExpType('between')}`));
  });

  it('needs a token', async () => {
    const error = await callFailing('List', { params: {} }, undefined);
    expect(error.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(error.details).toBe(MISSING_TOKEN);
  });
});

type ReflectionClient = grpc.Client & { ServerReflectionInfo(): grpc.ClientDuplexStream<object, ReflectionResponse> };

interface ReflectionResponse {
  list_services_response?: { service: { name: string }[] };
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
}

describe('server reflection and health', () => {
  it('lists the userExample service through grpc.reflection.v1', async () => {
    const reflectionProto = join(
      dirname(createRequire(import.meta.url).resolve('@grpc/reflection')),
      '../proto/grpc/reflection/v1/reflection.proto',
    );
    const definition = protoLoader.loadSync(reflectionProto, { ...LOADER_OPTIONS, includeDirs: [] });
    const ReflectionConstructor = (
      grpc.loadPackageDefinition(definition).grpc as unknown as {
        reflection: { v1: { ServerReflection: grpc.ServiceClientConstructor } };
      }
    ).reflection.v1.ServerReflection;
    const reflection = new ReflectionConstructor(system.grpcAddress, grpc.credentials.createInsecure()) as unknown as ReflectionClient;
    try {
      /** One request on its own ServerReflectionInfo stream, and its one response. */
      const ask = (request: object) =>
        new Promise<ReflectionResponse>((resolve, reject) => {
          const stream = reflection.ServerReflectionInfo();
          stream.once('data', (response: ReflectionResponse) => {
            resolve(response);
            stream.end();
          });
          stream.once('error', reject);
          stream.write(request);
        });

      const listed = await ask({ list_services: '' });
      const names = listed.list_services_response!.service.map((s) => s.name);
      expect(names).toContain(SERVICE_NAME);

      const file = await ask({ file_containing_symbol: SERVICE_NAME });
      const [bytes] = file.file_descriptor_response!.file_descriptor_proto;
      const descriptor = descriptorTypes.FileDescriptorProto.decode(bytes!) as unknown as {
        package: string;
        service: { name: string; method: { name: string }[] }[];
      };
      expect(descriptor.package).toBe('api.serverNameExample.v1');
      expect(descriptor.service.map((s) => s.name)).toEqual(['userExample']);
      expect(descriptor.service[0]!.method.map((m) => m.name)).toEqual(['Create', 'DeleteByID', 'UpdateByID', 'GetByID', 'List']);
    } finally {
      reflection.close();
    }
  });

  it('answers SERVING on grpc.health.v1 for the server and for the userExample service', async () => {
    const HealthClient = grpc.makeGenericClientConstructor(healthService, 'Health');
    const health = new HealthClient(system.grpcAddress, grpc.credentials.createInsecure());
    try {
      const check = (serviceName: string) =>
        new Promise<Record<string, unknown>>((resolve, reject) =>
          (health as unknown as { Check: Call }).Check({ service: serviceName }, new grpc.Metadata(), (error, reply) =>
            error ? reject(error) : resolve(reply),
          ),
        );
      expect(await check('')).toEqual({ status: 'SERVING' });
      expect(await check(SERVICE_NAME)).toEqual({ status: 'SERVING' });
    } finally {
      health.close();
    }
  });
});

// Last: it moves the identity past 2^53 for every record created afterwards.
describe('64-bit ids', () => {
  it('round-trips an id above 2^53 exactly', async () => {
    await sql`alter table users.user_example alter column id restart with 9007199254740993`.execute(system.database.db);
    const id = await createUser();
    expect(id).toBe('9007199254740993');
    expect(await getUser(id)).toMatchObject({ id: '9007199254740993' });
    await call('UpdateByID', { id, name: 'Big Id' }, system.userToken('9007199254740993'));
    expect(await getUser(id)).toMatchObject({ id: '9007199254740993', name: 'Big Id' });
    const listed = await call<{ userExamples: { id: string }[] }>(
      'List',
      { params: { columns: [{ name: 'id', exp: 'gte', value: '9007199254740993' }] } },
      system.adminToken(),
    );
    expect(listed.userExamples.map((u) => u.id)).toEqual(['9007199254740993']);
  });
});

describe('internal errors', () => {
  it('answers INTERNAL with the masked message when the database fails, revealing nothing of the cause', async () => {
    const id = await createUser();
    await sql`alter table users.user_example rename column phone to phone_moved`.execute(system.database.db);
    try {
      const error = await callFailing('GetByID', { id }, system.adminToken());
      expect(error.code).toBe(grpc.status.INTERNAL);
      expect(error.details).toBe(INTERNAL_ERROR);
      expect(error.metadata.get('grpc-status-details-bin')).toEqual([]);
    } finally {
      await sql`alter table users.user_example rename column phone_moved to phone`.execute(system.database.db);
    }
  });
});
