import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../logger.ts';

/**
 * The last two handlers of a GraphQL server's Express app (the gateway's, each subgraph server's), so that nothing it
 * answers is Express's HTML page: a path it does not serve is 404, and a body the parsers refuse (too large, not JSON, an
 * unknown encoding or charset, a Content-Length the body does not match) is the client's 4xx — each a GraphQL error.
 * Anything else reaching here is a bug: logged, and answered 500 with the message masked.
 */
export function graphqlHttpFallbacks(options: { bodyLimitBytes: number; logger: Logger }): [RequestHandler, ErrorRequestHandler] {
  const notFound: RequestHandler = (req, res) => {
    res.status(404).json({ errors: [{ message: `no route for ${req.method} ${req.path}: GraphQL is served at /graphql`, extensions: { code: 'NOT_FOUND' } }] });
  };
  const failed: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
    const reply = bodyFailureReply(error, options.bodyLimitBytes);
    if (reply.unexpected) options.logger.error({ err: error }, 'unexpected GraphQL HTTP error');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(reply.status).json(reply.body);
  };
  return [notFound, failed];
}

/**
 * The answer to an error of the body parsers (body-parser's, through Express or not): too large is 413, another client
 * fault its own 4xx, anything else a bug (500, message masked; `unexpected` says to log it).
 */
export function bodyFailureReply(
  error: unknown,
  bodyLimitBytes: number,
): { status: number; body: { errors: [{ message: string; extensions: { code: string } }] }; unexpected: boolean } {
  const type = (error as { type?: string }).type;
  const status = (error as { status?: unknown }).status;
  const tooLarge = type === 'entity.too.large';
  const clientFault = typeof status === 'number' && status >= 400 && status < 500;
  const code = tooLarge ? 413 : clientFault ? (status as number) : 500;
  const message = tooLarge
    ? `request body exceeds the limit of ${bodyLimitBytes} bytes`
    : clientFault
      ? `malformed request body: ${(error as Error).message}`
      : 'internal error';
  return {
    status: code,
    body: { errors: [{ message, extensions: { code: code === 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST' } }] },
    unexpected: !tooLarge && !clientFault,
  };
}
