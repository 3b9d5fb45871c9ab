import type { ApolloServer } from '@apollo/server';
import { apolloHeaders, IncomingHeaders } from '../lib/graphql/graphql-http-request.ts';
import { print, visit, type DocumentNode, type GraphQLFormattedError } from 'graphql';
import { addressedUrl } from '../lib/auth/signed-request.ts';
import type {
  ExecuteOperation,
  GatewayDoor,
  GatewayHttpReply,
  GatewayHttpRequest,
  GatewayOperation,
  GatewayOperationResult,
  OperationVariables,
  TextOperation,
  TypedQuery,
} from './gateway-door-types.ts';
import { createGatewayContext, LOG_POSITION_HEADER, type GatewayContext } from './gateway-context.ts';
import type { FetchCache } from './fetch-cache/fetch-cache.ts';
import type { OperationFastLane } from './stand-ins/operation-fast-lane.ts';
import type { SubscriptionTransport } from '../lib/telemetry/metrics.ts';
import type { LiveExecutor } from './live/live-execution.ts';
import { acceptsDefer, acceptsJson, deferHttpReply, liveHttpReply, liveTransportOf, singleDeferPart } from './live/live-http-replies.ts';
import { isRecord } from '../lib/is-record.ts';
import { rootArgumentVariable, rootResponseKey } from '../lib/graphql/root-field.ts';

/**
 * The one door into the gateway's execution. Every request that runs an operation comes through here — POST and GET
 * /graphql from the HTTP fast path or from Express, and the REST adapter's operations run in this process — and here,
 * once, it takes the operation fast lane (a stand-in for Apollo Server's pipeline, gateway/stand-ins/) or Apollo
 * Server's pipeline. What is added to the execution path (retries, streaming, a reloaded supergraph) goes here too.
 *
 * The REST adapter sees nothing of the gateway but this module's types: `GatewayDoor.execute` is its in-process executor.
 */

// Everyone else takes the door's types from here (the REST adapter may import nothing else of the gateway).
export type * from './gateway-door-types.ts';

/**
 * An ExecuteOperation from a function that runs text: a generated document's result is its document's type (the
 * declarations say so; graphql-codegen read it from the schema), and the one implementation runs the document's text.
 */
export function executeOperation(run: (operation: TextOperation) => Promise<GatewayOperationResult>): ExecuteOperation {
  function execute(operation: GatewayOperation): Promise<GatewayOperationResult>;
  function execute<TData, TVariables extends OperationVariables>(
    operation: GatewayOperation<TypedQuery<TData, TVariables>, NoInfer<TVariables>>,
  ): Promise<GatewayOperationResult<TData>>;
  function execute(operation: GatewayOperation<string | TypedQuery<unknown, never>>): Promise<GatewayOperationResult<unknown>> {
    const { query, operationName, variables, headers } = operation;
    return run({ query: String(query), operationName, variables, headers });
  }
  return execute;
}

export interface GatewayDoorDeps {
  apollo: ApolloServer<GatewayContext>;
  /** Undefined when the stand-in is off: every request takes Apollo Server's pipeline. */
  lane: OperationFastLane | undefined;
  /** Subscriptions over HTTP (multipart, SSE: live/live-http-replies.ts); without it they are Apollo Server's. */
  live?: {
    executor: LiveExecutor;
    heartbeatMs: number;
    maxBufferedBytes: number;
    onSlowConsumer(transport: SubscriptionTransport): void;
  };
  /** The fetch cache, when it is on: a read presenting a log position waits (bounded: one catch-up) until it is reached. */
  fetchCache?: Pick<FetchCache, 'reach'>;
}

/** A document that may hold a subscription (a cheap test before any parsing: most hold no such word). */
const SUBSCRIPTION_WORD = /\bsubscription\b/;
/** A document that may defer a fragment (the same cheap test). */
const DEFER_WORD = /@defer\b/;

/** A JSON body (the only kind the lane reads; a multipart request's operation is the pipeline's). */
const JSON_MEDIA_TYPE = /^application\/json\s*(?:;|$)/i;

/**
 * The lane's answer when it has one; else the pipeline's. When the lane ran the operation and it ended in errors, the
 * context carries that outcome to the pipeline, whose executor replays it: nothing runs twice (operation-fast-lane.ts).
 */
async function laneElsePipeline<T>(lane: (() => Promise<T | undefined>) | undefined, pipeline: () => Promise<T>): Promise<T> {
  const fast = lane ? await lane() : undefined;
  return fast ?? pipeline();
}

