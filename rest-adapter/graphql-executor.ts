import type { GraphQLFormattedError } from 'graphql';
import { executeOperation, type GatewayDoor } from '../gateway/gateway-door.ts';
import { UnavailableError } from '../lib/errors.ts';
import { findUploads, postMultipartOperation } from '../lib/graphql/graphql-multipart.ts';
import type { Tracing } from '../lib/telemetry/tracing.ts';
import { TRUSTED_CALLER_HEADER } from '../lib/http/trusted-caller.ts';
import { isRecord } from '../lib/is-record.ts';
import { LOG_POSITION_HEADER } from './caller-headers.ts';

/**
 * What a REST route needs to run its GraphQL operation through the gateway: the gateway's door in this process
 * (gateway/gateway-door.ts, whose `execute` runs it with no HTTP hop), or a gateway over HTTP (below). A generated
 * document (`<area>/generated/operations.ts`) gives a typed result and takes typed variables; text gives untyped data.
 */
export type GraphQLExecutor = Pick<GatewayDoor, 'execute'>;

/**
 * Sends operations to a gateway over HTTP (the REST adapter deployed apart from the gateway), with the current trace's
 * context (traceparent) when tracing is on.
 */
export function createHttpExecutor(
  gatewayUrl: string,
  tracing?: Tracing,
  /** GRAPHQL_TRUSTED_CALLER_SECRET: sent so that the gateway lets the adapter's generated operations past its limits. */
  trustedCallerSecret?: string,
): GraphQLExecutor {
  const endpoint = new URL('/graphql', gatewayUrl).toString();

  // A generated document's result is its document's type (as the door declares it); the reply is checked to be a
  // GraphQL response before it is taken for one.
  const execute = executeOperation(async ({ query, operationName, variables, headers }) => {
    const outgoing: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    for (const [name, value] of Object.entries(headers)) if (value !== undefined) outgoing[name] = value;
    tracing?.inject(outgoing);
    if (trustedCallerSecret) outgoing[TRUSTED_CALLER_HEADER] = trustedCallerSecret;
    const uploads = findUploads(variables);
    if (uploads.length > 0) {
      let reply;
      try {
        reply = await postMultipartOperation(endpoint, { query, operationName, variables }, uploads, outgoing);
      } catch (error) {
        throw new UnavailableError('the GraphQL gateway is unreachable', {}, { cause: error });
      }
      return withLogPosition(graphqlResponse(reply.status, reply.body), reply.headers[LOG_POSITION_HEADER]);
    }
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: outgoing,
        body: JSON.stringify({ query, operationName, variables }),
      });
    } catch (error) {
      throw new UnavailableError('the GraphQL gateway is unreachable', {}, { cause: error });
    }
    const result = graphqlResponse(response.status, await response.json().catch(() => undefined));
    return withLogPosition(result, response.headers.get(LOG_POSITION_HEADER));
  });

  return { execute };
}

/**
 * The result with the change-log position the gateway's reply answered (a write's, with the cache on), as the door in
 * this process gives it: for a JSON reply and a multipart one (an upload) alike.
 */
function withLogPosition<T extends object>(result: T, position: string | string[] | null | undefined): T & { logPosition?: string } {
  return typeof position === 'string' ? { ...result, logPosition: position } : result;
}

/** A GraphQL response as the wire carries it: data and errors as the spec shapes them, before any document's type. */
interface GraphQLResponseBody {
  data?: Record<string, unknown> | null;
  errors?: GraphQLFormattedError[];
  extensions?: Record<string, unknown>;
}

/**
 * The gateway's reply body as a GraphQL response, or UnavailableError when it is none (a proxy's error page, an empty
 * body, JSON of another shape): the one place where JSON from the wire becomes an operation's result.
 */
function graphqlResponse(status: number, body: unknown): GraphQLResponseBody {
  if (!isGraphQLResponse(body) || (body.data === undefined && body.errors === undefined)) {
    throw new UnavailableError(`the GraphQL gateway answered HTTP ${status} without a GraphQL body`);
  }
  return body;
}

/**
 * A GraphQL response (GraphQL over HTTP, "response"): an object whose `data`, when present, is an object or null, whose
 * `errors`, when present, is a list of errors each with a string `message` (and `locations`, `path`, `extensions` of
 * their shapes when present), and whose `extensions`, when present, is an object.
 */
export function isGraphQLResponse(value: unknown): value is GraphQLResponseBody {
  if (!isRecord(value)) return false;
  const { data, errors, extensions } = value;
  return (
    (data === undefined || data === null || isRecord(data)) &&
    (errors === undefined || (Array.isArray(errors) && errors.every(isGraphQLError))) &&
    (extensions === undefined || isRecord(extensions))
  );
}

function isGraphQLError(value: unknown): value is GraphQLFormattedError {
  if (!isRecord(value) || typeof value.message !== 'string') return false;
  const { locations, path, extensions } = value;
  return (
    (locations === undefined ||
      (Array.isArray(locations) && locations.every((l) => isRecord(l) && typeof l.line === 'number' && typeof l.column === 'number'))) &&
    (path === undefined || (Array.isArray(path) && path.every((key) => typeof key === 'string' || typeof key === 'number'))) &&
    (extensions === undefined || isRecord(extensions))
  );
}
