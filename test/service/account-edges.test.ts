import type { Kysely } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCursorCodec } from '../../lib/social-graph/cursor.ts';
import { AppError } from '../../lib/errors.ts';
import { isSocialId, socialId } from '../../lib/social-graph/social-ids.ts';
import { insertAdAccount, insertAgency, upsertInsightValues } from '../../subgraphs/accounts/account-edges.repository.ts';
import { createAccountEdgesService } from '../../subgraphs/accounts/account-edges.service.ts';
import { shortcodeOf } from '../../subgraphs/accounts/account-edges/content-publishing.ts';
import type {
  AccountEdgesService,
  AccountEdgesServiceDeps,
  CreateContainerInput,
  UpcomingEvent,
} from '../../subgraphs/accounts/account-edges/account-edges.types.ts';
import { seedDemoEdges } from '../../subgraphs/accounts/demo/seed-demo-edges.ts';
import { lastEventPosition, readEventsAfter } from '../../subgraphs/shared/event-log/event-log.repository.ts';
import { ACCOUNT_METRICS } from '../../subgraphs/accounts/insights-catalogue.ts';
import type { SocialTables, StoredBreakdown } from '../../subgraphs/shared/social-graph/social-tables.ts';
import { useTestDatabase } from '../support/test-system.ts';

/**
 * The account edges' data and domain layer (subgraphs/accounts/account-edges.service.ts) against a real database: PGlite,
 * or a throwaway PostgreSQL database in the e2e-postgres project. Time is an injected clock the tests move by hand.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = new Date('2026-03-10T12:00:00.000Z');
const T0_SECONDS = T0.getTime() / 1000;
const MIDNIGHT = Date.UTC(2026, 2, 10) / 1000; // the last day end before T0, in unix seconds

let db: Kysely<SocialTables>;
let current = T0;
const clock = () => new Date(current.getTime());
const codec = createCursorCodec('account-edges-test-secret');
let service: AccountEdgesService;

function serviceWith(options: Partial<AccountEdgesServiceDeps> = {}): AccountEdgesService {
  return createAccountEdgesService({ db, codec, now: clock, ...options });
}

const database = useTestDatabase();

beforeAll(async () => {
  db = database().db.withTables<SocialTables>();
  service = serviceWith();
});

async function newAccount(username: string): Promise<string> {
  const row = await db
    .insertInto('social.account')
    .values({
      account_type: 'BUSINESS',
      username,
      profile_picture_url: null,
      alt_text: null,
      legacy_social_user_id: null,
      shop_business_id: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function newBusiness(name: string): Promise<string> {
  return (await db.insertInto('social.business').values({ name }).returning('id').executeTakeFirstOrThrow()).id;
}

/** The AppError a call fails with (anything else, or success, fails the test). */
async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const outcome = await promise.then(
    () => new Error('expected the call to fail, but it succeeded'),
    (error: unknown) => error,
  );
  if (!(outcome instanceof AppError)) throw outcome instanceof Error ? outcome : new Error(String(outcome));
  return outcome;
}

async function expectMissing(promise: Promise<unknown>, parameter: string): Promise<void> {
  expect(await rejection(promise)).toMatchObject({
    code: 'INVALID_ARGUMENT',
    message: `(#100) The parameter ${parameter} is required`,
    details: { reason: 'MISSING_PARAMETER', parameter },
  });
}

async function expectInvalid(promise: Promise<unknown>, parameter: string, message: string): Promise<void> {
  expect(await rejection(promise)).toMatchObject({
    code: 'INVALID_ARGUMENT',
    message,
    details: { reason: 'INVALID_PARAMETER', parameter },
  });
}

