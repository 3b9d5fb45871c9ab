import {
  json,
  PMM,
  PRE,
  PSL,
  ritaToken,
  rule,
  SB,
  SBB,
  SBMC,
  SMC,
  strangerToken,
  type HostAccess,
  type SocialOperation,
  type Target,
  type WrongOwnerCase,
} from './social-operations.ts';
import { MATRIX_VERIFY_TOKEN, WORLD_TEXTS, type WorldIds } from './social-world.ts';

/**
 * Webhook subscriptions (reference §6.1, §6.3, §6.6): an app's own subscriptions (`/{app-id}/subscriptions`, parent-platform
 * host), whose credential is the app access token — no user permission applies, and any other token is 15 — and an
 * account's subscription to the token's app: `/me/subscribed_apps` on the own-login host, `/{page-id}/subscribed_apps` on
 * the parent-platform host (bluebottle's page, on which ana has a direct role with every task).
 *
 * Requirements as §6.6 gives them for the comments fields (own-login host: social_business_basic and
 * social_business_manage_comments; parent-platform host: social_basic, social_manage_comments, pages_manage_metadata,
 * pages_read_engagement, pages_show_list) and §6.3 for the page: a person with CREATE_CONTENT, MANAGE or MODERATE on it. The
 * reference names no business-manager condition for these edges.
 *
 * The writes leave what the reads show as it was, whatever order concurrent cells run in: an app's subscription keeps
 * its comments and mentions (the writes add and remove live_comments only), and the account stays subscribed to an app
 * no cell's token is issued to (the writes subscribe and unsubscribe the matrix app, to which every user token is issued).
 */

const VERSION_PREFIX = '/v25.0';

const APP_ONLY_ON_PARENT: HostAccess = {
  kind: 'absent',
  reason:
    "an app's subscriptions are the parent-platform host's (§6.1); GraphQL's field takes no host, so the parent-platform " +
    'door covers it',
};
const ME_ONLY_ON_OWN: HostAccess = {
  kind: 'absent',
  reason:
    "/me/subscribed_apps is the own-login host's (§6.3); the parent-platform host's is /{page-id}/subscribed_apps (no page tokens here)",
};
const PAGE_ONLY_ON_PARENT: HostAccess = {
  kind: 'absent',
  reason: 'pages are the parent-platform host’s: the own-login host subscribes /me',
};

const ownRule = rule([[SBB], [SBMC]], false);
const pageRule = rule([[SB], [SMC], [PMM], [PRE], [PSL]], false, ['MANAGE', 'CREATE_CONTENT', 'MODERATE']);

const app = async (world: { ids: WorldIds }): Promise<Target> => ({ app: world.ids.app, callbackUrl: world.ids.callbackUrl });
const page = async (world: { ids: WorldIds }): Promise<Target> => ({ page: world.ids.bluebottlePage });

/** The matrix app's callback: what its subscriptions show and no refusal may. */
const callbackSecret = (ids: WorldIds) => [json(ids.callbackUrl)];
/** The app bluebottle's account is subscribed to: what `subscribed_apps` shows and no refusal may. */
const subscribedAppSecret = () => [json(WORLD_TEXTS.subscribedAppName)];

const otherApp: readonly WrongOwnerCase[] = [
  { label: "with another app's access token", token: { kind: 'app', app: 'other' }, error: { kind: 'appTokenRequired' } },
];

/** A page no role of these users is on does not exist for them (100/33). */
const pageStrangers = (method: 'get' | 'post' | 'delete'): readonly WrongOwnerCase[] => [
  {
    label: 'with the token of a user with no page role (stranger)',
    token: strangerToken,
    error: { kind: 'unknownObject', method, object: 'page' },
  },
  {
    label: "with rita's token (a role on roaster's page only)",
    token: ritaToken,
    error: { kind: 'unknownObject', method, object: 'page' },
  },
];

const ME_NOT_APPLICABLE = '/me is always the token’s own account';

