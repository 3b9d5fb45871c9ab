import fc from 'fast-check';
import { png } from '../image-fixtures.ts';
import { judgeMediaV2Reply, type Judgement, type Problem, type ReplyView } from './error-formats.ts';
import type { SystemInfo } from './fuzz-system-protocol.ts';
import { HttpDoor, type HttpPlan, type HttpRequestSpec } from './http-door.ts';
import {
  BASE64_SPELLINGS,
  corruptJson,
  hostileBase64,
  hostileString,
  PROTOTYPE_NAMES,
  quote,
  rawJsonValue,
  rawObject,
  type RawJson,
} from './hostile-values.ts';
import {
  fileBytes,
  multipartBytes,
  multipartContentType,
  multipartOf,
  partExtraHeaders,
  type MultipartModel,
  type PartModel,
} from './multipart-arbitrary.ts';
import { shortStringify, withShortText } from './request-description.ts';
import { authorizationFor, CATEGORY_VALUES, uploadCredential, type UploadCredential } from './upload-door.ts';

/**
 * Area D's one-shot upload under API v2, POST /2/media/upload (reference §7, §10): JSON bodies (`media` in base64 valid,
 * broken, huge or not a string; `media_category`, `media_type` and `shared` of every type; unknown and prototype keys;
 * the older command form; JSON that is cut, nested thousands deep or no object), multipart bodies (the file as a part or
 * as base64 text, broken framing), other content types, other methods on the path and paths beside it, and every
 * credential (OAuth 2.0 user and app-only bearers, OAuth 1.0a signed over the method and URL only, as v2 signs, junk).
 * Replies are judged by v2's rules (judgeMediaV2Reply): 200 `{"data": …}` with the uploaded image, or a problem.
 */

export const V2_UPLOAD_PATH = '/2/media/upload';

/** A credential of the upload door's kinds, or bluebottle's rival roaster (its own user, its own rate counter). */
export type V2Credential = UploadCredential | { kind: 'roaster' };

export const v2Credential: fc.Arbitrary<V2Credential> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<V2Credential>({ kind: 'bearer' }) },
  { weight: 1, arbitrary: fc.constant<V2Credential>({ kind: 'roaster' }) },
  { weight: 3, arbitrary: uploadCredential },
);

/** The Authorization header of a v2 request: OAuth 1.0a signs the method and URL only (v2's bodies are JSON or multipart). */
export function v2Authorization(credential: V2Credential, info: SystemInfo, url: string): string | undefined {
  return credential.kind === 'roaster' ? `Bearer ${info.social.tokens.roasterOwn}` : authorizationFor(credential, info, url, undefined);
}

/** A JSON value as the one-shot upload's `media` carries it, or does not. */
const mediaValue: fc.Arbitrary<RawJson> = fc.oneof(
  { weight: 6, arbitrary: fileBytes.map((bytes) => quote(bytes.toString('base64'))) },
  {
    weight: 2,
    arbitrary: fc.tuple(fileBytes, fc.constantFrom(...BASE64_SPELLINGS)).map(([bytes, how]) => quote(hostileBase64(bytes, how, 10))),
  },
  { weight: 1, arbitrary: hostileString({ maxLength: 50_000 }).map(quote) },
  { weight: 1, arbitrary: rawJsonValue(2) },
  // Past the base64 of the largest acceptable image: the reader must refuse it without holding more.
  { weight: 1, arbitrary: fc.constantFrom(7_100_000, 8_000_000).map((length) => quote('A'.repeat(length))) },
);

const ONE_SHOT_TYPES = [
  'image/png',
  'image/jpeg',
  'image/bmp',
  'image/webp',
  'image/pjpeg',
  'image/tiff',
  'text/srt',
  'text/vtt',
  'image/gif',
  'video/mp4',
  'IMAGE/PNG',
  '',
];

