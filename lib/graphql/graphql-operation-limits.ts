import type { ServerResponse } from 'node:http';
import type { ApolloServerPlugin, GraphQLRequestContextDidResolveOperation } from '@apollo/server';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import {
  getNamedType,
  getNullableType,
  getVariableValues,
  GraphQLError,
  isCompositeType,
  isListType,
  Kind,
  Lexer,
  Source,
  TokenKind,
  validate,
  visit,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import type { OperationLimits } from '../config-types.ts';

/**
 * Per-operation limits for GraphQL documents written by outside clients: depth, aliases, root fields, tokens and an
 * estimated cost, each refused before execution with HTTP 400, a message naming the limit and the value, and the
 * `extensions.code` Apollo Router gives the same refusal.
 *
 * Where each is checked, and why:
 * - tokens: before Apollo Server sees the request (tokenLimitMiddleware), because their point is to bound the work of
 *   parsing and validating a document, and Apollo parses and validates before any plugin hook can refuse a request.
 * - depth, aliases, root fields, cost: in a plugin's didResolveOperation, after validation and before execution. Not as
 *   validation rules: Apollo caches validated documents by their hash, so a rule cannot apply to some callers and not
 *   others, and the system's own operations must pass (see below). Depth and aliases are counted by
 *   graphql-armor's rules, the cost by graphql-query-complexity with the estimator below; the root-field count is ours.
 *
 * Trusted operations skip every limit: those run in-process with executeOperation (the REST adapter's, built by its own
 * code from a `fields=` expansion that has its own bounds, and deeper than any sensible public limit), and those whose
 * HTTP request carries the trusted-caller secret (lib/http/trusted-caller.ts).
 */

// The limits' settings are configuration (lib/config-types.ts); their meaning is here.
export type { OperationLimits };

/** `extensions.code` of each refusal (Apollo Router's codes for the same limits). */
export const OPERATION_LIMIT_CODES = {
  depth: 'MAX_DEPTH_LIMIT',
  aliases: 'MAX_ALIASES_LIMIT',
  rootFields: 'MAX_ROOT_FIELDS_LIMIT',
  tokens: 'MAX_TOKENS_LIMIT',
  cost: 'COST_ESTIMATED_TOO_EXPENSIVE',
} as const;

function limitError(code: string, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status: 400 } } });
}

/**
 * Counts the document's tokens, stopping at `stopAfter + 1` so that a huge document costs no more than a document just
 * over the limit. Syntax errors stop the count too: the parser reports them in its own words.
 */
export function countTokens(query: string, stopAfter: number): number {
  const lexer = new Lexer(new Source(query));
  let count = 0;
  try {
    while (count <= stopAfter && lexer.advance().kind !== TokenKind.EOF) count++;
  } catch {
    // A lexical error: leave it to the parser.
  }
  return count;
}

/** The shape of one operation: what the static limits are compared with. */
export interface OperationShape {
  depth: number;
  aliases: number;
  rootFields: number;
}

// Keyed by the operation's node, which Apollo's document cache hands back for every request repeating the document.
const shapes = new WeakMap<OperationDefinitionNode, OperationShape>();

/** Measures depth, aliases and root fields of `operation` (a member of `document`, which has passed validation). */
export function measureOperation(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): OperationShape {
  const cached = shapes.get(operation);
  if (cached) return cached;
  const fragments = document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);
  // The operation alone (with the fragments it may use), so another operation of the same document counts for nothing.
  const single: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation, ...fragments] };
  const shape: OperationShape = { depth: 0, aliases: 0, rootFields: countRootFields(operation.selectionSet, fragments) };
  // graphql-armor's rules as measuring instruments: no limit of their own, the counts come back through onAccept.
  const errors = validate(schema, single, [
    maxDepthRule({ n: Infinity, flattenFragments: true, onAccept: [(_context, { n }: { n: number }) => (shape.depth = n)] }),
    maxAliasesRule({ n: Infinity, onAccept: [(_context, { n }: { n: number }) => (shape.aliases = n)] }),
  ]);
  // Never seen (the document passed Apollo's validation first), but a walk that did not finish must not count as small.
  if (errors.length > 0) shape.depth = shape.aliases = Infinity;
  shapes.set(operation, shape);
  return shape;
}

