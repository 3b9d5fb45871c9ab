import { lastEventPosition } from '../event-log/event-log.repository.ts';
import type { SocialDb } from '../../shared/social-graph/social-tables.ts';
import type { Kysely } from 'kysely';
import type { SocialTables } from '../../shared/social-graph/social-tables.ts';

/** Every line of SQL behind webhook subscriptions (tables of 2026-11-27-002-webhook-subscriptions). */

export interface AppSubscriptionRow {
  appId: string;
  object: string;
  callbackUrl: string;
  includeValues: boolean;
  fields: string[];
  active: boolean;
}

export async function findAppSubscriptions(db: SocialDb, appId: string): Promise<AppSubscriptionRow[]> {
  const rows = await db
    .selectFrom('social.app_subscription')
    .select(['app_id', 'object', 'callback_url', 'include_values', 'fields', 'active'])
    .where('app_id', '=', appId)
    .orderBy('object')
    .execute();
  return rows.map((row) => ({
    appId: String(row.app_id),
    object: row.object,
    callbackUrl: row.callback_url,
    includeValues: row.include_values,
    fields: row.fields,
    active: row.active,
  }));
}

/**
 * Creates or updates an app's subscription to an object: a later call adds its fields to the ones there (§6.1: "without
 * overwriting existing fields"), replaces the callback, verify token and include_values, and reactivates it. The
 * delivery cursor is created with it, at the log's last position: events before the subscription are not delivered.
 */
export async function saveAppSubscription(
  db: Kysely<SocialTables>,
  subscription: {
    appId: string;
    object: string;
    callbackUrl: string;
    verifyToken: string;
    includeValues: boolean;
    fields: readonly string[];
  },
  at: Date,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom('social.app_subscription')
      .select('fields')
      .where('app_id', '=', subscription.appId)
      .where('object', '=', subscription.object)
      .forUpdate()
      .executeTakeFirst();
    const fields = [...new Set([...(existing?.fields ?? []), ...subscription.fields])].sort();
    const values = {
      callback_url: subscription.callbackUrl,
      verify_token: subscription.verifyToken,
      include_values: subscription.includeValues,
      fields,
      active: true,
      updated_at: at,
    };
    await trx
      .insertInto('social.app_subscription')
      .values({ app_id: subscription.appId, object: subscription.object, ...values })
      .onConflict((oc) => oc.columns(['app_id', 'object']).doUpdateSet(values))
      .execute();
    const position = await lastEventPosition(trx);
    await trx
      .insertInto('social.webhook_cursor')
      .values({ app_id: subscription.appId, object: subscription.object, delivered_to: position })
      .onConflict((oc) => oc.columns(['app_id', 'object']).doNothing())
      .execute();
  });
}

/** Removes some fields of an app's subscription (all of them: the subscription) or, without an object, every subscription. */
export async function removeAppSubscriptions(
  db: Kysely<SocialTables>,
  appId: string,
  object: string | undefined,
  fields: readonly string[] | undefined,
  at: Date,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (fields === undefined || object === undefined) {
      let query = trx.deleteFrom('social.app_subscription').where('app_id', '=', appId);
      if (object !== undefined) query = query.where('object', '=', object);
      await query.execute();
      return;
    }
    const existing = await trx
      .selectFrom('social.app_subscription')
      .select('fields')
      .where('app_id', '=', appId)
      .where('object', '=', object)
      .forUpdate()
      .executeTakeFirst();
    if (!existing) return;
    const left = existing.fields.filter((field) => !fields.includes(field));
    if (left.length === 0) {
      await trx.deleteFrom('social.app_subscription').where('app_id', '=', appId).where('object', '=', object).execute();
    } else {
      await trx
        .updateTable('social.app_subscription')
        .set({ fields: left, updated_at: at })
        .where('app_id', '=', appId)
        .where('object', '=', object)
        .execute();
    }
  });
}

export interface SubscribedAppRow {
  appId: string;
  subscribedFields: string[];
}

/** Subscribes an account to an app (again: its fields replaced). */
export async function saveSubscribedApp(db: SocialDb, accountId: string, appId: string, fields: readonly string[]): Promise<void> {
  await db
    .insertInto('social.subscribed_app')
    .values({ account_id: accountId, app_id: appId, subscribed_fields: [...fields] })
    .onConflict((oc) => oc.columns(['account_id', 'app_id']).doUpdateSet({ subscribed_fields: [...fields] }))
    .execute();
}

export async function findSubscribedApps(db: SocialDb, accountId: string): Promise<SubscribedAppRow[]> {
  const rows = await db
    .selectFrom('social.subscribed_app')
    .select(['app_id', 'subscribed_fields'])
    .where('account_id', '=', accountId)
    .orderBy('app_id')
    .execute();
  return rows.map((row) => ({ appId: String(row.app_id), subscribedFields: row.subscribed_fields }));
}

/** Unsubscribes an account from an app; false when it was not subscribed. */
export async function removeSubscribedApp(db: SocialDb, accountId: string, appId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('social.subscribed_app')
    .where('account_id', '=', accountId)
    .where('app_id', '=', appId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Subscriptions an app holds (the per-app limit). */
export async function countAppSubscriptions(db: SocialDb, appId: string): Promise<number> {
  const row = await db
    .selectFrom('social.app_subscription')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('app_id', '=', appId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
