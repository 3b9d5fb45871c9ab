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
 *
 * Subscriptions (bench/subscriptions.ts) as Hive's documentation sets them up: clients over graphql-ws on /graphql (the
 * WebSocket server the `hive-gateway` CLI attaches, with the runtime's getGraphQLWSOptions), the gateway to the owning
 * subgraph over graphql-ws (its WebSocket transport; Tributary's subgraph servers serve graphql-ws on /graphql), the
 * caller's connection_init `authorization` passed on in the subgraph's connection_init and, for the fetches that complete
 * each event, as the Authorization header — what Tributary's gateway does.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayRuntime, getGraphQLWSOptions, type GatewayConfigSupergraph } from '@graphql-hive/gateway';
import { unifiedGraphHandler } from '@graphql-hive/router-runtime';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';

const PEER_GATEWAYS = ['hive', 'hive-router'] as const;
type PeerGatewayKind = (typeof PEER_GATEWAYS)[number];

/** The headers a subgraph must see of the caller's request (as Tributary's gateway propagates them). */
const PROPAGATED = ['authorization', 'x-social-host', 'x-request-id'] as const;

/** The subgraphs that serve Subscription fields (over graphql-ws on their /graphql). */
const SUBSCRIBING_SUBGRAPHS = ['comments'] as const;

/** A header's value: the request's (HTTP), else the same name in graphql-ws's connection_init payload (WebSocket). */
function callerValue(request: Request, context: unknown, name: string): string | null {
  const fromHeader = request.headers.get(name);
  if (fromHeader !== null) return fromHeader;
  const params = (context as { connectionParams?: Record<string, unknown> } | undefined)?.connectionParams;
  const value = params?.[name];
  return typeof value === 'string' ? value : null;
}

/** The WebSocket upgrade request as a Fetch API Request (what @whatwg-node/server's normalizeNodeRequest makes of it). */
function upgradeRequest(request: IncomingMessage, fetchApi: { Request: typeof Request }): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const each of Array.isArray(value) ? value : [value]) headers.append(name, each);
  }
  return new fetchApi.Request(`http://${request.headers.host ?? '127.0.0.1'}${request.url ?? '/'}`, { headers });
}

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
      fromClientToSubgraphs: ({ request, context }) => {
        const headers: Record<string, string | null> = {};
        for (const name of PROPAGATED) headers[name] = callerValue(request, context, name);
        if (trustedHeader && trustedSecret) headers[trustedHeader] = trustedSecret;
        return headers;
      },
    },
    transportEntries: Object.fromEntries(
      SUBSCRIBING_SUBGRAPHS.map((name) => [
        name,
        {
          options: {
            subscriptions: {
              kind: 'ws',
              location: '/graphql',
              options: {
                connectionParams: Object.fromEntries(PROPAGATED.map((header) => [header, `{context.connectionParams.${header}}`])),
              },
            },
          },
        },
      ]),
    ),
    ...(kind === 'hive-router' ? { unifiedGraphHandler } : {}),
  };
  const gateway = createGatewayRuntime(config);
  const server = createServer(gateway);
  // As the hive-gateway CLI attaches it (@graphql-hive/gateway's startNodeHttpServer).
  const wsServer = new WebSocketServer({ path: gateway.graphqlEndpoint, server });
  const wsDisposable = useServer(
    getGraphQLWSOptions<Record<string, unknown>, { request: IncomingMessage; socket: WebSocket }>(gateway, (ctx) => ({
      req: ctx.extra.request,
      socket: ctx.extra.socket,
      request: upgradeRequest(ctx.extra.request, gateway.fetchAPI),
    })),
    wsServer,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ type: 'ready', url: `http://127.0.0.1:${port}/graphql` })}\n`);

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    for (const client of wsServer.clients) client.terminate();
    server.closeAllConnections();
    server.close();
    void Promise.allSettled([wsDisposable.dispose(), gateway.dispose()]).finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdin.on('close', stop);
  process.stdin.resume();
}

await main();
