import { operationFromDocument, Supergraph, type Schema } from '@apollo/federation-internals';
import { QueryPlanner, type FetchNode, type PlanNode, type QueryPlan } from '@apollo/query-planner';
import type { DocumentNode, GraphQLSchema } from 'graphql';

/**
 * Library copy `subscription-planner` (lib/stand-ins/stand-in-registry.ts: @apollo/gateway's planner construction, held
 * to the gateway's own planner by test/unit/subscription-planner.comparison.test.ts).
 *
 * Plans subscriptions, and queries with @defer, over the supergraph serving (issue 27). @apollo/gateway plans a subscription — its query planner
 * builds `SubscriptionNode { primary, rest }` — but its executor refuses to run one, and it exposes neither the planner
 * nor the plan. So this module keeps a planner of its own for the supergraph text the gateway loaded (handed over by
 * ApolloGateway.onSchemaLoadOrUpdate), built with the same public constructor @apollo/gateway 2.14.4 uses
 * (`new QueryPlanner(Supergraph.build(sdl))`, dist/index.js), on first use and again after each reload.
 *
 * @apollo/query-planner's API takes @apollo/federation-internals' Supergraph and Operation, which is why this one file
 * of the gateway loads that package (eslint.config.js names it).
 */

/** A subscription's plan: `primary` subscribes on the owning subgraph; `rest` completes each event from the others. */
export interface SubscriptionPlan {
  primary: FetchNode;
  rest: PlanNode | undefined;
}

/** What the executor needs of the supergraph serving: its schemas for result shaping, and the plans. */
export interface PlannedSupergraph {
  /** The supergraph's text, which identifies it (a reload to the same text is the same supergraph). */
  sdl: string;
  apiSchema: GraphQLSchema;
  /** The API schema as @apollo/gateway's executeQueryPlan takes it (federation-internals' Schema). */
  federationApiSchema: Schema;
  supergraphSchema: GraphQLSchema;
  /** Plans a validated subscription operation; throws what the planner throws for one it cannot plan. */
  plan(document: DocumentNode, operationName: string | undefined): SubscriptionPlan;
  /** Plans a validated query with @defer honoured (a planner with incremental delivery on, built on first use). */
  planDefer(document: DocumentNode, operationName: string | undefined): QueryPlan;
}

export interface SubscriptionPlanner {
  /** The supergraph the gateway serves now (built on first call after a load or reload). */
  current(): PlannedSupergraph;
  /** Records the supergraph the gateway loaded (its onSchemaLoadOrUpdate callback). */
  loaded(sdl: string): void;
}

/**
 * Plans kept per supergraph: subscription documents are few and repeated. Only plans of documents up to
 * PLAN_CACHE_MAX_LENGTH characters are kept (a plan holds its document's text, and its fetches' texts, several times
 * over): a client's long documents, each different, cannot fill the cache with megabytes; theirs are made per request.
 */
const PLAN_CACHE_SIZE = 200;
const PLAN_CACHE_MAX_LENGTH = 16_384;

export function createSubscriptionPlanner(): SubscriptionPlanner {
  let sdl: string | undefined;
  let built: PlannedSupergraph | undefined;

  function build(text: string): PlannedSupergraph {
    const supergraph = Supergraph.build(text);
    const apiSchema = supergraph.apiSchema();
    const planner = new QueryPlanner(supergraph);
    const plans = new Map<string, SubscriptionPlan>();
    let deferPlanner: QueryPlanner | undefined;
    const deferPlans = new Map<string, QueryPlan>();
    return {
      sdl: text,
      // With @defer declared, which @apollo/gateway's API schema leaves out: the live door validates deferred queries.
      apiSchema: apiSchema.toGraphQLJSSchema({ includeDefer: true }),
      federationApiSchema: apiSchema,
      supergraphSchema: supergraph.schema.toGraphQLJSSchema(),
      plan(document, operationName) {
        const key = `${operationName ?? ''}\n${printKey(document)}`;
        const cached = plans.get(key);
        if (cached) return cached;
        const operation = operationFromDocument(apiSchema, document, operationName ? { operationName } : {});
        const queryPlan = planner.buildQueryPlan(operation);
        const node = queryPlan.node;
        if (node?.kind !== 'Subscription') throw new Error('not a subscription operation');
        const plan = { primary: node.primary, rest: node.rest };
        if (key.length <= PLAN_CACHE_MAX_LENGTH) {
          if (plans.size >= PLAN_CACHE_SIZE) plans.delete(plans.keys().next().value!);
          plans.set(key, plan);
        }
        return plan;
      },
      planDefer(document, operationName) {
        const key = `${operationName ?? ''}\n${printKey(document)}`;
        const cached = deferPlans.get(key);
        if (cached) return cached;
        deferPlanner ??= new QueryPlanner(supergraph, { incrementalDelivery: { enableDefer: true } });
        const plan = deferPlanner.buildQueryPlan(operationFromDocument(apiSchema, document, operationName ? { operationName } : {}));
        if (key.length <= PLAN_CACHE_MAX_LENGTH) {
          if (deferPlans.size >= PLAN_CACHE_SIZE) deferPlans.delete(deferPlans.keys().next().value!);
          deferPlans.set(key, plan);
        }
        return plan;
      },
    };
  }

  return {
    current() {
      if (sdl === undefined) throw new Error('no supergraph loaded yet');
      if (built?.sdl !== sdl) built = build(sdl);
      return built;
    },
    loaded(text) {
      sdl = text;
    },
  };
}

/** The document's source text when it has one (parsed from a string), else its printed form. */
function printKey(document: DocumentNode): string {
  return document.loc?.source.body ?? JSON.stringify(document);
}
