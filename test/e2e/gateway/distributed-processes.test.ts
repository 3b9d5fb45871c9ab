import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROLE, createTokenService } from '../../../lib/auth/auth.ts';
import { loadConfig } from '../../../lib/config.ts';
import { createDatabase, migrateToLatest, type DatabaseHandle } from '../../../lib/database/database.ts';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../../lib/database/throwaway-database.ts';
import { ALL_MIGRATIONS } from '../../../subgraphs/index.ts';
import { uploadMultipart } from '../../support/graphql-upload-client.ts';
import { createUserExampleGrpcClient, type UserExampleGrpcClient } from '../../support/grpc-user-client.ts';
import { fixture } from '../../support/image-fixtures.ts';
import { parseMetrics, sampleValue } from '../../support/log-capture.ts';
import { mediaFormData, mediaUploadUrl, rawMediaId, sendMediaRequest } from '../../support/media-client.ts';
import { startServiceProcess, type ServiceProcess } from '../../support/os-process.ts';
import { startOtlpCollector, type OtlpCollector } from '../../support/otlp-collector.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { eventually } from '../../support/eventually.ts';

/**
 * The distributed topology as a deployment runs it: every subgraph, the gateway (with the REST adapter) and the gRPC
 * server are separate OS processes started from their entrypoints, configured only by environment variables, on one
 * PostgreSQL database and one shared blob directory. Every area is driven through it (uploads included); then what
 * operators rely on: probes and metrics on every process, one request id and one trace across the processes (spans
 * exported over OTLP to a collector this test runs), readiness that follows a subgraph going away, and a graceful
 * SIGTERM that lets an upload in progress finish and exits 0.
 *
 * PostgreSQL only: the embedded database is single-process.
 */

const onPostgres = process.env.TEST_DATABASE === 'postgres';
const JWT_SECRET = 'distributed-processes-test-secret-0123456789';

