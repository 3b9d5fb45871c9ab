/**
 * The composition root: wires configuration, database, subgraphs, gateway, REST adapter and gRPC server into the
 * processes the entrypoints run (bin/start*.ts). Tests and the bench start the same processes from here, so every run
 * wires the system the same way. Every process has its telemetry (metrics, traces, request-id logs, /health, /ready,
 * /metrics on each HTTP listener) and its two-step shutdown (lifecycle.ts).
 */
export { startEmbeddedSystem } from './embedded-system.ts';
export { startSubgraphProcess } from './subgraph-process.ts';
export { subgraphEngine } from './subgraph-engine.ts';
export { startGatewayProcess } from './gateway-process.ts';
export { startGrpcProcess } from './grpc-process.ts';
export type { RunningSystem, SystemOptions } from './lifecycle.ts';
