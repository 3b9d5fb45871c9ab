/**
 * A small fetch-based GraphQL-over-HTTP client for front-door tests of the gateway, plus the Area A operations they send.
 * It keeps the raw reply text (so tests can check exact digits) next to the parsed body, and can send a body byte for byte
 * (numbers beyond 2^53, wrong content types).
 */

import { violationMessage } from './user-example-errors.ts';

/** One error of a GraphQL response, as the gateway renders it. */
export interface GraphqlErrorJson {
  message: string;
  path?: (string | number)[];
  locations?: { line: number; column: number }[];
  extensions?: Record<string, unknown>;
}

export interface GraphqlReply<TData = any> {
  status: number;
  /** The reply exactly as sent. */
  text: string;
  data: TData | null | undefined;
  errors: GraphqlErrorJson[] | undefined;
}

export interface GraphqlRequestOptions {
  variables?: Record<string, unknown>;
  /** Variables as raw JSON text (wins over `variables`), for numbers a JavaScript value cannot hold. */
  rawVariables?: string;
  /** A bearer token; sent as "Authorization: Bearer <token>". */
  token?: string;
  /** The whole Authorization header value (wins over token). */
  authorization?: string;
  headers?: Record<string, string>;
}

export interface GraphqlClient {
  request<TData = any>(query: string, options?: GraphqlRequestOptions): Promise<GraphqlReply<TData>>;
  /** Sends `body` as is with these headers (no content type unless given). */
  raw(body: string, headers: Record<string, string>): Promise<{ status: number; text: string }>;
}

export function createGraphqlClient(url: string): GraphqlClient {
  return {
    async request(query, options = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
      if (options.authorization !== undefined) headers.authorization = options.authorization;
      else if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
      const body =
        options.rawVariables !== undefined
          ? `{"query":${JSON.stringify(query)},"variables":${options.rawVariables}}`
          : JSON.stringify({ query, ...(options.variables ? { variables: options.variables } : {}) });
      const response = await fetch(url, { method: 'POST', headers, body });
      const text = await response.text();
      const parsed = JSON.parse(text) as { data?: unknown; errors?: GraphqlErrorJson[] };
      return { status: response.status, text, data: parsed.data as any, errors: parsed.errors };
    },
    async raw(body, headers) {
      const response = await fetch(url, { method: 'POST', headers, body });
      return { status: response.status, text: await response.text() };
    },
  };
}

/** Every field of UserExample, in schema order. */
export const USER_EXAMPLE_FIELDS = 'id name email phone avatar age gender status loginAt createdAt updatedAt';

export const CREATE = `mutation Create($input: CreateUserExampleInput!) { createUserExample(input: $input) { id } }`;
export const GET = `query GetByID($id: UInt64!) { userExample(id: $id) { ${USER_EXAMPLE_FIELDS} } }`;
export const UPDATE = `mutation UpdateByID($id: UInt64!, $input: UpdateUserExampleInput!) { updateUserExample(id: $id, input: $input) { id } }`;
export const DELETE = `mutation DeleteByID($id: UInt64!) { deleteUserExample(id: $id) { id } }`;
export const LIST = `query List($params: ListParamsInput) { userExamples(params: $params) { total userExamples { ${USER_EXAMPLE_FIELDS} } } }`;

/** A create input that breaks no rule; `email` must be unique per record, so callers vary it. */
export function validInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Ann Lee',
    email: 'ann@example.com',
    password: 'correct-horse-battery',
    phone: '13800138000',
    avatar: 'https://cdn.example.com/ann.png',
    age: 30,
    gender: 'FEMALE',
    ...overrides,
  };
}

/** A BAD_USER_INPUT error of the users subgraph as the gateway passes it on. */
export function badUserInput(path: string, subject: string, violations: { field: string; description: string }[]) {
  return {
    message: violationMessage(subject, violations),
    path: [path],
    extensions: { code: 'BAD_USER_INPUT', fieldViolations: violations, serviceName: 'users' },
  };
}

/** A service error (other than BAD_USER_INPUT) of the users subgraph as the gateway passes it on. */
export function serviceError(path: string, code: string, message: string, extra: Record<string, unknown> = {}) {
  return { message, path: [path], extensions: { ...extra, code, serviceName: 'users' } };
}

/** A status and a parsed JSON body. */
export interface JsonReply {
  status: number;
  body: any;
}

/** POSTs `body` as JSON to `url` (headers added to the content type) and parses the reply. */
export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<JsonReply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** A POST's reply as the front-door comparison tests read it (gateway fast path, fast lane). */
export interface PostedReply {
  status: number;
  body: string;
  contentType: string | null;
  contentLength: string | null;
  cacheControl: string | null;
  requestId: string | null;
  /** Every header but the date and the request id, which differ from reply to reply. */
  headers: Record<string, string>;
}

/** POSTs `body` as JSON (a stream is sent chunked), with `headers` over the content type, and reads the whole reply. */
export async function postForReply(
  url: string,
  body: string | Uint8Array | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
): Promise<PostedReply> {
  const init: RequestInit & { duplex?: 'half' } = { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body };
  if (body instanceof ReadableStream) init.duplex = 'half';
  const response = await fetch(url, init);
  const text = await response.text();
  return {
    status: response.status,
    body: text,
    contentType: response.headers.get('content-type'),
    contentLength: response.headers.get('content-length'),
    cacheControl: response.headers.get('cache-control'),
    requestId: response.headers.get('x-request-id'),
    headers: Object.fromEntries([...response.headers].filter(([name]) => name !== 'date' && name !== 'x-request-id')),
  };
}
