import { FIXED, type SocialOperations } from './social-operations.ts';
import { list, optionalBoolean } from './social-params.ts';
import type { RootNode, SocialRequest } from './social-route-table.ts';

/**
 * The Graph paths of webhook subscriptions: `/{app-id}/subscriptions` (§6.1: the app's subscriptions, with the app's own
 * access token) and `…/subscribed_apps` (§6.3: an account's subscription to the token's app — `/me`'s on the own-login
 * host, a page's on the parent-platform host).
 */

/** GET /{app-id}/subscriptions. */
export async function listAppSubscriptions(ops: SocialOperations, request: SocialRequest, root: RootNode): Promise<unknown> {
  const data = await ops.runFixed(request, FIXED.appSubscriptions, { appId: root.segment });
  return {
    data: (data.appSubscriptions ?? []).map((subscription) => ({
      object: subscription.object,
      callback_url: subscription.callbackUrl,
      active: subscription.active,
      fields: subscription.fields.map(({ name, version }) => ({ name, version })),
    })),
  };
}

/** POST /{app-id}/subscriptions. */
export async function subscribeApp(ops: SocialOperations, request: SocialRequest, root: RootNode): Promise<unknown> {
  const p = request.params;
  const data = await ops.runFixed(request, FIXED.subscribeApp, {
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
}

/** DELETE /{app-id}/subscriptions. */
export async function unsubscribeApp(ops: SocialOperations, request: SocialRequest, root: RootNode): Promise<unknown> {
  const p = request.params;
  const data = await ops.runFixed(request, FIXED.unsubscribeApp, {
    appId: root.segment,
    object: p.object ?? null,
    fields: p.fields === undefined ? null : list(p.fields),
  });
  return { success: data.unsubscribeApp.success };
}

/** The page of a `…/subscribed_apps` path: none for `/me` (the token's own account). */
const pageOf = (root: RootNode) => (root.segment === 'me' ? null : root.segment);

/** GET …/subscribed_apps. */
export async function listSubscribedApps(ops: SocialOperations, request: SocialRequest, root: RootNode): Promise<unknown> {
  const data = await ops.runFixed(request, FIXED.subscribedApps, { pageId: pageOf(root) });
  return { data: (data.subscribedApps ?? []).map((app) => ({ id: app.id, name: app.name, subscribed_fields: app.subscribedFields })) };
}

/** POST …/subscribed_apps. */
export async function subscribeAccountToApp(ops: SocialOperations, request: SocialRequest, root: RootNode): Promise<unknown> {
  const fields = request.params.subscribed_fields;
  const data = await ops.runFixed(request, FIXED.subscribeAccountToApp, {
    pageId: pageOf(root),
    subscribedFields: fields === undefined ? null : list(fields),
  });
  return { success: data.subscribeAccountToApp.success };
}

/** DELETE …/subscribed_apps. */
export async function unsubscribeAccountFromApp(ops: SocialOperations, request: SocialRequest, root: RootNode): Promise<unknown> {
  const data = await ops.runFixed(request, FIXED.unsubscribeAccountFromApp, { pageId: pageOf(root) });
  return { success: data.unsubscribeAccountFromApp.success };
}
