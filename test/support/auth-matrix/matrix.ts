import { expect } from 'vitest';

/**
 * The pieces every auth-matrix table shares (issue "Hostile traffic", item 4): a cell is one request on one front door
 * with one credential condition, named after what it sends and what must come back; a condition that cannot arise for
 * an area is kept in the table as "not applicable" with its reason, so that the table says so instead of leaving a gap.
 */

/** The instant every matrix system's clock stands at: token expiry, OAuth timestamps and rate-limit windows read it. */
export const MATRIX_NOW = new Date('2026-11-02T10:00:00.000Z');

/** A condition that cannot arise on a door, with the one-line reason the table gives for it. */
export interface NotApplicableCell {
  name: string;
  reason: string;
}

/** A test name: the request, the condition, and the outcome the cell asserts. */
export function cellName(request: string, condition: string, outcome: string): string {
  return `${request} ${condition} → ${outcome}`;
}

/**
 * The leak check of a refused request: none of the object's distinctive values may appear anywhere in the raw reply
 * (body, error messages, extensions, partial data).
 */
export function expectNoLeak(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) expect(text, `the refusal leaks ${secret}`).not.toContain(secret);
}

/**
 * The positive control of the leak check: an allowed read does show at least one of the values a refusal must hide, so
 * the secrets are values the door really renders (a typo in a secret would make every leak check pass vacuously).
 */
export function expectShows(text: string, secrets: readonly string[]): void {
  expect(
    secrets.some((secret) => text.includes(secret)),
    `an allowed read shows none of ${secrets.join(', ')} in ${text.slice(0, 400)}`,
  ).toBe(true);
}

/** The first 600 characters of a reply, for assertion messages. */
export function shown(status: number, text: string): string {
  return `HTTP ${status}: ${text.slice(0, 600)}`;
}

/** Every permission of `all` but `without`. */
export function allBut(all: readonly string[], without: readonly string[]): string[] {
  return all.filter((permission) => !without.includes(permission));
}
