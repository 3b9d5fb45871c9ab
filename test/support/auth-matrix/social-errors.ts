import { expect } from 'vitest';
import type { GraphqlReply } from '../graphql-client.ts';
import type { RestReply } from '../rest-client.ts';
import { expectNoLeak, shown } from './matrix.ts';

/**
 * The errors of the social graph (Areas B and C) as the matrix expects them, written from the reference
 * (/work/shared/reference/social-graph.md §3.3) and the README's decisions, not taken from the product's catalogue:
 * the Graph envelope with its WWW-Authenticate header on the REST hosts, and the same error as a GraphQL error with
 * `extensions.code` and `extensions.reason` on the gateway.
 */

export type GraphMethod = 'get' | 'post' | 'delete';

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
  | { kind: 'invalidParameter'; parameter: string; message: (target: Readonly<Record<string, string>>) => string };

/** The dates of the expired tokens: issued two hours before the clock for one hour. */
export interface ExpiryDates {
  expiredAt: Date;
  now: Date;
}

const UNPARSABLE = 'Invalid OAuth access token - Cannot parse access token';
const DOCS = 'https://developers.facebook.com/docs/graph-api';
const FBTRACE_ID = /^[A-Za-z0-9_-]{11}$/;

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
};

interface RestShape {
  code: number;
  subcode?: number;
  type: 'OAuthException' | 'GraphMethodException';
  message: string | RegExp;
  /** Publishing errors say whether they are transient (reference §3.3's optional is_transient). */
  transient?: boolean;
  userTitle?: string;
  userMessage?: string;
}

interface GraphqlShape {
  code: 'UNAUTHENTICATED' | 'FORBIDDEN' | 'NOT_FOUND' | 'BAD_USER_INPUT';
  reason: string;
  message: string | RegExp;
  /** Extensions besides code and reason that must be there with these values. */
  extensions: Record<string, unknown>;
}

/** `Monday, 02-Nov-26 09:00:00 UTC`: the platform's session date (PHP DATE_COOKIE), in UTC. */
function sessionDate(date: Date): string {
  const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${days[date.getUTCDay()]}, ${two(date.getUTCDate())}-${months[date.getUTCMonth()]}-${two(date.getUTCFullYear() % 100)} ` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} UTC`
  );
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function permissionMessage(anyOf: readonly string[]): string | RegExp {
  return anyOf.length === 1
    ? `(#200) Requires extended permission: ${anyOf[0]}`
    : new RegExp(`^${escapeRegExp('(#200) Requires extended permission: ')}(${anyOf.map(escapeRegExp).join('|')})$`);
}

const unsupported = (method: GraphMethod, id: string) =>
  `Unsupported ${method} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`;

function idOf(target: Readonly<Record<string, string>>, key: string): string {
  const id = target[key];
  if (id === undefined) throw new Error(`the cell's target has no ${key}`);
  return id;
}

function restShape(spec: SocialErrorSpec, dates: ExpiryDates, target: Readonly<Record<string, string>>): RestShape {
  switch (spec.kind) {
    case 'noToken':
      return { code: 104, type: 'OAuthException', message: 'An access token is required to request this resource.' };
    case 'unparsable':
    case 'wrongHost':
      // README decision: a token of the other login type is answered as a token the host cannot parse.
      return { code: 190, type: 'OAuthException', message: UNPARSABLE };
    case 'expired':
      return {
        code: 190,
        subcode: 463,
        type: 'OAuthException',
        message: `Error validating access token: Session has expired on ${sessionDate(dates.expiredAt)}. The current time is ${sessionDate(dates.now)}.`,
      };
    case 'revoked':
      return {
        code: 190,
        subcode: 467,
        type: 'OAuthException',
        message: 'Error validating access token: The session is invalid because the user logged out.',
      };
    case 'permission':
      return { code: 200, type: 'OAuthException', message: permissionMessage(spec.anyOf) };
    case 'notAllowed':
      return { code: 10, type: 'OAuthException', message: '(#10) Application does not have permission for this action' };
    case 'unknownObject':
      return {
        code: 100,
        subcode: 33,
        type: 'GraphMethodException',
        message: `${unsupported(spec.method, idOf(target, spec.object))} Please read the Graph API documentation at ${DOCS}`,
      };
    case 'unknownField':
      return { code: 100, type: 'OAuthException', message: `(#100) Tried accessing nonexisting field (${spec.field}) on node type (SocialUser)` };
    case 'publishingNotFound':
      return {
        code: 24,
        subcode: 2207006,
        type: 'OAuthException',
        message: 'The requested resource does not exist',
        transient: false,
        userTitle: 'Media not found',
        userMessage: `The media with id ${idOf(target, spec.object)} cannot be found.`,
      };
    case 'invalidParameter':
      return { code: 100, type: 'OAuthException', message: 'Invalid parameter', userMessage: spec.message(target) };
  }
}

