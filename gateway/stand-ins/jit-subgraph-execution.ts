import { createRequire } from 'node:module';
import {
  getNamedType,
  getNullableType,
  isCompositeType,
  isListType,
  isNonNullType,
  isObjectType,
  isInterfaceType,
  Kind,
  BREAK,
  visit,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLError,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type * as GraphqlJit from 'graphql-jit';
import type { QueryCompiler, QueryRun } from '../../lib/graphql/query-compiler.ts';

/**
 * Stand-in `jit-subgraph-execution` (lib/stand-ins/stand-in-registry.ts): graphql-jit in place of graphql-js's `execute`
 * for every subgraph, run in the gateway's process (gateway/in-process-data-source.ts) or served by a process of its own
 * (subgraphs/subgraph-executor.ts). A deep read's entity fetch resolves thousands of objects, and graphql-js's
 * generic executor (a field-by-field walk with a promise and a path object per field) was most of the embedded
 * subgraphs' CPU (bench/README.md, "Stand-ins"). Two graphql-js behaviours (graphql 16.15.0) are kept, so that clients
 * see the same replies on either engine:
 * - variables graphql-jit refuses are coerced again by graphql-js, whose messages name the input path and the scalar's
 *   own reason;
 * - only the first error that nulls a value is reported: graphql-js (asynchronous resolvers) records a nullable field's
 *   error where it happens, and a non-null field's error at the nearest nullable position above it, once — the errors of
 *   other non-null fields racing to null the same position are dropped. graphql-jit reports every failing field.
 * A query graphql-jit declines to compile runs on graphql-js, and so does one with a field aliased `__proto__`: graphql-jit
 * (0.8.9) builds its result objects by assignment, where that key sets the object's prototype instead of adding the field
 * (the gateway then found it missing and nulled the reply). test/e2e/gateway/jit-subgraph-execution.test.ts holds the
 * two engines to the same replies.
 *
 * graphql-jit is loaded when the first compiler is made, after the stand-in's gate has checked its release.
 */
const require = createRequire(import.meta.url);

/**
 * The compiler: for a validated subgraph query, graphql-jit's compiled form, or undefined where it declines (it returns
 * errors instead of a compiled query, e.g. for an operation name the document does not hold): graphql-js then executes
 * it and reports.
 */
export function createJitCompiler(): QueryCompiler {
  const { compileQuery, isCompiledQuery } = require('graphql-jit') as typeof GraphqlJit;
  return (schema, document, operationName) => compileJitRun(compileQuery, isCompiledQuery, schema, document, operationName);
}

function compileJitRun(
  compileQuery: typeof GraphqlJit.compileQuery,
  isCompiledQuery: typeof GraphqlJit.isCompiledQuery,
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
): QueryRun | undefined {
  if (hasProtoKey(document)) return undefined;
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
  const shape = operationShape(schema, document, operationName);
  return async (contextValue, variables, graphqlJs) => {
    const result = await compiled.query(undefined, contextValue, variables ?? {});
    // No data: graphql-jit refused the variables before running anything; graphql-js words the refusal.
    if (result.data === undefined) return graphqlJs();
    if (result.errors && result.errors.length > 1 && shape) return { ...result, errors: firstErrorPerNulledPosition(result.errors, shape) };
    return result;
  };
}

/** Whether a field of the document answers under the key `__proto__` (an alias: field names may not start with `__`). */
function hasProtoKey(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(field) {
      if ((field.alias ?? field.name).value !== '__proto__') return undefined;
      found = true;
      return BREAK;
    },
  });
  return found;
}

/** What the nulled positions of an operation's errors are read from: its root type, selections and fragments. */
interface OperationShape {
  schema: GraphQLSchema;
  root: GraphQLCompositeType;
  selectionSet: SelectionSetNode;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
}

function operationShape(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): OperationShape | undefined {
  const operations = document.definitions.filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  const operation = operationName === undefined ? operations[0] : operations.find((candidate) => candidate.name?.value === operationName);
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  return { schema, root, selectionSet: operation.selectionSet, fragments };
}

/**
 * Keeps graphql-js's errors out of graphql-jit's: the first error per nulled position, where a nullable field's error
 * nulls its own position and a non-null field's error the nearest nullable position above it (the root when none is).
 * An error whose path cannot be followed through the operation is kept.
 */
function firstErrorPerNulledPosition(errors: readonly GraphQLError[], shape: OperationShape): GraphQLError[] {
  const seen = new Set<string>();
  return errors.filter((error) => {
    const path = error.path;
    const nullable = path && nullablePositions(shape, path);
    if (!path || !nullable) return true;
    let depth = path.length;
    while (depth > 0 && !nullable[depth - 1]) depth -= 1;
    const position = JSON.stringify(path.slice(0, depth));
    if (seen.has(position)) return false;
    seen.add(position);
    return true;
  });
}

/** For each position along the path (after each segment), whether its type is nullable; undefined when it cannot be followed. */
function nullablePositions(shape: OperationShape, path: readonly (string | number)[]): boolean[] | undefined {
  const nullable: boolean[] = [];
  let type: GraphQLOutputType = shape.root;
  let selections: { parent: GraphQLCompositeType; selectionSet: SelectionSetNode }[] = [
    { parent: shape.root, selectionSet: shape.selectionSet },
  ];
  for (const segment of path) {
    if (typeof segment === 'number') {
      const list = getNullableType(type);
      if (!isListType(list)) return undefined;
      type = list.ofType as GraphQLOutputType;
      nullable.push(!isNonNullType(type));
      continue;
    }
    const fields = selections.flatMap(({ parent, selectionSet }) => fieldsWithKey(shape, parent, selectionSet, segment));
    const first = fields[0];
    if (!first) return undefined;
    type = first.type;
    nullable.push(!isNonNullType(type));
    const named = getNamedType(type);
    selections = isCompositeType(named)
      ? fields.flatMap(({ node }) => (node.selectionSet ? [{ parent: named, selectionSet: node.selectionSet }] : []))
      : [];
  }
  return nullable;
}

/** The fields of a selection set answering under this response key, through inline fragments and fragment spreads. */
function fieldsWithKey(
  shape: OperationShape,
  parent: GraphQLCompositeType,
  selectionSet: SelectionSetNode,
  key: string,
): { node: FieldNode; type: GraphQLOutputType }[] {
  const found: { node: FieldNode; type: GraphQLOutputType }[] = [];
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if ((selection.alias ?? selection.name).value !== key) continue;
      const name = selection.name.value;
      const definition =
        name === '__typename' ? undefined : isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
      if (name === '__typename') found.push({ node: selection, type: shape.schema.getType('String') as GraphQLOutputType });
      else if (definition) found.push({ node: selection, type: definition.type });
      continue;
    }
    const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : shape.fragments.get(selection.name.value);
    if (!fragment) continue;
    const condition = fragment.typeCondition ? shape.schema.getType(fragment.typeCondition.name.value) : parent;
    if (condition && isCompositeType(condition)) found.push(...fieldsWithKey(shape, condition, fragment.selectionSet, key));
  }
  return found;
}
