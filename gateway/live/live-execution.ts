import { buildOperationContext, type GraphQLDataSource } from '@apollo/gateway';
import { runQueryPlan, serviceMapOf } from './query-plan-run.ts';
import type { PlanNode, QueryPlan } from '@apollo/query-planner';
import {
  getVariableValues,
  GraphQLError,
  Kind,
  parse,
  print,
  specifiedRules,
  validate,
  type DocumentNode,
  type FormattedExecutionResult,
  type GraphQLFormattedError,
  type OperationDefinitionNode,
  type ValidationRule,
} from 'graphql';
import type { ResolvedOperation } from '../../lib/graphql/graphql-operation-limits.ts';
import { isAsyncIterable, mapAsyncIterator } from '../../lib/graphql/map-async-iterator.ts';
import { rootArgumentGiven } from '../../lib/graphql/root-field.ts';
import { bearerToken } from '../../lib/auth/bearer-token.ts';
import { withoutSuggestion } from '../../lib/graphql/graphql-suggestion-masking.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Metrics, SubscriptionTransport } from '../../lib/telemetry/metrics.ts';
import type { GatewayContext } from '../gateway-context.ts';
import type { PlannedSupergraph, SubscriptionPlan, SubscriptionPlanner } from './subscription-planner.ts';
import { executeDeferred, type DeferredPart } from './defer-execution.ts';

/**
 * Runs subscriptions through the federated gateway (issue 27): the query planner's `SubscriptionNode { primary, rest }`
 * executed as Apollo Router and Hive Gateway execute it — `primary` subscribes on the subgraph that owns the field (a
 * stream of results), and each result is completed by `rest`, the fetches of the fields other subgraphs own, through
 * @apollo/gateway's own executeQueryPlan, so an event is shaped, nulled and its errors placed exactly as a query's
 * would be.
 *
 * The event's primary result enters executeQueryPlan as the answer to the plan's first fetch (the plan `Sequence
 * [primary, rest]`, the owning subgraph's data source answering that one fetch with the event): executeQueryPlan takes
 * no initial data, and this way the first fetch's merging, rewrites and error paths are its own.
 *
 * Every event runs with a fresh gateway context (fresh subgraph contexts: the token read again, nothing cached from an
 * earlier event).
 */

/** A subgraph's result as a stream element: what a data source's process() returns for a fetch. */
export interface LiveSubgraphResult {
  data?: Record<string, unknown> | null;
  errors?: readonly GraphQLFormattedError[];
  extensions?: Record<string, unknown>;
}

/** A data source that can run a subscription fetch: the in-process one, and the remote one over graphql-ws. */
export interface SubscribingDataSource {
  subscribe(
    request: { query: string; operationName: string | undefined; variables: Record<string, unknown> },
    context: GatewayContext,
  ): Promise<AsyncIterableIterator<LiveSubgraphResult> | LiveSubgraphResult>;
}

export function canSubscribe(source: GraphQLDataSource | undefined): source is GraphQLDataSource & SubscribingDataSource {
  return typeof (source as Partial<SubscribingDataSource> | undefined)?.subscribe === 'function';
}

/** A subscription as a client sent it, with what the subgraphs must see of the caller. */
export interface LiveRequest {
  query: string;
  operationName?: string | null | undefined;
  variables?: Record<string, unknown> | null | undefined;
  /** The caller's credentials and request id (connection_init payload or upgrade request headers). */
  headers: Readonly<Record<string, string | undefined>>;
  /** Makes a fresh gateway context for the caller (one per event). */
  createContext(): GatewayContext;
  /** The protocol it came by (metrics). */
  transport: SubscriptionTransport;
}

/**
 * What a prepared operation keeps of its request while it runs — for a subscription, for as long as it is open: the
 * checked document (its own text, printed without comments or padding when the client's was long), the variables its
 * operation defines (coerced against their types first; any others dropped), the caller's headers. Never the request
 * itself: a client's body or message may be megabytes of which the operation needs a few bytes.
 */
