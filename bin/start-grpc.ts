/** npm run start:grpc: the gRPC server of Area A as its own process (distributed topology), on the database. */
import { exitOnSignals, shutdownDeadlineMs, keepServingOnEscapedErrors, prepareProcess } from './system/process.ts';
import { startGrpcProcess } from './system/grpc-process.ts';

const { config, logger } = prepareProcess('grpc');
const system = await startGrpcProcess(config, logger);
// Only once it serves: a failure to start must still end the process with an error.
keepServingOnEscapedErrors(logger);
exitOnSignals(() => system.close(), logger, shutdownDeadlineMs(config.telemetry));
logger.info({ grpc: system.grpcAddress, status: system.grpcStatusUrl }, 'listening');
console.log(
  `gRPC   ${system.grpcAddress}   (api.serverNameExample.v1.userExample, reflection on)\nstatus ${system.grpcStatusUrl}   (/health, /ready, /metrics)`,
);
