import {
  getVariableValues,
  GraphQLError,
  Kind,
  parse,
  print,
  specifiedRules,
  validate,
  type DocumentNode,
  type OperationDefinitionNode,
} from 'graphql';
import type { LiveExecutorDeps, LiveHeld, LiveRefusal, LiveRequest, PreparedLive } from './live-types.ts';
import type { PlannedSupergraph, SubscriptionPlan } from './subscription-planner.ts';

/**
 * A live operation prepared (live-execution.ts's `prepare`): parsed and validated (through a cache of short documents),
 * its operation found, a subscription's size bounded, its variables coerced, the limits checked, what it keeps taken
 * from the request (LiveHeld), and a subscription planned — or the request's errors, in the order Apollo Server's
 * pipeline would find them.
 */

/** How many checked documents the live door keeps per supergraph, and the longest query text it keeps one for. */
const CHECKED_DOCUMENT_CACHE_SIZE = 200;
const CHECKED_DOCUMENT_MAX_LENGTH = 16_384;

type CheckedDocument = { document: DocumentNode | GraphQLError; errors: readonly GraphQLError[] };

/** What preparing needs besides the executor's deps: its caches, and the per-credential count it checks. */
export interface PrepareState {
  deps: LiveExecutorDeps;
  /**
   * Parsed and validated documents by query text, per supergraph: a client fleet reconnecting (a gateway restart, a
   * deploy) subscribes with the same few documents a thousand times in a second, and validation was a third of the
   * gateway's work then. Bounded in count, and only short documents are kept.
   */
  checked: WeakMap<PlannedSupergraph, Map<string, CheckedDocument>>;
  /** The plan of each prepared subscription, for `run`. */
  plans: WeakMap<PreparedLive, { supergraph: PlannedSupergraph; plan: SubscriptionPlan }>;
  /** Whether the request's credential has no place left (the per-token bound). */
  credentialFull(headers: LiveHeld['headers']): boolean;
  perTokenRefusal(): GraphQLError;
}

export function prepareLive(state: PrepareState, request: LiveRequest): PreparedLive | LiveRefusal {
  const { deps } = state;
  const supergraph = deps.planner.current();
  const { document: checked, errors } = checkedDocument(state, supergraph, request.query);
  if (checked instanceof GraphQLError) return refused([checked], false);
  const checkedOperation = operationOf(checked, request.operationName);
  const subscription = checkedOperation?.operation === 'subscription';
  if (errors.length > 0) {
    return refused(
      errors.map((error) => withCode(error, 'GRAPHQL_VALIDATION_FAILED')),
      subscription,
    );
  }
  if (!checkedOperation) return refused([unresolvedOperation(request.operationName)], false);
  // A subscription holds what it was sent for as long as it is open: over HTTP it is held to the size a WebSocket
  // message may have, so that no transport lets one stream hold more than another.
  if (subscription && requestBytes(request) > deps.maxSubscriptionBytes) return refused([tooLarge(deps.maxSubscriptionBytes)], true, 413);
  // Variables coerced against the operation's definitions here, at the gateway, for every transport — before anything
  // is planned or held — as Apollo Server's pipeline coerces a query's (graphql-js's own check and words). Only the
  // variables the operation defines are kept, as the client sent them.
  const sent = request.variables ?? {};
  const coerced = getVariableValues(supergraph.apiSchema, checkedOperation.variableDefinitions ?? [], sent, { maxErrors: 50 });
  if (coerced.errors) {
    return refused(
      coerced.errors.map((error) => withCode(error, 'BAD_USER_INPUT')),
      subscription,
    );
  }
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
  const prepared = heldOf(request, checked, checkedOperation, variables);
  if (!subscription) return prepared;
  if (state.credentialFull(request.headers)) return refused([state.perTokenRefusal()], subscription);
  try {
    state.plans.set(prepared, { supergraph, plan: supergraph.plan(prepared.document, prepared.operation.name?.value) });
  } catch (error) {
    return refused(
      [error instanceof GraphQLError ? error : new GraphQLError(error instanceof Error ? error.message : String(error))],
      subscription,
    );
  }
  return prepared;
}

/**
 * What the operation keeps of its request. A long document (not kept in the checked-document cache) is held as its
 * printed form: a comment or padding that made it long goes with the request.
 */
function heldOf(
  request: LiveRequest,
  checked: DocumentNode,
  checkedOperation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): PreparedLive {
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
  return { held, document, operation };
}

function checkedDocument(state: PrepareState, supergraph: PlannedSupergraph, query: string): CheckedDocument {
  let documents = state.checked.get(supergraph);
  if (!documents) state.checked.set(supergraph, (documents = new Map()));
  const cached = documents.get(query);
  if (cached) return cached;
  const document = parseDocument(query, state.deps.maxTokens);
  const entry = {
    document,
    errors:
      document instanceof GraphQLError ? [] : validate(supergraph.apiSchema, document, [...specifiedRules, ...state.deps.validationRules]),
  };
  if (query.length <= CHECKED_DOCUMENT_MAX_LENGTH) {
    if (documents.size >= CHECKED_DOCUMENT_CACHE_SIZE) documents.delete(documents.keys().next().value!);
    documents.set(query, entry);
  }
  return entry;
}

function parseDocument(query: string, maxTokens: number): DocumentNode | GraphQLError {
  try {
    return parse(query, { maxTokens });
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

function refused(errors: GraphQLError[], subscription: boolean, status: 400 | 413 = 400): LiveRefusal {
  return { refused: errors, subscription, status };
}

/** The error with the `extensions.code` Apollo Server gives it. */
export function withCode(error: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes ?? null,
    source: error.source ?? null,
    positions: error.positions ?? null,
    extensions: { ...error.extensions, code },
  });
}

function unresolvedOperation(operationName: string | null | undefined): GraphQLError {
  return new GraphQLError(
    operationName ? `Unknown operation named "${operationName}".` : 'Must provide operation name if query contains multiple operations.',
    { extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } },
  );
}

function tooLarge(maxBytes: number): GraphQLError {
  return new GraphQLError(
    `A subscription's document and variables are at most ${maxBytes} bytes (SUBSCRIPTION_MAX_MESSAGE_BYTES), over HTTP as in a WebSocket message.`,
    { extensions: { code: 'BAD_REQUEST' } },
  );
}

/** The bytes of a request's document and variables, as a WebSocket message would carry them. */
function requestBytes(request: LiveRequest): number {
  const documentBytes = Buffer.byteLength(request.query);
  return request.variables ? documentBytes + Buffer.byteLength(JSON.stringify(request.variables)) : documentBytes;
}
