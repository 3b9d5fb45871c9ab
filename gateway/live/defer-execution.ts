import { buildOperationContext, type GraphQLDataSource } from '@apollo/gateway';
import { runQueryPlan, serviceMapOf } from './query-plan-run.ts';
import type { DeferNode, DeferredNode, FetchNode, PlanNode } from '@apollo/query-planner';
import {
  Kind,
  parse,
  print,
  type DocumentNode,
  type FieldNode,
  type FormattedExecutionResult,
  type GraphQLFormattedError,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Logger } from '../../lib/logger.ts';
import type { GatewayContext } from '../gateway-context.ts';
import type { PlannedSupergraph } from './subscription-planner.ts';

/**
 * Library copy `defer-execution` (lib/stand-ins/stand-in-registry.ts: Apollo Router's execution of a Defer node, held to
 * the same query without @defer by test/e2e/live/live-defer.differential.test.ts).
 *
 * @defer through the federated gateway (issue 27, item 5), as `multipart/mixed;deferSpec=20220824` (what Apollo Client
 * 4's Defer20220824Handler reads): the query planner's DeferNode executed as Apollo Router executes it — the primary
 * block's fetches first, its part sent at once (`{data, hasNext: true}`), then each deferred block's fetches, each
 * completed block sent as an incremental part (`{incremental: [{data, path, label}], hasNext}`).
 *
 * @apollo/gateway's executeQueryPlan asserts on a Defer node, so each block runs through it on its own:
 * - the primary block's node, shaped by the primary's subselection; the raw data its fetches returned (key fields
 *   included, which the shaped data drops) is kept — executeQueryPlan merges each root fetch's data into its result by
 *   reference, so the root fetches' objects are the raw tree;
 * - each deferred block's node after a first fetch that answers with that raw tree (entity fetches along the block's path
 *   find their keys there and merge into it), shaped by a document of the block's path and subselection, and cut at the
 *   path into one incremental item per object (lists expanded).
 * A plan whose root is not a Defer node (no @defer, `if: false`, @defer under a condition or nested) runs as one result.
 */

export interface DeferredPart {
  data?: Record<string, unknown> | null;
  errors?: readonly GraphQLFormattedError[];
  incremental?: {
    data: Record<string, unknown> | null;
    path: (string | number)[];
    label?: string;
    errors?: readonly GraphQLFormattedError[];
  }[];
  hasNext: boolean;
}

export interface DeferRequest {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  variables: Record<string, unknown>;
  context: GatewayContext;
}

export interface DeferExecutorDeps {
  dataSource(name: string): GraphQLDataSource | undefined;
  format(error: unknown): GraphQLFormattedError;
  logger: Logger;
}

/** The data source every continuation's first fetch asks: it answers with the raw tree so far. */
const RAW_SOURCE = '#raw';

export function executeDeferred(
  supergraph: PlannedSupergraph,
  request: DeferRequest,
  deps: DeferExecutorDeps,
): AsyncIterableIterator<DeferredPart> | undefined {
  const operationName = request.operation.name?.value;
  const plan = supergraph.planDefer(request.document, operationName);
  const root = plan.node;
  if (root?.kind !== 'Defer' || root.deferred.some((block) => block.node && containsDefer(block.node))) return undefined;
  if (root.primary.node && containsDefer(root.primary.node)) return undefined;
  // A block that waits for another deferred block (a defer nested in a defer): the whole result instead.
  if (root.deferred.some((block) => block.depends.some((dependency) => dependency.deferLabel !== undefined))) return undefined;
  return partsOf(supergraph, root, request, deps);
}

