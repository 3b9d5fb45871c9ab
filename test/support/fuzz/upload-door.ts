import fc from 'fast-check';
import { png } from '../image-fixtures.ts';
import { mediaMultipartBody, oauth1Authorization } from '../media-client.ts';
import { judgeUploadReply } from './error-formats.ts';
import type { SystemInfo } from './fuzz-system-protocol.ts';
import { HttpDoor, type HttpPlan, type HttpRequestSpec } from './http-door.ts';
import { BASE64_SPELLINGS, hostileBase64, hostileString, NUMBER_LIKE_TEXTS, PROTOTYPE_NAMES } from './hostile-values.ts';
import {
  FILE_CONTENTS,
  fileBytes,
  multipartBytes,
  multipartContentType,
  multipartOf,
  partExtraHeaders,
  type MultipartModel,
  type PartModel,
} from './multipart-arbitrary.ts';
import { shortStringify, withShortText } from './request-description.ts';

/**
 * Area D's door, POST /1.1/media/upload.json: multipart bodies (the `media` part with and without a filename, duplicated
 * parts, broken framing, bodies that end mid-file) and urlencoded bodies (`media_data` base64 that is valid, broken,
 * percent-encoded badly, or huge), every parameter's hostile values, and credentials of each scheme (OAuth 2.0 bearer,
 * OAuth 1.0a signed by an independent library, junk). Errors must come in the reference's two shapes.
 */

export const UPLOAD_PATH = '/1.1/media/upload.json';

export type UploadCredential =
  | { kind: 'bearer' }
  | { kind: 'oauth1'; withQuery: boolean; skewSeconds: number; nonce: string | undefined; omit: string[] }
  | { kind: 'app-bearer' }
  | { kind: 'expired' }
  | { kind: 'none' }
  | { kind: 'raw'; header: string };

export const uploadCredential: fc.Arbitrary<UploadCredential> = fc.oneof(
  { weight: 8, arbitrary: fc.constant<UploadCredential>({ kind: 'bearer' }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('oauth1' as const),
      withQuery: fc.boolean(),
      skewSeconds: fc.oneof(
        { weight: 6, arbitrary: fc.constant(0) },
        { weight: 1, arbitrary: fc.constantFrom(-100_000, 400, 2 ** 40, -(2 ** 40)) },
      ),
      nonce: fc.option(fc.constantFrom('fixed-nonce', '', '\u0000', 'x'.repeat(5_000)), { nil: undefined, freq: 6 }),
      omit: fc.oneof(
        { weight: 6, arbitrary: fc.constant<string[]>([]) },
        {
          weight: 1,
          arbitrary: fc.subarray([
            'oauth_signature',
            'oauth_nonce',
            'oauth_timestamp',
            'oauth_token',
            'oauth_consumer_key',
            'oauth_signature_method',
          ]),
        },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constantFrom<UploadCredential>({ kind: 'app-bearer' }, { kind: 'expired' }, { kind: 'none' }) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.constantFrom(
          'OAuth',
          'OAuth ',
          'OAuth oauth_consumer_key=',
          'OAuth oauth_consumer_key="a", oauth_consumer_key="b"',
          'OAuth oauth_signature_method="PLAINTEXT", oauth_signature="x"',
          'OAuth realm="x", oauth_token="1-abc", oauth_timestamp="1e3"',
          'OAuth oauth_timestamp="99999999999999999999999"',
          'OAuth oauth_nonce="%zz"',
          'Bearer',
          'Basic Zm9vOmJhcg==',
          'Bearer AAAAAAAAAAAAAAAAAAAAA',
        ),
        hostileString({ maxLength: 4_000 }).map((text) => `OAuth ${text.replace(/[^\x20-\x7e]/g, '')}`),
      )
      .map((header): UploadCredential => ({ kind: 'raw', header })),
  },
);

export function authorizationFor(
  credential: UploadCredential,
  info: SystemInfo,
  url: string,
  signedBody: Record<string, string> | undefined,
): string | undefined {
  switch (credential.kind) {
    case 'bearer':
      return `Bearer ${info.social.tokens.own}`;
    case 'app-bearer':
      return `Bearer ${info.media.appBearer}`;
    case 'expired':
      return `Bearer ${info.social.tokens.expired}`;
    case 'none':
      return undefined;
    case 'raw':
      return credential.header;
    case 'oauth1':
      return oauth1Authorization({
        consumer: { key: info.media.consumerKey, secret: info.media.consumerSecret },
        token: { key: info.media.token, secret: info.media.tokenSecret },
        url: credential.withQuery ? url : url.split('?')[0]!,
        ...(signedBody ? { data: signedBody } : {}),
        // Fixed instants make the request reproducible; a skew of 0 is "now" at build time.
        timestamp: Math.floor(Date.now() / 1000) + credential.skewSeconds,
        ...(credential.nonce !== undefined ? { nonce: credential.nonce } : {}),
        omit: credential.omit,
      });
  }
}

export const CATEGORY_VALUES = [
  'tweet_image',
  'TWEET_IMAGE',
  'Tweet_Image',
  'tweet_video',
  'amplify_video',
  'tweet_gif',
  'dm_image',
  'subtitles',
  '',
  ' tweet_image',
  ...PROTOTYPE_NAMES,
];

const ownerLists = fc.oneof(
  fc
    .array(fc.oneof(fc.bigInt({ min: 1n, max: 10n ** 19n }).map(String), fc.constantFrom(...NUMBER_LIKE_TEXTS)), { maxLength: 5 })
    .map((ids) => ids.join(',')),
  fc.integer({ min: 99, max: 102 }).map((n) => Array.from({ length: n }, (_, index) => String(1000 + index)).join(',')),
  fc.constantFrom(',', ',,', '1,,2', ' 1', '12345678901234567890', 'x'.repeat(70_000)),
);

/** Parameters of the upload besides the file. */
const textParam: fc.Arbitrary<[string, string]> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...CATEGORY_VALUES).map((value): [string, string] => ['media_category', value]) },
  { weight: 2, arbitrary: ownerLists.map((value): [string, string] => ['additional_owners', value]) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('INIT', 'APPEND', 'FINALIZE', 'STATUS', '', 'init').map((value): [string, string] => ['command', value]),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constantFrom('media_type', 'total_bytes', 'media_id', 'segment_index', 'shared', ...PROTOTYPE_NAMES),
      hostileString({ maxLength: 2_000 }),
    ),
  },
);

