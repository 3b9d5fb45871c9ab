import { Readable, Transform, pipeline, type TransformCallback } from 'node:stream';
import type { FileUpload } from 'graphql-upload-ts';
import { isAppError, type AppError } from '../../../lib/errors.ts';
import type { Logger } from '../../../lib/logger.ts';
import type { RateLimitState } from '../../../contracts/media-upload.ts';
import { mediaChange } from '../../shared/event-log/change-events.ts';
import { writeWithChanges } from '../../shared/event-log/event-log.repository.ts';
import type { BlobStore } from '../../shared/media-store/blob-store.ts';
import { createBlobLedger, type BlobLedger } from '../../shared/media-store/blob-ledger.ts';
import {
  findSession,
  finalizeSession,
  insertSegment,
  insertSession,
  listSegments,
  segmentTotals,
  type SessionRow,
} from '../../shared/media-store/media-session.repository.ts';
import { findUpload, type MediaDb, type UploadRow } from '../../shared/media-store/media-upload.repository.ts';
import { mediaKeyOf } from '../../shared/media-store/media-keys.ts';
import { ImageInspector } from '../image-inspector.ts';
import type { MediaAuthenticator, MediaAuthRequest, MediaCaller } from '../media-auth.ts';
import { mediaErrors, withRateLimit } from '../media-errors.ts';
import type { UploadRateLimiter } from '../media-rate-limiter.ts';
import {
  additionalOwners,
  decodeBase64,
  discard,
  fileStream,
  given,
  INT64_MAX,
  MAX_DIMENSION,
  MIN_DIMENSION,
  rejection,
} from '../media.service.ts';
import type { MediaProcessor } from './media-processor.ts';

/**
 * The chunked upload (the reference's §8): INIT opens a session for `total_bytes` of one `media_type`, APPEND stores
 * segments 0–999 as they arrive (streamed to the blob store, recorded in the database, so a session survives a restart),
 * FINALIZE assembles them in segment_index order and inspects the result — an image at once, as the simple upload does;
 * an animated GIF or a video through the processing state machine (media-processor.ts) — and STATUS reports it. Every
 * command authenticates as the simple upload does and counts against the same rate limit. A session is its creator's.
 */

export type ChunkedCategory = 'tweet_image' | 'tweet_gif' | 'tweet_video' | 'amplify_video';
type Kind = 'image' | 'gif' | 'video';

export interface InitInput {
  totalBytes?: string | null | undefined;
  mediaType?: string | null | undefined;
  mediaCategory?: string | null | undefined;
  additionalOwners?: readonly string[] | null | undefined;
  shared?: boolean | null | undefined;
}

export interface AppendInput {
  mediaId?: string | null | undefined;
  segmentIndex?: string | null | undefined;
  media?: Promise<FileUpload> | null | undefined;
  mediaData?: string | null | undefined;
}

export type ProcessingState = 'pending' | 'in_progress' | 'succeeded' | 'failed';

export interface ProcessingInfo {
  state: ProcessingState;
  /** Seconds to wait before the next STATUS (pending, in_progress). */
  checkAfterSecs: number | null;
  progressPercent: number | null;
  error: { code: number; name: string; message: string } | null;
}

/** A session or its finished upload, as INIT, FINALIZE and STATUS describe it. */
export interface ChunkedMedia {
  mediaId: string;
  mediaKey: string | null;
  /** Bytes received; null until FINALIZE. */
  size: number | null;
  expiresAfterSecs: number;
  image: { imageType: string; w: number; h: number } | null;
  video: { videoType: string } | null;
  processingInfo: ProcessingInfo | null;
  /** The alt text set through the metadata endpoint. */
  altText: string | null;
}

export interface ChunkedOutcome {
  media: ChunkedMedia;
  rateLimit: RateLimitState;
}

export interface AppendOutcome {
  mediaId: string;
  segmentIndex: number;
  size: number;
  /** When the session expires. */
  expiresAt: Date;
  rateLimit: RateLimitState;
}

type Credentials = Omit<MediaAuthRequest, 'mediaData'>;

export interface ChunkedUploadService {
  init(request: Credentials, input: InitInput): Promise<ChunkedOutcome>;
  append(request: Credentials, input: AppendInput): Promise<AppendOutcome>;
  finalize(request: Credentials, input: { mediaId?: string | null | undefined }): Promise<ChunkedOutcome>;
  status(request: Credentials, input: { mediaId?: string | null | undefined }): Promise<ChunkedOutcome>;
}

