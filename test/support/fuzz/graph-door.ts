import fc from 'fast-check';
import { judgeGraphReply } from './error-formats.ts';
import { IF_NONE_MATCH, judgeNotModified } from './conditional-reads.ts';
import type { SystemInfo } from './fuzz-system-protocol.ts';
import { fieldsFor, type NODE_TYPES } from './graph-fields-arbitrary.ts';
import { HttpDoor, type HttpPlan, type HttpRequestSpec } from './http-door.ts';
import {
  NUMBER_LIKE_TEXTS,
  PROTOTYPE_NAMES,
  corruptJson,
  hostileString,
  quote,
  rawJsonNumber,
  rawObject,
  urlPart,
} from './hostile-values.ts';
import { shortStringify, withShortText } from './request-description.ts';

/**
 * The social graph's two hosts (Areas B and C): Graph-style paths `/{version}/{node}[/{edge}]` with the `fields`
 * expansion grammar, edge parameters in the query string, an urlencoded or a JSON body, tokens of either login type (or
 * none, expired, revoked, junk), and methods the table does not list. Every error must be the Graph envelope with a
 * client code; the platform's own "unknown error" (code 1, HTTP 500) is a defect.
 */

export type GraphHost = 'own' | 'parent';

type NodeRef =
  { kind: 'me' } | { kind: 'fixture'; group: 'accounts' | 'posts' | 'media' | 'comments'; name: string } | { kind: 'text'; text: string };

type TokenChoice = { kind: keyof SystemInfo['social']['tokens'] | 'none' } | { kind: 'raw'; text: string };

export interface GraphRequestModel {
  host: GraphHost;
  version: string | undefined;
  node: NodeRef;
  edge: string[];
  method: string;
  params: [string, string][];
  /** Where parameters travel. */
  carrier: 'query' | 'form' | 'json' | 'json-raw';
  /** A JSON body that is not an object of strings (with 'json-raw'). */
  rawBody?: string;
  token: TokenChoice;
  tokenIn: 'param' | 'bearer' | 'oauth';
  /** An If-None-Match header (issue 39: conditional reads), hostile or not; absent most of the time. */
  ifNoneMatch?: string | undefined;
}

const VERSIONS = fc.oneof(
  { weight: 8, arbitrary: fc.constant<string | undefined>('v25.0') },
  { weight: 2, arbitrary: fc.constant<string | undefined>(undefined) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<string | undefined>(
      'v1.0',
      'v21.0',
      'v99.99',
      'v25',
      'V25.0',
      'v25.0.1',
      'v.',
      'v-1.0',
      'v99999999999999999999.0',
    ),
  },
);

const ACCOUNT_EDGES = [
  'media',
  'media_publish',
  'insights',
  'content_publishing_limit',
  'recently_searched_hashtags',
  'upcoming_events',
  'agencies',
  'authorized_adaccounts',
  'stories',
  'live_media',
  'tags',
  'mentions',
];
const ALL_EDGES = [...ACCOUNT_EDGES, 'replies', 'comments', 'children', 'accounts', 'subscribed_apps', 'subscriptions'];

/** The edges a node of this kind has (so most edge requests reach a handler), any edge, or junk segments. */
function edgeOf(kind: string, node: NodeRef, host: GraphHost): fc.Arbitrary<string[]> {
  if (kind === 'none') return fc.constant([]);
  if (kind === 'junk')
    return fc.array(fc.oneof(fc.constantFrom(...ALL_EDGES, ...PROTOTYPE_NAMES), urlPart()), { minLength: 1, maxLength: 3 });
  if (kind === 'any') return fc.constantFrom(...ALL_EDGES).map((edge) => [edge]);
  const own =
    node.kind === 'fixture' && node.group === 'comments'
      ? ['replies']
      : node.kind === 'fixture' && (node.group === 'posts' || node.group === 'media')
        ? ['comments', 'children']
        : node.kind === 'me' && host === 'parent'
          ? ['accounts']
          : node.kind === 'me'
            ? [...ACCOUNT_EDGES, 'subscribed_apps']
            : ACCOUNT_EDGES;
  return fc.constantFrom(...own).map((edge) => [edge]);
}

