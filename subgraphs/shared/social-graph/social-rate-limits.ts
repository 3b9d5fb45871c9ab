import { createHash } from 'node:crypto';
import { countCall, uncountCall, type CounterKey, type CounterState } from './social-rate-counter.repository.ts';
import type { SocialDb } from './social-tables.ts';

/**
 * Rate limits of the social graph (reference §3.4), a rule of the social services: every call to a social subgraph's
 * root fields is admitted here first, whichever front door it came through (the Graph-style REST paths or GraphQL), and
 * counted in the database, so that every process shares the counts. Fixed windows; scopes checked in this order, each
 * with its Graph code:
 * - app (4): every call of the application, per hour (the platform limit; `X-App-Usage`);
 * - user (17): the calls of one access token, per hour;
 * - page (32): on the parent-platform host, the calls of one user on one node, per hour;
 * - business (80002): the calls about one object (the node the call names) per user, per 24 hours
 *   (`X-Business-Use-Case-Usage`, keyed by that object's id).
 *
 * A refused call is not counted. The usage a call reports — percentages of each limit; `total_time` and `total_cputime`
 * are the wall time spent serving the key's calls as a share of 1 % of the window (the platform publishes no time
 * budgets, and the figure does not separate CPU from wall time) — travels back to the REST adapter in the response's
 * `extensions.socialUsage`, which it turns into the usage headers.
 */

export interface SocialRateLimitSettings {
  appCallsPerHour: number;
  userCallsPerHour: number;
  pageCallsPerHour: number;
  businessCallsPerDay: number;
}

export type SocialRateScope = 'app' | 'user' | 'page' | 'business';

/** One call as the limits see it. */
export interface SocialCall {
  /** The access token as sent (hashed here, never stored); undefined for a call without one. */
  token: string | undefined;
  /** The object the call is about (the node of the path, a root field's id), when it names one. */
  objectId: string | undefined;
  /** True on the parent-platform host, where the page limit applies. */
  parentHost: boolean;
}

export interface Usage {
  call_count: number;
  total_cputime: number;
  total_time: number;
}

/** What the usage headers report after a call. */
export interface SocialUsage {
  app: Usage;
  business?: { objectId: string; usage: Usage & { estimated_time_to_regain_access: number } };
}

/** Counters whose pending time this process keeps at most (the oldest are dropped first; the time is a soft figure). */
const MAX_PENDING = 10_000;

export interface SocialAdmission {
  /** The scope whose limit the call would pass (the call was not counted), or undefined when it may proceed. */
  blocked: SocialRateScope | undefined;
  usage: SocialUsage;
  /**
   * Notes the time the call took, for its counters' total_time. Kept in this process and written with the next call on
   * the same counters, so that a call costs one statement.
   */
  finish(): void;
}

export interface SocialRateLimiter {
  /** Counts the call, unless it would pass a limit (then `blocked` names the first such scope). */
  admit(call: SocialCall): Promise<SocialAdmission>;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The platform's message for each limit (the REST paths answer with the Graph envelope of the same code). */
export const RATE_LIMIT_MESSAGES: Readonly<Record<SocialRateScope, string>> = {
  app: '(#4) Application request limit reached',
  user: '(#17) User request limit reached',
  page: '(#32) Page request limit reached',
  business: 'There have been too many calls to this Social account. Wait a bit and try again.',
};

export function createSocialRateLimiter(deps: { db: SocialDb; limits: SocialRateLimitSettings; now: () => Date }): SocialRateLimiter {
  const { db, limits, now } = deps;
  let sweptWindow = -1;
  const pending = new Map<string, number>();
  const keyOf = ({ key, windowStart }: CounterKey) => `${key}@${windowStart.getTime()}`;

  const percent = (used: number, limit: number) => Math.min(100, Math.floor((used * 100) / limit));
  const usageOf = (calls: number, timeMs: number, limit: number, windowMs: number): Usage => {
    const timePercent = percent(timeMs, windowMs / 100);
    return { call_count: percent(calls, limit), total_cputime: timePercent, total_time: timePercent };
  };

  return {
    async admit(call) {
      const at = now().getTime();
      const started = Date.now();
      const user = call.token ? createHash('sha256').update(call.token).digest('base64url').slice(0, 22) : 'anonymous';
      const window = (windowMs: number) => new Date(at - (at % windowMs));
      const scopes: { scope: SocialRateScope; key: CounterKey; limit: number; windowMs: number }[] = [
        { scope: 'app', key: { key: 'app', windowStart: window(HOUR) }, limit: limits.appCallsPerHour, windowMs: HOUR },
        { scope: 'user', key: { key: `user:${user}`, windowStart: window(HOUR) }, limit: limits.userCallsPerHour, windowMs: HOUR },
      ];
      if (call.parentHost && call.objectId) {
        scopes.push({
          scope: 'page',
          key: { key: `page:${user}:${call.objectId}`, windowStart: window(HOUR) },
          limit: limits.pageCallsPerHour,
          windowMs: HOUR,
        });
      }
      if (call.objectId) {
        scopes.push({
          scope: 'business',
          key: { key: `business:${user}:${call.objectId}`, windowStart: window(DAY) },
          limit: limits.businessCallsPerDay,
          windowMs: DAY,
        });
      }
      // Windows that can no longer be current are dropped once an hour, by the first call of the hour (same statement).
      const hour = Math.floor(at / HOUR);
      const sweepBefore = hour !== sweptWindow ? new Date(at - 2 * DAY) : undefined;
      sweptWindow = hour;
      const keys = scopes.map(({ key }) => key);
      const counted = await countCall(
        db,
        keys.map((key) => {
          const pendingMs = pending.get(keyOf(key)) ?? 0;
          pending.delete(keyOf(key));
          return { ...key, pendingMs };
        }),
        sweepBefore,
      );
      const stateOf = (key: CounterKey): CounterState => counted.find((row) => row.key === key.key)!;
      const blocked = scopes.find(({ key, limit }) => stateOf(key).calls > limit);
      // A refused call is taken back, and the usage reported is that of the calls admitted.
      if (blocked) await uncountCall(db, keys);
      const calls = (key: CounterKey) => stateOf(key).calls - (blocked ? 1 : 0);

      const app = scopes[0]!;
      const usage: SocialUsage = { app: usageOf(calls(app.key), stateOf(app.key).timeMs, app.limit, app.windowMs) };
      const business = scopes.find(({ scope }) => scope === 'business');
      if (business && call.objectId) {
        const used = calls(business.key);
        const regainMinutes = used >= business.limit ? Math.ceil((business.key.windowStart.getTime() + DAY - at) / 60_000) : 0;
        usage.business = {
          objectId: call.objectId,
          usage: { ...usageOf(used, stateOf(business.key).timeMs, business.limit, DAY), estimated_time_to_regain_access: regainMinutes },
        };
      }
      const finish = () => {
        const spent = Date.now() - started;
        for (const key of keys) {
          const name = keyOf(key);
          const before = pending.get(name) ?? 0;
          pending.delete(name);
          if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value!);
          pending.set(name, before + spent);
        }
      };
      return { blocked: blocked?.scope, usage, finish };
    },
  };
}
