import { STATUS_CODES } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * The webhooks door's callback servers, in the test process on 127.0.0.1 (the one host the systems under test may call
 * back: WEBHOOK_ALLOWED_HOSTS). Raw TCP, so that an answer can be anything a hostile receiver sends: any status and
 * reason, a body framed by length, in chunks or by closing, written whole, in pieces or slowly, or never finished — the
 * connection stalled, closed or reset before or in the middle of the answer.
 *
 * - The callback server answers `/hs/<case>` as that case's plan says (the handshake property), `/ok/…` honestly (the
 *   challenge, 200), and records every request.
 * - The forbidden server must never be reached: it is the Location of every redirect (a callback client that followed
 *   one would land there) and the target of every URL the SSRF rules refuse (loopback spelled otherwise, userinfo, other
 *   schemes). Its requests, and the callback server's own `/redirected/…`, are what a case reports as requests the
 *   system should not have made.
 */

/** How the answer's body relates to the challenge of the verification request. */
export type BodyPlan =
  | { kind: 'exact' }
  /** ASCII whitespace (space, tab, CR, LF) around the challenge. */
  | { kind: 'whitespace'; before: string; after: string }
  /** Other characters a trim may or may not remove (VT, FF, NBSP, BOM, U+2028, U+3000…). */
  | { kind: 'odd-space'; before: string; after: string }
  | { kind: 'affixed'; prefix: string; suffix: string }
  | { kind: 'number'; how: 'plus-one' | 'minus-one' | 'leading-zero' | 'negative' | 'decimal' | 'exponent' | 'twice' | 'digits' }
  | { kind: 'empty' }
  /** `lead`, filled with `fill` up to `size` bytes (relative to the system's body bound), then `tail`. */
  | { kind: 'huge'; lead: 'challenge' | 'spaced-challenge' | 'nothing'; fill: ' ' | '\n' | '0' | 'x'; size: number; tail: '' | 'x' | '\n' }
  /** Bytes that are not UTF-8 before, after, or instead of the challenge. */
  | { kind: 'binary'; bytes: number[]; where: 'before' | 'after' | 'instead' }
  | { kind: 'json'; key: string; quoted: boolean };

/** How the answer is sent, and how it fails. */
export interface AnswerPlan {
  status: number;
  /** The reason phrase: the standard one, none, or another. */
  reason: 'standard' | 'empty' | 'other' | 'long';
  /** For a 3xx (and sometimes another status): a Location the client must not follow. */
  location: 'none' | 'absolute' | 'protocol-relative' | 'relative';
  body: BodyPlan;
  contentType: string | undefined;
  framing: 'length' | 'chunked' | 'close';
  timing: { kind: 'whole' } | { kind: 'pieces'; pieces: number } | { kind: 'slow'; pieces: number; totalMs: number };
  fault:
    | 'none'
    /** The request is read and never answered: the system's response timeout must end it. */
    | 'no-answer'
    | 'close-without-answer'
    | 'reset-without-answer'
    /** Status, headers and part of the body (less than was announced), then nothing. */
    | 'stall-mid-body'
    | 'reset-mid-body'
    | 'close-mid-body';
}

/** One request a server received. */
export interface ReceivedRequest {
  server: 'callback' | 'forbidden';
  method: string;
  target: string;
  headers: Record<string, string>;
  at: number;
}

/** What the callback server did with a case's verification request(s). */
export interface HandshakeRecord {
  requests: ReceivedRequest[];
  /** The challenge of the first request (hub.challenge), as the server read it. */
  challenge: string | undefined;
  /** Every hub.challenge value of the first request (more than one is a defect). */
  challenges: string[];
  /** The body the plan made of that challenge (all of it, whatever was sent). */
  body: Buffer | undefined;
  /** The answer was sent complete (no fault), and when its last byte was written, after the request arrived. */
  completeAfterMs: number | undefined;
}

const MAX_REQUEST_HEAD = 64 * 1024;

/**
 * The plan as it really behaves: a body cut by closing the connection is a whole body when nothing else framed it, and
 * a 204 or 304 has no body to cut (its head alone is the whole answer).
 */
export function normalizePlan(plan: AnswerPlan): AnswerPlan {
  const midBody = plan.fault === 'stall-mid-body' || plan.fault === 'reset-mid-body' || plan.fault === 'close-mid-body';
  if ((plan.status === 204 || plan.status === 304) && midBody) return { ...plan, fault: 'none' };
  if (plan.framing === 'close' && plan.fault === 'close-mid-body') return { ...plan, fault: 'none' };
  return plan;
}

function reasonPhrase(status: number, reason: AnswerPlan['reason']): string {
  switch (reason) {
    case 'standard':
      return STATUS_CODES[status] ?? 'Whatever';
    case 'empty':
      return '';
    case 'other':
      return 'OK';
    case 'long':
      return 'Very '.repeat(800);
  }
}

