import type * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson } from '../../support/graphql-client.ts';
import { createUserExampleGrpcClient, type UserExampleGrpcClient } from '../../support/grpc-user-client.ts';
import { createRestClient, type RestClient } from '../../support/rest-client.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { atMostRunes, GENDER_GIVEN_TWICE, RULE, STORED_RUNES } from '../../support/user-example-errors.ts';

/**
 * Area A's create and update rules are the service's, so each transport must report the same violations for the same
 * input: one table of inputs, each sent through REST (protojson), GraphQL and gRPC, and the field violations compared
 * with the table's and with each other. A transport that checked a rule itself (the REST adapter once validated gender
 * numbers on its own) or dropped one shows here.
 */

interface Violation {
  field: string;
  description: string;
}

const VALID = {
  name: 'Same Rules',
  email: 'same.rules@example.com',
  password: 'correct-horse-battery',
  phone: '13800138000',
  avatar: 'https://example.com/a.png',
  age: 30,
};

/** A create input (gender as its number, or absent) and the violations every transport must report for it. */
const CREATE_CASES: { name: string; input: Record<string, unknown>; gender?: number; violations: Violation[] }[] = [
  { name: 'a valid record with no gender (UNKNOWN, the zero value)', input: {}, violations: [] },
  { name: 'a gender number the enum does not define', input: {}, gender: 7, violations: [{ field: 'gender', description: RULE.gender }] },
  {
    name: 'every rule broken at once, an undefined gender among them',
    input: { name: 'x', email: 'nope', password: 'short', phone: '123', avatar: 'relative/path', age: 121 },
    gender: 9,
    violations: [
      { field: 'name', description: RULE.name },
      { field: 'email', description: RULE.email },
      { field: 'password', description: RULE.password },
      { field: 'phone', description: RULE.phone },
      { field: 'avatar', description: RULE.avatar },
      { field: 'age', description: RULE.age },
      { field: 'gender', description: RULE.gender },
    ],
  },
  {
    name: 'a name past its storage bound',
    input: { name: 'n'.repeat(257) },
    violations: [{ field: 'name', description: atMostRunes(STORED_RUNES.name) }],
  },
];

