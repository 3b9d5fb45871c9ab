import type { SpanContext } from '@opentelemetry/api';
import DataLoader from 'dataloader';
import { rejectInvalidCredential, requireSelfOrAdmin, requireUser, type Actor } from '../../lib/auth/auth.ts';
import { InvalidArgumentError, NotFoundError, type FieldViolation } from '../../lib/errors.ts';
import { inIdOrder } from '../../lib/in-id-order.ts';
import { exceedsInt64, INT32_MAX, INT32_MIN, parseInt64, parseUint64 } from '../../lib/int64.ts';
import { callerSpanContext, withSharedWork } from '../../lib/telemetry/tracing.ts';
import type { PasswordHasher } from '../../lib/auth/password.ts';
import { userExampleChange } from '../shared/event-log/change-events.ts';
import { writeWithChanges } from '../shared/event-log/event-log.repository.ts';
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
 *
 * Each write is logged with its change in one transaction (the change log, subgraphs/shared/event-log/): a record created,
 * updated or deleted is `user_example_created|updated|deleted` with the key `UserExample:<id>`; a write that changed
 * nothing (no such live record) logs nothing.
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
  /** The most GetByID reads answered by one statement (see liveRecordReader); 1 gives each read its own. */
  readBatchMax: number;
}

export function createUserExampleService({ db, passwords, listLimits, readBatchMax }: UserExampleServiceDeps): UserExampleService {
  /** ids arrive as canonical uint64 text (the transports decode them); this applies the spec's ≥ 1 rule. */
  function checkId(id: string, subject: string): void {
    const violations = validateId(id);
    if (violations.length > 0) throw InvalidArgumentError.fromViolations(subject, violations);
  }

  const readLive = liveRecordReader(db, readBatchMax);

  function notFound(id: string): NotFoundError {
    return new NotFoundError(`userExample ${id} not found`);
  }

  return {
    async create(actor, input) {
      rejectInvalidCredential(actor);
      const violations = validateCreate(input);
      if (violations.length > 0) throw InvalidArgumentError.fromViolations('CreateUserExampleRequest', violations);
      const passwordHash = await passwords.hash(input.password);
      const id = await writeWithChanges(db, async (trx) => {
        const inserted = await insertUserExample(trx, { ...input, passwordHash });
        return { result: inserted, changes: [userExampleChange('created', inserted)] };
      });
      return { id };
    },

    async getById(actor, id) {
      requireUser(actor);
      checkId(id, 'GetUserExampleByIDRequest');
      // Ids beyond the bigint range are valid uint64 values that no stored record can carry.
      const record = exceedsInt64(id) ? undefined : await readLive(id);
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
      const updated = await writeWithChanges(db, async (trx) => {
        const changed = await updateUserExample(trx, id, { ...rest, ...(passwordHash ? { passwordHash } : {}) });
        return { result: changed, changes: changed ? [userExampleChange('updated', id)] : [] };
      });
      if (!updated) throw notFound(id);
    },

    async deleteById(actor, id) {
      const user = requireUser(actor);
      checkId(id, 'DeleteUserExampleByIDRequest');
      requireSelfOrAdmin(user, id, 'delete this userExample');
      const deleted =
        !exceedsInt64(id) &&
        (await writeWithChanges(db, async (trx) => {
          const removed = await softDeleteUserExample(trx, id);
          return { result: removed, changes: removed ? [userExampleChange('deleted', id)] : [] };
        }));
      if (!deleted) throw notFound(id);
    },

    async list(actor, params) {
      requireUser(actor);
      if (params === null || params === undefined) {
        throw InvalidArgumentError.fromViolations('ListUserExampleRequest', [{ field: 'params', description: 'value is required' }]);
      }
      const parsed = parseListParams(params, listLimits);
      if (!parsed.query) throw InvalidArgumentError.fromViolations('ListUserExampleRequest', parsed.violations);
      const { total, rows } = await listUserExamples(db, parsed.query);
      return { total, userExamples: rows };
    },

    async loadByIds(ids) {
      // Entity references may carry any text: only canonical ids a bigint can hold name a record.
      const storable = ids.filter((id) => parseUint64(id) === id && !exceedsInt64(id));
      return inIdOrder(ids, await findUserExamplesByIds(db, storable));
    },
  };
}

/**
 * Reads one live record by id, coalescing the reads that arrive together. Every transport's GetByID ends here, and under
 * load many arrive in the same turn of the event loop (one HTTP/2 frame batch carries dozens of gRPC calls; the REST and
 * GraphQL listeners read many connections per poll): the reads asked for before the loop's check phase go out as ONE
 * `id = any($1::bigint[])` statement (at most `batchMax` ids), as Prisma does for its findUnique. Nothing is cached — a
 * read always sees what is committed when its batch runs, which is after it was asked for, so a client reads its own
 * writes — and the record is the same for every caller (access is checked before the read), so sharing a statement
 * across requests shares no data. A lone read waits for nothing but the check phase of the turn it arrived in.
 *
 * Accounting follows the statement: its metrics count one SELECT; with tracing, its span is a child of the first request
 * of the batch and links to the spans of the others. When the statement fails, every read in the batch fails with its
 * error.
 */
function liveRecordReader(db: UsersDb, batchMax: number): (id: string) => Promise<UserExample | undefined> {
  if (batchMax <= 1) return (id) => findUserExampleById(db, id);
  const loader = new DataLoader<{ id: string; caller: SpanContext | undefined }, UserExample | undefined>(
    async (reads) => {
      const ids = reads.map((read) => read.id);
      const records = await withSharedWork(
        reads.map((read) => read.caller),
        () => findUserExamplesByIds(db, ids),
      );
      return inIdOrder(ids, records);
    },
    // setImmediate, not DataLoader's default (the end of the current job): requests read from different sockets in one
    // poll phase are separate jobs, and should share the statement too.
    { cache: false, maxBatchSize: batchMax, batchScheduleFn: (dispatch) => setImmediate(dispatch) },
  );
  return (id) => loader.load({ id, caller: callerSpanContext() });
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
