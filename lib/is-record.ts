/**
 * Whether a value read from JSON (a GraphQL result, its errors' extensions, a request body) is an object with named
 * members: how the REST adapter and the gateway narrow what no generated type describes, instead of casting it.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