export function createGatewayDoor({ apollo, lane, live, fetchCache }: GatewayDoorDeps): GatewayDoor {
  /**
   * A subscription POSTed as JSON (the only body CSRF rules let through without a preflight header): streamed in the
   * protocol its Accept asks for, or refused when it asks for none. Anything else — not JSON, not a subscription, a
   * document that does not validate — is undefined here, and Apollo Server's pipeline answers it in its own words.
   */
  async function serveLive(request: GatewayHttpRequest, incoming: IncomingHeaders): Promise<GatewayHttpReply | undefined> {
    if (!live || request.method !== 'POST' || !JSON_MEDIA_TYPE.test(incoming.get('content-type') ?? '')) return undefined;
    const body = request.body as { query?: unknown; operationName?: unknown; variables?: unknown } | null;
    if (typeof body?.query !== 'string') return undefined;
    const hasDefer = DEFER_WORD.test(body.query);
    const deferring = hasDefer && acceptsDefer(incoming.get('accept'));
    if (!hasDefer && !SUBSCRIPTION_WORD.test(body.query)) return undefined;
    const callerHeaders = {
      authorization: incoming.get('authorization'),
      'x-request-id': incoming.get('x-request-id'),
      'x-social-host': incoming.get('x-social-host'),
    };
    const transport = liveTransportOf(incoming.get('accept'));
    const prepared = live.executor.prepare({
      query: body.query,
      operationName: typeof body.operationName === 'string' ? body.operationName : undefined,
      variables: isRecord(body.variables) ? body.variables : undefined,
      headers: callerHeaders,
      createContext: () => createGatewayContext(callerHeaders),
      transport: transport ?? 'multipart',
    });
    if ('refused' in prepared) {
      // A subscription's request errors, or a deferring document's, are answered here (the pipeline would only say it
      // cannot stream the one, and knows no @defer for the other).
      return prepared.subscription || hasDefer
        ? jsonReply(prepared.status, { errors: prepared.refused.map((error) => live.executor.format(error)) })
        : undefined;
    }
    if (prepared.operation.operation !== 'subscription') {
      if (!hasDefer) return undefined;
      const parts = deferring ? live.executor.defer(prepared) : undefined;
      if (parts) {
        const reply = deferHttpReply(parts);
        return { status: reply.status, headers: reply.headers, body: { kind: 'chunked', asyncIterator: reply.chunks } };
      }
      // Nothing to stream (the client takes no incremental delivery, @defer(if: false), a defer the gateway does not
      // split): the operation without its @defer directives, as one result — what a server may always do. A client
      // that takes only multipart gets that result as the one part of a multipart reply (a request error stays JSON,
      // as Apollo Server answers one whatever the Accept).
      const onlyMultipart = deferring && !acceptsJson(incoming.get('accept'));
      const whole = await door.serveHttp({
        ...request,
        headers: onlyMultipart ? { ...request.headers, accept: 'application/json' } : request.headers,
        body: { ...body, query: print(withoutDefer(prepared.document)) },
      });
      if (!onlyMultipart || whole.status !== 200 || whole.body.kind !== 'complete') return whole;
      // Streamed as the split replies are (one chunk), so that no writer re-types it (Express's res.send would).
      const part = singleDeferPart(whole.body.string);
      return {
        status: 200,
        headers: part.headers,
        body: {
          kind: 'chunked',
          asyncIterator: (async function* () {
            yield part.body;
          })(),
        },
      };
    }
    if (!transport) {
      return jsonReply(406, {
        errors: [
          {
            message:
              'A subscription over HTTP needs Accept: multipart/mixed;subscriptionSpec=1.0 (Apollo) or text/event-stream (GraphQL over SSE); or use a WebSocket (graphql-transport-ws) on /graphql.',
            extensions: { code: 'BAD_REQUEST' },
          },
        ],
      });
    }
    // An EventSource that reconnects names the last event it got: the cursor to resume after, when the client gave none.
    const lastEventId = incoming.get('last-event-id');
    const afterVariable = rootArgumentVariable(prepared.operation, 'after');
    const { variables } = prepared.held;
    if (transport === 'sse' && lastEventId && afterVariable && variables[afterVariable] == null) variables[afterVariable] = lastEventId;
    const outcome = await live.executor.run(prepared);
    const reply = liveHttpReply(transport, outcome, { heartbeatMs: live.heartbeatMs, rootKey: rootResponseKey(prepared.operation) });
    return {
      status: reply.status,
      headers: reply.headers,
      body: {
        kind: 'chunked',
        asyncIterator: reply.chunks,
        live: { maxBufferedBytes: live.maxBufferedBytes, onStall: () => live.onSlowConsumer(transport) },
      },
    };
  }

  const door: GatewayDoor = {
    async serveHttp(request) {
      const { method, url, search, headers, body } = request;
      const incoming = new IncomingHeaders(headers);
      const refusal = await positionRefusal(fetchCache, incoming.get(LOG_POSITION_HEADER));
      if (refusal) return jsonReply(400, { errors: [refusal] });
      const liveReply = await serveLive(request, incoming);
      if (liveReply) return liveReply;
      const context = createGatewayContext(headers, { method, url: addressedUrl({ headers, path: url }) });
      const laneTakes =
        lane !== undefined && method === 'POST' && search === '' && JSON_MEDIA_TYPE.test(incoming.get('content-type') ?? '');
      const reply = await laneElsePipeline<GatewayHttpReply>(
        laneTakes
          ? async () => {
              const reply = await lane.serve({ body, headers: incoming, context });
              return reply && { status: reply.status, headers: reply.headers, body: { kind: 'complete', string: reply.body } };
            }
          : undefined,
        async () => {
          // The same context object: if the lane ran the operation, its outcome travels with it to the executor.
          const response = await apollo.executeHTTPGraphQLRequest({
            httpGraphQLRequest: { method: method.toUpperCase(), headers: apolloHeaders(headers), search, body },
            context: async () => context,
          });
          return { status: response.status ?? 200, headers: response.headers, body: response.body };
        },
      );
      const written = context.written.through;
      return written === undefined ? reply : { ...reply, headers: [...reply.headers, [LOG_POSITION_HEADER, written]] };
    },

    execute: executeOperation(async ({ query, operationName, variables, headers }) => {
      const refusal = await positionRefusal(fetchCache, headers[LOG_POSITION_HEADER]);
      if (refusal) return { data: null, errors: [refusal] };
      const contextValue = createGatewayContext(headers);
      const result = await laneElsePipeline<GatewayOperationResult>(
        lane && (() => lane.execute({ query, operationName, variables, context: contextValue })),
        async () => {
          const response = await apollo.executeOperation({ query, operationName, variables }, { contextValue });
          if (response.body.kind !== 'single') throw new Error('incremental delivery is not offered to in-process operations');
          const { data, errors, extensions } = response.body.singleResult;
          return { data: data ?? null, ...(errors ? { errors } : {}), ...(extensions ? { extensions } : {}) };
        },
      );
      const written = contextValue.written.through;
      return written === undefined ? result : { ...result, logPosition: written };
    }),
  };
  return door;
}

