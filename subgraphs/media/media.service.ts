import { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import type { FileUpload } from 'graphql-upload-ts';
import { isAppError, type AppError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Metrics } from '../../lib/telemetry/metrics.ts';
import type { BlobStore } from '../shared/media-store/blob-store.ts';
import { mediaChange } from '../shared/event-log/change-events.ts';
import { createBlobLedger } from '../shared/media-store/blob-ledger.ts';
import { insertUpload, type MediaDb, type UploadRow } from '../shared/media-store/media-upload.repository.ts';
import { ImageInspector, ImageRejectedError, type ImageProblem } from './image-inspector.ts';
import type { MediaAuthenticator, MediaAuthRequest } from './media-auth.ts';
import { mediaErrors, withRateLimit } from './media-errors.ts';
import type { RateLimitState } from '../../contracts/media-upload.ts';
import type { UploadRateLimiter } from './media-rate-limiter.ts';

/** The reference's bounds on an image's width and height, in pixels. */
export const MIN_DIMENSION = 4;
export const MAX_DIMENSION = 8192;
/** At most this many additional owners per upload. */
export const MAX_ADDITIONAL_OWNERS = 100;
/** media_key prefix of images (the reference's `3_<media_id>`). */
export const IMAGE_KEY_PREFIX = '3';

export interface UploadInput {
  /** The file (the GraphQL Upload scalar's value). */
  media?: Promise<FileUpload> | null | undefined;
  /** The file in base64. */
  mediaData?: string | null | undefined;
  mediaCategory?: string | null | undefined;
  /** User ids; each entry may itself be a comma-separated list (the reference's form). */
  additionalOwners?: readonly string[] | null | undefined;
}

export interface UploadedMedia {
  mediaId: string;
  mediaKey: string | null;
  size: number;
  expiresAfterSecs: number;
  image: { imageType: string; w: number; h: number };
}

export interface UploadOutcome {
  media: UploadedMedia;
  rateLimit: RateLimitState;
}

export interface MediaService {
  upload(request: Omit<MediaAuthRequest, 'mediaData'>, input: UploadInput): Promise<UploadOutcome>;
}

export interface MediaServiceDeps {
  db: MediaDb;
  blobs: BlobStore;
  auth: MediaAuthenticator;
  rateLimiter: UploadRateLimiter;
  now: () => Date;
  logger: Logger;
  maxBytes: number;
  expiresAfterSecs: number;
  /** Counts uploads stored and refused, and rate-limit refusals. */
  metrics?: Pick<Metrics, 'observeUpload' | 'observeRateLimited'>;
}

export const INT64_MAX = 9_223_372_036_854_775_807n;

/** Categories a client may name, by their letters alone (the reference's clients write TWEET_IMAGE, TweetImage, tweet_image). */
const CATEGORIES: Record<string, 'tweet_image' | 'chunked'> = {
  tweetimage: 'tweet_image',
  tweetgif: 'chunked',
  tweetvideo: 'chunked',
  amplifyvideo: 'chunked',
};

export function createMediaService(deps: MediaServiceDeps): MediaService {
  // The upload's blob goes through the ledger, so a crash between writing it and recording it orphans nothing.
  const ledger = createBlobLedger({ db: deps.db, blobs: deps.blobs, now: deps.now, logger: deps.logger });
  return {
    async upload(request, input) {
      const mediaData = given(input.mediaData);
      const caller = await deps.auth.authenticate({ ...request, mediaData });
      if (caller.signatureUnchecked) {
        // Only a body cut for being longer than any acceptable image gets here: refused, and not counted against a
        // user whose signature was never checked.
        await discard(input.media);
        throw mediaErrors.tooLarge(deps.maxBytes);
      }
      const rateLimit = await deps.rateLimiter.admit(caller.userId);
      const { exceeded, ...state } = rateLimit;
      if (exceeded) {
        await discard(input.media);
        deps.metrics?.observeRateLimited('media', 'upload');
        throw mediaErrors.rateLimited(state);
      }
      try {
        const media = await store(caller.userId, input, mediaData);
        deps.metrics?.observeUpload('stored', media.size);
        return { media, rateLimit: state };
      } catch (error) {
        deps.metrics?.observeUpload('refused', 0);
        throw isAppError(error) ? withRateLimit(error, state) : error;
      }
    },
  };

  async function store(userId: string, input: UploadInput, mediaData: string | undefined): Promise<UploadedMedia> {
    const hasFile = input.media !== undefined && input.media !== null;
    if (!hasFile && mediaData === undefined) throw mediaErrors.mediaMissing();
    if (hasFile && mediaData !== undefined) {
      await discard(input.media);
      throw mediaErrors.bothMedia();
    }
    let category: string | null;
    let owners: string[];
    try {
      category = mediaCategory(input.mediaCategory);
      owners = additionalOwners(input.additionalOwners);
    } catch (error) {
      await discard(input.media);
      throw error;
    }
    const source = hasFile ? await fileStream(input.media!, deps.maxBytes) : Readable.from([decodeBase64(mediaData!)]);

    const inspector = new ImageInspector({ maxBytes: deps.maxBytes, minDimension: MIN_DIMENSION, maxDimension: MAX_DIMENSION });
    let key: string;
    try {
      ({ key } = await ledger.write(pipeline(source, inspector, () => undefined)));
    } catch (error) {
      source.destroy();
      throw rejection(error, deps.maxBytes);
    }
    const facts = inspector.facts!;
    const now = deps.now();
    let row: UploadRow;
    try {
      row = await insertUpload(
        deps.db,
        {
          uploader_id: userId,
          additional_owners: owners,
          media_category: category,
          mime_type: facts.mimeType,
          width: facts.width,
          height: facts.height,
          frames: facts.frames,
          size: facts.size,
          blob_key: key,
          created_at: now,
          expires_at: new Date(now.getTime() + deps.expiresAfterSecs * 1000),
        },
        (upload) => [mediaChange('media_uploaded', String(upload.id))],
      );
    } catch (error) {
      await ledger.remove(key);
      throw error;
    }
    return {
      mediaId: String(row.id),
      mediaKey: category === null ? null : `${IMAGE_KEY_PREFIX}_${row.id}`,
      size: facts.size,
      expiresAfterSecs: deps.expiresAfterSecs,
      image: { imageType: facts.mimeType, w: facts.width, h: facts.height },
    };
  }
}

export function given(value: string | null | undefined): string | undefined {
  return value === undefined || value === null || value === '' ? undefined : value;
}

function mediaCategory(value: string | null | undefined): string | null {
  const text = given(value?.trim());
  if (text === undefined) return null;
  const category = CATEGORIES[text.replace(/[_-]/g, '').toLowerCase()];
  if (category === 'tweet_image') return category;
  if (category === 'chunked') {
    throw mediaErrors.parameterInvalid(
      'media_category',
      `${text} is for videos and animated GIFs, which need the chunked upload (command=INIT, APPEND, FINALIZE); this endpoint takes images only`,
    );
  }
  throw mediaErrors.parameterInvalid(
    'media_category',
    `${JSON.stringify(text)} is not one of tweet_image, tweet_gif, tweet_video, amplify_video`,
  );
}

/** Decimal ids, each 1–19 digits and within a signed 64-bit integer, at most 100 distinct. */
export function additionalOwners(values: readonly string[] | null | undefined): string[] {
  const entries = (values ?? []).flatMap((value) => (value.trim() === '' ? [] : value.split(',')));
  const owners = new Set<string>();
  for (const entry of entries) {
    const text = entry.trim();
    if (!/^\d{1,19}$/.test(text) || BigInt(text) > INT64_MAX || BigInt(text) === 0n) {
      throw mediaErrors.parameterInvalid('additional_owners', `${JSON.stringify(text)} is not a user id (1 to 19 digits)`);
    }
    owners.add(BigInt(text).toString());
  }
  if (owners.size > MAX_ADDITIONAL_OWNERS) {
    throw mediaErrors.parameterInvalid('additional_owners', `at most ${MAX_ADDITIONAL_OWNERS} user ids are allowed, got ${owners.size}`);
  }
  return [...owners];
}

const BASE64 = /^(?:[A-Za-z0-9+/]*={0,2}|[A-Za-z0-9_-]*={0,2})$/;

/**
 * Strict base64 (standard or URL-safe alphabet, line breaks ignored). A space stands for a `+` that a client left
 * unescaped in an urlencoded body. A data: URI is not base64 of an image: the reference answers it as unrecognised media.
 */
export function decodeBase64(text: string): Buffer {
  if (/^\s*data:/i.test(text)) throw mediaErrors.unrecognized();
  const compact = text.replace(/[\r\n\t]/g, '').replace(/ /g, '+');
  if (!BASE64.test(compact) || compact.replace(/=+$/, '').length % 4 === 1) {
    throw mediaErrors.parameterInvalid('media_data', 'it is not base64');
  }
  return Buffer.from(compact, 'base64');
}

/** How much of an upload's spool file one read takes (fileStream). */
const SPOOL_READ_BYTES = 256 * 1024;

export async function fileStream(file: Promise<FileUpload>, maxBytes: number): Promise<Readable> {
  try {
    // 256 KiB reads of the spool file instead of the stream default (16 KiB on Node 20): a 5 MB image is 20 reads on
    // the thread pool rather than 300, each a fresh buffer and a tick of its own.
    return (await file).createReadStream({ highWaterMark: SPOOL_READ_BYTES });
  } catch (error) {
    throw rejection(error, maxBytes);
  }
}

/**
 * A file that failed while streaming: a 4xx from the multipart reader (the client went away, the part was malformed)
 * is a broken upload; anything else is ours. (Files are cut one byte past the limit rather than failed, so size is
 * always the inspector's finding.)
 */
export function rejection(error: unknown, maxBytes: number): unknown {
  if (error instanceof ImageRejectedError) return problemError(error.problem, maxBytes);
  const status = typeof error === 'object' && error !== null ? (error as { status?: unknown }).status : undefined;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return mediaErrors.parameterInvalid('media', 'the file did not arrive whole');
  }
  return error;
}

export function problemError(problem: ImageProblem, maxBytes: number): AppError {
  switch (problem.kind) {
    case 'too-large':
      return mediaErrors.tooLarge(maxBytes);
    case 'unrecognized':
      return mediaErrors.unrecognized();
    case 'unsupported-type':
      return mediaErrors.unsupported(problem.mimeType);
    case 'corrupt':
      return mediaErrors.corrupt();
    case 'dimensions':
      return mediaErrors.dimensions(MIN_DIMENSION, MAX_DIMENSION);
  }
}

/** Lets go of a file that will not be read, so its temporary copy is removed. */
export async function discard(file: Promise<FileUpload> | null | undefined): Promise<void> {
  if (!file) return;
  try {
    (await file).createReadStream().destroy();
  } catch {
    // Already failed or released: nothing held.
  }
}
