import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../logger.ts';
import { sendGraphqlError } from './graphql-operation-limits.ts';
import { JSON_TOO_DEEP } from '../http/json-body.ts';

/**
 * The last two handlers of a GraphQL server's Express app (the gateway's, each subgraph server's), so that nothing it
 * answers is Express's HTML page: a path it does not serve is 404, and a body the parsers refuse (too large, not JSON, an
 * unknown encoding or charset, a Content-Length the body does not match) is the client's 4xx — each a GraphQL error.
 * Anything else reaching here is a bug: logged, and answered 500 with the message masked.
 */
export function graphqlHttpFallbacks(options: { bodyLimitBytes: number; logger: Logger }): [RequestHandler, ErrorRequestHandler] {
  const notFound: RequestHandler = (req, res) => {
    res.status(404).json({
      errors: [{ message: `no route for ${req.method} ${req.path}: GraphQL is served at /graphql`, extensions: { code: 'NOT_FOUND' } }],
    });
  };
  const failed: ErrorRequestHandler = (error: unknown, _req, res, _next) => answerBodyFailure(res, error, options);
  return [notFound, failed];
}

/**
 * Answers an error of the body parsers (body-parser's, through Express or not — the gateway's fast path calls this too):
 * too large is 413, another client fault its own 4xx, anything else a bug, logged and answered 500 with the message
 * masked. A reply already under way is cut off instead.
 */
export function answerBodyFailure(res: ServerResponse, error: unknown, options: { bodyLimitBytes: number; logger: Logger }): void {
  const reply = bodyFailureReply(error, options.bodyLimitBytes);
  if (reply.unexpected) options.logger.error({ err: error }, 'unexpected GraphQL HTTP error');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendGraphqlError(res, reply.status, reply.code, reply.message);
}

function bodyFailureReply(error: unknown, bodyLimitBytes: number): { status: number; code: string; message: string; unexpected: boolean } {
  const type = (error as { type?: string }).type;
  const status = (error as { status?: unknown }).status;
  const tooLarge = type === 'entity.too.large';
  const clientFault = typeof status === 'number' && status >= 400 && status < 500;
  const code = tooLarge ? 413 : clientFault ? (status as number) : 500;
  const message = tooLarge
    ? `request body exceeds the limit of ${bodyLimitBytes} bytes`
    : type === JSON_TOO_DEEP
      ? `request body refused: ${(error as Error).message}`
      : clientFault
        ? `malformed request body: ${(error as Error).message}`
        : 'internal error';
  return { status: code, code: code === 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST', message, unexpected: !tooLarge && !clientFault };
}
