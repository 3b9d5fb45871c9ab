import type { ApolloServerOptionsWithGateway } from '@apollo/server';
import { collectExtensions, type GatewayContext } from '../gateway-context.ts';
import { variablesKey, type FetchCache } from './fetch-cache.ts';
import type { RecordingContext, ResponseRecord } from './response-record.ts';

/**
 * The response level of the fetch cache (issue 39): a whole query's data kept, so that a repeated read is answered
 * without planning, fetching or shaping — the gateway's work on a deep read's ~1,900 objects is most of what the fetch
 * level leaves (bench/README.md, "Fetch cache").
 *
 * A response is kept only when every fetch of its execution went through the fetch cache and could have been kept
 * there, or was a social root call that is kept but for its rate-limit usage: the same hints, viewer facts and tags
 * decide, on the same store, so nothing is kept here that the fetch level would not keep, and every change that would
 * evict one of its fetches evicts it (its tags are the union of theirs; `since` is the log position at its start).
 *
 * Its key is the operation and variables with the viewer's facts of each subgraph its fetches ran for — those facts are
 * worked out again for every request (a revoked token is refused, never served). A social root call kept here is still
 * a call: a hit is admitted by the call's subgraph as a run would be, its usage answered fresh, and a refused admission
 * runs the operation (which answers the rate-limit error in the subgraph's words).
 *
 * Local to the process: with Redis, the fetch level is what a fleet shares; a response is reassembled from it here.
 */

type GatewayInterface = ApolloServerOptionsWithGateway<object>['gateway'];
type GatewayExecutor = NonNullable<Awaited<ReturnType<GatewayInterface['load']>>['executor']>;
type GatewayRequestContext = Parameters<GatewayExecutor>[0];
type GatewayResult = Awaited<ReturnType<GatewayExecutor>>;

/** What the response level needs of each subgraph: whose reply it is, and how a kept root call is counted. */
export interface ResponseCacheSubgraph {
  /** The viewer's facts the subgraph's rules read (as its fetch cache key); undefined when there is no valid viewer. */
  viewer(context: GatewayContext): Promise<string | undefined>;
  /**
   * Counts a call the response level answers, as the subgraph counts one it runs: the extensions its reply would carry
   * (the rate-limit usage), and `finish` once it is answered; undefined when the call is refused.
   */
  admitCall?(
    context: GatewayContext,
    objectId: string | undefined,
  ): Promise<{ extensions: Record<string, unknown> | undefined; finish(): void } | undefined>;
}

/**
 * The data of a result the response level answered, as JSON text: a server that writes the reply itself (the fast
 * lane, stand-ins/operation-fast-lane.ts) splices it in instead of serialising `data` — which is parsed only when read.
 */
export const KEPT_DATA_TEXT = Symbol('tributary.gateway.keptDataText');

/** The kept data's JSON text of a result the response level answered; undefined for any other result. */
export function keptDataText(result: object): string | undefined {
  return (result as { [KEPT_DATA_TEXT]?: string })[KEPT_DATA_TEXT];
}

/**
 * A kept response, as its entry's text holds it: this (without the data) as JSON, a newline (JSON text has none of its
 * own), then the data's JSON — which a hit hands on as text.
 */
interface KeptResponse {
  calls: { subgraph: string; objectId: string | undefined }[];
  maxAge: number;
  scope: 'PUBLIC' | 'PRIVATE';
}

/** Subgraph lists (the fetches' subgraphs, in order) remembered per operation, at most this many of each. */
const SHAPES_PER_OPERATION = 4;
/** Operations whose shapes are remembered (oldest out first). */
const OPERATIONS = 1_000;

export interface ResponseCaching {
  /** The gateway with its executor answering from the response level first. */
  gateway(real: GatewayInterface): GatewayInterface;
}

