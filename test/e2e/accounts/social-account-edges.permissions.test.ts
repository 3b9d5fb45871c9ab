import { beforeAll, describe, expect, it } from 'vitest';
import {
  acme,
  acmeAdAccount,
  bluebottle,
  DAY,
  expectOk,
  fixture,
  isoTime,
  moderator,
  own,
  OWN_ALL,
  ownToken,
  parent,
  PARENT_ALL,
  postOwn,
  T0,
  tokenFor,
  useAccountEdgesWorld,
  withQuery,
} from '../../support/account-edges-world.ts';
import { expectGraphError, missingPermission, notAllowed, unknownField, unsupported } from '../../support/graph-error-expectations.ts';
import type { RestClient, RestReply } from '../../support/rest-client.ts';

/** The permission matrix of the account edges' operations, on both hosts and through GraphQL (clock at T0). */

const clock = T0;
const now = () => new Date(clock);
useAccountEdgesWorld(now);

// =====================================================================================================================
// the permission matrix of these operations (clock: T0 + 30 s)

describe('permissions', () => {
  interface Operation {
    name: string;
    /** Each group must be met; a group is met by any one of its permissions (written out from §2.2 and §4). */
    own: string[][] | null;
    parent: string[][];
    /** Parent host: a business-manager page role also needs ads_management or ads_read ("BM"). */
    businessManager: boolean;
    send: (client: RestClient, token: string) => Promise<RestReply>;
  }

  let finished: string;
  beforeAll(async () => {
    finished = (await postOwn(`/${bluebottle}/media`, { image_url: 'https://cdn.example.com/photos/perm.jpg' })).body.id;
  });

  const get =
    (path: string, params: Record<string, string> = {}) =>
    (client: RestClient, token: string) =>
      client.request('GET', withQuery(path, params), { token });
  const post = (path: string, body: () => Record<string, unknown>) => (client: RestClient, token: string) =>
    client.request('POST', path, { token, json: body() });

  const operations = (): Operation[] => [
    {
      name: 'GET insights',
      own: [['social_business_basic'], ['social_business_manage_insights']],
      parent: [['social_basic'], ['social_manage_insights'], ['pages_read_engagement', 'pages_show_list']],
      businessManager: true,
      send: get(`/${bluebottle}/insights`, { metric: 'reach', period: 'day' }),
    },
    {
      name: 'GET content_publishing_limit',
      own: [['social_business_basic'], ['social_business_content_publish']],
      parent: [['social_basic'], ['social_content_publish'], ['pages_read_engagement']],
      businessManager: true,
      send: get(`/${bluebottle}/content_publishing_limit`),
    },
    {
      name: 'POST media',
      own: [['social_business_basic'], ['social_business_content_publish']],
      parent: [['social_basic'], ['social_content_publish'], ['pages_read_engagement', 'pages_show_list']],
      businessManager: true,
      send: post(`/${bluebottle}/media`, () => ({ image_url: 'https://cdn.example.com/photos/perm.jpg' })),
    },
    {
      name: 'POST media_publish',
      own: [['social_business_basic'], ['social_business_content_publish']],
      parent: [['social_basic'], ['social_content_publish'], ['pages_read_engagement', 'pages_show_list']],
      businessManager: true,
      send: post(`/${bluebottle}/media_publish`, () => ({ creation_id: finished })),
    },
    {
      name: 'GET recently_searched_hashtags',
      own: null,
      parent: [['social_basic']],
      businessManager: true,
      send: get(`/${bluebottle}/recently_searched_hashtags`),
    },
    {
      name: 'GET upcoming_events',
      own: null,
      parent: [['social_basic'], ['social_manage_upcoming_events']],
      businessManager: false,
      send: get(`/${bluebottle}/upcoming_events`),
    },
    {
      name: 'POST upcoming_events',
      own: null,
      parent: [['social_basic'], ['social_manage_upcoming_events']],
      businessManager: false,
      send: post(`/${bluebottle}/upcoming_events`, () => ({ title: 'Permission party', start_time: isoTime(clock + DAY) })),
    },
    {
      name: 'GET agencies',
      own: null,
      parent: [['ads_management', 'business_management']],
      businessManager: false,
      send: get(`/${bluebottle}/agencies`),
    },
    {
      name: 'GET authorized_adaccounts',
      own: null,
      parent: [['ads_management', 'business_management']],
      businessManager: false,
      send: get(`/${bluebottle}/authorized_adaccounts`),
    },
    {
      name: 'POST authorized_adaccounts',
      own: null,
      parent: [['ads_management', 'business_management']],
      businessManager: false,
      send: post(`/${bluebottle}/authorized_adaccounts`, () => ({ account_id: acmeAdAccount, business: acme })),
    },
  ];
  const EDGE_OF: Record<string, string> = {
    'GET recently_searched_hashtags': 'recently_searched_hashtags',
    'GET upcoming_events': 'upcoming_events',
    'POST upcoming_events': 'upcoming_events',
    'GET agencies': 'agencies',
    'GET authorized_adaccounts': 'authorized_adaccounts',
    'POST authorized_adaccounts': 'authorized_adaccounts',
  };

  it.each(operations().map((operation) => [operation.name, operation.name]))(
    '%s: each missing permission in turn, on both hosts',
    async (name) => {
      const operation = operations().find((candidate) => candidate.name === name)!;
      if (operation.own === null) {
        // Not on the own-login host, whatever the token holds.
        expectGraphError(await operation.send(own, await ownToken()), unknownField(EDGE_OF[name]!));
      } else {
        for (const group of operation.own) {
          const token = await tokenFor(
            'own',
            bluebottle,
            OWN_ALL.filter((p) => !group.includes(p)),
          );
          expectGraphError(await operation.send(own, token), missingPermission(group[0]!));
        }
      }
      for (const group of operation.parent) {
        const token = await tokenFor(
          'parent',
          fixture.platformUsers.ana,
          PARENT_ALL.filter((p) => !group.includes(p)),
        );
        expectGraphError(await operation.send(parent, token), missingPermission(group[0]!));
      }
    },
  );

  // Everything with an either-or group but publishing (which would use the quota); POST media only makes a container.
  const EITHER_OR = ['GET insights', 'POST media', 'GET agencies', 'GET authorized_adaccounts', 'POST authorized_adaccounts'];

  it.each(EITHER_OR)('%s: accepts either permission of an either-or group', async (name) => {
    const operation = operations().find((candidate) => candidate.name === name)!;
    const groups = operation.parent.filter((candidate) => candidate.length > 1);
    expect(groups).toHaveLength(1);
    for (const kept of groups[0]!) {
      const token = await tokenFor(
        'parent',
        fixture.platformUsers.ana,
        PARENT_ALL.filter((p) => !groups[0]!.includes(p) || p === kept),
      );
      const reply = await operation.send(parent, token);
      expect(reply.status, `${operation.name} with only ${kept}: ${reply.text}`).toBe(200);
    }
  });

  it.each(
    operations()
      .filter((operation) => operation.businessManager)
      .map((operation) => operation.name),
  )('%s: a business-manager page role also needs ads_management or ads_read (BM)', async (name) => {
    const operation = operations().find((candidate) => candidate.name === name)!;
    const bm = await tokenFor(
      'parent',
      fixture.platformUsers.bm,
      PARENT_ALL.filter((p) => p !== 'ads_management' && p !== 'ads_read'),
    );
    expectGraphError(await operation.send(parent, bm), missingPermission('ads_read'));
    if (name.startsWith('GET')) {
      const withAdsRead = await tokenFor(
        'parent',
        fixture.platformUsers.bm,
        PARENT_ALL.filter((p) => p !== 'ads_management'),
      );
      expectOk(await operation.send(parent, withAdsRead));
    }
  });

  it.each(['GET upcoming_events', 'POST upcoming_events', 'GET agencies', 'GET authorized_adaccounts'])(
    '%s: no BM rule, so a business-manager page role needs no ads_management or ads_read',
    async (name) => {
      const operation = operations().find((candidate) => candidate.name === name)!;
      const bm = await tokenFor(
        'parent',
        fixture.platformUsers.bm,
        PARENT_ALL.filter((p) => p !== 'ads_management' && p !== 'ads_read'),
      );
      const reply = await operation.send(parent, bm);
      expect(reply.status, reply.text).toBe(200);
    },
  );

  it('refuses publishing (#10) to a page role without the MANAGE or CREATE_CONTENT task', async () => {
    const token = await tokenFor('parent', moderator, PARENT_ALL);
    expectGraphError(
      await parent.request('POST', `/${bluebottle}/media`, { token, json: { image_url: 'https://cdn.example.com/photos/perm.jpg' } }),
      notAllowed,
    );
    expectGraphError(await parent.request('POST', `/${bluebottle}/media_publish`, { token, json: { creation_id: finished } }), notAllowed);
    // Reading insights needs no page task.
    expectOk(await parent.request('GET', withQuery(`/${bluebottle}/insights`, { metric: 'reach', period: 'day' }), { token }));
  });

  it('answers 100/33 to a user without a role on the account’s page, whatever the permissions', async () => {
    const token = await tokenFor('parent', fixture.platformUsers.stranger, PARENT_ALL);
    expectGraphError(await parent.request('GET', withQuery(`/${bluebottle}/agencies`), { token }), unsupported('get', bluebottle));
    expectGraphError(
      await parent.request('POST', `/${bluebottle}/media`, { token, json: { image_url: 'https://cdn.example.com/photos/perm.jpg' } }),
      unsupported('post', bluebottle),
    );
    expectGraphError(
      await parent.request('POST', `/${bluebottle}/upcoming_events`, { token, json: { title: 'x', start_time: isoTime(clock + DAY) } }),
      unsupported('post', bluebottle),
    );
  });

  it('reads a container only with the publishing permissions', async () => {
    const token = await tokenFor('own', bluebottle, ['social_business_basic', 'social_business_manage_insights']);
    expectGraphError(
      await own.request('GET', `/${finished}?fields=status_code`, { token }),
      missingPermission('social_business_content_publish'),
    );
  });
});
