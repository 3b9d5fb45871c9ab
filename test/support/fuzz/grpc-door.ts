import { connect, constants, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { connect as netConnect } from 'node:net';
import { deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { loadUserExamplePackageDefinition, USER_EXAMPLE_SERVICE_NAME } from '../../../subgraphs/users/grpc/user-example.proto-package.ts';
import { createUserExampleGrpcClient, type UserExampleGrpcClient } from '../grpc-user-client.ts';
import { excerpt, GRPC_CODE_NAMES, judgeGrpcStatus, type Problem } from './error-formats.ts';
import type { CaseOutcome, FuzzDoor } from './fuzz-property.ts';
import { fuzzSettings } from './fuzz-settings.ts';
import type { FuzzSystem } from './fuzz-system.ts';
import type { SystemInfo } from './fuzz-system-protocol.ts';
import { hostileString } from './hostile-values.ts';
import { listParamsModel, type ListParamsModel } from './list-params-arbitrary.ts';
import { escapeBytes, shortStringify, withShortText } from './request-description.ts';

/**
 * Area A's gRPC door, at two levels. Raw HTTP/2 (node:http2): the call's headers and its length-prefixed messages as
 * bytes — undecodable messages, messages cut short or announced longer than sent, compressed flags with and without an
 * encoding, bad `grpc-timeout` and `grpc-encoding`, wrong content types and paths. Well-formed calls (grpc-js, as
 * test/support/grpc-user-client.ts makes them): every method with adversarial field values, List params along their
 * grammar. Every call must end with a status that is neither INTERNAL nor UNKNOWN (nor DATA_LOSS), with a message.
 */

const METHODS = ['Create', 'GetByID', 'UpdateByID', 'DeleteByID', 'List'] as const;
type Method = (typeof METHODS)[number];

let definition: ServiceDefinition | undefined;
function serviceDefinition(): ServiceDefinition {
  definition ??= loadUserExamplePackageDefinition()[USER_EXAMPLE_SERVICE_NAME] as ServiceDefinition;
  return definition;
}

/** A request message of `method` as protobuf bytes (fields the proto does not have are dropped by the encoder). */
export function encodeRequest(method: Method, message: object): Buffer {
  return serviceDefinition()[method]!.requestSerialize(message);
}

/** One gRPC length-prefixed message: compressed flag, 4-byte length (announced, maybe not the real one), bytes. */
export function grpcFrame(payload: Buffer, compressedFlag = 0, announcedLength = payload.length): Buffer {
  const header = Buffer.alloc(5);
  header[0] = compressedFlag;
  header.writeUInt32BE(announcedLength >>> 0, 1);
  return Buffer.concat([header, payload]);
}

type ByteEdit =
  | { op: 'flip'; at: number; value: number }
  | { op: 'cut'; at: number }
  | { op: 'insert'; at: number; bytes: number[] }
  | { op: 'append'; bytes: number[] };

function applyEdits(bytes: Buffer, edits: readonly ByteEdit[]): Buffer {
  let out = Buffer.from(bytes);
  for (const edit of edits) {
    const at = out.length === 0 ? 0 : 'at' in edit ? edit.at % (out.length + 1) : 0;
    switch (edit.op) {
      case 'flip':
        if (out.length > 0) out[at % out.length] = edit.value;
        break;
      case 'cut':
        out = out.subarray(0, at);
        break;
      case 'insert':
        out = Buffer.concat([out.subarray(0, at), Buffer.from(edit.bytes), out.subarray(at)]);
        break;
      case 'append':
        out = Buffer.concat([out, Buffer.from(edit.bytes)]);
        break;
    }
  }
  return out;
}

const byteEdit: fc.Arbitrary<ByteEdit> = fc.oneof(
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ op: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({
    op: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 12 }),
  }),
  fc.record({ op: fc.constant('append' as const), bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 12 }) }),
);

