import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { CloseCode, GRAPHQL_TRANSPORT_WS_PROTOCOL, type makeServer } from 'graphql-ws';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { Logger } from '../logger.ts';
import { jsonNestsDeeperThan } from './json-nesting.ts';

/**
 * A graphql-ws server (`graphql-transport-ws`, graphql-ws 6.4.2's makeServer) on an HTTP server's upgrade requests to
 * one path, with the bounds every such door keeps: message size (ws maxPayload: a larger frame closes 1009), connections
 * per process (past it the upgrade is answered 503), keep-alive pings (a connection that has not answered the last ping
 * by the next is terminated: no half-open connection stays), and the bytes queued for a slow consumer — past them the
 * connection is closed 1013 with a reason that says to resubscribe with `after` (a stream is never skipped over). A send
 * resolves once written, so a subscription's next event is taken from its stream only then: events wait in the log, not
 * in memory.
 *
 * The gateway's /graphql (gateway/live/graphql-ws-door.ts) and each subgraph server's (subgraphs/subgraph-server.ts) use it.
 */

export interface GraphqlWsLimits {
  maxMessageBytes: number;
  maxConnections: number;
  keepAliveMs: number;
  maxBufferedBytes: number;
  /** How deep a message's JSON may nest (checked on its bytes before it is parsed; deeper closes 4400). */
  maxJsonDepth: number;
}

/** What each connection of the graphql-ws server knows of its socket and upgrade request. */
export interface WsConnectionExtra {
  socket: WebSocket;
  request: IncomingMessage;
}

export interface GraphqlWsListener {
  connections(): number;
  /** Closes every connection (1001 going away) and stops taking upgrades. */
  close(): Promise<void>;
}

/**
 * How much larger than a client's message (SUBSCRIPTION_MAX_MESSAGE_BYTES) a subgraph server takes one on its WebSocket:
 * the gateway's subscription fetch is the client's document and variables as the planner writes them again (key fields
 * added, fragments inlined) with the caller's headers around them, so a client's message at the bound makes a larger one
 * — which, refused, would close the connection every subscription of that caller shares. The gateway holds its own
 * fetches to the same bound (gateway/live/subgraph-ws-client.ts).
 */
export const SUBGRAPH_MESSAGE_BYTES_FACTOR = 4;

export const SLOW_CONSUMER_CLOSE = { code: 1013, reason: 'Too slow: resubscribe with after = the last cursor received' } as const;

export function listenGraphqlWs<E extends WsConnectionExtra>(options: {
  httpServer: Server;
  path: string;
  limits: GraphqlWsLimits;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- makeServer's result, whatever its connection params
  server: ReturnType<typeof makeServer<any, E>>;
  extra(socket: WebSocket, request: IncomingMessage): E;
  logger: Logger;
  /** A connection closed for reading too slowly (metrics). */
  onSlowConsumer?(): void;
}): GraphqlWsListener {
  const { limits } = options;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.maxMessageBytes,
    // Only graphql-transport-ws; a client offering none or another gets no subprotocol and makeServer closes it 4406.
    handleProtocols: (protocols) => (protocols.has(GRAPHQL_TRANSPORT_WS_PROTOCOL) ? GRAPHQL_TRANSPORT_WS_PROTOCOL : false),
    perMessageDeflate: false,
  });

  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    let alive = true;
    socket.on('pong', () => (alive = true));
    const keepAlive = setInterval(() => {
      if (!alive) {
        socket.terminate();
        return;
      }
      alive = false;
      socket.ping();
    }, limits.keepAliveMs);
    keepAlive.unref();
    // A socket error (a reset; a frame too large, which ws closes 1009 itself) ends the connection, never the process.
    socket.on('error', () => socket.terminate());
    const closed = options.server.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            if (socket.bufferedAmount > limits.maxBufferedBytes) {
              options.onSlowConsumer?.();
              socket.close(SLOW_CONSUMER_CLOSE.code, SLOW_CONSUMER_CLOSE.reason);
              return resolve();
            }
            socket.send(data, () => resolve());
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', (data, isBinary) => {
            // A binary frame is no protocol message: '' fails to parse and closes the connection 4400.
            const message = isBinary ? '' : parsedMessage(bytesOf(data), limits.maxJsonDepth);
            if (message instanceof Error) {
              socket.close(CloseCode.BadRequest, message.message);
              return;
            }
            handle(message as string).catch((error: unknown) => {
              // A message type only a server sends (next, error, connection_ack…), which graphql-ws 6.4.2 throws on:
              // the client's mistake, closed as its other protocol errors are (4400), not as the server's own.
              const message = error instanceof Error ? error.message : '';
              if (/^Unexpected message of type .* received$/.test(message)) {
                socket.close(CloseCode.BadRequest, 'Invalid message received');
                return;
              }
              options.logger.warn({ err: error }, 'graphql-ws message failed; connection closed');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            });
          }),
      },
      options.extra(socket, request),
    );
    socket.once('close', (code, reason) => {
      clearInterval(keepAlive);
      closed(code, String(reason)).catch(() => undefined);
    });
  });

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? '').split('?', 1)[0];
    if (path !== options.path) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    if (wss.clients.size >= limits.maxConnections) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 5\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    socket.on('error', () => socket.destroy());
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  };
  options.httpServer.on('upgrade', onUpgrade);

  return {
    connections: () => wss.clients.size,
    async close() {
      options.httpServer.off('upgrade', onUpgrade);
      for (const client of wss.clients) client.close(1001, 'Going away');
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/** A message's bytes as ws hands them (one Buffer, fragments, or an ArrayBuffer). */
function bytesOf(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}

/**
 * A text frame's message, parsed here once — refused first if it nests past the bound, before anything is built of it
 * — or the close reason (4400) when it cannot be read, in graphql-ws's words. graphql-ws 6.4.2's parseMessage takes an
 * object as it is (only a string is parsed, `typeof data === "string" ? JSON.parse(data) : data`, then validated): so the
 * handler, whose argument graphql-ws keeps for as long as a subscription of the message runs, keeps no copy of its text.
 */
function parsedMessage(bytes: Buffer, maxDepth: number): unknown {
  if (jsonNestsDeeperThan(bytes, maxDepth)) return new Error(`Invalid message received: JSON nested deeper than ${maxDepth} levels`);
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return new Error('Invalid message received');
  }
}
