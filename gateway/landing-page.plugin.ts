import { randomBytes } from 'node:crypto';
import type { ApolloServerPlugin } from '@apollo/server';
import { SANDBOX_FALLBACK_PARAM, type SandboxFallbackReason } from './graphiql.routes.ts';

/**
 * The gateway's development landing page (GET /graphql from a browser): Apollo Sandbox, as Apollo Server's
 * ApolloServerPluginLandingPageLocalDefault embeds it — but Sandbox exists only on Apollo's CDN, so this page also links
 * to the offline IDE (GraphiQL served by the gateway itself, gateway/graphiql.routes.ts) and switches to it when the
 * Sandbox script fails to load or has not loaded within `sandboxTimeoutMs` (offline machines, closed networks, blocked
 * CDN). The server itself never calls out; only the browser tries the CDN. The switch is never silent: the offline IDE
 * is opened with `?sandbox=<reason>` and says in one line at its top why Sandbox is not there.
 */

/** Apollo's embeddable Sandbox, the version Apollo Server 5's default landing page loads. */
export const SANDBOX_SCRIPT_URL = 'https://embeddable-sandbox.cdn.apollographql.com/v2/embeddable-sandbox.umd.production.min.js';
const SANDBOX_SCRIPT_ORIGIN = new URL(SANDBOX_SCRIPT_URL).origin;
const SANDBOX_FRAME_ORIGIN = 'https://sandbox.embed.apollographql.com';

export interface LandingPageOptions {
  /** Path of the offline IDE on this server. */
  localIdePath: string;
  /** How long to wait for the Sandbox script before switching to the offline IDE. */
  sandboxTimeoutMs?: number;
}

export function createLandingPagePlugin(options: LandingPageOptions): ApolloServerPlugin {
  const timeoutMs = options.sandboxTimeoutMs ?? 10_000;
  return {
    async serverWillStart() {
      return {
        async renderLandingPage() {
          // A fresh nonce per page: only this page's own inline script and style run.
          return { html: async () => landingPageHtml(randomBytes(16).toString('base64'), options.localIdePath, timeoutMs) };
        },
      };
    },
  };
}

/** A reason the offline IDE explains (graphiql.routes.ts), checked against its list at compile time. */
const reasonCode = (reason: SandboxFallbackReason): SandboxFallbackReason => reason;

function landingPageHtml(nonce: string, localIdePath: string, timeoutMs: number): string {
  const csp = [
    `script-src 'self' 'nonce-${nonce}' ${SANDBOX_SCRIPT_ORIGIN}`,
    `style-src 'self' 'nonce-${nonce}' ${SANDBOX_SCRIPT_ORIGIN} https://fonts.googleapis.com`,
    `frame-src ${SANDBOX_FRAME_ORIGIN}`,
    "img-src 'self' data:",
  ].join('; ');
  // Sandbox's settings as Apollo Server's local default passes them, with its telemetry off.
  const sandboxConfig = {
    target: '#embeddableSandbox',
    initialState: {},
    hideCookieToggle: false,
    endpointIsEditable: false,
    runTelemetry: false,
    allowDynamicStyles: false,
  };
  const json = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta http-equiv="Content-Security-Policy" content="${csp}">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Tributary GraphQL</title>
    <style nonce="${nonce}">
      body { margin: 0; font-family: system-ui, sans-serif; overflow: hidden; }
      #bar { height: 32px; line-height: 32px; padding: 0 12px; font-size: 13px; background: #0f172a; color: #e2e8f0; }
      #bar a { color: #93c5fd; }
      #embeddableSandbox { position: absolute; top: 32px; bottom: 0; width: 100vw; }
      iframe { background: white; height: 100%; width: 100%; border: none; }
    </style>
  </head>
  <body>
    <div id="bar">
      <span id="status">Loading Apollo Sandbox from Apollo's CDN…</span>
      · No network? <a id="local-ide" href="${localIdePath}">Open the offline GraphQL IDE (GraphiQL, served by this gateway)</a>
    </div>
    <div id="embeddableSandbox"></div>
    <script nonce="${nonce}">
      (function () {
        var localIde = ${json(localIdePath)};
        var settled = false;
        function fallback(reason, code) {
          if (settled) return;
          settled = true;
          document.getElementById('status').textContent = 'Apollo Sandbox could not load (' + reason + '): opening the offline GraphQL IDE…';
          window.location.replace(localIde + '?' + ${json(SANDBOX_FALLBACK_PARAM)} + '=' + code);
        }
        var timer = setTimeout(function () { fallback('no answer in ${Math.round(timeoutMs / 1000)} s', ${json(reasonCode('timeout'))}); }, ${timeoutMs});
        var script = document.createElement('script');
        script.nonce = ${json(nonce)};
        script.src = ${json(SANDBOX_SCRIPT_URL)};
        script.onerror = function () { clearTimeout(timer); fallback('the CDN is unreachable', ${json(reasonCode('unreachable'))}); };
        script.onload = function () {
          clearTimeout(timer);
          if (settled || typeof window.EmbeddedSandbox !== 'function') return fallback('unexpected script', ${json(reasonCode('unexpected'))});
          settled = true;
          document.getElementById('status').textContent = 'Apollo Sandbox';
          var config = ${json(sandboxConfig)};
          config.initialEndpoint = window.location.href;
          new window.EmbeddedSandbox(config);
        };
        document.head.appendChild(script);
      })();
    </script>
  </body>
</html>
`;
}
