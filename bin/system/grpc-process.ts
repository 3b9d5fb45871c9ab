import express from 'express';
import { createTokenService } from '../../lib/auth/auth.ts';
import type { Config } from '../../lib/config.ts';
import { listen } from '../../lib/http/http-server.ts';
import type { Logger } from '../../lib/logger.ts';
import { rpcStatus } from '../../rest-adapter/user-records/google-rpc-status.ts';
import { createSubgraphs } from '../../subgraphs/index.ts';
import { Lifecycle, runningSystem, type RunningSystem } from './lifecycle.ts';
import { grpcStatusHomePage } from './internal-home-pages.ts';
import { listenOptions, openDatabase, startGrpc, startTelemetry } from './system-parts.ts';

/**
 * The gRPC server of Area A as its own process: the users service on the database, no GraphQL; a small HTTP listener
 * (GRPC_STATUS_PORT) answers /health, /ready and /metrics for it.
 */
export async function startGrpcProcess(config: Config, logger: Logger): Promise<RunningSystem> {
  const telemetry = startTelemetry(config, 'grpc', logger);
  const lifecycle = new Lifecycle(telemetry, logger, config.telemetry.shutdownDelayMs);
  try {
    const database = await openDatabase(config, logger, telemetry, lifecycle);
    const tokens = createTokenService(config.jwt);
    const users = createSubgraphs({ config, database, tokens, logger, metrics: telemetry.metrics }, ['users']).users!;
    const grpcAddress = await startGrpc(config, users.service, tokens, logger, telemetry, lifecycle);
    const app = express();
    app.disable('x-powered-by');
    app.use(telemetry.http('grpc-status'));
    app.use(telemetry.routes());
    app.use(grpcStatusHomePage(config, grpcAddress));
    // The probes are all it serves: anything else is a 404 in the shape of the other answers (google.rpc.Status).
    app.use((req: express.Request, res: express.Response) => {
      res
        .status(404)
        .json(rpcStatus('NOT_FOUND', `no route for ${req.method} ${req.path}: this listener serves /health, /ready and /metrics`));
    });
    const status = await listen(
      app,
      listenOptions(config, config.grpc.statusPort, ({ message }) => rpcStatus('INVALID_ARGUMENT', message)),
    );
    lifecycle.http(status);
    return runningSystem(config, tokens, telemetry, lifecycle, {
      database,
      grpcAddress,
      grpcStatusUrl: status.url,
    });
  } catch (error) {
    await lifecycle.close();
    throw error;
  }
}
