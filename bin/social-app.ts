/**
 * npm run social-app -- --create "<name>"
 * npm run social-app -- --list
 *
 * Apps of the social graph (issue 26): `--create` prints the new app as JSON, with its app access token; `--list` prints
 * every app's id and name, never the secrets (bin/tools/social-app-command.ts). While `npm start` runs on the embedded
 * database, the running process does it, asked over its command channel (bin/tools/command-channel.ts); the output is the
 * same (bin/tools/cli-command.ts).
 */
import { prepareProcess } from './system/process.ts';
import { runCliCommand } from './tools/cli-command.ts';
import { socialAppCommand } from './tools/social-app-command.ts';

await runCliCommand(socialAppCommand, prepareProcess);
