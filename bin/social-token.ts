/**
 * npm run social-token -- --login own|parent --subject <id or username/name> [--permission P]... [--expires-in SECONDS]
 * npm run social-token -- --revoke <token>
 *
 * Mints (or revokes) an access token of the social graph (Areas B and C). `--subject` is the professional account on the
 * own-login host (id or username) or the parent-platform user on the parent-platform host (id or name). Without
 * `--permission`, the token gets every permission of its login type.
 */
import { parseArgs } from 'node:util';
import { createDatabase, migrateToLatest } from '../lib/database/database.ts';
import { ALL_MIGRATIONS, createSocialTokens } from '../subgraphs/index.ts';
import { OWN_LOGIN_PERMISSIONS, PARENT_PLATFORM_PERMISSIONS } from '../subgraphs/shared/social-graph/social-demo-graph.ts';
import type { SocialTables } from '../subgraphs/shared/social-graph/social-tables.ts';
import { prepareProcess } from './process.ts';

const { values } = parseArgs({
  options: {
    login: { type: 'string', default: 'own' },
    subject: { type: 'string' },
    permission: { type: 'string', multiple: true },
    'expires-in': { type: 'string' },
    revoke: { type: 'string' },
  },
});
const { config } = prepareProcess('social-token');
const database = await createDatabase(config.database);
try {
  await migrateToLatest(database.db, ALL_MIGRATIONS);
  const tokens = createSocialTokens(database);
  if (values.revoke) {
    console.log((await tokens.revoke(values.revoke)) ? 'revoked' : 'unknown or already revoked');
  } else {
    const login = values.login;
    if (login !== 'own' && login !== 'parent') throw new Error('--login must be own or parent');
    const subject = values.subject ?? (login === 'own' ? 'bluebottle' : 'Ana Admin');
    const db = database.db.withTables<SocialTables>();
    const row = /^\d+$/.test(subject)
      ? { id: subject }
      : login === 'own'
        ? await db.selectFrom('social.account').select('id').where('username', '=', subject).executeTakeFirst()
        : await db.selectFrom('social.platform_user').select('id').where('name', '=', subject).executeTakeFirst();
    if (!row) throw new Error(`no ${login === 'own' ? 'account' : 'parent-platform user'} "${subject}" (run npm run seed first)`);
    const expiresIn = values['expires-in'] ? Number(values['expires-in']) : config.social.tokenLifetimeSeconds;
    if (!Number.isInteger(expiresIn) || expiresIn <= 0) throw new Error('--expires-in must be a positive number of seconds');
    const permissions = values.permission ?? [...(login === 'own' ? OWN_LOGIN_PERMISSIONS : PARENT_PLATFORM_PERMISSIONS)];
    console.log(
      await tokens.issue({ loginType: login, subjectId: String(row.id), permissions, expiresInSeconds: expiresIn, label: 'social-token CLI' }),
    );
  }
} finally {
  await database.close();
}
