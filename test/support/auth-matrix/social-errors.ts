import { expect } from 'vitest';
import type { GraphqlReply } from '../graphql-client.ts';
import {
  appTokenRequired,
  expiredToken,
  GRAPH_MESSAGES,
  graphErrorBody,
  invalidParameter,
  missingPermission,
  noToken,
  notAllowed,
  PUBLISHING,
  revokedToken,
  unknownField,
  unparsableToken,
  unsupported,
  wwwAuthenticate,
  type ExpectedGraphError,
  type GraphMethod,
} from '../graph-error-expectations.ts';
import type { RestReply } from '../rest-client.ts';
import { expectNoLeak, shown } from './matrix.ts';

/**
 * The errors of the social graph (Areas B and C) as the matrix expects them, by kind: the Graph envelope with its
 * WWW-Authenticate header on the REST hosts, and the same error as a GraphQL error with `extensions.code` and
 * `extensions.reason` on the gateway. Their words and envelopes are graph-error-expectations.ts's.
 */

/** What a refused cell must answer, by kind; ids are named by the key of the cell's target that holds them. */
export type SocialErrorSpec =
  | { kind: 'noToken' }
  | { kind: 'unparsable' }
  | { kind: 'wrongHost' }
  | { kind: 'expired' }
  | { kind: 'revoked' }
  /** `(#200) Requires extended permission: <p>`, p one of `anyOf` (the reference names a group, not which one to report). */
  | { kind: 'permission'; anyOf: readonly string[] }
  | { kind: 'notAllowed' }
  | { kind: 'unknownObject'; method: GraphMethod; object: string }
  | { kind: 'unknownField'; field: string }
  | { kind: 'publishingNotFound'; object: string }
  | { kind: 'invalidParameter'; parameter: string; message: (target: Readonly<Record<string, string>>) => string }
  /** 15: an app's own settings with a token that is not that app's access token. */
  | { kind: 'appTokenRequired' };

/** The dates of the expired tokens: issued two hours before the clock for one hour. */
export interface ExpiryDates {
  expiredAt: Date;
  now: Date;
}

/** A short label of the outcome, for cell names: the Graph code on REST, the GraphQL code and reason on the gateway. */
export function outcomeLabel(spec: SocialErrorSpec, transport: 'rest' | 'graphql'): string {
  const [graph, graphqlCode, reason] = LABELS[spec.kind];
  if (transport === 'graphql') return `${graphqlCode} ${reason}`;
  switch (spec.kind) {
    case 'permission':
      return `${graph} requires ${spec.anyOf.join(' or ')}`;
    case 'unknownObject':
      return `${graph} unsupported ${spec.method} request`;
    case 'unknownField':
      return `${graph} nonexisting field (${spec.field})`;
    default:
      return `${graph} ${reason}`;
  }
}

const LABELS: Record<SocialErrorSpec['kind'], [graph: string, graphqlCode: string, reason: string]> = {
  noToken: ['104', 'UNAUTHENTICATED', 'NO_TOKEN'],
  unparsable: ['190', 'UNAUTHENTICATED', 'TOKEN_UNPARSABLE'],
  wrongHost: ['190', 'UNAUTHENTICATED', 'WRONG_HOST'],
  expired: ['190/463', 'UNAUTHENTICATED', 'TOKEN_EXPIRED'],
  revoked: ['190/467', 'UNAUTHENTICATED', 'TOKEN_REVOKED'],
  permission: ['200', 'FORBIDDEN', 'MISSING_PERMISSION'],
  notAllowed: ['10', 'FORBIDDEN', 'NOT_ALLOWED'],
  unknownObject: ['100/33', 'NOT_FOUND', 'UNKNOWN_OBJECT'],
  unknownField: ['100', 'BAD_USER_INPUT', 'UNKNOWN_FIELD'],
  publishingNotFound: ['24/2207006', 'BAD_USER_INPUT', 'PUBLISHING_ERROR'],
  invalidParameter: ['100', 'BAD_USER_INPUT', 'INVALID_PARAMETER'],
  appTokenRequired: ['15', 'FORBIDDEN', 'APP_TOKEN_REQUIRED'],
};

