import { RECORD_READ_CACHE_HEADERS, sendConditionalJson } from '../../lib/http/conditional-json.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Request, type Response, type Router } from 'express';
import type { FieldViolation } from '../../lib/errors.ts';
import { sendJson } from '../../lib/http/send-json.ts';
import { parseUint64 } from '../../lib/int64.ts';
import type { Logger } from '../../lib/logger.ts';
import { GENDER_TYPES } from '../../contracts/user-records.ts';
import type { OperationVariables, TypedQuery } from '../../gateway/gateway-door.ts';
import type { GraphQLExecutor } from '../graphql-executor.ts';
import { sendGraphqlError, sendRpcStatus, sendThrownError } from './google-rpc-status.ts';
import { decodeMessage, parseJsonBody, type Decoded, type MessageSpec } from './proto-json.ts';
import {
  CreateDocument,
  DeleteByIdDocument,
  GetByIdDocument,
  ListDocument,
  UpdateByIdDocument,
  type CreateUserExampleInput,
  type ListColumnInput,
  type ListParamsInput,
  type UpdateUserExampleInput,
} from './generated/operations.ts';
import { callerHeaders, LOG_POSITION_HEADER } from '../caller-headers.ts';

/**
 * Area A's HTTP mapping (grpc-gateway conventions over the userExample proto): the five paths, each decoded as protojson,
 * run as one GraphQL operation through the gateway (user-example.operations.graphql, typed in generated/), and rendered
 * back as protojson (camelCase, 64-bit integers as strings, enums by name, zero values emitted). No business rule lives
 * here: validation, auth and existence are the service's.
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

/** The path's operations (user-example.operations.graphql), each with its name. */
const OPERATIONS = {
  create: { query: CreateDocument, operationName: 'Create' },
  get: { query: GetByIdDocument, operationName: 'GetByID' },
  update: { query: UpdateByIdDocument, operationName: 'UpdateByID' },
  delete: { query: DeleteByIdDocument, operationName: 'DeleteByID' },
  list: { query: ListDocument, operationName: 'List' },
};

export interface UserExampleRoutesDeps {
  executor: GraphQLExecutor;
  logger: Logger;
  bodyLimitBytes: number;
}

/** The route of the record paths, as Express names it (metrics and traces label requests with it). */
export const USER_EXAMPLE_ID_ROUTE = '/api/v1/userExample/:id';

