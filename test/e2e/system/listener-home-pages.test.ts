import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHIQL_PATH } from '../../../gateway/graphiql.routes.ts';
import { API_DOCS_PATHS } from '../../../rest-adapter/docs/api-docs.routes.ts';
import { expectGraphError, noToken } from '../../support/graph-error-expectations.ts';
import { rawRequest } from '../../support/raw-http.ts';
import type { RestReply } from '../../support/rest-client.ts';
import { startGrpcProcess, type RunningSystem } from '../../../bin/system/index.ts';
import { loadConfig } from '../../../lib/config.ts';
import { createLogger } from '../../../lib/logger.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * The root of each HTTP listener (the gateway, the REST adapter's own-login and parent-platform hosts): a browser gets a
 * page saying what the listener is and where to go — the GraphQL IDEs, Swagger UI and the API documents, the other
 * listeners — while an API client (curl's `*\/*`, JSON, no Accept) gets exactly what it got before, in the area's format.
 * The distributed topology's subgraph servers and the gRPC process's status listener say what they are too.
 */

/** What Chromium and Firefox send when a page is opened. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
/** What API clients send: nothing, curl's default, JSON, and JSON ranked above HTML. */
const API_ACCEPTS: (string | undefined)[] = [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.5'];

/** The gateway's reply to `/` for anything but a browser, as before the home page (lib/graphql/graphql-http-fallbacks.ts). */
const GATEWAY_ROOT_BODY = { errors: [{ message: 'no route for GET /: GraphQL is served at /graphql', extensions: { code: 'NOT_FOUND' } }] };

type Listener = 'gateway' | 'own' | 'parent';

async function get(url: string, accept: string | undefined, method = 'GET'): Promise<RestReply> {
  const reply = await fetch(url, { method, headers: accept === undefined ? {} : { accept } });
  const text = await reply.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: reply.status, headers: reply.headers, text, body };
}

/** A raw reply's body (read as latin1) as the UTF-8 it is. */
const utf8 = (body: string) => Buffer.from(body, 'latin1').toString('utf8');

/** The href of every link on a page, in order. */
function links(html: string): string[] {
  return [...html.matchAll(/<a href="([^"]*)"/g)].map((match) => match[1]!.replaceAll('&amp;', '&'));
}

describe('the root of each listener', () => {
  let system: TestSystem;
  let origins: Record<Listener, string>;

  beforeAll(async () => {
    system = await startTestSystem();
    origins = { gateway: new URL(system.gatewayUrl).origin, own: system.restUrl, parent: system.socialParentUrl };
  });
  afterAll(async () => {
    await system?.close();
  });

  /** Every link a listener's page shows, reached at `origins` (the request's host name, each listener's port). */
  function expectedLinks(listener: Listener, at: Record<Listener, string>): string[] {
    const ide = [`${at.gateway}/graphql`, `${at.gateway}${GRAPHIQL_PATH}`];
    const docsOrigin = listener === 'gateway' ? at.own : at[listener];
    const docs = [`${docsOrigin}${API_DOCS_PATHS.ui}`, `${docsOrigin}${API_DOCS_PATHS.openapi}`, `${docsOrigin}${API_DOCS_PATHS.swagger}`];
    const others = {
      gateway: [`${at.own}/`, `${at.parent}/`],
      own: [`${at.gateway}/graphql`, `${at.parent}/`],
      parent: [`${at.gateway}/graphql`, `${at.own}/`],
    }[listener];
    const probes = ['/health', '/ready', '/metrics'].map((path) => `${at[listener]}${path}`);
    return [...(listener === 'gateway' ? [...ide, ...docs] : [...docs, ...ide]), ...others, ...probes];
  }

  const TITLES: Record<Listener, string> = {
    gateway: 'Tributary — GraphQL gateway',
    own: 'Tributary — REST, own-login host',
    parent: 'Tributary — REST, parent-platform host',
  };

  for (const listener of ['gateway', 'own', 'parent'] as const) {
    it(`answers a browser on ${listener}'s / with a self-contained page linking the IDE, Swagger UI, the documents and the other listeners`, async () => {
      const reply = await get(`${origins[listener]}/`, BROWSER_ACCEPT);
      expect(reply.status, reply.text).toBe(200);
      expect(reply.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(reply.headers.get('vary')).toMatch(/\bAccept\b/);
      expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
      const csp = reply.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; /);
      expect(csp).not.toMatch(/unsafe-inline|script-src|https?:/);
      expect(reply.text).toContain(`<title>${TITLES[listener]}</title>`);
      expect(links(reply.text)).toEqual(expectedLinks(listener, origins));
      expect(reply.text).toContain('README.md in the repository');
      // Nothing loaded from anywhere: no script, no stylesheet, no image, no frame.
      expect(reply.text).not.toMatch(/<script|<link|<img|<iframe|src=/i);

      const head = await get(`${origins[listener]}/`, BROWSER_ACCEPT, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(head.text).toBe('');
    });
  }

  it('answers API clients on the gateway’s / exactly as before: 404 in GraphQL’s shape', async () => {
    for (const accept of API_ACCEPTS) {
      const reply = await get(`${origins.gateway}/`, accept);
      expect(reply.status, String(accept)).toBe(404);
      expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(reply.text).toBe(JSON.stringify(GATEWAY_ROOT_BODY));
      expect(reply.headers.get('vary')).toMatch(/\bAccept\b/);
      const head = await get(`${origins.gateway}/`, accept, 'HEAD');
      expect([head.status, head.text]).toEqual([404, '']);
    }
  });

  it('answers API clients on the REST hosts’ / exactly as before: the Graph envelope, no token (#104)', async () => {
    for (const listener of ['own', 'parent'] as const) {
      for (const accept of API_ACCEPTS) {
        const reply = await get(`${origins[listener]}/`, accept);
        expectGraphError(reply, noToken);
        const head = await get(`${origins[listener]}/`, accept, 'HEAD');
        expect([head.status, head.text]).toEqual([400, '']);
      }
      // A browser asking for / with a query string is calling the API (the Graph root with its parameters).
      expectGraphError(await get(`${origins[listener]}/?fields=id`, BROWSER_ACCEPT), noToken);
      // Other methods on / are the API's.
      const post = await fetch(`${origins[listener]}/`, { method: 'POST', headers: { accept: BROWSER_ACCEPT } });
      expect(post.headers.get('content-type')).toMatch(/^application\/json/);
    }
  });

  it('links this listener by the Host the request came in on, and the others by their ports on that host name', async () => {
    for (const listener of ['gateway', 'own', 'parent'] as const) {
      const port = new URL(origins[listener]).port;
      const reply = await rawRequest(
        origins[listener],
        `GET / HTTP/1.1\r\nHost: localhost:${port}\r\nAccept: ${BROWSER_ACCEPT}\r\nConnection: close\r\n\r\n`,
      );
      expect(reply.status).toBe(200);
      const at = Object.fromEntries(
        Object.entries(origins).map(([name, origin]) => [name, `http://localhost:${new URL(origin).port}`]),
      ) as Record<Listener, string>;
      expect(links(utf8(reply.body))).toEqual(expectedLinks(listener, at));
    }
  });

  it('never echoes a Host header that is no host name: the listener refuses it in its own format before any page', async () => {
    const reply = await rawRequest(
      origins.own,
      `GET / HTTP/1.1\r\nHost: "><script>x</script>\r\nAccept: ${BROWSER_ACCEPT}\r\nConnection: close\r\n\r\n`,
    );
    expect(reply.status).toBe(400);
    expect(reply.headers['content-type']).toMatch(/^application\/json/);
    expect(reply.body).not.toContain('<script');
  });
});

describe('the root of the REST hosts behind one proxy (SOCIAL_OWN_HOSTNAME, SOCIAL_PARENT_HOSTNAME)', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await startTestSystem({ SOCIAL_OWN_HOSTNAME: 'graph.own.test', SOCIAL_PARENT_HOSTNAME: 'graph.parent.test' });
  });
  afterAll(async () => {
    await system?.close();
  });

  it('describes the host the Host header names and links the other REST host by its configured name', async () => {
    const reply = await rawRequest(
      system.restUrl,
      `GET / HTTP/1.1\r\nHost: graph.parent.test\r\nAccept: ${BROWSER_ACCEPT}\r\nConnection: close\r\n\r\n`,
    );
    expect(reply.status).toBe(200);
    expect(utf8(reply.body)).toContain('<title>Tributary — REST, parent-platform host</title>');
    const hrefs = links(utf8(reply.body));
    expect(hrefs).toContain(`http://graph.parent.test${API_DOCS_PATHS.ui}`);
    expect(hrefs).toContain('http://graph.own.test/');
    // The gateway has no configured name: its port on the request's host name.
    expect(hrefs).toContain(`http://graph.parent.test:${new URL(system.gatewayUrl).port}${GRAPHIQL_PATH}`);
  });
});

