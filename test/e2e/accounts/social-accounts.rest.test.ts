import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SocialTables } from '../../../subgraphs/shared/social-graph/social-tables.ts';
import {
  expectGraphError,
  invalidParameter,
  missingParameter,
  missingPermission,
  syntaxError,
  unknownField,
  unknownPath,
  unsupported,
} from '../../support/graph-error-expectations.ts';
import { createRestClient, type RestClient, type RestReply } from '../../support/rest-client.ts';
import { createSocialFixture, FIXTURE_EPOCH, PARENT_PERMISSIONS, type SocialFixture } from '../../support/social-fixture.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * Front-door tests of Area C (the professional account) and the Graph conventions it is read with, over the Graph-style
 * REST paths of both hosts: real HTTP requests to the own-login host (restUrl) and the parent-platform host
 * (socialParentUrl). Bodies, statuses, error envelopes and WWW-Authenticate headers are compared whole; only fbtrace_id
 * (random) and cursors (opaque) are matched by shape.
 *
 * The world is the shared social fixture (test/support/social-fixture.ts) on a fixed clock, plus a few objects added here
 * by SQL: two carousel children, a second roaster post, a fan's post tagging bluebottle, a tag on the age-gated account's
 * post, and "cafe", a professional account no test user manages, whose post mentions @bluebottle.
 */

const NOW = new Date('2026-11-02T00:00:00.000Z');
const HOUR = 3_600_000;
const CURSOR = /^[A-Za-z0-9_-]{20,}$/;

/** post[i] of the fixture is i hours before FIXTURE_EPOCH. */
const postTime = (i: number) => new Date(FIXTURE_EPOCH.getTime() - i * HOUR);
const unix = (date: Date) => String(Math.floor(date.getTime() / 1000));
/** The Graph timestamp format: `2026-11-01T12:00:00+0000`. */
const graphTime = (date: Date) => `${date.toISOString().slice(0, 19)}+0000`;

function expectOk(reply: RestReply): void {
  expect(reply.status, reply.text).toBe(200);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
}

