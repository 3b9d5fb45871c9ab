import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listening HTTP server and the way to stop it. */
export interface RunningHttpServer {
  server: Server;
  /** Port actually bound (useful with port 0). */
  port: number;
  /** Base URL, e.g. http://localhost:4000. */
  url: string;
  /**
   * Stops accepting, lets in-flight requests finish (an upload in progress completes), closes each keep-alive connection
   * as soon as it is idle, and after `shutdownGraceMs` closes whatever is still open.
   */
  close(): Promise<void>;
}

/** How often a closing server looks for connections that have just become idle. */
const IDLE_SWEEP_MS = 50;

/** Listens on `port` (0 = any free port) at `host`; resolves once bound. */
export async function listen(
  handlerOrServer: RequestListener | Server,
  options: { port: number; host: string; publicHost: string; shutdownGraceMs?: number },
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
  const graceMs = options.shutdownGraceMs ?? 10_000;
  let closing: Promise<void> | undefined;
  return {
    server,
    port,
    url: `http://${options.publicHost}:${port}`,
    close: () =>
      (closing ??= new Promise<void>((resolve, reject) => {
        if (!server.listening) {
          resolve();
          return;
        }
        // A keep-alive connection that finishes its request after close() stays open until its idle timeout unless
        // something closes it: sweep idle connections until the last one is gone, and cut the rest at the grace's end.
        const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
        const grace = setTimeout(() => server.closeAllConnections(), graceMs);
        grace.unref();
        server.close((error) => {
          clearInterval(sweep);
          clearTimeout(grace);
          // Closed by someone else first (Apollo's drain plugin): already what was asked.
          if (error && (error as NodeJS.ErrnoException).code !== 'ERR_SERVER_NOT_RUNNING') reject(error);
          else resolve();
        });
        server.closeIdleConnections();
      })),
  };
}
