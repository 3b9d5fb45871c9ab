import { beforeAll, describe, expect, it } from 'vitest';
import {
  acme,
  acmeAdAccount,
  ALL_SUBTYPES,
  bluebottle,
  blueHarbor,
  blueHarborMain,
  CURSOR,
  DAY,
  expectOk,
  fixture,
  getOwn,
  getParent,
  gql,
  gqlInvalidParameter,
  gqlMissingParameter,
  gqlMissingPermission,
  gqlNotAllowed,
  gqlUnknownField,
  graphTime,
  HOUR,
  isoTime,
  link,
  northwind,
  northwindExperiments,
  northwindMain,
  parent,
  PARENT_ALL,
  parentToken,
  postOwn,
  postParent,
  roaster,
  SECOND,
  system,
  T0,
  tokenFor,
  unusedId,
  useAccountEdgesWorld,
  withQuery,
} from '../../support/account-edges-world.ts';
import {
  type ExpectedGraphError,
  expectGraphError,
  invalidParameter,
  missingParameter,
  missingPermission,
  notAllowed,
  unknownField,
  unsupported,
} from '../../support/graph-error-expectations.ts';

/** Account edges over REST and GraphQL: upcoming_events, agencies and authorized_adaccounts, and their field expansion (clock at T0). */

const clock = T0;
const now = () => new Date(clock);
useAccountEdgesWorld(now);

// =====================================================================================================================
// upcoming_events (clock: T0; the demo events start at T0 + 2 d, + 5 d, + 12 d)

