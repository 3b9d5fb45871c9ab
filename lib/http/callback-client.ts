import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import {
  request as httpRequest,
  type ClientRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';

/**
 * The outbound HTTP client for webhooks (issue 26, item 4): the platform POSTs signed deliveries to, and makes a
 * verification GET to, URLs that third-party apps register. Those URLs are hostile input pointed at our own network
 * (SSRF): a name may resolve to loopback, a private range or the cloud's metadata service, and may resolve to a public
 * address when the URL is checked and to an internal one a moment later (DNS rebinding). So every request checks the URL
 * again, connects to the very addresses it checked (Node never resolves the name itself), follows no redirect (a
 * Location could point anywhere), and bounds its time and the bytes it reads. It never logs: the caller's headers carry
 * signatures and the caller decides what a delivery log holds.
 */

/** One address a host name resolved to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses, IPv4 and IPv6 (tests inject one; DNS otherwise). */
export type CallbackLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export interface CallbackClientOptions {
  /** Allow loopback, private, link-local and other non-public addresses (tests and local development). Cloud metadata
   *  addresses stay refused even then: no webhook is ever meant for them; name such a host in `allowedHosts`. */
  allowPrivate: boolean;
  /** Host names or IP literals always allowed, whatever they resolve to (e.g. ['127.0.0.1']). Matched against the URL's
   *  host exactly (case and a trailing dot aside), never against what another name resolves to. */
  allowedHosts?: readonly string[];
  /** Refuse http: URLs (production). */
  requireHttps: boolean;
  /** How long the TCP connection (and, for https:, the TLS handshake) may take. */
  connectTimeoutMs: number;
  /** The deadline of the whole exchange: the DNS check, connecting, sending, and reading the whole answer. In `check()`,
   *  the bound of the DNS lookup. */
  responseTimeoutMs: number;
  /** The most body bytes read from an answer; the rest is not read (the connection is closed) and `truncated` is set. */
  maxResponseBytes: number;
  /** DNS lookup; defaults to node:dns/promises `lookup` with `all: true`. */
  lookup?: CallbackLookup;
  /** The User-Agent header sent when the request's own headers name none. */
  userAgent?: string;
}

/** Why a URL is refused before any connection is made. */
export type CallbackRefusal = 'invalid_url' | 'https_required' | 'unresolvable' | 'forbidden_address';

/** A URL checked: where it may be sent, or why not (`message` is safe to show the app's developer). */
export type CallbackCheck =
  { ok: true; url: URL; addresses: readonly ResolvedAddress[] } | { ok: false; reason: CallbackRefusal; message: string };

/** Why an allowed request got no complete answer. */
export type CallbackFailure = 'timeout' | 'connect' | 'reset' | 'tls' | 'other';

export interface CallbackRequest {
  method: 'GET' | 'POST';
  url: string;
  /** Sent as given, except Host, Connection, Content-Length and Transfer-Encoding, which the client sets itself. */
  headers?: Readonly<Record<string, string>>;
  body?: Buffer | string;
}

/** What a request came to. Never a rejection: network trouble is a `failed` result. */
export type CallbackResponse =
  | {
      kind: 'response';
      status: number;
      headers: IncomingHttpHeaders;
      /** At most `maxResponseBytes` bytes. */
      body: Buffer;
      /** The answer had more than `maxResponseBytes` body bytes; the rest was not read. */
      truncated: boolean;
      /** Always false: a 3xx is the answer, its Location is never followed. */
      redirected: false;
      durationMs: number;
    }
  | { kind: 'refused'; reason: CallbackRefusal; message: string }
  | { kind: 'failed'; reason: CallbackFailure; message: string; durationMs: number };

export interface CallbackClient {
  /** Checks a callback URL (at subscribe time): its syntax, its scheme, and every address its host resolves to. */
  check(url: string): Promise<CallbackCheck>;
  /** Checks the URL again and, if it passes, sends one request to the addresses just checked. */
  request(request: CallbackRequest): Promise<CallbackResponse>;
}

// ---- address classification ----

/** What kind of address an IP address is; everything but `public` is refused unless allowed. */
export type AddressClass =
  'public' | 'loopback' | 'private' | 'link_local' | 'unspecified' | 'cgnat' | 'multicast' | 'reserved' | 'metadata';

/** How a class reads in a refusal. */
const CLASS_WORDS: Record<Exclude<AddressClass, 'public'>, string> = {
  loopback: 'a loopback address',
  private: 'a private-network address',
  link_local: 'a link-local address',
  unspecified: 'the unspecified address',
  cgnat: 'a carrier-grade NAT (shared) address',
  multicast: 'a multicast address',
  reserved: 'a reserved or special-purpose address',
  metadata: 'a cloud metadata service address',
};

/**
 * A range whose addresses carry an IPv4 address in 32 of their bits, `embedsIpv4At` bits from the low end (NAT64, 6to4):
 * the address is what that IPv4 address is, so 64:ff9b::7f00:1 is loopback and 2002:c0a8:101:: is private.
 */
type Embedded = { embedsIpv4At: bigint };

/**
 * Every range, most specific first; the first that holds an address classifies it. IPv4 ranges are written as IPv4 and
 * kept as their IPv4-mapped IPv6 form, so one table and one comparison serve both families. IPv4: IANA's special-purpose
 * registry. IPv6: only global unicast (2000::/3) is public, less its special-purpose blocks; the rest of the space is
 * unassigned or special (IPv4-compatible ::a.b.c.d, discard-only 100::/64, …).
 */
const RANGE_TABLE: ReadonlyArray<readonly [cidr: string, kind: Exclude<AddressClass, 'public'> | Embedded | 'public']> = [
  // Cloud metadata services first: each lies inside a broader range below but is refused even with allowPrivate.
  ['169.254.169.254/32', 'metadata'], // AWS, GCP, Azure, OpenStack, …
  ['fd00:ec2::254/128', 'metadata'], // AWS over IPv6
  ['100.100.100.200/32', 'metadata'], // Alibaba Cloud
  ['168.63.129.16/32', 'metadata'], // Azure's platform endpoint (a public address that only answers inside Azure)
  ['0.0.0.0/32', 'unspecified'],
  ['0.0.0.0/8', 'reserved'], // "this network"
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'cgnat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link_local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'], // IETF protocol assignments (Oracle Cloud's metadata is 192.0.0.192)
  ['192.0.2.0/24', 'reserved'], // TEST-NET-1
  ['192.88.99.0/24', 'reserved'], // 6to4 relay anycast
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'], // benchmarking
  ['198.51.100.0/24', 'reserved'], // TEST-NET-2
  ['203.0.113.0/24', 'reserved'], // TEST-NET-3
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'], // including the broadcast address
  ['::ffff:0:0/96', 'public'], // any other IPv4 address (kept mapped), before the IPv6 rules below
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['64:ff9b::/96', { embedsIpv4At: 0n }], // NAT64: the gateway connects to the embedded IPv4 address
  ['2002::/16', { embedsIpv4At: 80n }], // 6to4: the embedded IPv4 address is the tunnel's far end
  ['fc00::/7', 'private'], // unique local
  ['fe80::/10', 'link_local'],
  ['fec0::/10', 'private'], // site-local, deprecated but still routed by some networks
  ['ff00::/8', 'multicast'],
  ['2001:db8::/32', 'reserved'], // documentation
  ['2001::/23', 'reserved'], // IETF protocol assignments (Teredo, ORCHID, …)
  ['3fff::/20', 'reserved'], // documentation
  ['2000::/3', 'public'],
  ['::/0', 'reserved'],
];

