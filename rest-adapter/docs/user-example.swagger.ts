/**
 * Area A's HTTP mapping as a Swagger 2.0 document, in the shape protoc-gen-openapiv2 generates from
 * proto/api/serverNameExample/v1/userExample.proto with sponge's `openapiv2_swagger` options: title "serverNameExample
 * api docs", schemes http and https, JSON in and out, the BearerAuth API-key scheme, operationIds `<service>_<rpc>`, tag
 * `userExample`, definitions named `<package><Message>` (v1UserExample, typesParams, rpcStatus, protobufAny) and
 * 64-bit integers as strings with their format. Descriptions are the proto's comments.
 *
 * Where we differ from what sponge ships, on purpose (each is what the service does):
 * - `info.version` is "2.0", as the spec says ("the generated API documents carry version 2.0"); `swagger` is "2.0" too.
 * - Every operation but Create lists the BearerAuth requirement (sponge leaves them commented out): the service refuses
 *   those calls without a token, and Swagger UI only sends the credential to operations that ask for it. Create lists
 *   "no credential or BearerAuth" (sign-up is public; a token, if sent, must be valid).
 * - Errors are documented per status with the google.rpc.Status body grpc-gateway writes (sponge rewrites replies into
 *   its {code,msg,data} envelope; we answer protojson and real HTTP statuses).
 * - The create rules of protoc-gen-validate appear as schema constraints, so a reader sees them without the proto.
 */

/** A Swagger 2.0 / OpenAPI 3 document as plain JSON. */
export type ApiDocument = Record<string, unknown>;

/** What the document needs to know about where it is served. */
export interface UserExampleSwaggerOptions {
  /** `host[:port]` of the own-login listener, which serves Area A (Swagger UI sends "Try it out" requests there). */
  host: string;
  /** Schemes in preference order; Swagger UI uses the first. */
  schemes?: readonly ('http' | 'https')[];
}

/** Name of the security scheme (the spec's own name). */
export const BEARER_AUTH = 'BearerAuth';

const int64 = (description?: string) => ({ type: 'string', format: 'int64', ...(description && { description }) });
const uint64 = (description?: string) => ({ type: 'string', format: 'uint64', ...(description && { description }) });
const int32 = (extra: Record<string, unknown> = {}) => ({ type: 'integer', format: 'int32', ...extra });
const ref = (name: string) => ({ $ref: `#/definitions/${name}` });

/**
 * The definitions, keyed as protoc-gen-openapiv2 names them. Exported so the OpenAPI 3 document reuses them as
 * components (with `#/components/schemas/` references), keeping one description of Area A's messages.
 */
