import type { GraphQLFormattedError } from 'graphql';
import express, { type Request, type Response, type Router } from 'express';
import { UnavailableError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import { addressedUrl, type SignedRequest } from '../../lib/auth/signed-request.ts';
import type { OperationVariables, TypedQuery } from '../../gateway/gateway-door.ts';
import type { GraphQLExecutor } from '../graphql-executor.ts';
import { readUrlencodedUpload, UrlencodedBodyError, type UrlencodedUpload } from './urlencoded-upload-reader.ts';
import {
  BodyError,
  FIELD_BYTES,
  MAX_FIELDS,
  mediaDataChars,
  queryPairsOf,
  readBody,
  readMultipart,
  setRateLimitHeaders,
  uploadOf,
  type MultipartLimits,
  type UploadRequest,
} from './media-request.ts';
import { mapMediaErrors, METADATA_PATH, standardError, UPLOAD_PATH, type MediaReply } from './media-error-mapper.ts';
import {
  MediaMetadataCreateDocument,
  MediaUploadAppendDocument,
  MediaUploadDocument,
  MediaUploadFinalizeDocument,
  MediaUploadInitDocument,
  MediaUploadStatusDocument,
  type MediaUploadMutation,
  type MediaUploadStatusQuery,
} from './generated/operations.ts';
import { callerHeaders, LOG_POSITION_HEADER } from '../caller-headers.ts';

/**
 * POST /1.1/media/upload.json (Area D), the reference's simple upload, as one GraphQL operation (`uploadMedia`) through
 * the gateway; on the same path the chunked upload's commands (POST command=INIT|APPEND|FINALIZE, GET command=STATUS),
 * and POST /1.1/media/metadata/create.json (alt text), each one operation too (media.operations.graphql, typed in
 * generated/). Only the reference's HTTP surface lives
 * here: parameters from the query string, a multipart body (the file in part `media`, with or without a filename) or an
 * urlencoded body (`media_data`), the description of the request the client signed (OAuth 1.0a), and the reply's exact
 * JSON and x-rate-limit-* headers (and a write's tributary-log-position, issue 39). The media service decides
 * everything else — credentials, sizes, types, categories, owners — and its errors come back in the reference's shapes.
 */

export interface MediaRoutesDeps extends MultipartLimits {
  executor: GraphQLExecutor;
  logger: Logger;
}

/** What an upload answers with (the reference's media object). */
type UploadedMedia = MediaUploadMutation['uploadMedia'];

export function createMediaRoutes(deps: MediaRoutesDeps): Router {
  const router = express.Router();

  router.post(UPLOAD_PATH, async (req: Request, res: Response) => {
    let upload: UploadRequest;
    try {
      upload = await readRequest(req, res, deps);
    } catch (error) {
      if (!(error instanceof BodyError)) throw error;
      send(res, { status: 400, body: standardError(44, error.message) });
      return;
    }
    try {
      const command = upload.params.get('command');
      if (command !== undefined) {
        await runChunkedCommand(req, res, deps, upload, command);
        return;
      }
      const result = await deps.executor.execute({
        query: MediaUploadDocument,
        operationName: 'MediaUpload',
        variables: {
          media: upload.file ? uploadOf(upload.file) : null,
          mediaData: upload.params.get('media_data') ?? null,
          mediaCategory: upload.params.get('media_category') ?? null,
          additionalOwners: upload.params.has('additional_owners') ? [upload.params.get('additional_owners')!] : null,
        },
        headers: callerHeaders(req, { signedRequest: upload.signedRequest }),
      });
      answerLogPosition(res, result);
      const media = result.data?.uploadMedia ?? null;
      if (result.errors?.length || !media) {
        send(res, mapMediaErrors(result.errors ?? [{ message: 'no result' }]));
        return;
      }
      sendUploaded(res, media);
    } catch (error) {
      send(res, failureReply(deps, error, 'media upload failed'));
    }
  });

  // The chunked upload's STATUS is read with GET; GET without a command is not a request the reference serves.
  router.get(UPLOAD_PATH, async (req: Request, res: Response, next) => {
    req.resume();
    const params = new Map<string, string>();
    for (const [name, value] of queryPairsOf(req)) if (!params.has(name)) params.set(name, value);
    const command = params.get('command');
    if (command === undefined) {
      next();
      return;
    }
    const signedRequest: SignedRequest = { method: req.method, url: addressedUrl({ headers: req.headers, path: req.originalUrl }) };
    try {
      await runChunkedCommand(req, res, deps, { params, file: undefined, signedRequest }, command);
    } catch (error) {
      send(res, failureReply(deps, error, 'media upload STATUS failed'));
    }
  });

  router.post(METADATA_PATH, async (req: Request, res: Response) => {
    let body: unknown;
    try {
      body = await readJsonBody(req, METADATA_BODY_BYTES);
    } catch (error) {
      if (!(error instanceof BodyError)) throw error;
      send(res, { status: 400, body: standardError(44, error.message) });
      return;
    }
    const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    const altText = fields.alt_text;
    const text = typeof altText === 'object' && altText !== null ? (altText as Record<string, unknown>).text : undefined;
    try {
      const result = await deps.executor.execute({
        query: MediaMetadataCreateDocument,
        operationName: 'MediaMetadataCreate',
        variables: {
          // Absent: '' (the service answers 38); any other JSON value is handed over as text for the service to refuse.
          mediaId:
            fields.media_id === undefined || fields.media_id === null
              ? ''
              : typeof fields.media_id === 'string'
                ? fields.media_id
                : JSON.stringify(fields.media_id),
          altText: typeof text === 'string' ? text : null,
        },
        headers: callerHeaders(req, {
          signedRequest: { method: req.method, url: addressedUrl({ headers: req.headers, path: req.originalUrl }) },
        }),
      });
      answerLogPosition(res, result);
      const data = result.data?.createMediaMetadata ?? null;
      if (result.errors?.length || !data) {
        send(res, mapMediaErrors(result.errors ?? [{ message: 'no result' }], METADATA_PATH));
        return;
      }
      // The reference answers a stored alt text with 200 and no body.
      setRateLimitHeaders(res, data.rateLimit);
      res.status(200).end();
    } catch (error) {
      send(res, failureReply(deps, error, 'media metadata failed'));
    }
  });
  // Other methods on the upload path, and other paths of the reference's 1.1 API: its own not-found reply.
  router.all(UPLOAD_PATH, (_req, res) => {
    res.setHeader('Allow', 'POST');
    send(res, { status: 405, body: standardError(34, 'Sorry, that page does not exist: media/upload.json accepts POST only') });
  });
  router.all(/^\/1\.1(\/|$)/, (_req, res) => {
    send(res, { status: 404, body: standardError(34, 'Sorry, that page does not exist') });
  });
  return router;
}

/**
 * The reply to a failure of ours: the gateway unreachable (a REST adapter process whose GATEWAY_URL does not answer) is
 * the reference's 503 over capacity, anything else its 500 internal error (logged).
 */
function failureReply(deps: MediaRoutesDeps, error: unknown, label: string): MediaReply {
  if (error instanceof UnavailableError) {
    deps.logger.warn({ err: error }, `${label}: the gateway is unavailable`);
    return { status: 503, body: standardError(130, 'Over capacity') };
  }
  deps.logger.error({ err: error }, label);
  return { status: 500, body: standardError(131, 'Internal error') };
}

/** The chunked upload's commands, each with the method it is sent with. */
const CHUNKED_COMMANDS = { INIT: 'POST', APPEND: 'POST', FINALIZE: 'POST', STATUS: 'GET' } as const;

type ChunkedCommand = keyof typeof CHUNKED_COMMANDS;

function isChunkedCommand(name: string): name is ChunkedCommand {
  return Object.hasOwn(CHUNKED_COMMANDS, name);
}

/** What INIT, FINALIZE and STATUS answer with (the same selection in each: the session's media object). */
type MediaSession = MediaUploadStatusQuery['mediaUploadStatus'];

/**
 * The chunked upload's commands (the reference's §8) on the same path: command=INIT, APPEND, FINALIZE with POST,
 * command=STATUS with GET, each one GraphQL operation. Parameters travel as strings; the media service checks them.
 */
async function runChunkedCommand(
  req: Request,
  res: Response,
  deps: MediaRoutesDeps,
  upload: UploadRequest,
  command: string,
): Promise<void> {
  const name = command.trim().toUpperCase();
  if (!isChunkedCommand(name)) {
    upload.file?.capacitor.release();
    send(res, {
      status: 400,
      body: standardError(44, `command parameter is invalid: ${JSON.stringify(command)} is not one of INIT, APPEND, FINALIZE, STATUS`),
    });
    return;
  }
  const method = CHUNKED_COMMANDS[name];
  if (method !== req.method) {
    upload.file?.capacitor.release();
    send(res, {
      status: 400,
      body: standardError(44, `command parameter is invalid: ${name} is sent with ${method}, not ${req.method}`),
    });
    return;
  }
  const text = (parameter: string) => upload.params.get(parameter) ?? '';
  if (name !== 'APPEND') upload.file?.capacitor.release();
  const run = async <TData, TVariables extends OperationVariables>(
    query: TypedQuery<TData, TVariables>,
    operationName: string,
    variables: NoInfer<TVariables>,
  ) => {
    const result = await deps.executor.execute({
      query,
      operationName,
      variables,
      headers: callerHeaders(req, { signedRequest: upload.signedRequest }),
    });
    answerLogPosition(res, result);
    return result;
  };
  switch (name) {
    case 'INIT': {
      const result = await run(MediaUploadInitDocument, 'MediaUploadInit', {
        totalBytes: text('total_bytes'),
        mediaType: text('media_type'),
        mediaCategory: upload.params.get('media_category') ?? null,
        additionalOwners: upload.params.has('additional_owners') ? [upload.params.get('additional_owners')!] : null,
        shared: upload.params.has('shared') ? /^(?:true|1)$/i.test(text('shared')) : null,
      });
      // INIT is answered 202 Accepted, as the reference does.
      sendSessionResult(res, 202, result.errors, result.data?.initMediaUpload);
      return;
    }
    case 'APPEND': {
      const result = await run(MediaUploadAppendDocument, 'MediaUploadAppend', {
        mediaId: text('media_id'),
        segmentIndex: text('segment_index'),
        media: upload.file ? uploadOf(upload.file) : null,
        mediaData: upload.params.get('media_data') ?? null,
      });
      const segment = result.data?.appendMediaUpload;
      if (result.errors?.length || !segment) {
        send(res, mapMediaErrors(result.errors ?? [{ message: 'no result' }]));
        return;
      }
      // The reference answers a stored segment with 204 and no body.
      setRateLimitHeaders(res, segment.rateLimit);
      res.status(204).end();
      return;
    }
    case 'FINALIZE': {
      const result = await run(MediaUploadFinalizeDocument, 'MediaUploadFinalize', { mediaId: text('media_id') });
      sendSessionResult(res, 200, result.errors, result.data?.finalizeMediaUpload);
      return;
    }
    case 'STATUS': {
      const result = await run(MediaUploadStatusDocument, 'MediaUploadStatus', { mediaId: text('media_id') });
      sendSessionResult(res, 200, result.errors, result.data?.mediaUploadStatus);
      return;
    }
  }
}

/** A session command's reply: its media object with `status`, or its errors in the reference's shapes. */
function sendSessionResult(
  res: Response,
  status: number,
  errors: readonly GraphQLFormattedError[] | undefined,
  session: MediaSession | undefined,
): void {
  if (errors?.length || !session) {
    send(res, mapMediaErrors(errors ?? [{ message: 'no result' }]));
    return;
  }
  setRateLimitHeaders(res, session.rateLimit);
  sendSession(res, status, session);
}

/** The reference's media object, with media_id a JSON number of every digit (see sendUploaded). */
function sendSession(res: Response, status: number, media: MediaSession): void {
  if (!/^\d{1,20}$/.test(media.mediaId)) throw new Error(`unexpected media id ${media.mediaId}`);
  const info = media.processingInfo;
  const parts = [
    `"media_id":${media.mediaId}`,
    `"media_id_string":${JSON.stringify(media.mediaId)}`,
    ...(media.mediaKey !== null ? [`"media_key":${JSON.stringify(media.mediaKey)}`] : []),
    ...(media.size !== null ? [`"size":${JSON.stringify(media.size)}`] : []),
    `"expires_after_secs":${JSON.stringify(media.expiresAfterSecs)}`,
    ...(media.image ? [`"image":${JSON.stringify({ image_type: media.image.imageType, w: media.image.w, h: media.image.h })}`] : []),
    ...(media.video ? [`"video":${JSON.stringify({ video_type: media.video.videoType })}`] : []),
    ...(info
      ? [
          `"processing_info":${JSON.stringify({
            state: info.state.toLowerCase(),
            ...(info.checkAfterSecs !== null ? { check_after_secs: info.checkAfterSecs } : {}),
            ...(info.progressPercent !== null ? { progress_percent: info.progressPercent } : {}),
            ...(info.error ? { error: info.error } : {}),
          })}`,
        ]
      : []),
  ];
  res
    .status(status)
    .type('application/json; charset=utf-8')
    .send(`{${parts.join(',')}}`);
}

/** A media id and 1,000 characters of alt text, escaped, fit many times over. */
const METADATA_BODY_BYTES = 65_536;

/**
 * A JSON body of at most `limit` bytes. A media_id written as a bare JSON number is read as its digits (JSON.parse would
 * round a 19-digit id).
 */
async function readJsonBody(req: Request, limit: number): Promise<unknown> {
  const text = (await readBody(req, limit)).toString('utf8').replace(/("media_id"\s*:\s*)(\d+)(?=\s*[,}])/, '$1"$2"');
  try {
    return JSON.parse(text);
  } catch {
    throw new BodyError('the request body is not valid JSON: send {"media_id":"…","alt_text":{"text":"…"}}');
  }
}