export interface ChunkedUploadDeps {
  db: MediaDb;
  blobs: BlobStore;
  auth: MediaAuthenticator;
  rateLimiter: UploadRateLimiter;
  processor: MediaProcessor;
  now: () => Date;
  logger: Logger;
  expiresAfterSecs: number;
  /** Images (and GIFs without the tweet_gif category): the simple upload's limit. */
  imageMaxBytes: number;
  gifMaxBytes: number;
  videoMaxBytes: number;
  segmentMaxBytes: number;
}

/** segment_index runs from 0 to this (the reference's 0–999). */
export const MAX_SEGMENT_INDEX = 999;
/** Seconds a client is asked to wait between STATUS calls while processing runs. */
export const CHECK_AFTER_SECS = 1;

/** Categories by their letters alone (TWEET_GIF, TweetGif, tweet_gif). */
const CATEGORIES: Record<string, ChunkedCategory> = {
  tweetimage: 'tweet_image',
  tweetgif: 'tweet_gif',
  tweetvideo: 'tweet_video',
  amplifyvideo: 'amplify_video',
};

const IMAGE_TYPES = new Set(['image/jpeg', 'image/pjpeg', 'image/png', 'image/webp', 'image/gif']);
const VIDEO_TYPES = new Set(['video/mp4']);

export function createChunkedUploadService(deps: ChunkedUploadDeps): ChunkedUploadService {
  const chunked: ChunkedUploadContext = {
    deps,
    ledger: createBlobLedger({ db: deps.db, blobs: deps.blobs, now: deps.now, logger: deps.logger }),
  };
  return {
    init: (request, input) => initCommand(chunked, request, input),
    append: (request, input) => appendCommand(chunked, request, input),
    finalize: (request, input) => finalizeCommand(chunked, request, input),
    status: (request, input) => statusCommand(chunked, request, input),
  };
}

/** What the service's functions share: its dependencies and the ledger its blobs are written through. */
interface ChunkedUploadContext {
  readonly deps: ChunkedUploadDeps;
  /** Every blob written here (segments, assembled files) goes through the ledger, so a crash between steps orphans none. */
  readonly ledger: BlobLedger;
}

/** An admitted command's caller and the rate-limit state it was counted in. */
interface Admitted {
  caller: MediaCaller;
  rateLimit: RateLimitState;
}

/** Authenticates and counts the command; a refusal carries no rate-limit state (none was counted). */
async function admit({ deps }: ChunkedUploadContext, request: Credentials, mediaData?: string): Promise<Admitted> {
  const caller = await deps.auth.authenticate({ ...request, mediaData });
  if (caller.signatureUnchecked) throw mediaErrors.segmentTooLarge(deps.segmentMaxBytes);
  const { exceeded, ...rateLimit } = await deps.rateLimiter.admit(caller.userId);
  if (exceeded) throw mediaErrors.rateLimited(rateLimit);
  return { caller, rateLimit };
}

/** Runs a command's work; its errors carry the caller's rate-limit state. */
async function counted<T>(rateLimit: RateLimitState, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw isAppError(error) ? withRateLimit(error as AppError, rateLimit) : error;
  }
}

function limitOf({ deps }: ChunkedUploadContext, kind: Kind): number {
  return kind === 'video' ? deps.videoMaxBytes : kind === 'gif' ? deps.gifMaxBytes : deps.imageMaxBytes;
}

/** The caller's own open or finished session, or the reference's error. */
async function ownSession({ deps }: ChunkedUploadContext, caller: MediaCaller, rawId: string | null | undefined): Promise<SessionRow> {
  const text = given(rawId?.trim());
  if (text === undefined) throw mediaErrors.parameterMissing('media_id');
  if (!/^\d{1,19}$/.test(text) || BigInt(text) > INT64_MAX) throw mediaErrors.mediaIdInvalid(text);
  const id = BigInt(text).toString();
  const session = await findSession(deps.db, id);
  if (!session) throw mediaErrors.mediaIdInvalid(id);
  if (String(session.uploader_id) !== caller.userId) throw mediaErrors.notOwner(caller.userId, id);
  return session;
}

function expiredCheck({ deps }: ChunkedUploadContext, session: SessionRow): void {
  if (session.expires_at.getTime() <= deps.now().getTime()) throw mediaErrors.mediaIdExpired(String(session.id), session.expires_at);
}