/** A key of the one-shot body and a JSON value for it: right, wrong in type, hostile, or a key v2 does not have. */
const jsonField: fc.Arbitrary<[string, RawJson]> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...CATEGORY_VALUES).map((value): [string, RawJson] => ['media_category', quote(value)]) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(...ONE_SHOT_TYPES, ...PROTOTYPE_NAMES).map((value): [string, RawJson] => ['media_type', quote(value)]),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom('true', 'false', '"true"', '"yes"', '1', 'null', '{}').map((value): [string, RawJson] => ['shared', value]),
  },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('media_category', 'media_type', 'shared', 'media'), rawJsonValue(2)) },
  {
    weight: 2,
    arbitrary: fc.tuple(
      fc.constantFrom(
        'command',
        'media_id',
        'media_data',
        'additional_owners',
        'segment_index',
        'total_bytes',
        'id',
        'Media',
        ...PROTOTYPE_NAMES,
      ),
      fc.oneof(fc.constantFrom('"INIT"', '"APPEND"', '"FINALIZE"', '"STATUS"', '["1"]'), rawJsonValue(1)),
    ),
  },
);

/** Mostly the category a client sends, so that most requests reach the media service with their file. */
const usualCategory: fc.Arbitrary<[string, RawJson][]> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<[string, RawJson][]>([['media_category', '"tweet_image"']]) },
  { weight: 1, arbitrary: fc.constant<[string, RawJson][]>([]) },
  { weight: 1, arbitrary: fc.constantFrom(...CATEGORY_VALUES).map((value): [string, RawJson][] => [['media_category', quote(value)]]) },
);

const mediaPart: fc.Arbitrary<PartModel> = fc.record({
  name: fc.constant('media'),
  // twitter-api-v2 sends the media part without a filename; browsers with one.
  filename: fc.constantFrom<string | null | undefined>(null, 'photo.png', null, undefined, '', 'x'.repeat(5_000)),
  contentType: fc.constantFrom<string | undefined>('application/octet-stream', 'image/png', undefined, 'text/plain'),
  extraHeaders: partExtraHeaders,
  data: fileBytes,
});

const textPart: fc.Arbitrary<PartModel> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(...CATEGORY_VALUES).map((value): PartModel => ({ name: 'media_category', data: Buffer.from(value) })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...ONE_SHOT_TYPES).map((value): PartModel => ({ name: 'media_type', data: Buffer.from(value) })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('true', 'false', 'TRUE', '1', '').map((value): PartModel => ({ name: 'shared', data: Buffer.from(value) })),
  },
  // The file as base64 text in the `media` field: what the JSON form carries, in a multipart body.
  {
    weight: 1,
    arbitrary: mediaValue
      .filter((json) => json.startsWith('"') && json.length < 100_000)
      .map((json): PartModel => ({ name: 'media', data: Buffer.from(JSON.parse(json) as string) })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom('command', 'media_data', 'additional_owners', 'segment_index', 'media_id', 'Media', ...PROTOTYPE_NAMES),
        hostileString({ maxLength: 2_000 }),
      )
      .map(([name, value]): PartModel => ({ name, data: Buffer.from(value, 'utf8') })),
  },
);

const multipartParts: fc.Arbitrary<PartModel[]> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(usualCategory, fc.array(textPart, { maxLength: 2 }), mediaPart, fc.array(textPart, { maxLength: 1 }))
      .map(([category, before, media, after]) => [
        ...category.map(([name, json]): PartModel => ({ name, data: Buffer.from(JSON.parse(json) as string) })),
        ...before,
        media,
        ...after,
      ]),
  },
  { weight: 2, arbitrary: fc.array(fc.oneof(mediaPart, textPart), { maxLength: 5 }) },
  // Past busboy's field and part limits, small or large fields.
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 95, max: 115 }), fc.integer({ min: 0, max: 30_000 }), fc.boolean())
      .map(([count, size, withMedia]) => [
        ...Array.from({ length: count }, (_, index): PartModel => ({ name: `f${index}`, data: Buffer.alloc(size, 'A') })),
        ...(withMedia ? [{ name: 'media', filename: null, contentType: 'application/octet-stream', data: png(8, 8) }] : []),
      ]),
  },
);

