import { appAccessToken } from '../../lib/auth/social-auth/social-token.service.ts';
import { ADMIN_ROLE, ANONYMOUS, type TokenService } from '../../lib/auth/auth.ts';
import type { Config } from '../../lib/config.ts';
import type { DatabaseHandle } from '../../lib/database/database.ts';
import { AlreadyExistsError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import { createCursorCodec } from '../../lib/social-graph/cursor.ts';
import { seedDemoEdges } from '../../subgraphs/accounts/demo/seed-demo-edges.ts';
import { createOAuthCredentialStore, createSocialTokens, createSubgraphs } from '../../subgraphs/index.ts';
import {
  loadSocialDemoGraph,
  OWN_LOGIN_PERMISSIONS,
  PARENT_PLATFORM_PERMISSIONS,
} from '../../subgraphs/shared/social-graph/social-demo-graph.ts';
import { createSocialGraphBuilder } from '../../subgraphs/shared/social-graph/social-graph-builder.ts';
import type { SocialTables } from '../../subgraphs/shared/social-graph/social-tables.ts';
import type { CreateUserExampleInput } from '../../subgraphs/users/user-example.types.ts';

/**
 * The demo data of `npm run seed`, loaded into a migrated database, and what a newcomer needs to use it: ids and
 * ready-to-use tokens for every area, as one JSON-ready object. Idempotent: records that exist are kept (their ids come
 * back again); tokens and OAuth credentials are new on every run (old ones stay valid until they expire).
 *
 * Called by `npm run seed` on a database it opened itself, and — on the embedded database, which one process at a time
 * may open — by the running `npm start` when the seed command asks it to (bin/tools/command-channel.ts). Tokens are minted with the
 * configuration of whoever runs it, so they are valid against the servers of that configuration.
 */

const DEMO_USERS: CreateUserExampleInput[] = [
  {
    name: 'Li Wei',
    email: 'li.wei@example.com',
    password: 'demo-password-1',
    phone: '13800138001',
    avatar: 'https://example.com/avatars/li.png',
    age: 34,
    gender: 1,
  },
  {
    name: 'Zhang Min',
    email: 'zhang.min@example.com',
    password: 'demo-password-2',
    phone: '13900139002',
    avatar: 'https://example.com/avatars/zhang.png',
    age: 28,
    gender: 2,
  },
  {
    name: 'Chen Jie',
    email: 'chen.jie@example.com',
    password: 'demo-password-3',
    phone: '15000150003',
    avatar: 'https://example.com/avatars/chen.png',
    age: 45,
    gender: 0,
  },
  {
    name: 'Wang Fang',
    email: 'wang.fang@example.com',
    password: 'demo-password-4',
    phone: '18600186004',
    avatar: 'https://example.com/avatars/wang.png',
    age: 19,
    gender: 2,
  },
];

export interface SeedDemoDataDeps {
  config: Config;
  /** A migrated database. */
  database: DatabaseHandle;
  tokens: TokenService;
  logger: Logger;
  /**
   * The base URLs the output names: the REST listeners as they listen (a running system knows them, ports 0 included);
   * by default those the configuration gives.
   */
  urls?: { ownLogin: string; parentPlatform: string };
}

/** Loads the demo data and returns the seed's output (ids and tokens per area). */
export async function seedDemoData(deps: SeedDemoDataDeps): Promise<Record<string, unknown>> {
  const { config, database, tokens, logger } = deps;
  const urls = deps.urls ?? {
    ownLogin: `http://${config.publicHost}:${config.rest.port}`,
    parentPlatform: `http://${config.publicHost}:${config.social.parentPort}`,
  };
  const { users } = createSubgraphs({ config, database, tokens, logger }, ['users']);
  const admin = tokens.mint({ sub: 'admin', roles: [ADMIN_ROLE] }, { expiresIn: '30d' });
  const adminActor = tokens.authenticate(`Bearer ${admin}`);
  const userExamples: { id: string; email: string; token: string }[] = [];
  for (const input of DEMO_USERS) {
    let id: string;
    try {
      id = (await users!.service.create(ANONYMOUS, input)).id;
    } catch (error) {
      if (!(error instanceof AlreadyExistsError)) throw error;
      const page = await users!.service.list(adminActor, { columns: [{ name: 'email', value: input.email }] });
      id = page.userExamples[0]!.id;
    }
    userExamples.push({ id, email: input.email, token: tokens.mint({ sub: id }, { expiresIn: '30d' }) });
  }
  const social = await seedSocialGraph(config, database, urls);
  const media = await seedMediaCredentials(database, urls.ownLogin, social.ids.accounts);
  return { areaA: { adminToken: admin, userExamples }, social: social.output, media };
}

/** The app the seed's social tokens are issued to. */
const DEMO_APP_NAME = 'Tributary demo app';

/** Areas B and C: the demo graph, and tokens for both hosts (new ones on every run; old ones stay valid until they expire). */
async function seedSocialGraph(config: Config, database: DatabaseHandle, urls: { ownLogin: string; parentPlatform: string }) {
  const db = database.db.withTables<SocialTables>();
  const graph = await loadSocialDemoGraph(db, createSocialGraphBuilder(db));
  // Events, hashtag searches, agencies, ad accounts and 35 days of insights (idempotent).
  const edges = await seedDemoEdges(
    { db, codec: createCursorCodec(config.social.cursorSecret), now: () => new Date() },
    graph.accounts.bluebottle,
  );
  const socialTokens = createSocialTokens(database);
  // The demo app (kept across runs): the tokens below are issued to it, and its secret signs its webhook deliveries.
  const app =
    (await socialTokens.listApps()).find((found) => found.name === DEMO_APP_NAME) ?? (await socialTokens.createApp(DEMO_APP_NAME));
  const issue = (loginType: 'own' | 'parent', subjectId: string, permissions: readonly string[], label: string) =>
    socialTokens.issue({ loginType, subjectId, permissions, expiresInSeconds: config.social.tokenLifetimeSeconds, label, appId: app.id });
  const own = (permissions: readonly string[], label: string, subject = graph.accounts.bluebottle) =>
    issue('own', subject, permissions, label);
  const parent = (permissions: readonly string[], label: string, subject = graph.platformUsers.ana) =>
    issue('parent', subject, permissions, label);
  const output = {
    hosts: { ownLogin: urls.ownLogin, parentPlatform: urls.parentPlatform },
    ids: { ...graph, upcomingEvents: edges.eventIds, adAccounts: edges.adAccountIds },
    app: { id: app.id, name: app.name, secret: app.secret, accessToken: appAccessToken(app) },
    tokens: {
      ownLogin: {
        mediaOwner: await own(OWN_LOGIN_PERMISSIONS, 'seed: bluebottle, every permission'),
        commenter: await own(OWN_LOGIN_PERMISSIONS, 'seed: roaster, every permission', graph.accounts.roaster),
        withoutCommentPermission: await own(['social_business_basic'], 'seed: bluebottle, social_business_basic only'),
      },
      parentPlatform: {
        pageAdmin: await parent(PARENT_PLATFORM_PERMISSIONS, 'seed: Ana, every permission'),
        businessManagerRoleWithoutAds: await parent(
          PARENT_PLATFORM_PERMISSIONS.filter((permission) => !permission.startsWith('ads_')),
          'seed: Bea (business-manager role), no ads permission',
          graph.platformUsers.bea,
        ),
        withoutPagesReadEngagement: await parent(['social_basic', 'pages_show_list'], 'seed: Ana, social_basic + pages_show_list'),
      },
    },
  };
  return { output, ids: graph };
}

/**
 * Area D: a demo app (OAuth 1.0a consumer) with access tokens for two accounts, and an app-only bearer token (which the
 * upload refuses with 220, as the reference does). New credentials on every run.
 */
async function seedMediaCredentials(database: DatabaseHandle, ownLoginUrl: string, accounts: { bluebottle: string; roaster: string }) {
  const credentials = createOAuthCredentialStore(database);
  const app = await credentials.createConsumer('seed: Tributary demo app');
  const user = async (userId: string) => ({ userId, ...(await credentials.issueAccessToken(app.consumerKey, userId)) });
  return {
    uploadUrl: `${ownLoginUrl}/1.1/media/upload.json`,
    oauth1: {
      ...app,
      users: { bluebottle: await user(accounts.bluebottle), roaster: await user(accounts.roaster) },
    },
    appOnlyBearerToken: await credentials.issueAppToken(app.consumerKey),
    bearer: 'OAuth 2.0 user tokens: any social token above (Authorization: Bearer <token>)',
  };
}
