import { accountChange } from '../../shared/event-log/change-events.ts';
import { appendEvents } from '../../shared/event-log/event-log.repository.ts';
import { socialErrors } from '../../shared/social-graph/social-errors.ts';
import { insertHashtagSearch, listRecentHashtags, lockAccount, searchedHashtagIds, upsertHashtag } from '../account-edges.repository.ts';
import { DAY_MS, inTransaction, type EdgeContext } from './edge-context.ts';
import type { Hashtag } from './account-edges.types.ts';

export const HASHTAG_WINDOW_MS = 7 * DAY_MS;
export const HASHTAG_DISTINCT_MAX = 30;
export const RECENT_HASHTAGS_DEFAULT = 25;
export const RECENT_HASHTAGS_MAX = 30;
const HASHTAG_NAME = /^[\p{L}\p{N}_]{1,100}$/u;

/** Recently searched hashtags (`recently_searched_hashtags`) and the search that records one, with the platform's 30-per-7-days rule. */
export function createHashtags(ctx: EdgeContext) {
  const { db, clock, checkAccountId } = ctx;

  async function recentHashtags(accountId: string, limit?: number | null): Promise<Hashtag[]> {
    checkAccountId(accountId, 'get');
    if (limit != null && (!Number.isInteger(limit) || limit < 0)) {
      throw socialErrors.invalidParameter('limit', 'The parameter limit must be a non-negative integer.');
    }
    // The reference: default 25, max 30; a larger limit is a maximum, not an error.
    const wanted = Math.min(limit ?? RECENT_HASHTAGS_DEFAULT, RECENT_HASHTAGS_MAX);
    if (wanted === 0) return [];
    const now = clock();
    const rows = await listRecentHashtags(db, accountId, new Date(now.getTime() - HASHTAG_WINDOW_MS), now, wanted);
    return rows.map((row) => ({ id: row.id, name: row.name }));
  }

  async function recordSearch(accountId: string, text: string, at: Date): Promise<Hashtag> {
    checkAccountId(accountId, 'post');
    const name = normaliseHashtag(text);
    if (name === '') throw socialErrors.missingParameter('q');
    if (!HASHTAG_NAME.test(name)) {
      throw socialErrors.invalidParameter('q', 'A hashtag can contain only letters, digits and underscores (at most 100).');
    }
    return inTransaction(db, async (trx) => {
      // The account row lock makes the check-then-insert below safe against a concurrent search by the same account.
      if (!(await lockAccount(trx, accountId))) throw socialErrors.unknownObject(accountId, 'post');
      const hashtag = await upsertHashtag(trx, name);
      const searched = await searchedHashtagIds(trx, accountId, new Date(at.getTime() - HASHTAG_WINDOW_MS), at);
      // The platform's rule: at most 30 unique hashtags per 7 days; searching one again does not count again.
      if (!searched.includes(hashtag.id) && searched.length >= HASHTAG_DISTINCT_MAX) {
        throw socialErrors.rateLimited(
          'custom',
          `(#613) Calls to this api have exceeded the rate limit. An account can search at most ${HASHTAG_DISTINCT_MAX} unique hashtags within 7 days.`,
        );
      }
      await insertHashtagSearch(trx, accountId, hashtag.id, at);
      await appendEvents(trx, [accountChange('hashtag_searched', accountId)]);
      return hashtag;
    });
  }

  return { recentHashtags, recordSearch };
}

function normaliseHashtag(text: string): string {
  return text.trim().replace(/^#/, '').toLowerCase();
}