export function userExampleDefinitions(): Record<string, Record<string, unknown>> {
  const createFields = {
    name: { type: 'string', minLength: 2, description: 'At least 2 characters.' },
    email: { type: 'string', format: 'email', description: 'A valid e-mail address; unique among records.' },
    password: { type: 'string', minLength: 10, description: 'At least 10 characters. Stored only as a hash; never returned.' },
    phone: { type: 'string', pattern: '^1[3456789]\\d{9}$' },
    avatar: { type: 'string', format: 'uri', description: 'An absolute URI.' },
    age: int32({ minimum: 0, maximum: 120 }),
    gender: ref('v1GenderType'),
  };
  return {
    protobufAny: {
      type: 'object',
      properties: { '@type': { type: 'string' } },
      additionalProperties: {},
      description:
        'A detail of a google.rpc.Status. Field violations travel as `type.googleapis.com/google.rpc.BadRequest` with ' +
        '`fieldViolations: [{field, description}]`.',
    },
    rpcStatus: {
      type: 'object',
      description: 'Every error reply: a google.rpc.Status, with the HTTP status of its gRPC code.',
      required: ['code', 'message', 'details'],
      properties: {
        code: int32({ description: 'The gRPC status code (3 INVALID_ARGUMENT, 5 NOT_FOUND, 16 UNAUTHENTICATED, …).' }),
        message: { type: 'string' },
        details: { type: 'array', items: ref('protobufAny') },
      },
    },
    typesColumn: {
      type: 'object',
      description: 'One filter condition.',
      properties: {
        name: { type: 'string', description: 'Column name: the database name (snake_case, e.g. login_at); the JSON name is accepted too.' },
        exp: {
          type: 'string',
          description: 'Operator: eq (default), neq, gt, gte, lt, lte, like, in, notin, isnull, isnotnull, or =, !=, >, >=, <, <=.',
        },
        value: { type: 'string', description: 'Value as text; comma-separated for in/notin; double quotes keep a value a string.' },
        logic: {
          type: 'string',
          description: 'How this condition joins the next one: and (default), or, &, &&, |, ||, and:(, and:), or:(, or:).',
        },
      },
    },
    typesParams: {
      type: 'object',
      properties: {
        page: int32({ minimum: 0, description: 'Zero-based page number; offset = page × limit.' }),
        limit: int32({ minimum: 0, maximum: 1000, description: "Rows per page, 1–1000; 0 means the server's default (20)." }),
        sort: {
          type: 'string',
          description: 'Comma-separated columns, "-" for descending (e.g. "-id,name"); empty means "-id"; "ignore count" skips the total.',
        },
        columns: {
          type: 'array',
          items: ref('typesColumn'),
          description: "Filter conditions, joined left to right by each column's logic.",
        },
      },
    },
    v1CreateUserExampleReply: { type: 'object', properties: { id: uint64() } },
    v1CreateUserExampleRequest: { type: 'object', properties: createFields },
    v1DeleteUserExampleByIDReply: { type: 'object' },
    v1GenderType: {
      type: 'string',
      enum: ['UNKNOWN', 'MALE', 'FEMALE'],
      default: 'UNKNOWN',
      description: 'Numbers (0, 1, 2) are accepted on input.',
    },
    v1GetUserExampleByIDReply: { type: 'object', properties: { userExample: ref('v1UserExample') } },
    v1ListUserExampleReply: {
      type: 'object',
      properties: {
        total: int64('Rows matching the conditions ("0" with sort "ignore count").'),
        userExamples: { type: 'array', items: ref('v1UserExample') },
      },
    },
    v1ListUserExampleRequest: { type: 'object', required: ['params'], properties: { params: ref('typesParams') } },
    v1UpdateUserExampleByIDReply: { type: 'object' },
    v1UserExample: {
      type: 'object',
      description: 'A stored user record. The password is never part of it.',
      properties: {
        id: uint64(),
        name: { type: 'string' },
        email: { type: 'string' },
        phone: { type: 'string' },
        avatar: { type: 'string' },
        age: int32(),
        gender: ref('v1GenderType'),
        status: int32({ description: 'Account status; by convention 1 inactive, 2 activated, 3 blocked.' }),
        loginAt: int64('Login time, Unix seconds by convention.'),
        createdAt: { type: 'string', description: 'RFC 3339 UTC timestamp with millisecond precision, e.g. "2026-11-21T10:15:30.123Z".' },
        updatedAt: { type: 'string', description: 'RFC 3339 UTC timestamp with millisecond precision.' },
      },
    },
    // protoc-gen-openapiv2 names the body of an RPC whose path binds a field `<Service><Rpc>Body` (the message without it).
    userExampleUpdateByIDBody: {
      type: 'object',
      description: 'Present fields are written (zero values included); absent fields stay unchanged. An `id` here is ignored.',
      properties: {
        name: { type: 'string' },
        email: { type: 'string' },
        password: { type: 'string' },
        phone: { type: 'string' },
        avatar: { type: 'string' },
        age: int32(),
        gender: ref('v1GenderType'),
        status: int32({ description: "Account status; values are the caller's convention." }),
        loginAt: int64('Login time, Unix seconds by convention.'),
      },
    },
  };
}

/** The error statuses each operation can answer, with the situations README's error table lists. */
const ERRORS = {
  400: 'INVALID_ARGUMENT (3): validation, malformed body, bad id, bad list params.',
  401: 'UNAUTHENTICATED (16): token missing, malformed, badly signed or expired (with WWW-Authenticate).',
  403: "PERMISSION_DENIED (7): another user's record.",
  404: 'NOT_FOUND (5): no live record with that id.',
  409: 'ALREADY_EXISTS (6): the e-mail address is already used.',
  503: 'UNAVAILABLE (14): the database is unreachable.',
} as const;

type ErrorStatus = keyof typeof ERRORS;

/** One RPC of the HTTP mapping, in the order protoc-gen-openapiv2 emits them (by path, then method). */
export interface UserExampleOperation {
  path: string;
  method: 'get' | 'post' | 'put' | 'delete';
  rpc: 'Create' | 'DeleteByID' | 'UpdateByID' | 'GetByID' | 'List';
  summary: string;
  /** Definition of the body, if any. */
  body?: string;
  reply: string;
  errors: readonly ErrorStatus[];
  /** Whether the token is required (every RPC but Create). */
  authenticated: boolean;
}

