import type { IncomingMessage } from 'node:http';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { ownValue } from '../../lib/own-value.ts';
import { kindOfSocialId } from '../../lib/social-graph/social-ids.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Metrics } from '../../lib/telemetry/metrics.ts';
import type { SocialHost } from '../../contracts/social-graph.ts';
import { FieldsSyntaxError, type FieldModifier, type FieldSelection } from './graph-fields.ts';
import { GRAPH_ERRORS, type GraphErrorReply, type GraphErrors } from './graph-errors.ts';
import type { GatewayOperationResult, OperationVariables, TypedQuery } from '../../gateway/gateway-door.ts';
import type { GraphQLExecutor } from '../graphql-executor.ts';
import { usageHeaders } from './social-usage.ts';
import {
  ACCOUNT_NODE,
  APP_NODE,
  COMMENT_NODE,
  CONTAINER_NODE,
  HASHTAG_NODE,
  MEDIA_NODE,
  PAGE_NODE,
  PLATFORM_USER_NODE,
  type EdgeField,
  type NodeType,
} from './social-node-types.ts';
import { buildTimePaging, graphPage } from './graph-paging.ts';
import { DEFAULT_EXPANSION_LIMITS, ExpansionBudget, type ExpansionLimits } from './field-expansion-budget.ts';
import { GraphReplyError, RouteRefusal } from './graph-reply-error.ts';
import { buildSelection, parseLimit, VariableBag, type PlanField } from './social-operation-builder.ts';
import {
  OTHER_AREAS,
  REQUEST_PARAMETERS,
  SOCIAL_ROUTES,
  VERSION,
  type EdgeHandler,
  type EdgeHandlers,
  type EdgeRoute,
  type RootNode,
  type RouteMethod,
  type SocialRequest,
  type SocialRouteKind,
} from './social-route-table.ts';
import {
  fieldsOf,
  isEdgeLike,
  jsonParameter,
  list,
  metricsRoute,
  numberParameter,
  optionalBoolean,
  parseBoolean,
  readParams,
} from './social-params.ts';
import { connectionOf, renderEdge, renderInsight, renderNode } from './social-renderer.ts';
import { isRecord } from '../../lib/is-record.ts';
import { mapSocialErrors } from './social-error-mapper.ts';
import {
  SocialAccountInsightsDocument,
  SocialAccountPublishingLimitDocument,
  SocialAppSubscriptionsDocument,
  SocialAuthorizeAdAccountDocument,
  SocialCallerDocument,
  SocialCreateMediaCommentDocument,
  SocialCreateMediaContainerDocument,
  SocialCreateUpcomingEventDocument,
  SocialDeleteCommentDocument,
  SocialHideCommentDocument,
  SocialMeDocument,
  SocialMeInsightsDocument,
  SocialMePublishingLimitDocument,
  SocialPublishMediaContainerDocument,
  SocialReplyToCommentDocument,
  SocialReplyToMentionDocument,
  SocialSubscribeAccountToAppDocument,
  SocialSubscribeAppDocument,
  SocialSubscribedAppsDocument,
  SocialUnsubscribeAccountFromAppDocument,
  SocialUnsubscribeAppDocument,
  type MediaContainerInput,
} from './generated/operations.ts';

/**
 * The Graph-style REST paths of Areas B and C: `/{version}/{node-id}[/{edge}]` on two hosts (own login, parent platform).
 * Each request becomes one GraphQL operation through the gateway: a fixed one (social.operations.graphql, typed in
 * generated/) or, for reads that follow `fields=`, one built for the request (social-operation-builder.ts). The services
 * decide everything (tokens, permissions, rules) and their errors come back as Graph error envelopes. What lives here is
 * only the Graph surface: path and version parsing, parameters from the query string or the body, `fields` expansion,
 * and the Graph JSON shapes.
 */

export interface SocialRoutesDeps {
  executor: GraphQLExecutor;
  logger: Logger;
  /** The host this listener serves when the Host header names neither configured host name. */
  defaultHost: SocialHost;
  ownHostname?: string | undefined;
  parentHostname?: string | undefined;
  bodyLimitBytes: number;
  graphErrors?: GraphErrors;
  /** Counts the requests a rate limit refuses. */
  metrics?: Pick<Metrics, 'observeRateLimited'>;
  /** What one `fields=` expansion may ask for (field-expansion-budget.ts). */
  expansionLimits?: ExpansionLimits;
  /**
   * How long one request's operation may run before the reply is the platform's error for too much data
   * (REST_FIELDS_TIMEOUT_MS). The budget bounds what a request can ask for; this bounds what it can cost when the data
   * behind it is dense.
   */
  timeoutMs?: number;
}

