import { buildOperationContext, type GraphQLDataSource } from '@apollo/gateway';
import type { PlanNode, QueryPlan } from '@apollo/query-planner';
import {
  GraphQLError,
  Kind,
  parse,
  print,
  specifiedRules,
  validate,
  type FormattedExecutionResult,
  type GraphQLFormattedError,
  type OperationDefinitionNode,
} from 'graphql';
import { isAsyncIterable, mapAsyncIterator } from '../../lib/graphql/map-async-iterator.ts';
import { rootArgumentGiven } from '../../lib/graphql/root-field.ts';
import type { CredentialPlaces } from './credential-places.ts';
import {
  canSubscribe,
  type LiveExecutorDeps,
  type LiveHeld,
  type LiveOutcome,
  type LiveSubgraphResult,
  type PreparedLive,
  type SubscribingDataSource,
} from './live-types.ts';
import { runQueryPlan, serviceMapOf } from './query-plan-run.ts';
import type { PlannedSupergraph, SubscriptionPlan } from './subscription-planner.ts';

/**
 * One subscription run (live-execution.ts's `run`): `primary` subscribed on the owning subgraph, each of its results
 * completed by `rest` through executeQueryPlan — the event's primary result entering as the answer to the plan's first
 * fetch (`Sequence [primary, rest]`: executeQueryPlan takes no initial data, and this way the first fetch's merging,
 * rewrites and error paths are its own) — under a fresh gateway context per event, following supergraph reloads.
 */

export interface RunState {
  deps: LiveExecutorDeps;
  format(error: unknown): GraphQLFormattedError;
  places: CredentialPlaces;
  plans: WeakMap<PreparedLive, { supergraph: PlannedSupergraph; plan: SubscriptionPlan }>;
  perTokenRefusal(): GraphQLError;
}

export async function runSubscription(state: RunState, prepared: PreparedLive): Promise<LiveOutcome> {
  const { deps } = state;
  const refusal = (error: GraphQLError): FormattedExecutionResult => ({ errors: [state.format(error)] });
  const planned = state.plans.get(prepared);
  if (!planned) return refusal(new GraphQLError('Not a subscription operation.', { extensions: { code: 'BAD_REQUEST' } }));
  const primarySource = deps.dataSource(planned.plan.primary.serviceName);
  if (!canSubscribe(primarySource)) {
    return refusal(
      new GraphQLError(`Subgraph ${planned.plan.primary.serviceName} cannot serve subscriptions.`, {
        extensions: { code: 'SERVICE_UNAVAILABLE' },
      }),
    );
  }
  const { held } = prepared;
  // The credential's place is taken before the subgraph is asked (and given back if no stream starts).
  const giveBack = state.places.take(held.headers);
  if (!giveBack) return refusal(state.perTokenRefusal());
  const started = await subscribePrimary(primarySource, planned.plan, held).catch((error: unknown) => {
    giveBack();
    throw error;
  });
  const run = new SubscriptionRun(state, prepared, planned.supergraph, planned.plan);
  // The stream could not start (the subgraph refused: unknown object, no permission, a bad cursor): its errors, as a
  // query's would be placed.
  if (!isAsyncIterable(started)) {
    giveBack();
    return (await run.complete(started)) ?? { data: null };
  }
  if (rootArgumentGiven(prepared.operation, 'after', held.variables)) deps.metrics.observeSubscriptionResume(held.transport);
  const results = counted(
    state,
    mapAsyncIterator(started, async (primary) => {
      const result = await run.complete(primary);
      // The error that ended it is the last result: the subgraph's stream is closed behind it.
      if (run.ended) setImmediate(() => void results.return?.());
      return result;
    }),
    held,
    giveBack,
  );
  return results;
}

/** The subscription fetch on the owning subgraph, with the variables it uses. */
function subscribePrimary(source: SubscribingDataSource, plan: SubscriptionPlan, held: LiveHeld) {
  const variables: Record<string, unknown> = {};
  for (const name of plan.primary.variableUsages ?? []) if (held.variables[name] !== undefined) variables[name] = held.variables[name];
  return source.subscribe({ query: plan.primary.operation, operationName: plan.primary.operationName, variables }, held.createContext());
}

/** Counts an open subscription (its place taken, the metrics) until it ends. */
function counted(
  state: RunState,
  results: AsyncIterableIterator<FormattedExecutionResult>,
  held: LiveHeld,
  giveBack: () => void,
): AsyncIterableIterator<FormattedExecutionResult> {
  state.deps.metrics.observeSubscriptionOpen(held.transport, 1);
  let ended = false;
  return mapAsyncIterator(
    results,
    (result) => {
      state.deps.metrics.observeSubscriptionEvent(held.transport);
      return result;
    },
    () => {
      if (ended) return;
      ended = true;
      giveBack();
      state.deps.metrics.observeSubscriptionOpen(held.transport, -1);
    },
  );
}

/** How one supergraph runs the subscription's events (made again after a reload it follows). */
interface ServingPlan {
  supergraph: PlannedSupergraph;
  primary: SubscriptionPlan['primary'];
  /** The subgraph is asked exactly what the client asks: an error-free event is the result as it is. */
  direct: boolean;
  operationContext: ReturnType<typeof buildOperationContext>;
  queryPlan: QueryPlan;
}

/** A running subscription: completes each event of its primary stream, following the supergraph serving. */
class SubscriptionRun {
  /** Set once the subscription ended itself (its supergraph no longer runs it): later events are dropped. */
  ended = false;
  private serving: ServingPlan;

  constructor(
    private readonly state: RunState,
    private readonly prepared: PreparedLive,
    supergraph: PlannedSupergraph,
    plan: SubscriptionPlan,
  ) {
    this.serving = this.planFor(supergraph, plan);
  }

