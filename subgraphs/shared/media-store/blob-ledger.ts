import type { Readable } from 'node:stream';
import type { Logger } from '../../../lib/logger.ts';
import { newBlobKey, type BlobStore } from './blob-store.ts';
import { forgetBlobs, notePendingBlob, PENDING_BLOB_GRACE_MS, type MediaDb } from './media-upload.repository.ts';

/**
 * Blob writes that a crash cannot orphan (migrations/2026-11-27-001-pending-blobs.ts): the key goes on the ledger
 * before its blob is written, and comes off it only in the transaction that records the blob in a row (the
 * repositories' claimPendingBlob) or once the blob is deleted. Whatever a stopped process leaves — a blob written and
 * never recorded, segments an upload no longer needs — stays on the ledger, and the media sweeper deletes it.
 */
export interface BlobLedger {
  /**
   * Writes `source` under a new key noted first (collected after PENDING_BLOB_GRACE_MS unless claimed). If the write
   * fails, the key is taken off the ledger (nothing was left in the store) and the error rethrown.
   */
  write(source: Readable): Promise<{ key: string; bytes: number }>;
  /** Deletes a blob, then takes it off the ledger; a failed delete is logged and left on the ledger for the sweeper. */
  remove(key: string): Promise<void>;
}

export function createBlobLedger(deps: { db: MediaDb; blobs: BlobStore; now: () => Date; logger: Logger }): BlobLedger {
  return {
    async write(source) {
      const key = newBlobKey();
      await notePendingBlob(deps.db, key, new Date(deps.now().getTime() + PENDING_BLOB_GRACE_MS));
      try {
        return await deps.blobs.write(source, key);
      } catch (error) {
        // The store leaves nothing behind a failed write; the key may go (a failure here leaves it for the sweeper).
        await forgetBlobs(deps.db, [key]).catch(() => undefined);
        throw error;
      }
    },
    async remove(key) {
      try {
        await deps.blobs.delete(key);
      } catch (error) {
        deps.logger.warn({ err: error, key }, 'could not remove a blob; the media sweeper will');
        return;
      }
      await forgetBlobs(deps.db, [key]).catch((error: unknown) =>
        deps.logger.warn({ err: error, key }, 'could not take a removed blob off the ledger'),
      );
    },
  };
}