async function* partsOf(
  supergraph: PlannedSupergraph,
  root: DeferNode,
  request: DeferRequest,
  deps: DeferExecutorDeps,
): AsyncGenerator<DeferredPart> {
  const raw: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const operationName = request.operation.name?.value;
  const variableDefinitions = request.operation.variableDefinitions ?? [];

  /**
   * The document shaping a block, its operation context and its text: made once per block of a cached plan (the plan's
   * nodes are the same objects for every request of the same query), so that executeQueryPlan's conversion of the
   * document (memoised per operation definition: stand-ins/operation-cache.ts) is not redone per request — for the deep
   * read's deferred block it cost more than the fetches.
   */
  const shaped = (block: object, shape: string) => {
    let byShape = blockShapes.get(block);
    if (!byShape) blockShapes.set(block, (byShape = new Map()));
    const cached = byShape.get(shape);
    if (cached) return cached;
    const document: DocumentNode = {
      kind: Kind.DOCUMENT,
      definitions: [
        {
          kind: Kind.OPERATION_DEFINITION,
          operation: request.operation.operation,
          ...(request.operation.name ? { name: request.operation.name } : {}),
          variableDefinitions,
          selectionSet: parseSelectionSet(shape),
        },
      ],
    };
    const made = {
      operationContext: buildOperationContext({
        schema: supergraph.apiSchema,
        operationDocument: document,
        ...(operationName ? { operationName } : {}),
      }),
      query: print(document),
    };
    // A plan's blocks are few; the bound only guards against a shape per request (none is: shapes come from the plan).
    if (byShape.size < 8) byShape.set(shape, made);
    return made;
  };

  /**
   * Runs a plan node, keeping the data every root fetch returned (the raw tree), shaped by `shape` (a selection set). A
   * deferred block without a node (its fields came with the primary block's fetches, from the same subgraph) is the raw
   * tree alone, shaped.
   */
  const run = async (block: DeferNode['primary'] | DeferredNode, shape: string, fromRaw: boolean): Promise<FormattedExecutionResult> => {
    const { node } = block;
    const { operationContext, query } = shaped(block, shape);
    const serviceMap = serviceMapOf((name) => {
      if (name === RAW_SOURCE) return { process: async () => ({ data: raw }) };
      const source = deps.dataSource(name);
      if (!source) return undefined;
      return {
        process: async (options: Parameters<GraphQLDataSource['process']>[0]) => {
          const response = await source.process(options);
          // A root fetch's data is merged into the result by reference: its objects are the raw tree.
          if ((options as { pathInIncomingRequest?: unknown[] }).pathInIncomingRequest?.length === 0 && response.data) {
            for (const key of Object.keys(response.data)) if (!(key in raw)) raw[key] = response.data[key];
          }
          return response;
        },
      };
    });
    const planned: PlanNode = fromRaw ? { kind: 'Sequence', nodes: node ? [RAW_FETCH, node] : [RAW_FETCH] } : node!;
    return runQueryPlan({
      queryPlan: { kind: 'QueryPlan', node: planned },
      serviceMap,
      operationContext,
      supergraph,
      request: { query, operationName, variables: request.variables },
      context: request.context,
      logger: deps.logger,
      format: deps.format,
    });
  };

  // Every field deferred at the root: the first part is an empty object (fetched, with no subselection, only for the
  // raw tree the blocks read), and the blocks fetch or shape everything.
  const primaryShape = root.primary.subselection;
  const primary = root.primary.node ? await run(root.primary, primaryShape ?? '{ __typename }', false) : { data: {} };
  const blocks = root.deferred;
  const primaryData = (primaryShape === undefined && primary.data ? {} : (primary.data ?? null)) as Record<string, unknown> | null;
  // The objects the deferred fragments go into are in the first part even when nothing but deferred fields was asked of
  // them (`replies { ... @defer { pageInfo } }` is `"replies": {}` at first), so that each item has a place to merge.
  if (primaryData) for (const block of blocks) openPath(primaryData, raw, block.queryPath);
  yield { data: primaryData, ...(primary.errors ? { errors: primary.errors } : {}), hasNext: blocks.length > 0 };
  for (const [index, block] of blocks.entries()) {
    const shape = pathSelection(request.operation, block.queryPath, block.subselection ?? '{ __typename }');
    const result =
      shape === undefined
        ? { errors: [deps.format(new Error(`the deferred path ${block.queryPath.join('.')} is not in the operation`))] }
        : await run(block, shape, true);
    const items = cut(result.data as Record<string, unknown> | null | undefined, block.queryPath).map((item) => ({
      data: item.data,
      path: item.path,
      ...(block.label !== undefined ? { label: block.label } : {}),
    }));
    const hasNext = index < blocks.length - 1;
    if (result.errors && result.errors.length > 0) {
      // Each error goes with the item under whose path it lies; one under none (the block could not be completed at
      // all) with the first item, or alone at the block's path.
      const under = (error: GraphQLFormattedError, path: readonly (string | number)[]) =>
        error.path !== undefined && path.every((segment, at) => error.path![at] === segment);
      const unplaced: GraphQLFormattedError[] = [];
      for (const error of result.errors) {
        const item = items.find((candidate) => under(error, candidate.path));
        if (item) ((item as { errors?: GraphQLFormattedError[] }).errors ??= []).push(error);
        else unplaced.push(error);
      }
      if (unplaced.length > 0) {
        if (items.length > 0) ((items[0] as { errors?: GraphQLFormattedError[] }).errors ??= []).push(...unplaced);
        else
          items.push({
            data: null,
            path: [...block.queryPath],
            ...(block.label !== undefined ? { label: block.label } : {}),
            errors: unplaced,
          } as never);
      }
    }
    yield { incremental: items, hasNext };
  }
}

