import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Request, type Response, type Router } from 'express';
import type { FieldViolation } from '../../lib/errors.ts';
import { sendJson } from '../../lib/http/send-json.ts';
import { parseUint64 } from '../../lib/int64.ts';
import type { Logger } from '../../lib/logger.ts';
import { GENDER_TYPES } from '../../contracts/user-records.ts';
import type { GraphQLExecutor } from '../graphql-executor.ts';
import { sendGraphqlError, sendRpcStatus, sendThrownError } from './google-rpc-status.ts';
import { decodeMessage, parseJsonBody, type Decoded, type MessageSpec } from './proto-json.ts';

/**
 * Area A's HTTP mapping (grpc-gateway conventions over the userExample proto): the five paths, each decoded as protojson,
 * run as one GraphQL operation through the gateway, and rendered back as protojson (camelCase, 64-bit integers as strings,
 * enums by name, zero values emitted). No business rule lives here: validation, auth and existence are the service's.
 */

const GENDER = { enum: GENDER_TYPES } as const;

const CREATE_REQUEST: MessageSpec = {
  name: 'api.serverNameExample.v1.CreateUserExampleRequest',
  fields: {
    name: { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
    phone: { type: 'string' },
    avatar: { type: 'string' },
    age: { type: 'int32' },
    gender: { type: GENDER },
  },
};

const UPDATE_REQUEST: MessageSpec = {
  name: 'api.serverNameExample.v1.UpdateUserExampleByIDRequest',
  fields: {
    // Bound from the path; a value in the body is accepted and ignored, never overriding the path.
    id: { type: 'uint64' },
    ...CREATE_REQUEST.fields,
    status: { type: 'int32' },
    loginAt: { type: 'int64', protoName: 'login_at' },
  },
};

const COLUMN: MessageSpec = {
  name: 'api.types.Column',
  fields: {
    name: { type: 'string' },
    exp: { type: 'string' },
    // A string in the proto, but the reference's HTTP side takes any JSON scalar here and keeps its text.
    value: { type: 'scalarText' },
    logic: { type: 'string' },
  },
};

const PARAMS: MessageSpec = {
  name: 'api.types.Params',
  fields: {
    page: { type: 'int32' },
    limit: { type: 'int32' },
    sort: { type: 'string' },
    columns: { type: { repeated: { message: COLUMN } } },
  },
};

const LIST_REQUEST: MessageSpec = {
  name: 'api.serverNameExample.v1.ListUserExampleRequest',
  fields: { params: { type: { message: PARAMS } } },
};

/** The protojson messages the routes decode, by proto name (test/unit/user-example.wire-shapes.test.ts holds them to the proto). */
export const USER_EXAMPLE_REQUEST_MESSAGES: readonly MessageSpec[] = [CREATE_REQUEST, UPDATE_REQUEST, COLUMN, PARAMS, LIST_REQUEST];

const RECORD_FIELDS = 'id name email phone avatar age gender status loginAt createdAt updatedAt';

const OPERATIONS = {
  create: `mutation Create($input: CreateUserExampleInput!) { createUserExample(input: $input) { id } }`,
  get: `query GetByID($id: UInt64!) { userExample(id: $id) { ${RECORD_FIELDS} } }`,
  update: `mutation UpdateByID($id: UInt64!, $input: UpdateUserExampleInput!) { updateUserExample(id: $id, input: $input) { id } }`,
  delete: `mutation DeleteByID($id: UInt64!) { deleteUserExample(id: $id) { id } }`,
  list: `query List($params: ListParamsInput) { userExamples(params: $params) { total userExamples { ${RECORD_FIELDS} } } }`,
} as const;

export interface UserExampleRoutesDeps {
  executor: GraphQLExecutor;
  logger: Logger;
  bodyLimitBytes: number;
}

/** The route of the record paths, as Express names it (metrics and traces label requests with it). */
export const USER_EXAMPLE_ID_ROUTE = '/api/v1/userExample/:id';

/**
 * Area A's routes: an Express router for all five, and the two that read no body (GET and DELETE by id) as plain
 * node:http handlers, for the REST fast path (rest-adapter/rest-fast-path.ts) to call with the path's raw id.
 */
export interface UserExampleRoutes {
  router: Router;
  byId: Readonly<Record<'GET' | 'DELETE', (req: IncomingMessage, res: ServerResponse, rawId: string) => Promise<void>>>;
}

export function createUserExampleRoutes({ executor, logger, bodyLimitBytes }: UserExampleRoutesDeps): UserExampleRoutes {
  // The spec's paths exactly: /api/v1/userexample is an unknown path, as in grpc-gateway (Express matches
  // case-insensitively by default, which served GET but answered PATCH with 404 instead of 405).
  const router = express.Router({ caseSensitive: true });
  // The raw text is parsed here (not by express.json) so that 64-bit numbers keep every digit.
  // Only the routes that take a body read one (GET and DELETE pay nothing for it).
  const readBody = express.text({ type: () => true, limit: bodyLimitBytes });

  function callerHeaders(req: IncomingMessage): Record<string, string | undefined> {
    const requestId = req.headers['x-request-id'];
    return { authorization: req.headers.authorization, 'x-request-id': Array.isArray(requestId) ? requestId[0] : requestId };
  }

  /** Runs an operation and hands the data to `render`, or sends the mapped error. */
  async function run(
    req: IncomingMessage,
    res: ServerResponse,
    operation: keyof typeof OPERATIONS,
    variables: Record<string, unknown>,
    render: (data: Record<string, unknown>) => unknown,
  ): Promise<void> {
    try {
      const result = await executor.execute({
        query: OPERATIONS[operation],
        operationName: { create: 'Create', get: 'GetByID', update: 'UpdateByID', delete: 'DeleteByID', list: 'List' }[operation],
        variables,
        headers: callerHeaders(req),
      });
      const firstError = result.errors?.[0];
      if (firstError) {
        sendGraphqlError(res, firstError, logger);
        return;
      }
      sendJson(res, 200, render(result.data ?? {}));
    } catch (error) {
      sendThrownError(res, error, logger);
    }
  }

  /** Parses and decodes a JSON body; sends the 400 itself and returns undefined when that fails. */
  function decodeBody(req: Request, res: Response, spec: MessageSpec): { [field: string]: Decoded } | undefined {
    let parsed: unknown;
    try {
      parsed = parseJsonBody(typeof req.body === 'string' ? req.body : '');
    } catch (error) {
      sendRpcStatus(res, 'INVALID_ARGUMENT', `malformed JSON body: ${(error as Error).message}`);
      return undefined;
    }
    const violations: FieldViolation[] = [];
    const decoded = decodeMessage(spec, parsed, '', violations);
    if (!decoded || violations.length > 0) {
      sendRpcStatus(res, 'INVALID_ARGUMENT', `invalid ${spec.name} body: ${summarise(violations)}`, violations);
      return undefined;
    }
    return decoded;
  }

  /** The path id: an unsigned 64-bit integer; the ≥ 1 rule is the service's. */
  function pathId(res: ServerResponse, raw: string): string | undefined {
    const id = parseUint64(raw);
    if (id === undefined) {
      const violations = [{ field: 'id', description: `expected an unsigned 64-bit integer, got "${raw}"` }];
      sendRpcStatus(res, 'INVALID_ARGUMENT', `invalid path id: ${violations[0]!.description}`, violations);
    }
    return id;
  }

  router.post('/api/v1/userExample', readBody, async (req, res) => {
    const body = decodeBody(req, res, CREATE_REQUEST);
    if (!body) return;
    // Proto3: an absent field is its zero value, and the create rules then apply to it. The gender travels as its number
    // (protojson takes a name or a number), so that one the enum does not define reaches the service, which reports it.
    const input = {
      name: (body.name as string | undefined) ?? '',
      email: (body.email as string | undefined) ?? '',
      password: (body.password as string | undefined) ?? '',
      phone: (body.phone as string | undefined) ?? '',
      avatar: (body.avatar as string | undefined) ?? '',
      age: (body.age as number | undefined) ?? 0,
      genderNumber: (body.gender as number | undefined) ?? 0,
    };
    await run(req, res, 'create', { input }, (data) => ({
      id: (data.createUserExample as { id: string }).id,
    }));
  });

  router.post('/api/v1/userExample/list', readBody, async (req, res) => {
    const body = decodeBody(req, res, LIST_REQUEST);
    if (!body) return;
    await run(req, res, 'list', { params: body.params ?? null }, (data) => {
      const page = data.userExamples as { total: string; userExamples: unknown[] };
      return { total: page.total, userExamples: page.userExamples };
    });
  });

  const byId: UserExampleRoutes['byId'] = {
    async GET(req, res, rawId) {
      const id = pathId(res, rawId);
      if (id === undefined) return;
      await run(req, res, 'get', { id }, (data) => ({ userExample: data.userExample }));
    },
    async DELETE(req, res, rawId) {
      const id = pathId(res, rawId);
      if (id === undefined) return;
      await run(req, res, 'delete', { id }, () => ({}));
    },
  };
  const rawId = (req: Request) => String(req.params.id ?? '');

  router.get(USER_EXAMPLE_ID_ROUTE, (req, res) => byId.GET(req, res, rawId(req)));

  router.put(USER_EXAMPLE_ID_ROUTE, readBody, async (req, res) => {
    const id = pathId(res, rawId(req));
    if (id === undefined) return;
    const body = decodeBody(req, res, UPDATE_REQUEST);
    if (!body) return;
    const { id: _ignoredBodyId, gender, ...fields } = body;
    // The gender by its number, as on create: the service refuses a number the enum does not define.
    await run(req, res, 'update', { id, input: gender === undefined ? fields : { ...fields, genderNumber: gender } }, () => ({}));
  });

  router.delete(USER_EXAMPLE_ID_ROUTE, (req, res) => byId.DELETE(req, res, rawId(req)));

  return { router, byId };
}

function summarise(violations: readonly FieldViolation[]): string {
  return violations.map((v) => `${v.field}: ${v.description}`).join('; ');
}
