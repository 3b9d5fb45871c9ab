import { toUnixSeconds } from '../../../lib/social-graph/graph-time.ts';
import { socialErrors } from '../../shared/social-graph/social-errors.ts';
import type { StoredBreakdown } from '../../shared/social-graph/social-tables.ts';
import {
  findAccount,
  findAdAccountByName,
  findBusinessByName,
  findUpcomingEventByTitle,
  insertAdAccount,
  insertAgency,
  insertBusiness,
  searchedHashtagIds,
  upsertHashtag,
  upsertInsightValues,
} from '../account-edges.repository.ts';
import { ACCOUNT_METRICS, BREAKDOWN_VALUES } from '../insights-catalogue.ts';
import { createAdAccounts } from '../account-edges/ad-accounts.ts';
import { createEdgeContext, DAY_MS, DAY_SECONDS, SECOND } from '../account-edges/edge-context.ts';
import { createHashtags, HASHTAG_WINDOW_MS } from '../account-edges/hashtags.ts';
import { createUpcomingEvents } from '../account-edges/upcoming-events.ts';
import type {
  AccountEdgesServiceDeps,
  Hashtag,
  NotificationSubtype,
  NotificationTargetTime,
} from '../account-edges/account-edges.types.ts';

/**
 * Demo data for the account edges: events, searched hashtags, agencies with ad accounts, and five weeks of insights, for
 * `npm run seed` and the tests' social fixture. Not part of the service: nothing that serves requests imports it. It goes
 * through the same feature rules as a client would (an event is created as POST /<account>/upcoming_events creates it),
 * and is deterministic: the same account and clock give the same rows, and running it again changes nothing.
 */

export interface SeedDemoEdgesOptions {
  /** Days of insight values to write, ending with the last complete day. Default 35. */
  insightDays?: number;
}

export interface SeedDemoEdgesResult {
  eventIds: string[];
  hashtags: Hashtag[];
  agencyIds: string[];
  /** `act_…` ids of the ad accounts made for the agencies; the first of each agency is authorised. */
  adAccountIds: string[];
  authorizedAdAccountIds: string[];
  insightDays: number;
}

export async function seedDemoEdges(
  deps: AccountEdgesServiceDeps,
  accountId: string,
  options: SeedDemoEdgesOptions = {},
): Promise<SeedDemoEdgesResult> {
  const ctx = createEdgeContext(deps);
  const { db, clock, checkAccountId } = ctx;
  const { createEvent } = createUpcomingEvents(ctx);
  const { recordSearch } = createHashtags(ctx);
  const { authorizeAdAccount } = createAdAccounts(ctx);
  checkAccountId(accountId, 'post');
  if (!(await findAccount(db, accountId))) throw socialErrors.unknownObject(accountId, 'post');
  const now = clock();
  const insightDays = options.insightDays ?? 35;

  // Events a few days ahead, on the hour.
  const hour = Math.ceil(now.getTime() / 3_600_000) * 3_600_000;
  const eventIds: string[] = [];
  for (const event of DEMO_EVENTS) {
    const existing = await findUpcomingEventByTitle(db, accountId, event.title);
    if (existing) {
      eventIds.push(existing.id);
      continue;
    }
    const start = hour + event.inDays * DAY_MS;
    const created = await createEvent(accountId, {
      title: event.title,
      startTime: start / SECOND,
      endTime: event.hours === undefined ? null : (start + event.hours * 3_600_000) / SECOND,
      notificationSubtypes: event.subtypes,
      notificationTargetTime: event.target,
    });
    eventIds.push(created.id);
  }

  // Searches over the last few hours, newest first in the list; a hashtag already searched this week is left alone.
  const hashtags: Hashtag[] = [];
  const searched = new Set(await searchedHashtagIds(db, accountId, new Date(now.getTime() - HASHTAG_WINDOW_MS), now));
  for (const [index, name] of DEMO_HASHTAGS.entries()) {
    const hashtag = await upsertHashtag(db, name);
    hashtags.push(
      searched.has(hashtag.id) ? hashtag : await recordSearch(accountId, name, new Date(now.getTime() - (index + 1) * 3_600_000)),
    );
  }

  const agencyIds: string[] = [];
  const adAccountIds: string[] = [];
  const authorizedAdAccountIds: string[] = [];
  for (const agency of DEMO_AGENCIES) {
    const business = (await findBusinessByName(db, agency.name)) ?? (await insertBusiness(db, agency.name));
    await insertAgency(db, accountId, business.id, now);
    agencyIds.push(business.id);
    for (const [index, suffix] of ['Main', 'Experiments'].entries()) {
      const name = `${agency.name} — ${suffix}`;
      const adAccount =
        (await findAdAccountByName(db, business.id, name)) ??
        (await insertAdAccount(db, {
          business_id: business.id,
          name,
          currency: agency.currency,
          timezone_name: agency.timezone,
          created_at: now,
        }));
      adAccountIds.push(`act_${adAccount.id}`);
      if (index === 0) {
        await authorizeAdAccount(accountId, { adAccountId: adAccount.id, businessId: business.id }, now);
        authorizedAdAccountIds.push(`act_${adAccount.id}`);
      }
    }
  }

  await upsertInsightValues(db, demoInsightRows(accountId, now, insightDays));
  return { eventIds, hashtags, agencyIds, adAccountIds, authorizedAdAccountIds, insightDays };
}

