import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOAuthCredentialStore } from '../../../subgraphs/index.ts';
import { createUserExampleGrpcClient, type UserExampleGrpcClient } from '../../support/grpc-user-client.ts';
import { fixture } from '../../support/image-fixtures.ts';
import { createLogCapture, parseMetrics, sampleValue, type LogCapture, type MetricSample } from '../../support/log-capture.ts';
import { mediaFormData, mediaUploadUrl, oauth1Authorization, sendMediaRequest } from '../../support/media-client.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * What operators see of a running system: /health, /ready and /metrics on every HTTP listener, the metrics each front
 * door reports, the gRPC health service, one request id across the hops' logs, and no secret in any log line — through
 * the real front doors, with the logs captured at the most verbose level.
 */

const CREATE = {
  name: 'Grace Hopper',
  email: 'grace@observability.test',
  password: 'cobol-compiler-1959',
  phone: '13800138000',
  avatar: 'https://example.com/grace.png',
  age: 85,
  gender: 'FEMALE',
};

async function metricsOf(baseUrl: string): Promise<MetricSample[]> {
  const response = await fetch(new URL('/metrics', baseUrl));
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseMetrics(await response.text());
}

describe('probes and metrics of the embedded system', () => {
  let system: TestSystem;
  let world: SocialFixture;
  let grpc: UserExampleGrpcClient;
  const logs: LogCapture = createLogCapture();

  beforeAll(async () => {
    system = await startTestSystem({ LOG_LEVEL: 'trace', MEDIA_RATE_UPLOADS_PER_WINDOW: '2' }, { logDestination: logs });
    world = await createSocialFixture(system.database);
    grpc = createUserExampleGrpcClient(system.grpcAddress);
  });

  afterAll(async () => {
    grpc?.close();
    await system?.close();
  });

  const listeners = () => ({
    gateway: new URL(system.gatewayUrl).origin,
    'rest-own': system.restUrl,
    'rest-parent': system.socialParentUrl,
  });

  it('answers /health and /ready with every check UP on each of its HTTP listeners', async () => {
    for (const base of Object.values(listeners())) {
      const health = await fetch(new URL('/health', base));
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'UP' });
      const ready = await fetch(new URL('/ready', base));
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({
        status: 'UP',
        checks: { database: { status: 'UP' }, blobStore: { status: 'UP' }, supergraph: { status: 'UP' } },
      });
    }
  });

  it('answers SERVING on the gRPC health service while ready', async () => {
    expect(await grpc.health()).toBe('SERVING');
    expect(await grpc.health('api.serverNameExample.v1.userExample')).toBe('SERVING');
  });

  it('counts REST routes, GraphQL operations, gRPC methods, SQL, uploads and rate-limit refusals', async () => {
    const admin = system.adminToken();
    const created = await fetch(new URL('/api/v1/userExample', system.restUrl), { method: 'POST', body: JSON.stringify(CREATE) });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };
    for (let i = 0; i < 2; i++) {
      const read = await fetch(new URL(`/api/v1/userExample/${id}`, system.restUrl), { headers: { authorization: `Bearer ${admin}` } });
      expect(read.status).toBe(200);
    }
    const missing = await fetch(new URL('/api/v1/userExample/999999', system.restUrl), { headers: { authorization: `Bearer ${admin}` } });
    expect(missing.status).toBe(404);
    const graphql = await fetch(system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body: JSON.stringify({ query: `query ReadOne { userExample(id: "${id}") { id name } }`, operationName: 'ReadOne' }),
    });
    expect(graphql.status).toBe(200);
    const unauthenticated = await fetch(system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `query ReadOne { userExample(id: "${id}") { id } }`, operationName: 'ReadOne' }),
    });
    expect(((await unauthenticated.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe(
      'UNAUTHENTICATED',
    );
    await grpc.call('GetByID', { id }, { authorization: `Bearer ${admin}` });
    await expect(grpc.call('GetByID', { id: '999999' }, { authorization: `Bearer ${admin}` })).rejects.toMatchObject({ code: 5 });
    const social = await fetch(new URL(`/v21.0/${world.accounts.bluebottle}?fields=username`, system.restUrl), {
      headers: { authorization: `Bearer ${world.tokens.own}` },
    });
    expect(social.status).toBe(200);
    const image = fixture('image.png');
    const uploadUrl = mediaUploadUrl(system.restUrl);
    const upload = () =>
      sendMediaRequest(uploadUrl, { authorization: `Bearer ${world.tokens.own}`, body: mediaFormData([{ name: 'media', bytes: image }]) });
    expect((await upload()).status).toBe(200);
    expect((await upload()).status).toBe(200);
    expect((await upload()).status).toBe(429);

    const samples = await metricsOf(system.restUrl);
    const http = (labels: Record<string, string>) =>
      sampleValue(samples, 'tributary_http_requests_total', { process: 'tributary', ...labels });
    expect(http({ listener: 'rest-own', method: 'POST', route: '/api/v1/userExample', status: '200' })).toBe(1);
    expect(http({ listener: 'rest-own', method: 'GET', route: '/api/v1/userExample/:id', status: '200' })).toBe(2);
    expect(http({ listener: 'rest-own', method: 'GET', route: '/api/v1/userExample/:id', status: '404' })).toBe(1);
    expect(http({ listener: 'rest-own', method: 'GET', route: '/{version}/{id}', status: '200' })).toBe(1);
    expect(http({ listener: 'rest-own', method: 'POST', route: '/1.1/media/upload.json', status: '429' })).toBe(1);
    expect(http({ listener: 'gateway', method: 'POST', route: '/graphql', status: '200' })).toBe(2);
    expect(
      sampleValue(samples, 'tributary_http_request_duration_seconds_count', {
        listener: 'rest-own',
        method: 'GET',
        route: '/api/v1/userExample/:id',
      }),
    ).toBe(3);
    expect(
      sampleValue(samples, 'tributary_graphql_operation_duration_seconds_count', {
        server: 'gateway',
        operation: 'ReadOne',
        type: 'query',
      }),
    ).toBe(2);
    expect(sampleValue(samples, 'tributary_graphql_errors_total', { server: 'gateway', code: 'UNAUTHENTICATED' })).toBe(1);
    // The REST adapter's operations run through the gateway too, under their own names.
    expect(sampleValue(samples, 'tributary_graphql_errors_total', { server: 'gateway', code: 'NOT_FOUND' })).toBe(1);
    expect(sampleValue(samples, 'tributary_grpc_request_duration_seconds_count', { method: 'GetByID', code: 'OK' })).toBe(1);
    expect(sampleValue(samples, 'tributary_grpc_request_duration_seconds_count', { method: 'GetByID', code: 'NOT_FOUND' })).toBe(1);
    expect(sampleValue(samples, 'tributary_db_query_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThan(10);
    expect(sampleValue(samples, 'tributary_media_uploads_total', { outcome: 'stored' })).toBe(2);
    expect(sampleValue(samples, 'tributary_media_upload_bytes_total')).toBe(2 * image.length);
    expect(sampleValue(samples, 'tributary_rate_limit_rejections_total', { area: 'media', scope: 'upload' })).toBe(1);
    // Node's own process metrics are there too.
    expect(sampleValue(samples, 'process_cpu_user_seconds_total', { process: 'tributary' })).toBeGreaterThan(0);
  });

  it('serves the same registry on every listener of the process', async () => {
    const names = async (base: string) => new Set((await metricsOf(base)).map((sample) => sample.name));
    const [gateway, parent] = await Promise.all([names(listeners().gateway), names(system.socialParentUrl)]);
    expect(gateway.has('tributary_http_requests_total')).toBe(true);
    expect(parent.has('tributary_grpc_request_duration_seconds_count')).toBe(true);
  });

  it('echoes the caller’s X-Request-Id, makes one when there is none, and logs every request with it', async () => {
    logs.clear();
    const admin = system.adminToken();
    const given = await fetch(new URL('/api/v1/userExample/999999', system.restUrl), {
      headers: { authorization: `Bearer ${admin}`, 'x-request-id': 'obs-embedded-1' },
    });
    expect(given.headers.get('x-request-id')).toBe('obs-embedded-1');
    const made = await fetch(new URL('/health', system.restUrl));
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const malformed = await fetch(new URL('/health', system.restUrl), { headers: { 'x-request-id': 'spaces are not allowed' } });
    expect(malformed.headers.get('x-request-id')).not.toBe('spaces are not allowed');
    const access = logs.entries().find((entry) => entry.msg === 'request' && entry.requestId === 'obs-embedded-1');
    expect(access).toMatchObject({ listener: 'rest-own', method: 'GET', route: '/api/v1/userExample/:id', status: 404, level: 30 });
    expect(typeof access!.durationMs).toBe('number');
  });
});

describe('one request id across the hops of the distributed topology, and no secret in any log line', () => {
  let system: TestSystem;
  let world: SocialFixture;
  const logs: LogCapture = createLogCapture();

  beforeAll(async () => {
    system = await startDistributedTestSystem({ LOG_LEVEL: 'trace' }, { logDestination: logs });
    world = await createSocialFixture(system.database);
  });

  afterAll(async () => {
    await system?.close();
  });

  it('logs a REST request on the adapter and on the subgraph it reached under the caller’s id', async () => {
    logs.clear();
    const response = await fetch(new URL(`/v21.0/${world.accounts.bluebottle}?fields=username`, system.restUrl), {
      headers: { authorization: `Bearer ${world.tokens.own}`, 'x-request-id': 'obs-hops-1' },
    });
    expect(response.status).toBe(200);
    const lines = logs.entries().filter((entry) => entry.requestId === 'obs-hops-1' && entry.msg === 'request');
    expect(lines.map((line) => line.listener).sort()).toEqual(['rest-own', 'subgraph-accounts']);
  });

  it('writes no token, password, OAuth secret, signature or image data to the logs, even for failing requests', async () => {
    logs.clear();
    const admin = system.adminToken();
    const store = createOAuthCredentialStore(system.database);
    const app = await store.createConsumer('log test app');
    const access = await store.issueAccessToken(app.consumerKey, world.accounts.bluebottle);
    const password = 'never-log-this-password-123';
    const secrets = [admin, world.tokens.own, world.tokens.parent, password, app.consumerSecret, access.tokenSecret];

    // Area A: a create with a password, a malformed body with a password, a bearer token on a read.
    await fetch(new URL('/api/v1/userExample', system.restUrl), {
      method: 'POST',
      body: JSON.stringify({ ...CREATE, email: 'logs@observability.test', password }),
    });
    await fetch(new URL('/api/v1/userExample', system.restUrl), { method: 'POST', body: `{"password":"${password}",` });
    await fetch(new URL('/api/v1/userExample/1', system.restUrl), { headers: { authorization: `Bearer ${admin}` } });
    // GraphQL: a password in an argument, a token in the header, a failing operation.
    await fetch(system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body: JSON.stringify({
        query: 'mutation($input: CreateUserExampleInput!) { createUserExample(input: $input) { id } }',
        variables: { input: { ...CREATE, password, email: 'x' } },
      }),
    });
    // Social graph: the token in the query string (the reference's way), on both hosts, and a refused one.
    await fetch(
      new URL(`/v21.0/${world.accounts.bluebottle}?fields=username&access_token=${encodeURIComponent(world.tokens.own)}`, system.restUrl),
    );
    await fetch(new URL(`/v21.0/me/accounts?access_token=${encodeURIComponent(world.tokens.parent)}`, system.socialParentUrl));
    await fetch(new URL(`/v21.0/${world.accounts.bluebottle}?access_token=${encodeURIComponent(world.tokens.parent)}`, system.restUrl));
    // Uploads: signed with OAuth 1.0a (good and wrong signature), and base64 image data.
    const url = mediaUploadUrl(system.restUrl);
    const signed = (secret: string) =>
      oauth1Authorization({
        consumer: { key: app.consumerKey, secret: app.consumerSecret },
        token: { key: access.token, secret },
        url,
        timestamp: Math.floor(Date.now() / 1000),
      });
    const good = signed(access.tokenSecret);
    const signature = decodeURIComponent(/oauth_signature="([^"]+)"/.exec(good)![1]!);
    secrets.push(signature);
    expect(
      (await sendMediaRequest(url, { authorization: good, body: mediaFormData([{ name: 'media', bytes: fixture('image.png') }]) })).status,
    ).toBe(200);
    expect(
      (
        await sendMediaRequest(url, {
          authorization: signed('wrong-secret'),
          body: mediaFormData([{ name: 'media', bytes: fixture('image.png') }]),
        })
      ).status,
    ).toBe(401);
    const mediaData = fixture('baseline.jpg').toString('base64');
    await sendMediaRequest(url, {
      authorization: `Bearer ${world.tokens.own}`,
      body: new URLSearchParams({ media_data: `${mediaData}!` }),
    });

    expect(logs.entries().length).toBeGreaterThan(10);
    for (const secret of secrets) expect(logs.text).not.toContain(secret);
    expect(logs.text).not.toContain(mediaData.slice(0, 64));
  });
});
