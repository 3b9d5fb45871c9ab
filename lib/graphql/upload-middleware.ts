import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Config } from '../config.ts';
import { processUploadRequest } from './graphql-upload-request.ts';
import { multipartBoundaryProblem } from '../http/multipart-boundary.ts';

/**
 * Accepts GraphQL multipart requests (https://github.com/jaydenseric/graphql-multipart-request-spec) in front of Apollo
 * Server: each file is spooled to a temporary file while it streams and reaches the resolver as an Upload. Files are cut
 * one byte past the media rule (lib/graphql/graphql-upload-request.ts), so that the media service — not this transport — refuses
 * an oversized file with its own error, in the gateway and in the subgraph alike. A malformed multipart body is answered
 * in GraphQL's error shape, never Express's HTML page.
 */
export function uploadMiddleware(config: Pick<Config, 'media' | 'gateway' | 'graphql'>): RequestHandler {
  const options = {
    maxFileSize: config.media.maxBytes + 1,
    maxFiles: 1,
    // The operations field is held to the JSON body's limit (GRAPHQL_BODY_LIMIT_BYTES, by default room for an image in
    // base64), so a multipart request is no way around it.
    maxFieldSize: config.gateway.bodyLimitBytes,
    maxJsonDepth: config.graphql.maxJsonDepth,
  };
  return (req: Request, res: Response, next: NextFunction) => {
    if (!req.is('multipart/form-data')) {
      next();
      return;
    }
    const boundaryProblem = multipartBoundaryProblem(req.headers['content-type']);
    if (boundaryProblem) {
      // The body is read and thrown away, so that a kept-alive connection can carry the next request.
      req.resume();
      res.status(400).json({
        errors: [{ message: `the request body is not valid multipart/form-data: ${boundaryProblem}`, extensions: { code: 'BAD_REQUEST' } }],
      });
      return;
    }
    processUploadRequest(req, res, options).then(
      (operations) => {
        req.body = operations;
        next();
      },
      (error: unknown) => {
        const status = (error as { status?: unknown }).status;
        const clientFault = typeof status === 'number' && status >= 400 && status < 500;
        if (!clientFault) {
          next(error);
          return;
        }
        res
          .status(status === 499 ? 400 : status)
          .json({ errors: [{ message: (error as Error).message, extensions: { code: 'BAD_REQUEST' } }] });
      },
    );
  };
}
