import { createHash } from 'node:crypto';
import { Kind, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { staticCachePolicy, type CachePolicyResult } from '../../lib/graphql/static-cache-policy.ts';

/** What the fetch cache needs of a subgraph fetch's document, worked out once per distinct document. */
export interface CacheableDocument {
  /** The reply's cache policy from the subgraph's `@cacheControl` hints, as its own server would answer it. */
  readonly policy: CachePolicyResult;
  /** A query its hints let the cache keep (max age > 0): its operation and fragments, for the tags; undefined otherwise. */
  readonly cacheable: { key: string; operation: OperationDefinitionNode; fragments: Map<string, FragmentDefinitionNode> } | undefined;
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
  const operations = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  const operation =
    operationName === undefined
      ? operations.length === 1
        ? operations[0]
        : undefined
      : operations.find((op) => op.name?.value === operationName);
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return {
    policy,
    cacheable:
      operation?.operation === 'query' && (policy.maxAge ?? 0) > 0
        ? {
            key: createHash('sha256')
              .update(`${operationName ?? ''}\n${source}`)
              .digest('base64url'),
            operation,
            fragments,
          }
        : undefined,
    writes: operation?.operation === 'mutation',
  };
}
