import type { IncomingMessage } from 'node:http';
import { AsyncResource } from 'node:async_hooks';
import { Readable } from 'node:stream';
import type { RequestHandler } from 'express';
import { jsonNestsDeeperThan } from '../../lib/http/json-nesting.ts';

/** body-parser's test for a strict JSON body: the first character that is not JSON whitespace (space, tab, LF, CR). */
const FIRST_CHARACTER = /^[ \t\n\r]*([^ \t\n\r]|$)/;

/**
 * Stand-in `lean-json-body` (lib/stand-ins/stand-in-registry.ts): the gateway fast path's JSON body reader —
 * body-parser's JSON parser (`parseJson`, express.json with the same limit) for everything but the common case, which it
 * reads without body-parser's streams, decoders and type checks (bench/README.md, "Stand-ins").
 *
 * The common case, and only it: a Content-Length body (no Transfer-Encoding) of 1 byte up to the limit, holding a JSON
 * object. Its bytes are read as they come, checked for nesting past `maxDepth` (the check `parseJson` makes in
 * body-parser's verify hook: lib/http/json-body.ts), decoded as UTF-8 with a leading byte-order mark dropped (as
 * body-parser's decoder does) and parsed with JSON.parse. Anything else — no length, an empty body or one over the limit, a body that
 * is not an object, nests too deep or does not parse — is body-parser's, unread (the request is handed to it) or, once read, replayed to
 * it from the bytes, so every answer other than a parsed object is body-parser's own, word for word. The caller has
 * checked the content type (JSON, UTF-8) and the content coding (identity).
 */
export function leanJsonBody(
  parseJson: RequestHandler,
  { limitBytes, maxDepth }: { limitBytes: number; maxDepth: number },
): RequestHandler {
  return (req, res, next) => {
    const length = declaredLength(req);
    if (length === undefined || length === 0 || length > limitBytes) {
      parseJson(req, res, next);
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
      if (jsonNestsDeeperThan(bytes, maxDepth)) {
        replay(req, bytes, parseJson, res, next);
        return;
      }
      let text = bytes.toString('utf8');
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (FIRST_CHARACTER.exec(text)?.[1] === '{') {
        try {
          (req as { body?: unknown }).body = JSON.parse(text);
          next();
          return;
        } catch {
          // body-parser words the failure.
        }
      }
      replay(req, bytes, parseJson, res, next);
    };
    // The client went away mid-body: nobody reads the answer, and raw-body's words for it are used.
    const onAborted = () => {
      cleanup();
      next(
        Object.assign(new Error('request aborted'), {
          status: 400,
          statusCode: 400,
          expose: true,
          type: 'request.aborted',
          code: 'ECONNABORTED',
        }),
      );
    };
    const onError = (error: Error) => {
      cleanup();
      next(Object.assign(error, { status: 400, statusCode: 400, type: (error as { type?: string }).type ?? 'request.aborted' }));
    };
    // The outcome runs in the async context of the caller, as raw-body's (body-parser's reader) does: a stream's events
    // come in the request's own context, where the request's span and request id are not (the next steps' spans —
    // Apollo Server's, the database's — would start traces of their own). One async resource per request, its scope
    // entered by hand: AsyncResource.bind (and AsyncLocalStorage.snapshot, made with it) defines a deprecated getter on
    // every function it binds — Node 20's util.deprecate, per call: about an eighth of a subgraph server's CPU in the
    // bench's profile with three binds a request.
    const scope = new AsyncResource('lean-json-body');
    const ended = () => scope.runInAsyncScope(onEnd);
    const aborted = () => scope.runInAsyncScope(onAborted);
    const failed = (error: Error) => scope.runInAsyncScope(onError, undefined, error);
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', ended);
      req.off('aborted', aborted);
      req.off('error', failed);
      req.off('close', aborted);
    };
    req.on('data', onData);
    req.once('end', ended);
    req.once('aborted', aborted);
    req.once('error', failed);
    // Closed before its end (after 'end' this listener is gone).
    req.once('close', aborted);
  };
}

/** The body's length as the request declares it: a plain decimal Content-Length and no Transfer-Encoding, else undefined. */
function declaredLength(req: IncomingMessage): number | undefined {
  if (req.headers['transfer-encoding'] !== undefined) return undefined;
  const header = req.headers['content-length'];
  if (header === undefined || !/^[0-9]{1,15}$/.test(header)) return undefined;
  return Number(header);
}

/** Hands bytes already read to body-parser as a request of their own, and its outcome (body or error) back to `req`. */
function replay(
  req: IncomingMessage,
  bytes: Buffer,
  parseJson: RequestHandler,
  res: Parameters<RequestHandler>[1],
  next: Parameters<RequestHandler>[2],
): void {
  const copy = Object.assign(Readable.from([bytes], { objectMode: false }), { headers: req.headers, method: req.method, url: req.url });
  parseJson(copy as unknown as Parameters<RequestHandler>[0], res, (error?: unknown) => {
    (req as { body?: unknown }).body = (copy as { body?: unknown }).body;
    next(error);
  });
}
