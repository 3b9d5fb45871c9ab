/** npm start: the whole system in one process (embedded gateway), on PGlite under ./data unless DATABASE_URL is set. */
import { exitOnSignals, prepareProcess } from './process.ts';
import { startEmbeddedSystem } from './system.ts';

const { config, logger } = prepareProcess('tributary');
const system = await startEmbeddedSystem(config, logger);
exitOnSignals(() => system.close(), logger);
const database = system.database?.kind === 'postgres' ? 'PostgreSQL (DATABASE_URL)' : `PGlite (${config.database.pgliteDir ?? 'in memory'})`;
console.log(
  [
    `Tributary is running on ${database}`,
    `  GraphQL  ${system.gatewayUrl}   (Apollo Sandbox in a browser${config.gateway.landingPage ? '' : ': disabled'})`,
    `  REST     ${system.restUrl}     (Area A: GET ${system.restUrl}/api/v1/userExample/1; social graph, own-login host: GET ${system.restUrl}/v25.0/me)`,
    `  REST     ${system.socialParentUrl}     (social graph, parent-platform host: GET ${system.socialParentUrl}/v25.0/me/accounts)`,
    `  gRPC     ${system.grpcAddress}        (api.serverNameExample.v1.userExample, reflection on)`,
    config.jwt.usingDevelopmentSecret ? '  Tokens   npm run token   (development secret in use)' : '',
  ]
    .filter(Boolean)
    .join('\n'),
);