async function expectUnknown(promise: Promise<unknown>, id: string, method: 'get' | 'post'): Promise<void> {
  expect(await rejection(promise)).toMatchObject({
    code: 'NOT_FOUND',
    message: `Unsupported ${method} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    details: { reason: 'UNKNOWN_OBJECT', id, method },
  });
}

type PublishingExpectation = { graphCode: number; subcode: number; message: string; userTitle: string; userMessage: string };

async function expectPublishing(promise: Promise<unknown>, expected: PublishingExpectation, code = 'INVALID_ARGUMENT'): Promise<void> {
  const { message, ...details } = expected;
  expect(await rejection(promise)).toMatchObject({ code, message, details: { reason: 'PUBLISHING_ERROR', ...details } });
}

const UNKNOWN_MEDIA_TYPE = (type: string): PublishingExpectation => ({
  graphCode: 100,
  subcode: 2207023,
  message: 'Invalid parameter',
  userTitle: 'Unknown media type',
  userMessage: `The media type ${type} is unknown.`,
});
const CAROUSEL_SIZE: PublishingExpectation = {
  graphCode: 100,
  subcode: 2207028,
  message: 'Invalid parameter',
  userTitle: 'Carousel validation failed',
  userMessage: "Your post won't be shared as a carousel. Carousels need at least 2 photos/videos and no more than 10 photos/videos.",
};
const TOO_MANY_TAGS: PublishingExpectation = {
  graphCode: 100,
  subcode: 2207040,
  message: 'Invalid parameter',
  userTitle: 'Too many tags',
  userMessage: 'Cannot use more than 20 tags per created media.',
};
const CAPTION_TOO_LONG: PublishingExpectation = {
  graphCode: 36004,
  subcode: 2207010,
  message: 'The caption is too long.',
  userTitle: 'Caption too long',
  userMessage: 'The caption can have at most 2,200 characters.',
};
const TOO_MANY_HASHTAGS: PublishingExpectation = {
  graphCode: 36004,
  subcode: 2207010,
  message: 'The caption has too many hashtags.',
  userTitle: 'Too many hashtags',
  userMessage: 'The caption can have at most 30 hashtags.',
};
const DOWNLOAD_FAILED = (uri: string): PublishingExpectation => ({
  graphCode: 9004,
  subcode: 2207052,
  message: 'Media download has failed.',
  userTitle: 'Media download has failed',
  userMessage: `The media could not be fetched from this URI: ${uri}. Please check the URI and try again.`,
});
const THUMB_OFFSET: PublishingExpectation = {
  graphCode: 1,
  subcode: 2207057,
  message: 'An unknown error has occurred.',
  userTitle: 'Invalid thumbnail offset',
  userMessage: 'Thumbnail offset must be greater than or equal to 0 and less than video duration.',
};
const NOT_FOUND = (id: string): PublishingExpectation => ({
  graphCode: 24,
  subcode: 2207006,
  message: 'The requested resource does not exist',
  userTitle: 'Media not found',
  userMessage: `The media with id ${id} cannot be found.`,
});
const EXPIRED: PublishingExpectation = {
  graphCode: -2,
  subcode: 2207020,
  message: 'The media has expired.',
  userTitle: 'Media expired',
  userMessage: 'The media you are trying to access has expired. Please try to upload again.',
};
const NOT_READY: PublishingExpectation = {
  graphCode: 9007,
  subcode: 2207027,
  message: 'Media ID is not available',
  userTitle: 'Media not ready for publishing',
  userMessage: 'The media is not ready for publishing, please wait for a moment',
};
const FAILED: PublishingExpectation = {
  graphCode: -1,
  subcode: 2207032,
  message: 'Create media fail, please try to re-create media',
  userTitle: 'Create media fail',
  userMessage: 'Failed to create a media container. Try again.',
};
const LIMIT_REACHED: PublishingExpectation = {
  graphCode: 9,
  subcode: 2207042,
  message: 'Application request limit reached',
  userTitle: 'Max posts limit reached',
  userMessage: 'You reached maximum number of posts that is allowed to be published by Content Publishing API.',
};

const IMAGE = 'https://cdn.example/photos/1.jpg';
const IMAGE_2 = 'https://cdn.example/photos/2.jpg';
const VIDEO = 'https://cdn.example/videos/1.mp4';
const COVER = 'https://cdn.example/covers/1.jpg';
/** An id of the right kind that names nothing. */
const missingId = (kind: 'account' | 'container' | 'business' | 'adAccount') => socialId(kind, 999_999_999n);

// ---------------------------------------------------------------------------------------------------------------------

describe('upcoming events', () => {
  let owner: string;
  beforeAll(async () => {
    current = T0;
    owner = await newAccount('events_owner');
  });

  it('creates an event from ISO and unix times, keeping whole seconds and each subtype once', async () => {
    current = T0;
    const event = await service.createUpcomingEvent(owner, {
      title: '  Spring launch  ',
      startTime: '2026-03-12T10:00:00.900Z',
      endTime: String(Date.UTC(2026, 2, 12, 11, 30) / 1000),
      notificationSubtypes: ['BEFORE_EVENT_1DAY', 'AFTER_EVENT_3DAY', 'BEFORE_EVENT_1DAY', 'RESCHEDULED'],
      notificationTargetTime: 'EVENT_END',
    });
    expect(isSocialId(event.id, 'event')).toBe(true);
    expect(event).toEqual({
      id: event.id,
      accountId: owner,
      title: 'Spring launch',
      startTime: new Date('2026-03-12T10:00:00.000Z'),
      endTime: new Date('2026-03-12T11:30:00.000Z'),
      notificationSubtypes: ['BEFORE_EVENT_1DAY', 'AFTER_EVENT_3DAY', 'RESCHEDULED'],
      notificationTargetTime: 'EVENT_END',
      createdAt: T0,
    });
    const minimal = await service.createUpcomingEvent(owner, { title: 'Q&A', startTime: T0_SECONDS + 3600 });
    expect(minimal).toMatchObject({
      startTime: new Date(T0.getTime() + HOUR),
      endTime: null,
      notificationSubtypes: [],
      notificationTargetTime: null,
    });
    const zoned = await service.createUpcomingEvent(owner, { title: 'Zoned', startTime: '2026-03-12T10:00:00+0200' });
    expect(zoned.startTime).toEqual(new Date('2026-03-12T08:00:00.000Z'));
  });

  it('refuses each broken rule with the parameter it concerns', async () => {
    current = T0;
    const start = '2026-03-12T10:00:00Z';
    await expectMissing(service.createUpcomingEvent(owner, { startTime: start }), 'title');
    await expectMissing(service.createUpcomingEvent(owner, { title: '   ', startTime: start }), 'title');
    await expectInvalid(
      service.createUpcomingEvent(owner, { title: 'x'.repeat(256), startTime: start }),
      'title',
      'The title can have at most 255 characters.',
    );
    expect((await service.createUpcomingEvent(owner, { title: 'y'.repeat(255), startTime: start })).title).toHaveLength(255);
    await expectMissing(service.createUpcomingEvent(owner, { title: 'Launch' }), 'start_time');
    await expectInvalid(
      service.createUpcomingEvent(owner, { title: 'Launch', startTime: 'next tuesday' }),
      'start_time',
      'start_time must be an ISO 8601 time or a unix timestamp.',
    );
    await expectInvalid(
      service.createUpcomingEvent(owner, { title: 'Launch', startTime: '2026-03-10T11:59:59Z' }),
      'start_time',
      'start_time must be in the future.',
    );
    await expectInvalid(
      service.createUpcomingEvent(owner, { title: 'Launch', startTime: T0_SECONDS }),
      'start_time',
      'start_time must be in the future.',
    );
    await expectInvalid(
      service.createUpcomingEvent(owner, { title: 'Launch', startTime: start, endTime: '2026-03-12T10:00:00Z' }),
      'end_time',
      'end_time must be after start_time.',
    );
    await expectInvalid(
      service.createUpcomingEvent(owner, { title: 'Launch', startTime: start, endTime: 'later' }),
      'end_time',
      'end_time must be an ISO 8601 time or a unix timestamp.',
    );
    await expectInvalid(
      service.createUpcomingEvent(owner, { title: 'Launch', startTime: start, notificationSubtypes: ['EVENT_START', 'AFTER_EVENT_8DAY'] }),
      'notification_subtypes',
      '(#100) notification_subtypes[1] must be one of the following values: AFTER_EVENT_1DAY, AFTER_EVENT_2DAY, AFTER_EVENT_3DAY, AFTER_EVENT_4DAY, AFTER_EVENT_5DAY, AFTER_EVENT_6DAY, AFTER_EVENT_7DAY, BEFORE_EVENT_15MIN, BEFORE_EVENT_1HOUR, BEFORE_EVENT_1DAY, BEFORE_EVENT_2DAY, EVENT_START, RESCHEDULED',
    );
    await expectInvalid(
      service.createUpcomingEvent(owner, { title: 'Launch', startTime: start, notificationTargetTime: 'EVENT_MIDDLE' }),
      'notification_target_time',
      '(#100) notification_target_time must be one of the following values: EVENT_START, EVENT_END',
    );
    await expectInvalid(
      service.createUpcomingEvent(owner, { title: 'Launch', startTime: start, notificationTargetTime: 'EVENT_END' }),
      'notification_target_time',
      'notification_target_time EVENT_END needs an end_time.',
    );
    await expectUnknown(
      service.createUpcomingEvent(missingId('account'), { title: 'Launch', startTime: start }),
      missingId('account'),
      'post',
    );
    await expectUnknown(service.createUpcomingEvent('not-an-id', { title: 'Launch', startTime: start }), 'not-an-id', 'post');
  });

  it('walks more than two pages forward and back by start time, with no duplicate and no gap', async () => {
    current = T0;
    const walker = await newAccount('events_walker');
    const other = await newAccount('events_other');
    await service.createUpcomingEvent(other, { title: 'Not mine', startTime: T0_SECONDS + 600 });
    const created: UpcomingEvent[] = [];
    // Three events share each start time, so the id decides their order within a second.
    for (let index = 0; index < 23; index += 1) {
      const startTime = T0_SECONDS + 3600 * (1 + Math.floor(index / 3));
      created.push(await service.createUpcomingEvent(walker, { title: `Event ${index}`, startTime }));
    }
    const expected = [...created]
      .sort((a, b) => a.startTime.getTime() - b.startTime.getTime() || (BigInt(a.id) < BigInt(b.id) ? -1 : 1))
      .map((event) => event.id);

    const forward: string[] = [];
    let page = await service.listUpcomingEvents(walker, { first: 5 });
    expect(page.hasPreviousPage).toBe(false);
    let pages = 1;
    forward.push(...page.items.map((event) => event.id));
    while (page.hasNextPage) {
      page = await service.listUpcomingEvents(walker, { first: 5, after: page.endCursor });
      expect(page.hasPreviousPage).toBe(true);
      forward.push(...page.items.map((event) => event.id));
      pages += 1;
    }
    expect(pages).toBe(5);
    expect(page.items).toHaveLength(3);
    expect(forward).toEqual(expected);

    const backward: string[] = [];
    let back = page;
    backward.unshift(...back.items.map((event) => event.id));
    while (back.hasPreviousPage) {
      back = await service.listUpcomingEvents(walker, { first: 5, before: back.startCursor });
      expect(back.hasNextPage).toBe(true);
      backward.unshift(...back.items.map((event) => event.id));
    }
    expect(backward).toEqual(expected);
    expect(back.items.map((event) => event.id)).toEqual(expected.slice(0, 5));
  });

  it('pages 25 by default, at most 100, and refuses foreign or malformed cursors', async () => {
    current = T0;
    const many = await newAccount('events_many');
    for (let index = 0; index < 27; index += 1)
      await service.createUpcomingEvent(many, { title: `E${index}`, startTime: T0_SECONDS + 60 * (index + 1) });
    const first = await service.listUpcomingEvents(many, {});
    expect(first.items).toHaveLength(25);
    expect(first.hasNextPage).toBe(true);
    const all = await service.listUpcomingEvents(many, { first: 500 });
    expect(all.items).toHaveLength(27);
    expect(all.hasNextPage).toBe(false);
    expect(all.items[0]).toMatchObject({ title: 'E0', accountId: many });

    await expectInvalid(service.listUpcomingEvents(many, { after: 'garbage' }), 'after', 'Invalid cursor.');
    await expectInvalid(service.listUpcomingEvents(many, { before: codec.encode(['soon', 'x']) }), 'before', 'Invalid cursor.');
    await expectInvalid(service.listUpcomingEvents(many, { after: codec.encode([1]) }), 'after', 'Invalid cursor.');
    await expectInvalid(service.listUpcomingEvents(many, { first: -1 }), 'limit', 'The parameter limit must be a non-negative integer.');
    await expectUnknown(service.listUpcomingEvents('42', {}), '42', 'get');
  });
});

// ---------------------------------------------------------------------------------------------------------------------

describe('recently searched hashtags', () => {
  it('lists distinct hashtags of the last 7 days, most recently searched first', async () => {
    const searcher = await newAccount('hashtag_searcher');
    const search = async (at: number, name: string) => {
      current = new Date(T0.getTime() + at);
      return service.recordHashtagSearch(searcher, name);
    };
    await search(-8 * DAY, 'old');
    const alpha = await search(-3 * DAY, '#Alpha ');
    expect(alpha.name).toBe('alpha');
    expect(isSocialId(alpha.id, 'hashtag')).toBe(true);
    await search(-2 * DAY, 'beta');
    await search(-1 * DAY, 'ALPHA');
    await search(-HOUR, 'gamma');
    // A search after "now" is not yet in the list.
    await search(HOUR, 'future');
    current = T0;
    expect((await service.recentlySearchedHashtags(searcher)).map((tag) => tag.name)).toEqual(['gamma', 'alpha', 'beta']);
    expect(await service.recentlySearchedHashtags(searcher, 2)).toEqual([
      { id: expect.any(String), name: 'gamma' },
      { id: alpha.id, name: 'alpha' },
    ]);
    expect(await service.recentlySearchedHashtags(searcher, 0)).toEqual([]);
    // Hashtags are global: another account searching "alpha" gets the same id.
    const other = await newAccount('hashtag_other');
    expect(await service.recordHashtagSearch(other, 'alpha')).toEqual(alpha);

    await expectInvalid(service.recentlySearchedHashtags(searcher, -1), 'limit', 'The parameter limit must be a non-negative integer.');
    await expectInvalid(service.recentlySearchedHashtags(searcher, 2.5), 'limit', 'The parameter limit must be a non-negative integer.');
  });

  it('serves 25 by default and cuts a larger limit to 30', async () => {
    current = T0;
    const heavy = await newAccount('hashtag_heavy');
    // Rows written directly (as imported data would be): the service's own rule would not allow 32 in a week.
    for (let index = 0; index < 32; index += 1) {
      const { id } = await db
        .insertInto('social.hashtag')
        .values({ name: `bulk${index}` })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('social.hashtag_search')
        .values({ account_id: heavy, hashtag_id: id, searched_at: new Date(T0.getTime() - index * 60_000) })
        .execute();
    }
    const byDefault = await service.recentlySearchedHashtags(heavy);
    expect(byDefault).toHaveLength(25);
    expect(byDefault[0]!.name).toBe('bulk0');
    expect(await service.recentlySearchedHashtags(heavy, 50)).toHaveLength(30);
    expect(await service.recentlySearchedHashtags(heavy, 30)).toHaveLength(30);
  });

  it('allows at most 30 distinct hashtags per 7 days, counting a repeated one once', async () => {
    const limited = await newAccount('hashtag_limited');
    current = T0;
    for (let index = 0; index < 30; index += 1) {
      current = new Date(T0.getTime() + index * 1000);
      await service.recordHashtagSearch(limited, `tag${index}`);
    }
    current = new Date(T0.getTime() + 6 * DAY);
    expect(await rejection(service.recordHashtagSearch(limited, 'tag30'))).toMatchObject({
      code: 'RESOURCE_EXHAUSTED',
      message: '(#613) Calls to this api have exceeded the rate limit. An account can search at most 30 unique hashtags within 7 days.',
      details: { reason: 'RATE_LIMITED', scope: 'custom' },
    });
    expect((await service.recordHashtagSearch(limited, 'tag7')).name).toBe('tag7');
    // Once the first search is more than 7 days old, there is room for one more.
    current = new Date(T0.getTime() + 7 * DAY);
    expect((await service.recordHashtagSearch(limited, 'tag30')).name).toBe('tag30');
    await expect(service.recordHashtagSearch(limited, 'tag31')).rejects.toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
  });

  it('refuses empty and malformed hashtags', async () => {
    current = T0;
    const account = await newAccount('hashtag_errors');
    await expectMissing(service.recordHashtagSearch(account, ''), 'q');
    await expectMissing(service.recordHashtagSearch(account, ' # '), 'q');
    const message = 'A hashtag can contain only letters, digits and underscores (at most 100).';
    await expectInvalid(service.recordHashtagSearch(account, 'coffee time'), 'q', message);
    await expectInvalid(service.recordHashtagSearch(account, '☕'), 'q', message);
    await expectInvalid(service.recordHashtagSearch(account, 'a'.repeat(101)), 'q', message);
    expect((await service.recordHashtagSearch(account, 'café_2026')).name).toBe('café_2026');
    await expectUnknown(service.recordHashtagSearch(missingId('account'), 'coffee'), missingId('account'), 'post');
  });
});

// ---------------------------------------------------------------------------------------------------------------------

describe('agencies and authorized ad accounts', () => {
  let account: string;
  let northwind: string;
  let harbor: string;
  let lonely: string;
  let main: string;
  let spare: string;
  let harborMain: string;
  beforeAll(async () => {
    current = T0;
    account = await newAccount('ads_account');
    northwind = await newBusiness('Northwind');
    harbor = await newBusiness('Harbor');
    lonely = await newBusiness('Lonely');
    for (const business of [northwind, harbor, lonely]) await insertAgency(db, account, business, T0);
    const other = await newAccount('ads_other');
    await insertAgency(db, other, harbor, T0);
    main = (await insertAdAccount(db, { business_id: northwind, name: 'Northwind main', currency: 'USD' })).id;
    spare = (await insertAdAccount(db, { business_id: northwind, name: 'Northwind spare', currency: 'GBP' })).id;
    harborMain = (
      await insertAdAccount(db, { business_id: harbor, name: 'Harbor main', currency: 'EUR', timezone_name: 'Europe/Amsterdam' })
    ).id;
  });

  it('pages the businesses that may advertise for the account', async () => {
    const first = await service.agencies(account, { first: 2 });
    expect(first.items).toEqual([
      { id: northwind, name: 'Northwind' },
      { id: harbor, name: 'Harbor' },
    ]);
    expect(first.hasNextPage).toBe(true);
    const second = await service.agencies(account, { first: 2, after: first.endCursor });
    expect(second).toMatchObject({ items: [{ id: lonely, name: 'Lonely' }], hasPreviousPage: true, hasNextPage: false });
    const back = await service.agencies(account, { first: 2, before: second.startCursor });
    expect(back.items.map((business) => business.id)).toEqual([northwind, harbor]);
    expect(back.hasPreviousPage).toBe(false);
    expect((await service.agencies(await newAccount('ads_nobody'), {})).items).toEqual([]);
    await expectInvalid(service.agencies(account, { after: codec.encode(['x']) }), 'after', 'Invalid cursor.');
  });

  it('authorises an ad account of the business, idempotently, and lists it', async () => {
    current = T0;
    expect(isSocialId(main, 'adAccount')).toBe(true);
    expect(await service.authorizeAdAccount(account, { adAccountId: `act_${main}`, businessId: northwind })).toBe(true);
    current = new Date(T0.getTime() + HOUR);
    expect(await service.authorizeAdAccount(account, { adAccountId: `act_${main}`, businessId: northwind })).toBe(true);
    expect(await service.authorizeAdAccount(account, { adAccountId: harborMain, businessId: harbor })).toBe(true);

    const all = await service.authorizedAdAccounts(account, undefined, {});
    expect(all.items).toEqual([
      {
        id: `act_${main}`,
        accountId: main,
        name: 'Northwind main',
        businessId: northwind,
        currency: 'USD',
        timezoneName: 'Etc/UTC',
        accountStatus: 1,
        authorizedAt: T0,
      },
      {
        id: `act_${harborMain}`,
        accountId: harborMain,
        name: 'Harbor main',
        businessId: harbor,
        currency: 'EUR',
        timezoneName: 'Europe/Amsterdam',
        accountStatus: 1,
        authorizedAt: new Date(T0.getTime() + HOUR),
      },
    ]);
    expect((await service.authorizedAdAccounts(account, northwind, {})).items.map((ad) => ad.id)).toEqual([`act_${main}`]);
    expect((await service.authorizedAdAccounts(account, lonely, {})).items).toEqual([]);
    const paged = await service.authorizedAdAccounts(account, undefined, { first: 1 });
    expect(paged.items.map((ad) => ad.accountId)).toEqual([main]);
    const next = await service.authorizedAdAccounts(account, undefined, { first: 1, after: paged.endCursor });
    expect(next).toMatchObject({ items: [{ accountId: harborMain }], hasNextPage: false, hasPreviousPage: true });
  });

  it('refuses missing parameters, unknown businesses and ad accounts of another business', async () => {
    await expectMissing(service.authorizeAdAccount(account, { businessId: northwind }), 'account_id');
    await expectMissing(service.authorizeAdAccount(account, { adAccountId: main }), 'business');
    await expectMissing(service.authorizeAdAccount(account, { adAccountId: ' ', businessId: northwind }), 'account_id');
    await expectInvalid(
      service.authorizeAdAccount(account, { adAccountId: `act_${harborMain}`, businessId: northwind }),
      'account_id',
      `The ad account act_${harborMain} does not belong to the business ${northwind}.`,
    );
    const ghost = missingId('adAccount');
    await expectInvalid(
      service.authorizeAdAccount(account, { adAccountId: ghost, businessId: northwind }),
      'account_id',
      `The ad account act_${ghost} does not belong to the business ${northwind}.`,
    );
    await expectInvalid(
      service.authorizeAdAccount(account, { adAccountId: 'act_abc', businessId: northwind }),
      'account_id',
      `The ad account act_abc does not belong to the business ${northwind}.`,
    );
    await expectUnknown(
      service.authorizeAdAccount(account, { adAccountId: spare, businessId: missingId('business') }),
      missingId('business'),
      'post',
    );
    await expectUnknown(service.authorizeAdAccount(account, { adAccountId: spare, businessId: main }), main, 'post');
    await expectUnknown(service.authorizedAdAccounts(account, missingId('business'), {}), missingId('business'), 'get');
    await expectUnknown(service.authorizedAdAccounts(account, 'abc', {}), 'abc', 'get');
    // Nothing was authorised by the failures.
    expect((await service.authorizedAdAccounts(account, northwind, {})).items.map((ad) => ad.accountId)).toEqual([main]);
  });
});

// ---------------------------------------------------------------------------------------------------------------------

describe('media containers and publishing', () => {
  let publisher: string;
  let friendOne: string;
  let friendTwo: string;
  let stranger: string;
  beforeAll(async () => {
    current = T0;
    publisher = await newAccount('publisher_one');
    friendOne = await newAccount('friend.one');
    friendTwo = await newAccount('Friend_Two');
    stranger = await newAccount('stranger_account');
  });

  async function mediaRow(id: string) {
    return db.selectFrom('social.media').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  it('creates an image container, ready at once and valid for 24 hours', async () => {
    current = T0;
    const container = await service.createContainer(publisher, {
      imageUrl: IMAGE,
      caption: 'Hello',
      altText: 'A cup of coffee',
      userTags: [{ username: 'friend_two', x: 0.5, y: 0.25 }],
      collaborators: ['@friend.one'],
      locationId: '123456',
    });
    expect(isSocialId(container.id, 'container')).toBe(true);
    expect(container).toEqual({
      id: container.id,
      accountId: publisher,
      mediaType: 'IMAGE',
      imageUrl: IMAGE,
      videoUrl: null,
      uploadMediaId: null,
      caption: 'Hello',
      isCarouselItem: false,
      children: [],
      userTags: [{ username: 'friend_two', x: 0.5, y: 0.25 }],
      collaborators: ['friend.one'],
      locationId: '123456',
      altText: 'A cup of coffee',
      shareToFeed: null,
      coverUrl: null,
      thumbOffset: null,
      audioName: null,
      statusCode: 'FINISHED',
      createdAt: T0,
      expiresAt: new Date(T0.getTime() + DAY),
      publishedMediaId: null,
      publishedAt: null,
    });
    current = new Date(T0.getTime() + DAY - 1);
    expect((await service.getContainer(publisher, container.id)).statusCode).toBe('FINISHED');
    current = new Date(T0.getTime() + DAY);
    expect((await service.getContainer(publisher, container.id)).statusCode).toBe('EXPIRED');
    await expectUnknown(service.getContainer(stranger, container.id), container.id, 'get');
    await expectUnknown(service.getContainer(publisher, missingId('container')), missingId('container'), 'get');
    await expectUnknown(service.getContainer(publisher, publisher), publisher, 'get');
  });

  it('keeps a video container IN_PROGRESS while it processes', async () => {
    current = T0;
    const reel = await service.createContainer(publisher, {
      mediaType: 'REELS',
      videoUrl: VIDEO,
      coverUrl: COVER,
      shareToFeed: true,
      audioName: 'Original audio',
      thumbOffset: 1500,
      userTags: [{ username: 'friend.one' }],
    });
    expect(reel).toMatchObject({
      mediaType: 'REELS',
      statusCode: 'IN_PROGRESS',
      coverUrl: COVER,
      shareToFeed: true,
      audioName: 'Original audio',
      thumbOffset: 1500,
      userTags: [{ username: 'friend.one' }],
    });
    current = new Date(T0.getTime() + 29_999);
    expect((await service.getContainer(publisher, reel.id)).statusCode).toBe('IN_PROGRESS');
    current = new Date(T0.getTime() + 30_000);
    expect((await service.getContainer(publisher, reel.id)).statusCode).toBe('FINISHED');

    current = T0;
    const instant = serviceWith({ videoProcessingSeconds: 0 });
    expect((await instant.createContainer(publisher, { mediaType: 'STORIES', videoUrl: VIDEO })).statusCode).toBe('FINISHED');
    expect((await service.createContainer(publisher, { mediaType: 'STORIES', imageUrl: IMAGE })).statusCode).toBe('FINISHED');
  });

  it('refuses each broken parameter rule with the platform code or a named 100', async () => {
    current = T0;
    const create = (input: CreateContainerInput) => service.createContainer(publisher, input);
    await expectMissing(create({}), 'image_url');
    await expectMissing(create({ caption: 'no media' }), 'image_url');
    await expectMissing(create({ mediaType: 'REELS' }), 'video_url');
    await expectMissing(create({ mediaType: 'VIDEO', isCarouselItem: true }), 'video_url');
    await expectMissing(create({ mediaType: 'STORIES' }), 'image_url');
    await expectMissing(create({ mediaType: 'CAROUSEL' }), 'children');
    await expectMissing(create({ mediaType: 'CAROUSEL', children: [] }), 'children');
    await expectPublishing(create({ mediaType: 'PHOTO', imageUrl: IMAGE }), UNKNOWN_MEDIA_TYPE('PHOTO'));
    await expectPublishing(create({ mediaType: 'reels', videoUrl: VIDEO }), UNKNOWN_MEDIA_TYPE('reels'));
    await expectInvalid(create({ imageUrl: IMAGE, videoUrl: VIDEO }), 'video_url', 'Only one of image_url and video_url can be given.');
    await expectInvalid(
      create({ videoUrl: VIDEO }),
      'media_type',
      'A video needs media_type REELS or STORIES (or VIDEO for a carousel item).',
    );
    await expectInvalid(create({ mediaType: 'REELS', imageUrl: IMAGE }), 'image_url', 'A REELS container takes video_url, not image_url.');
    await expectInvalid(
      create({ mediaType: 'CAROUSEL', imageUrl: IMAGE, children: ['1', '2'] }),
      'image_url',
      'A CAROUSEL container takes its media from children, not from image_url or video_url.',
    );
    await expectInvalid(
      create({ mediaType: 'CAROUSEL', children: ['1', '2'], isCarouselItem: true }),
      'is_carousel_item',
      'A CAROUSEL container cannot be a carousel item.',
    );
    await expectInvalid(
      create({ mediaType: 'REELS', videoUrl: VIDEO, isCarouselItem: true }),
      'is_carousel_item',
      'A REELS container cannot be a carousel item.',
    );
    await expectInvalid(
      create({ mediaType: 'STORIES', imageUrl: IMAGE, isCarouselItem: true }),
      'is_carousel_item',
      'A STORIES container cannot be a carousel item.',
    );

    for (const url of ['ftp://cdn.example/1.jpg', 'not a url', 'https://cdn.example/café.jpg', 'file:///etc/passwd']) {
      await expectPublishing(create({ imageUrl: url }), DOWNLOAD_FAILED(url));
    }
    await expectPublishing(create({ mediaType: 'REELS', videoUrl: 'mailto:me@example.com' }), DOWNLOAD_FAILED('mailto:me@example.com'));

    await expectPublishing(create({ mediaType: 'CAROUSEL', children: ['1'] }), CAROUSEL_SIZE);
    await expectPublishing(create({ mediaType: 'CAROUSEL', children: Array.from({ length: 11 }, (_, i) => String(i + 1)) }), CAROUSEL_SIZE);
    await expectInvalid(
      create({ mediaType: 'CAROUSEL', children: ['7', '8', '7'] }),
      'children',
      'The carousel item 7 is given more than once.',
    );
    await expectInvalid(
      create({ imageUrl: IMAGE, children: ['1', '2'] }),
      'children',
      'children can only be given with media_type CAROUSEL.',
    );

    expect((await create({ imageUrl: IMAGE, caption: 'é'.repeat(2200) })).caption).toHaveLength(2200);
    await expectPublishing(create({ imageUrl: IMAGE, caption: 'é'.repeat(2201) }), CAPTION_TOO_LONG);
    const hashtags = (n: number) => Array.from({ length: n }, (_, i) => `#tag${i}`).join(' ');
    await create({ imageUrl: IMAGE, caption: hashtags(30) });
    await expectPublishing(create({ imageUrl: IMAGE, caption: hashtags(31) }), TOO_MANY_HASHTAGS);
    const mentions = (n: number) => Array.from({ length: n }, (_, i) => `@user${i}`).join(' ');
    await create({ imageUrl: IMAGE, caption: `${mentions(20)} mail me at me@example.com` });
    await expectPublishing(create({ imageUrl: IMAGE, caption: mentions(21) }), TOO_MANY_TAGS);

    const tags = (n: number) => Array.from({ length: n }, (_, i) => ({ username: `user${i}`, x: 0.1, y: 0.1 }));
    await create({ imageUrl: IMAGE, userTags: tags(20) });
    await expectPublishing(create({ imageUrl: IMAGE, userTags: tags(21) }), TOO_MANY_TAGS);
    await expectInvalid(
      create({ mediaType: 'CAROUSEL', children: ['1', '2'], userTags: [{ username: 'friend.one', x: 0, y: 0 }] }),
      'user_tags',
      'Tag people on the carousel items, not on the CAROUSEL container.',
    );
    await expectInvalid(
      create({ imageUrl: IMAGE, userTags: [{ username: 'no spaces here', x: 0, y: 0 }] }),
      'user_tags',
      'user_tags[0].username must be a username.',
    );
    await expectInvalid(
      create({ imageUrl: IMAGE, userTags: [{ username: 'ok', y: 0.5 }] }),
      'user_tags',
      'user_tags[0].x is required for an image.',
    );
    await expectInvalid(
      create({
        imageUrl: IMAGE,
        userTags: [
          { username: 'ok', x: 1, y: 1 },
          { username: 'ok2', x: 0, y: 1.5 },
        ],
      }),
      'user_tags',
      'user_tags[1].y must be a number from 0 to 1.',
    );
    await expectInvalid(
      create({ mediaType: 'REELS', videoUrl: VIDEO, userTags: [{ username: 'ok', x: -0.1 }] }),
      'user_tags',
      'user_tags[0].x must be a number from 0 to 1.',
    );
    expect((await create({ mediaType: 'STORIES', imageUrl: IMAGE, userTags: [{ username: 'ok' }] })).userTags).toEqual([
      { username: 'ok' },
    ]);

    await expectInvalid(
      create({ imageUrl: IMAGE, collaborators: ['a', 'b', 'c', 'd'] }),
      'collaborators',
      'A post can have at most 3 collaborators.',
    );
    await expectInvalid(
      create({ mediaType: 'STORIES', imageUrl: IMAGE, collaborators: ['a'] }),
      'collaborators',
      'Collaborators can be invited on feed posts, carousels and reels only.',
    );
    await expectInvalid(
      create({ imageUrl: IMAGE, isCarouselItem: true, collaborators: ['a'] }),
      'collaborators',
      'Collaborators can be invited on feed posts, carousels and reels only.',
    );
    await expectInvalid(
      create({ imageUrl: IMAGE, collaborators: ['a', 'not valid'] }),
      'collaborators',
      'collaborators[1] must be a username.',
    );
    await expectInvalid(
      create({ imageUrl: IMAGE, locationId: 'Paris' }),
      'location_id',
      'location_id must be the numeric id of a location page.',
    );

    await expectInvalid(create({ imageUrl: IMAGE, coverUrl: COVER }), 'cover_url', 'cover_url can only be given for REELS.');
    await expectPublishing(
      create({ mediaType: 'REELS', videoUrl: VIDEO, coverUrl: 'javascript:alert(1)' }),
      DOWNLOAD_FAILED('javascript:alert(1)'),
    );
    await expectInvalid(create({ imageUrl: IMAGE, shareToFeed: true }), 'share_to_feed', 'share_to_feed can only be given for REELS.');
    await expectInvalid(
      create({ mediaType: 'STORIES', videoUrl: VIDEO, audioName: 'Song' }),
      'audio_name',
      'audio_name can only be given for REELS.',
    );
    await expectInvalid(create({ imageUrl: IMAGE, thumbOffset: 10 }), 'thumb_offset', 'thumb_offset can only be given for a video.');
    await expectInvalid(
      create({ mediaType: 'REELS', videoUrl: VIDEO, thumbOffset: 1.5 }),
      'thumb_offset',
      'thumb_offset must be a whole number of milliseconds.',
    );
    await expectPublishing(create({ mediaType: 'REELS', videoUrl: VIDEO, thumbOffset: -1 }), THUMB_OFFSET);
    expect((await create({ mediaType: 'VIDEO', videoUrl: VIDEO, isCarouselItem: true, thumbOffset: 0 })).thumbOffset).toBe(0);

    await expectInvalid(
      create({ mediaType: 'REELS', videoUrl: VIDEO, altText: 'x' }),
      'alt_text',
      'alt_text can only be given for an image post or carousel image.',
    );
    await expectInvalid(
      create({ mediaType: 'STORIES', imageUrl: IMAGE, altText: 'x' }),
      'alt_text',
      'alt_text can only be given for an image post or carousel image.',
    );
    await expectInvalid(create({ imageUrl: IMAGE, altText: 'a'.repeat(1001) }), 'alt_text', 'alt_text can have at most 1000 characters.');
    expect((await create({ imageUrl: IMAGE, isCarouselItem: true, altText: 'a'.repeat(1000) })).altText).toHaveLength(1000);

    await expectUnknown(service.createContainer(missingId('account'), { imageUrl: IMAGE }), missingId('account'), 'post');
  });

  it('builds a carousel only from finished, unexpired carousel items of the same account', async () => {
    current = T0;
    const item = async (account = publisher) => (await service.createContainer(account, { imageUrl: IMAGE, isCarouselItem: true })).id;
    const a = await item();
    const b = await item();
    const video = (await service.createContainer(publisher, { mediaType: 'VIDEO', videoUrl: VIDEO, isCarouselItem: true })).id;
    const plain = (await service.createContainer(publisher, { imageUrl: IMAGE })).id;
    const foreign = await item(stranger);
    const carousel = (children: string[]) => service.createContainer(publisher, { mediaType: 'CAROUSEL', children });
    const notAnItem = (id: string) => `The carousel item ${id} does not exist or is not a carousel item of this account.`;

    await expectPublishing(carousel([a, video]), NOT_READY);
    await expectInvalid(carousel([a, foreign]), 'children', notAnItem(foreign));
    await expectInvalid(carousel([a, plain]), 'children', notAnItem(plain));
    await expectInvalid(carousel([a, missingId('container')]), 'children', notAnItem(missingId('container')));
    await expectInvalid(carousel([a, 'abc']), 'children', notAnItem('abc'));

    current = new Date(T0.getTime() + 30_000);
    const made = await carousel([a, b, video]);
    expect(made).toMatchObject({ mediaType: 'CAROUSEL', children: [a, b, video], statusCode: 'FINISHED', imageUrl: null, videoUrl: null });
    current = new Date(T0.getTime() + DAY);
    await expectPublishing(carousel([a, b]), EXPIRED);
  });

  it('publishes an image with its mentions and tags, in the media table, once, and logs the mentions its service chose', async () => {
    current = T0;
    const logBefore = await lastEventPosition(db);
    const container = await service.createContainer(publisher, {
      imageUrl: IMAGE,
      caption: 'Thanks @friend.one and @FRIEND_TWO. cc @nobody_here @publisher_one, mail a@b.example',
      userTags: [
        { username: 'friend_two', x: 0.1, y: 0.2 },
        { username: 'ghost_user', x: 0.3, y: 0.4 },
        { username: 'publisher_one', x: 0.5, y: 0.5 },
      ],
    });
    current = new Date(T0.getTime() + 60_000);
    const published = await service.publishContainer(publisher, container.id);
    expect(Object.keys(published)).toEqual(['id']);
    expect(isSocialId(published.id, 'media')).toBe(true);
    expect(await mediaRow(published.id)).toMatchObject({
      owner_id: publisher,
      caption: container.caption,
      media_type: 'IMAGE',
      media_product_type: 'FEED',
      media_url: IMAGE,
      permalink: `https://social.example/p/${shortcodeOf(published.id)}`,
      thumbnail_url: null,
      timestamp: current,
      carousel_parent_id: null,
    });
    // The shortcode is the id in the platform's 64-letter alphabet: it reads back to the id.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const decoded = [...shortcodeOf(published.id)].reduce((value, letter) => value * 64n + BigInt(alphabet.indexOf(letter)), 0n);
    expect(decoded.toString()).toBe(published.id);
    const mentions = await db
      .selectFrom('social.mention')
      .select(['account_id', 'comment_id'])
      .where('media_id', '=', published.id)
      .orderBy('account_id')
      .execute();
    expect(mentions).toEqual([friendOne, friendTwo].sort().map((account_id) => ({ account_id, comment_id: null })));
    const tags = await db.selectFrom('social.media_tag').select('account_id').where('media_id', '=', published.id).execute();
    expect(tags).toEqual([{ account_id: friendTwo }]);
    // Exactly the events the publishing chose, in its transaction: each account the caption newly @mentions (not the
    // publisher itself, nor an unknown name, nor the tags), media_id only (§6.5).
    expect(
      (await readEventsAfter(db, logBefore, 100)).map(({ accountId, kind, field, value }) => ({ accountId, kind, field, value })),
    ).toEqual(
      [friendOne, friendTwo]
        .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))
        .map((accountId) => ({ accountId, kind: 'mentioned', field: 'mentions', value: { media_id: published.id } })),
    );
    expect(await service.getContainer(publisher, container.id)).toMatchObject({
      statusCode: 'PUBLISHED',
      publishedMediaId: published.id,
      publishedAt: current,
    });

    await expectInvalid(
      service.publishContainer(publisher, container.id),
      'creation_id',
      `The container ${container.id} has already been published.`,
    );
    // Still PUBLISHED, not EXPIRED, after a day.
    current = new Date(T0.getTime() + 2 * DAY);
    expect((await service.getContainer(publisher, container.id)).statusCode).toBe('PUBLISHED');
  });

  it('publishes reels, stories and legacy videos with their media and product types', async () => {
    current = T0;
    const instant = serviceWith({ videoProcessingSeconds: 0 });
    const cases: [CreateContainerInput, string, string, string, string | null][] = [
      [{ mediaType: 'REELS', videoUrl: VIDEO, coverUrl: COVER }, 'VIDEO', 'REELS', VIDEO, COVER],
      [{ mediaType: 'VIDEO', videoUrl: VIDEO }, 'VIDEO', 'REELS', VIDEO, null],
      [{ mediaType: 'STORIES', videoUrl: VIDEO }, 'VIDEO', 'STORY', VIDEO, null],
      [{ mediaType: 'STORIES', imageUrl: IMAGE_2 }, 'IMAGE', 'STORY', IMAGE_2, null],
    ];
    for (const [input, mediaType, productType, url, thumbnail] of cases) {
      const { id } = await instant.createContainer(publisher, input);
      const media = await mediaRow((await instant.publishContainer(publisher, id)).id);
      expect(media).toMatchObject({ media_type: mediaType, media_product_type: productType, media_url: url, thumbnail_url: thumbnail });
    }
  });

  it('refuses to publish what is missing, foreign, an item, unready, expired or failed', async () => {
    current = T0;
    await expectMissing(service.publishContainer(publisher, undefined), 'creation_id');
    await expectMissing(service.publishContainer(publisher, '  '), 'creation_id');
    await expectPublishing(service.publishContainer(publisher, missingId('container')), NOT_FOUND(missingId('container')));
    await expectPublishing(service.publishContainer(publisher, 'abc'), NOT_FOUND('abc'));
    const foreign = await service.createContainer(stranger, { imageUrl: IMAGE });
    await expectPublishing(service.publishContainer(publisher, foreign.id), NOT_FOUND(foreign.id));
    const item = await service.createContainer(publisher, { imageUrl: IMAGE, isCarouselItem: true });
    await expectInvalid(
      service.publishContainer(publisher, item.id),
      'creation_id',
      `The container ${item.id} is a carousel item: publish the carousel container that holds it.`,
    );
    const reel = await service.createContainer(publisher, { mediaType: 'REELS', videoUrl: VIDEO });
    await expectPublishing(service.publishContainer(publisher, reel.id), NOT_READY);
    const image = await service.createContainer(publisher, { imageUrl: IMAGE });
    const broken = await service.createContainer(publisher, { imageUrl: IMAGE });
    await db.updateTable('social.media_container').set({ status_code: 'ERROR' }).where('id', '=', broken.id).execute();
    expect((await service.getContainer(publisher, broken.id)).statusCode).toBe('ERROR');
    await expectPublishing(service.publishContainer(publisher, broken.id), FAILED);
    current = new Date(T0.getTime() + 30_000);
    expect(isSocialId((await service.publishContainer(publisher, reel.id)).id, 'media')).toBe(true);
    current = new Date(T0.getTime() + DAY);
    await expectPublishing(service.publishContainer(publisher, image.id), EXPIRED);
    // None of the refusals published anything.
    expect((await service.getContainer(publisher, image.id)).publishedMediaId).toBeNull();
    expect((await service.getContainer(stranger, foreign.id)).publishedMediaId).toBeNull();
    await expectUnknown(service.publishContainer(missingId('account'), image.id), missingId('account'), 'post');
  });

  it('publishes a carousel as an album with linked children, tags shown on the album', async () => {
    current = T0;
    const first = await service.createContainer(publisher, {
      imageUrl: IMAGE,
      isCarouselItem: true,
      userTags: [{ username: 'friend.one', x: 0.2, y: 0.2 }],
    });
    const second = await service.createContainer(publisher, { mediaType: 'VIDEO', videoUrl: VIDEO, isCarouselItem: true });
    const third = await service.createContainer(publisher, { imageUrl: IMAGE_2, isCarouselItem: true });
    current = new Date(T0.getTime() + 60_000);
    const album = await service.createContainer(publisher, {
      mediaType: 'CAROUSEL',
      children: [third.id, second.id, first.id],
      caption: 'Three @friend_two',
    });
    const rival = await service.createContainer(publisher, { mediaType: 'CAROUSEL', children: [first.id, third.id] });
    const { id } = await service.publishContainer(publisher, album.id);
    const permalink = `https://social.example/p/${shortcodeOf(id)}`;
    expect(await mediaRow(id)).toMatchObject({
      media_type: 'CAROUSEL_ALBUM',
      media_product_type: 'FEED',
      media_url: IMAGE_2,
      caption: 'Three @friend_two',
      permalink,
      carousel_parent_id: null,
    });
    const children = await db
      .selectFrom('social.media')
      .select(['id', 'media_type', 'media_product_type', 'media_url', 'caption', 'permalink'])
      .where('carousel_parent_id', '=', id)
      .orderBy('id')
      .execute();
    expect(children.map(({ id: _id, ...rest }) => rest)).toEqual([
      { media_type: 'IMAGE', media_product_type: 'FEED', media_url: IMAGE_2, caption: '', permalink },
      { media_type: 'VIDEO', media_product_type: 'FEED', media_url: VIDEO, caption: '', permalink },
      { media_type: 'IMAGE', media_product_type: 'FEED', media_url: IMAGE, caption: '', permalink },
    ]);
    for (const [index, child] of [third, second, first].entries()) {
      expect(await service.getContainer(publisher, child.id)).toMatchObject({
        statusCode: 'PUBLISHED',
        publishedMediaId: children[index]!.id,
      });
    }
    expect(await db.selectFrom('social.media_tag').select('account_id').where('media_id', '=', id).execute()).toEqual([
      { account_id: friendOne },
    ]);
    expect(
      await db
        .selectFrom('social.media_tag')
        .select('media_id')
        .where(
          'media_id',
          'in',
          children.map((child) => child.id),
        )
        .execute(),
    ).toEqual([]);
    expect(await db.selectFrom('social.mention').select('account_id').where('media_id', '=', id).execute()).toEqual([
      { account_id: friendTwo },
    ]);
    // A carousel sharing an item that is now published cannot be published any more.
    await expectInvalid(service.publishContainer(publisher, rival.id), 'children', `The container ${first.id} has already been published.`);
  });

  it('refuses a carousel whose item expired after the carousel was made', async () => {
    current = T0;
    const early = await service.createContainer(publisher, { imageUrl: IMAGE, isCarouselItem: true });
    current = new Date(T0.getTime() + 20 * HOUR);
    const late = await service.createContainer(publisher, { imageUrl: IMAGE, isCarouselItem: true });
    const album = await service.createContainer(publisher, { mediaType: 'CAROUSEL', children: [early.id, late.id] });
    current = new Date(T0.getTime() + DAY);
    expect((await service.getContainer(publisher, album.id)).statusCode).toBe('FINISHED');
    await expectPublishing(service.publishContainer(publisher, album.id), EXPIRED);
    expect((await service.getContainer(publisher, album.id)).statusCode).toBe('FINISHED');
  });

  it('enforces the publishing quota over a rolling 24 hours, a carousel counting once', async () => {
    current = T0;
    const quota = await newAccount('quota_account');
    const limited = serviceWith({ publishingQuota: 3 });
    const publishImage = async () => limited.publishContainer(quota, (await limited.createContainer(quota, { imageUrl: IMAGE })).id);

    await publishImage();
    current = new Date(T0.getTime() + HOUR);
    const items = [
      await limited.createContainer(quota, { imageUrl: IMAGE, isCarouselItem: true }),
      await limited.createContainer(quota, { imageUrl: IMAGE_2, isCarouselItem: true }),
    ];
    const album = await limited.createContainer(quota, { mediaType: 'CAROUSEL', children: items.map((child) => child.id) });
    await limited.publishContainer(quota, album.id);
    current = new Date(T0.getTime() + 2 * HOUR);
    await publishImage();
    expect(await limited.contentPublishingLimit(quota)).toEqual({ quotaUsage: 3, config: { quotaTotal: 3, quotaDuration: 86400 } });

    current = new Date(T0.getTime() + 3 * HOUR);
    const blocked = await limited.createContainer(quota, { imageUrl: IMAGE });
    await expectPublishing(limited.publishContainer(quota, blocked.id), LIMIT_REACHED, 'RESOURCE_EXHAUSTED');
    expect((await limited.getContainer(quota, blocked.id)).statusCode).toBe('FINISHED');
    current = new Date(T0.getTime() + DAY - 1000);
    await expect(limited.publishContainer(quota, blocked.id)).rejects.toMatchObject({ details: { subcode: 2207042 } });
    // 24 hours after the first publication, it no longer counts.
    current = new Date(T0.getTime() + DAY);
    expect(isSocialId((await limited.publishContainer(quota, blocked.id)).id, 'media')).toBe(true);
    expect((await limited.contentPublishingLimit(quota)).quotaUsage).toBe(3);
    // The default quota is the publishing guide's 100.
    expect((await service.contentPublishingLimit(quota)).config).toEqual({ quotaTotal: 100, quotaDuration: 86400 });
  });

  it('counts publications since a time within the last 24 hours', async () => {
    current = T0;
    const counted = await newAccount('limit_since');
    for (const offset of [0, HOUR, 2 * HOUR]) {
      current = new Date(T0.getTime() + offset);
      await service.publishContainer(counted, (await service.createContainer(counted, { imageUrl: IMAGE })).id);
    }
    current = new Date(T0.getTime() + 3 * HOUR);
    const usage = async (since: string | number) => (await service.contentPublishingLimit(counted, since)).quotaUsage;
    expect(await usage(T0_SECONDS + 3600)).toBe(2);
    expect(await usage(String(T0_SECONDS + 3601))).toBe(1);
    expect(await usage('-150 minutes')).toBe(2);
    expect(await usage(T0_SECONDS + 3 * 3600)).toBe(0);
    expect(await usage(T0_SECONDS + 3 * 3600 - 86400)).toBe(3);
    const message = 'The parameter since must be a unix timestamp within the last 24 hours.';
    await expectInvalid(service.contentPublishingLimit(counted, T0_SECONDS + 3 * 3600 - 86401), 'since', message);
    await expectInvalid(service.contentPublishingLimit(counted, T0_SECONDS + 3 * 3600 + 1), 'since', message);
    await expectInvalid(service.contentPublishingLimit(counted, 'whenever'), 'since', message);
  });
});