describe('upcoming_events (parent-platform host only)', () => {
  let springLaunch: Record<string, unknown>;
  let qAndA: Record<string, unknown>;
  let openDay: Record<string, unknown>;

  beforeAll(() => {
    const [e1, e2, e3] = fixture.edges.eventIds;
    springLaunch = {
      id: e1,
      title: 'Spring collection live launch',
      start_time: graphTime(T0 + 2 * DAY),
      end_time: graphTime(T0 + 2 * DAY + HOUR),
      notification_subtypes: ['BEFORE_EVENT_1DAY', 'EVENT_START'],
      notification_target_time: 'EVENT_START',
    };
    qAndA = {
      id: e2,
      title: 'Behind the scenes Q&A',
      start_time: graphTime(T0 + 5 * DAY),
      end_time: graphTime(T0 + 5 * DAY + 1.5 * HOUR),
      notification_subtypes: ['BEFORE_EVENT_15MIN', 'AFTER_EVENT_1DAY'],
      notification_target_time: 'EVENT_END',
    };
    // No end time and no target time: the keys are left out.
    openDay = { id: e3, title: 'Studio open day', start_time: graphTime(T0 + 12 * DAY), notification_subtypes: ['BEFORE_EVENT_2DAY'] };
  });

  it('lists the events with every field by default, soonest first', async () => {
    const reply = await getParent(`/v25.0/${bluebottle}/upcoming_events`);
    expectOk(reply);
    expect(reply.body).toEqual({
      data: [springLaunch, qAndA, openDay],
      paging: { cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) } },
    });
  });

  it('renders only the requested fields (plus id)', async () => {
    const reply = await getParent(`/${bluebottle}/upcoming_events`, { fields: 'title,start_time' });
    expectOk(reply);
    expect(reply.body.data).toEqual([springLaunch, qAndA, openDay].map(({ id, title, start_time }) => ({ title, start_time, id })));
  });

  it('walks the list with limit=1 following next verbatim, then back with previous', async () => {
    const token = await parentToken();
    const path = `/v25.0/${bluebottle}/upcoming_events`;
    const first = await parent.request('GET', withQuery(path, { access_token: token, limit: '1' }));
    expectOk(first);
    expect(first.body).toEqual({
      data: [springLaunch],
      paging: {
        cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) },
        next: link(system.socialParentUrl, path, [
          ['access_token', token],
          ['limit', '1'],
          ['after', first.body.paging.cursors.after],
        ]),
      },
    });
    const second = await parent.request('GET', first.body.paging.next);
    expectOk(second);
    expect(second.body.data).toEqual([qAndA]);
    expect(second.body.paging.previous).toBe(
      link(system.socialParentUrl, path, [
        ['access_token', token],
        ['limit', '1'],
        ['before', second.body.paging.cursors.before],
      ]),
    );
    const third = await parent.request('GET', second.body.paging.next);
    expectOk(third);
    expect(third.body.data).toEqual([openDay]);
    expect(third.body.paging.next).toBeUndefined();

    const backToSecond = await parent.request('GET', third.body.paging.previous);
    expectOk(backToSecond);
    expect(backToSecond.body.data).toEqual([qAndA]);
    const backToFirst = await parent.request('GET', backToSecond.body.paging.previous);
    expectOk(backToFirst);
    expect(backToFirst.body.data).toEqual([springLaunch]);
    expect(backToFirst.body.paging.previous).toBeUndefined();
    expect(backToFirst.body.paging.next).toBeDefined();
  });

  it('does not exist on the own-login host: GET and POST, by id and under /me', async () => {
    const expected = unknownField('upcoming_events');
    expectGraphError(await getOwn(`/${bluebottle}/upcoming_events`), expected);
    expectGraphError(await getOwn('/me/upcoming_events'), expected);
    expectGraphError(await postOwn(`/${bluebottle}/upcoming_events`, { title: 'Nope', start_time: isoTime(T0 + DAY) }), expected);
    expectGraphError(await postOwn('/me/upcoming_events', { title: 'Nope', start_time: isoTime(T0 + DAY) }), expected);
  });

  it('needs the account’s page to belong to a business: roaster’s page has none (#10)', async () => {
    expectGraphError(await getParent(`/${roaster}/upcoming_events`), notAllowed);
    expectGraphError(await postParent(`/${roaster}/upcoming_events`, { title: 'Roast-along', start_time: isoTime(T0 + DAY) }), notAllowed);
  });

  it('creates an event (ISO times, comma-listed subtypes) and lists it in start-time order with every field', async () => {
    const created = await postParent(`/v25.0/${bluebottle}/upcoming_events`, {
      title: 'Tasting night',
      start_time: isoTime(T0 + 3 * DAY),
      end_time: isoTime(T0 + 3 * DAY + 2 * HOUR),
      notification_subtypes: 'BEFORE_EVENT_1DAY,EVENT_START',
      notification_target_time: 'EVENT_START',
    });
    expectOk(created);
    expect(created.body).toEqual({ id: expect.stringMatching(/^\d{17,19}$/) });
    expect(Object.keys(created.body)).toEqual(['id']);

    const list = await getParent(`/${bluebottle}/upcoming_events`);
    expectOk(list);
    expect(list.body.data).toEqual([
      springLaunch,
      {
        id: created.body.id,
        title: 'Tasting night',
        start_time: graphTime(T0 + 3 * DAY),
        end_time: graphTime(T0 + 3 * DAY + 2 * HOUR),
        notification_subtypes: ['BEFORE_EVENT_1DAY', 'EVENT_START'],
        notification_target_time: 'EVENT_START',
      },
      qAndA,
      openDay,
    ]);
  });

  it('takes unix seconds and a JSON list of subtypes (a repeated subtype kept once), and needs only title and start_time', async () => {
    const start = T0 + 20 * DAY;
    const created = await postParent(`/${bluebottle}/upcoming_events`, {
      title: '  Harvest party  ',
      start_time: String(start / SECOND),
      notification_subtypes: ['RESCHEDULED', 'BEFORE_EVENT_1HOUR', 'RESCHEDULED'],
    });
    expectOk(created);
    const bare = await postParent(`/${bluebottle}/upcoming_events`, { title: 'Bare event', start_time: isoTime(start + DAY) });
    expectOk(bare);
    const list = await getParent(`/${bluebottle}/upcoming_events`);
    expect(list.body.data.slice(-2)).toEqual([
      {
        id: created.body.id,
        title: 'Harvest party',
        start_time: graphTime(start),
        notification_subtypes: ['RESCHEDULED', 'BEFORE_EVENT_1HOUR'],
      },
      { id: bare.body.id, title: 'Bare event', start_time: graphTime(start + DAY), notification_subtypes: [] },
    ]);
  });

  it.each<[string, Record<string, unknown>, ExpectedGraphError]>([
    ['title missing', { start_time: isoTime(T0 + DAY) }, missingParameter('title')],
    ['a blank title', { title: '   ', start_time: isoTime(T0 + DAY) }, missingParameter('title')],
    [
      'a title over 255 characters',
      { title: 'x'.repeat(256), start_time: isoTime(T0 + DAY) },
      invalidParameter('The title can have at most 255 characters.'),
    ],
    ['start_time missing', { title: 'No start' }, missingParameter('start_time')],
    [
      'an unreadable start_time',
      { title: 'Bad start', start_time: 'next friday-ish' },
      invalidParameter('start_time must be an ISO 8601 time or a unix timestamp.'),
    ],
    ['a start_time in the past', { title: 'Past', start_time: isoTime(T0 - HOUR) }, invalidParameter('start_time must be in the future.')],
    [
      'an end_time before start_time',
      { title: 'Backwards', start_time: isoTime(T0 + 2 * DAY), end_time: isoTime(T0 + DAY) },
      invalidParameter('end_time must be after start_time.'),
    ],
    [
      'an unknown notification subtype',
      { title: 'Bad reminder', start_time: isoTime(T0 + DAY), notification_subtypes: 'EVENT_START,BEFORE_EVENT_3WEEKS' },
      invalidParameter(`(#100) notification_subtypes[1] must be one of the following values: ${ALL_SUBTYPES}`),
    ],
    [
      'an unknown notification target time',
      { title: 'Bad target', start_time: isoTime(T0 + DAY), notification_target_time: 'EVENT_MIDDLE' },
      invalidParameter('(#100) notification_target_time must be one of the following values: EVENT_START, EVENT_END'),
    ],
    [
      'EVENT_END as target time without an end_time',
      { title: 'No end', start_time: isoTime(T0 + DAY), notification_target_time: 'EVENT_END' },
      invalidParameter('notification_target_time EVENT_END needs an end_time.'),
    ],
  ])('refuses %s', async (_name, body, expected) => {
    expectGraphError(await postParent(`/${bluebottle}/upcoming_events`, body), expected);
  });

  describe('GraphQL', () => {
    const LIST = `query Events($id: ID!, $first: Int, $after: String) {
      account(id: $id) { upcomingEvents(first: $first, after: $after) { nodes { id title startTime endTime notificationSubtypes notificationTargetTime } pageInfo { endCursor hasNextPage hasPreviousPage } } }
    }`;
    const CREATE = `mutation Create($id: ID!, $input: UpcomingEventInput!) {
      createUpcomingEvent(accountId: $id, input: $input) { id title startTime endTime notificationSubtypes notificationTargetTime }
    }`;

    it('lists and pages the events', async () => {
      const token = await parentToken();
      const first = await gql(LIST, { id: bluebottle, first: 1 }, token);
      expect(first.errors).toBeUndefined();
      expect(first.data.account.upcomingEvents).toEqual({
        nodes: [
          {
            id: springLaunch.id,
            title: 'Spring collection live launch',
            startTime: isoTime(T0 + 2 * DAY),
            endTime: isoTime(T0 + 2 * DAY + HOUR),
            notificationSubtypes: ['BEFORE_EVENT_1DAY', 'EVENT_START'],
            notificationTargetTime: 'EVENT_START',
          },
        ],
        pageInfo: { endCursor: expect.stringMatching(CURSOR), hasNextPage: true, hasPreviousPage: false },
      });
      const second = await gql(LIST, { id: bluebottle, first: 1, after: first.data.account.upcomingEvents.pageInfo.endCursor }, token);
      expect(second.data.account.upcomingEvents.nodes.map((node: { title: string }) => node.title)).toEqual(['Tasting night']);
    });

    it('creates an event', async () => {
      const reply = await gql(
        CREATE,
        { id: bluebottle, input: { title: 'GraphQL meetup', startTime: isoTime(T0 + 4 * DAY), notificationSubtypes: ['EVENT_START'] } },
        await parentToken(),
      );
      expect(reply.errors).toBeUndefined();
      expect(reply.data.createUpcomingEvent).toEqual({
        id: expect.stringMatching(/^\d{17,19}$/),
        title: 'GraphQL meetup',
        startTime: isoTime(T0 + 4 * DAY),
        endTime: null,
        notificationSubtypes: ['EVENT_START'],
        notificationTargetTime: null,
      });
    });

    it('reports errors with extensions: missing start_time, bad subtype, own-login host, page without business, missing permission', async () => {
      const token = await parentToken();
      expect((await gql(CREATE, { id: bluebottle, input: { title: 'x' } }, token)).errors).toEqual([
        gqlMissingParameter(['createUpcomingEvent'], 'start_time'),
      ]);
      expect(
        (await gql(CREATE, { id: bluebottle, input: { title: 'x', startTime: isoTime(T0 + DAY), notificationSubtypes: ['SOON'] } }, token))
          .errors,
      ).toEqual([
        gqlInvalidParameter(
          ['createUpcomingEvent'],
          'notification_subtypes',
          `(#100) notification_subtypes[0] must be one of the following values: ${ALL_SUBTYPES}`,
        ),
      ]);
      expect((await gql(CREATE, { id: bluebottle, input: { title: 'x', startTime: isoTime(T0 + DAY) } })).errors).toEqual([
        gqlUnknownField(['createUpcomingEvent'], 'upcoming_events'),
      ]);
      expect((await gql(LIST, { id: bluebottle })).errors).toEqual([gqlUnknownField(['account', 'upcomingEvents'], 'upcoming_events')]);
      expect((await gql(LIST, { id: roaster }, token)).errors).toEqual([gqlNotAllowed(['account', 'upcomingEvents'])]);
      const withoutEvents = await tokenFor(
        'parent',
        fixture.platformUsers.ana,
        PARENT_ALL.filter((p) => p !== 'social_manage_upcoming_events'),
      );
      expect((await gql(CREATE, { id: bluebottle, input: { title: 'x', startTime: isoTime(T0 + DAY) } }, withoutEvents)).errors).toEqual([
        gqlMissingPermission(['createUpcomingEvent'], 'social_manage_upcoming_events'),
      ]);
    });
  });
});