/** The body `plan` makes of `challenge` (`maxBytes`: the system's bound, which `huge` sizes are relative to). */
export function renderBody(plan: BodyPlan, challenge: string, maxBytes: number): Buffer {
  switch (plan.kind) {
    case 'exact':
      return Buffer.from(challenge);
    case 'whitespace':
    case 'odd-space':
      return Buffer.from(`${plan.before}${challenge}${plan.after}`, 'utf8');
    case 'affixed':
      return Buffer.from(`${plan.prefix}${challenge}${plan.suffix}`, 'utf8');
    case 'number': {
      const value = BigInt(challenge);
      const text = {
        'plus-one': String(value + 1n),
        'minus-one': String(value - 1n),
        'leading-zero': `0${challenge}`,
        negative: `-${challenge}`,
        decimal: `${challenge}.0`,
        exponent: `${challenge}e0`,
        twice: `${challenge}${challenge}`,
        digits: '1234567890',
      }[plan.how];
      return Buffer.from(text);
    }
    case 'empty':
      return Buffer.alloc(0);
    case 'huge': {
      const lead = plan.lead === 'challenge' ? challenge : plan.lead === 'spaced-challenge' ? ` \r\n${challenge}` : '';
      const total = Math.max(lead.length + plan.tail.length, maxBytes + plan.size);
      return Buffer.concat([Buffer.from(lead), Buffer.alloc(total - lead.length - plan.tail.length, plan.fill), Buffer.from(plan.tail)]);
    }
    case 'binary': {
      const bytes = Buffer.from(plan.bytes);
      if (plan.where === 'instead') return bytes;
      return plan.where === 'before' ? Buffer.concat([bytes, Buffer.from(challenge)]) : Buffer.concat([Buffer.from(challenge), bytes]);
    }
    case 'json':
      return Buffer.from(`{${JSON.stringify(plan.key)}:${plan.quoted ? JSON.stringify(challenge) : challenge}}`);
  }
}

function parseHead(head: string): { method: string; target: string; headers: Record<string, string> } {
  const [requestLine = '', ...lines] = head.split('\r\n');
  const [method = '', target = ''] = requestLine.split(' ');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { method, target, headers };
}

/** Reads one request head from `socket` and calls `onRequest` with it; a socket that sends junk is closed. */
function serveRaw(onRequest: (socket: Socket, request: Omit<ReceivedRequest, 'server'>) => void, sockets: Set<Socket>): Server {
  return createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A client that resets is normal here (the system's timeout, a reset we made): never an uncaught error.
    socket.on('error', () => undefined);
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_REQUEST_HEAD) socket.destroy();
        return;
      }
      socket.off('data', onData);
      onRequest(socket, { ...parseHead(head.subarray(0, end).toString('latin1')), at: performance.now() });
    };
    socket.on('data', onData);
  });
}

// pacing: a slow server's pause between two pieces of its reply (plan.timing 'slow')
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function chunkFrame(piece: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]);
}

export class HostileCallbackServers {
  private callback: Server | undefined;
  private forbidden: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly plans = new Map<string, AnswerPlan>();
  private readonly records = new Map<string, HandshakeRecord>();
  /** Requests that must never have been made: to the forbidden server, or to the callback server's /redirected/. */
  readonly forbiddenRequests: ReceivedRequest[] = [];
  /** Verification requests to the honest path (/ok/…). */
  honestRequests = 0;
  private nextCase = 1;

  constructor(private readonly maxBytes: number) {}

  get callbackPort(): number {
    return (this.callback?.address() as AddressInfo | null)?.port ?? 0;
  }

  get forbiddenPort(): number {
    return (this.forbidden?.address() as AddressInfo | null)?.port ?? 0;
  }