/** Fields on the root type, through fragments; each fragment is counted once and reused, so nested spreads stay linear. */
function countRootFields(selectionSet: SelectionSetNode, fragments: readonly FragmentDefinitionNode[]): number {
  const byName = new Map(fragments.map((fragment) => [fragment.name.value, fragment]));
  const counted = new Map<string, number>();
  const count = (set: SelectionSetNode): number => {
    let total = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) total += 1;
      else if (selection.kind === Kind.INLINE_FRAGMENT) total += count(selection.selectionSet);
      else {
        const name = selection.name.value;
        let fields = counted.get(name);
        if (fields === undefined) {
          const fragment = byName.get(name);
          fields = fragment ? count(fragment.selectionSet) : 0;
          counted.set(name, fields);
        }
        total += fields;
      }
    }
    return total;
  };
  return count(selectionSet);
}

/**
 * The cost model, after Apollo's demand control (the IBM GraphQL cost specification): a field of object, interface or
 * union type costs 1 and a scalar or enum field 0; a page (a field taking `first`) multiplies the cost of what it holds
 * by `first` — or by `listSize` when `first` is not given — and so does any other list, except the `nodes` of a
 * `…Connection`, whose size is its page's. Introspection fields cost nothing (introspection is off in production).
 * So `media(first: 25) { nodes { comments(first: 25) { nodes { text } } } }` costs 25 × (1 + 1 + 25 × (1 + 1)) = 1300.
 */
function demandEstimator(listSize: number): ComplexityEstimator {
  return ({ field, args, childComplexity, type }) => {
    if (field.name.startsWith('__')) return 0;
    const own = isCompositeType(getNamedType(field.type)) ? 1 : 0;
    let size = 1;
    if (field.args.some((argument) => argument.name === 'first')) {
      size = typeof args.first === 'number' ? Math.max(args.first, 0) : listSize;
    } else if (isListType(getNullableType(field.type)) && !type.name.endsWith('Connection')) {
      size = listSize;
    }
    return size * (own + childComplexity);
  };
}

/**
 * Estimates the cost of running `operation` with `variables`, or undefined when the variables do not fit the operation
 * (execution then refuses them with its own error). Infinity when the document expands to more fields than `maxNodes`
 * (fragments spread many times over): such a document is refused without being walked to the end.
 */
export function estimateOperationCost(options: {
  schema: GraphQLSchema;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  variables: Record<string, unknown> | undefined;
  listSize: number;
  maxNodes: number;
}): number | undefined {
  const { schema, operation } = options;
  const variables = options.variables ?? {};
  if (getVariableValues(schema, operation.variableDefinitions ?? [], variables).errors) return undefined;
  const { costs, key } = costEntry(options, variables);
  const known = costs.get(key);
  if (known !== undefined) return known;
  const cost = walkOperationCost(options, variables);
  if (costs.size >= COST_CACHE_ENTRIES) costs.clear();
  costs.set(key, cost);
  return cost;
}

/**
 * The estimate kept for these variables, if one is, without checking the variables: a kept estimate was made for the same
 * values of every variable it reads, so it is what estimateOperationCost would answer — unless another variable does not
 * fit the operation, when it answers undefined (and execution refuses the variables). Both refuse nothing when the
 * estimate is within the limit, so a kept estimate within it spares a request the coercion of its variables.
 */
function knownOperationCost(options: Parameters<typeof estimateOperationCost>[0]): number | undefined {
  const { costs, key } = costEntry(options, options.variables ?? {});
  return costs.get(key);
}

/**
 * The estimate depends on the document and on the few variables that size pages or skip fields: computed once per
 * distinct value of those (a client's ids and tokens change with every request, its page sizes seldom).
 */
function costEntry(
  options: { schema: GraphQLSchema; document: DocumentNode; operation: OperationDefinitionNode; listSize: number; maxNodes: number },
  variables: Record<string, unknown>,
): { costs: Map<string, number>; key: string } {
  const { schema, document, operation } = options;
  let cache = costCaches.get(operation);
  if (!cache || cache.schema !== schema) {
    cache = { schema, dependsOn: costVariables(document, operation), costs: new Map() };
    costCaches.set(operation, cache);
  }
  // Most operations read no variable for their estimate (no page size, no @skip): their key is made without a JSON text.
  const key =
    cache.dependsOn.length === 0
      ? `${options.listSize}:${options.maxNodes}`
      : JSON.stringify([
          options.listSize,
          options.maxNodes,
          ...cache.dependsOn.map((name) => (name in variables ? variables[name] : UNSET)),
        ]);
  return { costs: cache.costs, key };
}

