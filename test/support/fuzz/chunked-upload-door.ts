import { Agent } from 'node:http';
import fc from 'fast-check';
import { fixture, png, truncate } from '../image-fixtures.ts';
import { mediaMultipartBody } from '../media-client.ts';
import { mp4Video } from '../video-fixtures.ts';
import {
  addMediaErrorProblems,
  excerpt,
  mediaObjectProblems,
  METADATA_PATH,
  serverError,
  UPLOAD_PATH,
  type Problem,
  type ReplyView,
} from './error-formats.ts';
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
  rawJsonValue,
  rawObject,
  type Base64Spelling,
  type RawJson,
} from './hostile-values.ts';
import { fileBytes, multipartBytes, type PartModel } from './multipart-arbitrary.ts';
import { describeHttpRequest, shortStringify, withShortText } from './request-description.ts';
import { authorizationFor, CATEGORY_VALUES, uploadCredential, wellFormed, type UploadCredential } from './upload-door.ts';

/**
 * Area D's chunked upload as a door (the reference's §8): POST /1.1/media/upload.json with command=INIT, APPEND and
 * FINALIZE, GET …?command=STATUS, and POST /1.1/media/metadata/create.json. One case is a sequence of commands — the
 * order a client should follow, broken (segments missing, duplicated, out of order, past total_bytes, after FINALIZE),
 * interleaved with hostile commands (bad totals, types, categories and segment indexes; segments as a multipart file or
 * base64, broken or oversized; media ids unknown, malformed, another user's, expired or already finalized; alt text
 * too long, bad JSON; every kind of credential), some of them sent at the same moment as the one before.
 *
 * Oracles, on top of the harness's (process alive, the door answers afterwards on the same and a fresh connection):
 * each reply comes within the bound in the reference's shapes (the media object, 204 or 200 with no body, or one of the
 * two error bodies; never a 5xx or code 131); a refused command — checked one by one, with a digest of every table and
 * the blob store around it — stores and removes nothing; a media id takes no APPEND or FINALIZE once finalized; the
 * processing of an animated GIF or a video that FINALIZE accepted ends within the bound; and the uploads finished before
 * the case (a chunked one and a simple one) are still there, with the same size and dimensions, and still take alt text.
 */

type Credential = UploadCredential | { kind: 'roaster' };
type Carrier = 'multipart' | 'urlencoded' | 'query';

/** A media id, resolved when the command is sent (ids come from the replies of the case's own INITs). */
export type Target =
  /** The n-th media id this case obtained (modulo how many; an unknown id before the first). */
  | { kind: 'case'; n: number }
  /** bluebottle's finished chunked upload, made before the case. */
  | { kind: 'keeper' }
  /** bluebottle's finished simple upload, made before the case (no chunked session: STATUS does not know it). */
  | { kind: 'simple-keeper' }
  | { kind: 'expired-session' }
  | { kind: 'expired-upload' }
  | { kind: 'text'; text: string }
  | { kind: 'absent' };

export type Payload =
  | { kind: 'piece' }
  | { kind: 'base64'; how: Base64Spelling }
  | { kind: 'both' }
  | { kind: 'none' }
  | { kind: 'empty' }
  | { kind: 'bytes'; bytes: Buffer }
  | { kind: 'text'; text: string }
  | { kind: 'oversize'; base64: boolean };

interface Common {
  credential: Credential;
  /** Sent at the same moment as the step before it (two connections), not after its reply. */
  together: boolean;
}

export type Step =
  | (Common & {
      op: 'INIT';
      carrier: Carrier;
      /** A number: the file's size plus it; a string: sent as is; null: absent. */
      totalBytes: number | string | null;
      /** 'file': the file's type. */
      mediaType: 'file' | { text: string } | null;
      category: string | null;
      owners: string | null;
      shared: string | null;
    })
  | (Common & {
      op: 'APPEND';
      carrier: Carrier;
      target: Target;
      piece: number;
      segmentIndex: 'piece' | { text: string } | null;
      payload: Payload;
    })
  | (Common & { op: 'FINALIZE'; carrier: Carrier; target: Target })
  | (Common & { op: 'STATUS'; method: string; target: Target })
  | (Common & { op: 'METADATA'; method: string; contentType: string | undefined; body: MetadataBody })
  | (Common & { op: 'OTHER'; carrier: Carrier; method: string; command: string | null; params: [string, string][]; target: Target })
  /** A whole, correct chunked upload of an 8×8 PNG by one of the two users (a finished media id for the steps after). */
  | { op: 'COMPLETE'; user: 'own' | 'roaster'; category: string | null; together: false };

export type MetadataBody =
  | {
      kind: 'json';
      mediaId: { kind: 'string'; target: Target } | { kind: 'number'; target: Target } | { kind: 'raw'; json: RawJson } | null;
      alt: AltText;
      extra: [string, RawJson][];
    }
  | { kind: 'raw'; text: string };

type AltText = { kind: 'text'; text: string } | { kind: 'raw'; json: RawJson } | { kind: 'bare'; text: string } | null;

export interface ChunkedCase {
  file: FileKind;
  /** The file is sent in this many pieces (segment i is piece i). */
  pieces: number;
  steps: Step[];
}

// ---------------------------------------------------------------------------------------------------------------------
// Files and their pieces