/** `media_data` values: the base64 of an image, of a broken one, with bad characters, a data: URI, or junk. */
const mediaData = fc.oneof(
  { weight: 4, arbitrary: fileBytes.map((bytes) => bytes.toString('base64')) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fileBytes, fc.constantFrom(...BASE64_SPELLINGS.filter((how) => how !== 'plain')))
      .map(([bytes, how]) => hostileBase64(bytes, how, 10)),
  },
  { weight: 1, arbitrary: hostileString({ maxLength: 50_000 }) },
  // Past the base64 of the largest acceptable image (the reader must cut it and refuse it with 324).
  { weight: 1, arbitrary: fc.constant(null).map(() => 'A'.repeat(7_100_000)) },
);

export interface UploadModel {
  method: string;
  credential: UploadCredential;
  query: [string, string][];
  body:
    | { kind: 'multipart'; model: MultipartModel }
    | { kind: 'urlencoded'; params: [string, string][]; raw: string | undefined }
    | { kind: 'other'; contentType: string | undefined; bytes: Buffer };
}

const mediaPart: fc.Arbitrary<PartModel> = fc.record({
  name: fc.constant('media'),
  filename: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom<string | null | undefined>('photo.png', null) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<string | null | undefined>(undefined, '', '../../etc/passwd', 'a\u0000b.png', '💩.png', 'x'.repeat(5_000)),
    },
  ),
  contentType: fc.constantFrom<string | undefined>('image/png', 'application/octet-stream', undefined, 'text/plain', 'image/svg+xml'),
  extraHeaders: partExtraHeaders,
  data: fileBytes,
});

const otherPart: fc.Arbitrary<PartModel> = fc.oneof(
  textParam.map(([name, value]): PartModel => ({ name, data: Buffer.from(value, 'utf8') })),
  mediaData.map((value): PartModel => ({ name: 'media_data', data: Buffer.from(value, 'utf8') })),
  fc.record({
    name: fc.constantFrom<string | null>(null, '', 'file', 'media[]', 'Media', ...PROTOTYPE_NAMES),
    filename: fc.constantFrom<string | null | undefined>(undefined, null, 'x.png'),
    contentType: fc.constant<string | undefined>(undefined),
    data: fileBytes,
  }),
);

const multipartParts: fc.Arbitrary<PartModel[]> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.array(otherPart, { maxLength: 2 }), mediaPart, fc.array(otherPart, { maxLength: 2 }))
      .map(([before, media, after]) => [...before, media, ...after]),
  },
  { weight: 2, arbitrary: fc.array(fc.oneof(mediaPart, otherPart), { maxLength: 5 }) },
  // Many fields (the limit is 100), small or large, and many files (the limit is 10).
  // (A small part repeated: a hundred copies of a 7 MB media_data would be a request that takes longer to send than the
  // bound allows, not a finding.)
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        otherPart.filter((part) => part.data.length <= 100_000),
        fc.integer({ min: 90, max: 130 }),
      )
      .map(([part, count]) => Array.from({ length: count }, () => part)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 95, max: 110 }), fc.integer({ min: 0, max: 80_000 }), fc.boolean())
      .map(([count, size, withMedia]) => [
        ...Array.from({ length: count }, (_, index): PartModel => ({ name: `f${index}`, data: Buffer.alloc(size, 'A') })),
        ...(withMedia ? [{ name: 'media', filename: 'photo.png', contentType: 'image/png', data: FILE_CONTENTS.png() }] : []),
      ]),
  },
);

