import { appAccessToken } from '../../lib/auth/social-auth/social-token.service.ts';
import { createSocialTokens } from '../../subgraphs/index.ts';
import { CommandUsageError, parseCommandLine, type CliCommand } from './cli-command.ts';

const USAGE = 'npm run social-app -- --create "<name>" | --list';

/** What the command line asks for: an app to create, or the list of apps. */
export type SocialAppRequest = { create: string } | { list: true };

/**
 * `npm run social-app`: apps of the social graph (issue 26). An app has an id and a secret, as the Graph API's app
 * dashboard gives them; the secret signs webhook deliveries (X-Hub-Signature-256) and makes the app access token
 * `<app id>|<app secret>`, which manages the app's webhook subscriptions (`/{app-id}/subscriptions`). `--create` prints
 * the new app as JSON, with its app access token; `--list` prints every app's id and name (never the secrets).
 */
export const socialAppCommand: CliCommand<SocialAppRequest> = {
  name: 'social-app',
  parse(args) {
    const values = parseCommandLine(args, { create: { type: 'string' }, list: { type: 'boolean' } }, USAGE);
    if ((values.create === undefined) === (values.list !== true))
      throw new CommandUsageError(`give --create "<name>" or --list; usage: ${USAGE}`);
    if (values.create === undefined) return { list: true };
    const name = values.create.trim();
    if (name === '' || name.length > 100) throw new CommandUsageError(`the app name must be 1 to 100 characters; usage: ${USAGE}`);
    return { create: name };
  },
  async run(request, { database }) {
    const tokens = createSocialTokens(database);
    if ('create' in request) {
      const app = await tokens.createApp(request.create);
      return `${JSON.stringify({ id: app.id, name: app.name, secret: app.secret, access_token: appAccessToken(app) }, null, 2)}\n`;
    }
    return (await tokens.listApps()).map((app) => `${app.id}  ${app.name}\n`).join('');
  },
};