/** Hand-made protobuf that decoders have tripped on: huge lengths, overlong varints, deep groups, wrong wire types. */
const craftedProtobuf = fc.constantFrom(
  Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), // field 1, length 2^32-1, no bytes
  Buffer.from([0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), // an 11-byte varint
  Buffer.from([0x08, 0x80]), // a varint that never ends
  Buffer.concat([Buffer.alloc(5_000, 0x0b), Buffer.alloc(5_000, 0x0c)]), // 5 000 nested start-group tags
  Buffer.from([0x0f]), // wire type 7 (invalid)
  Buffer.from([0x00]), // field number 0
  Buffer.from([0x0d, 0x01, 0x02, 0x03, 0x04]), // field 1 as fixed32 (id is a varint)
  Buffer.from([0x12, 0x03, 0xff, 0xfe, 0xfd]), // field 2 as a string of invalid UTF-8
  Buffer.from([0x0a, 0x02, 0x0a, 0x7f]), // params with a nested message cut short
);

type RawCredential = 'admin' | 'user' | 'none' | 'junk';

export interface GrpcFrameModel {
  path: string;
  method: Method;
  credential: RawCredential;
  contentType: string | undefined;
  te: boolean;
  grpcTimeout: string | undefined;
  grpcEncoding: string | undefined;
  acceptEncoding: string | undefined;
  extraHeaders: [string, string][];
  /** The message bytes (before framing). */
  payload: { kind: 'valid' | 'edited' | 'crafted' | 'random'; bytes: (info: SystemInfo) => Buffer };
  compression: 'none' | 'flag-only' | 'gzip' | 'deflate' | 'garbage' | 'flag-2';
  framing: 'one' | 'none' | 'two' | 'announced-longer' | 'announced-shorter' | 'cut-header' | 'huge-announced';
}

function validMessage(method: Method, info: SystemInfo, variant: number): object {
  const id = info.areaA.userIds[variant % info.areaA.userIds.length]!;
  switch (method) {
    case 'Create':
      return {
        name: 'Grpc Fuzz',
        email: `grpc-${variant}@fuzz.example.com`,
        password: 'fuzz-password-1',
        phone: '13800138000',
        avatar: 'https://cdn.example.com/a.png',
        age: 30,
        gender: 'MALE',
      };
    case 'GetByID':
    case 'DeleteByID':
      return { id };
    case 'UpdateByID':
      return { id, age: variant % 120 };
    case 'List':
      return { params: { page: 0, limit: 5, sort: '-id', columns: [{ name: 'age', exp: 'gte', value: '1', logic: '' }] } };
  }
}

