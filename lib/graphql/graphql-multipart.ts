import { randomBytes } from 'node:crypto';
import { request as httpRequest, type Agent, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Upload, type FileUpload } from 'graphql-upload-ts';

/**
 * Sending a GraphQL operation whose variables hold files as a GraphQL multipart request
 * (https://github.com/jaydenseric/graphql-multipart-request-spec): part `operations` is the JSON request with null where
 * each file goes, part `map` names each file part's variable path, then one part per file, streamed from the file as it
 * arrives — the bytes pass through this hop without being held in memory or written again.
 *
 * Used where @apollo/gateway cannot go by itself: the gateway's data source towards a remote subgraph, and the REST
 * adapter towards a remote gateway.
 */

export interface FoundUpload {
  /** Path below `variables`, e.g. ['media'] or ['input', 'files', 0]. */
  path: (string | number)[];
  upload: Upload;
}

/** JSON-like objects (graphql-js makes variable maps without a prototype). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Every Upload among the variables (depth-first), or an empty list. */
export function findUploads(variables: Record<string, unknown> | undefined | null): FoundUpload[] {
  const found: FoundUpload[] = [];
  const walk = (value: unknown, path: (string | number)[]) => {
    if (value instanceof Upload) found.push({ path, upload: value });
    else if (Array.isArray(value)) value.forEach((item, index) => walk(item, [...path, index]));
    else if (isPlainObject(value)) {
      for (const [key, item] of Object.entries(value)) walk(item, [...path, key]);
    }
  };
  if (variables) walk(variables, []);
  return found;
}

/** A copy of the variables with null at each upload's path (the spec's `operations`). */
function withoutUploads(variables: Record<string, unknown>, uploads: readonly FoundUpload[]): Record<string, unknown> {
  const copy = structuredCloneSafe(variables) as Record<string, unknown>;
  for (const { path } of uploads) {
    let parent: Record<string | number, unknown> = copy;
    for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
    parent[path[path.length - 1]!] = null;
  }
  return copy;
}

/** Plain data copied; uploads (class instances) replaced by null on the way so the copy never holds a stream. */
function structuredCloneSafe(value: unknown): unknown {
  if (value instanceof Upload) return null;
  if (Array.isArray(value)) return value.map(structuredCloneSafe);
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, structuredCloneSafe(item)]));
  }
  return value;
}

/** A header parameter value per the HTML form-encoding rules: quotes and line breaks escaped. */
function quoted(value: string): string {
  return `"${value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;
}

async function* multipartParts(
  boundary: string,
  operations: string,
  map: string,
  files: readonly { name: string; file: FileUpload }[],
): AsyncGenerator<Buffer> {
  const text = (value: string) => Buffer.from(value, 'utf8');
  yield text(
    `--${boundary}\r\nContent-Disposition: form-data; name="operations"\r\nContent-Type: application/json\r\n\r\n${operations}\r\n`,
  );
  yield text(`--${boundary}\r\nContent-Disposition: form-data; name="map"\r\nContent-Type: application/json\r\n\r\n${map}\r\n`);
  for (const { name, file } of files) {
    const type = /^[\w.+-]+\/[\w.+-]+$/.test(file.mimetype) ? file.mimetype : 'application/octet-stream';
    yield text(
      `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}; filename=${quoted(file.filename || 'blob')}\r\nContent-Type: ${type}\r\n\r\n`,
    );
    // 64 KiB reads (the default is 16 KiB): a quarter of the reads, writes and socket sends on the way to the subgraph
    // (what that saves: bench/README.md, "Uploads").
    for await (const chunk of file.createReadStream({ highWaterMark: 65_536 })) yield chunk as Buffer;
    yield text('\r\n');
  }
  yield text(`--${boundary}--\r\n`);
}

export interface MultipartReply {
  status: number;
  statusText: string;
  /** The parsed JSON body, or undefined when the body was not JSON. */
  body: unknown;
  text: string;
  /** The reply's headers (lower-case names): a write's change-log position travels in one (lib/http/log-position.ts). */
  headers: IncomingHttpHeaders;
}

/**
 * POSTs the operation as a GraphQL multipart request and reads the reply. `headers` are sent as given, plus the content type
 * and Apollo-Require-Preflight (the receiving Apollo Server's CSRF prevention refuses multipart without it).
 *
 * Over node:http with the caller's keep-alive `agent` (the gateway's data source owns one per subgraph and destroys it on
 * close; without one, Node's global agent). A file that fails while it is forwarded (its client went away mid-upload)
 * destroys the request, so the receiver drops it at once. Through the global fetch, the connection undici had opened for
 * such a request stayed in its pool with nothing sent, and the receiving server's shutdown waited out its whole grace.
 */
export async function postMultipartOperation(
  url: string,
  request: { query: string; operationName?: string | null | undefined; variables: Record<string, unknown> },
  uploads: readonly FoundUpload[],
  headers: Record<string, string>,
  agent?: Agent,
): Promise<MultipartReply> {
  const files = await Promise.all(uploads.map(async ({ upload }, index) => ({ name: String(index), file: await upload.promise })));
  const operations = JSON.stringify({
    query: request.query,
    ...(request.operationName ? { operationName: request.operationName } : {}),
    variables: withoutUploads(request.variables, uploads),
  });
  const map = JSON.stringify(Object.fromEntries(uploads.map(({ path }, index) => [String(index), [['variables', ...path].join('.')]])));
  const boundary = `----tributary${randomBytes(12).toString('hex')}`;
  const outgoing: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower !== 'content-type' && lower !== 'content-length') outgoing[lower] = value;
  }
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<MultipartReply>((resolve, reject) => {
    const outgoingRequest = send(target, {
      method: 'POST',
      ...(agent ? { agent } : {}),
      headers: {
        ...outgoing,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'apollo-require-preflight': 'true',
        accept: 'application/json',
      },
    });
    outgoingRequest.once('response', (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', reject);
      response.once('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: response.statusCode ?? 0, statusText: response.statusMessage ?? '', body, text, headers: response.headers });
      });
    });
    // The body streams part by part (chunked); a failing part destroys the request, and the error rejects (a reply that
    // came first, e.g. a refusal before the whole body was read, has already settled the promise).
    pipeline(Readable.from(multipartParts(boundary, operations, map, files), { objectMode: false }), outgoingRequest).catch(reject);
  });
}
