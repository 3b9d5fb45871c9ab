/** npm start: the whole system in one process (embedded gateway), on PGlite under ./data unless DATABASE_URL is set. */
import { exitOnSignals, shutdownDeadlineMs, keepServingOnEscapedErrors, prepareProcess } from './system/process.ts';
import { DatabaseInUseError } from '../lib/database/database.ts';
import { startEmbeddedSystem } from './system/embedded-system.ts';

const { config, logger } = prepareProcess('tributary');
const system = await startEmbeddedSystem(config, logger).catch((error: unknown) => {
  // Expected conditions get one line saying what to do, not a stack trace: another process holds the embedded database
  // (a second npm start on the same ./data), or a port is taken.
  const line = expectedStartFailure(error);
  if (line === undefined) throw error;
  console.error(`npm start: ${line}`);
  process.exit(1);
});
// Only once it serves: a failure to start must still end the process with an error.
keepServingOnEscapedErrors(logger);
exitOnSignals(() => system.close(), logger, shutdownDeadlineMs(config.telemetry));
logger.info(
  { graphql: system.gatewayUrl, rest: system.restUrl, restParent: system.socialParentUrl, grpc: system.grpcAddress },
  'listening',
);
const database =
  system.database?.kind === 'postgres' ? 'PostgreSQL (DATABASE_URL)' : `PGlite (${config.database.pgliteDir ?? 'in memory'})`;
const origin = new URL(system.gatewayUrl!).origin;
console.log(
  [
    `Tributary is running on ${database}`,
    `  GraphQL  ${system.gatewayUrl}   (${config.gateway.landingPage ? `Apollo Sandbox in a browser; offline IDE: ${origin}/graphiql` : 'landing page disabled'})`,
    `  REST     ${system.restUrl}     (Area A: GET ${system.restUrl}/api/v1/userExample/1; social graph, own-login host: GET ${system.restUrl}/v25.0/me)`,
    `  REST     ${system.socialParentUrl}     (social graph, parent-platform host: GET ${system.socialParentUrl}/v25.0/me/accounts)`,
    `           (image upload: POST ${system.restUrl}/1.1/media/upload.json)`,
    config.rest.apiDocs ? `  Docs     ${system.restUrl}/apis/swagger/index.html   (Swagger UI; ${system.restUrl}/openapi.json)` : '',
    `  gRPC     ${system.grpcAddress}        (api.serverNameExample.v1.userExample, reflection on)`,
    `  Ops      ${system.restUrl}/health, /ready, /metrics   (on every listener)`,
    config.jwt.usingDevelopmentSecret ? '  Tokens   npm run token   (development secret in use)' : '',
  ]
    .filter(Boolean)
    .join('\n'),
);

/** The one line for a start that failed as it may (the database or a port in use), or undefined for anything else. */
function expectedStartFailure(error: unknown): string | undefined {
  if (error instanceof DatabaseInUseError) return error.message;
  const { code, port } = error as { code?: unknown; port?: unknown };
  if (code === 'EADDRINUSE') {
    return `port ${typeof port === 'number' ? port : '(one of GATEWAY_PORT, REST_PORT, SOCIAL_PARENT_PORT, GRPC_PORT)'} is in use (is npm start running already?); stop that process, or choose other ports in .env`;
  }
  return undefined;
}
