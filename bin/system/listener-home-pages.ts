import type { Request, RequestHandler } from 'express';
import type { SocialHost } from '../../contracts/social-graph.ts';
import { GRAPHIQL_PATH } from '../../gateway/graphiql.routes.ts';
import type { Config } from '../../lib/config.ts';
import { createHomePageHandler, requestOrigin, siblingOrigin, type HomePage, type HomePageLink } from '../../lib/http/home-page.ts';
import { API_DOCS_PATHS } from '../../rest-adapter/docs/api-docs.routes.ts';
import { README_POINTER } from './internal-home-pages.ts';

/**
 * What the root of each HTTP listener of a process tells a person in a browser (lib/http/home-page.ts serves it): what
 * the listener is, and links to the GraphQL IDEs on the gateway, Swagger UI and the API documents on the REST listeners,
 * the other listeners and the probes. Written here, where the gateway's and the REST adapter's paths meet, since neither
 * may import the other.
 *
 * Links to the listener that answers use the Host the request came in on. Links to another listener use the host name
 * the configuration gives it (SOCIAL_OWN_HOSTNAME / SOCIAL_PARENT_HOSTNAME, one proxy in front of both REST hosts), or
 * else the request's host name with that listener's port.
 *
 * The processes without a public HTTP API (a subgraph server, the gRPC process's status listener) have a shorter page:
 * internal-home-pages.ts.
 */

/** The HTTP listeners of a process that runs the gateway and the REST adapter (npm start, npm run start:gateway). */
export type HomeListener = 'gateway' | SocialHost;

export interface ListenerHomePages {
  /** The gateway's handler (createGateway's `homePage`). */
  gateway: RequestHandler;
  /** A REST listener's handler; the Host header may name the other social host (its configured host name). */
  rest(socialHost: SocialHost): RequestHandler;
  /** A listener's port, once it listens (ports may be 0); a listener not yet listening is left out of the links. */
  listening(listener: HomeListener, port: number): void;
}

