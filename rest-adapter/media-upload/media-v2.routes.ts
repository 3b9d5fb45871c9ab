import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { addressedUrl } from '../../lib/auth/signed-request.ts';
import { UnavailableError } from '../../lib/errors.ts';
import { isRecord } from '../../lib/is-record.ts';
import type { OperationVariables, TypedQuery } from '../../gateway/gateway-door.ts';
import type { RateLimitState } from '../../contracts/media-upload.ts';
import {
  MediaMetadataCreateDocument,
  MediaUploadAppendDocument,
  MediaUploadDocument,
  MediaUploadFinalizeDocument,
  MediaUploadInitDocument,
  MediaUploadStatusDocument,
  type MediaUploadStatusQuery,
} from './generated/operations.ts';
import {
  BodyError,
  mediaDataChars,
  queryPairsOf,
  readBody,
  readMultipart,
  setRateLimitHeaders,
  uploadOf,
  type UploadRequest,
} from './media-request.ts';
import type { MediaRoutesDeps } from './media.routes.ts';
import {
  internalErrorProblem,
  unavailableProblem,
  invalidRequest,
  mapMediaErrorsV2,
  methodNotAllowedProblem,
  notFoundProblem,
  type InvalidParameter,
  type ProblemReply,
  PROBLEM_JSON,
} from './media-v2-problems.ts';
import { callerHeaders } from '../caller-headers.ts';

/**
 * X's API v2 media endpoints (../shared/reference/media-upload.md §10), as twitter-api-v2 1.29.1 calls them: the chunked
 * upload on dedicated paths (initialize, {id}/append, {id}/finalize, and STATUS by GET), the one-shot upload, and media
 * metadata (alt text). Each request is the same GraphQL operation the 1.1 routes run (media.operations.graphql), so
 * sessions, limits, the rate limit, expiry and owners are one media service's under both versions, and an id from either
 * version is accepted everywhere. Only v2's HTTP surface lives here: JSON and multipart bodies checked against the
 * spec's keys, `{"data":{…}}` replies, and problems (media-v2-problems.ts).
 *
 * Decisions the reference leaves open (§10.4): `/2/media/upload` takes only the one-shot upload (the older command form
 * is answered with a problem naming the dedicated paths); finalize answers 200 (the spec); initialize needs `media_type`
 * and `total_bytes` (the media service refuses a session without them); an unknown or expired id is 404
 * resource-not-found; problem types use the api.twitter.com host of live replies.
 */

export const V2_UPLOAD_PATH = '/2/media/upload';
export const V2_INITIALIZE_PATH = '/2/media/upload/initialize';
export const V2_APPEND_PATH = '/2/media/upload/:id/append';
export const V2_FINALIZE_PATH = '/2/media/upload/:id/finalize';
export const V2_METADATA_PATH = '/2/media/metadata';

/** Every path under /2/: v2's media API answers them all, in its own shapes. */
const V2_PATHS = /^\/2(\/|$)/;
/** A v2 media id (the spec's pattern). */
const MEDIA_ID = /^[0-9]{1,19}$/;
/** The largest total_bytes initialize accepts (the spec's bound; the media service's own limits are lower). */
const MAX_TOTAL_BYTES = 17_179_869_184;
/** JSON bodies without media: initialize, finalize, metadata (1,000 characters of alt text fit many times over). */
const SMALL_BODY_BYTES = 65_536;
/** The media types the spec lists for the one-shot upload's `media_type`. */
const ONE_SHOT_MEDIA_TYPES = new Set([
  'image/jpeg',
  'image/bmp',
  'image/png',
  'image/webp',
  'image/pjpeg',
  'image/tiff',
  'text/srt',
  'text/vtt',
]);
/** Metadata the spec lists beside alt_text; recognised, and refused as not kept here (only alt text is). */
const OTHER_METADATA = new Set([
  'allow_download_status',
  'audience_policy',
  'content_expiration',
  'domain_restrictions',
  'found_media_origin',
  'geo_restrictions',
  'management_info',
  'preview_image',
  'sensitive_media_warning',
  'shared_info',
  'sticker_info',
  'upload_source',
]);

