import type { RateLimitState } from '../../contracts/media-upload.ts';
import { isAppError, type AppError } from '../../lib/errors.ts';
import { mediaChange } from '../shared/event-log/change-events.ts';
import { writeWithChanges } from '../shared/event-log/event-log.repository.ts';
import { findSession, setAltText } from '../shared/media-store/media-session.repository.ts';
import { findUpload, type MediaDb } from '../shared/media-store/media-upload.repository.ts';
import type { MediaAuthenticator, MediaAuthRequest } from './media-auth.ts';
import { mediaErrors, withRateLimit } from './media-errors.ts';
import type { UploadRateLimiter } from './media-rate-limiter.ts';
import { given, INT64_MAX } from './media.service.ts';

/**
 * Media metadata (POST /1.1/media/metadata/create.json): alt text on an uploaded media, set by its uploader or an
 * additional owner while its id is valid, at most 1,000 characters. Container creation (Area C) takes it over when the
 * media is used (subgraphs/shared/media-store/media-claims.ts).
 */

/** The reference's bound on alt text, in characters (Unicode code points). */
export const ALT_TEXT_MAX_CHARS = 1000;

export interface MetadataOutcome {
  mediaId: string;
  altText: string;
  rateLimit: RateLimitState;
}

export interface MediaMetadataService {
  createMetadata(
    request: Omit<MediaAuthRequest, 'mediaData'>,
    input: { mediaId?: string | null | undefined; altText?: string | null | undefined },
  ): Promise<MetadataOutcome>;
}

export function createMediaMetadataService(deps: {
  db: MediaDb;
  auth: MediaAuthenticator;
  rateLimiter: UploadRateLimiter;
  now: () => Date;
}): MediaMetadataService {
  return {
    async createMetadata(request, input) {
      const caller = await deps.auth.authenticate({ ...request, mediaData: undefined });
      const { exceeded, ...rateLimit } = await deps.rateLimiter.admit(caller.userId);
      if (exceeded) throw mediaErrors.rateLimited(rateLimit);
      try {
        const text = given(input.mediaId?.trim());
        if (text === undefined) throw mediaErrors.parameterMissing('media_id');
        if (!/^\d{1,19}$/.test(text) || BigInt(text) > INT64_MAX) throw mediaErrors.mediaIdInvalid(text);
        const mediaId = BigInt(text).toString();
        if (input.altText === undefined || input.altText === null) throw mediaErrors.parameterMissing('alt_text');
        const length = [...input.altText].length;
        if (length > ALT_TEXT_MAX_CHARS) {
          throw mediaErrors.parameterInvalid(
            'alt_text',
            `the text is ${length} characters long; at most ${ALT_TEXT_MAX_CHARS} are allowed`,
          );
        }
        const upload = await findUpload(deps.db, mediaId);
        if (!upload) {
          // A chunked upload is media only after FINALIZE.
          const session = await findSession(deps.db, mediaId);
          if (session && String(session.uploader_id) === caller.userId) throw mediaErrors.notFinalized(mediaId);
          throw mediaErrors.mediaIdInvalid(mediaId);
        }
        const owners = new Set([String(upload.uploader_id), ...upload.additional_owners.map(String)]);
        if (!owners.has(caller.userId)) throw mediaErrors.notOwner(caller.userId, mediaId);
        if (upload.expires_at.getTime() <= deps.now().getTime()) throw mediaErrors.mediaIdExpired(mediaId, upload.expires_at);
        const altText = input.altText;
        await writeWithChanges(deps.db, async (trx) => {
          await setAltText(trx, mediaId, altText);
          return { result: undefined, changes: [mediaChange('media_metadata_set', mediaId)] };
        });
        return { mediaId, altText, rateLimit };
      } catch (error) {
        throw isAppError(error) ? withRateLimit(error as AppError, rateLimit) : error;
      }
    },
  };
}
