import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Writes `body` as JSON, byte for byte what Express's `res.status(status).json(body)` writes with this codebase's
 * settings (no ETag, no replacer or spaces): `Content-Type: application/json; charset=utf-8`, `Content-Length`, and no
 * body on a HEAD request. It works on a plain node:http response, so that the routes served without Express (the REST
 * fast path, rest-adapter/stand-ins/rest-fast-path.ts) and those served through it answer the same.
 */
export function sendJson(res: ServerResponse<IncomingMessage>, status: number, body: unknown): void {
  sendJsonText(res, status, JSON.stringify(body));
}

/** sendJson of a body already serialised (a reply whose bytes were needed first: conditional-json.ts hashes them). */
export function sendJsonText(res: ServerResponse<IncomingMessage>, status: number, text: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  if (res.req.method === 'HEAD') res.end();
  else res.end(text);
}