/** A request refused before any operation runs: the problems, answered 400 invalid-request. */
class RequestProblems extends Error {
  constructor(readonly problems: readonly InvalidParameter[]) {
    super(problems.map((problem) => problem.message).join('; '));
  }
}

function refuse(message: string, parameter?: string, value?: unknown): never {
  throw new RequestProblems([{ message, ...(parameter !== undefined ? { parameter } : {}), ...(value !== undefined ? { value } : {}) }]);
}

/** What INIT, FINALIZE and STATUS answer with (the same selection in each). */
type MediaSession = MediaUploadStatusQuery['mediaUploadStatus'];

/**
 * The routes wire; the handlers below work. Each handler is a named module function taking the routes' dependencies
 * first (`deps`: the executor, the logger, the multipart limits), run through `handle` for v2's answers to a refused
 * request and to a failure of ours.
 */
export function createMediaV2Routes(deps: MediaRoutesDeps): Router {
  const router = express.Router();
  router.post(V2_INITIALIZE_PATH, handle(deps, 'initialize', initializeUpload));
  router.post(V2_APPEND_PATH, handle(deps, 'append', appendSegment));
  router.post(V2_FINALIZE_PATH, handle(deps, 'finalize', finalizeUpload));
  router.get(V2_UPLOAD_PATH, handle(deps, 'status', uploadStatus));
  router.post(V2_UPLOAD_PATH, handle(deps, 'upload', oneShotUpload));
  router.post(V2_METADATA_PATH, handle(deps, 'metadata', createMetadata));

  // Other methods on these paths, and paths v2's media API does not have: its problems, never the 1.1 shapes.
  for (const path of [V2_INITIALIZE_PATH, V2_APPEND_PATH, V2_FINALIZE_PATH, V2_METADATA_PATH]) {
    router.all(path, (req, res) => methodNotAllowed(req, res, 'POST'));
  }
  router.all(V2_UPLOAD_PATH, (req, res) => methodNotAllowed(req, res, 'GET, POST'));
  router.all(V2_PATHS, (req, res) => {
    req.resume();
    sendProblem(res, notFoundProblem());
  });
  // A path whose `{id}` does not decode (`/2/media/upload/%zz/append`) fails in Express's matching, before any route
  // runs; its error would reach the application's handler, which answers in Area A's format. (Four parameters: Express
  // takes a handler of four for an error handler.)
  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => pathError(deps, error, req, res, next));
  return router;
}

/** A route's work: one request, answered. */
type RouteWork = (deps: MediaRoutesDeps, req: Request, res: Response) => Promise<void>;

/** Runs one media operation with the caller's credentials and the description of the request it signed. */
function run<TData, TVariables extends OperationVariables>(
  deps: MediaRoutesDeps,
  req: Request,
  query: TypedQuery<TData, TVariables>,
  operationName: string,
  variables: NoInfer<TVariables>,
) {
  return deps.executor.execute({
    query,
    operationName,
    variables,
    // OAuth 1.0a signs the method and URL only: v2's JSON and multipart bodies are outside the signature.
    headers: callerHeaders(req, {
      signedRequest: { method: req.method, url: addressedUrl({ headers: req.headers, path: req.originalUrl }) },
    }),
  });
}

/** A route's handler with v2's answers for a refused request and for a failure of ours. */
function handle(deps: MediaRoutesDeps, name: string, work: RouteWork) {
  return async (req: Request, res: Response): Promise<void> => {
    try {
      await work(deps, req, res);
    } catch (error) {
      if (res.headersSent) return;
      if (error instanceof RequestProblems) return sendProblem(res, invalidRequest(error.problems));
      if (error instanceof BodyError) return sendProblem(res, invalidRequest([{ message: capitalised(error.message) }]));
      if (error instanceof UnavailableError) {
        // A REST adapter process whose GATEWAY_URL does not answer: the service is unavailable, not the request wrong.
        deps.logger.warn({ err: error }, `media v2 ${name}: the gateway is unavailable`);
        return sendProblem(res, unavailableProblem());
      }
      deps.logger.error({ err: error }, `media v2 ${name} failed`);
      sendProblem(res, internalErrorProblem());
    }
  };
}

