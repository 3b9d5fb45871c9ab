import type { Kysely } from 'kysely';
import { findUpload, retainUpload, type MediaDb, type MediaTables } from './media-upload.repository.ts';

/**
 * Use of an uploaded image by another endpoint (a publishing container): the id or key must name an upload that has not
 * expired, and one of the claimants must be its uploader or an additional owner. A successful claim keeps the bytes past
 * the id's expiry (the post keeps its image). Each endpoint turns a refusal into its own error format.
 */
export type ClaimRefusal =
  | { reason: 'malformed' }
  | { reason: 'unknown' }
  | { reason: 'expired'; mediaId: string; expiredAt: Date }
  | { reason: 'not-owner'; mediaId: string };

export type ClaimOutcome = { ok: true; mediaId: string; mimeType: string; width: number; height: number } | ({ ok: false } & ClaimRefusal);

export interface MediaClaims {
  /**
   * @param reference a media_id (`1880000000000000123`) or media_key (`3_1880000000000000123`)
   * @param claimants user ids acting (the caller, the account the media is for)
   * @param within the caller's transaction, when it holds one: the claim is part of it (and, on PGlite's single
   *   connection, a query outside it would wait for it forever)
   */
  // `any`: the caller's transaction is typed by its own schema's tables.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  claim(reference: string, claimants: readonly string[], within?: Kysely<any>): Promise<ClaimOutcome>;
}

const INT64_MAX = 9_223_372_036_854_775_807n;

export function createMediaClaims(deps: { db: MediaDb; now: () => Date }): MediaClaims {
  return {
    async claim(reference, claimants, within) {
      const db = within ? within.withTables<MediaTables>() : deps.db;
      const match = /^(?:(\d{1,3})_)?(\d{1,19})$/.exec(reference.trim());
      if (!match || BigInt(match[2]!) > INT64_MAX) return { ok: false, reason: 'malformed' };
      const [, prefix, id] = match;
      const upload = await findUpload(db, BigInt(id!).toString());
      // A key exists only for an upload that named a category, and only with the image prefix.
      if (!upload || (prefix !== undefined && (prefix !== '3' || upload.media_category === null))) return { ok: false, reason: 'unknown' };
      const mediaId = String(upload.id);
      if (upload.expires_at.getTime() <= deps.now().getTime()) return { ok: false, reason: 'expired', mediaId, expiredAt: upload.expires_at };
      const owners = new Set([String(upload.uploader_id), ...upload.additional_owners.map(String)]);
      if (!claimants.some((claimant) => owners.has(claimant))) return { ok: false, reason: 'not-owner', mediaId };
      if (!upload.retained) await retainUpload(db, mediaId);
      return { ok: true, mediaId, mimeType: upload.mime_type, width: upload.width, height: upload.height };
    },
  };
}
