import { Busboy, type BusboyHeaders, type BusboyInstance } from '@fastify/busboy';
import type { Request, Response } from 'express';
import { Upload, WriteStream } from 'graphql-upload-ts';
import type { RateLimitState } from '../../contracts/media-upload.ts';
import type { SignedRequest } from '../../lib/auth/signed-request.ts';
import { discard } from '../../lib/graphql/graphql-upload-request.ts';
import { multipartBoundaryProblem } from '../../lib/http/multipart-boundary.ts';

/**
 * What the media routes of both API versions (media.routes.ts: 1.1, media-v2.routes.ts: 2) read from a request the same
 * way: a multipart body with the file spooled as it arrives, a bounded body, the query string, and the x-rate-limit-*
 * headers every reply after authentication carries.
 */

/** The byte limits a multipart body is read under. */
export interface MultipartLimits {
  /** The media rule's byte limit; the transport stops reading a file one byte past it (the service then refuses it). */
  maxBytes: number;
  /** Largest multipart text field (`media_data` carries the image in base64). */
  base64BodyBytes: number;
}

/** What a request carried, whatever its body type. */
export interface UploadRequest {
  /** Parameters from the body (first occurrence wins), then from the query string. */
  params: Map<string, string>;
  file: { capacitor: WriteStream; filename: string; mimetype: string; encoding: string } | undefined;
  signedRequest: SignedRequest;
}

/** A body the reference would not accept as sent: answered 400 in the version's own error shape. */
export class BodyError extends Error {}

/** Largest text parameter other than media_data (names, categories, a hundred 19-digit owners fit many times over). */
export const FIELD_BYTES = 65_536;
export const MAX_FIELDS = 100;

/** Base64 characters of an image one byte past the limit: a longer media_data cannot hold an acceptable image. */
export function mediaDataChars(maxBytes: number): number {
  return Math.ceil((maxBytes + 1) / 3) * 4;
}

export function uploadOf(file: NonNullable<UploadRequest['file']>): Upload {
  const upload = new Upload();
  upload.resolve({
    filename: file.filename,
    fieldName: 'media',
    mimetype: file.mimetype,
    encoding: file.encoding,
    capacitor: file.capacitor,
    createReadStream: (options) => file.capacitor.createReadStream(options),
  });
  return upload;
}

export function queryPairsOf(req: Request): [string, string][] {
  const index = req.originalUrl.indexOf('?');
  return index < 0 ? [] : [...new URLSearchParams(req.originalUrl.slice(index + 1))];
}

/**
 * Reads a multipart body: text fields, and the part named `media` spooled to a temporary file as it arrives (even
 * without a filename, as the reference accepts). Reading stops one byte past the media rule's limit; the rest of that
 * part is discarded unread into memory.
 */
export function readMultipart(
  req: Request,
  res: Response,
  deps: MultipartLimits,
): Promise<{ fields: [string, string][]; file: UploadRequest['file'] }> {
  return new Promise((resolve, reject) => {
    const fields: [string, string][] = [];
    let file: UploadRequest['file'];
    let parser: BusboyInstance;
    const boundaryProblem = multipartBoundaryProblem(req.headers['content-type']);
    if (boundaryProblem) {
      req.resume();
      reject(new BodyError(`the request body is not valid multipart/form-data: ${boundaryProblem}`));
      return;
    }
    try {
      parser = new Busboy({
        headers: req.headers as BusboyHeaders,
        defCharset: 'utf8',
        isPartAFile: (name, _contentType, filename) => name === 'media' || filename !== undefined,
        limits: { fileSize: deps.maxBytes + 1, fieldSize: deps.base64BodyBytes, files: 10, fields: 100, parts: 110 },
      });
    } catch (error) {
      req.resume();
      reject(new BodyError(`the request body is not valid multipart/form-data: ${(error as Error).message}`));
      return;
    }
    parser.on('field', (name, value, _nameTruncated, valueTruncated) => {
      // A media_data part this long cannot hold an acceptable image: what was kept goes on, for the service to refuse
      // as too large (a multipart body is never signed, so nothing else needs the rest).
      if (valueTruncated && name !== 'media_data') {
        fail(new BodyError(`the ${name} parameter is larger than ${deps.base64BodyBytes} bytes`));
        return;
      }
      fields.push([name, valueTruncated ? value.slice(0, mediaDataChars(deps.maxBytes)) : value]);
    });
    parser.on('file', (name, stream, filename, encoding, mimetype) => {
      if (name !== 'media' || file) {
        // Only one file matters; others are drained.
        discard(stream);
        return;
      }
      const capacitor = new WriteStream();
      // A failed copy (the part cut short, the temporary file not writable) fails its readers' streams, where the upload
      // is answered; the copy's own 'error' event needs a listener, or it would end the process.
      capacitor.on('error', () => undefined);
      file = { capacitor, filename: filename ?? '', mimetype, encoding };
      // The temporary copy goes when the reply has gone or the client has, even if that happens before the body is read.
      if (res.closed) capacitor.release();
      else res.once('close', () => capacitor.release());
      stream.pipe(capacitor);
      // A part cut short or malformed is the client's fault: the service answers it as a broken upload (a 4xx), never
      // as an internal error.
      stream.on('error', (error: Error) =>
        capacitor.destroy(Object.assign(new Error(`the media part did not arrive whole: ${error.message}`), { status: 400 })),
      );
    });
    parser.on('finish', () => {
      // The closing delimiter may come before the body ends (a body of `--b--` and then more): what follows is read and
      // thrown away, so that the reply is not left waiting behind an unread body on a kept-alive connection.
      req.unpipe(parser);
      req.resume();
      resolve({ fields, file });
    });
    // Past busboy's limits nothing more is parsed; the request is answered at once instead of stalling on the rest.
    parser.on('fieldsLimit', () => fail(new BodyError('the request has more than 100 parameters')));
    parser.on('partsLimit', () => fail(new BodyError('the request has too many parts')));
    parser.on('filesLimit', () => fail(new BodyError('the request has more than 10 files')));
    parser.on('error', (error: unknown) =>
      fail(new BodyError(`the request body is not valid multipart/form-data: ${(error as Error).message}`)),
    );
    let failed = false;
    function fail(error: Error) {
      if (failed) return;
      failed = true;
      file?.capacitor.release();
      req.unpipe(parser);
      req.resume();
      reject(error);
    }
    // A client that goes away mid-body never lets the parser finish: give up instead of waiting forever.
    req.once('close', () => {
      if (!req.readableEnded) fail(new BodyError('the request body ended early'));
    });
    req.pipe(parser);
  });
}

export function setRateLimitHeaders(res: Response, rateLimit: RateLimitState | undefined): void {
  if (!rateLimit) return;
  res.setHeader('x-rate-limit-limit', String(rateLimit.limit));
  res.setHeader('x-rate-limit-remaining', String(rateLimit.remaining));
  res.setHeader('x-rate-limit-reset', String(rateLimit.reset));
}

/** The body as bytes, at most `limit` of them (BodyError past it, or when the client goes away mid-body). */
export function readBody(req: Request, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(new BodyError(`the request body is larger than ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () => {
      if (!failed) reject(new BodyError('the request body ended early'));
      failed = true;
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
  });
}
