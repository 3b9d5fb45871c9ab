import { Agent } from 'node:http';
import fc from 'fast-check';
import { png } from '../image-fixtures.ts';
import { mediaMultipartBody } from '../media-client.ts';
import {
  batchesOf,
  bearerOf,
  completeUpload,
  fileKind,
  fileOf,
  FILES,
  ID_TEXTS,
  MEDIA_TYPES,
  oversizeBytes,
  pieceOf,
  resolve,
  SEGMENT_TEXTS,
  together,
  usually,
  type CaseState,
  type FileKind,
  type Judged,
  type Keepers,
  type Target,
} from './chunked-upload-door.ts';
import { excerpt, judgeMediaV2Reply, type Problem, type ReplyView } from './error-formats.ts';
import { storedChanges, type CaseOutcome, type FuzzDoor } from './fuzz-property.ts';
import { fuzzSettings } from './fuzz-settings.ts';
import type { FuzzSystem } from './fuzz-system.ts';
import type { SystemInfo } from './fuzz-system-protocol.ts';
import { outcomeSummary, replyLabel, transportProblems, type HttpRequestSpec } from './http-door.ts';
import { httpExchange, type HttpOutcome } from './http-exchange.ts';
import {
  BASE64_SPELLINGS,
  corruptJson,
  hostileBase64,
  hostileString,
  NUMBER_LIKE_TEXTS,
  PROTOTYPE_NAMES,
  quote,
  rawArray,
  rawJsonNumber,
  rawJsonValue,
  rawObject,
  type Base64Spelling,
  type RawJson,
} from './hostile-values.ts';
import { fileBytes, multipartBytes, type MultipartModel, type PartModel } from './multipart-arbitrary.ts';
import { describeHttpRequest, shortStringify, withShortText } from './request-description.ts';
import { CATEGORY_VALUES } from './upload-door.ts';
import { v2Authorization, v2Credential, V2_UPLOAD_PATH, type V2Credential } from './upload-v2-door.ts';

/**
 * Area D's chunked upload under API v2 as a door (reference §10): POST /2/media/upload/initialize (JSON),
 * /2/media/upload/{id}/append (multipart as twitter-api-v2 sends it, or JSON with the segment in base64),
 * /2/media/upload/{id}/finalize, GET /2/media/upload?command=STATUS&media_id=…, and POST /2/media/metadata. One case is a
 * sequence of commands — in order, out of order, damaged, or sent at the same moment as the one before — with hostile
 * commands between them: JSON that is cut, nested thousands deep, of the wrong types or with unknown and prototype keys;
 * totals, types and categories out of range; segment indexes negative, huge, fractional, non-numeric, duplicated or
 * skipped; segments as a file or base64, broken, empty or past 5 MiB; multipart bodies with broken framing or other
 * parts; ids in the path that are no ids (non-digits, 20 digits and more, percent-escapes), unknown, another user's,
 * expired, finished, or made with the 1.1 commands; other methods on the paths and paths v2 does not have; every
 * credential.
 *
 * Oracles, as the 1.1 door's (chunked-upload-door.ts) but by v2's rules: each reply within the bound, 200 `{"data": …}`
 * with what the command answers (initialize an id, append `expires_at`, finalize and STATUS the id asked about, metadata
 * the alt text) or a problem (application/problem+json; judgeMediaV2Reply), never a 5xx; a refused command — checked one
 * by one against a digest of every table and the blob store — stores and removes nothing; a finalized id takes no more
 * segments and no second finalize; processing that finalize started ends within the bound; a known-good v2 chunked
 * upload works afterwards on the same and a fresh connection; and the uploads finished before the case (one in v2
 * chunks, one v2 one-shot) still read back unchanged through STATUS and still take alt text.
 */

/** A media id in a path: resolved as the 1.1 door's targets, or written into the path exactly as given. */
export type PathTarget = Target | { kind: 'raw'; text: string };

type JsonFields = [string, RawJson][];

/** A total_bytes: the file's size plus `delta`, or a JSON value as written. */
type TotalBytes = { delta: number } | { json: RawJson };

export type V2Step =
  | {
      op: 'INITIALIZE';
      credential: V2Credential;
      together: boolean;
      body:
        | {
            kind: 'fields';
            totalBytes: TotalBytes | null;
            mediaType: 'file' | { json: RawJson } | null;
            category: 'file' | { json: RawJson } | null;
            extra: JsonFields;
          }
        | { kind: 'raw'; text: string };
      contentType: string | undefined;
    }
  | {
      op: 'APPEND';
      credential: V2Credential;
      together: boolean;
      target: PathTarget;
      piece: number;
      carrier: 'multipart' | 'json';
      /** 'piece': the piece's index (a number in JSON, text in multipart); JSON as written; null: absent. */
      segmentIndex: 'piece' | { json: RawJson } | { text: string } | null;
      payload: V2Payload;
      /** Other keys (JSON) or parts (multipart) beside the two append takes. */
      extra: JsonFields;
      /** The media part before segment_index (twitter-api-v2 sends segment_index first). */
      mediaFirst: boolean;
      framing: Framing;
    }
  | {
      op: 'FINALIZE';
      credential: V2Credential;
      together: boolean;
      target: PathTarget;
      body: string | undefined;
      contentType: string | undefined;
    }
  | {
      op: 'STATUS';
      credential: V2Credential;
      together: boolean;
      method: string;
      target: Target;
      command: string | null;
      extraQuery: [string, string][];
    }
  | { op: 'METADATA'; credential: V2Credential; together: boolean; method: string; contentType: string | undefined; body: V2MetadataBody }
  | { op: 'OTHER'; credential: V2Credential; together: boolean; method: string; path: string; target: PathTarget; body: string | undefined }
  /** A whole, correct chunked upload of an 8×8 PNG by one of the two users, through v2 or the 1.1 commands. */
  | { op: 'COMPLETE'; user: 'own' | 'roaster'; version: 'v2' | '1.1'; together: false };

export type V2Payload =
  | { kind: 'piece' }
  | { kind: 'base64'; how: Base64Spelling }
  | { kind: 'none' }
  | { kind: 'empty' }
  | { kind: 'bytes'; bytes: Buffer }
  | { kind: 'text'; text: string }
  | { kind: 'json'; json: RawJson }
  | { kind: 'oversize'; base64: boolean };

/** How a multipart append is framed: right, or broken the ways multipart-arbitrary.ts breaks bodies. */
type Framing = { kind: 'whole' } | { kind: 'open' } | { kind: 'cut'; at: number } | { kind: 'boundary'; header: string | null };

export type V2MetadataBody =
  | {
      kind: 'json';
      id: { kind: 'string'; target: Target } | { kind: 'number'; target: Target } | { kind: 'raw'; json: RawJson } | null;
      metadata: MetadataValue;
      extra: JsonFields;
    }
  | { kind: 'raw'; text: string };

type MetadataValue = { kind: 'alt'; text: AltText; others: JsonFields } | { kind: 'raw'; json: RawJson } | null;