/** POST /2/media/upload/initialize: a chunked upload's session. */
async function initializeUpload(deps: MediaRoutesDeps, req: Request, res: Response): Promise<void> {
  const body = await readJsonObject(req, SMALL_BODY_BYTES);
  allowOnly(body, ['media_type', 'total_bytes', 'media_category', 'shared', 'additional_owners']);
  const mediaType = optionalString(body, 'media_type');
  const totalBytes = body.total_bytes;
  if (
    totalBytes !== undefined &&
    (typeof totalBytes !== 'number' || !Number.isInteger(totalBytes) || totalBytes < 0 || totalBytes > MAX_TOTAL_BYTES)
  ) {
    refuse(`The \`total_bytes\` field must be an integer from 0 to ${MAX_TOTAL_BYTES}.`, 'total_bytes', totalBytes);
  }
  const owners = body.additional_owners;
  if (owners !== undefined && (!Array.isArray(owners) || !owners.every((owner) => typeof owner === 'string' && MEDIA_ID.test(owner)))) {
    refuse('The `additional_owners` field must be an array of user ids (strings of 1 to 19 digits).', 'additional_owners', owners);
  }
  const shared = body.shared;
  if (shared !== undefined && typeof shared !== 'boolean') refuse('The `shared` field must be a boolean.', 'shared', shared);
  const result = await run(deps, req, MediaUploadInitDocument, 'MediaUploadInit', {
    totalBytes: totalBytes === undefined ? '' : String(totalBytes),
    mediaType: mediaType ?? '',
    mediaCategory: optionalString(body, 'media_category') ?? null,
    additionalOwners: owners === undefined ? null : (owners as string[]),
    shared: shared === undefined ? null : (shared as boolean),
  });
  const session = result.data?.initMediaUpload;
  if (result.errors?.length || !session)
    return sendProblem(res, mapMediaErrorsV2(result.errors ?? [{ message: 'no result' }], 'media_id', undefined));
  sendData(res, 200, session.rateLimit, {
    id: session.mediaId,
    ...(session.mediaKey !== null ? { media_key: session.mediaKey } : {}),
    expires_after_secs: session.expiresAfterSecs,
  });
}

/** POST /2/media/upload/{id}/append: one segment, as a multipart file or base64 in JSON. */
async function appendSegment(deps: MediaRoutesDeps, req: Request, res: Response): Promise<void> {
  const id = pathId(req);
  let segmentIndex: string | undefined;
  let mediaData: string | undefined;
  let file: UploadRequest['file'];
  if (isMultipart(req)) {
    const parts = await readMultipart(req, res, deps);
    file = parts.file;
    for (const [name, value] of parts.fields) {
      if (name === 'segment_index') segmentIndex ??= value;
      else {
        file?.capacitor.release();
        refuse(`The \`${name}\` part is not allowed: append takes \`segment_index\` and \`media\`.`, name);
      }
    }
  } else {
    const body = await readJsonObject(req, mediaDataChars(deps.maxBytes) + SMALL_BODY_BYTES);
    allowOnly(body, ['media', 'segment_index']);
    mediaData = optionalString(body, 'media');
    const index = body.segment_index;
    if (index !== undefined && !(typeof index === 'number' && Number.isInteger(index)) && typeof index !== 'string') {
      refuse('The `segment_index` field must be an integer from 0 to 999.', 'segment_index', index);
    }
    segmentIndex = index === undefined ? undefined : String(index);
  }
  const result = await run(deps, req, MediaUploadAppendDocument, 'MediaUploadAppend', {
    mediaId: id,
    segmentIndex: segmentIndex ?? '',
    media: file ? uploadOf(file) : null,
    mediaData: mediaData ?? null,
  });
  const segment = result.data?.appendMediaUpload;
  if (result.errors?.length || !segment) return sendProblem(res, mapMediaErrorsV2(result.errors ?? [{ message: 'no result' }], 'id', id));
  sendData(res, 200, segment.rateLimit, { expires_at: Math.floor(Date.parse(segment.expiresAt) / 1000) });
}

