import { createServer, maxHeaderSize, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { answerClientErrors, requireHost, type ClientErrorFormat } from './http-client-errors.ts';
import type { HttpTimeouts } from '../config-types.ts';

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
  /**
   * Shutdown has begun (the pause before `close`): every reply from now on carries `Connection: close`, so a keep-alive
   * client opens its next request elsewhere instead of sending it on a connection about to close under it.
   */
  drain(): void;
}

/** How often a closing server looks for connections that have just become idle. */
const IDLE_SWEEP_MS = 50;
/** How long a connection may have sent no request before closing the server closes it. */
const UNUSED_CONNECTION_MS = 1000;

export type { HttpTimeouts };

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = { headersMs: 20_000, requestMs: 120_000, socketIdleMs: 120_000 };

export interface ListenOptions {
  port: number;
  host: string;
  publicHost: string;
  shutdownGraceMs?: number;
  timeouts?: HttpTimeouts;
  /**
   * When listen() makes the server from a handler: the body of what Node would answer bare (lib/http/http-client-errors.ts).
   * A server made elsewhere was given its format by createHttpServer.
   */
  clientErrorFormat?: ClientErrorFormat;
}

/**
 * The process's HTTP servers are made here: timeouts checked every second (Node's default, 30 s, would let a request
 * overrun them by as much), and everything Node would answer with a bare status line or a dropped connection — what its
 * parser refuses, an HTTP/1.1 request without Host, an unknown Expect, CONNECT — answered in `format`, the door's own
 * error shape (lib/http/http-client-errors.ts).
 */
export function createHttpServer(handler: RequestListener, format: ClientErrorFormat): Server {
  const server = createServer({ connectionsCheckingInterval: 1_000, requireHostHeader: false }, requireHost(handler, format));
  // A client may half-close its side once its request is sent (nc -N, some HTTP/1.0 clients): its replies are still
  // owed. Node's default aborts the requests in flight and closes the connection unanswered; this switch of Node's HTTP
  // server (untyped, in every Node release since 0.x) makes it finish them and close after the last one.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  answerClientErrors(server, format, maxHeaderSize);
  return server;
}

/** Listens on `port` (0 = any free port) at `host`; resolves once bound. */
export async function listen(handlerOrServer: RequestListener | Server, options: ListenOptions): Promise<RunningHttpServer> {
  const server =
    typeof handlerOrServer === 'function'
      ? createHttpServer(handlerOrServer, options.clientErrorFormat ?? (({ message }) => ({ message })))
      : handlerOrServer;
  // Keep-alive sockets must outlive typical client idle timeouts, or load balancers see resets.
  server.keepAliveTimeout = 65_000;
  const timeouts = options.timeouts ?? DEFAULT_HTTP_TIMEOUTS;
  server.headersTimeout = timeouts.headersMs;
  server.requestTimeout = timeouts.requestMs;
  server.setTimeout(timeouts.socketIdleMs, (socket) => socket.destroy());
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
  let draining = false;
  // Before the handler: a reply that has begun cannot take the header any more.
  server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
    if (draining && !response.headersSent) response.setHeader('connection', 'close');
  });
  const drain = () => {
    draining = true;
  };
  // Connections that have not sent a request yet (a client's spare or pre-opened connection): Node's
  // closeIdleConnections leaves them open, so on close they would hold the server for the whole grace. Once closing, one
  // that has sent nothing for UNUSED_CONNECTION_MS is closed (a younger one may be about to send its request).
  const unused = new Map<Socket, number>();
  server.on('connection', (socket: Socket) => {
    unused.set(socket, performance.now());
    socket.once('close', () => unused.delete(socket));
  });
  server.prependListener('request', (request: IncomingMessage) => {
    unused.delete(request.socket);
  });
  const closeUnused = () => {
    const before = performance.now() - UNUSED_CONNECTION_MS;
    for (const [socket, since] of unused) {
      if (since > before) continue;
      unused.delete(socket);
      socket.destroy();
    }
  };
  return {
    server,
    port,
    url: `http://${options.publicHost}:${port}`,
    drain,
    close: () =>
      (closing ??= new Promise<void>((resolve, reject) => {
        drain();
        if (!server.listening) {
          resolve();
          return;
        }
        // A keep-alive connection that finishes its request after close() stays open until its idle timeout unless
        // something closes it: sweep idle connections until the last one is gone, and cut the rest at the grace's end.
        const sweep = setInterval(() => {
          server.closeIdleConnections();
          closeUnused();
        }, IDLE_SWEEP_MS);
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
        closeUnused();
      })),
  };
}