type AltText = { kind: 'text'; text: string } | { kind: 'raw'; json: RawJson } | { kind: 'flat'; json: RawJson } | null;

export interface V2ChunkedCase {
  file: FileKind;
  pieces: number;
  steps: V2Step[];
}

// ---------------------------------------------------------------------------------------------------------------------
// Arbitraries

const usualCredential = usually<V2Credential>({ kind: 'bearer' }, v2Credential, 5);

/** Ids that are no v2 media id, or are one nobody has: non-digits, 20 digits and more, signs, spaces, escapes. */
const ID_TEXTS_V2 = [
  ...ID_TEXTS,
  '00000000000000000001',
  '1234567890123456789',
  '12345678901234567890',
  '9'.repeat(40),
  '1'.repeat(4_000),
  '1.0',
  '+1',
  '1,2',
];

/*
 * Texts that go into a path or a query string are bounded (an id at most 1,000 characters, 6 KB percent-encoded; extra
 * query parameters 400), so that with the largest credential header a request's head stays under Node's 16 KiB: past it
 * the listener refuses the request before any route runs (the raw-http door's ground; under /2/ as v2's problem since
 * this door found it answered in the Graph envelope, seed 1417948359 on PostgreSQL — test/e2e/hostile/hostile-http.test.ts).
 */

const target: fc.Arbitrary<Target> = fc.oneof(
  { weight: 8, arbitrary: fc.nat({ max: 3 }).map((n): Target => ({ kind: 'case', n })) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<Target>(
      { kind: 'keeper' },
      { kind: 'simple-keeper' },
      { kind: 'expired-session' },
      { kind: 'expired-upload' },
      { kind: 'absent' },
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(fc.constantFrom(...ID_TEXTS_V2), fc.bigInt({ min: 1n, max: 10n ** 25n }).map(String), hostileString({ maxLength: 1_000 }))
      .map((text): Target => ({ kind: 'text', text })),
  },
);

/** Written into the path as they are: escapes that do not decode, dot segments, encoded slashes, nothing. */
const RAW_PATH_IDS = ['%zz', '%', '%ff', '%C0%AF', '%00', '..', '.', '%2e%2e', '1%2F2', '1%2f..%2f..', '%31%32', '1;x=1', '1?', ''];

const pathTarget: fc.Arbitrary<PathTarget> = fc.oneof(
  { weight: 5, arbitrary: target },
  { weight: 1, arbitrary: fc.constantFrom(...RAW_PATH_IDS).map((text): PathTarget => ({ kind: 'raw', text })) },
);

const usualTarget = usually<Target>({ kind: 'case', n: 0 }, target, 4);
const usualPathTarget = usually<PathTarget>({ kind: 'case', n: 0 }, pathTarget, 4);

const JSON_CONTENT_TYPES = [
  'application/json;charset=UTF-8',
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
  'multipart/form-data; boundary=x',
];
const jsonContentType = fc.oneof(
  { weight: 10, arbitrary: fc.constant<string | undefined>('application/json;charset=UTF-8') },
  { weight: 1, arbitrary: fc.constantFrom<string | undefined>(undefined, ...JSON_CONTENT_TYPES) },
);

/** A JSON number or a value of another type, for fields that take integers. */
const integerLike: fc.Arbitrary<RawJson> = fc.oneof(
  { weight: 3, arbitrary: rawJsonNumber() },
  { weight: 2, arbitrary: fc.constantFrom(...NUMBER_LIKE_TEXTS).map(quote) },
  { weight: 1, arbitrary: fc.constantFrom('true', 'null', '[]', '{}', '[1]', '"1e3"') },
  { weight: 1, arbitrary: rawJsonValue(2) },
);

const totalBytes: fc.Arbitrary<TotalBytes | null> = fc.oneof(
  { weight: 10, arbitrary: fc.constant<TotalBytes>({ delta: 0 }) },
  { weight: 2, arbitrary: fc.integer({ min: -3, max: 3 }).map((delta): TotalBytes => ({ delta })) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.constantFrom('5242880', '5242881', '15728641', '536870913', '17179869184', '17179869185', '-1', '0', '1e3', '1.5', '1e400'),
        integerLike,
      )
      .map((json): TotalBytes => ({ json })),
  },
  { weight: 1, arbitrary: fc.constant(null) },
);

const V2_MEDIA_TYPES = ['video/webm', 'video/mp2t', 'text/srt', 'text/vtt', 'image/tiff', 'model/gltf-binary', 'model/vnd.usdz+zip'];
const mediaTypeValue: fc.Arbitrary<'file' | { json: RawJson } | null> = fc.oneof(
  { weight: 10, arbitrary: fc.constant<'file'>('file') },
  { weight: 2, arbitrary: fc.constantFrom(...MEDIA_TYPES, ...V2_MEDIA_TYPES, ...PROTOTYPE_NAMES).map((text) => ({ json: quote(text) })) },
  {
    weight: 1,
    arbitrary: fc.oneof(
      hostileString({ maxLength: 70_000 }).map((text) => ({ json: quote(text) })),
      rawJsonValue(1).map((json) => ({ json })),
      fc.constant(null),
    ),
  },
);

const categoryValue: fc.Arbitrary<'file' | { json: RawJson } | null> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<'file'>('file') },
  { weight: 2, arbitrary: fc.constant(null) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(...CATEGORY_VALUES, 'dm_gif', 'dm_video', 'TweetGif', 'amplify-video')
      .map((text) => ({ json: quote(text) })),
  },
  {
    weight: 1,
    arbitrary: fc.oneof(
      hostileString({ maxLength: 70_000 }).map((text) => ({ json: quote(text) })),
      rawJsonValue(1).map((json) => ({ json })),
    ),
  },
);

const ownersValue: fc.Arbitrary<RawJson> = fc.oneof(
  fc
    .array(
      fc.oneof(
        fc.bigInt({ min: 1n, max: 10n ** 21n }).map((id) => quote(String(id))),
        fc.constantFrom(...NUMBER_LIKE_TEXTS).map(quote),
        rawJsonNumber(),
      ),
      { maxLength: 4 },
    )
    .map(rawArray),
  fc.integer({ min: 99, max: 102 }).map((n) => rawArray(Array.from({ length: n }, (_, index) => quote(String(1000 + index))))),
  fc.constantFrom('"1,2"', '[]', '{}', 'null', '[[]]', '["1","1"]'),
);

/** Keys initialize does not take, and those it takes with values of any type. */
const initExtra: fc.Arbitrary<JsonFields> = usually<JsonFields>(
  [],
  fc.array(
    fc.oneof(
      fc.tuple(fc.constant('additional_owners'), ownersValue),
      fc.tuple(fc.constant('shared'), fc.oneof(fc.constantFrom('true', 'false', '"true"', '1', 'null'), rawJsonValue(1))),
      fc.tuple(fc.constantFrom('command', 'media_id', 'media', 'segment_index', 'id', 'Media_Type', ...PROTOTYPE_NAMES), rawJsonValue(1)),
    ),
    { minLength: 1, maxLength: 3 },
  ),
  3,
);

