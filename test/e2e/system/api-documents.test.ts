import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appAccessToken } from '../../../lib/auth/social-auth/social-token.service.ts';
import { loadConfig, type Config } from '../../../lib/config.ts';
import { listen } from '../../../lib/http/http-server.ts';
import { createLogger } from '../../../lib/logger.ts';
import { createTelemetry } from '../../../lib/telemetry/telemetry.ts';
import { createRestAdapter } from '../../../rest-adapter/create-rest-adapter.ts';
import { API_DOCS_PATHS } from '../../../rest-adapter/docs/api-docs.routes.ts';
import type { GraphQLExecutor } from '../../../rest-adapter/graphql-executor.ts';
import { UPLOAD_PATH } from '../../../rest-adapter/media-upload/media-error-mapper.ts';
import {
  V2_APPEND_PATH,
  V2_FINALIZE_PATH,
  V2_INITIALIZE_PATH,
  V2_METADATA_PATH,
  V2_UPLOAD_PATH,
} from '../../../rest-adapter/media-upload/media-v2.routes.ts';
import type { SocialTables } from '../../../subgraphs/shared/social-graph/social-tables.ts';
import { SOCIAL_ROUTES, type SocialRouteKind } from '../../../rest-adapter/social-graph/social-route-table.ts';
import {
  expressRoutes,
  openApiPath,
  operationProblems,
  operationsOf,
  resolvePointer,
  schemaViolations,
  unresolvedReferences,
  type Json,
  type JsonObject,
} from '../../support/api-document-checks.ts';
import { createSocialTokens } from '../../../subgraphs/index.ts';
import { png } from '../../support/image-fixtures.ts';
import { createSocialFixture, OWN_PERMISSIONS, PARENT_PERMISSIONS, type SocialFixture } from '../../support/social-fixture.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * The API documents against the real routes. Statically: the routes the REST adapter registers (walked from its Express
 * router stack, the Graph dispatcher expanded through its own table SOCIAL_ROUTES) are exactly the documented paths and
 * methods, so a route added without documentation — or documentation of a route that does not exist — fails here.
 * Dynamically: every documented operation is called on a running system, on every host its `servers` name, and must
 * answer with a status the document lists and a body matching its schema — never the adapter's "no route" replies.
 */

const VERSION = 'v25.0';
/** Operational endpoints (telemetry) are not API operations; the documents leave them out on purpose. */
const OPERATIONAL_PATHS = new Set(['/health', '/ready', '/metrics']);
const isDocsPath = (path: string) =>
  path === API_DOCS_PATHS.openapi || path === API_DOCS_PATHS.uiDirectory || path.startsWith(`${API_DOCS_PATHS.uiDirectory}/`);

let system: TestSystem;
let social: SocialFixture;
let openapi: JsonObject;
let swagger: JsonObject;
/** An ad account of the fixture's business (Acme), which ana administers: POST authorized_adaccounts succeeds with it. */
let acmeAdAccount: string;
/** An app for the webhook subscription paths: its access token, and tokens of both hosts issued to it. */
let probeApp: { id: string; token: string; own: string; parent: string };
/** A webhook receiver on 127.0.0.1 that answers every verification request with its challenge. */
let receiver: Server | undefined;
let callbackUrl: string;

async function getJson(url: string): Promise<JsonObject> {
  const reply = await fetch(url);
  expect(reply.status).toBe(200);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  return (await reply.json()) as JsonObject;
}

