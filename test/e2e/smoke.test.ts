import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSystem, type TestSystem } from '../support/test-system.ts';

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
