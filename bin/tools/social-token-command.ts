import type { LoginType } from '../../lib/auth/social-auth/social-token.service.ts';
import { findAccountByUsername, findPlatformUserByName } from '../../subgraphs/accounts/accounts.repository.ts';
import { createSocialTokens } from '../../subgraphs/index.ts';
import { OWN_LOGIN_PERMISSIONS, PARENT_PLATFORM_PERMISSIONS } from '../../subgraphs/shared/social-graph/social-demo-graph.ts';
import type { SocialTables } from '../../subgraphs/shared/social-graph/social-tables.ts';
import { ExpectedCommandError } from './command-channel.ts';
import { CommandUsageError, parseCommandLine, type CliCommand } from './cli-command.ts';

const USAGE =
  'npm run social-token -- [--login own|parent] [--subject <id or name>] [--permission P]... [--expires-in SECONDS] | --revoke <token>';

/** What the command line asks for: a token to issue, or one to revoke. */
export type SocialTokenRequest =
  { revoke: string } | { login: LoginType; subject: string; permissions: string[] | undefined; expiresInSeconds: number | undefined };

/** The longest subject, permission or token the command takes (a username is at most 30 characters, a token 46). */
const MAX_VALUE_LENGTH = 200;

/**
 * `npm run social-token`: mints an access token of the social graph (Areas B and C) and prints it, or revokes one and
 * prints `revoked` (or `unknown or already revoked`). `--subject` is the professional account on the own-login host (id
 * or username; default bluebottle) or the parent-platform user on the parent-platform host (id or name; default Ana
 * Admin). Without `--permission`, the token gets every permission of its login type; without `--expires-in`, the
 * configured lifetime (SOCIAL_TOKEN_LIFETIME_SECONDS of whoever runs it).
 */
export const socialTokenCommand: CliCommand<SocialTokenRequest> = {
  name: 'social-token',
  parse(args) {
    const values = parseCommandLine(
      args,
      {
        login: { type: 'string' },
        subject: { type: 'string' },
        permission: { type: 'string', multiple: true },
        'expires-in': { type: 'string' },
        revoke: { type: 'string' },
      },
      USAGE,
    );
    const tooLong = [values.subject, values.revoke, ...(values.permission ?? [])].some(
      (value) => value !== undefined && value.length > MAX_VALUE_LENGTH,
    );
    if (tooLong) throw new CommandUsageError(`a value longer than ${MAX_VALUE_LENGTH} characters; usage: ${USAGE}`);
    const { revoke, ...issue } = values;
    if (revoke !== undefined) {
      if (Object.keys(issue).length > 0) throw new CommandUsageError(`--revoke takes no other option; usage: ${USAGE}`);
      return { revoke };
    }
    const login = issue.login ?? 'own';
    if (login !== 'own' && login !== 'parent') throw new CommandUsageError(`--login must be own or parent; usage: ${USAGE}`);
    const expiresIn = issue['expires-in'];
    if (expiresIn !== undefined && !/^[1-9][0-9]{0,9}$/.test(expiresIn)) {
      throw new CommandUsageError(`--expires-in must be a positive number of seconds; usage: ${USAGE}`);
    }
    return {
      login,
      subject: issue.subject ?? (login === 'own' ? 'bluebottle' : 'Ana Admin'),
      permissions: issue.permission,
      expiresInSeconds: expiresIn === undefined ? undefined : Number(expiresIn),
    };
  },
  async run(request, { config, database }) {
    const tokens = createSocialTokens(database);
    if ('revoke' in request) return `${(await tokens.revoke(request.revoke)) ? 'revoked' : 'unknown or already revoked'}\n`;
    const { login, subject } = request;
    const db = database.db.withTables<SocialTables>();
    const row = /^\d+$/.test(subject)
      ? { id: subject }
      : login === 'own'
        ? await findAccountByUsername(db, subject)
        : await findPlatformUserByName(db, subject);
    if (!row)
      throw new ExpectedCommandError(`no ${login === 'own' ? 'account' : 'parent-platform user'} "${subject}" (run npm run seed first)`);
    const token = await tokens.issue({
      loginType: login,
      subjectId: String(row.id),
      permissions: request.permissions ?? [...(login === 'own' ? OWN_LOGIN_PERMISSIONS : PARENT_PLATFORM_PERMISSIONS)],
      expiresInSeconds: request.expiresInSeconds ?? config.social.tokenLifetimeSeconds,
      label: 'social-token CLI',
    });
    return `${token}\n`;
  },
};