beforeAll(async () => {
  system = await startTestSystem();
  social = await createSocialFixture(system.database);
  const adAccount = await system.database.db
    .withTables<SocialTables>()
    .insertInto('social.ad_account')
    .values({ business_id: social.businessId, name: 'Acme Holdings — probes' })
    .returning('id')
    .executeTakeFirstOrThrow();
  acmeAdAccount = `act_${adAccount.id}`;
  const tokens = createSocialTokens(system.database);
  const app = await tokens.createApp('API documents probe');
  const issue = (loginType: 'own' | 'parent', subjectId: string, permissions: readonly string[]) =>
    tokens.issue({ loginType, subjectId, permissions: [...permissions], expiresInSeconds: 3600, appId: app.id });
  probeApp = {
    id: app.id,
    token: appAccessToken(app),
    own: await issue('own', social.accounts.bluebottle, OWN_PERMISSIONS),
    parent: await issue('parent', social.platformUsers.ana, PARENT_PERMISSIONS),
  };
  const server = createServer((req, res) => {
    res
      .writeHead(200, { 'content-type': 'text/plain' })
      .end(new URL(req.url ?? '/', 'http://receiver').searchParams.get('hub.challenge') ?? '');
  });
  receiver = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  callbackUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  openapi = await getJson(`${system.restUrl}${API_DOCS_PATHS.openapi}`);
  swagger = await getJson(`${system.restUrl}${API_DOCS_PATHS.swagger}`);
});

afterAll(async () => {
  await system?.close();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
});

describe('the Swagger 2.0 document of Area A', () => {
  it('is Swagger "2.0" with info.version "2.0", sponge’s title, the BearerAuth scheme and this listener as host', () => {
    expect(swagger.swagger).toBe('2.0');
    expect(swagger.info).toMatchObject({ title: 'serverNameExample api docs', version: '2.0' });
    expect(swagger.securityDefinitions).toEqual({
      BearerAuth: { type: 'apiKey', name: 'Authorization', in: 'header', description: 'Type Bearer your-jwt-token to Value' },
    });
    expect(swagger.host).toBe(new URL(system.restUrl).host);
    expect(swagger.schemes).toEqual(['http', 'https']);
    expect(swagger.consumes).toEqual(['application/json']);
    expect(swagger.produces).toEqual(['application/json']);
    expect(swagger.tags).toEqual([{ name: 'userExample' }]);
  });

  it('has the five RPCs with protoc-gen-openapiv2’s operationIds and definition names', () => {
    const operations = operationsOf(swagger).map(({ path, method, operation }) => [method.toUpperCase(), path, operation.operationId]);
    expect(operations).toEqual([
      ['POST', '/api/v1/userExample', 'userExample_Create'],
      ['POST', '/api/v1/userExample/list', 'userExample_List'],
      ['GET', '/api/v1/userExample/{id}', 'userExample_GetByID'],
      ['PUT', '/api/v1/userExample/{id}', 'userExample_UpdateByID'],
      ['DELETE', '/api/v1/userExample/{id}', 'userExample_DeleteByID'],
    ]);
    expect(Object.keys(swagger.definitions as JsonObject).sort()).toEqual([
      'protobufAny',
      'rpcStatus',
      'typesColumn',
      'typesParams',
      'userExampleUpdateByIDBody',
      'v1CreateUserExampleReply',
      'v1CreateUserExampleRequest',
      'v1DeleteUserExampleByIDReply',
      'v1GenderType',
      'v1GetUserExampleByIDReply',
      'v1ListUserExampleReply',
      'v1ListUserExampleRequest',
      'v1UpdateUserExampleByIDReply',
      'v1UserExample',
    ]);
    // Every operation but Create asks for the token, so Swagger UI sends it; every error is a google.rpc.Status.
    for (const { operation } of operationsOf(swagger)) {
      expect(operation.security).toEqual(operation.operationId === 'userExample_Create' ? [{}, { BearerAuth: [] }] : [{ BearerAuth: [] }]);
      for (const [status, response] of Object.entries(operation.responses as JsonObject)) {
        if (status !== '200') expect((response as JsonObject).schema).toEqual({ $ref: '#/definitions/rpcStatus' });
      }
    }
  });

  it('writes every 64-bit integer as a string', () => {
    const found: string[] = [];
    const walk = (node: Json, at: string) => {
      if (Array.isArray(node)) node.forEach((item, index) => walk(item, `${at}/${index}`));
      else if (node !== null && typeof node === 'object') {
        if (node.format === 'int64' || node.format === 'uint64') {
          found.push(at);
          expect(node.type, at).toBe('string');
        }
        for (const [key, value] of Object.entries(node)) walk(value, `${at}/${key}`);
      }
    };
    walk(swagger, '#');
    // ids (replies, the record, the path parameters), loginAt (record, update body) and total.
    expect(found.length).toBeGreaterThanOrEqual(8);
    expect(found).toContain('#/definitions/v1ListUserExampleReply/properties/total');
    expect(found).toContain('#/definitions/v1UserExample/properties/loginAt');
  });

  it('has only references that resolve and declared, required path parameters', () => {
    expect(unresolvedReferences(swagger)).toEqual([]);
    expect(operationProblems(swagger)).toEqual([]);
  });
});