/** The files a case uploads, with the media_type and media_category a client would announce them with. */
export const FILES: Record<string, { type: string; category: string | null; bytes: () => Buffer }> = {
  png: { type: 'image/png', category: null, bytes: () => png(8, 8) },
  largePng: { type: 'image/png', category: 'tweet_image', bytes: () => png(40, 30, { padToBytes: 40_000 }) },
  jpeg: { type: 'image/jpeg', category: null, bytes: () => fixture('baseline.jpg') },
  gif: { type: 'image/gif', category: null, bytes: () => fixture('still.gif') },
  // Animated GIFs and videos go through processing after FINALIZE.
  animatedGif: { type: 'image/gif', category: 'tweet_gif', bytes: () => fixture('animated.gif') },
  webp: { type: 'image/webp', category: null, bytes: () => fixture('lossy.webp') },
  mp4: { type: 'video/mp4', category: 'tweet_video', bytes: () => mp4Video() },
  brokenMp4: { type: 'video/mp4', category: 'amplify_video', bytes: () => truncate(mp4Video(), 200) },
  truncatedPng: { type: 'image/png', category: null, bytes: () => truncate(png(16, 16), 60) },
  tinyPng: { type: 'image/png', category: null, bytes: () => png(2, 2) },
  text: { type: 'image/png', category: null, bytes: () => Buffer.from('hello, this is not an image\n') },
};

export type FileKind = string;

const fileCache = new Map<FileKind, Buffer>();
export function fileOf(kind: FileKind): Buffer {
  let bytes = fileCache.get(kind);
  if (!bytes) fileCache.set(kind, (bytes = FILES[kind]!.bytes()));
  return bytes;
}

/** Piece `index` of the file cut in `pieces` (an index past the last piece repeats the pieces from the start). */
export function pieceOf(file: Buffer, pieces: number, index: number): Buffer {
  const size = Math.ceil(file.length / pieces);
  const at = (index % pieces) * size;
  return file.subarray(at, Math.min(file.length, at + size));
}

/** One byte past the segment limit (5 MiB): made once, and only when a case asks for it. */
let oversize: Buffer | undefined;
export const oversizeBytes = () => (oversize ??= Buffer.alloc(5_242_881, 0x41));

// ---------------------------------------------------------------------------------------------------------------------
// Arbitraries

/** Mostly `usual`, sometimes one of `hostile`. */
export function usually<T>(usual: T, hostile: fc.Arbitrary<T>, weight = 6): fc.Arbitrary<T> {
  return fc.oneof({ weight, arbitrary: fc.constant(usual) }, { weight: 1, arbitrary: hostile });
}

const credential: fc.Arbitrary<Credential> = fc.oneof(
  { weight: 10, arbitrary: fc.constant<Credential>({ kind: 'bearer' }) },
  { weight: 2, arbitrary: fc.constant<Credential>({ kind: 'roaster' }) },
  { weight: 3, arbitrary: uploadCredential },
);

const usualCredential = usually<Credential>({ kind: 'bearer' }, credential, 5);

const carrier: fc.Arbitrary<Carrier> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Carrier>('multipart') },
  { weight: 2, arbitrary: fc.constant<Carrier>('urlencoded') },
  { weight: 1, arbitrary: fc.constant<Carrier>('query') },
);

export const ID_TEXTS = [
  '0',
  '1',
  '-1',
  '9223372036854775807',
  '9223372036854775808',
  '18446744073709551616',
  '99999999999999999999999',
  '1e3',
  ' 12 ',
  '１２',
  'abc',
  '0x10',
  '',
  ...PROTOTYPE_NAMES,
];

const target: fc.Arbitrary<Target> = fc.oneof(
  { weight: 8, arbitrary: fc.nat({ max: 3 }).map((n): Target => ({ kind: 'case', n })) },
  {
    weight: 2,
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
      .oneof(
        fc.constantFrom(...ID_TEXTS),
        fc.bigInt({ min: 1n, max: 9_223_372_036_854_775_807n }).map(String),
        hostileString({ maxLength: 5_000 }),
      )
      .map((text): Target => ({ kind: 'text', text })),
  },
);

const usualTarget = usually<Target>({ kind: 'case', n: 0 }, target, 4);

const TOTAL_TEXTS = [
  '5242880',
  '5242881',
  '15728640',
  '15728641',
  '536870912',
  '536870913',
  '999999999999999',
  '1000000000000000',
  '-5',
  '+5',
  '5.0',
  ' 5 ',
  '０',
];
const totalBytes: fc.Arbitrary<number | string | null> = fc.oneof(
  { weight: 10, arbitrary: fc.constant(0) },
  { weight: 2, arbitrary: fc.integer({ min: -3, max: 3 }) },
  { weight: 2, arbitrary: fc.constantFrom(...TOTAL_TEXTS, ...NUMBER_LIKE_TEXTS) },
  { weight: 1, arbitrary: fc.oneof(hostileString({ maxLength: 70_000 }), fc.constant(null)) },
);

export const MEDIA_TYPES = [
  'image/png',
  'image/jpeg',
  'image/pjpeg',
  'image/gif',
  'image/webp',
  'video/mp4',
  'IMAGE/PNG',
  ' image/png ',
  'image/svg+xml',
  'image/bmp',
  'video/quicktime',
  'text/plain',
  'image/png; charset=x',
  'image/',
  '*/*',
];
const mediaType: fc.Arbitrary<'file' | { text: string } | null> = fc.oneof(
  { weight: 10, arbitrary: fc.constant<'file'>('file') },
  { weight: 2, arbitrary: fc.constantFrom(...MEDIA_TYPES, ...PROTOTYPE_NAMES).map((text) => ({ text })) },
  {
    weight: 1,
    arbitrary: fc.oneof(
      hostileString({ maxLength: 70_000 }).map((text) => ({ text })),
      fc.constant(null),
    ),
  },
);

const category: fc.Arbitrary<string | null> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(null) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('tweet_image', 'tweet_gif', 'tweet_video', 'amplify_video', 'TweetGif', 'TWEET_VIDEO', 'amplify-video'),
  },
  { weight: 2, arbitrary: fc.constantFrom(...CATEGORY_VALUES, 'dm_gif', 'dm_video', 'tweetgif ') },
  { weight: 1, arbitrary: hostileString({ maxLength: 70_000 }) },
);

