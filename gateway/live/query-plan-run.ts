import { executeQueryPlan, type buildOperationContext, type GraphQLDataSource } from '@apollo/gateway';
import type { QueryPlan } from '@apollo/query-planner';
import type { FormattedExecutionResult, GraphQLFormattedError } from 'graphql';
import type { Logger } from '../../lib/logger.ts';
import type { GatewayContext } from '../gateway-context.ts';
import type { PlannedSupergraph } from './subscription-planner.ts';

/**
 * One run of @apollo/gateway's executeQueryPlan outside Apollo Server's pipeline, as the live paths make them (a
 * subscription's event, a @defer block): the request context it reads (variables, the caller's context the data sources
 * take, a logger, empty metrics, a cache policy nobody reads), its result with errors formatted as the gateway's replies
 * carry them.
 */

/** The data sources of one run, by subgraph name, as `source` gives them (the gateway's own, or wrappers of them). */
export function serviceMapOf(source: (name: string) => GraphQLDataSource | undefined): Record<string, GraphQLDataSource> {
  return new Proxy({} as Record<string, GraphQLDataSource>, { get: (_target, name) => source(String(name)) });
}

export interface QueryPlanRun {
  queryPlan: QueryPlan;
  serviceMap: Record<string, GraphQLDataSource>;
  operationContext: ReturnType<typeof buildOperationContext>;
  supergraph: PlannedSupergraph;
  /** The operation as the client sent it (what executeQueryPlan's variable usages read). */
  request: { query: string; operationName: string | undefined; variables: Record<string, unknown> };
  context: GatewayContext;
  logger: Logger;
  format(error: unknown): GraphQLFormattedError;
}

export async function runQueryPlan(run: QueryPlanRun): Promise<FormattedExecutionResult> {
  const requestContext = {
    request: { ...run.request, http: undefined },
    context: run.context,
    logger: run.logger,
    metrics: {},
    overallCachePolicy: { restrict: () => undefined, replace: () => undefined, policyIfCacheable: () => null },
  };
  const result = await executeQueryPlan(
    run.queryPlan,
    run.serviceMap,
    requestContext as unknown as Parameters<typeof executeQueryPlan>[2],
    run.operationContext,
    run.supergraph.supergraphSchema,
    run.supergraph.federationApiSchema,
  );
  return {
    ...(result.data !== undefined ? { data: result.data } : {}),
    ...(result.errors ? { errors: result.errors.map((error) => run.format(error)) } : {}),
    ...(result.extensions && Object.keys(result.extensions).length > 0 ? { extensions: result.extensions } : {}),
  };
}
