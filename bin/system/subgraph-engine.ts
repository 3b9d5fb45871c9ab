import { createHttpFastPath } from '../../gateway/stand-ins/http-fast-path.ts';
import { createJitCompiler } from '../../gateway/stand-ins/jit-subgraph-execution.ts';
import { createOperationFastLane } from '../../gateway/stand-ins/operation-fast-lane.ts';
import type { Config } from '../../lib/config.ts';
import type { Logger } from '../../lib/logger.ts';
import type { StandIns } from '../../lib/stand-ins/stand-in-gate.ts';
import type { Telemetry } from '../../lib/telemetry/telemetry.ts';
import type { SubgraphEngine } from '../../subgraphs/subgraph-server.ts';

/**
 * The engine a subgraph server serves with (a subgraph process's, subgraph-process.ts; the bench's too): the gateway's
 * process's own (graphql-jit for execution, the HTTP fast path and its body reader for POST /graphql, the operation fast
 * lane for a document Apollo Server has run), each part where its stand-in serves — so that both topologies run one engine (gateway/stand-ins/README.md, "Which engine runs
 * where").
 */
export function subgraphEngine(config: Config, telemetry: Telemetry, logger: Logger, standIns: StandIns): SubgraphEngine {
  return {
    ...(standIns.enabled('jit-subgraph-execution') && { compile: createJitCompiler() }),
    ...(standIns.enabled('http-fast-path') && {
      httpFastPath: ({ serveHttp, middleware, listener }) =>
        createHttpFastPath({
          door: { serveHttp },
          listener,
          telemetry,
          logger,
          bodyLimitBytes: config.gateway.bodyLimitBytes,
          maxJsonDepth: config.graphql.maxJsonDepth,
          middleware,
          leanJsonBody: standIns.enabled('lean-json-body'),
        }),
    }),
    ...(standIns.enabled('operation-fast-lane') && {
      lane: (parts) => createOperationFastLane<object>({ ...parts, telemetry, logger }),
    }),
  };
}