const owners: fc.Arbitrary<string | null> = fc.oneof(
  { weight: 8, arbitrary: fc.constant(null) },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.oneof(fc.bigInt({ min: 1n, max: 10n ** 19n }).map(String), fc.constantFrom(...NUMBER_LIKE_TEXTS)), { maxLength: 4 })
      .map((ids) => ids.join(',')),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(',', 'x'.repeat(70_000), Array.from({ length: 101 }, (_, index) => String(1000 + index)).join(',')),
  },
);

const shared: fc.Arbitrary<string | null> = usually<string | null>(
  null,
  fc.constantFrom('true', 'false', '1', 'TRUE', 'yes', '', '\u0000'),
  8,
);

export const SEGMENT_TEXTS = [
  '-1',
  '999',
  '1000',
  '4294967296',
  '9007199254740993',
  '1e2',
  '0x1',
  '00',
  '007',
  ' 1',
  '1 ',
  '1.0',
  'NaN',
  '',
  '+0',
];
const segmentIndex: fc.Arbitrary<'piece' | { text: string } | null> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<'piece'>('piece') },
  { weight: 2, arbitrary: fc.constantFrom(...SEGMENT_TEXTS).map((text) => ({ text })) },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.integer({ min: -2, max: 1_100 }).map((n) => ({ text: String(n) })),
      hostileString({ maxLength: 5_000 }).map((text) => ({ text })),
      fc.constant(null),
    ),
  },
);

const payload: fc.Arbitrary<Payload> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Payload>({ kind: 'piece' }) },
  { weight: 3, arbitrary: fc.constantFrom(...BASE64_SPELLINGS).map((how): Payload => ({ kind: 'base64', how })) },
  { weight: 2, arbitrary: fc.constantFrom<Payload>({ kind: 'both' }, { kind: 'none' }, { kind: 'empty' }) },
  { weight: 2, arbitrary: fileBytes.map((bytes): Payload => ({ kind: 'bytes', bytes })) },
  { weight: 1, arbitrary: hostileString({ maxLength: 50_000 }).map((text): Payload => ({ kind: 'text', text })) },
  { weight: 1, arbitrary: fc.boolean().map((base64): Payload => ({ kind: 'oversize', base64 })) },
);

export const together = fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) });

const initStep: fc.Arbitrary<Step> = fc.record({
  op: fc.constant('INIT' as const),
  credential: usualCredential,
  together: fc.constant(false),
  carrier,
  totalBytes,
  mediaType,
  category,
  owners,
  shared,
});

/** INIT of the case's file, exactly as the reference asks for it. */
function goodInit(file: FileKind): Step {
  return {
    op: 'INIT',
    credential: { kind: 'bearer' },
    together: false,
    carrier: 'multipart',
    totalBytes: 0,
    mediaType: 'file',
    category: FILES[file]!.category,
    owners: null,
    shared: null,
  };
}

/** APPEND of a piece of the case's file to its first media id, as the reference asks for it. */
const GOOD_APPEND: Step = {
  op: 'APPEND',
  credential: { kind: 'bearer' },
  together: false,
  carrier: 'multipart',
  target: { kind: 'case', n: 0 },
  piece: 0,
  segmentIndex: 'piece',
  payload: { kind: 'piece' },
};

function appendStep(piece: fc.Arbitrary<number>): fc.Arbitrary<Step> {
  return fc.record({
    op: fc.constant('APPEND' as const),
    credential: usualCredential,
    together,
    carrier: usually<Carrier>('multipart', carrier, 4),
    target: usualTarget,
    piece,
    segmentIndex,
    payload,
  });
}

const finalizeStep: fc.Arbitrary<Step> = fc.record({
  op: fc.constant('FINALIZE' as const),
  credential: usualCredential,
  together,
  carrier,
  target: usualTarget,
});

const statusStep: fc.Arbitrary<Step> = fc.record({
  op: fc.constant('STATUS' as const),
  credential: usualCredential,
  together,
  method: usually('GET', fc.constantFrom('POST', 'HEAD', 'PUT', 'DELETE'), 10),
  target: usualTarget,
});

const completeStep: fc.Arbitrary<Step> = fc.record({
  op: fc.constant('COMPLETE' as const),
  user: usually<'own' | 'roaster'>('own', fc.constant('roaster'), 3),
  category: usually<string | null>(null, fc.constant('tweet_image'), 2),
  together: fc.constant(false as const),
});