/** `path?access_token=…&name=value…`, encoded as a browser would (URLSearchParams). */
function withQuery(path: string, token: string | undefined, params: Record<string, string> = {}): string {
  const query = new URLSearchParams({ ...(token !== undefined && { access_token: token }), ...params });
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** The link a page must carry: `base` + path + these query parameters, in this order, form-encoded. */
function link(base: string, path: string, params: [string, string][]): string {
  const url = new URL(path, base);
  for (const [name, value] of params) url.searchParams.append(name, value);
  return url.href;
}

const ids = (page: { data: { id: string }[] }) => page.data.map((item) => item.id);

let system: TestSystem;
let fixture: SocialFixture;
let db: Kysely<SocialTables>;
let own: RestClient;
let parent: RestClient;
/** bluebottle's id, and the fixture's full-permission tokens of both hosts. */
let bluebottle: string;
let ownToken: string;
let parentToken: string;
/** Objects this file adds (see the header). */
let children: string[];
let roasterSecondPost: string;
let fanPost: string;
let cafe: string;
let cafePost: string;

/** GET on the own-login host with the own token in the query. */
const getOwn = (path: string, params: Record<string, string> = {}) => own.request('GET', withQuery(path, ownToken, params));
/** GET on the parent-platform host with ana's token in the query. */
const getParent = (path: string, params: Record<string, string> = {}) => parent.request('GET', withQuery(path, parentToken, params));

async function insertMedia(ownerId: string, values: { caption: string; timestamp: Date; carouselParentId?: string; likeCount?: number }) {
  const row = await db
    .insertInto('social.media')
    .values({
      owner_id: ownerId,
      caption: values.caption,
      media_type: 'IMAGE',
      media_product_type: 'FEED',
      media_url: 'https://cdn.social.example/media/extra.jpg',
      permalink: 'https://social.example/p/extra/',
      thumbnail_url: null,
      timestamp: values.timestamp,
      like_count: values.likeCount ?? 0,
      live_ended_at: null,
      deleted_at: null,
      carousel_parent_id: values.carouselParentId ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return String(row.id);
}

beforeAll(async () => {
  system = await startTestSystem({}, { now: () => NOW });
  fixture = await createSocialFixture(system.database, { now: () => NOW });
  db = system.database.db.withTables<SocialTables>();
  own = createRestClient(system.restUrl);
  parent = createRestClient(system.socialParentUrl);
  bluebottle = fixture.accounts.bluebottle;
  ownToken = fixture.tokens.own;
  parentToken = fixture.tokens.parent;

  const albumTime = postTime(100);
  children = [
    await insertMedia(bluebottle, { caption: 'first slide', timestamp: albumTime, carouselParentId: fixture.media.carousel }),
    await insertMedia(bluebottle, { caption: 'second slide', timestamp: albumTime, carouselParentId: fixture.media.carousel }),
  ];
  roasterSecondPost = await insertMedia(fixture.accounts.roaster, { caption: 'Roasting day', timestamp: postTime(4), likeCount: 2 });
  fanPost = await insertMedia(fixture.accounts.fanOne, { caption: 'With @bluebottle', timestamp: postTime(5) });
  await db
    .insertInto('social.media_tag')
    .values([
      { media_id: fanPost, account_id: bluebottle },
      { media_id: fixture.media.shadyPost, account_id: bluebottle },
    ])
    .execute();
  const cafeRow = await db
    .insertInto('social.account')
    .values({
      account_type: 'BUSINESS',
      username: 'cafe',
      name: 'Corner Cafe',
      follows_count: 3,
      followers_count: 9,
      profile_picture_url: null,
      alt_text: null,
      legacy_social_user_id: null,
      shop_business_id: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  cafe = String(cafeRow.id);
  cafePost = await insertMedia(cafe, { caption: 'Beans from @bluebottle and @roaster', timestamp: postTime(6) });
  await db.insertInto('social.mention').values({ account_id: bluebottle, media_id: cafePost, comment_id: null }).execute();
});

afterAll(async () => {
  await system?.close();
});

describe('GET /{account_id}', () => {
  const BLUEBOTTLE_FIELDS: Record<string, unknown> = {
    alt_text: 'A blue bottle',
    biography: 'Coffee roasters since 2002',
    followers_count: 1200,
    follows_count: 80,
    has_profile_pic: true,
    is_published: true,
    legacy_social_user_id: '1234567890',
    name: 'Blue Bottle Coffee',
    profile_picture_url: 'https://cdn.social.example/bluebottle.jpg',
    username: 'bluebottle',
    website: 'https://bluebottle.example',
  };

  it('answers a bare read with exactly {"id"} on the own-login host', async () => {
    const reply = await getOwn(`/v25.0/${bluebottle}`);
    expectOk(reply);
    expect(reply.text).toBe(`{"id":"${bluebottle}"}`);
  });

  it('answers a bare read with exactly {"id"} on the parent-platform host', async () => {
    const reply = await getParent(`/v25.0/${bluebottle}`);
    expectOk(reply);
    expect(reply.text).toBe(`{"id":"${bluebottle}"}`);
  });

  it.each(Object.entries(BLUEBOTTLE_FIELDS))('reads %s (plus id) on both hosts', async (field, value) => {
    for (const get of [getOwn, getParent]) {
      const reply = await get(`/v25.0/${bluebottle}`, { fields: field });
      expectOk(reply);
      expect(reply.body).toEqual({ [field]: value, id: bluebottle });
    }
  });

  it('reads every field of the spec table at once, with id when asked for', async () => {
    const fields = ['id', ...Object.keys(BLUEBOTTLE_FIELDS)].join(',');
    const ownReply = await getOwn(`/v25.0/${bluebottle}`, { fields });
    expectOk(ownReply);
    expect(ownReply.body).toEqual({ id: bluebottle, ...BLUEBOTTLE_FIELDS });
    const parentReply = await getParent(`/v25.0/${bluebottle}`, { fields: `${fields},shopping_product_tag_eligibility` });
    expectOk(parentReply);
    expect(parentReply.body).toEqual({ id: bluebottle, ...BLUEBOTTLE_FIELDS, shopping_product_tag_eligibility: true });
  });

  it('reads the own-login-only fields account_type and user_id on the own-login host', async () => {
    const reply = await getOwn(`/v25.0/${bluebottle}`, { fields: 'account_type,user_id' });
    expectOk(reply);
    expect(reply.body).toEqual({ account_type: 'BUSINESS', user_id: bluebottle, id: bluebottle });
    const creator = await own.request(
      'GET',
      withQuery(`/v25.0/${fixture.accounts.roaster}`, fixture.tokens.roasterOwn, { fields: 'account_type' }),
    );
    expectOk(creator);
    expect(creator.body).toEqual({ account_type: 'MEDIA_CREATOR', id: fixture.accounts.roaster });
  });

  it('refuses account_type and user_id on the parent-platform host as unknown fields', async () => {
    expectGraphError(await getParent(`/v25.0/${bluebottle}`, { fields: 'account_type' }), unknownField('account_type'));
    expectGraphError(await getParent(`/v25.0/${bluebottle}`, { fields: 'username,user_id' }), unknownField('user_id'));
  });

  it('says has_profile_pic false and leaves profile_picture_url out for an account without a picture', async () => {
    const path = `/v25.0/${fixture.accounts.roaster}`;
    const reply = await own.request(
      'GET',
      withQuery(path, fixture.tokens.roasterOwn, { fields: 'has_profile_pic,profile_picture_url,alt_text' }),
    );
    expectOk(reply);
    expect(reply.body).toEqual({ has_profile_pic: false, id: fixture.accounts.roaster });
  });

  it('counts 30 feed posts and the carousel in media_count: stories, carousel children and a live broadcast in progress excluded', async () => {
    const reply = await getOwn(`/v25.0/${bluebottle}`, { fields: 'media_count' });
    expectOk(reply);
    expect(reply.body).toEqual({ media_count: 31, id: bluebottle });
    // The same number the media edge lists.
    const edge = await getOwn(`/v25.0/${bluebottle}/media`, { limit: '100' });
    expect(edge.body.data).toHaveLength(31);
  });

  it('counts a live video in media_count once its broadcast has ended, as the media edge then lists it', async () => {
    await db
      .updateTable('social.media')
      .set({ live_ended_at: new Date(NOW.getTime() - 60_000) })
      .where('id', '=', fixture.media.live)
      .execute();
    try {
      const count = await getOwn(`/v25.0/${bluebottle}`, { fields: 'media_count' });
      expect(count.body).toEqual({ media_count: 32, id: bluebottle });
      const edge = await getOwn(`/v25.0/${bluebottle}/media`, { limit: '100' });
      expect(ids(edge.body)).toContain(fixture.media.live);
      expect(edge.body.data).toHaveLength(32);
    } finally {
      await db.updateTable('social.media').set({ live_ended_at: null }).where('id', '=', fixture.media.live).execute();
    }
  });

  describe('shopping_product_tag_eligibility', () => {
    const read = (token: string) =>
      parent.request('GET', withQuery(`/v25.0/${bluebottle}`, token, { fields: 'shopping_product_tag_eligibility' }));

    async function withShop(values: { shop_approved?: boolean; shop_catalog_product_count?: number }, body: () => Promise<void>) {
      await db.updateTable('social.account').set(values).where('id', '=', bluebottle).execute();
      try {
        await body();
      } finally {
        await db
          .updateTable('social.account')
          .set({ shop_approved: true, shop_catalog_product_count: 12 })
          .where('id', '=', bluebottle)
          .execute();
      }
    }

    it('is true for ana, admin of the business owning the approved shop with products, with the catalog permissions', async () => {
      const reply = await read(parentToken);
      expectOk(reply);
      expect(reply.body).toEqual({ shopping_product_tag_eligibility: true, id: bluebottle });
    });

    it('needs catalog_management and social_shopping_tag_products', async () => {
      for (const permission of ['catalog_management', 'social_shopping_tag_products']) {
        const token = await fixture.token(
          'parent',
          fixture.platformUsers.ana,
          PARENT_PERMISSIONS.filter((p) => p !== permission),
        );
        expectGraphError(await read(token), missingPermission(permission));
        // The rest of the account stays readable with that token.
        const other = await parent.request('GET', withQuery(`/v25.0/${bluebottle}`, token, { fields: 'username' }));
        expect(other.body).toEqual({ username: 'bluebottle', id: bluebottle });
      }
    });

    it('is false when the shop is not approved', async () => {
      await withShop({ shop_approved: false }, async () => {
        const reply = await read(parentToken);
        expectOk(reply);
        expect(reply.body).toEqual({ shopping_product_tag_eligibility: false, id: bluebottle });
      });
    });

    it('is false when the shop catalog has no products', async () => {
      await withShop({ shop_catalog_product_count: 0 }, async () => {
        const reply = await read(parentToken);
        expectOk(reply);
        expect(reply.body).toEqual({ shopping_product_tag_eligibility: false, id: bluebottle });
      });
    });

    it('is false when the app user is not an admin of the business owning the shop', async () => {
      // bm has a page role on bluebottle (through the business manager) but does not administer Acme Holdings.
      const bm = await fixture.token('parent', fixture.platformUsers.bm, PARENT_PERMISSIONS);
      const reply = await read(bm);
      expectOk(reply);
      expect(reply.body).toEqual({ shopping_product_tag_eligibility: false, id: bluebottle });
    });

    it('is false for an account without a shop', async () => {
      const reply = await parent.request(
        'GET',
        withQuery(`/v25.0/${fixture.accounts.roaster}`, parentToken, { fields: 'shopping_product_tag_eligibility' }),
      );
      expectOk(reply);
      expect(reply.body).toEqual({ shopping_product_tag_eligibility: false, id: fixture.accounts.roaster });
    });

    it('is an unknown field on the own-login host', async () => {
      expectGraphError(
        await getOwn(`/v25.0/${bluebottle}`, { fields: 'shopping_product_tag_eligibility' }),
        unknownField('shopping_product_tag_eligibility'),
      );
    });
  });

  it('refuses an unknown field with #100 naming it and the node type, on both hosts', async () => {
    expectGraphError(await getOwn(`/v25.0/${bluebottle}`, { fields: 'x' }), unknownField('x'));
    expectGraphError(await getParent(`/v25.0/${bluebottle}`, { fields: 'username,x' }), unknownField('x'));
  });

  it('refuses POST and DELETE on an account with 100/33 naming the method', async () => {
    expectGraphError(
      await own.request('POST', withQuery(`/v25.0/${bluebottle}`, ownToken, { biography: 'new' })),
      unsupported('post', bluebottle),
    );
    expectGraphError(await own.request('DELETE', withQuery(`/v25.0/${bluebottle}`, ownToken)), unsupported('delete', bluebottle));
    expectGraphError(await parent.request('POST', withQuery(`/v25.0/${bluebottle}`, parentToken)), unsupported('post', bluebottle));
    expectGraphError(await parent.request('DELETE', withQuery(`/v25.0/${bluebottle}`, parentToken)), unsupported('delete', bluebottle));
    // Nothing changed.
    expect((await getOwn(`/v25.0/${bluebottle}`, { fields: 'biography' })).body).toEqual({
      biography: 'Coffee roasters since 2002',
      id: bluebottle,
    });
  });

  it('answers 100/33 for an account the token does not act for, a personal account and an unknown id', async () => {
    expectGraphError(await getOwn(`/v25.0/${fixture.accounts.roaster}`), unsupported('get', fixture.accounts.roaster));
    expectGraphError(
      await getOwn(`/v25.0/${fixture.accounts.roaster}`, { fields: 'username' }),
      unsupported('get', fixture.accounts.roaster),
    );
    expectGraphError(await getOwn(`/v25.0/${cafe}`), unsupported('get', cafe));
    expectGraphError(await getParent(`/v25.0/${cafe}`), unsupported('get', cafe));
    expectGraphError(await getParent(`/v25.0/${fixture.accounts.fanOne}`), unsupported('get', fixture.accounts.fanOne));
    // A well-formed account id (kind 1) that names nothing.
    expectGraphError(await getParent('/v25.0/17840000000999985'), unsupported('get', '17840000000999985'));
  });
});

describe('API versions in the path', () => {
  it('serves /v25.0/, /v3.2/ and a path without a version alike', async () => {
    for (const prefix of ['/v25.0', '/v3.2', '']) {
      const reply = await getOwn(`${prefix}/${bluebottle}`, { fields: 'username' });
      expectOk(reply);
      expect(reply.body).toEqual({ username: 'bluebottle', id: bluebottle });
      const edge = await getParent(`${prefix}/${bluebottle}/stories`);
      expectOk(edge);
      expect(ids(edge.body)).toEqual([fixture.media.story]);
    }
  });

  it('takes a malformed version segment for a node id: the rest of the path is unknown (2500)', async () => {
    expectGraphError(await getOwn(`/vfoo/${bluebottle}`), unknownPath(`/${bluebottle}`));
    expectGraphError(await getOwn(`/2.7/${bluebottle}`), unknownPath(`/${bluebottle}`));
    expectGraphError(await getParent(`/v25/${bluebottle}/media`), unknownPath(`/${bluebottle}/media`));
  });

  it('answers 100/33 for a malformed version segment alone', async () => {
    expectGraphError(await getOwn('/vfoo'), unsupported('get', 'vfoo'));
    expectGraphError(await getParent('/2.7'), unsupported('get', '2.7'));
  });

  it('refuses an unknown edge and extra path components with 2500', async () => {
    expectGraphError(await getOwn(`/v25.0/${bluebottle}/nope`), unknownPath('/nope'));
    expectGraphError(await getParent(`/v25.0/${bluebottle}/nope`), unknownPath('/nope'));
    expectGraphError(await getOwn(`/v25.0/${bluebottle}/media/extra`), unknownPath('/media/extra'));
    expectGraphError(await getOwn(`/${bluebottle}/media/extra`), unknownPath('/media/extra'));
  });
});

describe('/me', () => {
  it('is the token’s own account on the own-login host, with its fields', async () => {
    const bare = await getOwn('/v25.0/me');
    expectOk(bare);
    expect(bare.text).toBe(`{"id":"${bluebottle}"}`);
    const typical = await getOwn('/v25.0/me', { fields: 'user_id,username' });
    expectOk(typical);
    expect(typical.body).toEqual({ user_id: bluebottle, username: 'bluebottle', id: bluebottle });
    const more = await getOwn('/me', { fields: 'account_type,followers_count,media.limit(1){caption}' });
    expectOk(more);
    expect(more.body).toEqual({
      account_type: 'BUSINESS',
      followers_count: 1200,
      media: {
        data: [{ caption: 'Post 0 #coffee', id: fixture.posts[0] }],
        paging: { cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) }, next: expect.any(String) },
      },
      id: bluebottle,
    });
    expectGraphError(
      await getOwn('/v25.0/me', { fields: 'shopping_product_tag_eligibility' }),
      unknownField('shopping_product_tag_eligibility'),
    );
    expectGraphError(await getOwn('/v25.0/me', { fields: 'nope' }), unknownField('nope'));
  });

  it('serves the account edges under /me on the own-login host, with links on /me', async () => {
    const reply = await getOwn('/v25.0/me/media', { limit: '2' });
    expectOk(reply);
    const after = reply.body.paging.cursors.after;
    expect(reply.body).toEqual({
      data: [{ id: fixture.posts[0] }, { id: fixture.posts[1] }],
      paging: {
        cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) },
        next: link(system.restUrl, '/v25.0/me/media', [
          ['access_token', ownToken],
          ['limit', '2'],
          ['after', after],
        ]),
      },
    });
    const stories = await getOwn('/v25.0/me/stories');
    expect(ids(stories.body)).toEqual([fixture.media.story]);
    expectGraphError(await getOwn('/v25.0/me/nope'), unknownPath('/nope'));
  });

  it('is the parent-platform user on the parent-platform host: {id, name} by default', async () => {
    const reply = await getParent('/v25.0/me');
    expectOk(reply);
    expect(reply.body).toEqual({ id: fixture.platformUsers.ana, name: 'Ana' });
    const id = await getParent('/v25.0/me', { fields: 'id' });
    expect(id.body).toEqual({ id: fixture.platformUsers.ana });
  });

  it('refuses account fields on the parent-platform user with node type (User)', async () => {
    for (const field of ['username', 'media_count', 'followers_count', 'account_type', 'user_id']) {
      expectGraphError(await getParent('/v25.0/me', { fields: field }), unknownField(field, 'User'));
    }
    expectGraphError(await getParent('/v25.0/me/media'), unknownPath('/media'));
  });

  it('lists the user’s pages and their linked accounts under /me/accounts', async () => {
    const reply = await getParent('/v25.0/me/accounts', { fields: 'id,name,social_business_account{id,username}' });
    expectOk(reply);
    expect(reply.body).toEqual({
      data: [
        { id: fixture.pages.bluebottle, name: 'Blue Bottle', social_business_account: { id: bluebottle, username: 'bluebottle' } },
        { id: fixture.pages.roaster, name: 'The Roaster', social_business_account: { id: fixture.accounts.roaster, username: 'roaster' } },
      ],
    });
    const bare = await getParent('/v25.0/me/accounts');
    expect(bare.body).toEqual({
      data: [
        { id: fixture.pages.bluebottle, name: 'Blue Bottle' },
        { id: fixture.pages.roaster, name: 'The Roaster' },
      ],
    });
    const linked = await getParent('/v25.0/me/accounts', { fields: 'social_business_account' });
    expect(linked.body).toEqual({
      data: [
        { social_business_account: { id: bluebottle }, id: fixture.pages.bluebottle },
        { social_business_account: { id: fixture.accounts.roaster }, id: fixture.pages.roaster },
      ],
    });
  });
});

describe('the media edge', () => {
  /** bluebottle's media edge, newest first: 30 posts, then the carousel (100 hours back). */
  const allMedia = () => [...fixture.posts, fixture.media.carousel];

  it('lists 25 items of {id} by default, newest first, with a next link and no previous', async () => {
    const reply = await getOwn(`/v25.0/${bluebottle}/media`);
    expectOk(reply);
    const after = reply.body.paging.cursors.after;
    expect(reply.body).toEqual({
      data: fixture.posts.slice(0, 25).map((id) => ({ id })),
      paging: {
        cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) },
        next: link(system.restUrl, `/v25.0/${bluebottle}/media`, [
          ['access_token', ownToken],
          ['after', after],
        ]),
      },
    });
  });

  it('excludes stories, carousel children and a live broadcast in progress', async () => {
    const reply = await getParent(`/v25.0/${bluebottle}/media`, { limit: '100' });
    expectOk(reply);
    expect(ids(reply.body)).toEqual(allMedia());
    for (const excluded of [fixture.media.story, fixture.media.expiredStory, fixture.media.live, ...children])
      expect(ids(reply.body)).not.toContain(excluded);
  });

  it('renders the requested media fields', async () => {
    const reply = await getOwn(`/v25.0/${bluebottle}/media`, {
      fields: 'id,caption,media_type,media_product_type,timestamp,like_count,username,owner,permalink,media_url,is_comment_enabled',
      limit: '2',
    });
    expectOk(reply);
    expect(reply.body.data).toEqual(
      [0, 1].map((i) => ({
        id: fixture.posts[i],
        caption: `Post ${i} #coffee`,
        media_type: 'IMAGE',
        media_product_type: 'FEED',
        timestamp: graphTime(postTime(i)),
        like_count: i,
        username: 'bluebottle',
        owner: { id: bluebottle },
        permalink: `https://social.example/p/${fixture.posts[i]}/`,
        media_url: `https://cdn.social.example/media/${fixture.posts[i]}.jpg`,
        is_comment_enabled: true,
      })),
    );
  });

  it('filters by since and until given as unix timestamps (both bounds inclusive)', async () => {
    const reply = await getOwn(`/v25.0/${bluebottle}/media`, { since: unix(postTime(4)), until: unix(postTime(2)), fields: 'timestamp' });
    expectOk(reply);
    expect(reply.body.data).toEqual([2, 3, 4].map((i) => ({ timestamp: graphTime(postTime(i)), id: fixture.posts[i] })));
  });

  it('filters by since and until given as strtotime-style values', async () => {
    // NOW is 2026-11-02 00:00 UTC: "yesterday 08:30" is 2026-11-01 08:30, "now -13 hours" 2026-11-01 11:00.
    const reply = await getOwn(`/v25.0/${bluebottle}/media`, { since: 'yesterday 08:30', until: 'now -13 hours' });
    expectOk(reply);
    expect(ids(reply.body)).toEqual([fixture.posts[1], fixture.posts[2], fixture.posts[3]]);
    const iso = await getOwn(`/v25.0/${bluebottle}/media`, { since: '2026-11-01T10:00:00Z', until: '2026-11-01 12:00:00' });
    expect(ids(iso.body)).toEqual([fixture.posts[0], fixture.posts[1], fixture.posts[2]]);
  });

  it('keeps since and until in the next link', async () => {
    const params = { since: unix(postTime(4)), limit: '2' };
    const first = await getOwn(`/v25.0/${bluebottle}/media`, params);
    expect(ids(first.body)).toEqual([fixture.posts[0], fixture.posts[1]]);
    const next = new URL(first.body.paging.next);
    expect(next.searchParams.get('since')).toBe(params.since);
    const second = await own.request('GET', first.body.paging.next);
    expect(ids(second.body)).toEqual([fixture.posts[2], fixture.posts[3]]);
    const third = await own.request('GET', second.body.paging.next);
    expect(ids(third.body)).toEqual([fixture.posts[4]]);
    expect(third.body.paging.next).toBeUndefined();
  });

  it('refuses a since it cannot read with 100', async () => {
    expectGraphError(
      await getOwn(`/v25.0/${bluebottle}/media`, { since: 'the day after' }),
      invalidParameter('The parameter since must be a unix timestamp or a date, got "the day after".'),
    );
  });

  it('honours limit', async () => {
    const reply = await getOwn(`/v25.0/${bluebottle}/media`, { limit: '5' });
    expect(ids(reply.body)).toEqual(fixture.posts.slice(0, 5));
    expectGraphError(
      await getOwn(`/v25.0/${bluebottle}/media`, { limit: 'many' }),
      invalidParameter('The parameter limit must be a non-negative integer, got "many".'),
    );
  });

  it('walks all 31 items with limit=7 following next verbatim, then back with previous, without duplicate or gap', async () => {
    const fields = 'id,caption';
    let url: string | undefined = withQuery(`/v25.0/${bluebottle}/media`, ownToken, { fields, limit: '7' });
    const pages: { data: { id: string }[]; paging: { cursors: { before: string; after: string }; next?: string; previous?: string } }[] =
      [];
    while (url !== undefined) {
      const reply = await own.request('GET', url);
      expectOk(reply);
      pages.push(reply.body);
      url = reply.body.paging?.next;
      expect(pages.length).toBeLessThanOrEqual(10);
    }
    expect(pages.map((page) => page.data.length)).toEqual([7, 7, 7, 7, 3]);
    const walked = pages.flatMap(ids);
    expect(walked).toEqual(allMedia());
    expect(new Set(walked).size).toBe(31);

    // Every link is an absolute URL on the request's origin repeating access_token, limit and fields.
    const origin = new URL(system.restUrl).origin;
    pages.forEach((page, index) => {
      expect(page.paging.cursors).toEqual({ before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) });
      const expectedNext = index < pages.length - 1;
      const expectedPrevious = index > 0;
      expect(page.paging.next !== undefined).toBe(expectedNext);
      expect(page.paging.previous !== undefined).toBe(expectedPrevious);
      if (page.paging.next) {
        expect(page.paging.next).toBe(
          link(origin, `/v25.0/${bluebottle}/media`, [
            ['access_token', ownToken],
            ['fields', fields],
            ['limit', '7'],
            ['after', page.paging.cursors.after],
          ]),
        );
      }
      if (page.paging.previous) {
        expect(page.paging.previous).toBe(
          link(origin, `/v25.0/${bluebottle}/media`, [
            ['access_token', ownToken],
            ['fields', fields],
            ['limit', '7'],
            ['before', page.paging.cursors.before],
          ]),
        );
      }
    });

    // Back from the last page: the same pages in reverse, the first one without previous.
    const back: string[][] = [];
    let previous: string | undefined = pages[pages.length - 1]!.paging.previous;
    while (previous !== undefined) {
      const reply = await own.request('GET', previous);
      expectOk(reply);
      back.push(ids(reply.body));
      previous = reply.body.paging?.previous;
      expect(back.length).toBeLessThanOrEqual(10);
    }
    expect(back).toEqual(pages.slice(0, -1).map(ids).reverse());
  });

  it('answers an empty page without paging past either end of the list', async () => {
    const all = await getOwn(`/v25.0/${bluebottle}/media`, { limit: '100' });
    expect(all.body.paging).toEqual({ cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) } });
    const pastEnd = await getOwn(`/v25.0/${bluebottle}/media`, { after: all.body.paging.cursors.after });
    expectOk(pastEnd);
    expect(pastEnd.body).toEqual({ data: [] });
    const beforeStart = await getOwn(`/v25.0/${bluebottle}/media`, { before: all.body.paging.cursors.before });
    expect(beforeStart.body).toEqual({ data: [] });
    expectGraphError(
      await getOwn(`/v25.0/${bluebottle}/media`, { after: all.body.paging.cursors.after, before: all.body.paging.cursors.before }),
      invalidParameter('The parameters after and before cannot be used together.'),
    );
  });

  it('refuses a tampered, foreign or garbage cursor with 100', async () => {
    const first = await getOwn(`/v25.0/${bluebottle}/media`, { limit: '2' });
    const after: string = first.body.paging.cursors.after;
    const tag = after.slice(-11);
    const position = JSON.parse(Buffer.from(after.slice(0, -11), 'base64url').toString('utf8')) as [number, string];
    const forged = Buffer.from(JSON.stringify([position[0] - 3600, position[1]])).toString('base64url') + tag;
    for (const cursor of [forged, `${after}x`, 'garbage']) {
      expectGraphError(await getOwn(`/v25.0/${bluebottle}/media`, { after: cursor }), invalidParameter('Invalid cursor.'));
    }
    expectGraphError(await getOwn(`/v25.0/${bluebottle}/media`, { before: forged }), invalidParameter('Invalid cursor.'));
  });
});

