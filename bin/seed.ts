/**
 * npm run seed: loads demo data and prints, as JSON, its ids and ready-to-use tokens. Idempotent: records that exist are
 * kept. Writes to the configured database directly — on the embedded database, stop npm start first (PGlite serves one
 * process at a time; the command says so if it is in use).
 */
import { ADMIN_ROLE, ANONYMOUS, createTokenService } from '../lib/auth/auth.ts';
import { createDatabase, migrateToLatest } from '../lib/database/database.ts';
import { AlreadyExistsError } from '../lib/errors.ts';
import { createCursorCodec } from '../lib/social-graph/cursor.ts';
import { seedDemoEdges } from '../subgraphs/accounts/demo/seed-demo-edges.ts';
import { ALL_MIGRATIONS, createOAuthCredentialStore, createSocialTokens, createSubgraphs } from '../subgraphs/index.ts';
import {
  loadSocialDemoGraph,
  OWN_LOGIN_PERMISSIONS,
  PARENT_PLATFORM_PERMISSIONS,
} from '../subgraphs/shared/social-graph/social-demo-graph.ts';
import { createSocialGraphBuilder } from '../subgraphs/shared/social-graph/social-graph-builder.ts';
import type { SocialTables } from '../subgraphs/shared/social-graph/social-tables.ts';
import type { CreateUserExampleInput } from '../subgraphs/users/user-example.types.ts';
import { prepareProcess } from './process.ts';

const DEMO_USERS: CreateUserExampleInput[] = [
  { name: 'Li Wei', email: 'li.wei@example.com', password: 'demo-password-1', phone: '13800138001', avatar: 'https://example.com/avatars/li.png', age: 34, gender: 1 },
  { name: 'Zhang Min', email: 'zhang.min@example.com', password: 'demo-password-2', phone: '13900139002', avatar: 'https://example.com/avatars/zhang.png', age: 28, gender: 2 },
  { name: 'Chen Jie', email: 'chen.jie@example.com', password: 'demo-password-3', phone: '15000150003', avatar: 'https://example.com/avatars/chen.png', age: 45, gender: 0 },
  { name: 'Wang Fang', email: 'wang.fang@example.com', password: 'demo-password-4', phone: '18600186004', avatar: 'https://example.com/avatars/wang.png', age: 19, gender: 2 },
];

const { config, logger } = prepareProcess('seed');
const database = await createDatabase(config.database);
try {
  await migrateToLatest(database.db, ALL_MIGRATIONS);
  const tokens = createTokenService(config.jwt);
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
  const social = await seedSocialGraph();
  const media = await seedMediaCredentials(social.ids.accounts);
  console.log(JSON.stringify({ areaA: { adminToken: admin, userExamples }, social: social.output, media }, null, 2));
} finally {
  await database.close();
}

/** Areas B and C: the demo graph, and tokens for both hosts (new ones on every run; old ones stay valid until they expire). */
async function seedSocialGraph() {
  const db = database.db.withTables<SocialTables>();
  const graph = await loadSocialDemoGraph(db, createSocialGraphBuilder(db));
  // Events, hashtag searches, agencies, ad accounts and 35 days of insights (idempotent).
  const edges = await seedDemoEdges({ db, codec: createCursorCodec(config.social.cursorSecret), now: () => new Date() }, graph.accounts.bluebottle);
  const socialTokens = createSocialTokens(database);
  const issue = (loginType: 'own' | 'parent', subjectId: string, permissions: readonly string[], label: string) =>
    socialTokens.issue({ loginType, subjectId, permissions, expiresInSeconds: config.social.tokenLifetimeSeconds, label });
  const own = (permissions: readonly string[], label: string, subject = graph.accounts.bluebottle) =>
    issue('own', subject, permissions, label);
  const parent = (permissions: readonly string[], label: string, subject = graph.platformUsers.ana) =>
    issue('parent', subject, permissions, label);
  const output = {
    hosts: {
      ownLogin: `http://${config.publicHost}:${config.rest.port}`,
      parentPlatform: `http://${config.publicHost}:${config.social.parentPort}`,
    },
    ids: { ...graph, upcomingEvents: edges.eventIds, adAccounts: edges.adAccountIds },
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
async function seedMediaCredentials(accounts: { bluebottle: string; roaster: string }) {
  const credentials = createOAuthCredentialStore(database);
  const app = await credentials.createConsumer('seed: Tributary demo app');
  const user = async (userId: string) => ({ userId, ...(await credentials.issueAccessToken(app.consumerKey, userId)) });
  return {
    uploadUrl: `http://${config.publicHost}:${config.rest.port}/1.1/media/upload.json`,
    oauth1: {
      ...app,
      users: { bluebottle: await user(accounts.bluebottle), roaster: await user(accounts.roaster) },
    },
    appOnlyBearerToken: await credentials.issueAppToken(app.consumerKey),
    bearer: 'OAuth 2.0 user tokens: any social token above (Authorization: Bearer <token>)',
  };
}