const nodeRef: fc.Arbitrary<NodeRef> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<NodeRef>({ kind: 'me' }) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('bluebottle', 'roaster', 'shady', 'fanOne')
      .map((name): NodeRef => ({ kind: 'fixture', group: 'accounts', name })),
  },
  { weight: 2, arbitrary: fc.constantFrom('0', '1', '2').map((name): NodeRef => ({ kind: 'fixture', group: 'posts', name })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('live', 'story', 'expiredStory', 'carousel', 'roasterPost', 'shadyPost')
      .map((name): NodeRef => ({ kind: 'fixture', group: 'media', name })),
  },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom(
        'fanComment',
        'fanTwoComment',
        'ownerComment',
        'hiddenComment',
        'ownerReply',
        'fanReply',
        'liveComment',
        'roasterComment',
        'shadyComment',
      )
      .map((name): NodeRef => ({ kind: 'fixture', group: 'comments', name })),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.constantFrom(
          ...NUMBER_LIKE_TEXTS,
          ...PROTOTYPE_NAMES,
          'me ',
          'ME',
          '17840000000000017',
          '17841000000000000',
          '17842000000000000',
        ),
        hostileString({ maxLength: 300 }),
      )
      .map((text): NodeRef => ({ kind: 'text', text })),
  },
);

/** Parameters the routes read, with values of every kind; `fields` follows the node type's grammar. */
function paramsFor(node: NodeRef, edge: string[]): fc.Arbitrary<[string, string][]> {
  const nodeType: keyof typeof NODE_TYPES =
    edge.length > 0
      ? edge[0] === 'replies' || edge[0] === 'comments'
        ? 'comment'
        : edge[0] === 'accounts'
          ? 'page'
          : 'media'
      : node.kind === 'fixture' && node.group === 'comments'
        ? 'comment'
        : node.kind === 'fixture' && (node.group === 'posts' || node.group === 'media')
          ? 'media'
          : 'account';
  const value = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...NUMBER_LIKE_TEXTS) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'true',
        'false',
        '1',
        '0',
        'TRUE',
        'day',
        'week',
        'days_28',
        'lifetime',
        'reach,follower_count',
        'impressions',
        'IMAGE',
        'VIDEO',
        'CAROUSEL',
        'REELS',
        'STORIES',
        'https://cdn.example.com/a.jpg',
        'Thanks!',
      ),
    },
    { weight: 2, arbitrary: hostileString({ maxLength: 20_000 }) },
  );
  const named = fc.oneof(
    { weight: 10, arbitrary: fieldsFor(nodeType).map((fields): [string, string] => ['fields', fields]) },
    {
      weight: 8,
      arbitrary: fc.tuple(
        fc.constantFrom(
          'limit',
          'after',
          'before',
          'since',
          'until',
          'hide',
          'message',
          'metric',
          'period',
          'metric_type',
          'breakdown',
          'timeframe',
          'media_id',
          'comment_id',
          'creation_id',
          'image_url',
          'video_url',
          'caption',
          'media_type',
          'children',
          'user_tags',
          'upload_media_id',
          'is_carousel_item',
          'title',
          'start_time',
          'end_time',
          'business',
          'account_id',
          'subscribed_fields',
          'object',
          'callback_url',
          'verify_token',
          'include_values',
          'pretty',
          'format',
          'method',
          'suppress_http_code',
        ),
        value,
      ),
    },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...PROTOTYPE_NAMES, 'access_token', 'fields[]', ''), value) },
  );
  return fc.uniqueArray(named, { maxLength: 4, selector: ([name]) => name });
}

