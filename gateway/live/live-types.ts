import type { GraphQLDataSource } from '@apollo/gateway';
import type {
  DocumentNode,
  FormattedExecutionResult,
  GraphQLError,
  GraphQLFormattedError,
  OperationDefinitionNode,
  ValidationRule,
} from 'graphql';
import type { ResolvedOperation } from '../../lib/graphql/graphql-operation-limits.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Metrics, SubscriptionTransport } from '../../lib/telemetry/metrics.ts';
import type { GatewayContext } from '../gateway-context.ts';
import type { DeferredPart } from './defer-execution.ts';
import type { SubscriptionPlanner } from './subscription-planner.ts';

/** The live door's types: what it takes, prepares and runs (live-execution.ts wires the executor; import them from there). */

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
