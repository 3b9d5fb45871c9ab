import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Requests Node's HTTP parser refuses before any handler sees them — headers over the size limit (431), framing it cannot
 * read (400), a request not received in time (408) — answered with a body in the format of the door they were sent to,
 * instead of Node's bare status line. Node's own default writes `HTTP/1.1 400 Bad Request` and nothing else, which a
 * client of any of our areas cannot tell from a broken proxy.
 */

/** One refusal, as the listener's format renders it. */
export interface ClientErrorReply {
  status: 400 | 405 | 408 | 413 | 417 | 431;
  message: string;
  /** The request's path when the bytes received so far name it (the request line may not have arrived). */
  path: string | undefined;
}

/**
 * Renders a refusal as the listener's error body: a JSON value, sent as `application/json`, or a {@link TypedErrorBody}
 * for a door whose errors have a media type of their own (X API v2's problems).
 */
export type ClientErrorFormat = (reply: ClientErrorReply) => unknown;

/** An error body with its own media type (a JSON value all the same). */
export class TypedErrorBody {
  constructor(
    readonly contentType: string,
    readonly body: unknown,
  ) {}
}

const JSON_TYPE = 'application/json; charset=utf-8';

const REASONS: Record<ClientErrorReply['status'], string> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  417: 'Expectation Failed',
  431: 'Request Header Fields Too Large',
};

function classify(code: string | undefined, maxHeaderBytes: number): Pick<ClientErrorReply, 'status' | 'message'> {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: `the request's headers exceed the limit of ${maxHeaderBytes} bytes` };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'the request was not received in time' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, message: 'the chunk extensions of the request are too large' };
    default:
      return { status: 400, message: `the request is not valid HTTP/1.1 (${code ?? 'unreadable'})` };
  }
}

