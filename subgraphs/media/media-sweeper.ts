import type { OAuthCredentials } from '../../lib/auth/oauth1/oauth-credentials.ts';
import { isConnectionFailure } from '../../lib/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import { mediaChange } from '../shared/event-log/change-events.ts';
import { writeWithChanges } from '../shared/event-log/event-log.repository.ts';
import type { BlobStore } from '../shared/media-store/blob-store.ts';
import {
  deleteWindowsBefore,
  findCollectableBlobs,
  findSweepable,
  forgetBlobs,
  markSwept,
  type MediaDb,
} from '../shared/media-store/media-upload.repository.ts';
import { deleteSession, findAbandonedSessions, listSegments } from '../shared/media-store/media-session.repository.ts';

/**
 * Removes what expiry leaves behind: the bytes of expired uploads (not those a container has taken), chunked uploads
 * abandoned before FINALIZE, blobs no row holds (a crash between writing and recording, or after FINALIZE before its
 * segments went: the ledger of blob-ledger.ts), OAuth nonces too old to be replayed, and finished rate-limit windows. Safe to run in several processes at once: every step is
 * idempotent (deleting a missing blob is not an error; a swept row is marked once).
 */
export interface MediaSweeper {
  /** One pass; returns how many uploads lost their bytes. */
  sweep(): Promise<number>;
  start(intervalMs: number): void;
  stop(): Promise<void>;
}

const BATCH = 500;

export function createMediaSweeper(deps: {
  db: MediaDb;
  blobs: BlobStore;
  credentials: OAuthCredentials;
  now: () => Date;
  logger: Logger;
  /** Nonces older than this can no longer pass the timestamp check. */
  nonceHorizonMs: number;
  rateWindowMs: number;
  /** Takes up processing of animated GIFs and videos that a stopped process left (media-processor.ts). */
  resumeProcessing?: () => Promise<number>;
}): MediaSweeper {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;

  async function collectBlobs(now: Date): Promise<number> {
    let collected = 0;
    for (;;) {
      const keys = await findCollectableBlobs(deps.db, now, BATCH);
      for (const key of keys) await deps.blobs.delete(key);
      await forgetBlobs(deps.db, keys);
      collected += keys.length;
      if (keys.length < BATCH) return collected;
    }
  }

  async function sweep(): Promise<number> {
    const now = deps.now();
    let swept = 0;
    for (;;) {
      const batch = await findSweepable(deps.db, now, BATCH);
      if (batch.length === 0) break;
      for (const upload of batch) await deps.blobs.delete(upload.blob_key);
      const ids = batch.map((upload) => String(upload.id));
      await writeWithChanges(deps.db, async (trx) => {
        await markSwept(trx, ids, now);
        return { result: undefined, changes: ids.map((id) => mediaChange('media_expired', id)) };
      });
      swept += batch.length;
      if (batch.length < BATCH) break;
    }
    // Chunked uploads never finalized: their segments' bytes and the session go once the media id has expired.
    for (const session of await findAbandonedSessions(deps.db, now, BATCH)) {
      for (const segment of await listSegments(deps.db, session.id)) await deps.blobs.delete(segment.blob_key);
      await writeWithChanges(deps.db, async (trx) => {
        await deleteSession(trx, session.id);
        return { result: undefined, changes: [mediaChange('media_expired', String(session.id))] };
      });
    }
    await deps.resumeProcessing?.();
    // Blobs no row holds (blob-ledger.ts): writes a stopped process never recorded, segments a FINALIZE left behind. A
    // store that fails here must not hold up the rest of the pass (the next pass tries again).
    try {
      const collected = await collectBlobs(now);
      if (collected > 0) deps.logger.info({ collected }, 'unrecorded blobs removed');
    } catch (error) {
      if (isConnectionFailure(error)) throw error;
      deps.logger.warn({ err: error }, 'could not remove unrecorded blobs; will retry');
    }
    await deps.credentials.purgeNonces(new Date(now.getTime() - deps.nonceHorizonMs));
    await deleteWindowsBefore(deps.db, new Date(now.getTime() - 2 * deps.rateWindowMs));
    if (swept > 0) deps.logger.info({ swept }, 'expired uploads swept');
    return swept;
  }

  return {
    sweep,
    start(intervalMs) {
      if (timer) return;
      timer = setInterval(() => {
        // One pass at a time; a slow pass is not overlapped by the next tick.
        running ??= sweep()
          // The database unreachable is its incident log's to tell (lib/telemetry/telemetry.ts), once, not each pass.
          .catch((error: unknown) =>
            isConnectionFailure(error)
              ? deps.logger.debug({ err: error }, 'media sweep failed: the database is unreachable; will retry')
              : deps.logger.warn({ err: error }, 'media sweep failed; will retry'),
          )
          .finally(() => {
            running = undefined;
          });
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