// =====================================================================================================================
// agencies and authorized_adaccounts (clock: T0)

describe('agencies and authorized_adaccounts (parent-platform host only)', () => {
  const adAccount = (id: string) => ({ id, account_id: id.slice(4) });

  it('lists the agencies as {id, name}', async () => {
    const reply = await getParent(`/v25.0/${bluebottle}/agencies`);
    expectOk(reply);
    expect(reply.body).toEqual({
      data: [
        { id: northwind, name: 'Northwind Creative Agency' },
        { id: blueHarbor, name: 'Blue Harbor Media' },
      ],
      paging: { cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) } },
    });
  });

  it('pages the agencies with limit=1', async () => {
    const first = await getParent(`/${bluebottle}/agencies`, { limit: '1' });
    expectOk(first);
    expect(first.body.data).toEqual([{ id: northwind, name: 'Northwind Creative Agency' }]);
    const second = await parent.request('GET', first.body.paging.next, { token: await parentToken() });
    expectOk(second);
    expect(second.body.data).toEqual([{ id: blueHarbor, name: 'Blue Harbor Media' }]);
    expect(second.body.paging.next).toBeUndefined();
  });

  it('lists the authorised ad accounts as {id: act_…, account_id} by default, and more fields when asked', async () => {
    const reply = await getParent(`/${bluebottle}/authorized_adaccounts`);
    expectOk(reply);
    expect(reply.body).toEqual({
      data: [adAccount(northwindMain), adAccount(blueHarborMain)],
      paging: { cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) } },
    });
    const detailed = await getParent(`/${bluebottle}/authorized_adaccounts`, { fields: 'name,currency,timezone_name,account_status' });
    expectOk(detailed);
    expect(detailed.body.data).toEqual([
      {
        name: 'Northwind Creative Agency — Main',
        currency: 'USD',
        timezone_name: 'America/Los_Angeles',
        account_status: 1,
        id: northwindMain,
      },
      { name: 'Blue Harbor Media — Main', currency: 'EUR', timezone_name: 'Europe/Amsterdam', account_status: 1, id: blueHarborMain },
    ]);
  });

  it('filters by business', async () => {
    const onlyBlueHarbor = await getParent(`/${bluebottle}/authorized_adaccounts`, { business: blueHarbor });
    expectOk(onlyBlueHarbor);
    expect(onlyBlueHarbor.body.data).toEqual([adAccount(blueHarborMain)]);
    const none = await getParent(`/${bluebottle}/authorized_adaccounts`, { business: acme });
    expectOk(none);
    expect(none.body).toEqual({ data: [] });
  });

  it('answers 100/33 for a business that does not exist', async () => {
    const missing = unusedId(acme);
    expectGraphError(await getParent(`/${bluebottle}/authorized_adaccounts`, { business: missing }), unsupported('get', missing));
    expectGraphError(await getParent(`/${bluebottle}/authorized_adaccounts`, { business: 'acme' }), unsupported('get', 'acme'));
  });

  it('do not exist on the own-login host', async () => {
    expectGraphError(await getOwn(`/${bluebottle}/agencies`), unknownField('agencies'));
    expectGraphError(await getOwn('/me/authorized_adaccounts'), unknownField('authorized_adaccounts'));
    expectGraphError(
      await postOwn('/me/authorized_adaccounts', { account_id: acmeAdAccount, business: acme }),
      unknownField('authorized_adaccounts'),
    );
  });

  describe('POST authorized_adaccounts', () => {
    it('refuses a missing business with (#100) The parameter business is required', async () => {
      expectGraphError(
        await postParent(`/${bluebottle}/authorized_adaccounts`, { account_id: acmeAdAccount }),
        missingParameter('business'),
      );
    });

    it('refuses a missing account_id', async () => {
      expectGraphError(await postParent(`/${bluebottle}/authorized_adaccounts`, { business: acme }), missingParameter('account_id'));
    });

    it('refuses with #10 when the app user is not an admin of the business', async () => {
      // ana administers Acme Holdings only; Northwind's ad account is Northwind's to authorise.
      expectGraphError(
        await postParent(`/${bluebottle}/authorized_adaccounts`, { account_id: northwindExperiments, business: northwind }),
        notAllowed,
      );
    });

    it('refuses with 100 an ad account that belongs to another business', async () => {
      expectGraphError(
        await postParent(`/${bluebottle}/authorized_adaccounts`, { account_id: northwindExperiments, business: acme }),
        invalidParameter(`The ad account ${northwindExperiments} does not belong to the business ${acme}.`),
      );
    });

    it('answers {success: true}, lists the ad account afterwards, and takes the id without act_ too', async () => {
      const reply = await postParent(`/v25.0/${bluebottle}/authorized_adaccounts`, { account_id: acmeAdAccount, business: acme });
      expectOk(reply);
      expect(reply.body).toEqual({ success: true });
      const again = await postParent(`/${bluebottle}/authorized_adaccounts`, { account_id: acmeAdAccount.slice(4), business: acme });
      expectOk(again);
      expect(again.body).toEqual({ success: true });

      const list = await getParent(`/${bluebottle}/authorized_adaccounts`);
      expect(list.body.data).toEqual([adAccount(northwindMain), adAccount(blueHarborMain), adAccount(acmeAdAccount)]);
      const acmeOnly = await getParent(`/${bluebottle}/authorized_adaccounts`, { business: acme, fields: 'name' });
      expect(acmeOnly.body.data).toEqual([{ name: 'Acme Holdings — In-house', id: acmeAdAccount }]);
    });
  });

  describe('GraphQL', () => {
    const QUERY = `query Ads($id: ID!, $business: ID) {
      account(id: $id) {
        agencies { nodes { id name } }
        authorizedAdAccounts(business: $business) { nodes { id accountId name currency timezoneName accountStatus } }
      }
    }`;
    const AUTHORIZE = `mutation Authorize($id: ID!, $adAccountId: ID, $business: ID) { authorizeAdAccount(accountId: $id, adAccountId: $adAccountId, business: $business) { success } }`;

    it('reads agencies and the ad accounts of one business', async () => {
      const reply = await gql(QUERY, { id: bluebottle, business: northwind }, await parentToken());
      expect(reply.errors).toBeUndefined();
      expect(reply.data).toEqual({
        account: {
          agencies: {
            nodes: [
              { id: northwind, name: 'Northwind Creative Agency' },
              { id: blueHarbor, name: 'Blue Harbor Media' },
            ],
          },
          authorizedAdAccounts: {
            nodes: [
              {
                id: northwindMain,
                accountId: northwindMain.slice(4),
                name: 'Northwind Creative Agency — Main',
                currency: 'USD',
                timezoneName: 'America/Los_Angeles',
                accountStatus: 1,
              },
            ],
          },
        },
      });
    });

    it('authorises an ad account, and reports the business rules with extensions', async () => {
      const token = await parentToken();
      const ok = await gql(AUTHORIZE, { id: bluebottle, adAccountId: acmeAdAccount, business: acme }, token);
      expect(ok.errors).toBeUndefined();
      expect(ok.data).toEqual({ authorizeAdAccount: { success: true } });
      expect((await gql(AUTHORIZE, { id: bluebottle, adAccountId: acmeAdAccount }, token)).errors).toEqual([
        gqlMissingParameter(['authorizeAdAccount'], 'business'),
      ]);
      expect((await gql(AUTHORIZE, { id: bluebottle, adAccountId: northwindExperiments, business: northwind }, token)).errors).toEqual([
        gqlNotAllowed(['authorizeAdAccount']),
      ]);
      expect((await gql(AUTHORIZE, { id: bluebottle, adAccountId: northwindExperiments, business: acme }, token)).errors).toEqual([
        gqlInvalidParameter(
          ['authorizeAdAccount'],
          'account_id',
          `The ad account ${northwindExperiments} does not belong to the business ${acme}.`,
        ),
      ]);
      expect((await gql(AUTHORIZE, { id: bluebottle, adAccountId: acmeAdAccount, business: acme })).errors).toEqual([
        gqlUnknownField(['authorizeAdAccount'], 'authorized_adaccounts'),
      ]);
      const noAds = await tokenFor(
        'parent',
        fixture.platformUsers.ana,
        PARENT_ALL.filter((p) => p !== 'ads_management' && p !== 'business_management'),
      );
      expect((await gql(AUTHORIZE, { id: bluebottle, adAccountId: acmeAdAccount, business: acme }, noAds)).errors).toEqual([
        gqlMissingPermission(['authorizeAdAccount'], 'ads_management'),
      ]);
    });
  });
});