function graphqlShape(spec: SocialErrorSpec, dates: ExpiryDates, target: Readonly<Record<string, string>>): GraphqlShape {
  switch (spec.kind) {
    case 'noToken':
      return { code: 'UNAUTHENTICATED', reason: 'NO_TOKEN', message: 'An access token is required to request this resource.', extensions: {} };
    case 'unparsable':
      return { code: 'UNAUTHENTICATED', reason: 'TOKEN_UNPARSABLE', message: UNPARSABLE, extensions: {} };
    case 'wrongHost':
      return { code: 'UNAUTHENTICATED', reason: 'WRONG_HOST', message: UNPARSABLE, extensions: {} };
    case 'expired':
      return {
        code: 'UNAUTHENTICATED',
        reason: 'TOKEN_EXPIRED',
        message: `Error validating access token: Session has expired on ${dates.expiredAt.toISOString()}. The current time is ${dates.now.toISOString()}.`,
        extensions: { expiredAt: dates.expiredAt.toISOString(), now: dates.now.toISOString() },
      };
    case 'revoked':
      return {
        code: 'UNAUTHENTICATED',
        reason: 'TOKEN_REVOKED',
        message: 'Error validating access token: The session is invalid because the user logged out.',
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
      return { code: 'FORBIDDEN', reason: 'NOT_ALLOWED', message: '(#10) Application does not have permission for this action', extensions: {} };
    case 'unknownObject':
      return {
        code: 'NOT_FOUND',
        reason: 'UNKNOWN_OBJECT',
        message: unsupported(spec.method, idOf(target, spec.object)),
        extensions: { id: idOf(target, spec.object), method: spec.method },
      };
    case 'unknownField':
      return {
        code: 'BAD_USER_INPUT',
        reason: 'UNKNOWN_FIELD',
        message: `(#100) Tried accessing nonexisting field (${spec.field}) on node type (SocialUser)`,
        extensions: { field: spec.field, nodeType: 'SocialUser' },
      };
    case 'publishingNotFound':
      return {
        code: 'BAD_USER_INPUT',
        reason: 'PUBLISHING_ERROR',
        message: 'The requested resource does not exist',
        extensions: { graphCode: 24, subcode: 2207006, userTitle: 'Media not found', userMessage: `The media with id ${idOf(target, spec.object)} cannot be found.` },
      };
    case 'invalidParameter':
      return {
        code: 'BAD_USER_INPUT',
        reason: 'INVALID_PARAMETER',
        message: spec.message(target),
        extensions: { parameter: spec.parameter },
      };
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
  expect(reply.body, shown(reply.status, reply.text)).toEqual({
    error: {
      message: text(expected.message),
      type: expected.type,
      code: expected.code,
      ...(expected.subcode !== undefined && { error_subcode: expected.subcode }),
      ...(expected.transient !== undefined && { is_transient: expected.transient }),
      ...(expected.userTitle !== undefined && { error_user_title: expected.userTitle }),
      ...(expected.userMessage !== undefined && { error_user_msg: expected.userMessage }),
      fbtrace_id: expect.stringMatching(FBTRACE_ID),
    },
  });
  // The challenge repeats the message (reference §3.3: invalid_token for 190, invalid_request otherwise).
  const challenge = `OAuth "Social Platform" "${expected.code === 190 ? 'invalid_token' : 'invalid_request'}" `;
  const header = reply.headers.get('www-authenticate') ?? '';
  expect(header.startsWith(challenge), `WWW-Authenticate: ${header}`).toBe(true);
  const quoted = header.slice(challenge.length);
  const message = reply.body.error.message as string;
  expect(quoted).toBe(`"${message.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, '\\$&')}"`);
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
