import type { Kysely, Transaction } from 'kysely';
import type { CursorCodec, CursorValue } from '../../../lib/social-graph/cursor.ts';
import { parseGraphTime } from '../../../lib/social-graph/graph-time.ts';
import { isSocialId } from '../../../lib/social-graph/social-ids.ts';
import { socialErrors } from '../../shared/social-graph/social-errors.ts';
import {
  DEFAULT_PAGE_LIMITS,
  readPageArgs,
  type PageArgs,
  type PageLimits,
  type PageRequest,
} from '../../shared/social-graph/social-paging.ts';
import type { SocialDb, SocialTables } from '../../shared/social-graph/social-tables.ts';
import type { AccountEdgesServiceDeps } from './account-edges.types.ts';

/**
 * What every feature of the account edges shares: the database, the cursor codec, the clock, paging limits, and the two
 * checks each entry point starts with. Built once per service by createEdgeContext.
 */
export interface EdgeContext {
  deps: AccountEdgesServiceDeps;
  db: SocialDb;
  codec: CursorCodec;
  clock: () => Date;
  pageLimits: PageLimits;
  /** An id the caller vouched for, but that must still be an account id before it reaches SQL (a bigint cast). */
  checkAccountId(accountId: string, method: 'get' | 'post'): void;
  /** Page args → page request, with the cursor's position checked against the list's shape. */
  pageRequest(args: PageArgs, shape: readonly ('seconds' | 'id')[]): PageRequest;
}

export const SECOND = 1000;
export const DAY_SECONDS = 86_400;
export const DAY_MS = DAY_SECONDS * SECOND;

export function createEdgeContext(deps: AccountEdgesServiceDeps): EdgeContext {
  const { db, codec } = deps;
  const pageLimits = deps.pageLimits ?? DEFAULT_PAGE_LIMITS;
  return {
    deps,
    db,
    codec,
    clock: deps.now,
    pageLimits,
    checkAccountId(accountId, method) {
      if (!isSocialId(accountId, 'account')) throw socialErrors.unknownObject(accountId, method);
    },
    pageRequest(args, shape) {
      const request = readPageArgs(codec, args, pageLimits, shape.length);
      const position = request.position;
      if (position && !shape.every((kind, index) => isPositionPart(position[index], kind))) {
        throw socialErrors.invalidParameter(args.after != null ? 'after' : 'before', 'Invalid cursor.');
      }
      return request;
    },
  };
}

export async function inTransaction<T>(db: SocialDb, work: (trx: Transaction<SocialTables>) => Promise<T>): Promise<T> {
  // A caller that already holds a transaction gets its work done inside it (kysely has no nested transactions).
  if (db.isTransaction) return work(db as Transaction<SocialTables>);
  return (db as Kysely<SocialTables>).transaction().execute(work);
}

export function isPositionPart(value: CursorValue | undefined, kind: 'seconds' | 'id'): boolean {
  return kind === 'seconds'
    ? typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
    : typeof value === 'string' && /^[1-9]\d{0,18}$/.test(value);
}

/** The Graph's wording for a value outside an enum: `(#100) <param> must be one of the following values: a, b, c`. */
export function enumMessage(parameter: string, values: readonly string[]): string {
  return `(#100) ${parameter} must be one of the following values: ${values.join(', ')}`;
}

/** A comma list (text) or a list, trimmed, without empty entries. */
export function listParameter(value: string | readonly string[] | null | undefined): string[] {
  if (value == null) return [];
  const items = typeof value === 'string' ? value.split(',') : value;
  return items.map((item) => item.trim()).filter((item) => item !== '');
}

/** A unix timestamp (number or digits) or a strtotime-style text, as Graph `since` / `until` take them. */
export function parseTimeParameter(value: string | number, now: Date): Date | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? new Date(Math.floor(value) * SECOND) : undefined;
  return parseGraphTime(value, now);
}