export const WEBHOOK_OPERATIONS: readonly SocialOperation[] = [
  {
    key: 'app.subscriptions.read',
    area: 'C',
    label: { rest: `GET ${VERSION_PREFIX}/{app-id}/subscriptions`, graphql: 'appSubscriptions(appId)' },
    own: APP_ONLY_ON_PARENT,
    parent: { kind: 'app-token' },
    target: app,
    rest: (t) => ({ method: 'GET', path: `${VERSION_PREFIX}/${t.app}/subscriptions` }),
    graphql: (t) => ({
      query: 'query Subscriptions($app: ID!) { appSubscriptions(appId: $app) { object callbackUrl active fields { name version } } }',
      variables: { app: t.app },
    }),
    secrets: callbackSecret,
    reads: true,
    wrongOwner: { parent: otherApp },
  },
  {
    key: 'app.subscriptions.create',
    area: 'C',
    label: { rest: `POST ${VERSION_PREFIX}/{app-id}/subscriptions`, graphql: 'subscribeApp(appId, input)' },
    own: APP_ONLY_ON_PARENT,
    parent: { kind: 'app-token' },
    target: app,
    rest: (t) => ({
      method: 'POST',
      path: `${VERSION_PREFIX}/${t.app}/subscriptions`,
      params: { object: 'social', callback_url: t.callbackUrl!, fields: 'live_comments', verify_token: MATRIX_VERIFY_TOKEN },
    }),
    graphql: (t) => ({
      query: 'mutation Subscribe($app: ID!, $input: AppSubscriptionInput!) { subscribeApp(appId: $app, input: $input) { success } }',
      variables: {
        app: t.app,
        input: { object: 'social', callbackUrl: t.callbackUrl, fields: ['live_comments'], verifyToken: MATRIX_VERIFY_TOKEN },
      },
    }),
    secrets: callbackSecret,
    reads: false,
    wrongOwner: { parent: otherApp },
  },
  {
    key: 'app.subscriptions.delete',
    area: 'C',
    label: {
      rest: `DELETE ${VERSION_PREFIX}/{app-id}/subscriptions?object=social&fields=live_comments`,
      graphql: 'unsubscribeApp(appId, object, fields)',
    },
    own: APP_ONLY_ON_PARENT,
    parent: { kind: 'app-token' },
    target: app,
    rest: (t) => ({
      method: 'DELETE',
      path: `${VERSION_PREFIX}/${t.app}/subscriptions`,
      params: { object: 'social', fields: 'live_comments' },
    }),
    graphql: (t) => ({
      query: 'mutation Unsubscribe($app: ID!) { unsubscribeApp(appId: $app, object: "social", fields: ["live_comments"]) { success } }',
      variables: { app: t.app },
    }),
    secrets: callbackSecret,
    reads: false,
    wrongOwner: { parent: otherApp },
  },
  {
    key: 'me.subscribed_apps.read',
    area: 'C',
    label: { rest: `GET ${VERSION_PREFIX}/me/subscribed_apps`, graphql: 'subscribedApps' },
    own: ownRule,
    parent: ME_ONLY_ON_OWN,
    target: async () => ({}),
    rest: () => ({ method: 'GET', path: `${VERSION_PREFIX}/me/subscribed_apps` }),
    graphql: () => ({ query: '{ subscribedApps { id name subscribedFields } }', variables: {} }),
    secrets: subscribedAppSecret,
    reads: true,
    wrongOwner: {},
    wrongOwnerNotApplicable: ME_NOT_APPLICABLE,
  },
  {
    key: 'me.subscribed_apps.create',
    area: 'C',
    label: { rest: `POST ${VERSION_PREFIX}/me/subscribed_apps`, graphql: 'subscribeAccountToApp(subscribedFields)' },
    own: ownRule,
    parent: ME_ONLY_ON_OWN,
    target: async () => ({}),
    rest: () => ({ method: 'POST', path: `${VERSION_PREFIX}/me/subscribed_apps`, params: { subscribed_fields: 'comments' } }),
    graphql: () => ({ query: 'mutation { subscribeAccountToApp(subscribedFields: ["comments"]) { success } }', variables: {} }),
    secrets: subscribedAppSecret,
    reads: false,
    wrongOwner: {},
    wrongOwnerNotApplicable: ME_NOT_APPLICABLE,
  },
  {
    key: 'me.subscribed_apps.delete',
    area: 'C',
    label: { rest: `DELETE ${VERSION_PREFIX}/me/subscribed_apps`, graphql: 'unsubscribeAccountFromApp' },
    own: ownRule,
    parent: ME_ONLY_ON_OWN,
    target: async () => ({}),
    rest: () => ({ method: 'DELETE', path: `${VERSION_PREFIX}/me/subscribed_apps` }),
    graphql: () => ({ query: 'mutation { unsubscribeAccountFromApp { success } }', variables: {} }),
    secrets: subscribedAppSecret,
    reads: false,
    wrongOwner: {},
    wrongOwnerNotApplicable: ME_NOT_APPLICABLE,
  },
  {
    key: 'page.subscribed_apps.read',
    area: 'C',
    label: { rest: `GET ${VERSION_PREFIX}/{page-id}/subscribed_apps`, graphql: 'subscribedApps(pageId)' },
    own: PAGE_ONLY_ON_PARENT,
    parent: pageRule,
    target: page,
    rest: (t) => ({ method: 'GET', path: `${VERSION_PREFIX}/${t.page}/subscribed_apps` }),
    graphql: (t) => ({
      query: 'query Apps($page: ID) { subscribedApps(pageId: $page) { id name subscribedFields } }',
      variables: { page: t.page },
    }),
    secrets: subscribedAppSecret,
    reads: true,
    wrongOwner: { parent: pageStrangers('get') },
  },
  {
    key: 'page.subscribed_apps.create',
    area: 'C',
    label: { rest: `POST ${VERSION_PREFIX}/{page-id}/subscribed_apps`, graphql: 'subscribeAccountToApp(pageId, subscribedFields)' },
    own: PAGE_ONLY_ON_PARENT,
    parent: pageRule,
    target: page,
    rest: (t) => ({ method: 'POST', path: `${VERSION_PREFIX}/${t.page}/subscribed_apps`, params: { subscribed_fields: 'feed' } }),
    graphql: (t) => ({
      query: 'mutation Subscribe($page: ID) { subscribeAccountToApp(pageId: $page, subscribedFields: ["feed"]) { success } }',
      variables: { page: t.page },
    }),
    secrets: subscribedAppSecret,
    reads: false,
    wrongOwner: { parent: pageStrangers('post') },
  },
  {
    key: 'page.subscribed_apps.delete',
    area: 'C',
    label: { rest: `DELETE ${VERSION_PREFIX}/{page-id}/subscribed_apps`, graphql: 'unsubscribeAccountFromApp(pageId)' },
    own: PAGE_ONLY_ON_PARENT,
    parent: pageRule,
    target: page,
    rest: (t) => ({ method: 'DELETE', path: `${VERSION_PREFIX}/${t.page}/subscribed_apps` }),
    graphql: (t) => ({
      query: 'mutation Unsubscribe($page: ID) { unsubscribeAccountFromApp(pageId: $page) { success } }',
      variables: { page: t.page },
    }),
    secrets: subscribedAppSecret,
    reads: false,
    wrongOwner: { parent: pageStrangers('delete') },
  },
];