  async start(): Promise<void> {
    this.callback = serveRaw((socket, request) => this.answer(socket, request), this.sockets);
    this.forbidden = serveRaw((socket, request) => {
      this.forbiddenRequests.push({ server: 'forbidden', ...request });
      socket.end('HTTP/1.1 200 OK\r\ncontent-length: 9\r\nconnection: close\r\n\r\nforbidden');
    }, this.sockets);
    await Promise.all(
      [this.callback, this.forbidden].map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))),
    );
  }

  /** A new case's id, its plan registered: the callback URL `/hs/<id>` is answered as it says. */
  expect(plan: AnswerPlan): string {
    const id = String(this.nextCase++);
    this.plans.set(id, plan);
    this.records.set(id, { requests: [], challenge: undefined, challenges: [], body: undefined, completeAfterMs: undefined });
    return id;
  }

  /** What the case's callback received and sent; the plan is dropped and any connection it left open is closed. */
  finish(id: string): HandshakeRecord {
    const record = this.records.get(id)!;
    this.plans.delete(id);
    this.records.delete(id);
    for (const socket of this.sockets) if ((socket as Socket & { caseId?: string }).caseId === id) socket.destroy();
    return record;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await Promise.all(
      [this.callback, this.forbidden].map((server) => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))),
    );
  }

  private answer(socket: Socket, request: Omit<ReceivedRequest, 'server'>): void {
    let url: URL;
    try {
      url = new URL(request.target, 'http://callback');
    } catch {
      // Not an HTTP request target (TLS bytes sent to a plain server, say): nothing this server answers.
      socket.destroy();
      return;
    }
    const received: ReceivedRequest = { server: 'callback', ...request };
    const [, kind = '', id = ''] = url.pathname.split('/');
    if (kind === 'redirected') {
      this.forbiddenRequests.push(received);
      socket.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    if (kind === 'ok') {
      this.honestRequests++;
      const challenge = Buffer.from(url.searchParams.get('hub.challenge') ?? '');
      socket.end(
        Buffer.concat([
          Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${challenge.length}\r\nconnection: close\r\n\r\n`),
          challenge,
        ]),
      );
      return;
    }
    const plan = kind === 'hs' ? this.plans.get(id) : undefined;
    const record = kind === 'hs' ? this.records.get(id) : undefined;
    if (!plan || !record) {
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    (socket as Socket & { caseId?: string }).caseId = id;
    record.requests.push(received);
    if (record.requests.length > 1) {
      // A second verification request for one subscription: recorded (the case reports it), answered with a refusal.
      socket.end('HTTP/1.1 409 Conflict\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    record.challenges = url.searchParams.getAll('hub.challenge');
    record.challenge = record.challenges[0] ?? '';
    const body = renderBody(plan.body, /^\d+$/.test(record.challenge) ? record.challenge : '0', this.maxBytes);
    record.body = body;
    void this.send(socket, plan, body, id).then((complete) => {
      if (complete) record.completeAfterMs = performance.now() - request.at;
    });
  }

  /** Writes the answer as planned; true when it was sent complete. */
  private async send(socket: Socket, plan: AnswerPlan, body: Buffer, id: string): Promise<boolean> {
    switch (plan.fault) {
      case 'no-answer':
        return false;
      case 'close-without-answer':
        socket.end();
        return false;
      case 'reset-without-answer':
        socket.resetAndDestroy();
        return false;
    }
    const headers = [`HTTP/1.1 ${plan.status} ${reasonPhrase(plan.status, plan.reason)}`];
    if (plan.contentType !== undefined) headers.push(`content-type: ${plan.contentType}`);
    const port = this.forbiddenPort;
    const location = {
      none: undefined,
      absolute: `http://127.0.0.1:${port}/redirected/${id}?hub.challenge=1`,
      'protocol-relative': `//127.0.0.1:${port}/redirected/${id}`,
      relative: `/redirected/${id}`,
    }[plan.location];
    if (location !== undefined) headers.push(`location: ${location}`);
    // A body cut by a fault is shorter than what the head announces (a length, chunks without their end), and shorter
    // than the system's bound, so that the client can never take it for a whole (or a truncated) answer.
    const cut = plan.fault === 'none' ? body.length : Math.min(Math.floor(body.length / 2), this.maxBytes - 1);
    const sent = body.subarray(0, cut);
    const bodyless = plan.status === 204 || plan.status === 304;
    if (plan.framing === 'length' || bodyless)
      headers.push(`content-length: ${bodyless ? 0 : body.length + (plan.fault === 'none' ? 0 : 1)}`);
    else if (plan.framing === 'chunked') headers.push('transfer-encoding: chunked');
    headers.push('connection: close');
    const head = Buffer.from(`${headers.join('\r\n')}\r\n\r\n`, 'latin1');
    const pieces = plan.timing.kind === 'whole' || bodyless ? 1 : Math.max(1, plan.timing.pieces);
    const pause = plan.timing.kind === 'slow' ? plan.timing.totalMs / pieces : 0;
    const parts: Buffer[] = [];
    const payload = bodyless ? Buffer.alloc(0) : sent;
    const size = Math.ceil(payload.length / pieces) || 1;
    for (let at = 0; at < payload.length; at += size) parts.push(payload.subarray(at, at + size));
    const frames = plan.framing === 'chunked' && !bodyless ? parts.map(chunkFrame) : parts;
    const write = (bytes: Buffer) => !socket.destroyed && socket.write(bytes);
    if (plan.timing.kind === 'whole') {
      write(Buffer.concat([head, ...frames]));
    } else {
      write(head);
      for (const frame of frames) {
        await (pause > 0 ? delay(pause) : new Promise((resolve) => setImmediate(resolve)));
        write(frame);
      }
    }
    if (socket.destroyed) return false;
    switch (plan.fault) {
      case 'stall-mid-body':
        return false;
      case 'reset-mid-body':
        socket.resetAndDestroy();
        return false;
      case 'close-mid-body':
        socket.end();
        return false;
      case 'none':
        if (plan.framing === 'chunked' && !bodyless) write(Buffer.from('0\r\n\r\n'));
        socket.end();
        return true;
    }
  }
}
