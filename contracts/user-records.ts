/**
 * Area A's wire vocabulary shared by its service (subgraphs/users) and its transports (REST, gRPC): the GenderType enum of
 * proto/api/serverNameExample/v1/userExample.proto, by name and number. test/unit/user-example.wire-shapes.test.ts holds
 * it, the proto, the SDL and the REST documents to one another.
 */

/** Numeric values of the GenderType enum, as the proto defines them. */
export const GENDER_TYPES = { UNKNOWN: 0, MALE: 1, FEMALE: 2 } as const;
export type GenderName = keyof typeof GENDER_TYPES;
export type GenderValue = (typeof GENDER_TYPES)[GenderName];

export const GENDER_NAMES: Readonly<Record<number, GenderName>> = Object.freeze(
  Object.fromEntries(Object.entries(GENDER_TYPES).map(([name, value]) => [value, name as GenderName])),
);
