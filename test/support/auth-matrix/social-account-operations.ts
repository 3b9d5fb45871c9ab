import {
  ADS_MANAGEMENT,
  bmFullToken,
  BUSINESS_MANAGEMENT,
  CATALOG,
  json,
  notOnHost,
  othersOf,
  PRE,
  PSL,
  ritaToken,
  roasterToken,
  rule,
  SB,
  SBB,
  SBCP,
  SBMC,
  SBMI,
  SCP,
  SHOP_TAGS,
  SMC,
  SMI,
  SMUE,
  strangerToken,
  type SocialOperation,
  type Target,
  type Transport,
} from './social-operations.ts';
import { WORLD_TEXTS, type Host, type WorldIds } from './social-world.ts';

/**
 * Area C: the professional account, `/me` on both hosts, every edge and field expansion of the README's table, the media
 * node and the container node.
 *
 * Requirements as the reference gives them (§2.2's edge table for the parent-platform host, "yes (…)" for the own-login
 * host, §4 for what each kind of operation adds). Where §2.2 writes a permission in parentheses after another
 * (`pages_read_engagement (pages_show_list)`) it is read as "or", as its media row spells out. Where the reference names no
 * requirement of its own (the media and container nodes, `/me/accounts`) the nearest row applies: a media node is a media
 * read, a container is what a publishing POST made, and `/me/accounts` with `social_business_account{…}` reads accounts.
 */

const VERSION_PREFIX = '/v25.0';
const PUBLISH_TASKS = ['MANAGE', 'CREATE_CONTENT'] as const;
const MENTION_TASKS = ['MANAGE', 'CREATE_CONTENT', 'MODERATE'] as const;

const account = async (world: { ids: WorldIds }): Promise<Target> => ({ account: world.ids.bluebottle });
/** bluebottle's own values, which no refusal may show. */
const accountSecrets = () => [json('Blue Bottle Coffee'), json('Coffee roasters since 2002'), json('https://bluebottle.example')];
const byTransport = (rest: string, graphql: string) => (_ids: WorldIds, transport: Transport) => [transport === 'rest' ? rest : graphql];

/** An edge read: GET /{account}/<edge> and `account(id) { <selection> }`. */
function edgeRead(
  key: string,
  edge: string,
  graphqlSelection: string,
  access: Pick<SocialOperation, 'own' | 'parent'>,
  secrets: SocialOperation['secrets'],
  params: Record<string, string> = {},
): SocialOperation {
  return {
    key,
    area: 'C',
    label: { rest: `GET ${VERSION_PREFIX}/{account-id}/${edge}`, graphql: `account(id) { ${graphqlSelection.split(/[ ({]/, 1)[0]} }` },
    ...access,
    target: account,
    rest: (t) => ({ method: 'GET', path: `${VERSION_PREFIX}/${t.account}/${edge}`, params }),
    graphql: (t) => ({ query: `query Edge($id: ID!) { account(id: $id) { ${graphqlSelection} } }`, variables: { id: t.account } }),
    secrets,
    reads: true,
    wrongOwner: othersOf('account', 'get'),
  };
}

/** A field expansion on the account node: GET /{account}?fields=<expansion>. */
function expansion(
  key: string,
  fields: (t: Target) => string,
  graphqlSelection: (t: Target) => string,
  access: Pick<SocialOperation, 'own' | 'parent'>,
  secrets: SocialOperation['secrets'],
): SocialOperation {
  const name = key.replace(/^account\./, '');
  return {
    key,
    area: 'C',
    label: { rest: `GET ${VERSION_PREFIX}/{account-id}?fields=${name}…`, graphql: `account(id) { ${name} }` },
    ...access,
    target: mentionTarget,
    rest: (t) => ({ method: 'GET', path: `${VERSION_PREFIX}/${t.account}`, params: { fields: fields(t) } }),
    graphql: (t) => ({ query: `query Expand($id: ID!) { account(id: $id) { ${graphqlSelection(t)} } }`, variables: { id: t.account } }),
    secrets,
    reads: true,
    wrongOwner: othersOf('account', 'get'),
  };
}

