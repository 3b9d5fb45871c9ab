import { countInWindow, type MediaDb } from '../shared/media-store/media-upload.repository.ts';
import type { RateLimitState } from '../../contracts/media-upload.ts';

/**
 * The upload rate limit: a fixed window per user (the reference's v2 figures: 500 uploads per 15 minutes). Counted in the
 * database with one upsert per request, so every process serving uploads shares the count.
 */
export interface UploadRateLimiter {
  /** Counts one request of `userId`; `exceeded` when it is past the limit. */
  admit(userId: string): Promise<RateLimitState & { exceeded: boolean }>;
}

export function createUploadRateLimiter(deps: { db: MediaDb; now: () => Date; limit: number; windowSecs: number }): UploadRateLimiter {
  const windowMs = deps.windowSecs * 1000;
  return {
    async admit(userId) {
      const at = deps.now().getTime();
      const start = Math.floor(at / windowMs) * windowMs;
      const count = await countInWindow(deps.db, `user:${userId}`, new Date(start));
      return {
        limit: deps.limit,
        remaining: Math.max(0, deps.limit - count),
        reset: Math.floor((start + windowMs) / 1000),
        exceeded: count > deps.limit,
      };
    },
  };
}