/** POST /2/media/upload/{id}/finalize. */
async function finalizeUpload(deps: MediaRoutesDeps, req: Request, res: Response): Promise<void> {
  const id = pathId(req);
  // The spec defines no body; twitter-api-v2 sends `{}`. Whatever comes is read (bounded) and not looked at.
  await readBody(req, SMALL_BODY_BYTES);
  const result = await run(deps, req, MediaUploadFinalizeDocument, 'MediaUploadFinalize', { mediaId: id });
  const session = result.data?.finalizeMediaUpload;
  if (result.errors?.length || !session) return sendProblem(res, mapMediaErrorsV2(result.errors ?? [{ message: 'no result' }], 'id', id));
  sendData(res, 200, session.rateLimit, sessionData(session));
}

/** GET /2/media/upload?command=STATUS&media_id=…. */
async function uploadStatus(deps: MediaRoutesDeps, req: Request, res: Response): Promise<void> {
  req.resume();
  const params = new Map<string, string>();
  for (const [name, value] of queryPairsOf(req)) if (!params.has(name)) params.set(name, value);
  const command = params.get('command');
  if (command !== undefined && command !== 'STATUS') refuse('The `command` query parameter value must be STATUS.', 'command', command);
  const mediaId = params.get('media_id');
  if (mediaId === undefined || mediaId === '') refuse('The `media_id` query parameter can not be empty.', 'media_id', '');
  if (!MEDIA_ID.test(mediaId)) refuse(`The \`media_id\` query parameter value [${mediaId}] is not valid.`, 'media_id', mediaId);
  const result = await run(deps, req, MediaUploadStatusDocument, 'MediaUploadStatus', { mediaId });
  const session = result.data?.mediaUploadStatus;
  if (result.errors?.length || !session)
    return sendProblem(res, mapMediaErrorsV2(result.errors ?? [{ message: 'no result' }], 'media_id', mediaId));
  sendData(res, 200, session.rateLimit, sessionData(session));
}

/** POST /2/media/upload: the one-shot upload, as a multipart file or base64 in JSON. */
async function oneShotUpload(deps: MediaRoutesDeps, req: Request, res: Response): Promise<void> {
  let mediaData: string | undefined;
  let file: UploadRequest['file'];
  const params = new Map<string, unknown>();
  if (isMultipart(req)) {
    const parts = await readMultipart(req, res, deps);
    file = parts.file;
    for (const [name, value] of parts.fields) if (!params.has(name)) params.set(name, value);
    if (params.has('media')) mediaData = String(params.get('media'));
    params.delete('media');
  } else {
    const body = await readJsonObject(req, mediaDataChars(deps.maxBytes) + SMALL_BODY_BYTES);
    for (const [name, value] of Object.entries(body)) params.set(name, value);
    const media = params.get('media');
    if (media !== undefined && typeof media !== 'string') refuse('The `media` field must be the file in base64.', 'media');
    mediaData = media as string | undefined;
    params.delete('media');
  }
  try {
    checkUploadParams(params);
  } catch (error) {
    file?.capacitor.release();
    throw error;
  }
  const result = await run(deps, req, MediaUploadDocument, 'MediaUpload', {
    media: file ? uploadOf(file) : null,
    mediaData: mediaData ?? null,
    mediaCategory: params.get('media_category') as string,
    additionalOwners: null,
  });
  const media = result.data?.uploadMedia;
  if (result.errors?.length || !media)
    return sendProblem(res, mapMediaErrorsV2(result.errors ?? [{ message: 'no result' }], 'media_id', undefined));
  sendData(res, 200, media.rateLimit, {
    id: media.mediaId,
    ...(media.mediaKey !== null ? { media_key: media.mediaKey } : {}),
    size: media.size,
    expires_after_secs: media.expiresAfterSecs,
    image: { image_type: media.image.imageType, w: media.image.w, h: media.image.h },
  });
}