describe('the stories, live_media, tags and children edges', () => {
  it('lists only the current story (the one older than 24 hours is gone), with cursors and no links', async () => {
    for (const get of [getOwn, getParent]) {
      const reply = await get(`/v25.0/${bluebottle}/stories`, { fields: 'id,caption,media_product_type' });
      expectOk(reply);
      expect(reply.body).toEqual({
        data: [{ id: fixture.media.story, caption: 'Story', media_product_type: 'STORY' }],
        paging: { cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) } },
      });
    }
  });

  it('lists the broadcast in progress on live_media', async () => {
    const reply = await getParent(`/v25.0/${bluebottle}/live_media`, { fields: 'id,caption,media_type,timestamp' });
    expectOk(reply);
    expect(reply.body).toEqual({
      data: [{ id: fixture.media.live, caption: 'Live now', media_type: 'VIDEO', timestamp: graphTime(postTime(0.5)) }],
      paging: { cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) } },
    });
    const outside = await getParent(`/v25.0/${bluebottle}/live_media`, { until: unix(postTime(1)) });
    expect(outside.body).toEqual({ data: [] });
  });

  it('lists media other users tagged the account in (private media excluded); paging has cursors but never next/previous', async () => {
    const all = await getOwn(`/v25.0/${bluebottle}/tags`, { fields: 'id,username' });
    expectOk(all);
    expect(all.body.data).toEqual([
      { id: fixture.media.roasterPost, username: 'roaster' },
      { id: fanPost, username: 'fan_one' },
    ]);

    const first = await getOwn(`/v25.0/${bluebottle}/tags`, { limit: '1' });
    expect(first.body).toEqual({
      data: [{ id: fixture.media.roasterPost }],
      paging: { cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) } },
    });
    const second = await getOwn(`/v25.0/${bluebottle}/tags`, { limit: '1', after: first.body.paging.cursors.after });
    expect(second.body).toEqual({
      data: [{ id: fanPost }],
      paging: { cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) } },
    });
  });

  it('lists the children of a carousel album, {id} by default', async () => {
    const reply = await getOwn(`/v25.0/${fixture.media.carousel}/children`);
    expectOk(reply);
    expect([...ids(reply.body)].sort()).toEqual([...children].sort());
    expect(Object.keys(reply.body.data[0])).toEqual(['id']);
    const expanded = await getParent(`/v25.0/${fixture.media.carousel}`, { fields: 'media_type,children{id,caption}' });
    expectOk(expanded);
    expect(expanded.body.media_type).toBe('CAROUSEL_ALBUM');
    expect(expanded.body.id).toBe(fixture.media.carousel);
    expect(expanded.body.children.data).toEqual(
      expect.arrayContaining([
        { id: children[0], caption: 'first slide' },
        { id: children[1], caption: 'second slide' },
      ]),
    );
    expect(expanded.body.children.data).toHaveLength(2);
    // A photo has no children.
    const photo = await getOwn(`/v25.0/${fixture.posts[0]}/children`);
    expect(photo.body).toEqual({ data: [] });
  });
});

