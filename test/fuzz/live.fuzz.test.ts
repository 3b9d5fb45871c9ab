import { describe, expect, it } from 'vitest';
import { checkDoor } from '../support/fuzz/fuzz-property.ts';
import { propertyTestTimeoutMs } from '../support/fuzz/fuzz-settings.ts';
import { useFuzzSystem } from '../support/fuzz/fuzz-suite.ts';
import { LIVE_SYSTEM_ENV, LiveDoor, httpCases, wsCases } from '../support/fuzz/live-door.ts';

/**
 * Fuzz of the live doors (issue 27): graphql-transport-ws on the gateway's /graphql — messages out of order, malformed,
 * binary, too large, floods past the bound, clients that never initialise or never read — and subscriptions POSTed for
 * SSE and Apollo's multipart protocol, read for a while and abandoned mid-stream. No crash, no hang, no 5xx or internal
 * error, every reply in the protocol's shape, and the gateway's memory bounded over the run.
 */

const door = new LiveDoor();
const suite = useFuzzSystem('live', 2, { env: { ...LIVE_SYSTEM_ENV } });

/** The system process's resident memory (its /metrics), in bytes. */
async function residentBytes(): Promise<number> {
  const text = await (await fetch(new URL('/metrics', suite.system.info.gatewayUrl))).text();
  const value = /^process_resident_memory_bytes(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1];
  if (value === undefined) throw new Error(`no process_resident_memory_bytes in /metrics: ${text.slice(0, 300)}`);
  return Number(value);
}

describe('the live doors under hostile clients', () => {
  it('WebSocket (graphql-transport-ws): protocol messages in and out of order, floods, half-open and unread connections', async () => {
    const before = await residentBytes();
    await checkDoor('graphql-ws', door, suite.system, wsCases, suite.tally);
    // Connections and subscriptions end with their cases: what they held is released (a bound, not a leak).
    expect(await residentBytes()).toBeLessThan(before + 150 * 1024 * 1024);
  }, propertyTestTimeoutMs());
  it('HTTP subscriptions (SSE, multipart): any Accept, any body, abandoned mid-stream', async () => {
    const before = await residentBytes();
    await checkDoor('http subscriptions', door, suite.system, httpCases, suite.tally);
    expect(await residentBytes()).toBeLessThan(before + 150 * 1024 * 1024);
  }, propertyTestTimeoutMs());
});