/** bluebottle, and the mention of it: roaster's post whose caption mentions @bluebottle and fan_one's comment that does. */
const mentionTarget = async (world: { ids: WorldIds }): Promise<Target> => ({
  account: world.ids.bluebottle,
  roasterComment: world.ids.roasterComment,
  roasterPost: world.ids.roasterPost,
});

/** A write to an account edge: POST /{account}/<edge> and a mutation taking the account id. */
function edgeWrite(
  key: string,
  edge: string,
  graphqlLabel: string,
  mutation: string,
  access: Pick<SocialOperation, 'own' | 'parent'>,
  params: (t: Target) => Record<string, string>,
  variables: (t: Target) => Record<string, unknown>,
  extra: Partial<SocialOperation> = {},
): SocialOperation {
  return {
    key,
    area: 'C',
    label: { rest: `POST ${VERSION_PREFIX}/{account-id}/${edge}`, graphql: graphqlLabel },
    ...access,
    target: account,
    rest: (t) => ({ method: 'POST', path: `${VERSION_PREFIX}/${t.account}/${edge}`, params: params(t) }),
    graphql: (t) => ({ query: mutation, variables: variables(t) }),
    secrets: accountSecrets,
    reads: false,
    wrongOwner: othersOf('account', 'post'),
    ...extra,
  };
}

const ownRead = rule([[SBB]], false);

