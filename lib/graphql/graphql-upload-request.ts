import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { Busboy, type BusboyHeaders } from '@fastify/busboy';
import { Upload, WriteStream, type FileUpload } from 'graphql-upload-ts';
import { jsonTextNestsDeeperThan } from '../http/json-nesting.ts';

/**
 * The GraphQL multipart request (https://github.com/jaydenseric/graphql-multipart-request-spec) as graphql-upload-ts's
 * `processRequest` reads it — `operations`, then `map`, then the files, each spooled to a temporary file as it streams
 * and handed to resolvers as an `Upload` — with one difference, and the reason this exists: a file longer than
 * `maxFileSize` is cut at that size and ends normally (the rest of its part is read and thrown away, never stored),
 * where graphql-upload-ts destroys it with a 413.
 *
 * The limit sits one byte past the media rule, so the service that owns the rule sees a file one byte too long and
 * refuses it in its own words. A destroyed file could not do that across the gateway's HTTP hop: the gateway relays a
 * file to the subgraph from its spooled copy, and a copy destroyed half-way has nothing to relay, whereas a cut copy
 * is relayed whole and refused by the subgraph exactly as the embedded gateway's service refuses it.
 */

export interface UploadRequestOptions {
  /** Bytes kept of each file; one past the largest file any resolver accepts. */
  maxFileSize: number;
  /** Largest `operations` or `map` field (an operation may carry a file in base64 in its variables). */
  maxFieldSize: number;
  maxFiles: number;
  /** How deep the `operations` and `map` fields' JSON may nest (checked before they are parsed). */
  maxJsonDepth: number;
}

/** A request error with the HTTP status graphql-upload-ts would give it (400 malformed, 413 too many, 499 gone). */
export class UploadRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const SPEC = 'https://github.com/jaydenseric/graphql-multipart-request-spec';

/**
 * Reads a part nobody wants to its end and throws it away. The error listener is the point: busboy fails a part whose
 * body ends early ("Part terminated early"), and an 'error' event with no listener would end the whole process.
 */
export function discard(stream: Readable): void {
  stream.on('error', () => undefined);
  stream.resume();
}

/** Sets `value` at a dotted path (`variables.media`, `0.variables.files.1`) where the operations hold null. */
function setAtPath(root: unknown, path: string, value: Upload): boolean {
  const keys = path.split('.');
  let parent: unknown = root;
  for (const key of keys.slice(0, -1)) {
    if (typeof parent !== 'object' || parent === null || !Object.hasOwn(parent, key)) return false;
    parent = (parent as Record<string, unknown>)[key];
  }
  const last = keys[keys.length - 1]!;
  if (typeof parent !== 'object' || parent === null || (parent as Record<string, unknown>)[last] !== null) return false;
  (parent as Record<string, unknown>)[last] = value;
  return true;
}

/**
 * Reads a GraphQL multipart request; resolves with the operations (files in place as Uploads) once `map` is read, while
 * the files go on streaming. Temporary copies are released when the response closes.
 */
export function processUploadRequest(request: IncomingMessage, response: ServerResponse, options: UploadRequestOptions): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let parser: InstanceType<typeof Busboy>;
    try {
      parser = new Busboy({
        headers: request.headers as BusboyHeaders,
        limits: {
          fieldSize: options.maxFieldSize,
          fields: 2,
          fileSize: options.maxFileSize,
          files: options.maxFiles,
          parts: 2 + options.maxFiles,
        },
      });
    } catch (error) {
      request.resume();
      reject(new UploadRequestError(400, `Invalid multipart request: ${(error as Error).message}`));
      return;
    }
    new UploadReading(request, response, options, parser, resolve, reject).listen();
  });
}

/** One multipart request being read: what it has read so far, and how it ends. */
class UploadReading {
  private exitError: Error | undefined;
  private released = false;
  private operations: unknown;
  private map: Map<string, Upload> | undefined;

  constructor(
    private readonly request: IncomingMessage,
    private readonly response: ServerResponse,
    private readonly options: UploadRequestOptions,
    private readonly parser: InstanceType<typeof Busboy>,
    private readonly resolve: (operations: unknown) => void,
    private readonly reject: (error: Error) => void,
  ) {}

  /** Listens to the parser, the request and the response, and starts reading. */
  listen(): void {
    const { parser, request, options } = this;
    parser.on('field', (name: string, value: string, _nameTruncated: boolean, valueTruncated: boolean) =>
      this.field(name, value, valueTruncated),
    );
    parser.on('file', (fieldName: string, stream: Readable, filename: string | undefined, encoding: string, mimetype: string) =>
      this.file(fieldName, stream, filename, encoding, mimetype),
    );
    parser.once('filesLimit', () => this.exit(new UploadRequestError(413, `${options.maxFiles} max file uploads exceeded.`)));
    // Past these busboy parses nothing more; without an answer here the request would stall until it timed out.
    parser.once('fieldsLimit', () => this.malformed('Too many multipart fields; only ‘operations’ and ‘map’ come before the files'));
    parser.once('partsLimit', () => this.malformed('Too many multipart parts'));
    parser.once('finish', () => this.finish());
    parser.on('error', (error: Error) => this.exit(new UploadRequestError(400, `Invalid multipart request: ${error.message}`)));
    this.response.once('close', () => {
      this.released = true;
      for (const upload of this.map?.values() ?? []) upload.file?.capacitor.release();
    });
    request.once('close', () => {
      if (!request.readableEnded) this.exit(new UploadRequestError(499, 'Request disconnected during file upload stream parsing.'));
    });
    request.pipe(parser);
  }

