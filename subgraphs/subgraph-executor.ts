import type { ApolloServerOptionsWithGateway } from '@apollo/server';
import { execute, GraphQLError, printSchema, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { QueryCompiler, QueryRun } from '../lib/graphql/query-compiler.ts';
import { staticCachePolicy, type CachePolicyResult } from '../lib/graphql/static-cache-policy.ts';

type ApolloGateway = ApolloServerOptionsWithGateway<object>['gateway'];

/**
 * A subgraph's schema handed to its Apollo Server as a gateway's would be — Apollo Server's one public way to take an
 * executor — so that a subgraph process runs its queries on the engine the gateway's process runs its in-process
 * subgraphs on (`compile`: graphql-jit while stand-in `jit-subgraph-execution` serves): each document compiled once per
 * operation name and run with the request's context; a document the engine declines runs on graphql-js with the
 * arguments Apollo Server's own execution passes (schema, document, context, variables, operation name).
 *
 * Everything else stays Apollo Server's (@apollo/server 5.5.1): parsing and validation with its document cache (whose
 * DocumentNode a compiled form is kept beside, for as long as the cache keeps it), the plugins, the errors' formatting
 * and status codes, the reply — its Cache-Control too, which Apollo's cache-control plugin writes from the request's
 * cache policy: the compiled engine has no per-field hooks for the plugin to collect hints with, so the executor
 * restricts that policy by the document's `@cacheControl` hints (lib/graphql/static-cache-policy.ts). Not for a server with per-field tracing: its plugin hooks every resolver, which the
 * compiled form calls without the instrumentation graphql-js execution gives it (subgraph-server.ts keeps Apollo
 * Server's own execution then).
 */
export function compiledSubgraphGateway(schema: GraphQLSchema, compile: QueryCompiler): ApolloGateway {
  const compiled = new WeakMap<DocumentNode, Map<string, QueryRun | undefined>>();
  const policies = new WeakMap<DocumentNode, Map<string, CachePolicyResult>>();
  const policyOf = (document: DocumentNode, operationName: string | undefined): CachePolicyResult => {
    let byName = policies.get(document);
    if (!byName) {
      byName = new Map();
      policies.set(document, byName);
    }
    let policy = byName.get(operationName ?? '');
    if (!policy) {
      policy = staticCachePolicy(schema, document, operationName);
      byName.set(operationName ?? '', policy);
    }
    return policy;
  };
  const runOf = (document: DocumentNode, operationName: string | undefined): QueryRun | undefined => {
    let byName = compiled.get(document);
    if (!byName) {
      byName = new Map();
      compiled.set(document, byName);
    }
    const key = operationName ?? '';
    if (!byName.has(key)) byName.set(key, compile(schema, document, operationName));
    return byName.get(key);
  };
  return {
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => undefined;
    },
    async load() {
      return {
        executor: async ({ document, request, context, overallCachePolicy }) => {
          const operationName = request.operationName ?? undefined;
          overallCachePolicy.restrict(policyOf(document, operationName));
          const graphqlJs = () => execute({ schema, document, contextValue: context, variableValues: request.variables, operationName });
          const run = runOf(document, operationName);
          return run ? withGraphqlJsErrors(await run(context, request.variables, graphqlJs)) : graphqlJs();
        },
      };
    },
    async stop() {},
  };
}

/**
 * The compiled engine's errors as graphql-js makes them, for Apollo Server: it reads `extensions.code` off every error
 * (graphql-js's `extensions` is always an object; graphql-jit 0.8.9's is the original error's, often undefined, which
 * made Apollo Server's formatting throw and answer "Internal server error"). Message, locations, path and the original
 * error are kept, so the formatter sees what it sees of a graphql-js error.
 */
function withGraphqlJsErrors(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.some((error) => error.extensions === undefined)) return result;
  return {
    ...result,
    errors: result.errors.map((error) => {
      if (error.extensions !== undefined) return error;
      const copy = new GraphQLError(error.message, {
        ...(error.path && { path: error.path }),
        ...(error.originalError && { originalError: error.originalError }),
      });
      // graphql-js computes locations from nodes, which graphql-jit does not keep; the ones it reported stand.
      if (error.locations) Object.defineProperty(copy, 'locations', { value: error.locations, enumerable: true });
      return copy;
    }),
  };
}