async function readRequest(req: Request, res: Response, deps: MediaRoutesDeps): Promise<UploadRequest> {
  const signedRequest: SignedRequest = { method: req.method, url: addressedUrl({ headers: req.headers, path: req.originalUrl }) };
  const query = queryPairsOf(req);
  const params = new Map<string, string>();
  const take = (pairs: Iterable<[string, string]>) => {
    for (const [name, value] of pairs) if (!params.has(name)) params.set(name, value);
  };
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('multipart/form-data')) {
    const { fields, file } = await readMultipart(req, res, deps);
    take(fields);
    take(query);
    return { params, file, signedRequest };
  }
  if (type.startsWith('application/x-www-form-urlencoded')) {
    let body: UrlencodedUpload;
    try {
      body = await readUrlencodedUpload(req, {
        mediaDataChars: mediaDataChars(deps.maxBytes),
        fieldBytes: FIELD_BYTES,
        fields: MAX_FIELDS,
      });
    } catch (error) {
      throw error instanceof UrlencodedBodyError ? new BodyError(error.message) : error;
    }
    if (body.mediaData !== undefined) params.set('media_data', body.mediaData);
    take(body.params);
    take(query);
    // The signature covers every body parameter; media_data travels as the operation's variable, not twice.
    signedRequest.bodyParams = body.params;
    if (body.mediaData !== undefined) signedRequest.mediaDataInBody = true;
    if (body.mediaDataCut) signedRequest.mediaDataCut = true;
    return { params, file: undefined, signedRequest };
  }
  // Any other body is not the reference's: its parameters can only be in the query string.
  req.resume();
  take(query);
  return { params, file: undefined, signedRequest };
}

