import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import Negotiator from 'negotiator';

/**
 * The root of an HTTP listener for a person in a browser: `GET /` (and HEAD) from a client that prefers HTML to JSON is
 * answered with a small page saying what the listener is and where to go (the GraphQL IDE, Swagger UI, the API documents,
 * the other listeners). Every other request for `/` — an API client (curl's `*\/*`, `application/json`, no Accept at all),
 * a query string — goes on to the listener's own routes and gets exactly what it got before, in the area's own format.
 *
 * The page is self-contained: no script, no stylesheet, no image, nothing from anywhere (its Content-Security-Policy
 * says so), so it reads the same offline.
 */

/** One link of a home page: an absolute URL (shown as written, so the address can be copied) and what is there. */
export interface HomePageLink {
  href: string;
  text: string;
  /** A few words after the link (what it needs, where it falls back to). */
  note?: string;
}

/** What a listener's home page says. */
export interface HomePage {
  /** The page's title and heading, e.g. "Tributary — GraphQL gateway". */
  title: string;
  /** One or two sentences: what this listener serves. */
  summary: string;
  sections: readonly { heading: string; links: readonly HomePageLink[]; lines?: readonly string[] }[];
}

/** Media types a request for `/` may want; the first is what a client that accepts anything gets (the API's own reply). */
const ROOT_MEDIA_TYPES = ['application/json', 'text/html'];

/**
 * True when the request's Accept header prefers HTML to JSON (a browser's `text/html,…,*\/*;q=0.8`); false for a missing
 * header, `*\/*` (curl), `application/json`, or anything that ranks JSON at least as high.
 */
export function prefersHtml(headers: IncomingHttpHeaders): boolean {
  return new Negotiator({ headers }).mediaType(ROOT_MEDIA_TYPES) === 'text/html';
}

/**
 * Express middleware serving `describe(req)` as the home page at `/` to browsers (see above); it passes everything else
 * on. Replies for `/` say `Vary: Accept` either way, so no cache hands the page to an API client or the reverse.
 */
export function createHomePageHandler(describe: (req: Request) => HomePage): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.url !== '/' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      next();
      return;
    }
    res.vary('Accept');
    if (!prefersHtml(req.headers)) {
      next();
      return;
    }
    res.locals.route = '/';
    res
      .status(200)
      .set('Content-Security-Policy', HOME_PAGE_CSP)
      .set('X-Content-Type-Options', 'nosniff')
      .set('Referrer-Policy', 'no-referrer')
      .set('Cache-Control', 'no-cache')
      .vary('Host')
      .type('html')
      .send(renderHomePage(describe(req)));
  };
}

/**
 * The origin a request arrived at: its scheme and Host header. (Every listener refuses a request whose Host is no host
 * name or address before any route: lib/http/http-client-errors.ts.) Without a usable one, the publicly known host name
 * at the port the request came in on.
 */
export function requestOrigin(req: Request, publicHost: string): URL {
  const host = req.get('host');
  if (host !== undefined) {
    try {
      const url = new URL(`${req.protocol}://${host}`);
      if (url.username === '' && url.password === '' && url.pathname === '/' && url.search === '' && url.hash === '') return url;
    } catch {
      // not a host: the public host below
    }
  }
  const url = new URL(`${req.protocol}://${publicHost}`);
  if (req.socket.localPort !== undefined) url.port = String(req.socket.localPort);
  return url;
}

/** The origin of another listener of this process, reached on the same host name as the request, at its port. */
export function siblingOrigin(requestUrl: URL, port: number): string {
  const url = new URL(requestUrl.href);
  url.port = String(port);
  return url.origin;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

const STYLE = `body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #0f172a; }
h1 { font-size: 1.5rem; margin-bottom: 0.25rem; }
h2 { font-size: 1.1rem; margin-top: 1.5rem; }
ul { padding-left: 1.25rem; }
li { margin: 0.25rem 0; }
a { color: #1d4ed8; word-break: break-all; }
.note { color: #475569; }
code { font-size: 0.9em; }`;

/**
 * Nothing but the page itself: its one <style> element (allowed by its hash, no 'unsafe-inline'), and links. No script,
 * no image, no frame, no form.
 */
const HOME_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The page's HTML: every value escaped. */
export function renderHomePage(page: HomePage): string {
  const link = ({ href, text, note }: HomePageLink) =>
    `<li><a href="${escapeHtml(href)}">${escapeHtml(text)}</a>${note ? ` <span class="note">— ${escapeHtml(note)}</span>` : ''}<br><code>${escapeHtml(href)}</code></li>`;
  const sections = page.sections
    .map(
      (section) =>
        `<h2>${escapeHtml(section.heading)}</h2>\n` +
        (section.links.length > 0 ? `<ul>\n${section.links.map(link).join('\n')}\n</ul>\n` : '') +
        (section.lines ?? []).map((line) => `<p>${escapeHtml(line)}</p>`).join('\n'),
    )
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(page.title)}</h1>
<p>${escapeHtml(page.summary)}</p>
${sections}
</body>
</html>
`;
}
