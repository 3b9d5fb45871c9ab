import fc from 'fast-check';
import { Agent, STATUS_CODES } from 'node:http';
import { WEBHOOK_FIELDS, WEBHOOK_OBJECT } from '../../../contracts/social-graph.ts';
import { socialId } from '../../../lib/social-graph/social-ids.ts';
import { GRAPH_MESSAGES } from '../graph-error-expectations.ts';
import { excerpt, judgeGraphReply, judgeGraphqlReply, type Judgement, type Problem, type ReplyView } from './error-formats.ts';
import type { CaseOutcome, FuzzDoor } from './fuzz-property.ts';
import { fuzzSettings } from './fuzz-settings.ts';
import type { FuzzSystem } from './fuzz-system.ts';
import type { SystemInfo } from './fuzz-system-protocol.ts';
import { outcomeSummary, replyLabel, transportProblems, type HttpRequestSpec } from './http-door.ts';
import { httpExchange, type HttpOutcome } from './http-exchange.ts';
import {
  normalizePlan,
  type AnswerPlan,
  type BodyPlan,
  type HandshakeRecord,
  type HostileCallbackServers,
} from './hostile-callback-server.ts';
import {
  NUMBER_LIKE_TEXTS,
  PROTOTYPE_NAMES,
  corruptJson,
  hostileString,
  quote,
  rawArray,
  rawJsonNumber,
  rawJsonValue,
  rawObject,
  type RawJson,
} from './hostile-values.ts';
import { describeHttpRequest, shortStringify, withShortText } from './request-description.ts';

/**
 * Webhook subscriptions (issue 26): the verification handshake and the subscription endpoints.
 *
 * The handshake: POST /{app-id}/subscriptions (REST, parent-platform host) or the GraphQL subscribeApp names a callback
 * on a hostile server in the test process (hostile-callback-server.ts), whose answer to the verification GET is drawn —
 * any status (3xx with a Location that must not be followed), the challenge exact, padded, affixed, replaced, past the
 * body bound, not UTF-8 or in JSON, sent whole, in pieces, slowly, or never finished. The reply must come within the
 * response timeout (plus processing), in the area's format — the Graph envelope with 2200 and the reference's wording,
 * or GraphQL errors with the reason — and the subscription must be stored (GET /{app-id}/subscriptions and the
 * social.app_subscription row agree) if and only if the answer was a whole 200 whose body, whitespace trimmed, is the
 * challenge. Where a reading is fairly open (a trim of non-ASCII spaces, an answer past the body bound that is the
 * challenge and padding, an answer that ends near the timeout), either outcome passes, but the reply and the store must
 * agree.
 *
 * The endpoints: arbitrary requests to /{app-id}/subscriptions and …/subscribed_apps on both hosts, and the six GraphQL
 * operations, with hostile values, every kind of token, huge and repeated lists, odd methods and bodies, and callback URLs
 * of every shape. Replies are judged as the graph door judges them, plus: an app's subscriptions answer 2xx only to that
 * app's own token; an account is subscribed or unsubscribed only with a token issued to an app; a URL the SSRF rules
 * refuse is refused with 100 (INVALID_PARAMETER) and never reached; and no request ever reaches the forbidden server.
 */

/** The system's webhook settings under this door: quick timeouts so that a hanging callback costs a second, not ten. */
export const WEBHOOK_RESPONSE_TIMEOUT_MS = 1_000;
export const WEBHOOK_MAX_RESPONSE_BYTES = 4_096;
export const WEBHOOKS_SYSTEM_ENV: Readonly<Record<string, string>> = {
  WEBHOOK_RESPONSE_TIMEOUT_MS: String(WEBHOOK_RESPONSE_TIMEOUT_MS),
  WEBHOOK_CONNECT_TIMEOUT_MS: String(WEBHOOK_RESPONSE_TIMEOUT_MS),
  WEBHOOK_MAX_RESPONSE_BYTES: String(WEBHOOK_MAX_RESPONSE_BYTES),
  // Deliveries are not this door's: the worker's leases would change social.webhook_cursor between two digests.
  WEBHOOK_DELIVERY: 'false',
};

/** Processing time the system may add to its callback's bounded time (a loaded two-core machine, PostgreSQL). */
const PROCESSING_SLACK_MS = 3_000;
/** The reference's 2200 message, before its detail (what the callback answered, or why no answer came). */
const VERIFICATION_PREFIX = GRAPH_MESSAGES.callbackVerificationFailed('');
const FIELD_VERSION = 'v25.0';

// ---------------------------------------------------------------------------------------------------------------------
// The hostile answers to the verification request

const asciiWhitespace = fc.string({ unit: fc.constantFrom(' ', '\t', '\r', '\n'), maxLength: 6 });
const oddSpace = fc.string({
  unit: fc.constantFrom('\v', '\f', '\u00a0', '\ufeff', '\u2028', '\u3000', '\u0085', '\u200b', ' '),
  maxLength: 4,
});
const affix = fc.oneof(
  fc.constantFrom('', 'challenge=', 'hub.challenge=', '"', "'", '0', '+', '-', 'OK ', '<html>', '\u0000', '\u001b[0m', '{{', '%20'),
  fc.string({ maxLength: 12 }),
);

const bodyPlan: fc.Arbitrary<BodyPlan> = fc.oneof(
  { weight: 8, arbitrary: fc.constant<BodyPlan>({ kind: 'exact' }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('whitespace' as const), before: asciiWhitespace, after: asciiWhitespace }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('odd-space' as const), before: oddSpace, after: oddSpace }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('affixed' as const), prefix: affix, suffix: affix }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('number' as const),
      how: fc.constantFrom('plus-one', 'minus-one', 'leading-zero', 'negative', 'decimal', 'exponent', 'twice', 'digits') as fc.Arbitrary<
        Extract<BodyPlan, { kind: 'number' }>['how']
      >,
    }),
  },
  { weight: 1, arbitrary: fc.constant<BodyPlan>({ kind: 'empty' }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('huge' as const),
      // Mostly the challenge and whitespace, the answer a lenient reader would take: it is the challenge only when
      // nothing but whitespace follows, even past the bound.
      lead: fc.constantFrom('challenge', 'challenge', 'challenge', 'spaced-challenge', 'nothing') as fc.Arbitrary<
        'challenge' | 'spaced-challenge' | 'nothing'
      >,
      fill: fc.constantFrom(' ', ' ', ' ', '\n', '0', 'x') as fc.Arbitrary<' ' | '\n' | '0' | 'x'>,
      // Bytes past the system's bound (WEBHOOK_MAX_RESPONSE_BYTES): at its edge, or far past it.
      size: fc.oneof(fc.constantFrom(-2, -1, 0, 1, 2), fc.integer({ min: -200, max: 3 * WEBHOOK_MAX_RESPONSE_BYTES })),
      tail: fc.constantFrom('', 'x', 'x', '\n') as fc.Arbitrary<'' | 'x' | '\n'>,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('binary' as const),
      bytes: fc.oneof(
        fc.constantFrom<number[][]>(
          [0xff],
          [0xc0, 0xaf],
          [0xed, 0xa0, 0x80],
          [0x00],
          [0xfe, 0xff],
          [0xf8, 0x88, 0x80, 0x80, 0x80],
          [0xe2, 0x82],
          [0xef, 0xbb, 0xbf],
        ),
        fc.array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 8 }),
      ),
      where: fc.constantFrom('before', 'after', 'instead') as fc.Arbitrary<'before' | 'after' | 'instead'>,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('json' as const), key: fc.constantFrom('challenge', 'hub.challenge'), quoted: fc.boolean() }),
  },
);

const statusCode = fc.oneof(
  { weight: 10, arbitrary: fc.constant(200) },
  { weight: 2, arbitrary: fc.constantFrom(201, 202, 203, 204, 206, 226, 299) },
  { weight: 3, arbitrary: fc.constantFrom(300, 301, 302, 303, 304, 307, 308) },
  { weight: 2, arbitrary: fc.constantFrom(400, 401, 403, 404, 405, 410, 418, 429, 451, 499) },
  { weight: 2, arbitrary: fc.constantFrom(500, 502, 503, 504, 599) },
);

export const answerPlans: fc.Arbitrary<AnswerPlan> = statusCode
  .chain((status) =>
    fc.record({
      status: fc.constant(status),
      reason: fc.oneof(
        { weight: 8, arbitrary: fc.constant<AnswerPlan['reason']>('standard') },
        { weight: 1, arbitrary: fc.constantFrom<AnswerPlan['reason']>('empty', 'other', 'long') },
      ),
      location:
        status >= 300 && status < 400
          ? fc.oneof(
              { weight: 4, arbitrary: fc.constantFrom<AnswerPlan['location']>('absolute', 'protocol-relative', 'relative') },
              { weight: 1, arbitrary: fc.constant<AnswerPlan['location']>('none') },
            )
          : fc.oneof(
              { weight: 8, arbitrary: fc.constant<AnswerPlan['location']>('none') },
              { weight: 1, arbitrary: fc.constant<AnswerPlan['location']>('absolute') },
            ),
      body: bodyPlan,
      contentType: fc.constantFrom<string | undefined>(
        'text/plain',
        'text/plain',
        undefined,
        'application/json',
        'text/html; charset=utf-8',
        'application/octet-stream',
        'text/plain; charset=latin1',
      ),
      framing: fc.constantFrom<AnswerPlan['framing']>('length', 'length', 'chunked', 'chunked', 'close'),
      timing: fc.oneof(
        { weight: 6, arbitrary: fc.constant<AnswerPlan['timing']>({ kind: 'whole' }) },
        { weight: 3, arbitrary: fc.integer({ min: 2, max: 8 }).map((pieces): AnswerPlan['timing'] => ({ kind: 'pieces', pieces })) },
        // Slow, but well within the response timeout.
        {
          weight: 2,
          arbitrary: fc
            .record({
              pieces: fc.integer({ min: 2, max: 4 }),
              totalMs: fc.integer({ min: 20, max: Math.floor(WEBHOOK_RESPONSE_TIMEOUT_MS * 0.3) }),
            })
            .map(({ pieces, totalMs }): AnswerPlan['timing'] => ({ kind: 'slow', pieces, totalMs })),
        },
      ),
      fault: fc.oneof(
        { weight: 14, arbitrary: fc.constant<AnswerPlan['fault']>('none') },
        {
          weight: 1,
          arbitrary: fc.constantFrom<AnswerPlan['fault']>(
            'no-answer',
            'close-without-answer',
            'reset-without-answer',
            'stall-mid-body',
            'reset-mid-body',
            'close-mid-body',
          ),
        },
      ),
    }),
  )
  .map(normalizePlan);