const INIT_JSON = '{"media_type":"image/png","total_bytes":100,"media_category":"tweet_image"}';

const initializeStep: fc.Arbitrary<V2Step> = fc.record({
  op: fc.constant('INITIALIZE' as const),
  credential: usualCredential,
  together: fc.constant(false),
  body: fc.oneof(
    {
      weight: 8,
      arbitrary: fc.record({
        kind: fc.constant('fields' as const),
        totalBytes,
        mediaType: mediaTypeValue,
        category: categoryValue,
        extra: initExtra,
      }),
    },
    { weight: 1, arbitrary: fc.oneof(corruptJson(INIT_JSON), rawJsonValue(3)).map((text) => ({ kind: 'raw' as const, text })) },
  ),
  contentType: jsonContentType,
});

/** initialize of the case's file (its type, size and category), as twitter-api-v2 sends it. */
const GOOD_INITIALIZE: V2Step = {
  op: 'INITIALIZE',
  credential: { kind: 'bearer' },
  together: false,
  body: { kind: 'fields', totalBytes: { delta: 0 }, mediaType: 'file', category: 'file', extra: [] },
  contentType: 'application/json;charset=UTF-8',
};

const segmentIndex: fc.Arbitrary<'piece' | { json: RawJson } | { text: string } | null> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<'piece'>('piece') },
  { weight: 2, arbitrary: fc.constantFrom(...SEGMENT_TEXTS, '1'.repeat(25)).map((text) => ({ text })) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.integer({ min: -2, max: 1_100 }).map(String),
        integerLike,
        fc.constantFrom('0.5', '-0', '1e2', '999.0', '1000', '4294967296'),
      )
      .map((json) => ({ json })),
  },
  {
    weight: 1,
    arbitrary: fc.oneof(
      hostileString({ maxLength: 5_000 }).map((text) => ({ text })),
      fc.constant(null),
    ),
  },
);

const payload: fc.Arbitrary<V2Payload> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<V2Payload>({ kind: 'piece' }) },
  { weight: 2, arbitrary: fc.constantFrom(...BASE64_SPELLINGS).map((how): V2Payload => ({ kind: 'base64', how })) },
  { weight: 2, arbitrary: fc.constantFrom<V2Payload>({ kind: 'none' }, { kind: 'empty' }) },
  { weight: 2, arbitrary: fileBytes.map((bytes): V2Payload => ({ kind: 'bytes', bytes })) },
  { weight: 1, arbitrary: hostileString({ maxLength: 50_000 }).map((text): V2Payload => ({ kind: 'text', text })) },
  { weight: 1, arbitrary: rawJsonValue(2).map((json): V2Payload => ({ kind: 'json', json })) },
  { weight: 1, arbitrary: fc.boolean().map((base64): V2Payload => ({ kind: 'oversize', base64 })) },
);

const framing: fc.Arbitrary<Framing> = fc.oneof(
  { weight: 20, arbitrary: fc.constant<Framing>({ kind: 'whole' }) },
  { weight: 1, arbitrary: fc.constant<Framing>({ kind: 'open' }) },
  { weight: 1, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }).map((at): Framing => ({ kind: 'cut', at })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom<string | null>(null, '', 'other', '"v2fuzz"', 'x'.repeat(200))
      .map((header): Framing => ({ kind: 'boundary', header })),
  },
);

const appendExtra: fc.Arbitrary<JsonFields> = usually<JsonFields>(
  [],
  fc.array(
    fc.tuple(fc.constantFrom('media_id', 'command', 'media_data', 'segment_index', 'media', 'x', ...PROTOTYPE_NAMES), rawJsonValue(1)),
    { minLength: 1, maxLength: 2 },
  ),
  8,
);

/** An append of the case's first piece to its first media id, as twitter-api-v2 sends it. */
export const V2_GOOD_APPEND: Extract<V2Step, { op: 'APPEND' }> = {
  op: 'APPEND',
  credential: { kind: 'bearer' },
  together: false,
  target: { kind: 'case', n: 0 },
  piece: 0,
  carrier: 'multipart',
  segmentIndex: 'piece',
  payload: { kind: 'piece' },
  extra: [],
  mediaFirst: false,
  framing: { kind: 'whole' },
};

function appendStep(piece: fc.Arbitrary<number>): fc.Arbitrary<V2Step> {
  return fc.record({
    op: fc.constant('APPEND' as const),
    credential: usualCredential,
    together,
    target: usualPathTarget,
    piece,
    carrier: fc.oneof(
      { weight: 3, arbitrary: fc.constant<'multipart' | 'json'>('multipart') },
      { weight: 2, arbitrary: fc.constant<'multipart' | 'json'>('json') },
    ),
    segmentIndex,
    payload,
    extra: appendExtra,
    mediaFirst: usually(false, fc.constant(true), 4),
    framing,
  });
}

const finalizeStep: fc.Arbitrary<V2Step> = fc.record({
  op: fc.constant('FINALIZE' as const),
  credential: usualCredential,
  together,
  target: usualPathTarget,
  body: fc.oneof(
    { weight: 8, arbitrary: fc.constant<string | undefined>('{}') },
    { weight: 2, arbitrary: fc.constant<string | undefined>(undefined) },
    { weight: 2, arbitrary: fc.oneof(corruptJson('{"media_id":"1"}'), rawJsonValue(2), fc.constant('x'.repeat(70_000))) },
  ),
  contentType: jsonContentType,
});

const STATUS_COMMANDS = ['STATUS', 'status', 'INIT', 'FINALIZE', 'APPEND', ' STATUS', 'STATUS,STATUS', '', ...PROTOTYPE_NAMES];

const statusStep: fc.Arbitrary<V2Step> = fc.record({
  op: fc.constant('STATUS' as const),
  credential: usualCredential,
  together,
  method: usually('GET', fc.constantFrom('HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'), 12),
  target: usualTarget,
  command: fc.oneof(
    { weight: 8, arbitrary: fc.constant<string | null>('STATUS') },
    { weight: 2, arbitrary: fc.constant<string | null>(null) },
    { weight: 2, arbitrary: fc.constantFrom(...STATUS_COMMANDS) },
  ),
  extraQuery: usually<[string, string][]>(
    [],
    fc.array(fc.tuple(fc.constantFrom('media_id', 'command', 'id', ...PROTOTYPE_NAMES), hostileString({ maxLength: 400 })), {
      minLength: 1,
      maxLength: 1,
    }),
    8,
  ),
});

