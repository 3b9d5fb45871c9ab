import { createHmac } from 'node:crypto';
import OAuth from 'oauth-1.0a';
import type { GraphqlErrorJson } from './graphql-client.ts';

/**
 * A client for GraphQL multipart requests (https://github.com/jaydenseric/graphql-multipart-request-spec) to the gateway,
 * and the media subgraph's uploadMedia operation. Bodies are built with the platform's FormData (as a browser client
 * would send them); the reply text is kept next to the parsed body so tests can read exact digits.
 */

export interface UploadReply<TData = any> {
  status: number;
  /** The reply exactly as sent. */
  text: string;
  /** undefined when the reply is not JSON. */
  data: TData | null | undefined;
  errors: GraphqlErrorJson[] | undefined;
}

export interface MultipartFile {
  bytes: Buffer;
  filename?: string;
  /** Content type of the file part; application/octet-stream unless given. */
  contentType?: string;
}

export interface MultipartOptions {
  /** Files by variable path below `variables`, e.g. { media: file } or { 'input.file': file }. */
  files: Record<string, MultipartFile>;
  /** Sent as Apollo-Require-Preflight: true unless false (CSRF prevention refuses multipart without it). */
  preflight?: boolean;
  /** The whole Authorization header value. */
  authorization?: string;
  headers?: Record<string, string>;
  /** Aborts the request (e.g. AbortSignal.timeout). */
  signal?: AbortSignal;
}

function parse(status: number, text: string): UploadReply {
  let parsed: { data?: unknown; errors?: GraphqlErrorJson[] } | undefined;
  try {
    parsed = JSON.parse(text) as { data?: unknown; errors?: GraphqlErrorJson[] };
  } catch {
    parsed = undefined;
  }
  return { status, text, data: parsed?.data as any, errors: parsed?.errors };
}

/** POSTs a GraphQL multipart request: operations (files as null), map, one part per file. */
export async function postMultipart(
  url: string,
  operation: { query: string; variables?: Record<string, unknown>; operationName?: string },
  options: MultipartOptions,
): Promise<UploadReply> {
  const variables = structuredClone(operation.variables ?? {});
  const names = Object.keys(options.files);
  for (const path of names) {
    const keys = path.split('.');
    let parent = variables as Record<string, unknown>;
    for (const key of keys.slice(0, -1)) parent = (parent[key] ??= {}) as Record<string, unknown>;
    parent[keys[keys.length - 1]!] = null;
  }
  const form = new FormData();
  form.append(
    'operations',
    JSON.stringify({ query: operation.query, variables, ...(operation.operationName ? { operationName: operation.operationName } : {}) }),
  );
  form.append('map', JSON.stringify(Object.fromEntries(names.map((path, index) => [String(index), [`variables.${path}`]]))));
  names.forEach((path, index) => {
    const file = options.files[path]!;
    form.append(
      String(index),
      new Blob([file.bytes], { type: file.contentType ?? 'application/octet-stream' }),
      file.filename ?? 'upload.bin',
    );
  });
  const headers: Record<string, string> = { ...options.headers };
  if (options.preflight !== false) headers['apollo-require-preflight'] = 'true';
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  const response = await fetch(url, { method: 'POST', headers, body: form, ...(options.signal ? { signal: options.signal } : {}) });
  return parse(response.status, await response.text());
}

/** Every field of UploadedMedia. */
export const UPLOAD_MEDIA = `mutation Upload($media: Upload, $mediaData: String, $mediaCategory: String, $additionalOwners: [String!]) {
  uploadMedia(media: $media, mediaData: $mediaData, mediaCategory: $mediaCategory, additionalOwners: $additionalOwners) {
    mediaId mediaIdString mediaKey size expiresAfterSecs image { imageType w h } rateLimit { limit remaining reset }
  }
}`;

export interface UploadedMediaJson {
  mediaId: string;
  mediaIdString: string;
  mediaKey: string | null;
  size: number;
  expiresAfterSecs: number;
  image: { imageType: string; w: number; h: number };
  rateLimit: { limit: number; remaining: number; reset: number };
}

export interface UploadMediaOptions {
  mediaCategory?: string;
  additionalOwners?: string[];
  /** A bearer token; sent as "Authorization: Bearer <token>". */
  token?: string;
  /** The whole Authorization header value (wins over token). */
  authorization?: string;
  preflight?: boolean;
  /** Also send this base64 in mediaData (to test the both-given rule). */
  mediaData?: string;
  filename?: string;
  contentType?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

function authorizationOf(options: { token?: string; authorization?: string }): string | undefined {
  return options.authorization ?? (options.token !== undefined ? `Bearer ${options.token}` : undefined);
}

/** uploadMedia with the file as a multipart part (variable `media`). */
export function uploadMultipart(
  url: string,
  bytes: Buffer,
  options: UploadMediaOptions = {},
): Promise<UploadReply<{ uploadMedia: UploadedMediaJson }>> {
  const variables: Record<string, unknown> = {};
  if (options.mediaCategory !== undefined) variables.mediaCategory = options.mediaCategory;
  if (options.additionalOwners !== undefined) variables.additionalOwners = options.additionalOwners;
  if (options.mediaData !== undefined) variables.mediaData = options.mediaData;
  const authorization = authorizationOf(options);
  return postMultipart(
    url,
    { query: UPLOAD_MEDIA, variables },
    {
      files: {
        media: { bytes, filename: options.filename ?? 'image', ...(options.contentType ? { contentType: options.contentType } : {}) },
      },
      ...(options.preflight !== undefined ? { preflight: options.preflight } : {}),
      ...(authorization !== undefined ? { authorization } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
}

/** uploadMedia as a JSON request; `mediaData` is the base64 (or omitted). */
export async function uploadJson(
  url: string,
  mediaData: string | undefined,
  options: UploadMediaOptions = {},
): Promise<UploadReply<{ uploadMedia: UploadedMediaJson }>> {
  const variables: Record<string, unknown> = {};
  if (mediaData !== undefined) variables.mediaData = mediaData;
  if (options.mediaCategory !== undefined) variables.mediaCategory = options.mediaCategory;
  if (options.additionalOwners !== undefined) variables.additionalOwners = options.additionalOwners;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  const authorization = authorizationOf(options);
  if (authorization !== undefined) headers.authorization = authorization;
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query: UPLOAD_MEDIA, variables }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return parse(response.status, await response.text());
}

export interface OAuth1Credentials {
  consumerKey: string;
  consumerSecret: string;
  token?: string;
  tokenSecret?: string;
}

/**
 * An OAuth 1.0a HMAC-SHA1 Authorization header signed by the independent `oauth-1.0a` library over `method` and `url`
 * (its query included, no body parameters: multipart and JSON bodies are not signed). `now` sets oauth_timestamp (the
 * server checks it against its own clock, which tests drive).
 */
export function oauth1Header(credentials: OAuth1Credentials, request: { method: string; url: string; now: () => Date }): string {
  const oauth = new OAuth({
    consumer: { key: credentials.consumerKey, secret: credentials.consumerSecret },
    signature_method: 'HMAC-SHA1',
    hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64'),
  });
  oauth.getTimeStamp = () => Math.floor(request.now().getTime() / 1000);
  const token = credentials.token !== undefined ? { key: credentials.token, secret: credentials.tokenSecret ?? '' } : undefined;
  return oauth.toHeader(oauth.authorize({ method: request.method, url: request.url }, token)).Authorization;
}
