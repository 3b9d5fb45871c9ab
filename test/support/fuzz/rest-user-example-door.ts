import { IF_NONE_MATCH, judgeNotModified } from './conditional-reads.ts';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { judgeRpcStatusReply } from './error-formats.ts';
import type { SystemInfo } from './fuzz-system-protocol.ts';
import { HttpDoor, type HttpPlan, type HttpRequestSpec } from './http-door.ts';
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
  urlPart,
  type RawJson,
} from './hostile-values.ts';
import { listParamsModel, type ColumnModel, type ListParamsModel } from './list-params-arbitrary.ts';
import { shortStringify, withShortText } from './request-description.ts';

/**
 * Area A's REST door (/api/v1/userExample…): protojson bodies of every request message with wrong types, 64-bit edge
 * values, unknown fields, proto names and huge strings; the List params grammar; hostile path ids; methods, content
 * types, encodings and credentials. Every error must be a google.rpc.Status with its code's HTTP status.
 */

/** Who the request claims to be; resolved against the running system's tokens. */
export type Credential =
  { kind: 'none' } | { kind: 'admin' } | { kind: 'user'; index: number } | { kind: 'expired' } | { kind: 'raw'; header: string };

export const credential: fc.Arbitrary<Credential> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Credential>({ kind: 'admin' }) },
  { weight: 2, arbitrary: fc.nat({ max: 3 }).map((index): Credential => ({ kind: 'user', index })) },
  { weight: 2, arbitrary: fc.constant<Credential>({ kind: 'none' }) },
  { weight: 1, arbitrary: fc.constant<Credential>({ kind: 'expired' }) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.constantFrom(
          'Bearer',
          'Bearer ',
          'Bearer x',
          'Bearer a.b.c',
          'Basic YWRtaW46YWRtaW4=',
          'bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiIsInJvbGVzIjpbImFkbWluIl19.',
          'Bearer eyJhbGciOiJIUzI1NiJ9.e30.e30',
          'OAuth oauth_consumer_key="x"',
        ),
        hostileString({ maxLength: 8_000 }).map((text) => `Bearer ${text.replace(/[^\x20-\x7e]/g, '')}`),
      )
      .map((header): Credential => ({ kind: 'raw', header })),
  },
);

/** Mostly a credential that is let in, so that requests reach the service's rules. */
export const acceptedCredentialMostly: fc.Arbitrary<Credential> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Credential>({ kind: 'admin' }) },
  { weight: 1, arbitrary: credential },
);

export function authorizationOf(credential: Credential, info: SystemInfo): string | undefined {
  switch (credential.kind) {
    case 'none':
      return undefined;
    case 'admin':
      return `Bearer ${info.areaA.adminToken}`;
    case 'user': {
      const id = info.areaA.userIds[credential.index % info.areaA.userIds.length]!;
      return `Bearer ${info.areaA.userTokens[id]}`;
    }
    case 'expired':
      return `Bearer ${info.areaA.expiredToken}`;
    case 'raw':
      return credential.header;
  }
}

/** A record id in a path or body: a seeded record, or text that an id parser has to refuse. */
export type IdChoice = { kind: 'seed'; index: number } | { kind: 'text'; text: string };

export const idChoice: fc.Arbitrary<IdChoice> = fc.oneof(
  { weight: 3, arbitrary: fc.nat({ max: 3 }).map((index): IdChoice => ({ kind: 'seed', index })) },
  { weight: 3, arbitrary: fc.constantFrom(...NUMBER_LIKE_TEXTS).map((text): IdChoice => ({ kind: 'text', text })) },
  { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: 2n ** 66n }).map((value): IdChoice => ({ kind: 'text', text: String(value) })) },
  { weight: 1, arbitrary: urlPart().map((text): IdChoice => ({ kind: 'text', text: decodeURIComponentSafe(text) })) },
);

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function idText(choice: IdChoice, info: SystemInfo): string {
  return choice.kind === 'seed' ? info.areaA.userIds[choice.index % info.areaA.userIds.length]! : choice.text;
}

