import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listening HTTP server and the way to stop it. */
export interface RunningHttpServer {
  server: Server;
  /** Port actually bound (useful with port 0). */
  port: number;
  /** Base URL, e.g. http://localhost:4000. */
  url: string;
  /** Stops accepting, lets in-flight requests finish, then closes idle keep-alive sockets. */
  close(): Promise<void>;
}

/** Listens on `port` (0 = any free port) at `host`; resolves once bound. */
export async function listen(
  handlerOrServer: RequestListener | Server,
  options: { port: number; host: string; publicHost: string },
): Promise<RunningHttpServer> {
  const server = typeof handlerOrServer === 'function' ? createServer(handlerOrServer) : handlerOrServer;
  // Keep-alive sockets must outlive typical client idle timeouts, or load balancers see resets.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    url: `http://${options.publicHost}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
