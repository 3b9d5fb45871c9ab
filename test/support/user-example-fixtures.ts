/**
 * Area A's fixtures shared by its tests on every door (REST, GraphQL, gRPC): the validation rules' wording
 * (protoc-gen-validate's, the same on every transport), the authentication messages, and unique e-mail addresses.
 */

/** The create rules' descriptions (protoc-gen-validate wording, the same on every transport). */
export const RULE = {
  name: 'value length must be at least 2 runes',
  email: 'value must be a valid email address',
  password: 'value length must be at least 10 runes',
  phone: 'value does not match regex pattern "^1[3456789]\\d{9}$"',
  avatar: 'value must be absolute',
  age: 'value must be inside range [0, 120]',
  gender: 'value must be one of the defined enum values',
  id: 'value must be greater than or equal to 1',
} as const;

export const MISSING_TOKEN = 'missing bearer token: send "Authorization: Bearer <JWT>"';
export const MALFORMED_HEADER = 'malformed Authorization header: expected "Bearer <JWT>"';

let emailSequence = 0;

/** A unique, valid e-mail address per call, so that tests do not collide on the unique index. */
export function uniqueEmail(prefix = 'user'): string {
  emailSequence += 1;
  return `${prefix}.${emailSequence}@example.com`;
}
