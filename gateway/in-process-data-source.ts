import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { execute, GraphQLError, parse, validate, type DocumentNode, type GraphQLFormattedError } from 'graphql';
import type { Subgraph } from '../subgraphs/subgraph.ts';
import { collectExtensions, type GatewayContext } from './gateway-context.ts';

type GatewayGraphQLResponse = Awaited<ReturnType<GraphQLDataSource['process']>>;
type ErrorFormatter = (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;

const DOCUMENT_CACHE_SIZE = 500;

/**
 * Runs a subgraph inside the gateway's process (no HTTP hop). Unlike @apollo/gateway's LocalGraphQLDataSource it
 * - gives the subgraph its own per-request context, made by the subgraph's factory from the caller's credentials, exactly as
 *   its HTTP server would (so the same auth rules and DataLoaders apply in both modes);
 * - parses and validates each distinct subgraph query once (the query planner repeats the same few), instead of per fetch;
 * - formats errors with the subgraph's own error formatter.
 */
export class InProcessDataSource implements GraphQLDataSource<GatewayContext> {
  private readonly documents = new Map<string, DocumentNode>();

  constructor(
    private readonly subgraph: Subgraph,
    private readonly formatError: ErrorFormatter,
  ) {}

  async process(options: GraphQLDataSourceProcessOptions<GatewayContext>): Promise<GatewayGraphQLResponse> {
    const { request } = options;
    const source = request.query ?? '';
    let document: DocumentNode;
    try {
      document = this.document(source);
    } catch (error) {
      const graphqlError = error instanceof GraphQLError ? error : new GraphQLError(String(error));
      return { errors: [graphqlError.toJSON()] };
    }
    const gatewayContext = options.context as Partial<GatewayContext>;
    const contextValue = this.contextFor(gatewayContext);
    const result = await execute({
      schema: this.subgraph.schema,
      document,
      variableValues: request.variables,
      operationName: request.operationName,
      contextValue,
    });
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
    });
    cache?.set(this.subgraph.name, context);
    return context;
  }

  private document(source: string): DocumentNode {
    const cached = this.documents.get(source);
    if (cached) return cached;
    let document: DocumentNode;
    try {
      document = parse(source);
    } catch (error) {
      throw error instanceof GraphQLError ? withCode(error, 'GRAPHQL_PARSE_FAILED') : error;
    }
    const errors = validate(this.subgraph.schema, document);
    if (errors.length > 0) throw withCode(errors[0]!, 'GRAPHQL_VALIDATION_FAILED');
    if (this.documents.size >= DOCUMENT_CACHE_SIZE) {
      // Drop the oldest entry (Map keeps insertion order).
      this.documents.delete(this.documents.keys().next().value!);
    }
    this.documents.set(source, document);
    return document;
  }
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
