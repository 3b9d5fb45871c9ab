import { parseGraphTime, toUnixSeconds } from '../../lib/social-graph/graph-time.ts';
import { authorize, type Viewer } from '../shared/social-graph/social-access.ts';
import { NODE_TYPES } from '../../contracts/social-graph.ts';
import { socialErrors } from '../shared/social-graph/social-errors.ts';
import { PUBLIC_ACCOUNT_FIELDS, type AccountView } from './account-views.ts';

/**
 * Checks a field of the account node: refused (as the platform does) when not public for an account seen through
 * business_discovery; on a managed account, the node's read permissions (each edge checks its own instead, so that
 * `/<account>/agencies` needs the agencies permissions only).
 */
export function checkAccountField(view: AccountView, field: string, viewer?: Viewer): void {
  if (view.scope === 'public') {
    if (!PUBLIC_ACCOUNT_FIELDS.has(field)) throw socialErrors.unknownField(field, NODE_TYPES.account);
    return;
  }
  if (viewer) authorize(viewer, 'readAccount', { accountId: view.account.id });
}

/** A `since`/`until` parameter: a unix timestamp or a date, in unix seconds. */
export function parseTime(name: string, value: string | null | undefined, now: () => Date): number | undefined {
  if (value === undefined || value === null) return undefined;
  const date = parseGraphTime(value, now());
  if (!date) throw socialErrors.invalidParameter(name, `The parameter ${name} must be a unix timestamp or a date, got "${value}".`);
  return toUnixSeconds(date);
}
