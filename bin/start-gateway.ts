/** npm run start:gateway: the gateway and the REST adapter, reaching subgraphs at SUBGRAPH_<NAME>_URL. */
import { exitOnSignals, shutdownDeadlineMs, keepServingOnEscapedErrors, prepareProcess } from './system/process.ts';
import { startGatewayProcess } from './system/gateway-process.ts';

const { config, logger } = prepareProcess('gateway');
const system = await startGatewayProcess(config, logger);
// Only once it serves: a failure to start must still end the process with an error.
keepServingOnEscapedErrors(logger);
exitOnSignals(
  () => system.close(),
  logger,
  shutdownDeadlineMs(config.telemetry),
  async () => system.reloadSupergraph?.('signal'),
);
logger.info({ graphql: system.gatewayUrl, rest: system.restUrl, restParent: system.socialParentUrl }, 'listening');
console.log(
  `GraphQL ${system.gatewayUrl}\nREST    ${system.restUrl}\nREST    ${system.socialParentUrl}   (social graph, parent-platform host)`,
);
