/**
 * How long a test waits for the system under test before it calls what it waited for a hang. Tests bound their work by
 * events and counts (a reply, a state reached, a file gone), never by how fast a machine is; a wait still needs an end,
 * so that a hang fails with a message naming what never came instead of the test's own timeout. This bound is wide
 * enough that only a hang reaches it: on a busy machine (two cores, a parallel test run, other work) a request or a
 * piece of background work takes seconds at worst, never this long.
 */
export const HANG_MS = 20_000;

/** The test timeout of a test that waits more than once for background work (each wait bounded by HANG_MS). */
export const LONG_TEST_MS = 60_000;