/** Per block of a cached plan (its primary, each deferred node), the block's shaping (partsOf's `shaped`); dropped with the plan. */
const blockShapes = new WeakMap<object, Map<string, { operationContext: ReturnType<typeof buildOperationContext>; query: string }>>();

/** A first fetch that asks nothing: RAW_SOURCE answers it with the raw tree. */
const RAW_FETCH: FetchNode = {
  kind: 'Fetch',
  serviceName: RAW_SOURCE,
  variableUsages: [],
  operation: '{__typename}',
  operationKind: 'query' as FetchNode['operationKind'],
  operationName: undefined,
} as FetchNode;

function containsDefer(node: PlanNode): boolean {
  switch (node.kind) {
    case 'Defer':
      return true;
    case 'Sequence':
    case 'Parallel':
      return node.nodes.some(containsDefer);
    case 'Flatten':
      return containsDefer(node.node);
    case 'Condition':
      return (
        (node.ifClause !== undefined && containsDefer(node.ifClause)) || (node.elseClause !== undefined && containsDefer(node.elseClause))
      );
    default:
      return false;
  }
}

function parseSelectionSet(text: string): SelectionSetNode {
  const document = parse(`query ${text}`, { noLocation: true });
  return (document.definitions[0] as OperationDefinitionNode).selectionSet;
}

/**
 * The selection `{ a(args) { b { <subselection> } } }` of a deferred block: the operation's own fields along the path
 * (their names, aliases and arguments, found by response key), the block's subselection at its end.
 */
function pathSelection(operation: OperationDefinitionNode, path: readonly string[], subselection: string): string | undefined {
  const fields: FieldNode[] = [];
  let selections: SelectionSetNode | undefined = operation.selectionSet;
  for (const key of path) {
    const field: FieldNode | undefined = selections ? findField(selections, key) : undefined;
    if (!field) return undefined;
    fields.push(field);
    selections = field.selectionSet;
  }
  let text = subselection;
  for (const field of fields.reverse()) {
    const head = print({ ...field, selectionSet: undefined, directives: [] });
    text = `{ ${head} ${text} }`;
  }
  return text;
}

/** The field with this response key in a selection set, looking into its fragments too. */
function findField(selectionSet: SelectionSetNode, key: string): FieldNode | undefined {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD && (selection.alias ?? selection.name).value === key) return selection;
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      const found = findField(selection.selectionSet, key);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Along `path` in the shaped `data`, the objects the raw tree has there and the shaped data lacks, as empty objects (lists
 * as lists of them, nulls as nulls): the places a deferred fragment's items merge into.
 */
function openPath(data: Record<string, unknown>, raw: Record<string, unknown>, path: readonly string[]): void {
  const empty = (value: unknown): unknown =>
    Array.isArray(value) ? value.map(empty) : value === null || typeof value !== 'object' ? value : {};
  const walk = (target: unknown, source: unknown, depth: number) => {
    if (depth === path.length || target === null || typeof target !== 'object' || source === null || typeof source !== 'object') return;
    if (Array.isArray(target)) {
      if (Array.isArray(source)) target.forEach((item, index) => walk(item, source[index], depth));
      return;
    }
    const key = path[depth]!;
    const from = (source as Record<string, unknown>)[key];
    const into = target as Record<string, unknown>;
    if (!Object.hasOwn(into, key)) {
      if (from === undefined) return;
      into[key] = empty(from);
    }
    walk(into[key], from, depth + 1);
  };
  walk(data, raw, 0);
}

/** The objects at `path` in `data` (lists expanded), each with its path (list indices included). */
function cut(
  data: Record<string, unknown> | null | undefined,
  path: readonly string[],
): { data: Record<string, unknown>; path: (string | number)[] }[] {
  const found: { data: Record<string, unknown>; path: (string | number)[] }[] = [];
  const walk = (value: unknown, depth: number, at: (string | number)[]) => {
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) {
      value.forEach((item, index) => walk(item, depth, [...at, index]));
      return;
    }
    if (typeof value !== 'object') return;
    if (depth === path.length) {
      found.push({ data: value as Record<string, unknown>, path: at });
      return;
    }
    walk((value as Record<string, unknown>)[path[depth]!], depth + 1, [...at, path[depth]!]);
  };
  walk(data, 0, []);
  return found;
}

export type { DeferNode };
