import { createRequire } from 'node:module';
import type { DocumentNode, ExecutionResult, GraphQLError, GraphQLSchema } from 'graphql';
import type * as GraphqlJit from 'graphql-jit';

/**
 * Stand-in `jit-subgraph-execution` (lib/stand-ins/stand-in-registry.ts): graphql-jit in place of graphql-js's `execute`
 * for subgraphs run in the gateway's process. A deep read's entity fetch resolves thousands of objects, and graphql-js's
 * generic executor (a field-by-field walk with a promise and a path object per field) was most of the embedded
 * subgraphs' CPU (bench/README.md, "Stand-ins"). Two graphql-js behaviours (graphql 16.15.0) are kept, so that clients
 * see the same replies on either engine:
 * - variables graphql-jit refuses are coerced again by graphql-js, whose messages name the input path and the scalar's
 *   own reason;
 * - only the first error per nulled value is reported (graphql-jit reports every failing sibling).
 * A query graphql-jit declines to compile runs on graphql-js. test/e2e/jit-subgraph-execution.test.ts holds the two
 * engines to the same replies.
 *
 * graphql-jit is loaded when the first compiler is made, after the stand-in's gate has checked its release.
 */
const require = createRequire(import.meta.url);

/** Runs a prepared query; `graphqlJs` runs the same query on graphql-js (for the cases above). */
export type JitRun = (
  contextValue: object,
  variables: Record<string, unknown> | undefined,
  graphqlJs: () => Promise<ExecutionResult> | ExecutionResult,
) => Promise<ExecutionResult>;

/** Compiles validated subgraph queries; made once the stand-in's gate has passed. */
export type JitCompiler = (schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined) => JitRun | undefined;

/**
 * The compiler: for a validated subgraph query, graphql-jit's compiled form, or undefined where it declines (it returns
 * errors instead of a compiled query, e.g. for an operation name the document does not hold): graphql-js then executes
 * it and reports.
 */
export function createJitCompiler(): JitCompiler {
  const { compileQuery, isCompiledQuery } = require('graphql-jit') as typeof GraphqlJit;
  return (schema, document, operationName) => compileJitRun(compileQuery, isCompiledQuery, schema, document, operationName);
}

function compileJitRun(
  compileQuery: typeof GraphqlJit.compileQuery,
  isCompiledQuery: typeof GraphqlJit.isCompiledQuery,
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
): JitRun | undefined {
  let compiled;
  try {
    compiled = compileQuery(schema, document, operationName, {
      // A resolver's own error keeps its stack; the errors graphql-jit makes itself (non-null violations, coercion) need none.
      disablingCapturingStackErrors: true,
    });
  } catch {
    return undefined;
  }
  if (!isCompiledQuery(compiled)) return undefined;
  return async (contextValue, variables, graphqlJs) => {
    const result = await compiled.query(undefined, contextValue, variables ?? {});
    // No data: graphql-jit refused the variables before running anything; graphql-js words the refusal.
    if (result.data === undefined) return graphqlJs();
    if (result.errors && result.errors.length > 1) return { ...result, errors: firstErrorPerNull(result) };
    return result;
  };
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
