import fc from 'fast-check';
import {
  judgeGraphReply,
  judgeGraphqlReply,
  judgeRpcStatusReply,
  judgeUploadReply,
  excerpt,
  type Problem,
  type ReplyView,
} from './error-formats.ts';
import type { CaseOutcome, FuzzDoor } from './fuzz-property.ts';
import { fuzzSettings } from './fuzz-settings.ts';
import type { FuzzSystem } from './fuzz-system.ts';
import type { SystemInfo } from './fuzz-system-protocol.ts';
import { exchangeOnSocket, rawExchange, type RawReply } from './http-exchange.ts';
import { escapeBytes, shortStringify, withShortText } from './request-description.ts';

/**
 * Raw HTTP/1.1 on each HTTP listener (the REST adapter's two hosts and the gateway), for what node:http clients cannot
 * send: header floods and oversized headers, request lines and header lines that do not parse, conflicting framing
 * (Content-Length twice, with Transfer-Encoding), chunked bodies with bad sizes, extensions or endings, bodies shorter or
 * longer than announced, slow writers that dribble a request byte by byte, and pipelined requests. Every reply must be a
 * complete HTTP reply with a JSON body in one of the listener's formats (never an empty 400 or 431), no 5xx; a request
 * that was complete must be answered; the listener must still answer /health on a fresh connection, and on the same one
 * when it kept it open.
 */

export type Listener = 'rest' | 'parent' | 'gateway';

interface RequestParts {
  method: string;
  target: string;
  version: string;
  headers: [string, string][];
  body: Buffer;
  /** How the body is framed: Content-Length, chunked, or neither. */
  framing: 'length' | 'chunked' | 'none';
}

type Mutation =
  | { kind: 'header-flood'; count: number; size: number }
  | { kind: 'huge-header'; size: number }
  | { kind: 'request-line'; line: string }
  | { kind: 'bad-header-line'; line: string }
  | {
      kind: 'framing';
      variant:
        'cl-twice' | 'cl-and-te' | 'te-twice' | 'te-gzip' | 'te-junk' | 'cl-negative' | 'cl-huge' | 'cl-hex' | 'cl-longer' | 'cl-shorter';
    }
  | {
      kind: 'chunked';
      variant: 'bad-size' | 'huge-size' | 'no-crlf' | 'long-extension' | 'junk-trailer' | 'no-last-chunk' | 'size-overflow';
    }
  | { kind: 'header'; name: string; value: string }
  | { kind: 'drop-host' }
  | { kind: 'bytes'; at: number; bytes: number[] };

export interface RawRequestModel {
  base: number;
  mutations: Mutation[];
}

export interface RawHttpModel {
  listener: Listener;
  requests: RawRequestModel[];
  delivery: 'whole' | 'dribble' | 'split';
  pieceSize: number;
  delayMs: number;
  endAfterWrite: boolean;
}

/** Known-good requests of each listener that the mutations start from. */
function baseRequests(listener: Listener, info: SystemInfo): RequestParts[] {
  const json = (method: string, target: string, body: string, extra: [string, string][] = []): RequestParts => ({
    method,
    target,
    version: 'HTTP/1.1',
    headers: [['Host', 'localhost'], ['Content-Type', 'application/json'], ...extra],
    body: Buffer.from(body),
    framing: 'length',
  });
  const get = (target: string, extra: [string, string][] = []): RequestParts => ({
    method: 'GET',
    target,
    version: 'HTTP/1.1',
    headers: [['Host', 'localhost'], ...extra],
    body: Buffer.alloc(0),
    framing: 'none',
  });
  switch (listener) {
    case 'rest':
      return [
        get('/health'),
        get(`/api/v1/userExample/${info.areaA.userIds[0]}`, [['Authorization', `Bearer ${info.areaA.adminToken}`]]),
        json('POST', '/api/v1/userExample/list', '{"params":{"limit":2}}', [['Authorization', `Bearer ${info.areaA.adminToken}`]]),
        get(`/v25.0/me?fields=id,username&access_token=${encodeURIComponent(info.social.tokens.own)}`),
        {
          method: 'POST',
          target: '/1.1/media/upload.json',
          version: 'HTTP/1.1',
          headers: [
            ['Host', 'localhost'],
            ['Content-Type', 'application/x-www-form-urlencoded'],
            ['Authorization', `Bearer ${info.social.tokens.own}`],
          ],
          body: Buffer.from('media_category=tweet_image'),
          framing: 'length',
        },
      ];
    case 'parent':
      return [
        get('/health'),
        get(`/v25.0/me?fields=id,name&access_token=${encodeURIComponent(info.social.tokens.parent)}`),
        get('/v25.0/me/accounts'),
      ];
    case 'gateway':
      return [
        get('/health'),
        json('POST', '/graphql', '{"query":"{ __typename }"}'),
        get('/graphql?query=%7B__typename%7D', [['Apollo-Require-Preflight', 'true']]),
        json('POST', '/graphql', '{"query":"query { userExamples(params: {limit: 1}) { total } }"}', [
          ['Authorization', `Bearer ${info.areaA.adminToken}`],
        ]),
      ];
  }
}