/** The path of the request line in the bytes the parser held, if they begin with one. */
function pathOf(raw: unknown): string | undefined {
  if (!Buffer.isBuffer(raw)) return undefined;
  const line = raw.subarray(0, 8192).toString('latin1').split('\r\n', 1)[0] ?? '';
  const match = /^[A-Z]{3,10} (\/[^ ?#]*)/.exec(line);
  return match?.[1];
}

/** `format`'s body for a refusal, as JSON text with its media type (a format that throws still gives a body). */
function bodyOf(format: ClientErrorFormat, reply: ClientErrorReply): { text: string; contentType: string } {
  try {
    const formatted = format(reply);
    return formatted instanceof TypedErrorBody
      ? { text: JSON.stringify(formatted.body), contentType: formatted.contentType }
      : { text: JSON.stringify(formatted), contentType: JSON_TYPE };
  } catch {
    return { text: JSON.stringify({ message: reply.message }), contentType: JSON_TYPE };
  }
}

/** Writes a whole refusal on a raw socket and closes it (the parser cannot read on past what it refused). */
function refuseOnSocket(
  socket: Duplex,
  status: ClientErrorReply['status'],
  { text: body, contentType }: { text: string; contentType: string },
  extraHeaders = '',
): void {
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\nConnection: close\r\nContent-Type: ${contentType}\r\n${extraHeaders}` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  // A client that does not read its reply does not keep the socket.
  setTimeout(() => socket.destroy(), 1000).unref();
}

/**
 * Answers, on `server`, everything Node would otherwise answer with a bare status line or not at all, with `format`'s
 * body:
 * - what its parser refuses (headers too large, framing it cannot read, too slow): 431 / 400 / 408, then the connection
 *   closes; a connection already gone, or whose reply has begun, is just closed;
 * - an `Expect` header other than 100-continue: 417;
 * - a CONNECT request (Node hands it to a proxy handler, and without one drops the connection): 405.
 * An HTTP/1.1 request without a Host header (400 as RFC 9112 asks) is answered by the request handler createHttpServer
 * wraps, because Node's own check answers it before any listener could.
 */
export function answerClientErrors(server: Server, format: ClientErrorFormat, maxHeaderBytes: number): void {
  // Sockets already answered: the client may still be sending (a request dribbled in pieces), and each further piece
  // fails to parse again. Closing the socket then, with unread bytes in it, would reset the connection and could
  // discard the refusal before the client reads it; the socket is left to close by itself once answered.
  const answered = new WeakSet<Duplex>();
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Duplex) => {
    if (answered.has(socket)) return;
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, message } = classify(error.code, maxHeaderBytes);
    answered.add(socket);
    const refuse = () => refuseOnSocket(socket, status, bodyOf(format, { status, message, path: pathOf(error.rawPacket) }));
    // A reply in progress belongs to an earlier request on this connection when that request was received whole
    // (pipelined before the one that failed to parse) or its reply has begun: the refusal follows it once it is whole.
    // Writing the refusal first would close the connection under that reply — a PUT whose change commits but whose
    // answer is lost. A reply not yet begun to a request not yet whole is the failing request's own (its body never
    // came, or came broken): the refusal takes its place.
    const inFlight = (socket as Duplex & { _httpMessage?: (ServerResponse & { req?: IncomingMessage }) | null })._httpMessage;
    if (inFlight && !inFlight.writableFinished && (inFlight.headersSent || inFlight.req?.complete === true)) {
      inFlight.once('finish', () => (socket.writable ? refuse() : socket.destroy()));
      // A reply that closes without finishing (its connection lost) leaves nothing to follow; one that finished has
      // had its refusal written, which a destroy here would cut off.
      inFlight.once('close', () => inFlight.writableFinished || socket.destroy());
      return;
    }
    refuse();
  });
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const reply: ClientErrorReply = {
      status: 417,
      message: `the expectation "${String(request.headers.expect)}" is not supported`,
      path: pathname(request.url),
    };
    const { text, contentType } = bodyOf(format, reply);
    response.writeHead(417, { 'content-type': contentType, connection: 'close' }).end(text);
  });
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    const reply: ClientErrorReply = { status: 405, message: 'CONNECT is not supported: this is not a proxy', path: undefined };
    socket.on('error', () => undefined);
    refuseOnSocket(socket, 405, bodyOf(format, reply), 'Allow: GET, POST, PUT, DELETE\r\n');
    request.resume();
  });
}

/** The path of a request's target, without its query. */
function pathname(url: string | undefined): string | undefined {
  return url?.startsWith('/') ? url.split(/[?#]/, 1)[0] : undefined;
}

/**
 * `handler` with the Host rule of RFC 9112 §3.2 in front: an HTTP/1.1 request without a Host header is answered 400 in
 * `format`. (Node's own check, `requireHostHeader`, answers it with an empty 400 before any handler runs; the server is
 * made with it off so that this one answers instead.)
 */
export function requireHost(handler: RequestListener, format: ClientErrorFormat): RequestListener {
  return (request, response) => {
    const host = request.headers.host;
    // A Host that is no host (spaces, '/', '@'…) would make every absolute URL built from it throw: it is refused here,
    // once, for every route (paging links, OAuth base strings and request descriptions are built from it).
    const problem =
      host === undefined
        ? request.httpVersion === '1.1'
          ? 'an HTTP/1.1 request must carry a Host header'
          : undefined
        : isHost(host)
          ? undefined
          : 'the Host header is not a host name or address (with an optional port)';
    if (problem !== undefined) {
      const reply: ClientErrorReply = { status: 400, message: problem, path: pathname(request.url) };
      request.resume();
      const { text, contentType } = bodyOf(format, reply);
      response.writeHead(400, { 'content-type': contentType, connection: 'close' }).end(text);
      return;
    }
    handler(request, response);
  };
}

/** True when `value` is what a URL's authority may hold as host and port (no user info, path or spaces). */
function isHost(value: string): boolean {
  if (value === '' || /[\s/\\?#@]/.test(value)) return false;
  try {
    return new URL(`http://${value}/`).host !== '';
  } catch {
    return false;
  }
}

/**
 * The GraphQL-over-HTTP error shape, for the gateway's and the subgraphs' listeners. Every request-level refusal
 * carries BAD_REQUEST, as Apollo Server's own (a multipart field over its limit included); the status says which.
 */
export const graphqlClientErrorFormat: ClientErrorFormat = ({ message }) => ({
  errors: [{ message, extensions: { code: 'BAD_REQUEST' } }],
});
