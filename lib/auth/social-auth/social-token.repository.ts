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
}

export type SocialAuthTables = {
  'social_auth.access_token': AccessTokenTable;
};

export type SocialAuthDb = Kysely<SocialAuthTables> | Transaction<SocialAuthTables>;

export interface StoredToken {
  loginType: 'own' | 'parent';
  subjectId: string;
  permissions: string[];
  expiresAt: Date;
  revokedAt: Date | null;
}

export async function insertAccessToken(
  db: SocialAuthDb,
  row: { tokenHash: string; loginType: 'own' | 'parent'; subjectId: string; permissions: readonly string[]; expiresAt: Date; label?: string },
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
    })
    .execute();
}

export async function findAccessToken(db: SocialAuthDb, tokenHash: string): Promise<StoredToken | undefined> {
  const row = await db
    .selectFrom('social_auth.access_token')
    .select(['login_type', 'subject_id', 'permissions', 'expires_at', 'revoked_at'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    loginType: row.login_type,
    subjectId: String(row.subject_id),
    permissions: row.permissions,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
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
