import type { SocialDb } from './social-tables.ts';

/** SQL behind the social graph's access rules (who manages which account, business admins). */

export interface PageRole {
  accountId: string;
  pageId: string;
  businessId: string | null;
  tasks: readonly string[];
  viaBusinessManager: boolean;
}

/** Every professional account a parent-platform user reaches through a role on the account's linked page: one query. */
export async function findPageRoles(db: SocialDb, platformUserId: string): Promise<PageRole[]> {
  const rows = await db
    .selectFrom('social.page_role as r')
    .innerJoin('social.page as p', 'p.id', 'r.page_id')
    .select(['p.account_id', 'p.id as page_id', 'p.business_id', 'r.tasks', 'r.via_business_manager'])
    .where('r.platform_user_id', '=', platformUserId)
    .where('p.account_id', 'is not', null)
    .execute();
  return rows.map((row) => ({
    accountId: String(row.account_id),
    pageId: String(row.page_id),
    businessId: row.business_id === null ? null : String(row.business_id),
    tasks: row.tasks,
    viaBusinessManager: row.via_business_manager,
  }));
}

/** The businesses a parent-platform user administers. */
export async function findAdministeredBusinesses(db: SocialDb, platformUserId: string): Promise<string[]> {
  const rows = await db.selectFrom('social.business_admin').select('business_id').where('platform_user_id', '=', platformUserId).execute();
  return rows.map((row) => String(row.business_id));
}

/** Whether a parent-platform user exists (a token may outlive its subject). */
export async function platformUserExists(db: SocialDb, platformUserId: string): Promise<boolean> {
  const row = await db.selectFrom('social.platform_user').select('id').where('id', '=', platformUserId).executeTakeFirst();
  return row !== undefined;
}
