import type { GraphQLFormattedError } from 'graphql';
import { isRecord } from '../../lib/is-record.ts';
import { errorCodeFromGraphql } from '../../lib/errors.ts';
import {
  LEGACY_SHAPED_REASONS,
  MEDIA_ERROR_REASONS,
  mediaReasonOf,
  type MediaErrorReason,
  type RateLimitState,
} from '../../contracts/media-upload.ts';

/**
 * The one mapping of the media service's errors (GraphQL errors with `extensions.reason` and `twitterCode`) onto the
 * reference's replies at POST /1.1/media/upload.json: HTTP status, and one of its two body shapes — the standard
 * `{"errors":[{"code","message"}]}` or, for media it cannot recognise, the older `{"request","error"}`.
 */

export const UPLOAD_PATH = '/1.1/media/upload.json';
/** Media metadata (alt text). */
export const METADATA_PATH = '/1.1/media/metadata/create.json';

export interface MediaReply {
  status: number;
  body: unknown;
  rateLimit?: RateLimitState;
  headers?: Record<string, string>;
}

const STATUS: Record<MediaErrorReason, number> = {
  AUTH_MISSING: 400,
  SIGNATURE_INVALID: 401,
  TOKEN_INVALID: 401,
  TIMESTAMP_OUT_OF_BOUNDS: 401,
  APP_ONLY: 403,
  RATE_LIMITED: 429,
  MEDIA_MISSING: 400,
  PARAMETER_INVALID: 400,
  MEDIA_UNRECOGNIZED: 400,
  IMAGE_TOO_LARGE: 400,
  IMAGE_UNSUPPORTED: 400,
  IMAGE_DIMENSIONS: 400,
  IMAGE_CORRUPT: 400,
  PARAMETER_MISSING: 400,
  MEDIA_ID_INVALID: 400,
  MEDIA_ID_EXPIRED: 400,
  MEDIA_NOT_OWNED: 400,
  SESSION_FINALIZED: 400,
  SESSION_NOT_FINALIZED: 400,
  FILE_TOO_LARGE: 400,
  SEGMENT_TOO_LARGE: 400,
  SEGMENTS_INVALID: 400,
};

/** The reference's standard error body. */
export function standardError(code: number, message: string): { errors: { code: number; message: string }[] } {
  return { errors: [{ code, message }] };
}

function rank(error: GraphQLFormattedError): number {
  const reason = mediaReasonOf(error.extensions);
  return reason === undefined ? MEDIA_ERROR_REASONS.length : MEDIA_ERROR_REASONS.indexOf(reason);
}

function rateLimitOf(extensions: Readonly<Record<string, unknown>>): RateLimitState | undefined {
  const value = extensions.rateLimit;
  if (!isRecord(value) || typeof value.limit !== 'number' || typeof value.remaining !== 'number' || typeof value.reset !== 'number')
    return undefined;
  return { limit: value.limit, remaining: value.remaining, reset: value.reset };
}

export function mapMediaErrors(errors: readonly GraphQLFormattedError[], path: string = UPLOAD_PATH): MediaReply {
  const error = [...errors].sort((a, b) => rank(a) - rank(b))[0]!;
  const extensions = error.extensions ?? {};
  const reason = mediaReasonOf(extensions);
  const rateLimit = rateLimitOf(extensions);
  const withLimit = rateLimit ? { rateLimit } : {};
  if (reason !== undefined && LEGACY_SHAPED_REASONS.includes(reason))
    return { status: 400, body: { request: path, error: error.message }, ...withLimit };
  if (reason !== undefined) {
    const status = STATUS[reason];
    return {
      status,
      body: standardError(Number(extensions.twitterCode), error.message),
      ...withLimit,
      // The reference names its scheme on every 401, as HTTP asks.
      ...(status === 401 ? { headers: { 'www-authenticate': 'OAuth realm="Tributary"' } } : {}),
    };
  }
  // A variable the schema refuses (a wrong type in a parameter) is the request's fault.
  if (extensions.code === 'BAD_USER_INPUT' || extensions.code === 'GRAPHQL_VALIDATION_FAILED') {
    return { status: 400, body: standardError(44, error.message) };
  }
  // The reference's own codes for its failures: 130 over capacity (503), 131 internal error (500).
  return errorCodeFromGraphql(extensions.code) === 'UNAVAILABLE'
    ? { status: 503, body: standardError(130, 'Over capacity') }
    : { status: 500, body: standardError(131, 'Internal error') };
}
