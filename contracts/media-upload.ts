/**
 * Area D's error vocabulary shared by the media service (subgraphs/media/media-errors.ts, which throws these reasons) and
 * the upload route (rest-adapter/media-upload, which renders each reason in the reference's body shape and headers).
 */

export const MEDIA_ERROR_REASONS = [
  'AUTH_MISSING',
  'SIGNATURE_INVALID',
  'TOKEN_INVALID',
  'TIMESTAMP_OUT_OF_BOUNDS',
  'APP_ONLY',
  'RATE_LIMITED',
  'MEDIA_MISSING',
  'PARAMETER_INVALID',
  'MEDIA_UNRECOGNIZED',
  'IMAGE_TOO_LARGE',
  'IMAGE_UNSUPPORTED',
  'IMAGE_DIMENSIONS',
  'IMAGE_CORRUPT',
  // The chunked upload (command=INIT, APPEND, FINALIZE, STATUS) and media metadata.
  'PARAMETER_MISSING',
  'MEDIA_ID_INVALID',
  'MEDIA_ID_EXPIRED',
  'MEDIA_NOT_OWNED',
  'SESSION_FINALIZED',
  'SESSION_NOT_FINALIZED',
  'FILE_TOO_LARGE',
  'SEGMENT_TOO_LARGE',
  'SEGMENTS_INVALID',
] as const;

export type MediaErrorReason = (typeof MEDIA_ERROR_REASONS)[number];

/** Reasons the reference answers in its older body shape, `{"request": <path>, "error": <message>}`, without a code. */
export const LEGACY_SHAPED_REASONS: readonly MediaErrorReason[] = [
  'MEDIA_UNRECOGNIZED',
  'FILE_TOO_LARGE',
  'SEGMENT_TOO_LARGE',
  'SEGMENTS_INVALID',
];

/** The state of the caller's rate-limit window, as the x-rate-limit-* headers give it. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix time (seconds) at which the window resets. */
  reset: number;
}

export function mediaReasonOf(details: Readonly<Record<string, unknown>> | undefined): MediaErrorReason | undefined {
  const reason = details?.reason;
  return typeof reason === 'string' && (MEDIA_ERROR_REASONS as readonly string[]).includes(reason)
    ? (reason as MediaErrorReason)
    : undefined;
}