describe('the OpenAPI 3 document of every REST path', () => {
  it('is OpenAPI 3.x, naming both hosts with the listener that served it first', async () => {
    expect(openapi.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect((openapi.servers as JsonObject[]).map((server) => server.url)).toEqual([system.restUrl, system.socialParentUrl]);
    const fromParent = await getJson(`${system.socialParentUrl}${API_DOCS_PATHS.openapi}`);
    expect((fromParent.servers as JsonObject[]).map((server) => server.url)).toEqual([system.socialParentUrl, system.restUrl]);
    // Paths served on one host name it whichever listener serves the document.
    expect(fromParent.paths).toEqual(openapi.paths);
  });

  it('has only references that resolve, declared path parameters and unique operationIds', () => {
    expect(unresolvedReferences(openapi)).toEqual([]);
    expect(operationProblems(openapi)).toEqual([]);
  });

  it('describes Area A as the Swagger 2.0 document does, on the own-login host only', () => {
    const areaA = operationsOf(openapi).filter(({ path }) => path.startsWith('/api/'));
    expect(areaA.map(({ path, method, operation }) => [method, path, operation.operationId])).toEqual(
      operationsOf(swagger).map(({ path, method, operation }) => [method, path, operation.operationId]),
    );
    for (const { item } of areaA) expect(item.servers).toEqual([{ url: system.restUrl, description: expect.any(String) }]);
  });

  it('documents each area’s own error bodies', () => {
    const errorSchema = (path: string, method: string, status: string) => {
      const operation = (openapi.paths as Record<string, JsonObject>)[path]![method] as JsonObject;
      let response = (operation.responses as JsonObject)[status] as JsonObject;
      if (typeof response.$ref === 'string') response = resolvePointer(openapi, response.$ref) as JsonObject;
      return ((response.content as JsonObject)['application/json'] as JsonObject).schema;
    };
    expect(errorSchema('/api/v1/userExample/{id}', 'get', '404')).toEqual({ $ref: '#/components/schemas/rpcStatus' });
    expect(errorSchema('/{api-version}/{comment-id}/replies', 'post', '400')).toEqual({ $ref: '#/components/schemas/GraphError' });
    expect(errorSchema('/me', 'get', '400')).toEqual({ $ref: '#/components/schemas/GraphError' });
    expect(errorSchema(UPLOAD_PATH, 'post', '400')).toEqual({
      anyOf: [{ $ref: '#/components/schemas/TwitterErrors' }, { $ref: '#/components/schemas/MediaUnrecognized' }],
    });
    expect(errorSchema(UPLOAD_PATH, 'post', '401')).toEqual({ $ref: '#/components/schemas/TwitterErrors' });
  });
});

// ---- documented vs served ----

type Host = 'own' | 'parent';

function testAdapters(config: Config) {
  const logger = createLogger({ level: 'silent' });
  const telemetry = createTelemetry(
    { metricsEnabled: false, tracing: config.telemetry.tracing, readyTimeoutMs: config.telemetry.readyTimeoutMs },
    'api-documents-test',
    logger,
  );
  const executor: GraphQLExecutor = {
    execute: async () => {
      throw new Error('the route walk runs no operation');
    },
  };
  const common = {
    executor,
    logger,
    telemetry,
    corsOrigins: [],
    bodyLimitBytes: config.rest.bodyLimitBytes,
    media: { maxBytes: config.media.maxBytes, base64BodyBytes: config.media.base64BodyBytes },
    apiDocs: config.rest.apiDocs,
  };
  return {
    own: createRestAdapter({ ...common, socialHost: 'own' }).app,
    parent: createRestAdapter({ ...common, socialHost: 'parent' }).app,
  };
}

const graphKey = (method: string, versioned: boolean, kind: SocialRouteKind, edge: string | undefined) =>
  `${method.toUpperCase()} ${versioned ? '/{api-version}' : ''}/<${kind}>${edge === undefined ? '' : `/${edge}`}`;

/** The Graph dispatcher's routes on a host, from its table: the node and its edges, with and without the version. */
function graphRoutes(host: Host): string[] {
  const keys: string[] = [];
  for (const [kind, routes] of Object.entries(SOCIAL_ROUTES) as [SocialRouteKind, (typeof SOCIAL_ROUTES)[SocialRouteKind]][]) {
    if (!(routes.hosts as readonly Host[]).includes(host)) continue;
    for (const versioned of [true, false]) {
      for (const method of routes.node) keys.push(graphKey(method, versioned, kind, undefined));
      for (const [edge, methods] of Object.entries(routes.edges) as [string, readonly string[]][]) {
        for (const method of methods) keys.push(graphKey(method, versioned, kind, edge));
      }
    }
  }
  return keys;
}

/** The v2 media paths, whose catch-alls answer v2's method-not-allowed problem. */
const V2_MEDIA_PATHS = new Set([V2_UPLOAD_PATH, V2_INITIALIZE_PATH, V2_APPEND_PATH, V2_FINALIZE_PATH, V2_METADATA_PATH]);

/** What a listener serves, as comparable keys; throws on a catch-all it cannot classify. */
function servedKeys(app: ReturnType<typeof testAdapters>['own'], host: Host): string[] {
  const keys: string[] = [];
  for (const route of expressRoutes(app)) {
    const path = route.path;
    if (route.method === 'ALL') {
      // The catch-alls: the Graph dispatcher (expanded from its table) and Area D's not-found/not-allowed replies.
      if (String(path) === String(/.*/)) keys.push(...graphRoutes(host));
      else if (
        path !== UPLOAD_PATH &&
        !V2_MEDIA_PATHS.has(String(path)) &&
        String(path) !== String(/^\/1\.1(\/|$)/) &&
        String(path) !== String(/^\/2(\/|$)/)
      ) {
        throw new Error(`unclassified catch-all route ${String(path)}`);
      }
      continue;
    }
    if (typeof path !== 'string') throw new Error(`unclassified route ${route.method} ${String(path)}`);
    if (OPERATIONAL_PATHS.has(path) || isDocsPath(path)) continue;
    keys.push(`${route.method} ${openApiPath(path)}`);
  }
  return keys;
}

/** The host each server of an operation is (the test system's two listeners). */
function hostsOf(item: JsonObject): Host[] {
  const servers = (item.servers ?? openapi.servers) as JsonObject[];
  return servers.map((server) => {
    if (server.url === system.restUrl) return 'own';
    if (server.url === system.socialParentUrl) return 'parent';
    throw new Error(`unknown server ${String(server.url)}`);
  });
}

/** What the document claims, as the same keys. */
function documentedKeys(): string[] {
  const keys: string[] = [];
  for (const { path, method, operation, item } of operationsOf(openapi)) {
    if (path.startsWith('/api/') || path.startsWith('/1.1/') || path.startsWith('/2/')) {
      keys.push(`${method.toUpperCase()} ${path}`);
      continue;
    }
    const segments = path.split('/').filter(Boolean);
    const versioned = segments[0] === '{api-version}';
    if (versioned) segments.shift();
    const [node, edge, ...rest] = segments;
    expect(rest, path).toEqual([]);
    const kinds = operation['x-graph-nodes'] as string[];
    expect(kinds.length, `${path} x-graph-nodes`).toBeGreaterThan(0);
    for (const kind of kinds) {
      expect(node === 'me', `${path}: the node segment names ${kind}`).toBe(kind === 'me');
      if (kind !== 'me') {
        keys.push(graphKey(method, versioned, kind as SocialRouteKind, edge));
        continue;
      }
      for (const host of hostsOf(item)) keys.push(graphKey(method, versioned, host === 'own' ? 'me-own' : 'me-parent', edge));
    }
  }
  return keys;
}

describe('documents vs routes', () => {
  it('documents every route the adapter serves, and serves every documented route', () => {
    const adapters = testAdapters(system.config);
    const served = [...new Set([...servedKeys(adapters.own, 'own'), ...servedKeys(adapters.parent, 'parent')])].sort();
    const documented = [...new Set(documentedKeys())].sort();
    // Expected: what the adapter serves; received: what the document describes.
    expect(documented).toEqual(served);
    // Sanity: the walk saw every area.
    expect(served).toContain('GET /api/v1/userExample/{id}');
    expect(served).toContain(`POST ${UPLOAD_PATH}`);
    expect(served).toContain('GET /{api-version}/<me-parent>/accounts');
    expect(served).toContain('DELETE /<comment>');
  });

  it('answers every documented operation on every documented host, with a documented status and body', async () => {
    const probes = await probeEveryOperation();
    const failures = probes.filter((probe) => probe.problems.length > 0).map((probe) => `${probe.label}: ${probe.problems.join('; ')}`);
    expect(failures).toEqual([]);
    // The error answers are domain answers, and only where the document says an operation is not on that host.
    const errors = probes.filter((probe) => probe.status !== 200).map((probe) => `${probe.label} → ${probe.status} ${probe.summary}`);
    // (`/me/<edge>` on the own-login host, for the edges that exist on the parent-platform host only.)
    const parentOnly = [
      ['GET', 'recently_searched_hashtags'],
      ['GET', 'upcoming_events'],
      ['POST', 'upcoming_events'],
      ['GET', 'agencies'],
      ['GET', 'authorized_adaccounts'],
      ['POST', 'authorized_adaccounts'],
    ];
    const expected = parentOnly.flatMap(([method, edge]) =>
      [`/${VERSION}/me/${edge}`, `/me/${edge}`].map(
        (path) => `${method} own ${path} → 400 100: (#100) Tried accessing nonexisting field (${edge}) on node type (SocialUser)`,
      ),
    );
    expect(errors.sort()).toEqual(expected.sort());
    expect(probes.length).toBeGreaterThan(100);
  });
});

describe('REST_API_DOCS=false', () => {
  it('serves neither the documents nor Swagger UI (the paths are unknown paths)', async () => {
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', REST_API_DOCS: 'false' });
    expect(config.rest.apiDocs).toBe(false);
    const adapter = testAdapters(config).own;
    const server = await listen(adapter, { port: 0, host: '127.0.0.1', publicHost: '127.0.0.1' });
    try {
      for (const path of [API_DOCS_PATHS.openapi, API_DOCS_PATHS.swagger, API_DOCS_PATHS.ui]) {
        const reply = await fetch(`${server.url}${path}`);
        expect(reply.status).toBe(404);
        expect(await reply.json()).toEqual({ code: 5, message: `no route for GET ${path}`, details: [] });
      }
    } finally {
      await server.close();
    }
  });
});

// ---- probing every documented operation ----

interface ProbeResult {
  label: string;
  status: number;
  summary: string;
  problems: string[];
}

let sequence = 0;

async function json(url: string, init: RequestInit): Promise<{ status: number; body: any }> {
  const reply = await fetch(url, init);
  return { status: reply.status, body: await reply.json() };
}

/** A fresh user record (deletes get their own). */
async function freshRecord(): Promise<string> {
  sequence += 1;
  const reply = await json(`${system.restUrl}/api/v1/userExample`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(newUser()),
  });
  expect(reply.status).toBe(200);
  return reply.body.id as string;
}

