import { rejectInvalidCredential, requireSelfOrAdmin, requireUser, type Actor } from '../../lib/auth/auth.ts';
import { InvalidArgumentError, NotFoundError, type FieldViolation } from '../../lib/errors.ts';
import { exceedsInt64, INT32_MAX, INT32_MIN, parseInt64, parseUint64 } from '../../lib/int64.ts';
import type { PasswordHasher } from '../../lib/auth/password.ts';
import { parseListParams, type ListLimits } from './list-params.ts';
import {
  findUserExampleById,
  findUserExamplesByIds,
  insertUserExample,
  listUserExamples,
  softDeleteUserExample,
  updateUserExample,
  type UsersDb,
} from './user-example.repository.ts';
import type {
  CreateUserExampleInput,
  ListParamsInput,
  UpdateUserExamplePatch,
  UserExample,
  UserExamplePage,
} from './user-example.types.ts';
import {
  checkMaxLengths,
  hasNulCharacter,
  isDefinedGender,
  MESSAGES,
  STORED_STRING_FIELDS,
  validateCreate,
  validateId,
} from './user-example.validation.ts';

/**
 * Area A's business rules, called alike by the GraphQL resolvers, the REST adapter (through GraphQL) and the gRPC handlers.
 *
 * Access rule (the spec leaves it open; documented in the README): Create is public, for sign-up; every other operation needs
 * a valid bearer token; Update and Delete are allowed to the record's own user (token subject = id) or an administrator.
 * A credential that is sent must be valid even on Create.
 */
export interface UserExampleService {
  create(actor: Actor, input: CreateUserExampleInput): Promise<{ id: string }>;
  getById(actor: Actor, id: string): Promise<UserExample>;
  updateById(actor: Actor, id: string, patch: UpdateUserExamplePatch): Promise<void>;
  deleteById(actor: Actor, id: string): Promise<void>;
  list(actor: Actor, params: ListParamsInput | null | undefined): Promise<UserExamplePage>;
  /** Entity resolution for the gateway: records in the order of `ids`, undefined where none is live. */
  loadByIds(ids: readonly string[]): Promise<(UserExample | undefined)[]>;
}

export interface UserExampleServiceDeps {
  db: UsersDb;
  passwords: PasswordHasher;
  listLimits: ListLimits;
}

export function createUserExampleService({ db, passwords, listLimits }: UserExampleServiceDeps): UserExampleService {
  /** ids arrive as canonical uint64 text (the transports decode them); this applies the spec's ≥ 1 rule. */
  function checkId(id: string, subject: string): void {
    const violations = validateId(id);
    if (violations.length > 0) throw InvalidArgumentError.fromViolations(subject, violations);
  }

  function notFound(id: string): NotFoundError {
    return new NotFoundError(`userExample ${id} not found`);
  }

  return {
    async create(actor, input) {
      rejectInvalidCredential(actor);
      const violations = validateCreate(input);
      if (violations.length > 0) throw InvalidArgumentError.fromViolations('CreateUserExampleRequest', violations);
      const passwordHash = await passwords.hash(input.password);
      const id = await insertUserExample(db, { ...input, passwordHash });
      return { id };
    },

    async getById(actor, id) {
      requireUser(actor);
      checkId(id, 'GetUserExampleByIDRequest');
      // Ids beyond the bigint range are valid uint64 values that no stored record can carry.
      const record = exceedsInt64(id) ? undefined : await findUserExampleById(db, id);
      if (!record) throw notFound(id);
      return record;
    },

    async updateById(actor, id, patch) {
      const user = requireUser(actor);
      checkId(id, 'UpdateUserExampleByIDRequest');
      const violations = checkPatchTypes(patch);
      if (violations.length > 0) throw InvalidArgumentError.fromViolations('UpdateUserExampleByIDRequest', violations);
      requireSelfOrAdmin(user, id, 'update this userExample');
      if (exceedsInt64(id)) throw notFound(id);
      const { password, ...rest } = patch;
      const passwordHash = password === undefined ? undefined : await passwords.hash(password);
      const updated = await updateUserExample(db, id, { ...rest, ...(passwordHash ? { passwordHash } : {}) });
      if (!updated) throw notFound(id);
    },

    async deleteById(actor, id) {
      const user = requireUser(actor);
      checkId(id, 'DeleteUserExampleByIDRequest');
      requireSelfOrAdmin(user, id, 'delete this userExample');
      const deleted = exceedsInt64(id) ? false : await softDeleteUserExample(db, id);
      if (!deleted) throw notFound(id);
    },

    async list(actor, params) {
      requireUser(actor);
      if (params === null || params === undefined) {
        throw InvalidArgumentError.fromViolations('ListUserExampleRequest', [
          { field: 'params', description: 'value is required' },
        ]);
      }
      const parsed = parseListParams(params, listLimits);
      if (!parsed.query) throw InvalidArgumentError.fromViolations('ListUserExampleRequest', parsed.violations);
      const { total, rows } = await listUserExamples(db, parsed.query);
      return { total, userExamples: rows };
    },

    async loadByIds(ids) {
      // Entity references may carry any text: only canonical ids a bigint can hold name a record.
      const storable = ids.filter((id) => parseUint64(id) === id && !exceedsInt64(id));
      const found = new Map((await findUserExamplesByIds(db, storable)).map((record) => [record.id, record]));
      return ids.map((id) => found.get(id));
    },
  };
}

/**
 * The update body has no declared rules (spec), so any value of each field's type is accepted, 0 and "" included. Only the
 * types themselves are checked: a gRPC caller can send an enum number the GenderType does not define, and no stored text
 * can hold U+0000.
 */
function checkPatchTypes(patch: UpdateUserExamplePatch): FieldViolation[] {
  const violations: FieldViolation[] = checkMaxLengths(patch);
  for (const field of STORED_STRING_FIELDS) {
    const value = patch[field];
    if (value !== undefined && hasNulCharacter(value)) violations.push({ field, description: MESSAGES.nulCharacter });
  }
  if (patch.gender !== undefined && !isDefinedGender(patch.gender)) {
    violations.push({ field: 'gender', description: MESSAGES.genderUndefined });
  }
  for (const field of ['age', 'status'] as const) {
    const value = patch[field];
    if (value !== undefined && (!Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX)) {
      violations.push({ field, description: 'value must be a 32-bit integer' });
    }
  }
  if (patch.loginAt !== undefined && parseInt64(patch.loginAt) === undefined) {
    violations.push({ field: 'loginAt', description: 'value must be a 64-bit integer' });
  }
  return violations;
}