interface Range {
  base: bigint;
  shift: bigint;
  kind: Exclude<AddressClass, 'public'> | Embedded | 'public';
}

const MAPPED_IPV4 = 0xffffn << 32n;

/** An IPv4 address in dotted-quad form as a 32-bit number. */
function ipv4Value(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    value = (value << 8n) | BigInt(part);
  }
  return value;
}

/** An IPv6 address (a trailing dotted quad allowed) as a 128-bit number. */
function ipv6Value(text: string): bigint | undefined {
  let head = text;
  const tail: bigint[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.indexOf('.', lastColon) !== -1) {
    const ipv4 = ipv4Value(text.slice(lastColon + 1));
    if (ipv4 === undefined) return undefined;
    tail.push(ipv4 >> 16n, ipv4 & 0xffffn);
    head = text.slice(0, lastColon + 1);
    if (!head.endsWith('::')) head = head.slice(0, -1);
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (half: string | undefined): string[] => (half === undefined || half === '' ? [] : half.split(':'));
  const left = groupsOf(halves[0]);
  const right = groupsOf(halves[1]);
  const missing = 8 - left.length - right.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups: bigint[] = [];
  for (const group of [...left, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...right]) {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) return undefined;
    groups.push(BigInt(`0x${group}`));
  }
  groups.push(...tail);
  return groups.reduce((value, group) => (value << 16n) | group, 0n);
}