export function createSocialRoutes(deps: SocialRoutesDeps): Router {
  const errors = deps.graphErrors ?? GRAPH_ERRORS;
  const router = express.Router({ caseSensitive: true, strict: false });
  // JSON bodies are read as text and parsed by lossless-json (readParams), so that a 64-bit id sent as a JSON number keeps
  // its digits. A POST or DELETE body without any Content-Type is a form, as the platform reads it: Graph clients send
  // their parameters so (fbgraph's hide/show and replies), with the same limit and parser as a declared form.
  const bodyParsers = [
    express.urlencoded({ extended: false, limit: deps.bodyLimitBytes, type: isFormBody }),
    express.text({ type: ['application/json', 'application/*+json'], limit: deps.bodyLimitBytes }),
  ];

  function hostOf(req: Request): SocialHost {
    const name = req.hostname?.toLowerCase();
    if (deps.parentHostname && name === deps.parentHostname) return 'parent';
    if (deps.ownHostname && name === deps.ownHostname) return 'own';
    return deps.defaultHost;
  }

  /** Runs an operation built for the request (a `fields=` read): its data, untyped. */
  async function run(request: SocialRequest, query: string, variables: Record<string, unknown>): Promise<Record<string, unknown>> {
    const data = await settle(request, deps.executor.execute({ query, operationName: 'Social', variables, headers: request.headers }));
    return data ?? {};
  }

  /** Runs one of the fixed operations (social.operations.graphql): its data, of its document's type. */
  async function runFixed<TData, TVariables extends OperationVariables>(
    request: SocialRequest,
    operation: { query: TypedQuery<TData, TVariables>; operationName: string },
    variables: NoInfer<TVariables>,
  ): Promise<TData> {
    const data = await settle(request, deps.executor.execute({ ...operation, variables, headers: request.headers }));
    // GraphQL answers a request that raised no error with its data.
    if (!data) throw new Error(`the gateway answered ${operation.operationName} with neither data nor errors`);
    return data;
  }

  /**
   * An operation's data once it has answered within the deadline, with the usage it reported kept for the headers; its
   * errors, mapped to the Graph error envelope, are thrown as a GraphReplyError.
   */
  async function settle<TData>(
    request: SocialRequest,
    execution: Promise<GatewayOperationResult<TData>>,
  ): Promise<TData | null | undefined> {
    const result = await withDeadline(execution, deps.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    request.usage = result.extensions?.socialUsage ?? request.usage;
    if (result.errors && result.errors.length > 0) {
      const refused = result.errors.find((error) => error.extensions?.reason === 'RATE_LIMITED' && error.extensions.scope !== 'custom');
      if (refused) deps.metrics?.observeRateLimited('social', String(refused.extensions!.scope));
      const reply = mapSocialErrors(result.errors, errors, request.method);
      // A 503 is a dependency that cannot be reached (the database, a subgraph): logged once per incident where it is
      // met (lib/telemetry/telemetry.ts, gateway/subgraph-incidents.ts), not once per request here.
      if (reply.status >= 500 && reply.status !== 503) deps.logger.error({ errors: result.errors }, 'social request failed');
      throw new GraphReplyError(reply);
    }
    return result.data;
  }

  /**
   * Queries the path's node with the selection `select` builds (after the node's own variables, so that declarations come
   * out in order); a node the gateway returns as null without an error does not exist for this token.
   */
  async function queryRoot(
    request: SocialRequest,
    root: RootNode,
    select: (variables: VariableBag) => { text: string; plan?: PlanField[] },
  ): Promise<{ node: Record<string, unknown>; plan: PlanField[] }> {
    const variables = new VariableBag();
    const rootField = root.field(variables);
    const { text, plan = [] } = select(variables);
    const data = await run(request, `query Social${variables.declare()} { node: ${rootField} ${text} }`, variables.values);
    const node = data.node;
    if (!node) throw new GraphReplyError(errors.unsupportedOperation(request.method, root.segment));
    if (!isRecord(node)) throw new Error(`the gateway answered a ${root.type.name} that is not an object`);
    return { node, plan };
  }

  /** GET of a node: its default fields or the requested ones. */
  async function readNode(request: SocialRequest, root: RootNode): Promise<unknown> {
    const fields = fieldsOf(request.params);
    // Only edges and expansions asked for: each answers to its own permissions, not the node's (business_discovery is
    // open to pages_show_list alone), so the node's id — which every reply carries — is the path's own rather than a
    // field of the node to be authorised.
    const idFromPath =
      root.segment !== 'me' &&
      fields !== undefined &&
      fields.every(
        (field) =>
          isEdgeLike(ownValue(root.type.fields, field.name)) && !field.modifiers.some((m) => m.name === 'as' && m.argument === 'id'),
      );
    const { node, plan } = await queryRoot(request, root, (variables) =>
      buildSelection(root.type, fields, variables, { budget: request.budget }, { withoutId: idFromPath }),
    );
    if (!idFromPath) return renderNode(plan, node, request.links);
    // The id also addresses the nested edges' own paths in their paging links.
    return { ...renderNode(plan, { ...node, id: root.segment }, request.links), id: root.segment };
  }

  /** GET of a node's list edge: `{data, paging}` whose links repeat the request. */
  function readEdge(edgeName: string, extra: FieldModifier[] = []): EdgeHandler {
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
      const { node, plan } = await queryRoot(request, root, (variables) =>
        buildSelection(root.type, [edge], variables, { budget: request.budget }, { withoutId: true }),
      );
      const edgePlan = plan.find((field) => field.key === edgeName) as PlanField;
      return renderEdge(edgePlan, connectionOf(node[edgeName], edgeName), request.links, () => request.links.requestUrl);
    };
  }

  const COMMENT_EDGES: EdgeHandlers<typeof SOCIAL_ROUTES.comment.edges> = {
    replies: {
      get: readEdge('replies'),
      post: async (request, root) => {
        const data = await runFixed(request, FIXED.replyToComment, { id: root.segment, message: request.params.message ?? null });
        return { id: data.replyToComment.id };
      },
    },
  };

  const MEDIA_EDGES: EdgeHandlers<typeof SOCIAL_ROUTES.media.edges> = {
    comments: {
      get: readEdge('comments'),
      post: async (request, root) => {
        const data = await runFixed(request, FIXED.createMediaComment, { mediaId: root.segment, message: request.params.message ?? null });
        return { id: data.createMediaComment.id };
      },
    },
    children: { get: readEdge('children') },
  };

  /** GET /<account>/insights: metrics over a time window; paging moves the window (reference §2.2). */
  async function readInsights(request: SocialRequest, root: RootNode): Promise<unknown> {
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
      ? await runFixed(request, FIXED.meInsights, args)
      : await runFixed(request, FIXED.accountInsights, { id: root.segment, ...args });
    if (!node) throw new GraphReplyError(errors.unsupportedOperation(request.method, root.segment));
    const { insights } = node;
    return graphPage(insights.data.map(renderInsight), buildTimePaging({ requestUrl: request.links.requestUrl, ...insights.window }));
  }

  /** GET /<account>/content_publishing_limit: `{data: [{quota_usage, config?}]}`. */
  async function readPublishingLimit(request: SocialRequest, root: RootNode): Promise<unknown> {
    const fields = fieldsOf(request.params) ?? [{ name: 'quota_usage', modifiers: [], selection: undefined, position: 0 }];
    for (const field of fields) {
      if (field.name !== 'quota_usage' && field.name !== 'config') {
        throw new GraphReplyError(errors.unknownField(field.name, 'ContentPublishingLimit'));
      }
    }
    const since = request.params.since ?? null;
    const { node } = isMe(root)
      ? await runFixed(request, FIXED.mePublishingLimit, { since })
      : await runFixed(request, FIXED.accountPublishingLimit, { id: root.segment, since });
    if (!node) throw new GraphReplyError(errors.unsupportedOperation(request.method, root.segment));
    const limit = node.contentPublishingLimit;
    const item: Record<string, unknown> = {};
    for (const field of fields) {
      if (field.name === 'quota_usage') item.quota_usage = limit.quotaUsage;
      else item.config = { quota_total: limit.config.quotaTotal, quota_duration: limit.config.quotaDuration };
    }
    return { data: [item] };
  }

  /** GET /<account>/recently_searched_hashtags: `{data: [{id}]}` (default 25, at most 30; no paging). */
  async function readRecentHashtags(request: SocialRequest, root: RootNode): Promise<unknown> {
    const first = request.params.limit === undefined ? null : parseLimit(request.params.limit);
    const { node, plan } = await queryRoot(request, root, (variables) => {
      const limitVariable = variables.add('Int', first);
      const built = buildSelection(HASHTAG_NODE, fieldsOf(request.params), variables, { budget: request.budget });
      return { text: `{ recentlySearchedHashtags(first: ${limitVariable}) ${built.text} }`, plan: built.plan };
    });
    const hashtags = node.recentlySearchedHashtags;
    if (!Array.isArray(hashtags) || !hashtags.every(isRecord))
      throw new Error('the gateway answered hashtags that are not a list of objects');
    return { data: hashtags.map((hashtag) => renderNode(plan, hashtag, request.links)) };
  }

  /** POST /<account>/media: a publishing container from the reference's parameters. */
  async function createContainer(request: SocialRequest, root: RootNode): Promise<unknown> {
    const p = request.params;
    const input: MediaContainerInput = {
      imageUrl: p.image_url ?? null,
      videoUrl: p.video_url ?? null,
      uploadMediaId: p.upload_media_id ?? null,
      mediaType: p.media_type ?? null,
      caption: p.caption ?? null,
      isCarouselItem: optionalBoolean('is_carousel_item', p.is_carousel_item),
      children: p.children === undefined ? null : list(p.children),
      userTags: p.user_tags === undefined ? null : jsonParameter('user_tags', p.user_tags),
      collaborators: p.collaborators === undefined ? null : list(p.collaborators),
      locationId: p.location_id ?? null,
      coverUrl: p.cover_url ?? null,
      thumbOffset: p.thumb_offset === undefined ? null : numberParameter('thumb_offset', p.thumb_offset),
      shareToFeed: optionalBoolean('share_to_feed', p.share_to_feed),
      audioName: p.audio_name ?? null,
      altText: p.alt_text ?? null,
    };
    const data = await runFixed(request, FIXED.createMediaContainer, { accountId: root.segment, input });
    return { id: data.createMediaContainer.id };
  }

  const ACCOUNT_EDGES: EdgeHandlers<typeof SOCIAL_ROUTES.account.edges> = {
    media: { get: readEdge('media'), post: createContainer },
    media_publish: {
      post: async (request, root) => {
        const data = await runFixed(request, FIXED.publishMediaContainer, {
          accountId: root.segment,
          creationId: request.params.creation_id ?? null,
        });
        return { id: data.publishMediaContainer.id };
      },
    },
    insights: { get: readInsights },
    content_publishing_limit: { get: readPublishingLimit },
    recently_searched_hashtags: { get: readRecentHashtags },
    upcoming_events: {
      get: readEdge('upcoming_events'),
      post: async (request, root) => {
        const p = request.params;
        const data = await runFixed(request, FIXED.createUpcomingEvent, {
          accountId: root.segment,
          input: {
            title: p.title ?? null,
            startTime: p.start_time ?? null,
            endTime: p.end_time ?? null,
            notificationSubtypes: p.notification_subtypes === undefined ? null : list(p.notification_subtypes),
            notificationTargetTime: p.notification_target_time ?? null,
          },
        });
        return { id: data.createUpcomingEvent.id };
      },
    },
    agencies: { get: readEdge('agencies') },
    authorized_adaccounts: {
      get: (request, root) => {
        const business = request.params.business;
        return readEdge('authorized_adaccounts', business === undefined ? [] : [{ name: 'business', argument: business, position: 0 }])!(
          request,
          root,
        );
      },
      post: async (request, root) => {
        const data = await runFixed(request, FIXED.authorizeAdAccount, {
          accountId: root.segment,
          adAccountId: request.params.account_id ?? null,
          business: request.params.business ?? null,
        });
        return { success: data.authorizeAdAccount.success };
      },
    },
    stories: { get: readEdge('stories') },
    live_media: { get: readEdge('live_media') },
    tags: { get: readEdge('tags') },
    mentions: {
      post: async (request, root) => {
        const data = await runFixed(request, FIXED.replyToMention, {
          accountId: root.segment,
          mediaId: request.params.media_id ?? null,
          commentId: request.params.comment_id ?? null,
          message: request.params.message ?? null,
        });
        return { id: data.replyToMention.id };
      },
    },
  };

  /** `/{app-id}/subscriptions` (§6.1): the app's webhook subscriptions, with the app's own access token. */
  const APP_EDGES: EdgeHandlers<typeof SOCIAL_ROUTES.app.edges> = {
    subscriptions: {
      get: async (request, root) => {
        const data = await runFixed(request, FIXED.appSubscriptions, { appId: root.segment });
        return {
          data: (data.appSubscriptions ?? []).map((subscription) => ({
            object: subscription.object,
            callback_url: subscription.callbackUrl,
            active: subscription.active,
            fields: subscription.fields.map(({ name, version }) => ({ name, version })),
          })),
        };
      },
      post: async (request, root) => {
        const p = request.params;
        const data = await runFixed(request, FIXED.subscribeApp, {
          appId: root.segment,
          input: {
            object: p.object ?? null,
            callbackUrl: p.callback_url ?? null,
            fields: p.fields === undefined ? null : list(p.fields),
            verifyToken: p.verify_token ?? null,
            includeValues: optionalBoolean('include_values', p.include_values),
          },
        });
        return { success: data.subscribeApp.success };
      },
      delete: async (request, root) => {
        const p = request.params;
        const data = await runFixed(request, FIXED.unsubscribeApp, {
          appId: root.segment,
          object: p.object ?? null,
          fields: p.fields === undefined ? null : list(p.fields),
        });
        return { success: data.unsubscribeApp.success };
      },
    },
  };

  /**
   * `…/subscribed_apps` (§6.3): an account's subscription to the token's app — `/me`'s on the own-login host (the token's
   * account), a page's on the parent-platform host (the account linked to it).
   */
  const pageOf = (root: RootNode) => (root.segment === 'me' ? null : root.segment);
  const SUBSCRIBED_APPS: EdgeHandlers<typeof SOCIAL_ROUTES.page.edges>['subscribed_apps'] = {
    get: async (request, root) => {
      const data = await runFixed(request, FIXED.subscribedApps, { pageId: pageOf(root) });
      return { data: (data.subscribedApps ?? []).map((app) => ({ id: app.id, name: app.name, subscribed_fields: app.subscribedFields })) };
    },
    post: async (request, root) => {
      const fields = request.params.subscribed_fields;
      const data = await runFixed(request, FIXED.subscribeAccountToApp, {
        pageId: pageOf(root),
        subscribedFields: fields === undefined ? null : list(fields),
      });
      return { success: data.subscribeAccountToApp.success };
    },
    delete: async (request, root) => {
      const data = await runFixed(request, FIXED.unsubscribeAccountFromApp, { pageId: pageOf(root) });
      return { success: data.unsubscribeAccountFromApp.success };
    },
  };

  const ME_OWN_EDGES: EdgeHandlers<(typeof SOCIAL_ROUTES)['me-own']['edges']> = { ...ACCOUNT_EDGES, subscribed_apps: SUBSCRIBED_APPS };

  async function handleNode(request: SocialRequest, segment: string, rest: string[]): Promise<unknown> {
    const { method } = request;
    const kind = segment === 'me' ? 'me' : kindOfSocialId(segment);
    const id = (variables: VariableBag) => variables.add('ID!', segment);
    let root: RootNode;
    let edges: Readonly<Record<string, EdgeRoute>>;
    let routes: (typeof SOCIAL_ROUTES)[SocialRouteKind];
    switch (kind) {
      case 'comment':
        root = { segment, field: (v) => `comment(id: ${id(v)})`, type: COMMENT_NODE };
        edges = COMMENT_EDGES;
        routes = SOCIAL_ROUTES.comment;
        break;
      case 'media':
        root = { segment, field: (v) => `media(id: ${id(v)})`, type: MEDIA_NODE };
        edges = MEDIA_EDGES;
        routes = SOCIAL_ROUTES.media;
        break;
      case 'account':
        root = { segment, field: (v) => `account(id: ${id(v)})`, type: ACCOUNT_NODE };
        edges = ACCOUNT_EDGES;
        routes = SOCIAL_ROUTES.account;
        break;
      case 'container':
        root = { segment, field: (v) => `mediaContainer(id: ${id(v)})`, type: CONTAINER_NODE };
        edges = {} satisfies EdgeHandlers<typeof SOCIAL_ROUTES.container.edges>;
        routes = SOCIAL_ROUTES.container;
        break;
      case 'me':
        if (request.host === 'parent') {
          root = { segment, field: () => 'platformUser', type: PLATFORM_USER_NODE };
          const parentEdges: EdgeHandlers<(typeof SOCIAL_ROUTES)['me-parent']['edges']> = { accounts: { get: readList('accounts') } };
          edges = parentEdges;
          routes = SOCIAL_ROUTES['me-parent'];
        } else {
          root = { segment, field: () => 'me', type: ACCOUNT_NODE };
          edges = ME_OWN_EDGES;
          routes = SOCIAL_ROUTES['me-own'];
        }
        break;
      case 'app':
        root = edgesOnly(segment, APP_NODE);
        edges = APP_EDGES;
        routes = SOCIAL_ROUTES.app;
        break;
      case 'page':
        root = edgesOnly(segment, PAGE_NODE);
        edges = { subscribed_apps: SUBSCRIBED_APPS } satisfies EdgeHandlers<typeof SOCIAL_ROUTES.page.edges>;
        routes = SOCIAL_ROUTES.page;
        break;
      default:
        // Not an id of this graph: the platform takes any segment for a node id (errors.badVersion explains why).
        throw new RouteRefusal(errors.badVersion(segment, rest, method));
    }
    // A kind another host serves (an app's or a page's paths on the own-login host) is no id here either.
    if (!(routes.hosts as readonly SocialHost[]).includes(request.host)) throw new RouteRefusal(errors.badVersion(segment, rest, method));

    if (rest.length === 0) {
      // Creating or updating a comment at its own address, and any write to an account or media node: not in the table.
      if (!(routes.node as readonly RouteMethod[]).includes(method)) throw new RouteRefusal(errors.unsupportedOperation(method, segment));
      if (method === 'get') return readNode(request, root);
      if (method === 'delete') {
        const data = await runFixed(request, FIXED.deleteComment, { id: segment });
        return { success: data.deleteComment.success };
      }
      return hide(request, segment);
    }
    // Own properties only: `/<id>/constructor` names no edge.
    const route = rest.length === 1 && Object.hasOwn(edges, rest[0]!) ? edges[rest[0]!] : undefined;
    if (!route) throw new RouteRefusal(errors.unknownEdge(rest));
    const handler = route[method];
    if (!handler) throw new RouteRefusal(errors.unsupportedOperation(method, segment));
    if (kind === 'me' && request.host === 'own' && method === 'post' && Object.hasOwn(ACCOUNT_EDGES, rest[0]!)) {
      // POST /me/<account edge>: the edge's account argument is the token's own account (subscribed_apps takes none).
      const me = (await runFixed(request, FIXED.me, {})).node;
      if (!me) throw new GraphReplyError(errors.unsupportedOperation(method, segment));
      return handler(request, { ...root, segment: me.id });
    }
    return handler(request, root);
  }

  /**
   * The path's node and edge, as the route table serves them. What the table refuses by itself (RouteRefusal) is sent
   * only after the social services checked the token: the platform answers a missing or bad token (104, 190) before it
   * says that an object does not exist or does not support the operation, whatever the path names.
   */
  async function dispatch(request: SocialRequest, segments: readonly string[]): Promise<unknown> {
    try {
      if (segments.length === 0) throw new RouteRefusal(errors.unsupportedOperation(request.method, ''));
      return await handleNode(request, segments[0]!, segments.slice(1));
    } catch (error) {
      if (error instanceof RouteRefusal) await checkToken(request, segments[0]);
      throw error;
    }
  }

  /**
   * The token check before a refusal of the table's: the caller's, except on an app's paths where the app serves them —
   * those take the app's own access token (§6.1), so any other token is 15 there, before the path is refused.
   */
  async function checkToken(request: SocialRequest, segment: string | undefined): Promise<void> {
    const ofApp =
      segment !== undefined &&
      kindOfSocialId(segment) === 'app' &&
      (SOCIAL_ROUTES.app.hosts as readonly SocialHost[]).includes(request.host);
    if (ofApp) await runFixed(request, FIXED.appSubscriptions, { appId: segment });
    else await runFixed(request, FIXED.caller, {});
  }

  function readList(listName: string): EdgeHandler {
    return async (request, root) => {
      const list: FieldSelection = { name: listName, modifiers: [], selection: fieldsOf(request.params), position: 0 };
      const { node, plan } = await queryRoot(request, root, (variables) =>
        buildSelection(root.type, [list], variables, { budget: request.budget }),
      );
      return renderNode(plan, node, request.links)[listName] ?? { data: [] };
    };
  }

  async function hide(request: SocialRequest, id: string): Promise<unknown> {
    const raw = request.params.hide;
    if (raw === undefined) {
      const attempted = Object.keys(request.params).some((name) => !REQUEST_PARAMETERS.has(name));
      if (attempted) throw new RouteRefusal(errors.unsupportedOperation('post', id));
    }
    const hideValue = raw === undefined ? null : parseBoolean(raw);
    if (hideValue === undefined)
      throw new GraphReplyError(errors.invalidParameter('Invalid parameter', `hide must be true or false, got "${raw}".`));
    const data = await runFixed(request, FIXED.hideComment, { id, hide: hideValue });
    return { success: data.hideComment.success };
  }

  router.all(/.*/, bodyParsers, async (req: Request, res: Response, next: NextFunction) => {
    if (OTHER_AREAS.test(req.path)) {
      next();
      return;
    }
    const method = req.method.toLowerCase();
    if (method !== 'get' && method !== 'post' && method !== 'delete') {
      sendReply(res, errors.unsupportedOperation('get', req.path.split('/').filter(Boolean).pop() ?? ''));
      return;
    }
    let request: SocialRequest | undefined;
    try {
      const segments = req.path
        .split('/')
        .filter((segment) => segment !== '')
        .map(decodeURIComponent);
      const version = segments[0] !== undefined && VERSION.test(segments[0]) ? segments.shift() : undefined;
      const params = readParams(req);
      const requestUrl = new URL(req.originalUrl, `${req.protocol}://${req.get('host') ?? 'localhost'}`);
      const tokenInQuery = requestUrl.searchParams.get('access_token');
      const host = hostOf(req);
      request = {
        req,
        method,
        host,
        version,
        params,
        headers: {
          authorization: params.access_token !== undefined ? `Bearer ${params.access_token}` : req.headers.authorization,
          'x-request-id': typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : undefined,
          'x-social-host': host,
        },
        budget: new ExpansionBudget(deps.expansionLimits ?? DEFAULT_EXPANSION_LIMITS),
        usage: undefined,
        links: {
          requestUrl,
          edgeUrl: (parentId, edge) => {
            const url = new URL(`${version ? `/${version}` : ''}/${parentId}/${edge}`, requestUrl.origin);
            if (tokenInQuery !== null) url.searchParams.set('access_token', tokenInQuery);
            return url;
          },
        },
      };
      if (segments[0] !== undefined) res.locals.route = metricsRoute(version, segments[0], segments[1]);
      const body = await dispatch(request, segments);
      res.set(usageHeaders(request.usage));
      res.status(200).json(body);
    } catch (error) {
      // The rate limits' usage of this call, as the social services reported it (refused calls included).
      if (request) res.set(usageHeaders(request.usage));
      if (error instanceof GraphReplyError) {
        sendReply(res, error.reply);
        return;
      }
      if (error instanceof FieldsSyntaxError) {
        sendReply(res, errors.syntaxError(error));
        return;
      }
      if (error instanceof URIError) {
        sendReply(res, errors.invalidParameter('Invalid parameter', 'The path is not valid percent-encoded UTF-8.'));
        return;
      }
      deps.logger.error({ err: error }, 'social request failed');
      sendReply(res, isUnavailable(error) ? errors.unexpectedError(503) : errors.unknownError());
    }
  });

  // Body-parser failures on these paths are answered in the Graph envelope too.
  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (OTHER_AREAS.test(req.path)) {
      next(error);
      return;
    }
    const type = (error as { type?: string }).type;
    const message =
      type === 'entity.too.large'
        ? `The request body exceeds the limit of ${deps.bodyLimitBytes} bytes.`
        : `The request body could not be read: ${(error as Error).message}`;
    sendReply(res, errors.invalidParameter('Invalid parameter', message));
  });

  return router;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** The fixed operations (social.operations.graphql), each with its name. */
