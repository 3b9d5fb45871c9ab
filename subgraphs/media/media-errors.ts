import { InvalidArgumentError, PermissionDeniedError, RateLimitedError, UnauthenticatedError, type AppError } from '../../lib/errors.ts';
import { mediaReasonOf, type MediaErrorReason, type RateLimitState } from '../../contracts/media-upload.ts';

/**
 * The errors of the image upload (Area D). Each is a member of the closed vocabulary (lib/errors.ts), so GraphQL clients
 * get the usual `extensions.code`, and carries a `reason` and the reference's numeric code (`twitterCode`) in its details;
 * the REST route renders them in the reference's body shapes (rest-adapter/media-upload/media-error-mapper.ts). Messages are the
 * reference's own wording where it has one.
 */

type Make = (message: string, details: Record<string, unknown>) => AppError;

const unauthenticated: Make = (message, details) => new UnauthenticatedError(message, details);
const invalid: Make = (message, details) => new InvalidArgumentError(message, [], details);

const KINDS: Record<MediaErrorReason, { make: Make; twitterCode: number | null }> = {
  AUTH_MISSING: { make: unauthenticated, twitterCode: 215 },
  SIGNATURE_INVALID: { make: unauthenticated, twitterCode: 32 },
  TOKEN_INVALID: { make: unauthenticated, twitterCode: 89 },
  TIMESTAMP_OUT_OF_BOUNDS: { make: unauthenticated, twitterCode: 135 },
  APP_ONLY: { make: (message, details) => new PermissionDeniedError(message, details), twitterCode: 220 },
  RATE_LIMITED: { make: (message, details) => new RateLimitedError(message, details), twitterCode: 88 },
  MEDIA_MISSING: { make: invalid, twitterCode: 38 },
  PARAMETER_INVALID: { make: invalid, twitterCode: 44 },
  // The reference answers unrecognised media in its older shape, without a numeric code.
  MEDIA_UNRECOGNIZED: { make: invalid, twitterCode: null },
  IMAGE_TOO_LARGE: { make: invalid, twitterCode: 324 },
  IMAGE_UNSUPPORTED: { make: invalid, twitterCode: 324 },
  IMAGE_DIMENSIONS: { make: invalid, twitterCode: 324 },
  IMAGE_CORRUPT: { make: invalid, twitterCode: 324 },
  PARAMETER_MISSING: { make: invalid, twitterCode: 38 },
  MEDIA_ID_INVALID: { make: invalid, twitterCode: 324 },
  MEDIA_ID_EXPIRED: { make: invalid, twitterCode: 324 },
  MEDIA_NOT_OWNED: { make: invalid, twitterCode: 324 },
  SESSION_FINALIZED: { make: invalid, twitterCode: 324 },
  SESSION_NOT_FINALIZED: { make: invalid, twitterCode: 324 },
  // Size and assembly problems of the chunked upload come back in the older shape, as media processing errors do.
  FILE_TOO_LARGE: { make: invalid, twitterCode: null },
  SEGMENT_TOO_LARGE: { make: invalid, twitterCode: null },
  SEGMENTS_INVALID: { make: invalid, twitterCode: null },
};

function mediaError(reason: MediaErrorReason, message: string, extra: Record<string, unknown> = {}): AppError {
  const { make, twitterCode } = KINDS[reason];
  return make(message, { reason, ...(twitterCode !== null ? { twitterCode } : {}), ...extra });
}

/** The same error with the caller's rate-limit state attached (every reply after authentication reports it). */
export function withRateLimit(error: AppError, rateLimit: RateLimitState): AppError {
  const reason = mediaReasonOf(error.details);
  if (reason === undefined) return error;
  const copy = mediaError(reason, error.message, { ...error.details, rateLimit });
  return Object.assign(copy, { cause: error.cause });
}

export const mediaErrors = {
  authMissing: () => mediaError('AUTH_MISSING', 'Bad Authentication data.'),
  signatureInvalid: () => mediaError('SIGNATURE_INVALID', 'Could not authenticate you.'),
  tokenInvalid: () => mediaError('TOKEN_INVALID', 'Invalid or expired token.'),
  timestampOutOfBounds: () => mediaError('TIMESTAMP_OUT_OF_BOUNDS', 'Timestamp out of bounds.'),
  appOnly: () => mediaError('APP_ONLY', 'Your credentials do not allow access to this resource.'),
  rateLimited: (rateLimit: RateLimitState) => mediaError('RATE_LIMITED', 'Rate limit exceeded', { rateLimit }),
  mediaMissing: () => mediaError('MEDIA_MISSING', 'media parameter is missing.'),
  bothMedia: () =>
    mediaError(
      'PARAMETER_INVALID',
      'media and media_data cannot be combined: send the file in media or its base64 in media_data, not both.',
      {
        parameter: 'media_data',
      },
    ),
  parameterInvalid: (parameter: string, problem: string) =>
    mediaError('PARAMETER_INVALID', `${parameter} parameter is invalid: ${problem}`, { parameter }),
  unrecognized: () => mediaError('MEDIA_UNRECOGNIZED', 'media type unrecognized.'),
  tooLarge: (maxBytes: number) => mediaError('IMAGE_TOO_LARGE', `Image file size must be <= ${maxBytes} bytes`),
  unsupported: (mimeType: string) =>
    mediaError('IMAGE_UNSUPPORTED', `Image type ${mimeType} is not supported: send JPEG, PNG, GIF or WEBP`, { mimeType }),
  dimensions: (min: number, max: number) =>
    mediaError('IMAGE_DIMENSIONS', `Image dimensions must be >= ${min}x${min} and <= ${max}x${max}`),
  corrupt: () => mediaError('IMAGE_CORRUPT', 'Image file is truncated or corrupt'),
  parameterMissing: (parameter: string) => mediaError('PARAMETER_MISSING', `${parameter} parameter is missing.`, { parameter }),
  mediaIdInvalid: (mediaId: string) => mediaError('MEDIA_ID_INVALID', `Invalid media id ${mediaId}`, { parameter: 'media_id' }),
  mediaIdExpired: (mediaId: string, expiredAt: Date) =>
    mediaError('MEDIA_ID_EXPIRED', `Media id ${mediaId} expired at ${expiredAt.toISOString()}`, { parameter: 'media_id' }),
  notOwner: (userId: string, mediaId: string) => mediaError('MEDIA_NOT_OWNED', `User id ${userId} doesn't own media id ${mediaId}`),
  finalized: (mediaId: string) =>
    mediaError('SESSION_FINALIZED', `Media id ${mediaId} is already finalized: it takes no more APPEND or FINALIZE commands`),
  notFinalized: (mediaId: string) =>
    mediaError('SESSION_NOT_FINALIZED', `Media id ${mediaId} is not finalized: send command=FINALIZE first`),
  fileTooLarge: (maxBytes: number) => mediaError('FILE_TOO_LARGE', `File size exceeds ${maxBytes} bytes.`, { maxBytes }),
  segmentTooLarge: (maxBytes: number) => mediaError('SEGMENT_TOO_LARGE', `Segment size exceeds ${maxBytes} bytes.`, { maxBytes }),
  segmentsInvalid: (message: string) => mediaError('SEGMENTS_INVALID', message),
};
