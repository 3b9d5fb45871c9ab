import { STATUS_CODES } from 'node:http';
import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { SocialCredential, SocialTokenService } from '../../../lib/auth/social-auth/social-token.service.ts';
import type { CallbackClient } from '../../../lib/http/callback-client.ts';
import { WEBHOOK_FIELDS, WEBHOOK_OBJECT, type SocialMethod, type WebhookField } from '../../../contracts/social-graph.ts';
import { authorize, refuseCredential, type Viewer } from '../../shared/social-graph/social-access.ts';
import { socialErrors } from '../../shared/social-graph/social-errors.ts';
import type { SocialTables } from '../../shared/social-graph/social-tables.ts';
import {
  findAppSubscriptions,
  findSubscribedApps,
  removeAppSubscriptions,
  removeSubscribedApp,
  saveAppSubscription,
  saveSubscribedApp,
} from './webhook-subscriptions.repository.ts';

/**
 * Webhook subscriptions (issue 26; reference §6.1–§6.3, §6.6): an app subscribes a callback URL to the `social` object's
 * fields with its app access token, after the callback has answered the verification request (§6.2) with the
 * challenge; accounts subscribe to the app of their token — on the own-login host `/me/subscribed_apps`, on the
 * parent-platform host a page's `subscribed_apps` — with §6.6's permissions. Events then reach the callback (delivery:
 * subgraphs/shared/webhooks/). GraphQL and the Graph-style REST routes both call this service.
 */

export interface AppSubscriptionInput {
  object?: string | null;
  callbackUrl?: string | null;
  fields?: readonly string[] | null;
  verifyToken?: string | null;
  includeValues?: boolean | null;
}

export interface AppSubscriptionView {
  object: string;
  callbackUrl: string;
  active: boolean;
  includeValues: boolean;
  fields: { name: string; version: string }[];
}

export interface SubscribedAppView {
  id: string;
  name: string;
  subscribedFields: string[];
}

export interface WebhookSubscriptionsDeps {
  db: Kysely<SocialTables>;
  apps: Pick<SocialTokenService, 'findApp'>;
  /** Checks callback URLs and makes the verification request (SSRF rules, timeouts: lib/http/callback-client.ts). */
  callbacks: CallbackClient;
  now: () => Date;
  /** The `hub.challenge` of a verification request; a random integer by default (tests fix it). */
  challenge?: () => string;
}

/** The Graph API version a field subscription reports (§6.1's `{name, version}`). */
const FIELD_VERSION = 'v25.0';
/** Longest verify token kept (the reference gives none; a bound keeps a row small). */
const MAX_VERIFY_TOKEN = 256;
/** Page fields (the older guide's page subscription, §6.3) a page may name: word characters only. */
const PAGE_FIELD = /^[a-z][a-z_]{0,63}$/;
const MAX_SUBSCRIBED_FIELDS = 32;