  private exit(error: Error): void {
    if (this.exitError) return;
    this.exitError = error;
    for (const upload of this.map?.values() ?? []) {
      if (!upload.file) upload.reject(error);
      // A file still arriving will not be finished: fail its copy, so that a resolver reading it gets the error
      // instead of waiting for bytes that never come (a release alone waits for its readers, and so would leak it).
      else if (!upload.file.capacitor.writableFinished) upload.file.capacitor.destroy(error);
    }
    this.request.unpipe(this.parser);
    // Drain what the client still sends, so that the reply can be read on a kept-alive connection.
    setImmediate(() => this.request.resume());
    this.reject(error);
  }

  private malformed(message: string): void {
    this.exit(new UploadRequestError(400, `${message} (${SPEC}).`));
  }

  private field(name: string, value: string, valueTruncated: boolean): void {
    if (valueTruncated)
      return this.exit(
        new UploadRequestError(413, `The ‘${name}’ multipart field value exceeds the ${this.options.maxFieldSize} byte size limit.`),
      );
    if (name === 'operations') return this.readOperations(value);
    if (name !== 'map') return;
    if (this.operations === undefined) return this.malformed('Disordered multipart fields; ‘map’ should follow ‘operations’');
    this.readMap(value);
  }

  private readOperations(value: string): void {
    const { maxJsonDepth } = this.options;
    if (jsonTextNestsDeeperThan(value, maxJsonDepth)) {
      return this.exit(
        new UploadRequestError(
          400,
          `The ‘operations’ multipart field nests arrays and objects deeper than ${maxJsonDepth} levels (GRAPHQL_MAX_JSON_DEPTH).`,
        ),
      );
    }
    try {
      this.operations = JSON.parse(value);
    } catch {
      return this.malformed('Invalid JSON in the ‘operations’ multipart field');
    }
    if (typeof this.operations !== 'object' || this.operations === null)
      return this.malformed('Invalid type for the ‘operations’ multipart field');
  }

  private readMap(value: string): void {
    const { maxJsonDepth, maxFiles } = this.options;
    let parsed: unknown;
    if (jsonTextNestsDeeperThan(value, maxJsonDepth)) {
      return this.exit(
        new UploadRequestError(
          400,
          `The ‘map’ multipart field nests arrays and objects deeper than ${maxJsonDepth} levels (GRAPHQL_MAX_JSON_DEPTH).`,
        ),
      );
    }
    try {
      parsed = JSON.parse(value);
    } catch {
      return this.malformed('Invalid JSON in the ‘map’ multipart field');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return this.malformed('Invalid type for the ‘map’ multipart field');
    const entries = Object.entries(parsed);
    if (entries.length > maxFiles) return this.exit(new UploadRequestError(413, `${maxFiles} max file uploads exceeded.`));
    const map = new Map<string, Upload>();
    this.map = map;
    for (const [fieldName, paths] of entries) {
      if (!Array.isArray(paths) || !paths.every((path) => typeof path === 'string')) {
        return this.malformed(`Invalid type for the ‘map’ multipart field entry key ‘${fieldName}’ array`);
      }
      const upload = new Upload();
      map.set(fieldName, upload);
      for (const path of paths as string[]) {
        if (!setAtPath(this.operations, path, upload)) {
          return this.malformed(`Invalid object path for the ‘map’ multipart field entry key ‘${fieldName}’ value ‘${path}’`);
        }
      }
    }
    this.resolve(this.operations);
  }

  private file(fieldName: string, stream: Readable, filename: string | undefined, encoding: string, mimetype: string): void {
    const upload = this.map?.get(fieldName);
    if (!this.map || !upload || upload.file || this.exitError) {
      discard(stream);
      if (!this.map) this.malformed('Disordered multipart fields; files should follow ‘map’');
      return;
    }
    let fileError: Error | undefined;
    const capacitor = new WriteStream();
    capacitor.on('error', () => {
      stream.unpipe();
      stream.resume();
    });
    stream.on('error', (error: Error) => {
      // The part was cut short or malformed (busboy's own words): the client's fault, whoever reads the copy next.
      fileError = new UploadRequestError(400, `The file ‘${fieldName}’ did not arrive whole: ${error.message}`);
      stream.unpipe();
      capacitor.destroy(fileError);
    });
    // A copy failed by the request's end (a second file past the limit, the client gone) reads as that failure.
    const failure = () =>
      fileError ??
      (this.released || capacitor.destroyed ? (this.exitError ?? new UploadRequestError(400, 'File missing in the request.')) : undefined);
    const file: FileUpload = {
      fieldName,
      filename: filename ?? '',
      mimetype,
      encoding,
      capacitor,
      createReadStream(readOptions) {
        const error = failure();
        if (error) throw error;
        return capacitor.createReadStream(readOptions);
      },
    };
    // Past maxFileSize busboy stops passing the part on and ends the stream at the part's end: the copy ends cut.
    stream.pipe(capacitor);
    upload.resolve(file);
  }

  private finish(): void {
    this.request.unpipe(this.parser);
    this.request.resume();
    if (this.operations === undefined) return this.malformed('Missing multipart field ‘operations’');
    if (!this.map) return this.malformed('Missing multipart field ‘map’');
    for (const upload of this.map.values()) if (!upload.file) upload.reject(new UploadRequestError(400, 'File missing in the request.'));
  }
}
