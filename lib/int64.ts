/**
 * 64-bit integers travel as decimal strings everywhere in Tributary; these helpers check and normalise them with BigInt so
 * that no id ever passes through a JavaScript number.
 */

export const UINT64_MAX = 18_446_744_073_709_551_615n;
export const INT64_MAX = 9_223_372_036_854_775_807n;
export const INT64_MIN = -9_223_372_036_854_775_808n;
export const INT32_MAX = 2_147_483_647;
export const INT32_MIN = -2_147_483_648;

const UNSIGNED = /^\d{1,20}$/;
const SIGNED = /^-?\d{1,19}$/;

/** Canonical decimal text of an unsigned 64-bit integer, or undefined when `text` is not one. */
export function parseUint64(text: string): string | undefined {
  if (!UNSIGNED.test(text)) return undefined;
  const value = BigInt(text);
  return value <= UINT64_MAX ? value.toString() : undefined;
}

/** Canonical decimal text of a signed 64-bit integer, or undefined when `text` is not one. */
export function parseInt64(text: string): string | undefined {
  if (!SIGNED.test(text)) return undefined;
  const value = BigInt(text);
  return value >= INT64_MIN && value <= INT64_MAX ? value.toString() : undefined;
}

/** True when a uint64 cannot be stored in a PostgreSQL bigint (and so cannot name any stored row). */
export function exceedsInt64(uint64: string): boolean {
  return BigInt(uint64) > INT64_MAX;
}

export function isInt32(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX;
}
