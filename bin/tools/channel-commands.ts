import type { CliCommand, CommandContext } from './cli-command.ts';
import type { CommandHandler } from './command-channel.ts';
import { seedCommand } from './seed-command.ts';
import { socialAppCommand } from './social-app-command.ts';
import { socialTokenCommand } from './social-token-command.ts';

/**
 * The commands a running system on the embedded database runs for the command-line tools over its command channel
 * (bin/tools/command-channel.ts): the closed set, each parsing its arguments here as the tool does and running on the
 * system's own database, configuration and listeners (`context`).
 */
export function channelCommandHandlers(context: CommandContext): ReadonlyMap<string, CommandHandler> {
  return new Map([handler(seedCommand, context), handler(socialTokenCommand, context), handler(socialAppCommand, context)]);
}

function handler<Request>(command: CliCommand<Request>, context: CommandContext): [string, CommandHandler] {
  return [command.name, async (args) => command.run(command.parse(args), context)];
}
