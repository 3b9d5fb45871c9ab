/**
 * One peer gateway of the bench's gateway comparison (bench/peers.ts), as its own process: Hive Gateway
 * (@graphql-hive/gateway's runtime, as `hive-gateway supergraph` serves it) or Hive Gateway with the router runtime
 * (@graphql-hive/router-runtime: the Rust query planner of Hive Router behind the same JS runtime), serving the committed
 * supergraph in front of the subgraph processes named by SUBGRAPH_<NAME>_URL.
 *
 *   PEER_SUPERGRAPH_FILE=… SUBGRAPH_<NAME>_URL=… [PEER_TRUSTED_HEADER=… GRAPHQL_TRUSTED_CALLER_SECRET=…] \
 *     node <this file, compiled> hive|hive-router
 *
 * It imports nothing of Tributary's and bench/peers.ts runs it as plain JavaScript (transpiled, like the product's
 * build), so that no TypeScript loader or source-map support runs in the peers' processes either.
 *
 * Configured as people run it in production, and to do the same work as Tributary's gateway: the caller's Authorization
 * and X-Social-Host and the trusted-caller header go to every subgraph; no logging, no landing page or GraphiQL;
 * everything else (parsing and validation caches, error masking, request ids, the HTTP server) is Hive's default. Prints
 * one JSON line `{"type":"ready","url":…}` once it listens; stops on SIGTERM or when stdin closes.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayRuntime, type GatewayConfigSupergraph } from '@graphql-hive/gateway';
import { unifiedGraphHandler } from '@graphql-hive/router-runtime';

const PEER_GATEWAYS = ['hive', 'hive-router'] as const;
type PeerGatewayKind = (typeof PEER_GATEWAYS)[number];

/** The headers a subgraph must see of the caller's request (as Tributary's gateway propagates them). */
const PROPAGATED = ['authorization', 'x-social-host', 'x-request-id'] as const;

/**
 * The committed supergraph with each subgraph's routing URL replaced by SUBGRAPH_<NAME>_URL: Hive Gateway routes by the
 * URLs written in the supergraph (Tributary's gateway takes them from configuration instead).
 */
function supergraphRouted(file: string): string {
  return readFileSync(file, 'utf8').replace(/@join__graph\(name: "([^"]+)", url: "[^"]*"\)/g, (_whole, name: string) => {
    const url = process.env[`SUBGRAPH_${name.toUpperCase()}_URL`];
    if (!url) throw new Error(`SUBGRAPH_${name.toUpperCase()}_URL is not set`);
    return `@join__graph(name: "${name}", url: "${url}")`;
  });
}

async function main(): Promise<void> {
  const kind = process.argv[2] as PeerGatewayKind | undefined;
  if (!kind || !PEER_GATEWAYS.includes(kind)) {
    console.error(`usage: node peer-gateway.js <${PEER_GATEWAYS.join('|')}>`);
    process.exit(2);
  }
  const supergraphFile = process.env.PEER_SUPERGRAPH_FILE;
  if (!supergraphFile) throw new Error('PEER_SUPERGRAPH_FILE is not set');
  const trustedHeader = process.env.PEER_TRUSTED_HEADER;
  const trustedSecret = process.env.GRAPHQL_TRUSTED_CALLER_SECRET;
  const config: GatewayConfigSupergraph = {
    supergraph: supergraphRouted(supergraphFile),
    logging: false,
    landingPage: false,
    graphiql: false,
    propagateHeaders: {
      fromClientToSubgraphs: ({ request }) => {
        const headers: Record<string, string | null> = {};
        for (const name of PROPAGATED) headers[name] = request.headers.get(name);
        if (trustedHeader && trustedSecret) headers[trustedHeader] = trustedSecret;
        return headers;
      },
    },
    ...(kind === 'hive-router' ? { unifiedGraphHandler } : {}),
  };
  const gateway = createGatewayRuntime(config);
  const server = createServer(gateway);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ type: 'ready', url: `http://127.0.0.1:${port}/graphql` })}\n`);

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server.closeAllConnections();
    server.close();
    void Promise.resolve(gateway.dispose()).finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdin.on('close', stop);
  process.stdin.resume();
}

await main();