/** An IP address of either family as 128 bits, IPv4 as its IPv4-mapped form; a zone (fe80::1%eth0) is ignored. */
function addressValue(address: string): bigint | undefined {
  const bare = address.replace(/%.*$/, '');
  switch (isIP(bare)) {
    case 4: {
      const ipv4 = ipv4Value(bare);
      return ipv4 === undefined ? undefined : MAPPED_IPV4 | ipv4;
    }
    case 6:
      return ipv6Value(bare);
    default:
      return undefined;
  }
}

const RANGES: readonly Range[] = RANGE_TABLE.map(([cidr, kind]) => {
  const [address = '', bitsText = ''] = cidr.split('/');
  const ipv4 = isIP(address) === 4;
  const base = addressValue(address);
  const bits = Number(bitsText) + (ipv4 ? 96 : 0);
  if (base === undefined || !Number.isInteger(bits) || bits < 0 || bits > 128) throw new Error(`bad range ${cidr}`);
  return { base, shift: BigInt(128 - bits), kind };
});

function classifyValue(value: bigint): AddressClass {
  for (const range of RANGES) {
    if (value >> range.shift !== range.base >> range.shift) continue;
    if (typeof range.kind !== 'object') return range.kind;
    return classifyValue(MAPPED_IPV4 | ((value >> range.kind.embedsIpv4At) & 0xffffffffn));
  }
  return 'reserved';
}

/** What kind of address `address` (IPv4 or IPv6 text) is, or undefined when it is no IP address. */
export function classifyAddress(address: string): AddressClass | undefined {
  const value = addressValue(address);
  return value === undefined ? undefined : classifyValue(value);
}

// ---- the client ----

/** Names refused before any lookup: inside their cloud they answer for the metadata service. */
const METADATA_NAMES: ReadonlySet<string> = new Set(['metadata.google.internal']);

/** A callback URL longer than this is refused (one a browser would take; a webhook URL is far shorter). */
const MAX_URL_LENGTH = 2048;
/**
 * A request's URL may be longer: the caller adds parameters to a checked callback URL (the verification request's
 * hub.mode, hub.challenge and an encoded hub.verify_token). The bound still keeps any request small.
 */
const MAX_REQUEST_URL_LENGTH = 8192;

/** Headers the client sets itself: the name it checked, one request per connection, the body's own length. */
const OWN_HEADERS: ReadonlySet<string> = new Set(['host', 'connection', 'content-length', 'transfer-encoding']);

/** A host as compared and resolved: lower case, IPv6 without brackets, no trailing dot. */
function normalHost(host: string): string {
  const bare = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return bare.endsWith('.') ? bare.slice(0, -1) : bare;
}

/** An allowedHosts entry in the form the URL parser gives a host (so '::0:1' matches '[::1]', '127.1' '127.0.0.1'). */
function allowedHostKey(entry: string): string {
  const bare = normalHost(entry.trim());
  try {
    return normalHost(new URL(`http://${isIP(bare) === 6 ? `[${bare}]` : bare}/`).hostname);
  } catch {
    return bare;
  }
}

