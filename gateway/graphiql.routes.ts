import express, { type Router } from 'express';
import { packageAsset, sendPackageAsset } from '../lib/http/package-asset.ts';

/**
 * The offline GraphQL IDE: GraphiQL 3 served by the gateway from the installed packages (graphiql's UMD bundle and
 * stylesheet, React 18's UMD builds), so it works where Apollo Sandbox — which exists only on Apollo's CDN — cannot load.
 * The page loads nothing from anywhere else (its Content-Security-Policy says so), sends the headers typed in its Headers
 * editor (Authorization), and passes Apollo Server's CSRF prevention: JSON POSTs plus `Apollo-Require-Preflight: true`.
 * Subscriptions go over the gateway's WebSocket (graphql-ws's own browser client), the Headers editor's Authorization in
 * connection_init; each result shows as it arrives.
 *
 * Opened by the landing page's fallback (`?sandbox=<reason>`), its first line says why Apollo Sandbox is not there.
 */

/** Where the IDE is served (the landing page links to it and falls back to it). */
export const GRAPHIQL_PATH = '/graphiql';

/** The query parameter by which the landing page says why it opened this IDE instead of Apollo Sandbox. */
export const SANDBOX_FALLBACK_PARAM = 'sandbox';

/** Why the landing page fell back, and the one line the IDE shows for it. */
const SANDBOX_FALLBACK_LINES = {
  unreachable: "Apollo Sandbox could not be loaded (Apollo's CDN is unreachable: offline?) — this is the offline GraphiQL IDE.",
  timeout: "Apollo Sandbox could not be loaded (Apollo's CDN did not answer in time: offline?) — this is the offline GraphiQL IDE.",
  unexpected: "Apollo Sandbox could not be loaded (Apollo's CDN sent something else) — this is the offline GraphiQL IDE.",
} as const;

export type SandboxFallbackReason = keyof typeof SANDBOX_FALLBACK_LINES;

const ASSETS: Readonly<Record<string, readonly [packageName: string, file: string]>> = {
  'react.production.min.js': ['react', 'umd/react.production.min.js'],
  'react-dom.production.min.js': ['react-dom', 'umd/react-dom.production.min.js'],
  'graphiql.min.js': ['graphiql', 'graphiql.min.js'],
  'graphiql.min.css': ['graphiql', 'graphiql.min.css'],
  // graphql-ws's browser client (global `graphqlWs`): subscriptions typed in the IDE go over the gateway's WebSocket.
  'graphql-ws.min.js': ['graphql-ws', 'umd/graphql-ws.min.js'],
};

export interface GraphiqlRoutesDeps {
  /** Path of the GraphQL endpoint on this server. */
  graphqlPath: string;
}

export function createGraphiqlRoutes(deps: GraphiqlRoutesDeps): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  const files = new Map(Object.entries(ASSETS).map(([name, [packageName, file]]) => [name, packageAsset(packageName, file)]));

  router.get(GRAPHIQL_PATH, (_req, res) => {
    res
      .set('Content-Security-Policy', CONTENT_SECURITY_POLICY)
      .set('X-Content-Type-Options', 'nosniff')
      .set('Cache-Control', 'no-cache')
      .type('html')
      .send(GRAPHIQL_HTML);
  });
  router.get(`${GRAPHIQL_PATH}/assets/graphiql-start.js`, (_req, res) => {
    res.type('js').set('Cache-Control', 'no-cache').send(startScript(deps.graphqlPath));
  });
  for (const [name, file] of files) {
    router.get(`${GRAPHIQL_PATH}/assets/${name}`, (_req, res) => sendPackageAsset(res, file));
  }
  return router;
}

const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  // React and CodeMirror set style attributes; GraphiQL's fonts are data: URIs inside its stylesheet.
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join('; ');

const GRAPHIQL_HTML = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Tributary GraphQL (GraphiQL, offline)</title>
    <link rel="stylesheet" href="${GRAPHIQL_PATH}/assets/graphiql.min.css">
    <style>
      body { margin: 0; height: 100vh; display: flex; flex-direction: column; }
      #graphiql { flex: 1; min-height: 0; }
      #sandbox-notice { padding: 6px 12px; font: 13px/20px system-ui, sans-serif; background: #0f172a; color: #e2e8f0; }
      #sandbox-notice a { color: #93c5fd; margin-left: 8px; }
    </style>
  </head>
  <body>
    <div id="sandbox-notice" role="status" hidden></div>
    <div id="graphiql">Loading GraphiQL…</div>
    <script src="${GRAPHIQL_PATH}/assets/react.production.min.js"></script>
    <script src="${GRAPHIQL_PATH}/assets/react-dom.production.min.js"></script>
    <script src="${GRAPHIQL_PATH}/assets/graphiql.min.js"></script>
    <script src="${GRAPHIQL_PATH}/assets/graphql-ws.min.js"></script>
    <script src="${GRAPHIQL_PATH}/assets/graphiql-start.js"></script>
  </body>