describe('the root of the processes without a public HTTP API (a subgraph server, the gRPC status listener)', () => {
  let distributed: TestSystem;
  let grpc: RunningSystem;
  beforeAll(async () => {
    distributed = await startDistributedTestSystem();
    const config = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      HOST: '127.0.0.1',
      PUBLIC_HOST: '127.0.0.1',
      GRPC_PORT: '0',
      GRPC_STATUS_PORT: '0',
      DATA_DIR: ':memory:',
      JWT_SECRET: 'test-secret-that-is-at-least-32-characters-long',
    });
    grpc = await startGrpcProcess(config, createLogger({ level: 'silent' }));
  });
  afterAll(async () => {
    await grpc?.close();
    await distributed?.close();
  });

  it('a subgraph server says what it is to a browser and answers API clients with GraphQL’s 404 as before', async () => {
    const origin = new URL(distributed.subgraphs!.comments.subgraphUrls.comments!).origin;
    const page = await get(`${origin}/`, BROWSER_ACCEPT);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<title>Tributary — the comments subgraph</title>');
    expect(links(page.text)).toEqual([`${origin}/health`, `${origin}/ready`, `${origin}/metrics`]);
    for (const accept of API_ACCEPTS) {
      const reply = await get(`${origin}/`, accept);
      expect([reply.status, reply.text]).toEqual([404, JSON.stringify(GATEWAY_ROOT_BODY)]);
    }
  });

  it('the gateway process of the distributed topology serves the same pages as npm start', async () => {
    const gateway = new URL(distributed.gatewayUrl).origin;
    const page = await get(`${gateway}/`, BROWSER_ACCEPT);
    expect(page.status).toBe(200);
    expect(links(page.text)).toContain(`${distributed.restUrl}${API_DOCS_PATHS.ui}`);
    expect((await get(`${distributed.socialParentUrl}/`, BROWSER_ACCEPT)).text).toContain(
      '<title>Tributary — REST, parent-platform host</title>',
    );
  });

  it('the gRPC status listener names the gRPC address to a browser and answers API clients with google.rpc.Status as before', async () => {
    const origin = grpc.grpcStatusUrl!;
    const page = await get(`${origin}/`, BROWSER_ACCEPT);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<title>Tributary — gRPC status listener</title>');
    expect(page.text).toContain(grpc.grpcAddress!);
    for (const accept of API_ACCEPTS) {
      const reply = await get(`${origin}/`, accept);
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({
        code: 5,
        message: 'no route for GET /: this listener serves /health, /ready and /metrics',
        details: [],
      });
    }
  });
});
