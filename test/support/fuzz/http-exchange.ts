import { type Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';

/**
 * The fuzz doors' HTTP clients. Unlike fetch, they tell apart the ways a server can fail a client: a reply (any status),
 * no reply within the bound (a hang), and a connection closed or reset where a reply was due (a dropped connection).
 * `httpExchange` goes through node:http (on a kept-alive agent when given one, so the liveness probe can follow on the
 * same connection); `rawExchange` writes bytes on a TCP socket and parses whatever HTTP/1.1 replies come back, for
 * requests node:http refuses to send (bad framing, header floods, pipelining, slow writers).
 */

export interface HttpReply {
  kind: 'reply';
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  text: string;
  /** The body parsed as JSON; undefined when it is not JSON (or empty). */
  json: unknown;
  durationMs: number;
}

export interface HttpHang {
  kind: 'hang';
  durationMs: number;
  /** What had arrived when the bound passed (a status line without its body, say). */
  partial: string;
}

export interface HttpDropped {
  kind: 'dropped';
  durationMs: number;
  /** ECONNRESET, EPIPE, "socket hang up", ECONNREFUSED (nothing listens: the process is gone)… */
  error: string;
  partial: string;
}

export type HttpOutcome = HttpReply | HttpHang | HttpDropped;

export interface HttpExchangeRequest {
  method: string;
  /** Absolute URL; its path and query are sent as they are (already percent-encoded by the generator). */
  url: string;
  headers?: Record<string, string | string[]>;
  body?: Buffer | string | undefined;
  /** A kept-alive agent to reuse one connection; a connection of its own when absent. */
  agent?: Agent;
  timeoutMs: number;
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

export function httpExchange(request: HttpExchangeRequest): Promise<HttpOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
  const url = new URL(request.url);
  return new Promise((resolve) => {
    let settled = false;
    let partial = '';
    const finish = (outcome: HttpOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const headers: Record<string, string | string[]> = { ...request.headers };
    if (
      body !== undefined &&
      !Object.keys(headers).some((name) => name.toLowerCase() === 'content-length' || name.toLowerCase() === 'transfer-encoding')
    ) {
      headers['content-length'] = String(body.length);
    }
    let outgoing: ReturnType<typeof httpRequest>;
    try {
      outgoing = httpRequest(
        {
          protocol: url.protocol,
          host: url.hostname,
          port: url.port,
          method: request.method,
          // The path exactly as generated (the URL class would re-encode it).
          path: request.url.slice(url.origin.length) || '/',
          headers,
          agent: request.agent ?? false,
        },
        (response) => {
          partial = `HTTP ${response.statusCode}`;
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', (error: Error) => finish({ kind: 'dropped', durationMs: elapsed(), error: describeError(error), partial }));
          response.on('aborted', () => finish({ kind: 'dropped', durationMs: elapsed(), error: 'response aborted', partial }));
          response.on('end', () => {
            const bytes = Buffer.concat(chunks);
            const text = bytes.toString('utf8');
            finish({
              kind: 'reply',
              status: response.statusCode ?? 0,
              headers: flattenHeaders(response.headers),
              body: bytes,
              text,
              json: parseJson(text),
              durationMs: elapsed(),
            });
          });
        },
      );
    } catch (error) {
      // node:http refused to send it (an invalid header value, a path with spaces): the generator's fault, not the server's.
      throw new Error(`node:http cannot send this request: ${(error as Error).message}`, { cause: error });
    }
    // bound: an exchange not ended by then is destroyed and judged a hang
    const timer = setTimeout(() => {
      finish({ kind: 'hang', durationMs: elapsed(), partial });
      outgoing.destroy();
    }, request.timeoutMs);
    outgoing.on('error', (error: Error) => {
      // A reply that arrived before our write failed (a server answering early and closing) is still a reply: 'end'
      // settles it.
      if (partial !== '') return;
      finish({ kind: 'dropped', durationMs: elapsed(), error: describeError(error), partial });
    });
    outgoing.end(body);
  });
}

function describeError(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code ? `${code}: ${error.message}` : error.message;
}

/** One HTTP/1.1 reply parsed off a raw socket. */
export interface RawReply {
  status: number;
  reason: string;
  headers: Record<string, string>;
  body: Buffer;
  text: string;
  json: unknown;
}

export interface RawExchangeResult {
  /** Every complete reply, in order. */
  replies: RawReply[];
  /** Bytes after the last complete reply (a reply cut off, or garbage). */
  leftover: Buffer;
  /** How the exchange ended. */
  ending: 'closed' | 'reset' | 'timeout' | 'enough';
  error: string | undefined;
  durationMs: number;
  socket: Socket;
}

export interface RawExchangeOptions {
  host: string;
  port: number;
  /** Pieces written in order, each after its delay (a slow client dribbles). */
  pieces: { bytes: Buffer; delayMs?: number }[];
  /** Half-closes the connection after the last piece (the client will send nothing more). */
  endAfterWrite?: boolean;
  /** Stop reading once this many replies are complete (the socket is left open, for a follow-up request). */
  expectReplies: number;
  /** Method of each request, in order: replies to HEAD have no body. */
  methods?: string[];
  timeoutMs: number;
}

/** Parses complete HTTP/1.1 replies at the start of `buffer`; returns them and the bytes left. */
export function parseRawReplies(buffer: Buffer, methods: string[] = [], closed = false): { replies: RawReply[]; rest: Buffer } {
  const replies: RawReply[] = [];
  let rest = buffer;
  for (;;) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) break;
    const head = rest.subarray(0, headEnd).toString('latin1');
    const [statusLine = '', ...lines] = head.split('\r\n');
    const match = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(statusLine);
    if (!match) break;
    const status = Number(match[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    let at = headEnd + 4;
    let body: Buffer;
    const method = methods[replies.length]?.toUpperCase();
    const bodiless = method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200);
    if (bodiless) {
      body = Buffer.alloc(0);
    } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const chunks: Buffer[] = [];
      let complete = false;
      for (;;) {
        const lineEnd = rest.indexOf('\r\n', at);
        if (lineEnd < 0) break;
        const size = parseInt(rest.subarray(at, lineEnd).toString('latin1'), 16);
        if (!Number.isFinite(size)) break;
        if (size === 0) {
          // Trailers (none expected) end with an empty line.
          const trailerEnd = rest.indexOf('\r\n\r\n', lineEnd);
          if (trailerEnd < 0 && rest.subarray(lineEnd, lineEnd + 4).toString() !== '\r\n\r\n') {
            if (rest.length < lineEnd + 4) break;
          }
          at = (trailerEnd >= 0 ? trailerEnd : lineEnd) + 4;
          complete = true;
          break;
        }
        if (rest.length < lineEnd + 2 + size + 2) break;
        chunks.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
      }
      if (!complete) break;
      body = Buffer.concat(chunks);
    } else if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      if (rest.length < at + length) break;
      body = rest.subarray(at, at + length);
      at += length;
    } else {
      // No length: the body runs to the end of the connection.
      if (!closed) break;
      body = rest.subarray(at);
      at = rest.length;
    }
    rest = rest.subarray(at);
    // An interim reply (100 Continue, 102, 103) comes before the real one and answers nothing by itself.
    if (status >= 100 && status < 200 && status !== 101) continue;
    const text = body.toString('utf8');
    replies.push({ status, reason: match[2] ?? '', headers, body: Buffer.from(body), text, json: parseJson(text) });
  }
  return { replies, rest: Buffer.from(rest) };
}