const COMMAND_TEXTS = [
  'init',
  ' INIT ',
  'Append',
  'finalize\u0000',
  'STATUS',
  'FINALIZE,FINALIZE',
  '',
  'DELETE',
  'UPLOAD',
  ...PROTOTYPE_NAMES,
];
const otherStep: fc.Arbitrary<Step> = fc.record({
  op: fc.constant('OTHER' as const),
  credential: usualCredential,
  together,
  carrier,
  method: usually('POST', fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'), 4),
  command: fc.oneof(fc.constantFrom<string | null>(...COMMAND_TEXTS, null), hostileString({ maxLength: 2_000 })),
  params: fc.array(
    fc.tuple(
      fc.constantFrom(
        'total_bytes',
        'media_type',
        'segment_index',
        'media_id',
        'media_data',
        'media_category',
        'additional_owners',
        ...PROTOTYPE_NAMES,
      ),
      hostileString({ maxLength: 2_000 }),
    ),
    { maxLength: 3 },
  ),
  target: usualTarget,
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
  { weight: 3, arbitrary: hostileString({ maxLength: 70_000 }).map((text): AltText => ({ kind: 'text', text })) },
  { weight: 1, arbitrary: rawJsonValue(2).map((json): AltText => ({ kind: 'raw', json })) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((text): AltText => ({ kind: 'bare', text })) },
  { weight: 1, arbitrary: fc.constant<AltText>(null) },
);

const metadataMediaId = fc.oneof(
  { weight: 8, arbitrary: target.map((at) => ({ kind: 'string' as const, target: at })) },
  { weight: 2, arbitrary: target.map((at) => ({ kind: 'number' as const, target: at })) },
  { weight: 1, arbitrary: rawJsonValue(2).map((json) => ({ kind: 'raw' as const, json })) },
  { weight: 1, arbitrary: fc.constant(null) },
);

const metadataBody: fc.Arbitrary<MetadataBody> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('json' as const),
      mediaId: metadataMediaId,
      alt: altText,
      extra: usually<[string, RawJson][]>(
        [],
        fc.array(fc.tuple(fc.constantFrom('__proto__', 'constructor', 'media_id', 'alt_text', 'x'), rawJsonValue(1)), { maxLength: 2 }),
        5,
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: corruptJson('{"media_id":"1","alt_text":{"text":"a"}}').map((text): MetadataBody => ({ kind: 'raw', text })),
  },
);

const metadataStep: fc.Arbitrary<Step> = fc.record({
  op: fc.constant('METADATA' as const),
  credential: usualCredential,
  together,
  method: usually('POST', fc.constantFrom('GET', 'PUT'), 12),
  contentType: usually<string | undefined>(
    'application/json',
    fc.constantFrom(
      undefined,
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
    ),
    8,
  ),
  body: metadataBody,
});

export const fileKind = fc.oneof(
  { weight: 6, arbitrary: fc.constant<FileKind>('png') },
  { weight: 4, arbitrary: fc.constantFrom<FileKind>(...Object.keys(FILES)) },
);

/** Any one command, hostile or not. */
const anyStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: initStep },
  { weight: 5, arbitrary: appendStep(fc.nat({ max: 4 })) },
  { weight: 3, arbitrary: finalizeStep },
  { weight: 2, arbitrary: statusStep },
  { weight: 1, arbitrary: metadataStep },
  { weight: 1, arbitrary: otherStep },
  { weight: 1, arbitrary: completeStep },
);

function caseOf(model: ChunkedCase): ChunkedCase {
  return withShortText(model, () => shortStringify(model));
}

/**
 * A chunked upload as a client would send it — INIT, the pieces in order, FINALIZE, STATUS — with every part of it open
 * to damage (a piece missing, sent twice or out of order, any command's parameters, credential or media id), and hostile
 * commands slipped in between.
 */
export const chunkedSequences: fc.Arbitrary<ChunkedCase> = fc
  .record({ file: fileKind, pieces: fc.integer({ min: 1, max: 3 }) })
  .chain(({ file, pieces }) =>
    fc
      .record({
        // Mostly an INIT a client would send (so that the segments after it reach a session), sometimes a hostile one.
        init: fc.oneof(
          { weight: 6, arbitrary: fc.constant(goodInit(file)) },
          { weight: 3, arbitrary: initStep },
          { weight: 1, arbitrary: fc.constant(undefined) },
        ),
        order: fc.oneof(
          { weight: 3, arbitrary: fc.constant(Array.from({ length: pieces }, (_, index) => index)) },
          { weight: 2, arbitrary: fc.array(fc.nat({ max: pieces }), { minLength: 1, maxLength: pieces + 2 }) },
        ),
        // Each segment is usually sent right, so that whole uploads — and FINALIZE's work — are reached.
        appends: fc.array(usually(GOOD_APPEND, appendStep(fc.constant(0)), 3), { minLength: pieces + 2, maxLength: pieces + 2 }),
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
        const steps: Step[] = [
          ...(init ? [init] : []),
          ...order.map((piece, position) => ({ ...(appends[position] as Extract<Step, { op: 'APPEND' }>), piece })),
          ...tail,
        ];
        for (const [at, step] of hostile) steps.splice(at % (steps.length + 1), 0, step);
        // The first command has nothing to be sent together with.
        if (steps[0] && steps[0].op !== 'COMPLETE') steps[0] = { ...steps[0], together: false };
        return caseOf({ file, pieces, steps });
      }),
  );