export function createListenerHomePages(config: Config): ListenerHomePages {
  const ports: Partial<Record<HomeListener, number>> = {};
  const hostnames: Partial<Record<HomeListener, string | undefined>> = {
    own: config.social.ownHostname,
    parent: config.social.parentHostname,
  };

  /** The origin of `listener` as seen from this request (undefined while it does not listen). */
  function originOf(req: Request, here: URL, hereListener: HomeListener, listener: HomeListener): string | undefined {
    if (listener === hereListener) return here.origin;
    const hostname = hostnames[listener];
    if (hostname !== undefined) return `${req.protocol}://${hostname}`;
    const port = ports[listener];
    return port === undefined ? undefined : siblingOrigin(here, port);
  }

  function page(req: Request, hereListener: HomeListener): HomePage {
    const here = requestOrigin(req, config.publicHost);
    const at = (listener: HomeListener) => originOf(req, here, hereListener, listener);
    const gateway = at('gateway');
    const own = at('own');
    const parent = at('parent');
    // The API documents are served on both REST hosts: this one's when it is one, else the own-login host's.
    const docs = hereListener === 'gateway' ? own : here.origin;

    const ide: HomePage['sections'][number] =
      config.gateway.landingPage && gateway !== undefined
        ? {
            heading: 'GraphQL IDE (on the gateway)',
            links: [
              {
                href: `${gateway}/graphql`,
                text: 'Apollo Sandbox',
                note: "loaded from Apollo's CDN; offline, the page switches to the offline IDE and says why",
              },
              {
                href: `${gateway}${GRAPHIQL_PATH}`,
                text: 'GraphiQL, the offline GraphQL IDE',
                note: 'served by the gateway from local packages, no network needed',
              },
            ],
            lines: [
              'Most operations need a token (npm run token for Area A, npm run social-token for the social graph): put {"Authorization": "Bearer <token>"} in the IDE\'s headers.',
            ],
          }
        : {
            heading: 'GraphQL IDE',
            links: [],
            lines: ['The GraphQL IDEs are off on this deployment (GRAPHQL_LANDING_PAGE; off in production by default).'],
          };
    const documents: HomePage['sections'][number] =
      config.rest.apiDocs && docs !== undefined
        ? {
            heading: 'REST API documents',
            links: [
              {
                href: `${docs}${API_DOCS_PATHS.ui}`,
                text: 'Swagger UI',
                note: 'both documents below; "Try it out" calls the REST listener that served it',
              },
              { href: `${docs}${API_DOCS_PATHS.openapi}`, text: 'OpenAPI 3: every REST path (Areas A to D)' },
              { href: `${docs}${API_DOCS_PATHS.swagger}`, text: 'Swagger 2.0: Area A (userExample)' },
            ],
          }
        : { heading: 'REST API documents', links: [], lines: ['The API documents are off on this deployment (REST_API_DOCS=false).'] };
    const listeners: HomePageLink[] = [
      ...(hereListener !== 'gateway' && gateway !== undefined
        ? [{ href: `${gateway}/graphql`, text: 'GraphQL gateway', note: 'POST /graphql' }]
        : []),
      ...(hereListener !== 'own' && own !== undefined
        ? [{ href: `${own}/`, text: 'REST, own-login host', note: "Area A, the social graph's own-login host, image upload" }]
        : []),
      ...(hereListener !== 'parent' && parent !== undefined
        ? [{ href: `${parent}/`, text: 'REST, parent-platform host', note: "the social graph's parent-platform host" }]
        : []),
    ];
    const probes: HomePageLink[] = [
      { href: `${here.origin}/health`, text: '/health', note: 'alive' },
      { href: `${here.origin}/ready`, text: '/ready', note: 'can serve now (JSON report)' },
      ...(config.telemetry.metricsEnabled ? [{ href: `${here.origin}/metrics`, text: '/metrics', note: 'Prometheus' }] : []),
    ];
    const [first, second] = hereListener === 'gateway' ? [ide, documents] : [documents, ide];
    return {
      ...IDENTITY[hereListener],
      sections: [
        first,
        second,
        { heading: 'Other listeners', links: listeners },
        { heading: 'This listener’s probes', links: probes },
        { heading: 'Documentation', links: [], lines: [README_POINTER] },
      ],
    };
  }

  return {
    gateway: createHomePageHandler((req) => page(req, 'gateway')),
    rest(socialHost) {
      return createHomePageHandler((req) => {
        // As the API documents decide it (rest-adapter/docs/api-docs.routes.ts): a configured host name wins over the port.
        const name = req.hostname?.toLowerCase();
        const listener: SocialHost =
          hostnames.parent !== undefined && name === hostnames.parent
            ? 'parent'
            : hostnames.own !== undefined && name === hostnames.own
              ? 'own'
              : socialHost;
        return page(req, listener);
      });
    },
    listening(listener, port) {
      ports[listener] = port;
    },
  };
}

/** What each listener is. */
const IDENTITY: Record<HomeListener, Pick<HomePage, 'title' | 'summary'>> = {
  gateway: {
    title: 'Tributary — GraphQL gateway',
    summary:
      'This listener serves the federated GraphQL API at /graphql: queries and mutations as JSON POSTs (uploads as multipart), subscriptions over a WebSocket, server-sent events or multipart on the same path. API clients get GraphQL’s JSON here, never this page.',
  },
  own: {
    title: 'Tributary — REST, own-login host',
    summary:
      "This listener serves Area A's user records (/api/v1/userExample…), the social graph's own-login host (/v25.0/me, /v25.0/{id}…) and image upload (/1.1/media/upload.json, /2/media/…). API clients get each area's own JSON here, never this page.",
  },
  parent: {
    title: 'Tributary — REST, parent-platform host',
    summary:
      "This listener serves the social graph's parent-platform host (/v25.0/me/accounts, /v25.0/{id}…). API clients get the Graph API's JSON here, never this page.",
  },
};