interface GraphqlShape {
  code: 'UNAUTHENTICATED' | 'FORBIDDEN' | 'NOT_FOUND' | 'BAD_USER_INPUT';
  reason: string;
  message: string | RegExp;
  /** Extensions besides code and reason that must be there with these values. */
  extensions: Record<string, unknown>;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function permissionMessage(anyOf: readonly string[]): string | RegExp {
  return anyOf.length === 1
    ? GRAPH_MESSAGES.missingPermission(anyOf[0]!)
    : new RegExp(`^${escapeRegExp(GRAPH_MESSAGES.missingPermission(''))}(${anyOf.map(escapeRegExp).join('|')})$`);
}

function idOf(target: Readonly<Record<string, string>>, key: string): string {
  const id = target[key];
  if (id === undefined) throw new Error(`the cell's target has no ${key}`);
  return id;
}

/** The envelope of a refusal on the REST hosts (a RegExp message: one of several permissions). */
function restShape(
  spec: SocialErrorSpec,
  dates: ExpiryDates,
  target: Readonly<Record<string, string>>,
): Omit<ExpectedGraphError, 'message'> & { message: string | RegExp } {
  switch (spec.kind) {
    case 'noToken':
      return noToken;
    case 'unparsable':
    case 'wrongHost':
      // README decision: a token of the other login type is answered as a token the host cannot parse.
      return unparsableToken;
    case 'expired':
      return expiredToken(dates.expiredAt, dates.now);
    case 'revoked':
      return revokedToken;
    case 'permission':
      return { ...missingPermission(spec.anyOf[0]!), message: permissionMessage(spec.anyOf) };
    case 'notAllowed':
      return notAllowed;
    case 'unknownObject':
      return unsupported(spec.method, idOf(target, spec.object));
    case 'unknownField':
      return unknownField(spec.field);
    case 'publishingNotFound':
      return PUBLISHING.notFound(idOf(target, spec.object));
    case 'invalidParameter':
      return invalidParameter(spec.message(target));
    case 'appTokenRequired':
      return appTokenRequired;
  }
}

function graphqlShape(spec: SocialErrorSpec, dates: ExpiryDates, target: Readonly<Record<string, string>>): GraphqlShape {
  switch (spec.kind) {
    case 'noToken':
      return { code: 'UNAUTHENTICATED', reason: 'NO_TOKEN', message: GRAPH_MESSAGES.noToken, extensions: {} };
    case 'unparsable':
      return { code: 'UNAUTHENTICATED', reason: 'TOKEN_UNPARSABLE', message: GRAPH_MESSAGES.unparsableToken, extensions: {} };
    case 'wrongHost':
      return { code: 'UNAUTHENTICATED', reason: 'WRONG_HOST', message: GRAPH_MESSAGES.unparsableToken, extensions: {} };
    case 'expired':
      return {
        code: 'UNAUTHENTICATED',
        reason: 'TOKEN_EXPIRED',
        message: GRAPH_MESSAGES.expiredToken(dates.expiredAt.toISOString(), dates.now.toISOString()),
        extensions: { expiredAt: dates.expiredAt.toISOString(), now: dates.now.toISOString() },
      };
    case 'revoked':
      return {
        code: 'UNAUTHENTICATED',
        reason: 'TOKEN_REVOKED',
        message: GRAPH_MESSAGES.revokedToken,
        extensions: {},
      };
    case 'permission':
      return {
        code: 'FORBIDDEN',
        reason: 'MISSING_PERMISSION',
        message: permissionMessage(spec.anyOf),
        extensions: spec.anyOf.length === 1 ? { permission: spec.anyOf[0] } : {},
      };
    case 'notAllowed':
      return { code: 'FORBIDDEN', reason: 'NOT_ALLOWED', message: GRAPH_MESSAGES.notAllowed, extensions: {} };
    case 'unknownObject':
      return {
        code: 'NOT_FOUND',
        reason: 'UNKNOWN_OBJECT',
        message: GRAPH_MESSAGES.unknownObject(spec.method, idOf(target, spec.object)),
        extensions: { id: idOf(target, spec.object), method: spec.method },
      };
    case 'unknownField':
      return {
        code: 'BAD_USER_INPUT',
        reason: 'UNKNOWN_FIELD',
        message: GRAPH_MESSAGES.unknownField(spec.field),
        extensions: { field: spec.field, nodeType: 'SocialUser' },
      };
    case 'publishingNotFound': {
      const notFound = PUBLISHING.notFound(idOf(target, spec.object));
      return {
        code: 'BAD_USER_INPUT',
        reason: 'PUBLISHING_ERROR',
        message: notFound.message,
        extensions: {
          graphCode: notFound.code,
          subcode: notFound.error_subcode,
          userTitle: notFound.error_user_title,
          userMessage: notFound.error_user_msg,
        },
      };
    }
    case 'invalidParameter':
      return {
        code: 'BAD_USER_INPUT',
        reason: 'INVALID_PARAMETER',
        message: spec.message(target),
        extensions: { parameter: spec.parameter },
      };
    case 'appTokenRequired':
      return { code: 'FORBIDDEN', reason: 'APP_TOKEN_REQUIRED', message: GRAPH_MESSAGES.appTokenRequired, extensions: {} };
  }
}

const text = (value: string | RegExp) => (typeof value === 'string' ? value : expect.stringMatching(value));

/** A refused REST request: HTTP 400, exactly the Graph envelope, the OAuth challenge header, and nothing of the object. */
export function expectGraphRefusal(
  reply: RestReply,
  spec: SocialErrorSpec,
  dates: ExpiryDates,
  target: Readonly<Record<string, string>>,
  secrets: readonly string[],
): void {
  const expected = restShape(spec, dates, target);
  expect(reply.status, shown(reply.status, reply.text)).toBe(400);
  expect(reply.headers.get('content-type'), shown(reply.status, reply.text)).toMatch(/^application\/json\b/);
  expect(reply.body, shown(reply.status, reply.text)).toEqual(graphErrorBody(expected));
  // The challenge repeats the message (reference §3.3: invalid_token for 190, invalid_request otherwise).
  expect(reply.headers.get('www-authenticate'), shown(reply.status, reply.text)).toBe(
    wwwAuthenticate(expected.code, reply.body.error.message as string),
  );
  expectNoLeak(reply.text, secrets);
}

/**
 * A refused GraphQL request: HTTP 200 with errors (GraphQL over HTTP), every error the expected one (a selection that
 * fails in several fields fails each with the same error), and nothing of the object in the data or anywhere else.
 */
export function expectGraphqlRefusal(
  reply: GraphqlReply,
  spec: SocialErrorSpec,
  dates: ExpiryDates,
  target: Readonly<Record<string, string>>,
  secrets: readonly string[],
  options: { partial?: boolean } = {},
): void {
  const expected = graphqlShape(spec, dates, target);
  expect(reply.status, shown(reply.status, reply.text)).toBe(200);
  expect(reply.errors?.length ?? 0, shown(reply.status, reply.text)).toBeGreaterThan(0);
  for (const error of reply.errors!) {
    expect(error, shown(reply.status, reply.text)).toMatchObject({
      message: text(expected.message),
      path: expect.any(Array),
      extensions: { code: expected.code, reason: expected.reason, ...expected.extensions },
    });
  }
  // Whatever the selection, a refusal leaves no value in the data — unless the operation's other fields need no permission.
  if (!options.partial) expect(nonNullLeaves(reply.data), shown(reply.status, reply.text)).toEqual([]);
  expectNoLeak(reply.text, secrets);
}

/** Paths of the data's leaves that hold a value (null and undefined data have none). */
function nonNullLeaves(data: unknown, path = 'data'): string[] {
  if (data === null || data === undefined) return [];
  if (Array.isArray(data)) return data.flatMap((item, index) => nonNullLeaves(item, `${path}[${index}]`));
  if (typeof data === 'object') return Object.entries(data).flatMap(([key, value]) => nonNullLeaves(value, `${path}.${key}`));
  return [`${path} = ${JSON.stringify(data)}`];
}