/** A field value of the wrong type as often as of the right one. */
function anyValueFor(kind: 'string' | 'int32' | 'int64' | 'uint64' | 'enum'): fc.Arbitrary<RawJson> {
  const strings = hostileString({ maxLength: 200_000 }).map(quote);
  const numbers = rawJsonNumber();
  const numericStrings = fc.constantFrom(...NUMBER_LIKE_TEXTS).map(quote);
  const enums = fc.constantFrom(
    '"MALE"',
    '"FEMALE"',
    '"UNKNOWN"',
    '"male"',
    '"OTHER"',
    '0',
    '1',
    '2',
    '3',
    '-1',
    '1.5',
    '"1"',
    '2147483648',
  );
  const junk = fc.oneof(fc.constantFrom('null', 'true', 'false', '[]', '{}', '[1]', '{"a":1}'), rawJsonValue(2));
  switch (kind) {
    case 'string':
      return fc.oneof({ weight: 6, arbitrary: strings }, { weight: 1, arbitrary: numbers }, { weight: 1, arbitrary: junk });
    case 'int32':
    case 'int64':
    case 'uint64':
      return fc.oneof(
        { weight: 4, arbitrary: numbers },
        { weight: 3, arbitrary: numericStrings },
        { weight: 1, arbitrary: junk },
        { weight: 1, arbitrary: strings },
      );
    case 'enum':
      return fc.oneof({ weight: 5, arbitrary: enums }, { weight: 1, arbitrary: junk }, { weight: 1, arbitrary: numbers });
  }
}

const CREATE_FIELDS = {
  name: 'string',
  email: 'string',
  password: 'string',
  phone: 'string',
  avatar: 'string',
  age: 'int32',
  gender: 'enum',
} as const;
const UPDATE_FIELDS = { ...CREATE_FIELDS, id: 'uint64', status: 'int32', loginAt: 'int64', login_at: 'int64' } as const;

/** A valid create body, so that some requests do get through (a unique e-mail each). */
const validCreate: fc.Arbitrary<[string, RawJson][]> = fc
  .tuple(fc.stringMatching(/^[a-z]{1,12}$/), fc.nat({ max: 120 }), fc.constantFrom('MALE', 'FEMALE', 'UNKNOWN'))
  .map(([local, age, gender]): [string, RawJson][] => [
    ['name', quote(`Fuzz ${local}`)],
    ['email', quote(`${local}.${age}@fuzz.example.com`)],
    ['password', quote('fuzz-password-0123')],
    ['phone', quote('13912345678')],
    ['avatar', quote('https://cdn.example.com/f.png')],
    ['age', String(age)],
    ['gender', quote(gender)],
  ]);

function messageBody(fields: Readonly<Record<string, 'string' | 'int32' | 'int64' | 'uint64' | 'enum'>>): fc.Arbitrary<RawJson> {
  const known = Object.keys(fields);
  const entry = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.constantFrom(...known).chain((name) => anyValueFor(fields[name]!).map((value): [string, RawJson] => [name, value])),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.constantFrom(...PROTOTYPE_NAMES, 'unknownField', 'created_at', 'createdAt', 'deleted_at', ''),
        rawJsonValue(2),
      ),
    },
    { weight: 1, arbitrary: fc.tuple(hostileString({ maxLength: 50 }), rawJsonValue(1)) },
  );
  // Keys unique as a rule (a duplicate key stops the decoder at once, before any value is looked at), repeated sometimes.
  return fc.oneof(
    { weight: 6, arbitrary: fc.uniqueArray(entry, { maxLength: 9, selector: ([key]) => key }).map(rawObject) },
    { weight: 1, arbitrary: fc.array(entry, { maxLength: 9 }).map(rawObject) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(validCreate, fc.uniqueArray(entry, { maxLength: 2, selector: ([key]) => key }))
        .map(([valid, extra]) => rawObject([...valid.filter(([key]) => !extra.some(([other]) => other === key)), ...extra])),
    },
  );
}