/** Distinct variable values whose estimates are kept per operation (more are computed again, never refused). */
const COST_CACHE_ENTRIES = 64;
const UNSET = '\u0000unset';
const costCaches = new WeakMap<OperationDefinitionNode, { schema: GraphQLSchema; dependsOn: string[]; costs: Map<string, number> }>();

/**
 * The variables the estimate reads: those in a `first` argument (the page size the estimator multiplies by) and in any
 * directive's arguments (@skip and @include decide which fields the walk counts), in the operation or its fragments.
 */
function costVariables(document: DocumentNode, operation: OperationDefinitionNode): string[] {
  const names = new Set<string>();
  const collect = (value: ValueNode): void => {
    if (value.kind === Kind.VARIABLE) names.add(value.name.value);
    else if (value.kind === Kind.LIST) value.values.forEach(collect);
    else if (value.kind === Kind.OBJECT) value.fields.forEach((field) => collect(field.value));
  };
  const visitor = {
    Field: (field: FieldNode) => field.arguments?.forEach((argument) => argument.name.value === 'first' && collect(argument.value)),
    Directive: (directive: DirectiveNode) => directive.arguments?.forEach((argument) => collect(argument.value)),
  };
  visit(operation, visitor);
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) visit(definition, visitor);
  return [...names].sort();
}

function walkOperationCost(
  options: { schema: GraphQLSchema; document: DocumentNode; operation: OperationDefinitionNode; listSize: number; maxNodes: number },
  variables: Record<string, unknown>,
): number {
  const { schema, document, operation } = options;
  try {
    return getComplexity({
      schema,
      query: document,
      variables,
      ...(operation.name ? { operationName: operation.name.value } : {}),
      estimators: [demandEstimator(options.listSize)],
      maxQueryNodes: options.maxNodes,
    });
  } catch (error) {
    // graphql-query-complexity throws only when the walk passes maxQueryNodes (variables were checked above).
    if (error instanceof GraphQLError) return Infinity;
    throw error;
  }
}

/**
 * Checks an operation against the limits; throws the refusal (a GraphQLError with `extensions.code` and HTTP 400).
 * Exported for the plugin below and for tests.
 */
export function checkOperation(
  limits: OperationLimits,
  request: {
    schema: GraphQLSchema;
    document: DocumentNode;
    operation: OperationDefinitionNode;
    variables: Record<string, unknown> | undefined;
  },
): void {
  const shape = measureOperation(request.schema, request.document, request.operation);
  if (shape.rootFields > limits.maxRootFields) {
    throw limitError(
      OPERATION_LIMIT_CODES.rootFields,
      `operation selects ${shape.rootFields} root fields, more than the limit of ${limits.maxRootFields}`,
    );
  }
  if (shape.depth > limits.maxDepth) {
    throw limitError(OPERATION_LIMIT_CODES.depth, `operation depth ${shape.depth} exceeds the limit of ${limits.maxDepth}`);
  }
  if (shape.aliases > limits.maxAliases) {
    throw limitError(OPERATION_LIMIT_CODES.aliases, `operation uses ${shape.aliases} aliases, more than the limit of ${limits.maxAliases}`);
  }
  const estimate = {
    ...request,
    listSize: limits.costListSize,
    // Ten fields per token is far beyond anything written out; only fragments spread over and over get there.
    maxNodes: Math.max(10_000, limits.maxTokens * 10),
  };
  const known = knownOperationCost(estimate);
  if (known !== undefined && known <= limits.maxCost) return;
  const cost = estimateOperationCost(estimate);
  if (cost === Infinity) {
    throw limitError(
      OPERATION_LIMIT_CODES.cost,
      `operation's estimated cost exceeds the limit of ${limits.maxCost}: its fragments expand to too many fields to estimate`,
    );
  }
  if (cost !== undefined && cost > limits.maxCost) {
    throw limitError(OPERATION_LIMIT_CODES.cost, `operation's estimated cost ${cost} exceeds the limit of ${limits.maxCost}`);
  }
}

