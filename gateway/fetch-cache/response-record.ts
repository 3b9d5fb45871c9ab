import type { FragmentDefinitionNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { resultTags } from './result-tags.ts';

/*
 * What an execution's fetches tell the response level (response-cache.ts) while it runs: fetchThroughCache
 * (fetch-through-cache.ts) notes each one, in both topologies.
 */

/** One fetch of an execution, as the fetch cache saw it (fetchThroughCache notes it). */
export interface RecordedFetch {
  subgraph: string;
  viewer: string;
  tags: readonly string[];
  /** A social root call: kept here but admitted again at each hit (the object its call was about). */
  call?: { objectId: string | undefined };
}

/** What an execution's fetches told the response level; `spoiled` once one of them cannot be kept. */
export interface ResponseRecord {
  fetches: RecordedFetch[];
  spoiled: boolean;
}

/**
 * A gateway request's context while the response level runs an operation it may keep (set on the context object itself,
 * which Apollo Server's shallow copy keeps; not a field of GatewayContext: the gateway's context knows nothing of this folder).
 */
export interface RecordingContext {
  responseRecord?: ResponseRecord | undefined;
}

/** Notes a fetch of the execution `context` belongs to, when the response level is recording it. */
export function recordFetch(
  context: RecordingContext,
  fetch:
    | {
        subgraph: string;
        viewer: string;
        schema: GraphQLSchema;
        operation: OperationDefinitionNode;
        fragments: ReadonlyMap<string, FragmentDefinitionNode>;
        variables: Readonly<Record<string, unknown>> | undefined;
        data: Record<string, unknown>;
        call?: { objectId: string | undefined };
      }
    | 'spoiled',
): void {
  const record = context.responseRecord;
  if (!record || record.spoiled) return;
  if (fetch === 'spoiled') {
    record.spoiled = true;
    return;
  }
  // Tagged now: the gateway's executor merges the other subgraphs' fields into the objects it was handed.
  const tags = resultTags(fetch.schema, fetch.operation, fetch.fragments, fetch.variables, fetch.data);
  if (!tags || tags.length === 0) {
    record.spoiled = true;
    return;
  }
  record.fetches.push({ subgraph: fetch.subgraph, viewer: fetch.viewer, tags, ...(fetch.call && { call: fetch.call }) });
}