export function createWebhookSubscriptionsService(deps: WebhookSubscriptionsDeps) {
  const { db } = deps;
  const context = deps;
  return {
    /** POST /{app-id}/subscriptions (§6.1): verified, then saved; a later call adds fields. */
    async subscribeApp(credential: SocialCredential, appId: string, input: AppSubscriptionInput): Promise<boolean> {
      requireAppToken(context, credential, appId);
      const object = input.object ?? undefined;
      if (!object) throw socialErrors.missingParameter('object');
      if (object !== WEBHOOK_OBJECT)
        throw socialErrors.invalidParameter('object', `(#100) Param object must be one of {${WEBHOOK_OBJECT}}.`);
      const callbackUrl = input.callbackUrl ?? undefined;
      if (!callbackUrl) throw socialErrors.missingParameter('callback_url');
      const verifyToken = input.verifyToken ?? undefined;
      if (!verifyToken) throw socialErrors.missingParameter('verify_token');
      if (verifyToken.length > MAX_VERIFY_TOKEN)
        throw socialErrors.invalidParameter('verify_token', `The verify token must be at most ${MAX_VERIFY_TOKEN} characters.`);
      // Refused before the callback is called: the database's text cannot hold U+0000, so the subscription could not
      // be stored after a verification that succeeded.
      if (verifyToken.includes('\u0000')) throw socialErrors.invalidParameter('verify_token', 'The verify token must not contain U+0000.');
      if (callbackUrl.includes('\u0000')) throw socialErrors.invalidParameter('callback_url', 'The callback URL must not contain U+0000.');
      const fields = webhookFields(context, input.fields, 'fields');
      await verifyCallback(context, callbackUrl, verifyToken);
      await saveAppSubscription(
        db,
        { appId, object, callbackUrl, verifyToken, includeValues: input.includeValues ?? false, fields },
        deps.now(),
      );
      return true;
    },

    /** GET /{app-id}/subscriptions (§6.1). */
    async appSubscriptions(credential: SocialCredential, appId: string): Promise<AppSubscriptionView[]> {
      requireAppToken(context, credential, appId);
      return (await findAppSubscriptions(db, appId)).map((row) => ({
        object: row.object,
        callbackUrl: row.callbackUrl,
        active: row.active,
        includeValues: row.includeValues,
        fields: row.fields.map((name) => ({ name, version: FIELD_VERSION })),
      }));
    },

    /** DELETE /{app-id}/subscriptions (§6.1): some fields, an object's subscription, or every subscription of the app. */
    async unsubscribeApp(
      credential: SocialCredential,
      appId: string,
      object: string | null | undefined,
      fields: readonly string[] | null | undefined,
    ): Promise<boolean> {
      requireAppToken(context, credential, appId);
      if (object !== null && object !== undefined && object !== WEBHOOK_OBJECT) {
        throw socialErrors.invalidParameter('object', `(#100) Param object must be one of {${WEBHOOK_OBJECT}}.`);
      }
      const chosen = fields && fields.length > 0 ? webhookFields(context, fields, 'fields') : undefined;
      // Fields without an object are the fields of every object the app subscribed to — `social`, the only one — never
      // the removal of everything that no object alone means.
      await removeAppSubscriptions(db, appId, object ?? (chosen ? WEBHOOK_OBJECT : undefined), chosen, deps.now());
      return true;
    },

    /** POST /me/subscribed_apps (own-login host) or /{page-id}/subscribed_apps (parent host) (§6.3). */
    async subscribeAccount(
      viewer: Viewer,
      pageId: string | null | undefined,
      fields: readonly string[] | null | undefined,
    ): Promise<boolean> {
      const { accountId, objectId } = targetAccount(context, viewer, pageId, 'post');
      authorize(viewer, 'subscribeApps', { accountId, objectId, method: 'post' });
      const appId = tokenApp(context, viewer);
      let chosen: string[];
      if (viewer.host === 'own') {
        chosen = webhookFields(context, fields, 'subscribed_fields');
      } else {
        // The page edge takes page fields; the social fields are chosen at app level (§6.3, observed: refused here).
        if (!fields || fields.length === 0) throw socialErrors.missingParameter('subscribed_fields');
        if (fields.length > MAX_SUBSCRIBED_FIELDS)
          throw socialErrors.invalidParameter('subscribed_fields', `At most ${MAX_SUBSCRIBED_FIELDS} fields.`);
        for (const field of fields) {
          if (!PAGE_FIELD.test(field) || (WEBHOOK_FIELDS as readonly string[]).includes(field)) {
            throw socialErrors.invalidParameter(
              'subscribed_fields',
              `(#100) "${field.slice(0, 64)}" is not a page field: subscribe the app to ${WEBHOOK_FIELDS.join(', ')} at /{app-id}/subscriptions.`,
            );
          }
        }
        chosen = [...new Set(fields)];
      }
      await saveSubscribedApp(db, accountId, appId, chosen);
      return true;
    },

    /** GET …/subscribed_apps: every app the account is subscribed to. */
    async subscribedApps(viewer: Viewer, pageId: string | null | undefined): Promise<SubscribedAppView[]> {
      const { accountId, objectId } = targetAccount(context, viewer, pageId, 'get');
      authorize(viewer, 'subscribeApps', { accountId, objectId, method: 'get' });
      const rows = await findSubscribedApps(db, accountId);
      const views: SubscribedAppView[] = [];
      for (const row of rows) {
        const app = await deps.apps.findApp(row.appId);
        if (app) views.push({ id: app.id, name: app.name, subscribedFields: row.subscribedFields });
      }
      return views;
    },

    /** DELETE …/subscribed_apps: the token's app no longer gets the account's events. */
    async unsubscribeAccount(viewer: Viewer, pageId: string | null | undefined): Promise<boolean> {
      const { accountId, objectId } = targetAccount(context, viewer, pageId, 'delete');
      authorize(viewer, 'subscribeApps', { accountId, objectId, method: 'delete' });
      await removeSubscribedApp(db, accountId, tokenApp(context, viewer));
      return true;
    },
  };
}

