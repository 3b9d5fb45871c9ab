import type { GraphQLFormattedError } from 'graphql';
import type { GatewayDoor } from '../gateway/gateway-door.ts';
import { UnavailableError } from '../lib/errors.ts';
import { findUploads, postMultipartOperation } from '../lib/graphql/graphql-multipart.ts';
import type { Tracing } from '../lib/telemetry/tracing.ts';
import { TRUSTED_CALLER_HEADER } from '../lib/http/trusted-caller.ts';

/**
 * What a REST route needs to run its GraphQL operation through the gateway: the gateway's door in this process
 * (gateway/gateway-door.ts, whose `execute` runs it with no HTTP hop), or a gateway over HTTP (below).
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
  return {
    async execute({ query, operationName, variables, headers }) {
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
        const body = reply.body as { data?: Record<string, unknown> | null; errors?: GraphQLFormattedError[]; extensions?: Record<string, unknown> } | undefined;
        if (!body || typeof body !== 'object' || (body.data === undefined && body.errors === undefined)) {
          throw new UnavailableError(`the GraphQL gateway answered HTTP ${reply.status} without a GraphQL body`);
        }
        return body;
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
      const body = (await response.json().catch(() => undefined)) as
        | { data?: Record<string, unknown> | null; errors?: GraphQLFormattedError[]; extensions?: Record<string, unknown> }
        | undefined;
      if (!body || (body.data === undefined && body.errors === undefined)) {
        throw new UnavailableError(`the GraphQL gateway answered HTTP ${response.status} without a GraphQL body`);
      }
      return body;
    },
  };
}
