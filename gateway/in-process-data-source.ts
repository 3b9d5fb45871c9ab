import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import {
  execute,
  GraphQLError,
  parse,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLFormattedError,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Subgraph } from '../subgraphs/subgraph.ts';
import { collectExtensions, type GatewayContext } from './gateway-context.ts';

type GatewayGraphQLResponse = Awaited<ReturnType<GraphQLDataSource['process']>>;
type ErrorFormatter = (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;

const DOCUMENT_CACHE_SIZE = 500;

/** A subgraph query parsed, validated and — where graphql-jit can — compiled, once per distinct text and operation name. */
interface PreparedQuery {
  readonly document: DocumentNode;
  readonly compiled: CompiledQuery | undefined;
}

/**
 * Runs a subgraph inside the gateway's process (no HTTP hop). Unlike @apollo/gateway's LocalGraphQLDataSource it
 * - gives the subgraph its own per-request context, made by the subgraph's factory from the caller's credentials, exactly as
 *   its HTTP server would (so the same auth rules and DataLoaders apply in both modes);
 * - parses and validates each distinct subgraph query once (the query planner repeats the same few), instead of per fetch,
 *   and compiles it with graphql-jit: a deep read's entity fetch resolves ~1,900 objects, and graphql-js's generic
 *   executor (a field-by-field walk of the selection with a promise and a path object per field) was most of the
 *   subgraphs' CPU per request; a query graphql-jit cannot compile runs through graphql-js's `execute` as before;
 * - formats errors with the subgraph's own error formatter.
 */
export class InProcessDataSource implements GraphQLDataSource<GatewayContext> {
  private readonly prepared = new Map<string, PreparedQuery>();

  constructor(
    private readonly subgraph: Subgraph,
    private readonly formatError: ErrorFormatter,
  ) {}

  async process(options: GraphQLDataSourceProcessOptions<GatewayContext>): Promise<GatewayGraphQLResponse> {
    const { request } = options;
    const source = request.query ?? '';
    let prepared: PreparedQuery;
    try {
      prepared = this.prepare(source, request.operationName);
    } catch (error) {
      const graphqlError = error instanceof GraphQLError ? error : new GraphQLError(String(error));
      return { errors: [graphqlError.toJSON()] };
    }
    const gatewayContext = options.context as Partial<GatewayContext>;
    const contextValue = this.contextFor(gatewayContext);
    const runGraphqlJs = () =>
      execute({
        schema: this.subgraph.schema,
        document: prepared.document,
        variableValues: request.variables,
        operationName: request.operationName,
        contextValue,
      });
    let result: ExecutionResult = prepared.compiled
      ? await prepared.compiled.query(undefined, contextValue, request.variables ?? {})
      : await runGraphqlJs();
    // No data: graphql-jit refused the variables before running anything. graphql-js coerces them again to report it, so
    // that the messages clients see (naming the input path and the scalar's own reason) stay graphql-js's.
    if (prepared.compiled && result.data === undefined) result = await runGraphqlJs();
    else if (prepared.compiled && result.errors && result.errors.length > 1) result = { ...result, errors: firstErrorPerNull(result) };
    collectExtensions(gatewayContext, this.subgraph.responseExtensions?.(contextValue));
    this.subgraph.finishRequest?.(contextValue);
    // Without data, execution never started: the errors are the request's own (variable coercion), which Apollo Server on the
    // subgraph's HTTP server reports as BAD_USER_INPUT; the same code here keeps both modes alike.
    const requestErrors = result.data === undefined;
    return {
      ...(result.data !== undefined ? { data: result.data } : {}),
      ...(result.errors
        ? {
            errors: result.errors.map((error) => {
              const formatted = this.formatError(error.toJSON(), error);
              return requestErrors && formatted.extensions?.code === undefined
                ? { ...formatted, extensions: { ...formatted.extensions, code: 'BAD_USER_INPUT' } }
                : formatted;
            }),
          }
        : {}),
    };
  }

  private contextFor(gatewayContext: Partial<GatewayContext>): object {
    const cache = gatewayContext.subgraphContexts;
    const existing = cache?.get(this.subgraph.name);
    if (existing) return existing;
    const context = this.subgraph.createContext({
      authorization: gatewayContext.authorization,
      requestId: gatewayContext.requestId,
      socialHost: gatewayContext.socialHost,
      signedRequest: gatewayContext.signedRequest,
      shared: gatewayContext.shared,
    });
    cache?.set(this.subgraph.name, context);
    return context;
  }

  private prepare(source: string, operationName: string | undefined): PreparedQuery {
    const key = operationName === undefined ? source : `${operationName}\n${source}`;
    const cached = this.prepared.get(key);
    if (cached) return cached;
    let document: DocumentNode;
    try {
      document = parse(source);
    } catch (error) {
      throw error instanceof GraphQLError ? withCode(error, 'GRAPHQL_PARSE_FAILED') : error;
    }
    const errors = validate(this.subgraph.schema, document);
    if (errors.length > 0) throw withCode(errors[0]!, 'GRAPHQL_VALIDATION_FAILED');
    if (this.prepared.size >= DOCUMENT_CACHE_SIZE) {
      // Drop the oldest entry (Map keeps insertion order).
      this.prepared.delete(this.prepared.keys().next().value!);
    }
    const prepared = { document, compiled: compile(this.subgraph, document, operationName) };
    this.prepared.set(key, prepared);
    return prepared;
  }
}

/**
 * graphql-jit's compiled form of a validated subgraph query, or undefined where it declines (it returns errors instead of a
 * compiled query, e.g. for an operation name the document does not hold): graphql-js then executes it and reports.
 */
function compile(subgraph: Subgraph, document: DocumentNode, operationName: string | undefined): CompiledQuery | undefined {
  try {
    const compiled = compileQuery(subgraph.schema, document, operationName, {
      // A resolver's own error keeps its stack; the errors graphql-jit makes itself (non-null violations, coercion) need none.
      disablingCapturingStackErrors: true,
    });
    return isCompiledQuery(compiled) ? compiled : undefined;
  } catch {
    return undefined;
  }
}

/**
 * graphql-js reports one error per value it nulls: once a non-null field fails, its parent's other fields are not run (or
 * their failures are dropped), and only the first error reaches the list. graphql-jit runs every field and reports each
 * failure; keeping the first error per nulled position (the first null along its path) gives graphql-js's list.
 */
function firstErrorPerNull(result: ExecutionResult): GraphQLError[] {
  const seen = new Set<string>();
  return result.errors!.filter((error) => {
    if (!error.path) return true;
    let node: unknown = result.data;
    let depth = 0;
    while (node !== null && node !== undefined && depth < error.path.length) {
      node = (node as Record<string | number, unknown>)[error.path[depth]!];
      depth += 1;
    }
    const position = error.path.slice(0, depth).join('.');
    if (seen.has(position)) return false;
    seen.add(position);
    return true;
  });
}

/** The error with the `extensions.code` Apollo Server gives parse and validation errors on a subgraph's HTTP server. */
function withCode(error: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(error.message, {
    ...(error.nodes ? { nodes: error.nodes } : {}),
    ...(error.source ? { source: error.source } : {}),
    ...(error.positions ? { positions: error.positions } : {}),
    extensions: { ...error.extensions, code },
  });
}
