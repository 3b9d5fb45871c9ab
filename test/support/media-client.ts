import { createHmac } from 'node:crypto';
import { request as httpRequest, type Agent } from 'node:http';
import OAuth from 'oauth-1.0a';
import { HANG_MS } from './hang-bounds.ts';

/**
 * A client for the image upload (Area D, POST /1.1/media/upload.json) in front-door tests: multipart bodies (FormData,
 * or written by hand when a part must lack a filename), urlencoded `media_data` bodies, OAuth 1.0a headers signed by
 * the independent `oauth-1.0a` package with node:crypto HMAC-SHA1 (never the product's own signing code), and the raw
 * reply text so tests can read `media_id` digit for digit.
 */

export const MEDIA_UPLOAD_PATH = '/1.1/media/upload.json';

/** The reference's legacy body for media it cannot recognise, as it sends it. */
export const MEDIA_UNRECOGNIZED_TEXT = '{"request":"/1.1/media/upload.json","error":"media type unrecognized."}';

export interface MediaReply {
  status: number;
  headers: Headers;
  /** The reply exactly as sent. */
  text: string;
  /** The reply parsed as JSON (numbers beyond 2^53 lose digits here: read `text` for them), or undefined. */
  body: any;
}

/** A text field, or a file part; `filename: null` sends a part with no filename at all (only `mediaMultipartBody` can). */
export type MediaPart =
  { name: string; value: string } | { name: string; bytes: Uint8Array; filename?: string | null; contentType?: string };

/** The absolute upload URL of a REST base URL, with these query parameters (in order). */
export function mediaUploadUrl(restUrl: string, query: Record<string, string> | [string, string][] = {}): string {
  const url = new URL(MEDIA_UPLOAD_PATH, restUrl);
  const search = new URLSearchParams(query).toString();
  return search === '' ? url.toString() : `${url.toString()}?${search}`;
}

/** A FormData with these parts (a file part without filename gets FormData's default "blob"). */
export function mediaFormData(parts: readonly MediaPart[]): FormData {
  const form = new FormData();
  for (const part of parts) {
    if ('value' in part) form.append(part.name, part.value);
    else form.append(part.name, new Blob([part.bytes], { type: part.contentType ?? '' }), part.filename ?? 'file');
  }
  return form;
}

/** A multipart/form-data body written by hand: a file part may have no filename and no Content-Type. */
export function mediaMultipartBody(parts: readonly MediaPart[]): { body: Buffer; contentType: string } {
  const boundary = `----tributary-media-${Math.random().toString(36).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if ('value' in part) {
      chunks.push(Buffer.from(`${head}\r\n\r\n`), Buffer.from(part.value, 'utf8'), Buffer.from('\r\n'));
      continue;
    }
    if (part.filename !== null && part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += '\r\n';
    if (part.contentType !== undefined) head += `Content-Type: ${part.contentType}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), Buffer.from(part.bytes), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export interface MediaRequest {
  method?: string;
  /** The whole Authorization header value; none when undefined. */
  authorization?: string | undefined;
  body?: FormData | URLSearchParams | Buffer | string;
  /** Needed for Buffer or string bodies (FormData and URLSearchParams set their own). */
  contentType?: string;
}

/** Sends one request to an absolute URL and keeps the raw reply. */
export async function sendMediaRequest(url: string, request: MediaRequest = {}): Promise<MediaReply> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (request.authorization !== undefined) headers.authorization = request.authorization;
  if (request.contentType !== undefined) headers['content-type'] = request.contentType;
  const response = await fetch(url, { method: request.method ?? 'POST', headers, body: request.body });
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/**
 * The same request through node:http instead of fetch: on a connection of its own (`agent: false`, the default, so a
 * connection the server leaves in a bad state is not reused by later fetch calls), or on a given agent (to test what
 * happens to a kept-alive connection). Fails after `timeoutMs` without a reply.
 */
export function sendMediaRequestOverHttp(
  url: string,
  request: MediaRequest & { body?: URLSearchParams | Buffer | string },
  options: { agent?: Agent | false; timeoutMs?: number } = {},
): Promise<MediaReply> {
  const body =
    request.body instanceof URLSearchParams
      ? Buffer.from(request.body.toString())
      : request.body === undefined
        ? undefined
        : Buffer.from(request.body);
  const contentType =
    request.contentType ?? (request.body instanceof URLSearchParams ? 'application/x-www-form-urlencoded;charset=UTF-8' : undefined);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (request.authorization !== undefined) headers.authorization = request.authorization;
  if (contentType !== undefined) headers['content-type'] = contentType;
  if (body !== undefined) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method: request.method ?? 'POST', headers, agent: options.agent ?? false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const replyHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) replyHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        let parsed: unknown;
        try {
          parsed = text === '' ? undefined : JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolve({ status: response.statusCode ?? 0, headers: replyHeaders, text, body: parsed });
      });
    });
    outgoing.setTimeout(options.timeoutMs ?? HANG_MS, () => {
      outgoing.destroy(new Error(`no reply to ${request.method ?? 'POST'} ${url} within ${options.timeoutMs ?? HANG_MS} ms`));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * `media_id` exactly as written in the raw reply, when it is a bare JSON number (undefined when it is missing or quoted).
 */
export function rawMediaId(text: string): string | undefined {
  return /"media_id"\s*:\s*(-?\d+)\s*[,}]/.exec(text)?.[1];
}

export const bearerAuthorization = (token: string): string => `Bearer ${token}`;

export interface OAuth1SignOptions {
  consumer: { key: string; secret: string };
  /** The user access token; a consumer-only signature without it. */
  token?: { key: string; secret: string } | undefined;
  method?: string;
  /** The URL whose query is signed (normally the exact URL fetched). */
  url: string;
  /** urlencoded body parameters to sign (never a multipart body's). */
  data?: Record<string, string>;
  /** oauth_timestamp, Unix seconds (oauth-1.0a would use the real clock). */
  timestamp: number;
  nonce?: string;
  /** oauth_* parameters to leave out of the header after signing (to make a malformed header). */
  omit?: readonly string[];
}

/** An `Authorization: OAuth …` header signed with HMAC-SHA1 by the oauth-1.0a package. */
export function oauth1Authorization(options: OAuth1SignOptions): string {
  const signer = new OAuth({
    consumer: options.consumer,
    signature_method: 'HMAC-SHA1',
    hash_function: (baseString, key) => createHmac('sha1', key).update(baseString).digest('base64'),
  });
  signer.getTimeStamp = () => options.timestamp;
  if (options.nonce !== undefined) {
    const nonce = options.nonce;
    signer.getNonce = () => nonce;
  }
  const signed = signer.authorize({ url: options.url, method: options.method ?? 'POST', data: { ...options.data } }, options.token);
  const kept = Object.fromEntries(Object.entries(signed).filter(([name]) => !options.omit?.includes(name))) as OAuth.Authorization;
  return signer.toHeader(kept).Authorization;
}
