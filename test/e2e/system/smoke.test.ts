import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';

describe('the embedded system', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await startTestSystem();
  });
  afterAll(async () => {
    await system?.close();
  });

  it('answers /health on the REST adapter and the gateway', async () => {
    const rest = await fetch(`${system.restUrl}/health`);
    expect(rest.status).toBe(200);
    expect(await rest.json()).toEqual({ status: 'UP' });
    const gateway = await fetch(new URL('/health', system.gatewayUrl));
    expect(await gateway.json()).toEqual({ status: 'UP' });
  });
});

describe('CORS', () => {
  const origin = 'https://app.example.com';
  let system: TestSystem;
  beforeAll(async () => {
    system = await startTestSystem({ CORS_ORIGINS: origin });
  });
  afterAll(async () => {
    await system?.close();
  });

  it('answers a preflight from a configured origin on GraphQL and REST', async () => {
    for (const url of [system.gatewayUrl, `${system.restUrl}/api/v1/userExample/1`]) {
      const reply = await fetch(url, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      });
      expect(reply.status, url).toBe(204);
      expect(reply.headers.get('access-control-allow-origin'), url).toBe(origin);
      expect(reply.headers.get('access-control-allow-headers'), url).toContain('authorization');
    }
  });

  it('names the origin on a record read too (the REST fast path stands aside when CORS is configured)', async () => {
    const reply = await fetch(`${system.restUrl}/api/v1/userExample/1`, {
      headers: { origin, authorization: `Bearer ${system.adminToken()}` },
    });
    expect(reply.headers.get('access-control-allow-origin')).toBe(origin);
  });

  it('names no other origin', async () => {
    const reply = await fetch(`${system.restUrl}/health`, { headers: { origin: 'https://evil.example.com' } });
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('without CORS configuration', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await startTestSystem();
  });
  afterAll(async () => {
    await system?.close();
  });

  it('sends no CORS headers', async () => {
    const reply = await fetch(`${system.restUrl}/health`, { headers: { origin: 'https://app.example.com' } });
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
  });
});