/**
 * Area A's routes: an Express router for all five, and the two that read no body (GET and DELETE by id) as plain
 * node:http handlers, for the REST fast path (rest-adapter/stand-ins/rest-fast-path.ts) to call with the path's raw id.
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

  /** Runs an operation and hands its data to `render`, or sends the mapped error. */
  async function run<TData, TVariables extends OperationVariables>(
    req: IncomingMessage,
    res: ServerResponse,
    operation: { query: TypedQuery<TData, TVariables>; operationName: string },
    variables: NoInfer<TVariables>,
    render: (data: TData) => unknown,
    conditional = false,
  ): Promise<void> {
    try {
      const result = await executor.execute({ ...operation, variables, headers: callerHeaders(req) });
      const firstError = result.errors?.[0];
      if (firstError) {
        sendGraphqlError(res, firstError, logger);
        return;
      }
      // GraphQL answers a request that raised no error with its data.
      if (!result.data) throw new Error(`the gateway answered ${operation.operationName} with neither data nor errors`);
      if (result.logPosition !== undefined) res.setHeader(LOG_POSITION_HEADER, result.logPosition);
      // A read carries its ETag, and a request holding it is answered 304 (issue 39: Area A as the Graph's reads).
      if (conditional) sendConditionalJson(res, render(result.data), RECORD_READ_CACHE_HEADERS);
      else sendJson(res, 200, render(result.data));
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
    const input: CreateUserExampleInput = {
      name: text(body.name) ?? '',
      email: text(body.email) ?? '',
      password: text(body.password) ?? '',
      phone: text(body.phone) ?? '',
      avatar: text(body.avatar) ?? '',
      age: int(body.age) ?? 0,
      genderNumber: int(body.gender) ?? 0,
    };
    await run(req, res, OPERATIONS.create, { input }, (data) => ({ id: data.createUserExample.id }));
  });

  router.post('/api/v1/userExample/list', readBody, async (req, res) => {
    const body = decodeBody(req, res, LIST_REQUEST);
    if (!body) return;
    // A POST: no ETag (a matching If-None-Match on a POST would be a 412, not a 304; RFC 9110 §13.1.2).
    await run(req, res, OPERATIONS.list, { params: listParams(body.params) }, (data) => ({
      total: data.userExamples.total,
      userExamples: data.userExamples.userExamples,
    }));
  });

  const byId: UserExampleRoutes['byId'] = {
    async GET(req, res, rawId) {
      const id = pathId(res, rawId);
      if (id === undefined) return;
      await run(req, res, OPERATIONS.get, { id }, (data) => ({ userExample: data.userExample }), true);
    },
    async DELETE(req, res, rawId) {
      const id = pathId(res, rawId);
      if (id === undefined) return;
      await run(req, res, OPERATIONS.delete, { id }, () => ({}));
    },
  };
  const rawId = (req: Request) => String(req.params.id ?? '');

  router.get(USER_EXAMPLE_ID_ROUTE, (req, res) => byId.GET(req, res, rawId(req)));

  router.put(USER_EXAMPLE_ID_ROUTE, readBody, async (req, res) => {
    const id = pathId(res, rawId(req));
    if (id === undefined) return;
    const body = decodeBody(req, res, UPDATE_REQUEST);
    if (!body) return;
    await run(req, res, OPERATIONS.update, { id, input: updateInput(body) }, () => ({}));
  });

  router.delete(USER_EXAMPLE_ID_ROUTE, (req, res) => byId.DELETE(req, res, rawId(req)));

  return { router, byId };
}

function summarise(violations: readonly FieldViolation[]): string {
  return violations.map((v) => `${v.field}: ${v.description}`).join('; ');
}

/**
 * The decoded fields as the operations' inputs. The decoder has already held each field to its proto type (strings for
 * string and 64-bit fields, numbers for int32 and enums), so these only tell the compiler what it checked.
 */
function text(value: Decoded | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function int(value: Decoded | undefined): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function message(value: Decoded | undefined): { [field: string]: Decoded } | undefined {
  return typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

/** The fields an update names, and only those: a field the body leaves out stays unchanged. */
function updateInput(body: { [field: string]: Decoded }): UpdateUserExampleInput {
  const input: UpdateUserExampleInput = {};
  for (const field of ['name', 'email', 'password', 'phone', 'avatar', 'loginAt'] as const) {
    const value = text(body[field]);
    if (value !== undefined) input[field] = value;
  }
  for (const field of ['age', 'status'] as const) {
    const value = int(body[field]);
    if (value !== undefined) input[field] = value;
  }
  // The gender by its number, as on create: the service refuses a number the enum does not define. (A body's id is
  // accepted and ignored: the path names the record.)
  const gender = int(body.gender);
  if (gender !== undefined) input.genderNumber = gender;
  return input;
}

/**
 * A List request's params, or null when absent (the service's "value is required"). A condition without a name has
 * the proto's zero value for it, the empty string, as the gRPC door gives it; its other fields stay absent, taking the
 * operation's defaults.
 */
function listParams(value: Decoded | undefined): ListParamsInput | null {
  const params = message(value);
  if (!params) return null;
  const input: ListParamsInput = {};
  const page = int(params.page);
  if (page !== undefined) input.page = page;
  const limit = int(params.limit);
  if (limit !== undefined) input.limit = limit;
  const sort = text(params.sort);
  if (sort !== undefined) input.sort = sort;
  if (Array.isArray(params.columns)) input.columns = params.columns.map(listColumn);
  return input;
}

function listColumn(value: Decoded): ListColumnInput {
  const fields = message(value) ?? {};
  const column: ListColumnInput = { name: text(fields.name) ?? '' };
  for (const field of ['exp', 'value', 'logic'] as const) {
    const decoded = text(fields[field]);
    if (decoded !== undefined) column[field] = decoded;
  }
  return column;
}
