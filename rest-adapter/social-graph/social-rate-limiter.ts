import { createHash } from 'node:crypto';

/**
 * Rate limits of the Graph-style paths (reference §3.4), enforced where the platform enforces them: at the API's edge,
 * before any work is done. Fixed windows, counted in this process's memory — each REST adapter process counts its own
 * calls, so N processes behind a balancer allow up to N times the configured figures (README, "Deploying").
 *
 * Scopes, checked in this order, each with its Graph code:
 * - app (4): every call of the application, per hour (the platform limit; `X-App-Usage`);
 * - user (17): the calls of one app user (one access token), per hour;
 * - page (32): on the parent-platform host, the calls of one user on one node, per hour;
 * - business (80002): the calls about one business object (the node of the path) per user, per 24 hours
 *   (`X-Business-Use-Case-Usage`, keyed by that object's id).
 *
 * Usage headers carry percentages of each limit: `call_count` counts calls; `total_time` and `total_cputime` are the wall
 * time spent serving the key's calls as a share of 1 % of the window (the platform does not publish its time budgets;
 * the process does not separate CPU from wall time, so both carry the same figure).
 */

export interface RateLimits {
  appCallsPerHour: number;
  userCallsPerHour: number;
  pageCallsPerHour: number;
  businessCallsPerDay: number;
}

export type RateScope = 'app' | 'user' | 'page' | 'business';

interface Counter {
  windowStart: number;
  calls: number;
  timeMs: number;
}

export interface Admission {
  /** The scope whose limit was reached, or undefined when the call may proceed. */
  blocked: RateScope | undefined;
  /** Headers to send with the reply (allowed or not). */
  headers: Record<string, string>;
  /** Records the time the call took (call once the reply is sent). */
  done(): void;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Counters kept at most; the oldest windows are dropped first (a bounded map cannot be grown without end by callers). */
const MAX_COUNTERS = 100_000;

export function createSocialRateLimiter(limits: RateLimits, now: () => number = Date.now) {
  const counters = new Map<string, Counter>();

  function counter(key: string, windowMs: number, at: number): Counter {
    const windowStart = at - (at % windowMs);
    let entry = counters.get(key);
    if (!entry || entry.windowStart !== windowStart) {
      entry = { windowStart, calls: 0, timeMs: 0 };
      counters.delete(key);
      if (counters.size >= MAX_COUNTERS) counters.delete(counters.keys().next().value!);
      counters.set(key, entry);
    }
    return entry;
  }

  const percent = (used: number, limit: number) => Math.min(100, Math.floor((used * 100) / limit));
  const usage = (entry: Counter, limit: number, windowMs: number) => {
    const timePercent = percent(entry.timeMs, windowMs / 100);
    return { call_count: percent(entry.calls, limit), total_cputime: timePercent, total_time: timePercent };
  };

  return {
    /**
     * Counts a call and says whether it may proceed. `token` is the access token as sent (hashed here, never kept);
     * `objectId` the node of the path; `parentHost` whether the call came to the parent-platform host.
     */
    admit(request: { token: string | undefined; objectId: string | undefined; parentHost: boolean }): Admission {
      const at = now();
      const started = at;
      const user = request.token ? createHash('sha256').update(request.token).digest('base64url').slice(0, 22) : 'anonymous';
      const scopes: { scope: RateScope; entry: Counter; limit: number; windowMs: number }[] = [
        { scope: 'app', entry: counter('app', HOUR, at), limit: limits.appCallsPerHour, windowMs: HOUR },
        { scope: 'user', entry: counter(`user:${user}`, HOUR, at), limit: limits.userCallsPerHour, windowMs: HOUR },
      ];
      if (request.parentHost && request.objectId) {
        scopes.push({ scope: 'page', entry: counter(`page:${user}:${request.objectId}`, HOUR, at), limit: limits.pageCallsPerHour, windowMs: HOUR });
      }
      if (request.objectId) {
        scopes.push({
          scope: 'business',
          entry: counter(`business:${user}:${request.objectId}`, DAY, at),
          limit: limits.businessCallsPerDay,
          windowMs: DAY,
        });
      }
      const blocked = scopes.find(({ entry, limit }) => entry.calls >= limit);
      if (!blocked) for (const { entry } of scopes) entry.calls++;

      const app = scopes[0]!;
      const headers: Record<string, string> = { 'X-App-Usage': JSON.stringify(usage(app.entry, app.limit, app.windowMs)) };
      const business = scopes.find(({ scope }) => scope === 'business');
      if (business && request.objectId) {
        const regainMinutes = business.entry.calls >= business.limit ? Math.ceil((business.entry.windowStart + DAY - at) / 60_000) : 0;
        headers['X-Business-Use-Case-Usage'] = JSON.stringify({
          [request.objectId]: [{ type: 'social', ...usage(business.entry, business.limit, DAY), estimated_time_to_regain_access: regainMinutes }],
        });
      }
      return {
        blocked: blocked?.scope,
        headers,
        done: () => {
          const spent = Math.max(0, now() - started);
          for (const { entry } of scopes) entry.timeMs += spent;
        },
      };
    },
  };
}

export type SocialRateLimiter = ReturnType<typeof createSocialRateLimiter>;