function withFraming(parts: RequestParts): { head: string[]; body: Buffer } {
  const head = [...parts.headers.map(([name, value]) => `${name}: ${value}`)];
  if (parts.framing === 'length') head.push(`Content-Length: ${parts.body.length}`);
  if (parts.framing === 'chunked') head.push('Transfer-Encoding: chunked');
  const body =
    parts.framing === 'chunked'
      ? Buffer.concat([Buffer.from(`${parts.body.length.toString(16)}\r\n`), parts.body, Buffer.from('\r\n0\r\n\r\n')])
      : parts.body;
  return { head, body };
}

/** The request's bytes after its mutations, and whether a server owes it a reply (it is complete as far as HTTP goes). */
export function requestBytes(
  model: RawRequestModel,
  listener: Listener,
  info: SystemInfo,
): { bytes: Buffer; replyDue: boolean; method: string } {
  const bases = baseRequests(listener, info);
  const parts: RequestParts = structuredClone(bases[model.base % bases.length]!);
  parts.body = Buffer.from(parts.body);
  let replyDue = true;
  let requestLine: string | undefined;
  const extraLines: string[] = [];
  let chunkedVariant: Extract<Mutation, { kind: 'chunked' }>['variant'] | undefined;
  let framingVariant: Extract<Mutation, { kind: 'framing' }>['variant'] | undefined;
  const byteEdits: Extract<Mutation, { kind: 'bytes' }>[] = [];
  for (const mutation of model.mutations) {
    switch (mutation.kind) {
      case 'header-flood':
        for (let index = 0; index < mutation.count; index++) parts.headers.push([`X-Flood-${index}`, 'v'.repeat(mutation.size)]);
        break;
      case 'huge-header':
        parts.headers.push(['X-Huge', 'h'.repeat(mutation.size)]);
        break;
      case 'request-line':
        requestLine = mutation.line;
        break;
      case 'bad-header-line':
        extraLines.push(mutation.line);
        break;
      case 'framing':
        framingVariant = mutation.variant;
        break;
      case 'chunked':
        chunkedVariant = mutation.variant;
        if (parts.body.length === 0) parts.body = Buffer.from('{}');
        parts.framing = 'chunked';
        break;
      case 'header':
        parts.headers.push([mutation.name, mutation.value]);
        break;
      case 'drop-host':
        parts.headers = parts.headers.filter(([name]) => name.toLowerCase() !== 'host');
        break;
      case 'bytes':
        byteEdits.push(mutation);
        break;
    }
  }
  let { head, body } = withFraming(parts);
  switch (framingVariant) {
    case 'cl-twice':
      head.push(`Content-Length: ${parts.body.length + 1}`);
      break;
    case 'cl-and-te':
      head.push('Transfer-Encoding: chunked');
      break;
    case 'te-twice':
      head.push('Transfer-Encoding: chunked', 'Transfer-Encoding: chunked');
      break;
    case 'te-gzip':
      head = head.filter((line) => !/^content-length/i.test(line));
      head.push('Transfer-Encoding: gzip');
      break;
    case 'te-junk':
      head.push('Transfer-Encoding: xchunked');
      break;
    case 'cl-negative':
      head = head.filter((line) => !/^content-length/i.test(line));
      head.push('Content-Length: -1');
      break;
    case 'cl-huge':
      head = head.filter((line) => !/^content-length/i.test(line));
      head.push('Content-Length: 99999999999999999999');
      break;
    case 'cl-hex':
      head = head.filter((line) => !/^content-length/i.test(line));
      head.push('Content-Length: 0x10');
      break;
    case 'cl-longer':
      // The server waits for bytes that never come: no reply is owed until the client gives up.
      head = head.filter((line) => !/^content-length/i.test(line));
      head.push(`Content-Length: ${body.length + 100}`);
      replyDue = false;
      break;
    case 'cl-shorter':
      head = head.filter((line) => !/^content-length/i.test(line));
      head.push(`Content-Length: ${Math.max(0, body.length - 1)}`);
      break;
    case undefined:
      break;
  }
  switch (chunkedVariant) {
    case 'bad-size':
      body = Buffer.from(`zz\r\n${parts.body.toString('latin1')}\r\n0\r\n\r\n`, 'latin1');
      break;
    case 'huge-size':
      body = Buffer.from(`ffffffff\r\n${parts.body.toString('latin1')}\r\n0\r\n\r\n`, 'latin1');
      replyDue = false;
      break;
    case 'size-overflow':
      body = Buffer.from(`ffffffffffffffffffff\r\n${parts.body.toString('latin1')}\r\n0\r\n\r\n`, 'latin1');
      break;
    case 'no-crlf':
      body = Buffer.from(`${parts.body.length.toString(16)}\r\n${parts.body.toString('latin1')}0\r\n\r\n`, 'latin1');
      break;
    case 'long-extension':
      body = Buffer.from(
        `${parts.body.length.toString(16)};${'e'.repeat(20_000)}\r\n${parts.body.toString('latin1')}\r\n0\r\n\r\n`,
        'latin1',
      );
      break;
    case 'junk-trailer':
      body = Buffer.from(
        `${parts.body.length.toString(16)}\r\n${parts.body.toString('latin1')}\r\n0\r\nX-Trailer: a\r\nno colon\r\n\r\n`,
        'latin1',
      );
      break;
    case 'no-last-chunk':
      body = Buffer.from(`${parts.body.length.toString(16)}\r\n${parts.body.toString('latin1')}\r\n`, 'latin1');
      replyDue = false;
      break;
    case undefined:
      break;
  }
  const line = requestLine ?? `${parts.method} ${parts.target} ${parts.version}`;
  let bytes = Buffer.concat([Buffer.from(`${line}\r\n${[...head, ...extraLines].join('\r\n')}\r\n\r\n`, 'latin1'), body]);
  for (const edit of byteEdits) {
    const at = edit.at % (bytes.length + 1);
    bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(edit.bytes), bytes.subarray(at)]);
    // Bytes inserted anywhere may turn a complete request into an incomplete one (inside a length, say).
    replyDue = false;
  }
  return { bytes, replyDue, method: parts.method };
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('header-flood' as const),
      count: fc.integer({ min: 50, max: 3_000 }),
      size: fc.integer({ min: 1, max: 40 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('huge-header' as const),
      size: fc.oneof(fc.integer({ min: 16_000, max: 17_000 }), fc.integer({ min: 17_000, max: 200_000 })),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('request-line' as const),
      line: fc.constantFrom(
        'GET /health',
        'GET  /health HTTP/1.1',
        'get /health HTTP/1.1',
        'GET /health HTTP/9.9',
        'GET /health HTTP/1.0',
        'GET /health HTTP/2.0',
        'GET http://localhost/health HTTP/1.1',
        'GET * HTTP/1.1',
        'OPTIONS * HTTP/1.1',
        'CONNECT localhost:80 HTTP/1.1',
        'GET /he\u0000alth HTTP/1.1',
        'GET /h\u00e9alth HTTP/1.1',
        'G\u0001ET / HTTP/1.1',
        `GET /${'a'.repeat(20_000)} HTTP/1.1`,
        'GET /health?x=\r HTTP/1.1',
        'BREW /health HTTP/1.1',
        ' GET /health HTTP/1.1',
        'GET /api/v1/userExample/%zz HTTP/1.1',
        'GET /v25.0/%C0%AF HTTP/1.1',
        'POST /graphql HTTP/1.1',
        'POST /1.1/media/upload.json HTTP/1.1',
        'PUT /api/v1/userExample/1 HTTP/1.1',
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('bad-header-line' as const),
      line: fc.constantFrom(
        'NoColonHere',
        ' Leading: space',
        'Bad Name: x',
        'X: a\u0000b',
        'X: folded\r\n continued',
        ': empty-name',
        'X-Ctl: \u0007',
        'Host: second-host',
        'Content-Type',
        'Authorization: Bearer\u00ff',
      ),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('framing' as const),
      variant: fc.constantFrom(
        'cl-twice',
        'cl-and-te',
        'te-twice',
        'te-gzip',
        'te-junk',
        'cl-negative',
        'cl-huge',
        'cl-hex',
        'cl-longer',
        'cl-shorter',
      ) as fc.Arbitrary<Extract<Mutation, { kind: 'framing' }>['variant']>,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('chunked' as const),
      variant: fc.constantFrom(
        'bad-size',
        'huge-size',
        'no-crlf',
        'long-extension',
        'junk-trailer',
        'no-last-chunk',
        'size-overflow',
      ) as fc.Arbitrary<Extract<Mutation, { kind: 'chunked' }>['variant']>,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('header' as const),
      name: fc.constantFrom(
        'Expect',
        'Upgrade',
        'Connection',
        'Content-Encoding',
        'Content-Type',
        'Accept-Encoding',
        'X-Request-Id',
        'Origin',
        'Access-Control-Request-Method',
        'Te',
        'Keep-Alive',
        'Range',
      ),
      value: fc.constantFrom(
        '100-continue',
        'nonsense',
        'websocket',
        'h2c',
        'close',
        'Upgrade, HTTP2-Settings',
        'gzip',
        'x-nope',
        'multipart/form-data',
        'application/json; charset=utf-16',
        'trailers',
        'bytes=0-1',
        'https://evil.example',
        'a'.repeat(300),
        '\u00ff\u00fe',
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constant<Mutation>({ kind: 'drop-host' }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('bytes' as const),
      at: fc.nat(),
      bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 8 }),
    }),
  },
);