</html>
`;

const DEFAULT_QUERY = `# Tributary's GraphQL gateway, in GraphiQL served from this server (no CDN needed).
#
# Most operations need a token: open "Headers" below and enter
#   { "Authorization": "Bearer <token>" }
# (npm run token mints an Area A token; npm run social-token a social-graph one.)
#
# Subscriptions run over a WebSocket, each event shown as it arrives, e.g.
#   subscription { mediaCommentEvents(mediaId: "…") { cursor action comment { text } } }
# (pass after: "<cursor>" to resume after the last event you saw).

query Records {
  userExamples(params: { limit: 5 }) {
    total
    userExamples { id name email gender createdAt }
  }
}
`;

/** GraphiQL's start-up; an external script, so the page's CSP needs no inline code. */
function startScript(graphqlPath: string): string {
  return `(function () {
  var url = new URL(${JSON.stringify(graphqlPath)}, window.location.href);
  // Opened by the landing page instead of Apollo Sandbox: say why, in one line, with the way back to Sandbox.
  var fallbackLines = ${JSON.stringify(SANDBOX_FALLBACK_LINES)};
  var fallback = new URLSearchParams(window.location.search).get(${JSON.stringify(SANDBOX_FALLBACK_PARAM)});
  if (fallback && Object.prototype.hasOwnProperty.call(fallbackLines, fallback)) {
    var notice = document.getElementById('sandbox-notice');
    notice.textContent = fallbackLines[fallback];
    var retry = document.createElement('a');
    retry.href = url.pathname;
    retry.textContent = 'Try Sandbox again';
    notice.appendChild(retry);
    notice.hidden = false;
  }
  var httpFetcher = GraphiQL.createFetcher({
    url: url.href,
    // JSON POSTs already pass CSRF prevention; the header keeps any other request shape working too.
    headers: { 'Apollo-Require-Preflight': 'true' },
  });
  var wsUrl = (url.protocol === 'https:' ? 'wss:' : 'ws:') + '//' + url.host + url.pathname;
  /** The operation GraphiQL is about to run: a subscription goes over the WebSocket, anything else over HTTP. */
  function isSubscription(params, options) {
    var document = options && options.documentAST;
    if (!document) return /^\\s*subscription\\b/.test(params.query || '');
    var operations = document.definitions.filter(function (definition) { return definition.kind === 'OperationDefinition'; });
    var chosen = operations.filter(function (operation) {
      return params.operationName ? operation.name && operation.name.value === params.operationName : true;
    })[0];
    return Boolean(chosen) && chosen.operation === 'subscription';
  }
  function fetcher(params, options) {
    if (!isSubscription(params, options)) return httpFetcher(params, options);
    // One client per run: the Headers editor's values (Authorization) travel in connection_init.
    var client = graphqlWs.createClient({ url: wsUrl, connectionParams: (options && options.headers) || {}, lazy: true, retryAttempts: 0 });
    var iterator = client.iterate({ query: params.query, variables: params.variables || {}, operationName: params.operationName || undefined });
    var finished = false;
    function finish() {
      if (finished) return;
      finished = true;
      client.dispose();
    }
    return {
      next: function () {
        if (finished) return Promise.resolve({ value: undefined, done: true });
        return iterator.next().then(
          function (step) { if (step.done) finish(); return step; },
          function (error) {
            finish();
            // A closed socket or the server's error message, shown as a result rather than a stack trace.
            var errors = Array.isArray(error) ? error : [{ message: error && error.reason ? 'Connection closed: ' + error.reason : String(error && error.message || error) }];
            return { value: { errors: errors }, done: false };
          },
        );
      },
      return: function () { finish(); return iterator.return ? iterator.return() : Promise.resolve({ done: true, value: undefined }); },
      [Symbol.asyncIterator]: function () { return this; },
    };
  }
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: ${JSON.stringify(DEFAULT_QUERY)},
      defaultEditorToolsVisibility: 'headers',
      isHeadersEditorEnabled: true,
      // Tokens typed in the Headers editor are not written to localStorage.
      shouldPersistHeaders: false,
    }),
  );
})();
`;
}
