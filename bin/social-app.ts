/**
 * npm run social-app -- --create "<name>"
 * npm run social-app -- --list
 *
 * Apps of the social graph (issue 26): an app has an id and a secret, as the Graph API's app dashboard gives them. The
 * secret signs webhook deliveries (X-Hub-Signature-256) and makes the app access token `<app id>|<app secret>`, which
 * manages the app's webhook subscriptions (`/{app-id}/subscriptions`). `--create` prints the new app as JSON, with its
 * app access token; `--list` prints every app's id and name (never the secrets).
 */
import { parseArgs } from 'node:util';
import { appAccessToken } from '../lib/auth/social-auth/social-token.service.ts';
import { createDatabase, migrateToLatest } from '../lib/database/database.ts';
import { ALL_MIGRATIONS, createSocialTokens } from '../subgraphs/index.ts';
import { prepareProcess } from './process.ts';

const { values } = parseArgs({ options: { create: { type: 'string' }, list: { type: 'boolean' } } });
if ((values.create === undefined) === (values.list !== true)) {
  console.error('usage: npm run social-app -- --create "<name>" | --list');
  process.exit(2);
}
const { config } = prepareProcess('social-app');
const database = await createDatabase(config.database);
try {
  await migrateToLatest(database.db, ALL_MIGRATIONS);
  const tokens = createSocialTokens(database);
  if (values.create !== undefined) {
    const name = values.create.trim();
    if (name === '' || name.length > 100) throw new Error('the app name must be 1 to 100 characters');
    const app = await tokens.createApp(name);
    console.log(JSON.stringify({ id: app.id, name: app.name, secret: app.secret, access_token: appAccessToken(app) }, null, 2));
  } else {
    for (const app of await tokens.listApps()) console.log(`${app.id}  ${app.name}`);
  }
} finally {
  await database.close();
}