const altText: fc.Arbitrary<AltText> = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 60 }).map((text): AltText => ({ kind: 'text', text })) },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom(
        'a'.repeat(1_000),
        'a'.repeat(1_001),
        '💩'.repeat(1_000),
        '💩'.repeat(1_001),
        '\uD800'.repeat(1_000),
        'e\u0301'.repeat(600),
        '',
      )
      .map((text): AltText => ({ kind: 'text', text })),
  },
  { weight: 2, arbitrary: hostileString({ maxLength: 70_000 }).map((text): AltText => ({ kind: 'text', text })) },
  { weight: 1, arbitrary: rawJsonValue(2).map((json): AltText => ({ kind: 'raw', json })) },
  { weight: 1, arbitrary: rawJsonValue(1).map((json): AltText => ({ kind: 'flat', json })) },
  { weight: 1, arbitrary: fc.constant<AltText>(null) },
);

const OTHER_METADATA = [
  'sensitive_media_warning',
  'allow_download_status',
  'found_media_origin',
  'preview_image',
  'upload_source',
  'content_expiration',
  'Alt_Text',
  'x',
  ...PROTOTYPE_NAMES,
];

const metadataValue: fc.Arbitrary<MetadataValue> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('alt' as const),
      text: altText,
      others: usually<JsonFields>(
        [],
        fc.array(fc.tuple(fc.constantFrom(...OTHER_METADATA), rawJsonValue(1)), { minLength: 1, maxLength: 2 }),
        6,
      ),
    }),
  },
  { weight: 1, arbitrary: rawJsonValue(2).map((json): MetadataValue => ({ kind: 'raw', json })) },
  { weight: 1, arbitrary: fc.constant<MetadataValue>(null) },
);

const metadataBody: fc.Arbitrary<V2MetadataBody> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('json' as const),
      id: fc.oneof(
        { weight: 8, arbitrary: target.map((at) => ({ kind: 'string' as const, target: at })) },
        { weight: 2, arbitrary: target.map((at) => ({ kind: 'number' as const, target: at })) },
        { weight: 1, arbitrary: rawJsonValue(2).map((json) => ({ kind: 'raw' as const, json })) },
        { weight: 1, arbitrary: fc.constant(null) },
      ),
      metadata: metadataValue,
      extra: usually<JsonFields>(
        [],
        fc.array(fc.tuple(fc.constantFrom('media_id', 'alt_text', 'id', 'x', ...PROTOTYPE_NAMES), rawJsonValue(1)), {
          minLength: 1,
          maxLength: 2,
        }),
        6,
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: corruptJson('{"id":"1","metadata":{"alt_text":{"text":"a"}}}').map((text): V2MetadataBody => ({ kind: 'raw', text })),
  },
);

const metadataStep: fc.Arbitrary<V2Step> = fc.record({
  op: fc.constant('METADATA' as const),
  credential: usualCredential,
  together,
  method: usually('POST', fc.constantFrom('GET', 'PUT', 'DELETE', 'HEAD'), 12),
  contentType: jsonContentType,
  body: metadataBody,
});

/** Methods the paths do not take, and paths beside them v2 does not have ({id} is the target). */
const OTHER_PATHS = [
  '/2/media/upload/initialize',
  '/2/media/upload/{id}/append',
  '/2/media/upload/{id}/finalize',
  '/2/media/metadata',
  '/2/media/upload/{id}',
  '/2/media/upload/{id}/status',
  '/2/media/upload/{id}/append/0',
  '/2/media/upload/{id}/APPEND',
  '/2/media/upload/initialize/{id}',
  '/2/media/metadata/create',
  '/2/media/subtitles',
  '/2/media/{id}',
  '/2',
  '/2/',
];

/** What v2 serves among OTHER_PATHS: POSTs to these are the other steps' business. */
const SERVED_POSTS = new Set(OTHER_PATHS.slice(0, 4));

const otherStep: fc.Arbitrary<V2Step> = fc
  .record({
    op: fc.constant('OTHER' as const),
    credential: usualCredential,
    together,
    method: fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'POST'),
    path: fc.constantFrom(...OTHER_PATHS),
    target: usualPathTarget,
    body: fc.oneof(fc.constant<string | undefined>(undefined), fc.constant('{}'), rawJsonValue(1)),
  })
  .filter((step) => !(step.method === 'POST' && SERVED_POSTS.has(step.path)));

const completeStep: fc.Arbitrary<V2Step> = fc.record({
  op: fc.constant('COMPLETE' as const),
  user: usually<'own' | 'roaster'>('own', fc.constant('roaster'), 3),
  version: usually<'v2' | '1.1'>('v2', fc.constant('1.1'), 2),
  together: fc.constant(false as const),
});

const anyStep: fc.Arbitrary<V2Step> = fc.oneof(
  { weight: 2, arbitrary: initializeStep },
  { weight: 5, arbitrary: appendStep(fc.nat({ max: 4 })) },
  { weight: 3, arbitrary: finalizeStep },
  { weight: 2, arbitrary: statusStep },
  { weight: 1, arbitrary: metadataStep },
  { weight: 1, arbitrary: otherStep },
  { weight: 1, arbitrary: completeStep },
);

function caseOf(model: V2ChunkedCase): V2ChunkedCase {
  return withShortText(model, () => shortStringify(model));
}

/**
 * A v2 chunked upload as twitter-api-v2 sends it — initialize, the pieces in order, finalize, STATUS — with every part
 * of it open to damage, and hostile commands slipped in between.
 */
export const v2ChunkedSequences: fc.Arbitrary<V2ChunkedCase> = fc
  .record({ file: fileKind, pieces: fc.integer({ min: 1, max: 3 }) })
  .chain(({ file, pieces }) =>
    fc
      .record({
        init: fc.oneof(
          { weight: 6, arbitrary: fc.constant(GOOD_INITIALIZE) },
          { weight: 3, arbitrary: initializeStep },
          { weight: 1, arbitrary: fc.constant(undefined) },
        ),
        order: fc.oneof(
          { weight: 3, arbitrary: fc.constant(Array.from({ length: pieces }, (_, index) => index)) },
          { weight: 2, arbitrary: fc.array(fc.nat({ max: pieces }), { minLength: 1, maxLength: pieces + 2 }) },
        ),
        appends: fc.array(usually(V2_GOOD_APPEND, appendStep(fc.constant(0)), 3), { minLength: pieces + 2, maxLength: pieces + 2 }),
        tail: fc.array(
          fc.oneof(
            { weight: 4, arbitrary: finalizeStep },
            { weight: 2, arbitrary: statusStep },
            { weight: 1, arbitrary: appendStep(fc.nat({ max: 3 })) },
          ),
          { maxLength: 3 },
        ),
        hostile: fc.array(fc.tuple(fc.nat(), anyStep), { maxLength: 3 }),
      })
      .map(({ init, order, appends, tail, hostile }) => {
        const steps: V2Step[] = [
          ...(init ? [init] : []),
          ...order.map((piece, position) => ({ ...(appends[position] as Extract<V2Step, { op: 'APPEND' }>), piece })),
          ...tail,
        ];
        for (const [at, step] of hostile) steps.splice(at % (steps.length + 1), 0, step);
        if (steps[0] && steps[0].op !== 'COMPLETE') steps[0] = { ...steps[0], together: false };
        return caseOf({ file, pieces, steps });
      }),
  );