const requestModel: fc.Arbitrary<RawRequestModel> = fc.record({
  base: fc.nat({ max: 10 }),
  mutations: fc.oneof(
    { weight: 1, arbitrary: fc.constant<Mutation[]>([]) },
    { weight: 4, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 2 }) },
  ),
});

export function rawHttpRequests(listener: Listener): fc.Arbitrary<RawHttpModel> {
  return fc
    .record({
      listener: fc.constant(listener),
      requests: fc.oneof(
        { weight: 4, arbitrary: requestModel.map((one) => [one]) },
        { weight: 1, arbitrary: fc.array(requestModel, { minLength: 2, maxLength: 4 }) },
      ),
      delivery: fc.constantFrom<RawHttpModel['delivery']>('whole', 'whole', 'whole', 'split', 'dribble'),
      pieceSize: fc.integer({ min: 1, max: 64 }),
      delayMs: fc.integer({ min: 0, max: 15 }),
      endAfterWrite: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    })
    .map((model) => withShortText(model, () => shortStringify(model)));
}

function listenerUrl(listener: Listener, info: SystemInfo): URL {
  return new URL(listener === 'rest' ? info.restUrl : listener === 'parent' ? info.socialParentUrl : info.gatewayUrl);
}

/** The formats a listener answers in; a reply must fit one (its path is not always known to the parser that refused it). */
function judgeInListenerFormat(listener: Listener, reply: RawReply, method: string): { problems: Problem[]; formatOk: boolean } {
  const view: ReplyView = { status: reply.status, headers: reply.headers, text: reply.text, json: reply.json };
  if (reply.status >= 200 && reply.status < 300) {
    return { problems: [], formatOk: true };
  }
  const judges =
    listener === 'gateway'
      ? [judgeGraphqlReply(view, method)]
      : listener === 'parent'
        ? [judgeGraphReply(view, method), judgeRpcStatusReply(view, method)]
        : [judgeRpcStatusReply(view, method), judgeGraphReply(view, method), judgeUploadReply(view, method)];
  const fitting = judges.find((judgement) => !judgement.problems.some((problem) => problem.kind === 'format'));
  if (fitting) return { problems: fitting.problems, formatOk: true };
  const described = `HTTP ${reply.status} ${reply.headers['content-type'] ?? '(no content type)'} ${reply.text === '' ? '(empty body)' : excerpt(reply.text, 300)}`;
  const fiveHundred = reply.status >= 500 && reply.status !== 503 ? [{ kind: '5xx' as const, detail: described }] : [];
  return {
    problems: [...fiveHundred, { kind: 'format', detail: `a reply in none of the ${listener} listener's formats: ${described}` }],
    formatOk: false,
  };
}

