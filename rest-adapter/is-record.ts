/**
 * Whether a value read from JSON (a GraphQL result, its errors' extensions) is an object with named members: how the
 * adapter narrows what an operation answers where no generated type describes it, instead of casting it.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