/** The List body: the params model written as JSON, sometimes with its types confused. */
function listBody(model: ListParamsModel): fc.Arbitrary<RawJson> {
  const scalar = (value: number | string | undefined): fc.Arbitrary<RawJson | undefined> =>
    value === undefined
      ? fc.constant(undefined)
      : fc.oneof(
          {
            weight: 6,
            arbitrary: fc.constant(typeof value === 'number' ? (Number.isFinite(value) ? String(value) : 'null') : quote(value)),
          },
          { weight: 1, arbitrary: fc.constant(quote(String(value))) },
          { weight: 1, arbitrary: fc.constantFrom('null', 'true', '[]', '{}') },
        );
  const column = (c: ColumnModel): RawJson =>
    rawObject(
      (['name', 'exp', 'value', 'logic'] as const).flatMap((key): [string, RawJson][] =>
        c[key] === undefined ? [] : [[key, quote(c[key]!)]],
      ),
    );
  return fc
    .tuple(
      scalar(model.page),
      scalar(model.limit),
      fc.constant(model.sort === undefined ? undefined : quote(model.sort)),
      fc.constant(model.columns === undefined ? undefined : rawArray(model.columns.map(column))),
      fc.oneof(
        { weight: 8, arbitrary: fc.constant('params') },
        { weight: 1, arbitrary: fc.constantFrom('Params', 'param', '__proto__', '') },
      ),
      fc.oneof(
        { weight: 8, arbitrary: fc.constant<[string, RawJson][]>([]) },
        {
          weight: 1,
          arbitrary: fc.array(fc.tuple(fc.constantFrom('columns', 'page', 'extra', '__proto__', 'constructor'), rawJsonValue(2)), {
            maxLength: 2,
          }),
        },
      ),
    )
    .map(([page, limit, sort, columns, wrapper, extra]) => {
      const entries: [string, RawJson][] = [];
      if (page !== undefined) entries.push(['page', page]);
      if (limit !== undefined) entries.push(['limit', limit]);
      if (sort !== undefined) entries.push(['sort', sort]);
      if (columns !== undefined) entries.push(['columns', columns]);
      return rawObject([[wrapper, rawObject([...entries, ...extra])]]);
    });
}

/** Content types a client might send (the body is JSON whatever the header says). */
const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant<string | undefined>('application/json') },
  {
    weight: 2,
    arbitrary: fc.constantFrom<string | undefined>(
      undefined,
      'text/plain',
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/json; charset=nope',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
      'multipart/form-data; boundary=x',
      'application/octet-stream',
      '*/*',
      '',
      'application/json; charset',
    ),
  },
);

const contentEncoding = fc.oneof(
  { weight: 12, arbitrary: fc.constant<string | undefined>(undefined) },
  { weight: 1, arbitrary: fc.constantFrom<string | undefined>('gzip', 'deflate', 'br', 'identity', 'compress', 'gzip, gzip', 'x-nope') },
);

export interface RestUserExampleRequest extends HttpPlan {
  kind: string;
}

interface PlanParts {
  kind: string;
  method: string;
  path: (info: SystemInfo) => string;
  credential: Credential;
  contentType?: string | undefined;
  contentEncoding?: string | undefined;
  /** Compress the body when an encoding is claimed (a valid gzip of the JSON), or send it as is (a corrupt one). */
  compress?: boolean;
  body?: string | undefined;
  /** An If-None-Match header (GET by id answers 304 to its own tag, `*` included). */
  ifNoneMatch?: string | undefined;
}

function plan(parts: PlanParts): RestUserExampleRequest {
  const request: RestUserExampleRequest = {
    kind: parts.kind,
    build(info: SystemInfo): HttpRequestSpec {
      const headers: Record<string, string> = { accept: 'application/json' };
      const authorization = authorizationOf(parts.credential, info);
      if (authorization !== undefined) headers.authorization = authorization;
      if (parts.ifNoneMatch !== undefined) headers['if-none-match'] = parts.ifNoneMatch;
      if (parts.contentType !== undefined && parts.body !== undefined) headers['content-type'] = parts.contentType;
      let body: Buffer | string | undefined = parts.body;
      if (parts.contentEncoding !== undefined && body !== undefined) {
        headers['content-encoding'] = parts.contentEncoding;
        if (parts.compress && parts.contentEncoding === 'gzip') body = gzipSync(Buffer.from(body, 'utf8'));
      }
      // The path exactly as generated: the URL class would normalise dot segments and encodings away.
      return { method: parts.method, url: info.restUrl + parts.path(info), headers, body };
    },
  };
  return withShortText(request, () => shortStringify(parts));
}

const bodyAndHeaders = fc.record({ contentType, contentEncoding, compress: fc.boolean() });
const bodyAndHeadersMostlyPlain = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ contentType: 'application/json', contentEncoding: undefined, compress: false }) },
  { weight: 1, arbitrary: bodyAndHeaders },
);

/** POST /api/v1/userExample with hostile create bodies (Create is public: mostly without a token). */
export const createRequests: fc.Arbitrary<RestUserExampleRequest> = fc
  .tuple(
    messageBody(CREATE_FIELDS).chain((body) => corruptJsonSometimes(body)),
    fc.oneof({ weight: 3, arbitrary: fc.constant<Credential>({ kind: 'none' }) }, { weight: 1, arbitrary: credential }),
    bodyAndHeaders,
  )
  .map(([body, who, extra]) =>
    plan({ kind: 'create', method: 'POST', path: () => '/api/v1/userExample', credential: who, body, ...extra }),
  );