/**
 * The change-log position a write's operation reached (issue 39; the executor's `logPosition`, with the cache on), as
 * the other areas' routes answer it: a read presenting it is never served from a cache older than the write. On every
 * reply of the operation, its errors' too, as the gateway's GraphQL door answers it; the body is not touched.
 */
function answerLogPosition(res: Response, result: { logPosition?: string | undefined }): void {
  if (result.logPosition !== undefined) res.setHeader(LOG_POSITION_HEADER, result.logPosition);
}

function send(res: Response, reply: MediaReply): void {
  setRateLimitHeaders(res, reply.rateLimit);
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  res.status(reply.status).type('application/json; charset=utf-8').send(JSON.stringify(reply.body));
}

/**
 * The reference's reply, written by hand so that media_id is a JSON number with every digit (JSON.stringify of a
 * JavaScript number would round it past 2^53); the other values go through JSON.stringify.
 */
function sendUploaded(res: Response, media: UploadedMedia): void {
  if (!/^\d{1,20}$/.test(media.mediaId)) throw new Error(`unexpected media id ${media.mediaId}`);
  const parts = [
    `"media_id":${media.mediaId}`,
    `"media_id_string":${JSON.stringify(media.mediaId)}`,
    ...(media.mediaKey !== null ? [`"media_key":${JSON.stringify(media.mediaKey)}`] : []),
    `"size":${JSON.stringify(media.size)}`,
    `"expires_after_secs":${JSON.stringify(media.expiresAfterSecs)}`,
    `"image":${JSON.stringify({ image_type: media.image.imageType, w: media.image.w, h: media.image.h })}`,
  ];
  setRateLimitHeaders(res, media.rateLimit);
  res
    .status(200)
    .type('application/json; charset=utf-8')
    .send(`{${parts.join(',')}}`);
}
