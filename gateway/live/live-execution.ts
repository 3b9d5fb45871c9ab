import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { withoutSuggestion } from '../../lib/graphql/graphql-suggestion-masking.ts';
import type { PlannedSupergraph, SubscriptionPlan } from './subscription-planner.ts';
import { executeDeferred } from './defer-execution.ts';
import { CredentialPlaces } from './credential-places.ts';
import { prepareLive } from './live-prepare.ts';
import { runSubscription } from './live-subscription.ts';

/**
 * Runs subscriptions through the federated gateway (issue 27): the query planner's `SubscriptionNode { primary, rest }`
 * executed as Apollo Router and Hive Gateway execute it — `primary` subscribes on the subgraph that owns the field (a
 * stream of results), and each result is completed by `rest`, the fetches of the fields other subgraphs own, through
 * @apollo/gateway's own executeQueryPlan, so an event is shaped, nulled and its errors placed exactly as a query's
 * would be.
 *
 * The event's primary result enters executeQueryPlan as the answer to the plan's first fetch (the plan `Sequence
 * [primary, rest]`, the owning subgraph's data source answering that one fetch with the event): executeQueryPlan takes
 * no initial data, and this way the first fetch's merging, rewrites and error paths are its own.
 *
 * Every event runs with a fresh gateway context (fresh subgraph contexts: the token read again, nothing cached from an
 * earlier event).
 *
 * This module holds the live door's types and wires the executor; the work is done by named functions: live-prepare.ts
 * (parse, validate, coerce, check, plan), live-subscription.ts (one subscription's run), defer-execution.ts (@defer).
 */

export * from './live-types.ts';
import type { LiveExecutor, LiveExecutorDeps, LiveHeld, LiveRequest, PreparedLive } from './live-types.ts';

export function createLiveExecutor(deps: LiveExecutorDeps): LiveExecutor {
  const format = (error: unknown): GraphQLFormattedError => formatLiveError(deps, error);
  const places = new CredentialPlaces(deps.perToken);
  const perTokenRefusal = () =>
    new GraphQLError(`At most ${deps.perToken} subscriptions per credential are open at once.`, { extensions: { code: 'BAD_REQUEST' } });
  const plans = new WeakMap<PreparedLive, { supergraph: PlannedSupergraph; plan: SubscriptionPlan }>();
  const prepareState = {
    deps,
    checked: new WeakMap(),
    plans,
    credentialFull: (headers: LiveHeld['headers']) => places.full(headers),
    perTokenRefusal,
  };
  const runState = { deps, format, places, plans, perTokenRefusal };
  const prepare = (request: LiveRequest) => prepareLive(prepareState, request);
  const run = (prepared: PreparedLive) => runSubscription(runState, prepared);
  return {
    prepare,
    run,
    format,
    defer: (prepared) =>
      prepared.operation.operation !== 'query'
        ? undefined
        : executeDeferred(
            deps.planner.current(),
            {
              document: prepared.document,
              operation: prepared.operation,
              variables: prepared.held.variables,
              context: prepared.held.createContext(),
            },
            { dataSource: deps.dataSource, format, logger: deps.logger },
          ),
    async subscribe(request) {
      const prepared = prepare(request);
      return 'refused' in prepared ? { errors: prepared.refused.map(format) } : run(prepared);
    },
  };
}

/** An error as the gateway's replies carry it: Apollo Server's default code, then its formatError, suggestions masked when asked. */
function formatLiveError(deps: LiveExecutorDeps, error: unknown): GraphQLFormattedError {
  const graphqlError =
    error instanceof GraphQLError
      ? error
      : new GraphQLError(error instanceof Error ? error.message : String(error), {
          originalError: error instanceof Error ? error : undefined,
        });
  const json = graphqlError.toJSON();
  const formatted =
    json.extensions?.code === undefined ? { ...json, extensions: { ...json.extensions, code: 'INTERNAL_SERVER_ERROR' } } : json;
  const answered = deps.formatError(formatted, graphqlError);
  return deps.hideSuggestions ? { ...answered, message: withoutSuggestion(answered.message) } : answered;
}