/** PUT /api/v1/userExample/{id} with hostile update bodies. */
export const updateRequests: fc.Arbitrary<RestUserExampleRequest> = fc
  .tuple(
    messageBody(UPDATE_FIELDS).chain((body) => corruptJsonSometimes(body)),
    idChoice,
    acceptedCredentialMostly,
    bodyAndHeaders,
  )
  .map(([body, id, who, extra]) =>
    plan({
      kind: 'update',
      method: 'PUT',
      path: (info) => `/api/v1/userExample/${encodeURIComponent(idText(id, info))}`,
      credential: who,
      body,
      ...extra,
    }),
  );

/** POST /api/v1/userExample/list along the params grammar. */
export const listRequests: fc.Arbitrary<RestUserExampleRequest> = fc
  .tuple(
    listParamsModel.chain(listBody).chain((body) => corruptJsonSometimes(body, 12)),
    acceptedCredentialMostly,
    bodyAndHeadersMostlyPlain,
  )
  .map(([body, who, extra]) =>
    plan({ kind: 'list', method: 'POST', path: () => '/api/v1/userExample/list', credential: who, body, ...extra }),
  );

/** Any method on any Area A path: hostile ids, extra segments, dot segments, case, query strings. */
export const pathRequests: fc.Arbitrary<RestUserExampleRequest> = fc
  .tuple(
    fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('GET', 'DELETE', 'PUT', 'POST') },
      { weight: 2, arbitrary: fc.constantFrom('OPTIONS', 'HEAD', 'PATCH', 'TRACE', 'PROPFIND', 'SEARCH', 'LINK', 'PURGE') },
    ),
    idChoice,
    fc.constantFrom(
      '/api/v1/userExample/{id}',
      '/api/v1/userExample/{id}/',
      '/api/v1/userExample',
      '/api/v1/userExample/',
      '/api/v1/userExample/list',
      '/api/v1/userExample/list/',
      '/api/v1/userexample/{id}',
      '/api/v1/userExample/{id}/extra',
      '/api/v1/userExample//{id}',
      '/api/v1/userExample/./{id}',
      '/api/v1/userExample/../userExample/{id}',
      '/api/v1/userExample/{id}?fields=constructor',
      '/api/v1/userExample/{id};x=1',
      '/api/v1/',
      '/api/v2/userExample/{id}',
      '/api/v1/userExample/{id}%2F1',
    ),
    credential,
    fc.option(rawJsonValue(2), { nil: undefined }),
    IF_NONE_MATCH,
  )
  .map(([method, id, template, who, body, ifNoneMatch]) =>
    plan({
      kind: 'path',
      method,
      path: (info) => template.replace('{id}', encodeURIComponent(idText(id, info)).replace(/%25(?=[0-9A-Fa-f]{2}|zz)/g, '%')),
      credential: who,
      contentType: 'application/json',
      body: method === 'GET' || method === 'HEAD' || method === 'DELETE' || method === 'OPTIONS' || method === 'TRACE' ? undefined : body,
      ifNoneMatch,
    }),
  );

function corruptJsonSometimes(body: RawJson, weight = 8): fc.Arbitrary<string> {
  return fc.oneof({ weight, arbitrary: fc.constant(body) }, { weight: 1, arbitrary: corruptJson(body) });
}

/** The door: its oracle and the known-good List it must still answer after every case. */
export function createRestUserExampleDoor(): HttpDoor {
  return new HttpDoor({
    name: 'rest-user-example',
    judge: (reply, request) => judgeNotModified(reply, request) ?? judgeRpcStatusReply(reply, request.method),
    probes: [
      {
        name: 'List of one record (admin)',
        request: (info) => ({
          method: 'POST',
          url: `${info.restUrl}/api/v1/userExample/list`,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${info.areaA.adminToken}` },
          body: '{"params":{"limit":1}}',
        }),
        check: (reply) => {
          const body = reply.json as { total?: unknown; userExamples?: unknown } | undefined;
          return reply.status === 200 && typeof body?.total === 'string' && Array.isArray(body.userExamples)
            ? undefined
            : `HTTP ${reply.status} ${reply.text.slice(0, 300)}`;
        },
      },
    ],
  });
}
