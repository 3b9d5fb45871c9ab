import type { Server } from 'node:http';
import { makeServer } from 'graphql-ws';
import { GraphQLError, type ExecutionArgs, type FormattedExecutionResult, type GraphQLFormattedError } from 'graphql';
import { listenGraphqlWs, type GraphqlWsListener, type WsConnectionExtra } from '../../lib/http/graphql-ws-listener.ts';
import type { Config } from '../../lib/config.ts';
import type { Logger } from '../../lib/logger.ts';
import { createGatewayContext } from '../gateway-context.ts';
import type { GatewayDoor } from '../gateway-door-types.ts';
import type { LiveExecutor, PreparedLive } from './live-execution.ts';
import { isRecord } from '../../lib/is-record.ts';

/**
 * GraphQL over WebSocket (`graphql-transport-ws`, graphql-ws 6.4.2's makeServer) on the gateway's /graphql: the protocol
 * Apollo Client's GraphQLWsLink, graphql-ws's client and Apollo Sandbox speak. Subscriptions run through the live
 * executor (live-execution.ts); a query or mutation sent over the socket goes through the HTTP door like any POST, so it
 * meets the same limits, safelist and masking.
 *
 * Credentials: the connection_init payload's `Authorization` (or `authorization`, or `headers.Authorization`, the shapes
 * clients send), else the upgrade request's header. Bounds, from SUBSCRIPTION_* (lib/config.ts): message size (ws
 * maxPayload: larger closes 1009), connection_init wait, keep-alive pings (a connection that misses a pong is
 * terminated), subscriptions per connection (and per credential: the live executor's), connections per process, and the
 * bytes queued for a slow consumer — past them the connection is closed 1013 with a reason that says to resubscribe
 * with `after`, never skipped over (lib/http/graphql-ws-listener.ts).
 */

export interface GraphqlWsDoorDeps {
  httpServer: Server;
  live: LiveExecutor;
  door: GatewayDoor;
  limits: Config['subscriptions'];
  /** How deep a message's JSON may nest (GRAPHQL_MAX_JSON_DEPTH). */
  maxJsonDepth: number;
  logger: Logger;
  /** A connection closed for reading too slowly. */
  onSlowConsumer?(): void;
}

export type GraphqlWsDoor = GraphqlWsListener;

/** What the connection knows of its caller. */
interface ConnectionExtra extends WsConnectionExtra {
  headers: Record<string, string | undefined>;
}

export function attachGraphqlWs(deps: GraphqlWsDoorDeps): GraphqlWsDoor {
  const { limits, live } = deps;
  const server = makeServer<Record<string, unknown> | undefined, ConnectionExtra>({
    connectionInitWaitTimeout: limits.initTimeoutMs,
    onConnect: (ctx) => {
      const headers = credentialsOf(ctx.connectionParams, ctx.extra.request);
      ctx.extra.headers = headers;
      return true;
    },
    onSubscribe: (ctx, id, payload) => {
      const open = Object.keys(ctx.subscriptions).length;
      // The new id is already registered (as null) when this runs.
      if (open > limits.perConnection) return [limitError(`At most ${limits.perConnection} subscriptions per connection.`)];
      const request = {
        query: typeof payload.query === 'string' ? payload.query : '',
        operationName: payload.operationName ?? undefined,
        variables: isRecord(payload.variables) ? payload.variables : undefined,
        headers: ctx.extra.headers,
        createContext: () => createGatewayContext(ctx.extra.headers),
        transport: 'websocket' as const,
      };
      const prepared = live.prepare(request);
      if ('refused' in prepared) return prepared.refused;
      // graphql-ws keeps the message this payload came in until the operation ends (for its hooks): what the operation
      // needs is prepared, so the payload keeps no more than that — not the client's text or variables, which may be a
      // whole message's worth of padding.
      const kept = payload as { query: string; variables?: unknown; extensions?: unknown };
      kept.query = prepared.held.query;
      kept.variables = prepared.held.variables;
      delete kept.extensions;
      // graphql-ws needs the document and a schema; the rest is ours (execute/subscribe below read `contextValue`).
      return {
        schema: undefined as unknown as ExecutionArgs['schema'],
        document: prepared.document,
        operationName: request.operationName,
        contextValue: prepared,
      } satisfies ExecutionArgs;
    },
    subscribe: async (args) => (await live.run(args.contextValue as PreparedLive)) as never,
    execute: async (args) => runThroughDoor(args.contextValue as PreparedLive) as never,
    // Our results are formatted already (Apollo Server's formatError): sent as they are.
    onNext: (_ctx, _id, _payload, _args, result) => result as FormattedExecutionResult,
    onError: (_ctx, _id, _payload, errors) => errors.map((error) => live.format(error)) as GraphQLFormattedError[],
  });

  /** A query or mutation over the socket: the HTTP door's POST /graphql, its JSON reply as the result. */
  async function runThroughDoor(prepared: PreparedLive): Promise<FormattedExecutionResult> {
    const { held: request } = prepared;
    const reply = await deps.door.serveHttp({
      method: 'POST',
      url: '/graphql',
      search: '',
      headers: { ...request.headers, 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: {
        query: request.query,
        ...(request.operationName !== undefined ? { operationName: request.operationName } : {}),
        variables: request.variables,
      },
    });
    let text = '';
    if (reply.body.kind === 'complete') text = reply.body.string;
    else for await (const chunk of reply.body.asyncIterator) text += chunk;
    try {
      return JSON.parse(text) as FormattedExecutionResult;
    } catch {
      return { errors: [live.format(new GraphQLError('The gateway gave no JSON reply.'))] };
    }
  }

  return listenGraphqlWs({
    httpServer: deps.httpServer,
    path: '/graphql',
    limits: { ...limits, maxJsonDepth: deps.maxJsonDepth },
    server,
    extra: (socket, request) => ({ socket, request, headers: {} }),
    logger: deps.logger,
    ...(deps.onSlowConsumer ? { onSlowConsumer: deps.onSlowConsumer } : {}),
  });
}

/** The caller's headers: connection_init's credentials (the shapes clients send), else the upgrade request's. */
function credentialsOf(
  params: Record<string, unknown> | undefined,
  request: WsConnectionExtra['request'],
): Record<string, string | undefined> {
  const fromParams = (source: unknown, name: string): string | undefined => {
    if (!isRecord(source)) return undefined;
    for (const [key, value] of Object.entries(source)) if (key.toLowerCase() === name && typeof value === 'string') return value;
    return undefined;
  };
  const header = (name: string): string | undefined => {
    const value = request.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const pick = (name: string) => fromParams(params, name) ?? fromParams(params?.headers, name) ?? header(name);
  return {
    authorization: pick('authorization'),
    'x-request-id': pick('x-request-id'),
    'x-social-host': pick('x-social-host'),
  };
}

function limitError(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_REQUEST' } });
}