describe('Area A: the same rules on every transport', () => {
  let system: TestSystem;
  let rest: RestClient;
  let grpcClient: UserExampleGrpcClient;
  let sequence = 0;
  beforeAll(async () => {
    system = await startTestSystem();
    rest = createRestClient(system.restUrl);
    grpcClient = createUserExampleGrpcClient(system.grpcAddress);
  });
  afterAll(async () => {
    grpcClient?.close();
    await system?.close();
  });

  /** A unique e-mail per request, so that a valid input never collides with an earlier one. */
  const fresh = (input: Record<string, unknown>) => ({ ...VALID, email: `same.rules.${++sequence}@example.com`, ...input });

  async function viaRest(input: Record<string, unknown>, gender: number | undefined): Promise<Violation[]> {
    const reply = await rest.request('POST', '/api/v1/userExample', { json: { ...input, ...(gender !== undefined && { gender }) } });
    if (reply.status === 200) return [];
    expect(reply.status).toBe(400);
    return reply.body.details[0].fieldViolations;
  }

  async function viaGraphql(input: Record<string, unknown>, gender: number | undefined): Promise<Violation[]> {
    const reply = await postJson(system.gatewayUrl, {
      query: 'mutation($input: CreateUserExampleInput!) { createUserExample(input: $input) { id } }',
      variables: { input: { ...input, ...(gender !== undefined && { genderNumber: gender }) } },
    });
    if (!reply.body.errors) return [];
    expect(reply.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    return reply.body.errors[0].extensions.fieldViolations;
  }

  async function viaGrpc(input: Record<string, unknown>, gender: number | undefined): Promise<Violation[]> {
    try {
      await grpcClient.call('Create', { ...input, ...(gender !== undefined && { gender }) });
      return [];
    } catch (error) {
      const serviceError = error as grpc.ServiceError;
      expect(serviceError.code).toBe(3);
      return violationsOf(serviceError);
    }
  }

  describe.each(CREATE_CASES)('create: $name', ({ input, gender, violations }) => {
    it.each([
      ['REST', viaRest],
      ['GraphQL', viaGraphql],
      ['gRPC', viaGrpc],
    ] as const)('%s reports exactly the table’s violations', async (_transport, send) => {
      expect(await send(fresh(input), gender)).toEqual(violations);
    });
  });

  it('refuses an undefined gender number on update through every transport, and changes nothing', async () => {
    const id = (await rest.request('POST', '/api/v1/userExample', { json: fresh({}) })).body.id as string;
    const admin = system.adminToken();
    const violation = [{ field: 'gender', description: RULE.gender }];
    const restReply = await rest.request('PUT', `/api/v1/userExample/${id}`, { token: admin, json: { gender: 5, age: 99 } });
    expect(restReply.status).toBe(400);
    expect(restReply.body.details[0].fieldViolations).toEqual(violation);
    const graphqlReply = await postJson(
      system.gatewayUrl,
      {
        query: 'mutation($id: UInt64!, $input: UpdateUserExampleInput!) { updateUserExample(id: $id, input: $input) { id } }',
        variables: { id, input: { genderNumber: 5, age: 99 } },
      },
      { authorization: `Bearer ${admin}` },
    );
    expect(graphqlReply.body.errors[0].extensions.fieldViolations).toEqual(violation);
    const grpcError = (await grpcClient
      .call('UpdateByID', { id, gender: 5, age: 99 }, { authorization: `Bearer ${admin}` })
      .catch((e: unknown) => e)) as grpc.ServiceError;
    expect(violationsOf(grpcError)).toEqual(violation);
    expect((await rest.request('GET', `/api/v1/userExample/${id}`, { token: admin })).body.userExample.age).toBe(30);
  });

  it('refuses gender and genderNumber given together through GraphQL', async () => {
    const reply = await postJson(system.gatewayUrl, {
      query: 'mutation($input: CreateUserExampleInput!) { createUserExample(input: $input) { id } }',
      variables: { input: { ...fresh({}), gender: 'MALE', genderNumber: 1 } },
    });
    expect(reply.body.errors[0]).toMatchObject({
      message: GENDER_GIVEN_TWICE.message,
      extensions: { code: 'BAD_USER_INPUT', fieldViolations: [{ field: 'genderNumber', description: GENDER_GIVEN_TWICE.description }] },
    });
  });
});

/** The field violations of a gRPC error's google.rpc.BadRequest detail (grpc-status-details-bin). */
function violationsOf(error: grpc.ServiceError): Violation[] {
  const [bytes] = error.metadata.get('grpc-status-details-bin');
  if (!Buffer.isBuffer(bytes)) return [];
  // google.rpc.Status { details: [Any { value: BadRequest { field_violations: [{ field, description }] } }] }, read by hand
  // so that this test does not share the server's decoder.
  return readBadRequest(bytes);
}

function readBadRequest(status: Buffer): Violation[] {
  const violations: Violation[] = [];
  for (const any of fields(status).filter(([number]) => number === 3)) {
    for (const value of fields(any[1]).filter(([number]) => number === 2)) {
      for (const violation of fields(value[1]).filter(([number]) => number === 1)) {
        const parts = fields(violation[1]);
        violations.push({
          field: parts.find(([number]) => number === 1)?.[1].toString('utf8') ?? '',
          description: parts.find(([number]) => number === 2)?.[1].toString('utf8') ?? '',
        });
      }
    }
  }
  return violations;
}

/** The length-delimited fields of a protobuf message, as [field number, bytes] (varints skipped). */
function fields(message: Buffer): [number, Buffer][] {
  const out: [number, Buffer][] = [];
  let at = 0;
  const varint = () => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = message[at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
      shift += 7;
    }
  };
  while (at < message.length) {
    const key = varint();
    const wire = key & 7;
    if (wire === 0) varint();
    else if (wire === 2) {
      const length = varint();
      out.push([Math.floor(key / 8), message.subarray(at, at + length)]);
      at += length;
    } else throw new Error(`unexpected wire type ${wire}`);
  }
  return out;
}
