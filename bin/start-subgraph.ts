/** npm run start:subgraph -- <name>: one subgraph as its own process (distributed topology). */
import { SUBGRAPH_NAMES, type SubgraphName } from '../lib/config.ts';
import { exitOnSignals, shutdownDeadlineMs, keepServingOnEscapedErrors, prepareProcess } from './system/process.ts';
import { startSubgraphProcess } from './system/subgraph-process.ts';

const name = process.argv[2] as SubgraphName | undefined;
if (!name || !SUBGRAPH_NAMES.includes(name)) {
  console.error(`usage: npm run start:subgraph -- <${SUBGRAPH_NAMES.join('|')}>`);
  process.exit(2);
}
const { config, logger } = prepareProcess(`subgraph-${name}`);
const system = await startSubgraphProcess(config, logger, name);
// Only once it serves: a failure to start must still end the process with an error.
keepServingOnEscapedErrors(logger);
exitOnSignals(() => system.close(), logger, shutdownDeadlineMs(config.telemetry));
logger.info({ subgraph: name, url: system.subgraphUrls[name], ...(system.grpcAddress ? { grpc: system.grpcAddress } : {}) }, 'listening');
console.log(`subgraph ${name}: ${system.subgraphUrls[name]}${system.grpcAddress ? `\n  gRPC ${system.grpcAddress}` : ''}`);