const FIXED = {
  me: { query: SocialMeDocument, operationName: 'SocialMe' },
  caller: { query: SocialCallerDocument, operationName: 'SocialCaller' },
  accountInsights: { query: SocialAccountInsightsDocument, operationName: 'SocialAccountInsights' },
  meInsights: { query: SocialMeInsightsDocument, operationName: 'SocialMeInsights' },
  accountPublishingLimit: { query: SocialAccountPublishingLimitDocument, operationName: 'SocialAccountPublishingLimit' },
  mePublishingLimit: { query: SocialMePublishingLimitDocument, operationName: 'SocialMePublishingLimit' },
  replyToComment: { query: SocialReplyToCommentDocument, operationName: 'SocialReplyToComment' },
  hideComment: { query: SocialHideCommentDocument, operationName: 'SocialHideComment' },
  deleteComment: { query: SocialDeleteCommentDocument, operationName: 'SocialDeleteComment' },
  createMediaComment: { query: SocialCreateMediaCommentDocument, operationName: 'SocialCreateMediaComment' },
  createMediaContainer: { query: SocialCreateMediaContainerDocument, operationName: 'SocialCreateMediaContainer' },
  publishMediaContainer: { query: SocialPublishMediaContainerDocument, operationName: 'SocialPublishMediaContainer' },
  createUpcomingEvent: { query: SocialCreateUpcomingEventDocument, operationName: 'SocialCreateUpcomingEvent' },
  authorizeAdAccount: { query: SocialAuthorizeAdAccountDocument, operationName: 'SocialAuthorizeAdAccount' },
  replyToMention: { query: SocialReplyToMentionDocument, operationName: 'SocialReplyToMention' },
  appSubscriptions: { query: SocialAppSubscriptionsDocument, operationName: 'SocialAppSubscriptions' },
  subscribeApp: { query: SocialSubscribeAppDocument, operationName: 'SocialSubscribeApp' },
  unsubscribeApp: { query: SocialUnsubscribeAppDocument, operationName: 'SocialUnsubscribeApp' },
  subscribedApps: { query: SocialSubscribedAppsDocument, operationName: 'SocialSubscribedApps' },
  subscribeAccountToApp: { query: SocialSubscribeAccountToAppDocument, operationName: 'SocialSubscribeAccountToApp' },
  unsubscribeAccountFromApp: { query: SocialUnsubscribeAccountFromAppDocument, operationName: 'SocialUnsubscribeAccountFromApp' },
};

