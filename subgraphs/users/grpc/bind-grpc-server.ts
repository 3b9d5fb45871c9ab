import { ServerCredentials, type Server } from '@grpc/grpc-js';

export interface BoundGrpcServer {
  /** The port actually bound (the picked one when 0 was asked for). */
  port: number;
  /** Stops accepting calls and lets running ones finish; cancels whatever is still running after the grace period. */
  close(): Promise<void>;
}

export interface BindGrpcServerOptions {
  /** How long close() waits for running calls before cancelling them. Default 5000 ms. */
  shutdownGraceMs?: number;
}

/**
 * Binds `server` (plaintext HTTP/2) on host:port and starts serving; port 0 picks a free port. grpc-js starts a server when
 * it is bound, so no separate start() call is needed.
 */
export function bindGrpcServer(server: Server, host: string, port: number, options: BindGrpcServerOptions = {}): Promise<BoundGrpcServer> {
  const graceMs = options.shutdownGraceMs ?? 5000;
  // IPv6 literals need brackets in a target address.
  const address = host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
  return new Promise((resolve, reject) => {
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, boundPort) => {
      if (error) {
        reject(error);
        return;
      }
      resolve({ port: boundPort, close: () => shutdown(server, graceMs) });
    });
  });
}

function shutdown(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.forceShutdown(), graceMs);
    timer.unref();
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