const DEMO_EVENTS: {
  title: string;
  inDays: number;
  hours?: number;
  subtypes: NotificationSubtype[];
  target: NotificationTargetTime | null;
}[] = [
  { title: 'Spring collection live launch', inDays: 2, hours: 1, subtypes: ['BEFORE_EVENT_1DAY', 'EVENT_START'], target: 'EVENT_START' },
  { title: 'Behind the scenes Q&A', inDays: 5, hours: 1.5, subtypes: ['BEFORE_EVENT_15MIN', 'AFTER_EVENT_1DAY'], target: 'EVENT_END' },
  { title: 'Studio open day', inDays: 12, subtypes: ['BEFORE_EVENT_2DAY'], target: null },
];
const DEMO_HASHTAGS = ['coffee', 'latteart', 'specialtycoffee', 'baristalife', 'pourover'];
const DEMO_AGENCIES = [
  { name: 'Northwind Creative Agency', currency: 'USD', timezone: 'America/Los_Angeles' },
  { name: 'Blue Harbor Media', currency: 'EUR', timezone: 'Europe/Amsterdam' },
];
/** A typical daily count per metric, around which demo values vary. */
const DEMO_BASE: Readonly<Record<string, number>> = {
  reach: 1200,
  follower_count: 25,
  website_clicks: 18,
  profile_views: 140,
  online_followers: 420,
  accounts_engaged: 210,
  total_interactions: 420,
  likes: 300,
  comments: 40,
  shares: 30,
  saves: 45,
  replies: 12,
  engaged_audience_demographics: 200,
  follower_demographics: 5000,
  follows_and_unfollows: 30,
  profile_links_taps: 9,
  views: 3500,
  reposts: 6,
};

function demoInsightRows(accountId: string, now: Date, days: number) {
  const lastEnd = Math.floor(toUnixSeconds(now) / DAY_SECONDS) * DAY_SECONDS;
  const rows: { account_id: string; metric: string; end_time: Date; value: number; breakdown: StoredBreakdown | null }[] = [];
  for (const definition of ACCOUNT_METRICS) {
    for (let day = 0; day < days; day += 1) {
      const end = lastEnd - day * DAY_SECONDS;
      const random = seededRandom(`${accountId}/${definition.name}/${end}`);
      const base = DEMO_BASE[definition.name] ?? 100;
      let value = Math.round(base * (0.6 + 0.8 * random()));
      let breakdown: StoredBreakdown | null = null;
      if (definition.hourly) {
        // Followers are online mostly in the (UTC) afternoon and evening.
        const hours: Record<string, number> = {};
        for (let hour = 0; hour < 24; hour += 1) {
          const curve = 0.25 + 0.75 * ((1 + Math.sin(((hour - 11) / 24) * 2 * Math.PI)) / 2);
          hours[String(hour)] = Math.round(base * curve * (0.9 + 0.2 * random()));
        }
        value = Math.max(...Object.values(hours));
        breakdown = { hour: hours };
      } else if (definition.breakdowns.length > 0) {
        breakdown = {};
        for (const dimension of definition.breakdowns) breakdown[dimension] = split(value, BREAKDOWN_VALUES[dimension], random);
      }
      rows.push({ account_id: accountId, metric: definition.name, end_time: new Date(end * SECOND), value, breakdown });
    }
  }
  return rows;
}

/** Splits `total` over `keys` with random weights; the parts add up to `total` exactly. */
function split(total: number, keys: readonly string[], random: () => number): Record<string, number> {
  const weights = keys.map(() => 0.2 + random());
  const sum = weights.reduce((a, b) => a + b, 0);
  const parts = weights.map((weight) => Math.floor((total * weight) / sum));
  parts[0]! += total - parts.reduce((a, b) => a + b, 0);
  return Object.fromEntries(keys.map((key, index) => [key, parts[index]!]));
}

/** mulberry32 seeded with FNV-1a of the text: small, fast, and the same on every machine. */
function seededRandom(text: string): () => number {
  let seed = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) seed = Math.imul(seed ^ text.charCodeAt(index), 0x01000193) >>> 0;
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