const tokenChoice: fc.Arbitrary<TokenChoice> = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom<TokenChoice>({ kind: 'own' }, { kind: 'parent' }) },
  { weight: 2, arbitrary: fc.constantFrom<TokenChoice>({ kind: 'roasterOwn' }, { kind: 'stranger' }, { kind: 'bmWithoutAds' }) },
  { weight: 2, arbitrary: fc.constantFrom<TokenChoice>({ kind: 'expired' }, { kind: 'revoked' }, { kind: 'none' }) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        fc.constantFrom('SBA', 'EAA', 'EAAx', 'AAAA', 'SBA' + 'A'.repeat(43), 'null', ...PROTOTYPE_NAMES),
        hostileString({ maxLength: 5_000 }),
      )
      .map((text): TokenChoice => ({ kind: 'raw', text })),
  },
);

/** Requests on one host; its own login type's token most of the time (the other's is refused with 190). */
export const graphRequestsOn = (host: GraphHost): fc.Arbitrary<GraphRequestModel & HttpPlan> =>
  fc
    .record({
      host: fc.constant(host),
      version: VERSIONS,
      node: nodeRef,
      edgeKind: fc.constantFrom('none', 'none', 'none', 'own', 'own', 'own', 'own', 'any', 'junk'),
      method: fc.oneof(
        { weight: 14, arbitrary: fc.constant('GET') },
        { weight: 4, arbitrary: fc.constant('POST') },
        { weight: 1, arbitrary: fc.constantFrom('DELETE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD', 'PROPFIND') },
      ),
      token: tokenChoice,
      tokenIn: fc.constantFrom<'param' | 'bearer' | 'oauth'>('param', 'param', 'bearer', 'oauth'),
      carrier: fc.constantFrom<GraphRequestModel['carrier']>('query', 'query', 'form', 'json', 'json-raw'),
      ifNoneMatch: IF_NONE_MATCH,
    })
    .chain(({ edgeKind, ...rest }) => edgeOf(edgeKind, rest.node, host).map((edge) => ({ ...rest, edge })))
    .chain((base) =>
      fc
        .record({
          params: paramsFor(base.node, base.edge),
          rawBody: fc.oneof(
            fc.constantFrom(
              '',
              '[]',
              '"x"',
              '{"fields":{"a":1}}',
              '{"limit":[1,2]}',
              '{"hide":true}',
              '{"message":null}',
              '{"__proto__":{"fields":"id"}}',
              '{"a":1,"a":2}',
            ),
            rawJsonNumber().map((number) => rawObject([['limit', number]])),
            rawJsonNumber().map((number) => rawObject([['media_id', number]])),
            corruptJson(rawObject([['fields', quote('id,text')]])),
          ),
        })
        .map((extra) => ({
          ...base,
          ...extra,
          ...(base.token.kind === 'own' || base.token.kind === 'parent' ? { token: { kind: base.host } as TokenChoice } : {}),
        })),
    )
    .map(planOf);

export function planOf(model: GraphRequestModel): GraphRequestModel & HttpPlan {
  return withShortText({ ...model, build: (info: SystemInfo) => buildGraphRequest(model, info) }, () => shortStringify(model));
}

/** GET of a node with only a `fields` expansion (deep cycles through edges included), on either host with its token. */
export const fieldExpansions: fc.Arbitrary<GraphRequestModel & HttpPlan> = fc
  .tuple(
    fc.constantFrom<GraphHost>('own', 'parent'),
    fc.oneof(
      { weight: 3, arbitrary: fc.constant<NodeRef>({ kind: 'me' }) },
      {
        weight: 2,
        arbitrary: fc.constantFrom('bluebottle', 'roaster').map((name): NodeRef => ({ kind: 'fixture', group: 'accounts', name })),
      },
      { weight: 2, arbitrary: fc.constant<NodeRef>({ kind: 'fixture', group: 'posts', name: '0' }) },
      {
        weight: 2,
        arbitrary: fc.constantFrom('fanComment', 'ownerReply').map((name): NodeRef => ({ kind: 'fixture', group: 'comments', name })),
      },
    ),
  )
  .chain(([host, node]) =>
    fieldsFor(
      node.kind === 'fixture' && node.group === 'comments'
        ? 'comment'
        : node.kind === 'fixture' && node.group === 'posts'
          ? 'media'
          : host === 'parent' && node.kind === 'me'
            ? 'platformUser'
            : 'account',
    ).map((fields): GraphRequestModel => ({
      host,
      version: 'v25.0',
      node,
      edge: [],
      method: 'GET',
      params: [['fields', fields]],
      carrier: 'query',
      token: { kind: host },
      tokenIn: 'param',
    })),
  )
  .map(planOf);