export const uploadRequests: fc.Arbitrary<UploadModel & HttpPlan> = fc
  .record({
    method: fc.oneof(
      { weight: 20, arbitrary: fc.constant('POST') },
      { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH') },
    ),
    credential: uploadCredential,
    query: fc.oneof(
      { weight: 5, arbitrary: fc.constant<[string, string][]>([]) },
      { weight: 2, arbitrary: fc.array(textParam, { maxLength: 2 }) },
    ),
    body: fc.oneof(
      { weight: 5, arbitrary: multipartOf(multipartParts).map((model) => ({ kind: 'multipart' as const, model })) },
      {
        weight: 4,
        arbitrary: fc.record({
          kind: fc.constant('urlencoded' as const),
          params: fc.oneof(
            {
              weight: 6,
              arbitrary: fc
                .tuple(mediaData, fc.array(textParam, { maxLength: 2 }))
                .map(([data, rest]): [string, string][] => [['media_data', data], ...rest]),
            },
            { weight: 2, arbitrary: fc.array(textParam, { maxLength: 3 }) },
          ),
          raw: fc.oneof(
            { weight: 8, arbitrary: fc.constant<string | undefined>(undefined) },
            {
              weight: 1,
              arbitrary: fc.constantFrom<string | undefined>(
                'media_data=%zz',
                'media_data=%',
                'media_data=a%2',
                '&&&',
                '=',
                'media_data',
                'media_data=iVBO%00RK',
                `${'a=1&'.repeat(500)}media_data=AAAA`,
              ),
            },
          ),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('other' as const),
          contentType: fc.constantFrom<string | undefined>(
            undefined,
            'application/json',
            'image/png',
            'text/plain',
            'multipart/mixed; boundary=x',
            'application/x-www-form-urlencoded; charset=utf-16',
          ),
          bytes: fileBytes,
        }),
      },
    ),
  })
  .map((model) => withShortText({ ...model, build: (info: SystemInfo) => buildUploadRequest(model, info) }, () => shortStringify(model)));

export function buildUploadRequest(model: UploadModel, info: SystemInfo): HttpRequestSpec {
  const search = new URLSearchParams(model.query).toString();
  const url = `${info.restUrl}${UPLOAD_PATH}${search ? `?${search}` : ''}`;
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: Buffer | string | undefined;
  let signedBody: Record<string, string> | undefined;
  switch (model.body.kind) {
    case 'multipart':
      body = multipartBytes(model.body.model);
      headers['content-type'] = multipartContentType(model.body.model);
      break;
    case 'urlencoded':
      body = model.body.raw ?? new URLSearchParams(model.body.params).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
      // What is signed is what goes on the wire: URLSearchParams sends a lone surrogate as U+FFFD.
      if (model.body.raw === undefined)
        signedBody = Object.fromEntries(model.body.params.map(([name, value]) => [wellFormed(name), wellFormed(value)]));
      break;
    case 'other':
      body = model.body.bytes;
      if (model.body.contentType !== undefined) headers['content-type'] = model.body.contentType;
      break;
  }
  const authorization = authorizationFor(model.credential, info, url, signedBody);
  if (authorization !== undefined) headers.authorization = authorization;
  return { method: model.method, url, headers, body: model.method === 'GET' || model.method === 'HEAD' ? undefined : body };
}

/** `text` with each lone surrogate replaced by U+FFFD, as UTF-8 encoders write it. */
export function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** The known-good upload: an 8×8 PNG as a multipart part, with the own-login token. */
function goodUpload(info: SystemInfo): HttpRequestSpec {
  const { body, contentType } = mediaMultipartBody([{ name: 'media', bytes: png(8, 8), filename: 'probe.png', contentType: 'image/png' }]);
  return {
    method: 'POST',
    url: `${info.restUrl}${UPLOAD_PATH}`,
    headers: { 'content-type': contentType, authorization: `Bearer ${info.social.tokens.own}` },
    body,
  };
}

export function createUploadDoor(): HttpDoor {
  return new HttpDoor({
    name: 'upload',
    judge: (reply, request) => judgeUploadReply(reply, request.method),
    probeWrites: true,
    bookkeepingTables: {
      // The reference counts every authenticated upload attempt against the user's rate limit, refused ones included.
      'media.rate_counter': 'rate-limit counters count refused uploads too',
      // A correctly signed OAuth 1.0a request spends its nonce whatever its body, so that it cannot be replayed.
      'oauth.nonce': 'nonces are spent by any correctly signed request',
    },
    probes: [
      {
        name: 'upload of an 8×8 PNG',
        request: goodUpload,
        check: (reply) => {
          const body = reply.json as { media_id_string?: unknown; image?: { w?: unknown } } | undefined;
          return reply.status === 200 && typeof body?.media_id_string === 'string' && body.image?.w === 8
            ? undefined
            : `HTTP ${reply.status} ${reply.text.slice(0, 300)}`;
        },
      },
    ],
  });
}