// =====================================================================================================================
// field expansion of these edges on the account node (clock: T0)

describe('field expansion of upcoming_events, agencies and authorized_adaccounts', () => {
  it('expands the three edges in one read, with .limit(), {…} and .business(<id>), and a next link on the edge’s own path', async () => {
    const token = await parentToken();
    const fields = `upcoming_events.limit(1){title},agencies{name},authorized_adaccounts.business(${northwind}){id}`;
    const reply = await parent.request('GET', withQuery(`/v25.0/${bluebottle}`, { access_token: token, fields }));
    expectOk(reply);
    expect(reply.body).toEqual({
      upcoming_events: {
        data: [{ title: 'Spring collection live launch', id: fixture.edges.eventIds[0] }],
        paging: {
          cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) },
          next: expect.any(String),
        },
      },
      agencies: {
        data: [
          { name: 'Northwind Creative Agency', id: northwind },
          { name: 'Blue Harbor Media', id: blueHarbor },
        ],
        paging: { cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) } },
      },
      authorized_adaccounts: {
        data: [{ id: northwindMain }],
        paging: { cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) } },
      },
      id: bluebottle,
    });
    const after = reply.body.upcoming_events.paging.cursors.after;
    expect(reply.body.upcoming_events.paging.next).toBe(
      link(system.socialParentUrl, `/v25.0/${bluebottle}/upcoming_events`, [
        ['access_token', token],
        ['fields', 'title'],
        ['limit', '1'],
        ['after', after],
      ]),
    );
    const next = await parent.request('GET', reply.body.upcoming_events.paging.next);
    expectOk(next);
    // The second event by start time: "Tasting night" was created above at T0 + 3 d.
    expect(next.body.data).toEqual([{ title: 'Tasting night', id: expect.any(String) }]);
  });

  it('refuses these edges on the own-login host as unknown fields of the account', async () => {
    expectGraphError(await getOwn(`/${bluebottle}`, { fields: 'username,agencies{name}' }), unknownField('agencies'));
    expectGraphError(await getOwn('/me', { fields: 'upcoming_events.limit(1){title}' }), unknownField('upcoming_events'));
    expectGraphError(
      await getOwn('/me', { fields: `authorized_adaccounts.business(${northwind}){id}` }),
      unknownField('authorized_adaccounts'),
    );
  });

  it('refuses an unknown field inside an expanded edge with the edge’s node type', async () => {
    expectGraphError(await getParent(`/${bluebottle}`, { fields: 'upcoming_events{venue}' }), unknownField('venue', 'UpcomingEvent'));
    expectGraphError(await getParent(`/${bluebottle}`, { fields: 'agencies{budget}' }), unknownField('budget', 'Business'));
  });

  it('applies the permission of each expanded edge', async () => {
    const noEvents = await tokenFor(
      'parent',
      fixture.platformUsers.ana,
      PARENT_ALL.filter((p) => p !== 'social_manage_upcoming_events'),
    );
    const reply = await parent.request('GET', withQuery(`/${bluebottle}`, { fields: 'agencies{name},upcoming_events{title}' }), {
      token: noEvents,
    });
    expectGraphError(reply, missingPermission('social_manage_upcoming_events'));
  });
});
