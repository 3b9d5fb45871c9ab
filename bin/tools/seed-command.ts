import { parseCommandLine, type CliCommand } from './cli-command.ts';
import { seedDemoData } from './seed-demo-data.ts';

/**
 * `npm run seed`: loads the demo data (bin/tools/seed-demo-data.ts) and prints, as JSON, its ids and ready-to-use tokens. Run
 * by a running system, the hosts it names are the ports that system listens on and the tokens are minted with its
 * secrets, so they work against it.
 */
export const seedCommand: CliCommand<void> = {
  name: 'seed',
  parse(args) {
    parseCommandLine(args, {}, 'npm run seed');
  },
  async run(_request, context) {
    return `${JSON.stringify(await seedDemoData(context), null, 2)}\n`;
  },
};
