import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../lib/logger.ts';
import type { Telemetry } from '../../lib/telemetry/telemetry.ts';
import { sendThrownError } from '../user-records/google-rpc-status.ts';
import { USER_EXAMPLE_ID_ROUTE, type UserExampleRoutes } from '../user-records/user-example.routes.ts';

export interface RestFastPathDeps {
  telemetry: Telemetry;
  logger: Logger;
  /** The listener's name in metrics and traces (rest-own). */
  listener: string;
  byId: UserExampleRoutes['byId'];
}

/**
 * A record path with a plain id, as Express would route it (case-sensitive, one optional trailing slash, any query
 * ignored). Only unreserved characters in the id: an id Express would percent-decode, or a path parseurl would read
 * differently, is left to Express.
 */
const RECORD_PATH = /^\/api\/v1\/userExample\/([A-Za-z0-9_.~-]+)\/?(?:\?|$)/;

/**
 * Stand-in `rest-fast-path` (lib/stand-ins/stand-in-registry.ts): Area A's most common requests — GET and DELETE of
 * one record, which read no body — served straight from node:http: the same telemetry (request id, span, metrics,
 * access log), the same route handlers and the same replies as through Express 5.3.0, without Express's router and its
 * request and response decoration (bench/README.md, "Stand-ins"). Every other request, and every request when CORS is
 * configured (its middleware runs first on the Express app), goes to Express: the function answers false.
 * test/e2e/gateway/rest-fast-path.test.ts compares its replies with Express's.
 */
export function createRestFastPath(deps: RestFastPathDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const rawId = takesRestFastPath(req);
    if (rawId === undefined) return false;
    const method = req.method as 'GET' | 'DELETE';
    const path = (req.url ?? '').split('?', 1)[0]!;
    deps.telemetry.serve(
      deps.listener,
      req,
      res,
      USER_EXAMPLE_ID_ROUTE,
      () => {
        deps.byId[method](req, res, rawId).catch((error: unknown) => sendThrownError(res, error, deps.logger));
      },
      path,
    );
    return true;
  };
}

/** The raw id of a request the fast path serves (GET or DELETE of a record by a plain id); undefined for any other. */
export function takesRestFastPath(req: Pick<IncomingMessage, 'method' | 'url'>): string | undefined {
  if (req.method !== 'GET' && req.method !== 'DELETE') return undefined;
  return RECORD_PATH.exec(req.url ?? '')?.[1];
}