function newUser() {
  sequence += 1;
  return {
    name: `Probe ${sequence}`,
    email: `probe.${sequence}@example.com`,
    password: 'probe-password',
    phone: '13800138000',
    avatar: 'https://example.com/p.png',
    age: 30,
    gender: 'FEMALE',
  };
}

const graphForm = (values: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${social.tokens.own}` },
  body: new URLSearchParams(values).toString(),
});

/** A fresh comment by the media owner on its own post (deletes and hides get their own). */
async function freshComment(): Promise<string> {
  const reply = await json(`${system.restUrl}/${VERSION}/${social.posts[2]}/comments`, graphForm({ message: `Probe ${++sequence}` }));
  expect(reply.status).toBe(200);
  return reply.body.id as string;
}

/** A fresh image container (each publish consumes one). */
async function freshContainer(): Promise<string> {
  const reply = await json(
    `${system.restUrl}/${VERSION}/${social.accounts.bluebottle}/media`,
    graphForm({ image_url: 'https://cdn.example.com/probe.jpg' }),
  );
  expect(reply.status).toBe(200);
  return reply.body.id as string;
}

/** The adapter's "no route" replies, per area: what a documented operation must never answer. */
function routeMiss(status: number, body: any): string | undefined {
  if (status === 405) return 'method not allowed';
  if (status === 404 && typeof body?.message === 'string' && body.message.startsWith('no route for')) return 'no route (Area A fallback)';
  if (status === 404 && body?.errors?.[0]?.code === 34) return 'no route (Area D fallback)';
  if (body?.error?.code === 2500 && String(body.error.message).startsWith('Unknown path components')) return 'unknown Graph path';
  if (body?.error?.code === 100 && body.error.error_subcode === 33) return 'Graph 100/33: unsupported operation or unknown object';
  return undefined;
}

async function probeEveryOperation(): Promise<ProbeResult[]> {
  const record = await freshRecord();
  const container = await freshContainer();
  const results: ProbeResult[] = [];
  for (const { path, method, operation, item } of operationsOf(openapi)) {
    for (const host of hostsOf(item)) {
      const kinds = (operation['x-graph-nodes'] as string[] | undefined) ?? [undefined];
      for (const kind of kinds) {
        results.push(await probe({ path, method, operation, host, kind, record, container }));
      }
    }
  }
  return results;
}

/** A PNG uploaded by the media owner: in one request, or through the chunked commands (INIT, APPEND, FINALIZE). */
/** A v2 upload session of a small PNG, with its one segment appended when `appended` (ready to finalize). */
async function openedSession(appended: boolean): Promise<string> {
  const bytes = png(8, 8);
  const post = async (path: string, body: unknown) => {
    const reply = await fetch(new URL(path, system.restUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${social.tokens.own}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const parsed = (await reply.json()) as { data: { id: string } };
    expect(reply.status, JSON.stringify(parsed)).toBe(200);
    return parsed;
  };
  const { data } = await post(V2_INITIALIZE_PATH, { media_type: 'image/png', total_bytes: bytes.length });
  if (appended) await post(`/2/media/upload/${data.id}/append`, { media: Buffer.from(bytes).toString('base64'), segment_index: 0 });
  return data.id;
}

async function uploadedMediaId(chunked: boolean): Promise<string> {
  const bytes = png(8, 8);
  const send = async (fields: Record<string, string>, file?: Uint8Array) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    if (file) form.set('media', new Blob([file], { type: 'image/png' }), 'probe.png');
    const reply = await fetch(new URL(UPLOAD_PATH, system.restUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${social.tokens.own}` },
      body: form,
    });
    const text = await reply.text();
    if (reply.status >= 300) throw new Error(`probe upload: ${reply.status} ${text}`);
    return text === '' ? {} : (JSON.parse(text) as { media_id_string?: string });
  };
  if (!chunked) return (await send({}, bytes)).media_id_string!;
  const id = (await send({ command: 'INIT', total_bytes: String(bytes.length), media_type: 'image/png' })).media_id_string!;
  await send({ command: 'APPEND', media_id: id, segment_index: '0' }, bytes);
  await send({ command: 'FINALIZE', media_id: id });
  return id;
}

