import type { Server } from 'node:http';
import { makeServer } from 'graphql-ws';
import {
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  getOperationAST,
  type ExecutionArgs,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLFormattedError,
  type ValidationRule,
} from 'graphql';
import type { Config } from '../lib/config.ts';
import {
  listenGraphqlWs,
  SUBGRAPH_MESSAGE_BYTES_FACTOR,
  type GraphqlWsListener,
  type WsConnectionExtra,
} from '../lib/http/graphql-ws-listener.ts';
import { isAsyncIterable, mapAsyncIterator } from '../lib/graphql/map-async-iterator.ts';
import { SIGNED_REQUEST_HEADER } from '../lib/auth/signed-request.ts';
import type { Logger } from '../lib/logger.ts';
import { isRecord } from '../lib/is-record.ts';
import type { Subgraph, SubgraphRequestInfo } from './subgraph.ts';

/**
 * A subgraph server's subscriptions (distributed mode): graphql-ws on its /graphql, what the gateway's subscription
 * fetches reach (gateway/live/subgraph-ws-client.ts). The caller's headers come in connection_init, as the gateway sends
 * them; each subscription runs the subgraph's own subscribe (an event read under a context of its own). Only
 * subscriptions: queries and mutations reach a subgraph over HTTP.
 */

interface SubgraphWsExtra extends WsConnectionExtra {
  info: SubgraphRequestInfo;
}

export function attachSubgraphWs(deps: {
  httpServer: Server;
  subgraph: Subgraph;
  limits: Config['subscriptions'];
  /** How deep a message's JSON may nest (GRAPHQL_MAX_JSON_DEPTH). */
  maxJsonDepth: number;
  maxTokens: number;
  validationRules: readonly ValidationRule[];
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
  logger: Logger;
}): GraphqlWsListener | undefined {
  const { subgraph } = deps;
  const subscribe = subgraph.subscribe?.bind(subgraph);
  if (!subscribe) return undefined;
  const format = (error: GraphQLError) => deps.formatError(error.toJSON(), error);
  const formatted = (result: ExecutionResult): FormattedExecutionResult => ({
    ...(result.data !== undefined ? { data: result.data } : {}),
    ...(result.errors ? { errors: result.errors.map(format) } : {}),
  });
  const server = makeServer<Record<string, unknown> | undefined, SubgraphWsExtra>({
    connectionInitWaitTimeout: deps.limits.initTimeoutMs,
    onConnect: (ctx) => {
      const param = (name: string) => {
        const value = ctx.connectionParams?.[name];
        return typeof value === 'string' ? value : undefined;
      };
      ctx.extra.info = {
        authorization: param('authorization'),
        requestId: param('x-request-id'),
        socialHost: param('x-social-host'),
        signedRequest: param(SIGNED_REQUEST_HEADER),
      };
      return true;
    },
    onSubscribe: (ctx, _id, payload) => {
      if (Object.keys(ctx.subscriptions).length > deps.limits.perConnection) {
        return [
          new GraphQLError(`At most ${deps.limits.perConnection} subscriptions per connection.`, { extensions: { code: 'BAD_REQUEST' } }),
        ];
      }
      let document;
      try {
        document = parse(typeof payload.query === 'string' ? payload.query : '', { maxTokens: deps.maxTokens });
      } catch (error) {
        return [error instanceof GraphQLError ? error : new GraphQLError(String(error))];
      }
      const errors = validate(subgraph.schema, document, [...specifiedRules, ...deps.validationRules]);
      if (errors.length > 0) return errors;
      const operationName = payload.operationName ?? undefined;
      if (getOperationAST(document, operationName)?.operation !== 'subscription') {
        return [
          new GraphQLError('Only subscriptions are served over WebSocket; queries and mutations go over HTTP.', {
            extensions: { code: 'BAD_REQUEST' },
          }),
        ];
      }
      // The operation's own request id (the gateway sends it with each subscribe; the connection is the caller's).
      const operationHeaders = payload.extensions?.headers;
      const requestId =
        isRecord(operationHeaders) && typeof operationHeaders['x-request-id'] === 'string' ? operationHeaders['x-request-id'] : undefined;
      return {
        schema: subgraph.schema,
        document,
        operationName,
        variableValues: payload.variables ?? undefined,
        contextValue: requestId !== undefined ? { ...ctx.extra.info, requestId } : ctx.extra.info,
      } satisfies ExecutionArgs;
    },
    subscribe: async (args) => {
      const started = await subscribe(args.contextValue as SubgraphRequestInfo, {
        document: args.document,
        variables: args.variableValues ?? undefined,
        operationName: args.operationName ?? undefined,
      });
      return (isAsyncIterable(started) ? mapAsyncIterator(started, formatted) : formatted(started)) as never;
    },
    onNext: (_ctx, _id, _payload, _args, result) => result as FormattedExecutionResult,
    onError: (_ctx, _id, _payload, errors) => errors.map(format),
  });
  return listenGraphqlWs({
    httpServer: deps.httpServer,
    path: '/graphql',
    // The gateway's fetches are larger than its clients' messages (SUBGRAPH_MESSAGE_BYTES_FACTOR).
    limits: {
      ...deps.limits,
      maxMessageBytes: deps.limits.maxMessageBytes * SUBGRAPH_MESSAGE_BYTES_FACTOR,
      maxJsonDepth: deps.maxJsonDepth,
    },
    server,
    extra: (socket, request) => ({
      socket,
      request,
      info: { authorization: undefined, requestId: undefined, socialHost: undefined, signedRequest: undefined },
    }),
    logger: deps.logger,
  });
}