/** v2 alt text on finished (in v2 or 1.1), unfinished, foreign, expired and made-up media ids, with every broken body. */
export const v2MetadataSequences: fc.Arbitrary<V2ChunkedCase> = fc
  .record({
    prologue: fc.array(fc.oneof({ weight: 3, arbitrary: completeStep }, { weight: 1, arbitrary: initializeStep }), { maxLength: 2 }),
    steps: fc.array(
      fc.oneof({ weight: 6, arbitrary: metadataStep }, { weight: 1, arbitrary: statusStep }, { weight: 1, arbitrary: otherStep }),
      { minLength: 1, maxLength: 4 },
    ),
  })
  .map(({ prologue, steps }) =>
    caseOf({
      file: 'png',
      pieces: 1,
      steps: [...prologue, ...steps].map((step, index) => (index === 0 && step.op !== 'COMPLETE' ? { ...step, together: false } : step)),
    }),
  );

// ---------------------------------------------------------------------------------------------------------------------
// Requests

/** The id as it goes into the path: percent-encoded (a lone surrogate as U+FFFD), or as written for a raw target. */
function pathIdOf(at: PathTarget, state: CaseState, info: SystemInfo, keepers: Keepers | undefined): string {
  if (at.kind === 'raw') return at.text;
  const id = resolve(at, state, info, keepers);
  return id === undefined ? '' : encodeURIComponent(id.replace(/[\uD800-\uDFFF]/g, '\uFFFD'));
}

/** The media id the route will read from a path target (undefined when it cannot be a media id). */
function pathIdValue(at: PathTarget, state: CaseState, info: SystemInfo, keepers: Keepers | undefined): string | undefined {
  if (at.kind === 'raw') return /^\d+$/.test(at.text) ? at.text : undefined;
  return resolve(at, state, info, keepers);
}

function userOf(cred: V2Credential): 'own' | 'roaster' | undefined {
  return cred.kind === 'roaster' ? 'roaster' : cred.kind === 'bearer' || cred.kind === 'oauth1' ? 'own' : undefined;
}

function jsonRequest(
  info: SystemInfo,
  cred: V2Credential,
  method: string,
  path: string,
  body: string | undefined,
  contentType: string | undefined,
): HttpRequestSpec {
  const url = `${info.restUrl}${path}`;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (contentType !== undefined && body !== undefined) headers['content-type'] = contentType;
  const auth = v2Authorization(cred, info, url);
  if (auth !== undefined) headers.authorization = auth;
  return { method, url, headers, body: method === 'GET' || method === 'HEAD' ? undefined : body };
}

const BOUNDARY = 'v2fuzz';

function appendRequest(
  step: Extract<V2Step, { op: 'APPEND' }>,
  model: V2ChunkedCase,
  state: CaseState,
  info: SystemInfo,
  keepers: Keepers | undefined,
): HttpRequestSpec {
  const path = `/2/media/upload/${pathIdOf(step.target, state, info, keepers)}/append`;
  const piece = pieceOf(fileOf(model.file), model.pieces, step.piece);
  if (step.carrier === 'json') {
    const fields: JsonFields = [];
    const index = step.segmentIndex;
    if (index === 'piece') fields.push(['segment_index', String(step.piece)]);
    else if (index !== null) fields.push(['segment_index', 'json' in index ? index.json : quote(index.text)]);
    const media = (() => {
      switch (step.payload.kind) {
        case 'piece':
          return quote(piece.toString('base64'));
        case 'base64':
          return quote(hostileBase64(piece, step.payload.how));
        case 'none':
          return undefined;
        case 'empty':
          return '""';
        case 'bytes':
          return quote(step.payload.bytes.toString('base64'));
        case 'text':
          return quote(step.payload.text);
        case 'json':
          return step.payload.json;
        case 'oversize':
          return quote(step.payload.base64 ? oversizeBytes().toString('base64') : oversizeBytes().toString('latin1'));
      }
    })();
    if (media !== undefined) fields.push(['media', media]);
    if (step.mediaFirst) fields.reverse();
    return jsonRequest(info, step.credential, 'POST', path, rawObject([...fields, ...step.extra]), 'application/json;charset=UTF-8');
  }
  // Multipart as twitter-api-v2 sends it: segment_index, then media without a filename as application/octet-stream.
  const parts: PartModel[] = [];
  const index = step.segmentIndex;
  if (index === 'piece') parts.push({ name: 'segment_index', data: Buffer.from(String(step.piece)) });
  else if (index !== null) parts.push({ name: 'segment_index', data: Buffer.from('text' in index ? index.text : index.json, 'utf8') });
  const file = (bytes: Buffer): PartModel => ({ name: 'media', filename: null, contentType: 'application/octet-stream', data: bytes });
  switch (step.payload.kind) {
    case 'piece':
      parts.push(file(piece));
      break;
    case 'base64':
      parts.push(file(Buffer.from(hostileBase64(piece, step.payload.how))));
      break;
    case 'none':
      break;
    case 'empty':
      parts.push(file(Buffer.alloc(0)));
      break;
    case 'bytes':
      parts.push(file(step.payload.bytes));
      break;
    case 'text':
      parts.push({ name: 'media', data: Buffer.from(step.payload.text, 'utf8') });
      break;
    case 'json':
      parts.push(file(Buffer.from(step.payload.json, 'utf8')));
      break;
    case 'oversize':
      parts.push(file(step.payload.base64 ? Buffer.from(oversizeBytes().toString('base64')) : oversizeBytes()));
      break;
  }
  if (step.mediaFirst) parts.reverse();
  for (const [name, value] of step.extra) parts.push({ name, data: Buffer.from(value, 'utf8') });
  const framing = step.framing;
  const multipart: MultipartModel = {
    boundary: BOUNDARY,
    headerBoundary: framing.kind === 'boundary' ? framing.header : BOUNDARY,
    quoteBoundary: false,
    preamble: '',
    parts,
    ending: framing.kind === 'open' ? 'open' : framing.kind === 'cut' ? 'cut' : 'close',
    cutAt: framing.kind === 'cut' ? framing.at : 1,
  };
  const url = `${info.restUrl}${path}`;
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-type': multipart.headerBoundary === null ? 'multipart/form-data' : `multipart/form-data; boundary=${multipart.headerBoundary}`,
  };
  const auth = v2Authorization(step.credential, info, url);
  if (auth !== undefined) headers.authorization = auth;
  return { method: 'POST', url, headers, body: multipartBytes(multipart) };
}

