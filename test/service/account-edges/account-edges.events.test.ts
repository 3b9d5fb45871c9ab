import { beforeAll, describe, expect, it } from 'vitest';
import { isSocialId } from '../../../lib/social-graph/social-ids.ts';
import { insertAdAccount, insertAgency } from '../../../subgraphs/accounts/account-edges.repository.ts';
import type { UpcomingEvent } from '../../../subgraphs/accounts/account-edges/account-edges.types.ts';
import {
  HOUR,
  DAY,
  T0,
  T0_SECONDS,
  db,
  setClock,
  codec,
  service,
  newAccount,
  newBusiness,
  rejection,
  expectMissing,
  expectInvalid,
  expectUnknown,
  missingId,
  useAccountEdgesDatabase,
} from '../../support/account-edges-service-world.ts';

/** The account edges' service against a real database (test/support/account-edges-service-world.ts): upcoming events, recently searched hashtags, agencies and authorized ad accounts. */

useAccountEdgesDatabase();

describe('upcoming events', () => {
  let owner: string;
  beforeAll(async () => {
    setClock(T0);
    owner = await newAccount('events_owner');
  });

  it('creates an event from ISO and unix times, keeping whole seconds and each subtype once', async () => {
    setClock(T0);
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
    setClock(T0);
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
    setClock(T0);
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
    setClock(T0);
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
      setClock(new Date(T0.getTime() + at));
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
    setClock(T0);
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
    setClock(T0);
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
    setClock(T0);
    for (let index = 0; index < 30; index += 1) {
      setClock(new Date(T0.getTime() + index * 1000));
      await service.recordHashtagSearch(limited, `tag${index}`);
    }
    setClock(new Date(T0.getTime() + 6 * DAY));
    expect(await rejection(service.recordHashtagSearch(limited, 'tag30'))).toMatchObject({
      code: 'RESOURCE_EXHAUSTED',
      message: '(#613) Calls to this api have exceeded the rate limit. An account can search at most 30 unique hashtags within 7 days.',
      details: { reason: 'RATE_LIMITED', scope: 'custom' },
    });
    expect((await service.recordHashtagSearch(limited, 'tag7')).name).toBe('tag7');
    // Once the first search is more than 7 days old, there is room for one more.
    setClock(new Date(T0.getTime() + 7 * DAY));
    expect((await service.recordHashtagSearch(limited, 'tag30')).name).toBe('tag30');
    await expect(service.recordHashtagSearch(limited, 'tag31')).rejects.toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
  });

  it('refuses empty and malformed hashtags', async () => {
    setClock(T0);
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
    setClock(T0);
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
    setClock(T0);
    expect(isSocialId(main, 'adAccount')).toBe(true);
    expect(await service.authorizeAdAccount(account, { adAccountId: `act_${main}`, businessId: northwind })).toBe(true);
    setClock(new Date(T0.getTime() + HOUR));
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