// ---------------------------------------------------------------------------------------------------------------------
// Cases

export type HandshakeApi = 'rest-form' | 'rest-json' | 'rest-query' | 'graphql';

export interface HandshakeCase {
  kind: 'handshake';
  api: HandshakeApi;
  answer: AnswerPlan;
  fields: string[];
  verifyToken: string;
  includeValues: boolean | undefined;
  /** The callback URL's own query string (kept by the verification request, whose hub.* parameters win). */
  callbackQuery: string;
  tokenIn: 'param' | 'bearer';
}

/**
 * A callback URL as a template: `{H}` is the callback server's port (its `/ok/…` paths answer honestly), `{F}` the
 * forbidden server's, `{PAD=n}` pads the path so that the whole URL is n characters long.
 */
export interface UrlShape {
  /**
   * allowed: the honest callback, plainly spelled — the subscription must succeed. refused: the SSRF rules refuse it —
   * 100 / INVALID_PARAMETER (or MISSING_PARAMETER for nothing). unreachable: allowed, but nothing answers there — 2200.
   * any: whatever the rules make of it, in the area's format.
   */
  category: 'allowed' | 'refused' | 'unreachable' | 'any';
  template: string;
}

const shape =
  (category: UrlShape['category']) =>
  (template: string): UrlShape => ({ category, template });

const URL_SHAPES: readonly UrlShape[] = [
  ...[
    'http://127.0.0.1:{H}/ok/plain',
    'http://127.0.0.1:{H}/ok/query?source=fuzz&x=1&x=2',
    'http://127.0.0.1:{H}/ok/fragment#fragment',
    'HTTP://127.0.0.1:{H}/ok/upper-case-scheme',
    'http://127.0.0.1:{H}/ok/%F0%9F%92%A9/..%2f?hub.challenge=1&hub.mode=unsubscribe',
    // As long as the bound allows (lib/http/callback-client.ts: 2048 characters).
    'http://127.0.0.1:{H}/ok/{PAD=2048}',
  ].map(shape('allowed')),
  // Other spellings of 127.0.0.1 (the one allowed host), and URLs whose authority is the honest server while the
  // forbidden one only looks like a host in them (a parser that read them otherwise would go there).
  ...[
    'http://127.1:{H}/ok/short',
    'http://2130706433:{H}/ok/decimal',
    'http://0x7f.0.0.1:{H}/ok/hex',
    'http://0177.0.0.1:{H}/ok/octal',
    'http://127.0.0.1.:{H}/ok/trailing-dot',
    ' http://127.0.0.1:{H}/ok/spaces ',
    'http://127.0.0.1:{H}/ok/\ttab\n',
    'http:/127.0.0.1:{H}/ok/one-slash',
    'http:127.0.0.1:{H}/ok/no-slash',
    'http://127.0.0.1:0{H}/ok/leading-zero-port',
    'http://:@127.0.0.1:{H}/ok/empty-userinfo',
    'http://@127.0.0.1:{H}/ok/empty-user',
    'http://127.0.0.1:{H}\\@127.0.0.1:{F}/',
    'http://127.0.0.1:{H}#@127.0.0.1:{F}/',
    'http://127.0.0.1:{H}?@127.0.0.1:{F}/',
    'http://127.0.0.1:{H}/ok/..%2f..%2f@127.0.0.1:{F}',
    'http://127.0.0.1:{H}/ok/\\\\127.0.0.1:{F}/',
    'http://127.0.0.1:{H}/ok/%0d%0aHost:%20127.0.0.1:{F}',
    'http://127.0.0.1:0/',
    'http://a.localhost:{F}/',
    'http://example.invalid/',
    `http://${'a'.repeat(300)}.example/`,
  ].map(shape('any')),
  ...[
    // loopback spelled otherwise (only 127.0.0.1 itself is allowed)
    'http://localhost:{F}/',
    'http://LOCALHOST.:{F}/',
    'http://[::1]:{F}/',
    'http://[::ffff:127.0.0.1]:{F}/',
    'http://[0:0:0:0:0:ffff:7f00:1]:{F}/',
    'http://0.0.0.0:{F}/',
    'http://0:{F}/',
    'http://[::]:{F}/',
    'http://127.0.0.2:{F}/',
    'http://127.255.255.254:{F}/',
    'http://[64:ff9b::7f00:1]:{F}/',
    'http://[2002:7f00:1::]:{F}/',
    'http://[::127.0.0.1]:{F}/',
    'http://[fe80::1%25lo]:{F}/',
    // userinfo
    'http://user:pass@127.0.0.1:{F}/',
    'http://user@127.0.0.1:{F}/',
    'http://127.0.0.1:{H}@127.0.0.1:{F}/',
    // other schemes
    'file:///etc/passwd',
    'file://127.0.0.1/etc/passwd',
    'gopher://127.0.0.1:{F}/_GET%20/%20HTTP/1.1',
    'ftp://127.0.0.1:{F}/',
    'ws://127.0.0.1:{F}/',
    'wss://127.0.0.1:{F}/',
    'dict://127.0.0.1:{F}/info',
    'ldap://127.0.0.1:{F}/',
    'jar:http://127.0.0.1:{F}/!/',
    'javascript:alert(1)',
    'data:text/plain,hi',
    // private, link-local, metadata, other special addresses
    'http://10.1.2.3/hook',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://169.254.1.1/',
    'http://0xa9fea9fe/',
    'http://2852039166/',
    'http://[::ffff:169.254.169.254]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[fd00:ec2::254]/',
    'http://100.100.100.200/',
    'http://168.63.129.16/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://METADATA.GOOGLE.INTERNAL./',
    'http://100.64.0.1/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://198.18.0.1/',
    'http://192.0.0.192/',
    'http://[fc00::1]/',
    'http://[fe80::1]/',
    'http://[ff02::1]/',
    'http://[2001:db8::1]/',
    // not a URL
    '',
    ' ',
    '/relative/hook',
    'http://',
    'http:///path',
    'http://:{F}/',
    '127.0.0.1:{F}',
    '//127.0.0.1:{F}/',
    'http://[::1',
    'http://a b/',
    'http://%00/',
    'http://127.0.0.1:99999/',
    'http://127.0.0.1:-1/',
    'http://127.0.0.1:{F}:{F}/',
    // past the length bound
    'http://127.0.0.1:{H}/ok/{PAD=2049}',
    'http://127.0.0.1:{F}/{PAD=10240}',
  ].map(shape('refused')),
  ...['http://127.0.0.1:1/hook', 'https://127.0.0.1:{H}/ok/tls-to-a-plain-server'].map(shape('unreachable')),
];

export const callbackUrlShapes: fc.Arbitrary<UrlShape> = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...URL_SHAPES) },
  { weight: 1, arbitrary: hostileString({ maxLength: 12_000 }).map(shape('any')) },
);

/** A URL template with the servers' ports in it. */
export function resolveTemplate(template: string, servers: HostileCallbackServers): string {
  const ports = template.replaceAll('{H}', String(servers.callbackPort)).replaceAll('{F}', String(servers.forbiddenPort));
  return ports.replace(/\{PAD=(\d+)\}/g, (marker, size: string) => 'a'.repeat(Math.max(0, Number(size) - (ports.length - marker.length))));
}

export interface UrlShapeCase {
  kind: 'url';
  api: HandshakeApi;
  shape: UrlShape;
}

/** Who a request presents itself as. */
export type TokenChoice =
  | 'app:main'
  | 'app:other'
  /** main's id with another app's secret, an unknown app id, a malformed app token */
  | 'app:wrong-secret'
  | 'app:unknown'
  | 'app:malformed'
  | keyof SystemInfo['webhooks']['tokens']
  | 'own'
  | 'parent'
  | 'expired'
  | 'revoked'
  | 'none'
  | { raw: string };

const tokenChoice: fc.Arbitrary<TokenChoice> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom<TokenChoice>('app:main', 'ownWithApp', 'parentWithApp') },
  { weight: 4, arbitrary: fc.constantFrom<TokenChoice>('app:other', 'strangerWithApp', 'own', 'parent') },
  { weight: 3, arbitrary: fc.constantFrom<TokenChoice>('app:wrong-secret', 'app:unknown', 'app:malformed', 'expired', 'revoked', 'none') },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        fc.constantFrom('|', '1|2', `${'9'.repeat(19)}|${'0'.repeat(32)}`, '17840000000000012|', 'null', ...PROTOTYPE_NAMES),
        hostileString({ maxLength: 3_000 }),
      )
      .map((raw): TokenChoice => ({ raw })),
  },
);

