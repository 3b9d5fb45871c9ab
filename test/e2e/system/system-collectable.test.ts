import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { HANG_MS, LONG_TEST_MS } from '../../support/hang-bounds.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * A closed system leaves nothing that keeps it: the test workers run file after file in one process (isolate: false),
 * and a gateway that reloads its supergraph or a process that restarts a system in place would otherwise keep every
 * generation — each several hundred MB with PGlite. Found when prom-client's default metrics, made per system, held every
 * system through their GC observer (lib/telemetry/metrics.ts).
 */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * Whether the object is collected: a collection every 25 ms until it is, up to the hang bound (the closed system's last
 * timers and sockets end first — about 2 s here). deref() keeps its target until the job ends, so each look is a job.
 */
async function collected(ref: WeakRef<object>): Promise<boolean> {
  const deadline = Date.now() + HANG_MS;
  while (Date.now() < deadline) {
    // pacing: one collection a job, every 25 ms (the look itself: a WeakRef is only cleared between jobs)
    await new Promise((resolve) => setTimeout(resolve, 25));
    gc();
    if (ref.deref() === undefined) return true;
  }
  return false;
}

/** Starts a system, uses every door a little, closes it, and hands back weak references to what it held. */
async function useAndClose(start: () => Promise<TestSystem>): Promise<{ database: WeakRef<object>; tokens: WeakRef<object> }> {
  const system = await start();
  const graphql = await fetch(system.gatewayUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${system.adminToken()}` },
    body: JSON.stringify({ query: 'query { userExample(id: "1") { id } }' }),
  });
  await graphql.text();
  const rest = await fetch(`${system.restUrl}/api/v1/userExample/1`, { headers: { authorization: `Bearer ${system.adminToken()}` } });
  await rest.text();
  await (await fetch(new URL('/metrics', system.gatewayUrl))).text();
  const refs = { database: new WeakRef(system.database), tokens: new WeakRef(system.tokens) };
  await system.close();
  return refs;
}

describe('a closed system', () => {
  it('is collected: embedded', { timeout: LONG_TEST_MS }, async () => {
    const refs = await useAndClose(() => startTestSystem());
    expect(await collected(refs.database)).toBe(true);
    expect(await collected(refs.tokens)).toBe(true);
  });

  it('is collected: distributed', { timeout: LONG_TEST_MS }, async () => {
    const refs = await useAndClose(() => startDistributedTestSystem());
    expect(await collected(refs.database)).toBe(true);
    expect(await collected(refs.tokens)).toBe(true);
  });
});
