import { createServer, connect, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a server (the suite's PostgreSQL) that a test can cut off and restore at once: while cut, every
 * connection through it is reset as soon as it is made, and those open are reset too — to the client, a server that went
 * away (ECONNRESET, "Connection terminated unexpectedly"), without stopping the server the rest of the suite shares and
 * without waiting for one to stop and start (test/support/private-postgres.ts does that, in seconds). It listens on the
 * same port throughout, so no other process can take the port in between.
 */
export interface TcpProxy {
  /** 127.0.0.1:<port> of the proxy. */
  readonly port: number;
  /** `url` (a postgres:// URL of the proxied server) with the proxy's address in place of the server's. */
  through(url: string): string;
  /** Resets every open connection, and every new one until restore(). */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let cut = false;
  const track = (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    // A reset peer is what the test is about: the error is expected, and handled by closing the other side.
    socket.on('error', () => undefined);
  };
  const server = createServer((client) => {
    track(client);
    if (cut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the proxy has no port');
  return {
    port: address.port,
    through(url) {
      const proxied = new URL(url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(address.port);
      return proxied.toString();
    },
    cut() {
      cut = true;
      for (const socket of open) socket.resetAndDestroy();
    },
    restore() {
      cut = false;
    },
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