export function rawExchange(options: RawExchangeOptions): Promise<RawExchangeResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect({ host: options.host, port: options.port });
    socket.setNoDelay(true);
    const received: Buffer[] = [];
    let settled = false;
    let error: string | undefined;
    const finish = (ending: RawExchangeResult['ending']) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const all = Buffer.concat(received);
      const { replies, rest } = parseRawReplies(all, options.methods, ending === 'closed' || ending === 'reset');
      socket.removeAllListeners('data');
      resolve({ replies, leftover: rest, ending, error, durationMs: Math.round(performance.now() - started), socket });
    };
    // bound: an exchange not ended by then is reported as timed out
    const timer = setTimeout(() => finish('timeout'), options.timeoutMs);
    // A server may answer before the whole request has been written (a reply that needs no body): the exchange is
    // complete only once every piece has been sent too, or a follow-up on the same connection would land inside the
    // body the server is still reading.
    let written = false;
    let enough = false;
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      const { replies } = parseRawReplies(Buffer.concat(received), options.methods);
      if (replies.length >= options.expectReplies) {
        enough = true;
        if (written) finish('enough');
      }
    });
    socket.on('error', (failure: Error) => {
      error = describeError(failure);
      // A write after the server has answered and closed (EPIPE) is not a reset of the reply: keep reading.
      if ((failure as NodeJS.ErrnoException).code === 'EPIPE') return;
      finish('reset');
    });
    socket.on('close', () => finish('closed'));
    socket.once('connect', async () => {
      for (const piece of options.pieces) {
        if (settled || socket.destroyed) return;
        // pacing: the pause before this piece of the request, a client dribbling its bytes
        if (piece.delayMs) await new Promise((wait) => setTimeout(wait, piece.delayMs));
        if (settled || socket.destroyed || !socket.writable) return;
        socket.write(piece.bytes);
      }
      if (options.endAfterWrite && !socket.destroyed) socket.end();
      written = true;
      if (enough) finish('enough');
    });
  });
}

/** What a follow-up request on a kept connection got: a reply, the connection closed without one, or nothing in time. */
export type FollowUp = { kind: 'reply'; reply: RawReply } | { kind: 'closed' } | { kind: 'timeout' };

/** Sends one more request on a socket a raw exchange left open and reads its reply. */
export function exchangeOnSocket(socket: Socket, bytes: Buffer, timeoutMs: number): Promise<FollowUp> {
  return new Promise((resolve) => {
    const received: Buffer[] = [];
    let settled = false;
    const finish = (reply: FollowUp) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.removeListener('data', onData);
      socket.removeListener('close', onClose);
      resolve(reply);
    };
    const onData = (chunk: Buffer) => {
      received.push(chunk);
      const { replies } = parseRawReplies(Buffer.concat(received));
      if (replies.length > 0) finish({ kind: 'reply', reply: replies[0]! });
    };
    const onClose = () => {
      const reply = parseRawReplies(Buffer.concat(received), [], true).replies[0];
      finish(reply ? { kind: 'reply', reply } : { kind: 'closed' });
    };
    const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
    socket.on('data', onData);
    socket.on('close', onClose);
    if (socket.destroyed || !socket.writable) {
      finish({ kind: 'closed' });
      return;
    }
    socket.write(bytes);
  });
}
