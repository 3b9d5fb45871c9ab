import express, { type Request, type Response, type Router } from 'express';
import { packageAsset, sendPackageAsset } from '../../lib/http/package-asset.ts';
import { readSupergraph } from '../../schema/supergraph-file.ts';
import type { SocialHost } from '../../contracts/social-graph.ts';
import { buildGraphSchemas } from './graph-schemas.ts';
import { buildOpenApiDocument } from './openapi.document.ts';
import { buildUserExampleSwagger } from './user-example.swagger.ts';

/**
 * The API documents and Swagger UI, served by the REST adapter: the Swagger 2.0 document of Area A where sponge serves
 * its own (/apis/swagger/…), the OpenAPI 3 document of every REST path at /openapi.json, and Swagger UI from the local
 * swagger-ui-dist package showing both (no CDN: every asset comes from this server, so it works offline).
 *
 * The documents name the servers they describe from the request (its scheme and Host) and the other listener's URL, so
 * Swagger UI's "Try it out" calls the listener that served the page, whatever port or proxy is in front of it.
 */

/** Paths this router serves: documents and the UI, not API operations (the document-vs-routes test leaves them out). */
export const API_DOCS_PATHS = {
  swagger: '/apis/swagger/doc.json',
  openapi: '/openapi.json',
  ui: '/apis/swagger/index.html',
  uiDirectory: '/apis/swagger',
} as const;

/** Names of the two documents in Swagger UI's selector (`?urls.primaryName=` picks one). */
export const SWAGGER_UI_DOCUMENT_NAMES = {
  openapi: 'OpenAPI 3: every REST path (Areas A to D)',
  swagger: 'Swagger 2.0: Area A (userExample)',
} as const;

export interface ApiDocsRoutesDeps {
  /** The social host this listener serves when the Host header names neither configured host name. */
  socialHost: SocialHost;
  ownHostname?: string | undefined;
  parentHostname?: string | undefined;
  /** Base URL of the other REST listener (own-login ↔ parent-platform), once it listens; undefined: not named. */
  siblingUrl?: (() => string | undefined) | undefined;
  /** The supergraph SDL the Graph schemas are read from; default: the committed schema/supergraph.graphql. */
  supergraphSdl?: string;
}

/** Swagger UI's files, served from the installed package under /apis/swagger/. */
const SWAGGER_UI_FILES = [
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'swagger-ui-standalone-preset.js',
  'favicon-32x32.png',
  'favicon-16x16.png',
];

export function createApiDocsRoutes(deps: ApiDocsRoutesDeps): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  // Read once: the Graph schemas come from the supergraph, which does not change while the process runs.
  const graphSchemas = buildGraphSchemas(deps.supergraphSdl ?? readSupergraph());
  const assets = new Map(SWAGGER_UI_FILES.map((name) => [name, packageAsset('swagger-ui-dist', name)]));

  /** The two listeners' base URLs as this request sees them: its own origin, and the other host's. */
  function servers(req: Request): { own: string | undefined; parent: string | undefined; first: SocialHost } {
    const name = req.hostname?.toLowerCase();
    const here: SocialHost =
      deps.parentHostname && name === deps.parentHostname
        ? 'parent'
        : deps.ownHostname && name === deps.ownHostname
          ? 'own'
          : deps.socialHost;
    const other: SocialHost = here === 'own' ? 'parent' : 'own';
    const otherHostname = other === 'own' ? deps.ownHostname : deps.parentHostname;
    const otherUrl = otherHostname ? `${req.protocol}://${otherHostname}` : deps.siblingUrl?.();
    const hereUrl = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
    return { own: here === 'own' ? hereUrl : otherUrl, parent: here === 'parent' ? hereUrl : otherUrl, first: here };
  }

  function sendDocument(res: Response, document: unknown): void {
    // Documents describe this deployment's addresses, so caches must not hand one host's document to another.
    res.set('Cache-Control', 'no-cache').set('Vary', 'Host').json(document);
  }

  router.get(API_DOCS_PATHS.swagger, (req, res) => {
    const own = servers(req).own;
    const url = new URL(own ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`);
    const scheme = url.protocol === 'https:' ? 'https' : 'http';
    sendDocument(res, buildUserExampleSwagger({ host: url.host, schemes: [scheme, scheme === 'http' ? 'https' : 'http'] }));
  });

  router.get(API_DOCS_PATHS.openapi, (req, res) => {
    sendDocument(res, buildOpenApiDocument(servers(req), graphSchemas));
  });

  for (const path of [API_DOCS_PATHS.uiDirectory, `${API_DOCS_PATHS.uiDirectory}/`]) {
    router.get(path, (_req, res) => res.redirect(302, API_DOCS_PATHS.ui));
  }

  router.get(API_DOCS_PATHS.ui, (req, res) => {
    const { own, parent } = servers(req);
    // Try it out may call the other host; nothing else leaves this origin (no CDN, no validator badge).
    const connect = ["'self'", ...[own, parent].filter((url) => url !== undefined).map((url) => new URL(url).origin)];
    res
      .set('Content-Security-Policy', contentSecurityPolicy(connect))
      .set('X-Content-Type-Options', 'nosniff')
      .type('html')
      .send(SWAGGER_UI_HTML);
  });

  router.get(`${API_DOCS_PATHS.uiDirectory}/swagger-initializer.js`, (_req, res) => {
    res.type('js').set('Cache-Control', 'no-cache').send(swaggerInitializer());
  });

  for (const [name, file] of assets) {
    router.get(`${API_DOCS_PATHS.uiDirectory}/${name}`, (_req, res) => sendPackageAsset(res, file));
  }

  return router;
}

function contentSecurityPolicy(connect: readonly string[]): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    // Swagger UI's React components set style attributes.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src ${[...new Set(connect)].join(' ')}`,
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
}

const SWAGGER_UI_HTML = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>Tributary API documents</title>
    <link rel="stylesheet" type="text/css" href="./swagger-ui.css">
    <link rel="icon" type="image/png" href="./favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="./favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="./swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="./swagger-ui-standalone-preset.js" charset="UTF-8"></script>
    <script src="./swagger-initializer.js" charset="UTF-8"></script>
  </body>
</html>
`;

/** Swagger UI's start-up: both documents in the selector, and no call to the public validator (it would leave the machine). */
function swaggerInitializer(): string {
  const urls = [
    { url: API_DOCS_PATHS.openapi, name: SWAGGER_UI_DOCUMENT_NAMES.openapi },
    { url: API_DOCS_PATHS.swagger, name: SWAGGER_UI_DOCUMENT_NAMES.swagger },
  ];
  return `window.onload = function () {
  window.ui = SwaggerUIBundle({
    urls: ${JSON.stringify(urls)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
  });
};
`;
}