const UNKNOWN_APP_ID = socialId('app', 999_999_999n);

export function tokenText(choice: TokenChoice, info: SystemInfo): string | undefined {
  if (typeof choice === 'object') return choice.raw;
  const { apps, tokens } = info.webhooks;
  switch (choice) {
    case 'app:main':
      return apps.main.token;
    case 'app:other':
      return apps.other.token;
    case 'app:wrong-secret':
      return `${apps.main.id}|${apps.other.token.split('|')[1]}`;
    case 'app:unknown':
      return `${UNKNOWN_APP_ID}|${'0'.repeat(32)}`;
    case 'app:malformed':
      return `${apps.main.token.toUpperCase()}`;
    case 'ownWithApp':
    case 'parentWithApp':
    case 'strangerWithApp':
      return tokens[choice];
    case 'own':
    case 'parent':
    case 'expired':
    case 'revoked':
      return info.social.tokens[choice];
    case 'none':
      return undefined;
  }
}

/** The node of a path. */
export type TargetRef =
  'app:main' | 'app:other' | 'app:unknown' | 'me' | 'page:roaster' | 'page:bluebottle' | 'account' | 'platform-user' | { text: string };

function targetSegment(target: TargetRef, info: SystemInfo): string {
  if (typeof target === 'object') return encodeURIComponent(target.text.replace(/[\uD800-\uDFFF]/g, '\uFFFD'));
  switch (target) {
    case 'app:main':
      return info.webhooks.apps.main.id;
    case 'app:other':
      return info.webhooks.apps.other.id;
    case 'app:unknown':
      return UNKNOWN_APP_ID;
    case 'me':
      return 'me';
    case 'page:roaster':
      return info.webhooks.pages.roaster;
    case 'page:bluebottle':
      return info.webhooks.pages.bluebottle;
    case 'account':
      return info.social.accounts.bluebottle;
    case 'platform-user':
      return info.social.platformUsers.ana;
  }
}

export interface RestEndpointModel {
  host: 'own' | 'parent';
  version: string | undefined;
  target: TargetRef;
  edge: string[];
  method: string;
  params: [string, string][];
  carrier: 'query' | 'form' | 'json' | 'json-raw';
  rawBody: string;
  token: TokenChoice;
  tokenIn: 'param' | 'bearer' | 'oauth';
}

export interface RestEndpointCase {
  kind: 'rest';
  model: RestEndpointModel;
}

const fieldLists = (valid: readonly string[]): fc.Arbitrary<string> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .subarray([...valid], { minLength: 1 })
        .chain((chosen) => fc.constantFrom(chosen.join(','), JSON.stringify(chosen), ` ${chosen.join(' , ')} `)),
    },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        'feed',
        'messages',
        'comments,feed',
        'COMMENTS',
        'comments\u0000',
        '',
        ',',
        ',,',
        '[',
        '[]',
        '[1]',
        '[null]',
        '["comments",{"a":1}]',
        '["comments",["mentions"]]',
        '{"a":1}',
        '[18446744073709551616]',
        ...PROTOTYPE_NAMES,
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          item: fc.constantFrom('comments', 'feed', 'x', '__proto__', 'a'.repeat(100)),
          count: fc.integer({ min: 33, max: 60_000 }),
          json: fc.boolean(),
        })
        .map(({ item, count, json }) =>
          json ? JSON.stringify(Array<string>(count).fill(item)) : Array<string>(count).fill(item).join(','),
        ),
    },
    { weight: 1, arbitrary: hostileString({ maxLength: 20_000 }) },
  );

const PARAM_VALUES: Record<string, fc.Arbitrary<string>> = {
  object: fc.oneof(
    { weight: 4, arbitrary: fc.constant(WEBHOOK_OBJECT) },
    { weight: 2, arbitrary: fc.constantFrom('page', 'user', 'SOCIAL', ' social', 'social ', 'instagram', '') },
    { weight: 1, arbitrary: hostileString({ maxLength: 2_000 }) },
  ),
  callback_url: callbackUrlShapes.map((one) => one.template),
  fields: fieldLists(WEBHOOK_FIELDS),
  subscribed_fields: fc.oneof(fieldLists(WEBHOOK_FIELDS), fieldLists(['feed', 'messages', 'mention', 'message_reactions'])),
  verify_token: fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom('fuzz', 'meatyhamhock', '', ' ', 'a'.repeat(256), 'a'.repeat(257), '&hub.challenge=1', '\u0000'),
    },
    { weight: 1, arbitrary: hostileString({ maxLength: 5_000 }) },
  ),
  include_values: fc.oneof(
    fc.constantFrom('true', 'false', '1', '0', 'TRUE', ' true ', 'yes', 'maybe', '', 'null', '[]'),
    fc.constantFrom(...NUMBER_LIKE_TEXTS),
  ),
  access_token: hostileString({ maxLength: 300 }),
  method: fc.constantFrom('get', 'post', 'delete', 'GET', 'put', ''),
  suppress_http_code: fc.constantFrom('1', 'true', '0'),
  page_id: fc.constantFrom('1', '17840000000000010', ''),
};

const paramEntry: fc.Arbitrary<[string, string]> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc
      .constantFrom(...Object.keys(PARAM_VALUES))
      .chain((name) => PARAM_VALUES[name]!.map((value): [string, string] => [name, value])),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constantFrom(...PROTOTYPE_NAMES, 'fields[]', 'callback_url[]', 'fields[0]', '', 'hub.challenge'),
      hostileString({ maxLength: 200 }),
    ),
  },
);

/** Valid parameters of a write on `edge` (most cases start from them, then damage or repeat some). */
function baseParams(edge: string, host: 'own' | 'parent'): [string, string][] {
  if (edge === 'subscriptions') {
    return [
      ['object', WEBHOOK_OBJECT],
      ['callback_url', 'http://127.0.0.1:{H}/ok/endpoint'],
      ['fields', 'comments,mentions'],
      ['verify_token', 'fuzz'],
      ['include_values', 'true'],
    ];
  }
  if (edge === 'subscribed_apps') return [['subscribed_fields', host === 'own' ? 'comments' : 'feed']];
  return [];
}

const restEndpointModel: fc.Arbitrary<RestEndpointModel> = fc
  .oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        host: fc.constant<'own' | 'parent'>('parent'),
        target: fc.constantFrom<TargetRef>('app:main', 'app:main', 'app:other', 'app:unknown'),
        edge: fc.constant<string[]>(['subscriptions']),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        host: fc.constant<'own' | 'parent'>('own'),
        target: fc.constant<TargetRef>('me'),
        edge: fc.constant<string[]>(['subscribed_apps']),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        host: fc.constant<'own' | 'parent'>('parent'),
        target: fc.constantFrom<TargetRef>('page:roaster', 'page:bluebottle'),
        edge: fc.constant<string[]>(['subscribed_apps']),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        host: fc.constantFrom<'own' | 'parent'>('own', 'parent'),
        target: fc.oneof(
          fc.constantFrom<TargetRef>('app:main', 'app:other', 'app:unknown', 'me', 'page:roaster', 'account', 'platform-user'),
          fc
            .oneof(
              fc.constantFrom(...NUMBER_LIKE_TEXTS, ...PROTOTYPE_NAMES, '17840000000000012', UNKNOWN_APP_ID),
              hostileString({ maxLength: 300 }),
            )
            .map((text): TargetRef => ({ text })),
        ),
        edge: fc.oneof(
          fc.constantFrom<string[][]>(
            ['subscriptions'],
            ['subscribed_apps'],
            [],
            ['subscriptions', 'x'],
            ['subscribed_apps', 'subscribed_apps'],
            ['subscribers'],
            ['__proto__'],
            ['Subscriptions'],
          ),
          fc.array(fc.constantFrom<string>('subscriptions', 'subscribed_apps', '..', '%2e', '%00', 'constructor'), {
            minLength: 1,
            maxLength: 3,
          }),
        ),
      }),
    },
  )
  .chain((path) =>
    fc.record({
      host: fc.constant(path.host),
      target: fc.constant(path.target),
      edge: fc.constant(path.edge),
      version: fc.oneof(
        { weight: 8, arbitrary: fc.constant<string | undefined>('v25.0') },
        { weight: 2, arbitrary: fc.constant<string | undefined>(undefined) },
        { weight: 1, arbitrary: fc.constantFrom<string | undefined>('v1.0', 'v99.0', 'V25.0', 'v25') },
      ),
      method: fc.oneof(
        { weight: 5, arbitrary: fc.constant('POST') },
        { weight: 4, arbitrary: fc.constant('GET') },
        { weight: 3, arbitrary: fc.constant('DELETE') },
        { weight: 1, arbitrary: fc.constantFrom('PUT', 'PATCH', 'OPTIONS', 'HEAD', 'PROPFIND') },
      ),
      params: fc
        .record({
          base: fc.constantFrom(true, true, true, false),
          // Overrides replace the base's value of the same name; repeats add a second value for it.
          overrides: fc.array(paramEntry, { maxLength: 3 }),
          repeats: fc.oneof(
            { weight: 4, arbitrary: fc.constant<[string, string][]>([]) },
            { weight: 1, arbitrary: fc.array(paramEntry, { minLength: 1, maxLength: 3 }) },
          ),
        })
        .map(({ base, overrides, repeats }) => {
          const params = base ? baseParams(path.edge[0] ?? '', path.host) : [];
          for (const [name, value] of overrides) {
            const at = params.findIndex(([known]) => known === name);
            if (at >= 0) params[at] = [name, value];
            else params.push([name, value]);
          }
          return [...params, ...repeats];
        }),
      carrier: fc.constantFrom<RestEndpointModel['carrier']>('query', 'form', 'form', 'json', 'json-raw'),
      rawBody: fc.oneof(
        fc
          .array(
            fc.tuple(
              fc.constantFrom('object', 'callback_url', 'fields', 'subscribed_fields', 'verify_token', 'include_values', '__proto__'),
              fc.oneof(
                rawJsonValue(2),
                fc.constantFrom('["comments"]', '"social"', 'true', '"http://127.0.0.1:{H}/ok/raw"', '{"a":"b"}', '[["comments"]]'),
              ),
            ),
            { maxLength: 5 },
          )
          .map((entries) => rawObject(entries)),
        corruptJson('{"object":"social","fields":["comments"],"verify_token":"fuzz","callback_url":"http://127.0.0.1:{H}/ok/raw"}'),
      ),
      token: tokenChoice,
      tokenIn: fc.constantFrom<RestEndpointModel['tokenIn']>('param', 'param', 'bearer', 'oauth'),
    }),
  );