/** Alt text on finished, unfinished, foreign, expired and made-up media ids, with every kind of broken body. */
export const metadataSequences: fc.Arbitrary<ChunkedCase> = fc
  .record({
    prologue: fc.array(fc.oneof({ weight: 3, arbitrary: completeStep }, { weight: 1, arbitrary: initStep }), { maxLength: 2 }),
    steps: fc.array(fc.oneof({ weight: 6, arbitrary: metadataStep }, { weight: 1, arbitrary: statusStep }), { minLength: 1, maxLength: 4 }),
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

interface KnownMedia {
  id: string;
  user: 'own' | 'roaster';
}

/** What a case has learnt so far: the media ids its INITs obtained, and which of them are finalized. */
export interface CaseState {
  ids: KnownMedia[];
  finalized: Set<string>;
}

export interface Keepers {
  generation: number;
  chunked: { id: string; size: number; w: number; h: number };
  simpleId: string;
}

/** An id no INIT ever returns (the snowflake ids are far larger), for commands sent before the case has one. */
const UNKNOWN_ID = '4242';

export function resolve(at: Target, state: CaseState, info: SystemInfo, keepers: Keepers | undefined): string | undefined {
  switch (at.kind) {
    case 'case':
      return state.ids.length === 0 ? UNKNOWN_ID : state.ids[at.n % state.ids.length]!.id;
    case 'keeper':
      return keepers?.chunked.id ?? UNKNOWN_ID;
    case 'simple-keeper':
      return keepers?.simpleId ?? UNKNOWN_ID;
    case 'expired-session':
      return info.media.expiredSessionId;
    case 'expired-upload':
      return info.media.expiredUploadId;
    case 'text':
      return at.text;
    case 'absent':
      return undefined;
  }
}

function authorization(
  cred: Credential,
  info: SystemInfo,
  url: string,
  signedBody: Record<string, string> | undefined,
): string | undefined {
  return cred.kind === 'roaster' ? `Bearer ${info.social.tokens.roasterOwn}` : authorizationFor(cred, info, url, signedBody);
}

function userOf(cred: Credential): 'own' | 'roaster' | undefined {
  return cred.kind === 'roaster' ? 'roaster' : cred.kind === 'bearer' || cred.kind === 'oauth1' ? 'own' : undefined;
}

interface FilePart {
  bytes: Buffer;
  filename: string;
  contentType: string;
}

/** A command on the upload path: parameters as multipart fields, an urlencoded body, or the query string. */
function commandRequest(
  info: SystemInfo,
  cred: Credential,
  how: Carrier,
  method: string,
  params: [string, string][],
  file?: FilePart,
): HttpRequestSpec {
  const inQuery = how === 'query' || method === 'GET' || method === 'HEAD';
  const search = inQuery ? new URLSearchParams(params).toString() : '';
  const url = `${info.restUrl}${UPLOAD_PATH}${search ? `?${search}` : ''}`;
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: Buffer | string | undefined;
  let signedBody: Record<string, string> | undefined;
  if (!inQuery && how === 'multipart') {
    const parts: PartModel[] = params.map(([name, value]) => ({ name, data: Buffer.from(value, 'utf8') }));
    if (file) parts.push({ name: 'media', filename: file.filename, contentType: file.contentType, data: file.bytes });
    body = multipartBytes({
      boundary: 'chunkedfuzz',
      headerBoundary: 'chunkedfuzz',
      quoteBoundary: false,
      preamble: '',
      parts,
      ending: 'close',
      cutAt: 1,
    });
    headers['content-type'] = 'multipart/form-data; boundary=chunkedfuzz';
  } else if (!inQuery && how === 'urlencoded') {
    // A file has no place in an urlencoded body: the command goes without it.
    body = new URLSearchParams(params).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
    signedBody = Object.fromEntries(params.map(([name, value]) => [wellFormed(name), wellFormed(value)]));
  } else if (file && method !== 'GET' && method !== 'HEAD') {
    // Parameters in the query, the segment as the raw body: not the reference's, to be refused as such.
    body = file.bytes;
    headers['content-type'] = 'application/octet-stream';
  }
  const auth = authorization(cred, info, url, signedBody);
  if (auth !== undefined) headers.authorization = auth;
  return { method, url, headers, body };
}

function metadataJson(body: MetadataBody, state: CaseState, info: SystemInfo, keepers: Keepers | undefined): string {
  if (body.kind === 'raw') return body.text;
  const entries: [string, RawJson][] = [];
  if (body.mediaId) {
    if (body.mediaId.kind === 'raw') entries.push(['media_id', body.mediaId.json]);
    else {
      const id = resolve(body.mediaId.target, state, info, keepers);
      if (id !== undefined) entries.push(['media_id', body.mediaId.kind === 'number' && /^\d+$/.test(id) ? id : quote(id)]);
    }
  }
  const alt = body.alt;
  if (alt?.kind === 'text') entries.push(['alt_text', rawObject([['text', quote(alt.text)]])]);
  else if (alt?.kind === 'raw') entries.push(['alt_text', rawObject([['text', alt.json]])]);
  else if (alt?.kind === 'bare') entries.push(['alt_text', quote(alt.text)]);
  entries.push(...body.extra);
  return rawObject(entries);
}

/** The HTTP request of a step, given what the case has learnt (ids) and the file. */
function requestOf(
  step: Exclude<Step, { op: 'COMPLETE' }>,
  model: ChunkedCase,
  state: CaseState,
  info: SystemInfo,
  keepers: Keepers | undefined,
): HttpRequestSpec {
  const file = fileOf(model.file);
  const withId = (params: [string, string][], at: Target) => {
    const id = resolve(at, state, info, keepers);
    return id === undefined ? params : [...params, ['media_id', id] as [string, string]];
  };
  switch (step.op) {
    case 'INIT': {
      const params: [string, string][] = [['command', 'INIT']];
      if (step.totalBytes !== null)
        params.push(['total_bytes', typeof step.totalBytes === 'number' ? String(file.length + step.totalBytes) : step.totalBytes]);
      if (step.mediaType !== null) params.push(['media_type', step.mediaType === 'file' ? FILES[model.file]!.type : step.mediaType.text]);
      if (step.category !== null) params.push(['media_category', step.category]);
      if (step.owners !== null) params.push(['additional_owners', step.owners]);
      if (step.shared !== null) params.push(['shared', step.shared]);
      return commandRequest(info, step.credential, step.carrier, 'POST', params);
    }
    case 'APPEND': {
      const params = withId([['command', 'APPEND']], step.target);
      if (step.segmentIndex !== null)
        params.push(['segment_index', step.segmentIndex === 'piece' ? String(step.piece) : step.segmentIndex.text]);
      const piece = pieceOf(file, model.pieces, step.piece);
      const asFile = (bytes: Buffer): FilePart => ({ bytes, filename: 'blob', contentType: 'application/octet-stream' });
      let part: FilePart | undefined;
      switch (step.payload.kind) {
        case 'piece':
          // A file part where one can go; as base64 in an urlencoded body.
          if (step.carrier === 'urlencoded') params.push(['media_data', piece.toString('base64')]);
          else part = asFile(piece);
          break;
        case 'base64':
          params.push(['media_data', hostileBase64(piece, step.payload.how)]);
          break;
        case 'both':
          params.push(['media_data', piece.toString('base64')]);
          part = asFile(piece);
          break;
        case 'none':
          break;
        case 'empty':
          part = asFile(Buffer.alloc(0));
          break;
        case 'bytes':
          part = asFile(step.payload.bytes);
          break;
        case 'text':
          params.push(['media_data', step.payload.text]);
          break;
        case 'oversize':
          if (step.payload.base64) params.push(['media_data', oversizeBytes().toString('base64')]);
          else part = asFile(oversizeBytes());
          break;
      }
      return commandRequest(info, step.credential, step.carrier, 'POST', params, part);
    }
    case 'FINALIZE':
      return commandRequest(info, step.credential, step.carrier, 'POST', withId([['command', 'FINALIZE']], step.target));
    case 'STATUS':
      return commandRequest(info, step.credential, 'query', step.method, withId([['command', 'STATUS']], step.target));
    case 'OTHER': {
      const params: [string, string][] = step.command === null ? [] : [['command', step.command]];
      return commandRequest(info, step.credential, step.carrier, step.method, withId([...params, ...step.params], step.target));
    }
    case 'METADATA': {
      const url = `${info.restUrl}${METADATA_PATH}`;
      const headers: Record<string, string> = { accept: 'application/json' };
      if (step.contentType !== undefined) headers['content-type'] = step.contentType;
      const auth = authorization(step.credential, info, url, undefined);
      if (auth !== undefined) headers.authorization = auth;
      const body = metadataJson(step.body, state, info, keepers);
      return { method: step.method, url, headers, body: step.method === 'GET' ? undefined : body };
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Judging one reply

export type Judged = { problems: Problem[]; refused: boolean; mediaId: string | undefined; processing: string | undefined };

/** The command a request on the upload path carries, as the route reads it (body first, then the query). */
function commandOf(step: Exclude<Step, { op: 'COMPLETE' }>): string | undefined {
  if (step.op === 'METADATA') return undefined;
  if (step.op === 'OTHER') return step.command === null ? undefined : step.command.trim().toUpperCase();
  return step.op;
}

function judgeStep(step: Exclude<Step, { op: 'COMPLETE' }>, request: HttpRequestSpec, reply: ReplyView): Judged {
  const problems: Problem[] = [...serverError(reply, reply.status === 503)];
  const ok = reply.status >= 200 && reply.status < 300;
  const path = step.op === 'METADATA' ? METADATA_PATH : UPLOAD_PATH;
  const judged = (refused: boolean, mediaId?: string, processing?: string): Judged => ({ problems, refused, mediaId, processing });
  if (request.method === 'HEAD') return judged(!ok);
  if (!ok) {
    addMediaErrorProblems(problems, reply, path);
    return judged(true);
  }
  const command = commandOf(step);
  const expected: Record<string, number> = { INIT: 202, APPEND: 204, FINALIZE: 200, STATUS: 200, METADATA: 200 };
  const expectedStatus = step.op === 'METADATA' ? 200 : command !== undefined ? expected[command] : 200;
  if (expectedStatus !== undefined && reply.status !== expectedStatus) {
    problems.push({
      kind: 'format',
      detail: `${command ?? step.op} answered ${reply.status}, not ${expectedStatus}: ${excerpt(reply.text)}`,
    });
  }
  if (reply.status === 204 || step.op === 'METADATA') {
    if (reply.text !== '') problems.push({ kind: 'format', detail: `a ${reply.status} with a body: ${excerpt(reply.text)}` });
    return judged(false);
  }
  // INIT, FINALIZE and STATUS answer a media object; a POST without a command is the simple upload, with its image.
  problems.push(...mediaObjectProblems(reply, { image: command === undefined }));
  const body = reply.json as
    { media_id_string?: string; image?: unknown; video?: unknown; processing_info?: { state?: unknown } } | undefined;
  if (command === 'FINALIZE' && body && !body.image && !body.video && !body.processing_info) {
    problems.push({
      kind: 'format',
      detail: `a finished media object with neither image, video nor processing_info: ${excerpt(reply.text)}`,
    });
  }
  const state = typeof body?.processing_info?.state === 'string' ? body.processing_info.state : undefined;
  return judged(false, body?.media_id_string, state);
}

// ---------------------------------------------------------------------------------------------------------------------
// The door

interface Sent {
  step: Step;
  request: HttpRequestSpec | undefined;
  outcome: HttpOutcome | undefined;
  note: string;
}

const PROCESSING_POLL_MS = 100;

export class ChunkedUploadDoor implements FuzzDoor<ChunkedCase> {
  readonly name = 'chunked-upload';
  /** Every case and every probe writes (INIT, FINALIZE, a known-good upload): the harness digests anew each case. */
  readonly probeWrites = true;
  readonly bookkeepingTables: Readonly<Record<string, string>> = {
    'media.rate_counter': 'every authenticated command counts against the upload rate limit, refused ones included',
    'oauth.nonce': 'nonces are spent by any correctly signed request',
  };
  private agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private keepers: Keepers | undefined;

  async exchange(model: ChunkedCase, system: FuzzSystem): Promise<CaseOutcome> {
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
          // The first of a batch goes on the case's kept-alive connection, the others on fresh ones, at the same moment.
          const agent = position === 0 ? this.agent : undefined;
          if (step.op === 'COMPLETE') {
            const done = await completeUpload(info, step.user, step.category, agent);
            return {
              step,
              request: undefined,
              outcome: undefined,
              note: done.note,
              judged: { problems: done.problem ? [done.problem] : [], refused: false, mediaId: done.id, processing: undefined },
            };
          }
          const request = requestOf(step, model, state, info, this.keepers);
          const outcome = await httpExchange({ ...request, ...(agent ? { agent } : {}), timeoutMs: requestTimeoutMs });
          if (outcome.kind !== 'reply') return { step, request, outcome, note: outcomeSummary(outcome), judged: undefined };
          return { step, request, outcome, note: outcomeSummary(outcome), judged: judgeStep(step, request, outcome) };
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
        if (outcome?.kind === 'reply') labels.push(`${step.op} ${labelOf(outcome)}`);
        problems.push(...judged.problems);
        refused &&= judged.refused;
        if (judged.refused || step.op === 'METADATA') continue;
        const command = step.op === 'COMPLETE' ? 'COMPLETE' : commandOf(step);
        const id =
          judged.mediaId ??
          (step.op === 'APPEND' || step.op === 'OTHER' ? resolve(step.target, state, info, this.keepers)?.trim() : undefined);
        if (id === undefined) continue;
        if (command === 'INIT' || command === 'COMPLETE') {
          const user = step.op === 'COMPLETE' ? step.user : userOf(step.credential);
          if (user) state.ids.push({ id, user });
        }
        if ((command === 'APPEND' || command === 'FINALIZE') && (state.finalized.has(id) || finalizedHere.has(id))) {
          problems.push({ kind: 'stored-change', detail: `media id ${id} took ${command} after it was finalized` });
        }
        if (command === 'FINALIZE' || command === 'COMPLETE') finalizedHere.add(id);
        if (command === 'FINALIZE' && (judged.processing === 'pending' || judged.processing === 'in_progress')) {
          const owner = state.ids.find((known) => known.id === id)?.user ?? 'own';
          const wait = await awaitProcessing(info, id, owner, requestTimeoutMs);
          if (wait) problems.push(wait);
        }
      }
      for (const id of finalizedHere) state.finalized.add(id);
      if (broken) {
        // What is left of the connection is not to be reused; the process may be gone (the harness looks).
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
    // The stored-data check is done here, command by command; the harness's own (whole case) is not needed.
    return { problems, rejected: false, unavailable: false, summary: summary(), label: labels.join(' | ') };
  }

  async probe(system: FuzzSystem): Promise<Problem[]> {
    const { requestTimeoutMs } = fuzzSettings();
    const info = system.info;
    const problems: Problem[] = [];
    for (const connection of ['kept-alive', 'fresh'] as const) {
      const done = await completeUpload(info, 'own', null, connection === 'kept-alive' ? this.agent : undefined);
      if (done.problem) {
        problems.push({
          kind: 'liveness',
          detail: `the known-good chunked upload of an 8×8 PNG on a ${connection} connection: ${done.note}`,
        });
        if (connection === 'kept-alive') this.resetAgent();
      }
    }
    // The uploads finished before the case are still there, as they were, and still take alt text.
    const keepers = this.keepers;
    if (!keepers || keepers.generation !== system.generation) return problems;
    const status = await httpExchange({
      ...statusRequest(info, keepers.chunked.id, 'own'),
      agent: this.agent,
      timeoutMs: requestTimeoutMs,
    });
    const body =
      status.kind === 'reply'
        ? (status.json as { media_id_string?: unknown; size?: unknown; image?: { w?: unknown; h?: unknown } } | undefined)
        : undefined;
    const { chunked } = keepers;
    if (
      status.kind !== 'reply' ||
      status.status !== 200 ||
      body?.media_id_string !== chunked.id ||
      body.size !== chunked.size ||
      body.image?.w !== chunked.w ||
      body.image?.h !== chunked.h
    ) {
      problems.push({
        kind: 'liveness',
        detail: `the chunked upload finished before the case (media id ${chunked.id}, ${chunked.size} bytes, ${chunked.w}×${chunked.h}) reads back as ${outcomeSummary(status)}`,
      });
    }
    for (const id of [chunked.id, keepers.simpleId]) {
      const reply = await httpExchange({
        ...metadataRequest(info, id, 'kept before the fuzz case'),
        agent: this.agent,
        timeoutMs: requestTimeoutMs,
      });
      if (reply.kind !== 'reply' || reply.status !== 200)
        problems.push({ kind: 'liveness', detail: `alt text on media id ${id}, finished before the case: ${outcomeSummary(reply)}` });
    }
    return problems;
  }

  describe(model: ChunkedCase, info: SystemInfo): string {
    const state: CaseState = { ids: [{ id: '<the media id of the case’s first INIT>', user: 'own' }], finalized: new Set() };
    const lines = model.steps.map((step, index) => {
      const head = `\n    ${index + 1}.${step.together ? ' (together with the one before)' : ''} `;
      if (step.op === 'COMPLETE')
        return `${head}a whole chunked upload of an 8×8 PNG by ${step.user}${step.category ? ` (media_category ${step.category})` : ''}`;
      const request = requestOf(step, model, state, info, this.keepers);
      return `${head}${describeHttpRequest(request.method, request.url, request.headers, request.body)}`;
    });
    return `${model.file} in ${model.pieces} piece(s) (${fileOf(model.file).length} bytes); media ids of the case's INITs appear in the replies:${lines.join('')}`;
  }

  /** The uploads every case must leave as they were: made once per system process, before its first case. */
  private async ensureKeepers(system: FuzzSystem): Promise<Problem | undefined> {
    if (this.keepers?.generation === system.generation) return undefined;
    const { requestTimeoutMs } = fuzzSettings();
    const info = system.info;
    this.keepers = undefined;
    const chunked = await completeUpload(info, 'own', 'tweet_image', undefined);
    const { body, contentType } = mediaMultipartBody([
      { name: 'media', bytes: png(8, 8), filename: 'keeper.png', contentType: 'image/png' },
    ]);
    const simple = await httpExchange({
      method: 'POST',
      url: `${info.restUrl}${UPLOAD_PATH}`,
      headers: { 'content-type': contentType, authorization: `Bearer ${info.social.tokens.own}` },
      body,
      timeoutMs: requestTimeoutMs,
    });
    const simpleId = simple.kind === 'reply' ? (simple.json as { media_id_string?: unknown } | undefined)?.media_id_string : undefined;
    if (chunked.problem || !chunked.id || typeof simpleId !== 'string') {
      return {
        kind: 'liveness',
        detail: `the uploads made before the case failed: chunked ${chunked.note}; simple ${outcomeSummary(simple)}`,
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

/** A reply's class for the run's statistics; the legacy error body's message too. */
function labelOf(reply: ReplyView): string {
  const legacy = (reply.json as { error?: unknown } | undefined)?.error;
  return typeof legacy === 'string' ? `${reply.status} legacy: ${legacy.replace(/\d{6,}/g, 'N').slice(0, 80)}` : replyLabel(reply);
}

/** Steps grouped by `together`: each group is sent at once. */
export function batchesOf<T extends { together: boolean }>(steps: readonly T[]): T[][] {
  const batches: T[][] = [];
  for (const step of steps) {
    if (step.together && batches.length > 0) batches.at(-1)!.push(step);
    else batches.push([step]);
  }
  return batches;
}

export function bearerOf(info: SystemInfo, user: 'own' | 'roaster'): string {
  return `Bearer ${user === 'own' ? info.social.tokens.own : info.social.tokens.roasterOwn}`;
}

function statusRequest(info: SystemInfo, id: string, user: 'own' | 'roaster'): HttpRequestSpec {
  return {
    method: 'GET',
    url: `${info.restUrl}${UPLOAD_PATH}?command=STATUS&media_id=${id}`,
    headers: { authorization: bearerOf(info, user) },
  };
}

function metadataRequest(info: SystemInfo, id: string, text: string): HttpRequestSpec {
  return {
    method: 'POST',
    url: `${info.restUrl}${METADATA_PATH}`,
    headers: { 'content-type': 'application/json', authorization: bearerOf(info, 'own') },
    body: JSON.stringify({ media_id: id, alt_text: { text } }),
  };
}

/**
 * A whole, correct chunked upload of an 8×8 PNG in two segments (INIT, APPEND 0, APPEND 1, FINALIZE): the door's
 * known-good request, and the fuzz cases' way to a finished media id.
 */
export async function completeUpload(
  info: SystemInfo,
  user: 'own' | 'roaster',
  mediaCategory: string | null,
  agent: Agent | undefined,
): Promise<{ id: string | undefined; problem: Problem | undefined; note: string }> {
  const { requestTimeoutMs } = fuzzSettings();
  const file = fileOf('png');
  const send = async (fields: Record<string, string>, bytes?: Buffer) => {
    const { body, contentType } = mediaMultipartBody([
      ...Object.entries(fields).map(([name, value]) => ({ name, value })),
      ...(bytes ? [{ name: 'media', bytes, filename: 'blob', contentType: 'application/octet-stream' }] : []),
    ]);
    return httpExchange({
      method: 'POST',
      url: `${info.restUrl}${UPLOAD_PATH}`,
      headers: { 'content-type': contentType, authorization: bearerOf(info, user) },
      body,
      timeoutMs: requestTimeoutMs,
      ...(agent ? { agent } : {}),
    });
  };
  const failed = (what: string, outcome: HttpOutcome) => ({
    id: undefined,
    problem: { kind: 'liveness' as const, detail: `${what}: ${outcomeSummary(outcome)}` },
    note: `${what}: ${outcomeSummary(outcome)}`,
  });
  const init = await send({
    command: 'INIT',
    total_bytes: String(file.length),
    media_type: 'image/png',
    ...(mediaCategory ? { media_category: mediaCategory } : {}),
  });
  const id =
    init.kind === 'reply' && init.status === 202 ? (init.json as { media_id_string?: unknown } | undefined)?.media_id_string : undefined;
  if (typeof id !== 'string') return failed('INIT', init);
  const half = Math.ceil(file.length / 2);
  for (const [index, bytes] of [file.subarray(0, half), file.subarray(half)].entries()) {
    const append = await send({ command: 'APPEND', media_id: id, segment_index: String(index) }, bytes);
    if (append.kind !== 'reply' || append.status !== 204) return failed(`APPEND ${index} of media id ${id}`, append);
  }
  const finalize = await send({ command: 'FINALIZE', media_id: id });
  const image = finalize.kind === 'reply' ? (finalize.json as { image?: { w?: unknown } } | undefined)?.image : undefined;
  if (finalize.kind !== 'reply' || finalize.status !== 200 || image?.w !== 8) return failed(`FINALIZE of media id ${id}`, finalize);
  return { id, problem: undefined, note: `media id ${id} uploaded by ${user} (INIT, APPEND 0, APPEND 1, FINALIZE)` };
}

/**
 * After a FINALIZE that started processing (an animated GIF, a video), polls STATUS until it has ended: processing that
 * never ends is a stall, and it must not write to the tables while the next command's digest is taken.
 */
async function awaitProcessing(info: SystemInfo, id: string, user: 'own' | 'roaster', timeoutMs: number): Promise<Problem | undefined> {
  const deadline = performance.now() + timeoutMs;
  let last: HttpOutcome | undefined;
  while (performance.now() < deadline) {
    last = await httpExchange({ ...statusRequest(info, id, user), timeoutMs });
    if (last.kind !== 'reply') break;
    const state = (last.json as { processing_info?: { state?: unknown } } | undefined)?.processing_info?.state;
    if (last.status !== 200)
      return { kind: 'format', detail: `STATUS of media id ${id}, processing after FINALIZE: ${outcomeSummary(last)}` };
    if (state !== 'pending' && state !== 'in_progress') return undefined;
    await new Promise((wait) => setTimeout(wait, PROCESSING_POLL_MS));
  }
  return {
    kind: 'hang',
    detail: `the processing of media id ${id} did not end within ${timeoutMs} ms (last STATUS: ${last ? outcomeSummary(last) : 'none'})`,
  };
}

export function createChunkedUploadDoor(): ChunkedUploadDoor {
  return new ChunkedUploadDoor();
}
