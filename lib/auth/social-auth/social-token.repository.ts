import type { Generated, Kysely, Transaction } from 'kysely';

export interface AccessTokenTable {
  token_hash: string;
  login_type: 'own' | 'parent';
  subject_id: string;
  permissions: string[];
  label: string | null;
  created_at: Generated<Date>;
  expires_at: Date;
  revoked_at: Date | null;
  /** The app the token was issued to (2026-11-27-001-apps); null for tokens issued before apps existed. */
  app_id: string | null;
}

export interface AppTable {
  id: Generated<string>;
  name: string;
  secret: string;
  created_at: Generated<Date>;
}

export type SocialAuthTables = {
  'social_auth.access_token': AccessTokenTable;
  'social_auth.app': AppTable;
};

export type SocialAuthDb = Kysely<SocialAuthTables> | Transaction<SocialAuthTables>;

export interface StoredToken {
  loginType: 'own' | 'parent';
  subjectId: string;
  permissions: string[];
  expiresAt: Date;
  revokedAt: Date | null;
  appId: string | null;
}

export async function insertAccessToken(
  db: SocialAuthDb,
  row: {
    tokenHash: string;
    loginType: 'own' | 'parent';
    subjectId: string;
    permissions: readonly string[];
    expiresAt: Date;
    label?: string;
    appId?: string;
  },
): Promise<void> {
  await db
    .insertInto('social_auth.access_token')
    .values({
      token_hash: row.tokenHash,
      login_type: row.loginType,
      subject_id: row.subjectId,
      permissions: [...row.permissions],
      label: row.label ?? null,
      expires_at: row.expiresAt,
      revoked_at: null,
      app_id: row.appId ?? null,
    })
    .execute();
}

/** The stored tokens of these hashes, in their order (undefined where none): one statement for all of them. */
export async function findAccessTokens(db: SocialAuthDb, tokenHashes: readonly string[]): Promise<(StoredToken | undefined)[]> {
  if (tokenHashes.length === 0) return [];
  const rows = await db
    .selectFrom('social_auth.access_token')
    .select(['token_hash', 'login_type', 'subject_id', 'permissions', 'expires_at', 'revoked_at', 'app_id'])
    .where('token_hash', 'in', [...new Set(tokenHashes)])
    .execute();
  const byHash = new Map(
    rows.map((row) => [
      row.token_hash,
      {
        loginType: row.login_type,
        subjectId: String(row.subject_id),
        permissions: row.permissions,
        expiresAt: row.expires_at,
        revokedAt: row.revoked_at,
        appId: row.app_id === null ? null : String(row.app_id),
      } satisfies StoredToken,
    ]),
  );
  return tokenHashes.map((hash) => byHash.get(hash));
}

/** Marks a token revoked; false when no live token had that hash. */
export async function revokeAccessToken(db: SocialAuthDb, tokenHash: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable('social_auth.access_token')
    .set({ revoked_at: at })
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export interface StoredApp {
  id: string;
  name: string;
  secret: string;
}

export async function insertApp(db: SocialAuthDb, app: { name: string; secret: string }): Promise<StoredApp> {
  const row = await db.insertInto('social_auth.app').values(app).returning(['id', 'name', 'secret']).executeTakeFirstOrThrow();
  return { id: String(row.id), name: row.name, secret: row.secret };
}

/** The apps with these ids (ids already checked to be app ids). */
export async function findApps(db: SocialAuthDb, ids: readonly string[]): Promise<StoredApp[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('social_auth.app')
    .select(['id', 'name', 'secret'])
    .where('id', 'in', [...ids])
    .execute();
  return rows.map((row) => ({ id: String(row.id), name: row.name, secret: row.secret }));
}

export async function listApps(db: SocialAuthDb): Promise<StoredApp[]> {
  const rows = await db.selectFrom('social_auth.app').select(['id', 'name', 'secret']).orderBy('id').execute();
  return rows.map((row) => ({ id: String(row.id), name: row.name, secret: row.secret }));
}
