/**
 * Area A's fixtures shared by its tests on every door (REST, GraphQL, gRPC): unique e-mail addresses. The wording of the
 * rules and of the authentication messages lives in user-example-errors.ts; it is re-exported here for the tests that
 * still import it from this module.
 */

export { MALFORMED_HEADER, MISSING_TOKEN, RULE } from './user-example-errors.ts';

let emailSequence = 0;

/** A unique, valid e-mail address per call, so that tests do not collide on the unique index. */
export function uniqueEmail(prefix = 'user'): string {
  emailSequence += 1;
  return `${prefix}.${emailSequence}@example.com`;
}
