/**
 * npm run social-token -- [--login own|parent] [--subject <id or username/name>] [--permission P]... [--expires-in SECONDS]
 * npm run social-token -- --revoke <token>
 *
 * Mints (or revokes) an access token of the social graph (Areas B and C) and prints it (bin/tools/social-token-command.ts).
 * `--subject` is the professional account on the own-login host (id or username) or the parent-platform user on the
 * parent-platform host (id or name). Without `--permission`, the token gets every permission of its login type.
 *
 * While `npm start` runs on the embedded database, the running process does it, asked over its command channel
 * (bin/tools/command-channel.ts); the output is the same (bin/tools/cli-command.ts).
 */
import { prepareProcess } from './system/process.ts';
import { runCliCommand } from './tools/cli-command.ts';
import { socialTokenCommand } from './tools/social-token-command.ts';

await runCliCommand(socialTokenCommand, prepareProcess);