async function systemLookup(hostname: string): Promise<readonly ResolvedAddress[]> {
  const answers = await dnsLookup(hostname, { all: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

type Verified = CallbackCheck | { timedOut: true };

function refuse(reason: CallbackRefusal, message: string): CallbackCheck {
  return { ok: false, reason, message };
}

function errorCode(error: unknown): string | undefined {
  if (error instanceof AggregateError && error.errors.length > 0) return errorCode(error.errors[0]);
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') return error.code;
  return undefined;
}

const CONNECT_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the connection was refused',
  EHOSTUNREACH: 'the host could not be reached',
  ENETUNREACH: 'the network of the host could not be reached',
  ETIMEDOUT: 'the connection attempt timed out',
  EADDRNOTAVAIL: 'the address could not be connected to',
  ERR_SOCKET_CONNECTION_TIMEOUT: 'the connection attempt timed out',
};

const RESET_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

/** OpenSSL's certificate verification results as Node reports them (the others begin ERR_TLS_ or ERR_SSL_). */
const TLS_CODES: ReadonlySet<string> = new Set([
  'EPROTO',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'HOSTNAME_MISMATCH',
]);

/**
 * A network error as a failure reason and a message for the app's developer: a fixed sentence and the error's code,
 * never the error's own message (OpenSSL's carry build paths, and a message may name addresses of ours).
 */
function describeError(error: unknown): { reason: CallbackFailure; message: string } {
  const code = errorCode(error);
  if (code === undefined) return { reason: 'other', message: 'the request failed' };
  const connect = CONNECT_CODES[code];
  if (connect !== undefined) return { reason: 'connect', message: `${connect} (${code})` };
  if (RESET_CODES.has(code)) return { reason: 'reset', message: `the connection was closed before the answer was complete (${code})` };
  if (TLS_CODES.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_')) {
    return { reason: 'tls', message: `the TLS handshake failed (${code})` };
  }
  if (code.startsWith('HPE_')) return { reason: 'other', message: `the answer is not valid HTTP/1.1 (${code})` };
  return { reason: 'other', message: `the request failed (${code})` };
}

/** Settles with `promise`'s outcome, or with 'timeout' after `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<{ value: T } | { error: unknown } | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      expiry,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function checkPositive(name: string, value: number, allowZero = false): void {
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new RangeError(`callback client: ${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, got ${value}`);
  }
}

/** The outbound client for webhook callbacks (see the top of this file). */
export function createCallbackClient(options: CallbackClientOptions): CallbackClient {
  checkPositive('connectTimeoutMs', options.connectTimeoutMs);
  checkPositive('responseTimeoutMs', options.responseTimeoutMs);
  checkPositive('maxResponseBytes', options.maxResponseBytes, true);
  const allowedHosts: ReadonlySet<string> = new Set((options.allowedHosts ?? []).map(allowedHostKey));
  const lookup = options.lookup ?? systemLookup;
  const { allowPrivate, requireHttps, connectTimeoutMs, responseTimeoutMs, maxResponseBytes, userAgent } = options;
  const context: CallbackClientContext = {
    allowedHosts,
    lookup,
    allowPrivate,
    requireHttps,
    connectTimeoutMs,
    responseTimeoutMs,
    maxResponseBytes,
    userAgent,
  };
  return { check: bindContext(context, check), request: bindContext(context, request) };
}

/** What the callback client's functions share: its options, checked. */
interface CallbackClientContext {
  allowedHosts: ReadonlySet<string>;
  lookup: NonNullable<CallbackClientOptions['lookup']>;
  allowPrivate: CallbackClientOptions['allowPrivate'];
  requireHttps: CallbackClientOptions['requireHttps'];
  connectTimeoutMs: CallbackClientOptions['connectTimeoutMs'];
  responseTimeoutMs: CallbackClientOptions['responseTimeoutMs'];
  maxResponseBytes: CallbackClientOptions['maxResponseBytes'];
  userAgent: CallbackClientOptions['userAgent'];
}

/** The (...args: Parameters<typeof check> extends [unknown, ...infer R] ? R : never) => check(context, ...args), its DNS lookup bounded by `lookupTimeoutMs`. */
async function verify(
  context: CallbackClientContext,
  rawUrl: string,
  lookupTimeoutMs: number,
  maxLength = MAX_URL_LENGTH,
): Promise<Verified> {
  const { allowedHosts, lookup, allowPrivate, requireHttps } = context;
  if (rawUrl.length > maxLength) return refuse('invalid_url', `the URL is longer than ${maxLength} characters`);
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return refuse('invalid_url', 'the URL is not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return refuse('invalid_url', 'the URL must use https: or http:');
  if (url.username !== '' || url.password !== '') return refuse('invalid_url', 'the URL must not contain a user name or password');
  const host = normalHost(url.hostname);
  if (host === '') return refuse('invalid_url', 'the URL has no host');
  if (requireHttps && url.protocol !== 'https:') return refuse('https_required', 'the URL must use https:');
  const allowed = allowedHosts.has(host);
  if (!allowed && METADATA_NAMES.has(host)) {
    return refuse('forbidden_address', `the host is ${CLASS_WORDS.metadata}, which callbacks may not reach`);
  }

  let addresses: readonly ResolvedAddress[];
  const literal = isIP(host);
  if (literal !== 0) {
    // An IP literal is its own answer; a lookup would add nothing but a chance to disagree.
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    const answer = await within(
      Promise.resolve().then(() => lookup(host)),
      lookupTimeoutMs,
    );
    if (answer === 'timeout') return { timedOut: true };
    if ('error' in answer) {
      const temporary = errorCode(answer.error) === 'EAI_AGAIN';
      return refuse(
        'unresolvable',
        temporary ? 'the host name could not be resolved now (a temporary DNS failure)' : 'the host name does not resolve',
      );
    }
    addresses = answer.value;
    if (addresses.length === 0) return refuse('unresolvable', 'the host name does not resolve');
    if (addresses.some(({ address }) => isIP(address.replace(/%.*$/, '')) === 0)) {
      return refuse('unresolvable', 'the host name resolved to something that is not an IP address');
    }
    // The family comes from the address itself, not from what the lookup said.
    addresses = addresses.map(({ address }) => ({ address, family: isIP(address.replace(/%.*$/, '')) === 6 ? 6 : 4 }));
  }

  if (!allowed) {
    // Any one bad address refuses the URL: a connection may go to any of them.
    for (const { address } of addresses) {
      const kind = classifyAddress(address) ?? 'reserved';
      if (kind === 'public' || (allowPrivate && kind !== 'metadata')) continue;
      const subject = literal !== 0 ? 'the host is' : 'the host name resolves to';
      return refuse('forbidden_address', `${subject} ${CLASS_WORDS[kind]}, which callbacks may not reach`);
    }
  }
  return { ok: true, url, addresses };
}

async function check(context: CallbackClientContext, url: string): Promise<CallbackCheck> {
  const { responseTimeoutMs } = context;
  try {
    const verified = await verify(context, url, responseTimeoutMs);
    if ('timedOut' in verified) return refuse('unresolvable', `the host name did not resolve within ${responseTimeoutMs} ms`);
    return verified;
  } catch {
    // Nothing in verify(context) is expected to throw (a failing lookup is caught there); a check still never rejects.
    return refuse('unresolvable', 'the host name could not be resolved');
  }
}

async function request(context: CallbackClientContext, input: CallbackRequest): Promise<CallbackResponse> {
  const { responseTimeoutMs } = context;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timedOut = (): CallbackResponse => ({
    kind: 'failed',
    reason: 'timeout',
    message: `no complete answer within ${responseTimeoutMs} ms`,
    durationMs: elapsed(),
  });
  try {
    // Checked again on every call: what the name resolved to at subscribe time says nothing about now.
    const verified = await verify(context, input.url, responseTimeoutMs, MAX_REQUEST_URL_LENGTH);
    if ('timedOut' in verified) return timedOut();
    if (!verified.ok) return { kind: 'refused', reason: verified.reason, message: verified.message };
    const remaining = responseTimeoutMs - (performance.now() - started);
    if (remaining <= 0) return timedOut();
    return await exchange(context, verified.url, verified.addresses, input, remaining, elapsed, timedOut);
  } catch (error) {
    return { kind: 'failed', ...describeError(error), durationMs: elapsed() };
  }
}

function exchange(
  context: CallbackClientContext,
  url: URL,
  addresses: readonly ResolvedAddress[],
  input: CallbackRequest,
  remainingMs: number,
  elapsed: () => number,
  timedOut: () => CallbackResponse,
): Promise<CallbackResponse> {
  const { connectTimeoutMs, maxResponseBytes, userAgent } = context;
  return new Promise<CallbackResponse>((resolve) => {
    const secure = url.protocol === 'https:';
    const hostname = normalHost(url.hostname);
    // Node connects to what this answers instead of resolving the name again, so the connection goes to an address
    // just checked while Host and SNI keep the name. With `all` (Node's happy eyeballs) it gets every checked address.
    const pinned: LookupFunction = (_name: string, lookupOptions: LookupOptions, callback) => {
      const family = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : undefined;
      const candidates = addresses.filter((candidate) => family === undefined || candidate.family === family);
      const first = candidates[0];
      if (first === undefined) {
        callback(Object.assign(new Error('no checked address of the family asked for'), { code: 'EADDRNOTAVAIL' }), []);
      } else if (lookupOptions.all === true) {
        callback(
          null,
          candidates.map(({ address, family: f }): LookupAddress => ({ address, family: f })),
        );
      } else {
        callback(null, first.address, first.family);
      }
    };

    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(input.headers ?? {})) {
      if (!OWN_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
    }
    if (userAgent !== undefined && headers['user-agent'] === undefined) headers['user-agent'] = userAgent;
    // One connection per (...args: Parameters<typeof request> extends [unknown, ...infer R] ? R : never) => request(context, ...args), closed after it: nothing pooled outlives the check it was made under.
    headers.connection = 'close';
    const body = input.body === undefined ? undefined : Buffer.isBuffer(input.body) ? input.body : Buffer.from(input.body, 'utf8');
    if (body !== undefined) headers['content-length'] = String(body.length);

    let sent: ClientRequest;
    try {
      sent = (secure ? httpsRequest : httpRequest)({
        protocol: url.protocol,
        hostname,
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: input.method,
        headers,
        lookup: pinned,
        // A fresh agent without keep-alive (and, unlike the global agent, never one a proxy variable configured).
        agent: false,
        ...(secure && isIP(hostname) === 0 && { servername: hostname }),
      });
    } catch (error) {
      // Header names or values Node refuses (ERR_INVALID_CHAR, …).
      resolve({ kind: 'failed', ...describeError(error), durationMs: elapsed() });
      return;
    }

    const overallTimer = setTimeout(() => {
      settle(timedOut());
      sent.destroy();
    }, remainingMs);
    const connectTimer = setTimeout(() => {
      settle({ kind: 'failed', reason: 'timeout', message: `could not connect within ${connectTimeoutMs} ms`, durationMs: elapsed() });
      sent.destroy();
    }, connectTimeoutMs);
    let settled = false;
    const settle = (result: CallbackResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(overallTimer);
      clearTimeout(connectTimer);
      resolve(result);
    };
    const fail = (error: unknown): void => settle({ kind: 'failed', ...describeError(error), durationMs: elapsed() });

    // Every 'error' is handled, before and after settling: an unhandled one would end the process.
    sent.on('error', fail);
    sent.on('socket', (socket: Socket) => {
      // For https: the TLS handshake counts as connecting; the answer's time is the overall deadline's.
      socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
    });

    sent.on('response', (res: IncomingMessage) => {
      clearTimeout(connectTimer);
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = (truncated: boolean): void =>
        settle({
          kind: 'response',
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks, size),
          truncated,
          redirected: false,
          durationMs: elapsed(),
        });
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = maxResponseBytes - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          size += room;
          finish(true);
          // The rest is not read: closing the connection is the only way to stop a sender that will not.
          sent.destroy();
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () => finish(false));
      res.on('error', fail);
      res.on('close', () => {
        if (!res.complete) fail(Object.assign(new Error('closed early'), { code: 'ECONNRESET' }));
      });
    });

    sent.end(body);
  });
}

/** `fn` with its first argument, the context, given. */
function bindContext<C, A extends unknown[], R>(context: C, fn: (context: C, ...args: A) => R): (...args: A) => R {
  return (...args) => fn(context, ...args);
}