export interface GraphqlOperation {
  field: 'subscribeApp' | 'appSubscriptions' | 'unsubscribeApp' | 'subscribeAccountToApp' | 'subscribedApps' | 'unsubscribeAccountFromApp';
  /** Which app the appId names, when it names one. */
  app: 'main' | 'other' | 'handshake' | 'none';
  /** Variable values (raw JSON; absent when undefined). */
  values: Record<string, RawJson | undefined>;
}

export interface GraphqlEndpointModel {
  kind: 'query' | 'mutation';
  operations: GraphqlOperation[];
  token: TokenChoice;
}

export interface GraphqlEndpointCase {
  kind: 'graphql';
  model: GraphqlEndpointModel;
}

/** An app id as a variable value: a known app's (as a string or a number), an unknown one, or anything. */
const appIdValue: fc.Arbitrary<{ app: GraphqlOperation['app']; raw: RawJson }> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .constantFrom('main', 'main', 'other', 'handshake')
      .map((app) => ({ app: app as GraphqlOperation['app'], raw: `"{APP:${app}}"` })),
  },
  { weight: 1, arbitrary: fc.constant({ app: 'main' as const, raw: '{APP:main}' }) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.constantFrom(quote(UNKNOWN_APP_ID), 'null', '""', '"me"', '[]', '{}'),
        rawJsonNumber(),
        hostileString({ maxLength: 200 }).map(quote),
      )
      .map((raw) => ({ app: 'none' as const, raw })),
  },
);

const pageIdValue: fc.Arbitrary<RawJson | undefined> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<RawJson | undefined>(undefined, '"{PAGE:roaster}"', '"{PAGE:bluebottle}"', 'null') },
  {
    weight: 1,
    arbitrary: fc.oneof(fc.constantFrom('"me"', '""', '"{APP:main}"', '[]'), rawJsonNumber(), hostileString({ maxLength: 200 }).map(quote)),
  },
);

const stringListValue = (valid: readonly string[]): fc.Arbitrary<RawJson | undefined> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.subarray([...valid], { minLength: 1 }).map((chosen) => JSON.stringify(chosen)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<RawJson | undefined>(
        undefined,
        'null',
        '[]',
        '["feed"]',
        '"comments"',
        '[null]',
        '[1]',
        '[["comments"]]',
        '["__proto__"]',
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({ item: fc.constantFrom('comments', 'feed', 'x'), count: fc.integer({ min: 33, max: 50_000 }) })
        .map(({ item, count }) => JSON.stringify(Array<string>(count).fill(item))),
    },
    { weight: 1, arbitrary: fc.array(hostileString({ maxLength: 500 }).map(quote), { maxLength: 4 }).map(rawArray) },
  );

const optionalString = (values: fc.Arbitrary<string>): fc.Arbitrary<RawJson | undefined> =>
  fc.oneof(
    { weight: 6, arbitrary: values.map(quote) },
    { weight: 1, arbitrary: fc.constantFrom<RawJson | undefined>(undefined, 'null', '1', 'true', '[]', '{}') },
  );

const subscriptionInput: fc.Arbitrary<RawJson | undefined> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .record(
        {
          object: optionalString(PARAM_VALUES.object!),
          callbackUrl: optionalString(callbackUrlShapes.map((one) => one.template)),
          fields: stringListValue(WEBHOOK_FIELDS),
          verifyToken: optionalString(PARAM_VALUES.verify_token!),
          includeValues: fc.constantFrom<RawJson | undefined>(undefined, 'true', 'false', 'null', '"true"', '1'),
        },
        { requiredKeys: [] },
      )
      .map((input) => rawObject(Object.entries(input).filter((entry): entry is [string, RawJson] => entry[1] !== undefined))),
  },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.constantFrom<RawJson | undefined>(
        undefined,
        'null',
        '[]',
        '"x"',
        '{"__proto__":{"object":"social"}}',
        '{"object":"social","object":"page"}',
        '{"unknown":1}',
      ),
      rawJsonValue(3),
    ),
  },
);

const graphqlOperation = (kind: 'query' | 'mutation'): fc.Arbitrary<GraphqlOperation> => {
  if (kind === 'query') {
    return fc.oneof(
      appIdValue.map(({ app, raw }): GraphqlOperation => ({ field: 'appSubscriptions', app, values: { a: raw } })),
      pageIdValue.map((page): GraphqlOperation => ({ field: 'subscribedApps', app: 'none', values: { p: page } })),
    );
  }
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(appIdValue, subscriptionInput)
        .map(([{ app, raw }, input]): GraphqlOperation => ({ field: 'subscribeApp', app, values: { a: raw, i: input } })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(appIdValue, optionalString(PARAM_VALUES.object!), stringListValue(WEBHOOK_FIELDS))
        .map(([{ app, raw }, object, fields]): GraphqlOperation => ({
          field: 'unsubscribeApp',
          app,
          values: { a: raw, o: object, f: fields },
        })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(pageIdValue, fc.oneof(stringListValue(WEBHOOK_FIELDS), stringListValue(['feed', 'messages'])))
        .map(([page, fields]): GraphqlOperation => ({ field: 'subscribeAccountToApp', app: 'none', values: { p: page, f: fields } })),
    },
    {
      weight: 1,
      arbitrary: pageIdValue.map((page): GraphqlOperation => ({ field: 'unsubscribeAccountFromApp', app: 'none', values: { p: page } })),
    },
  );
};

const graphqlEndpointModel: fc.Arbitrary<GraphqlEndpointModel> = fc
  .constantFrom<'query' | 'mutation'>('mutation', 'mutation', 'query')
  .chain((kind) =>
    fc.record({
      kind: fc.constant(kind),
      operations: fc.array(graphqlOperation(kind), { minLength: 1, maxLength: 2 }),
      token: tokenChoice,
    }),
  );

/** The variables each field takes (by its short name) and what it selects. */
const GRAPHQL_FIELDS: Record<GraphqlOperation['field'], { args: [short: string, name: string, type: string][]; selection: string }> = {
  subscribeApp: {
    args: [
      ['a', 'appId', 'ID!'],
      ['i', 'input', 'AppSubscriptionInput!'],
    ],
    selection: '{ success }',
  },
  appSubscriptions: { args: [['a', 'appId', 'ID!']], selection: '{ object callbackUrl active includeValues fields { name version } }' },
  unsubscribeApp: {
    args: [
      ['a', 'appId', 'ID!'],
      ['o', 'object', 'String'],
      ['f', 'fields', '[String!]'],
    ],
    selection: '{ success }',
  },
  subscribeAccountToApp: {
    args: [
      ['p', 'pageId', 'ID'],
      ['f', 'subscribedFields', '[String!]'],
    ],
    selection: '{ success }',
  },
  subscribedApps: { args: [['p', 'pageId', 'ID']], selection: '{ id name subscribedFields }' },
  unsubscribeAccountFromApp: { args: [['p', 'pageId', 'ID']], selection: '{ success }' },
};

export type WebhookCase = HandshakeCase | UrlShapeCase | RestEndpointCase | GraphqlEndpointCase;

const shortText = <T extends object>(value: T): T => withShortText(value, () => shortStringify(value));

export const handshakeCases = (api: 'rest' | 'graphql'): fc.Arbitrary<WebhookCase> =>
  fc
    .record({
      kind: fc.constant('handshake' as const),
      api:
        api === 'graphql'
          ? fc.constant<HandshakeApi>('graphql')
          : fc.constantFrom<HandshakeApi>('rest-form', 'rest-form', 'rest-json', 'rest-query'),
      answer: answerPlans,
      fields: fc.array(fc.constantFrom(...WEBHOOK_FIELDS), { minLength: 1, maxLength: 4 }),
      verifyToken: fc
        .oneof(
          fc.constantFrom('meatyhamhock', 'fuzz token', 'a'.repeat(256), '&=?#%+;/ ', 'é💩', 'x\u0000y', '1'),
          fc.string({ unit: 'grapheme', minLength: 1, maxLength: 64 }),
        )
        .filter((token) => token.length >= 1 && token.length <= 256),
      includeValues: fc.constantFrom<boolean | undefined>(undefined, true, false),
      callbackQuery: fc.constantFrom(
        '',
        'source=fuzz',
        'hub.challenge=1',
        'hub.mode=unsubscribe&hub.verify_token=other',
        'a=1&a=2',
        'x=%F0%9F%92%A9',
      ),
      tokenIn: fc.constantFrom<'param' | 'bearer'>('param', 'bearer'),
    })
    .map(shortText);