/** The five RPCs of the proto's HTTP mapping; both documents are written from this list. */
export const USER_EXAMPLE_OPERATIONS: readonly UserExampleOperation[] = [
  {
    path: '/api/v1/userExample',
    method: 'post',
    rpc: 'Create',
    summary: 'Creates a record and returns its id.',
    body: 'v1CreateUserExampleRequest',
    reply: 'v1CreateUserExampleReply',
    errors: [400, 401, 409, 503],
    authenticated: false,
  },
  {
    path: '/api/v1/userExample/list',
    method: 'post',
    rpc: 'List',
    summary: 'Lists records a page at a time, with sorting and filter conditions.',
    body: 'v1ListUserExampleRequest',
    reply: 'v1ListUserExampleReply',
    errors: [400, 401, 503],
    authenticated: true,
  },
  {
    path: '/api/v1/userExample/{id}',
    method: 'get',
    rpc: 'GetByID',
    summary: 'Reads one record.',
    reply: 'v1GetUserExampleByIDReply',
    errors: [400, 401, 404, 503],
    authenticated: true,
  },
  {
    path: '/api/v1/userExample/{id}',
    method: 'delete',
    rpc: 'DeleteByID',
    summary: 'Soft-deletes a record; NOT_FOUND when there is no live record with that id.',
    reply: 'v1DeleteUserExampleByIDReply',
    errors: [400, 401, 403, 404, 503],
    authenticated: true,
  },
  {
    path: '/api/v1/userExample/{id}',
    method: 'put',
    rpc: 'UpdateByID',
    summary: 'Writes the fields that are present in the request (zero values included); absent fields stay unchanged.',
    body: 'userExampleUpdateByIDBody',
    reply: 'v1UpdateUserExampleByIDReply',
    errors: [400, 401, 403, 404, 503],
    authenticated: true,
  },
];

/** Description of the path id (uint64 ≥ 1, as a decimal string). */
export const ID_PARAMETER_DESCRIPTION = 'The record id: an unsigned 64-bit integer ≥ 1, in decimal.';

const ACCESS_DESCRIPTION =
  'Create is public (sign-up; a token, if sent, must be valid). Every other operation needs `Authorization: Bearer <JWT>`; ' +
  "UpdateByID and DeleteByID are allowed to the record's own user (token `sub` = the record id) or to a token with role `admin`.";

/** The Swagger 2.0 document of Area A (what GET /apis/swagger/doc.json answers). */
export function buildUserExampleSwagger(options: UserExampleSwaggerOptions): ApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of USER_EXAMPLE_OPERATIONS) {
    const parameters: Record<string, unknown>[] = [];
    if (operation.path.includes('{id}')) {
      parameters.push({ name: 'id', description: ID_PARAMETER_DESCRIPTION, in: 'path', required: true, type: 'string', format: 'uint64' });
    }
    if (operation.body) parameters.push({ name: 'body', in: 'body', required: true, schema: ref(operation.body) });
    const responses: Record<string, unknown> = { 200: { description: 'A successful response.', schema: ref(operation.reply) } };
    for (const status of operation.errors) responses[status] = { description: ERRORS[status], schema: ref('rpcStatus') };
    responses.default = { description: 'An unexpected error response.', schema: ref('rpcStatus') };
    (paths[operation.path] ??= {})[operation.method] = {
      summary: operation.summary,
      operationId: `userExample_${operation.rpc}`,
      responses,
      parameters,
      tags: ['userExample'],
      security: operation.authenticated ? [{ [BEARER_AUTH]: [] }] : [{}, { [BEARER_AUTH]: [] }],
    };
  }
  return {
    swagger: '2.0',
    info: {
      title: 'serverNameExample api docs',
      version: '2.0',
      description:
        'Area A of Tributary: the HTTP/JSON mapping of the gRPC service api.serverNameExample.v1.userExample. JSON follows ' +
        'protojson (camelCase names, 64-bit integers as strings, enums by name, zero values present). ' +
        ACCESS_DESCRIPTION,
    },
    tags: [{ name: 'userExample' }],
    host: options.host,
    schemes: [...(options.schemes ?? ['http', 'https'])],
    consumes: ['application/json'],
    produces: ['application/json'],
    paths,
    definitions: userExampleDefinitions(),
    securityDefinitions: {
      [BEARER_AUTH]: { type: 'apiKey', name: 'Authorization', in: 'header', description: 'Type Bearer your-jwt-token to Value' },
    },
  };
}
