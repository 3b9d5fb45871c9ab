/** npm run start:gateway: the gateway and the REST adapter, reaching subgraphs at SUBGRAPH_<NAME>_URL. */
import { exitOnSignals, prepareProcess } from './process.ts';
import { startGatewayProcess } from './system.ts';

const { config, logger } = prepareProcess('gateway');
const system = await startGatewayProcess(config, logger);
exitOnSignals(() => system.close(), logger);
console.log(`GraphQL ${system.gatewayUrl}\nREST    ${system.restUrl}`);