export const ACCOUNT_OPERATIONS: readonly SocialOperation[] = [
  {
    key: 'account.read',
    area: 'C',
    label: { rest: `GET ${VERSION_PREFIX}/{account-id}`, graphql: 'account(id)' },
    own: ownRead,
    parent: rule([[SB], [PRE]], true),
    target: account,
    rest: (t) => ({
      method: 'GET',
      path: `${VERSION_PREFIX}/${t.account}`,
      params: { fields: 'id,username,name,biography,website,followers_count' },
    }),
    graphql: (t) => ({
      query: 'query Account($id: ID!) { account(id: $id) { id username name biography website followersCount } }',
      variables: { id: t.account },
    }),
    secrets: accountSecrets,
    reads: true,
    wrongOwner: {
      own: othersOf('account', 'get').own!,
      parent: [
        ...othersOf('account', 'get').parent!,
        {
          label: "with rita's token (a role on roaster's page only)",
          token: ritaToken,
          error: { kind: 'unknownObject', method: 'get', object: 'account' },
        },
      ],
    },
  },
  {
    key: 'me',
    area: 'C',
    label: { rest: `GET ${VERSION_PREFIX}/me`, graphql: 'me / platformUser' },
    own: ownRead,
    // §4: on the parent-platform host /me is the user behind the token; no permission is documented for it.
    parent: rule([], false),
    target: async () => ({}),
    rest: (_t, host) => ({
      method: 'GET',
      path: `${VERSION_PREFIX}/me`,
      params: { fields: host === 'own' ? 'id,username,name,biography' : 'id,name' },
    }),
    graphql: (_t, host) => ({
      query: host === 'own' ? '{ me { id username name biography } }' : '{ platformUser { id name } }',
      variables: {},
    }),
    secrets: (_ids, _transport, host: Host) => (host === 'own' ? accountSecrets() : [json('Ana')]),
    reads: true,
    wrongOwner: {},
    wrongOwnerNotApplicable: '/me is always the token’s own account or user',
  },
  {
    key: 'me.accounts',
    area: 'C',
    label: { rest: `GET ${VERSION_PREFIX}/me/accounts`, graphql: 'platformUser { accounts }' },
    own: {
      kind: 'absent',
      reason: 'on the own-login host /me is the account itself; /me/accounts is the parent-platform user’s page list',
    },
    parent: rule([[SB], [PRE]], true),
    target: async () => ({}),
    rest: () => ({
      method: 'GET',
      path: `${VERSION_PREFIX}/me/accounts`,
      params: { fields: 'name,social_business_account{id,username,name}' },
    }),
    graphql: () => ({ query: '{ platformUser { accounts { name socialBusinessAccount { id username name } } } }', variables: {} }),
    secrets: () => [json('Blue Bottle Coffee')],
    reads: true,
    partialGraphqlRefusal: 'the user’s own page list needs no permission; only each page’s linked account is refused',
    wrongOwner: {},
    wrongOwnerNotApplicable: 'the list holds only the token’s own user’s pages',
  },
  edgeRead(
    'account.media',
    'media',
    'media { nodes { id caption } }',
    { own: ownRead, parent: rule([[SB], [PRE, PSL]], true) },
    () => [json('Post 0 #coffee')],
    {
      fields: 'id,caption',
    },
  ),
  edgeWrite(
    'account.media.create',
    'media',
    'createMediaContainer(accountId, input)',
    'mutation Create($id: ID!) { createMediaContainer(accountId: $id, input: { imageUrl: "https://cdn.example.com/am.jpg", caption: "AM" }) { id } }',
    { own: rule([[SBB], [SBCP]], false), parent: rule([[SB], [SCP], [PRE, PSL]], true, PUBLISH_TASKS) },
    () => ({ image_url: 'https://cdn.example.com/am.jpg', caption: 'AM' }),
    (t) => ({ id: t.account }),
  ),
  edgeWrite(
    'account.media_publish',
    'media_publish',
    'publishMediaContainer(accountId, creationId)',
    'mutation Publish($id: ID!, $creation: ID) { publishMediaContainer(accountId: $id, creationId: $creation) { id } }',
    { own: rule([[SBB], [SBCP]], false), parent: rule([[SB], [SCP], [PRE, PSL]], true, PUBLISH_TASKS) },
    (t) => ({ creation_id: t.container! }),
    (t) => ({ id: t.account, creation: t.container }),
    {
      // A fresh container per cell: a wrongly allowed publication must not make the next cell's container unusable.
      target: async (world) => ({ account: world.ids.bluebottle, container: await world.freshContainer() }),
      wrongOwner: {
        own: [
          {
            label: "with roaster's token (another account)",
            token: roasterToken,
            error: { kind: 'unknownObject', method: 'post', object: 'account' },
          },
          {
            label: "with roaster's token publishing bluebottle's container on roaster's own account",
            token: roasterToken,
            target: async (world) => ({ account: world.ids.roaster, container: await world.freshContainer() }),
            error: { kind: 'publishingNotFound', object: 'container' },
          },
        ],
        parent: [
          {
            label: 'with the token of a user with no page role (stranger)',
            token: strangerToken,
            error: { kind: 'unknownObject', method: 'post', object: 'account' },
          },
          {
            label: "with rita's token publishing bluebottle's container on roaster's account",
            token: ritaToken,
            target: async (world) => ({ account: world.ids.roaster, container: await world.freshContainer() }),
            error: { kind: 'publishingNotFound', object: 'container' },
          },
        ],
      },
    },
  ),
  edgeRead(
    'account.insights',
    'insights',
    'insights(metric: ["reach"], period: "day") { data { name values { value } } }',
    { own: rule([[SBB], [SBMI]], false), parent: rule([[SB], [SMI], [PRE, PSL]], true) },
    () => [json('reach')],
    { metric: 'reach', period: 'day' },
  ),
  edgeRead(
    'account.content_publishing_limit',
    'content_publishing_limit',
    'contentPublishingLimit { quotaUsage }',
    { own: rule([[SBB], [SBCP]], false), parent: rule([[SB], [SCP], [PRE]], true) },
    byTransport(json('quota_usage'), json('quotaUsage')),
  ),
  edgeRead(
    'account.recently_searched_hashtags',
    'recently_searched_hashtags',
    'recentlySearchedHashtags { id name }',
    { own: notOnHost('recently_searched_hashtags'), parent: rule([[SB]], true) },
    () => [json('specialtycoffee')],
    { fields: 'id,name' },
  ),
  edgeRead(
    'account.upcoming_events',
    'upcoming_events',
    'upcomingEvents { nodes { id title } }',
    { own: notOnHost('upcoming_events'), parent: rule([[SB], [SMUE]], false) },
    () => [json('Spring collection live launch')],
  ),
  edgeWrite(
    'account.upcoming_events.create',
    'upcoming_events',
    'createUpcomingEvent(accountId, input)',
    'mutation Event($id: ID!) { createUpcomingEvent(accountId: $id, input: { title: "AM event", startTime: "2026-11-20T18:00:00Z" }) { id } }',
    { own: notOnHost('upcoming_events'), parent: rule([[SB], [SMUE]], false) },
    () => ({ title: 'AM event', start_time: '2026-11-20T18:00:00+0000' }),
    (t) => ({ id: t.account }),
  ),
  edgeRead(
    'account.agencies',
    'agencies',
    'agencies { nodes { id name } }',
    { own: notOnHost('agencies'), parent: rule([[ADS_MANAGEMENT, BUSINESS_MANAGEMENT]], false) },
    () => [json('Northwind Creative Agency')],
  ),
  edgeRead(
    'account.authorized_adaccounts',
    'authorized_adaccounts',
    'authorizedAdAccounts { nodes { id name } }',
    { own: notOnHost('authorized_adaccounts'), parent: rule([[ADS_MANAGEMENT, BUSINESS_MANAGEMENT]], false) },
    () => [json('Northwind Creative Agency — Main')],
    { fields: 'id,name' },
  ),
  edgeWrite(
    'account.authorized_adaccounts.create',
    'authorized_adaccounts',
    'authorizeAdAccount(accountId, adAccountId, business)',
    'mutation Authorize($id: ID!, $ad: ID, $business: ID) { authorizeAdAccount(accountId: $id, adAccountId: $ad, business: $business) { success } }',
    { own: notOnHost('authorized_adaccounts'), parent: rule([[ADS_MANAGEMENT, BUSINESS_MANAGEMENT]], false, undefined, true) },
    (t) => ({ account_id: t.adAccount!, business: t.business! }),
    (t) => ({ id: t.account, ad: t.adAccount, business: t.business }),
    {
      target: async (world) => ({ account: world.ids.bluebottle, adAccount: world.ids.acmeAdAccount, business: world.ids.acme }),
      wrongOwner: {
        parent: [
          ...othersOf('account', 'post').parent!,
          // §2.2: authorising an ad account needs the business's ADMIN; bm has a role on the page but administers nothing.
          {
            label: 'with bm’s token (page role, every permission, not an admin of the business)',
            token: bmFullToken,
            error: { kind: 'notAllowed' },
          },
        ],
      },
    },
  ),
  edgeRead(
    'account.stories',
    'stories',
    'stories { nodes { id caption } }',
    { own: ownRead, parent: rule([[SB], [SMI], [PRE], [PSL]], false) },
    () => [json('Story')],
    {
      fields: 'id,caption',
    },
  ),
  edgeRead(
    'account.live_media',
    'live_media',
    'liveMedia { nodes { id caption } }',
    { own: ownRead, parent: rule([[SB], [PRE]], true) },
    () => [json('Live now')],
    {
      fields: 'id,caption',
    },
  ),
  edgeRead(
    'account.tags',
    'tags',
    'tags { nodes { id caption } }',
    { own: ownRead, parent: rule([[SB], [SMC], [PRE, PSL]], true) },
    () => [json('Beans by bluebottle'), json('Beans by @bluebottle')],
    { fields: 'id,caption' },
  ),
  edgeWrite(
    'account.mentions',
    'mentions',
    'replyToMention(accountId, mediaId, commentId, message)',
    'mutation Mention($id: ID!, $media: ID, $comment: ID) { replyToMention(accountId: $id, mediaId: $media, commentId: $comment, message: "AM thanks") { id } }',
    { own: rule([[SBB], [SBMC]], false), parent: rule([[SB], [SMC], [PRE], [PSL]], true) },
    (t) => ({ media_id: t.roasterPost!, comment_id: t.roasterComment!, message: 'AM thanks' }),
    (t) => ({ id: t.account, media: t.roasterPost, comment: t.roasterComment }),
    {
      target: mentionTarget,
      secrets: () => [json('Ask @bluebottle')],
    },
  ),
  expansion(
    'account.business_discovery',
    () => 'business_discovery.username(roaster){username,biography,followers_count}',
    () => 'businessDiscovery(username: "roaster") { username biography followersCount }',
    { own: notOnHost('business_discovery'), parent: rule([[SB], [SMI], [PRE, PSL]], true) },
    () => [json('Beans')],
  ),
  expansion(
    'account.mentioned_comment',
    (t) => `mentioned_comment.comment_id(${t.roasterComment}){id,text}`,
    (t) => `mentionedComment(commentId: "${t.roasterComment}") { id text }`,
    { own: notOnHost('mentioned_comment'), parent: rule([[SB], [SMC], [PRE], [PSL]], true, MENTION_TASKS) },
    () => [json('Ask @bluebottle')],
  ),
  expansion(
    'account.mentioned_media',
    (t) => `mentioned_media.media_id(${t.roasterPost}){id,caption}`,
    (t) => `mentionedMedia(mediaId: "${t.roasterPost}") { id caption }`,
    { own: notOnHost('mentioned_media'), parent: rule([[SB], [SMC], [PRE], [PSL]], true, MENTION_TASKS) },
    () => [json('Beans by bluebottle'), json('Beans by @bluebottle')],
  ),
  expansion(
    'account.shopping_product_tag_eligibility',
    () => 'shopping_product_tag_eligibility',
    () => 'shoppingProductTagEligibility',
    // An account read (§2.1) plus the two shop permissions ("also needed", spec Authentication).
    { own: notOnHost('shopping_product_tag_eligibility'), parent: rule([[SB], [PRE], [CATALOG], [SHOP_TAGS]], true) },
    byTransport('"shopping_product_tag_eligibility":true', '"shoppingProductTagEligibility":true'),
  ),
  {
    key: 'media.read',
    area: 'C',
    label: { rest: `GET ${VERSION_PREFIX}/{media-id}`, graphql: 'media(id)' },
    own: ownRead,
    parent: rule([[SB], [PRE, PSL]], true),
    target: async (world) => ({ media: world.ids.post0 }),
    rest: (t) => ({ method: 'GET', path: `${VERSION_PREFIX}/${t.media}`, params: { fields: 'id,caption,like_count' } }),
    graphql: (t) => ({ query: 'query Media($id: ID!) { media(id: $id) { id caption likeCount } }', variables: { id: t.media } }),
    secrets: () => [json('Post 0 #coffee')],
    reads: true,
    wrongOwner: othersOf('media', 'get'),
  },
  {
    key: 'container.read',
    area: 'C',
    label: { rest: `GET ${VERSION_PREFIX}/{container-id}`, graphql: 'mediaContainer(id)' },
    own: rule([[SBB], [SBCP]], false),
    parent: rule([[SB], [SCP], [PRE, PSL]], true, PUBLISH_TASKS),
    target: async (world) => ({ container: world.ids.container }),
    rest: (t) => ({ method: 'GET', path: `${VERSION_PREFIX}/${t.container}`, params: { fields: 'id,status_code,caption' } }),
    graphql: (t) => ({
      query: 'query Container($id: ID!) { mediaContainer(id: $id) { id statusCode caption } }',
      variables: { id: t.container },
    }),
    secrets: () => [json(WORLD_TEXTS.containerCaption)],
    reads: true,
    wrongOwner: othersOf('container', 'get'),
  },
];