export type V2UploadBody =
  | { kind: 'json'; fields: [string, RawJson][]; contentType: string | undefined }
  | { kind: 'raw-json'; text: string; contentType: string | undefined }
  | { kind: 'multipart'; model: MultipartModel }
  | { kind: 'other'; contentType: string | undefined; bytes: Buffer };

export interface V2UploadModel {
  method: string;
  /** The path: mostly /2/media/upload; sometimes a neighbour v2 does not have. */
  path: string;
  credential: V2Credential;
  query: [string, string][];
  body: V2UploadBody;
}

const JSON_TYPES = [
  'application/json',
  'application/json;charset=UTF-8',
  'application/json; charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
];

const jsonBody: fc.Arbitrary<V2UploadBody> = fc.record({
  kind: fc.constant('json' as const),
  fields: fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(mediaValue, usualCategory, fc.array(jsonField, { maxLength: 2 }))
        .map(([media, category, rest]): [string, RawJson][] => [['media', media], ...category, ...rest]),
    },
    { weight: 2, arbitrary: fc.array(jsonField, { maxLength: 4 }) },
  ),
  contentType: fc.oneof(
    { weight: 8, arbitrary: fc.constant<string | undefined>('application/json') },
    { weight: 1, arbitrary: fc.constantFrom<string | undefined>(undefined, ...JSON_TYPES) },
  ),
});

const rawJsonBody: fc.Arbitrary<V2UploadBody> = fc.record({
  kind: fc.constant('raw-json' as const),
  text: fc.oneof(
    corruptJson(`{"media":${quote(png(8, 8).toString('base64'))},"media_category":"tweet_image"}`),
    rawJsonValue(3),
    // Keys repeated, a prototype key carrying the fields, thousands of keys.
    fc.constantFrom(
      `{"media_category":"tweet_image","media_category":"x","media":${quote(png(8, 8).toString('base64'))}}`,
      `{"__proto__":{"media_category":"tweet_image"},"media":${quote(png(8, 8).toString('base64'))}}`,
      `{${Array.from({ length: 5_000 }, (_, index) => `"k${index}":1`).join(',')}}`,
    ),
  ),
  contentType: fc.constantFrom<string | undefined>('application/json', undefined),
});

const PATHS = [
  V2_UPLOAD_PATH,
  `${V2_UPLOAD_PATH}/`,
  '/2/media/upload.json',
  '/2/media',
  '/2/media/upload/status',
  '/2/Media/Upload',
  `${V2_UPLOAD_PATH}/%zz`,
  '/2/media/%2e%2e/upload',
];

export const v2UploadRequests: fc.Arbitrary<V2UploadModel & HttpPlan> = fc
  .record({
    method: fc.oneof(
      { weight: 24, arbitrary: fc.constant('POST') },
      { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH') },
    ),
    path: fc.oneof({ weight: 30, arbitrary: fc.constant(V2_UPLOAD_PATH) }, { weight: 1, arbitrary: fc.constantFrom(...PATHS) }),
    credential: v2Credential,
    query: fc.oneof(
      { weight: 8, arbitrary: fc.constant<[string, string][]>([]) },
      // Bounded so that a request's head stays under Node's 16 KiB (chunked-upload-v2-door.ts says why).
      {
        weight: 1,
        arbitrary: fc.array(
          fc.tuple(fc.constantFrom('command', 'media_id', 'media_category', ...PROTOTYPE_NAMES), hostileString({ maxLength: 400 })),
          { maxLength: 2 },
        ),
      },
    ),
    body: fc.oneof(
      { weight: 5, arbitrary: jsonBody },
      { weight: 2, arbitrary: rawJsonBody },
      { weight: 4, arbitrary: multipartOf(multipartParts).map((model): V2UploadBody => ({ kind: 'multipart', model })) },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('other' as const),
          contentType: fc.constantFrom<string | undefined>(
            undefined,
            'image/png',
            'application/octet-stream',
            'multipart/mixed; boundary=x',
            'multipart/form-data',
            'multipart/form-data; boundary=',
          ),
          bytes: fileBytes,
        }),
      },
    ),
  })
  .map((model) => withShortText({ ...model, build: (info: SystemInfo) => buildV2UploadRequest(model, info) }, () => shortStringify(model)));

