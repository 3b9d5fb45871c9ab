import type { RequestHandler } from 'express';
import type { Config, SubgraphName } from '../../lib/config.ts';
import { createHomePageHandler, requestOrigin, type HomePage } from '../../lib/http/home-page.ts';

/**
 * The root page of a process without a public HTTP API (a subgraph server, the gRPC process's status listener): what it
 * is, where the public doors are, its probes. Apart from listener-home-pages.ts, whose links need the gateway's and the
 * REST adapter's paths, so that these processes load neither.
 */

/** The README's sections these pages point to (the README is not served: it is read in the repository). */
export const README_POINTER =
  'README.md in the repository: “Run it” and “Explore” walk through every listener, “API documents” lists the documents.';

/**
 * The root of a process that serves no public API on HTTP (the distributed topology's subgraph servers and the gRPC
 * process's status listener): what it is, where the public doors are, and its probes.
 */
function internalHomePage(config: Config, identity: Pick<HomePage, 'title' | 'summary'>, lines: readonly string[]): RequestHandler {
  return createHomePageHandler((req) => {
    const here = requestOrigin(req, config.publicHost).origin;
    return {
      ...identity,
      sections: [
        { heading: 'Where to go', links: [], lines },
        {
          heading: 'This listener’s probes',
          links: [
            { href: `${here}/health`, text: '/health', note: 'alive' },
            { href: `${here}/ready`, text: '/ready', note: 'can serve now (JSON report)' },
            ...(config.telemetry.metricsEnabled ? [{ href: `${here}/metrics`, text: '/metrics', note: 'Prometheus' }] : []),
          ],
        },
        { heading: 'Documentation', links: [], lines: [README_POINTER] },
      ],
    };
  });
}

/** A subgraph server's root (npm run start:subgraph -- <name>): the gateway reaches it; people use the gateway. */
export function subgraphHomePage(config: Config, name: SubgraphName): RequestHandler {
  return internalHomePage(
    config,
    {
      title: `Tributary — the ${name} subgraph`,
      summary: `This listener serves the ${name} subgraph's GraphQL at /graphql, for the gateway (SUBGRAPH_${name.toUpperCase()}_URL), not for people or API clients. API clients get GraphQL's JSON here, never this page.`,
    },
    [
      'The GraphQL IDE, Swagger UI and the API documents are on the gateway’s process (npm run start:gateway): open its listeners’ / in a browser.',
    ],
  );
}

/** The gRPC process's status listener (npm run start:grpc, GRPC_STATUS_PORT): gRPC itself is not HTTP/1.1. */
export function grpcStatusHomePage(config: Config, grpcAddress: string): RequestHandler {
  return internalHomePage(
    config,
    {
      title: 'Tributary — gRPC status listener',
      summary: `This listener answers the gRPC process's probes. The gRPC service (api.serverNameExample.v1.userExample, with server reflection) is at ${grpcAddress}, over HTTP/2. API clients get google.rpc.Status JSON here, never this page.`,
    },
    [
      `List the services: npx buf curl --protocol grpc --http2-prior-knowledge --list-services http://${grpcAddress} (or grpcurl -plaintext list ${grpcAddress}).`,
    ],
  );
}
