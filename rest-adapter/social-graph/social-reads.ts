import { ownValue } from '../../lib/own-value.ts';
import { isRecord } from '../../lib/is-record.ts';
import type { FieldModifier, FieldSelection } from './graph-fields.ts';
import { buildTimePaging, graphPage } from './graph-paging.ts';
import { GraphReplyError } from './graph-reply-error.ts';
import { HASHTAG_NODE, type EdgeField } from './social-node-types.ts';
import { buildSelection, parseLimit, type PlanField } from './social-operation-builder.ts';
import { FIXED, type SocialOperations } from './social-operations.ts';
import { fieldsOf, isEdgeLike, list } from './social-params.ts';
import { connectionOf, renderEdge, renderInsight, renderNode } from './social-renderer.ts';
import type { EdgeHandler, RootNode, SocialRequest } from './social-route-table.ts';

/**
 * The Graph paths' reads: a node (`GET /<id>` with `fields=`), a node's list edges, an account's insights, its
 * publishing limit and its recent hashtag searches — each the operation its request asks for, rendered in the Graph's
 * JSON shapes.
 */

/** GET of a node: its default fields or the requested ones. */
export async function readNode(ops: SocialOperations, request: SocialRequest, root: RootNode): Promise<unknown> {
  const fields = fieldsOf(request.params);
  // Only edges and expansions asked for: each answers to its own permissions, not the node's (business_discovery is
  // open to pages_show_list alone), so the node's id — which every reply carries — is the path's own rather than a
  // field of the node to be authorised.
  const idFromPath =
    root.segment !== 'me' &&
    fields !== undefined &&
    fields.every(
      (field) => isEdgeLike(ownValue(root.type.fields, field.name)) && !field.modifiers.some((m) => m.name === 'as' && m.argument === 'id'),
    );
  const { node, plan } = await ops.queryRoot(request, root, (variables) =>
    buildSelection(root.type, fields, variables, { budget: request.budget }, { withoutId: idFromPath }),
  );
  if (!idFromPath) return renderNode(plan, node, request.links);
  // The id also addresses the nested edges' own paths in their paging links.
  return { ...renderNode(plan, { ...node, id: root.segment }, request.links), id: root.segment };
}

/** GET of a node's list edge: `{data, paging}` whose links repeat the request. */
export function readEdge(ops: SocialOperations, edgeName: string, extra: FieldModifier[] = []): EdgeHandler {
  return async (request, root) => {
    const spec = root.type.fields[edgeName] as EdgeField;
    const modifiers: FieldModifier[] = [...extra];
    const allowed = spec.timeWindow ? ['limit', 'after', 'before', 'since', 'until'] : ['limit', 'after', 'before'];
    for (const name of allowed) {
      const value = request.params[name];
      if (value !== undefined) modifiers.push({ name, argument: value, position: 0 });
    }
    const edge: FieldSelection = { name: edgeName, modifiers, selection: fieldsOf(request.params), position: 0 };
    // The edge alone: its own permissions decide, not the node's (no `id` of the node is asked for).
    const { node, plan } = await ops.queryRoot(request, root, (variables) =>
      buildSelection(root.type, [edge], variables, { budget: request.budget }, { withoutId: true }),
    );
    const edgePlan = plan.find((field) => field.key === edgeName) as PlanField;
    return renderEdge(edgePlan, connectionOf(node[edgeName], edgeName), request.links, () => request.links.requestUrl);
  };
}

/** GET of a plain list of a node (`/me/accounts` on the parent-platform host): `{data}`. */
export function readList(ops: SocialOperations, listName: string): EdgeHandler {
  return async (request, root) => {
    const selection: FieldSelection = { name: listName, modifiers: [], selection: fieldsOf(request.params), position: 0 };
    const { node, plan } = await ops.queryRoot(request, root, (variables) =>
      buildSelection(root.type, [selection], variables, { budget: request.budget }),
    );
    return renderNode(plan, node, request.links)[listName] ?? { data: [] };
  };
}

/** GET /<account>/insights: metrics over a time window; paging moves the window (reference §2.2). */
export async function readInsights(ops: SocialOperations, request: SocialRequest, root: RootNode): Promise<unknown> {
  const p = request.params;
  const args = {
    metric: p.metric === undefined ? null : list(p.metric),
    period: p.period ?? null,
    metricType: p.metric_type ?? null,
    breakdown: p.breakdown === undefined ? null : list(p.breakdown),
    timeframe: p.timeframe ?? null,
    since: p.since ?? null,
    until: p.until ?? null,
  };
  const { node } = isMe(root)
    ? await ops.runFixed(request, FIXED.meInsights, args)
    : await ops.runFixed(request, FIXED.accountInsights, { id: root.segment, ...args });
  if (!node) throw new GraphReplyError(ops.errors.unsupportedOperation(request.method, root.segment));
  const { insights } = node;
  return graphPage(insights.data.map(renderInsight), buildTimePaging({ requestUrl: request.links.requestUrl, ...insights.window }));
}

/** GET /<account>/content_publishing_limit: `{data: [{quota_usage, config?}]}`. */
export async function readPublishingLimit(ops: SocialOperations, request: SocialRequest, root: RootNode): Promise<unknown> {
  const fields = fieldsOf(request.params) ?? [{ name: 'quota_usage', modifiers: [], selection: undefined, position: 0 }];
  for (const field of fields) {
    if (field.name !== 'quota_usage' && field.name !== 'config') {
      throw new GraphReplyError(ops.errors.unknownField(field.name, 'ContentPublishingLimit'));
    }
  }
  const since = request.params.since ?? null;
  const { node } = isMe(root)
    ? await ops.runFixed(request, FIXED.mePublishingLimit, { since })
    : await ops.runFixed(request, FIXED.accountPublishingLimit, { id: root.segment, since });
  if (!node) throw new GraphReplyError(ops.errors.unsupportedOperation(request.method, root.segment));
  const limit = node.contentPublishingLimit;
  const item: Record<string, unknown> = {};
  for (const field of fields) {
    if (field.name === 'quota_usage') item.quota_usage = limit.quotaUsage;
    else item.config = { quota_total: limit.config.quotaTotal, quota_duration: limit.config.quotaDuration };
  }
  return { data: [item] };
}

/** GET /<account>/recently_searched_hashtags: `{data: [{id}]}` (default 25, at most 30; no paging). */
export async function readRecentHashtags(ops: SocialOperations, request: SocialRequest, root: RootNode): Promise<unknown> {
  const first = request.params.limit === undefined ? null : parseLimit(request.params.limit);
  const { node, plan } = await ops.queryRoot(request, root, (variables) => {
    const limitVariable = variables.add('Int', first);
    const built = buildSelection(HASHTAG_NODE, fieldsOf(request.params), variables, { budget: request.budget });
    return { text: `{ recentlySearchedHashtags(first: ${limitVariable}) ${built.text} }`, plan: built.plan };
  });
  const hashtags = node.recentlySearchedHashtags;
  if (!Array.isArray(hashtags) || !hashtags.every(isRecord))
    throw new Error('the gateway answered hashtags that are not a list of objects');
  return { data: hashtags.map((hashtag) => renderNode(plan, hashtag, request.links)) };
}

/**
 * Whether an account edge's read is under `/me` (the token's own account, own-login host) rather than
 * `/<account-id>`: its fixed operation reads `node: me` instead of `node: account(id:)`.
 */
export function isMe(root: RootNode): boolean {
  return root.segment === 'me';
}