export const urlShapeCases: fc.Arbitrary<WebhookCase> = fc
  .record({
    kind: fc.constant('url' as const),
    api: fc.constantFrom<HandshakeApi>('rest-form', 'rest-json', 'graphql'),
    shape: callbackUrlShapes,
  })
  .map(shortText);

export const restEndpointCases: fc.Arbitrary<WebhookCase> = restEndpointModel.map((model) => shortText({ kind: 'rest' as const, model }));

export const graphqlEndpointCases: fc.Arbitrary<WebhookCase> = graphqlEndpointModel.map((model) =>
  shortText({ kind: 'graphql' as const, model }),
);

// ---------------------------------------------------------------------------------------------------------------------
// Requests

const subscriptionsUrl = (info: SystemInfo, appId: string) => `${info.socialParentUrl}/v25.0/${appId}/subscriptions`;

/** POST /{app-id}/subscriptions or subscribeApp with every parameter right: the handshake's and the URL shapes' request. */
function subscribeRequest(
  api: HandshakeApi,
  info: SystemInfo,
  app: { id: string; token: string },
  input: { callbackUrl: string; fields: string[]; verifyToken: string; includeValues: boolean | undefined },
  tokenIn: 'param' | 'bearer' = 'param',
): HttpRequestSpec {
  if (api === 'graphql') {
    const variables = {
      appId: app.id,
      input: {
        object: WEBHOOK_OBJECT,
        callbackUrl: input.callbackUrl,
        fields: input.fields,
        verifyToken: input.verifyToken,
        ...(input.includeValues !== undefined && { includeValues: input.includeValues }),
      },
    };
    return {
      method: 'POST',
      url: info.gatewayUrl,
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${app.token}` },
      body: JSON.stringify({
        query: 'mutation Subscribe($appId: ID!, $input: AppSubscriptionInput!) { subscribeApp(appId: $appId, input: $input) { success } }',
        variables,
      }),
    };
  }
  const params: [string, string][] = [
    ['object', WEBHOOK_OBJECT],
    ['callback_url', input.callbackUrl],
    ['fields', api === 'rest-json' ? JSON.stringify(input.fields) : input.fields.join(',')],
    ['verify_token', input.verifyToken],
    ...(input.includeValues !== undefined ? [['include_values', String(input.includeValues)] as [string, string]] : []),
  ];
  const headers: Record<string, string> = { accept: 'application/json' };
  if (tokenIn === 'param') params.push(['access_token', app.token]);
  else headers.authorization = `Bearer ${app.token}`;
  const url = subscriptionsUrl(info, app.id);
  switch (api) {
    case 'rest-query':
      return { method: 'POST', url: `${url}?${new URLSearchParams(params).toString()}`, headers };
    case 'rest-json':
      return {
        method: 'POST',
        url,
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(Object.fromEntries(params.map(([name, value]) => [name, name === 'fields' ? input.fields : value]))),
      };
    default:
      return {
        method: 'POST',
        url,
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(params).toString(),
      };
  }
}

function buildRestEndpointRequest(model: RestEndpointModel, info: SystemInfo, servers: HostileCallbackServers): HttpRequestSpec {
  const base = model.host === 'own' ? info.restUrl : info.socialParentUrl;
  const segments = [...(model.version ? [model.version] : []), targetSegment(model.target, info), ...model.edge];
  const params = model.params.map(([name, value]): [string, string] => [name, resolveTemplate(value, servers)]);
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = tokenText(model.token, info);
  if (token !== undefined) {
    if (model.tokenIn === 'param') params.push(['access_token', token]);
    else headers.authorization = `${model.tokenIn === 'bearer' ? 'Bearer' : 'OAuth'} ${token.replace(/[^\x20-\x7e]/g, '?')}`;
  }
  const query = new URLSearchParams();
  let body: string | undefined;
  const canHaveBody = model.method !== 'GET' && model.method !== 'HEAD';
  if (!canHaveBody || model.carrier === 'query') {
    for (const [name, value] of params) query.append(name, value);
  } else if (model.carrier === 'form') {
    body = new URLSearchParams(params).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  } else if (model.carrier === 'json') {
    body = JSON.stringify(Object.fromEntries(params));
    headers['content-type'] = 'application/json';
  } else {
    for (const [name, value] of params) query.append(name, value);
    body = resolveTemplate(model.rawBody, servers);
    headers['content-type'] = 'application/json';
  }
  const search = query.toString();
  return { method: model.method, url: `${base}/${segments.join('/')}${search ? `?${search}` : ''}`, headers, body };
}

function resolveGraphqlPlaceholders(text: string, info: SystemInfo, servers: HostileCallbackServers): string {
  // A padded URL is padded to its own length, inside its JSON string (the templates hold no quote or escape).
  const padded = text.replace(/"([^"\\]*\{PAD=\d+\}[^"\\]*)"/g, (_string, url: string) => quote(resolveTemplate(url, servers)));
  return resolveTemplate(padded, servers)
    .replace(/\{APP:(main|other|handshake)\}/g, (_marker, app: 'main' | 'other' | 'handshake') => info.webhooks.apps[app].id)
    .replace(/\{PAGE:(roaster|bluebottle)\}/g, (_marker, page: 'roaster' | 'bluebottle') => info.webhooks.pages[page]);
}

function buildGraphqlEndpointRequest(model: GraphqlEndpointModel, info: SystemInfo, servers: HostileCallbackServers): HttpRequestSpec {
  const declarations: string[] = [];
  const fields: string[] = [];
  const variables: [string, RawJson][] = [];
  model.operations.forEach((operation, index) => {
    const { args, selection } = GRAPHQL_FIELDS[operation.field];
    const passed = args.map(([short, name, type]) => {
      declarations.push(`$${short}${index}: ${type}`);
      const value = operation.values[short];
      if (value !== undefined) variables.push([`${short}${index}`, value]);
      return `${name}: $${short}${index}`;
    });
    fields.push(`o${index}: ${operation.field}(${passed.join(', ')}) ${selection}`);
  });
  const document = `${model.kind} Webhooks(${declarations.join(', ')}) { ${fields.join(' ')} }`;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  const token = tokenText(model.token, info);
  if (token !== undefined) headers.authorization = `Bearer ${token.replace(/[^\x20-\x7e]/g, '?')}`;
  return {
    method: 'POST',
    url: info.gatewayUrl,
    headers,
    body: resolveGraphqlPlaceholders(`{"query":${quote(document)},"variables":${rawObject(variables)}}`, info, servers),
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Oracles

const isObject = (value: unknown): value is Record<string, any> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The body with ASCII whitespace (space, tab, CR, LF) trimmed from both ends. */
function asciiTrim(body: Buffer): Buffer {
  const blank = (byte: number | undefined) => byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a;
  let start = 0;
  let end = body.length;
  while (start < end && blank(body[start])) start++;
  while (end > start && blank(body[end - 1])) end--;
  return body.subarray(start, end);
}

/** What a handshake may come to: stored (must, may, never), and the details a refusal may give. */
export interface HandshakeExpectation {
  store: 'must' | 'may' | 'never';
  refusals: (string | RegExp)[];
  why: string;
}

const TIMEOUT_DETAIL = /^the callback could not be reached \(timeout\)\.$/;
const RESET_DETAIL = /^the callback could not be reached \((?:reset|other)\)\.$/;
const ANY_DETAIL = /^[^]+$/;

/** What a whole answer of `status` with `body` may come to (the rule below, without faults). */
function wholeAnswer(status: number, body: Buffer, challenge: string, maxBytes: number): HandshakeExpectation {
  if (status !== 200) {
    return {
      store: 'never',
      refusals: [`HTTP Status Code = ${status}; HTTP Message = ${STATUS_CODES[status] ?? 'Unknown'}`],
      why: `the callback answered ${status}`,
    };
  }
  const truncated = body.length > maxBytes;
  const definite = asciiTrim(body).equals(Buffer.from(challenge));
  const kept = body.subarray(0, maxBytes).toString('utf8').trim();
  const loose = kept === challenge || body.toString('utf8').trim() === challenge;
  const shown = kept.length > 100 ? `${kept.slice(0, 100)}…` : kept;
  const mismatch = `Response does not match challenge, expected value="${challenge}", received="${shown}"`;
  if (definite && !truncated) return { store: 'must', refusals: [], why: 'a whole 200 with the challenge (ASCII whitespace aside)' };
  if (definite)
    return {
      store: 'may',
      refusals: [ANY_DETAIL],
      why: `the challenge and whitespace, ${body.length} bytes, past the ${maxBytes}-byte bound`,
    };
  if (truncated)
    return {
      store: 'never',
      refusals: [ANY_DETAIL],
      why: `a ${body.length}-byte answer past the ${maxBytes}-byte bound that is not the challenge`,
    };
  if (loose)
    return { store: 'may', refusals: [mismatch], why: 'the challenge within characters other than ASCII whitespace that a trim removes' };
  return { store: 'never', refusals: [mismatch], why: 'a 200 whose body is not the challenge' };
}

/** The handshake's rule: stored exactly when the answer was a whole 200 whose body, trimmed, is the challenge. */
export function expectHandshake(plan: AnswerPlan, record: HandshakeRecord, timeoutMs: number, maxBytes: number): HandshakeExpectation {
  const body = record.body ?? Buffer.alloc(0);
  const challenge = record.challenge ?? '';
  switch (plan.fault) {
    case 'no-answer':
    case 'stall-mid-body':
      return {
        store: 'never',
        refusals: [TIMEOUT_DETAIL],
        why: `the callback ${plan.fault === 'no-answer' ? 'never answered' : 'stalled in the middle of its body'}`,
      };
    case 'reset-mid-body': {
      if (plan.framing !== 'close')
        return { store: 'never', refusals: [RESET_DETAIL], why: 'the connection was reset in the middle of the body' };
      // A body that only the end of the connection delimits: Node's parser ends the message at a reset as at a close, so
      // the part sent may be read as the whole answer (never stored unless that part alone is the challenge).
      const part = wholeAnswer(plan.status, body.subarray(0, Math.min(Math.floor(body.length / 2), maxBytes - 1)), challenge, maxBytes);
      return {
        store: part.store === 'never' ? 'never' : 'may',
        refusals: [RESET_DETAIL, ...part.refusals],
        why: `a reset in the middle of a body ended by the connection (the part sent: ${part.why})`,
      };
    }
    case 'close-without-answer':
    case 'reset-without-answer':
    case 'close-mid-body':
      return { store: 'never', refusals: [RESET_DETAIL], why: `the callback's answer was cut (${plan.fault})` };
    case 'none':
      break;
  }
  const expectation = wholeAnswer(plan.status, body, challenge, maxBytes);
  // An answer that ended near the timeout may have been cut by it (the two clocks are not the same).
  if (record.completeAfterMs === undefined || record.completeAfterMs > timeoutMs * 0.6) {
    return {
      store: expectation.store === 'never' ? 'never' : 'may',
      refusals: [...expectation.refusals, TIMEOUT_DETAIL],
      why: `${expectation.why}, sent in ${Math.round(record.completeAfterMs ?? -1)} ms`,
    };
  }
  return expectation;
}

const matches = (detail: string, allowed: readonly (string | RegExp)[]) =>
  allowed.some((one) => (typeof one === 'string' ? one === detail : one.test(detail)));

/** The refusal's reason and message, REST or GraphQL; undefined when the reply is no refusal of that shape. */
function refusalOf(reply: ReplyView, graphql: boolean): { code: string; message: string; parameter?: unknown; status: number } | undefined {
  const body = reply.json;
  if (graphql) {
    const error = isObject(body) && Array.isArray(body.errors) ? (body.errors[0] as unknown) : undefined;
    if (!isObject(error) || !isObject(error.extensions)) return undefined;
    return {
      code: String(error.extensions.reason ?? error.extensions.code),
      message: String(error.message),
      parameter: error.extensions.parameter,
      status: reply.status,
    };
  }
  const error = isObject(body) ? body.error : undefined;
  if (!isObject(error)) return undefined;
  return { code: String(error.code), message: String(error.message), status: reply.status };
}

function accepted(reply: ReplyView, graphql: boolean, field = 'subscribeApp'): boolean {
  if (graphql) {
    const body = reply.json;
    return (
      isObject(body) && body.errors === undefined && isObject(body.data) && isObject(body.data[field]) && body.data[field].success === true
    );
  }
  return reply.status === 200 && reply.text === '{"success":true}';
}

interface ReadBack {
  listed: { callback_url?: unknown; fields?: unknown; active?: unknown }[] | undefined;
  rows: Record<string, unknown>[] | undefined;
  problems: Problem[];
}

// ---------------------------------------------------------------------------------------------------------------------
// The door

export class WebhooksDoor implements FuzzDoor<WebhookCase> {
  readonly name = 'webhooks';
  private agent = new Agent({ keepAlive: true, maxSockets: 1 });
  /** The callback URL each handshake case used (its id is the callback server's), for describe(). */
  private readonly callbackUrls = new WeakMap<WebhookCase, string>();

  constructor(private readonly servers: HostileCallbackServers) {}

  async exchange(input: WebhookCase, system: FuzzSystem): Promise<CaseOutcome> {
    switch (input.kind) {
      case 'handshake':
        return this.handshake(input, system);
      case 'url':
        return this.urlShape(input, system);
      case 'rest':
      case 'graphql':
        return this.endpoint(input, system);
    }
  }

  private async send(request: HttpRequestSpec): Promise<HttpOutcome> {
    const outcome = await httpExchange({ ...request, agent: this.agent, timeoutMs: fuzzSettings().requestTimeoutMs });
    if (outcome.kind !== 'reply') this.resetAgent();
    return outcome;
  }

  /** The case's forbidden requests (to the forbidden server, or a redirect followed): none may have been made. */
  private forbiddenSince(mark: number): Problem[] {
    const made = this.servers.forbiddenRequests.slice(mark);
    return made.length === 0
      ? []
      : [
          {
            kind: 'verdict',
            detail: `the system made requests it must never make (a refused address, a redirect followed): ${made.map((one) => `${one.method} ${excerpt(one.target, 200)} to the ${one.server} server`).join('; ')}`,
          },
        ];
  }

  private async readBack(system: FuzzSystem, app: { id: string; token: string }): Promise<ReadBack> {
    const problems: Problem[] = [];
    const listing = await this.send({
      method: 'GET',
      url: `${subscriptionsUrl(system.info, app.id)}?access_token=${encodeURIComponent(app.token)}`,
      headers: { accept: 'application/json' },
    });
    let listed: ReadBack['listed'];
    if (listing.kind === 'reply' && listing.status === 200 && isObject(listing.json) && Array.isArray(listing.json.data))
      listed = listing.json.data as ReadBack['listed'];
    else
      problems.push({
        kind: 'liveness',
        detail: `GET /{app-id}/subscriptions with the app's token after the case: ${outcomeSummary(listing)}`,
      });
    let rows: ReadBack['rows'];
    try {
      rows = await system.rows('social.app_subscription', 'app_id', app.id);
    } catch (error) {
      problems.push({ kind: 'liveness', detail: (error as Error).message });
    }
    return { listed, rows, problems };
  }

  /** Removes the app's subscriptions (DELETE /{app-id}/subscriptions), checking that it did. */
  private async unsubscribe(system: FuzzSystem, app: { id: string; token: string }): Promise<Problem[]> {
    const removal = await this.send({
      method: 'DELETE',
      url: `${subscriptionsUrl(system.info, app.id)}?access_token=${encodeURIComponent(app.token)}`,
      headers: { accept: 'application/json' },
    });
    if (removal.kind !== 'reply' || removal.status !== 200 || removal.text !== '{"success":true}') {
      return [{ kind: 'liveness', detail: `DELETE /{app-id}/subscriptions of the handshake's app: ${outcomeSummary(removal)}` }];
    }
    const after = await this.readBack(system, app);
    if (after.problems.length > 0) return after.problems;
    if (after.listed?.length !== 0 || after.rows?.length !== 0) {
      return [
        {
          kind: 'verdict',
          detail: `DELETE /{app-id}/subscriptions answered success and left ${JSON.stringify(after.listed)} / ${after.rows?.length} rows`,
        },
      ];
    }
    return [];
  }

  private async handshake(input: HandshakeCase, system: FuzzSystem): Promise<CaseOutcome> {
    const info = system.info;
    const app = info.webhooks.apps.handshake;
    const graphql = input.api === 'graphql';
    const problems: Problem[] = [];
    // The handshake's app has no subscription between cases (each case removes what it stored).
    const before = await this.readBack(system, app);
    problems.push(...before.problems);
    let cleaned = false;
    if ((before.listed?.length ?? 0) > 0 || (before.rows?.length ?? 0) > 0) {
      problems.push({
        kind: 'liveness',
        detail: `the handshake's app had a subscription before the case (a case before did not remove it): ${JSON.stringify(before.listed)}`,
      });
      problems.push(...(await this.unsubscribe(system, app)));
      cleaned = true;
    }

    const id = this.servers.expect(input.answer);
    const query = input.callbackQuery;
    const callbackUrl = `http://127.0.0.1:${this.servers.callbackPort}/hs/${id}${query ? `?${query}` : ''}`;
    this.callbackUrls.set(input, callbackUrl);
    const forbiddenMark = this.servers.forbiddenRequests.length;
    const request = subscribeRequest(
      input.api,
      info,
      app,
      { callbackUrl, fields: input.fields, verifyToken: input.verifyToken, includeValues: input.includeValues },
      input.tokenIn,
    );
    const outcome = await this.send(request);
    const { requestTimeoutMs } = fuzzSettings();
    if (outcome.kind !== 'reply') {
      this.servers.finish(id);
      return {
        problems: [...problems, ...transportProblems(outcome, requestTimeoutMs)],
        rejected: !cleaned,
        unavailable: false,
        summary: outcomeSummary(outcome),
      };
    }
    const judgement: Judgement = graphql ? judgeGraphqlReply(outcome, 'POST') : judgeGraphReply(outcome, 'POST');
    problems.push(...judgement.problems);
    const bound = WEBHOOK_RESPONSE_TIMEOUT_MS + PROCESSING_SLACK_MS;
    if (outcome.durationMs > bound)
      problems.push({
        kind: 'hang',
        detail: `the subscription was answered after ${outcome.durationMs} ms, past the bound of ${bound} ms (the callback's response timeout and processing)`,
      });

    const after = await this.readBack(system, app);
    problems.push(...after.problems);
    // Read once the reply and the store are in: a late second verification request would be among them.
    const record = this.servers.finish(id);
    problems.push(...this.forbiddenSince(forbiddenMark));
    const ok = accepted(outcome, graphql);
    const refusal = ok ? undefined : refusalOf(outcome, graphql);
    // A verify token that PostgreSQL text cannot hold (U+0000) may be refused as a bad parameter before any verification
    // request is made; what it may not do is call the callback and then fail to store (or store without calling).
    const refusedUpFront =
      input.verifyToken.includes('\u0000') &&
      record.requests.length === 0 &&
      (graphql
        ? refusal?.code === 'INVALID_PARAMETER' && refusal.parameter === 'verify_token'
        : refusal?.code === '100' && refusal.status === 400);
    if (!refusedUpFront) problems.push(...verificationRequestProblems(record, input, callbackUrl));

    const expectation = refusedUpFront
      ? { store: 'never' as const, refusals: [], why: 'a verify token with U+0000, refused before the callback was called' }
      : expectHandshake(input.answer, record, WEBHOOK_RESPONSE_TIMEOUT_MS, WEBHOOK_MAX_RESPONSE_BYTES);
    const listed = after.listed?.some((one) => one.callback_url === callbackUrl) ?? false;
    const stored = after.rows?.some((row) => row.callback_url === callbackUrl) ?? false;
    const said = ok ? 'stored' : 'refused';
    if (after.listed !== undefined && listed !== ok)
      problems.push({
        kind: 'verdict',
        detail: `the reply said ${said}, GET /{app-id}/subscriptions ${listed ? 'lists' : 'does not list'} it: ${JSON.stringify(after.listed)}`,
      });
    if (after.rows !== undefined && stored !== ok)
      problems.push({
        kind: 'verdict',
        detail: `the reply said ${said}, social.app_subscription ${stored ? 'holds' : 'does not hold'} it`,
      });
    if (expectation.store === 'must' && !ok)
      problems.push({ kind: 'verdict', detail: `a correct handshake was refused: ${expectation.why}` });
    if (expectation.store === 'never' && (ok || listed || stored))
      problems.push({ kind: 'verdict', detail: `the subscription was stored although ${expectation.why}` });
    if (ok) {
      const row = after.rows?.find((one) => one.callback_url === callbackUrl);
      const fields = [...new Set(input.fields)].sort();
      if (
        row &&
        (JSON.stringify(row.fields) !== JSON.stringify(fields) ||
          row.verify_token !== input.verifyToken ||
          row.include_values !== (input.includeValues ?? false) ||
          row.active !== true)
      ) {
        problems.push({
          kind: 'verdict',
          detail: `the stored subscription is not the one asked for (fields ${JSON.stringify(fields)}, verify token ${JSON.stringify(input.verifyToken)}, include_values ${input.includeValues ?? false}): ${shortStringify(row)}`,
        });
      }
      const shown = after.listed?.find((one) => one.callback_url === callbackUrl);
      if (
        shown &&
        JSON.stringify(shown) !==
          JSON.stringify({
            object: WEBHOOK_OBJECT,
            callback_url: callbackUrl,
            active: true,
            fields: fields.map((name) => ({ name, version: FIELD_VERSION })),
          })
      ) {
        problems.push({
          kind: 'format',
          detail: `GET /{app-id}/subscriptions shows the subscription otherwise than the reference: ${JSON.stringify(shown)}`,
        });
      }
    } else if (judgement.problems.length === 0 && !refusedUpFront) {
      const detail = refusal?.message.startsWith(VERIFICATION_PREFIX) ? refusal.message.slice(VERIFICATION_PREFIX.length) : undefined;
      const code = graphql ? 'CALLBACK_VERIFICATION_FAILED' : '2200';
      if (!refusal || refusal.code !== code || detail === undefined || (!graphql && refusal.status !== 400)) {
        problems.push({
          kind: 'format',
          detail: `a failed handshake is refused with ${graphql ? 'reason CALLBACK_VERIFICATION_FAILED' : 'HTTP 400 and code 2200'} and "${VERIFICATION_PREFIX}…", got ${excerpt(outcome.text, 400)}`,
        });
      } else if (!matches(detail, expectation.refusals)) {
        problems.push({
          kind: 'format',
          detail: `the refusal says "${excerpt(detail, 300)}"; for ${expectation.why} it says ${expectation.refusals.map((one) => (typeof one === 'string' ? JSON.stringify(excerpt(one, 300)) : String(one))).join(' or ')}`,
        });
      }
    }
    if (listed || stored || ok) problems.push(...(await this.unsubscribe(system, app)));
    const label = `${expectation.store} store (${input.answer.fault === 'none' ? `${input.answer.status} ${input.answer.body.kind}` : input.answer.fault}) → ${ok ? 'stored' : replyLabel(outcome)}`;
    return {
      problems,
      // What the case stored it removed again, so the tables are compared only when nothing was stored or removed.
      rejected: !ok && !listed && !stored && !cleaned,
      unavailable: judgement.unavailable,
      summary: `${outcomeSummary(outcome)}; the callback got ${record.requests.length} request(s), answered per ${shortStringify(input.answer, 600)}`,
      label: label.replace(/\d{6,}/g, 'N'),
    };
  }

  private async urlShape(input: UrlShapeCase, system: FuzzSystem): Promise<CaseOutcome> {
    const info = system.info;
    const graphql = input.api === 'graphql';
    const forbiddenMark = this.servers.forbiddenRequests.length;
    const honestMark = this.servers.honestRequests;
    const callbackUrl = resolveTemplate(input.shape.template, this.servers);
    const outcome = await this.send(
      subscribeRequest(input.api, info, info.webhooks.apps.main, {
        callbackUrl,
        fields: ['comments'],
        verifyToken: 'fuzz',
        includeValues: undefined,
      }),
    );
    const { requestTimeoutMs } = fuzzSettings();
    if (outcome.kind !== 'reply')
      return {
        problems: transportProblems(outcome, requestTimeoutMs),
        rejected: true,
        unavailable: false,
        summary: outcomeSummary(outcome),
      };
    const judgement = graphql ? judgeGraphqlReply(outcome, 'POST') : judgeGraphReply(outcome, 'POST');
    const problems = [...judgement.problems, ...this.forbiddenSince(forbiddenMark), ...boundProblems(outcome.durationMs)];
    const ok = accepted(outcome, graphql);
    const refusal = ok ? undefined : refusalOf(outcome, graphql);
    const shown = JSON.stringify(excerpt(callbackUrl, 200));
    switch (input.shape.category) {
      case 'allowed':
        if (!ok) problems.push({ kind: 'verdict', detail: `the honest callback ${shown} was refused` });
        if (ok && this.servers.honestRequests === honestMark)
          problems.push({ kind: 'verdict', detail: `the subscription to ${shown} succeeded without a verification request` });
        break;
      case 'refused': {
        const right = graphql
          ? (refusal?.code === 'INVALID_PARAMETER' || refusal?.code === 'MISSING_PARAMETER') && refusal.parameter === 'callback_url'
          : refusal?.code === '100' && refusal.status === 400;
        if (!right)
          problems.push({
            kind: 'verdict',
            detail: `the callback URL ${shown} must be refused as a bad callback_url (${graphql ? 'INVALID_PARAMETER' : '100'}), got ${excerpt(outcome.text, 400)}`,
          });
        if (this.servers.honestRequests !== honestMark)
          problems.push({ kind: 'verdict', detail: `the refused callback URL ${shown} was called` });
        break;
      }
      case 'unreachable':
        if (refusal?.code !== (graphql ? 'CALLBACK_VERIFICATION_FAILED' : '2200')) {
          problems.push({
            kind: 'verdict',
            detail: `a callback URL where nothing answers (${shown}) must fail its verification (2200), got ${excerpt(outcome.text, 400)}`,
          });
        }
        break;
      case 'any':
        break;
    }
    return {
      problems,
      rejected: judgement.rejected,
      unavailable: judgement.unavailable,
      summary: `${outcomeSummary(outcome)} for callback_url ${shown}`,
      label: `${input.shape.category} → ${ok ? 'stored' : replyLabel(outcome)}`.replace(/\d{6,}/g, 'N').replace(/\d{4,5}/g, 'P'),
    };
  }

  private async endpoint(input: RestEndpointCase | GraphqlEndpointCase, system: FuzzSystem): Promise<CaseOutcome> {
    const info = system.info;
    const forbiddenMark = this.servers.forbiddenRequests.length;
    const request =
      input.kind === 'rest'
        ? buildRestEndpointRequest(input.model, info, this.servers)
        : buildGraphqlEndpointRequest(input.model, info, this.servers);
    const outcome = await this.send(request);
    const { requestTimeoutMs } = fuzzSettings();
    if (outcome.kind !== 'reply')
      return {
        problems: transportProblems(outcome, requestTimeoutMs),
        rejected: true,
        unavailable: false,
        summary: outcomeSummary(outcome),
      };
    const judgement = input.kind === 'rest' ? judgeGraphReply(outcome, request.method) : judgeGraphqlReply(outcome, request.method);
    const problems = [...judgement.problems, ...this.forbiddenSince(forbiddenMark), ...boundProblems(outcome.durationMs, 2)];
    problems.push(
      ...(input.kind === 'rest' ? restAccessProblems(input.model, outcome, info) : graphqlAccessProblems(input.model, outcome)),
    );
    // Mutations run one after the other, and each returns a non-null WebhookResult!: one that fails nulls `data` whole
    // (GraphQL's null propagation), though the ones before it may have written. Such a reply is no proof of nothing stored.
    const partial = input.kind === 'graphql' && input.model.kind === 'mutation' && input.model.operations.length > 1;
    return {
      problems,
      rejected: judgement.rejected && !partial,
      unavailable: judgement.unavailable,
      summary: outcomeSummary(outcome),
      label: replyLabel(outcome),
    };
  }

  async probe(system: FuzzSystem): Promise<Problem[]> {
    const { requestTimeoutMs } = fuzzSettings();
    const info = system.info;
    const main = info.webhooks.apps.main;
    const problems: Problem[] = [];
    const probes: { name: string; request: HttpRequestSpec; check(reply: ReplyView): boolean }[] = [
      {
        name: "GET /{app-id}/subscriptions with the app's token",
        request: { method: 'GET', url: `${subscriptionsUrl(info, main.id)}?access_token=${encodeURIComponent(main.token)}`, headers: {} },
        check: (reply) => reply.status === 200 && isObject(reply.json) && Array.isArray(reply.json.data),
      },
      {
        name: 'appSubscriptions through GraphQL',
        request: {
          method: 'POST',
          url: info.gatewayUrl,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${main.token}` },
          body: JSON.stringify({
            query: 'query Probe($appId: ID!) { appSubscriptions(appId: $appId) { object } }',
            variables: { appId: main.id },
          }),
        },
        check: (reply) =>
          reply.status === 200 && isObject(reply.json) && isObject(reply.json.data) && Array.isArray(reply.json.data.appSubscriptions),
      },
    ];
    for (const probe of probes) {
      for (const connection of ['kept-alive', 'fresh'] as const) {
        const outcome = await httpExchange({
          ...probe.request,
          timeoutMs: requestTimeoutMs,
          ...(connection === 'kept-alive' ? { agent: this.agent } : {}),
        });
        if (outcome.kind === 'reply' && probe.check(outcome)) continue;
        problems.push({
          kind: 'liveness',
          detail: `the known-good ${probe.name} on a ${connection} connection: ${outcomeSummary(outcome)}`,
        });
        if (connection === 'kept-alive') this.resetAgent();
      }
    }
    return problems;
  }

  describe(input: WebhookCase, info: SystemInfo): string {
    switch (input.kind) {
      case 'handshake': {
        const callbackUrl = this.callbackUrls.get(input) ?? `http://127.0.0.1:${this.servers.callbackPort}/hs/<case>`;
        const request = subscribeRequest(
          input.api,
          info,
          info.webhooks.apps.handshake,
          { callbackUrl, fields: input.fields, verifyToken: input.verifyToken, includeValues: input.includeValues },
          input.tokenIn,
        );
        return `${describeHttpRequest(request.method, request.url, request.headers, request.body)}\n  callback answer: ${shortStringify(input.answer)}`;
      }
      case 'url': {
        const callbackUrl = resolveTemplate(input.shape.template, this.servers);
        const request = subscribeRequest(input.api, info, info.webhooks.apps.main, {
          callbackUrl,
          fields: ['comments'],
          verifyToken: 'fuzz',
          includeValues: undefined,
        });
        return describeHttpRequest(request.method, request.url, request.headers, request.body);
      }
      case 'rest':
      case 'graphql': {
        const request =
          input.kind === 'rest'
            ? buildRestEndpointRequest(input.model, info, this.servers)
            : buildGraphqlEndpointRequest(input.model, info, this.servers);
        return describeHttpRequest(request.method, request.url, request.headers, request.body);
      }
    }
  }

  private resetAgent(): void {
    this.agent.destroy();
    this.agent = new Agent({ keepAlive: true, maxSockets: 1 });
  }

  close(): void {
    this.agent.destroy();
  }
}

function boundProblems(durationMs: number, subscriptions = 1): Problem[] {
  // Each subscription may spend a response timeout checking its URL's host and another verifying the callback.
  const bound = subscriptions * 2 * WEBHOOK_RESPONSE_TIMEOUT_MS + PROCESSING_SLACK_MS;
  return durationMs > bound
    ? [{ kind: 'hang', detail: `answered after ${durationMs} ms, past the bound of ${bound} ms (the callback's timeouts and processing)` }]
    : [];
}

/** The verification request the callback got: exactly one GET, with the subscribe mode, a numeric challenge, the token. */
function verificationRequestProblems(record: HandshakeRecord, input: HandshakeCase, callbackUrl: string): Problem[] {
  const problems: Problem[] = [];
  if (record.requests.length !== 1) {
    problems.push({
      kind: 'verdict',
      detail: `the callback got ${record.requests.length} verification requests for one subscription (one is due): ${record.requests.map((one) => `${one.method} ${excerpt(one.target, 200)}`).join('; ')}`,
    });
  }
  const first = record.requests[0];
  if (!first) return problems;
  const url = new URL(first.target, 'http://callback');
  const own = new URL(callbackUrl).searchParams;
  const wrong: string[] = [];
  if (first.method !== 'GET') wrong.push(`method ${first.method}`);
  if (url.pathname !== new URL(callbackUrl).pathname) wrong.push(`path ${url.pathname}`);
  if (url.searchParams.getAll('hub.mode').join() !== 'subscribe')
    wrong.push(`hub.mode ${JSON.stringify(url.searchParams.getAll('hub.mode'))}`);
  if (record.challenges.length !== 1 || !/^\d+$/.test(record.challenges[0]!))
    wrong.push(`hub.challenge ${JSON.stringify(record.challenges)}`);
  const tokens = url.searchParams.getAll('hub.verify_token');
  if (tokens.length !== 1 || tokens[0] !== input.verifyToken)
    wrong.push(`hub.verify_token ${JSON.stringify(tokens)} (sent ${JSON.stringify(input.verifyToken)})`);
  for (const name of new Set(own.keys())) {
    if (name.startsWith('hub.')) continue;
    if (JSON.stringify(url.searchParams.getAll(name)) !== JSON.stringify(own.getAll(name)))
      wrong.push(`the callback's own parameter ${name}: ${JSON.stringify(url.searchParams.getAll(name))}`);
  }
  if (wrong.length > 0)
    problems.push({
      kind: 'verdict',
      detail: `the verification request is not as §6.2 makes it (${wrong.join(', ')}): ${excerpt(first.target, 400)}`,
    });
  return problems;
}

/** The tokens a REST request presents (the one it carries, and any access_token parameter). */
function presentedTokens(model: RestEndpointModel, info: SystemInfo): Set<string> {
  const tokens = new Set<string>();
  const token = tokenText(model.token, info);
  if (token !== undefined) tokens.add(token);
  for (const [name, value] of model.params) if (name === 'access_token') tokens.add(value);
  return tokens;
}

/** An app's subscriptions answer 2xx only to that app's token; accounts are (un)subscribed only with an app's token. */
function restAccessProblems(model: RestEndpointModel, reply: ReplyView, info: SystemInfo): Problem[] {
  // A preflight or a HEAD carries no data (CORS answers OPTIONS before any token is read).
  if (reply.status < 200 || reply.status >= 300 || model.method === 'OPTIONS' || model.method === 'HEAD') return [];
  const tokens = presentedTokens(model, info);
  const app = model.target === 'app:main' ? info.webhooks.apps.main : model.target === 'app:other' ? info.webhooks.apps.other : undefined;
  const edge = model.edge.join('/');
  if (edge === 'subscriptions' && (model.target === 'app:main' || model.target === 'app:other' || model.target === 'app:unknown')) {
    if (!app || !tokens.has(app.token)) {
      return [
        {
          kind: 'verdict',
          detail: `${model.method} /{app-id}/subscriptions of ${model.target} answered ${reply.status} to a request without that app's token: ${excerpt(reply.text, 300)}`,
        },
      ];
    }
  }
  const overrides = model.params.filter(([name]) => name === 'method').map(([, value]) => value.toLowerCase());
  const writes = model.method === 'POST' || model.method === 'DELETE' || overrides.some((value) => value === 'post' || value === 'delete');
  if (edge === 'subscribed_apps' && writes && reply.text === '{"success":true}') {
    const { ownWithApp, parentWithApp } = info.webhooks.tokens;
    if (!tokens.has(ownWithApp) && !tokens.has(parentWithApp)) {
      return [
        {
          kind: 'verdict',
          detail: `${model.method} …/subscribed_apps succeeded without a token of a user issued to an app: ${excerpt(reply.text, 300)}`,
        },
      ];
    }
  }
  return [];
}

/** The same rules over GraphQL, field by field. */
function graphqlAccessProblems(model: GraphqlEndpointModel, reply: ReplyView): Problem[] {
  const data = isObject(reply.json) ? reply.json.data : undefined;
  if (!isObject(data)) return [];
  const problems: Problem[] = [];
  model.operations.forEach((operation, index) => {
    const value = data[`o${index}`];
    if (value === null || value === undefined) return;
    if (operation.field === 'subscribeApp' || operation.field === 'appSubscriptions' || operation.field === 'unsubscribeApp') {
      const own = (operation.app === 'main' && model.token === 'app:main') || (operation.app === 'other' && model.token === 'app:other');
      if (!own)
        problems.push({
          kind: 'verdict',
          detail: `${operation.field} of app ${operation.app} answered ${excerpt(JSON.stringify(value), 200)} to ${typeof model.token === 'object' ? 'a raw token' : model.token}`,
        });
    }
    if (
      (operation.field === 'subscribeAccountToApp' || operation.field === 'unsubscribeAccountFromApp') &&
      model.token !== 'ownWithApp' &&
      model.token !== 'parentWithApp'
    ) {
      problems.push({
        kind: 'verdict',
        detail: `${operation.field} succeeded with ${typeof model.token === 'object' ? 'a raw token' : model.token}, which was issued to no app (or to a user without the page)`,
      });
    }
  });
  return problems;
}