function nodeSegment(node: NodeRef, info: SystemInfo): string {
  switch (node.kind) {
    case 'me':
      return 'me';
    case 'text':
      return encodeURIComponent(node.text.replace(/[\uD800-\uDFFF]/g, '\uFFFD'));
    case 'fixture': {
      const group = node.group === 'posts' ? info.social.posts : (info.social[node.group] as Record<string, string>);
      return (Array.isArray(group) ? group[Number(node.name)] : group[node.name]) ?? 'me';
    }
  }
}

function tokenText(choice: TokenChoice, info: SystemInfo): string | undefined {
  if (choice.kind === 'none') return undefined;
  if (choice.kind === 'raw') return choice.text;
  return info.social.tokens[choice.kind];
}

export function buildGraphRequest(model: GraphRequestModel, info: SystemInfo): HttpRequestSpec {
  const base = model.host === 'own' ? info.restUrl : info.socialParentUrl;
  const segments = [...(model.version ? [model.version] : []), nodeSegment(model.node, info), ...model.edge];
  const params = [...model.params];
  const headers: Record<string, string> = { accept: 'application/json' };
  if (model.ifNoneMatch !== undefined) headers['if-none-match'] = model.ifNoneMatch;
  const token = tokenText(model.token, info);
  if (token !== undefined) {
    if (model.tokenIn === 'param') params.push(['access_token', token]);
    // Header values cannot carry every character a token parameter can.
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
    // The token still has to reach the server: in the query when the body is junk.
    for (const [name, value] of params) query.append(name, value);
    body = model.rawBody ?? '';
    headers['content-type'] = 'application/json';
  }
  const search = query.toString();
  return { method: model.method, url: `${base}/${segments.join('/')}${search ? `?${search}` : ''}`, headers, body };
}

export function createGraphDoor(): HttpDoor {
  return new HttpDoor({
    name: 'graph',
    judge: (reply, request) => judgeNotModified(reply, request) ?? judgeGraphReply(reply, request.method),
    probes: [
      {
        name: 'GET /v25.0/me on the own-login host',
        request: (info) => ({
          method: 'GET',
          url: `${info.restUrl}/v25.0/me?fields=id,username&access_token=${encodeURIComponent(info.social.tokens.own)}`,
          headers: {},
        }),
        check: (reply) => {
          const body = reply.json as { id?: unknown; username?: unknown } | undefined;
          return reply.status === 200 && body?.id === undefined
            ? 'no id'
            : reply.status === 200 && body?.username === 'bluebottle'
              ? undefined
              : `HTTP ${reply.status} ${reply.text.slice(0, 300)}`;
        },
      },
      {
        name: 'GET /v25.0/me on the parent-platform host',
        request: (info) => ({
          method: 'GET',
          url: `${info.socialParentUrl}/v25.0/me?fields=id,name&access_token=${encodeURIComponent(info.social.tokens.parent)}`,
          headers: {},
        }),
        check: (reply) => {
          const body = reply.json as { id?: unknown; name?: unknown } | undefined;
          return reply.status === 200 && body?.name === 'Ana' && typeof body.id === 'string'
            ? undefined
            : `HTTP ${reply.status} ${reply.text.slice(0, 300)}`;
        },
      },
    ],
  });
}