/**
 * The document with every @defer directive removed (its fragments then run with the rest), and the variables only a
 * @defer used (`if: $defer`) no longer declared — a declared variable nothing uses fails validation.
 */
function withoutDefer(document: DocumentNode): DocumentNode {
  const stripped = visit(document, {
    Directive: (node) => (node.name.value === 'defer' ? null : undefined),
  });
  const used = new Set<string>();
  visit(stripped, {
    VariableDefinition: () => false,
    Variable: (node) => {
      used.add(node.name.value);
    },
  });
  return visit(stripped, {
    VariableDefinition: (node) => (used.has(node.variable.name.value) ? undefined : null),
  });
}

/** A presented log position reached, or the request error that says why it cannot be (none without a cache). */
async function positionRefusal(
  cache: GatewayDoorDeps['fetchCache'],
  presented: string | undefined,
): Promise<GraphQLFormattedError | undefined> {
  if (!cache || presented === undefined) return undefined;
  const position = logPositionOf(presented);
  if (position === undefined) {
    return badRequest(
      `${LOG_POSITION_HEADER} must be a change-log position as a write's reply gave it: a decimal integer from 0 to ${MAX_POSITION}.`,
    );
  }
  const reached = await cache.reach(position);
  return reached === 'ahead'
    ? badRequest(`${LOG_POSITION_HEADER} ${presented} is past the end of the change log: send the position a write's reply gave.`)
    : undefined;
}

/** The largest change-log position (a bigint identity column). */
const MAX_POSITION = 9_223_372_036_854_775_807n;

/** A presented position, or undefined when it is none (not decimal digits, a leading zero, past MAX_POSITION). */
function logPositionOf(text: string): bigint | undefined {
  // HTTP's whitespace only (space, tab): String.trim would also take a no-break space, which makes it no position.
  const trimmed = text.replace(/^[ \t]+|[ \t]+$/g, '');
  if (!/^(?:0|[1-9][0-9]{0,18})$/.test(trimmed)) return undefined;
  const position = BigInt(trimmed);
  return position <= MAX_POSITION ? position : undefined;
}

/**
 * A request error of the position header: BAD_USER_INPUT, the code every area's REST error format already maps to its
 * bad-parameter error (INVALID_ARGUMENT; the Graph's code 100; a problem), whether the adapter runs in this process or
 * reaches the gateway over HTTP.
 */
function badRequest(message: string): GraphQLFormattedError {
  return { message, extensions: { code: 'BAD_USER_INPUT' } };
}

function jsonReply(status: number, body: unknown): GatewayHttpReply {
  return {
    status,
    headers: [['content-type', 'application/json; charset=utf-8']],
    body: { kind: 'complete', string: JSON.stringify(body) },
  };
}
