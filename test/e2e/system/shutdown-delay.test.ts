import { describe, expect, it } from 'vitest';
import { startTestSystem } from '../../support/test-system.ts';

/**
 * SHUTDOWN_DELAY_MS (issue 25): on shutdown a process is not ready at once, but serves on for the pause — the time a
 * load balancer needs to see the 503 — before its listeners stop accepting. The pause here is long (8 s) so that the
 * requests made right after shutdown begins fall inside it on any machine; what is asserted is their answers, each with
 * `Connection: close` so that keep-alive clients leave before the listeners close.
 */
const DELAY_MS = 8_000;

describe('SHUTDOWN_DELAY_MS', () => {
  it('answers /ready 503 from the start of shutdown, serves requests through the pause, then stops accepting', async () => {
    const system = await startTestSystem({ SHUTDOWN_DELAY_MS: String(DELAY_MS) });
    const admin = system.adminToken();
    const health = new URL('/health', system.restUrl);
    const before = await fetch(new URL('/ready', system.restUrl));
    expect(before.status).toBe(200);
    expect(before.headers.get('connection')).toBe('keep-alive');

    const started = performance.now();
    const closed = system.close();
    const ready = await fetch(new URL('/ready', system.restUrl));
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'DOWN', checks: { process: { status: 'DOWN', error: 'shutting down' } } });
    // Still served: liveness, Area A over REST and GraphQL.
    expect((await fetch(health)).status).toBe(200);
    const read = await fetch(new URL('/api/v1/userExample/1', system.restUrl), { headers: { authorization: `Bearer ${admin}` } });
    expect(read.status).toBe(404);
    // Politely: each reply of the pause tells its keep-alive client to take the next request elsewhere.
    expect(read.headers.get('connection')).toBe('close');
    expect(ready.headers.get('connection')).toBe('close');
    const graphql = await fetch(system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(await graphql.json()).toEqual({ data: { __typename: 'Query' } });
    expect(graphql.headers.get('connection')).toBe('close');

    await closed;
    expect(performance.now() - started).toBeGreaterThanOrEqual(DELAY_MS - 50);
    await expect(fetch(health)).rejects.toThrow();
  });
});