  /** One event of the primary stream, completed by the rest of the plan: the result the client gets. */
  async complete(primary: LiveSubgraphResult): Promise<FormattedExecutionResult | undefined> {
    if (this.ended) return undefined;
    const reloaded = this.followReload();
    if (reloaded) {
      this.ended = true;
      return { errors: [this.state.format(reloaded)] };
    }
    // The subgraph was asked exactly what the client asked, and answered without an error: its data is the result, as
    // executeQueryPlan would shape it (nothing to drop, nothing nulled, no path to rewrite).
    if (this.serving.direct && !primary.errors && primary.data) return { data: primary.data };
    const { supergraph, operationContext, queryPlan } = this.serving;
    const { held } = this.prepared;
    return runQueryPlan({
      queryPlan,
      serviceMap: this.serviceMapAnswering(primary),
      operationContext,
      supergraph,
      request: { query: held.query, operationName: this.prepared.operation.name?.value, variables: held.variables },
      context: held.createContext(),
      logger: this.state.deps.logger,
      format: this.state.format,
    });
  }

  /**
   * The data sources of one event's run: the primary fetch's answer is the event (the first fetch to that subgraph: the
   * plan is `Sequence [primary, rest]`); later fetches of `rest`, to any subgraph, go to the data sources.
   */
  private serviceMapAnswering(primary: LiveSubgraphResult): Record<string, GraphQLDataSource> {
    let eventTaken = false;
    const primaryName = this.serving.primary.serviceName;
    return serviceMapOf((name) => {
      const source = this.state.deps.dataSource(name);
      if (name !== primaryName || eventTaken) return source;
      return {
        process: async (options: Parameters<GraphQLDataSource['process']>[0]) => {
          if (eventTaken) return source!.process(options);
          eventTaken = true;
          return { ...primary, ...(primary.errors ? { errors: primary.errors.map((error) => ({ ...error })) } : {}) };
        },
      };
    });
  }

  /**
   * After a supergraph reload, the subscription goes on under the new supergraph while its document still validates
   * and plans to the same subgraph fetch (the stream already open); otherwise it ends with an error that says so.
   */
  private followReload(): GraphQLError | undefined {
    const { deps } = this.state;
    const serving = deps.planner.current();
    if (serving === this.serving.supergraph) return undefined;
    const changed = (why: string) =>
      new GraphQLError(
        `The supergraph changed and this subscription no longer runs on it (${why}). Resubscribe with after = the last cursor received.`,
        { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } },
      );
    const { document } = this.prepared;
    const errors = validate(serving.apiSchema, document, [...specifiedRules, ...deps.validationRules]);
    if (errors.length > 0) return changed(errors[0]!.message);
    let servingPlan: SubscriptionPlan;
    try {
      servingPlan = serving.plan(document, this.prepared.operation.name?.value);
    } catch (error) {
      return changed(error instanceof Error ? error.message : String(error));
    }
    const { primary } = this.serving;
    if (servingPlan.primary.serviceName !== primary.serviceName || servingPlan.primary.operation !== primary.operation) {
      return changed('its fields now come from another subgraph fetch');
    }
    this.serving = this.planFor(serving, servingPlan);
    return undefined;
  }

  private planFor(supergraph: PlannedSupergraph, plan: SubscriptionPlan): ServingPlan {
    const operationName = this.prepared.operation.name?.value;
    return {
      supergraph,
      primary: plan.primary,
      direct: !plan.rest && !hidesAnything(supergraph) && asksWhatClientAsks(plan.primary, this.prepared.operation),
      operationContext: buildOperationContext({
        schema: supergraph.apiSchema,
        operationDocument: this.prepared.document,
        ...(operationName ? { operationName } : {}),
      }),
      queryPlan: {
        kind: 'QueryPlan',
        node: plan.rest ? { kind: 'Sequence', nodes: [plan.primary, plan.rest] } : (plan.primary satisfies PlanNode),
      },
    };
  }
}

/**
 * Whether a supergraph hides parts of its subgraphs from clients (@inaccessible): a subgraph's answer may then hold an
 * enum value the API schema does not have, which executeQueryPlan's shaping removes — no event skips it there.
 */
const hiding = new WeakMap<PlannedSupergraph, boolean>();
function hidesAnything(supergraph: PlannedSupergraph): boolean {
  let hides = hiding.get(supergraph);
  if (hides === undefined) hiding.set(supergraph, (hides = supergraph.sdl.includes('@inaccessible')));
  return hides;
}

/**
 * Whether a plan's primary fetch selects exactly what the client's operation selects (same fields, aliases, arguments
 * and directives, in the same order): a subscription whose fields are all the owning subgraph's, which the planner sends
 * on unchanged. Remembered per primary node and operation (the plan is cached; the document is the door's checked one).
 */
const sameSelection = new WeakMap<object, WeakMap<OperationDefinitionNode, boolean>>();
function asksWhatClientAsks(primary: SubscriptionPlan['primary'], operation: OperationDefinitionNode): boolean {
  let byOperation = sameSelection.get(primary);
  if (!byOperation) sameSelection.set(primary, (byOperation = new WeakMap()));
  let same = byOperation.get(operation);
  if (same === undefined) {
    try {
      const fetched = parse(primary.operation, { noLocation: true }).definitions.find(
        (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
      );
      same =
        fetched !== undefined &&
        operation.selectionSet.selections.every((selection) => selection.kind === Kind.FIELD) &&
        print(fetched.selectionSet) === print(operation.selectionSet);
    } catch {
      same = false;
    }
    byOperation.set(operation, same);
  }
  return same;
}