describe.runIf(onPostgres)('the distributed topology as separate OS processes', () => {
  let throwaway: ThrowawayDatabase;
  let database: DatabaseHandle;
  let blobDir: string;
  let collector: OtlpCollector;
  const processes: Record<string, ServiceProcess> = {};
  let world: SocialFixture;
  let grpc: UserExampleGrpcClient;
  let admin: string;
  let rest: string;
  let restParent: string;
  let graphql: string;

  const common = () => ({
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PUBLIC_HOST: '127.0.0.1',
    DATABASE_URL: throwaway.url,
    DATABASE_POOL_MAX: '4',
    JWT_SECRET,
    SOCIAL_CURSOR_SECRET: 'distributed-processes-cursor-secret-0123456789',
    PASSWORD_SCRYPT_LOG_N: '10',
    MEDIA_BLOB_DIR: blobDir,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.url,
    SHUTDOWN_GRACE_MS: '15000',
  });

  beforeAll(async () => {
    throwaway = await createThrowawayDatabase(process.env.DATABASE_URL!, 'tributary_processes');
    // Migrations run once, before the processes start, as a deployment's migration job would (each process would
    // otherwise race the others to create the schemas).
    database = await createDatabase({
      url: throwaway.url,
      pgliteDir: undefined,
      poolMax: 2,
      connectTimeoutMs: 5000,
      statementTimeoutMs: 10_000,
    });
    await migrateToLatest(database.db, ALL_MIGRATIONS);
    world = await createSocialFixture(database);
    blobDir = await mkdtemp(join(tmpdir(), 'tributary-processes-blobs-'));
    collector = await startOtlpCollector();

    const subgraph = (name: string, extra: Record<string, string> = {}) =>
      startServiceProcess(`subgraph-${name}`, 'bin/start-subgraph.ts', [name], { ...common(), SUBGRAPH_PORT: '0', ...extra });
    const [users, accounts, comments, media, grpcProcess] = await Promise.all([
      subgraph('users', { SUBGRAPH_USERS_GRPC: 'false' }),
      subgraph('accounts'),
      subgraph('comments'),
      subgraph('media'),
      startServiceProcess('grpc', 'bin/start-grpc.ts', [], { ...common(), GRPC_PORT: '0', GRPC_STATUS_PORT: '0' }),
    ]);
    Object.assign(processes, { users, accounts, comments, media, grpc: grpcProcess });
    processes.gateway = await startServiceProcess('gateway', 'bin/start-gateway.ts', [], {
      ...common(),
      GATEWAY_MODE: 'distributed',
      GATEWAY_PORT: '0',
      REST_PORT: '0',
      SOCIAL_PARENT_PORT: '0',
      SUBGRAPH_USERS_URL: String(users.listening.url),
      SUBGRAPH_ACCOUNTS_URL: String(accounts.listening.url),
      SUBGRAPH_COMMENTS_URL: String(comments.listening.url),
      SUBGRAPH_MEDIA_URL: String(media.listening.url),
    });
    graphql = String(processes.gateway.listening.graphql);
    rest = String(processes.gateway.listening.rest);
    restParent = String(processes.gateway.listening.restParent);
    grpc = createUserExampleGrpcClient(String(grpcProcess.listening.grpc));
    admin = createTokenService(loadConfig({ JWT_SECRET }).jwt).mint({ sub: 'admin', roles: [ADMIN_ROLE] });
  }, 180_000);

  afterAll(async () => {
    grpc?.close();
    await Promise.all(Object.values(processes).map((service) => service.stop('SIGKILL')));
    await collector?.close();
    await database?.close();
    await throwaway?.drop();
    if (blobDir) await rm(blobDir, { recursive: true, force: true });
  });

  /** Every HTTP listener of every process, by the process's role. */
  const statusUrls = () => ({
    gateway: [new URL(graphql).origin, rest, restParent],
    'subgraph-users': [new URL(String(processes.users!.listening.url)).origin],
    'subgraph-accounts': [new URL(String(processes.accounts!.listening.url)).origin],
    'subgraph-comments': [new URL(String(processes.comments!.listening.url)).origin],
    'subgraph-media': [new URL(String(processes.media!.listening.url)).origin],
    grpc: [String(processes.grpc!.listening.status)],
  });

  it('answers /health, /ready and /metrics on every process', async () => {
    for (const [role, urls] of Object.entries(statusUrls())) {
      for (const base of urls) {
        expect((await fetch(new URL('/health', base))).status, `${role} ${base}/health`).toBe(200);
        const ready = await fetch(new URL('/ready', base));
        expect(ready.status, `${role} ${base}/ready`).toBe(200);
        expect(((await ready.json()) as { status: string }).status).toBe('UP');
        const metrics = parseMetrics(await (await fetch(new URL('/metrics', base))).text());
        expect(
          metrics.some((sample) => sample.labels.process === role),
          `${role} ${base}/metrics`,
        ).toBe(true);
      }
    }
    const gatewayReady = (await (await fetch(new URL('/ready', rest))).json()) as { checks: Record<string, unknown> };
    // The database too: with the fetch cache on (the default) the gateway process follows the shared database's log.
    expect(Object.keys(gatewayReady.checks).sort()).toEqual([
      'database',
      'subgraph:accounts',
      'subgraph:comments',
      'subgraph:media',
      'subgraph:users',
      'supergraph',
    ]);
    expect(await grpc.health()).toBe('SERVING');
  });

  it('serves Area A over REST, GraphQL and the gRPC process', async () => {
    const created = await fetch(new URL('/api/v1/userExample', rest), {
      method: 'POST',
      body: JSON.stringify({
        name: 'Dist Proc',
        email: 'dist@processes.test',
        password: 'processes-password',
        phone: '13800138000',
        avatar: 'https://example.com/d.png',
        age: 40,
        gender: 'MALE',
      }),
    });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };
    const read = await fetch(new URL(`/api/v1/userExample/${id}`, rest), { headers: { authorization: `Bearer ${admin}` } });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { userExample: { email: string } }).userExample.email).toBe('dist@processes.test');
    const query = await fetch(graphql, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body: JSON.stringify({ query: `{ userExample(id: "${id}") { id name } }` }),
    });
    expect(await query.json()).toEqual({ data: { userExample: { id, name: 'Dist Proc' } } });
    const viaGrpc = await grpc.call<{ userExample: { id: string; name: string } }>('GetByID', { id }, { authorization: `Bearer ${admin}` });
    expect(viaGrpc.userExample).toMatchObject({ id, name: 'Dist Proc' });
  });

  it('serves Areas B and C on both hosts', async () => {
    const account = await fetch(
      new URL(`/v21.0/${world.accounts.bluebottle}?fields=username,media.limit(2){comments.limit(1){text}}`, rest),
      {
        headers: { authorization: `Bearer ${world.tokens.own}` },
      },
    );
    expect(account.status).toBe(200);
    expect(((await account.json()) as { username: string }).username).toBe('bluebottle');
    const pages = await fetch(new URL(`/v21.0/me/accounts?access_token=${encodeURIComponent(world.tokens.parent)}`, restParent));
    expect(pages.status).toBe(200);
    const hidden = await fetch(new URL(`/v21.0/${world.comments.fanComment}?hide=true`, rest), {
      method: 'POST',
      headers: { authorization: `Bearer ${world.tokens.own}` },
    });
    expect(await hidden.json()).toEqual({ success: true });
  });

  it('takes uploads over REST and GraphQL and lets a container use one', async () => {
    const image = fixture('image.png');
    const uploaded = await sendMediaRequest(mediaUploadUrl(rest, { media_category: 'tweet_image' }), {
      authorization: `Bearer ${world.tokens.own}`,
      body: mediaFormData([{ name: 'media', bytes: image }]),
    });
    expect(uploaded.status, uploaded.text).toBe(200);
    const mediaId = rawMediaId(uploaded.text)!;
    expect(uploaded.body).toMatchObject({
      media_key: `3_${mediaId}`,
      size: image.length,
      image: { image_type: 'image/png', w: 50, h: 40 },
    });
    const viaGraphql = await uploadMultipart(graphql, fixture('baseline.jpg'), { token: world.tokens.own });
    expect(viaGraphql.errors, viaGraphql.text).toBeUndefined();
    const container = await fetch(new URL(`/v21.0/${world.accounts.bluebottle}/media`, rest), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${world.tokens.own}` },
      body: JSON.stringify({ upload_media_id: viaGraphql.data!.uploadMedia.mediaId, caption: 'from another process' }),
    });
    expect(container.status, await container.clone().text()).toBe(200);
  });

  it('links the hops of one request by its X-Request-Id and its trace', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const response = await fetch(
      new URL(`/v21.0/${world.accounts.bluebottle}?fields=username,media.limit(1){comments.limit(1){text}}`, rest),
      {
        headers: {
          authorization: `Bearer ${world.tokens.own}`,
          'x-request-id': 'dist-processes-1',
          traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
        },
      },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('dist-processes-1');
    const logged = (service: ServiceProcess) =>
      service.logs().filter((entry) => entry.requestId === 'dist-processes-1' && entry.msg === 'request');
    // Each process writes its access line when its reply is done; the pipes deliver them a moment later.
    await eventually(
      () => [processes.gateway!, processes.accounts!, processes.comments!].every((service) => logged(service).length > 0),
      'the access lines of the gateway, accounts and comments processes for the request',
    );
    expect(logged(processes.gateway!).map((entry) => entry.listener)).toEqual(['rest-own']);
    expect(logged(processes.accounts!).map((entry) => entry.listener)).toEqual(['subgraph-accounts']);
    expect(logged(processes.comments!).map((entry) => entry.listener)).toEqual(['subgraph-comments']);

    // Spans are exported in batches: wait for those of the three processes the request crossed.
    const ofTrace = () => collector.spans.filter((span) => span.traceId === traceId);
    const services = () => new Set(ofTrace().map((span) => span.service));
    const has = (service: string, name: string) => ofTrace().some((span) => span.service === service && span.name === name);
    const complete = () =>
      has('tributary-gateway', 'GET /{version}/{id}') &&
      has('tributary-gateway', 'gateway.request') &&
      has('tributary-subgraph-accounts', 'SELECT') &&
      has('tributary-subgraph-accounts', 'POST /graphql') &&
      has('tributary-subgraph-comments', 'POST /graphql');
    await eventually(complete, 'the spans of the gateway, accounts and comments processes for the trace');
    const spans = ofTrace();
    expect([...services()].sort()).toEqual(['tributary-gateway', 'tributary-subgraph-accounts', 'tributary-subgraph-comments']);
    const names = (service: string) => spans.filter((span) => span.service === service).map((span) => span.name);
    expect(names('tributary-gateway')).toEqual(
      expect.arrayContaining(['GET /{version}/{id}', 'gateway.request', 'gateway.execute', 'gateway.fetch']),
    );
    expect(names('tributary-subgraph-accounts')).toEqual(expect.arrayContaining(['POST /graphql', 'SELECT']));
    // One tree: the REST span continues the caller's trace, every other span has its parent in the trace.
    const ids = new Set(spans.map((span) => span.spanId));
    const restSpan = spans.find((span) => span.name === 'GET /{version}/{id}')!;
    expect(restSpan.parentSpanId).toBe('00f067aa0ba902b7');
    for (const span of spans) if (span !== restSpan) expect(ids.has(span.parentSpanId), `${span.service} ${span.name}`).toBe(true);
  });

  it('counts the work of each process in its own metrics', async () => {
    const samples = parseMetrics(await (await fetch(new URL('/metrics', String(processes.media!.listening.url)))).text());
    expect(sampleValue(samples, 'tributary_media_uploads_total', { outcome: 'stored' })).toBe(2);
    const grpcSamples = parseMetrics(await (await fetch(new URL('/metrics', String(processes.grpc!.listening.status)))).text());
    expect(sampleValue(grpcSamples, 'tributary_grpc_request_duration_seconds_count', { method: 'GetByID', code: 'OK' })).toBe(1);
  });

  it('reports the gateway DEGRADED, and still ready, while a subgraph is gone, naming it and not its address', async () => {
    expect(await processes.comments!.stop('SIGTERM')).toBe(0);
    // Probes within a second share a report (lib/telemetry/readiness.ts): the next reports see the stop.
    const { ready, report } = await eventually(async () => {
      const ready = await fetch(new URL('/ready', rest));
      const report = (await ready.json()) as {
        status: string;
        degraded?: string[];
        checks: Record<string, { status: string; error?: string }>;
      };
      return report.status !== 'UP' && { ready, report };
    }, 'the gateway readiness report no longer UP once the comments subgraph is gone');
    expect(ready.status).toBe(200);
    expect(report.status).toBe('DEGRADED');
    expect(report.degraded).toEqual(['subgraph:comments']);
    expect(report.checks['subgraph:comments']).toEqual({ status: 'DOWN', error: 'subgraph comments does not answer' });
    expect(report.checks['subgraph:accounts']!.status).toBe('UP');
  });

  it('finishes an upload in progress on SIGTERM, refuses new connections, and exits 0', async () => {
    const gateway = processes.gateway!;
    const image = fixture('baseline.jpg');
    const boundary = 'sigterm-boundary';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="media"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
      image,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const half = Math.floor(body.length / 2);
    const { request } = await import('node:http');
    const target = new URL('/1.1/media/upload.json', rest);
    // The server has read the request's head (it answers 100 Continue) and the first half of the body is sent: the
    // upload is in progress when the signal comes, whatever the machine's speed.
    let inProgress!: () => void;
    const uploading = new Promise<void>((resolve) => (inProgress = resolve));
    const reply = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const outgoing = request(
        target,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${world.tokens.own}`,
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': String(body.length),
            expect: '100-continue',
          },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        },
      );
      outgoing.on('error', reject);
      outgoing.on('continue', () => outgoing.write(body.subarray(0, half), () => inProgress()));
      // The rest goes after the signal has been received.
      void (async () => {
        await eventually(
          () => gateway.logs().some((entry) => entry.msg === 'shutting down: draining in-flight requests'),
          'the gateway logging that it drains in-flight requests after SIGTERM',
        );
        // New connections are refused while the upload is still being sent.
        await expect(fetch(new URL('/health', rest))).rejects.toThrow();
        outgoing.end(body.subarray(half));
      })().catch(reject);
    });
    await uploading;
    const exitCode = gateway.stop('SIGTERM');
    const answered = await reply;
    expect(answered.status, answered.text).toBe(200);
    expect(JSON.parse(answered.text)).toMatchObject({ size: image.length, image: { image_type: 'image/jpeg' } });
    expect(await exitCode).toBe(0);
    for (const name of ['users', 'accounts', 'media', 'grpc']) expect(await processes[name]!.stop('SIGTERM'), name).toBe(0);
  });
});