export const grpcFrames: fc.Arbitrary<GrpcFrameModel & { describe(info: SystemInfo): string }> = fc
  .record({
    method: fc.constantFrom(...METHODS),
    pathKind: fc.oneof(
      { weight: 12, arbitrary: fc.constant('method') },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '/api.serverNameExample.v1.userExample/Nope',
          '/api.serverNameExample.v1.Nope/GetByID',
          '/',
          '/x',
          '/grpc.health.v1.Health/Check',
          '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo',
          `/${'a'.repeat(10_000)}`,
          '/api.serverNameExample.v1.userExample/getbyid',
          '/api.serverNameExample.v1.userExample/GetByID/extra',
        ),
      },
    ),
    credential: fc.constantFrom<RawCredential>('admin', 'admin', 'admin', 'user', 'none', 'junk'),
    contentType: fc.oneof(
      { weight: 12, arbitrary: fc.constant<string | undefined>('application/grpc') },
      {
        weight: 1,
        arbitrary: fc.constantFrom<string | undefined>(
          'application/grpc+proto',
          'application/grpc+json',
          'application/json',
          'text/plain',
          undefined,
          'application/grpc-web',
          'application/grpcx',
        ),
      },
    ),
    te: fc.oneof({ weight: 12, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    grpcTimeout: fc.oneof(
      { weight: 10, arbitrary: fc.constant<string | undefined>(undefined) },
      { weight: 2, arbitrary: fc.constantFrom<string | undefined>('5S', '100m', '1H', '99999999H', '1n', '0S') },
      {
        weight: 2,
        arbitrary: fc.constantFrom<string | undefined>(
          'abc',
          '1',
          '-1S',
          '999999999S',
          '1X',
          '',
          ' 5S',
          '1.5S',
          '5s',
          'S',
          '100000000000000000000m',
        ),
      },
    ),
    grpcEncoding: fc.oneof(
      { weight: 10, arbitrary: fc.constant<string | undefined>(undefined) },
      {
        weight: 2,
        arbitrary: fc.constantFrom<string | undefined>('identity', 'gzip', 'deflate', 'snappy', 'br', '', 'GZIP', 'gzip, gzip', 'x-nope'),
      },
    ),
    acceptEncoding: fc.oneof(
      { weight: 10, arbitrary: fc.constant<string | undefined>(undefined) },
      { weight: 1, arbitrary: fc.constantFrom<string | undefined>('gzip', 'identity,deflate,gzip', 'nope', '') },
    ),
    extraHeaders: fc.oneof(
      { weight: 10, arbitrary: fc.constant<[string, string][]>([]) },
      {
        weight: 1,
        arbitrary: fc.array(
          fc.tuple(
            fc.constantFrom(
              'x-request-id',
              'traceparent',
              'grpc-status',
              'grpc-message',
              'grpc-previous-rpc-attempts',
              'authorization-bin',
              'x-bin',
              'user-agent',
            ),
            hostileString({ maxLength: 3_000 }).map((text) => text.replace(/[^\x20-\x7e]/g, '')),
          ),
          { maxLength: 3 },
        ),
      },
    ),
    payloadKind: fc.oneof(
      { weight: 4, arbitrary: fc.constant('valid' as const) },
      { weight: 5, arbitrary: fc.constant('edited' as const) },
      { weight: 2, arbitrary: fc.constant('crafted' as const) },
      { weight: 1, arbitrary: fc.constant('random' as const) },
    ),
    edits: fc.array(byteEdit, { minLength: 1, maxLength: 4 }),
    crafted: craftedProtobuf,
    random: fc.uint8Array({ maxLength: 300 }),
    variant: fc.nat({ max: 1_000_000 }),
    compression: fc.oneof(
      { weight: 12, arbitrary: fc.constant<GrpcFrameModel['compression']>('none') },
      { weight: 1, arbitrary: fc.constantFrom<GrpcFrameModel['compression']>('flag-only', 'gzip', 'deflate', 'garbage', 'flag-2') },
    ),
    framing: fc.oneof(
      { weight: 12, arbitrary: fc.constant<GrpcFrameModel['framing']>('one') },
      {
        weight: 1,
        arbitrary: fc.constantFrom<GrpcFrameModel['framing']>(
          'none',
          'two',
          'announced-longer',
          'announced-shorter',
          'cut-header',
          'huge-announced',
        ),
      },
    ),
  })
  .map((raw) => {
    const model: GrpcFrameModel = {
      path: raw.pathKind === 'method' ? `/${USER_EXAMPLE_SERVICE_NAME}/${raw.method}` : raw.pathKind,
      method: raw.method,
      credential: raw.credential,
      contentType: raw.contentType,
      te: raw.te,
      grpcTimeout: raw.grpcTimeout,
      grpcEncoding: raw.grpcEncoding,
      acceptEncoding: raw.acceptEncoding,
      extraHeaders: raw.extraHeaders,
      payload: {
        kind: raw.payloadKind,
        bytes: (info) => {
          const valid = encodeRequest(raw.method, validMessage(raw.method, info, raw.variant));
          if (raw.payloadKind === 'valid') return valid;
          if (raw.payloadKind === 'edited') return applyEdits(valid, raw.edits);
          if (raw.payloadKind === 'crafted') return raw.crafted;
          return Buffer.from(raw.random);
        },
      },
      compression: raw.compression,
      framing: raw.framing,
    };
    return withShortText({ ...model, describe: (info: SystemInfo) => describeFrames(model, info) }, () =>
      shortStringify({ ...raw, crafted: escapeBytes(raw.crafted, 40) }),
    );
  });

