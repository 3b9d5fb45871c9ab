import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * Points a client that always calls `https://upload.x.com/…` and `https://api.x.com/…` (twitter-api-v2) at the REST
 * adapter under test, without changing the client: a local TLS front with a certificate for both names (test/fixtures/tls, self-signed) that
 * forwards every request to the REST adapter with `X-Forwarded-Proto: https` and the Host header untouched — what a
 * TLS-terminating reverse proxy in front of Tributary does — and an HTTPS agent (the client's `httpAgent` setting) that
 * connects to that front whatever the host name, trusting only that certificate. The client signs OAuth 1.0a over
 * https://upload.x.com/1.1/media/upload.json (or https://api.x.com/2/media/…), which is exactly the URL the REST adapter sees.
 */
export interface UploadHostRedirect {
  /** Pass as twitter-api-v2's `{ httpAgent }` setting. */
  agent: HttpsAgent;
  close(): Promise<void>;
}

const TLS = new URL('../fixtures/tls/', import.meta.url);

export async function redirectUploadHost(restUrl: string): Promise<UploadHostRedirect> {
  const key = readFileSync(new URL('x-com.key', TLS));
  const cert = readFileSync(new URL('x-com.crt', TLS));
  const target = new URL(restUrl);
  const server = createHttpsServer({ key, cert }, (req, res) => {
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'x-forwarded-proto': 'https' },
      },
      (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  class RedirectingAgent extends HttpsAgent {
    override createConnection(options: Record<string, unknown>, callback?: (error: Error | null, socket: Duplex) => void): Duplex {
      // The server name (SNI and the certificate check) stays the one the client asked for: upload.x.com or api.x.com.
      return (HttpsAgent.prototype as any).createConnection.call(this, { ...options, host: '127.0.0.1', port }, callback);
    }
  }
  const agent = new RedirectingAgent({ ca: cert, keepAlive: false });
  return {
    agent,
    close: async () => {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