/** The one-shot upload's parameters but `media`, refused unless the spec's. */
function checkUploadParams(params: ReadonlyMap<string, unknown>): void {
  if (params.has('command')) {
    refuse(
      'The command form of /2/media/upload is not served: use POST /2/media/upload/initialize, /2/media/upload/{id}/append and /2/media/upload/{id}/finalize.',
      'command',
      params.get('command'),
    );
  }
  for (const name of params.keys()) {
    if (!['media_category', 'media_type', 'shared'].includes(name))
      refuse(`The \`${name}\` field is not allowed in an upload request.`, name);
  }
  const category = params.get('media_category');
  if (category === undefined || category === '') refuse('The `media_category` field is required.', 'media_category');
  if (typeof category !== 'string') refuse('The `media_category` field must be a string.', 'media_category', category);
  const mediaType = params.get('media_type');
  if (mediaType !== undefined && (typeof mediaType !== 'string' || !ONE_SHOT_MEDIA_TYPES.has(mediaType))) {
    refuse(`The \`media_type\` field must be one of ${[...ONE_SHOT_MEDIA_TYPES].join(', ')}.`, 'media_type', mediaType);
  }
  const shared = params.get('shared');
  if (shared !== undefined && typeof shared !== 'boolean' && shared !== 'true' && shared !== 'false')
    refuse('The `shared` field must be a boolean.', 'shared', shared);
}

/** POST /2/media/metadata: alt text (the only metadata kept here). */
async function createMetadata(deps: MediaRoutesDeps, req: Request, res: Response): Promise<void> {
  const body = await readJsonObject(req, SMALL_BODY_BYTES);
  allowOnly(body, ['id', 'metadata']);
  const id = body.id;
  if (id === undefined) refuse('The `id` field is required.', 'id');
  if (typeof id !== 'string' || !MEDIA_ID.test(id)) refuse('The `id` field must be a media id (a string of 1 to 19 digits).', 'id', id);
  const metadata = body.metadata;
  if (!isRecord(metadata)) refuse('The `metadata` field is required: {"alt_text":{"text":"…"}}.', 'metadata');
  for (const key of Object.keys(metadata as Record<string, unknown>)) {
    if (key === 'alt_text') continue;
    if (OTHER_METADATA.has(key)) refuse(`metadata.${key} is not kept by this server: only alt_text is.`, `metadata.${key}`);
    refuse(`The \`metadata.${key}\` field is not allowed.`, `metadata.${key}`);
  }
  const altText = (metadata as Record<string, unknown>).alt_text;
  if (altText === undefined) refuse('metadata.alt_text is required.', 'metadata.alt_text');
  if (!isRecord(altText) || typeof altText.text !== 'string')
    refuse('metadata.alt_text.text is required (a string).', 'metadata.alt_text.text');
  const result = await run(deps, req, MediaMetadataCreateDocument, 'MediaMetadataCreate', {
    mediaId: id as string,
    altText: (altText as { text: string }).text,
  });
  const data = result.data?.createMediaMetadata;
  if (result.errors?.length || !data)
    return sendProblem(res, mapMediaErrorsV2(result.errors ?? [{ message: 'no result' }], 'id', id as string));
  sendData(res, 200, data.rateLimit, { id: data.mediaIdString, associated_metadata: { alt_text: { text: data.altText } } });
}

/** Another method on one of v2's paths: 405, with the methods the path takes. */
function methodNotAllowed(req: Request, res: Response, allow: string): void {
  req.resume();
  res.setHeader('Allow', allow);
  sendProblem(res, methodNotAllowedProblem());
}