function credentialHeader(credential: RawCredential, info: SystemInfo): string | undefined {
  switch (credential) {
    case 'admin':
      return `Bearer ${info.areaA.adminToken}`;
    case 'user':
      return `Bearer ${info.areaA.userTokens[info.areaA.userIds[0]!]}`;
    case 'junk':
      return 'Bearer junk';
    case 'none':
      return undefined;
  }
}

function requestHeaders(model: GrpcFrameModel, info: SystemInfo): Record<string, string> {
  const headers: Record<string, string> = { ':method': 'POST', ':path': model.path };
  if (model.contentType !== undefined) headers['content-type'] = model.contentType;
  if (model.te) headers.te = 'trailers';
  if (model.grpcTimeout !== undefined) headers['grpc-timeout'] = model.grpcTimeout;
  if (model.grpcEncoding !== undefined) headers['grpc-encoding'] = model.grpcEncoding;
  if (model.acceptEncoding !== undefined) headers['grpc-accept-encoding'] = model.acceptEncoding;
  const authorization = credentialHeader(model.credential, info);
  if (authorization !== undefined) headers.authorization = authorization;
  for (const [name, value] of model.extraHeaders) headers[name] = value;
  return headers;
}

/** The bytes of the request's body: its framed messages, compressed and announced as the model says. */
export function requestBody(model: GrpcFrameModel, info: SystemInfo): Buffer {
  const message = model.payload.bytes(info);
  let payload = message;
  let flag = 0;
  switch (model.compression) {
    case 'flag-only':
      flag = 1;
      break;
    case 'gzip':
      flag = 1;
      payload = gzipSync(message);
      break;
    case 'deflate':
      flag = 1;
      payload = deflateSync(message);
      break;
    case 'garbage':
      flag = 1;
      payload = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), message]);
      break;
    case 'flag-2':
      flag = 2;
      break;
  }
  switch (model.framing) {
    case 'one':
      return grpcFrame(payload, flag);
    case 'none':
      return Buffer.alloc(0);
    case 'two':
      return Buffer.concat([grpcFrame(payload, flag), grpcFrame(payload, flag)]);
    case 'announced-longer':
      return grpcFrame(payload, flag, payload.length + 7);
    case 'announced-shorter':
      return grpcFrame(payload, flag, Math.max(0, payload.length - 1));
    case 'cut-header':
      return grpcFrame(payload, flag).subarray(0, 3);
    case 'huge-announced':
      return grpcFrame(payload, flag, 0xfffffff0);
  }
}

function describeFrames(model: GrpcFrameModel, info: SystemInfo): string {
  const headers = requestHeaders(model, info);
  return `HTTP/2 ${Object.entries(headers)
    .map(([name, value]) => `${name}: ${excerpt(value, 200)}`)
    .join(' | ')} ; body: "${escapeBytes(requestBody(model, info), 600)}"`;
}

/** What came back from one HTTP/2 stream. */
interface StreamResult {
  kind: 'done' | 'hang' | 'dropped';
  status: number | undefined;
  headers: IncomingHttpHeaders;
  trailers: IncomingHttpHeaders;
  body: Buffer;
  error: string | undefined;
  durationMs: number;
}

function sendOnSession(
  session: ClientHttp2Session,
  headers: Record<string, string>,
  body: Buffer,
  timeoutMs: number,
): Promise<StreamResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const result: StreamResult = {
      kind: 'done',
      status: undefined,
      headers: {},
      trailers: {},
      body: Buffer.alloc(0),
      error: undefined,
      durationMs: 0,
    };
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (kind: StreamResult['kind'], error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      result.kind = kind;
      result.error = error;
      result.body = Buffer.concat(chunks);
      result.durationMs = Math.round(performance.now() - started);
      resolve(result);
    };
    let stream: ReturnType<ClientHttp2Session['request']>;
    try {
      stream = session.request(headers, { endStream: false });
    } catch (error) {
      finish('dropped', `the session refused the stream: ${(error as Error).message}`);
      return;
    }
    // bound: a call not ended by then is cancelled and judged a hang
    const timer = setTimeout(() => {
      stream.close(constants.NGHTTP2_CANCEL);
      finish('hang');
    }, timeoutMs);
    stream.on('response', (responseHeaders) => {
      result.headers = responseHeaders;
      result.status = Number(responseHeaders[':status']);
    });
    stream.on('trailers', (trailers) => {
      result.trailers = trailers;
    });
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => finish('done'));
    stream.on('close', () => {
      // A stream reset by the server before any status is a dropped call.
      if (result.status === undefined) finish('dropped', `stream closed with code ${stream.rstCode}`);
      else finish('done');
    });
    stream.on('error', (error: Error) => finish('dropped', error.message));
    stream.end(body);
  });
}