export class RawHttpDoor implements FuzzDoor<RawHttpModel> {
  readonly name = 'raw-http';
  /** The REST listener's base requests include an upload, so the upload's own bookkeeping applies. */
  readonly bookkeepingTables = {
    'media.rate_counter': 'rate-limit counters count refused uploads too',
    'oauth.nonce': 'nonces are spent by any correctly signed request',
  };

  async exchange(model: RawHttpModel, system: FuzzSystem): Promise<CaseOutcome> {
    const { requestTimeoutMs } = fuzzSettings();
    const info = system.info;
    const url = listenerUrl(model.listener, info);
    const built = model.requests.map((request) => requestBytes(request, model.listener, info));
    const all = Buffer.concat(built.map((request) => request.bytes));
    // Replies are owed to every well-formed request of a pipeline and to the first malformed one if it is complete; what
    // follows a malformed request may have become its body (an unknown Transfer-Encoding, a wrong length), so is not owed.
    const firstMalformed = model.requests.findIndex((request) => request.mutations.length > 0);
    const owed = firstMalformed < 0 ? built.length : firstMalformed + (built[firstMalformed]!.replyDue ? 1 : 0);
    const pieces: { bytes: Buffer; delayMs?: number }[] = [];
    if (model.delivery === 'whole') pieces.push({ bytes: all });
    else if (model.delivery === 'split')
      pieces.push(
        { bytes: all.subarray(0, Math.floor(all.length / 2)) },
        { bytes: all.subarray(Math.floor(all.length / 2)), delayMs: model.delayMs },
      );
    else {
      // Dribbled in small pieces, but never for longer than a few seconds in all.
      const size = Math.max(model.pieceSize, Math.ceil(all.length / 150));
      for (let at = 0; at < all.length; at += size) pieces.push({ bytes: all.subarray(at, at + size), delayMs: model.delayMs });
    }
    const result = await rawExchange({
      host: url.hostname,
      port: Number(url.port),
      pieces,
      endAfterWrite: model.endAfterWrite,
      expectReplies: built.length,
      methods: built.map((request) => request.method),
      timeoutMs: owed > 0 ? requestTimeoutMs : 2_000,
    });
    const problems: Problem[] = [];
    for (const reply of result.replies) {
      const judged = judgeInListenerFormat(model.listener, reply, built[result.replies.indexOf(reply)]?.method ?? 'GET');
      problems.push(...judged.problems);
    }
    const answered = result.replies.length;
    // A framing error ends the connection after its reply (the parser cannot find the next request), so a pipeline is
    // owed replies up to and including the first refused request only.
    const firstRefused = result.replies.findIndex((reply) => reply.status >= 400 && /close/i.test(reply.headers.connection ?? ''));
    const dueNow = firstRefused >= 0 ? Math.min(owed, firstRefused + 1) : owed;
    if (answered < dueNow) {
      if (result.ending === 'timeout')
        problems.push({ kind: 'hang', detail: `${answered} of ${dueNow} owed replies within ${requestTimeoutMs} ms` });
      else
        problems.push({
          kind: 'dropped',
          detail: `the connection ${result.ending === 'reset' ? 'was reset' : 'closed'} after ${answered} of ${dueNow} owed replies${result.error ? ` (${result.error})` : ''}${result.leftover.length ? `; left: "${escapeBytes(result.leftover, 200)}"` : ''}`,
        });
    }
    // The same connection, when the server kept it: a known-good request must still be answered on it.
    const last = result.replies[result.replies.length - 1];
    // Only after complete requests: after an incomplete one (a chunk announced 4 GB long) the next bytes are its body.
    const complete = built.every((request) => request.replyDue);
    if (
      complete &&
      result.ending === 'enough' &&
      last &&
      !/close/i.test(last.headers.connection ?? '') &&
      !model.endAfterWrite &&
      !result.socket.destroyed
    ) {
      const again = await exchangeOnSocket(result.socket, Buffer.from('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n'), requestTimeoutMs);
      // After a malformed request the server may close a connection it had kept (the framing is lost); it may not leave
      // the next request unanswered, or answer it wrongly.
      const malformed = model.requests.some((request) => request.mutations.length > 0);
      if (again.kind === 'timeout')
        problems.push({ kind: 'hang', detail: `GET /health on the kept connection: no reply within ${requestTimeoutMs} ms` });
      else if (again.kind === 'closed' && !malformed)
        problems.push({ kind: 'dropped', detail: 'GET /health on the kept connection: closed without a reply' });
      else if (again.kind === 'reply' && again.reply.status !== 200) {
        const judged = judgeInListenerFormat(model.listener, again.reply, 'GET');
        if (!malformed || judged.problems.length > 0)
          problems.push({
            kind: 'liveness',
            detail: `GET /health on the kept connection: HTTP ${again.reply.status} ${excerpt(again.reply.text, 200)}`,
          });
      }
    }
    result.socket.destroy();
    return {
      problems,
      // Raw requests that are answered 2xx may have stored something; refused ones must not have.
      rejected: result.replies.every((reply) => reply.status >= 400),
      unavailable: result.replies.some((reply) => reply.status === 503),
      summary: `${answered} repl${answered === 1 ? 'y' : 'ies'} (${result.replies.map((reply) => `${reply.status} ${excerpt(reply.text, 200)}`).join(' | ')}), connection ${result.ending}${result.error ? ` (${result.error})` : ''}, after ${result.durationMs} ms`,
      label: `${model.listener}: ${result.replies.map((reply) => reply.status).join(',') || '-'} ${result.ending}`,
    };
  }

