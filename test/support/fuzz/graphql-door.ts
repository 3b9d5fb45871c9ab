import fc from 'fast-check';
import { buildClientSchema, getIntrospectionQuery, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import { png } from '../image-fixtures.ts';
import { judgeGraphqlReply } from './error-formats.ts';
import type { SystemInfo } from './fuzz-system-protocol.ts';
import { operationArbitrary, type GeneratedOperation } from './graphql-document-arbitrary.ts';
import { HttpDoor, type HttpPlan, type HttpRequestSpec } from './http-door.ts';
import { PROTOTYPE_NAMES, hostileString, quote, rawJsonValue, type RawJson } from './hostile-values.ts';
import { fileBytes, multipartBytes, multipartContentType, multipartOf, type PartModel } from './multipart-arbitrary.ts';
import { shortStringify, withShortText } from './request-description.ts';

/**
 * The gateway's /graphql door: operations generated from its schema, sent as JSON bodies (single or batched), as GET
 * query strings, and as GraphQL multipart requests (https://github.com/jaydenseric/graphql-multipart-request-spec) with
 * operations/map mismatches, `__proto__` keys, missing and duplicated file parts, bodies that end mid-file. Every reply
 * must be a GraphQL response whose errors carry a message and extensions.code — never a 5xx, never INTERNAL_SERVER_ERROR.
 */

/** The gateway's schema, as a client sees it (introspection is on outside production). */
export async function introspectSchema(info: SystemInfo): Promise<GraphQLSchema> {
  const response = await fetch(info.gatewayUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: getIntrospectionQuery() }),
  });
  const body = (await response.json()) as { data: IntrospectionQuery };
  return buildClientSchema(body.data);
}

type GraphqlCredential = 'areaA-admin' | 'social-own' | 'social-parent' | 'none' | 'junk';

const graphqlCredential = fc.constantFrom<GraphqlCredential>(
  'areaA-admin',
  'areaA-admin',
  'social-own',
  'social-own',
  'social-parent',
  'none',
  'junk',
);

function authorization(credential: GraphqlCredential, info: SystemInfo): string | undefined {
  switch (credential) {
    case 'areaA-admin':
      return `Bearer ${info.areaA.adminToken}`;
    case 'social-own':
      return `Bearer ${info.social.tokens.own}`;
    case 'social-parent':
      return `Bearer ${info.social.tokens.parent}`;
    case 'junk':
      return 'Bearer junk.junk.junk';
    case 'none':
      return undefined;
  }
}

function operationJson(operation: GeneratedOperation, extensions?: RawJson): RawJson {
  const entries = [`"query":${quote(operation.document)}`];
  if (operation.variables !== undefined) entries.push(`"variables":${operation.variables}`);
  if (operation.operationName !== undefined) entries.push(`"operationName":${quote(operation.operationName)}`);
  if (extensions !== undefined) entries.push(`"extensions":${extensions}`);
  return `{${entries.join(',')}}`;
}