/** The app's own token, for the app's own settings; any other credential is refused as the reference refuses it. */
function requireAppToken(context: WebhookSubscriptionsDeps, credential: SocialCredential, appId: string): void {
  switch (credential.kind) {
    case 'none':
    case 'invalid':
      return refuseCredential(credential);
    case 'token':
      throw socialErrors.appTokenRequired();
    case 'app':
      if (credential.appId !== appId) throw socialErrors.appTokenRequired();
  }
}

function webhookFields(context: WebhookSubscriptionsDeps, fields: readonly string[] | null | undefined, parameter: string): WebhookField[] {
  if (!fields || fields.length === 0) throw socialErrors.missingParameter(parameter);
  const chosen = new Set<WebhookField>();
  for (const field of fields) {
    if (!(WEBHOOK_FIELDS as readonly string[]).includes(field)) {
      throw socialErrors.invalidParameter(
        parameter,
        `(#100) "${field.slice(0, 64)}" is not a field of the ${WEBHOOK_OBJECT} object: use ${WEBHOOK_FIELDS.join(', ')}.`,
      );
    }
    chosen.add(field as WebhookField);
  }
  return [...chosen];
}

/** Makes the verification request (§6.2) and checks its answer; throws the reference's error when it fails. */
async function verifyCallback(context: WebhookSubscriptionsDeps, callbackUrl: string, verifyToken: string): Promise<void> {
  const deps = context;
  const checked = await deps.callbacks.check(callbackUrl);
  if (!checked.ok) throw socialErrors.invalidParameter('callback_url', checked.message);
  const challenge = deps.challenge?.() ?? String(randomInt(1, 2 ** 31 - 1));
  const url = new URL(checked.url);
  url.searchParams.set('hub.mode', 'subscribe');
  url.searchParams.set('hub.challenge', challenge);
  url.searchParams.set('hub.verify_token', verifyToken);
  const reply = await deps.callbacks.request({ method: 'GET', url: url.toString() });
  if (reply.kind === 'refused') throw socialErrors.invalidParameter('callback_url', reply.message);
  if (reply.kind === 'failed') throw socialErrors.callbackVerificationFailed(`the callback could not be reached (${reply.reason}).`);
  if (reply.status !== 200) {
    throw socialErrors.callbackVerificationFailed(
      `HTTP Status Code = ${reply.status}; HTTP Message = ${STATUS_CODES[reply.status] ?? 'Unknown'}`,
    );
  }
  const received = reply.body.toString('utf8').trim();
  // An answer cut at the size bound is not the challenge, whatever its first bytes are.
  if (reply.truncated || received !== challenge) {
    const shown = received.length > 100 || reply.truncated ? `${received.slice(0, 100)}…` : received;
    throw socialErrors.callbackVerificationFailed(`Response does not match challenge, expected value="${challenge}", received="${shown}"`);
  }
}

/** The account a `subscribed_apps` call is about: the token's own on the own-login host, the page's on the parent host. */
function targetAccount(
  context: WebhookSubscriptionsDeps,
  viewer: Viewer,
  pageId: string | null | undefined,
  method: SocialMethod,
): { accountId: string; objectId: string } {
  if (viewer.host === 'own') return { accountId: viewer.subjectId, objectId: viewer.subjectId };
  if (!pageId) throw socialErrors.missingParameter('page_id');
  const role = [...viewer.pageRoles.values()].find((candidate) => candidate.pageId === pageId);
  if (!role) throw socialErrors.unknownObject(pageId, method);
  return { accountId: role.accountId, objectId: pageId };
}

function tokenApp(context: WebhookSubscriptionsDeps, viewer: Viewer): string {
  if (viewer.appId === null) {
    throw socialErrors.invalidParameter('access_token', 'The access token was issued to no app: issue one to an app to subscribe it.');
  }
  return viewer.appId;
}

export type WebhookSubscriptionsService = ReturnType<typeof createWebhookSubscriptionsService>;