export function createResponseCaching(cache: FetchCache, subgraphs: ReadonlyMap<string, ResponseCacheSubgraph>): ResponseCaching {
  const shapes = new Map<string, string[][]>();
  // Counts supergraphs loaded: a response kept under one is never looked up under the next (its plan may differ).
  let generation = 0;

  const rememberShape = (operationKey: string, shape: string[]) => {
    const known = shapes.get(operationKey) ?? [];
    if (known.some((other) => other.join('\n') === shape.join('\n'))) return;
    shapes.delete(operationKey);
    if (shapes.size >= OPERATIONS) shapes.delete(shapes.keys().next().value!);
    shapes.set(operationKey, [shape, ...known].slice(0, SHAPES_PER_OPERATION));
  };

  const viewersOf = async (shape: readonly string[], context: GatewayContext): Promise<string[] | undefined> => {
    const viewers: string[] = [];
    for (const name of shape) {
      const viewer = await subgraphs.get(name)?.viewer(context);
      if (viewer === undefined) return undefined;
      viewers.push(viewer);
    }
    return viewers;
  };

  /** The kept response answered, its calls admitted; undefined when one is refused (the operation then runs). */
  const answer = async (entry: string, requestContext: GatewayRequestContext): Promise<GatewayResult | undefined> => {
    const split = entry.indexOf('\n');
    const kept = JSON.parse(entry.slice(0, split)) as KeptResponse;
    const dataText = entry.slice(split + 1);
    const context = requestContext.context as GatewayContext;
    const admitted: { finish(): void }[] = [];
    for (const call of kept.calls) {
      const admission = await subgraphs.get(call.subgraph)?.admitCall?.(context, call.objectId);
      if (!admission) return undefined;
      collectExtensions(context, admission.extensions);
      admitted.push(admission);
    }
    const policy = requestContext.overallCachePolicy as { restrict?(hint: { maxAge: number; scope: 'PUBLIC' | 'PRIVATE' }): void };
    policy.restrict?.({ maxAge: kept.maxAge, scope: kept.scope });
    for (const call of admitted) call.finish();
    let data: Record<string, unknown> | undefined;
    return {
      get data() {
        return (data ??= JSON.parse(dataText) as Record<string, unknown>);
      },
      [KEPT_DATA_TEXT]: dataText,
    } as GatewayResult;
  };

  const keep = (key: string, record: ResponseRecord, result: GatewayResult, requestContext: GatewayRequestContext, since: string) => {
    const policy = requestContext.overallCachePolicy as { maxAge?: number; scope?: 'PUBLIC' | 'PRIVATE' };
    const extensions = result.extensions ? Object.keys(result.extensions) : [];
    if (record.spoiled || record.fetches.length === 0 || result.errors || !result.data || extensions.length > 0) return;
    if (!((policy.maxAge ?? 0) > 0)) return;
    const tags = [...new Set(record.fetches.flatMap((fetch) => fetch.tags))];
    const kept: KeptResponse = {
      calls: record.fetches.flatMap((fetch) => (fetch.call ? [{ subgraph: fetch.subgraph, objectId: fetch.call.objectId }] : [])),
      maxAge: policy.maxAge!,
      scope: policy.scope ?? 'PUBLIC',
    };
    cache.keepResponse(key, `${JSON.stringify(kept)}\n${JSON.stringify(result.data)}`, tags, kept.maxAge * 1000, since);
  };

  const execute = async (executor: GatewayExecutor, requestContext: GatewayRequestContext): Promise<GatewayResult> => {
    const context = requestContext.context as Partial<GatewayContext> & RecordingContext;
    const operation = requestContext.operation;
    if (operation?.operation !== 'query' || !cache.serving() || context.responseRecord || !context.responseExtensions) {
      return executor(requestContext);
    }
    const operationKey = `${generation}\n${requestContext.queryHash}\n${requestContext.operationName ?? ''}`;
    const baseKey = `response\n${operationKey}\n${variablesKey(requestContext.request.variables)}`;
    for (const shape of shapes.get(operationKey) ?? []) {
      const viewers = await viewersOf(shape, context as GatewayContext);
      if (!viewers) continue;
      const text = cache.keptResponse(`${baseKey}\n${shape.join(',')}\n${viewers.join('\n')}`);
      if (text === undefined) continue;
      const answered = await answer(text, requestContext);
      if (answered) return answered;
      break;
    }
    const since = cache.position();
    const record: ResponseRecord = { fetches: [], spoiled: false };
    context.responseRecord = record;
    let result: GatewayResult;
    try {
      result = await executor(requestContext);
    } finally {
      context.responseRecord = undefined;
    }
    // One viewer per subgraph (a request's facts do not change between its fetches), in a fixed order: parallel fetches
    // are recorded as they end.
    const bySubgraph = new Map(record.fetches.map((fetch) => [fetch.subgraph, fetch.viewer]));
    const shape = [...bySubgraph.keys()].sort();
    const viewers = shape.map((name) => bySubgraph.get(name)!);
    if (!record.spoiled && shape.length > 0) {
      keep(`${baseKey}\n${shape.join(',')}\n${viewers.join('\n')}`, record, result, requestContext, since);
      rememberShape(operationKey, shape);
    }
    return result;
  };

  return {
    gateway: (real) => ({
      onSchemaLoadOrUpdate: (callback) =>
        real.onSchemaLoadOrUpdate((schemaContext) => {
          // A new supergraph may plan an operation otherwise: what was kept under the old one is no longer looked up.
          generation += 1;
          shapes.clear();
          callback(schemaContext);
        }),
      load: async (options) => {
        const loaded = await real.load(options);
        const executor = loaded.executor;
        if (!executor) return loaded;
        return { ...loaded, executor: (requestContext) => execute(executor, requestContext) };
      },
      stop: () => real.stop(),
    }),
  };
}