function describe({ deps }: ChunkedUploadContext, session: SessionRow, upload: UploadRow | undefined): ChunkedMedia {
  const category = session.media_category as ChunkedCategory | null;
  const kind = session.kind as Kind;
  const expiresAt = upload?.expires_at ?? session.expires_at;
  const expiresAfterSecs = Math.max(0, Math.ceil((expiresAt.getTime() - deps.now().getTime()) / 1000));
  const state = upload?.processing_state as ProcessingState | null | undefined;
  let processingInfo: ProcessingInfo | null = null;
  if (upload && state) {
    processingInfo = {
      state,
      checkAfterSecs: state === 'pending' || state === 'in_progress' ? CHECK_AFTER_SECS : null,
      progressPercent: state === 'pending' ? null : state === 'succeeded' ? 100 : upload.processing_progress,
      error:
        state === 'failed' ? { code: 1, name: 'InvalidMedia', message: upload.processing_error ?? 'Invalid or Unsupported media' } : null,
    };
  }
  const imageKnown = upload && (kind === 'image' || (kind === 'gif' && state === 'succeeded'));
  return {
    mediaId: String(session.id),
    mediaKey: mediaKeyOf(String(session.id), category),
    size: upload ? upload.size : null,
    expiresAfterSecs,
    image: imageKnown ? { imageType: upload.mime_type, w: upload.width, h: upload.height } : null,
    video: upload && kind === 'video' ? { videoType: 'video/mp4' } : null,
    processingInfo,
    altText: upload?.alt_text ?? null,
  };
}

async function removeBlob({ ledger }: ChunkedUploadContext, key: string): Promise<void> {
  await ledger.remove(key);
}

/** INIT: a session for `total_bytes` of one `media_type`, its kind and limit from the type and category. */
async function initCommand(chunked: ChunkedUploadContext, request: Credentials, input: InitInput): Promise<ChunkedOutcome> {
  const { deps } = chunked;
  const { caller, rateLimit } = await admit(chunked, request);
  return counted(rateLimit, async () => {
    const totalText = given(input.totalBytes?.trim());
    if (totalText === undefined) throw mediaErrors.parameterMissing('total_bytes');
    if (!/^\d{1,15}$/.test(totalText) || Number(totalText) < 1) {
      throw mediaErrors.parameterInvalid('total_bytes', `${JSON.stringify(totalText)} is not a positive number of bytes`);
    }
    const mediaType = given(input.mediaType?.trim().toLowerCase());
    if (mediaType === undefined) throw mediaErrors.parameterMissing('media_type');
    if (!IMAGE_TYPES.has(mediaType) && !VIDEO_TYPES.has(mediaType)) throw mediaErrors.unrecognized();
    const category = chunkedCategory(input.mediaCategory);
    const kind = kindOf(mediaType, category);
    const owners = additionalOwners(input.additionalOwners);
    const totalBytes = Number(totalText);
    const limit = limitOf(chunked, kind);
    if (totalBytes > limit) throw mediaErrors.fileTooLarge(limit);
    const now = deps.now();
    const session = await writeWithChanges(deps.db, async (trx) => {
      const begun = await insertSession(trx, {
        uploader_id: caller.userId,
        additional_owners: owners,
        media_category: category,
        kind,
        media_type: mediaType === 'image/pjpeg' ? 'image/jpeg' : mediaType,
        total_bytes: String(totalBytes),
        created_at: now,
        expires_at: new Date(now.getTime() + deps.expiresAfterSecs * 1000),
      });
      return { result: begun, changes: [mediaChange('media_upload_started', String(begun.id))] };
    });
    return { media: describe(chunked, session, undefined), rateLimit };
  });
}