/** Persisted-query extensions: right and wrong versions, hashes of the document or of nothing, junk. */
const extensions = fc.oneof(
  { weight: 10, arbitrary: fc.constant<RawJson | undefined>(undefined) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom('1', '2', '0', '"1"', 'null', '-1', '1e400'),
        fc.constantFrom(
          '"ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38"',
          '"x"',
          '""',
          '1',
          'null',
          `"${'a'.repeat(64)}"`,
        ),
      )
      .map(([version, hash]): RawJson => `{"persistedQuery":{"version":${version},"sha256Hash":${hash}}}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<RawJson | undefined>(
      'null',
      '[]',
      '"x"',
      '{"persistedQuery":null}',
      '{"persistedQuery":"x"}',
      '{"__proto__":{"persistedQuery":{}}}',
    ),
  },
);

type BodyShape =
  | {
      kind: 'json';
      operation: GeneratedOperation;
      extensions: RawJson | undefined;
      damage: 'none' | 'corrupt' | 'replace';
      replacement: string;
      contentType: string;
    }
  | { kind: 'batch'; operations: GeneratedOperation[] }
  | { kind: 'get'; operation: GeneratedOperation; preflight: boolean; extra: [string, string][] }
  | { kind: 'multipart'; parts: PartModel[]; preflight: boolean; model: Omit<Parameters<typeof multipartBytes>[0], 'parts'> };

export interface GraphqlRequestModel {
  method: string;
  credential: GraphqlCredential;
  body: BodyShape;
}

function jsonBodies(operations: fc.Arbitrary<GeneratedOperation>): fc.Arbitrary<BodyShape> {
  return fc.record({
    kind: fc.constant('json' as const),
    operation: operations,
    extensions,
    damage: fc.oneof(
      { weight: 14, arbitrary: fc.constant<'none' | 'corrupt' | 'replace'>('none') },
      { weight: 1, arbitrary: fc.constantFrom<'none' | 'corrupt' | 'replace'>('corrupt', 'replace') },
    ),
    replacement: fc.oneof(
      fc.constantFrom(
        '{}',
        '[]',
        '[{}]',
        'null',
        '"query"',
        '{"query":1}',
        '{"query":["{ __typename }"]}',
        '{"query":{"a":1}}',
        '{"query":null}',
        '{"query":"{ __typename }","variables":"{}"}',
        '{"query":"{ __typename }","variables":[]}',
        '{"query":"{ __typename }","operationName":1}',
        '{"query":"{ __typename }","extensions":1}',
        '{"documentId":"x"}',
        '{"documentId":1}',
        '{"__proto__":{"query":"{ __typename }"}}',
      ),
      rawJsonValue(3),
    ),
    contentType: fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8') },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          'application/graphql-response+json',
          'application/graphql',
          'text/plain',
          'application/json; charset=latin1',
          'application/x-www-form-urlencoded',
        ),
      },
    ),
  });
}

/** GraphQL multipart requests: operations, map and files, each right or wrong. */
function multipartBodies(schemaOperations: fc.Arbitrary<GeneratedOperation>): fc.Arbitrary<BodyShape> {
  const uploadOperation = fc.constantFrom(
    'mutation ($f: Upload) { uploadMedia(media: $f) { mediaIdString size image { imageType w h } } }',
    'mutation ($f: Upload, $c: String) { uploadMedia(media: $f, mediaCategory: $c) { mediaIdString mediaKey } }',
    'mutation ($f: Upload!) { uploadMedia(media: $f) { mediaIdString } }',
    'mutation ($files: [Upload]) { uploadMedia(media: $files) { mediaIdString } }',
  );
  const operationsField = fc.oneof(
    {
      weight: 8,
      arbitrary: fc
        .tuple(
          uploadOperation,
          fc.oneof(
            { weight: 8, arbitrary: fc.constantFrom('{"f":null}', '{"f":null,"c":"tweet_image"}') },
            { weight: 1, arbitrary: fc.constantFrom('{}', '{"f":{}}', '{"f":"x"}', '{"files":[null,null]}') },
          ),
        )
        .map(([query, variables]) => `{"query":${quote(query)},"variables":${variables}}`),
    },
    { weight: 2, arbitrary: schemaOperations.map((operation) => operationJson(operation)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '[{"query":"{ __typename }"}]',
        'null',
        '"x"',
        '{',
        '{"query":1}',
        `{"query":"{ __typename }","variables":{"__proto__":null}}`,
      ),
    },
  );
  const mapField = fc.oneof(
    { weight: 12, arbitrary: fc.constant('{"0":["variables.f"]}') },
    { weight: 1, arbitrary: fc.constantFrom('{"media":["variables.f"]}', '{"0":["variables.files.0"],"1":["variables.files.1"]}') },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '{}',
        '[]',
        'null',
        '{"0":"variables.f"}',
        '{"0":[]}',
        '{"0":["variables.f","variables.f"]}',
        '{"0":["variables"]}',
        '{"0":["variables.__proto__"]}',
        '{"0":["__proto__.polluted"]}',
        '{"0":["variables.constructor.prototype"]}',
        '{"__proto__":["variables.f"]}',
        '{"constructor":["variables.f"]}',
        '{"0":["variables.f"],"1":["variables.f"]}',
        '{"0":["variables.missing"]}',
        '{"0":["0.variables.f"]}',
        '{"0":["variables.f.deeper"]}',
        '{"0":[1]}',
        '{',
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 2, max: 200 })
        .map((count) => JSON.stringify(Object.fromEntries(Array.from({ length: count }, (_, index) => [String(index), [`variables.f`]])))),
    },
  );
  const filePart = fc.record({
    name: fc.oneof(
      { weight: 6, arbitrary: fc.constant<string | null>('0') },
      { weight: 1, arbitrary: fc.constantFrom<string | null>('1', 'media', 'f', null, '', '__proto__', 'operations', 'map') },
    ),
    filename: fc.constantFrom<string | null | undefined>('image.png', 'image.png', null, undefined),
    contentType: fc.constantFrom<string | undefined>('image/png', 'application/octet-stream', undefined),
    data: fc.oneof({ weight: 3, arbitrary: fc.constant(null).map(() => png(8, 8)) }, { weight: 2, arbitrary: fileBytes }),
  });
  const parts = fc
    .record({
      operations: operationsField,
      map: mapField,
      files: fc.oneof(
        { weight: 6, arbitrary: filePart.map((part) => [part]) },
        { weight: 1, arbitrary: fc.array(filePart, { maxLength: 3 }) },
      ),
      order: fc.oneof(
        { weight: 12, arbitrary: fc.constant('spec') },
        { weight: 1, arbitrary: fc.constantFrom('map-first', 'files-first', 'no-operations', 'no-map', 'duplicate-operations') },
      ),
      fieldName: fc.oneof(
        { weight: 10, arbitrary: fc.constant('operations') },
        { weight: 1, arbitrary: fc.constantFrom('Operations', 'query', '__proto__') },
      ),
      // Text fields the spec does not name, small or large, after the map (where files are expected).
      extras: fc.oneof(
        { weight: 6, arbitrary: fc.constant<PartModel[]>([]) },
        {
          weight: 1,
          arbitrary: fc.array(
            fc.record({
              name: fc.constantFrom<string | null>('x', 'extra', 'media', '1', 'map', 'operations', null),
              data: fc.integer({ min: 0, max: 300_000 }).map((size) => Buffer.alloc(size, 'A')),
            }),
            { minLength: 1, maxLength: 3 },
          ),
        },
      ),
    })
    .map(({ operations, map, files, order, fieldName, extras }): PartModel[] => {
      const ops: PartModel = { name: fieldName, data: Buffer.from(operations) };
      const mapPart: PartModel = { name: 'map', data: Buffer.from(map) };
      if (extras.length > 0) return [ops, mapPart, ...extras, ...files];
      switch (order) {
        case 'map-first':
          return [mapPart, ops, ...files];
        case 'files-first':
          return [...files, ops, mapPart];
        case 'no-operations':
          return [mapPart, ...files];
        case 'no-map':
          return [ops, ...files];
        case 'duplicate-operations':
          return [ops, ops, mapPart, ...files];
        default:
          return [ops, mapPart, ...files];
      }
    });
  return fc
    .tuple(multipartOf(parts), fc.constantFrom(true, true, true, true, false))
    .map(([{ parts: built, ...model }, preflight]) => ({ kind: 'multipart' as const, parts: built, preflight, model }));
}

/** Operations as JSON bodies (single and batched) and GET query strings. */
export function graphqlRequests(schema: GraphQLSchema): fc.Arbitrary<GraphqlRequestModel & HttpPlan> {
  const operations = operationArbitrary(schema);
  return requestsWith(
    fc.oneof(
      { weight: 10, arbitrary: jsonBodies(operations) },
      {
        weight: 1,
        arbitrary: fc.array(operations, { minLength: 1, maxLength: 3 }).map((ops): BodyShape => ({ kind: 'batch', operations: ops })),
      },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant('get' as const),
          operation: operations,
          preflight: fc.constantFrom(true, true, true, false),
          extra: fc.array(
            fc.tuple(
              fc.constantFrom('query', 'variables', 'extensions', 'operationName', 'documentId', ...PROTOTYPE_NAMES),
              hostileString({ maxLength: 2_000 }),
            ),
            { maxLength: 2 },
          ),
        }),
      },
    ),
  );
}

/** GraphQL multipart requests (uploads), right and wrong. */
export function graphqlMultipartRequests(schema: GraphQLSchema): fc.Arbitrary<GraphqlRequestModel & HttpPlan> {
  return requestsWith(multipartBodies(operationArbitrary(schema)), true);
}

function requestsWith(body: fc.Arbitrary<BodyShape>, postOnly = false): fc.Arbitrary<GraphqlRequestModel & HttpPlan> {
  return fc
    .record({
      method: postOnly
        ? fc.constant('POST')
        : fc.oneof(
            { weight: 20, arbitrary: fc.constant('POST') },
            { weight: 1, arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD') },
          ),
      credential: graphqlCredential,
      body,
    })
    .map((model) =>
      withShortText({ ...model, build: (info: SystemInfo) => buildGraphqlRequest(model, info) }, () => shortStringify(model)),
    );
}

export function buildGraphqlRequest(model: GraphqlRequestModel, info: SystemInfo): HttpRequestSpec {
  const headers: Record<string, string> = { accept: 'application/json' };
  const auth = authorization(model.credential, info);
  if (auth !== undefined) headers.authorization = auth;
  const { body } = model;
  switch (body.kind) {
    case 'json': {
      const text = operationJson(body.operation, body.extensions);
      headers['content-type'] = body.contentType;
      return {
        method: model.method,
        url: info.gatewayUrl,
        headers,
        body: body.damage === 'none' ? text : body.damage === 'replace' ? body.replacement : corruptOnce(text),
      };
    }
    case 'batch':
      headers['content-type'] = 'application/json';
      return {
        method: model.method,
        url: info.gatewayUrl,
        headers,
        body: `[${body.operations.map((operation) => operationJson(operation)).join(',')}]`,
      };
    case 'get': {
      const query = new URLSearchParams();
      query.set('query', body.operation.document);
      if (body.operation.variables !== undefined) query.set('variables', body.operation.variables);
      if (body.operation.operationName !== undefined) query.set('operationName', body.operation.operationName);
      for (const [name, value] of body.extra) query.append(name, value);
      if (body.preflight) headers['apollo-require-preflight'] = 'true';
      return { method: 'GET', url: `${info.gatewayUrl}?${query.toString()}`, headers };
    }
    case 'multipart': {
      const model = { ...body.model, parts: body.parts };
      headers['content-type'] = multipartContentType(model);
      if (body.preflight) headers['apollo-require-preflight'] = 'true';
      return { method: 'POST', url: info.gatewayUrl, headers, body: multipartBytes(model) };
    }
  }
}

/** A deterministic corruption (the plan is rebuilt to describe it, so it must come out the same). */
function corruptOnce(text: string): string {
  return text.slice(0, Math.floor(text.length / 2));
}

export function createGraphqlDoor(name = 'graphql'): HttpDoor {
  return new HttpDoor({
    name,
    judge: (reply, request) => judgeGraphqlReply(reply, request.method),
    bookkeepingTables: { 'media.rate_counter': 'rate-limit counters count refused uploads too' },
    probes: [
      {
        name: 'List of one record through GraphQL',
        request: (info) => ({
          method: 'POST',
          url: info.gatewayUrl,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${info.areaA.adminToken}` },
          body: JSON.stringify({ query: 'query Probe { userExamples(params: {limit: 1}) { total } }' }),
        }),
        check: (reply) => {
          const body = reply.json as { data?: { userExamples?: { total?: unknown } } } | undefined;
          return reply.status === 200 && typeof body?.data?.userExamples?.total === 'string'
            ? undefined
            : `HTTP ${reply.status} ${reply.text.slice(0, 300)}`;
        },
      },
    ],
  });
}
