import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';

/**
 * A faster engine's form of a validated query (graphql-jit, stand-in `jit-subgraph-execution`), as the gateway's
 * in-process subgraphs and the subgraph servers both run it. The engine is handed in by the wiring once its gate has
 * passed; nothing here loads it.
 */

/** Runs a prepared query; `graphqlJs` runs the same query on graphql-js (for the cases the engine leaves to it). */
export type QueryRun = (
  contextValue: object,
  variables: Record<string, unknown> | undefined,
  graphqlJs: () => Promise<ExecutionResult> | ExecutionResult,
) => Promise<ExecutionResult>;

/** Compiles a validated query of `schema`; undefined where the engine declines it (graphql-js runs it then). */
export type QueryCompiler = (schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined) => QueryRun | undefined;
