/** npm run start:gateway: the gateway and the REST adapter, reaching subgraphs at SUBGRAPH_<NAME>_URL. */
import { exitOnSignals, shutdownDeadlineMs, keepServingOnEscapedErrors, prepareProcess } from './system/process.ts';
import { startGatewayProcess } from './system/gateway-process.ts';
import { SupergraphLoadError } from '../gateway/supergraph-source.ts';

const { config, logger } = prepareProcess('gateway');
const system = await startGatewayProcess(config, logger).catch((error: unknown) => {
  // A supergraph that does not build is one line naming the file and the problem, not @apollo/gateway's stack trace.
  if (!(error instanceof SupergraphLoadError)) throw error;
  console.error(`npm run start:gateway: ${config.gateway.supergraphFile ?? 'schema/supergraph.graphql'}: ${error.message}`);
  process.exit(1);
});
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
