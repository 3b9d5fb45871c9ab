import type { Kysely } from 'kysely';
import { mediaChange } from '../event-log/change-events.ts';
import { writeWithChanges } from '../event-log/event-log.repository.ts';
import { mediaKeyOf } from './media-keys.ts';
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
  | { reason: 'not-owner'; mediaId: string }
  /** An animated GIF or video of the chunked upload whose processing has not succeeded (pending, in_progress, failed). */
  | { reason: 'not-ready'; mediaId: string; state: string };

export type ClaimOutcome =
  | {
      ok: true;
      mediaId: string;
      mimeType: string;
      width: number;
      height: number;
      /** The alt text set through POST /1.1/media/metadata/create.json, if any. */
      altText: string | null;
    }
  | ({ ok: false } & ClaimRefusal);

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
      const db: MediaDb = within ? within.withTables<MediaTables>() : deps.db;
      const match = /^(?:(\d{1,3})_)?(\d{1,19})$/.exec(reference.trim());
      if (!match || BigInt(match[2]!) > INT64_MAX) return { ok: false, reason: 'malformed' };
      const [, prefix, id] = match;
      const upload = await findUpload(db, BigInt(id!).toString());
      // A key exists only for an upload that named a category, with that category's prefix.
      if (!upload || (prefix !== undefined && mediaKeyOf(String(upload.id), upload.media_category) !== `${prefix}_${upload.id}`)) {
        return { ok: false, reason: 'unknown' };
      }
      const mediaId = String(upload.id);
      if (upload.expires_at.getTime() <= deps.now().getTime())
        return { ok: false, reason: 'expired', mediaId, expiredAt: upload.expires_at };
      const owners = new Set([String(upload.uploader_id), ...upload.additional_owners.map(String)]);
      if (!claimants.some((claimant) => owners.has(claimant))) return { ok: false, reason: 'not-owner', mediaId };
      // Animated GIFs and videos are usable once their processing has succeeded (images have no processing state).
      if (upload.processing_state !== null && upload.processing_state !== 'succeeded') {
        return { ok: false, reason: 'not-ready', mediaId, state: upload.processing_state };
      }
      if (!upload.retained) {
        // In the caller's transaction when it holds one (the container that claims it), or one of its own.
        await writeWithChanges(db, async (trx) => {
          await retainUpload(trx, mediaId);
          return { result: undefined, changes: [mediaChange('media_retained', mediaId)] };
        });
      }
      return { ok: true, mediaId, mimeType: upload.mime_type, width: upload.width, height: upload.height, altText: upload.alt_text };
    },
  };
}
