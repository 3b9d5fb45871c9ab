import { formatGraphTimestamp } from '../../lib/social-graph/graph-time.ts';
import { serializeFields } from './graph-fields.ts';
import { buildPaging, graphPage, type GraphPage } from './graph-paging.ts';
import type { PlanField } from './social-operation-builder.ts';
import { isRecord } from '../../lib/is-record.ts';
import type { SocialAccountInsightsQuery } from './generated/operations.ts';

/**
 * Gives a GraphQL result back its Graph shape, walking the plan the builder made: timestamps in the Graph format, edges as
 * `{data, paging}` with absolute next/previous links, and fields without a value left out (the platform omits them:
 * `parent_id` exists only on replies, `user` only on the app user's own comments).
 */

export interface Connection {
  nodes: Record<string, unknown>[];
  pageInfo: { startCursor: string | null; endCursor: string | null; hasNextPage: boolean; hasPreviousPage: boolean };
}

export interface RenderLinks {
  /** The request's own absolute URL: the links of a top-level edge repeat it. */
  requestUrl: URL;
  /**
   * The address of a nested edge's own path (`/<version>/<parent id>/<edge>`) with the request's access_token, for the links
   * of an edge inside a node (§3.2: links are complete URLs that repeat access_token, limit, fields and the cursor).
   */
  edgeUrl(parentId: string, edge: string): URL;
}

export function renderNode(plan: readonly PlanField[], value: Record<string, unknown>, links: RenderLinks): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const parentId = typeof value.id === 'string' ? value.id : undefined;
  for (const field of plan) {
    const raw = value[field.key];
    if (raw === null || raw === undefined) continue;
    switch (field.spec.kind) {
      case 'scalar':
        out[field.key] = field.spec.format === 'timestamp' && typeof raw === 'string' ? formatGraphTimestamp(new Date(raw)) : raw;
        break;
      case 'object':
        out[field.key] = withoutNulls(objectOf(raw, field.key));
        break;
      case 'node':
      case 'parameterised':
        out[field.key] = renderNode(field.children!, objectOf(raw, field.key), links);
        break;
      case 'list':
        out[field.key] = { data: objectsOf(raw, field.key).map((item) => renderNode(field.children!, item, links)) };
        break;
      case 'edge':
        out[field.key] = renderEdge(
          field,
          connectionOf(raw, field.key),
          links,
          parentId === undefined ? undefined : () => nestedUrl(field, parentId, links),
        );
        break;
    }
  }
  return out;
}

/**
 * An edge page. `url` is the address its links repeat: the request's own (top-level edge) or the edge's path (nested), made
 * only when the page has a link to give — most nested edges of a deep read (a comment's two replies) have none, and
 * building their URLs was a tenth of such a read's rendering.
 */
export function renderEdge(
  field: PlanField,
  connection: Connection,
  links: RenderLinks,
  url: (() => URL) | undefined,
): GraphPage<Record<string, unknown>> {
  const data = connection.nodes.map((node) => renderNode(field.children!, node, links));
  const { pageInfo } = connection;
  const hasPrevious = pageInfo.hasPreviousPage && pageInfo.startCursor !== null;
  const hasNext = pageInfo.hasNextPage && pageInfo.endCursor !== null;
  const cursorsOnly = field.cursorsOnly === true || url === undefined;
  const paging = buildPaging({
    // Read only for a link; a page without one needs no address.
    requestUrl: url && !cursorsOnly && (hasPrevious || hasNext) ? url() : links.requestUrl,
    before: pageInfo.startCursor ?? undefined,
    after: pageInfo.endCursor ?? undefined,
    hasPrevious,
    hasNext,
    cursorsOnly,
  });
  return graphPage(data, paging);
}

function nestedUrl(field: PlanField, parentId: string, links: RenderLinks): URL {
  const url = links.edgeUrl(parentId, field.name);
  if (field.selection) url.searchParams.set('fields', serializeFields(field.selection));
  if (field.limit !== undefined) url.searchParams.set('limit', field.limit);
  for (const [name, value] of field.linkParameters ?? []) url.searchParams.set(name, value);
  return url;
}

function withoutNulls(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== null && inner !== undefined));
}

/*
 * A built read's result is untyped (its selection follows the request): each value the plan renders is checked to have
 * the shape the plan selected before it is read as one. A mismatch is the gateway's fault, never the request's.
 */

function objectOf(value: unknown, key: string): Record<string, unknown> {
  if (isRecord(value)) return value;
  throw new Error(`the gateway answered ${key} with something other than an object`);
}

function objectsOf(value: unknown, key: string): Record<string, unknown>[] {
  if (Array.isArray(value) && value.every(isRecord)) return value;
  throw new Error(`the gateway answered ${key} with something other than a list of objects`);
}

/** An edge's page (`nodes` and `pageInfo`) of a built read, checked to be one. */
export function connectionOf(value: unknown, key: string): Connection {
  if (isRecord(value) && isRecord(value.pageInfo)) {
    const { nodes, pageInfo } = value;
    const { startCursor, endCursor, hasNextPage, hasPreviousPage } = pageInfo;
    if (
      Array.isArray(nodes) &&
      nodes.every(isRecord) &&
      isCursor(startCursor) &&
      isCursor(endCursor) &&
      typeof hasNextPage === 'boolean' &&
      typeof hasPreviousPage === 'boolean'
    ) {
      return { nodes, pageInfo: { startCursor, endCursor, hasNextPage, hasPreviousPage } };
    }
  }
  throw new Error(`the gateway answered the edge ${key} with something other than a page`);
}

function isCursor(value: unknown): value is string | null {
  return value === null || typeof value === 'string';
}

/** One metric of an insights read (social.operations.graphql: SocialAccountInsights, SocialMeInsights). */
export type InsightMetric = NonNullable<SocialAccountInsightsQuery['node']>['insights']['data'][number];

/** One insights metric in the Graph shape (keys in the reference's order). */
export function renderInsight(metric: InsightMetric): Record<string, unknown> {
  return {
    name: metric.name,
    period: metric.period,
    ...(metric.values && { values: metric.values.map((v) => ({ value: v.value, end_time: formatGraphTimestamp(new Date(v.endTime)) })) }),
    ...(metric.totalValue && {
      total_value: {
        value: metric.totalValue.value,
        ...(metric.totalValue.breakdowns && {
          breakdowns: metric.totalValue.breakdowns.map((b) => ({
            dimension_keys: b.dimensionKeys,
            results: b.results.map((r) => ({ dimension_values: r.dimensionValues, value: r.value })),
          })),
        }),
      },
    }),
    title: metric.title,
    description: metric.description,
    id: metric.id,
  };
}
