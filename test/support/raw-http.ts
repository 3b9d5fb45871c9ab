import { connect } from 'node:net';

/**
 * Raw HTTP/1.1 over a socket, for requests no HTTP client will send: bodies that end before their Content-Length,
 * header blocks past the limit, broken framing. The reply is read until the server closes the connection or `timeoutMs`
 * passes (a hang is a failure the caller sees as `timedOut`).
 */
export interface RawReply {
  /** 0 when nothing parseable came back. */
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body parsed as JSON, or undefined. */
  json: any;
  /** Everything received, as text. */
  raw: string;
  timedOut: boolean;
  /** The connection was reset instead of answered. */
  reset: boolean;
}

export function parseRawReply(raw: string, timedOut: boolean, reset: boolean): RawReply {
  const end = raw.indexOf('\r\n\r\n');
  const head = end < 0 ? raw : raw.slice(0, end);
  let body = end < 0 ? '' : raw.slice(end + 4);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  else if (headers['content-length'] !== undefined) body = body.slice(0, Number(headers['content-length']));
  let json: unknown;
  try {
    json = body === '' ? undefined : JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status, headers, body, json, raw, timedOut, reset };
}

function dechunk(text: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const lineEnd = text.indexOf('\r\n', at);
    if (lineEnd < 0) return out;
    const size = parseInt(text.slice(at, lineEnd), 16);
    if (!(size > 0)) return out;
    out += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

/**
 * Sends `request` (bytes or text) on a new connection to `baseUrl`'s host and port, half-closes when `endAfterWrite`,
 * and reads the reply. Only the first reply is parsed; `untilClose` reads on until the server closes (pipelined replies
 * are then all in `raw`).
 */
export function rawRequest(
  baseUrl: string,
  request: string | Buffer,
  options: { timeoutMs?: number; endAfterWrite?: boolean; untilClose?: boolean } = {},
): Promise<RawReply> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    let reset = false;
    const socket = connect(Number(url.port), url.hostname);
    const finish = (timedOut: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parseRawReply(Buffer.concat(chunks).toString('latin1'), timedOut, reset));
    };
    // bound: a server that neither completes its reply nor closes by then ends the read, reported as timed out
    const timer = setTimeout(() => finish(true), options.timeoutMs ?? 10_000);
    socket.on('connect', () => {
      socket.write(request);
      if (options.endAfterWrite) socket.end();
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (options.untilClose) return;
      // A complete reply with a known length ends the read without waiting for the server to close.
      const reply = parseRawReply(Buffer.concat(chunks).toString('latin1'), false, false);
      const length = reply.headers['content-length'];
      const bodyStart = Buffer.concat(chunks).indexOf('\r\n\r\n');
      if (length !== undefined && bodyStart >= 0 && Buffer.concat(chunks).length - bodyStart - 4 >= Number(length)) finish(false);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') reset = true;
      finish(false);
    });
    socket.on('close', () => finish(false));
  });
}

/** A multipart/form-data body from parts, each `{name, filename?, type?, content}`; `truncate` cuts it short. */
export function multipartBody(
  boundary: string,
  parts: { name: string; filename?: string; type?: string; content: string | Buffer }[],
  options: { close?: boolean } = { close: true },
): Buffer {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    pieces.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n`),
      Buffer.isBuffer(part.content) ? part.content : Buffer.from(part.content),
      Buffer.from('\r\n'),
    );
  }
  if (options.close !== false) pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(pieces);
}