  async probe(system: FuzzSystem): Promise<Problem[]> {
    const { requestTimeoutMs } = fuzzSettings();
    const problems: Problem[] = [];
    for (const listener of ['rest', 'parent', 'gateway'] as const) {
      const url = listenerUrl(listener, system.info);
      const result = await rawExchange({
        host: url.hostname,
        port: Number(url.port),
        pieces: [{ bytes: Buffer.from('GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n') }],
        expectReplies: 1,
        timeoutMs: requestTimeoutMs,
      });
      result.socket.destroy();
      const reply = result.replies[0];
      if (!reply || reply.status !== 200)
        problems.push({
          kind: 'liveness',
          detail: `GET /health on the ${listener} listener: ${reply ? `HTTP ${reply.status}` : `no reply (${result.ending})`}`,
        });
    }
    return problems;
  }

  describe(model: RawHttpModel, info: SystemInfo): string {
    const url = listenerUrl(model.listener, info);
    const bytes = Buffer.concat(model.requests.map((request) => requestBytes(request, model.listener, info).bytes));
    return `${model.delivery === 'whole' ? 'one write' : model.delivery === 'split' ? `two writes ${model.delayMs} ms apart` : `dribbled in ${model.pieceSize}-byte pieces ${model.delayMs} ms apart`}${model.endAfterWrite ? ', then half-closed' : ''}, to ${url.host} (${model.listener}): "${escapeBytes(bytes, 1_500)}"`;
  }
}