/** APPEND: one segment streamed to the blob store and recorded; on any refusal the upload is drained and its blob removed. */
async function appendCommand(chunked: ChunkedUploadContext, request: Credentials, input: AppendInput): Promise<AppendOutcome> {
  const { deps, ledger } = chunked;
  const mediaData = given(input.mediaData);
  let admitted: Admitted;
  try {
    admitted = await admit(chunked, request, mediaData);
  } catch (error) {
    await discard(input.media);
    throw error;
  }
  const { caller, rateLimit } = admitted;
  let stored: string | undefined;
  return counted(rateLimit, async () => {
    try {
      const session = await ownSession(chunked, caller, input.mediaId);
      const id = String(session.id);
      if (session.finalized_at !== null) throw mediaErrors.finalized(id);
      expiredCheck(chunked, session);
      const indexText = given(input.segmentIndex?.trim());
      if (indexText === undefined) throw mediaErrors.parameterMissing('segment_index');
      if (!/^\d{1,3}$/.test(indexText) || Number(indexText) > MAX_SEGMENT_INDEX) {
        throw mediaErrors.parameterInvalid(
          'segment_index',
          `${JSON.stringify(indexText)} is not an integer from 0 to ${MAX_SEGMENT_INDEX}`,
        );
      }
      const segmentIndex = Number(indexText);
      const hasFile = input.media !== undefined && input.media !== null;
      if (!hasFile && mediaData === undefined) throw mediaErrors.mediaMissing();
      if (hasFile && mediaData !== undefined) throw mediaErrors.bothMedia();
      const totals = await segmentTotals(deps.db, id);
      const room = Number(session.total_bytes) - totals.bytes;
      const source = hasFile ? await fileStream(input.media!, deps.segmentMaxBytes) : Readable.from([decodeBase64(mediaData!)]);
      const counter = new SegmentCounter(deps.segmentMaxBytes, room, Number(session.total_bytes));
      let size: number;
      try {
        const written = await ledger.write(pipeline(source, counter, () => undefined));
        stored = written.key;
        size = written.bytes;
      } catch (error) {
        source.destroy();
        throw isAppError(error) ? error : rejection(error, deps.segmentMaxBytes);
      }
      if (size === 0) throw mediaErrors.parameterInvalid('media', 'the segment is empty');
      const fresh = await insertSegment(deps.db, { session_id: id, segment_index: segmentIndex, size, blob_key: stored }, [
        mediaChange('media_segment_appended', id),
      ]);
      if (!fresh) {
        throw mediaErrors.parameterInvalid('segment_index', `segment ${segmentIndex} of media id ${id} was already received`);
      }
      stored = undefined;
      return { mediaId: id, segmentIndex, size, expiresAt: session.expires_at, rateLimit };
    } catch (error) {
      await discard(input.media);
      if (stored !== undefined) await removeBlob(chunked, stored);
      throw error;
    }
  });
}

/** FINALIZE: the segments checked, assembled in segment_index order into one blob, and the upload recorded. */
async function finalizeCommand(
  chunked: ChunkedUploadContext,
  request: Credentials,
  input: { mediaId?: string | null | undefined },
): Promise<ChunkedOutcome> {
  const { deps, ledger } = chunked;
  const { caller, rateLimit } = await admit(chunked, request);
  return counted(rateLimit, async () => {
    const session = await ownSession(chunked, caller, input.mediaId);
    const id = String(session.id);
    if (session.finalized_at !== null) throw mediaErrors.finalized(id);
    expiredCheck(chunked, session);
    const kind = session.kind as Kind;
    const segments = await listSegments(deps.db, id);
    if (segments.length === 0)
      throw mediaErrors.segmentsInvalid(`No segments were uploaded for media id ${id}: send command=APPEND first.`);
    const gap = segments.findIndex((segment, position) => segment.segment_index !== position);
    if (gap >= 0) {
      throw mediaErrors.segmentsInvalid(
        `Segment ${gap} is missing: segments are numbered from 0 without gaps (received up to ${segments.at(-1)!.segment_index}).`,
      );
    }
    const total = segments.reduce((sum, segment) => sum + segment.size, 0);
    const limit = limitOf(chunked, kind);
    if (total > limit) throw mediaErrors.fileTooLarge(limit);
    if (total !== Number(session.total_bytes)) throw mediaErrors.segmentsInvalid('Segments do not add up to provided total file size.');

    // The segments, one after the other, streamed into one blob (an image through the inspector on the way).
    const assembled = Readable.from(
      (async function* () {
        for (const segment of segments) yield* deps.blobs.read(segment.blob_key);
      })(),
    );
    const inspector =
      kind === 'image' ? new ImageInspector({ maxBytes: limit, minDimension: MIN_DIMENSION, maxDimension: MAX_DIMENSION }) : undefined;
    let key: string;
    try {
      ({ key } = await ledger.write(inspector ? pipeline(assembled, inspector, () => undefined) : assembled));
    } catch (error) {
      assembled.destroy();
      // A FINALIZE racing this one won and removed the segments being read: this one is the second.
      if ((await findSession(deps.db, id))?.finalized_at) throw mediaErrors.finalized(id);
      throw rejection(error, limit);
    }
    const now = deps.now();
    const facts = inspector?.facts;
    let upload: UploadRow | undefined;
    try {
      upload = await finalizeSession(
        deps.db,
        id,
        now,
        {
          uploader_id: String(session.uploader_id),
          additional_owners: session.additional_owners.map(String),
          media_category: session.media_category,
          mime_type: facts?.mimeType ?? session.media_type,
          width: facts?.width ?? 0,
          height: facts?.height ?? 0,
          frames: facts?.frames ?? 0,
          size: total,
          blob_key: key,
          created_at: now,
          expires_at: new Date(now.getTime() + deps.expiresAfterSecs * 1000),
          processing_state: kind === 'image' ? null : 'pending',
          processing_progress: kind === 'image' ? null : 0,
        },
        [mediaChange('media_upload_finalized', id)],
      );
    } catch (error) {
      await removeBlob(chunked, key);
      throw error;
    }
    if (!upload) {
      await removeBlob(chunked, key);
      throw mediaErrors.finalized(id);
    }
    for (const segment of segments) await removeBlob(chunked, segment.blob_key);
    if (kind !== 'image') deps.processor.advance(id);
    return { media: describe(chunked, session, upload), rateLimit };
  });
}

