import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';

describe('NODE_ENV=production', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await startTestSystem({ NODE_ENV: 'production', SOCIAL_CURSOR_SECRET: 'production-cursor-secret-of-32-characters' });
  });
  afterAll(async () => {
    await system?.close();
  });

  it('refuses introspection', async () => {
    const reply = await fetch(system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __schema { queryType { name } } }' }),
    });
    const body = (await reply.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(reply.status).toBe(400);
    expect(body.errors[0]!.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(body.errors[0]!.message).toMatch(/introspection is not allowed/i);
  });

  it('serves no Sandbox landing page', async () => {
    const reply = await fetch(system.gatewayUrl, { headers: { accept: 'text/html' } });
    expect(await reply.text()).not.toContain('embeddable-sandbox');
  });

  it('serves no offline GraphQL IDE either (it follows the landing page setting)', async () => {
    expect((await fetch(new URL('/graphiql', system.gatewayUrl))).status).toBe(404);
  });

  it('still serves the API documents and Swagger UI (public documentation; REST_API_DOCS turns them off)', async () => {
    for (const path of ['/openapi.json', '/apis/swagger/doc.json', '/apis/swagger/index.html']) {
      expect((await fetch(`${system.restUrl}${path}`)).status).toBe(200);
    }
  });

  it('still serves operations', async () => {
    const reply = await fetch(system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${system.adminToken()}` },
      body: JSON.stringify({ query: '{ userExamples(params: {limit: 1}) { total } }' }),
    });
    expect(await reply.json()).toEqual({ data: { userExamples: { total: '0' } } });
  });
});

describe('development mode', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await startTestSystem({ NODE_ENV: 'development' });
  });
  afterAll(async () => {
    await system?.close();
  });

  it('serves Apollo Sandbox as the landing page, with its telemetry off', async () => {
    const reply = await fetch(system.gatewayUrl, { headers: { accept: 'text/html' } });
    const html = await reply.text();
    expect(reply.status).toBe(200);
    expect(html).toContain('embeddable-sandbox');
    expect(html).toContain('"runTelemetry":false');
  });

  it('links the landing page to the offline GraphQL IDE, which the gateway serves from local packages only', async () => {
    const landing = await (await fetch(system.gatewayUrl, { headers: { accept: 'text/html' } })).text();
    expect(landing).toContain('<a id="local-ide" href="/graphiql">');
    const ide = await fetch(new URL('/graphiql', system.gatewayUrl));
    expect(ide.status).toBe(200);
    expect(ide.headers.get('content-security-policy')).toContain("connect-src 'self'");
    const html = await ide.text();
    expect(html).toContain('<script src="/graphiql/assets/graphiql.min.js"></script>');
    expect(html).not.toMatch(/https?:\/\//);
    const bundle = await fetch(new URL('/graphiql/assets/graphiql.min.js', system.gatewayUrl));
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
  });
});
