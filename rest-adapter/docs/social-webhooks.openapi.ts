import { WEBHOOK_FIELDS, WEBHOOK_OBJECT } from '../../contracts/social-graph.ts';
import {
  type GraphHost,
  type GraphOperationDoc,
  type GraphPathDoc,
  OWN_ONLY,
  PARENT_ONLY,
  type Schema,
  SUCCESS,
  query,
  ref,
  text,
} from './social-openapi-parts.ts';

/**
 * The webhook subscription paths (reference §6.1, §6.3): an app's own subscriptions on the parent-platform host, with its
 * app access token, and an account's subscription to the token's app — `/me/subscribed_apps` on the own-login host,
 * `/{page-id}/subscribed_apps` on the parent-platform host.
 */

const FIELD_LIST = WEBHOOK_FIELDS.join(', ');

const APP_ID = { parameter: 'app-id', description: 'An app id (the first part of its app access token).', kinds: ['app'] } as const;
const PAGE_ID = {
  parameter: 'page-id',
  description: 'A parent-platform page on which the token’s user has a role (its linked professional account is subscribed).',
  kinds: ['page'],
} as const;

const APP_TOKEN_NOTE =
  'Token: the app access token `<app-id>|<app-secret>` of this app (104 without one, 190 when it does not parse, 15 for ' +
  'any other token — a user token or another app’s).';

const subscriptionOperations: readonly GraphOperationDoc[] = [
  {
    method: 'get',
    operationId: 'getAppSubscriptions',
    summary: "The app's webhook subscriptions: object, callback URL, whether active, and the fields with their version.",
    description: `${APP_TOKEN_NOTE} \`fields\` is not taken: every subscription is answered whole.`,
    tag: 'accounts',
    token: 'app',
    hosts: PARENT_ONLY,
    reply: ref('GraphAppSubscriptions'),
  },
  {
    method: 'post',
    operationId: 'subscribeApp',
    summary: "Subscribes the app's callback URL to fields of an object, once the callback has answered the verification request.",
    description:
      'Before anything is saved the callback gets the verification request — `GET <callback_url>` with `hub.mode=subscribe`, ' +
      '`hub.challenge` and `hub.verify_token` added to its own query — and must answer 200 with the challenge as its ' +
      'whole body; anything else is 2200 (`(#2200) Callback verification failed with the following errors: …`) and ' +
      'nothing is stored. A later POST for the same object adds its fields to the subscription (and takes the new ' +
      'callback URL, verify token and include_values). A callback_url the platform may not call (not http(s), a private ' +
      `or loopback address) is 100. ${APP_TOKEN_NOTE}`,
    tag: 'accounts',
    token: 'app',
    hosts: PARENT_ONLY,
    form: {
      properties: {
        object: text(`The object: \`${WEBHOOK_OBJECT}\`.`, { enum: [WEBHOOK_OBJECT] }),
        callback_url: text('Where deliveries and the verification request go (https in production).'),
        fields: text(`Fields of the object — ${FIELD_LIST} — as a comma-separated list or a JSON array.`),
        verify_token: text('The string the verification request repeats as `hub.verify_token` (at most 256 characters).'),
        include_values: {
          type: 'boolean',
          description: 'Deliveries carry the new values (`changes`), not only the field names. Default false.',
        },
      },
      required: ['object', 'callback_url', 'fields', 'verify_token'],
    },
    reply: SUCCESS,
  },
  {
    method: 'delete',
    operationId: 'unsubscribeApp',
    summary: "Removes fields of an app's subscription, an object's subscription, or (without `object`) all of them.",
    description: APP_TOKEN_NOTE,
    tag: 'accounts',
    token: 'app',
    hosts: PARENT_ONLY,
    query: [
      query(
        'object',
        { type: 'string', enum: [WEBHOOK_OBJECT] },
        'Only this object’s subscription; absent: every subscription of the app.',
      ),
      query('fields', { type: 'string' }, 'Only these fields (comma-separated list or JSON array); absent: the whole subscription.'),
    ],
    reply: SUCCESS,
  },
];

/** The operations of `…/subscribed_apps`, on `/me` (own-login host) or a page (parent-platform host). */
function subscribedAppsOperations(prefix: string, hosts: readonly GraphHost[]): readonly GraphOperationDoc[] {
  const own = hosts.includes('own');
  const target = own ? "the token's own account" : "the page's linked professional account";
  const fieldsNote = own
    ? `The fields are webhook fields of the \`${WEBHOOK_OBJECT}\` object (${FIELD_LIST}).`
    : `The fields are page fields (e.g. \`feed\`); the ${WEBHOOK_OBJECT} fields (${FIELD_LIST}) are chosen at app level ` +
      '(`/{app-id}/subscriptions`) and refused here with 100.';
  const pageNote = own ? undefined : 'A page the user has no role on is 100/33.';
  const appNote = 'The app is the one the token was issued to (100 for a token issued to no app).';
  const join = (...parts: (string | undefined)[]) => parts.filter(Boolean).join(' ');
  return [
    {
      method: 'get',
      operationId: `${prefix}getSubscribedApps`,
      summary: `The apps ${target} is subscribed to, with the fields it subscribed.`,
      description: join('`fields` is not taken: every app is answered whole.', pageNote),
      tag: 'accounts',
      permissions: 'subscribeApps',
      hosts,
      reply: ref('GraphSubscribedApps'),
    },
    {
      method: 'post',
      operationId: `${prefix}subscribeToApp`,
      summary: `Subscribes ${target} to the token's app: its events reach the fields the app subscribed to.`,
      description: join(appNote, fieldsNote, pageNote),
      tag: 'accounts',
      permissions: 'subscribeApps',
      hosts,
      form: {
        properties: { subscribed_fields: text('A comma-separated list or a JSON array.') },
        required: ['subscribed_fields'],
      },
      reply: SUCCESS,
    },
    {
      method: 'delete',
      operationId: `${prefix}unsubscribeFromApp`,
      summary: `Unsubscribes ${target} from the token's app.`,
      description: join(appNote, pageNote),
      tag: 'accounts',
      permissions: 'subscribeApps',
      hosts,
      reply: SUCCESS,
    },
  ];
}

export const WEBHOOK_PATHS: readonly GraphPathDoc[] = [
  { node: APP_ID, edge: 'subscriptions', operations: subscriptionOperations },
  { node: PAGE_ID, edge: 'subscribed_apps', operations: subscribedAppsOperations('', PARENT_ONLY) },
  { node: 'me', edge: 'subscribed_apps', operations: subscribedAppsOperations('me_', OWN_ONLY) },
];

/** The replies of the reads. */
export function webhookComponentSchemas(): Record<string, Schema> {
  return {
    GraphAppSubscriptions: {
      type: 'object',
      required: ['data'],
      properties: {
        data: {
          type: 'array',
          items: {
            type: 'object',
            required: ['object', 'callback_url', 'active', 'fields'],
            properties: {
              object: { type: 'string', enum: [WEBHOOK_OBJECT] },
              callback_url: { type: 'string' },
              active: { type: 'boolean' },
              fields: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['name', 'version'],
                  properties: { name: { type: 'string', enum: [...WEBHOOK_FIELDS] }, version: { type: 'string', example: 'v25.0' } },
                },
              },
            },
          },
        },
      },
    },
    GraphSubscribedApps: {
      type: 'object',
      required: ['data'],
      properties: {
        data: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'name', 'subscribed_fields'],
            properties: {
              id: { type: 'string' },
              name: { type: 'string' },
              subscribed_fields: { type: 'array', items: { type: 'string' } },
            },
          },
        },
      },
    },
  };
}