/**
 * Whether an account edge's read is under `/me` (the token's own account, own-login host) rather than
 * `/<account-id>`: its fixed operation reads `node: me` instead of `node: account(id:)`.
 */
function isMe(root: RootNode): boolean {
  return root.segment === 'me';
}

/** The root of a node only its edges address (an app, a page): no route reads it as a node. */
function edgesOnly(segment: string, type: NodeType): RootNode {
  return {
    segment,
    type,
    field: () => {
      throw new Error(`a ${type.name} is addressed only through its edges, never read as a node`);
    },
  };
}

/**
 * A form body: declared as one, or a POST or DELETE body that declares no type at all. (body-parser calls this with the
 * request it was given, which this router's middleware always gets as an Express request.)
 */
function isFormBody(message: IncomingMessage): boolean {
  if (message.headers['content-type'] === undefined) return message.method === 'POST' || message.method === 'DELETE';
  return Boolean((message as Request).is('application/x-www-form-urlencoded'));
}

/**
 * `work`, or the platform's error for too much data once `timeoutMs` has passed. The operation is not cancelled (the
 * gateway offers no way to), only no longer waited for; the expansion budget is what keeps such work rare and bounded.
 */
async function withDeadline<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(new GraphReplyError(GRAPH_ERRORS.tooMuchData(`The request took longer than ${timeoutMs} ms; ask for less data at a time.`))),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
    // A late failure of the abandoned work has nobody to tell.
    work.catch(() => undefined);
  }
}

function sendReply(res: Response, reply: GraphErrorReply): void {
  res.status(reply.status).set(reply.headers).json(reply.body);
}

function isUnavailable(error: unknown): boolean {
  return (error as { code?: unknown }).code === 'UNAVAILABLE';
}
