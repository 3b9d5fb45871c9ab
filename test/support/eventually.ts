import { setTimeout as sleep } from 'node:timers/promises';
import { HANG_MS } from './hang-bounds.ts';

/** How often `eventually` looks again: often enough that a test waits little past the event, rarely enough to cost nothing. */
const LOOK_EVERY_MS = 25;

/**
 * Waits for something the system does in the background: looks with `check` until it gives a value (anything but
 * undefined, null or false), and resolves to that value. Bounded by HANG_MS (hang-bounds.ts): past it the test fails
 * with what never came (`what`), not with its own timeout. A `check` that throws fails at once — an error is not a
 * state to wait out.
 *
 * This is how a test waits for a presence: a row written, a delivery received, a state reached. An absence — nothing
 * delivered, nothing left over — is checked on an event that proves the work that could have produced it is done (a
 * worker's pass that found nothing, a metric, a log line, the reply of a request sent after it), never after a pause:
 * a pause passes on a slow machine without checking anything. test/unit/test-waits.test.ts holds the suite to both.
 */
export async function eventually<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string,
  options: { withinMs?: number } = {},
): Promise<T> {
  const deadline = performance.now() + (options.withinMs ?? HANG_MS);
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (performance.now() >= deadline) throw new Error(`${what}: not within ${options.withinMs ?? HANG_MS} ms`);
    await sleep(LOOK_EVERY_MS); // pacing: the interval between two looks
  }
}
