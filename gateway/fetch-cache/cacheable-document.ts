import { createHash } from 'node:crypto';
import {
  Kind,
  print,
  validate,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { withEntityIds } from './with-entity-ids.ts';
import { staticCachePolicy, type CachePolicyResult } from '../../lib/graphql/static-cache-policy.ts';

/** What the fetch cache needs of a subgraph fetch's document, worked out once per distinct document. */
export interface CacheableDocument {
  /** The reply's cache policy from the subgraph's `@cacheControl` hints, as its own server would answer it. */
  readonly policy: CachePolicyResult;
  /** A query its hints let the cache keep (max age > 0): its operation and fragments, for the tags; undefined otherwise. */
  readonly cacheable:
    | {
        key: string;
        /** What is run instead of the document: it, with every entity's `id` selected (with-entity-ids.ts). */
        document: DocumentNode;
        /** Its text, when it differs from the document's (what a subgraph server is sent). */
        text: string | undefined;
        operation: OperationDefinitionNode;
        fragments: Map<string, FragmentDefinitionNode>;
      }
    | undefined;
  /** A mutation: its reply waits until the changes it committed have reached the fetch cache. */
  readonly writes: boolean;
}

/**
 * @param source the document's text: with the operation name, it names the document in fetch-cache keys — the same in
 *   every process, since the shared level (Redis) holds the entries of them all.
 */
export function cacheableDocument(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  source: string,
): CacheableDocument {
  const policy = staticCachePolicy(schema, document, operationName);
  const found = operationOf(document, operationName);
  const writes = found?.operation === 'mutation';
  if (found?.operation !== 'query' || !((policy.maxAge ?? 0) > 0)) return { policy, cacheable: undefined, writes };
  // The ids added to entity lookups only, checked once (a document the rewrite would break runs as is). Not to root
  // fields: a root call's reply is read under the caller's permissions field by field (the Graph's rules), and an id it
  // did not ask for could add an error to it — nor is a social root call ever kept (its rate-limit usage).
  const withIds = isEntityLookup(found) ? withEntityIds(schema, document) : document;
  const executable = withIds !== document && validate(schema, withIds).length === 0 ? withIds : document;
  const operation = operationOf(executable, operationName)!;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of executable.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return {
    policy,
    cacheable: {
      key: createHash('sha256')
        .update(`${operationName ?? ''}\n${source}`)
        .digest('base64url'),
      document: executable,
      text: executable === document ? undefined : print(executable),
      operation,
      fragments,
    },
    writes,
  };
}

/** An `_entities` fetch alone (the query planner's entity lookup). */
function isEntityLookup(operation: OperationDefinitionNode): boolean {
  return operation.selectionSet.selections.every(
    (selection) => selection.kind === Kind.FIELD && (selection.name.value === '_entities' || selection.name.value === '__typename'),
  );
}

function operationOf(document: DocumentNode, operationName: string | undefined): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  return operationName === undefined
    ? operations.length === 1
      ? operations[0]
      : undefined
    : operations.find((op) => op.name?.value === operationName);
}