describe('field expansion', () => {
  it('nests edges three levels deep: media.limit(2){comments.limit(2){replies{text}}}, with next links on each edge’s own path', async () => {
    const fields = 'media.limit(2){comments.limit(2){replies{text}}}';
    const reply = await getOwn(`/v25.0/${bluebottle}`, { fields });
    expectOk(reply);
    const media = reply.body.media;
    const comments = media.data[0].comments;
    expect(reply.body).toEqual({
      media: {
        data: [
          {
            comments: {
              // post[0]'s top-level comments, newest first: the hidden one (the owner sees it), then the owner's own.
              data: [
                { replies: { data: [] }, id: fixture.comments.hiddenComment },
                { replies: { data: [] }, id: fixture.comments.ownerComment },
              ],
              paging: {
                cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) },
                next: link(system.restUrl, `/v25.0/${fixture.posts[0]}/comments`, [
                  ['access_token', ownToken],
                  ['fields', 'replies{text}'],
                  ['limit', '2'],
                  ['after', comments.paging.cursors.after],
                ]),
              },
            },
            id: fixture.posts[0],
          },
          { comments: { data: [] }, id: fixture.posts[1] },
        ],
        paging: {
          cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) },
          next: link(system.restUrl, `/v25.0/${bluebottle}/media`, [
            ['access_token', ownToken],
            ['fields', 'comments.limit(2){replies{text}}'],
            ['limit', '2'],
            ['after', media.paging.cursors.after],
          ]),
        },
      },
      id: bluebottle,
    });

    // The nested links work: the comments link gives post[0]'s next two comments, the last with its replies.
    const moreComments = await own.request('GET', comments.paging.next);
    expectOk(moreComments);
    expect(moreComments.body.data).toEqual([
      { replies: { data: [] }, id: fixture.comments.fanTwoComment },
      {
        // Replies oldest first; no further page, so cursors without links.
        replies: {
          data: [
            { text: 'Thank you!', id: fixture.comments.ownerReply },
            { text: 'Me too', id: fixture.comments.fanReply },
          ],
          paging: { cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) } },
        },
        id: fixture.comments.fanComment,
      },
    ]);
    const moreMedia = await own.request('GET', media.paging.next);
    expectOk(moreMedia);
    expect(ids(moreMedia.body)).toEqual([fixture.posts[2], fixture.posts[3]]);
    expect(moreMedia.body.data[0]).toEqual({ comments: { data: [] }, id: fixture.posts[2] });
  });

  it('keeps the request’s version (or its absence) in nested links', async () => {
    const versionless = await getOwn(`/${bluebottle}`, { fields: 'media.limit(1)' });
    expect(versionless.body.media.paging.next).toBe(
      link(system.restUrl, `/${bluebottle}/media`, [
        ['access_token', ownToken],
        ['limit', '1'],
        ['after', versionless.body.media.paging.cursors.after],
      ]),
    );
    const older = await getParent(`/v3.2/${bluebottle}`, { fields: 'media.limit(1){id}' });
    expect(older.body.media.paging.next).toBe(
      link(system.socialParentUrl, `/v3.2/${bluebottle}/media`, [
        ['access_token', parentToken],
        ['fields', 'id'],
        ['limit', '1'],
        ['after', older.body.media.paging.cursors.after],
      ]),
    );
  });

  it('pages a nested edge with .after() and .before()', async () => {
    const first = await getOwn(`/v25.0/${bluebottle}`, { fields: 'media.limit(2){id}' });
    expect(ids(first.body.media)).toEqual([fixture.posts[0], fixture.posts[1]]);
    const second = await getOwn(`/v25.0/${bluebottle}`, { fields: `media.limit(2).after(${first.body.media.paging.cursors.after}){id}` });
    expectOk(second);
    expect(ids(second.body.media)).toEqual([fixture.posts[2], fixture.posts[3]]);
    expect(second.body.media.paging.previous).toBeDefined();
    const back = await getOwn(`/v25.0/${bluebottle}`, { fields: `media.limit(2).before(${second.body.media.paging.cursors.before}){id}` });
    expectOk(back);
    expect(ids(back.body.media)).toEqual([fixture.posts[0], fixture.posts[1]]);
    expect(back.body.media.paging.previous).toBeUndefined();
    // The same on a deeper edge: post[0]'s comments after the first two.
    const comments = await getOwn(`/v25.0/${bluebottle}`, { fields: 'media.limit(1){comments.limit(2){id}}' });
    const after = comments.body.media.data[0].comments.paging.cursors.after;
    const later = await getOwn(`/v25.0/${bluebottle}`, { fields: `media.limit(1){comments.limit(2).after(${after}){text}}` });
    expect(later.body.media.data[0].comments.data).toEqual([
      { text: 'Where is this?', id: fixture.comments.fanTwoComment },
      { text: 'Love this!', id: fixture.comments.fanComment },
    ]);
    expectGraphError(await getOwn(`/v25.0/${bluebottle}`, { fields: 'media.after(nonsense){id}' }), invalidParameter('Invalid cursor.'));
  });

  it('filters a nested edge with .since() and .until() (unix or strtotime)', async () => {
    const reply = await getOwn(`/v25.0/${bluebottle}`, { fields: `media.since(${unix(postTime(3))}).until(${unix(postTime(1))}){id}` });
    expectOk(reply);
    expect(ids(reply.body.media)).toEqual([fixture.posts[1], fixture.posts[2], fixture.posts[3]]);
    const relative = await getOwn(`/v25.0/${bluebottle}`, { fields: 'media.since(yesterday 10:00){id}' });
    expect(ids(relative.body.media)).toEqual([fixture.posts[0], fixture.posts[1], fixture.posts[2]]);
    const live = await getParent(`/v25.0/${bluebottle}`, { fields: `live_media.since(${unix(postTime(0.25))}){id}` });
    expect(live.body).toEqual({ live_media: { data: [] }, id: bluebottle });
    expectGraphError(
      await getOwn(`/v25.0/${bluebottle}`, { fields: 'stories.since(yesterday){id}' }),
      invalidParameter('The modifier .since() is not supported on the field stories.'),
    );
  });

  it('keeps a nested edge’s .since() window when its next link is followed', async () => {
    const reply = await getOwn(`/v25.0/${bluebottle}`, { fields: `media.since(${unix(postTime(2))}).limit(2){id}` });
    expectOk(reply);
    expect(ids(reply.body.media)).toEqual([fixture.posts[0], fixture.posts[1]]);
    const next = await own.request('GET', reply.body.media.paging.next);
    expectOk(next);
    // Only post[2] is left in the window; post[3] and older are before `since`.
    expect(ids(next.body)).toEqual([fixture.posts[2]]);
  });

  it('renames keys with .as(alias)', async () => {
    const reply = await getOwn(`/v25.0/${bluebottle}`, {
      fields: 'username.as(handle),followers_count.as(fans),media.limit(1).as(latest){caption.as(text)}',
    });
    expectOk(reply);
    expect(reply.body).toEqual({
      handle: 'bluebottle',
      fans: 1200,
      latest: {
        data: [{ text: 'Post 0 #coffee', id: fixture.posts[0] }],
        paging: {
          cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) },
          next: expect.stringContaining(`/v25.0/${bluebottle}/media?`),
        },
      },
      id: bluebottle,
    });
  });

  it('refuses an alias that is not a name with (#100) Unknown fields', async () => {
    expectGraphError(await getOwn(`/v25.0/${bluebottle}`, { fields: 'username.as(1bad)' }), {
      message: '(#100) Unknown fields: 1bad.',
      code: 100,
    });
    expectGraphError(await getOwn(`/v25.0/${bluebottle}`, { fields: 'username.as(my-name)' }), {
      message: '(#100) Unknown fields: my-name.',
      code: 100,
    });
  });

  describe('business_discovery (parent-platform host)', () => {
    const discover = (username: string, selection: string) =>
      getParent(`/v25.0/${bluebottle}`, { fields: `business_discovery.username(${username}){${selection}}` });

    it('reads another account’s public fields and media; the nested media paging has cursors only', async () => {
      const reply = await discover('roaster', 'followers_count,media_count,media.limit(2){id,like_count}');
      expectOk(reply);
      expect(reply.body).toEqual({
        business_discovery: {
          followers_count: 50,
          media_count: 2,
          media: {
            data: [
              { id: fixture.media.roasterPost, like_count: 5 },
              { id: roasterSecondPost, like_count: 2 },
            ],
            paging: { cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) } },
          },
          id: fixture.accounts.roaster,
        },
        id: bluebottle,
      });
      // More pages exist, still no links.
      const partial = await discover('roaster', 'media.limit(1){id}');
      expect(partial.body.business_discovery.media).toEqual({
        data: [{ id: fixture.media.roasterPost }],
        paging: { cursors: { before: expect.stringMatching(CURSOR), after: expect.stringMatching(CURSOR) } },
      });
    });

    it('reads every public field of an account', async () => {
      const reply = await discover('cafe', 'id,username,biography,website,followers_count,media_count,alt_text');
      expectOk(reply);
      expect(reply.body).toEqual({
        business_discovery: { id: cafe, username: 'cafe', biography: '', website: '', followers_count: 9, media_count: 1 },
        id: bluebottle,
      });
    });

    it('refuses non-public fields of an account the app user does not manage', async () => {
      for (const field of ['follows_count', 'name', 'profile_picture_url', 'is_published', 'stories']) {
        expectGraphError(await discover('cafe', field), unknownField(field));
      }
    });

    it('refuses non-public fields through business_discovery even for an account the app user also manages', async () => {
      // ana has a role on roaster's page too; business_discovery still shows public fields only (reference §2.2).
      expectGraphError(await discover('roaster', 'follows_count'), unknownField('follows_count'));
      expectGraphError(await discover('roaster', 'name'), unknownField('name'));
    });

    it('refuses an unknown, age-gated or personal username with 100', async () => {
      for (const username of ['nobody', 'shady', 'fan_one']) {
        expectGraphError(await discover(username, 'id'), invalidParameter(`Cannot find User with username: ${username}`));
      }
      expectGraphError(await getParent(`/v25.0/${bluebottle}`, { fields: 'business_discovery{id}' }), missingParameter('username'));
    });

    it('is an unknown field on the own-login host', async () => {
      expectGraphError(
        await getOwn(`/v25.0/${bluebottle}`, { fields: 'business_discovery.username(roaster){followers_count}' }),
        unknownField('business_discovery'),
      );
    });
  });

  describe('mentioned_media (parent-platform host)', () => {
    it('reads a media object whose caption mentions the account: @ removed, username but no owner', async () => {
      const reply = await getParent(`/v25.0/${bluebottle}`, {
        fields: `mentioned_media.media_id(${cafePost}){caption,owner,username,like_count}`,
      });
      expectOk(reply);
      expect(reply.body).toEqual({
        mentioned_media: { caption: 'Beans from bluebottle and roaster', username: 'cafe', like_count: 0, id: cafePost },
        id: bluebottle,
      });
      const bare = await getParent(`/v25.0/${bluebottle}`, { fields: `mentioned_media.media_id(${cafePost})` });
      expect(bare.body).toEqual({ mentioned_media: { id: cafePost }, id: bluebottle });
    });

    it('strips @ and leaves owner out for roaster’s post too: it is not the mentioned account’s own media', async () => {
      const reply = await getParent(`/v25.0/${bluebottle}`, {
        fields: `mentioned_media.media_id(${fixture.media.roasterPost}){caption,owner,username}`,
      });
      expectOk(reply);
      expect(reply.body).toEqual({
        mentioned_media: { caption: 'Beans by bluebottle', username: 'roaster', id: fixture.media.roasterPost },
        id: bluebottle,
      });
    });

    it('answers 100/33 for media that does not mention the account, and needs media_id', async () => {
      expectGraphError(
        await getParent(`/v25.0/${bluebottle}`, { fields: `mentioned_media.media_id(${roasterSecondPost}){caption}` }),
        unsupported('get', roasterSecondPost),
      );
      expectGraphError(await getParent(`/v25.0/${bluebottle}`, { fields: 'mentioned_media{caption}' }), missingParameter('media_id'));
    });

    it('is an unknown field on the own-login host', async () => {
      expectGraphError(
        await getOwn(`/v25.0/${bluebottle}`, { fields: `mentioned_media.media_id(${fixture.media.roasterPost}){caption}` }),
        unknownField('mentioned_media'),
      );
    });
  });

  describe('malformed fields', () => {
    it.each([
      ['id,,text', syntaxError('Expected name.', 3, 'id,,text')],
      ['media{id', syntaxError('Expected "}".', 8, 'media{id')],
      ['media.limit(5', syntaxError('Expected ")".', 13, 'media.limit(5')],
      ['media{id}}', syntaxError('Expected end of string instead of "}".', 9, 'media{id}}')],
      ['media.limit(2).limit(3)', syntaxError('Modifier limit given twice.', 15, 'media.limit(2).limit(3)')],
    ])('refuses %s with 2500 and the parser’s message', async (fields, expected) => {
      expectGraphError(await getOwn(`/v25.0/${bluebottle}`, { fields }), expected);
      expectGraphError(await getParent(`/v25.0/${bluebottle}`, { fields }), expected);
    });

    it('refuses a limit that is not a number with 100', async () => {
      expectGraphError(
        await getOwn(`/v25.0/${bluebottle}`, { fields: 'media.limit(a)' }),
        invalidParameter('The parameter limit must be a non-negative integer, got "a".'),
      );
    });

    it('refuses nesting deeper than 16 levels as a syntax error, and reads 16 levels as fields', async () => {
      const deep = `${'media{'.repeat(17)}id${'}'.repeat(17)}`;
      // The 17th "{" is at offset 6 × 16 + 5.
      expectGraphError(await getOwn(`/v25.0/${bluebottle}`, { fields: deep }), syntaxError('Nesting deeper than 16 levels.', 101, deep));
      const sixteen = `${'media{'.repeat(16)}id${'}'.repeat(16)}`;
      // Parsed; a media object has no media field.
      expectGraphError(await getOwn(`/v25.0/${bluebottle}`, { fields: sixteen }), unknownField('media', 'SocialMedia'));
    });

    it('refuses a modifier the field does not take', async () => {
      expectGraphError(
        await getOwn(`/v25.0/${bluebottle}`, { fields: 'username.limit(2)' }),
        invalidParameter('The modifier .limit() is not supported on the field username.'),
      );
    });
  });
});
