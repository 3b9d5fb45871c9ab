import { isConnectionFailure } from '../../../lib/errors.ts';
import type { Logger } from '../../../lib/logger.ts';
import { mediaChange } from '../../shared/event-log/change-events.ts';
import { writeWithChanges } from '../../shared/event-log/event-log.repository.ts';
import type { BlobStore } from '../../shared/media-store/blob-store.ts';
import {
  claimProcessing,
  completeProcessing,
  findStalledProcessing,
  recordProgress,
} from '../../shared/media-store/media-session.repository.ts';
import type { MediaDb } from '../../shared/media-store/media-upload.repository.ts';
import { inspectAnimatedGif, inspectMp4, type InspectionOutcome } from './media-processing-inspectors.ts';

/**
 * The processing state machine of animated GIFs and videos (processing_info), kept in the database (media.upload's
 * processing_* columns) so that every process and a restarted one see the same state:
 *
 *   pending ──advance()──▶ in_progress ──inspection──▶ succeeded | failed
 *
 * FINALIZE leaves an upload `pending` and calls advance(); STATUS calls it again, and so does the sweeper on each pass
 * (resumeStalled), which takes over work nobody holds — still pending (the finalizing process stopped before starting),
 * or in progress past its lease (it stopped mid-way).
 * Inspection is bounded by `timeoutMs`; running out of it fails the media.
 */
export interface MediaProcessor {
  /** Starts processing the upload if it is waiting for a processor; never throws (failures are logged). */
  advance(mediaId: string): void;
  /** Advances every upload whose processing nobody holds (run by the sweeper, so work is taken up without a STATUS). */
  resumeStalled(): Promise<number>;
  /** Resolves when work this process started has finished (tests, shutdown). */
  idle(): Promise<void>;
}

export function createMediaProcessor(deps: {
  db: MediaDb;
  blobs: BlobStore;
  now: () => Date;
  logger: Logger;
  timeoutMs: number;
  minDimension: number;
  maxDimension: number;
}): MediaProcessor {
  const running = new Map<string, Promise<void>>();

  async function inspect(kind: string, blobKey: string, size: number): Promise<InspectionOutcome> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<InspectionOutcome>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({
            ok: false,
            message: `Invalid or Unsupported media, Reason: ProcessingTimeout. Processing took longer than ${deps.timeoutMs} ms.`,
          }),
        deps.timeoutMs,
      );
    });
    const work =
      kind === 'image/gif'
        ? inspectAnimatedGif(deps.blobs, blobKey, size, { minDimension: deps.minDimension, maxDimension: deps.maxDimension })
        : inspectMp4(deps.blobs, blobKey, size);
    try {
      return await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function process(mediaId: string): Promise<void> {
    const now = deps.now();
    // The lease outlives the inspection's own bound, so a live processor is never overtaken.
    // The claim and its first progress are one change (STATUS reads in_progress at 10 % from then on).
    const row = await writeWithChanges(deps.db, async (trx) => {
      const claimed = await claimProcessing(trx, mediaId, now, new Date(now.getTime() + 2 * deps.timeoutMs + 5_000));
      if (claimed) await recordProgress(trx, mediaId, 10);
      return { result: claimed, changes: claimed ? [mediaChange('media_processing', mediaId)] : [] };
    });
    if (!row) return;
    let outcome: InspectionOutcome;
    try {
      outcome = await inspect(row.mime_type, row.blob_key, row.size);
    } catch (error) {
      deps.logger.warn({ err: error, mediaId }, 'media inspection failed');
      outcome = { ok: false, message: 'Invalid or Unsupported media, Reason: CorruptMedia. The file could not be read.' };
    }
    await writeWithChanges(deps.db, async (trx) => {
      await completeProcessing(
        trx,
        mediaId,
        outcome.ok
          ? { state: 'succeeded', width: outcome.width, height: outcome.height, frames: outcome.frames, mimeType: outcome.mimeType }
          : { state: 'failed', error: outcome.message },
      );
      return { result: undefined, changes: [mediaChange('media_processed', mediaId)] };
    });
  }

  function advance(mediaId: string): void {
    if (running.has(mediaId)) return;
    const work = process(mediaId)
      // The database unreachable is its incident log's to tell (lib/telemetry/telemetry.ts), once, not per STATUS.
      .catch((error: unknown) =>
        isConnectionFailure(error)
          ? deps.logger.debug({ err: error, mediaId }, 'media processing could not advance: the database is unreachable; STATUS will retry')
          : deps.logger.warn({ err: error, mediaId }, 'media processing could not advance; STATUS will retry'),
      )
      .finally(() => running.delete(mediaId));
    running.set(mediaId, work);
  }

  return {
    advance,
    async resumeStalled() {
      const stalled = await findStalledProcessing(deps.db, deps.now(), 100);
      for (const { id } of stalled) advance(String(id));
      return stalled.length;
    },
    async idle() {
      await Promise.all(running.values());
    },
  };
}