/** STATUS: a finished session's upload as it is now. */
async function statusCommand(
  chunked: ChunkedUploadContext,
  request: Credentials,
  input: { mediaId?: string | null | undefined },
): Promise<ChunkedOutcome> {
  const { deps } = chunked;
  const { caller, rateLimit } = await admit(chunked, request);
  return counted(rateLimit, async () => {
    const session = await ownSession(chunked, caller, input.mediaId);
    const id = String(session.id);
    if (session.finalized_at === null) {
      expiredCheck(chunked, session);
      throw mediaErrors.notFinalized(id);
    }
    const upload = await findUpload(deps.db, id);
    if (!upload) throw mediaErrors.mediaIdInvalid(id);
    if (upload.expires_at.getTime() <= deps.now().getTime()) throw mediaErrors.mediaIdExpired(id, upload.expires_at);
    // Work nobody holds any more (a process that stopped) is taken up again here.
    if (upload.processing_state === 'pending' || upload.processing_state === 'in_progress') deps.processor.advance(id);
    return { media: describe(chunked, session, upload), rateLimit };
  });
}

/** Which inspection a session gets, from its media_type and category; a mismatch is the client's error. */
function kindOf(mediaType: string, category: ChunkedCategory | null): Kind {
  if (VIDEO_TYPES.has(mediaType)) {
    if (category === 'tweet_image' || category === 'tweet_gif') {
      throw mediaErrors.parameterInvalid(
        'media_category',
        `${category} does not fit media_type ${mediaType}: use tweet_video or amplify_video`,
      );
    }
    return 'video';
  }
  if (category === 'tweet_video' || category === 'amplify_video') {
    throw mediaErrors.parameterInvalid(
      'media_category',
      `${category} does not fit media_type ${mediaType}: use tweet_image${mediaType === 'image/gif' ? ' or tweet_gif' : ''}`,
    );
  }
  if (category === 'tweet_gif') {
    if (mediaType !== 'image/gif')
      throw mediaErrors.parameterInvalid('media_category', `tweet_gif does not fit media_type ${mediaType}: use tweet_image`);
    return 'gif';
  }
  // Without tweet_gif a GIF is an image, held to the image limit (the reference's rule).
  return 'image';
}

function chunkedCategory(value: string | null | undefined): ChunkedCategory | null {
  const text = given(value?.trim());
  if (text === undefined) return null;
  const letters = text.replace(/[_-]/g, '').toLowerCase();
  // Own keys only: "constructor" would otherwise find Object.prototype's and reach the database as a category.
  const category = Object.hasOwn(CATEGORIES, letters) ? CATEGORIES[letters] : undefined;
  if (category === undefined) {
    throw mediaErrors.parameterInvalid(
      'media_category',
      `${JSON.stringify(text)} is not one of tweet_image, tweet_gif, tweet_video, amplify_video`,
    );
  }
  return category;
}

/** Counts a segment's bytes as they pass and stops it past the segment limit or past what total_bytes leaves room for. */
class SegmentCounter extends Transform {
  private bytes = 0;
  constructor(
    private readonly maxBytes: number,
    private readonly room: number,
    private readonly totalBytes: number,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      callback(mediaErrors.segmentTooLarge(this.maxBytes));
      return;
    }
    if (this.bytes > this.room) {
      callback(mediaErrors.segmentsInvalid(`Segments add up to more than the provided total file size (${this.totalBytes} bytes).`));
      return;
    }
    callback(null, chunk);
  }
}