export function buildV2UploadRequest(model: V2UploadModel, info: SystemInfo): HttpRequestSpec {
  const search = new URLSearchParams(model.query).toString();
  const url = `${info.restUrl}${model.path}${search ? `?${search}` : ''}`;
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: Buffer | string;
  let contentType: string | undefined;
  switch (model.body.kind) {
    case 'json':
      body = rawObject(model.body.fields);
      contentType = model.body.contentType;
      break;
    case 'raw-json':
      body = model.body.text;
      contentType = model.body.contentType;
      break;
    case 'multipart':
      body = multipartBytes(model.body.model);
      contentType = multipartContentType(model.body.model);
      break;
    case 'other':
      body = model.body.bytes;
      contentType = model.body.contentType;
      break;
  }
  if (contentType !== undefined) headers['content-type'] = contentType;
  const authorization = v2Authorization(model.credential, info, url);
  if (authorization !== undefined) headers.authorization = authorization;
  return { method: model.method, url, headers, body: model.method === 'GET' || model.method === 'HEAD' ? undefined : body };
}

/** v2's rules, and a one-shot upload's 200 carries the uploaded image and its id. */
function judgeV2Upload(reply: ReplyView, request: HttpRequestSpec): Judgement {
  const judgement = judgeMediaV2Reply(reply, request.method);
  if (reply.status === 200 && request.method === 'POST' && judgement.problems.length === 0) {
    const data = (reply.json as { data: { id?: unknown; image?: { w?: unknown } } }).data;
    if (typeof data.id !== 'string' || !/^\d{1,19}$/.test(data.id) || typeof data.image?.w !== 'number') {
      const problem: Problem = {
        kind: 'format',
        detail: `a one-shot upload's 200 without the media id and image: ${reply.text.slice(0, 600)}`,
      };
      return { ...judgement, problems: [problem] };
    }
  }
  return judgement;
}

/** The known-good v2 upload: an 8×8 PNG in base64 in a JSON body, with the own-login token. */
function goodV2Upload(info: SystemInfo): HttpRequestSpec {
  return {
    method: 'POST',
    url: `${info.restUrl}${V2_UPLOAD_PATH}`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${info.social.tokens.own}` },
    body: JSON.stringify({ media: png(8, 8).toString('base64'), media_category: 'tweet_image', media_type: 'image/png' }),
  };
}

export function createUploadV2Door(): HttpDoor {
  return new HttpDoor({
    name: 'upload v2',
    judge: judgeV2Upload,
    probeWrites: true,
    bookkeepingTables: {
      // One media service under both versions: v2 requests count against the same rate limit, refused ones included.
      'media.rate_counter': 'rate-limit counters count refused uploads too',
      'oauth.nonce': 'nonces are spent by any correctly signed request',
    },
    probes: [
      {
        name: 'v2 upload of an 8×8 PNG',
        request: goodV2Upload,
        check: (reply) => {
          const data = (reply.json as { data?: { id?: unknown; image?: { w?: unknown } } } | undefined)?.data;
          return reply.status === 200 && typeof data?.id === 'string' && data.image?.w === 8
            ? undefined
            : `HTTP ${reply.status} ${reply.text.slice(0, 300)}`;
        },
      },
    ],
  });
}