/** An error of Express's own under /2/ (a path that does not decode, a 4xx of its matching): v2's problem, not Area A's. */
function pathError(deps: MediaRoutesDeps, error: unknown, req: Request, res: Response, next: NextFunction): void {
  if (!V2_PATHS.test(req.path) || res.headersSent) return next(error);
  req.resume();
  const status = (error as { status?: unknown }).status;
  if (error instanceof URIError || (typeof status === 'number' && status >= 400 && status < 500)) {
    const id = /^\/2\/media\/upload\/([^/]*)\/(?:append|finalize)\/?$/.exec(req.path)?.[1];
    return sendProblem(
      res,
      invalidRequest([
        id === undefined
          ? { message: 'The request path is not valid.' }
          : { message: `The \`id\` path parameter value [${id}] is not valid.`, parameter: 'id', value: id },
      ]),
    );
  }
  deps.logger.error({ err: error }, 'media v2 request failed');
  sendProblem(res, internalErrorProblem());
}

/** The `{id}` of the path, refused unless it is a media id. */
function pathId(req: Request): string {
  const id = String(req.params.id ?? '');
  if (!MEDIA_ID.test(id)) refuse(`The \`id\` path parameter value [${id}] is not valid.`, 'id', id);
  return id;
}

function isMultipart(req: Request): boolean {
  return (req.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data');
}

/** A JSON object body of at most `limit` bytes (any content type: v2 clients send application/json). */
async function readJsonObject(req: Request, limit: number): Promise<Record<string, unknown>> {
  const text = (await readBody(req, limit)).toString('utf8');
  let body: unknown;
  try {
    body = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    refuse('The request body is not valid JSON.');
  }
  if (!isRecord(body) || Array.isArray(body)) refuse('The request body must be a JSON object.');
  return body as Record<string, unknown>;
}

function allowOnly(body: Record<string, unknown>, keys: readonly string[]): void {
  const unknown = Object.keys(body).filter((key) => !keys.includes(key));
  if (unknown.length > 0) {
    throw new RequestProblems(
      unknown.map((key) => ({
        message: `The \`${key}\` field is not allowed: this request takes ${keys.map((each) => `\`${each}\``).join(', ')}.`,
        parameter: key,
      })),
    );
  }
}

function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') refuse(`The \`${key}\` field must be a string.`, key, value);
  return value as string;
}

/** A session as finalize and STATUS describe it (v2 names: `id`, processing_info's state in lower case). */
function sessionData(media: MediaSession): Record<string, unknown> {
  const info = media.processingInfo;
  return {
    id: media.mediaId,
    ...(media.mediaKey !== null ? { media_key: media.mediaKey } : {}),
    ...(media.size !== null ? { size: media.size } : {}),
    expires_after_secs: media.expiresAfterSecs,
    ...(info
      ? {
          processing_info: {
            state: info.state.toLowerCase(),
            ...(info.checkAfterSecs !== null ? { check_after_secs: info.checkAfterSecs } : {}),
            ...(info.progressPercent !== null ? { progress_percent: info.progressPercent } : {}),
            ...(info.error ? { error: info.error } : {}),
          },
        }
      : {}),
    ...(media.image ? { image: { image_type: media.image.imageType, w: media.image.w, h: media.image.h } } : {}),
    ...(media.video ? { video: { video_type: media.video.videoType } } : {}),
  };
}

function sendData(res: Response, status: number, rateLimit: RateLimitState, data: Record<string, unknown>): void {
  setRateLimitHeaders(res, rateLimit);
  res.status(status).type('application/json; charset=utf-8').send(JSON.stringify({ data }));
}

function sendProblem(res: Response, reply: ProblemReply): void {
  setRateLimitHeaders(res, reply.rateLimit);
  // HTTP asks a 401 to name the schemes it takes: v2 takes both user-context forms.
  if (reply.status === 401) res.setHeader('www-authenticate', 'Bearer realm="Tributary", OAuth realm="Tributary"');
  res.status(reply.status).type(PROBLEM_JSON).send(JSON.stringify(reply.body));
}

function capitalised(message: string): string {
  return message.charAt(0).toUpperCase() + message.slice(1) + (message.endsWith('.') ? '' : '.');
}