export interface LiveHeld {
  /** The document's text: the client's when short (shared with the checked-document cache), else the printed document. */
  readonly query: string;
  readonly operationName: string | undefined;
  /** The variables the operation defines, as the client sent them (the subgraphs get them unchanged, as @apollo/gateway sends them). */
  readonly variables: Record<string, unknown>;
  readonly headers: Readonly<Record<string, string | undefined>>;
  createContext(): GatewayContext;
  readonly transport: SubscriptionTransport;
}

export interface LiveExecutorDeps {
  planner: SubscriptionPlanner;
  /** The data source serving a subgraph (the gateway's, one per subgraph). */
  dataSource(name: string): GraphQLDataSource | undefined;
  /** Validation rules beyond graphql-js's (the gateway's: 64-bit literals, the hardening's). */
  validationRules: readonly ValidationRule[];
  /** The operation limits (the hardening's check), throwing the refusal. */
  checkResolvedOperation(operation: ResolvedOperation): void;
  /** Apollo Server's formatError of the gateway (masking, labels). */
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
  /** The most tokens a document may have (the HTTP door's limit). */
  maxTokens: number;
  /** Subscriptions one credential may hold open at once in this process, over every transport. */
  perToken: number;
  /**
   * The most bytes a subscription's document and variables may take, on every transport (SUBSCRIPTION_MAX_MESSAGE_BYTES:
   * a WebSocket message is no larger, so an HTTP body may be no larger either).
   */
  maxSubscriptionBytes: number;
  /** Remove "Did you mean …?" from the errors it answers (GRAPHQL_FIELD_SUGGESTIONS off, as the HTTP door does). */
  hideSuggestions: boolean;
  /** Open subscriptions, results sent and resumes, by transport. */
  metrics: Pick<Metrics, 'observeSubscriptionOpen' | 'observeSubscriptionEvent' | 'observeSubscriptionResume'>;
  logger: Logger;
}

export type LiveOutcome = AsyncIterableIterator<FormattedExecutionResult> | FormattedExecutionResult;

/** Why an operation cannot run: its errors, and whether it is a subscription (else the HTTP door's to answer). */
export interface LiveRefusal {
  refused: GraphQLError[];
  subscription: boolean;
  /** The HTTP status the refusal is answered with: 400, or 413 for a subscription past the size bound. */
  status: 400 | 413;
}

/** An operation parsed, validated, its variables coerced, checked against the limits — a subscription planned too: ready to run. */
export interface PreparedLive {
  readonly held: LiveHeld;
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
}

export interface LiveExecutor {
  /**
   * Parses, validates and checks an operation against the limits; a subscription is planned too. The request's errors
   * when it cannot run (graphql-ws sends them as its `error` message); non-subscriptions come back prepared, for the
   * caller to run through the HTTP door.
   */
  prepare(request: LiveRequest): PreparedLive | LiveRefusal;
  /** Subscribes: a stream of results, or one result of errors when the subgraph refused to start it. */
  run(prepared: PreparedLive): Promise<LiveOutcome>;
  /** Both in one: what the HTTP transports (SSE, multipart) use; the request's errors as one result. */
  subscribe(request: LiveRequest): Promise<LiveOutcome>;
  /** An error as the gateway's replies carry it (Apollo Server's default code, then its formatError). */
  format(error: unknown): GraphQLFormattedError;
  /**
   * A prepared query with @defer, as its parts (defer-execution.ts); undefined when its plan defers nothing the gateway
   * streams (it then runs as one result, @defer ignored, as a server may).
   */
  defer(prepared: PreparedLive): AsyncIterableIterator<DeferredPart> | undefined;
}

/** How many checked documents the live door keeps per supergraph, and the longest query text it keeps one for. */
const CHECKED_DOCUMENT_CACHE_SIZE = 200;
const CHECKED_DOCUMENT_MAX_LENGTH = 16_384;