function grpcStatusOf(result: StreamResult): { code: number | undefined; message: string | undefined } {
  const raw = result.trailers['grpc-status'] ?? result.headers['grpc-status'];
  const message = result.trailers['grpc-message'] ?? result.headers['grpc-message'];
  return {
    code: raw === undefined ? undefined : Number(raw),
    message: message === undefined ? undefined : decodeURIComponentSafe(String(message)),
  };
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function summarize(result: StreamResult): string {
  if (result.kind === 'hang') return `no status within ${result.durationMs} ms`;
  if (result.kind === 'dropped' && result.status === undefined) return `dropped after ${result.durationMs} ms: ${result.error}`;
  const { code, message } = grpcStatusOf(result);
  return `:status ${result.status}, grpc-status ${code === undefined ? '(none)' : `${GRPC_CODE_NAMES[code] ?? code} (${code})`}, grpc-message ${JSON.stringify(excerpt(message ?? '', 400))} after ${result.durationMs} ms`;
}

/** Judges a finished stream: an HTTP-level refusal (4xx) of a non-gRPC request is fine; anything gRPC needs a good status. */
function judgeStream(result: StreamResult, timeoutMs: number): { problems: Problem[]; rejected: boolean; unavailable: boolean } {
  if (result.kind === 'hang')
    return { problems: [{ kind: 'hang', detail: `no status within the ${timeoutMs} ms bound` }], rejected: true, unavailable: false };
  if (result.status === undefined)
    return {
      problems: [{ kind: 'dropped', detail: `the stream ended without a reply: ${result.error}` }],
      rejected: true,
      unavailable: false,
    };
  const { code, message } = grpcStatusOf(result);
  if (result.status !== 200) {
    if (result.status >= 500)
      return { problems: [{ kind: '5xx', detail: `HTTP/2 :status ${result.status}` }], rejected: true, unavailable: false };
    // The gRPC spec lets a server refuse a request that is not gRPC at the HTTP level (415 for a wrong content type).
    return { problems: code !== undefined ? judgeGrpcStatus(code, message).problems : [], rejected: true, unavailable: false };
  }
  const judgement = judgeGrpcStatus(code, message);
  if (code === undefined && result.kind === 'dropped')
    judgement.problems.push({ kind: 'dropped', detail: `the stream ended without a status: ${result.error}` });
  return judgement;
}

/**
 * The known-good call: a List of one record as admin, framed by hand (a List, not a GetByID, because the fuzz calls may
 * delete any record, the seeded ones included).
 */
function probeCall(info: SystemInfo): { headers: Record<string, string>; body: Buffer } {
  return {
    headers: {
      ':method': 'POST',
      ':path': `/${USER_EXAMPLE_SERVICE_NAME}/List`,
      'content-type': 'application/grpc',
      te: 'trailers',
      authorization: `Bearer ${info.areaA.adminToken}`,
    },
    body: grpcFrame(encodeRequest('List', PROBE_LIST)),
  };
}

const PROBE_LIST = { params: { page: 0, limit: 1, sort: '', columns: [] } };

/** Shared by both gRPC doors: one kept HTTP/2 session and one grpc-js client, with the probes on them. */
class GrpcConnections {
  private session: ClientHttp2Session | undefined;
  private sessionAddress: string | undefined;
  private client: UserExampleGrpcClient | undefined;
  private clientAddress: string | undefined;

  kept(info: SystemInfo): ClientHttp2Session {
    if (!this.session || this.session.closed || this.session.destroyed || this.sessionAddress !== info.grpcAddress) {
      this.session?.destroy();
      this.session = openSession(info);
      this.sessionAddress = info.grpcAddress;
    }
    return this.session;
  }

  grpcClient(info: SystemInfo): UserExampleGrpcClient {
    if (!this.client || this.clientAddress !== info.grpcAddress) {
      this.client?.close();
      this.client = createUserExampleGrpcClient(info.grpcAddress);
      this.clientAddress = info.grpcAddress;
    }
    return this.client;
  }

  dropSession(): void {
    this.session?.destroy();
    this.session = undefined;
  }

  async probe(info: SystemInfo): Promise<Problem[]> {
    const { requestTimeoutMs } = fuzzSettings();
    const problems: Problem[] = [];
    const { headers, body } = probeCall(info);
    const expectRecord = (result: StreamResult) => {
      const { code } = grpcStatusOf(result);
      return result.kind === 'done' && result.status === 200 && code === 0 && result.body.length >= 5 ? undefined : summarize(result);
    };
    const kept = expectRecord(await sendOnSession(this.kept(info), headers, body, requestTimeoutMs));
    if (kept !== undefined) {
      problems.push({ kind: 'liveness', detail: `the known-good List on the kept HTTP/2 session: ${kept}` });
      this.dropSession();
    }
    const fresh = openSession(info);
    try {
      const wrong = expectRecord(await sendOnSession(fresh, headers, body, requestTimeoutMs));
      if (wrong !== undefined) problems.push({ kind: 'liveness', detail: `the known-good List on a fresh HTTP/2 session: ${wrong}` });
    } finally {
      fresh.destroy();
    }
    // With both raw probes failing the server is unreachable: grpc-js would only wait out its own backoff.
    if (problems.length >= 2) return problems;
    try {
      const reply = await withTimeout(
        this.grpcClient(info).call<{ total?: string }>('List', PROBE_LIST, { authorization: `Bearer ${info.areaA.adminToken}` }),
        requestTimeoutMs,
      );
      if (typeof reply.total !== 'string') problems.push({ kind: 'liveness', detail: `grpc-js List answered ${JSON.stringify(reply)}` });
    } catch (error) {
      problems.push({ kind: 'liveness', detail: `grpc-js List failed: ${(error as Error).message}` });
      // A channel that saw the server go away may stay in backoff: the next case gets a new one.
      this.client?.close();
      this.client = undefined;
    }
    return problems;
  }

  close(): void {
    this.session?.destroy();
    this.client?.close();
  }
}

function openSession(info: SystemInfo): ClientHttp2Session {
  const session = connect(`http://${info.grpcAddress}`);
  // A session the server closes (GOAWAY, reset) fails its streams; the session's own error must not end the runner.
  session.on('error', () => undefined);
  return session;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    // bound: the wait for the reply ends here and fails
    const timer = setTimeout(() => reject(new Error(`no reply within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error as Error);
      },
    );
  });
}

export class GrpcFrameDoor implements FuzzDoor<GrpcFrameModel & { describe(info: SystemInfo): string }> {
  readonly name = 'grpc (raw HTTP/2)';
  private readonly connections = new GrpcConnections();

  async exchange(model: GrpcFrameModel, system: FuzzSystem): Promise<CaseOutcome> {
    const { requestTimeoutMs } = fuzzSettings();
    const info = system.info;
    const result = await sendOnSession(
      this.connections.kept(info),
      requestHeaders(model, info),
      requestBody(model, info),
      requestTimeoutMs,
    );
    if (result.kind !== 'done') this.connections.dropSession();
    const judgement = judgeStream(result, requestTimeoutMs);
    const { code, message } = grpcStatusOf(result);
    return {
      ...judgement,
      summary: summarize(result),
      label: `${result.status} ${code === undefined ? '-' : GRPC_CODE_NAMES[code]}: ${(message ?? result.error ?? '').replace(/\d{4,}/g, 'N').slice(0, 80)}`,
    };
  }

  probe(system: FuzzSystem): Promise<Problem[]> {
    return this.connections.probe(system.info);
  }

  describe(model: GrpcFrameModel & { describe(info: SystemInfo): string }, info: SystemInfo): string {
    return model.describe(info);
  }

  close(): void {
    this.connections.close();
  }
}

/** A well-formed call with adversarial values: what grpc-js sends. */
export interface GrpcCallModel {
  method: Method;
  request: object;
  credential: RawCredential;
}

const int32 = fc.oneof(fc.integer({ min: -5, max: 130 }), fc.constantFrom(0, -1, 2_147_483_647, -2_147_483_648));
const text = fc.oneof(
  { weight: 3, arbitrary: hostileString({ maxLength: 300_000 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('', 'a', 'x@y.z', 'not-an-email', '13800138000', 'https://a.example/p.png', 'javascript:alert(1)'),
  },
);
/** uint64 as the decimal text grpc-js encodes (protobufjs refuses text that is not a number). */
const uint64Text = fc.oneof(
  fc.constantFrom('0', '1', '2', '3', '4', '18446744073709551615', '9223372036854775807', '9223372036854775808'),
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String),
);
const int64Text = fc.oneof(
  fc.constantFrom('0', '-1', '9223372036854775807', '-9223372036854775808'),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
);
const gender = fc.oneof(fc.constantFrom('UNKNOWN', 'MALE', 'FEMALE'), fc.constantFrom(0, 1, 2, 3, -1, 2_147_483_647));

function listParamsMessage(model: ListParamsModel): object {
  const toInt32 = (value: number | string | undefined) => (typeof value === 'number' && Number.isFinite(value) ? value | 0 : 0);
  return {
    params: {
      page: toInt32(model.page),
      limit: toInt32(model.limit),
      sort: model.sort ?? '',
      columns: (model.columns ?? []).map((column) => ({
        name: column.name ?? '',
        exp: column.exp ?? '',
        value: column.value ?? '',
        logic: column.logic ?? '',
      })),
    },
  };
}

export const grpcCalls: fc.Arbitrary<GrpcCallModel> = fc
  .oneof(
    fc.record({
      method: fc.constant<Method>('Create'),
      request: fc.record({ name: text, email: text, password: text, phone: text, avatar: text, age: int32, gender }, { requiredKeys: [] }),
      credential: fc.constantFrom<RawCredential>('none', 'none', 'admin', 'junk'),
    }),
    fc.record({
      method: fc.constantFrom<Method>('GetByID', 'DeleteByID'),
      request: fc.record({ id: uint64Text }),
      credential: fc.constantFrom<RawCredential>('admin', 'admin', 'user', 'none', 'junk'),
    }),
    fc.record({
      method: fc.constant<Method>('UpdateByID'),
      request: fc.record(
        {
          id: uint64Text,
          name: text,
          email: text,
          password: text,
          phone: text,
          avatar: text,
          age: int32,
          gender,
          status: int32,
          login_at: int64Text,
        },
        { requiredKeys: ['id'] },
      ),
      credential: fc.constantFrom<RawCredential>('admin', 'admin', 'user', 'none', 'junk'),
    }),
    fc.record({
      method: fc.constant<Method>('List'),
      request: listParamsModel.map(listParamsMessage),
      credential: fc.constantFrom<RawCredential>('admin', 'admin', 'admin', 'user', 'none', 'junk'),
    }),
  )
  .map((model) => withShortText(model, () => shortStringify(model)));

export class GrpcCallDoor implements FuzzDoor<GrpcCallModel> {
  readonly name = 'grpc (calls)';
  private readonly connections = new GrpcConnections();

  async exchange(model: GrpcCallModel, system: FuzzSystem): Promise<CaseOutcome> {
    const { requestTimeoutMs } = fuzzSettings();
    const info = system.info;
    const metadata: Record<string, string> = {};
    const authorization = credentialHeader(model.credential, info);
    if (authorization !== undefined) metadata.authorization = authorization;
    // The call goes as raw frames on the kept session, encoded exactly as grpc-js would (so that a hang is seen as one,
    // with the stream's own state, rather than as a client-side deadline).
    let body: Buffer;
    try {
      body = grpcFrame(encodeRequest(model.method, model.request));
    } catch (error) {
      throw new Error(`the generator made a request the proto cannot encode: ${(error as Error).message}`, { cause: error });
    }
    const headers: Record<string, string> = {
      ':method': 'POST',
      ':path': `/${USER_EXAMPLE_SERVICE_NAME}/${model.method}`,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...metadata,
    };
    const result = await sendOnSession(this.connections.kept(info), headers, body, requestTimeoutMs);
    if (result.kind !== 'done') this.connections.dropSession();
    const judgement = judgeStream(result, requestTimeoutMs);
    const { code, message } = grpcStatusOf(result);
    return {
      ...judgement,
      summary: summarize(result),
      label: `${model.method} ${code === undefined ? '-' : GRPC_CODE_NAMES[code]}: ${(message ?? '').replace(/\d{4,}/g, 'N').slice(0, 80)}`,
    };
  }

  probe(system: FuzzSystem): Promise<Problem[]> {
    return this.connections.probe(system.info);
  }

  describe(model: GrpcCallModel, info: SystemInfo): string {
    const authorization = credentialHeader(model.credential, info);
    return `grpcurl -plaintext${authorization ? ` -H 'authorization: ${authorization}'` : ''} -d '${shortStringify(model.request, 3_000)}' ${info.grpcAddress} ${USER_EXAMPLE_SERVICE_NAME}/${model.method}`;
  }

  close(): void {
    this.connections.close();
  }
}

/** Bytes that are not HTTP/2 at all, on the gRPC port: the server must drop that connection, not itself. */
export const notHttp2: fc.Arbitrary<Buffer> = fc.oneof(
  fc.constantFrom(
    Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'),
    Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'),
    Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.from([0xff, 0xff, 0xff, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00])]),
    Buffer.concat([
      Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'),
      Buffer.from([0x00, 0x00, 0x06, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0xff, 0xff, 0xff, 0xff]),
    ]),
  ),
  fc.uint8Array({ maxLength: 2_000 }).map((bytes) => Buffer.from(bytes)),
  fc.uint8Array({ maxLength: 500 }).map((bytes) => Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.from(bytes)])),
);

/** Writes `bytes` on a fresh TCP connection to the gRPC port and waits until the server closes it (or the bound). */
export function sendRawBytes(info: SystemInfo, bytes: Buffer, timeoutMs: number): Promise<{ closed: boolean; received: number }> {
  const [host, port] = [
    info.grpcAddress.slice(0, info.grpcAddress.lastIndexOf(':')),
    Number(info.grpcAddress.slice(info.grpcAddress.lastIndexOf(':') + 1)),
  ];
  return new Promise((resolve) => {
    const socket = netConnect({ host, port });
    let received = 0;
    // bound: a connection the server has not closed by then is destroyed, reported as not closed
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ closed: false, received });
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ closed: true, received });
    });
    socket.on('connect', () => socket.end(bytes));
  });
}

/** A door of raw bytes on the gRPC port: judged only by the probes (the server owes such a client nothing but a close). */
export class GrpcBytesDoor implements FuzzDoor<{ bytes: Buffer }> {
  readonly name = 'grpc (not HTTP/2)';
  private readonly connections = new GrpcConnections();

  async exchange(input: { bytes: Buffer }, system: FuzzSystem): Promise<CaseOutcome> {
    // A client that sends garbage and stops may be left waiting by the server (HTTP/2 has no reply to give it); the bound
    // here is only for the test's own sake. What must hold is the probe afterwards.
    const result = await sendRawBytes(system.info, input.bytes, 2_000);
    return {
      problems: [],
      rejected: true,
      unavailable: false,
      summary: `${result.received} bytes back, ${result.closed ? 'closed by the server' : 'left open'}`,
      label: result.closed ? 'closed' : 'open',
    };
  }

  probe(system: FuzzSystem): Promise<Problem[]> {
    return this.connections.probe(system.info);
  }

  describe(input: { bytes: Buffer }, info: SystemInfo): string {
    return `bytes on a TCP connection to ${info.grpcAddress}: "${escapeBytes(input.bytes, 600)}"`;
  }

  close(): void {
    this.connections.close();
  }
}