// ---------------------------------------------------------------------------------------------------------------------

describe('insights', () => {
  let account: string;
  /** Day d = 1 is the last complete day (ending at MIDNIGHT), d = 2 the one before, … */
  const end = (d: number) => MIDNIGHT - (d - 1) * 86_400;
  const reach = (d: number) => 1000 + d;
  const likes = (d: number) => 10 * d;

  beforeAll(async () => {
    current = T0;
    account = await newAccount('insights_account');
    const rows: { account_id: string; metric: string; end_time: Date; value: number; breakdown: StoredBreakdown | null }[] = [];
    for (let d = 1; d <= 40; d += 1) {
      const at = new Date(end(d) * 1000);
      rows.push({
        account_id: account,
        metric: 'reach',
        end_time: at,
        value: reach(d),
        breakdown: { media_product_type: { FEED: 600 + d, REELS: 400 } },
      });
      rows.push({
        account_id: account,
        metric: 'likes',
        end_time: at,
        value: likes(d),
        breakdown: { media_product_type: { FEED: 6 * d, REELS: 4 * d } },
      });
      rows.push({ account_id: account, metric: 'follower_count', end_time: at, value: 5, breakdown: null });
      rows.push({
        account_id: account,
        metric: 'engaged_audience_demographics',
        end_time: at,
        value: 3,
        breakdown: { country: { US: 2, BR: 1 } },
      });
    }
    rows.push({
      account_id: account,
      metric: 'online_followers',
      end_time: new Date(end(1) * 1000),
      value: 9,
      breakdown: { hour: { '0': 1, '13': 9 } },
    });
    rows.push({
      account_id: account,
      metric: 'follower_demographics',
      end_time: new Date(end(2) * 1000),
      value: 90,
      breakdown: { country: { US: 40, BR: 50 } },
    });
    rows.push({
      account_id: account,
      metric: 'follower_demographics',
      end_time: new Date(end(1) * 1000),
      value: 100,
      breakdown: { country: { US: 50, BR: 30, IN: 20 }, age: { '18-24': 60, '25-34': 40 } },
    });
    await upsertInsightValues(db, rows);
  });

  const REACH = {
    name: 'reach',
    title: 'Accounts reached',
    description:
      'The number of unique accounts that have seen your content, at least once, including in ads. Content includes posts, stories, reels, videos and live videos. Reach is different from impressions, which may include multiple views of your content by the same accounts. This metric is estimated.',
  };

  it('serves the last two days as a daily series by default', async () => {
    current = T0;
    const result = await service.insights(account, { metric: 'reach', period: 'day' });
    expect(result).toEqual({
      data: [
        {
          ...REACH,
          period: 'day',
          id: `${account}/insights/reach/day`,
          values: [
            { value: reach(2), endTime: new Date(end(2) * 1000) },
            { value: reach(1), endTime: new Date(end(1) * 1000) },
          ],
        },
      ],
      window: { since: T0_SECONDS - 2 * 86_400, until: T0_SECONDS, hasPrevious: true, hasNext: false },
    });
  });

  it('moves window by window without gaps or repeats, and stops at now', async () => {
    current = T0;
    const since = end(12);
    const span = 3 * 86_400;
    let result = await service.insights(account, { metric: ['reach'], period: 'day', since: String(since), until: String(since + span) });
    const seen: number[] = [];
    let windows = 0;
    for (;;) {
      windows += 1;
      seen.push(...result.data[0]!.values!.map((value) => value.value as number));
      if (!result.window.hasNext) break;
      result = await service.insights(account, {
        metric: 'reach',
        period: 'day',
        since: result.window.since + span,
        until: result.window.until + span,
      });
    }
    expect(windows).toBe(4);
    expect(seen).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1].map(reach));
    expect(result.window).toEqual({ since: since + 3 * span, until: since + 4 * span, hasPrevious: true, hasNext: false });
  });

  it('sums rolling weeks and 28-day periods, and skips days without data', async () => {
    current = T0;
    const window = { since: end(3), until: end(1) };
    const week = await service.insights(account, { metric: 'reach', period: 'week', ...window });
    const sum = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => reach(from + i)).reduce((a, b) => a + b, 0);
    expect(week.data[0]!.values).toEqual([
      { value: sum(2, 8), endTime: new Date(end(2) * 1000) },
      { value: sum(1, 7), endTime: new Date(end(1) * 1000) },
    ]);
    expect(week.data[0]!.id).toBe(`${account}/insights/reach/week`);
    const month = await service.insights(account, { metric: 'reach', period: 'days_28', since: end(2), until: end(1) });
    expect(month.data[0]!.values).toEqual([{ value: sum(1, 28), endTime: new Date(end(1) * 1000) }]);
    // 40 days of data: a 28-day value on day 20 only has days 20..40 plus nothing older.
    const partial = await service.insights(account, { metric: 'reach', period: 'days_28', since: end(21), until: end(20) });
    expect(partial.data[0]!.values).toEqual([{ value: sum(20, 40), endTime: new Date(end(20) * 1000) }]);
    const empty = await service.insights(account, { metric: 'reach,follower_count', period: 'day', since: end(60), until: end(50) });
    expect(empty.data.map((metric) => [metric.name, metric.values])).toEqual([
      ['reach', []],
      ['follower_count', []],
    ]);
  });

  it('totals a window, with a breakdown on request, and a day by default', async () => {
    current = T0;
    const total = await service.insights(account, {
      metric: 'likes',
      period: 'day',
      metricType: 'total_value',
      since: end(4),
      until: end(1),
    });
    expect(total.data).toEqual([
      {
        name: 'likes',
        period: 'day',
        title: 'Likes',
        description: 'The number of likes on your posts, reels and videos.',
        id: `${account}/insights/likes/day`,
        totalValue: { value: likes(1) + likes(2) + likes(3) },
      },
    ]);
    const split = await service.insights(account, {
      metric: 'likes,reach',
      period: 'day',
      metricType: 'total_value',
      breakdown: 'media_product_type',
      since: end(4),
      until: end(1),
    });
    expect(split.data.map((metric) => metric.totalValue)).toEqual([
      {
        value: 60,
        breakdowns: [
          {
            dimensionKeys: ['media_product_type'],
            results: [
              { dimensionValues: ['FEED'], value: 36 },
              { dimensionValues: ['REELS'], value: 24 },
            ],
          },
        ],
      },
      {
        value: reach(1) + reach(2) + reach(3),
        breakdowns: [
          {
            dimensionKeys: ['media_product_type'],
            results: [
              { dimensionValues: ['FEED'], value: 1806 },
              { dimensionValues: ['REELS'], value: 1200 },
            ],
          },
        ],
      },
    ]);
    const lastDay = await service.insights(account, { metric: 'likes', period: 'day', metricType: 'total_value' });
    expect(lastDay.data[0]!.totalValue).toEqual({ value: likes(1) });
    expect(lastDay.window).toEqual({ since: T0_SECONDS - 86_400, until: T0_SECONDS, hasPrevious: true, hasNext: false });
    const nothing = await service.insights(account, {
      metric: 'likes',
      period: 'day',
      metricType: 'total_value',
      since: end(60),
      until: end(59),
    });
    expect(nothing.data[0]!.totalValue).toEqual({ value: 0 });
  });

  it('serves hourly online followers and demographics over a timeframe', async () => {
    current = T0;
    const online = await service.insights(account, { metric: 'online_followers', period: 'lifetime' });
    const hours = Object.fromEntries(Array.from({ length: 24 }, (_, hour) => [String(hour), hour === 0 ? 1 : hour === 13 ? 9 : 0]));
    expect(online.data[0]).toMatchObject({
      name: 'online_followers',
      period: 'lifetime',
      values: [{ value: hours, endTime: new Date(end(1) * 1000) }],
    });

    const followers = await service.insights(account, {
      metric: 'follower_demographics',
      period: 'lifetime',
      metricType: 'total_value',
      breakdown: 'country',
      timeframe: 'this_month',
      since: 'garbage is ignored',
    });
    expect(followers.data[0]!.totalValue).toEqual({
      value: 100,
      breakdowns: [
        {
          dimensionKeys: ['country'],
          results: [
            { dimensionValues: ['US'], value: 50 },
            { dimensionValues: ['BR'], value: 30 },
            { dimensionValues: ['IN'], value: 20 },
          ],
        },
      ],
    });
    expect(followers.window).toEqual({ since: T0_SECONDS - 30 * 86_400, until: T0_SECONDS, hasPrevious: false, hasNext: false });
    const engaged = await service.insights(account, {
      metric: 'engaged_audience_demographics',
      period: 'lifetime',
      metricType: 'total_value',
      breakdown: 'country',
      timeframe: 'this_week',
    });
    expect(engaged.data[0]!.totalValue).toEqual({
      value: 21,
      breakdowns: [
        {
          dimensionKeys: ['country'],
          results: [
            { dimensionValues: ['US'], value: 14 },
            { dimensionValues: ['BR'], value: 7 },
          ],
        },
      ],
    });
  });

  it('accepts strtotime times and repeated metrics', async () => {
    current = T0;
    const result = await service.insights(account, {
      metric: 'follower_count, reach,follower_count',
      period: 'day',
      since: '-3 days',
      until: 'now',
    });
    expect(result.data.map((metric) => [metric.name, metric.values!.length])).toEqual([
      ['follower_count', 3],
      ['reach', 3],
    ]);
    expect(result.window).toEqual({ since: T0_SECONDS - 3 * 86_400, until: T0_SECONDS, hasPrevious: true, hasNext: false });
  });

  it('refuses each broken rule in the platform wording', async () => {
    current = T0;
    const ask = (params: Parameters<AccountEdgesService['insights']>[1]) => service.insights(account, params);
    await expectMissing(ask({ period: 'day' }), 'metric');
    await expectMissing(ask({ metric: ' , ', period: 'day' }), 'metric');
    await expectMissing(ask({ metric: 'reach' }), 'period');
    await expectInvalid(
      ask({ metric: 'reach,reachh', period: 'day' }),
      'metric',
      '(#100) metric[1] must be one of the following values: reach, follower_count, website_clicks, profile_views, online_followers, accounts_engaged, total_interactions, likes, comments, shares, saves, replies, engaged_audience_demographics, follower_demographics, follows_and_unfollows, profile_links_taps, views, reposts',
    );
    await expectInvalid(
      ask({ metric: 'impressions', period: 'day' }),
      'metric',
      'Starting from version 22 and above, the impressions metric is no longer supported for the queried user. Please refer to the documentation for a list of supported metrics.',
    );
    await expectInvalid(
      ask({ metric: 'reach', period: 'month' }),
      'period',
      '(#100) period must be one of the following values: day, week, days_28, lifetime',
    );
    await expectInvalid(
      ask({ metric: 'reach', period: 'day', metricType: 'sum' }),
      'metric_type',
      '(#100) metric_type must be one of the following values: time_series, total_value',
    );
    await expectInvalid(
      ask({ metric: 'reach,follower_count', period: 'week' }),
      'period',
      '(#100) The following metrics (follower_count) do not support period=week',
    );
    await expectInvalid(
      ask({ metric: 'reach,likes,saves', period: 'day' }),
      'metric_type',
      '(#100) The following metrics (likes, saves) should be specified with parameter metric_type=total_value',
    );
    await expectInvalid(
      ask({ metric: 'follower_count', period: 'day', metricType: 'total_value' }),
      'metric_type',
      '(#100) The following metrics (follower_count) should be specified with parameter metric_type=time_series',
    );
    await expectInvalid(
      ask({ metric: 'likes', period: 'day', metricType: 'total_value', breakdown: 'colour' }),
      'breakdown',
      '(#100) breakdown[0] must be one of the following values: media_product_type, follow_type, follower_type, contact_button_type, age, gender, country, city',
    );
    await expectInvalid(
      ask({ metric: 'reach', period: 'day', metricType: 'total_value', breakdown: ['media_product_type', 'follow_type'] }),
      'breakdown',
      'Only one breakdown can be requested at a time.',
    );
    await expectInvalid(
      ask({ metric: 'reach', period: 'day', breakdown: 'media_product_type' }),
      'breakdown',
      '(#100) breakdown is only supported with metric_type=total_value',
    );
    await expectInvalid(
      ask({ metric: 'likes,replies', period: 'day', metricType: 'total_value', breakdown: 'media_product_type' }),
      'breakdown',
      '(#100) The following metrics (replies) do not support breakdown=media_product_type',
    );
    const demographics = { metric: 'follower_demographics', period: 'lifetime', metricType: 'total_value' };
    await expectMissing(ask({ ...demographics, timeframe: 'this_week' }), 'breakdown');
    await expectMissing(ask({ ...demographics, breakdown: 'age' }), 'timeframe');
    await expectInvalid(
      ask({ ...demographics, breakdown: 'age', timeframe: 'last_30_days' }),
      'timeframe',
      '(#100) timeframe must be one of the following values: this_week, this_month',
    );

    await expectInvalid(
      ask({ metric: 'reach', period: 'day', since: end(1), until: end(1) }),
      'since',
      '(#100) The parameter since must be earlier than until',
    );
    await expectInvalid(
      ask({ metric: 'reach', period: 'day', since: end(1), until: end(2) }),
      'since',
      '(#100) The parameter since must be earlier than until',
    );
    await expectInvalid(
      ask({ metric: 'reach', period: 'day', since: end(40), until: end(40) + 30 * 86_400 + 1 }),
      'since',
      '(#100) There cannot be more than 30 days (2592000 s) between since and until',
    );
    expect((await ask({ metric: 'reach', period: 'day', since: end(31), until: end(1) })).data[0]!.values).toHaveLength(30);
    await expectInvalid(
      ask({ metric: 'reach', period: 'day', since: '-40 days' }),
      'since',
      '(#100) There cannot be more than 30 days (2592000 s) between since and until',
    );
    await expectInvalid(
      ask({ metric: 'reach', period: 'day', since: T0_SECONDS - 731 * 86_400, until: T0_SECONDS - 730 * 86_400 }),
      'since',
      '(#100) since param is not valid. Metrics data is available for the last 2 years.',
    );
    await expectInvalid(
      ask({ metric: 'reach', period: 'day', since: 'whenever' }),
      'since',
      '(#100) The parameter since must be a unix timestamp or a strtotime-style time',
    );
    await expectInvalid(
      ask({ metric: 'reach', period: 'day', until: 'garbage' }),
      'until',
      '(#100) The parameter until must be a unix timestamp or a strtotime-style time',
    );
    await expectUnknown(service.insights('0', { metric: 'reach', period: 'day' }), '0', 'get');
  });

  it('offers no previous window past the two years of data', async () => {
    current = T0;
    const since = T0_SECONDS - 729 * 86_400;
    const early = await service.insights(account, { metric: 'reach', period: 'day', since, until: since + 2 * 86_400 });
    expect(early.window).toEqual({ since, until: since + 2 * 86_400, hasPrevious: false, hasNext: true });
    const later = await service.insights(account, { metric: 'reach', period: 'day', since: since + 86_400, until: since + 2 * 86_400 });
    expect(later.window.hasPrevious).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------------------------------

describe('demo data', () => {
  it('fills every edge deterministically, and a second run changes nothing', async () => {
    current = T0;
    const demo = await newAccount('demo_account');
    const first = await seedDemoEdges({ db, codec, now: clock }, demo);
    expect(first.eventIds).toHaveLength(3);
    expect(first.hashtags.map((tag) => tag.name)).toEqual(['coffee', 'latteart', 'specialtycoffee', 'baristalife', 'pourover']);
    expect(first.agencyIds).toHaveLength(2);
    expect(first.adAccountIds).toHaveLength(4);
    expect(first.authorizedAdAccountIds).toEqual([first.adAccountIds[0], first.adAccountIds[2]]);
    expect(first.insightDays).toBe(35);

    const events = await service.listUpcomingEvents(demo, {});
    expect(events.items.map((event) => [event.title, event.startTime])).toEqual([
      ['Spring collection live launch', new Date(T0.getTime() + 2 * DAY)],
      ['Behind the scenes Q&A', new Date(T0.getTime() + 5 * DAY)],
      ['Studio open day', new Date(T0.getTime() + 12 * DAY)],
    ]);
    expect((await service.recentlySearchedHashtags(demo)).map((tag) => tag.name)).toEqual([
      'coffee',
      'latteart',
      'specialtycoffee',
      'baristalife',
      'pourover',
    ]);
    expect((await service.agencies(demo, {})).items.map((business) => business.name)).toEqual([
      'Northwind Creative Agency',
      'Blue Harbor Media',
    ]);
    expect((await service.authorizedAdAccounts(demo, undefined, {})).items.map((ad) => [ad.id, ad.name, ad.currency])).toEqual([
      [first.adAccountIds[0], 'Northwind Creative Agency — Main', 'USD'],
      [first.adAccountIds[2], 'Blue Harbor Media — Main', 'EUR'],
    ]);

    const stored = () =>
      db
        .selectFrom('social.insight_value')
        .select(['metric', 'end_time', 'value', 'breakdown'])
        .where('account_id', '=', demo)
        .orderBy('metric')
        .orderBy('end_time')
        .execute();
    const rows = await stored();
    expect(rows).toHaveLength(35 * ACCOUNT_METRICS.length);
    expect(rows.filter((row) => row.metric === 'reach').map((row) => row.end_time.getTime() / 1000)).toEqual(
      Array.from({ length: 35 }, (_, i) => MIDNIGHT - (34 - i) * 86_400),
    );
    for (const row of rows.filter((row) => row.breakdown !== null && row.metric !== 'online_followers')) {
      for (const parts of Object.values(row.breakdown!)) {
        expect(Object.values(parts).reduce((a, b) => a + b, 0)).toBe(Number(row.value));
      }
    }
    const online = rows.find((row) => row.metric === 'online_followers')!;
    expect(Object.keys(online.breakdown!.hour!)).toHaveLength(24);
    const totals = await service.insights(demo, {
      metric: 'views',
      period: 'day',
      metricType: 'total_value',
      breakdown: 'media_product_type',
      since: '-7 days',
    });
    expect(totals.data[0]!.totalValue!.value).toBeGreaterThan(0);

    const searches = () =>
      db
        .selectFrom('social.hashtag_search')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('account_id', '=', demo)
        .executeTakeFirstOrThrow();
    const searchCount = (await searches()).n;
    current = new Date(T0.getTime() + 60_000);
    const second = await seedDemoEdges({ db, codec, now: clock }, demo);
    expect(second.eventIds).toEqual(first.eventIds);
    expect(second.agencyIds).toEqual(first.agencyIds);
    expect(second.adAccountIds).toEqual(first.adAccountIds);
    expect(second.hashtags).toEqual(first.hashtags);
    expect((await searches()).n).toBe(searchCount);
    expect(await stored()).toEqual(rows);
    expect((await service.authorizedAdAccounts(demo, undefined, {})).items).toHaveLength(2);

    // Another account gets values of its own.
    const another = await newAccount('demo_other');
    await seedDemoEdges({ db, codec, now: clock }, another, { insightDays: 2 });
    const theirs = await db
      .selectFrom('social.insight_value')
      .select('value')
      .where('account_id', '=', another)
      .where('metric', '=', 'reach')
      .orderBy('end_time')
      .execute();
    expect(theirs).toHaveLength(2);
    expect(theirs.map((row) => row.value)).not.toEqual(
      rows
        .filter((row) => row.metric === 'reach')
        .slice(-2)
        .map((row) => row.value),
    );
    await expectUnknown(seedDemoEdges({ db, codec, now: clock }, missingId('account')), missingId('account'), 'post');
  });
});
