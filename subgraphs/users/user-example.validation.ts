import type { FieldViolation } from '../../lib/errors.ts';
import { isInt32 } from '../../lib/int64.ts';
import { GENDER_NAMES } from '../../contracts/user-records.ts';
import type { CreateUserExampleInput } from './user-example.types.ts';

/**
 * The create rules of the spec (the reference's protoc-gen-validate rules). Descriptions use protoc-gen-validate's wording so
 * that clients of the reference recognise them; they are the same on every transport because only this module writes them.
 */
export const RULES = {
  nameMinLength: 2,
  passwordMinLength: 10,
  phonePattern: /^1[3456789]\d{9}$/,
  ageMin: 0,
  ageMax: 120,
  idMin: 1n,
} as const;

/**
 * Upper bounds on what a record may store, in runes, on create and on update alike. The spec declares no maximum (and no
 * rule at all for the update body), but a store without one lets one sign-up keep a 1 MiB name and one list page weigh a
 * gigabyte; these are bounds of storage, generous for every real value (an e-mail address cannot be longer than 254, a
 * URL of 2 048 is what browsers and CDNs handle), not rules of the contract, and are reported with protoc-gen-validate's
 * `max_len` wording. The password is only hashed, but its hashing costs time in proportion to its length.
 */
export const MAX_LENGTHS = {
  name: 256,
  email: 254,
  password: 1024,
  phone: 64,
  avatar: 2048,
} as const;

export const MESSAGES = {
  nameTooShort: `value length must be at least ${RULES.nameMinLength} runes`,
  emailInvalid: 'value must be a valid email address',
  passwordTooShort: `value length must be at least ${RULES.passwordMinLength} runes`,
  phoneMismatch: `value does not match regex pattern "${RULES.phonePattern.source}"`,
  avatarNotAbsolute: 'value must be absolute',
  avatarInvalid: 'value must be a valid URI',
  ageOutOfRange: `value must be inside range [${RULES.ageMin}, ${RULES.ageMax}]`,
  genderUndefined: 'value must be one of the defined enum values',
  idTooSmall: `value must be greater than or equal to ${RULES.idMin}`,
  nulCharacter: 'value must not contain the NUL character (U+0000)',
} as const;

/** protoc-gen-validate's wording of a `max_len` rule. */
export function tooLongMessage(maxRunes: number): string {
  return `value length must be at most ${maxRunes} runes`;
}

/** Violations of MAX_LENGTHS among the text fields present in `fields` (create and update). */
export function checkMaxLengths(fields: Partial<Record<keyof typeof MAX_LENGTHS, string | undefined>>): FieldViolation[] {
  const violations: FieldViolation[] = [];
  for (const field of Object.keys(MAX_LENGTHS) as (keyof typeof MAX_LENGTHS)[]) {
    const value = fields[field];
    if (value !== undefined && exceedsRunes(value, MAX_LENGTHS[field]))
      violations.push({ field, description: tooLongMessage(MAX_LENGTHS[field]) });
  }
  return violations;
}

/** True when `value` has more than `max` code points (counted no further than needed). */
export function exceedsRunes(value: string, max: number): boolean {
  if (value.length <= max) return false;
  let count = 0;
  for (const _ of value) if (++count > max) return true;
  return false;
}

/** Text columns cannot hold U+0000 (PostgreSQL refuses it), so a stored string carrying one is an invalid argument. */
export function hasNulCharacter(value: string): boolean {
  return value.includes('\u0000');
}

/** The stored string fields of a request (the password is only hashed, so it may hold any character). */
export const STORED_STRING_FIELDS = ['name', 'email', 'phone', 'avatar'] as const;

/** Length in Unicode code points ("runes"), not UTF-16 units. */
function runeLength(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

const HOST_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;

/** A bare address (no display name): dot-atom local part of at most 64 octets and a valid host name, at most 254 in all. */
export function isEmailAddress(value: string): boolean {
  if (value.length > 254) return false;
  const at = value.lastIndexOf('@');
  if (at <= 0 || at === value.length - 1) return false;
  const local = value.slice(0, at);
  const host = value.slice(at + 1).replace(/\.$/, '');
  if (Buffer.byteLength(local) > 64 || !LOCAL_PART.test(local)) return false;
  if (host.length > 253) return false;
  const labels = host.split('.');
  return labels.length >= 1 && labels.every((label) => HOST_LABEL.test(label)) && !/^\d+$/.test(labels.at(-1)!);
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** protoc-gen-validate's `uri` rule: a parseable URI that is absolute (has a scheme). */
export function checkAbsoluteUri(value: string): string | undefined {
  // Control characters and spaces are never part of a URI.
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/.test(value)) return MESSAGES.avatarInvalid;
  if (!SCHEME.test(value)) return MESSAGES.avatarNotAbsolute;
  try {
    new URL(value);
  } catch {
    return MESSAGES.avatarInvalid;
  }
  return undefined;
}

export function isDefinedGender(value: unknown): boolean {
  return typeof value === 'number' && GENDER_NAMES[value] !== undefined;
}

/** Every violation of a create request, in field order. Empty when the request is valid. */
export function validateCreate(input: CreateUserExampleInput): FieldViolation[] {
  // Too long is all that is said of a field past its bound: the other rules are not worth running over a megabyte.
  const tooLong = checkMaxLengths(input);
  if (tooLong.length > 0) return tooLong;
  const violations: FieldViolation[] = [];
  const withNul = new Set(STORED_STRING_FIELDS.filter((field) => hasNulCharacter(input[field])));
  for (const field of withNul) violations.push({ field, description: MESSAGES.nulCharacter });
  if (!withNul.has('name') && runeLength(input.name) < RULES.nameMinLength) {
    violations.push({ field: 'name', description: MESSAGES.nameTooShort });
  }
  if (!withNul.has('email') && !isEmailAddress(input.email)) {
    violations.push({ field: 'email', description: MESSAGES.emailInvalid });
  }
  if (runeLength(input.password) < RULES.passwordMinLength) {
    violations.push({ field: 'password', description: MESSAGES.passwordTooShort });
  }
  if (!withNul.has('phone') && !RULES.phonePattern.test(input.phone)) {
    violations.push({ field: 'phone', description: MESSAGES.phoneMismatch });
  }
  const avatarProblem = withNul.has('avatar') ? undefined : checkAbsoluteUri(input.avatar);
  if (avatarProblem) violations.push({ field: 'avatar', description: avatarProblem });
  if (!isInt32(input.age) || input.age < RULES.ageMin || input.age > RULES.ageMax) {
    violations.push({ field: 'age', description: MESSAGES.ageOutOfRange });
  }
  if (!isDefinedGender(input.gender)) violations.push({ field: 'gender', description: MESSAGES.genderUndefined });
  return violations;
}

/** The path id rule of Get, Update and Delete (uint64 ≥ 1). `id` is canonical uint64 text. */
export function validateId(id: string): FieldViolation[] {
  return BigInt(id) < RULES.idMin ? [{ field: 'id', description: MESSAGES.idTooSmall }] : [];
}