function metadataJson(body: V2MetadataBody, state: CaseState, info: SystemInfo, keepers: Keepers | undefined): string {
  if (body.kind === 'raw') return body.text;
  const entries: JsonFields = [];
  if (body.id) {
    if (body.id.kind === 'raw') entries.push(['id', body.id.json]);
    else {
      const id = resolve(body.id.target, state, info, keepers);
      if (id !== undefined) entries.push(['id', body.id.kind === 'number' && /^\d+$/.test(id) ? id : quote(id)]);
    }
  }
  const metadata = body.metadata;
  if (metadata?.kind === 'raw') entries.push(['metadata', metadata.json]);
  else if (metadata?.kind === 'alt') {
    const inner: JsonFields = [];
    const alt = metadata.text;
    if (alt?.kind === 'text') inner.push(['alt_text', rawObject([['text', quote(alt.text)]])]);
    else if (alt?.kind === 'raw') inner.push(['alt_text', rawObject([['text', alt.json]])]);
    else if (alt?.kind === 'flat') inner.push(['alt_text', alt.json]);
    entries.push(['metadata', rawObject([...inner, ...metadata.others])]);
  }
  entries.push(...body.extra);
  return rawObject(entries);
}

/** The HTTP request of a step, given what the case has learnt (ids) and the file. */
function requestOf(
  step: Exclude<V2Step, { op: 'COMPLETE' }>,
  model: V2ChunkedCase,
  state: CaseState,
  info: SystemInfo,
  keepers: Keepers | undefined,
): HttpRequestSpec {
  const file = fileOf(model.file);
  switch (step.op) {
    case 'INITIALIZE': {
      let body: string;
      if (step.body.kind === 'raw') body = step.body.text;
      else {
        const { totalBytes, mediaType, category, extra } = step.body;
        const fields: JsonFields = [];
        if (mediaType !== null) fields.push(['media_type', mediaType === 'file' ? quote(FILES[model.file]!.type) : mediaType.json]);
        if (totalBytes !== null)
          fields.push(['total_bytes', 'delta' in totalBytes ? String(file.length + totalBytes.delta) : totalBytes.json]);
        const fileCategory = FILES[model.file]!.category;
        if (category === 'file') {
          if (fileCategory !== null) fields.push(['media_category', quote(fileCategory)]);
        } else if (category !== null) fields.push(['media_category', category.json]);
        body = rawObject([...fields, ...extra]);
      }
      return jsonRequest(info, step.credential, 'POST', '/2/media/upload/initialize', body, step.contentType);
    }
    case 'APPEND':
      return appendRequest(step, model, state, info, keepers);
    case 'FINALIZE':
      return jsonRequest(
        info,
        step.credential,
        'POST',
        `/2/media/upload/${pathIdOf(step.target, state, info, keepers)}/finalize`,
        step.body,
        step.contentType,
      );
    case 'STATUS': {
      const query: [string, string][] = [];
      if (step.command !== null) query.push(['command', step.command]);
      const id = resolve(step.target, state, info, keepers);
      if (id !== undefined) query.push(['media_id', id]);
      query.push(...step.extraQuery);
      const search = new URLSearchParams(query).toString();
      return jsonRequest(info, step.credential, step.method, `${V2_UPLOAD_PATH}${search ? `?${search}` : ''}`, undefined, undefined);
    }
    case 'METADATA':
      return jsonRequest(
        info,
        step.credential,
        step.method,
        '/2/media/metadata',
        metadataJson(step.body, state, info, keepers),
        step.contentType,
      );
    case 'OTHER':
      return jsonRequest(
        info,
        step.credential,
        step.method,
        step.path.replace('{id}', pathIdOf(step.target, state, info, keepers)),
        step.body,
        'application/json',
      );
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Judging one reply

const isObject = (value: unknown): value is Record<string, any> => typeof value === 'object' && value !== null && !Array.isArray(value);
const MEDIA_ID = /^\d{1,19}$/;

function judgeStep(
  step: Exclude<V2Step, { op: 'COMPLETE' }>,
  request: HttpRequestSpec,
  reply: ReplyView,
  askedId: string | undefined,
): Judged {
  const judgement = judgeMediaV2Reply(reply, request.method);
  const problems = [...judgement.problems];
  const judged = (refused: boolean, mediaId?: string, processing?: string): Judged => ({ problems, refused, mediaId, processing });
  if (judgement.rejected) return judged(true);
  if (request.method === 'HEAD' || problems.length > 0) return judged(false);
  const data = (reply.json as { data: Record<string, any> }).data;
  const wrong = (what: string) =>
    problems.push({ kind: 'format', detail: `${step.op} answered 200 without ${what}: ${excerpt(reply.text)}` });
  const op = step.op;
  switch (op) {
    case 'INITIALIZE':
      if (typeof data.id !== 'string' || !MEDIA_ID.test(data.id) || typeof data.expires_after_secs !== 'number')
        wrong('data.id and data.expires_after_secs');
      return judged(false, typeof data.id === 'string' ? data.id : undefined);
    case 'APPEND':
      if (!Number.isSafeInteger(data.expires_at) || Object.keys(data).length !== 1) wrong('data.expires_at (alone)');
      return judged(false);
    case 'FINALIZE':
    case 'STATUS': {
      if (typeof data.id !== 'string' || !MEDIA_ID.test(data.id)) wrong('data.id');
      else if (askedId !== undefined && data.id !== askedId)
        problems.push({ kind: 'format', detail: `${op} of media id ${askedId} answered with media id ${data.id}` });
      if (op === 'FINALIZE' && !isObject(data.image) && !isObject(data.video) && !isObject(data.processing_info))
        wrong('image, video or processing_info');
      const state =
        isObject(data.processing_info) && typeof data.processing_info.state === 'string' ? data.processing_info.state : undefined;
      if (state !== undefined && !['pending', 'in_progress', 'succeeded', 'failed'].includes(state))
        problems.push({ kind: 'format', detail: `processing_info.state "${state}" is not one of v2's` });
      return judged(false, typeof data.id === 'string' ? data.id : undefined, state);
    }
    case 'METADATA':
      if (typeof data.id !== 'string' || !MEDIA_ID.test(data.id) || typeof data.associated_metadata?.alt_text?.text !== 'string')
        wrong('data.id and data.associated_metadata.alt_text.text');
      return judged(false);
    default:
      problems.push({
        kind: 'format',
        detail: `${request.method} ${new URL(request.url).pathname} is no v2 media endpoint, yet it answered ${reply.status}: ${excerpt(reply.text)}`,
      });
      return judged(false);
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// The door

interface Sent {
  step: V2Step;
  request: HttpRequestSpec | undefined;
  outcome: HttpOutcome | undefined;
  note: string;
}

const PROCESSING_POLL_MS = 100;

export class ChunkedUploadV2Door implements FuzzDoor<V2ChunkedCase> {
  readonly name = 'chunked-upload v2';
  readonly probeWrites = true;
  readonly bookkeepingTables: Readonly<Record<string, string>> = {
    'media.rate_counter': 'every authenticated command counts against the upload rate limit, refused ones included',
    'oauth.nonce': 'nonces are spent by any correctly signed request',
  };
  private agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private keepers: Keepers | undefined;

  async exchange(model: V2ChunkedCase, system: FuzzSystem): Promise<CaseOutcome> {
    const { requestTimeoutMs } = fuzzSettings();
    const problems: Problem[] = [];
    const sent: Sent[] = [];
    const summary = () =>
      sent
        .map((one, index) => `\n    ${index + 1}. ${one.step.op}${one.step.together ? ' (together with the one before)' : ''}: ${one.note}`)
        .join('');
    const keeperProblem = await this.ensureKeepers(system);
    if (keeperProblem)
      return { problems: [keeperProblem], rejected: false, unavailable: false, summary: 'the uploads made before the case failed' };
    const info = system.info;
    const state: CaseState = { ids: [], finalized: new Set() };
    const labels: string[] = [];
    let before = await system.digest();

    for (const batch of batchesOf(model.steps)) {
      const results = await Promise.all(
        batch.map(async (step, position): Promise<Sent & { judged: Judged | undefined }> => {
          const agent = position === 0 ? this.agent : undefined;
          if (step.op === 'COMPLETE') {
            const done =
              step.version === 'v2' ? await completeV2Upload(info, step.user, agent) : await completeUpload(info, step.user, null, agent);
            return {
              step,
              request: undefined,
              outcome: undefined,
              note: done.note,
              judged: { problems: done.problem ? [done.problem] : [], refused: false, mediaId: done.id, processing: undefined },
            };
          }
          const askedId =
            step.op === 'APPEND' || step.op === 'FINALIZE' || step.op === 'OTHER'
              ? pathIdValue(step.target, state, info, this.keepers)
              : step.op === 'STATUS'
                ? resolve(step.target, state, info, this.keepers)
                : undefined;
          const request = requestOf(step, model, state, info, this.keepers);
          const outcome = await httpExchange({ ...request, ...(agent ? { agent } : {}), timeoutMs: requestTimeoutMs });
          if (outcome.kind !== 'reply') return { step, request, outcome, note: outcomeSummary(outcome), judged: undefined };
          return { step, request, outcome, note: outcomeSummary(outcome), judged: judgeStep(step, request, outcome, askedId) };
        }),
      );
      let refused = true;
      let broken = false;
      const finalizedHere = new Set<string>();
      for (const result of results) {
        sent.push(result);
        const { step, outcome, judged } = result;
        if (outcome && outcome.kind !== 'reply') {
          problems.push(...transportProblems(outcome, requestTimeoutMs));
          broken = true;
          continue;
        }
        if (!judged) continue;
        if (outcome?.kind === 'reply') labels.push(`${step.op} ${replyLabel(outcome)}`);
        problems.push(...judged.problems);
        refused &&= judged.refused;
        if (judged.refused || step.op === 'METADATA' || step.op === 'STATUS' || step.op === 'OTHER') continue;
        const id = judged.mediaId ?? (step.op === 'APPEND' ? pathIdValue(step.target, state, info, this.keepers) : undefined);
        if (id === undefined) continue;
        if (step.op === 'INITIALIZE' || step.op === 'COMPLETE') {
          const user = step.op === 'COMPLETE' ? step.user : userOf(step.credential);
          if (user) state.ids.push({ id, user });
        }
        if ((step.op === 'APPEND' || step.op === 'FINALIZE') && (state.finalized.has(id) || finalizedHere.has(id))) {
          problems.push({ kind: 'stored-change', detail: `media id ${id} took ${step.op} after it was finalized` });
        }
        if (step.op === 'FINALIZE' || step.op === 'COMPLETE') finalizedHere.add(id);
        if (step.op === 'FINALIZE' && (judged.processing === 'pending' || judged.processing === 'in_progress')) {
          const owner = state.ids.find((known) => known.id === id)?.user ?? 'own';
          const wait = await awaitProcessing(info, id, owner, requestTimeoutMs);
          if (wait) problems.push(wait);
        }
      }
      for (const id of finalizedHere) state.finalized.add(id);
      if (broken) {
        this.resetAgent();
        break;
      }
      try {
        const after = await system.digest();
        if (refused) {
          const changed = storedChanges(before, after, this.bookkeepingTables);
          if (changed.length > 0)
            problems.push({
              kind: 'stored-change',
              detail: `refused command${batch.length > 1 ? 's' : ''} (step ${sent.length}) changed ${changed.join(', ')}`,
            });
        }
        before = after;
      } catch (error) {
        problems.push({ kind: 'liveness', detail: `the database digest failed after step ${sent.length}: ${(error as Error).message}` });
        break;
      }
    }
    return { problems, rejected: false, unavailable: false, summary: summary(), label: labels.join(' | ') };
  }

  async probe(system: FuzzSystem): Promise<Problem[]> {
    const { requestTimeoutMs } = fuzzSettings();
    const info = system.info;
    const problems: Problem[] = [];
    for (const connection of ['kept-alive', 'fresh'] as const) {
      const done = await completeV2Upload(info, 'own', connection === 'kept-alive' ? this.agent : undefined);
      if (done.problem) {
        problems.push({
          kind: 'liveness',
          detail: `the known-good v2 chunked upload of an 8×8 PNG on a ${connection} connection: ${done.note}`,
        });
        if (connection === 'kept-alive') this.resetAgent();
      }
    }
    const keepers = this.keepers;
    if (!keepers || keepers.generation !== system.generation) return problems;
    const { chunked } = keepers;
    const status = await httpExchange({ ...statusRequest(info, chunked.id, 'own'), agent: this.agent, timeoutMs: requestTimeoutMs });
    const data =
      status.kind === 'reply'
        ? (status.json as { data?: { id?: unknown; size?: unknown; image?: { w?: unknown; h?: unknown } } } | undefined)?.data
        : undefined;
    if (
      status.kind !== 'reply' ||
      status.status !== 200 ||
      data?.id !== chunked.id ||
      data.size !== chunked.size ||
      data.image?.w !== chunked.w ||
      data.image?.h !== chunked.h
    ) {
      problems.push({
        kind: 'liveness',
        detail: `the v2 chunked upload finished before the case (media id ${chunked.id}, ${chunked.size} bytes, ${chunked.w}×${chunked.h}) reads back as ${outcomeSummary(status)}`,
      });
    }
    for (const id of [chunked.id, keepers.simpleId]) {
      const reply = await httpExchange({
        ...metadataRequest(info, id, 'kept before the fuzz case'),
        agent: this.agent,
        timeoutMs: requestTimeoutMs,
      });
      if (reply.kind !== 'reply' || reply.status !== 200)
        problems.push({ kind: 'liveness', detail: `v2 alt text on media id ${id}, finished before the case: ${outcomeSummary(reply)}` });
    }
    return problems;
  }

  describe(model: V2ChunkedCase, info: SystemInfo): string {
    const state: CaseState = { ids: [{ id: '<the media id of the case’s first initialize>', user: 'own' }], finalized: new Set() };
    const lines = model.steps.map((step, index) => {
      const head = `\n    ${index + 1}.${step.together ? ' (together with the one before)' : ''} `;
      if (step.op === 'COMPLETE')
        return `${head}a whole chunked upload of an 8×8 PNG by ${step.user} through ${step.version === 'v2' ? 'the v2 endpoints' : 'the 1.1 commands'}`;
      const request = requestOf(step, model, state, info, this.keepers);
      return `${head}${describeHttpRequest(request.method, request.url, request.headers, request.body)}`;
    });
    return `${model.file} in ${model.pieces} piece(s) (${fileOf(model.file).length} bytes); media ids of the case's initializes appear in the replies:${lines.join('')}`;
  }

  /** The uploads every case must leave as they were: made once per system process, before its first case. */
  private async ensureKeepers(system: FuzzSystem): Promise<Problem | undefined> {
    if (this.keepers?.generation === system.generation) return undefined;
    const { requestTimeoutMs } = fuzzSettings();
    const info = system.info;
    this.keepers = undefined;
    const chunked = await completeV2Upload(info, 'own', undefined);
    const simple = await httpExchange({
      method: 'POST',
      url: `${info.restUrl}${V2_UPLOAD_PATH}`,
      headers: { 'content-type': 'application/json', authorization: bearerOf(info, 'own') },
      body: JSON.stringify({ media: png(8, 8).toString('base64'), media_category: 'tweet_image' }),
      timeoutMs: requestTimeoutMs,
    });
    const simpleId = simple.kind === 'reply' ? (simple.json as { data?: { id?: unknown } } | undefined)?.data?.id : undefined;
    if (chunked.problem || !chunked.id || typeof simpleId !== 'string') {
      return {
        kind: 'liveness',
        detail: `the uploads made before the case failed: chunked ${chunked.note}; one-shot ${outcomeSummary(simple)}`,
      };
    }
    this.keepers = { generation: system.generation, chunked: { id: chunked.id, size: fileOf('png').length, w: 8, h: 8 }, simpleId };
    for (const id of [chunked.id, simpleId])
      await httpExchange({ ...metadataRequest(info, id, 'kept before the fuzz case'), timeoutMs: requestTimeoutMs });
    return undefined;
  }

  private resetAgent(): void {
    this.agent.destroy();
    this.agent = new Agent({ keepAlive: true, maxSockets: 1 });
  }

  close(): void {
    this.agent.destroy();
  }
}

function statusRequest(info: SystemInfo, id: string, user: 'own' | 'roaster'): HttpRequestSpec {
  return {
    method: 'GET',
    url: `${info.restUrl}${V2_UPLOAD_PATH}?command=STATUS&media_id=${id}`,
    headers: { authorization: bearerOf(info, user) },
  };
}

function metadataRequest(info: SystemInfo, id: string, text: string): HttpRequestSpec {
  return {
    method: 'POST',
    url: `${info.restUrl}/2/media/metadata`,
    headers: { 'content-type': 'application/json;charset=UTF-8', authorization: bearerOf(info, 'own') },
    body: JSON.stringify({ id, metadata: { alt_text: { text } } }),
  };
}

/**
 * A whole, correct v2 chunked upload of an 8×8 PNG in two segments, as twitter-api-v2 sends it (initialize in JSON,
 * append as multipart with segment_index then a media part without filename, finalize with `{}`): the door's known-good
 * request, and the cases' way to a finished media id.
 */
async function completeV2Upload(
  info: SystemInfo,
  user: 'own' | 'roaster',
  agent: Agent | undefined,
): Promise<{ id: string | undefined; problem: Problem | undefined; note: string }> {
  const { requestTimeoutMs } = fuzzSettings();
  const file = fileOf('png');
  const send = (path: string, body: Buffer | string, contentType: string) =>
    httpExchange({
      method: 'POST',
      url: `${info.restUrl}${path}`,
      headers: { 'content-type': contentType, authorization: bearerOf(info, user) },
      body,
      timeoutMs: requestTimeoutMs,
      ...(agent ? { agent } : {}),
    });
  const failed = (what: string, outcome: HttpOutcome) => ({
    id: undefined,
    problem: { kind: 'liveness' as const, detail: `${what}: ${outcomeSummary(outcome)}` },
    note: `${what}: ${outcomeSummary(outcome)}`,
  });
  const json = 'application/json;charset=UTF-8';
  const init = await send(
    '/2/media/upload/initialize',
    JSON.stringify({ media_type: 'image/png', total_bytes: file.length, media_category: 'tweet_image' }),
    json,
  );
  const id = init.kind === 'reply' && init.status === 200 ? (init.json as { data?: { id?: unknown } } | undefined)?.data?.id : undefined;
  if (typeof id !== 'string') return failed('initialize', init);
  const half = Math.ceil(file.length / 2);
  for (const [index, bytes] of [file.subarray(0, half), file.subarray(half)].entries()) {
    const { body, contentType } = mediaMultipartBody([
      { name: 'segment_index', value: String(index) },
      { name: 'media', bytes, filename: null, contentType: 'application/octet-stream' },
    ]);
    const append = await send(`/2/media/upload/${id}/append`, body, contentType);
    if (append.kind !== 'reply' || append.status !== 200) return failed(`append ${index} to media id ${id}`, append);
  }
  const finalize = await send(`/2/media/upload/${id}/finalize`, '{}', json);
  const image = finalize.kind === 'reply' ? (finalize.json as { data?: { image?: { w?: unknown } } } | undefined)?.data?.image : undefined;
  if (finalize.kind !== 'reply' || finalize.status !== 200 || image?.w !== 8) return failed(`finalize of media id ${id}`, finalize);
  return { id, problem: undefined, note: `media id ${id} uploaded by ${user} (v2 initialize, append 0, append 1, finalize)` };
}

/** After a finalize that started processing (an animated GIF, a video), polls v2 STATUS until it has ended. */
async function awaitProcessing(info: SystemInfo, id: string, user: 'own' | 'roaster', timeoutMs: number): Promise<Problem | undefined> {
  const deadline = performance.now() + timeoutMs;
  let last: HttpOutcome | undefined;
  while (performance.now() < deadline) {
    last = await httpExchange({ ...statusRequest(info, id, user), timeoutMs });
    if (last.kind !== 'reply') break;
    const state = (last.json as { data?: { processing_info?: { state?: unknown } } } | undefined)?.data?.processing_info?.state;
    if (last.status !== 200)
      return { kind: 'format', detail: `v2 STATUS of media id ${id}, processing after finalize: ${outcomeSummary(last)}` };
    if (state !== 'pending' && state !== 'in_progress') return undefined;
    await new Promise((wait) => setTimeout(wait, PROCESSING_POLL_MS));
  }
  return {
    kind: 'hang',
    detail: `the processing of media id ${id} did not end within ${timeoutMs} ms (last STATUS: ${last ? outcomeSummary(last) : 'none'})`,
  };
}

export function createChunkedUploadV2Door(): ChunkedUploadV2Door {
  return new ChunkedUploadV2Door();
}