async function probe(request: {
  path: string;
  method: string;
  operation: JsonObject;
  host: Host;
  kind: string | undefined;
  record: string;
  container: string;
}): Promise<ProbeResult> {
  const { method, operation, host, kind } = request;
  const problems: string[] = [];
  const base = host === 'own' ? system.restUrl : system.socialParentUrl;
  const operationId = String(operation.operationId);

  // Path parameters: real objects of the fixture; writes that consume or remove one get a fresh one.
  const nodeIds: Record<string, () => Promise<string>> = {
    comment: async () => (method === 'get' ? social.comments.fanComment : freshComment()),
    media: async () => social.posts[1]!,
    account: async () => social.accounts.bluebottle,
    container: async () => request.container,
  };
  const values: Record<string, () => Promise<string>> = {
    'api-version': async () => VERSION,
    // Area A's records; on the v2 media paths, an open upload session with its one segment appended (finalize) or none.
    id: async () =>
      request.path.startsWith('/2/')
        ? openedSession(request.path.endsWith('/finalize'))
        : method === 'delete'
          ? freshRecord()
          : request.record,
    'comment-id': async () => social.comments.fanComment,
    'media-id': async () => (request.path.endsWith('/children') ? social.media.carousel : social.posts[0]!),
    'account-id': async () => social.accounts.bluebottle,
    'node-id': async () => nodeIds[kind ?? '']!(),
    'app-id': async () => probeApp.id,
    'page-id': async () => social.pages.roaster,
  };
  let path = request.path;
  for (const [, name] of request.path.matchAll(/\{([^}]+)\}/g)) {
    const value = values[name!];
    if (!value) return { label: `${method} ${request.path}`, status: 0, summary: '', problems: [`no probe value for {${name}}`] };
    path = path.replace(`{${name}}`, await value());
  }
  const label = `${method.toUpperCase()} ${host} ${request.path.replace('{api-version}', VERSION)}${request.path.includes('{node-id}') ? ` (${kind})` : ''}`;

  // Required query parameters, and the parameters of writes.
  const formValues: Record<string, () => Promise<string>> = {
    message: async () => `Probe ${++sequence}`,
    hide: async () => 'false',
    metric: async () => 'reach',
    creation_id: freshContainer,
    image_url: async () => 'https://cdn.example.com/probe.jpg',
    // The chunked upload's STATUS takes a finalized upload's id; the Graph edges a social media id.
    media_id: async () =>
      request.path === UPLOAD_PATH || request.path === V2_UPLOAD_PATH ? uploadedMediaId(true) : social.media.roasterPost,
    title: async () => 'Probe event',
    start_time: async () => new Date(Date.now() + 86_400_000).toISOString(),
    account_id: async () => acmeAdAccount,
    business: async () => social.businessId,
    command: async () => 'STATUS',
    // The webhook subscriptions (a callback that answers the challenge) and an account's subscription to the app.
    object: async () => 'social',
    callback_url: async () => callbackUrl,
    fields: async () => 'comments,mentions',
    verify_token: async () => 'probe-verify-token',
    include_values: async () => 'true',
    subscribed_fields: async () => (host === 'own' ? 'comments' : 'feed'),
  };
  const url = new URL(path, base);
  for (const parameter of (operation.parameters ?? []) as JsonObject[]) {
    if (parameter.in !== 'query' || parameter.required !== true) continue;
    const value = formValues[String(parameter.name)];
    if (!value) problems.push(`no probe value for required parameter ${String(parameter.name)}`);
    else url.searchParams.set(String(parameter.name), await value());
  }
  if (operationId.startsWith('getAccountInsights') || operationId.startsWith('me_getAccountInsights'))
    url.searchParams.set('period', 'day');

  // Credentials by scheme: Area A's JWT, the host's social token, the uploader's bearer token.
  const headers: Record<string, string> = {};
  const schemes = ((operation.security ?? []) as JsonObject[]).flatMap((requirement) => Object.keys(requirement));
  if (schemes.includes('BearerAuth')) headers.authorization = `Bearer ${system.adminToken()}`;
  else if (schemes.includes('GraphAppBearer')) headers.authorization = `Bearer ${probeApp.token}`;
  else if (schemes.includes('GraphBearer')) {
    // `subscribed_apps` subscribes an account to the token's app: a token issued to one.
    const tokens = request.path.endsWith('/subscribed_apps') ? probeApp : social.tokens;
    headers.authorization = `Bearer ${host === 'own' ? tokens.own : tokens.parent}`;
  } else if (schemes.includes('UploadAuthorization')) headers.authorization = `Bearer ${social.tokens.own}`;
  else problems.push(`no security scheme the probe knows: ${schemes.join(', ')}`);

  let body: string | FormData | undefined;
  const content = ((operation.requestBody as JsonObject | undefined)?.content ?? {}) as JsonObject;
  if (request.path.startsWith('/2/') && 'application/json' in content) {
    // v2 media: JSON bodies (the one-shot upload and append take multipart too).
    const bodies: Record<string, unknown> = {
      initializeMediaUploadV2: { media_type: 'image/png', total_bytes: png(8, 8).length },
      appendMediaUploadV2: { media: Buffer.from(png(8, 8)).toString('base64'), segment_index: 0 },
      uploadMediaV2: { media: Buffer.from(png(8, 8)).toString('base64'), media_category: 'tweet_image' },
      createMediaMetadataV2: { id: await uploadedMediaId(false), metadata: { alt_text: { text: 'Probe' } } },
    };
    if (!(operationId in bodies)) problems.push(`no probe body for ${operationId}`);
    headers['content-type'] = 'application/json';
    body = JSON.stringify(bodies[operationId]);
  } else if ('multipart/form-data' in content) {
    const form = new FormData();
    form.set('media', new Blob([png(8, 8)], { type: 'image/png' }), 'probe.png');
    body = form;
  } else if ('application/x-www-form-urlencoded' in content) {
    const schema = (content['application/x-www-form-urlencoded'] as JsonObject).schema as JsonObject;
    const form = new URLSearchParams();
    for (const name of Object.keys((schema.properties ?? {}) as JsonObject)) {
      const value = formValues[name];
      if (value) form.set(name, await value());
      else if (((schema.required ?? []) as string[]).includes(name)) problems.push(`no probe value for required body field ${name}`);
    }
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = form.toString();
  } else if ('application/json' in content) {
    const bodies: Record<string, unknown> = {
      userExample_Create: newUser(),
      userExample_List: { params: { limit: 5 } },
      userExample_UpdateByID: { age: 40 },
      createMediaMetadata: {
        media_id: operationId === 'createMediaMetadata' ? await uploadedMediaId(false) : '',
        alt_text: { text: 'Probe' },
      },
    };
    if (!(operationId in bodies)) problems.push(`no probe body for ${operationId}`);
    headers['content-type'] = 'application/json';
    body = JSON.stringify(bodies[operationId]);
  }

  const reply = await fetch(url, { method: method.toUpperCase(), headers, ...(body !== undefined && { body }) });
  const text = await reply.text();
  let parsed: unknown;
  // An empty body is an answer only where the document says so (a response without content, e.g. media metadata's 200).
  const empty = text === '';
  try {
    if (!empty) parsed = JSON.parse(text);
  } catch {
    problems.push(`reply is not JSON: ${text.slice(0, 80)}`);
  }
  const missed = routeMiss(reply.status, parsed);
  if (missed) problems.push(`answered as an unknown route (${missed}): ${text.slice(0, 200)}`);

  const responses = operation.responses as JsonObject;
  let response = (responses[String(reply.status)] ?? responses.default) as JsonObject | undefined;
  if (!response) problems.push(`status ${reply.status} is not documented`);
  else {
    if (typeof response.$ref === 'string') response = resolvePointer(openapi, response.$ref) as JsonObject;
    const schema = ((response.content as JsonObject | undefined)?.['application/json'] as JsonObject | undefined)?.schema;
    if (empty) {
      if (response.content !== undefined) problems.push(`empty reply where ${reply.status} documents a body`);
    } else if (!schema) problems.push(`no JSON schema documented for ${reply.status}`);
    else problems.push(...schemaViolations(openapi, schema, parsed));
  }
  const error = (parsed as any)?.error ?? (parsed as any)?.errors?.[0] ?? (reply.status === 200 ? undefined : parsed);
  const summary = error ? `${String(error.code)}: ${String(error.message)}` : '';
  return { label, status: reply.status, summary, problems };
}
