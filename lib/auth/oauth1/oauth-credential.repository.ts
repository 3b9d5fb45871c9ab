import type { Generated, Kysely } from 'kysely';

export interface ConsumerTable {
  consumer_key: string;
  consumer_secret: string;
  name: string;
  created_at: Generated<Date>;
  revoked_at: Date | null;
}

export interface AccessTokenTable {
  token: string;
  token_secret: string;
  consumer_key: string;
  user_id: string;
  created_at: Generated<Date>;
  revoked_at: Date | null;
}

export interface AppTokenTable {
  token_hash: string;
  consumer_key: string;
  created_at: Generated<Date>;
  revoked_at: Date | null;
}

export interface NonceTable {
  consumer_key: string;
  token: string;
  nonce: string;
  timestamp: string;
  seen_at: Date;
}

export type OAuthTables = {
  'oauth.consumer': ConsumerTable;
  'oauth.access_token': AccessTokenTable;
  'oauth.app_token': AppTokenTable;
  'oauth.nonce': NonceTable;
};

export type OAuthDb = Kysely<OAuthTables>;

export async function insertConsumer(db: OAuthDb, row: { consumerKey: string; consumerSecret: string; name: string }): Promise<void> {
  await db
    .insertInto('oauth.consumer')
    .values({ consumer_key: row.consumerKey, consumer_secret: row.consumerSecret, name: row.name, revoked_at: null })
    .execute();
}

export async function insertAccessToken(
  db: OAuthDb,
  row: { token: string; tokenSecret: string; consumerKey: string; userId: string },
): Promise<void> {
  await db
    .insertInto('oauth.access_token')
    .values({ token: row.token, token_secret: row.tokenSecret, consumer_key: row.consumerKey, user_id: row.userId, revoked_at: null })
    .execute();
}

export async function insertAppToken(db: OAuthDb, row: { tokenHash: string; consumerKey: string }): Promise<void> {
  await db.insertInto('oauth.app_token').values({ token_hash: row.tokenHash, consumer_key: row.consumerKey, revoked_at: null }).execute();
}

export interface StoredConsumer {
  consumerSecret: string;
  revoked: boolean;
}

export async function findConsumer(db: OAuthDb, consumerKey: string): Promise<StoredConsumer | undefined> {
  const row = await db
    .selectFrom('oauth.consumer')
    .select(['consumer_secret', 'revoked_at'])
    .where('consumer_key', '=', consumerKey)
    .executeTakeFirst();
  return row && { consumerSecret: row.consumer_secret, revoked: row.revoked_at !== null };
}

export interface StoredAccessToken {
  tokenSecret: string;
  consumerKey: string;
  userId: string;
  revoked: boolean;
}

export async function findAccessToken(db: OAuthDb, token: string): Promise<StoredAccessToken | undefined> {
  const row = await db
    .selectFrom('oauth.access_token')
    .select(['token_secret', 'consumer_key', 'user_id', 'revoked_at'])
    .where('token', '=', token)
    .executeTakeFirst();
  return (
    row && { tokenSecret: row.token_secret, consumerKey: row.consumer_key, userId: String(row.user_id), revoked: row.revoked_at !== null }
  );
}

/** The app of a live app-only bearer token (its consumer not revoked either). */
export async function findAppToken(db: OAuthDb, tokenHash: string): Promise<{ consumerKey: string } | undefined> {
  const row = await db
    .selectFrom('oauth.app_token as t')
    .innerJoin('oauth.consumer as c', 'c.consumer_key', 't.consumer_key')
    .select('t.consumer_key')
    .where('t.token_hash', '=', tokenHash)
    .where('t.revoked_at', 'is', null)
    .where('c.revoked_at', 'is', null)
    .executeTakeFirst();
  return row && { consumerKey: row.consumer_key };
}

export async function revokeAccessToken(db: OAuthDb, token: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable('oauth.access_token')
    .set({ revoked_at: at })
    .where('token', '=', token)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Records a nonce; false when the same (consumer, token, nonce, timestamp) was seen before — a replay. One statement. */
export async function recordNonce(
  db: OAuthDb,
  row: { consumerKey: string; token: string; nonce: string; timestamp: string; seenAt: Date },
): Promise<boolean> {
  const inserted = await db
    .insertInto('oauth.nonce')
    .values({ consumer_key: row.consumerKey, token: row.token, nonce: row.nonce, timestamp: row.timestamp, seen_at: row.seenAt })
    .onConflict((conflict) => conflict.doNothing())
    .returning('nonce')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function deleteNoncesSeenBefore(db: OAuthDb, before: Date): Promise<number> {
  const result = await db.deleteFrom('oauth.nonce').where('seen_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