/** A resolved operation as the checks before execution see it (Apollo Server's request context has these). */
export interface ResolvedOperation {
  schema: GraphQLSchema;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  variables: Record<string, unknown> | undefined;
  /** The HTTP request; undefined for an operation run in-process (executeOperation). */
  http: { headers: { get(name: string): string | undefined } } | undefined;
}

/**
 * The limits as one check of a resolved operation: throws the refusal, unless `isTrusted` says the caller skips them.
 * @param isTrusted operations it answers true for skip the limits (lib/http/trusted-caller.ts: trustedOperation).
 */
export function operationLimitsCheck(
  limits: OperationLimits,
  isTrusted: (request: { request: { http: ResolvedOperation['http'] } }) => boolean,
): (operation: ResolvedOperation) => void {
  return (resolved) => {
    if (isTrusted({ request: { http: resolved.http } })) return;
    checkOperation(limits, resolved);
  };
}

/** The Apollo Server plugin enforcing depth, aliases, root fields and cost before execution (`check`: operationLimitsCheck). */
export function operationLimitsPlugin<TContext extends object>(
  check: (operation: ResolvedOperation) => void,
): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, schema, document, request }: GraphQLRequestContextDidResolveOperation<TContext>) {
          // No operation (an unknown operationName): Apollo Server refuses the request itself right after this hook.
          if (!operation) return;
          check({ schema, document, operation, variables: request.variables, http: request.http });
        },
      };
    },
  };
}

/** What a GraphQL-over-HTTP request asks for, read as Apollo Server reads it (GET: the query string; else the body). */
export interface GraphqlHttpRequest {
  query: unknown;
  extensions: unknown;
  /** GraphQL over HTTP's persisted-document id (Apollo Server does not read it; lib/graphql/graphql-persisted-operations.ts does). */
  documentId: unknown;
}

/** The operation fields of a request to /graphql (after the JSON and multipart parsers); undefined for a batch. */
export function readGraphqlHttpRequest(req: Request): GraphqlHttpRequest | undefined {
  if (req.method === 'GET' || req.method === 'HEAD') {
    const search = new URLSearchParams(req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '');
    let extensions: unknown;
    try {
      extensions = search.has('extensions') ? JSON.parse(search.get('extensions')!) : undefined;
    } catch {
      extensions = undefined;
    }
    return { query: search.get('query') ?? undefined, extensions, documentId: search.get('documentId') ?? undefined };
  }
  const body: unknown = req.body;
  // Batches are refused by Apollo Server (allowBatchedHttpRequests is off), so only single operations need looking at.
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { query, extensions, documentId } = body as Record<string, unknown>;
  return { query, extensions, documentId };
}

/** Answers a refusal made in front of Apollo Server in Apollo Server's own shape (with Express or without). */
export function sendGraphqlError(res: ServerResponse, status: number, code: string, message: string): void {
  const body = JSON.stringify({ errors: [{ message, extensions: { code } }] });
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}

/** Documents whose token counts tokenLimitMiddleware keeps: at most this many, of at most this many characters (≤ 4 M in all). */
const TOKEN_MEMO_ENTRIES = 512;
const TOKEN_MEMO_MAX_CHARS = 8192;

/**
 * Express middleware in front of Apollo Server refusing documents with more than `maxTokens` tokens, before they are
 * parsed (Apollo's own parser limit cannot tell trusted callers apart).
 * @param isTrusted requests it answers true for are let through unchecked.
 */
export function tokenLimitMiddleware(maxTokens: number, isTrusted: (req: Request) => boolean): RequestHandler {
  // A client repeats its documents: their counts are kept (small documents only, a bounded number of them), so a repeated
  // document is looked up instead of lexed — a token object per token — at every request.
  const counts = new Map<string, number>();
  const count = (query: string): number => {
    if (query.length > TOKEN_MEMO_MAX_CHARS) return countTokens(query, maxTokens);
    let tokens = counts.get(query);
    if (tokens === undefined) {
      tokens = countTokens(query, maxTokens);
      if (counts.size >= TOKEN_MEMO_ENTRIES) counts.clear();
      counts.set(query, tokens);
    }
    return tokens;
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const query = readGraphqlHttpRequest(req)?.query;
    if (typeof query !== 'string' || isTrusted(req) || count(query) <= maxTokens) {
      next();
      return;
    }
    sendGraphqlError(res, 400, OPERATION_LIMIT_CODES.tokens, `document exceeds the limit of ${maxTokens} tokens`);
  };
}
