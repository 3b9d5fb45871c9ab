import type { Logger } from '../../lib/logger.ts';
import type { Metrics } from '../../lib/telemetry/metrics.ts';
import type { GatewayOperationResult, OperationVariables, TypedQuery } from '../../gateway/gateway-door.ts';
import type { GraphQLExecutor } from '../graphql-executor.ts';
import { isRecord } from '../../lib/is-record.ts';
import { GRAPH_ERRORS, type GraphErrors } from './graph-errors.ts';
import { GraphReplyError } from './graph-reply-error.ts';
import { VariableBag, type PlanField } from './social-operation-builder.ts';
import type { RootNode, SocialRequest } from './social-route-table.ts';
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
} from './generated/operations.ts';

/**
 * How a Graph path's request runs its GraphQL operation through the gateway: an operation built for the request (a
 * `fields=` read) or one of the fixed ones (social.operations.graphql), within the deadline, its usage kept for the
 * headers, its errors thrown as the Graph error envelope. Every route family (social-reads.ts, social-writes.ts,
 * social-webhook-edges.ts) runs its operations through this one object.
 */
export interface SocialOperations {
  errors: GraphErrors;
  /** Runs an operation built for the request (a `fields=` read): its data, untyped. */
  run(request: SocialRequest, query: string, variables: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Runs one of the fixed operations: its data, of its document's type. */
  runFixed<TData, TVariables extends OperationVariables>(
    request: SocialRequest,
    operation: { query: TypedQuery<TData, TVariables>; operationName: string },
    variables: NoInfer<TVariables>,
  ): Promise<TData>;
  /**
   * Queries the path's node with the selection `select` builds (after the node's own variables, so that declarations come
   * out in order); a node the gateway returns as null without an error does not exist for this token.
   */
  queryRoot(
    request: SocialRequest,
    root: RootNode,
    select: (variables: VariableBag) => { text: string; plan?: PlanField[] },
  ): Promise<{ node: Record<string, unknown>; plan: PlanField[] }>;
}

export interface SocialOperationsDeps {
  executor: GraphQLExecutor;
  logger: Logger;
  errors: GraphErrors;
  /** Counts the requests a rate limit refuses. */
  metrics?: Pick<Metrics, 'observeRateLimited'> | undefined;
  /** How long one request's operation may run (REST_FIELDS_TIMEOUT_MS). */
  timeoutMs?: number | undefined;
}

const DEFAULT_TIMEOUT_MS = 10_000;

export function createSocialOperations(deps: SocialOperationsDeps): SocialOperations {
  const operations: SocialOperations = {
    errors: deps.errors,
    run: async (request, query, variables) =>
      (await settle(deps, request, deps.executor.execute({ query, operationName: 'Social', variables, headers: request.headers }))) ?? {},
    runFixed: async (request, operation, variables) => {
      const data = await settle(deps, request, deps.executor.execute({ ...operation, variables, headers: request.headers }));
      // GraphQL answers a request that raised no error with its data.
      if (!data) throw new Error(`the gateway answered ${operation.operationName} with neither data nor errors`);
      return data;
    },
    queryRoot: (request, root, select) => queryRoot(operations, request, root, select),
  };
  return operations;
}

/**
 * An operation's data once it has answered within the deadline, with the usage it reported kept for the headers; its
 * errors, mapped to the Graph error envelope, are thrown as a GraphReplyError.
 */
async function settle<TData>(
  deps: SocialOperationsDeps,
  request: SocialRequest,
  execution: Promise<GatewayOperationResult<TData>>,
): Promise<TData | null | undefined> {
  const result = await withDeadline(execution, deps.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  request.usage = result.extensions?.socialUsage ?? request.usage;
  request.logPosition = result.logPosition ?? request.logPosition;
  if (result.errors && result.errors.length > 0) {
    const refused = result.errors.find((error) => error.extensions?.reason === 'RATE_LIMITED' && error.extensions.scope !== 'custom');
    if (refused) deps.metrics?.observeRateLimited('social', String(refused.extensions!.scope));
    const reply = mapSocialErrors(result.errors, deps.errors, request.method);
    // A 503 is a dependency that cannot be reached (the database, a subgraph): logged once per incident where it is
    // met (lib/telemetry/telemetry.ts, gateway/subgraph-incidents.ts), not once per request here.
    if (reply.status >= 500 && reply.status !== 503) deps.logger.error({ errors: result.errors }, 'social request failed');
    throw new GraphReplyError(reply);
  }
  return result.data;
}

async function queryRoot(
  operations: SocialOperations,
  request: SocialRequest,
  root: RootNode,
  select: (variables: VariableBag) => { text: string; plan?: PlanField[] },
): Promise<{ node: Record<string, unknown>; plan: PlanField[] }> {
  const variables = new VariableBag();
  const rootField = root.field(variables);
  const { text, plan = [] } = select(variables);
  const data = await operations.run(request, `query Social${variables.declare()} { node: ${rootField} ${text} }`, variables.values);
  const node = data.node;
  if (!node) throw new GraphReplyError(operations.errors.unsupportedOperation(request.method, root.segment));
  if (!isRecord(node)) throw new Error(`the gateway answered a ${root.type.name} that is not an object`);
  return { node, plan };
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

/** The fixed operations (social.operations.graphql), each with its name. */
export const FIXED = {
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