export function createLiveExecutor(deps: LiveExecutorDeps): LiveExecutor {
  const format = (error: unknown): GraphQLFormattedError => {
    const graphqlError =
      error instanceof GraphQLError
        ? error
        : new GraphQLError(error instanceof Error ? error.message : String(error), {
            originalError: error instanceof Error ? error : undefined,
          });
    const json = graphqlError.toJSON();
    const formatted =
      json.extensions?.code === undefined ? { ...json, extensions: { ...json.extensions, code: 'INTERNAL_SERVER_ERROR' } } : json;
    const answered = deps.formatError(formatted, graphqlError);
    return deps.hideSuggestions ? { ...answered, message: withoutSuggestion(answered.message) } : answered;
  };
  const refusal = (errors: readonly unknown[]): FormattedExecutionResult => ({ errors: errors.map(format) });
  const withCode = (error: GraphQLError, code: string) =>
    new GraphQLError(error.message, {
      nodes: error.nodes ?? null,
      source: error.source ?? null,
      positions: error.positions ?? null,
      extensions: { ...error.extensions, code },
    });

  function parseDocument(query: string): DocumentNode | GraphQLError {
    try {
      return parse(query, { maxTokens: deps.maxTokens });
    } catch (error) {
      return error instanceof GraphQLError ? withCode(error, 'GRAPHQL_PARSE_FAILED') : new GraphQLError(String(error));
    }
  }

  function operationOf(document: DocumentNode, operationName: string | null | undefined): OperationDefinitionNode | undefined {
    const operations = document.definitions.filter(
      (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
    );
    if (operationName) return operations.find((operation) => operation.name?.value === operationName);
    return operations.length === 1 ? operations[0] : undefined;
  }

  /** Subscriptions open per credential (its token, however the header spelled it; '' for none). */
  const openPerCredential = new Map<string, number>();

  const perTokenRefusal = () =>
    new GraphQLError(`At most ${deps.perToken} subscriptions per credential are open at once.`, { extensions: { code: 'BAD_REQUEST' } });

  /**
   * Takes one of a credential's places (undefined when it has none left), synchronously: subscriptions started at once
   * on many connections cannot all pass the check before any is counted. The place is given back once.
   */
  function takePlace(request: LiveHeld): (() => void) | undefined {
    const credential = credentialOf(request.headers);
    const open = openPerCredential.get(credential) ?? 0;
    if (open >= deps.perToken) return undefined;
    openPerCredential.set(credential, open + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (openPerCredential.get(credential) ?? 1) - 1;
      if (left === 0) openPerCredential.delete(credential);
      else openPerCredential.set(credential, left);
    };
  }

  /** Counts an open subscription (its place taken, the metrics) until it ends. */
  function counted(
    results: AsyncIterableIterator<FormattedExecutionResult>,
    request: LiveHeld,
    giveBack: () => void,
  ): AsyncIterableIterator<FormattedExecutionResult> {
    deps.metrics.observeSubscriptionOpen(request.transport, 1);
    let ended = false;
    return mapAsyncIterator(
      results,
      (result) => {
        deps.metrics.observeSubscriptionEvent(request.transport);
        return result;
      },
      () => {
        if (ended) return;
        ended = true;
        giveBack();
        deps.metrics.observeSubscriptionOpen(request.transport, -1);
      },
    );
  }

  const plans = new WeakMap<PreparedLive, { supergraph: PlannedSupergraph; plan: SubscriptionPlan }>();

  /**
   * Parsed and validated documents by query text, per supergraph: a client fleet reconnecting (a gateway restart, a
   * deploy) subscribes with the same few documents a thousand times in a second, and validation was a third of the
   * gateway's work then. Bounded in count, and only short documents are kept.
   */
  const checked = new WeakMap<PlannedSupergraph, Map<string, { document: DocumentNode | GraphQLError; errors: readonly GraphQLError[] }>>();
  function checkedDocument(supergraph: PlannedSupergraph, query: string) {
    let documents = checked.get(supergraph);
    if (!documents) checked.set(supergraph, (documents = new Map()));
    const cached = documents.get(query);
    if (cached) return cached;
    const document = parseDocument(query);
    const entry = {
      document,
      errors:
        document instanceof GraphQLError ? [] : validate(supergraph.apiSchema, document, [...specifiedRules, ...deps.validationRules]),
    };
    if (query.length <= CHECKED_DOCUMENT_MAX_LENGTH) {
      if (documents.size >= CHECKED_DOCUMENT_CACHE_SIZE) documents.delete(documents.keys().next().value!);
      documents.set(query, entry);
    }
    return entry;
  }

  function prepare(request: LiveRequest): PreparedLive | LiveRefusal {
    const supergraph = deps.planner.current();
    const refused = (errors: GraphQLError[], subscription: boolean, status: 400 | 413 = 400): LiveRefusal => ({
      refused: errors,
      subscription,
      status,
    });
    const { document: checked, errors } = checkedDocument(supergraph, request.query);
    if (checked instanceof GraphQLError) return refused([checked], false);
    const checkedOperation = operationOf(checked, request.operationName);
    const subscription = checkedOperation?.operation === 'subscription';
    if (errors.length > 0)
      return refused(
        errors.map((error) => withCode(error, 'GRAPHQL_VALIDATION_FAILED')),
        subscription,
      );
    if (!checkedOperation) {
      return refused(
        [
          new GraphQLError(
            request.operationName
              ? `Unknown operation named "${request.operationName}".`
              : 'Must provide operation name if query contains multiple operations.',
            {
              extensions: { code: 'OPERATION_RESOLUTION_FAILURE' },
            },
          ),
        ],
        false,
      );
    }
    // A subscription holds what it was sent for as long as it is open: over HTTP it is held to the size a WebSocket
    // message may have, so that no transport lets one stream hold more than another.
    if (subscription && requestBytes(request) > deps.maxSubscriptionBytes) {
      return refused(
        [
          new GraphQLError(
            `A subscription's document and variables are at most ${deps.maxSubscriptionBytes} bytes (SUBSCRIPTION_MAX_MESSAGE_BYTES), over HTTP as in a WebSocket message.`,
            { extensions: { code: 'BAD_REQUEST' } },
          ),
        ],
        true,
        413,
      );
    }
    // Variables coerced against the operation's definitions here, at the gateway, for every transport — before anything
    // is planned or held — as Apollo Server's pipeline coerces a query's (graphql-js's own check and words). Only the
    // variables the operation defines are kept, as the client sent them.
    const sent = request.variables ?? {};
    const coerced = getVariableValues(supergraph.apiSchema, checkedOperation.variableDefinitions ?? [], sent, { maxErrors: 50 });
    if (coerced.errors)
      return refused(
        coerced.errors.map((error) => withCode(error, 'BAD_USER_INPUT')),
        subscription,
      );
    const variables: Record<string, unknown> = {};
    for (const definition of checkedOperation.variableDefinitions ?? []) {
      const name = definition.variable.name.value;
      if (Object.hasOwn(sent, name)) variables[name] = sent[name];
    }
    try {
      deps.checkResolvedOperation({
        schema: supergraph.apiSchema,
        document: checked,
        operation: checkedOperation,
        variables,
        http: { headers: { get: (name) => request.headers[name.toLowerCase()] } },
      });
    } catch (error) {
      return refused([error instanceof GraphQLError ? error : new GraphQLError(String(error))], subscription);
    }
    // A long document (not kept in the checked-document cache) is held as its printed form: a comment or padding that
    // made it long goes with the request.
    const compact = request.query.length > CHECKED_DOCUMENT_MAX_LENGTH;
    const document = compact ? parse(print(checked)) : checked;
    const operation = compact ? operationOf(document, request.operationName)! : checkedOperation;
    const held: LiveHeld = {
      query: compact ? document.loc!.source.body : request.query,
      operationName: request.operationName ?? undefined,
      variables,
      headers: request.headers,
      createContext: request.createContext,
      transport: request.transport,
    };
    const prepared: PreparedLive = { held, document, operation };
    if (!subscription) return prepared;
    if ((openPerCredential.get(credentialOf(request.headers)) ?? 0) >= deps.perToken) return refused([perTokenRefusal()], subscription);
    try {
      plans.set(prepared, { supergraph, plan: supergraph.plan(document, operation.name?.value) });
    } catch (error) {
      return refused(
        [error instanceof GraphQLError ? error : new GraphQLError(error instanceof Error ? error.message : String(error))],
        subscription,
      );
    }
    return prepared;
  }

  async function run(prepared: PreparedLive): Promise<LiveOutcome> {
    const planned = plans.get(prepared);
    if (!planned) return refusal([new GraphQLError('Not a subscription operation.', { extensions: { code: 'BAD_REQUEST' } })]);
    const { supergraph, plan } = planned;
    const { held: request, document } = prepared;
    const { variables } = request;
    const operationName = prepared.operation.name?.value;
    const primarySource = deps.dataSource(plan.primary.serviceName);
    if (!canSubscribe(primarySource)) {
      return refusal([
        new GraphQLError(`Subgraph ${plan.primary.serviceName} cannot serve subscriptions.`, {
          extensions: { code: 'SERVICE_UNAVAILABLE' },
        }),
      ]);
    }
    // The credential's place is taken before the subgraph is asked (and given back if no stream starts).
    const giveBack = takePlace(request);
    if (!giveBack) return refusal([perTokenRefusal()]);
    const fetchVariables: Record<string, unknown> = {};
    for (const name of plan.primary.variableUsages ?? []) if (variables[name] !== undefined) fetchVariables[name] = variables[name];
    let started: Awaited<ReturnType<SubscribingDataSource['subscribe']>>;
    try {
      started = await primarySource.subscribe(
        { query: plan.primary.operation, operationName: plan.primary.operationName, variables: fetchVariables },
        request.createContext(),
      );
    } catch (error) {
      giveBack();
      throw error;
    }
    if (!isAsyncIterable(started)) giveBack();
    const planFor = (serving: PlannedSupergraph, servingPlan: SubscriptionPlan) => ({
      supergraph: serving,
      primary: servingPlan.primary,
      direct: !servingPlan.rest && !hidesAnything(serving) && asksWhatClientAsks(servingPlan.primary, prepared.operation),
      operationContext: buildOperationContext({
        schema: serving.apiSchema,
        operationDocument: document,
        ...(operationName ? { operationName } : {}),
      }),
      queryPlan: {
        kind: 'QueryPlan',
        node: servingPlan.rest
          ? { kind: 'Sequence', nodes: [servingPlan.primary, servingPlan.rest] }
          : (servingPlan.primary satisfies PlanNode),
      } satisfies QueryPlan,
    });
    let state = planFor(supergraph, plan);
    let ended = false;

    /**
     * After a supergraph reload, the subscription goes on under the new supergraph while its document still validates
     * and plans to the same subgraph fetch (the stream already open); otherwise it ends with an error that says so.
     */
    const followReload = (): GraphQLError | undefined => {
      const serving = deps.planner.current();
      if (serving === state.supergraph) return undefined;
      const changed = (why: string) =>
        new GraphQLError(
          `The supergraph changed and this subscription no longer runs on it (${why}). Resubscribe with after = the last cursor received.`,
          {
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
          },
        );
      const errors = validate(serving.apiSchema, document, [...specifiedRules, ...deps.validationRules]);
      if (errors.length > 0) return changed(errors[0]!.message);
      let servingPlan: SubscriptionPlan;
      try {
        servingPlan = serving.plan(document, operationName);
      } catch (error) {
        return changed(error instanceof Error ? error.message : String(error));
      }
      if (servingPlan.primary.serviceName !== state.primary.serviceName || servingPlan.primary.operation !== state.primary.operation) {
        return changed('its fields now come from another subgraph fetch');
      }
      state = planFor(serving, servingPlan);
      return undefined;
    };

    const complete = async (primary: LiveSubgraphResult): Promise<FormattedExecutionResult | undefined> => {
      if (ended) return undefined;
      const reloaded = followReload();
      if (reloaded) {
        ended = true;
        return { errors: [format(reloaded)] };
      }
      // The subgraph was asked exactly what the client asked, and answered without an error: its data is the result, as
      // executeQueryPlan would shape it (nothing to drop, nothing nulled, no path to rewrite).
      if (state.direct && !primary.errors && primary.data) return { data: primary.data };
      const { supergraph: serving, operationContext, queryPlan } = state;
      const context = request.createContext();
      // The primary fetch's answer is the event (the first fetch to that subgraph: the plan is `Sequence [primary, rest]`);
      // later fetches of `rest`, to any subgraph, go to the data sources.
      let eventTaken = false;
      const serviceMap = serviceMapOf((name) => {
        const source = deps.dataSource(name);
        if (name !== state.primary.serviceName || eventTaken) return source;
        return {
          process: async (options: Parameters<GraphQLDataSource['process']>[0]) => {
            if (eventTaken) return source!.process(options);
            eventTaken = true;
            return { ...primary, ...(primary.errors ? { errors: primary.errors.map((error) => ({ ...error })) } : {}) };
          },
        };
      });
      return runQueryPlan({
        queryPlan,
        serviceMap,
        operationContext,
        supergraph: serving,
        request: { query: request.query, operationName, variables },
        context,
        logger: deps.logger,
        format,
      });
    };

    // The stream could not start (the subgraph refused: unknown object, no permission, a bad cursor): its errors, as a
    // query's would be placed.
    if (!isAsyncIterable(started)) return (await complete(started)) ?? { data: null };
    if (rootArgumentGiven(prepared.operation, 'after', variables)) deps.metrics.observeSubscriptionResume(request.transport);
    const results = counted(
      mapAsyncIterator(started, async (primary) => {
        const result = await complete(primary);
        // The error that ended it is the last result: the subgraph's stream is closed behind it.
        if (ended) setImmediate(() => void results.return?.());
        return result;
      }),
      request,
      giveBack,
    );
    return results;
  }

  return {
    prepare,
    run,
    format,
    defer(prepared) {
      if (prepared.operation.operation !== 'query') return undefined;
      return executeDeferred(
        deps.planner.current(),
        {
          document: prepared.document,
          operation: prepared.operation,
          variables: prepared.held.variables,
          context: prepared.held.createContext(),
        },
        { dataSource: deps.dataSource, format, logger: deps.logger },
      );
    },
    async subscribe(request) {
      const prepared = prepare(request);
      return 'refused' in prepared ? refusal(prepared.refused) : run(prepared);
    },
  };
}

/**
 * Whether a supergraph hides parts of its subgraphs from clients (@inaccessible): a subgraph's answer may then hold an
 * enum value the API schema does not have, which executeQueryPlan's shaping removes — no event skips it there.
 */
const hiding = new WeakMap<PlannedSupergraph, boolean>();
function hidesAnything(supergraph: PlannedSupergraph): boolean {
  let hides = hiding.get(supergraph);
  if (hides === undefined) hiding.set(supergraph, (hides = supergraph.sdl.includes('@inaccessible')));
  return hides;
}

/**
 * Whether a plan's primary fetch selects exactly what the client's operation selects (same fields, aliases, arguments
 * and directives, in the same order): a subscription whose fields are all the owning subgraph's, which the planner sends
 * on unchanged. Remembered per primary node and operation (the plan is cached; the document is the door's checked one).
 */
const sameSelection = new WeakMap<object, WeakMap<OperationDefinitionNode, boolean>>();
function asksWhatClientAsks(primary: SubscriptionPlan['primary'], operation: OperationDefinitionNode): boolean {
  let byOperation = sameSelection.get(primary);
  if (!byOperation) sameSelection.set(primary, (byOperation = new WeakMap()));
  let same = byOperation.get(operation);
  if (same === undefined) {
    try {
      const fetched = parse(primary.operation, { noLocation: true }).definitions.find(
        (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
      );
      same =
        fetched !== undefined &&
        operation.selectionSet.selections.every((selection) => selection.kind === Kind.FIELD) &&
        print(fetched.selectionSet) === print(operation.selectionSet);
    } catch {
      same = false;
    }
    byOperation.set(operation, same);
  }
  return same;
}

/** The credential a subscription counts against: the token, however its header spelled it ('' for none). */
function credentialOf(headers: LiveHeld['headers']): string {
  return bearerToken(headers.authorization) ?? '';
}

/** The bytes of a request's document and variables, as a WebSocket message would carry them. */
function requestBytes(request: LiveRequest): number {
  const documentBytes = Buffer.byteLength(request.query);
  return request.variables ? documentBytes + Buffer.byteLength(JSON.stringify(request.variables)) : documentBytes;
}
